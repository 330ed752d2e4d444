//! Jump Point Search for 8-connected grids without corner cutting, exact on uniform cost and
//! on terrain costs.
//!
//! The variant for the no-corner-cutting rule (Harabor & Grastien, "Improving Jump Point
//! Search", 2014): a diagonal step needs both orthogonal neighbours open, so forced neighbours
//! only arise on straight moves, and a diagonal jump stops where a straight jump from it would.
//!
//! Straight jumps are bit-parallel (the paper's "block-based" jumping): the grid keeps its
//! cells' classes as bit rows and bit columns ([`Planes`]), and one step of a scan looks at 64
//! cells of the line and of its two neighbour lines at once, finding the first blocked cell or
//! forced neighbour with one `trailing_zeros` / `leading_zeros`. Diagonal jumps step cell by
//! cell and launch the two straight scans from each cell; the jump points those scans find are
//! pushed directly, entered straight from the turning cell, and the ray goes on to its end, so
//! the turning cells are never nodes (the paper's pruning of intermediate jump points). Costs
//! are exact `a + b·√2` pairs as in the octile A* (see `octile.rs`).
//!
//! By default the rays read the grid's *jump bits* (`Grid::jumps`): one byte per cell holding
//! its diagonal moves and, per straight direction, whether a scan from it finds a jump point
//! at all — a one-bit form of JPS+'s precomputed jump distances, kept in step by every edit
//! for the three rows and columns it touches. Most scans end at a wall and find nothing
//! (80–93 % on the benchmark maps), so a ray's step reads one byte and runs the scans that
//! find something, which then need only the forced bits. Without them
//! (`Searcher::set_jump_bits(false)`) every scan runs, as in online JPS; the jump points,
//! expansions and paths are the same.
//!
//! On uniform cost a search first walks the goal's diagonal-first route from the start
//! (`View::goal_in_sight`, as Warthog's expansions do): when every step is legal, that route
//! costs the start's estimate and no other can be shorter, so the search ends there, with no
//! jump made. Most queries on small or open maps end so.
//!
//! # Terrain costs
//!
//! On a grid with terrain costs (not [`Grid::has_uniform_cost`](crate::Grid::has_uniform_cost);
//! a uniform grid runs the code above unchanged) JPS runs its jumps only through
//! *cost-uniform neighbourhoods*, the simple exact relative of JPSW (Carlson, Moghadam,
//! Harabor, Stuckey, Ebrahimi, "JPSW: A Jump Point Search for Weighted Grids", AAAI 2023).
//! An open cell is *rough* when a cell of its 3 × 3 neighbourhood has its terrain class and
//! another cost, *plain* otherwise; the grid keeps one rough bit per cell in its planes
//! (`Planes::rough_rows`, `rough_cols`), in step with every edit (an edit changes the bits of
//! the cell and its eight neighbours). Then:
//! - a straight scan stops at a rough cell as at a forced neighbour (one more word of bits per
//!   step), and a diagonal ray stops at a rough cell as at the goal: the rough cell is a jump
//!   point;
//! - a rough jump point, once expanded, prunes its moves by JPS's rules with its neighbours'
//!   costs ([`rough_moves`]: a move is dropped only where the parent has a cheaper detour, or
//!   one as cheap with its diagonal first, the costs compared exactly), each kept move a jump;
//!   a plain one tries JPS's pruned moves as on uniform cost;
//! - a jump costs its number of straight and diagonal steps times the cost of its first cell:
//!   every cell it passes before its end is plain, and a plain cell's neighbours of its class
//!   (the next cell, the end, the side cells) all have its cost, so every cell a jump, a ray
//!   or a ray's scan enters has the cost of the first.
//!
//! *Why it is exact.* JPS's pruning at a cell `x` entered from `p` rests on one local fact per
//! pruned move `x → n`: some path from `p` to `n` that avoids `x` and runs inside `x`'s 3 × 3
//! neighbourhood costs less than `p → x → n`, or as much with its diagonal step first (the
//! only tie: a straight step then a diagonal one, against the diagonal then the straight).
//! Each such path enters only cells of `x`'s neighbourhood, as `p → x → n` does, so when `x`
//! is plain all the cells entered cost the same `c` and every comparison is the uniform one
//! times `c`: the uniform argument holds word for word. Take, among the least-cost paths from
//! start to goal, one whose diagonal steps come earliest: a pruned move on it would give a
//! cheaper path or an equal one with a diagonal earlier, so it takes only the moves this
//! search tries — at plain cells JPS's, at rough cells those [`rough_moves`] keeps, which
//! drops a move only on such a detour, its costs read from the cells (the backward moves:
//! `octile::FORWARD`; a detour's cells all lie in `x`'s neighbourhood). Collapsing a run of plain cells with one
//! successor each into one jump, and pushing a ray's finds straight from the turning cell,
//! changes which cells are nodes, not the paths or their costs; the octile estimate stays
//! consistent (costs are at least 1), so no closed node is reopened. `tests/searches.rs`
//! (`jps_on_terrain_costs_is_exact`) checks costs and paths against Dijkstra and A* on random
//! maps with patches of several costs, walls and water, before and after random edits.
//!
//! Where costs change on every cell, every cell is rough and JPS expands about what A* does;
//! in wide cost-uniform regions it jumps as on uniform cost. The jump bits count rough cells
//! as jump points (an edit of a cost refreshes the lines through its neighbourhood, as one of
//! a class does), so the weighted search skips the scans that find nothing too.
//!
//! # Fences
//!
//! On a grid with fences ([`Grid::set_fence`](crate::Grid::set_fence)) the weighted search runs,
//! and a cell with a fence on a side or a post on a corner anywhere in its 3 × 3
//! neighbourhood is rough too: jumps stop there, and once expanded it tries every legal move
//! (the move masks leave out the fenced steps), as A* does. A plain cell's neighbourhood has
//! no fence, so the local argument above holds there unchanged.

use super::diagonal_skips::skip;
use super::octile::{FORWARD as NOT_BACK, entry, value};
use super::{NO_DIR, Query, Searcher, Shape, Stats};
use crate::Pos;
use crate::grid::{DIRS, Lines, Planes, dir_index};
use crate::sight::push_legs;
use crate::trace::{Observer, TraceEvent};

/// No goal on a scanned line.
const NO_GOAL: usize = usize::MAX;

/// The first stop scanning a line of `plane` from bit `from` (excluded) towards higher bit
/// indices (`FORWARD`) or lower ones: a blocked cell gives `None`; an open cell with a forced
/// neighbour (a cell on a side line that is open while the side cell one step back is not), or
/// the goal bit `goal`, gives its bit index. `forced` holds the forced-neighbour bits of scans
/// in that direction. Lines are `wpl` words long; `line ± 1` are the side lines. `GOAL`:
/// whether `goal` may be on the line (a scan off the goal's line skips the test per word).
/// `WALLS`: whether walls can come first; a scan that the grid's jump bits say finds a jump
/// point has none before it, so it reads the forced bits alone (`plane` unread), and a line's
/// end gives `None` only if the bits disagreed with the planes, which edits never leave.
#[inline(always)]
fn scan_line<const FORWARD: bool, const GOAL: bool, const WALLS: bool, const ROUGH: bool>(
    plane: &[u64],
    forced: &[u64],
    rough: &[u64],
    wpl: usize,
    line: usize,
    from: usize,
    goal: usize,
) -> Option<usize> {
    // Word `w` of the line is `base + w` of the whole plane. (Slicing the line out first cost
    // a few instructions per scan, and most scans read one word: online JPS 2–5 % faster.)
    let base = line * wpl;
    let first = if FORWARD { from + 1 } else { from - 1 };
    let mut w = first / 64;
    // The bits at and past `first` in the scan's direction.
    let mut keep = if FORWARD { !0u64 << (first % 64) } else { !0u64 >> (63 - first % 64) };
    loop {
        // Off the line: not reached, since the line ends in a wall (the border) both ways (a
        // backward scan past word 0 would wrap to a huge `w`).
        if w >= wpl {
            return None;
        }
        let here = if WALLS { *plane.get(base + w)? } else { !0 };
        // Precomputed (`Planes::rows_fwd`, `rows_bwd`): side cell open where the one before it
        // is not.
        let mut stop = (!here | *forced.get(base + w)?) & keep;
        if ROUGH {
            // On terrain costs: a rough cell (open, another cost next to it) is a jump point.
            stop |= *rough.get(base + w)? & keep;
        }
        if GOAL && goal / 64 == w {
            stop |= (1u64 << (goal % 64)) & keep;
        }
        if stop != 0 {
            let bit = if FORWARD { stop.trailing_zeros() } else { stop.ilog2() };
            return (here >> bit & 1 == 1).then_some(w * 64 + bit as usize);
        }
        keep = !0;
        w = if FORWARD { w + 1 } else { w.wrapping_sub(1) };
    }
}

