//! Lazy Theta* over jump points: Lazy Theta*'s parents (any cell in line of sight, checked
//! once, when the cell is expanded) on the successors of Jump Point Search instead of the 8
//! neighbours. Under the Moving AI rules (no corner cutting, uniform cost) JPS's jumps skip the
//! open cells between jump points, whose vertices a taut route never needs (it bends only at
//! cells beside a blocked corner, where the jump points are), so the search expands tens of
//! times fewer cells than the cell-by-cell Lazy Theta* for routes a few tenths of a percent
//! longer (docs/BENCHMARKS.md).
//!
//! A jump point `j` found from the expanded node `s` is offered at the cost through `s`'s
//! parent `p`, assumed in sight (Lazy Theta*), and keeps the cheapest jump that reached it as its
//! safe route (node, turning cell of a diagonal ray, `j`: in sight by construction). When `j` is
//! expanded and its parent does not see it, its route is repaired from the safe route's node,
//! whose own route is known: straight when that node sees `j`, else along the jump, the turning
//! cell reached from the node's parent when that sees it; the repaired cell goes back onto the
//! open list with its true cost, as in `theta.rs`. Every jump point jumps in all 8 directions
//! (JPS prunes by the direction a cell was entered, which Lazy Theta*'s order does not make the
//! octile-optimal one); with the safe routes, this keeps the route never longer than the octile
//! optimum (A*'s argument on the octile chain of jumps; checked by the property tests and the
//! bench, not a published result). The route found is finally pulled taut along the cells it
//! crosses. Should the search ever miss a reachable goal, the dispatch (`search/mod.rs`) falls
//! back to the cell-by-cell search; the property test here checks it never does.

use super::heap::{BucketQueue, Entry};
use super::jps::{Offer, View};
use super::octile::value;
use super::theta::{Layout, length};
use super::{NO_DIR, Query, Stats};
use crate::grid::{DIRS, Neighbours, SQRT2};
use crate::trace::{Observer, TraceEvent};

/// One padded cell of the search: the cost Lazy Theta* takes it for (through `parent`,
/// assumed in sight until checked), the priority it was last pushed with, and the cheapest
/// jump that reached it (`safe`, from the expanded node `from` in direction `state & 15`: its
/// route is in sight by construction, what a failed check falls back to). 40 bytes.
#[derive(Clone, Copy, Default)]
pub(crate) struct JumpCell {
    g: f64,
    f: f64,
    safe: f64,
    parent: u32,
    /// `generation << 8 | through the turn << 7 | closed << 5 | checked << 4 | direction`: the
    /// constants below; the direction is the safe jump's (an index into [`DIRS`], or
    /// [`NO_DIR`] at the start).
    state: u32,
    /// The node whose jump is the safe route.
    from: u32,
    /// With [`TURN`]: the turning cell the route passes (the safe route's may change later).
    turn: u32,
}

/// The cell is closed.
const CLOSED: u32 = 1 << 5;
/// The cell's route to its parent is known to be in sight (nothing to check on expansion).
const CHECKED: u32 = 1 << 4;
/// The route runs parent → turning cell of the jump that offered it → cell (a repair).
const TURN: u32 = 1 << 7;
/// Bits below the generation.
const GENERATION_SHIFT: u32 = 8;
/// The jump's direction.
const DIR_MASK: u32 = 15;

/// The workspace of the search over jump points, reused between queries.
#[derive(Default)]
pub(crate) struct Workspace {
    cells: Vec<JumpCell>,
    generation: u32,
    heap: BucketQueue,
    /// The route's crossed cells, its taut version and the smoother's buffers.
    cells_crossed: Vec<crate::Pos>,
    taut: Vec<crate::Pos>,
    smoothing: crate::sight::Smoothing,
}

impl Workspace {
    fn reset(&mut self, len: usize, window: f64) {
        if self.cells.len() != len || self.generation >= u32::MAX >> GENERATION_SHIFT {
            self.cells = vec![JumpCell::default(); len];
            self.generation = 0;
        }
        self.generation += 1;
        self.heap.reset_with(window, BUCKETS_PER_UNIT);
    }

    /// Opens the start (padded index `start`, estimate `h0`): its own parent, in sight.
    fn open_start(&mut self, start: usize, h0: f64) {
        #[expect(clippy::cast_possible_truncation, reason = "padded grids have < 2^32 cells")]
        let i = start as u32;
        let state = self.generation << GENERATION_SHIFT | CHECKED | NO_DIR;
        self.cells[start] = JumpCell { g: 0.0, f: h0, safe: 0.0, parent: i, state, from: i, turn: 0 };
        #[expect(clippy::cast_possible_truncation, reason = "a tie-break only")]
        self.heap.push(Entry { f: h0, h: h0 as f32, cell: i });
    }

