//! Every search against an independent reference Dijkstra/BFS: fixed tutorial maps, error
//! cases, tracing, and property tests on random grids.

mod common;

use common::{arb_rules, reference_cost, reference_steps};
use gridpath::formats::{parse_ascii, parse_digits};
use gridpath::{
    Algorithm, Corners, Endpoint, FlowField, Grid, Heuristic, Moves, Outcome, Pos, Rules, SQRT2, SearchError,
    Searcher, Settings, Tile, TraceEvent,
};
use proptest::prelude::*;

const EPS: f64 = 1e-6;

/// The 10×10 map of the Unity/cocos2d-x tutorials' kind: a wall with one way round at the top.
const TUTORIAL: &str = "\
0,0,0,0,0,0,0,0,0,0
0,3,0,0,1,0,0,0,0,0
0,0,0,0,1,0,0,0,0,0
0,0,0,0,1,0,0,0,0,0
0,0,0,0,1,0,0,4,0,0
0,0,0,0,1,0,0,0,0,0
0,0,0,0,1,1,1,1,0,0
0,0,0,0,0,0,0,0,0,0
0,0,0,0,0,0,0,0,0,0
0,0,0,0,0,0,0,0,0,0
";

fn settings(algorithm: Algorithm, rules: Rules) -> Settings {
    Settings { algorithm, rules, ..Settings::default() }
}

#[test]
fn tutorial_map_gives_the_hand_computed_shortest_paths() {
    let map = parse_digits(TUTORIAL).unwrap();
    let (start, goal) = (map.start.unwrap(), map.goal.unwrap());
    let mut searcher = Searcher::new();
    // 4-connected: up one, along the top row past the wall, down four: 1 + 6 + 4.
    for algorithm in [
        Algorithm::AStar,
        Algorithm::Dijkstra,
        Algorithm::Bfs,
        Algorithm::Bidirectional,
        Algorithm::Wavefront,
    ] {
        let path = searcher.find_path(&map.grid, start, goal, &settings(algorithm, Rules::FOUR)).unwrap();
        assert!(
            (path.cost - 11.0).abs() < EPS,
            "{algorithm}: 4-connected cost must be 11, got {}",
            path.cost
        );
        assert_eq!(path.cells.len(), 12, "{algorithm}: 11 steps");
    }
    // 8-connected, no corner cutting: one diagonal to the top row, three straight, then
    // (5,0) -> (7,4) = 2 straight + 2 diagonal.
    for algorithm in [Algorithm::AStar, Algorithm::Dijkstra, Algorithm::Jps, Algorithm::Bidirectional] {
        let path = searcher.find_path(&map.grid, start, goal, &settings(algorithm, Rules::OCTILE)).unwrap();
        let want = 5.0 + 3.0 * SQRT2;
        assert!((path.cost - want).abs() < EPS, "{algorithm}: octile cost must be 5+3√2, got {}", path.cost);
        assert!(map.grid.path_cost(&path.cells, Rules::OCTILE).is_ok(), "{algorithm}: path must be legal");
    }
}

#[test]
fn start_equal_to_goal_is_a_one_cell_path() {
    let grid = Grid::new(3, 3).unwrap();
    for algorithm in Algorithm::ALL {
        let p = Pos::new(1, 1);
        let path = Searcher::new().find_path(&grid, p, p, &Settings::with_algorithm(algorithm)).unwrap();
        assert_eq!((path.cells, path.cost), (vec![p], 0.0), "{algorithm}");
    }
}

#[test]
fn bad_queries_are_typed_errors() {
    let map = parse_ascii("S.#.\n..#G\n").unwrap();
    let (start, goal) = (map.start.unwrap(), map.goal.unwrap());
    let mut s = Searcher::new();
    for algorithm in Algorithm::ALL {
        let set = Settings::with_algorithm(algorithm);
        let err = s.find_path(&map.grid, start, goal, &set).unwrap_err();
        assert!(
            matches!(err, SearchError::NoPath { .. }),
            "{algorithm}: walled-off goal must be NoPath, got {err}"
        );
        let err = s.find_path(&map.grid, Pos::new(2, 0), goal, &set).unwrap_err();
        assert!(matches!(err, SearchError::Blocked { which: Endpoint::Start, .. }), "{algorithm}: {err}");
        let err = s.find_path(&map.grid, start, Pos::new(4, 0), &set).unwrap_err();
        assert!(matches!(err, SearchError::OutOfBounds { which: Endpoint::Goal, .. }), "{algorithm}: {err}");
        assert_eq!(err.to_string(), "the goal (4,0) is outside the 4x2 map");
    }
    let err =
        s.find_path(&map.grid, start, start, &Settings { weight: 0.5, ..Settings::default() }).unwrap_err();
    assert!(matches!(err, SearchError::BadWeight(_)), "{err}");
    let jps4 = Settings { algorithm: Algorithm::Jps, rules: Rules::FOUR, ..Settings::default() };
    let err = s.find_path(&map.grid, start, Pos::new(1, 1), &jps4).unwrap_err();
    assert!(matches!(err, SearchError::Unsupported { algorithm: Algorithm::Jps, .. }), "{err}");
    // Terrain costs are no longer refused (issue 24): JPS answers as Dijkstra does, and still
    // types the errors above.
    let mut mud = map.grid.clone();
    mud.set_tile(Pos::new(1, 0), Tile::Ground { cost: 5 }).unwrap();
    let jps = Settings::with_algorithm(Algorithm::Jps);
    for goal in [Pos::new(1, 1), Pos::new(1, 0)] {
        let path = s.find_path(&mud, start, goal, &jps).unwrap();
        let want = s.find_path(&mud, start, goal, &Settings::with_algorithm(Algorithm::Dijkstra)).unwrap();
        assert!((path.cost - want.cost).abs() < EPS, "JPS {} against Dijkstra {}", path.cost, want.cost);
        assert!(mud.path_cost(&path.cells, Rules::OCTILE).is_ok_and(|c| (c - path.cost).abs() < EPS));
    }
    assert!((s.find_path(&mud, start, Pos::new(1, 0), &jps).unwrap().cost - 5.0).abs() < EPS, "into the mud");
    let err = s.find_path(&mud, start, goal, &jps).unwrap_err();
    assert!(matches!(err, SearchError::NoPath { .. }), "{err}");
}