/// A straight jump from a cell along `line`. Online (not `BITS`): the full [`scan`]. With the
/// jump bits, `hit` is the cell's bit for the direction: off the goal's line (`goal` is
/// [`NO_GOAL`]) only a hit can find anything, and then a scan of the forced bits alone finds
/// it; on the goal's line the full scan, which also stops at the goal.
///
/// `ROUGH` (terrain costs): rough cells stop the scan too (the jump bits count them as jump
/// points, so a hit's first forced or rough bit is the one).
#[inline(always)]
fn jump<const BITS: bool, const FORWARD: bool, const ROUGH: bool>(
    lines: &Lines<'_>,
    line: usize,
    from: usize,
    goal: usize,
    hit: bool,
) -> Option<usize> {
    if !BITS || goal != NO_GOAL {
        scan::<FORWARD, ROUGH>(lines, line, from, goal)
    } else if hit {
        let forced = if FORWARD { lines.fwd } else { lines.bwd };
        scan_line::<FORWARD, false, false, ROUGH>(forced, forced, lines.rough, lines.wpl, line, from, NO_GOAL)
    } else {
        None
    }
}

/// [`scan_line`] with its goal test chosen by `goal`: [`NO_GOAL`] or the goal's bit on this
/// line; `ROUGH`: rough cells stop it too.
#[inline(always)]
fn scan<const FORWARD: bool, const ROUGH: bool>(
    lines: &Lines<'_>,
    line: usize,
    from: usize,
    goal: usize,
) -> Option<usize> {
    let (open, rough, wpl) = (lines.open, lines.rough, lines.wpl);
    match (FORWARD, goal == NO_GOAL) {
        (true, true) => scan_line::<true, false, true, ROUGH>(open, lines.fwd, rough, wpl, line, from, goal),
        (true, false) => scan_line::<true, true, true, ROUGH>(open, lines.fwd, rough, wpl, line, from, goal),
        (false, true) => {
            scan_line::<false, false, true, ROUGH>(open, lines.bwd, rough, wpl, line, from, goal)
        }
        (false, false) => {
            scan_line::<false, true, true, ROUGH>(open, lines.bwd, rough, wpl, line, from, goal)
        }
    }
}

/// The passability view of one query: cells of the mover's terrain class are open.
pub(crate) struct View<'a> {
    /// The cells: their costs on terrain, and for the cell-by-cell reference jumps of the tests.
    cells: &'a [u8],
    /// The planes: the rough cells on terrain costs.
    planes: &'a Planes,
    /// The grid's legal-move masks (see `Grid::octile_moves`).
    masks: &'a [u8],
    /// The grid's straight-jump and diagonal-move bits (see `Grid::jumps`).
    jumps: &'a [u8],
    /// The grid's fence masks (`Grid::fence_masks`; empty without fences).
    fences: &'a [u8],
    /// The jump bits with the diagonal rays' skip counts (`diagonal_skips.rs`), for the rays
    /// with jump bits on uniform cost; empty: every ray steps cell by cell.
    skips: &'a [u32],
    #[cfg(test)]
    class: u8,
    stride: usize,
    rows: Lines<'a>,
    cols: Lines<'a>,
    /// The goal's padded coordinates.
    gx: usize,
    gy: usize,
}

impl<'a> View<'a> {
    pub(crate) fn new(
        cells: &'a [u8],
        masks: &'a [u8],
        jumps: &'a [u8],
        planes: &'a Planes,
        stride: usize,
        class: u8,
        goal: (usize, usize),
    ) -> Self {
        let c = usize::from(class - 1);
        Self {
            cells,
            planes,
            masks,
            jumps,
            fences: &[],
            skips: &[],
            #[cfg(test)]
            class,
            stride,
            rows: planes.lines(true, c),
            cols: planes.lines(false, c),
            gx: goal.0,
            gy: goal.1,
        }
    }

    /// This view with the diagonal rays' skip counts for the grid (`DiagonalSkips::update`).
    pub(crate) fn with_skips(self, skips: &'a [u32]) -> Self {
        Self { skips, ..self }
    }

    /// This view with the grid's fence masks: its rough cells next to a fence try every move.
    pub(crate) fn with_fences(self, fences: &'a [u8]) -> Self {
        Self { fences, ..self }
    }

    /// Whether a cell of padded cell `i`'s 3 × 3 neighbourhood has a fence on a side.
    #[inline]
    fn near_fence(&self, i: usize) -> bool {
        !self.fences.is_empty()
            && [i - self.stride, i, i + self.stride]
                .iter()
                .any(|&row| self.fences[row - 1..=row + 1].iter().any(|&f| f != 0))
    }

    #[cfg(test)]
    fn open(&self, x: usize, y: usize) -> bool {
        self.cells[y * self.stride + x] >> 6 == self.class
    }

    /// The goal's bit on row `y` for a row scan, or [`NO_GOAL`].
    #[inline(always)]
    fn row_goal(&self, y: usize) -> usize {
        if y == self.gy { self.gx } else { NO_GOAL }
    }

    /// The goal's bit on column `x` for a column scan, or [`NO_GOAL`].
    #[inline(always)]
    fn col_goal(&self, x: usize) -> usize {
        if x == self.gx { self.gy } else { NO_GOAL }
    }

    /// Jumps straight from padded `(x, y)` by `(dx, dy)` (one of them 0). Returns the first jump
    /// point, or `None` at a wall. (The search inlines the four directions; the tests check the
    /// scans through this.)
    #[cfg(test)]
    fn jump_straight(&self, x: usize, y: usize, dx: isize, dy: isize) -> Option<(usize, usize)> {
        if dy == 0 {
            let goal = if y == self.gy { self.gx } else { NO_GOAL };
            let found = if dx > 0 {
                scan::<true, false>(&self.rows, y, x, goal)
            } else {
                scan::<false, false>(&self.rows, y, x, goal)
            };
            found.map(|x| (x, y))
        } else {
            let goal = if x == self.gx { self.gy } else { NO_GOAL };
            let found = if dy > 0 {
                scan::<true, false>(&self.cols, x, y, goal)
            } else {
                scan::<false, false>(&self.cols, x, y, goal)
            };
            found.map(|y| (x, y))
        }
    }

    /// Jumps straight from the node `i` at `(x, y)` (cost `(ga, gb)`) along its row (`ROW`)
    /// or column, towards higher (`FORWARD`) or lower indices, and offers the jump point found
    /// to `relax`. One copy per direction (fixed at compile time), like the diagonal rays.
    /// `WEIGHTED` (terrain costs): the scan also stops at rough cells, and every step of the
    /// jump costs what its first one does (see the module doc).
    #[inline(always)]
    pub(crate) fn straight<
        R: Offer,
        const BITS: bool,
        const WEIGHTED: bool,
        const ROW: bool,
        const FORWARD: bool,
    >(
        &self,
        i: usize,
        (x, y, ga, gb): (usize, usize, u64, u64),
        relax: &mut R,
    ) {
        let (lines, line, from, goal) =
            if ROW { (&self.rows, y, x, self.row_goal(y)) } else { (&self.cols, x, y, self.col_goal(x)) };
        // N, E, S, W are 0 to 3 in `DIRS`.
        let bit = match (ROW, FORWARD) {
            (false, false) => 0,
            (true, true) => 1,
            (false, true) => 2,
            (true, false) => 3,
        };
        if let Some(j) =
            jump::<BITS, FORWARD, WEIGHTED>(lines, line, from, goal, self.jumps[i] >> bit & 1 == 1)
        {
            let (jx, jy) = if ROW { (j, y) } else { (x, j) };
            let c = if WEIGHTED {
                let first = match (ROW, FORWARD) {
                    (true, true) => i + 1,
                    (true, false) => i - 1,
                    (false, true) => i + self.stride,
                    (false, false) => i - self.stride,
                };
                u64::from(self.cells[first] & 63)
            } else {
                1
            };
            relax.relax(i, jx, jy, bit, ga + j.abs_diff(from) as u64 * c, gb);
        }
    }