    #[inline(always)]
    fn seen(&self, i: usize) -> bool {
        self.cells[i].state >> GENERATION_SHIFT == self.generation
    }

    #[inline(always)]
    fn closed(&self, i: usize) -> bool {
        self.cells[i].state & (!0 << GENERATION_SHIFT | CLOSED)
            == self.generation << GENERATION_SHIFT | CLOSED
    }
}

/// Buckets per unit of `f`: wide, as JPS's (few pushes over a wide window).
const BUCKETS_PER_UNIT: f64 = 0.25;

/// The turning cell of the jump that offered padded cell `j` (at `(jx, jy)`) from the node at
/// `(fx, fy)` in direction `dir`: where a diagonal ray from the node turned into the straight
/// scan that found `j`, or the node itself for a jump along one line.
#[inline(always)]
fn turning_point((fx, fy): (i64, i64), (jx, jy): (i64, i64), dir: u32) -> (i64, i64) {
    let (dx, dy) = DIRS[dir as usize];
    if dir >= 4 || dir == NO_DIR {
        (fx, fy)
    } else if dy == 0 {
        // Along a row: the ray went (jy − fy) rows diagonally, towards dx.
        (fx + i64::from(dx) * (jy - fy).abs(), jy)
    } else {
        (jx, fy + i64::from(dy) * (jx - fx).abs())
    }
}

/// What an offer needs: the workspace, the query's layout and the node being expanded.
struct Expand<'a, O> {
    ws: &'a mut Workspace,
    at: &'a Layout<'a>,
    /// The expanded node and its cost, the parent its children are offered through, and the
    /// parent's cost and coordinates.
    from: u32,
    gs: f64,
    parent: u32,
    gp: f64,
    p: (i64, i64),
    /// The goal's real coordinates and the heuristic's weight.
    goal: (i64, i64),
    weight: f64,
    generation: u32,
    stats: &'a mut Stats,
    obs: &'a mut O,
}

impl<O: Observer> Offer for Expand<'_, O> {
    /// Lazy Theta*'s offer: the jump point at the cost through the expanded node's parent, and
    /// the jump itself as its safe route.
    #[inline(never)]
    fn relax(&mut self, _: usize, jx: usize, jy: usize, dir: u32, a: u64, b: u64) {
        let j = jy * self.at.stride() + jx;
        if self.ws.closed(j) {
            return;
        }
        #[expect(clippy::cast_possible_wrap, reason = "padded coordinates are below 2^14")]
        let (x, y) = (jx as i64 - 1, jy as i64 - 1);
        // The jump's own cost (the node's lattice cost was passed as 0): a + b·√2.
        let safe = self.gs + value(a, b);
        let g = self.gp + length(x - self.p.0, y - self.p.1);
        let seen = self.ws.seen(j);
        let cell = &mut self.ws.cells[j];
        if seen {
            if safe < cell.safe {
                cell.safe = safe;
                cell.from = self.from;
                cell.state = cell.state & !DIR_MASK | dir;
            }
            if cell.g <= g {
                return;
            }
        } else {
            cell.safe = safe;
            cell.from = self.from;
            cell.state = self.generation << GENERATION_SHIFT | dir;
        }
        // Offered by the node itself along one line (straight or diagonal): in sight already.
        let (px, py) = self.p;
        let one_line = self.parent == self.from && (x == px || y == py || (x - px).abs() == (y - py).abs());
        let h = self.weight * length(x - self.goal.0, y - self.goal.1);
        let f = g + h;
        cell.g = g;
        cell.f = f;
        cell.parent = self.parent;
        cell.state = cell.state & (!0 << GENERATION_SHIFT | DIR_MASK) | if one_line { CHECKED } else { 0 };
        #[expect(clippy::cast_possible_truncation, reason = "padded grids have < 2^32 cells; a tie-break")]
        self.ws.heap.push(Entry { f, h: h as f32, cell: j as u32 });
        self.stats.generated += 1;
        if O::ENABLED {
            self.obs.event(TraceEvent::pushed(seen, self.at.grid().pos_of(j), g, h, f));
        }
    }
}

