//! Any-angle searches: Theta* and Lazy Theta* (Nash, Daniel, Koenig, Felner). A cell's parent
//! need not be a neighbour, only in line of sight ([`Grid::line_of_sight`]), so the path's
//! vertices are its turning points and its segments run at any angle.

use super::heap::{BucketQueue, Entry};
use super::octile::DirSet;
use super::{Query, Stats};
use crate::grid::{DIRS, Neighbours, Rules, SQRT2};
use crate::trace::{Observer, TraceEvent};

/// One padded cell of the any-angle searches: its cost, the priority it was last pushed with
/// (an open-list entry with another `f` is stale), its parent (any cell) and a generation
/// stamp (seen this query; the top bit: closed). 24 bytes, one cache line holds 2.67 cells.
#[derive(Clone, Copy, Default)]
pub(crate) struct Node {
    g: f64,
    f: f64,
    parent: u32,
    stamp: u32,
}

/// The any-angle searches' workspace, reused between queries.
#[derive(Default)]
pub(crate) struct Workspace {
    nodes: Vec<Node>,
    generation: u32,
    heap: BucketQueue,
}

const CLOSED: u32 = 1 << 31;

impl Workspace {
    /// Readies the workspace for a search on `len` padded cells whose pushes lie at most
    /// `window` above the `f` last popped.
    fn reset(&mut self, len: usize, window: f64) {
        if self.nodes.len() != len || self.generation >= CLOSED - 1 {
            self.nodes = vec![Node::default(); len];
            self.generation = 0;
        }
        self.generation += 1;
        self.heap.reset(window);
    }

    #[inline(always)]
    fn seen(&self, i: usize) -> bool {
        self.nodes[i].stamp & !CLOSED == self.generation
    }

    #[inline(always)]
    fn closed(&self, i: usize) -> bool {
        self.nodes[i].stamp == self.generation | CLOSED
    }
}

impl Workspace {
    /// The closed neighbour (among the legal `moves` of padded cell `s`) through which `s` is
    /// cheapest on uniform cost, and that cost (Lazy Theta*'s repair of a parent out of sight).
    fn best_closed_neighbour(&self, s: usize, moves: u32, nb: &Neighbours) -> (f64, usize) {
        let mut best = (f64::INFINITY, s);
        for k in DirSet(moves) {
            let n = s.wrapping_add_signed(nb.offset[k & 7]);
            if self.closed(n) {
                let c = self.nodes[n].g + nb.base[k & 7];
                if c < best.0 {
                    best = (c, n);
                }
            }
        }
        best
    }

    /// Appends the vertices from `start` to `goal` (parent links back from `goal`) to `out`.
    fn unwind(&self, grid: &crate::Grid, start: usize, goal: usize, out: &mut Vec<crate::Pos>) {
        let from = out.len();
        let mut v = goal;
        loop {
            out.push(grid.pos_of(v));
            if v == start {
                break;
            }
            v = self.nodes[v].parent as usize;
        }
        out[from..].reverse();
    }
}

/// Where cells are and which moves they have, for one search.
pub(super) struct Layout<'a> {
    grid: &'a crate::Grid,
    rules: Rules,
    class: u8,
    /// The grid's move masks under the Moving AI rules (one load per cell), else none.
    masks: Option<&'a [u8]>,
    stride: u64,
    /// row = (i · magic) >> 40 without a division, exact for every padded index (as in A*).
    magic: u64,
}

impl<'a> Layout<'a> {
    pub(super) fn new(grid: &'a crate::Grid, rules: Rules, class: u8) -> Self {
        let stride = grid.stride() as u64;
        let masks = (rules == Rules::OCTILE).then(|| grid.octile_moves());
        Layout { grid, rules, class, masks, stride, magic: (1u64 << 40).div_ceil(stride) }
    }

    /// The real coordinates of padded index `i`.
    #[inline(always)]
    #[expect(clippy::cast_possible_wrap, reason = "padded indices are below 2^27")]
    pub(super) fn coords(&self, i: usize) -> (i64, i64) {
        let row = (i as u64 * self.magic) >> 40;
        ((i as u64 - row * self.stride) as i64 - 1, row as i64 - 1)
    }

    /// The padded index of the real coordinates `(x, y)`.
    #[inline(always)]
    #[expect(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "coordinates on the grid")]
    pub(super) fn index(&self, (x, y): (i64, i64)) -> usize {
        (y + 1) as usize * self.stride as usize + (x + 1) as usize
    }

    /// The padded row length.
    #[expect(clippy::cast_possible_truncation, reason = "it came from a usize")]
    pub(super) fn stride(&self) -> usize {
        self.stride as usize
    }