    /// Walks the whole diagonal ray from the node `(x, y)` (cost `(ga, gb)`) east or west, south
    /// or north (fixed at compile time: the two scans per step carry no direction branches), and
    /// offers to `relax`, for every cell on it whose straight scans along the two components
    /// find jump points, those jump points, entered straight from that cell: the diagonal cell
    /// itself is not made a node ("pruned intermediate jump points", Harabor & Grastien 2014),
    /// so it is never pushed, popped or expanded, and its scans are not repeated. The ray stops
    /// at the goal (offered as a diagonal jump point) or where the next diagonal step is not
    /// legal; `WEIGHTED` (terrain costs), also at a rough cell (offered as a diagonal jump
    /// point), and its scans stop at rough cells. Every step of a ray and its scans costs what
    /// the ray's first step does (see the module doc).
    #[inline(always)]
    pub(crate) fn diagonal_ray_in<
        R: Offer,
        const BITS: bool,
        const WEIGHTED: bool,
        const EAST: bool,
        const SOUTH: bool,
    >(
        &self,
        (mut x, mut y, ga, gb): (usize, usize, u64, u64),
        relax: &mut R,
    ) {
        let parent = y * self.stride + x;
        // The goal's row and column: a scan along them also stops at the goal.
        let (gx, gy) = (self.gx, self.gy);
        // The diagonal's index into `DIRS` (NE, SE, SW, NW are 4 to 7).
        let diagonal = match (EAST, SOUTH) {
            (true, false) => 4,
            (true, true) => 5,
            (false, true) => 6,
            (false, false) => 7,
        };
        // The straight components' indices into `DIRS` (N, E, S, W are 0 to 3).
        let (across, down) = (if EAST { 1 } else { 3 }, if SOUTH { 2 } else { 0 });
        // Per cell: the jump bits (straight components: a jump point ahead) or the move mask
        // (straight components: the first step is legal); bits 4–7 are the diagonal moves in both.
        let steps_of = if BITS { self.jumps } else { self.masks };
        // With the skip counts, the jump bits are read from them (one word a step).
        let skipping = BITS && !WEIGHTED && !self.skips.is_empty();
        let bits_at = |i: usize| if skipping { self.skips[i] } else { u32::from(steps_of[i]) };
        let mut mask = bits_at(parent);
        let mut steps = 0u64;
        // The padded index of the ray's cell, moved by one diagonal step at a time.
        let step = if SOUTH { self.stride } else { self.stride.wrapping_neg() };
        let step = if EAST { step.wrapping_add(1) } else { step.wrapping_sub(1) };
        let goal = gy * self.stride + gx;
        let mut i = parent;
        // The terrain cost of every cell the ray and its scans enter: its first cell's.
        let c = if WEIGHTED { u64::from(self.cells[parent.wrapping_add(step)] & 63) } else { 1 };
        // Idle cells ahead are skipped up to the goal's row and column, where the scans run.
        let before_goal = |at: usize, goal: usize, forward: bool| match (forward, goal > at, goal < at) {
            (true, true, _) => goal - at - 1,
            (false, _, true) => at - goal - 1,
            _ => usize::MAX,
        };
        loop {
            // One byte says whether the diagonal step is legal (both sides and the target open).
            if mask >> diagonal & 1 == 0 {
                return;
            }
            if skipping {
                let idle = skip(mask, diagonal as usize);
                let k = idle.min(before_goal(x, gx, EAST)).min(before_goal(y, gy, SOUTH));
                if k > 0 {
                    // The next `k` cells are idle: no scan to run, nothing to offer.
                    i = i.wrapping_add(step.wrapping_mul(k));
                    x = if EAST { x + k } else { x - k };
                    y = if SOUTH { y + k } else { y - k };
                    steps += k as u64;
                    mask = self.skips[i];
                    continue;
                }
            }
            let nx = if EAST { x + 1 } else { x - 1 };
            let ny = if SOUTH { y + 1 } else { y - 1 };
            i = i.wrapping_add(step);
            steps += 1;
            if i == goal || (WEIGHTED && self.planes.is_rough(nx, ny)) {
                relax.relax(parent, nx, ny, diagonal, ga, gb + steps * c);
                return;
            }
            // Skipped: a scan the cell's jump bits say finds no jump point, unless it runs along
            // the goal's row or column; online, a scan whose first step is blocked.
            mask = bits_at(i);
            let (row_bit, col_bit) = (mask >> across & 1 == 1, mask >> down & 1 == 1);
            if row_bit || (BITS && ny == gy) {
                let row_goal = if ny == gy { gx } else { NO_GOAL };
                if let Some(jx) = jump::<BITS, EAST, WEIGHTED>(&self.rows, ny, nx, row_goal, row_bit) {
                    relax.relax(parent, jx, ny, across, ga + jx.abs_diff(nx) as u64 * c, gb + steps * c);
                }
            }
            if col_bit || (BITS && nx == gx) {
                let col_goal = if nx == gx { gy } else { NO_GOAL };
                if let Some(jy) = jump::<BITS, SOUTH, WEIGHTED>(&self.cols, nx, ny, col_goal, col_bit) {
                    relax.relax(parent, nx, jy, down, ga + jy.abs_diff(ny) as u64 * c, gb + steps * c);
                }
            }
            (x, y) = (nx, ny);
        }
    }
    /// The goal's route from padded index `i` at `(x, y)` when the goal is in sight: its
    /// diagonal steps, then its straight ones (an octile-shortest route, the one a jump takes),
    /// all legal. Returns the direction the goal is entered by and the route's cost `a + b·√2`
    /// as `(dir, a, b)`; `None` at the first illegal step. One walk, where an expansion makes
    /// every jump; as Warthog's JPS does before an expansion's jumps. Not inlined: the search
    /// calls it once, before its loop.
    #[inline(never)]
    pub(crate) fn goal_in_sight(&self, mut i: usize, x: usize, y: usize) -> Option<(u32, u64, u64)> {
        let (gx, gy) = (self.gx, self.gy);
        let (dx, dy) = (gx.abs_diff(x), gy.abs_diff(y));
        let (east, south) = (gx > x, gy > y);
        let diagonal_steps = dx.min(dy);
        let (sx, sy) = (if east { 1 } else { -1 }, if south { 1 } else { -1 });
        #[expect(clippy::cast_possible_truncation, reason = "an index into DIRS")]
        let diagonal = dir_index(sx, sy) as u32;
        let step = if south { self.stride } else { self.stride.wrapping_neg() };
        let step = if east { step.wrapping_add(1) } else { step.wrapping_sub(1) };
        for _ in 0..diagonal_steps {
            // The move masks: the diagonal step is legal (both sides and the target open).
            if self.masks[i] >> diagonal & 1 == 0 {
                return None;
            }
            i = i.wrapping_add(step);
        }
        let straight = dx.abs_diff(dy);
        let (a, b) = (straight as u64, diagonal_steps as u64);
        if straight == 0 {
            return Some((diagonal, a, b));
        }
        // The turning cell, then the straight run along the goal's row or column.
        let (tx, ty) = (
            if east { x + diagonal_steps } else { x - diagonal_steps },
            if south { y + diagonal_steps } else { y - diagonal_steps },
        );
        let (lines, line, from, to, (dx, dy)) =
            if dx > dy { (&self.rows, gy, tx, gx, (sx, 0)) } else { (&self.cols, gx, ty, gy, (0, sy)) };
        #[expect(clippy::cast_possible_truncation, reason = "an index into DIRS")]
        let dir = dir_index(dx, dy) as u32;
        all_open(lines.open, lines.wpl, line, from.min(to), from.max(to)).then_some((dir, a, b))
    }

