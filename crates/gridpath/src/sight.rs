//! Line of sight between cell centres, the terrain cost of a straight segment, and a
//! post-smoother that pulls any grid path taut: what the any-angle searches and their callers
//! build on.
//!
//! A segment runs from the centre of one cell to the centre of another. It may be walked when
//! every cell whose inside it crosses has the first cell's terrain class and, where it passes
//! exactly through a corner point shared by four cells (as a diagonal step does), the two cells
//! it only touches there obey the corner rule as an octile diagonal step would:
//! [`Corners::Forbid`] wants both (so a segment that touches a blocked cell at all, even at one
//! point, is blocked: a bodied unit never grazes a wall), [`Corners::AllowOne`] one of them,
//! [`Corners::Allow`] neither. With [`Moves::Four`] only horizontal and vertical segments can be
//! walked: a 4-connected unit never moves at an angle.

use crate::grid::{Corners, Grid, IllegalStep, Moves, Pos, Rules};
use crate::search::Shape;

/// What one walk along a segment reports for each cell whose inside it crosses.
trait Visit {
    /// The segment spends the fraction `share` of its length in the cell at padded index `i`.
    fn cell(&mut self, i: usize, share: f64);
}

/// Line of sight only: nothing to record.
struct Sight;
impl Visit for Sight {
    #[inline(always)]
    fn cell(&mut self, _: usize, _: f64) {}
}

/// Sums each cell's share of the segment times its terrain cost.
struct Cost<'a> {
    cells: &'a [u8],
    sum: f64,
}
impl Visit for Cost<'_> {
    #[inline(always)]
    fn cell(&mut self, i: usize, share: f64) {
        self.sum += share * f64::from(self.cells[i] & 63);
    }
}

/// Collects the cells crossed.
struct Collect<'a> {
    grid: &'a Grid,
    out: Vec<Pos>,
}
impl Visit for Collect<'_> {
    fn cell(&mut self, i: usize, _: f64) {
        self.out.push(self.grid.pos_of(i));
    }
}

impl Grid {
    /// `true` when a unit can walk straight from the centre of `a` to the centre of `b` under
    /// `rules` (the module [`sight`](crate::sight) gives the exact rule): never through a wall,
    /// never across terrain classes, never past a corner the corner rule forbids. Exact
    /// (integer arithmetic); horizontal and vertical segments are tested 64 cells at a time on
    /// the grid's bit planes. `false` when either end is off the grid or a wall.
    ///
    /// ```
    /// use gridpath::{formats, Corners, Pos, Rules};
    /// let map = formats::parse_ascii("....\n.#..\n....").unwrap();
    /// let grid = &map.grid;
    /// assert!(grid.line_of_sight(Pos::new(0, 0), Pos::new(3, 0), Rules::OCTILE));
    /// // (0,1) -> (1,0) passes through the wall's corner point: only corner cutting allows it.
    /// assert!(!grid.line_of_sight(Pos::new(0, 1), Pos::new(1, 0), Rules::OCTILE));
    /// assert!(grid.line_of_sight(Pos::new(0, 1), Pos::new(1, 0), Rules::eight(Corners::AllowOne)));
    /// assert!(!grid.line_of_sight(Pos::new(0, 2), Pos::new(2, 0), Rules::eight(Corners::Allow)), "through it");
    /// assert!(!grid.line_of_sight(Pos::new(0, 0), Pos::new(3, 2), Rules::FOUR), "no angles with 4 moves");
    /// ```
    #[must_use]
    pub fn line_of_sight(&self, a: Pos, b: Pos, rules: Rules) -> bool {
        if !self.is_passable(a) || !self.is_passable(b) {
            return false;
        }
        if self.has_fences() {
            // The segment tests read cells, not the sides between them: on a grid with fences
            // ([`Grid::set_fence`]) only a single legal step is known to be clear, so smoothing
            // keeps such a grid's paths as they are rather than cut across a fence.
            return a == b || self.can_step(a, b, rules);
        }
        if a.x == b.x || a.y == b.y {
            return self.straight_run_open(a, b);
        }
        match (rules.moves, rules.corners) {
            (Moves::Four, _) => false,
            (Moves::Eight, Corners::Forbid) => self.sight_by_runs(a, b),
            (Moves::Eight, corners) => self.walk(a, b, corners, &mut Sight),
        }
    }

    /// The cost of walking straight from the centre of `a` to the centre of `b`: the length of
    /// the segment inside each cell times that cell's terrain cost, summed (with every cost 1,
    /// the Euclidean distance). `None` when there is no [`Grid::line_of_sight`].
    ///
    /// This is not the step-cost rule of the grid searches (a step costs its length times the
    /// cost of the cell it *enters*): a straight step between two cells of costs 1 and 3 costs
    /// 3 there and 2 here (half of it in each). On grids of uniform cost the two agree.
    #[must_use]
    pub fn segment_cost(&self, a: Pos, b: Pos, rules: Rules) -> Option<f64> {
        if !self.line_of_sight(a, b, rules) {
            return None;
        }
        let mut cost = Cost { cells: self.cells(), sum: 0.0 };
        self.walk(a, b, Corners::Allow, &mut cost);
        Some(cost.sum * distance(a, b))
    }

    /// Checks an any-angle path (consecutive vertices in [`Grid::line_of_sight`] of each other,
    /// as Theta* returns them; a grid path of neighbours is one too) and returns its cost, the
    /// sum of [`Grid::segment_cost`] over its segments.
    ///
    /// # Errors
    /// [`IllegalStep`] naming the first segment without line of sight (or an empty path, or a
    /// first vertex that is not passable).
    pub fn any_angle_cost(&self, vertices: &[Pos], rules: Rules) -> Result<f64, IllegalStep> {
        let Some(first) = vertices.first() else {
            return Err(IllegalStep { index: 0, from: None, to: Pos::default() });
        };
        if !self.is_passable(*first) {
            return Err(IllegalStep { index: 0, from: None, to: *first });
        }
        let mut cost = 0.0;
        for (i, w) in vertices.windows(2).enumerate() {
            cost += self.segment_cost(w[0], w[1], rules).ok_or(IllegalStep {
                index: i + 1,
                from: Some(w[0]),
                to: w[1],
            })?;
        }
        Ok(cost)
    }

