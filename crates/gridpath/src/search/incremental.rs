//! Incremental replanning: D* Lite (Koenig and Likhachev 2002, the optimised version of their
//! figure 4), which keeps its search between queries and repairs only what an edit or a moved
//! start invalidates.
//!
//! Why D* Lite rather than LPA*: both keep the same per-cell state, but D* Lite searches from
//! the goal back to the start, so a unit walking its route (the start moving) costs nothing to
//! follow, while LPA* would have to search again from every new start. With a fixed start it
//! does the work LPA* does.
//!
//! Costs are kept exact, as in the octile A*: every step costs `c` or `c·√2` for an integer
//! terrain cost `c`, so every `g`, `rhs` and key is a pair `(a, b)` meaning `a + b·√2`, and
//! every float compared is computed from a pair by one formula. Equal costs compare equal, so
//! the algorithm's "is this cell consistent" tests never see rounding noise.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::octile::value;
use super::{Endpoint, Path, SearchError, Stats, check_endpoint, check_same_class};
use crate::grid::{DIRS, Grid, Moves, Neighbours, Pos, Rules};
use crate::{Outcome, TraceEvent};

/// An exact cost `a + b·√2` (`a`: cardinal steps times their terrain costs, `b`: diagonal
/// ones); `a == INF` is "unreachable".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Cost {
    a: u32,
    b: u32,
}

/// Sums of costs on one grid stay below this: a least-cost path enters each cell at most once,
/// and [`crate::MAX_SIDE`]² cells times [`crate::MAX_COST`] is below `u32::MAX`.
const INF: Cost = Cost { a: u32::MAX, b: 0 };
const ZERO: Cost = Cost { a: 0, b: 0 };

impl Cost {
    #[inline]
    fn is_inf(self) -> bool {
        self.a == u32::MAX
    }

    #[inline]
    fn value(self) -> f64 {
        if self.is_inf() { f64::INFINITY } else { value(u64::from(self.a), u64::from(self.b)) }
    }

    /// `self + other`, [`INF`] when either is.
    #[inline]
    fn plus(self, other: Cost) -> Cost {
        if self.is_inf() || other.is_inf() {
            return INF;
        }
        Cost { a: self.a.saturating_add(other.a), b: self.b.saturating_add(other.b) }
    }

    /// `self < other` by value.
    #[inline]
    fn lt(self, other: Cost) -> bool {
        self != other && self.value() < other.value()
    }
}

/// An open-list entry: the key `(k1, k2)` and the cell. Stale entries (the cell's key changed
/// or it left the list since) stay in the heap and are skipped: `stamp` must match the cell's.
#[derive(Clone, Copy, Debug)]
struct Entry {
    k1: f64,
    k2: f64,
    cell: u32,
    stamp: u32,
}

impl Entry {
    fn key(&self) -> (f64, f64) {
        (self.k1, self.k2)
    }
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Entry {}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Reversed, so that `BinaryHeap` (a max-heap) pops the smallest key first.
impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        other.k1.total_cmp(&self.k1).then(other.k2.total_cmp(&self.k2))
    }
}

/// `a < b` for keys, lexicographically.
#[inline]
fn key_lt(a: (f64, f64), b: (f64, f64)) -> bool {
    a.0 < b.0 || (a.0 == b.0 && a.1 < b.1)
}