    /// Jumps from the node `i` at padded `(x, y)` (cost `(ga, gb)`), entered by a jump in
    /// direction `dir` (or [`NO_DIR`] at the start), in every direction JPS's pruning keeps,
    /// offering each jump point found to `relax`.
    #[inline(always)]
    pub(crate) fn successors<R: Offer, const BITS: bool, const WEIGHTED: bool>(
        &self,
        i: usize,
        dir: u32,
        node: (usize, usize, u64, u64),
        relax: &mut R,
    ) {
        // A rough jump point prunes by its neighbours' costs (`rough_moves`); the others as
        // JPS does on uniform cost. Next to a fence a pruned move's detour may cross the
        // fence, so there every legal move is tried, as A* would.
        let moves = if WEIGHTED && self.planes.is_rough(node.0, node.1) {
            if self.near_fence(i) {
                u32::from(self.masks[i])
            } else {
                rough_moves(self.cells, i, self.stride, dir, u32::from(self.masks[i]))
            }
        } else {
            u32::from(JPS_MOVES[dir as usize][usize::from(self.masks[i])])
        };
        // One test per direction, each with its own code (N, E, S, W, then NE, SE, SW, NW: the
        // order of `DIRS`), instead of a loop over the set bits that dispatches on the
        // direction: the dispatch's branches were among the search's most mispredicted.
        if moves & 1 != 0 {
            self.straight::<_, BITS, WEIGHTED, false, false>(i, node, relax);
        }
        if moves & 2 != 0 {
            self.straight::<_, BITS, WEIGHTED, true, true>(i, node, relax);
        }
        if moves & 4 != 0 {
            self.straight::<_, BITS, WEIGHTED, false, true>(i, node, relax);
        }
        if moves & 8 != 0 {
            self.straight::<_, BITS, WEIGHTED, true, false>(i, node, relax);
        }
        if moves & 16 != 0 {
            self.diagonal_ray_in::<_, BITS, WEIGHTED, true, false>(node, relax);
        }
        if moves & 32 != 0 {
            self.diagonal_ray_in::<_, BITS, WEIGHTED, true, true>(node, relax);
        }
        if moves & 64 != 0 {
            self.diagonal_ray_in::<_, BITS, WEIGHTED, false, true>(node, relax);
        }
        if moves & 128 != 0 {
            self.diagonal_ray_in::<_, BITS, WEIGHTED, false, false>(node, relax);
        }
    }
}

/// Whether bits `lo..=hi` of `line` of `plane` (`wpl` words a line) are all set: every cell
/// of a straight run open.
#[inline(always)]
fn all_open(plane: &[u64], wpl: usize, line: usize, lo: usize, hi: usize) -> bool {
    let base = line * wpl;
    let (first, last) = (lo / 64, hi / 64);
    (first..=last).all(|w| {
        let from = if w == first { lo % 64 } else { 0 };
        let to = if w == last { hi % 64 } else { 63 };
        // Bits `from..=to` of the word.
        let want = (!0u64 >> (63 - to)) & (!0u64 << from);
        plane[base + w] & want == want
    })
}

/// Octile distance between padded coordinates as the pair `(hi − lo, lo)`.
#[inline(always)]
fn octile(x: usize, y: usize, gx: usize, gy: usize) -> (u64, u64) {
    let (dx, dy) = (x.abs_diff(gx), y.abs_diff(gy));
    let (lo, hi) = if dx < dy { (dx, dy) } else { (dy, dx) };
    (hi as u64 - lo as u64, lo as u64)
}

/// `BITS`: skip the straight scans that the grid's jump bits say find nothing (see
/// `Grid::jumps`); without, every scan runs as in online JPS. Same jump points either way.
/// On a grid with terrain costs, the weighted search.
pub(crate) fn run<O: Observer, const BITS: bool>(
    searcher: &mut Searcher,
    q: &Query<'_>,
    out: &mut Vec<Pos>,
    obs: &mut O,
) -> Result<(Stats, f64), Stats> {
    // Fences make their cells rough (jump points with every move tried): the weighted search
    // knows rough cells.
    if q.grid.has_uniform_cost() && !q.grid.has_fences() {
        search::<O, BITS, false>(searcher, q, out, obs)
    } else {
        search::<O, BITS, true>(searcher, q, out, obs)
    }
}

/// [`run`]; `WEIGHTED`: on terrain costs (see the module doc).
fn search<O: Observer, const BITS: bool, const WEIGHTED: bool>(
    searcher: &mut Searcher,
    q: &Query<'_>,
    out: &mut Vec<Pos>,
    obs: &mut O,
) -> Result<(Stats, f64), Stats> {
    let grid = q.grid;
    let stride = grid.stride();
    let start = grid.index(q.start);
    let goal = grid.index(q.goal);
    let (gx, gy) = (q.goal.x as usize + 1, q.goal.y as usize + 1);
    let masks = grid.octile_moves();
    let view =
        View::new(grid.cells(), masks, grid.jumps(), grid.planes(), stride, grid.class_at(start), (gx, gy))
            .with_fences(grid.fence_masks());
    let stride64 = stride as u64;
    let magic = (1u64 << 40).div_ceil(stride64);
    let Searcher { jump_nodes: nodes, buckets: open, diagonal_skips, .. } = searcher;
    // The diagonal skips read the jump bits; the weighted rays stop at rough cells, which the
    // counts do not know.
    let skips = if BITS && !WEIGHTED { diagonal_skips.update(grid) } else { None };
    let view = match skips {
        Some(skips) => view.with_skips(skips),
        None => view,
    };
    nodes.reset(grid.padded_len());
    // On terrain costs a jump's steps cost up to the largest cost each.
    let side =
        f64::from(grid.width().max(grid.height())) * if WEIGHTED { f64::from(grid.max_cost()) } else { 1.0 };
    open.reset_for_long_edges(side);
    let stats = Stats { generated: 1, peak_open: 1, expanded: 0 };
    nodes.open(start, 0, 0, NO_DIR, start);
    let (ha, hb) = octile(q.start.x as usize + 1, q.start.y as usize + 1, gx, gy);
    let h0 = value(ha, hb);
    open.push(entry(h0, h0, start));
    if O::ENABLED {
        obs.event(TraceEvent::Opened { pos: q.start, g: 0.0, h: h0, f: h0 });
    }
    // Built once: what the loop and every relaxation touch.
    let mut r = Relax { nodes, open, stats, obs, grid, stride, gx, gy };
    // On uniform cost a goal in sight of the start (`View::goal_in_sight`) is reached at the
    // start's estimate: no route is shorter, so the start's jumps need not be made. Most
    // queries on a small or open map end here (arena: 12.4 -> 5.1 jump points a query, half
    // the time). Checked at every expansion, the walks cost large maps 10 % (maze512-16).
    if !WEIGHTED {
        let (x, y) = (q.start.x as usize + 1, q.start.y as usize + 1);
        if let Some((dir, a, b)) = view.goal_in_sight(start, x, y) {
            r.nodes.close(start);
            r.stats.expanded += 1;
            if O::ENABLED {
                r.obs.event(TraceEvent::Closed { pos: q.start });
            }
            r.relax(start, gx, gy, dir, a, b);
            r.nodes.close(goal);
            r.stats.expanded += 1;
            if O::ENABLED {
                r.obs.event(TraceEvent::Closed { pos: q.goal });
            }
            return Ok(r.finish(start, goal, out, q.shape));
        }
    }
    while let Some(top) = r.open.pop_live(|e| !r.nodes.closed(e.cell as usize)) {
        let i = top.cell as usize;
        if r.nodes.closed(i) {
            continue;
        }
        r.nodes.close(i);
        r.stats.expanded += 1;
        if O::ENABLED {
            r.obs.event(TraceEvent::Closed { pos: grid.pos_of(i) });
        }
        if i == goal {
            return Ok(r.finish(start, goal, out, q.shape));
        }
        #[expect(clippy::cast_possible_truncation, reason = "padded coordinates are below 8194")]
        let (x, y) = {
            let row = (i as u64 * magic) >> 40;
            ((i as u64 - row * stride64) as usize, row as usize)
        };
        let (ga, gb) = r.nodes.lattice(i);
        view.successors::<_, BITS, WEIGHTED>(i, r.nodes.dir(i), (x, y, u64::from(ga), u64::from(gb)), &mut r);
    }
    r.stats.peak_open = r.open.peak() as u64;
    Err(r.stats)
}