    /// The grid searched.
    pub(super) fn grid(&self) -> &'a crate::Grid {
        self.grid
    }

    /// The legal moves from padded index `i`, bit `k` for `DIRS[k]`.
    #[inline(always)]
    fn moves(&self, i: usize, nb: &Neighbours) -> u32 {
        if let Some(m) = self.masks {
            return u32::from(m[i]);
        }
        let cells = self.grid.cells();
        let fences = self.grid.fence_masks();
        (0..nb.count).filter(|&k| nb.legal(cells, fences, i, k, self.class)).fold(0, |m, k| m | 1 << k)
    }

    /// Line of sight from padded index `p` to `s`; a neighbouring `p` sees `s` exactly when
    /// the step is legal (its move bit).
    pub(super) fn sees(&self, p: usize, s: usize, nb: &Neighbours) -> bool {
        let ((px, py), (sx, sy)) = (self.coords(p), self.coords(s));
        if (px - sx).abs() <= 1 && (py - sy).abs() <= 1 {
            p == s || self.moves(p, nb) & 1 << direction(sx - px, sy - py) != 0
        } else {
            self.grid.line_of_sight(self.grid.pos_of(p), self.grid.pos_of(s), self.rules)
        }
    }
}

/// Theta*'s cost and parent for the neighbour `n` of `s` (`s` = (index, cost, length of the
/// step)): through `s`'s parent `p` (`through` = (index, cost, length `|pn|`), none at the
/// start) when `n` sees it and that is not costlier than the step from `s`, else from `s`.
/// Segments cost their length on uniform cost, [`crate::Grid::segment_cost`] otherwise.
fn theta_candidate(
    grid: &crate::Grid,
    rules: Rules,
    (s, gs, step): (usize, f64, f64),
    n: usize,
    through: Option<(usize, f64, f64)>,
) -> (f64, usize) {
    let uniform = grid.has_uniform_cost();
    let b = grid.pos_of(n);
    let step = if uniform { Some(step) } else { grid.segment_cost(grid.pos_of(s), b, rules) };
    let step = step.map_or((f64::INFINITY, s), |c| (gs + c, s));
    let Some((p, gp, len)) = through else { return step };
    let straight = if uniform {
        grid.line_of_sight(grid.pos_of(p), b, rules).then_some(len)
    } else {
        grid.segment_cost(grid.pos_of(p), b, rules)
    };
    match straight {
        Some(c) if gp + c <= step.0 => (gp + c, p),
        _ => step,
    }
}

/// Euclidean distance between two points given as signed coordinates: the square root of an
/// exact integer, as [`crate::sight::distance`] computes it.
#[inline(always)]
pub(super) fn length(dx: i64, dy: i64) -> f64 {
    #[expect(clippy::cast_precision_loss, reason = "below 2^27: exact")]
    let squared = (dx * dx + dy * dy) as f64;
    squared.sqrt()
}

/// The index in [`DIRS`] of the step `(dx, dy)` (each −1, 0 or 1, not both 0).
#[inline(always)]
fn direction(dx: i64, dy: i64) -> usize {
    // (dx + 1) + 3·(dy + 1) → DIRS index; the centre (4) is never asked for.
    const TABLE: [usize; 9] = [7, 0, 4, 3, 0, 1, 6, 2, 5];
    #[expect(clippy::cast_sign_loss, clippy::cast_possible_truncation, reason = "0..9")]
    TABLE[((dx + 1) + 3 * (dy + 1)) as usize]
}

