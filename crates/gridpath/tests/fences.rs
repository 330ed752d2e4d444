//! Fences (`Grid::set_fence`): every exact search, the flow fields and the incremental planner
//! against a reference Dijkstra over `Grid::step_cost` on random grids with walls, water,
//! terrain costs and fences, under every movement rule; large bodies never straddle or cross
//! a fence.

mod common;

use common::{arb_rules, reference_cost};
use gridpath::{
    Algorithm, FieldKind, FlowField, Grid, GridError, Incremental, Pos, Rules, SearchError, Searcher,
    Settings, SubgoalGraph, Tile,
};
use proptest::prelude::*;

const EPS: f64 = 1e-6;

/// A random grid with walls, some water and terrain costs (or none), and fences on random cell
/// sides; plus some tile edits to make afterwards.
fn arb_fenced() -> impl Strategy<Value = (Grid, Vec<(Pos, Tile)>)> {
    (2u32..=40, 2u32..=30, 0u32..=30, 0u32..=60, any::<bool>(), any::<u64>()).prop_map(
        |(w, h, density, fence_share, costs, seed)| {
            let mut state = seed | 1;
            let mut next = move || {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state
            };
            let mut pick = |n: u32| u32::try_from(next() % u64::from(n)).unwrap();
            let mut grid = Grid::new(w, h).unwrap();
            for p in grid.positions().collect::<Vec<_>>() {
                let r = pick(100);
                let tile = if r < density {
                    Tile::Wall
                } else if r < density + 4 {
                    Tile::Water { cost: 1 }
                } else if costs && r > 90 {
                    Tile::Ground { cost: [2, 3, 7][pick(3) as usize] }
                } else {
                    Tile::FLOOR
                };
                grid.set_tile(p, tile).unwrap();
            }
            // Fences in runs, as cliff edges come, and single ones.
            let mut fences = Vec::new();
            for _ in 0..(w * h * fence_share / 400) {
                let (mut x, mut y) = (pick(w), pick(h));
                let east = pick(2) == 0;
                for _ in 0..=pick(6) {
                    let other = if east { Pos::new(x + 1, y) } else { Pos::new(x, y + 1) };
                    if other.x < w && other.y < h {
                        fences.push((Pos::new(x, y), other, true));
                    }
                    if east {
                        y += 1;
                    } else {
                        x += 1;
                    }
                    if x >= w || y >= h {
                        break;
                    }
                }
            }
            grid.set_fences(&fences).unwrap();
            let edits = (0..6)
                .map(|_| (Pos::new(pick(w), pick(h)), if pick(2) == 0 { Tile::Wall } else { Tile::FLOOR }))
                .collect();
            (grid, edits)
        },
    )
}