    /// `true` when every cell from `a` to `b` (one row or one column, both included) has `a`'s
    /// class: whole words of the class's bit plane at a time.
    fn straight_run_open(&self, a: Pos, b: Pos) -> bool {
        let class = self.class_at(self.index(a));
        let row = a.y == b.y;
        let lines = self.planes().lines(row, usize::from(class - 1));
        // Padded coordinates: the line and the run along it.
        let (line, lo, hi) = if row {
            (b.y as usize + 1, a.x.min(b.x) as usize + 1, a.x.max(b.x) as usize + 1)
        } else {
            (a.x as usize + 1, a.y.min(b.y) as usize + 1, a.y.max(b.y) as usize + 1)
        };
        run_open(&lines.open[line * lines.wpl..(line + 1) * lines.wpl], lo, hi)
    }

    /// [`Grid::line_of_sight`] under [`Corners::Forbid`] for a segment that is neither
    /// horizontal nor vertical, on the bit planes: along the segment's major axis, the cells it
    /// crosses in each line (row or column) of the minor axis form one run, tested a word of 64
    /// cells at a time; where it passes a corner point, the two cells touched there (which
    /// `Forbid` wants open) are the run's one extra cell at each side of the corner. Line `j`
    /// (from 0 at `a`) is left at major offset `⌊((2j+1)·nu + nv) / 2nv⌋` (the crossing of the
    /// border between the lines, rounded to the nearest cell centre), exactly a corner point
    /// when the division has no remainder; kept as a running quotient and remainder.
    fn sight_by_runs(&self, a: Pos, b: Pos) -> bool {
        let (nx, ny) = (u64::from(a.x.abs_diff(b.x)), u64::from(a.y.abs_diff(b.y)));
        let rows = nx >= ny;
        // Major (u) and minor (v) axes, padded coordinates.
        let (au, av, bu, bv) = if rows {
            (a.x as usize + 1, a.y as usize + 1, b.x as usize + 1, b.y as usize + 1)
        } else {
            (a.y as usize + 1, a.x as usize + 1, b.y as usize + 1, b.x as usize + 1)
        };
        // The rule is symmetric (a crossed cell of another class than either end fails from
        // both ends, and the ends' own cells are in the first and last runs): walk from the
        // end with the lower minor coordinate, so the lines follow each other in memory.
        let ((au, av, bu, bv), from) = if bv < av { ((bu, bv, au, av), b) } else { ((au, av, bu, bv), a) };
        let class = self.class_at(self.index(from));
        let lines = self.planes().lines(rows, usize::from(class - 1));
        let wpl = lines.wpl;
        let open = &lines.open[av * wpl..(bv + 1) * wpl];
        #[expect(clippy::cast_possible_truncation, reason = "spans are below the side, ≤ 8192")]
        let (nu, nv) = (au.abs_diff(bu) as u32, (bv - av) as u32);
        if bu > au {
            runs_open::<true>(open, wpl, au, nu, nv)
        } else {
            runs_open::<false>(open, wpl, au, nu, nv)
        }
    }

    /// Walks the cells whose inside the segment from the centre of `a` to the centre of `b`
    /// crosses (both passable), in order, telling `visit` each one's share of the length;
    /// `false` as soon as a crossed cell has another class than `a` or a corner point passed
    /// breaks `corners`. The crossings of the vertical cell borders lie at `t = (2i+1)/(2nx)`
    /// and of the horizontal ones at `(2j+1)/(2ny)`: comparing the two as integers tells
    /// which comes first, and equality is a corner point.
    fn walk(&self, a: Pos, b: Pos, corners: Corners, visit: &mut impl Visit) -> bool {
        let cells = self.cells();
        let mut i = self.index(a);
        let class = cells[i] >> 6;
        let (nx, ny) = (i64::from(a.x.abs_diff(b.x)), i64::from(a.y.abs_diff(b.y)));
        let sx: isize = if b.x > a.x { 1 } else { -1 };
        let sy: isize = if b.y > a.y { self.stride().cast_signed() } else { -self.stride().cast_signed() };
        let (mut ix, mut iy) = (0i64, 0i64);
        let mut t = 0.0;
        #[expect(clippy::cast_precision_loss, reason = "sides are at most 8192")]
        let (fx, fy) = ((2 * nx) as f64, (2 * ny) as f64);
        while ix < nx || iy < ny {
            let decision = (1 + 2 * ix) * ny - (1 + 2 * iy) * nx;
            #[expect(clippy::cast_precision_loss, reason = "sides are at most 8192")]
            let next = if decision <= 0 { (2 * ix + 1) as f64 / fx } else { (2 * iy + 1) as f64 / fy };
            visit.cell(i, next - t);
            t = next;
            match decision.cmp(&0) {
                std::cmp::Ordering::Equal => {
                    // Through a corner point: the two cells touched only there.
                    let open = |j: usize| cells[j] >> 6 == class;
                    let (p, q) = (open(i.wrapping_add_signed(sx)), open(i.wrapping_add_signed(sy)));
                    let ok = match corners {
                        Corners::Forbid => p && q,
                        Corners::AllowOne => p || q,
                        Corners::Allow => true,
                    };
                    if !ok {
                        return false;
                    }
                    i = i.wrapping_add_signed(sx + sy);
                    ix += 1;
                    iy += 1;
                }
                std::cmp::Ordering::Less => {
                    i = i.wrapping_add_signed(sx);
                    ix += 1;
                }
                std::cmp::Ordering::Greater => {
                    i = i.wrapping_add_signed(sy);
                    iy += 1;
                }
            }
            if cells[i] >> 6 != class {
                return false;
            }
        }
        visit.cell(i, 1.0 - t);
        true
    }
}

