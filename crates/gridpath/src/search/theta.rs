//! Any-angle searches: Theta* and Lazy Theta* (Nash, Daniel, Koenig, Felner). A cell's parent
//! need not be a neighbour, only in line of sight ([`Grid::line_of_sight`]), so the path's
//! vertices are its turning points and its segments run at any angle.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::{Query, Stats};
use crate::grid::{Grid, Neighbours};
use crate::sight::distance;
use crate::trace::{Observer, TraceEvent};

/// An open-list entry: priority `f`, ties to the larger `g` (nearer the goal), then the index.
#[derive(Clone, Copy, PartialEq)]
struct Entry {
    f: f64,
    g: f64,
    i: u32,
}

impl Eq for Entry {}
impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        // BinaryHeap is a max-heap: the smallest f must compare greatest.
        other.f.total_cmp(&self.f).then(self.g.total_cmp(&other.g)).then(other.i.cmp(&self.i))
    }
}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The any-angle searches' workspace: per padded cell its cost, its parent (any cell) and a
/// generation stamp (seen this query; the top bit: closed), reused between queries.
#[derive(Default)]
pub(crate) struct Workspace {
    g: Vec<f64>,
    parent: Vec<u32>,
    stamp: Vec<u32>,
    generation: u32,
    heap: BinaryHeap<Entry>,
}

const CLOSED: u32 = 1 << 31;

impl Workspace {
    fn reset(&mut self, len: usize) {
        if self.g.len() != len || self.generation >= CLOSED - 1 {
            self.g = vec![0.0; len];
            self.parent = vec![0; len];
            self.stamp = vec![0; len];
            self.generation = 0;
        }
        self.generation += 1;
        self.heap.clear();
    }

    fn seen(&self, i: usize) -> bool {
        self.stamp[i] & !CLOSED == self.generation
    }

    fn closed(&self, i: usize) -> bool {
        self.stamp[i] == self.generation | CLOSED
    }

    /// The cost of the segment `a` → `b` between padded indices, `None` without line of sight.
    fn segment(grid: &Grid, a: usize, b: usize, q: &Query<'_>, uniform: bool) -> Option<f64> {
        let (pa, pb) = (grid.pos_of(a), grid.pos_of(b));
        if uniform {
            grid.line_of_sight(pa, pb, q.settings.rules).then(|| distance(pa, pb))
        } else {
            grid.segment_cost(pa, pb, q.settings.rules)
        }
    }
}

/// Theta* (`LAZY == false`): each generated neighbour takes the expanded cell's parent as its
/// own when it sees it and that is not costlier than the step from the expanded cell (on
/// terrain costs a straight segment can cost more than a detour). Lazy Theta* (`LAZY`):
/// assumes the parent is seen (uniform cost only: the assumed cost is the distance) and checks
/// once, when the cell is expanded; if not, the cell takes the best closed neighbour as its
/// parent. The heuristic is the Euclidean distance times the weight (admissible: every length
/// costs at least 1). Writes the vertices, start first, into `out`; returns the cost.
pub(crate) fn run<O: Observer, const LAZY: bool>(
    ws: &mut Workspace,
    q: &Query<'_>,
    out: &mut Vec<crate::Pos>,
    obs: &mut O,
) -> Result<(Stats, f64), Stats> {
    let grid = q.grid;
    let cells = grid.cells();
    let uniform = grid.has_uniform_cost();
    let nb = Neighbours::new(grid, q.settings.rules);
    let (start, goal) = (grid.index(q.start), grid.index(q.goal));
    let class = grid.class_at(start);
    let h = |i: usize| q.settings.weight * distance(grid.pos_of(i), q.goal);
    ws.reset(grid.padded_len());
    let mut stats = Stats::default();
    ws.g[start] = 0.0;
    #[expect(clippy::cast_possible_truncation, reason = "padded grids have < 2^32 cells")]
    let as_u32 = |i: usize| i as u32;
    ws.parent[start] = as_u32(start);
    ws.stamp[start] = ws.generation;
    ws.heap.push(Entry { f: h(start), g: 0.0, i: as_u32(start) });
    obs.event(TraceEvent::Opened { pos: q.start, g: 0.0, h: h(start), f: h(start) });
    stats.generated = 1;
    while let Some(Entry { i, g, .. }) = ws.heap.pop() {
        let s = i as usize;
        if ws.closed(s) || g > ws.g[s] {
            continue; // stale entry
        }
        if LAZY {
            // Set the vertex: was the assumed line of sight to the parent there?
            let p = ws.parent[s] as usize;
            if p != s && !grid.line_of_sight(grid.pos_of(p), grid.pos_of(s), q.settings.rules) {
                let mut best = (f64::INFINITY, s);
                for k in 0..nb.count {
                    let n = s.wrapping_add_signed(nb.offset[k]);
                    if ws.closed(n) && nb.legal(cells, s, k, class) {
                        let c = ws.g[n] + distance(grid.pos_of(n), grid.pos_of(s));
                        if c < best.0 {
                            best = (c, n);
                        }
                    }
                }
                // The cell was generated from a closed neighbour, so one is there.
                ws.g[s] = best.0;
                ws.parent[s] = as_u32(best.1);
                // Its true cost is higher than the one it was taken for: back onto the open list
                // with it rather than expanded now. Expanding it anyway (the published Lazy
                // Theta*) closes cells in an order their real costs do not support, which
                // returned paths longer than the octile optimum in the property test below.
                ws.heap.push(Entry { f: best.0 + h(s), g: best.0, i: as_u32(s) });
                continue;
            }
        }
        ws.stamp[s] = ws.generation | CLOSED;
        stats.expanded += 1;
        obs.event(TraceEvent::Closed { pos: grid.pos_of(s) });
        if s == goal {
            let cost = ws.g[s];
            let from = out.len();
            let mut v = s;
            loop {
                out.push(grid.pos_of(v));
                if v == start {
                    break;
                }
                v = ws.parent[v] as usize;
            }
            out[from..].reverse();
            return Ok((stats, cost));
        }
        let p = ws.parent[s] as usize;
        for k in 0..nb.count {
            if !nb.legal(cells, s, k, class) {
                continue;
            }
            let n = s.wrapping_add_signed(nb.offset[k]);
            if ws.closed(n) {
                continue;
            }
            let (cand, par) = if LAZY {
                (ws.g[p] + distance(grid.pos_of(p), grid.pos_of(n)), p)
            } else {
                let step = Workspace::segment(grid, s, n, q, uniform)
                    .map_or((f64::INFINITY, s), |c| (ws.g[s] + c, s));
                match Workspace::segment(grid, p, n, q, uniform) {
                    Some(c) if p != s && ws.g[p] + c <= step.0 => (ws.g[p] + c, p),
                    _ => step,
                }
            };
            let seen = ws.seen(n);
            if !seen || cand < ws.g[n] {
                ws.g[n] = cand;
                ws.parent[n] = as_u32(par);
                ws.stamp[n] = ws.generation;
                let hn = h(n);
                ws.heap.push(Entry { f: cand + hn, g: cand, i: as_u32(n) });
                stats.generated += 1;
                stats.peak_open = stats.peak_open.max(ws.heap.len() as u64);
                obs.event(TraceEvent::pushed(seen, grid.pos_of(n), cand, hn, cand + hn));
            }
        }
    }
    Err(stats)
}