/// Lazy Theta* over jump points (see the module's documentation): the grid must allow JPS
/// ([`crate::Algorithm::Jps`]'s check). `BITS`: JPS reads the grid's jump bits. Writes the
/// vertices, start first, into `out`; returns the cost.
pub(crate) fn run<O: Observer, const BITS: bool>(
    ws: &mut Workspace,
    q: &Query<'_>,
    out: &mut Vec<crate::Pos>,
    obs: &mut O,
) -> Result<(Stats, f64), Stats> {
    let grid = q.grid;
    let rules = q.settings.rules;
    let nb = Neighbours::new(grid, rules);
    let (start, goal) = (grid.index(q.start), grid.index(q.goal));
    let at = Layout::new(grid, rules, grid.class_at(start));
    let stride = grid.stride();
    let view = View::new(
        grid.cells(),
        grid.octile_moves(),
        grid.jumps(),
        grid.planes(),
        stride,
        grid.class_at(start),
        (q.goal.x as usize + 1, q.goal.y as usize + 1),
    );
    let weight = q.settings.weight;
    let (gx, gy) = (i64::from(q.goal.x), i64::from(q.goal.y));
    let h = |(x, y): (i64, i64)| weight * length(x - gx, y - gy);
    // A jump point's f exceeds its expanded node's by at most (1 + w) times the jump's length
    // (triangle inequality), a repair's by at most (1 + w) times a diagonal ray plus a scan.
    let side = f64::from(grid.width().max(grid.height()));
    ws.reset(grid.padded_len(), (1.0 + weight) * (1.0 + SQRT2) * side + 2.0);
    let mut stats = Stats { generated: 1, ..Stats::default() };
    #[expect(clippy::cast_possible_truncation, reason = "padded grids have < 2^32 cells")]
    let as_u32 = |i: usize| i as u32;
    #[expect(clippy::cast_possible_truncation, reason = "a tie-break only")]
    let entry = |f: f64, h: f64, i: usize| Entry { f, h: h as f32, cell: as_u32(i) };
    let h0 = h((i64::from(q.start.x), i64::from(q.start.y)));
    ws.open_start(start, h0);
    if O::ENABLED {
        obs.event(TraceEvent::Opened { pos: q.start, g: 0.0, h: h0, f: h0 });
    }
    loop {
        let Workspace { cells, generation, heap, .. } = &mut *ws;
        let closed = *generation << GENERATION_SHIFT | CLOSED;
        let live = |e: &Entry| cells[e.cell as usize].state & (!0 << GENERATION_SHIFT | CLOSED) != closed;
        let Some(Entry { f, cell, .. }) = heap.pop_live(live) else {
            break;
        };
        let s = cell as usize;
        if ws.closed(s) || f != ws.cells[s].f {
            continue; // stale entry
        }
        let here = at.coords(s);
        let node = ws.cells[s];
        if node.state & CHECKED == 0 {
            let p = node.parent as usize;
            if !at.sees(p, s, &nb) {
                let (g, parent, turn) = repair(ws, &at, &nb, (s, here), &node);
                let hs = h(here);
                let cell = &mut ws.cells[s];
                cell.g = g;
                cell.f = g + hs;
                cell.parent = as_u32(parent);
                cell.state |= CHECKED;
                if let Some(t) = turn {
                    cell.state |= TURN;
                    cell.turn = as_u32(t);
                }
                ws.heap.push(entry(g + hs, hs, s));
                continue;
            }
        }
        ws.cells[s].state |= CLOSED;
        stats.expanded += 1;
        if O::ENABLED {
            obs.event(TraceEvent::Closed { pos: grid.pos_of(s) });
        }
        if s == goal {
            unwind(ws, &at, start, goal, out);
            stats.peak_open = ws.heap.peak() as u64;
            let cost = ws.cells[goal].g;
            return Ok((stats, pull_taut(ws, grid, rules, out, cost)));
        }
        // The jumps' grid costs are not used (the costs here are lengths of segments).
        #[expect(clippy::cast_sign_loss, clippy::cast_possible_truncation, reason = "on the grid")]
        let padded = ((here.0 + 1) as usize, (here.1 + 1) as usize);
        // Through the turning cell, the last vertex before `s` is the turn: offer from `s`
        // itself rather than from a parent that may not see past it.
        let parent = if node.state & TURN != 0 { s } else { node.parent as usize };
        let mut expand = Expand {
            from: as_u32(s),
            gs: ws.cells[s].g,
            generation: ws.generation,
            parent: as_u32(parent),
            gp: ws.cells[parent].g,
            p: at.coords(parent),
            ws: &mut *ws,
            at: &at,
            goal: (gx, gy),
            weight,
            stats: &mut stats,
            obs: &mut *obs,
        };
        // Every direction, not JPS's pruned set: a cell is closed with the cost and direction
        // of whichever route reached it first in Lazy Theta*'s order, and the pruning for that
        // direction could drop the jumps an octile-optimal route takes on from it.
        view.successors::<_, BITS, false>(s, NO_DIR, (padded.0, padded.1, 0, 0), &mut expand);
    }
    stats.peak_open = ws.heap.peak() as u64;
    Err(stats)
}