/// `true` when bits `lo..=hi` of the line `words` are all set.
#[inline(always)]
fn run_open(words: &[u64], lo: usize, hi: usize) -> bool {
    let (first, last) = (lo / 64, hi / 64);
    if first == last {
        let mask = (u64::MAX >> (63 - hi % 64)) & (u64::MAX << (lo % 64));
        return words[first] & mask == mask;
    }
    (first..=last).all(|w| {
        let from = if w == first { lo % 64 } else { 0 };
        let to = if w == last { hi % 64 } else { 63 };
        let mask = (u64::MAX >> (63 - to)) & (u64::MAX << from);
        words[w] & mask == mask
    })
}

/// [`Grid::sight_by_runs`]'s walk over the `nv + 1` lines of `open` (`wpl` words each, the
/// segment's first line first), the segment going from major coordinate `au` towards higher
/// (`FORWARD`) or lower ones by `nu` cells: line `j` is left at major offset
/// `⌊((2j+1)·nu + nv) / 2nv⌋`, a corner point when the division has no remainder (then the
/// next line's run starts one cell back); a running quotient and remainder.
#[inline(always)]
fn runs_open<const FORWARD: bool>(open: &[u64], wpl: usize, au: usize, nu: u32, nv: u32) -> bool {
    // 32-bit divisions: several times faster than 64-bit ones on many x86 cores.
    let den = 2 * nv;
    let (step_q, step_r) = ((2 * nu) / den, (2 * nu) % den);
    let (mut q, mut r) = ((nu + nv) / den, (nu + nv) % den);
    let run = |line: &[u64], start: usize, end: usize| {
        let (lo, hi) = if FORWARD { (au + start, au + end) } else { (au - end, au - start) };
        let (first, last) = (lo / 64, hi / 64);
        if first == last {
            // The common case, a run inside one word.
            let mask = (u64::MAX >> (63 - hi % 64)) & (u64::MAX << (lo % 64));
            line[first] & mask == mask
        } else {
            run_open(line, lo, hi)
        }
    };
    let mut lines = open.chunks_exact(wpl);
    let mut start = 0usize;
    for line in lines.by_ref().take(nv as usize) {
        let end = q as usize;
        if !run(line, start, end) {
            return false;
        }
        start = if r == 0 { end - 1 } else { end };
        q += step_q;
        r += step_r;
        if r >= den {
            q += 1;
            r -= den;
        }
    }
    lines.next().is_some_and(|line| run(line, start, nu as usize))
}

/// Euclidean distance between two cell centres: the square root of an exact integer (no
/// `hypot`, several times slower, in the any-angle searches' inner loop).
pub(crate) fn distance(a: Pos, b: Pos) -> f64 {
    let (dx, dy) = (u64::from(a.x.abs_diff(b.x)), u64::from(a.y.abs_diff(b.y)));
    #[expect(clippy::cast_precision_loss, reason = "below 2^27: exact")]
    let squared = (dx * dx + dy * dy) as f64;
    squared.sqrt()
}

/// The cells whose [`Grid::line_of_sight`] to `goal` may have changed when the cells `edited`
/// changed (walls, terrain), row by row: `each(y, xs)` for each row `y` of a `width` × `height`
/// grid with cells of it to look at again. Returns `false`, having told nothing, when the edits
/// may change any cell's sight (one is on `goal`, or they surround it): look at all of them.
///
/// A cell's sight reads only the cells whose closed square its segment to the goal meets (the
/// cells it crosses, those it touches at a corner point, its two ends), so an edit matters only
/// to the cells whose segment meets the box round the edited squares: those in the wedge the
/// box casts away from the goal, and on that side of it. Whatever the rules (a grid with
/// fences reads more: [`Grid::has_fences`] callers start afresh). A superset, a row's range
/// rounded outwards: a few cells more are looked at again than need be, never one fewer.
///
/// ```
/// use gridpath::{sight, Pos};
/// let mut rows = Vec::new();
/// // A wall painted two cells right of the goal on a 16 x 5 map: only cells to the right (a
/// // cell to spare), round that row, may see the goal differently.
/// assert!(sight::sight_shadow(Pos::new(2, 2), &[Pos::new(4, 2)], (16, 5), |y, xs| rows.push((y, xs))));
/// assert!(rows.iter().all(|(_, xs)| xs.start >= 2));
/// assert!(rows.iter().any(|(y, xs)| *y == 2 && xs.contains(&15)));
/// // An edit on the goal itself: every cell.
/// assert!(!sight::sight_shadow(Pos::new(2, 2), &[Pos::new(2, 2)], (16, 5), |_, _| {}));
/// ```
pub fn sight_shadow(
    goal: Pos,
    edited: &[Pos],
    (width, height): (u32, u32),
    mut each: impl FnMut(u32, std::ops::Range<u32>),
) -> bool {
    // The box round the edited squares gets a margin far above rounding.
    const MARGIN: f64 = 0.25;
    let Some(first) = edited.first() else { return true };
    let (mut x0, mut y0, mut x1, mut y1) = (first.x, first.y, first.x, first.y);
    for p in edited {
        (x0, y0, x1, y1) = (x0.min(p.x), y0.min(p.y), x1.max(p.x), y1.max(p.y));
    }
    let (bx0, by0) = (f64::from(x0) - MARGIN, f64::from(y0) - MARGIN);
    let (bx1, by1) = (f64::from(x1) + 1.0 + MARGIN, f64::from(y1) + 1.0 + MARGIN);
    let (gx, gy) = (f64::from(goal.x) + 0.5, f64::from(goal.y) + 0.5);
    if (bx0..=bx1).contains(&gx) && (by0..=by1).contains(&gy) {
        return false;
    }
    // The box as seen from the goal: its middle direction, and its corners' directions.
    let (mx, my) = (f64::midpoint(bx0, bx1) - gx, f64::midpoint(by0, by1) - gy);
    let m = mx.hypot(my);
    let (dx, dy) = (mx / m, my / m);
    let corners = [(bx0, by0), (bx1, by0), (bx0, by1), (bx1, by1)].map(|(x, y)| (x - gx, y - gy));
    // Sine (left of the middle: positive) and cosine of each corner's angle off the middle.
    let angle = |(x, y): (f64, f64)| {
        let l = x.hypot(y);
        ((dx * y - dy * x) / l, (dx * x + dy * y) / l)
    };
    let (mut left, mut right, mut least_cos) = (corners[0], corners[0], 1.0_f64);
    for &c in &corners {
        let (sin, cos) = angle(c);
        least_cos = least_cos.min(cos);
        if sin > angle(left).0 {
            left = c;
        }
        if sin < angle(right).0 {
            right = c;
        }
    }
    // A box that wide round the goal: its wedge is most of the map.
    if least_cos < 0.2 {
        return false;
    }
    // Inside the wedge: left of its right edge, right of its left edge (normals pointing in),
    // and beyond the box's nearest point along the middle direction.
    let inward = |(x, y): (f64, f64)| {
        let n = (-y, x);
        if n.0 * dx + n.1 * dy >= 0.0 { n } else { (y, -x) }
    };
    let near = {
        let ex = (bx0 - gx).max(gx - bx1).max(0.0);
        let ey = (by0 - gy).max(gy - by1).max(0.0);
        ex.hypot(ey) * least_cos
    };
    // Each constraint: a·vx + b·vy >= t for v = (cell centre - goal).
    let constraints = [(inward(left), 0.0), (inward(right), 0.0), ((dx, dy), near)];
    for y in 0..height {
        let vy = f64::from(y) + 0.5 - gy;
        let (mut lo, mut hi) = (f64::NEG_INFINITY, f64::INFINITY);
        for &((a, b), t) in &constraints {
            // a·vx >= t - b·vy, less a margin: rounded outwards.
            let rest = t - b * vy - 1e-6;
            if a.abs() < 1e-12 {
                if rest > 0.0 {
                    hi = f64::NEG_INFINITY;
                }
            } else if a > 0.0 {
                lo = lo.max(rest / a);
            } else {
                hi = hi.min(rest / a);
            }
        }
        // Cell x has its centre at vx = x + 0.5 - gx; a cell either side to spare.
        let from = (lo + gx - 0.5).floor() - 1.0;
        let to = (hi + gx - 0.5).ceil() + 1.0;
        if from > to {
            continue;
        }
        #[expect(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "clamped onto the map")]
        let (from, to) =
            (from.max(0.0).min(f64::from(width)) as u32, (to + 1.0).max(0.0).min(f64::from(width)) as u32);
        if from < to {
            each(y, from..to);
        }
    }
    true
}