#[cfg(test)]
mod tests {
    use crate::grid::{Corners, Grid, Pos, Rules, Tile};
    use crate::{Algorithm, SearchError, Searcher, Settings};
    use proptest::prelude::*;

    fn grid_from(w: u32, h: u32, bytes: &[u8], terrain: bool) -> Grid {
        let mut grid = Grid::new(w, h).unwrap();
        for (k, p) in grid.clone().positions().enumerate() {
            let b = bytes[k % bytes.len()];
            let tile = match b % 10 {
                0..=2 => Tile::Wall,
                3 if terrain => Tile::Ground { cost: 1 + b / 10 % 5 },
                _ => Tile::FLOOR,
            };
            grid.set_tile(p, tile).unwrap();
        }
        grid
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// On uniform cost, Theta* and Lazy Theta* reach exactly what A* reaches, return paths
        /// whose segments are all in line of sight with the reported cost, and are never longer
        /// than A*'s octile optimum (nor, after smoothing, than the smoothed A* path... checked
        /// only against the optimum). On terrain costs Theta* does the same except the bound.
        #[test]
        fn any_angle_paths_are_legal_and_never_longer_than_octile(
            w in 2u32..28, h in 2u32..28, bytes in proptest::collection::vec(any::<u8>(), 1..500),
            terrain in any::<bool>(), corners in proptest::sample::select(Corners::ALL.to_vec()),
        ) {
            let grid = grid_from(w, h, &bytes, terrain);
            let rules = Rules::eight(corners);
            let mut searcher = Searcher::new();
            let (start, goal) = (Pos::new(0, 0), Pos::new(w - 1, h - 1));
            let astar = searcher.find_path(&grid, start, goal, &Settings { rules, ..Settings::default() });
            for algorithm in [Algorithm::Theta, Algorithm::LazyTheta] {
                let settings = Settings { algorithm, rules, ..Settings::default() };
                if algorithm.check(&grid, &settings).is_err() {
                    prop_assert!(!grid.has_uniform_cost() && algorithm == Algorithm::LazyTheta);
                    continue;
                }
                let found = searcher.find_path(&grid, start, goal, &settings);
                prop_assert_eq!(found.is_ok(), astar.is_ok(), "{} reaches what A* reaches", algorithm);
                let (Ok(path), Ok(best)) = (found, astar.as_ref()) else { continue };
                prop_assert_eq!(path.cells.first(), Some(&start));
                prop_assert_eq!(path.cells.last(), Some(&goal));
                let cost = grid.any_angle_cost(&path.cells, rules);
                prop_assert!(cost.is_ok(), "{}: segments in sight: {:?}", algorithm, cost);
                prop_assert!((cost.unwrap() - path.cost).abs() < 1e-9, "{}: reported cost", algorithm);
                if grid.has_uniform_cost() {
                    prop_assert!(path.cost <= best.cost + 1e-9, "{}: {} above octile {}", algorithm, path.cost, best.cost);
                }
            }
        }
    }

