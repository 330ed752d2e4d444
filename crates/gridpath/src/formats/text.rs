//! The tutorials' text grids: digits (`0` free, `1` wall, `3` start, `4` goal) and ASCII
//! (`.` free, `#` wall, `S` start, `G` goal).

use super::{ParseError, ParsedMap, numbered_lines};
use crate::grid::{Grid, MAX_SIDE, Pos, Tile};

/// Parses the digit grid of the Unity / cocos2d-x tutorials: one row per line, cells separated
/// by commas and/or spaces: `0` free, `1` wall, `3` start, `4` goal.
///
/// ```
/// let map = gridpath::formats::parse_digits("3, 0, 1\n0 0 4").unwrap();
/// assert_eq!(map.grid.width(), 3);
/// assert_eq!(map.goal, Some(gridpath::Pos::new(2, 1)));
/// ```
///
/// # Errors
/// [`ParseError`] for an unknown cell, ragged rows, two starts or goals, or a bad size.
pub fn parse_digits(text: &str) -> Result<ParsedMap, ParseError> {
    let mut rows: Vec<(usize, Vec<(usize, char)>)> = Vec::new();
    for (n, line) in numbered_lines(text) {
        let cells: Vec<(usize, char)> = line
            .chars()
            .enumerate()
            .filter(|(_, c)| *c != ',' && !c.is_whitespace())
            .map(|(i, c)| (i + 1, c))
            .collect();
        if !cells.is_empty() {
            rows.push((n, cells));
        }
    }
    build(
        &rows,
        |c| match c {
            '0' => Some(Cell::Tile(Tile::FLOOR)),
            '1' => Some(Cell::Tile(Tile::Wall)),
            '3' => Some(Cell::Start),
            '4' => Some(Cell::Goal),
            _ => None,
        },
        "expected 0 (free), 1 (wall), 3 (start) or 4 (goal)",
    )
}

/// Parses a plain ASCII grid: `.` free, `#` wall, `S` start, `G` goal; one row per line.
/// Trailing blank lines are ignored.
///
/// # Errors
/// [`ParseError`] for an unknown cell, ragged rows, two starts or goals, or a bad size.
pub fn parse_ascii(text: &str) -> Result<ParsedMap, ParseError> {
    let rows: Vec<(usize, Vec<(usize, char)>)> = numbered_lines(text)
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(n, l)| (n, l.trim_end().chars().enumerate().map(|(i, c)| (i + 1, c)).collect()))
        .collect();
    build(
        &rows,
        |c| match c {
            '.' => Some(Cell::Tile(Tile::FLOOR)),
            '#' => Some(Cell::Tile(Tile::Wall)),
            'S' => Some(Cell::Start),
            'G' => Some(Cell::Goal),
            _ => None,
        },
        "expected . (free), # (wall), S (start) or G (goal)",
    )
}

enum Cell {
    Tile(Tile),
    Start,
    Goal,
}

fn build(
    rows: &[(usize, Vec<(usize, char)>)],
    cell: impl Fn(char) -> Option<Cell>,
    expected: &str,
) -> Result<ParsedMap, ParseError> {
    let Some((first_line, first)) = rows.first() else {
        return Err(ParseError::new(1, 0, "the map is empty"));
    };
    let too_big = |n: usize, side: usize| ParseError::too_big(n, 0, side as u64);
    let width = u32::try_from(first.len())
        .ok()
        .filter(|w| *w <= MAX_SIDE)
        .ok_or_else(|| too_big(*first_line, first.len()))?;
    let height = u32::try_from(rows.len())
        .ok()
        .filter(|h| *h <= MAX_SIDE)
        .ok_or_else(|| too_big(*first_line, rows.len()))?;
    let mut grid = Grid::unmasked(width, height, Tile::FLOOR)
        .map_err(|e| ParseError::new(*first_line, 0, e.to_string()))?;
    let (mut start, mut goal) = (None, None);
    for (y, (n, cells)) in (0u32..).zip(rows) {
        if cells.len() != first.len() {
            return Err(ParseError::new(
                *n,
                0,
                format!("row has {} cells, expected {width} like the first row", cells.len()),
            ));
        }
        for (x, &(col, c)) in (0u32..).zip(cells) {
            let pos = Pos::new(x, y);
            let tile = match cell(c) {
                Some(Cell::Tile(t)) => t,
                Some(Cell::Start) => {
                    if start.replace(pos).is_some() {
                        return Err(ParseError::new(*n, col, "a second start"));
                    }
                    Tile::FLOOR
                }
                Some(Cell::Goal) => {
                    if goal.replace(pos).is_some() {
                        return Err(ParseError::new(*n, col, "a second goal"));
                    }
                    Tile::FLOOR
                }
                None => return Err(ParseError::new(*n, col, format!("unknown cell {c:?}: {expected}"))),
            };
            // In bounds by construction.
            let _ = grid.set_tile_unmasked(pos, tile);
        }
    }
    grid.refresh_moves();
    Ok(ParsedMap { grid, start, goal })
}

/// Writes an ASCII grid ([`parse_ascii`]'s format): `#` wall, `.` any passable cell, `S` the
/// start, `G` the goal. Terrain costs and classes are not kept (every passable cell reads back as
/// floor); a start or goal outside the grid is left out.
///
/// ```
/// use gridpath::{formats, Pos};
/// let map = formats::parse_ascii("S.#\n..G").unwrap();
/// assert_eq!(formats::write_ascii(&map.grid, map.start, map.goal), "S.#\n..G\n");
/// ```
#[must_use]
pub fn write_ascii(grid: &Grid, start: Option<Pos>, goal: Option<Pos>) -> String {
    write_cells(grid, start, goal, ['.', '#', 'S', 'G'], "")
}

/// Writes the tutorials' digit grid ([`parse_digits`]'s format), cells separated by commas: `1`
/// wall, `0` any passable cell, `3` the start, `4` the goal. Terrain is not kept, as in
/// [`write_ascii`].
#[must_use]
pub fn write_digits(grid: &Grid, start: Option<Pos>, goal: Option<Pos>) -> String {
    write_cells(grid, start, goal, ['0', '1', '3', '4'], ",")
}

fn write_cells(grid: &Grid, start: Option<Pos>, goal: Option<Pos>, chars: [char; 4], sep: &str) -> String {
    let [free, wall, s, g] = chars;
    let mut out =
        String::with_capacity((grid.width() as usize * (1 + sep.len()) + 1) * grid.height() as usize);
    for y in 0..grid.height() {
        for x in 0..grid.width() {
            if x > 0 {
                out.push_str(sep);
            }
            let p = Pos::new(x, y);
            out.push(if Some(p) == start {
                s
            } else if Some(p) == goal {
                g
            } else if grid.is_passable(p) {
                free
            } else {
                wall
            });
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_marks_start_and_goal() {
        let m = parse_ascii("S.#\n..G\n").unwrap();
        assert_eq!((m.start, m.goal), (Some(Pos::new(0, 0)), Some(Pos::new(2, 1))));
        assert!(!m.grid.is_passable(Pos::new(2, 0)));
    }

    #[test]
    fn ragged_rows_and_bad_cells_are_reported() {
        let e = parse_ascii("...\n..\n").unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        let e = parse_digits("0,0\n0,7\n").unwrap_err();
        assert_eq!((e.line, e.column), (2, 3), "{e}");
        let e = parse_ascii("SS\n").unwrap_err();
        assert!(e.message.contains("second start"), "{e}");
        assert!(parse_ascii("\n\n").is_err());
    }
}