#[test]
fn jps_goes_round_the_mud_as_dijkstra_does() {
    // A wall of mud (cost 10) across the top two rows of open ground: straight through costs
    // 10 more per mud cell, round it below costs a few steps. Uniform JPS would jump straight
    // at the goal through the mud; the weighted jumps stop at the mud's edge and find the way
    // round: (0,0) -> (2,2) diagonally, along the bottom row, and up to (6,0).
    let mut grid = Grid::new(7, 3).unwrap();
    for y in 0..2 {
        grid.set_tile(Pos::new(3, y), Tile::Ground { cost: 10 }).unwrap();
    }
    let mut s = Searcher::new();
    let (start, goal) = (Pos::new(0, 0), Pos::new(6, 0));
    let jps = s.find_path(&grid, start, goal, &Settings::with_algorithm(Algorithm::Jps)).unwrap();
    let dijkstra = s.find_path(&grid, start, goal, &settings(Algorithm::Dijkstra, Rules::OCTILE)).unwrap();
    assert!((jps.cost - (2.0 + 4.0 * SQRT2)).abs() < EPS, "round the mud: 2 + 4√2, got {}", jps.cost);
    assert!((jps.cost - dijkstra.cost).abs() < EPS);
    assert!(grid.path_cost(&jps.cells, Rules::OCTILE).is_ok());
    assert!(jps.cells.iter().all(|p| grid.tile(*p) == Some(Tile::FLOOR)), "no mud: {:?}", jps.cells);
    // Inside the one uniform region it still jumps: the start and the goal only.
    let open = s.find_path(&grid, Pos::new(4, 0), Pos::new(6, 2), &Settings::with_algorithm(Algorithm::Jps));
    assert_eq!(open.unwrap().stats.expanded, 2);
}

#[test]
fn water_connects_only_to_water() {
    let mut grid = Grid::new(4, 1).unwrap();
    grid.set_tile(Pos::new(2, 0), Tile::Water { cost: 1 }).unwrap();
    grid.set_tile(Pos::new(3, 0), Tile::Water { cost: 1 }).unwrap();
    let mut s = Searcher::new();
    let err = s.find_path(&grid, Pos::new(0, 0), Pos::new(3, 0), &Settings::default()).unwrap_err();
    assert!(matches!(err, SearchError::TerrainClasses { .. }), "ground to water: {err}");
    assert_eq!(
        err.to_string(),
        "no path from (0,0) to (3,0): the start is on ground, the goal in water, and water connects only to water"
    );
    let p = s.find_path(&grid, Pos::new(2, 0), Pos::new(3, 0), &Settings::default()).unwrap();
    assert_eq!(p.cells.len(), 2, "water to water");
}

#[test]
fn terrain_cost_is_charged_on_entering_a_cell() {
    // Straight through the mud (cost 5) costs 1 + 5 = 6; round it costs 4 cardinal steps.
    let mut grid = Grid::new(3, 2).unwrap();
    grid.set_tile(Pos::new(1, 0), Tile::Ground { cost: 5 }).unwrap();
    let p = Searcher::new()
        .find_path(&grid, Pos::new(0, 0), Pos::new(2, 0), &settings(Algorithm::Dijkstra, Rules::FOUR))
        .unwrap();
    assert!((p.cost - 4.0).abs() < EPS, "must go round the mud, cost {}", p.cost);
    assert_eq!(grid.step_cost(Pos::new(0, 0), Pos::new(1, 0), Rules::FOUR), Some(5.0));
    assert_eq!(grid.step_cost(Pos::new(1, 0), Pos::new(0, 0), Rules::FOUR), Some(1.0));
}

#[test]
fn corner_rules_differ_as_documented() {
    // From (0,1) to (1,0) diagonally with (0,0) a wall: only AllowOne and Allow permit it.
    let grid = parse_ascii("#.\n..").unwrap().grid;
    let (a, b) = (Pos::new(0, 1), Pos::new(1, 0));
    assert!(!grid.can_step(a, b, Rules::eight(Corners::Forbid)));
    assert!(grid.can_step(a, b, Rules::eight(Corners::AllowOne)));
    assert!(grid.can_step(a, b, Rules::eight(Corners::Allow)));
    let squeeze = parse_ascii("#.\n.#").unwrap().grid;
    assert!(!squeeze.can_step(a, b, Rules::eight(Corners::AllowOne)), "both blocked: AllowOne refuses");
    assert!(squeeze.can_step(a, b, Rules::eight(Corners::Allow)), "Allow squeezes through");
    assert!(
        !grid.can_step(Pos::new(1, 1), Pos::new(0, 0), Rules::eight(Corners::Allow)),
        "never into a wall"
    );
    assert!(!grid.can_step(a, b, Rules::FOUR), "no diagonals with 4 moves");
}