/// An incremental planner for one goal: D* Lite on a grid that changes between queries, with a
/// start that may move.
///
/// [`Incremental::plan`] returns a least-cost path under the grid's step-cost rule
/// ([`Grid::path_cost`]; 4- or 8-connected moves, every corner rule, terrain costs and
/// classes), the same cost as a fresh [`Searcher`](crate::Searcher) A*. Between plans, tell it
/// which cells changed ([`Incremental::update_cells`]) or where the start went
/// ([`Incremental::set_start`]), and the next plan repairs the kept search instead of starting
/// over: on the Moving AI maps, the median repair after a wall on the route expands a few
/// dozen cells where a fresh A* expands thousands, but a wall that forces a long detour can
/// cost more than a fresh search (docs/gridpath.md has the measurements).
///
/// The planner keeps its own copy of the cells it searched on. [`Incremental::plan`] takes the
/// grid and, if it is not the state the planner last saw (another grid, or edits it was not
/// told about), compares every cell and repairs from the differences, so a plan is never
/// stale; telling it the edited cells makes that compare unnecessary.
///
/// The [`Path::stats`] of a plan count the work since the previous plan: `expanded` cells taken
/// from the open list and made consistent (or raised), `generated` queue updates (a cell's
/// estimate from its neighbours recomputed and its entry pushed, the repair's cheap part,
/// [`Incremental::update_cells`]' included) and the open list's `peak_open` size.
///
/// ```
/// use gridpath::{formats, Incremental, Pos, Rules, Searcher, Settings};
///
/// let mut map = formats::parse_ascii("S.....\n.####.\n.....G").unwrap();
/// let (start, goal) = (map.start.unwrap(), map.goal.unwrap());
/// let mut planner = Incremental::new(&map.grid, start, goal, Rules::OCTILE).unwrap();
/// let first = planner.plan(&map.grid).unwrap();
/// // Block the route it took, tell the planner, plan again.
/// let blocked = first.cells[2];
/// map.grid.set_wall(blocked, true).unwrap();
/// planner.update_cells(&map.grid, &[blocked]);
/// let second = planner.plan(&map.grid).unwrap();
/// assert!(!second.cells.contains(&blocked), "the repaired route avoids the new wall");
/// let fresh = Searcher::new().find_path(&map.grid, start, goal, &Settings::default()).unwrap();
/// assert!((second.cost - fresh.cost).abs() < 1e-9, "and is as short as a fresh search's");
/// // The unit walks on: the start moves along the route, nothing to repair.
/// planner.set_start(second.cells[1]).unwrap();
/// assert_eq!(planner.plan(&map.grid).unwrap().cells[..], second.cells[1..]);
/// ```
pub struct Incremental {
    rules: Rules,
    start: Pos,
    goal: Pos,
    width: u32,
    height: u32,
    /// The grid state searched on: [`Grid`]'s id and revision, and a copy of its padded cells.
    grid_id: u64,
    revision: u64,
    cells: Vec<u8>,
    /// A copy of its fence masks (`Grid::fence_masks`): fences change only by a whole refresh,
    /// so a change restarts the search.
    fences: Vec<u8>,
    stride: usize,
    neighbours: Neighbours,
    /// Per padded cell: the cost to the goal as last expanded, and its one-step look-ahead.
    g: Vec<Cost>,
    rhs: Vec<Cost>,
    /// Per padded cell: odd while it is on the open list; its live entry carries this stamp.
    stamp: Vec<u32>,
    open: BinaryHeap<Entry>,
    /// Live entries on the open list.
    live: usize,
    /// D* Lite's key modifier: the sum of the heuristic distances the start moved since the
    /// keys on the open list were computed.
    km: Cost,
    /// The start the open list's keys were computed for.
    last_start: Pos,
    /// Work since the last plan.
    stats: Stats,
    /// The open-list pushes and expansions since the last [`Incremental::take_events`], while
    /// recording ([`Incremental::set_recording`]).
    events: Option<Vec<TraceEvent>>,
}