/// Every exact search agrees with the reference from `start` to `goal`, and walks a legal path.
fn check_searches(grid: &Grid, rules: Rules, start: Pos, goal: Pos) -> Result<(), TestCaseError> {
    let want = reference_cost(grid, start, goal, rules);
    for algorithm in Algorithm::ALL {
        let settings = Settings { algorithm, rules, ..Settings::default() };
        if algorithm.check(grid, &settings).is_err() || !algorithm.is_optimal(grid, &settings) {
            continue;
        }
        for bits in [true, false] {
            let mut searcher = Searcher::new();
            searcher.set_jump_bits(bits);
            let got = searcher.find_path(grid, start, goal, &settings);
            match (want, got) {
                (None, Err(_)) => {}
                (Some(want), Ok(path)) => {
                    let walked = grid.path_cost(&path.cells, rules);
                    prop_assert!(walked.is_ok(), "{algorithm}: illegal step {walked:?}");
                    prop_assert!(
                        (walked.unwrap() - want).abs() < EPS && (path.cost - want).abs() < EPS,
                        "{algorithm} (jump bits {bits}) {} from {start} to {goal}, optimum {want}",
                        path.cost
                    );
                    prop_assert_eq!(path.cells.first(), Some(&start));
                    prop_assert_eq!(path.cells.last(), Some(&goal));
                }
                (want, got) => prop_assert!(false, "{algorithm}: reference {want:?}, got {got:?}"),
            }
        }
    }
    // The subgoal graph, where it answers (8 moves without corner cutting, uniform cost).
    let settings = Settings { rules, ..Settings::default() };
    if SubgoalGraph::check(grid, &settings).is_ok() {
        match (want, SubgoalGraph::build(grid).find_path(grid, start, goal, &settings)) {
            (None, Err(_)) => {}
            (Some(want), Ok(path)) => {
                let walked = grid.path_cost(&path.cells, rules);
                prop_assert!(walked.is_ok(), "subgoal graph: illegal step {walked:?}");
                prop_assert!(
                    (path.cost - want).abs() < EPS && (walked.unwrap() - want).abs() < EPS,
                    "subgoal graph {} from {start} to {goal}, optimum {want}",
                    path.cost
                );
            }
            (want, got) => prop_assert!(false, "subgoal graph: reference {want:?}, got {got:?}"),
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// A*, Dijkstra, JPS (with and without jump bits), bidirectional search and BFS where it is
    /// exact, the subgoal graph, the cost field and the incremental planner, before and after
    /// tile edits.
    #[test]
    fn exact_methods_respect_fences(
        (mut grid, edits) in arb_fenced(),
        rules in arb_rules(),
        ends in prop::collection::vec((any::<u32>(), any::<u32>(), any::<u32>(), any::<u32>()), 3),
    ) {
        let at = |grid: &Grid, x: u32, y: u32| Pos::new(x % grid.width(), y % grid.height());
        let (s0, g0) = (at(&grid, ends[0].0, ends[0].1), at(&grid, ends[0].2, ends[0].3));
        let mut planner = Incremental::new(&grid, s0, g0, rules).unwrap();
        for round in 0..2 {
            for &(x0, y0, x1, y1) in &ends {
                check_searches(&grid, rules, at(&grid, x0, y0), at(&grid, x1, y1))?;
            }
            // The incremental planner, repaired after the edits.
            let want = reference_cost(&grid, s0, g0, rules);
            match (want, planner.plan(&grid)) {
                (None, Err(_)) => {}
                (Some(want), Ok(path)) => {
                    prop_assert!((path.cost - want).abs() < EPS, "incremental {} against {want}", path.cost);
                    prop_assert!(grid.path_cost(&path.cells, rules).is_ok());
                }
                (want, got) => prop_assert!(false, "incremental: reference {want:?}, got {got:?}"),
            }
            // The cost field: every cell's distance is the reference's.
            if let Ok(field) = FlowField::dijkstra(&grid, g0, rules) {
                for p in grid.positions().step_by(7) {
                    let want = reference_cost(&grid, p, g0, rules);
                    let got = field.distance(p);
                    prop_assert!(
                        match (want, got) {
                            (None, None) => true,
                            (Some(a), Some(b)) => (a - b).abs() < EPS,
                            _ => false,
                        },
                        "field at {p} toward {g0}: {got:?}, reference {want:?} (round {round})"
                    );
                }
            }
            if round == 0 {
                grid.set_tiles(&edits).unwrap();
                planner.update_cells(&grid, &edits.iter().map(|&(p, _)| p).collect::<Vec<_>>());
            }
        }
    }

    /// A body of 2 × 2 to 4 × 4 cells never stands across a fence and never crosses one or
    /// passes a post: every cell of it makes a legal step of the original grid at every step of
    /// its route, under every rule.
    #[test]
    fn large_bodies_never_cross_fences(
        (grid, _) in arb_fenced(),
        size in 2u8..=4,
        rules in arb_rules(),
        ends in (any::<u32>(), any::<u32>(), any::<u32>(), any::<u32>()),
    ) {
        let at = |x: u32, y: u32| Pos::new(x % grid.width(), y % grid.height());
        let (start, goal) = (at(ends.0, ends.1), at(ends.2, ends.3));
        let settings = Settings { agent_size: size, rules, ..Settings::default() };
        let Ok(path) = Searcher::new().find_path(&grid, start, goal, &settings) else {
            return Ok(());
        };
        let k = u32::from(size);
        for w in path.cells.windows(2) {
            let (dx, dy) = (i64::from(w[1].x) - i64::from(w[0].x), i64::from(w[1].y) - i64::from(w[0].y));
            for by in 0..k {
                for bx in 0..k {
                    let from = Pos::new(w[0].x + bx, w[0].y + by);
                    let to = Pos::new(
                        u32::try_from(i64::from(from.x) + dx).unwrap(),
                        u32::try_from(i64::from(from.y) + dy).unwrap(),
                    );
                    prop_assert!(grid.can_step(from, to, rules), "body cell {from} -> {to} on step {w:?}");
                }
            }
        }
    }
}

/// The fence API: symmetric sides, posts that block diagonals, errors that change nothing, the
/// methods that cannot see fences say so, and a subgoal graph rebuilds when fences change.
#[test]
fn fences_block_sides_and_the_diagonals_through_their_posts() {
    let mut grid = Grid::new(4, 4).unwrap();
    let (a, b) = (Pos::new(1, 1), Pos::new(2, 1));
    let revision = grid.revision();
    assert_eq!(grid.set_fence(a, b, true), Ok(false));
    assert!(grid.revision() > revision);
    assert!(grid.is_fenced(a, b) && grid.is_fenced(b, a) && grid.has_fences());
    assert!(!grid.can_step(a, b, Rules::OCTILE) && !grid.can_step(b, a, Rules::FOUR));
    // The fence's posts stand on the corners (2,1)-(2,2) of the cells' sides: diagonals through
    // either end are blocked, under every corner rule; those beside it are not.
    for rules in [Rules::OCTILE, Rules::eight(gridpath::Corners::Allow)] {
        assert!(!grid.can_step(Pos::new(1, 0), Pos::new(2, 1), rules), "through the top post");
        assert!(!grid.can_step(Pos::new(1, 2), Pos::new(2, 1), rules), "through the bottom post");
        assert!(!grid.can_step(Pos::new(1, 1), Pos::new(2, 2), rules));
        assert!(grid.can_step(Pos::new(0, 0), Pos::new(1, 1), rules));
    }
    assert!(grid.can_step(Pos::new(1, 0), Pos::new(2, 0), Rules::OCTILE), "along it, above");
    // Walking round it: up, across, down, with no diagonal through a post.
    let path = Searcher::new().find_path(&grid, a, b, &Settings::default()).unwrap();
    assert!((path.cost - 3.0).abs() < EPS, "{}", path.cost);
    // Errors leave the grid as it was.
    let before = grid.clone();
    assert!(matches!(grid.set_fence(a, Pos::new(2, 2), true), Err(GridError::NotSideBySide { .. })));
    assert!(matches!(grid.set_fence(a, Pos::new(9, 1), true), Err(GridError::OutOfBounds { .. })));
    assert!(grid.set_fences(&[(a, Pos::new(1, 2), true), (a, a, true)]).is_err());
    assert!(grid == before);
    // Searches that read lines through cells refuse, with the reason.
    let theta = Settings::with_algorithm(Algorithm::Theta);
    assert!(matches!(
        Searcher::new().find_path(&grid, Pos::new(0, 0), Pos::new(3, 3), &theta),
        Err(SearchError::Unsupported { .. })
    ));
    assert!(!grid.line_of_sight(a, Pos::new(3, 1), Rules::OCTILE));
    let mut graph = SubgoalGraph::build(&grid);
    assert!((graph.find_path(&grid, a, b, &Settings::default()).unwrap().cost - 3.0).abs() < EPS);
    // A 2 x 2 body cutting corners still cannot pass a post (the review's case): a fence
    // between (1,0) and (2,0) blocks the body's step (0,0) -> (1,1), whose cell (1,0) would
    // pass the post at the fence's lower end.
    let mut small = Grid::new(4, 3).unwrap();
    small.set_fence(Pos::new(1, 0), Pos::new(2, 0), true).unwrap();
    for corners in [gridpath::Corners::Forbid, gridpath::Corners::AllowOne, gridpath::Corners::Allow] {
        let settings = Settings { agent_size: 2, rules: Rules::eight(corners), ..Settings::default() };
        let path = Searcher::new().find_path(&small, Pos::new(0, 0), Pos::new(1, 1), &settings).unwrap();
        assert!((path.cost - 2.0).abs() < EPS, "{corners:?}: {:?}", path.cells);
    }
    // Filling the grid keeps its fences: they stand between cells.
    let mut filled = grid.clone();
    filled.fill(Tile::FLOOR).unwrap();
    assert!(filled.is_fenced(a, b) && !filled.can_step(a, b, Rules::OCTILE));
    // Taking it down restores the plain grid.
    assert_eq!(grid.set_fence(b, a, false), Ok(true));
    assert!((graph.find_path(&grid, a, b, &Settings::default()).unwrap().cost - 1.0).abs() < EPS);
    assert!(!grid.has_fences() && grid.can_step(a, b, Rules::OCTILE));
    let field = FlowField::for_agent(FieldKind::Cost, &grid, b, Rules::OCTILE, 1).unwrap();
    assert_eq!(field.distance(a), Some(1.0));
}