#[test]
fn astar_prefers_lower_h_on_equal_f() {
    // On an open row every cell toward the goal has the same f; the lower-h tie-break walks
    // straight at it, expanding only the cells on the path.
    let grid = Grid::new(20, 1).unwrap();
    let p = Searcher::new().find_path(&grid, Pos::new(0, 0), Pos::new(19, 0), &Settings::default()).unwrap();
    assert_eq!(p.stats.expanded, 20, "only the path's cells are expanded");
}

#[test]
fn wavefront_field_matches_the_hand_checked_table() {
    let grid = parse_ascii(".....\n.##..\n..#..\n....G\n").unwrap().grid;
    let field = FlowField::wavefront(&grid, Pos::new(4, 3), Rules::eight(Corners::Allow)).unwrap();
    let table: Vec<Vec<u32>> =
        (0..4).map(|y| (0..5).map(|x| field.step_number(Pos::new(x, y)).unwrap_or(0)).collect()).collect();
    assert_eq!(
        table,
        vec![vec![6, 5, 4, 4, 4], vec![5, 0, 0, 3, 3], vec![5, 4, 0, 2, 2], vec![5, 4, 3, 2, 1]],
        "goal numbered 1, each BFS layer one more, walls 0"
    );
    // Walking downhill from any cell reaches the goal in (number - 1) steps.
    let path = field.path_from(Pos::new(0, 0)).unwrap();
    assert_eq!(path.len(), 6);
    assert!(grid.path_cost(&path, Rules::eight(Corners::Allow)).is_ok());
}

#[test]
fn tracing_reports_opens_and_closes_in_order_and_changes_nothing() {
    let map = parse_digits(TUTORIAL).unwrap();
    let (start, goal) = (map.start.unwrap(), map.goal.unwrap());
    for algorithm in Algorithm::ALL {
        let set = Settings::with_algorithm(algorithm);
        let mut events: Vec<TraceEvent> = Vec::new();
        let mut s = Searcher::new();
        let traced = s.find_path_traced(&map.grid, start, goal, &set, &mut events).unwrap();
        let plain = s.find_path(&map.grid, start, goal, &set).unwrap();
        assert_eq!(traced, plain, "{algorithm}: tracing must not change the result");
        let closed = events.iter().filter(|e| matches!(e, TraceEvent::Closed { .. })).count();
        assert_eq!(closed as u64, plain.stats.expanded, "{algorithm}: one Closed event per expansion");
        assert!(
            matches!(events[0], TraceEvent::Opened { pos, .. } if pos == start || algorithm == Algorithm::Wavefront)
        );
        // Every closed cell was opened before.
        let mut opened = std::collections::HashSet::new();
        for e in &events {
            match *e {
                TraceEvent::Opened { pos, .. } => {
                    opened.insert(pos);
                }
                TraceEvent::Closed { pos } => {
                    assert!(opened.contains(&pos), "{algorithm}: {pos} closed before opened");
                }
                _ => {}
            }
        }
        if algorithm == Algorithm::Jps {
            assert!(
                events.iter().any(|e| matches!(e, TraceEvent::JumpPoint { .. })),
                "JPS reports jump points"
            );
            // The jump bits change no event: a replay shows the same search either way.
            let mut online_events: Vec<TraceEvent> = Vec::new();
            s.set_jump_bits(false);
            let online = s.find_path_traced(&map.grid, start, goal, &set, &mut online_events).unwrap();
            assert_eq!((online, online_events), (plain, events), "JPS without jump bits");
        }
    }
}

#[test]
fn grid_edits_between_queries_are_seen() {
    let mut grid = Grid::new(5, 3).unwrap();
    let mut s = Searcher::new();
    let (a, b) = (Pos::new(0, 1), Pos::new(4, 1));
    let before = s.find_path(&grid, a, b, &Settings::default()).unwrap();
    assert!((before.cost - 4.0).abs() < EPS);
    let rev = grid.revision();
    for y in 0..3 {
        grid.set_wall(Pos::new(2, y), y != 0).unwrap();
    }
    assert!(grid.revision() > rev);
    let after = s.find_path(&grid, a, b, &Settings::default()).unwrap();
    assert!(after.cells.iter().all(|p| grid.is_passable(*p)), "re-planned path must avoid the new walls");
    assert!((after.cost - (2.0 + 2.0 * SQRT2)).abs() < EPS, "{}", after.cost);
}