/// Lazy Theta*'s repair of the cell `s` at `here` whose parent does not see it: the cheapest
/// jump that reached it is (its node's route is known), straight from that node when it sees
/// the cell, else along the jump (node, turning cell, cell), the turn reached from the node's
/// parent when that sees it. Returns the cost, the parent and the turning cell if any.
fn repair(
    ws: &Workspace,
    at: &Layout<'_>,
    nb: &Neighbours,
    (s, here): (usize, (i64, i64)),
    node: &JumpCell,
) -> (f64, usize, Option<usize>) {
    let from = node.from as usize;
    let fc = at.coords(from);
    let turn = turning_point(fc, here, node.state & DIR_MASK);
    let gf = ws.cells[from].g;
    if turn == fc || at.sees(from, s, nb) {
        return (gf + length(here.0 - fc.0, here.1 - fc.1), from, None);
    }
    let leg = length(here.0 - turn.0, here.1 - turn.1);
    let q = ws.cells[from].parent as usize;
    let qc = at.coords(q);
    let through_q = ws.cells[q].g + length(turn.0 - qc.0, turn.1 - qc.1);
    let t = at.index(turn);
    if through_q < gf + length(turn.0 - fc.0, turn.1 - fc.1) && at.sees(q, t, nb) {
        (through_q + leg, q, Some(t))
    } else {
        (node.safe, from, Some(t))
    }
}

/// Writes the vertices from `start` to `goal`: the parent links back from `goal`, with the
/// turning cell of a repaired route between a cell and its parent.
fn unwind(ws: &Workspace, at: &Layout<'_>, start: usize, goal: usize, out: &mut Vec<crate::Pos>) {
    let grid = at.grid();
    let from = out.len();
    let mut v = goal;
    loop {
        out.push(grid.pos_of(v));
        if v == start {
            break;
        }
        let cell = ws.cells[v];
        if cell.state & TURN != 0 {
            out.push(grid.pos_of(cell.turn as usize));
        }
        v = cell.parent as usize;
    }
    out[from..].reverse();
}