/// The cells whose inside the segment from the centre of `a` to the centre of `b` crosses, from
/// `a` to `b`: what a unit walking an any-angle path's segment passes through (the cells it
/// only touches at a corner point are left out). Does not check passability; both ends must be
/// on `grid`, or the result is empty.
///
/// ```
/// use gridpath::{sight, Grid, Pos};
/// let grid = Grid::new(4, 4).unwrap();
/// let cells = sight::segment_cells(&grid, Pos::new(0, 0), Pos::new(3, 1));
/// assert_eq!(cells, [Pos::new(0, 0), Pos::new(1, 0), Pos::new(2, 1), Pos::new(3, 1)]);
/// ```
#[must_use]
pub fn segment_cells(grid: &Grid, a: Pos, b: Pos) -> Vec<Pos> {
    if !grid.in_bounds(a) || !grid.in_bounds(b) {
        return Vec::new();
    }
    let mut collect = Collect { grid, out: Vec::new() };
    walk_cells(grid, a, b, &mut collect);
    collect.out
}

/// Every cell a path of turning points passes, start to end, each joint once: for a grid path
/// (consecutive cells neighbours) its cells, for an any-angle or smoothed path the cells each
/// segment crosses ([`segment_cells`]). What a map shows as the route a unit walks.
///
/// ```
/// use gridpath::{sight, Grid, Pos};
/// let grid = Grid::new(4, 4).unwrap();
/// let cells = sight::path_cells(&grid, &[Pos::new(0, 0), Pos::new(3, 1), Pos::new(3, 3)]);
/// assert_eq!(cells, [Pos::new(0, 0), Pos::new(1, 0), Pos::new(2, 1), Pos::new(3, 1), Pos::new(3, 2), Pos::new(3, 3)]);
/// ```
#[must_use]
pub fn path_cells(grid: &Grid, vertices: &[Pos]) -> Vec<Pos> {
    let mut cells = Vec::new();
    path_cells_into(grid, vertices, &mut cells);
    cells
}

/// The turning points of a path: its first and last cell and every cell where its direction
/// changes (a turn back too). For a grid path the cells between collinear steps are dropped,
/// so consecutive corners lie on one horizontal, vertical or diagonal line ([`path_cells`]
/// gives the cells back); an any-angle or smoothed path keeps every vertex where it turns (one
/// on the straight line between its neighbours is dropped).
///
/// ```
/// use gridpath::{sight, Pos};
/// let p = Pos::new;
/// let cells = [p(0, 0), p(1, 0), p(2, 0), p(3, 1), p(4, 2), p(4, 3)];
/// assert_eq!(sight::corners(&cells), [p(0, 0), p(2, 0), p(4, 2), p(4, 3)]);
/// ```
#[must_use]
pub fn corners(path: &[Pos]) -> Vec<Pos> {
    let mut out = path.to_vec();
    keep_corners(&mut out);
    out
}

/// [`corners`] in place: `path` keeps only its turning points.
pub fn keep_corners(path: &mut Vec<Pos>) {
    let mut kept = 0;
    for k in 0..path.len() {
        let p = path[k];
        if kept >= 2 && goes_straight_on(path[kept - 2], path[kept - 1], p) {
            path[kept - 1] = p;
        } else {
            path[kept] = p;
            kept += 1;
        }
    }
    path.truncate(kept);
}