/// Theta* (`LAZY == false`): each generated neighbour takes the expanded cell's parent as its
/// own when it sees it and that is not costlier than the step from the expanded cell (on
/// terrain costs a straight segment can cost more than a detour). Lazy Theta* (`LAZY`):
/// assumes the parent is seen (uniform cost only: the assumed cost is the distance) and checks
/// once, when the cell is expanded; if not, the cell takes the best closed neighbour as its
/// parent. The heuristic is the Euclidean distance times the weight (admissible: every length
/// costs at least 1). Writes the vertices, start first, into `out`; returns the cost.
///
/// Speed (Lazy Theta* on the Moving AI maps): coordinates are carried as integers and every
/// length is one square root of an exact integer; the open list is A*'s bucket queue (exact `(f, h)` order, and
/// most pushes an append to a later bucket); the legal moves under the Moving AI rules are the grid's move mask;
/// line of sight runs on the bit planes ([`Grid::line_of_sight`]), and is skipped when the
/// parent is the expanded cell itself (a legal step is always in sight).
pub(crate) fn run<O: Observer, const LAZY: bool>(
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
    let (coords, legal_moves) = (|i| at.coords(i), |i| at.moves(i, &nb));
    let weight = q.settings.weight;
    let (gx, gy) = (i64::from(q.goal.x), i64::from(q.goal.y));
    let h = |x: i64, y: i64| weight * length(x - gx, y - gy);
    // The bucket queue's window (pushes below it are exact too): by the triangle inequality a
    // child's f exceeds its expanded cell's by at most (1 + w)·√2 times the dearest cost, a
    // Lazy Theta* cell re-pushed after a failed check gains at most 2·√2.
    ws.reset(grid.padded_len(), SQRT2 * (1.0 + weight) * f64::from(grid.max_cost()) + 2.0 * SQRT2 + 1.0);
    let mut stats = Stats::default();
    #[expect(clippy::cast_possible_truncation, reason = "padded grids have < 2^32 cells")]
    let as_u32 = |i: usize| i as u32;
    #[expect(clippy::cast_possible_truncation, reason = "a tie-break only")]
    let entry = |f: f64, h: f64, i: usize| Entry { f, h: h as f32, cell: as_u32(i) };
    let h0 = h(i64::from(q.start.x), i64::from(q.start.y));
    ws.nodes[start] = Node { g: 0.0, f: h0, parent: as_u32(start), stamp: ws.generation };
    ws.heap.push(entry(h0, h0, start));
    if O::ENABLED {
        obs.event(TraceEvent::Opened { pos: q.start, g: 0.0, h: h0, f: h0 });
    }
    stats.generated = 1;
    loop {
        let Workspace { nodes, generation, heap } = &mut *ws;
        let closed = CLOSED | *generation;
        let Some(Entry { f, cell, .. }) = heap.pop_live(|e| nodes[e.cell as usize].stamp != closed) else {
            break;
        };
        let s = cell as usize;
        if ws.closed(s) || f != ws.nodes[s].f {
            continue; // stale entry
        }
        let (sx, sy) = coords(s);
        if LAZY {
            // Set the vertex: was the assumed line of sight to the parent there?
            if !at.sees(ws.nodes[s].parent as usize, s, &nb) {
                // The cell was generated from a closed neighbour, so one is there. Its true
                // cost is higher than the one it was taken for: back onto the open list with it
                // rather than expanded now. Expanding it anyway (the published Lazy Theta*)
                // closes cells in an order their real costs do not support, which returned
                // paths longer than the octile optimum in the property test below.
                let (g, parent) = ws.best_closed_neighbour(s, legal_moves(s), &nb);
                let hs = h(sx, sy);
                ws.nodes[s] = Node { g, f: g + hs, parent: as_u32(parent), stamp: ws.generation };
                ws.heap.push(entry(g + hs, hs, s));
                continue;
            }
        }
        ws.nodes[s].stamp = ws.generation | CLOSED;
        stats.expanded += 1;
        if O::ENABLED {
            obs.event(TraceEvent::Closed { pos: grid.pos_of(s) });
        }
        if s == goal {
            ws.unwind(grid, start, goal, out);
            return Ok((stats, ws.nodes[goal].g));
        }
        let p = ws.nodes[s].parent as usize;
        let (px, py) = coords(p);
        let (gp, gs) = (ws.nodes[p].g, ws.nodes[s].g);
        for k in DirSet(legal_moves(s)) {
            let k = k & 7;
            let n = s.wrapping_add_signed(nb.offset[k]);
            if ws.closed(n) {
                continue;
            }
            let (nx, ny) = (sx + i64::from(DIRS[k].0), sy + i64::from(DIRS[k].1));
            let seen = ws.seen(n);
            let (cand, par) = if LAZY {
                let (dx, dy) = (nx - px, ny - py);
                if seen && ws.nodes[n].g <= gp {
                    continue; // nothing through the parent can improve it
                }
                (gp + length(dx, dy), p)
            } else {
                let through = (p != s).then(|| (p, gp, length(nx - px, ny - py)));
                theta_candidate(grid, rules, (s, gs, nb.base[k]), n, through)
            };
            if !seen || cand < ws.nodes[n].g {
                let hn = h(nx, ny);
                let fn_ = cand + hn;
                ws.nodes[n] = Node { g: cand, f: fn_, parent: as_u32(par), stamp: ws.generation };
                ws.heap.push(entry(fn_, hn, n));
                stats.generated += 1;
                stats.peak_open = stats.peak_open.max(ws.heap.peak() as u64);
                if O::ENABLED {
                    obs.event(TraceEvent::pushed(seen, grid.pos_of(n), cand, hn, fn_));
                }
            }
        }
    }
    Err(stats)
}

#[cfg(test)]
pub(super) mod tests {
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
    pub(crate) fn visibility_graph_cost(grid: &Grid, start: Pos, goal: Pos, rules: Rules) -> Option<f64> {
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
