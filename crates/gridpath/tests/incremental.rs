//! The incremental planner (D* Lite) against a fresh reference Dijkstra and a fresh A* after
//! every batch of random edits and start moves, plus the error cases.

mod common;

use common::{arb_rules, reference_cost};
use gridpath::formats::parse_ascii;
use gridpath::{Endpoint, Grid, Incremental, Pos, Rules, SearchError, Searcher, Settings, Tile};
use proptest::prelude::*;

const EPS: f64 = 1e-9;

/// Walls, costs and water, as `searches.rs` draws them, on grids up to `side` × `side`.
fn arb_grid(side: u32) -> impl Strategy<Value = Grid> {
    (1u32..=side, 1u32..=side, 0u32..=40, any::<bool>(), any::<u64>()).prop_map(
        |(w, h, density, terrain, seed)| {
            let mut grid = Grid::new(w, h).unwrap();
            let mut state = seed | 1;
            for p in grid.positions() {
                let r = next(&mut state) % 100;
                grid.set_tile(p, tile_for(r, density, terrain, &mut state)).unwrap();
            }
            grid
        },
    )
}

fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

fn tile_for(r: u64, density: u32, terrain: bool, state: &mut u64) -> Tile {
    if r < u64::from(density) {
        Tile::Wall
    } else if terrain && r >= 97 {
        Tile::Water { cost: 1 }
    } else if terrain && r >= 80 {
        Tile::Ground { cost: [2, 5, 10][usize::try_from(next(state) % 3).unwrap()] }
    } else {
        Tile::FLOOR
    }
}

/// Checks the planner's answer against a fresh reference Dijkstra and a fresh A*.
fn check(
    planner: &mut Incremental,
    grid: &Grid,
    rules: Rules,
    searcher: &mut Searcher,
    step: usize,
) -> Result<Option<Vec<Pos>>, TestCaseError> {
    let (start, goal) = (planner.start(), planner.goal());
    let got = planner.plan(grid);
    let fresh = searcher.find_path(grid, start, goal, &Settings { rules, ..Settings::default() });
    let want = reference_cost(grid, start, goal, rules);
    match (&got, want) {
        (Ok(path), Some(want)) => {
            let legal = grid.path_cost(&path.cells, rules);
            prop_assert!(legal.is_ok(), "step {step}: illegal path {legal:?}");
            prop_assert_eq!(path.cells.first(), Some(&start));
            prop_assert_eq!(path.cells.last(), Some(&goal));
            prop_assert!(
                (legal.unwrap() - path.cost).abs() < EPS,
                "step {step}: reported cost is the path's"
            );
            prop_assert!(
                (path.cost - want).abs() < EPS,
                "step {step}: cost {} but optimum {want}",
                path.cost
            );
        }
        (Err(_), None) => {}
        _ => prop_assert!(false, "step {step}: reference {want:?}, got {got:?}"),
    }
    // The same kind of error as the Searcher gives (NoPath's stats differ, of course).
    match (&got, &fresh) {
        (Ok(_), Ok(_)) | (Err(SearchError::NoPath { .. }), Err(SearchError::NoPath { .. })) => {}
        (Err(a), Err(b)) => prop_assert_eq!(a, b, "step {}: error", step),
        _ => prop_assert!(false, "step {step}: A* gave {fresh:?}, incremental {got:?}"),
    }
    Ok(got.ok().map(|p| p.cells))
}

