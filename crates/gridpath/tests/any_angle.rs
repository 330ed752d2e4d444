//! Issue 21's straight-line routes checked from outside the library: every segment of every
//! Theta*, Lazy Theta* and smoothed path against a supercover walk written here (column by
//! column, exact in doubled coordinates, unlike the library's row runs and crossing events),
//! smoothed paths never longer than their source, any-angle lengths against the octile optimum
//! on random grids and on the shared Moving AI maps, large bodies on straight segments, and
//! partial routes against a brute-force closest reachable cell.

mod common;

use common::reference_cost;
use gridpath::formats::{map_path_for_scen, parse_map_bytes, parse_scen};
use gridpath::{Algorithm, Corners, Grid, Outcome, Pos, Rules, Searcher, Settings, Tile};
use proptest::prelude::*;

const EPS: f64 = 1e-6;

/// The terrain class of a cell, 0 for a wall or off the grid.
fn class(grid: &Grid, x: i64, y: i64) -> u8 {
    let (Ok(x), Ok(y)) = (u32::try_from(x), u32::try_from(y)) else { return 0 };
    match grid.tile(Pos::new(x, y)) {
        Some(Tile::Ground { .. }) => 1,
        Some(Tile::Water { .. }) => 2,
        Some(Tile::Trees { .. }) => 3,
        Some(Tile::Wall) | None => 0,
    }
}

/// The segment between the centres of `a` and `b`: the cells whose inside it crosses, and for
/// every corner point it passes exactly, the two cells it only touches there. In doubled
/// coordinates (centres even, borders odd), column by column: in column `c` the segment's `Y`
/// spans an interval, and row `r` is crossed when that interval's inside meets the row's.
fn supercover(a: Pos, b: Pos) -> (Vec<(i64, i64)>, Vec<[(i64, i64); 2]>) {
    let (mut ax, mut ay, mut bx, mut by) = (i64::from(a.x), i64::from(a.y), i64::from(b.x), i64::from(b.y));
    if ax > bx {
        std::mem::swap(&mut ax, &mut bx);
        std::mem::swap(&mut ay, &mut by);
    }
    let mut crossed = vec![(ax, ay), (bx, by)];
    let mut touched = Vec::new();
    if ax == bx || ay == by {
        for x in ax..=bx {
            for y in ay.min(by)..=ay.max(by) {
                crossed.push((x, y));
            }
        }
        return (crossed, touched);
    }
    let (dx, dy) = (2 * (bx - ax), 2 * (by - ay));
    // Y · DX at doubled abscissa X (exact).
    let y_at = |x: i64| 2 * ay * dx + (x - 2 * ax) * dy;
    for c in ax..=bx {
        let (xl, xr) = ((2 * c - 1).max(2 * ax), (2 * c + 1).min(2 * bx));
        let (lo, hi) = (y_at(xl).min(y_at(xr)), y_at(xl).max(y_at(xr)));
        for r in ay.min(by) - 1..=ay.max(by) + 1 {
            if (2 * r - 1) * dx < hi && (2 * r + 1) * dx > lo {
                crossed.push((c, r));
            }
        }
        // The corner points on the border between columns c and c + 1.
        if c < bx {
            let ys = y_at(2 * c + 1);
            if ys % dx == 0 && (ys / dx).rem_euclid(2) == 1 {
                let r = (ys / dx - 1) / 2; // the corner lies between rows r and r + 1
                touched.push(if dy > 0 { [(c + 1, r), (c, r + 1)] } else { [(c, r), (c + 1, r + 1)] });
            }
        }
    }
    (crossed, touched)
}

/// Line of sight by [`supercover`]: both ends passable, every crossed cell of `a`'s class, and
/// at every corner point the touched cells as the corner rule wants them.
fn sees(grid: &Grid, a: Pos, b: Pos, corners: Corners) -> bool {
    fits_along(a, b, corners, |x, y| class(grid, x, y), class(grid, i64::from(a.x), i64::from(a.y)))
}

/// [`sees`] for a `k` × `k` body anchored at its top-left cell: the body's class (0 when it
/// does not fit) stands in for the cell's class.
fn body_sees(grid: &Grid, a: Pos, b: Pos, corners: Corners, k: i64) -> bool {
    let body = |x: i64, y: i64| {
        let own = class(grid, x, y);
        let fits = (0..k).all(|dy| (0..k).all(|dx| class(grid, x + dx, y + dy) == own));
        if fits { own } else { 0 }
    };
    fits_along(a, b, corners, body, body(i64::from(a.x), i64::from(a.y)))
}

