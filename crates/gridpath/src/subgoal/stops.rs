//! Where a straight scan stops, as bits: per terrain class, one bit per padded cell that is set
//! where a scan over that class stops (a cell of another class, a wall, or a subgoal), once in
//! rows and once in columns. A scan's straight rays then find their stop a 64-cell word at a
//! time instead of reading each cell's class and subgoal slot: on open maps the rays are most
//! of a query (the scans from the start and the goal) and of a repair (the scans again).

use crate::grid::set_cell_bit;

/// Class bits of a padded cell byte (0 is a wall, 1–3 the open terrain classes).
const CLASSES: usize = 4;

/// The bits of one class: `rows[y * row_words + x / 64]` bit `x % 64` for cell `(x, y)`, and
/// `columns[x * column_words + y / 64]` bit `y % 64`.
#[derive(Clone, Debug)]
struct Lines {
    rows: Vec<u64>,
    columns: Vec<u64>,
}

/// The stop bits of every open class present (see the module notes).
#[derive(Clone, Debug)]
pub(super) struct Stops {
    stride: usize,
    height: usize,
    row_words: usize,
    column_words: usize,
    /// Indexed by class; `None` for a class no cell had when these were last laid.
    classes: [Option<Lines>; CLASSES],
}

impl Stops {
    /// The bits for the padded `cells` (class in bits 6–7), no subgoals yet: a subgoal's bit
    /// is set when it is added ([`Stops::refresh`]).
    pub(super) fn new(cells: &[u8], stride: usize) -> Self {
        let height = cells.len() / stride;
        let mut stops = Self {
            stride,
            height,
            row_words: stride.div_ceil(64),
            column_words: height.div_ceil(64),
            classes: [None, None, None, None],
        };
        let mut present = [false; CLASSES];
        for &c in cells {
            present[usize::from(c >> 6)] = true;
        }
        for (class, _) in present.iter().enumerate().skip(1).filter(|(_, here)| **here) {
            stops.lay(class, cells, |_| false);
        }
        stops
    }

    /// Lays the bits of `class` anew from the cells and the subgoals (`vertex`).
    fn lay(&mut self, class: usize, cells: &[u8], vertex: impl Fn(usize) -> bool) {
        let mut lines = Lines {
            rows: vec![0; self.row_words * self.height],
            columns: vec![0; self.column_words * self.stride],
        };
        let words = (self.row_words, self.column_words);
        for (i, &c) in cells.iter().enumerate() {
            if usize::from(c >> 6) != class || vertex(i) {
                let xy = (i % self.stride, i / self.stride);
                set_cell_bit((&mut lines.rows, &mut lines.columns), words, xy, true);
            }
        }
        self.classes[class] = Some(lines);
    }

    /// Sets padded cell `i`'s bits again, from its class in `cells` and whether it is a
    /// subgoal (`vertex`); lays the bits of its class first if no cell had that class before.
    pub(super) fn refresh(&mut self, i: usize, cells: &[u8], vertex: impl Fn(usize) -> bool) {
        let own = usize::from(cells[i] >> 6);
        let is_vertex = vertex(i);
        if own != 0 && self.classes[own].is_none() {
            self.lay(own, cells, vertex);
        }
        let xy = (i % self.stride, i / self.stride);
        let words = (self.row_words, self.column_words);
        for (class, lines) in self.classes.iter_mut().enumerate() {
            if let Some(lines) = lines {
                let stop = class != own || is_vertex;
                set_cell_bit((&mut lines.rows, &mut lines.columns), words, xy, stop);
            }
        }
    }

    /// The bits of `class`, if any cell had it since they were laid (a scan from a cell of
    /// that class always finds them).
    pub(super) fn of(&self, class: u8) -> Option<ClassStops<'_>> {
        self.classes[usize::from(class)].as_ref().map(|lines| ClassStops {
            lines,
            row_words: self.row_words,
            column_words: self.column_words,
        })
    }

    /// Bytes held.
    pub(super) fn bytes(&self) -> usize {
        self.classes.iter().flatten().map(|l| (l.rows.len() + l.columns.len()) * size_of::<u64>()).sum()
    }
}