/// Plans, then `batches` times edits the grid (walls, floors, costs, water; half of the edits
/// on the current route), tells the planner in one of three ways, sometimes moves the start, and
/// checks the new plan against fresh searches.
fn run_sequence(
    grid: Grid,
    rules: Rules,
    ends: (u32, u32, u32, u32),
    seed: u64,
    batches: usize,
    terrain: bool,
) -> Result<(), TestCaseError> {
    let mut grid = grid;
    let (w, h) = (grid.width(), grid.height());
    let start = Pos::new(ends.0 % w, ends.1 % h);
    let goal = Pos::new(ends.2 % w, ends.3 % h);
    let mut planner = Incremental::new(&grid, start, goal, rules).unwrap();
    let mut searcher = Searcher::new();
    let mut route = check(&mut planner, &grid, rules, &mut searcher, 0)?;
    let mut state = seed | 1;
    for step in 1..=batches {
        let size = 1 + usize::try_from(next(&mut state) % 6).unwrap();
        let mut changed = Vec::new();
        for _ in 0..size {
            // Half the edits hit the current route when there is one.
            let pos = match &route {
                Some(cells) if next(&mut state).is_multiple_of(2) => {
                    cells[usize::try_from(next(&mut state)).unwrap() % cells.len()]
                }
                _ => Pos::new(
                    u32::try_from(next(&mut state) % u64::from(w)).unwrap(),
                    u32::try_from(next(&mut state) % u64::from(h)).unwrap(),
                ),
            };
            let r = next(&mut state) % 100;
            let tile = tile_for(r, 50, terrain, &mut state);
            grid.set_tile(pos, tile).unwrap();
            changed.push(pos);
        }
        match next(&mut state) % 4 {
            // Told exactly which cells changed (the usual way)...
            0 | 1 => {
                planner.update_cells(&grid, &changed);
            }
            // ... not told at all (plan compares the grid)...
            2 => {}
            // ... or told, and the unit walked one step of its route.
            _ => {
                planner.update_cells(&grid, &changed);
                if let Some(cells) = route.as_ref().filter(|c| c.len() > 1) {
                    planner.set_start(cells[1]).unwrap();
                }
            }
        }
        // Sometimes the start jumps somewhere else entirely.
        if next(&mut state).is_multiple_of(8) {
            let to = Pos::new(
                u32::try_from(next(&mut state) % u64::from(w)).unwrap(),
                u32::try_from(next(&mut state) % u64::from(h)).unwrap(),
            );
            planner.set_start(to).unwrap();
        }
        route = check(&mut planner, &grid, rules, &mut searcher, step)?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    /// After every batch of edits and every start move, the plan costs exactly what a fresh
    /// search finds, and is legal.
    #[test]
    fn every_repair_is_as_good_as_a_fresh_search(
        grid in arb_grid(40),
        rules in arb_rules(),
        ends in (any::<u32>(), any::<u32>(), any::<u32>(), any::<u32>()),
        seed in any::<u64>(),
        batches in 1usize..10,
        terrain in any::<bool>(),
    ) {
        run_sequence(grid, rules, ends, seed, batches, terrain)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 60, ..ProptestConfig::default() })]

    /// The same on larger grids over long edit sequences: the kept state stays right.
    #[test]
    fn long_edit_sequences_on_larger_grids_stay_optimal(
        grid in arb_grid(96),
        rules in arb_rules(),
        ends in (any::<u32>(), any::<u32>(), any::<u32>(), any::<u32>()),
        seed in any::<u64>(),
        terrain in any::<bool>(),
    ) {
        run_sequence(grid, rules, ends, seed, 60, terrain)?;
    }
}

#[test]
fn walls_on_the_endpoints_and_cut_off_goals_are_errors_until_cleared() {
    let map = parse_ascii("S.#..\n..#..\n..#.G").unwrap();
    let mut grid = map.grid;
    let (start, goal) = (map.start.unwrap(), map.goal.unwrap());
    let mut planner = Incremental::new(&grid, start, goal, Rules::OCTILE).unwrap();
    assert!(
        matches!(planner.plan(&grid), Err(SearchError::NoPath { .. })),
        "the wall column cuts the goal off"
    );
    let gap = Pos::new(2, 1);
    grid.set_wall(gap, false).unwrap();
    planner.update_cells(&grid, &[gap]);
    let path = planner.plan(&grid).expect("a gap opens the way");
    assert!(path.cells.contains(&gap), "through the gap");
    grid.set_wall(goal, true).unwrap();
    planner.update_cells(&grid, &[goal]);
    assert_eq!(planner.plan(&grid), Err(SearchError::Blocked { which: Endpoint::Goal, pos: goal }));
    grid.set_wall(goal, false).unwrap();
    grid.set_wall(start, true).unwrap();
    planner.update_cells(&grid, &[goal, start]);
    assert_eq!(planner.plan(&grid), Err(SearchError::Blocked { which: Endpoint::Start, pos: start }));
    grid.set_wall(start, false).unwrap();
    planner.update_cells(&grid, &[start]);
    let again = planner.plan(&grid).expect("both ends cleared");
    assert!((again.cost - path.cost).abs() < EPS, "the same grid gives the same cost");
    assert_eq!(
        Incremental::new(&grid, start, Pos::new(5, 0), Rules::OCTILE).err(),
        Some(SearchError::OutOfBounds { which: Endpoint::Goal, pos: Pos::new(5, 0), width: 5, height: 3 })
    );
}