    /// The exact reference for paths whose vertices are cell centres: Dijkstra on the
    /// visibility graph of every pair of cells in line of sight, each edge its
    /// [`Grid::segment_cost`]. Quadratic in the cells: small grids only.
    fn visibility_graph_cost(grid: &Grid, start: Pos, goal: Pos, rules: Rules) -> Option<f64> {
        let cells: Vec<Pos> = grid.positions().filter(|&p| grid.is_passable(p)).collect();
        let at = |p: Pos| cells.iter().position(|&c| c == p);
        let (s, g) = (at(start)?, at(goal)?);
        let mut dist = vec![f64::INFINITY; cells.len()];
        let mut done = vec![false; cells.len()];
        dist[s] = 0.0;
        loop {
            let u = (0..cells.len())
                .filter(|&i| !done[i] && dist[i].is_finite())
                .min_by(|&a, &b| dist[a].total_cmp(&dist[b]))?;
            if u == g {
                return Some(dist[g]);
            }
            done[u] = true;
            for v in 0..cells.len() {
                if let Some(c) = grid.segment_cost(cells[u], cells[v], rules) {
                    dist[v] = dist[v].min(dist[u] + c);
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(100))]

        /// Theta* and Lazy Theta* never beat the exact cell-centre any-angle optimum (they
        /// return real paths), and that optimum never exceeds A*'s octile one on uniform cost.
        #[test]
        fn any_angle_costs_are_bounded_by_the_visibility_graph(
            w in 2u32..10, h in 2u32..10, bytes in proptest::collection::vec(any::<u8>(), 1..100),
            terrain in any::<bool>(), corners in proptest::sample::select(Corners::ALL.to_vec()),
        ) {
            let grid = grid_from(w, h, &bytes, terrain);
            let rules = Rules::eight(corners);
            let (start, goal) = (Pos::new(0, 0), Pos::new(w - 1, h - 1));
            let exact = visibility_graph_cost(&grid, start, goal, rules);
            let mut searcher = Searcher::new();
            let astar = searcher.find_path(&grid, start, goal, &Settings { rules, ..Settings::default() });
            prop_assert_eq!(exact.is_some(), astar.is_ok(), "same reach as A*");
            if let (Some(exact), Ok(astar), true) = (exact, &astar, grid.has_uniform_cost()) {
                prop_assert!(exact <= astar.cost + 1e-9, "exact any-angle {} above octile {}", exact, astar.cost);
            }
            for algorithm in [Algorithm::Theta, Algorithm::LazyTheta] {
                let settings = Settings { algorithm, rules, ..Settings::default() };
                if let (Ok(path), Some(exact)) = (searcher.find_path(&grid, start, goal, &settings), exact) {
                    prop_assert!(path.cost >= exact - 1e-9, "{}: {} below the exact {}", algorithm, path.cost, exact);
                }
            }
        }
    }

    #[test]
    fn theta_goes_straight_across_open_ground() {
        let grid = Grid::new(10, 5).unwrap();
        let mut searcher = Searcher::new();
        for algorithm in [Algorithm::Theta, Algorithm::LazyTheta] {
            let path = searcher
                .find_path(&grid, Pos::new(0, 0), Pos::new(9, 3), &Settings::with_algorithm(algorithm))
                .unwrap();
            assert_eq!(path.cells, [Pos::new(0, 0), Pos::new(9, 3)], "{algorithm}: one straight segment");
            assert!((path.cost - 90f64.sqrt()).abs() < 1e-9, "{algorithm}: the Euclidean length");
        }
    }

    #[test]
    fn any_angle_refusals_say_why() {
        let mut grid = Grid::new(4, 4).unwrap();
        let mut searcher = Searcher::new();
        let four = Settings { algorithm: Algorithm::Theta, rules: Rules::FOUR, ..Settings::default() };
        let err = searcher.find_path(&grid, Pos::new(0, 0), Pos::new(3, 3), &four).unwrap_err();
        assert!(matches!(err, SearchError::Unsupported { algorithm: Algorithm::Theta, .. }), "{err}");
        grid.set_tile(Pos::new(1, 1), Tile::Ground { cost: 5 }).unwrap();
        let lazy = Settings::with_algorithm(Algorithm::LazyTheta);
        let err = searcher.find_path(&grid, Pos::new(0, 0), Pos::new(3, 3), &lazy).unwrap_err();
        assert!(err.to_string().contains("uniform terrain cost"), "{err}");
        // Theta* takes the costly cell into account: around it, not through it.
        let path = searcher
            .find_path(&grid, Pos::new(0, 0), Pos::new(2, 2), &Settings::with_algorithm(Algorithm::Theta))
            .unwrap();
        assert!(path.cells.len() > 2, "the straight segment crosses the cost-5 cell: {path:?}");
        assert!((grid.any_angle_cost(&path.cells, Rules::OCTILE).unwrap() - path.cost).abs() < 1e-9);
    }
}