/// Where the jumps of [`View`] deliver the jump points they find: JPS's relaxation, or the
/// any-angle search over jump points (`lazy_jump.rs`).
pub(crate) trait Offer {
    /// The jump point `(jx, jy)` (padded), entered in direction `dir` (an index into [`DIRS`]) on
    /// a jump from the node `from`, at the grid cost `a + b·√2` from the start.
    fn relax(&mut self, from: usize, jx: usize, jy: usize, dir: u32, a: u64, b: u64);
}

impl<O: Observer> Offer for Relax<'_, O> {
    #[inline(always)]
    fn relax(&mut self, from: usize, jx: usize, jy: usize, dir: u32, a: u64, b: u64) {
        Relax::relax(self, from, jx, jy, dir, a, b);
    }
}

/// What relaxing a jump point touches.
struct Relax<'a, O> {
    nodes: &'a mut JumpNodes,
    open: &'a mut super::BucketQueue,
    stats: Stats,
    obs: &'a mut O,
    grid: &'a crate::Grid,
    stride: usize,
    gx: usize,
    gy: usize,
}

impl<O: Observer> Relax<'_, O> {
    /// The route to the closed `goal` (into `out`, as `shape` says) and its cost.
    #[inline(never)]
    fn finish(&mut self, start: usize, goal: usize, out: &mut Vec<Pos>, shape: Shape) -> (Stats, f64) {
        unwind(self.nodes, self.grid, (start, goal), out, shape);
        let (a, b) = self.nodes.lattice(goal);
        self.stats.peak_open = self.open.peak() as u64;
        (self.stats, value(u64::from(a), u64::from(b)))
    }

    /// Offers the jump point `(jx, jy)`, entered in direction `dir` on a jump from the node
    /// `parent`, at the cost `(na, nb)`: opened, or updated when cheaper than before. Not
    /// inlined: it is called from the straight jumps and from the four diagonal rays.
    #[inline(never)]
    fn relax(&mut self, parent: usize, jx: usize, jy: usize, dir: u32, na: u64, nb: u64) {
        let nodes = &mut *self.nodes;
        let j = jy * self.stride + jx;
        let seen = nodes.seen(j);
        if seen {
            let (oa, ob) = nodes.lattice(j);
            if nodes.closed(j) || value(na, nb) >= value(u64::from(oa), u64::from(ob)) {
                return;
            }
        }
        let (ha, hb) = octile(jx, jy, self.gx, self.gy);
        let (h, f) = (value(ha, hb), value(na + ha, nb + hb));
        #[expect(clippy::cast_possible_truncation, reason = "a path's cost parts fit in u32")]
        nodes.open(j, na as u32, nb as u32, dir, parent);
        self.open.push(entry(f, h, j));
        self.stats.generated += 1;
        if O::ENABLED {
            let pos = self.grid.pos_of(j);
            let g = value(na, nb);
            if !seen {
                self.obs.event(TraceEvent::JumpPoint { pos });
            }
            self.obs.event(TraceEvent::pushed(seen, pos, g, h, f));
        }
    }
}

/// The moves a rough jump point at padded index `i`, entered by a step in direction `dir`
/// (or [`NO_DIR`] at the start), tries, of its `legal` ones: JPS's pruning with the costs of the
/// cells involved, each move `x → n` dropped only when the parent `p` reaches `n` avoiding `x`
/// for less, or for as much with its diagonal step first (the tie that JPS's canonical order
/// breaks), by the exact comparisons of [`sqrt2_lt`]:
/// - every move pointing back (`octile::FORWARD`: the parent reaches those cells in one step);
/// - after a straight step `d`, a side move `s` whose back diagonal `s − d` is legal when
///   `√2·c(s) < c(x) + c(s)` (the parent's diagonal), and the diagonal ahead `s + d` when
///   `√2·c(s) + c(s+d) ≤ c(x) + √2·c(s+d)` (the parent's diagonal, then straight);
/// - after a diagonal step, each perpendicular diagonal `q` when `c(v) + c(q) < √2·(c(x) +
///   c(q))`, `v` the cell beside `x` on the parent's side (two straight steps from the parent).
///
/// With every cost equal these are [`JPS_MOVES`]'s rules.
fn rough_moves(cells: &[u8], i: usize, stride: usize, dir: u32, legal: u32) -> u32 {
    let mut keep = legal & NOT_BACK[dir as usize];
    if dir == NO_DIR {
        return keep;
    }
    let cost = |(dx, dy): (i32, i32)| {
        let offset = dy as isize * stride.cast_signed() + dx as isize;
        i64::from(cells[i.wrapping_add_signed(offset)] & 63)
    };
    let cx = i64::from(cells[i] & 63);
    let k = |(dx, dy): (i32, i32)| DIRS.iter().position(|&o| o == (dx, dy)).unwrap_or(0);
    let (dx, dy) = DIRS[dir as usize];
    if dx == 0 || dy == 0 {
        for (sx, sy) in [(dy, dx), (-dy, -dx)] {
            let (side, back, ahead) = ((sx, sy), (sx - dx, sy - dy), (sx + dx, sy + dy));
            if legal >> k(back) & 1 == 0 {
                continue; // a forced side (or none): kept, as JPS keeps it
            }
            let (cs, ca) = (cost(side), cost(ahead));
            if sqrt2_lt(cs, cx + cs) {
                keep &= !(1 << k(side));
            }
            // √2·c(s) + c(s+d) ≤ c(x) + √2·c(s+d).
            if sqrt2_le(cs - ca, cx - ca) {
                keep &= !(1 << k(ahead));
            }
        }
    } else {
        for (q, via) in [((-dx, dy), (-dx, 0)), ((dx, -dy), (0, -dy))] {
            let cq = cost(q);
            // (c(v) + c(q)) < √2·(c(x) + c(q)), both sides positive.
            if keep >> k(q) & 1 == 1 && !sqrt2_le(cx + cq, cost(via) + cq) {
                keep &= !(1 << k(q));
            }
        }
    }
    keep
}

/// `a·√2 < b` for integers, exactly (√2 is irrational, so `a·√2 = b` only when both are 0).
fn sqrt2_lt(a: i64, b: i64) -> bool {
    match (a >= 0, b >= 0) {
        (true, true) => 2 * a * a < b * b,
        (true, false) => false,
        (false, true) => true,
        (false, false) => 2 * a * a > b * b,
    }
}

/// `a·√2 ≤ b` for integers, exactly.
fn sqrt2_le(a: i64, b: i64) -> bool {
    (a == 0 && b == 0) || sqrt2_lt(a, b)
}