/// Appends `p` to a list of corners being built (see [`corners`]): the last one is replaced
/// when the path goes straight on through it to `p`.
pub(crate) fn push_corner(out: &mut Vec<Pos>, p: Pos) {
    match out[..] {
        [.., a, b] if goes_straight_on(a, b, p) => *out.last_mut().expect("two corners at least") = p,
        _ => out.push(p),
    }
}

/// Appends a run of a route from `from` (the last point already in `out`) through `turn` to
/// `to`, each leg one straight or diagonal line (a leg may be empty: `turn` is `from` or `to`):
/// every cell after `from` for [`Shape::Cells`], or for [`Shape::Corners`] the turn where the run
/// bends there and `to`, each merged as [`push_corner`] does. JPS's jumps and the subgoal graph's
/// edges are such runs.
pub(crate) fn push_legs(out: &mut Vec<Pos>, (from, turn, to): (Pos, Pos, Pos), shape: Shape) {
    match shape {
        Shape::Cells => {
            // One step from `a` towards `b` on each axis (none where they agree).
            let towards = |a: u32, b: u32| i32::from(b > a) - i32::from(b < a);
            let mut at = from;
            for end in [turn, to] {
                let (sx, sy) = (towards(at.x, end.x), towards(at.y, end.y));
                while at != end {
                    at = Pos::new(at.x.wrapping_add_signed(sx), at.y.wrapping_add_signed(sy));
                    out.push(at);
                }
            }
        }
        Shape::Corners => {
            if turn != from && turn != to {
                push_corner(out, turn);
            }
            push_corner(out, to);
        }
    }
}

/// Whether the path `a` → `b` → `c` goes on through `b` in the same direction (collinear, not
/// turning back).
fn goes_straight_on(a: Pos, b: Pos, c: Pos) -> bool {
    // Products of two differences of `u32`s: past `i64`.
    let step =
        |from: Pos, to: Pos| (i128::from(to.x) - i128::from(from.x), i128::from(to.y) - i128::from(from.y));
    let ((ax, ay), (bx, by)) = (step(a, b), step(b, c));
    ax * by == ay * bx && ax * bx + ay * by > 0
}

/// [`path_cells`] into `cells` (cleared first), reusing its allocation. Every vertex must be
/// on `grid`.
pub(crate) fn path_cells_into(grid: &Grid, vertices: &[Pos], cells: &mut Vec<Pos>) {
    cells.clear();
    cells.extend(vertices.first().copied());
    let mut collect = Collect { grid, out: std::mem::take(cells) };
    for pair in vertices.windows(2) {
        // The walk reports the segment's first cell, the previous segment's last.
        collect.out.pop();
        walk_cells(grid, pair[0], pair[1], &mut collect);
    }
    *cells = collect.out;
}

/// [`Grid::walk`]'s crossing order without any class test (for [`segment_cells`]).
fn walk_cells(grid: &Grid, a: Pos, b: Pos, visit: &mut impl Visit) {
    let (nx, ny) = (i64::from(a.x.abs_diff(b.x)), i64::from(a.y.abs_diff(b.y)));
    let (mut x, mut y) = (a.x, a.y);
    let (mut ix, mut iy) = (0i64, 0i64);
    visit.cell(grid.index(a), 0.0);
    while ix < nx || iy < ny {
        let decision = (1 + 2 * ix) * ny - (1 + 2 * iy) * nx;
        if decision <= 0 {
            x = if b.x > a.x { x + 1 } else { x - 1 };
            ix += 1;
        }
        if decision >= 0 {
            y = if b.y > a.y { y + 1 } else { y - 1 };
            iy += 1;
        }
        visit.cell(grid.index(Pos::new(x, y)), 0.0);
    }
}

/// Pulls a path taut with line of sight (string pulling): from each kept vertex, the farthest
/// later vertex of `path` that it sees under `rules` and that is not costlier to reach
/// straight than along `path`, up to where the sight is first found to fail (the path's turns
/// are tried one by one, then 2, 4, 8, … ahead; between the last seen and the first hidden by
/// halving), becomes the next kept vertex. The result starts and ends where
/// `path` does, consecutive vertices are in [`Grid::line_of_sight`] of each other, and its
/// [`Grid::any_angle_cost`] is never above that of `path` (so never above the path's own cost on
/// a grid of uniform cost). Works on the output of any search (A*, JPS, Dijkstra, …); a pair
/// of consecutive input cells without line of sight is kept as it is.
///
/// ```
/// use gridpath::{formats, sight, Pos, Searcher, Settings};
/// let map = formats::parse_ascii("S.......\n........\n.......G").unwrap();
/// let path = Searcher::new()
///     .find_path(&map.grid, Pos::new(0, 0), Pos::new(7, 2), &Settings::default())
///     .unwrap();
/// let taut = sight::smooth(&map.grid, &path.cells, Settings::default().rules);
/// assert_eq!(taut, [Pos::new(0, 0), Pos::new(7, 2)]);
/// ```
#[must_use]
pub fn smooth(grid: &Grid, path: &[Pos], rules: Rules) -> Vec<Pos> {
    let mut out = Vec::new();
    smooth_into(grid, path, rules, &mut Smoothing::default(), &mut out);
    out
}

/// [`smooth`] with its buffers kept between calls: for callers that smooth often (a game
/// smoothing every route it plans, a benchmark), no allocation once the buffers have grown.
///
/// ```
/// use gridpath::{formats, sight::Smoother, Pos, Searcher, Settings};
/// let map = formats::parse_ascii("S.......\n........\n.......G").unwrap();
/// let path = Searcher::new()
///     .find_path(&map.grid, Pos::new(0, 0), Pos::new(7, 2), &Settings::default())
///     .unwrap();
/// let mut smoother = Smoother::new();
/// let taut = smoother.smooth(&map.grid, &path.cells, Settings::default().rules);
/// assert_eq!(taut, [Pos::new(0, 0), Pos::new(7, 2)]);
/// ```
#[derive(Default, Debug)]
pub struct Smoother {
    scratch: Smoothing,
    out: Vec<Pos>,
}