fn fits_along(a: Pos, b: Pos, corners: Corners, class_at: impl Fn(i64, i64) -> u8, own: u8) -> bool {
    let (crossed, touched) = supercover(a, b);
    own != 0
        && crossed.iter().all(|&(x, y)| class_at(x, y) == own)
        && touched.iter().all(|pair| {
            let open = pair.map(|(x, y)| class_at(x, y) == own);
            match corners {
                Corners::Forbid => open[0] && open[1],
                Corners::AllowOne => open[0] || open[1],
                Corners::Allow => true,
            }
        })
}

/// Every cell reachable from `start` and its least cost (Dijkstra over `Grid::step_cost`).
fn costs_from(grid: &Grid, start: Pos, rules: Rules) -> Vec<(Pos, f64)> {
    let mut best = std::collections::HashMap::from([(start, 0.0f64)]);
    let mut done = std::collections::HashSet::new();
    loop {
        let next = best.iter().filter(|(p, _)| !done.contains(*p)).min_by(|a, b| a.1.total_cmp(b.1));
        let Some((&p, &d)) = next else { break };
        done.insert(p);
        for (dx, dy) in [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)] {
            let (Some(x), Some(y)) = (p.x.checked_add_signed(dx), p.y.checked_add_signed(dy)) else {
                continue;
            };
            let q = Pos::new(x, y);
            if let Some(c) = grid.step_cost(p, q, rules)
                && best.get(&q).is_none_or(|&old| d + c < old)
            {
                best.insert(q, d + c);
            }
        }
    }
    best.into_iter().collect()
}

/// Euclidean length of a path of vertices.
fn length(path: &[Pos]) -> f64 {
    path.windows(2)
        .map(|w| (f64::from(w[0].x) - f64::from(w[1].x)).hypot(f64::from(w[0].y) - f64::from(w[1].y)))
        .sum()
}

/// A random grid of up to 40 × 40: walls, some water, and (when `terrain`) costly ground.
fn arb_grid() -> impl Strategy<Value = Grid> {
    (2u32..=40, 2u32..=40, 0u32..=40, any::<bool>(), any::<u64>()).prop_map(
        |(w, h, density, terrain, seed)| {
            let mut grid = Grid::new(w, h).unwrap();
            let mut state = seed | 1;
            for p in grid.positions() {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let r = u32::try_from(state % 100).unwrap();
                let tile = match r {
                    r if r < density => Tile::Wall,
                    97.. => Tile::Water { cost: 1 },
                    85.. if terrain => Tile::Ground { cost: 3 },
                    _ => Tile::FLOOR,
                };
                grid.set_tile(p, tile).unwrap();
            }
            grid
        },
    )
}

fn arb_corners() -> impl Strategy<Value = Corners> {
    proptest::sample::select(Corners::ALL.to_vec())
}

fn arb_ends() -> impl Strategy<Value = (u32, u32, u32, u32)> {
    (any::<u32>(), any::<u32>(), any::<u32>(), any::<u32>())
}

fn ends_on(grid: &Grid, e: (u32, u32, u32, u32)) -> (Pos, Pos) {
    (Pos::new(e.0 % grid.width(), e.1 % grid.height()), Pos::new(e.2 % grid.width(), e.3 % grid.height()))
}