/// The pruned directions to jump in from a jump point entered by a jump in direction `dir` (an
/// index into [`DIRS`], or [`NO_DIR`] at the start), for each mask of its legal moves
/// (`Grid::octile_moves`); 2.3 KB, computed at compile time. At the start every legal move; after
/// a diagonal jump the diagonal and its two components; after a straight jump straight on, plus
/// for each side that is *forced* (the side cell open while the one behind it is blocked: the
/// side move is legal, the back diagonal towards it is not, the cell behind being open) the side
/// move and the diagonal towards it. Moves that are not legal are dropped: their jump would
/// stop at once.
const JPS_MOVES: [[u8; 256]; 9] = {
    let mut table = [[0u8; 256]; 9];
    let mut dir = 0;
    while dir < 9 {
        let mut legal = 0usize;
        while legal < 256 {
            let mut keep = 0usize;
            if dir == NO_DIR as usize {
                keep = legal;
            } else {
                let (dx, dy) = DIRS[dir];
                let mut k = 0;
                while k < 8 {
                    let (kx, ky) = DIRS[k];
                    if dx != 0 && dy != 0 {
                        // Diagonal: itself and its two components.
                        if (kx == dx || kx == 0) && (ky == dy || ky == 0) {
                            keep |= 1 << k;
                        }
                    } else if kx == dx && ky == dy {
                        keep |= 1 << k;
                    } else if kx * dx + ky * dy == 0 {
                        // A side (perpendicular) move: forced when the back diagonal towards it
                        // is not legal; then the side and the diagonal ahead towards it.
                        let mut back = 0;
                        let mut ahead = 0;
                        let mut m = 0;
                        while m < 8 {
                            if DIRS[m].0 == kx - dx && DIRS[m].1 == ky - dy {
                                back = m;
                            }
                            if DIRS[m].0 == kx + dx && DIRS[m].1 == ky + dy {
                                ahead = m;
                            }
                            m += 1;
                        }
                        if legal >> k & 1 == 1 && legal >> back & 1 == 0 {
                            keep |= 1 << k | 1 << ahead;
                        }
                    }
                    k += 1;
                }
            }
            #[expect(clippy::cast_possible_truncation, reason = "an 8-bit mask")]
            {
                table[dir][legal] = (keep & legal) as u8;
            }
            legal += 1;
        }
        dir += 1;
    }
    table
};

/// JPS's per-cell workspace: a jump point's cost, far parent and state in one 16-byte record,
/// so that offering a jump point first seen this query (a cell no search step has touched
/// yet) misses the cache once, not once per array.
#[derive(Default)]
pub(crate) struct JumpNodes {
    cells: Vec<JumpNode>,
    generation: u32,
}

/// See [`JumpNodes`].
#[derive(Clone, Copy, Default)]
pub(crate) struct JumpNode {
    /// The exact cost `a + b·√2` from the start.
    a: u32,
    b: u32,
    /// The padded index of the jump point this one was reached from.
    far: u32,
    /// `generation << 5 | closed << 4 | direction`, as `Nodes`' state bytes.
    state: u32,
}

impl JumpNodes {
    /// Starts a new query on a grid of `len` padded cells.
    pub(crate) fn reset(&mut self, len: usize) {
        if self.cells.len() != len || self.generation >= u32::MAX >> 5 {
            self.cells.clear();
            self.cells.resize(len, JumpNode::default());
            self.generation = 0;
        }
        self.generation += 1;
    }

    #[inline(always)]
    fn seen(&self, i: usize) -> bool {
        self.cells[i].state >> 5 == self.generation
    }

    #[inline(always)]
    fn closed(&self, i: usize) -> bool {
        self.cells[i].state >> 4 == self.generation * 2 + 1
    }

    #[inline(always)]
    fn close(&mut self, i: usize) {
        let n = &mut self.cells[i].state;
        *n = (self.generation * 2 + 1) << 4 | (*n & 15);
    }

    #[inline(always)]
    fn lattice(&self, i: usize) -> (u32, u32) {
        (self.cells[i].a, self.cells[i].b)
    }

    #[inline(always)]
    fn dir(&self, i: usize) -> u32 {
        self.cells[i].state & 15
    }

    #[inline(always)]
    fn far_parent(&self, i: usize) -> usize {
        self.cells[i].far as usize
    }

    /// Opens `i` at the cost `a + b·√2`, entered by a jump in direction `dir` from `parent`.
    #[inline(always)]
    fn open(&mut self, i: usize, a: u32, b: u32, dir: u32, parent: usize) {
        #[expect(clippy::cast_possible_truncation, reason = "padded grids have < 2^32 cells")]
        let far = parent as u32;
        self.cells[i] = JumpNode { a, b, far, state: self.generation << 5 | dir };
    }
}

/// The route's jumps from the closed `goal` back to `start`, each as `(jump point, turn,
/// parent)`. A jump point found off a diagonal ray was entered straight, along the jump's
/// longer axis, from a turning cell on its parent's diagonal: walking back, the route runs
/// along that axis to the turn (the jump point itself for a diagonal jump, the parent for a
/// straight one), then diagonally to the parent.
fn jumps_back(
    nodes: &JumpNodes,
    grid: &crate::Grid,
    (start, goal): (usize, usize),
    mut each: impl FnMut(Pos, Pos, Pos),
) {
    let toward = |from: u32, to: u32, n: u32| if to > from { from + n } else { from - n };
    let mut i = goal;
    let mut pos = grid.pos_of(goal);
    while i != start {
        let p = nodes.far_parent(i);
        let parent = grid.pos_of(p);
        let (ox, oy) = (parent.x.abs_diff(pos.x), parent.y.abs_diff(pos.y));
        let turn = if ox > oy {
            Pos::new(toward(pos.x, parent.x, ox - oy), pos.y)
        } else {
            Pos::new(pos.x, toward(pos.y, parent.y, oy - ox))
        };
        each(pos, turn, parent);
        pos = parent;
        i = p;
    }
}

