//! Jump Point Search for 8-connected grids without corner cutting and with uniform cost.
//!
//! The variant for the no-corner-cutting rule (Harabor & Grastien, "Improving Jump Point
//! Search", 2014): a diagonal step needs both orthogonal neighbours open, so forced neighbours
//! only arise on straight moves, and a diagonal jump stops where a straight jump from it would.

use super::best_first::Estimator;
use super::heap::Entry;
use super::{Query, Searcher, Stats};
use crate::Pos;
use crate::grid::SQRT2;
use crate::trace::{Observer, TraceEvent};

/// The passability view of one query: cells of the mover's terrain class are open.
struct View<'a> {
    cells: &'a [u8],
    class: u8,
    stride: isize,
    goal: usize,
}

impl View<'_> {
    #[inline(always)]
    fn open(&self, i: usize) -> bool {
        self.cells[i] >> 6 == self.class
    }

    #[inline(always)]
    fn at(i: usize, d: isize) -> usize {
        i.wrapping_add_signed(d)
    }

    /// Jumps straight from `i` by `d` (±1 or ±stride); `side` is the perpendicular offset.
    /// Returns the first jump point, or `None` at a wall.
    fn jump_straight(&self, mut i: usize, d: isize, side: isize) -> Option<usize> {
        loop {
            let n = Self::at(i, d);
            if !self.open(n) {
                return None;
            }
            if n == self.goal {
                return Some(n);
            }
            // A neighbour beside n that the previous cell could not reach diagonally (its own
            // side cell is blocked) is forced: n is a jump point.
            for s in [side, -side] {
                if self.open(Self::at(n, s)) && !self.open(Self::at(i, s)) {
                    return Some(n);
                }
            }
            i = n;
        }
    }

    /// Jumps diagonally from `i` by `(dx, dy)` offsets; stops at a cell from which a straight
    /// jump along either component finds a jump point.
    fn jump_diagonal(&self, mut i: usize, dx: isize, dy: isize) -> Option<usize> {
        loop {
            if !(self.open(Self::at(i, dx)) && self.open(Self::at(i, dy))) {
                return None;
            }
            let n = Self::at(i, dx + dy);
            if !self.open(n) {
                return None;
            }
            if n == self.goal
                || self.jump_straight(n, dx, self.stride).is_some()
                || self.jump_straight(n, dy, 1).is_some()
            {
                return Some(n);
            }
            i = n;
        }
    }
}

pub(crate) fn run<O: Observer>(
    searcher: &mut Searcher,
    q: &Query<'_>,
    out: &mut Vec<Pos>,
    obs: &mut O,
) -> Result<Stats, Stats> {
    let grid = q.grid;
    let stride = grid.stride();
    #[expect(clippy::cast_possible_wrap, reason = "stride is at most 8194")]
    let s = stride as isize;
    let start = grid.index(q.start);
    let goal = grid.index(q.goal);
    let view = View { cells: grid.cells(), class: grid.class_at(start), stride: s, goal };
    let est = Estimator::new(stride, q.goal, q.settings.heuristic, q.settings.weight);
    let Searcher { fwd: nodes, heap: open, .. } = searcher;
    nodes.reset(grid.padded_len());
    open.clear();
    let mut stats = Stats { generated: 1, peak_open: 1, expanded: 0 };
    nodes.open_cell(start, 0.0, start);
    let h0 = est.at(start);
    nodes_push(open, h0, h0, start);
    if O::ENABLED {
        obs.event(TraceEvent::Opened { pos: q.start, g: 0.0, h: h0, f: h0 });
    }
    // Directions to try from a node: (dx, dy) as unit offsets in padded index space.
    let mut dirs: [(isize, isize); 8] = [(0, 0); 8];
    while let Some(entry) = open.pop() {
        let i = entry.cell as usize;
        if nodes.closed(i) {
            continue;
        }
        nodes.close(i);
        stats.expanded += 1;
        if O::ENABLED {
            obs.event(TraceEvent::Closed { pos: grid.pos_of(i) });
        }
        if i == goal {
            unwind_jumps(nodes, grid, start, goal, out);
            return Ok(stats);
        }
        let count = successors(&view, i, nodes.parent(i), stride, &mut dirs);
        let gi = nodes.g(i);
        for &(dx, dy) in &dirs[..count] {
            let jump = if dx != 0 && dy != 0 {
                view.jump_diagonal(i, dx, dy * s)
            } else if dx != 0 {
                view.jump_straight(i, dx, s)
            } else {
                view.jump_straight(i, dy * s, 1)
            };
            let Some(j) = jump else { continue };
            let ng = gi + octile(i, j, stride);
            if nodes.seen(j) && (nodes.closed(j) || ng >= nodes.g(j)) {
                continue;
            }
            let seen = nodes.seen(j);
            nodes.open_cell(j, ng, i);
            let h = est.at(j);
            nodes_push(open, ng + h, h, j);
            stats.generated += 1;
            stats.peak_open = stats.peak_open.max(open.len() as u64);
            if O::ENABLED {
                let pos = grid.pos_of(j);
                if !seen {
                    obs.event(TraceEvent::JumpPoint { pos });
                }
                obs.event(if seen {
                    TraceEvent::Updated { pos, g: ng, h, f: ng + h }
                } else {
                    TraceEvent::Opened { pos, g: ng, h, f: ng + h }
                });
            }
        }
    }
    Err(stats)
}