impl Incremental {
    /// A planner from `start` to `goal` on `grid` under `rules`. Nothing is searched yet.
    ///
    /// # Errors
    /// [`SearchError::OutOfBounds`] when the start or the goal is off the grid (a wall there is
    /// fine: [`Incremental::plan`] reports it until it is cleared).
    pub fn new(grid: &Grid, start: Pos, goal: Pos, rules: Rules) -> Result<Self, SearchError> {
        in_bounds(grid, start, Endpoint::Start)?;
        in_bounds(grid, goal, Endpoint::Goal)?;
        let len = grid.padded_len();
        let mut planner = Self {
            rules,
            start,
            goal,
            width: grid.width(),
            height: grid.height(),
            grid_id: grid.id(),
            revision: grid.revision(),
            cells: grid.cells().to_vec(),
            fences: grid.fence_masks().to_vec(),
            stride: grid.stride(),
            neighbours: Neighbours::new(grid, rules),
            g: vec![INF; len],
            rhs: vec![INF; len],
            stamp: vec![0; len],
            open: BinaryHeap::new(),
            live: 0,
            km: ZERO,
            last_start: start,
            stats: Stats::default(),
            events: None,
        };
        let goal = planner.index(goal);
        planner.rhs[goal] = ZERO;
        planner.update_vertex(goal);
        Ok(planner)
    }

    /// Records (or with `false`, stops recording) every cell the planner touches from now on —
    /// put on the open list with a new estimate ([`TraceEvent::Opened`], or
    /// [`TraceEvent::Updated`] when it was on it already; `g` is its cost to the goal, as the
    /// search runs backwards) and expanded ([`TraceEvent::Closed`]) — by
    /// [`Incremental::update_cells`] and [`Incremental::plan`] alike: what a repair touched, for
    /// a replay. Recording costs a push per event; it is off by default.
    pub fn set_recording(&mut self, on: bool) {
        if on != self.events.is_some() {
            self.events = on.then(Vec::new);
        }
    }