impl Smoother {
    /// A smoother with empty buffers.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// [`smooth`]'s answer for `path`, valid until the next call.
    pub fn smooth(&mut self, grid: &Grid, path: &[Pos], rules: Rules) -> &[Pos] {
        smooth_into(grid, path, rules, &mut self.scratch, &mut self.out);
        &self.out
    }
}

/// Turns checked one by one from a kept vertex before [`smooth_into`] starts galloping.
const GALLOP_AFTER: usize = 4;

/// [`smooth`]'s working buffers, kept between calls by callers that smooth often.
#[derive(Default, Debug)]
pub(crate) struct Smoothing {
    along: Vec<f64>,
    turns: Vec<usize>,
}

/// [`smooth`] into `out` (cleared first), with `scratch`'s buffers: no allocation once they
/// have grown.
pub(crate) fn smooth_into(
    grid: &Grid,
    path: &[Pos],
    rules: Rules,
    scratch: &mut Smoothing,
    out: &mut Vec<Pos>,
) {
    out.clear();
    let Some(&first) = path.first() else {
        return;
    };
    // On uniform cost a segment costs its length: no walk through its cells to sum costs, and
    // a straight segment is never longer than the path it replaces (the triangle inequality).
    let uniform = grid.has_uniform_cost();
    let segment = |a: Pos, b: Pos| {
        if uniform {
            grid.line_of_sight(a, b, rules).then(|| distance(a, b))
        } else {
            grid.segment_cost(a, b, rules)
        }
    };
    // The vertices where the path turns (and its first and last), in order: a grid path's
    // straight runs are tried at their ends first, and cell by cell only up to where the sight
    // first fails. Off uniform cost, in the same pass, the along-the-path cost up to each
    // vertex (in the segment model).
    let (along, turns) = (&mut scratch.along, &mut scratch.turns);
    along.clear();
    turns.clear();
    along.push(0.0);
    turns.push(0);
    // A turn where a cell is not midway between its neighbours: both coordinates packed into
    // one word, `prev + next != 2 · here` (no carry crosses: coordinates are below 2^13).
    let packed = |p: Pos| u64::from(p.x) | u64::from(p.y) << 32;
    if uniform {
        // A straight segment is never longer than the path it replaces (the triangle
        // inequality): only the turns are needed.
        for (j, w) in path.windows(3).enumerate() {
            if packed(w[0]) + packed(w[2]) != 2 * packed(w[1]) {
                turns.push(j + 1);
            }
        }
    } else {
        let mut sum = 0.0;
        for (j, w) in path.windows(2).enumerate() {
            sum += segment(w[0], w[1]).unwrap_or(f64::INFINITY);
            along.push(sum);
            if j > 0 && packed(path[j - 1]) + packed(w[1]) != 2 * packed(w[0]) {
                turns.push(j);
            }
        }
    }
    if path.len() > 1 {
        turns.push(path.len() - 1);
    }
    out.push(first);
    let last = path.len() - 1;
    let mut i = 0;
    while i < last {
        let mut next = i + 1;
        let better = |j: usize, straight: f64| uniform || straight <= along[j] - along[i] + 1e-9;
        // Turn by turn for the first few turns after `i` (most kept segments end there), then
        // galloping: 2, 4, 8, … turns ahead of the last one seen, until one is out of sight (or
        // the end is seen); then halving between the last seen and it. (Long runs of turns in
        // sight, as on city maps, took a check per turn: NewYork's smoothing -43 % instructions.)
        let (mut seen, mut hidden) = (i + 1, None);
        let (mut stride, mut tried) = (1, 0);
        // The first turn after the last vertex seen (the path's last vertex is one).
        let mut t = turns.partition_point(|&k| k <= seen);
        while seen < last {
            let at = (t + stride - 1).min(turns.len() - 1);
            let j = turns[at];
            if let Some(straight) = segment(path[i], path[j]) {
                if better(j, straight) {
                    next = j;
                }
                seen = j;
                t = at + 1;
                tried += 1;
                if tried >= GALLOP_AFTER {
                    stride *= 2;
                }
            } else {
                hidden = Some(j);
                break;
            }
        }
        if let Some(mut hi) = hidden {
            // Between a cell seen and one out of sight: the last cell seen (by halving; the
            // cells seen from `i` mostly come first).
            let mut lo = seen;
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                match segment(path[i], path[mid]) {
                    Some(straight) if better(mid, straight) => {
                        next = mid;
                        lo = mid;
                    }
                    Some(_) => lo = mid,
                    None => hi = mid,
                }
            }
        }
        out.push(path[next]);
        i = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::Tile;
    use proptest::prelude::*;

    #[test]
    fn corners_drop_collinear_cells_only() {
        let p = Pos::new;
        let path = [p(0, 0), p(1, 0), p(2, 0), p(2, 1), p(2, 2), p(3, 3), p(4, 4)];
        assert_eq!(corners(&path), [p(0, 0), p(2, 0), p(2, 2), p(4, 4)]);
        assert_eq!(corners(&[p(1, 1)]), [p(1, 1)]);
        assert_eq!(corners(&[]), []);
        assert_eq!(corners(&[p(1, 1), p(5, 2)]), [p(1, 1), p(5, 2)], "vertices are kept");
        assert_eq!(corners(&[p(0, 0), p(3, 1), p(6, 2), p(6, 4)]), [p(0, 0), p(6, 2), p(6, 4)]);
        assert_eq!(corners(&[p(0, 0), p(2, 0), p(1, 0)]), [p(0, 0), p(2, 0), p(1, 0)], "a turn back is kept");
        assert_eq!(
            corners(&[p(0, 0), p(1, 0), p(1, 0), p(2, 0)]),
            [p(0, 0), p(1, 0), p(1, 0), p(2, 0)],
            "a repeat is kept"
        );
        let far = [p(0, 0), p(u32::MAX, 1), p(u32::MAX - 1, 2)];
        assert_eq!(corners(&far), far, "no overflow far apart");
        for path in [&path[..], &[p(0, 0), p(2, 0), p(1, 0), p(1, 1)], &[p(3, 3), p(3, 3), p(4, 4), p(5, 5)]]
        {
            let mut built = Vec::new();
            for &q in path {
                push_corner(&mut built, q);
            }
            assert_eq!(built, corners(path));
        }
    }

    /// The reference: every cell of the segment's bounding box tested on its own, in doubled
    /// coordinates (cell centres even, borders odd), by the separating-axis test of the segment
    /// against the cell's closed and open square; then the corner points the segment passes
    /// through, with the cells it only touches there.
    fn reference(grid: &Grid, a: Pos, b: Pos, rules: Rules) -> bool {
        let class = |p: (i64, i64)| {
            #[expect(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "on the grid")]
            grid.tile(Pos::new(p.0 as u32, p.1 as u32)).map_or(0, |t| match t {
                Tile::Wall => 0,
                Tile::Ground { .. } => 1,
                Tile::Water { .. } => 2,
                Tile::Trees { .. } => 3,
            })
        };
        let (ax, ay, bx, by) = (i64::from(a.x), i64::from(a.y), i64::from(b.x), i64::from(b.y));
        let own = class((ax, ay));
        if own == 0 || class((bx, by)) == 0 {
            return false;
        }
        if rules.moves == Moves::Four && ax != bx && ay != by {
            return false;
        }
        let (a2, b2) = ((2 * ax, 2 * ay), (2 * bx, 2 * by));
        let (dx, dy) = (b2.0 - a2.0, b2.1 - a2.1);
        let side = |q: (i64, i64)| (dx * (q.1 - a2.1) - dy * (q.0 - a2.0)).signum();
        let inside = |c: (i64, i64)| {
            let (lo, hi) = ((2 * c.0 - 1, 2 * c.1 - 1), (2 * c.0 + 1, 2 * c.1 + 1));
            let x_open = a2.0.min(b2.0) < hi.0 && a2.0.max(b2.0) > lo.0;
            let y_open = a2.1.min(b2.1) < hi.1 && a2.1.max(b2.1) > lo.1;
            let s = [side(lo), side(hi), side((lo.0, hi.1)), side((hi.0, lo.1))];
            x_open && y_open && s.contains(&1) && s.contains(&-1)
        };
        for cx in ax.min(bx)..=ax.max(bx) {
            for cy in ay.min(by)..=ay.max(by) {
                if inside((cx, cy)) && class((cx, cy)) != own {
                    return false;
                }
            }
        }
        for qx in (2 * ax.min(bx) + 1..2 * ax.max(bx)).step_by(2) {
            for qy in (2 * ay.min(by) + 1..2 * ay.max(by)).step_by(2) {
                if side((qx, qy)) != 0 {
                    continue;
                }
                let around = [(qx - 1, qy - 1), (qx + 1, qy - 1), (qx - 1, qy + 1), (qx + 1, qy + 1)]
                    .map(|(x, y)| (x / 2, y / 2));
                let touched: Vec<bool> =
                    around.iter().filter(|&&c| !inside(c)).map(|&c| class(c) == own).collect();
                assert_eq!(touched.len(), 2, "a corner point has two cells touched only there");
                let ok = match rules.corners {
                    Corners::Forbid => touched[0] && touched[1],
                    Corners::AllowOne => touched[0] || touched[1],
                    Corners::Allow => true,
                };
                if !ok {
                    return false;
                }
            }
        }
        true
    }

    fn random_grid(w: u32, h: u32, bytes: &[u8]) -> Grid {
        let mut grid = Grid::new(w, h).unwrap();
        for (k, p) in grid.clone().positions().enumerate() {
            let tile = match bytes[k % bytes.len()] % 10 {
                0 | 1 => Tile::Wall,
                2 => Tile::Water { cost: 1 },
                3 => Tile::Ground { cost: 3 },
                _ => Tile::FLOOR,
            };
            grid.set_tile(p, tile).unwrap();
        }
        grid
    }

    #[test]
    fn one_edit_away_from_the_goal_casts_a_narrow_shadow() {
        // A 64 x 64 map, the goal in the middle, a cell painted 8 cells to its right.
        let mut count = 0;
        assert!(sight_shadow(Pos::new(32, 32), &[Pos::new(40, 32)], (64, 64), |_, xs| count += xs.len()));
        assert!(count > 0 && count < 64 * 64 / 8, "{count} cells looked at again");
        // A stroke of 24 cells beside the goal: most of the map may change.
        let stroke: Vec<Pos> = (20..44).map(|y| Pos::new(33, y)).collect();
        assert!(!sight_shadow(Pos::new(32, 32), &stroke, (64, 64), |_, _| {}));
    }

    const RULES: [Rules; 4] =
        [Rules::OCTILE, Rules::eight(Corners::AllowOne), Rules::eight(Corners::Allow), Rules::FOUR];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// The walk and the bit-plane runs agree with the brute-force reference on every pair
        /// of cells of random grids, under every rule.
        #[test]
        fn line_of_sight_equals_the_supercover_reference(
            w in 1u32..14, h in 1u32..14, bytes in proptest::collection::vec(any::<u8>(), 1..200),
        ) {
            let grid = random_grid(w, h, &bytes);
            for a in grid.positions() {
                for b in grid.positions() {
                    for rules in RULES {
                        prop_assert_eq!(
                            grid.line_of_sight(a, b, rules), reference(&grid, a, b, rules),
                            "{} -> {} under {:?}", a, b, rules
                        );
                    }
                }
            }
        }

        /// Every cell whose sight of the goal an edit changed (under any rule) lies in the
        /// shadow the edited cells cast, or the shadow says every cell may have changed; and a
        /// single edit away from the goal leaves most of a map alone.
        #[test]
        fn the_sight_shadow_of_edits_holds_every_cell_whose_sight_they_changed(
            w in 1u32..24, h in 1u32..24, bytes in proptest::collection::vec(any::<u8>(), 1..300),
            goal_at in any::<u16>(), edit_at in any::<u16>(),
            edits in proptest::collection::vec((0u32..4, 0u32..4, 0u8..4), 1..8),
        ) {
            let mut grid = random_grid(w, h, &bytes);
            let cells: Vec<Pos> = grid.positions().collect();
            let goal = cells[usize::from(goal_at) % cells.len()];
            let before: Vec<Vec<bool>> =
                RULES.iter().map(|&r| cells.iter().map(|&c| grid.line_of_sight(c, goal, r)).collect()).collect();
            let mut edited = Vec::new();
            // A stroke's cells lie together: within a few cells of one another.
            let base = cells[usize::from(edit_at) % cells.len()];
            for &(dx, dy, kind) in &edits {
                let p = Pos::new((base.x + dx).min(w - 1), (base.y + dy).min(h - 1));
                let tile = [Tile::Wall, Tile::FLOOR, Tile::Water { cost: 1 }, Tile::Ground { cost: 2 }][usize::from(kind)];
                grid.set_tile(p, tile).unwrap();
                edited.push(p);
            }
            let mut shadow = vec![false; cells.len()];
            let bounded = sight_shadow(goal, &edited, (w, h), |y, xs| {
                for x in xs {
                    shadow[(y * w + x) as usize] = true;
                }
            });
            if bounded {
                for (k, rules) in RULES.iter().enumerate() {
                    for (i, &c) in cells.iter().enumerate() {
                        let now = grid.line_of_sight(c, goal, *rules);
                        prop_assert!(
                            now == before[k][i] || shadow[i],
                            "{} sees {} {} -> {} under {:?}, out of the shadow of {:?}", c, goal, before[k][i], now, rules, edited
                        );
                    }
                }
            }
        }

        /// A segment's cost is its length on uniform ground, is symmetric, and lies between its
        /// length times the cheapest and the dearest cost of the cells it crosses.
        #[test]
        fn segment_cost_is_length_times_crossed_costs(
            w in 2u32..12, h in 2u32..12, bytes in proptest::collection::vec(any::<u8>(), 1..150),
        ) {
            let grid = random_grid(w, h, &bytes);
            let plain = Grid::new(w, h).unwrap();
            for a in grid.positions() {
                for b in grid.positions() {
                    let len = distance(a, b);
                    prop_assert!((plain.segment_cost(a, b, Rules::OCTILE).unwrap() - len).abs() < 1e-9);
                    if let Some(c) = grid.segment_cost(a, b, Rules::OCTILE) {
                        let back = grid.segment_cost(b, a, Rules::OCTILE).unwrap();
                        prop_assert!((c - back).abs() < 1e-9, "{} <-> {}: {} vs {}", a, b, c, back);
                        let costs: Vec<f64> = segment_cells(&grid, a, b)
                            .iter()
                            .map(|&p| f64::from(grid.tile(p).and_then(Tile::cost).unwrap()))
                            .collect();
                        let (lo, hi) = costs.iter().fold((f64::MAX, 0.0f64), |(l, h), &c| (l.min(c), h.max(c)));
                        prop_assert!(c >= lo * len - 1e-9 && c <= hi * len + 1e-9, "{} -> {}: {}", a, b, c);
                    }
                }
            }
        }

        /// The smoother keeps the ends, keeps line of sight between consecutive vertices, and is
        /// never costlier than the A* path it started from (on uniform cost: never longer).
        #[test]
        fn smoothing_keeps_sight_and_never_costs_more(
            w in 2u32..24, h in 2u32..24, bytes in proptest::collection::vec(any::<u8>(), 1..400),
            rules in proptest::sample::select(RULES.to_vec()),
        ) {
            let grid = random_grid(w, h, &bytes);
            let mut searcher = crate::Searcher::new();
            let settings = crate::Settings { rules, ..crate::Settings::default() };
            let (start, goal) = (Pos::new(0, 0), Pos::new(w - 1, h - 1));
            if let Ok(path) = searcher.find_path(&grid, start, goal, &settings) {
                let taut = smooth(&grid, &path.cells, rules);
                prop_assert_eq!(taut.first(), Some(&start));
                prop_assert_eq!(taut.last(), Some(&goal));
                let cost = grid.any_angle_cost(&taut, rules);
                prop_assert!(cost.is_ok(), "consecutive vertices see each other: {:?}", cost);
                let before = grid.any_angle_cost(&path.cells, rules).unwrap();
                prop_assert!(cost.unwrap() <= before + 1e-9);
                if grid.has_uniform_cost() {
                    prop_assert!(grid.any_angle_cost(&taut, rules).unwrap() <= path.cost + 1e-9);
                }
            }
        }
    }

    #[test]
    fn corner_contacts_follow_the_corner_rule() {
        // Wall at (1,1): the segment (0,0) -> (2,2) passes its corner... and its inside.
        let mut grid = Grid::new(3, 3).unwrap();
        grid.set_tile(Pos::new(1, 0), Tile::Wall).unwrap();
        let (a, b) = (Pos::new(0, 0), Pos::new(1, 1));
        assert!(!grid.line_of_sight(a, b, Rules::OCTILE), "Forbid: touching a wall's corner blocks");
        assert!(grid.line_of_sight(a, b, Rules::eight(Corners::AllowOne)), "AllowOne: one side open");
        grid.set_tile(Pos::new(0, 1), Tile::Wall).unwrap();
        assert!(!grid.line_of_sight(a, b, Rules::eight(Corners::AllowOne)), "AllowOne: both closed");
        assert!(grid.line_of_sight(a, b, Rules::eight(Corners::Allow)), "Allow: squeezes through");
        grid.set_tile(Pos::new(1, 1), Tile::Water { cost: 1 }).unwrap();
        assert!(!grid.line_of_sight(a, b, Rules::eight(Corners::Allow)), "never across classes");
    }
}