/// A random grid: size, walls, terrain costs and a little water.
fn arb_grid() -> impl Strategy<Value = Grid> {
    (1u32..=64, 1u32..=64, 0u32..=45, any::<bool>(), any::<u64>()).prop_map(
        |(w, h, density, terrain, seed)| {
            let mut grid = Grid::new(w, h).unwrap();
            let mut state = seed | 1;
            let mut next = move || {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state
            };
            for p in grid.positions() {
                let r = u32::try_from(next() % 100).unwrap();
                let tile = if r < density {
                    Tile::Wall
                } else if terrain && r >= 97 {
                    Tile::Water { cost: 1 }
                } else if terrain && r >= 80 {
                    Tile::Ground { cost: [2, 5, 10][usize::try_from(next() % 3).unwrap()] }
                } else {
                    Tile::FLOOR
                };
                grid.set_tile(p, tile).unwrap();
            }
            grid
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn every_search_agrees_with_the_reference(
        grid in arb_grid(),
        rules in arb_rules(),
        heuristic in prop::sample::select(Heuristic::ALL.to_vec()),
        ends in (any::<u32>(), any::<u32>(), any::<u32>(), any::<u32>()),
    ) {
        let start = Pos::new(ends.0 % grid.width(), ends.1 % grid.height());
        let goal = Pos::new(ends.2 % grid.width(), ends.3 % grid.height());
        let want = reference_cost(&grid, start, goal, rules);
        let steps = reference_steps(&grid, start, goal, rules);
        let mut s = Searcher::new();
        for algorithm in Algorithm::ALL {
            let set = Settings { algorithm, rules, heuristic, ..Settings::default() };
            if algorithm.check(&grid, &set).is_err() {
                continue;
            }
            let got = s.find_path(&grid, start, goal, &set);
            match (want, &got) {
                (None, Err(_)) => {}
                (Some(want), Ok(path)) if algorithm.is_any_angle() => {
                    // Turning points in sight of each other; on uniform cost never longer than
                    // the octile optimum.
                    let legal = grid.any_angle_cost(&path.cells, rules);
                    prop_assert!(legal.is_ok(), "{algorithm}: segment without sight {:?}", legal);
                    prop_assert!((legal.unwrap() - path.cost).abs() < EPS, "{algorithm}: reported cost");
                    prop_assert_eq!(path.cells.first(), Some(&start));
                    prop_assert_eq!(path.cells.last(), Some(&goal));
                    if grid.has_uniform_cost() {
                        prop_assert!(path.cost <= want + EPS, "{algorithm}: {} above the octile {want}", path.cost);
                    }
                }
                (Some(want), Ok(path)) => {
                    let legal = grid.path_cost(&path.cells, rules);
                    prop_assert!(legal.is_ok(), "{algorithm}: illegal path {:?}", legal);
                    prop_assert_eq!(path.cells.first(), Some(&start));
                    prop_assert_eq!(path.cells.last(), Some(&goal));
                    prop_assert!((legal.unwrap() - path.cost).abs() < EPS, "{algorithm}: reported cost is the path's cost");
                    if algorithm.is_optimal(&grid, &set) {
                        prop_assert!((path.cost - want).abs() < EPS, "{algorithm} {heuristic:?} {rules:?}: cost {} but optimum {want}", path.cost);
                    } else {
                        prop_assert!(path.cost >= want - EPS, "{algorithm}: below the optimum?");
                    }
                    if matches!(algorithm, Algorithm::Bfs | Algorithm::Wavefront) {
                        prop_assert_eq!(Some(path.cells.len() - 1), steps, "{} finds the fewest steps", algorithm);
                    }
                }
                _ => prop_assert!(false, "{algorithm}: reference {want:?}, got {got:?}"),
            }
        }
        // JPS equals A* wherever it applies.
        if rules == Rules::OCTILE && grid.has_uniform_cost() {
            let a = s.find_path(&grid, start, goal, &Settings::default()).map(|p| p.cost).ok();
            let j = s.find_path(&grid, start, goal, &Settings::with_algorithm(Algorithm::Jps)).map(|p| p.cost).ok();
            prop_assert_eq!(a.is_some(), j.is_some());
            if let (Some(a), Some(j)) = (a, j) {
                prop_assert!((a - j).abs() < EPS, "JPS {j} != A* {a}");
            }
            // The jump bits only skip scans that find nothing: without them, the same path
            // and the same work.
            let jps = Settings::with_algorithm(Algorithm::Jps);
            let mut online = Searcher::new();
            online.set_jump_bits(false);
            let with = s.find_path(&grid, start, goal, &jps).map(|p| (p.cells, p.stats)).ok();
            let without = online.find_path(&grid, start, goal, &jps).map(|p| (p.cells, p.stats)).ok();
            prop_assert_eq!(with, without);
        }
    }

    #[test]
    fn flow_fields_agree_with_the_reference(grid in arb_grid(), rules in arb_rules(), g in (any::<u32>(), any::<u32>())) {
        let goal = Pos::new(g.0 % grid.width(), g.1 % grid.height());
        let Ok(cost_field) = FlowField::dijkstra(&grid, goal, rules) else {
            prop_assert!(!grid.is_passable(goal));
            return Ok(());
        };
        let step_field = FlowField::wavefront(&grid, goal, rules).unwrap();
        for p in grid.positions().step_by(7) {
            let want = reference_cost(&grid, p, goal, rules);
            prop_assert_eq!(cost_field.distance(p).is_some(), want.is_some());
            if let (Some(d), Some(w)) = (cost_field.distance(p), want) {
                prop_assert!((d - w).abs() < EPS, "field {d} != reference {w} at {p}");
                let path = cost_field.path_from(p).unwrap();
                let c = grid.path_cost(&path, rules);
                prop_assert!(c.is_ok(), "flow path must be legal");
                prop_assert!((c.unwrap() - w).abs() < EPS, "following next steps costs the distance");
                let steps = reference_steps(&grid, p, goal, rules).unwrap();
                prop_assert_eq!(step_field.step_number(p), Some(u32::try_from(steps).unwrap() + 1));
            }
        }
    }

    #[test]
    fn corners_are_the_routes_turns(
        grid in arb_grid(),
        rules in arb_rules(),
        ends in (any::<u32>(), any::<u32>(), any::<u32>(), any::<u32>()),
        (agent_size, partial) in (1u8..=3, any::<bool>()),
    ) {
        let start = Pos::new(ends.0 % grid.width(), ends.1 % grid.height());
        let goal = Pos::new(ends.2 % grid.width(), ends.3 % grid.height());
        let (mut cells, mut corners) = (Vec::new(), Vec::new());
        for online in [false, true] {
            let mut s = Searcher::new();
            s.set_jump_bits(!online);
            for algorithm in Algorithm::ALL {
                let set = Settings { algorithm, rules, agent_size, partial, ..Settings::default() };
                let full = s.find_path_into(&grid, start, goal, &set, &mut cells);
                let turns = s.find_corners_into(&grid, start, goal, &set, &mut corners);
                match (full, turns) {
                    (Ok((cost, stats, outcome)), Ok(got)) => {
                        // The same route, work and cost: only what is written differs.
                        prop_assert_eq!(&corners, &gridpath::sight::corners(&cells), "{} {:?}", algorithm, rules);
                        prop_assert_eq!((cost, stats, outcome), got);
                        if !algorithm.is_any_angle() {
                            prop_assert_eq!(&gridpath::sight::path_cells(&grid, &corners), &cells);
                        }
                    }
                    (Err(a), Err(b)) => prop_assert_eq!(a, b),
                    (a, b) => prop_assert!(false, "{algorithm}: cells {a:?}, corners {b:?}"),
                }
            }
        }
    }

    #[test]
    fn weighted_and_greedy_paths_stay_legal(grid in arb_grid(), w in 1.0f64..5.0, ends in (any::<u32>(), any::<u32>(), any::<u32>(), any::<u32>())) {
        let start = Pos::new(ends.0 % grid.width(), ends.1 % grid.height());
        let goal = Pos::new(ends.2 % grid.width(), ends.3 % grid.height());
        let want = reference_cost(&grid, start, goal, Rules::OCTILE);
        for algorithm in [Algorithm::AStar, Algorithm::Greedy] {
            let set = Settings { algorithm, weight: w, ..Settings::default() };
            let got = Searcher::new().find_path(&grid, start, goal, &set);
            prop_assert_eq!(got.is_ok(), want.is_some());
            if let Ok(p) = got {
                prop_assert!(grid.path_cost(&p.cells, Rules::OCTILE).is_ok());
                prop_assert!(p.cost >= want.unwrap() - EPS);
            }
        }
    }
}

#[test]
fn eight_moves_default_and_moves_enum_are_consistent() {
    assert_eq!(Settings::default().rules.moves, Moves::Eight);
    assert_eq!(Settings::default().rules.corners, Corners::Forbid);
}

/// A walled-in goal: with `partial` every algorithm walks to the reachable cell nearest the
/// goal and says so; without it, the error as before.
#[test]
fn partial_paths_stop_at_the_closest_reachable_cell() {
    let map = parse_ascii(
        "S.....#...\n\
         ......#.G.\n\
         ......#...",
    )
    .unwrap();
    let (start, goal) = (map.start.unwrap(), map.goal.unwrap());
    let mut s = Searcher::new();
    for algorithm in Algorithm::ALL {
        let exact = Settings::with_algorithm(algorithm);
        if algorithm.check(&map.grid, &exact).is_err() {
            continue;
        }
        assert!(
            matches!(s.find_path(&map.grid, start, goal, &exact), Err(SearchError::NoPath { .. })),
            "{algorithm}: no partial route unless asked"
        );
        let path = s.find_path(&map.grid, start, goal, &Settings { partial: true, ..exact }).unwrap();
        assert_eq!(path.outcome, Outcome::Partial { goal }, "{algorithm}: marked partial");
        assert_eq!(path.cells.last(), Some(&Pos::new(5, 1)), "{algorithm}: the cell nearest the goal");
        assert_eq!(path.cells.first(), Some(&start));
    }
    // A goal on a wall or in water: as close as the start's own class gets; a complete route
    // is marked complete.
    let mut grid = map.grid.clone();
    grid.set_tile(Pos::new(8, 1), Tile::Water { cost: 1 }).unwrap();
    let partial = Settings { partial: true, ..Settings::default() };
    for goal in [Pos::new(6, 0), Pos::new(8, 1)] {
        let path = s.find_path(&grid, start, goal, &partial).unwrap();
        assert!(path.outcome.is_partial(), "{goal}: partial");
        assert_eq!(path.cells.last(), Some(&Pos::new(5, if goal.y == 0 { 0 } else { 1 })), "{goal}");
    }
    let path = s.find_path(&grid, start, Pos::new(5, 2), &partial).unwrap();
    assert_eq!(path.outcome, Outcome::Complete, "a reachable goal gives a complete path");
    // Equally near cells: the cheaper route wins. The goal (3,1) is a wall; (3,0) and (3,2)
    // are both one cell from it, and whichever costs 9 to enter loses.
    let ring = parse_ascii("....\n..##\n....").unwrap().grid;
    for (dear, want) in [(Pos::new(3, 2), Pos::new(3, 0)), (Pos::new(3, 0), Pos::new(3, 2))] {
        let mut g = ring.clone();
        g.set_tile(dear, Tile::Ground { cost: 9 }).unwrap();
        let path = s.find_path(&g, Pos::new(0, 1), Pos::new(3, 1), &partial).unwrap();
        assert_eq!(path.cells.last(), Some(&want), "ties go to the cheaper route ({dear} costs 9)");
    }
    // A bad start stays an error.
    assert!(matches!(
        s.find_path(&grid, Pos::new(6, 0), goal, &partial),
        Err(SearchError::Blocked { which: Endpoint::Start, .. })
    ));
}

/// Brute force: the class of every cell of the `k` × `k` square from `p`, if they are all
/// passable and of one class.
fn body_class(grid: &Grid, p: Pos, k: u32) -> Option<u8> {
    let class = |t: Tile| match t {
        Tile::Wall => 0,
        Tile::Ground { .. } => 1,
        Tile::Water { .. } => 2,
        Tile::Trees { .. } => 3,
    };
    let own = class(grid.tile(p)?);
    let fits =
        (0..k).all(|dy| (0..k).all(|dx| grid.tile(Pos::new(p.x + dx, p.y + dy)).map(class) == Some(own)));
    (own != 0 && fits).then_some(own)
}

/// Brute force: the cells where a `k` × `k` body fits keep their tile, the others are walls.
fn brute_sized(grid: &Grid, k: u32) -> Grid {
    let mut sized = Grid::new(grid.width(), grid.height()).unwrap();
    for p in grid.positions() {
        let tile = if body_class(grid, p, k).is_some() { grid.tile(p).unwrap() } else { Tile::Wall };
        sized.set_tile(p, tile).unwrap();
    }
    sized
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Every cell's clearance equals the brute-force largest body, after random single and bulk
    /// edits (the incremental refresh) as after building.
    #[test]
    fn clearance_follows_every_edit(
        grid in arb_grid(),
        edits in prop::collection::vec((any::<u32>(), any::<u32>(), 0u8..4), 0..60),
        bulk in any::<bool>(),
    ) {
        let mut grid = grid;
        let tiles = [Tile::Wall, Tile::FLOOR, Tile::Water { cost: 1 }, Tile::Ground { cost: 3 }];
        let edits: Vec<(Pos, Tile)> = edits
            .iter()
            .map(|&(x, y, t)| (Pos::new(x % grid.width(), y % grid.height()), tiles[usize::from(t)]))
            .collect();
        if bulk {
            grid.set_tiles(&edits).unwrap();
        } else {
            for &(p, t) in &edits {
                grid.set_tile(p, t).unwrap();
            }
        }
        for p in grid.positions() {
            let want = (1..=u32::from(gridpath::MAX_AGENT_SIZE)).take_while(|&k| body_class(&grid, p, k).is_some()).last().unwrap_or(0);
            prop_assert_eq!(u32::from(grid.clearance(p)), want, "clearance at {}", p);
        }
    }

    /// Every algorithm with an agent of size 2 to 4 returns a route whose every step keeps the
    /// whole body on passable cells of one class (a diagonal: both squares and, by the corner
    /// rule, the orthogonal ones), and the optimal ones cost what Dijkstra costs on the
    /// brute-force grid of fitting cells; endpoints without room are named.
    #[test]
    fn large_agents_fit_through_every_step(
        grid in arb_grid(),
        rules in arb_rules(),
        k in 2u8..=4,
        ends in (any::<u32>(), any::<u32>(), any::<u32>(), any::<u32>()),
    ) {
        let start = Pos::new(ends.0 % grid.width(), ends.1 % grid.height());
        let goal = Pos::new(ends.2 % grid.width(), ends.3 % grid.height());
        let size = u32::from(k);
        let derived = brute_sized(&grid, size);
        let want = reference_cost(&derived, start, goal, rules);
        let fits = |p: Pos| body_class(&grid, p, size);
        let mut s = Searcher::new();
        for algorithm in Algorithm::ALL {
            let set = Settings { algorithm, rules, agent_size: k, ..Settings::default() };
            let got = s.find_path(&grid, start, goal, &set);
            match (&got, want) {
                (Err(SearchError::Unsupported { .. }), _) => continue,
                (Err(SearchError::NoRoom { which, pos, agent_size }), None) => {
                    prop_assert_eq!(*agent_size, k);
                    prop_assert!(fits(*pos).is_none(), "{algorithm}: {which} {pos} does fit");
                }
                (Err(_), None) => {}
                (Ok(path), Some(want)) => {
                    prop_assert_eq!(path.cells.first(), Some(&start));
                    prop_assert_eq!(path.cells.last(), Some(&goal));
                    if algorithm.is_any_angle() {
                        prop_assert!(derived.any_angle_cost(&path.cells, rules).is_ok(), "{algorithm}: segments fit");
                        continue;
                    }
                    for w in path.cells.windows(2) {
                        let (a, b) = (w[0], w[1]);
                        let class = fits(a);
                        prop_assert!(class.is_some() && fits(b) == class, "{algorithm}: body at {a} and {b}");
                        if a.x != b.x && a.y != b.y {
                            let sides = [fits(Pos::new(b.x, a.y)) == class, fits(Pos::new(a.x, b.y)) == class];
                            let ok = match rules.corners {
                                Corners::Forbid => sides[0] && sides[1],
                                Corners::AllowOne => sides[0] || sides[1],
                                Corners::Allow => true,
                            };
                            prop_assert!(ok, "{algorithm}: the body sweeps a blocked corner from {a} to {b}");
                        }
                    }
                    let cost = derived.path_cost(&path.cells, rules).unwrap();
                    prop_assert!((cost - path.cost).abs() < EPS, "{algorithm}: reported cost");
                    if algorithm.is_optimal(&derived, &set) {
                        prop_assert!((path.cost - want).abs() < EPS, "{algorithm}: {} but brute force {want}", path.cost);
                    }
                }
                _ => prop_assert!(false, "{algorithm}: brute force {want:?}, got {got:?}"),
            }
        }
        let field = FlowField::for_agent(gridpath::FieldKind::Cost, &grid, goal, rules, k);
        if let Ok(field) = field {
            for p in grid.positions().step_by(5) {
                let w = reference_cost(&derived, p, goal, rules);
                prop_assert_eq!(field.distance(p).is_some(), w.is_some(), "field reach at {}", p);
                if let (Some(d), Some(w)) = (field.distance(p), w) {
                    prop_assert!((d - w).abs() < EPS, "field {d} != brute force {w} at {p}");
                }
            }
        } else {
            prop_assert!(fits(goal).is_none(), "a field to a goal that fits");
        }
    }
}

#[test]
fn agent_size_errors_are_typed() {
    let grid = parse_ascii("S...\n....\n...#\n..G.").unwrap().grid;
    let mut s = Searcher::new();
    let set = |k| Settings { agent_size: k, ..Settings::default() };
    assert_eq!(
        s.find_path(&grid, Pos::new(0, 0), Pos::new(1, 1), &set(0)).unwrap_err(),
        SearchError::BadAgentSize(0)
    );
    assert_eq!(
        s.find_path(&grid, Pos::new(0, 0), Pos::new(1, 1), &set(5)).unwrap_err(),
        SearchError::BadAgentSize(5)
    );
    let err = s.find_path(&grid, Pos::new(0, 0), Pos::new(2, 3), &set(2)).unwrap_err();
    assert_eq!(err, SearchError::NoRoom { which: Endpoint::Goal, pos: Pos::new(2, 3), agent_size: 2 });
    assert!(err.to_string().contains("no room for an agent of 2x2"), "{err}");
    // With `partial` the body walks as close as it fits.
    let path =
        s.find_path(&grid, Pos::new(0, 0), Pos::new(2, 3), &Settings { partial: true, ..set(2) }).unwrap();
    assert!(path.outcome.is_partial());
    assert_eq!(path.cells.last(), Some(&Pos::new(1, 2)), "the nearest anchor the 2x2 body fits on");
}

/// A random grid with terrain painted in patches, as a map editor's brush leaves it: walls,
/// rectangles of several costs (ground, and water of its own costs), and single speckles, so
/// that the grid has both wide cost-uniform regions (where JPS jumps) and cost changes
/// everywhere (where it stops). The tiles drawn in `edits` are applied between queries.
fn arb_terrain() -> impl Strategy<Value = (Grid, Vec<(Pos, Tile)>)> {
    (1u32..=80, 1u32..=48, 0u32..=35, 0usize..=8, 0u32..=10, any::<u64>()).prop_map(
        |(w, h, density, patches, speckles, seed)| {
            let mut state = seed | 1;
            let mut next = move || {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state
            };
            let mut pick = |n: u64| usize::try_from(next() % n).unwrap();
            let costly = |k: usize| match k % 8 {
                0..=4 => Tile::Ground { cost: [2, 3, 5, 10, 63][k % 5] },
                5 => Tile::Water { cost: 1 },
                6 => Tile::Water { cost: 4 },
                _ => Tile::FLOOR,
            };
            let mut grid = Grid::new(w, h).unwrap();
            for _ in 0..patches {
                let (x0, y0) = (pick(w.into()), pick(h.into()));
                let (x1, y1) = (x0 + pick(w.into()) / 2, y0 + pick(h.into()) / 2);
                let tile = costly(pick(8));
                for y in y0..=y1.min(h as usize - 1) {
                    for x in x0..=x1.min(w as usize - 1) {
                        grid.set_tile(Pos::new(x as u32, y as u32), tile).unwrap();
                    }
                }
            }
            for p in grid.positions().collect::<Vec<_>>() {
                let r = u32::try_from(pick(100)).unwrap();
                if r < density {
                    grid.set_tile(p, Tile::Wall).unwrap();
                } else if r >= 100 - speckles {
                    grid.set_tile(p, costly(pick(8))).unwrap();
                }
            }
            let edits = (0..24)
                .map(|_| {
                    let p = Pos::new(
                        u32::try_from(pick(w.into())).unwrap(),
                        u32::try_from(pick(h.into())).unwrap(),
                    );
                    let tile = if pick(4) == 0 { Tile::Wall } else { costly(pick(8)) };
                    (p, tile)
                })
                .collect();
            (grid, edits)
        },
    )
}

/// Checks JPS on one query against the reference Dijkstra and A*: the same reachability, an
/// optimal cost, and a legal path from the start to the goal whose cost is the one reported;
/// and against JPS without its jump bits: the same path and work.
fn check_jps(grid: &Grid, start: Pos, goal: Pos, s: &mut Searcher) -> Result<(), TestCaseError> {
    let jps = Settings::with_algorithm(Algorithm::Jps);
    let got = s.find_path(grid, start, goal, &jps);
    let want = reference_cost(grid, start, goal, Rules::OCTILE);
    let astar = s.find_path(grid, start, goal, &Settings::default()).map(|p| p.cost).ok();
    prop_assert_eq!(want.is_some(), astar.is_some(), "A* and the reference disagree");
    match (want, &got) {
        (None, Err(_)) => {}
        (Some(want), Ok(path)) => {
            let legal = grid.path_cost(&path.cells, Rules::OCTILE);
            prop_assert!(legal.is_ok(), "illegal JPS path {:?}", legal);
            prop_assert_eq!(path.cells.first(), Some(&start));
            prop_assert_eq!(path.cells.last(), Some(&goal));
            prop_assert!((legal.unwrap() - path.cost).abs() < EPS, "reported {} vs walked", path.cost);
            prop_assert!(
                (path.cost - want).abs() < EPS,
                "JPS {} but optimum {want} from {start} to {goal}",
                path.cost
            );
            prop_assert!((path.cost - astar.unwrap()).abs() < EPS, "JPS {} but A* {astar:?}", path.cost);
        }
        _ => prop_assert!(false, "reference {want:?}, JPS {got:?}"),
    }
    // The jump bits (which count rough cells as jump points, kept by the edits) only skip
    // scans that find nothing: without them, the same path and the same work.
    let mut online = Searcher::new();
    online.set_jump_bits(false);
    let without = online.find_path(grid, start, goal, &jps).map(|p| (p.cells, p.stats)).ok();
    prop_assert_eq!(got.map(|p| (p.cells, p.stats)).ok(), without, "with and without jump bits");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// JPS on terrain costs is exact: on random maps painted with patches of several costs,
    /// walls and water, before and after random edits (each of which changes the rough cells
    /// its jumps stop at), its cost is Dijkstra's and A*'s and its path is legal. Under the
    /// other movement rules it is still refused, with the reason.
    #[test]
    fn jps_on_terrain_costs_is_exact(
        (mut grid, edits) in arb_terrain(),
        rules in arb_rules(),
        ends in prop::collection::vec((any::<u32>(), any::<u32>(), any::<u32>(), any::<u32>()), 3),
        batch in any::<bool>(),
    ) {
        let mut s = Searcher::new();
        let at = |grid: &Grid, x: u32, y: u32| Pos::new(x % grid.width(), y % grid.height());
        if rules != Rules::OCTILE {
            let set = Settings { algorithm: Algorithm::Jps, rules, ..Settings::default() };
            let (start, goal) = (at(&grid, ends[0].0, ends[0].1), at(&grid, ends[0].2, ends[0].3));
            if grid.is_passable(start) && grid.is_passable(goal) && start != goal {
                let err = s.find_path(&grid, start, goal, &set).unwrap_err();
                prop_assert!(matches!(err, SearchError::Unsupported { algorithm: Algorithm::Jps, .. }), "{err}");
            }
            return Ok(());
        }
        for (round, chunk) in edits.chunks(8).enumerate() {
            for &(x0, y0, x1, y1) in &ends {
                check_jps(&grid, at(&grid, x0, y0), at(&grid, x1, y1), &mut s)?;
            }
            // Edits between queries, one at a time or as one batch.
            if batch || round == 1 {
                grid.set_tiles(chunk).unwrap();
            } else {
                for &(p, tile) in chunk {
                    grid.set_tile(p, tile).unwrap();
                }
            }
        }
        for &(x0, y0, x1, y1) in &ends {
            check_jps(&grid, at(&grid, x0, y0), at(&grid, x1, y1), &mut s)?;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, ..ProptestConfig::default() })]

    /// JPS's diagonal rays skip runs of idle cells by counts its searcher works out for the
    /// grid and repairs after edits (`search/diagonal_skips.rs`): on open grids of one cost
    /// (long diagonal runs) with walls painted and erased between queries, one searcher keeps
    /// giving the optimum, and the same path and work as online JPS, which skips nothing.
    #[test]
    fn jps_diagonal_skips_stay_exact_across_edits(
        (w, h) in (20u32..70, 20u32..70),
        walls in prop::collection::vec((any::<u32>(), any::<u32>(), 1u32..12, any::<bool>()), 0..14),
        edits in prop::collection::vec((any::<u32>(), any::<u32>(), any::<bool>()), 1..24),
        ends in prop::collection::vec((any::<u32>(), any::<u32>(), any::<u32>(), any::<u32>()), 3),
    ) {
        let mut grid = Grid::new(w, h).unwrap();
        for (x, y, len, across) in walls {
            for k in 0..len {
                let (px, py) = if across { (x % w + k, y % h) } else { (x % w, y % h + k) };
                if px < w && py < h {
                    grid.set_wall(Pos::new(px, py), true).unwrap();
                }
            }
        }
        let mut s = Searcher::new();
        let at = |x: u32, y: u32| Pos::new(x % w, y % h);
        for chunk in edits.chunks(3) {
            for &(x0, y0, x1, y1) in &ends {
                check_jps(&grid, at(x0, y0), at(x1, y1), &mut s)?;
            }
            for &(x, y, wall) in chunk {
                grid.set_wall(at(x, y), wall).unwrap();
            }
        }
        for &(x0, y0, x1, y1) in &ends {
            check_jps(&grid, at(x0, y0), at(x1, y1), &mut s)?;
        }
    }
}