/// Writes the route (the jump points from start to goal with what `shape` keeps of the cells
/// between them, [`push_legs`]) into `out`.
fn unwind(
    nodes: &JumpNodes,
    grid: &crate::Grid,
    (start, goal): (usize, usize),
    out: &mut Vec<Pos>,
    shape: Shape,
) {
    out.push(grid.pos_of(goal));
    jumps_back(nodes, grid, (start, goal), |at, turn, parent| push_legs(out, (at, turn, parent), shape));
    out.reverse();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Grid, Tile};

    /// The plain jump of the paper, one cell at a time: the reference for the bit scans.
    fn reference_straight(
        v: &View<'_>,
        mut x: usize,
        mut y: usize,
        dx: isize,
        dy: isize,
    ) -> Option<(usize, usize)> {
        let open = |x: usize, y: usize| v.open(x, y);
        loop {
            let (nx, ny) = (x.wrapping_add_signed(dx), y.wrapping_add_signed(dy));
            if !open(nx, ny) {
                return None;
            }
            if (nx, ny) == (v.gx, v.gy) || v.planes.is_rough(nx, ny) {
                return Some((nx, ny));
            }
            let (sx, sy) = (dy, dx); // perpendicular
            for s in [1isize, -1] {
                if open(nx.wrapping_add_signed(s * sx), ny.wrapping_add_signed(s * sy))
                    && !open(x.wrapping_add_signed(s * sx), y.wrapping_add_signed(s * sy))
                {
                    return Some((nx, ny));
                }
            }
            (x, y) = (nx, ny);
        }
    }

    fn random_grid(width: u32, height: u32, seed: u64, walls: u64) -> Grid {
        let mut grid = Grid::new(width, height).unwrap();
        let mut state = seed;
        for p in grid.positions().collect::<Vec<_>>() {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let r = (state >> 33) % 100;
            let tile = if r < walls {
                Tile::Wall
            } else if r < walls + 5 {
                Tile::Water { cost: 1 }
            } else {
                Tile::FLOOR
            };
            grid.set_tile(p, tile).unwrap();
        }
        grid
    }

    /// The grid's jump bits (kept by every edit: `random_grid` sets each cell through
    /// `set_tile`, and then more cells change) say exactly which straight scans find a jump
    /// point, for the cell's own class, and carry the cell's diagonal moves.
    #[test]
    fn jump_bits_agree_with_cell_by_cell_jumps() {
        for (width, height, seed) in
            [(3, 3, 1), (62, 5, 2), (63, 70, 3), (64, 64, 4), (130, 67, 5), (200, 129, 6)]
        {
            for walls in [10, 30, 50] {
                let mut grid = random_grid(width, height, seed * 100 + walls, walls);
                let mut state = seed;
                for round in 0..3 {
                    check_jump_bits(&grid, &format!("{width}x{height}, {walls}% walls, round {round}"));
                    for _ in 0..50 {
                        state = state
                            .wrapping_mul(6_364_136_223_846_793_005)
                            .wrapping_add(1_442_695_040_888_963_407);
                        let pos = Pos::new(
                            (state >> 20 & 0xffff) as u32 % width,
                            (state >> 40 & 0xffff) as u32 % height,
                        );
                        // Costs too: scans stop at rough cells, and the bits say so.
                        let tile =
                            [Tile::Wall, Tile::FLOOR, Tile::Water { cost: 1 }, Tile::Ground { cost: 3 }]
                                [(state >> 60) as usize % 4];
                        grid.set_tile(pos, tile).unwrap();
                    }
                }
            }
        }
    }

    fn check_jump_bits(grid: &Grid, what: &str) {
        let (jumps, masks) = (grid.jumps(), grid.octile_moves());
        for p in grid.positions() {
            let i = grid.index(p);
            let class = grid.class_at(i);
            assert_eq!(jumps[i] & 0xf0, masks[i] & 0xf0, "diagonal moves at {p}, {what}");
            if class == 0 {
                assert_eq!(jumps[i], 0, "a wall's jump bits at {p}, {what}");
                continue;
            }
            // The goal on the border: no scan meets it.
            let view = View::new(grid.cells(), masks, jumps, grid.planes(), grid.stride(), class, (0, 0));
            let (x, y) = (p.x as usize + 1, p.y as usize + 1);
            for (k, &(dx, dy)) in DIRS[..4].iter().enumerate() {
                let want = reference_straight(&view, x, y, dx as isize, dy as isize).is_some();
                assert_eq!(jumps[i] >> k & 1 == 1, want, "jump bit {k} at {p} (class {class}), {what}");
            }
        }
    }

    #[test]
    fn bit_scans_agree_with_cell_by_cell_jumps() {
        // Sizes around the 64-bit word boundaries, random walls and another terrain class.
        for (width, height, seed) in
            [(3, 3, 1), (62, 5, 2), (63, 70, 3), (64, 64, 4), (130, 67, 5), (200, 129, 6)]
        {
            for walls in [10, 30, 50] {
                let grid = random_grid(width, height, seed * 100 + walls, walls);
                let goal = (width as usize / 2 + 1, height as usize / 3 + 1);
                for class in [1, 2] {
                    let view = View::new(
                        grid.cells(),
                        grid.octile_moves(),
                        grid.jumps(),
                        grid.planes(),
                        grid.stride(),
                        class,
                        goal,
                    );
                    for y in 1..=height as usize {
                        for x in 1..=width as usize {
                            if !view.open(x, y) {
                                continue;
                            }
                            for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                                assert_eq!(
                                    view.jump_straight(x, y, dx, dy),
                                    reference_straight(&view, x, y, dx, dy),
                                    "jump from ({x},{y}) by ({dx},{dy}) on {width}x{height}, class {class}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_jump_point_off_a_diagonal_ray_is_reached_through_the_turn() {
        // Open ground: the diagonal ray from the start meets the goal's row after two steps and
        // the row scan from there finds the goal, pushed straight away; the turning cell (2, 2)
        // is no node, and the path is unwound through it.
        let grid = Grid::new(8, 6).unwrap();
        let mut searcher = crate::Searcher::new();
        let settings = crate::Settings::with_algorithm(crate::Algorithm::Jps);
        let path = searcher.find_path(&grid, Pos::new(0, 0), Pos::new(5, 2), &settings).unwrap();
        let cells: Vec<(u32, u32)> = path.cells.iter().map(|p| (p.x, p.y)).collect();
        assert_eq!(cells, [(0, 0), (1, 1), (2, 2), (3, 2), (4, 2), (5, 2)]);
        assert!((path.cost - (3.0 + 2.0 * crate::grid::SQRT2)).abs() < 1e-9, "cost {}", path.cost);
        assert_eq!(path.stats.expanded, 2, "the start and the goal only");
        // And backwards, up and to the left.
        let path = searcher.find_path(&grid, Pos::new(7, 5), Pos::new(6, 0), &settings).unwrap();
        let cells: Vec<(u32, u32)> = path.cells.iter().map(|p| (p.x, p.y)).collect();
        assert_eq!(cells, [(7, 5), (6, 4), (6, 3), (6, 2), (6, 1), (6, 0)]);
        assert_eq!(path.stats.expanded, 2);
    }

    /// A 3 × 3 block of cell bytes (class 1) with the given costs, row by row, for
    /// `rough_moves` at its centre (index 4, stride 3).
    fn block(costs: [u8; 9]) -> [u8; 9] {
        costs.map(|c| 1 << 6 | c)
    }

    #[test]
    fn rough_moves_are_jps_moves_where_the_costs_are_equal() {
        for cost in [1, 7] {
            let cells = block([cost; 9]);
            // Every mask a grid can give: a diagonal move only with both its components.
            let possible = |legal: u32| {
                (4..8).all(|k| {
                    let (dx, dy) = DIRS[k];
                    let part = |o| DIRS.iter().position(|&d| d == o).map_or(0, |j| legal >> j & 1);
                    legal >> k & 1 == 0 || part((dx, 0)) & part((0, dy)) == 1
                })
            };
            for dir in 0..=NO_DIR {
                for legal in (0..256u32).filter(|&l| possible(l)) {
                    assert_eq!(
                        rough_moves(&cells, 4, 3, dir, legal),
                        u32::from(JPS_MOVES[dir as usize][legal as usize]),
                        "entered by {dir}, legal moves {legal:08b}, cost {cost}"
                    );
                }
            }
        }
    }

    #[test]
    fn rough_moves_keep_the_moves_that_costs_make_worth_trying() {
        // Bits: N, E, S, W, NE, SE, SW, NW.
        let (n, s, ne, se, nw, sw) = (1, 4, 16, 32, 128, 64);
        // Entered eastward on cost 5, cheap ground (1) to the north, the same mud (5) south:
        // the parent's diagonals reach N and NE (√2 < 6, √2 + 1 < 5 + √2) and S and SE (a
        // tie, diagonal first) no worse: straight on only.
        let cells = block([1, 1, 1, 5, 5, 5, 5, 5, 5]);
        assert_eq!(rough_moves(&cells, 4, 3, 1, 0xff), 2, "E only");
        // Entered eastward on cost 1 with deep mud (10) south: into the mud straight (1 + 10)
        // beats the parent's diagonal (10·√2), and so does the diagonal ahead.
        let cells = block([1, 1, 1, 1, 1, 1, 10, 10, 10]);
        assert_eq!(rough_moves(&cells, 4, 3, 1, 0xff), 2 | s | se);
        // A forced side (its back diagonal not legal) is kept whatever the costs.
        assert_eq!(rough_moves(&block([1; 9]), 4, 3, 1, 0xff & !nw), 2 | n | ne);
        // Entered north-east on cost 10 with floor west: the parent's two straight steps
        // through the floor (1 + 10) beat √2·(10 + 10) for NW; SE stays pruned (10 + 10 < √2·20).
        let cells = block([10, 10, 10, 1, 10, 10, 10, 10, 10]);
        assert_eq!(rough_moves(&cells, 4, 3, 4, 0xff) & (nw | se), 0);
        // But with mud (10) west of a floor cell, NW is worth trying: 10 + 1 > √2·(1 + 1).
        let cells = block([1, 1, 1, 10, 1, 1, 1, 1, 1]);
        assert_eq!(rough_moves(&cells, 4, 3, 4, 0xff) & (nw | se | sw), nw);
    }

    #[test]
    fn exact_root_two_comparisons() {
        assert!(sqrt2_lt(1, 2) && !sqrt2_lt(2, 2) && !sqrt2_lt(5, 7) && sqrt2_lt(5, 8));
        assert!(sqrt2_lt(-1, 0) && sqrt2_lt(-2, -2) && !sqrt2_lt(-1, -2) && !sqrt2_lt(1, -1));
        assert!(sqrt2_le(0, 0) && !sqrt2_lt(0, 0) && sqrt2_le(0, 1) && !sqrt2_le(1, 1));
    }

    /// `goal_in_sight` against the route walked cell by cell: the diagonal steps first, then
    /// the straight ones, each legal by the move masks; on random grids of two terrain classes,
    /// lines of one to four words.
    #[test]
    fn the_goal_in_sight_is_the_diagonal_first_route_walked_cell_by_cell() {
        let (mut seen, mut in_sight) = (0, 0);
        for (width, height, seed) in [(9, 7, 1), (70, 40, 2), (200, 31, 3), (40, 200, 4)] {
            for walls in [0, 5, 20] {
                let grid = random_grid(width, height, seed * 100 + walls, walls);
                let masks = grid.octile_moves();
                let stride = grid.stride();
                let mut state = seed;
                for _ in 0..400 {
                    state =
                        state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                    let from = Pos::new(
                        (state >> 20 & 0xffff) as u32 % width,
                        (state >> 40 & 0xffff) as u32 % height,
                    );
                    state =
                        state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                    let to = Pos::new(
                        (state >> 20 & 0xffff) as u32 % width,
                        (state >> 40 & 0xffff) as u32 % height,
                    );
                    let (i, goal) = (grid.index(from), grid.index(to));
                    let class = grid.class_at(i);
                    if class == 0 || grid.class_at(goal) != class {
                        continue;
                    }
                    let (x, y, gx, gy) =
                        (from.x as usize + 1, from.y as usize + 1, to.x as usize + 1, to.y as usize + 1);
                    let view =
                        View::new(grid.cells(), masks, grid.jumps(), grid.planes(), stride, class, (gx, gy));
                    // The reference: one step at a time towards the goal, diagonally while both
                    // coordinates differ.
                    let (mut cx, mut cy, mut dir, mut legal) = (x, y, None, true);
                    let (mut a, mut b) = (0, 0);
                    while (cx, cy) != (gx, gy) {
                        let sign = |to: usize, at: usize| i32::from(to > at) - i32::from(to < at);
                        let (sx, sy) = (sign(gx, cx), sign(gy, cy));
                        #[expect(clippy::cast_possible_truncation, reason = "an index into DIRS")]
                        let k = dir_index(sx, sy) as u32;
                        if u32::from(masks[cy * stride + cx]) >> k & 1 == 0 {
                            legal = false;
                            break;
                        }
                        if sx != 0 && sy != 0 {
                            b += 1;
                        } else {
                            a += 1;
                        }
                        (cx, cy, dir) = (
                            cx.wrapping_add_signed(sx as isize),
                            cy.wrapping_add_signed(sy as isize),
                            Some(k),
                        );
                    }
                    let want = if legal { dir.map(|d| (d, a, b)) } else { None };
                    seen += 1;
                    in_sight += usize::from(want.is_some());
                    if from != to {
                        assert_eq!(
                            view.goal_in_sight(i, x, y),
                            want,
                            "{from} to {to}, {width}x{height}, {walls}% walls"
                        );
                    }
                }
            }
        }
        assert!(
            in_sight > seen / 10 && in_sight < seen,
            "{in_sight} of {seen} pairs in sight: too few either way"
        );
    }

    /// A goal in sight of the start: two nodes closed, the octile route, on both JPS variants.
    #[test]
    fn a_goal_in_sight_of_the_start_ends_the_search_at_once() {
        use crate::{Algorithm, Searcher, Settings};
        let mut grid = Grid::new(40, 30).unwrap();
        // A post off the route: the start's jumps would find it.
        grid.set_tile(Pos::new(20, 5), Tile::Wall).unwrap();
        let settings = Settings::with_algorithm(Algorithm::Jps);
        for online in [false, true] {
            let mut searcher = Searcher::new();
            searcher.set_jump_bits(!online);
            let path = searcher.find_path(&grid, Pos::new(3, 4), Pos::new(30, 20), &settings).unwrap();
            assert_eq!(path.stats.expanded, 2, "online {online}");
            assert!((path.cost - (11.0 + 16.0 * std::f64::consts::SQRT_2)).abs() < 1e-9, "{}", path.cost);
            assert_eq!(path.cells.len(), 28);
            assert_eq!(path.cells[16], Pos::new(19, 20), "diagonal first, then straight");
            // Blocked on the diagonal: the search goes on, as exact as before.
            grid.set_tile(Pos::new(10, 11), Tile::Wall).unwrap();
            let path = searcher.find_path(&grid, Pos::new(3, 4), Pos::new(30, 20), &settings).unwrap();
            assert!(path.stats.expanded > 2);
            assert!((path.cost - (11.0 + 16.0 * std::f64::consts::SQRT_2)).abs() < 1e-9, "{}", path.cost);
            grid.set_tile(Pos::new(10, 11), Tile::FLOOR).unwrap();
        }
    }

    #[test]
    fn jump_nodes_forget_every_query_and_survive_the_last_generation() {
        let mut nodes = JumpNodes::default();
        nodes.reset(16);
        nodes.open(3, 2, 1, 5, 7);
        nodes.close(3);
        assert!(nodes.seen(3) && nodes.closed(3));
        assert_eq!((nodes.lattice(3), nodes.dir(3), nodes.far_parent(3)), ((2, 1), 5, 7));
        nodes.reset(16);
        assert!(!nodes.seen(3) && !nodes.closed(3), "a new query sees nothing of the last");
        // The stamps run out: every record is cleared, and stale ones do not read as seen.
        nodes.generation = u32::MAX >> 5;
        nodes.open(4, 1, 1, NO_DIR, 4);
        nodes.reset(16);
        assert_eq!(nodes.generation, 1);
        assert!(!nodes.seen(4));
        nodes.open(5, 0, 0, NO_DIR, 5);
        assert!(nodes.seen(5) && !nodes.closed(5));
    }

    #[test]
    fn bit_planes_follow_random_edits() {
        let mut grid = random_grid(70, 66, 9, 30);
        let mut state = 77u64;
        for _ in 0..3000 {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let pos = Pos::new(((state >> 20) % 70) as u32, ((state >> 40) % 66) as u32);
            let tile = match (state >> 59) % 6 {
                0 => Tile::Wall,
                1 => Tile::Water { cost: 1 },
                2 => Tile::Trees { cost: 3 },
                3 => Tile::Ground { cost: 4 },
                _ => Tile::FLOOR,
            };
            grid.set_tile(pos, tile).unwrap();
        }
        // The rough cells (the stops of JPS on terrain costs) kept up by the edits are those of
        // the definition: open, with a neighbour of the same class and another cost.
        for p in grid.positions() {
            let i = grid.index(p);
            let byte = grid.cells()[i];
            let want = byte >> 6 != 0
                && [-1, 0, 1].iter().any(|&dy| {
                    [-1, 0, 1].iter().any(|&dx| {
                        let n = grid.cells()[i.wrapping_add_signed(grid.offset(dx, dy))];
                        n >> 6 == byte >> 6 && n != byte
                    })
                });
            let (x, y) = (p.x as usize + 1, p.y as usize + 1);
            assert_eq!(grid.planes().is_rough(x, y), want, "rough bit at {p}");
            let col = grid.planes().rough_cols[x * grid.planes().col_words + y / 64] >> (y % 64) & 1 == 1;
            assert_eq!(col, want, "rough column bit at {p}");
        }
        // The forced-neighbour bits kept up by the edits equal freshly computed ones (and so do
        // the move masks).
        let mut fresh = grid.clone();
        fresh.refresh_moves();
        assert!(fresh == grid, "forced-neighbour bits and move masks must follow the edits");
        let planes = grid.planes();
        for y in 0..grid.height() as usize + 2 {
            for x in 0..grid.stride() {
                let class = grid.class_at(y * grid.stride() + x);
                for c in 1..=3u8 {
                    let c_i = usize::from(c - 1);
                    let row_bit = planes.rows[c_i][y * planes.row_words + x / 64] >> (x % 64) & 1 == 1;
                    let col_bit = planes.cols[c_i][x * planes.col_words + y / 64] >> (y % 64) & 1 == 1;
                    assert_eq!(row_bit, class == c, "row plane of class {c} at padded ({x},{y})");
                    assert_eq!(col_bit, class == c, "column plane of class {c} at padded ({x},{y})");
                }
            }
        }
    }
}