/// Pulls the route in `out` (cost `cost`) taut: [`crate::sight::smooth`] on the cells its
/// segments cross, so that its vertices may lie anywhere along them, not only at jump points.
/// Keeps the shorter of the two; returns its cost.
fn pull_taut(
    ws: &mut Workspace,
    grid: &crate::Grid,
    rules: crate::Rules,
    out: &mut Vec<crate::Pos>,
    cost: f64,
) -> f64 {
    crate::sight::path_cells_into(grid, out, &mut ws.cells_crossed);
    crate::sight::smooth_into(grid, &ws.cells_crossed, rules, &mut ws.smoothing, &mut ws.taut);
    // Lazy Theta* runs on uniform cost only (`Algorithm::check`), where the smoother's
    // segments are in sight by construction and cost their length: no second walk to measure.
    debug_assert!(grid.has_uniform_cost());
    let shorter: f64 = ws.taut.windows(2).map(|w| crate::sight::distance(w[0], w[1])).sum();
    if shorter < cost {
        out.clear();
        out.extend_from_slice(&ws.taut);
        shorter
    } else {
        cost
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::{Grid, Pos, Rules, Tile};
    use crate::search::{Query, Stats};
    use crate::trace::NoTrace;
    use crate::{Algorithm, Searcher, Settings};
    use proptest::prelude::*;

    /// A grid of walls (`density` in 256 of the bytes) and floor, the Moving AI rules.
    fn grid_from(w: u32, h: u32, bytes: &[u8], density: u8) -> Grid {
        let mut grid = Grid::new(w, h).unwrap();
        for (k, p) in grid.clone().positions().enumerate() {
            if bytes[k % bytes.len()] < density {
                grid.set_tile(p, Tile::Wall).unwrap();
            }
        }
        grid
    }

    /// This search alone, without the cell-by-cell fallback of the dispatch.
    fn over_jumps(grid: &Grid, start: Pos, goal: Pos) -> Result<(Stats, f64, Vec<Pos>), Stats> {
        let settings = Settings::with_algorithm(Algorithm::LazyTheta);
        let q = Query { grid, start, goal, settings: &settings, shape: crate::search::Shape::Cells };
        let mut out = Vec::new();
        run::<_, true>(&mut Workspace::default(), &q, &mut out, &mut NoTrace).map(|(s, c)| (s, c, out))
    }

    #[test]
    fn the_turning_point_is_where_the_diagonal_ray_turned() {
        // From (2, 2): a ray south-east for 3 steps, then east to (9, 5).
        assert_eq!(turning_point((2, 2), (9, 5), 1), (5, 5));
        // A ray north-west for 2 steps, then north to (0, 1).
        assert_eq!(turning_point((2, 5), (0, 1), 0), (0, 3));
        // A straight jump and a diagonal one turn nowhere.
        assert_eq!(turning_point((2, 2), (9, 2), 1), (2, 2));
        assert_eq!(turning_point((2, 2), (6, 6), 5), (2, 2));
    }

    #[test]
    fn over_jump_points_fewer_cells_are_expanded_for_a_taut_route() {
        // Open ground with a wall to go round: the jump search expands a handful of jump points,
        // the cell-by-cell search every cell near the straight line.
        let mut grid = Grid::new(60, 40).unwrap();
        for y in 5..35 {
            grid.set_wall(Pos::new(30, y), true).unwrap();
        }
        let (start, goal) = (Pos::new(2, 20), Pos::new(57, 22));
        let (stats, cost, path) = over_jumps(&grid, start, goal).unwrap();
        let mut cells = Searcher::new();
        cells.set_lazy_theta_jumps(false);
        let by_cell =
            cells.find_path(&grid, start, goal, &Settings::with_algorithm(Algorithm::LazyTheta)).unwrap();
        assert!(
            stats.expanded * 10 < by_cell.stats.expanded,
            "{} jump points against {} cells",
            stats.expanded,
            by_cell.stats.expanded
        );
        assert_eq!(grid.any_angle_cost(&path, Rules::OCTILE).ok(), Some(cost));
        // Round the wall's end: two segments, as long as the cell-by-cell route.
        assert_eq!(path.len(), 3, "{path:?}");
        assert!((cost - by_cell.cost).abs() < 1e-9, "{cost} against {}", by_cell.cost);
    }

    proptest! {
        // Nearly half the drawn ends are walls or one cell: rejects allowed for far more cases
        // than the default (`PROPTEST_CASES=1500` ran out of the default 1,024).
        #![proptest_config(ProptestConfig {
            cases: 600,
            max_global_rejects: 100_000,
            ..ProptestConfig::default()
        })]

        /// Over jump points, without the cell-by-cell fallback: reaches what A* reaches, every
        /// segment in sight with the reported cost, never longer than the octile optimum (the
        /// safe jump routes and the full expansion of every jump point guarantee it), never
        /// shorter than the exact any-angle optimum on small grids; the cell-by-cell search
        /// (the switch off) keeps the same bounds.
        #[test]
        fn over_jump_points_routes_are_legal_and_bounded(
            w in 2u32..64, h in 2u32..64, bytes in proptest::collection::vec(any::<u8>(), 1..4000),
            ends in (any::<u32>(), any::<u32>(), any::<u32>(), any::<u32>()), density in 20u8..110,
        ) {
            let grid = grid_from(w, h, &bytes, density);
            let start = Pos::new(ends.0 % w, ends.1 % h);
            let goal = Pos::new(ends.2 % w, ends.3 % h);
            prop_assume!(grid.is_passable(start) && grid.is_passable(goal) && start != goal);
            let mut searcher = Searcher::new();
            let astar = searcher.find_path(&grid, start, goal, &Settings::default());
            let found = over_jumps(&grid, start, goal);
            prop_assert_eq!(found.is_ok(), astar.is_ok(), "reaches what A* reaches");
            let (Ok((_, cost, path)), Ok(best)) = (found, astar) else { return Ok(()) };
            prop_assert_eq!((path.first(), path.last()), (Some(&start), Some(&goal)));
            let measured = grid.any_angle_cost(&path, Rules::OCTILE);
            prop_assert!(measured.is_ok(), "segments in sight: {:?}", measured);
            prop_assert!((measured.unwrap() - cost).abs() < 1e-9, "the reported cost");
            prop_assert!(cost <= best.cost + 1e-9, "{} above the octile optimum {}", cost, best.cost);
            if w * h <= 100 {
                let exact = crate::search::theta::tests::visibility_graph_cost(&grid, start, goal, Rules::OCTILE);
                prop_assert!(exact.is_some_and(|e| cost >= e - 1e-9), "{} below the exact {:?}", cost, exact);
            }
            searcher.set_lazy_theta_jumps(false);
            let by_cell = searcher.find_path(&grid, start, goal, &Settings::with_algorithm(Algorithm::LazyTheta));
            prop_assert!(by_cell.is_ok_and(|p| p.cost <= best.cost + 1e-9), "cell by cell: within the optimum");
        }
    }
}