    /// The events recorded since the last call (empty when not recording).
    pub fn take_events(&mut self) -> Vec<TraceEvent> {
        self.events.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// The start the next plan leaves from.
    #[must_use]
    pub fn start(&self) -> Pos {
        self.start
    }

    /// The goal.
    #[must_use]
    pub fn goal(&self) -> Pos {
        self.goal
    }

    /// The movement rules.
    #[must_use]
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// Moves the start (a unit walking its route, or sent from elsewhere): the kept search
    /// stays valid, the next plan finishes it for the new start.
    ///
    /// # Errors
    /// [`SearchError::OutOfBounds`], and the start is left as it was.
    pub fn set_start(&mut self, start: Pos) -> Result<(), SearchError> {
        if start.x >= self.width || start.y >= self.height {
            return Err(SearchError::OutOfBounds {
                which: Endpoint::Start,
                pos: start,
                width: self.width,
                height: self.height,
            });
        }
        self.start = start;
        Ok(())
    }

    /// Tells the planner that the cells `changed` of `grid` (the grid after the edits) may have
    /// changed: walls, terrain costs or classes. Cells that did not change cost nothing; the
    /// list must hold every cell that did (else the next [`Incremental::plan`] finds them by
    /// comparing the whole grid). Returns how many cells changed.
    ///
    /// Only the cells next to an edit are updated here; the repair's search runs in the next
    /// plan, and its [`Path::stats`] count both.
    ///
    /// A grid of another size or with other fences ([`Grid::set_fence`]) starts the planner
    /// over (and counts every cell as changed).
    pub fn update_cells(&mut self, grid: &Grid, changed: &[Pos]) -> usize {
        if !self.same_size(grid) || self.fences != grid.fence_masks() {
            return self.restart(grid);
        }
        self.follow_start();
        let mut count = 0;
        for &pos in changed {
            if !grid.in_bounds(pos) {
                continue;
            }
            let i = grid.index(pos);
            if self.cells[i] != grid.cells()[i] {
                self.cells[i] = grid.cells()[i];
                self.cell_changed(i);
                count += 1;
            }
        }
        self.grid_id = grid.id();
        self.revision = grid.revision();
        debug_assert!(self.cells == grid.cells(), "update_cells was not told of every changed cell");
        count
    }

    /// Compares every cell of `grid` with the state the planner last searched on and repairs
    /// from the differences (what [`Incremental::plan`] does by itself when the grid is not that
    /// state). Returns how many cells changed.
    pub fn sync(&mut self, grid: &Grid) -> usize {
        if !self.same_size(grid) || self.fences != grid.fence_masks() {
            return self.restart(grid);
        }
        self.follow_start();
        let mut count = 0;
        for i in 0..self.cells.len() {
            let new = grid.cells()[i];
            if self.cells[i] != new {
                self.cells[i] = new;
                self.cell_changed(i);
                count += 1;
            }
        }
        self.grid_id = grid.id();
        self.revision = grid.revision();
        count
    }

    /// A least-cost path from the start to the goal on `grid`, repairing the kept search as
    /// far as this query needs.
    ///
    /// # Errors
    /// As [`Searcher::find_path`](crate::Searcher::find_path) with A*: [`SearchError::Blocked`]
    /// (an endpoint on a wall), [`SearchError::TerrainClasses`], [`SearchError::NoPath`] (with
    /// the work done). The planner stays usable: edits can open the way again.
    pub fn plan(&mut self, grid: &Grid) -> Result<Path, SearchError> {
        if grid.id() != self.grid_id || grid.revision() != self.revision || !self.same_size(grid) {
            self.sync(grid);
        }
        let stats = std::mem::take(&mut self.stats);
        check_endpoint(grid, self.start, Endpoint::Start)?;
        check_endpoint(grid, self.goal, Endpoint::Goal)?;
        let (start, goal) = (self.start, self.goal);
        if start == goal {
            return Ok(Path { cells: vec![start], cost: 0.0, stats, outcome: Outcome::Complete });
        }
        check_same_class(grid, start, goal)?;
        self.stats = stats;
        self.compute_shortest_path();
        let stats = std::mem::take(&mut self.stats);
        let s = self.index(start);
        if self.g[s].is_inf() {
            return Err(SearchError::NoPath { start, goal, stats });
        }
        let cells = self.walk(s);
        let cost = self.g[s].value();
        debug_assert!(
            grid.path_cost(&cells, self.rules).is_ok_and(|c| (c - cost).abs() <= 1e-9 * cost.max(1.0)),
            "D* Lite returned an illegal path or a wrong cost"
        );
        Ok(Path { cells, cost, stats, outcome: Outcome::Complete })
    }

    // ---- internals ----

    fn same_size(&self, grid: &Grid) -> bool {
        grid.width() == self.width && grid.height() == self.height
    }

    /// Starts over on a grid of another size; the endpoints are clamped onto it.
    fn restart(&mut self, grid: &Grid) -> usize {
        let clamp = |p: Pos| Pos::new(p.x.min(grid.width() - 1), p.y.min(grid.height() - 1));
        let (start, goal) = (clamp(self.start), clamp(self.goal));
        if let Ok(fresh) = Self::new(grid, start, goal, self.rules) {
            *self = fresh;
        }
        grid.len()
    }

    #[inline]
    fn index(&self, pos: Pos) -> usize {
        (pos.y as usize + 1) * self.stride + pos.x as usize + 1
    }

    #[inline]
    fn pos_of(&self, i: usize) -> Pos {
        Self::pos_in(self.stride, i)
    }

    #[inline]
    fn pos_in(stride: usize, i: usize) -> Pos {
        #[expect(clippy::cast_possible_truncation, reason = "sides are at most 8192")]
        Pos::new((i % stride) as u32 - 1, (i / stride) as u32 - 1)
    }

    /// The heuristic distance between two padded cells (a lower bound of any path's cost:
    /// every step costs at least its length).
    #[inline]
    fn h(&self, i: usize, j: usize) -> Cost {
        let (a, b) = (self.pos_of(i), self.pos_of(j));
        let (dx, dy) = (a.x.abs_diff(b.x), a.y.abs_diff(b.y));
        if self.rules.moves == Moves::Four {
            return Cost { a: dx + dy, b: 0 };
        }
        let (lo, hi) = if dx < dy { (dx, dy) } else { (dy, dx) };
        Cost { a: hi - lo, b: lo }
    }

    fn key(&self, i: usize) -> (f64, f64) {
        let m = if self.rhs[i].lt(self.g[i]) { self.rhs[i] } else { self.g[i] };
        if m.is_inf() {
            return (f64::INFINITY, f64::INFINITY);
        }
        let start = self.index(self.start);
        (m.plus(self.h(start, i)).plus(self.km).value(), m.value())
    }

    /// The cost of the step from `i` in direction `k` (to the cell entered), or `None` when the
    /// step is illegal. Legality is symmetric under every rule, so these are also the cells that
    /// step into `i`.
    #[inline]
    fn step(&self, i: usize, k: usize) -> Option<(usize, Cost)> {
        let class = self.cells[i] >> 6;
        if class == 0 || !self.neighbours.legal(&self.cells, &self.fences, i, k, class) {
            return None;
        }
        let j = i.wrapping_add_signed(self.neighbours.offset[k]);
        Some((j, step_cost(k, u32::from(self.cells[j] & 63))))
    }

    /// `min` over the legal steps from `i` of the step's cost plus the cost to go from there.
    fn best_step(&self, i: usize) -> Option<(usize, Cost)> {
        let mut best: Option<(usize, Cost)> = None;
        for k in 0..self.neighbours.count {
            if let Some((j, c)) = self.step(i, k) {
                let through = c.plus(self.g[j]);
                if !through.is_inf() && best.is_none_or(|(_, b)| through.lt(b)) {
                    best = Some((j, through));
                }
            }
        }
        best
    }

    fn recompute_rhs(&mut self, i: usize) {
        if i != self.index(self.goal) {
            self.rhs[i] = self.best_step(i).map_or(INF, |(_, c)| c);
        }
    }

    /// D* Lite's `UpdateVertex`: on the open list with its current key when inconsistent, off it
    /// otherwise.
    fn update_vertex(&mut self, i: usize) {
        let on = self.stamp[i] & 1 == 1;
        if self.g[i] != self.rhs[i] {
            // A new stamp (odd) makes any older entry of the cell stale.
            self.stamp[i] = self.stamp[i].wrapping_add(if on { 2 } else { 1 });
            if !on {
                self.live += 1;
            }
            let (k1, k2) = self.key(i);
            if self.events.is_some() {
                let start = self.index(self.start);
                let (pos, g, h) = (self.pos_of(i), k2, self.h(start, i).value());
                let event = if on {
                    TraceEvent::Updated { pos, g, h, f: k1 }
                } else {
                    TraceEvent::Opened { pos, g, h, f: k1 }
                };
                if let Some(events) = self.events.as_mut() {
                    events.push(event);
                }
            }
            #[expect(clippy::cast_possible_truncation, reason = "padded grids have < 2^32 cells")]
            self.open.push(Entry { k1, k2, cell: i as u32, stamp: self.stamp[i] });
            self.stats.generated += 1;
            self.stats.peak_open = self.stats.peak_open.max(self.live as u64);
        } else if on {
            self.stamp[i] = self.stamp[i].wrapping_add(1);
            self.live -= 1;
        }
    }

    /// The smallest live entry, stale ones dropped on the way.
    fn top(&mut self) -> Option<Entry> {
        while let Some(&e) = self.open.peek() {
            if self.stamp[e.cell as usize] == e.stamp && e.stamp & 1 == 1 {
                return Some(e);
            }
            self.open.pop();
        }
        None
    }

    /// The keys on the open list were computed for `last_start`: if the start moved since, raise
    /// `km` by the distance it moved, so that they stay lower bounds (D* Lite). Before edits
    /// push new keys, and before a search compares keys.
    fn follow_start(&mut self) {
        if self.start != self.last_start {
            let (a, b) = (self.index(self.last_start), self.index(self.start));
            self.km = self.km.plus(self.h(a, b));
            self.last_start = self.start;
        }
    }

    /// Padded cell `i` changed: the steps out of and into it, and the diagonals it is a side
    /// cell of, all join cells of the 3 × 3 block around it, whose look-aheads are recomputed.
    fn cell_changed(&mut self, i: usize) {
        for (dx, dy) in DIRS.iter().copied().chain([(0, 0)]) {
            let j = i.wrapping_add_signed(dy as isize * self.stride.cast_signed() + dx as isize);
            let (x, y) = (j % self.stride, j / self.stride);
            if x == 0 || y == 0 || x > self.width as usize || y > self.height as usize {
                continue; // the border
            }
            self.recompute_rhs(j);
            self.update_vertex(j);
        }
    }

    /// D* Lite's `ComputeShortestPath` (optimised version), run until the start is consistent
    /// and nothing on the open list can lower its cost.
    fn compute_shortest_path(&mut self) {
        // The keys must be lower bounds for the start they are compared with.
        self.follow_start();
        let start = self.index(self.start);
        let goal = self.index(self.goal);
        while let Some(top) = self.top() {
            let start_key = self.key(start);
            if !key_lt(top.key(), start_key) && self.rhs[start] == self.g[start] {
                break;
            }
            let u = top.cell as usize;
            let new_key = self.key(u);
            if key_lt(top.key(), new_key) {
                self.update_vertex(u); // re-queued under its up-to-date key
                continue;
            }
            self.stats.expanded += 1;
            if let Some(events) = self.events.as_mut() {
                events.push(TraceEvent::Closed { pos: Self::pos_in(self.stride, u) });
            }
            if self.rhs[u].lt(self.g[u]) {
                self.g[u] = self.rhs[u];
                self.update_vertex(u); // consistent: off the list
                let (gu, cost_u) = (self.g[u], u32::from(self.cells[u] & 63));
                for k in 0..self.neighbours.count {
                    // A legal step u → j has a legal reverse j → u (the same cells decide it),
                    // which enters u.
                    let Some((j, _)) = self.step(u, k) else { continue };
                    let through = step_cost(k, cost_u).plus(gu);
                    if j != goal && through.lt(self.rhs[j]) {
                        self.rhs[j] = through;
                        self.update_vertex(j);
                    }
                }
            } else {
                let g_old = self.g[u];
                self.g[u] = INF;
                let cost_u = u32::from(self.cells[u] & 63);
                for k in 0..self.neighbours.count {
                    let Some((j, _)) = self.step(u, k) else { continue };
                    if j != goal && self.rhs[j] == step_cost(k, cost_u).plus(g_old) {
                        self.recompute_rhs(j);
                    }
                    self.update_vertex(j);
                }
                // u's own look-ahead cannot have come through u (g_old < rhs(u)): only its place
                // on the open list changes.
                self.update_vertex(u);
            }
            self.compact();
        }
    }

    /// Drops stale entries when they outnumber live ones, so the heap stays proportional to
    /// the open list.
    fn compact(&mut self) {
        if self.open.len() > 4 * self.live + 1024 {
            let stamp = &self.stamp;
            self.open.retain(|e| stamp[e.cell as usize] == e.stamp && e.stamp & 1 == 1);
        }
    }

    /// The route from padded cell `s`: always the step with the least cost plus cost to go.
    fn walk(&self, mut s: usize) -> Vec<Pos> {
        let goal = self.index(self.goal);
        let mut cells = vec![self.pos_of(s)];
        // A least-cost path visits each cell once; the bound only guards against a broken state.
        for _ in 0..self.cells.len() {
            if s == goal {
                break;
            }
            let Some((j, _)) = self.best_step(s) else { break };
            cells.push(self.pos_of(j));
            s = j;
        }
        cells
    }
}

/// The cost of a step in direction `k` of [`DIRS`] into a cell of terrain cost `c`.
#[inline]
const fn step_cost(k: usize, c: u32) -> Cost {
    if k < 4 { Cost { a: c, b: 0 } } else { Cost { a: 0, b: c } }
}

fn in_bounds(grid: &Grid, pos: Pos, which: Endpoint) -> Result<(), SearchError> {
    if grid.in_bounds(pos) {
        Ok(())
    } else {
        Err(SearchError::OutOfBounds { which, pos, width: grid.width(), height: grid.height() })
    }
}