/// The grid searches whose paths the smoother is tried on.
const GRID_SEARCHES: [Algorithm; 5] =
    [Algorithm::AStar, Algorithm::Jps, Algorithm::Dijkstra, Algorithm::Greedy, Algorithm::Bidirectional];

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// The walk here and the library's line of sight agree on random pairs of cells.
    #[test]
    fn the_supercover_here_agrees_with_line_of_sight(grid in arb_grid(), corners in arb_corners(), e in arb_ends()) {
        let (a, b) = ends_on(&grid, e);
        prop_assert_eq!(grid.line_of_sight(a, b, Rules::eight(corners)), sees(&grid, a, b, corners), "{} -> {}", a, b);
    }

    /// Every segment of every Theta*, Lazy Theta* and smoothed path is in sight by the walk
    /// here; a smoothed path never costs more than the path it came from; on uniform cost the
    /// any-angle searches are never longer than the octile optimum.
    #[test]
    fn every_straight_segment_is_in_sight_and_never_longer(grid in arb_grid(), corners in arb_corners(), e in arb_ends()) {
        let rules = Rules::eight(corners);
        let (start, goal) = ends_on(&grid, e);
        let optimum = reference_cost(&grid, start, goal, rules);
        let mut searcher = Searcher::new();
        for algorithm in [Algorithm::Theta, Algorithm::LazyTheta] {
            let settings = Settings { algorithm, rules, ..Settings::default() };
            let Ok(path) = searcher.find_path(&grid, start, goal, &settings) else { continue };
            prop_assert_eq!((path.cells.first(), path.cells.last()), (Some(&start), Some(&goal)));
            for w in path.cells.windows(2) {
                prop_assert!(sees(&grid, w[0], w[1], corners), "{algorithm}: {} -> {} out of sight", w[0], w[1]);
            }
            if let (Some(best), true) = (optimum, grid.has_uniform_cost()) {
                prop_assert!((length(&path.cells) - path.cost).abs() < EPS, "{algorithm}: the cost is the length");
                prop_assert!(path.cost <= best + EPS, "{algorithm}: {} above the octile optimum {best}", path.cost);
            }
        }
        for algorithm in GRID_SEARCHES {
            let settings = Settings { algorithm, rules, ..Settings::default() };
            let Ok(path) = searcher.find_path(&grid, start, goal, &settings) else { continue };
            let taut = gridpath::smooth(&grid, &path.cells, rules);
            prop_assert_eq!((taut.first(), taut.last()), (Some(&start), Some(&goal)));
            for w in taut.windows(2) {
                prop_assert!(sees(&grid, w[0], w[1], corners), "smoothed {algorithm}: {} -> {} out of sight", w[0], w[1]);
            }
            let before = grid.any_angle_cost(&path.cells, rules).unwrap();
            let after = grid.any_angle_cost(&taut, rules).unwrap();
            prop_assert!(after <= before + EPS, "smoothed {algorithm}: {after} above its source's {before}");
            if grid.has_uniform_cost() {
                prop_assert!(length(&taut) <= path.cost + EPS, "smoothed {algorithm}: longer than its source");
            }
        }
    }

    /// Large agents on straight segments: every segment of a sized Theta*, Lazy Theta* or
    /// smoothed A* route leaves room for the whole body on every cell it crosses and at every
    /// corner point it passes, by the walk here on the map itself (not the agent grid).
    #[test]
    fn large_bodies_fit_along_every_segment(grid in arb_grid(), corners in arb_corners(), k in 2u8..=4, e in arb_ends()) {
        let rules = Rules::eight(corners);
        let (start, goal) = ends_on(&grid, e);
        let mut searcher = Searcher::new();
        for algorithm in [Algorithm::Theta, Algorithm::LazyTheta, Algorithm::AStar] {
            let settings = Settings { algorithm, rules, agent_size: k, ..Settings::default() };
            let Ok(path) = searcher.find_path(&grid, start, goal, &settings) else { continue };
            let route = if algorithm == Algorithm::AStar {
                gridpath::smooth(searcher.agent_grid(&grid, k), &path.cells, rules)
            } else {
                path.cells
            };
            for w in route.windows(2) {
                prop_assert!(
                    body_sees(&grid, w[0], w[1], corners, i64::from(k)),
                    "{algorithm} (smoothed if A*), {k}x{k}: no room along {} -> {}", w[0], w[1]
                );
            }
        }
    }

    /// A partial route ends on a reachable cell nearest the goal by straight-line distance,
    /// and among those on one of the cheapest to reach (brute force: Dijkstra over every cell).
    #[test]
    fn partial_routes_end_on_the_closest_reachable_cell(grid in arb_grid(), e in arb_ends(), corners in arb_corners()) {
        let rules = Rules::eight(corners);
        let (start, goal) = ends_on(&grid, e);
        prop_assume!(grid.is_passable(start));
        let reach = costs_from(&grid, start, rules);
        let d2 = |p: Pos| {
            let (dx, dy) = (u64::from(p.x.abs_diff(goal.x)), u64::from(p.y.abs_diff(goal.y)));
            dx * dx + dy * dy
        };
        let nearest = reach.iter().map(|&(p, _)| d2(p)).min().unwrap();
        let cheapest = reach.iter().filter(|&&(p, _)| d2(p) == nearest).map(|&(_, c)| c).fold(f64::INFINITY, f64::min);
        let mut searcher = Searcher::new();
        for algorithm in Algorithm::ALL {
            let settings = Settings { algorithm, rules, partial: true, ..Settings::default() };
            if algorithm.check(&grid, &settings).is_err() {
                continue;
            }
            let path = searcher.find_path(&grid, start, goal, &settings).unwrap();
            let end = *path.cells.last().unwrap();
            let reached = reach.iter().any(|&(p, _)| p == goal);
            prop_assert_eq!(path.outcome == Outcome::Complete, reached, "{}: complete exactly when reachable", algorithm);
            prop_assert_eq!(d2(end), nearest, "{}: {} is not a nearest reachable cell to {}", algorithm, end, goal);
            let cost = reach.iter().find(|&&(p, _)| p == end).map_or(f64::NAN, |&(_, c)| c);
            prop_assert!((cost - cheapest).abs() < EPS, "{algorithm}: {end} costs {cost}, a tie costs {cheapest}");
        }
    }
}