/// The pruned directions to jump in from `i`, reached from `parent`; returns how many were
/// written to `dirs` as `(dx, dy)` with `dx, dy ∈ {-1, 0, 1}`.
fn successors(
    view: &View<'_>,
    i: usize,
    parent: usize,
    stride: usize,
    dirs: &mut [(isize, isize); 8],
) -> usize {
    let mut n = 0;
    let mut add = |d: (isize, isize)| {
        dirs[n] = d;
        n += 1;
    };
    if parent == i {
        // The start: every direction.
        for d in [(0, -1), (1, 0), (0, 1), (-1, 0), (1, -1), (1, 1), (-1, 1), (-1, -1)] {
            add(d);
        }
        return n;
    }
    let (dx, dy) = direction(parent, i, stride);
    #[expect(clippy::cast_possible_wrap, reason = "stride is at most 8194")]
    let s = stride as isize;
    let at = |dx: isize, dy: isize| View::at(i, dx + dy * s);
    if dx != 0 && dy != 0 {
        // Diagonal: the two straight components and the diagonal itself.
        add((dx, 0));
        add((0, dy));
        add((dx, dy));
    } else if dx != 0 {
        add((dx, 0));
        for sy in [-1, 1] {
            // Forced: the side cell is open but was not reachable from the cell behind.
            if view.open(at(0, sy)) && !view.open(at(-dx, sy)) {
                add((0, sy));
                add((dx, sy));
            }
        }
    } else {
        add((0, dy));
        for sx in [-1, 1] {
            if view.open(at(sx, 0)) && !view.open(at(sx, -dy)) {
                add((sx, 0));
                add((sx, dy));
            }
        }
    }
    n
}

#[inline]
fn nodes_push(open: &mut super::OpenList, f: f64, h: f64, cell: usize) {
    #[expect(
        clippy::cast_possible_truncation,
        reason = "padded grids have < 2^32 cells; h only breaks ties"
    )]
    open.push(Entry { f, h: h as f32, cell: cell as u32 });
}

/// Unit direction from `a` to `b` (padded indices on one straight or diagonal line).
fn direction(a: usize, b: usize, stride: usize) -> (isize, isize) {
    let (ax, ay) = (a % stride, a / stride);
    let (bx, by) = (b % stride, b / stride);
    (sign(ax, bx), sign(ay, by))
}

fn sign(a: usize, b: usize) -> isize {
    match b.cmp(&a) {
        std::cmp::Ordering::Greater => 1,
        std::cmp::Ordering::Less => -1,
        std::cmp::Ordering::Equal => 0,
    }
}

#[expect(clippy::cast_precision_loss, reason = "distances are below 2^14")]
fn octile(a: usize, b: usize, stride: usize) -> f64 {
    let dx = (a % stride).abs_diff(b % stride) as f64;
    let dy = (a / stride).abs_diff(b / stride) as f64;
    let (lo, hi) = if dx < dy { (dx, dy) } else { (dy, dx) };
    hi + (SQRT2 - 1.0) * lo
}

/// Writes the full cell path: the jump points from start to goal with the cells between them.
fn unwind_jumps(nodes: &super::Nodes, grid: &crate::Grid, start: usize, goal: usize, out: &mut Vec<Pos>) {
    let stride = grid.stride();
    #[expect(clippy::cast_possible_wrap, reason = "stride is at most 8194")]
    let s = stride as isize;
    let mut i = goal;
    out.push(grid.pos_of(goal));
    while i != start {
        let p = nodes.parent(i);
        let (dx, dy) = direction(i, p, stride);
        let step = dx + dy * s;
        let mut c = i;
        while c != p {
            c = c.wrapping_add_signed(step);
            out.push(grid.pos_of(c));
        }
        i = p;
    }
    out.reverse();
}