/// One class's stop bits, for a scan.
#[derive(Clone, Copy)]
pub(super) struct ClassStops<'a> {
    lines: &'a Lines,
    row_words: usize,
    column_words: usize,
}

impl ClassStops<'_> {
    /// How many steps from padded cell `(x, y)` in straight direction `d` (of `DIRS`: north,
    /// east, south, west) the first stop lies, or `limit + 1` when none lies within `limit`
    /// steps. The padding's walls stop every ray, so it always ends.
    #[inline]
    pub(super) fn first(self, (x, y): (usize, usize), d: usize, limit: usize) -> usize {
        let (rows, columns) = (&self.lines.rows, &self.lines.columns);
        let row = || &rows[y * self.row_words..(y + 1) * self.row_words];
        let column = || &columns[x * self.column_words..(x + 1) * self.column_words];
        let found = match d {
            1 => forward(row(), x, limit),
            3 => backward(row(), x, limit),
            2 => forward(column(), y, limit),
            _ => backward(column(), y, limit),
        };
        found.min(limit.saturating_add(1))
    }

    /// Whether padded cell `(x, y)` is a stop.
    #[inline]
    pub(super) fn stops_at(self, (x, y): (usize, usize)) -> bool {
        self.lines.rows[y * self.row_words + x / 64] >> (x % 64) & 1 == 1
    }
}

/// Steps from position `at` to the first set bit after it in `line`, looking no farther than
/// `limit` steps (a larger answer then).
#[inline]
fn forward(line: &[u64], at: usize, limit: usize) -> usize {
    let from = at + 1;
    let mut w = from / 64;
    if w >= line.len() {
        return usize::MAX;
    }
    let mut word = line[w] & (u64::MAX << (from % 64));
    loop {
        if word != 0 {
            return w * 64 + word.trailing_zeros() as usize - at;
        }
        w += 1;
        if w >= line.len() || w * 64 - at > limit {
            return usize::MAX;
        }
        word = line[w];
    }
}

/// Steps from position `at` to the first set bit before it in `line`, looking no farther than
/// `limit` steps (a larger answer then).
#[inline]
fn backward(line: &[u64], at: usize, limit: usize) -> usize {
    if at == 0 {
        return usize::MAX;
    }
    let to = at - 1;
    let mut w = to / 64;
    let mut word = line[w] & (u64::MAX >> (63 - to % 64));
    loop {
        if word != 0 {
            return at - (w * 64 + 63 - word.leading_zeros() as usize);
        }
        if w == 0 || at - (w * 64 - 1) > limit {
            return usize::MAX;
        }
        w -= 1;
        word = line[w];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forward_and_backward_find_the_nearest_set_bit_within_the_limit() {
        let mut line = vec![0u64; 3];
        for p in [5usize, 70, 130] {
            line[p / 64] |= 1 << (p % 64);
        }
        assert_eq!(forward(&line, 0, usize::MAX), 5);
        assert_eq!(forward(&line, 5, usize::MAX), 65);
        assert!(forward(&line, 6, 10) > 10);
        assert_eq!(forward(&line, 69, 1), 1);
        assert_eq!(forward(&line, 71, usize::MAX), 59);
        assert_eq!(forward(&line, 131, usize::MAX), usize::MAX);
        assert_eq!(backward(&line, 130, usize::MAX), 60);
        assert_eq!(backward(&line, 131, usize::MAX), 1);
        assert_eq!(backward(&line, 69, usize::MAX), 64);
        assert!(backward(&line, 69, 63) > 63);
        assert_eq!(backward(&line, 5, usize::MAX), usize::MAX);
        assert_eq!(backward(&line, 0, usize::MAX), usize::MAX);
    }
}