/// Theta*, Lazy Theta* and JPS + smoothing on the 20 shared maps (25 queries each, evenly
/// spaced): every segment in sight by the walk here, never longer than the published octile
/// optimum; the worst case is printed (`cargo test -- --nocapture`).
#[test]
fn shared_maps_any_angle_lengths_against_the_octile_optimum() {
    let dir = common::movingai_dir();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| {
            panic!("{}: {e} (the shared benchmark folder must sit beside the repo)", dir.display())
        })
        .filter_map(Result::ok)
        .filter(|d| d.path().is_dir())
        .flat_map(|d| std::fs::read_dir(d.path()).unwrap().filter_map(Result::ok).map(|f| f.path()))
        .filter(|p| p.to_string_lossy().ends_with(".map.scen"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 20, "the 20 shared maps");
    let mut searcher = Searcher::new();
    let mut worst = (f64::NEG_INFINITY, String::new());
    for file in &files {
        let scenarios = parse_scen(&std::fs::read_to_string(file).unwrap()).unwrap();
        let grid = parse_map_bytes(&std::fs::read(map_path_for_scen(file)).unwrap()).unwrap().grid;
        for s in (0..25).map(|k| &scenarios[k * scenarios.len() / 25]) {
            for (label, algorithm, smooth) in [
                ("Theta*", Algorithm::Theta, false),
                ("Lazy Theta*", Algorithm::LazyTheta, false),
                ("JPS + smoothing", Algorithm::Jps, true),
            ] {
                let path =
                    searcher.find_path(&grid, s.start, s.goal, &Settings::with_algorithm(algorithm)).unwrap();
                let route =
                    if smooth { gridpath::smooth(&grid, &path.cells, Rules::OCTILE) } else { path.cells };
                let name = format!(
                    "{label} on {} {} -> {}",
                    file.file_name().unwrap().to_string_lossy(),
                    s.start,
                    s.goal
                );
                for w in route.windows(2) {
                    assert!(
                        sees(&grid, w[0], w[1], Corners::Forbid),
                        "{name}: {} -> {} out of sight",
                        w[0],
                        w[1]
                    );
                }
                let excess = length(&route) / s.optimal - 1.0;
                if excess > worst.0 {
                    worst = (excess, format!("{name}: {:.4} against {:.4}", length(&route), s.optimal));
                }
                assert!(
                    length(&route) <= s.optimal + 0.01,
                    "{name}: {} longer than the optimum {}",
                    length(&route),
                    s.optimal
                );
            }
        }
    }
    println!("worst length against the published octile optimum: {:+.3}% ({})", 100.0 * worst.0, worst.1);
}

/// Lazy Theta* over jump points on the queries of the shared maps where a first version
/// returned illegal routes or a wrong cost (a repaired route's turning cell was recomputed
/// from a later, cheaper jump): every segment in sight, the reported cost the route's
/// length, never longer than the published octile optimum.
#[test]
fn lazy_theta_over_jump_points_regressions_on_shared_maps() {
    let dir = common::movingai_dir();
    let cases = [
        ("random/random512-25-0.map.scen", (445, 167), (36, 317)),
        ("random/random512-25-0.map.scen", (487, 399), (32, 509)),
        ("random/random512-10-0.map.scen", (180, 261), (189, 488)),
        ("sc1/TheFrozenSea.map.scen", (56, 145), (101, 695)),
    ];
    let mut searcher = Searcher::new();
    for (file, a, b) in cases {
        let scen = dir.join(file);
        let grid = parse_map_bytes(&std::fs::read(map_path_for_scen(&scen)).unwrap()).unwrap().grid;
        let scenarios = parse_scen(&std::fs::read_to_string(&scen).unwrap()).unwrap();
        let (start, goal) = (Pos::new(a.0, a.1), Pos::new(b.0, b.1));
        let optimal = scenarios.iter().find(|s| s.start == start && s.goal == goal).unwrap().optimal;
        let path =
            searcher.find_path(&grid, start, goal, &Settings::with_algorithm(Algorithm::LazyTheta)).unwrap();
        for w in path.cells.windows(2) {
            assert!(
                sees(&grid, w[0], w[1], Corners::Forbid),
                "{file} {start} -> {goal}: {} -> {} out of sight",
                w[0],
                w[1]
            );
        }
        assert!(
            (length(&path.cells) - path.cost).abs() < EPS,
            "{file} {start} -> {goal}: the cost is the length"
        );
        assert!(
            path.cost <= optimal + 0.01,
            "{file} {start} -> {goal}: {} above the optimum {optimal}",
            path.cost
        );
    }
}