#[test]
fn a_cost_change_moves_the_route_and_an_unchanged_grid_costs_nothing() {
    let mut grid = Grid::new(40, 40).unwrap();
    let (start, goal) = (Pos::new(1, 20), Pos::new(38, 20));
    let mut planner = Incremental::new(&grid, start, goal, Rules::OCTILE).unwrap();
    let first = planner.plan(&grid).unwrap();
    assert!((first.cost - 37.0).abs() < EPS, "straight along the row");
    // Mud across the middle of the straight route: the route bends round it.
    let mud: Vec<Pos> = (18..=22).map(|y| Pos::new(20, y)).collect();
    for &p in &mud {
        grid.set_tile(p, Tile::Ground { cost: 9 }).unwrap();
    }
    planner.update_cells(&grid, &mud);
    let second = planner.plan(&grid).unwrap();
    let want = reference_cost(&grid, start, goal, Rules::OCTILE).unwrap();
    assert!((second.cost - want).abs() < EPS, "cost {} but optimum {want}", second.cost);
    assert!(!second.cells.iter().any(|p| mud.contains(p)), "the route goes round the mud");
    // Nothing changed: nothing to do.
    let third = planner.plan(&grid).unwrap();
    assert_eq!(third.stats.expanded, 0, "an unchanged grid needs no work");
    assert_eq!(third.cells, second.cells);
}

#[test]
fn another_terrain_class_is_reported_as_the_searcher_does() {
    // Ground, with water in the two right-hand columns.
    let mut grid = Grid::new(4, 2).unwrap();
    for y in 0..2 {
        for x in 2..4 {
            grid.set_tile(Pos::new(x, y), Tile::Water { cost: 1 }).unwrap();
        }
    }
    let goal = Pos::new(3, 0);
    let mut planner = Incremental::new(&grid, Pos::new(0, 0), goal, Rules::OCTILE).unwrap();
    let want = Searcher::new().find_path(&grid, Pos::new(0, 0), goal, &Settings::default()).unwrap_err();
    assert_eq!(planner.plan(&grid).unwrap_err(), want);
    grid.set_tile(goal, Tile::FLOOR).unwrap();
    assert!(planner.plan(&grid).is_err(), "the water still separates them (found without being told)");
    for y in 0..2 {
        grid.set_tile(Pos::new(2, y), Tile::FLOOR).unwrap();
    }
    let path = planner.plan(&grid).expect("a ground bridge");
    assert_eq!(path.cells.last(), Some(&goal));
}

#[test]
fn a_recorded_repair_replays_what_it_touched() {
    use gridpath::TraceEvent;
    let mut map = parse_ascii("S.........\n.########.\n..........\n.########.\n.........G").expect("a map");
    let (start, goal) = (map.start.expect("S"), map.goal.expect("G"));
    let mut planner = Incremental::new(&map.grid, start, goal, Rules::OCTILE).expect("a planner");
    let _ = planner.plan(&map.grid).expect("a route");
    assert!(planner.take_events().is_empty(), "nothing is recorded unless asked");
    planner.set_recording(true);
    // Wall off the route's first step down the right-hand side: the repair goes round.
    let first = planner.plan(&map.grid).expect("the same route");
    assert!(planner.take_events().is_empty(), "an unchanged grid touches nothing");
    let blocked = first.cells[first.cells.len() / 2];
    map.grid.set_wall(blocked, true).expect("in bounds");
    planner.update_cells(&map.grid, &[blocked]);
    let repaired = planner.plan(&map.grid).expect("a detour");
    let events = planner.take_events();
    let closed: Vec<Pos> = events
        .iter()
        .filter_map(|e| if let TraceEvent::Closed { pos } = e { Some(*pos) } else { None })
        .collect();
    let opened =
        events.iter().filter(|e| matches!(e, TraceEvent::Opened { .. } | TraceEvent::Updated { .. }));
    assert_eq!(closed.len() as u64, repaired.stats.expanded, "one Closed event per expansion");
    assert_eq!(opened.count() as u64, repaired.stats.generated, "one open event per queue push");
    assert!(closed.iter().all(|&p| map.grid.in_bounds(p)), "expanded cells are on the map");
    assert!(closed.contains(&blocked), "the new wall is raised: its cost to the goal is gone");
    assert!(!repaired.cells.contains(&blocked));
    planner.set_recording(false);
    let _ = planner.plan(&map.grid);
    assert!(planner.take_events().is_empty());
}
