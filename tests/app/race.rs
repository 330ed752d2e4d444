use super::*;
use gridpath::SubgoalGraph;
use gridpath::{Algorithm, Moves, Searcher, Settings, formats};
use tilepath::search::race::{
    RaceMethod, RaceOutcome, RaceRunner, RaceSubgoals, RaceTable, race, subgoal_row,
};

/// A small fixed map: a cup open toward the start lures greedy search in, so its path is
/// dearer than the optimum (21.66 against 20.49).
const MAP: &str = "\
......................
.........#######......
...............#......
.S.............#...G..
...............#......
.........#######......
......................";

#[test]
fn the_race_table_flags_exactly_the_costs_equal_to_dijkstras() {
    let map = formats::parse_ascii(MAP).expect("a valid map");
    let (start, goal) = (map.start.expect("S"), map.goal.expect("G"));
    let optimum = Searcher::new()
        .find_path(&map.grid, start, goal, &Settings::with_algorithm(Algorithm::Dijkstra))
        .expect("a route")
        .cost;
    let (rows, reference) = race(&mut Searcher::new(), &map.grid, start, goal, &Settings::default());
    assert_eq!(reference, Some(optimum), "the table compares with Dijkstra's cost");
    assert_eq!(rows.len(), Algorithm::ALL.len() + 1, "every algorithm plus weighted A*");
    let mut suboptimal = Vec::new();
    for row in &rows {
        let RaceOutcome::Found { cost, optimal, excess_percent, .. } = row.outcome else {
            panic!("every algorithm runs with the default settings: {row:?}");
        };
        let equal = (cost - optimum).abs() < 1e-6;
        assert_eq!(optimal, equal, "{:?}: flagged optimal iff its cost equals Dijkstra's", row.method);
        if row.guaranteed {
            assert!(optimal, "{:?} is guaranteed optimal, so it must match Dijkstra", row.method);
        }
        let expected = (cost / optimum - 1.0) * 100.0;
        assert!((excess_percent - expected).abs() < 1e-6, "excess % of {:?}", row.method);
        if !optimal {
            suboptimal.push(row.method);
        }
    }
    let greedy = RaceMethod::Search(Algorithm::Greedy);
    assert!(suboptimal.contains(&greedy), "greedy is lured into the long way here: {rows:?}");
    let astar_method = RaceMethod::Search(Algorithm::AStar);
    let astar = rows.iter().find(|r| r.method == astar_method && r.weight == 1.0).expect("A*");
    assert!(astar.guaranteed, "A* with octile and weight 1 is guaranteed optimal");

    // 4 moves: JPS does not apply and says why; BFS and the wavefront become optimal.
    let four = Settings { rules: gridpath::Rules::FOUR, ..Settings::default() };
    let (rows, _) = race(&mut Searcher::new(), &map.grid, start, goal, &four);
    let jps = rows.iter().find(|r| r.method == RaceMethod::Search(Algorithm::Jps)).expect("a JPS row");
    assert_eq!(jps.outcome, RaceOutcome::Unsupported("JPS needs 8-connected moves"));
    for algorithm in [Algorithm::Bfs, Algorithm::Wavefront] {
        let row = rows.iter().find(|r| r.method == RaceMethod::Search(algorithm)).expect("a row");
        assert!(row.guaranteed && matches!(row.outcome, RaceOutcome::Found { optimal: true, .. }));
    }
    assert_eq!(four.rules.moves, Moves::Four);
}

#[test]
fn t_shows_the_race_and_keeps_it_up_to_date() {
    let mut app = test_app(MapSource::Text { name: "race".into(), text: MAP.into() });
    assert!(app.world().resource::<RaceTable>().rows.is_empty(), "no race before T");
    tap_key(&mut app, KeyCode::KeyT);
    until_raced(&mut app);
    let table = app.world().resource::<RaceTable>();
    assert!(
        table.shown && table.rows.len() == Algorithm::ALL.len() + 2,
        "T races every algorithm, weighted A* and the subgoal graph: {table:?}"
    );
    assert!(table.optimum.is_some());
    // Wall off both ways around the cup: the table follows the edits.
    drag(&mut app, MouseButton::Left, &[Pos::new(12, 6)]);
    drag(&mut app, MouseButton::Left, &[Pos::new(12, 0)]);
    until_raced(&mut app);
    let table = app.world().resource::<RaceTable>();
    assert_eq!(table.optimum, None, "the table must be re-run after an edit: {table:?}");
    assert!(
        table.rows.iter().all(|r| matches!(r.outcome, RaceOutcome::Failed(_) | RaceOutcome::Preparing)),
        "every contestant reports no path (the subgoal graph may still be building): {table:?}"
    );
    tap_key(&mut app, KeyCode::KeyT);
    assert!(!app.world().resource::<RaceTable>().shown, "T hides the race");
}

/// The subgoal graph's row of the race, for `app`'s table.
fn subgoal_row_of(app: &App) -> tilepath::search::race::RaceRow {
    let table = app.world().resource::<RaceTable>();
    table.rows.iter().find(|r| r.method == RaceMethod::Subgoal).expect("a subgoal graph row").clone()
}

/// The subgoal graph's outcome in the race, for `app`'s table.
fn subgoal_outcome(app: &App) -> RaceOutcome {
    subgoal_row_of(app).outcome
}

/// Updates `app` until the race's subgoal graph is built (it builds on a thread of its own) and
/// raced.
fn until_subgoals_built(app: &mut App) {
    for _ in 0..1_000 {
        app.update();
        if !app.world().resource::<RaceSubgoals>().is_building() {
            until_raced(app);
            return;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    panic!("the subgoal graph of a test map must be built within seconds");
}

/// Updates `app` until no race runs or is due (a race runs on a thread of its own).
fn until_raced(app: &mut App) {
    for _ in 0..1_000 {
        if !app.world().resource::<RaceRunner>().is_racing() {
            assert!(!app.world().resource::<RaceTable>().racing, "the table says when the race is done");
            return;
        }
        std::thread::sleep(Duration::from_millis(2));
        app.update();
    }
    panic!("the race of a test map must be done within seconds");
}

#[test]
fn the_subgoal_row_is_exact_says_what_its_preprocessing_took_and_refuses_what_it_cannot_do() {
    let map = formats::parse_ascii(MAP).expect("a valid map");
    let (start, goal) = (map.start.expect("S"), map.goal.expect("G"));
    let settings = Settings::default();
    let (_, optimum) = race(&mut Searcher::new(), &map.grid, start, goal, &settings);
    let mut graph = SubgoalGraph::build(&map.grid);
    let row = subgoal_row(&mut graph, &map.grid, (start, goal), &settings, optimum);
    let RaceOutcome::Found { cost, optimal, cells, .. } = row.outcome else {
        panic!("the subgoal graph answers with the default settings: {row:?}");
    };
    assert!(optimal && row.guaranteed, "the subgoal graph is exact: {cost} against {optimum:?}");
    assert!(cells >= 2, "its route is refined into cells: {cells}");
    assert_eq!(row.preprocessing, Some(graph.build_time()), "the row says how long the build took");

    // Four moves: refused with the graph's reason, not answered wrongly.
    let four = Settings { rules: gridpath::Rules::FOUR, ..settings };
    let row = subgoal_row(&mut graph, &map.grid, (start, goal), &four, optimum);
    assert!(
        matches!(row.outcome, RaceOutcome::Unsupported(reason) if !reason.is_empty()),
        "4 moves are refused with a reason: {row:?}"
    );
}

#[test]
fn the_race_builds_the_subgoal_graph_in_the_background_and_repairs_it_after_an_edit() {
    let mut app = test_app(MapSource::Text { name: "race".into(), text: MAP.into() });
    // The frame T is pressed only starts the race and the graph's build, each on its thread.
    app.world_mut().write_message(key_message(KeyCode::KeyT, ButtonState::Pressed));
    app.update();
    let table = app.world().resource::<RaceTable>();
    assert!(table.racing && table.rows.is_empty(), "the race runs off the frame: {table:?}");
    assert!(app.world().resource::<RaceSubgoals>().is_building(), "the graph is built off the frame");
    app.world_mut().write_message(key_message(KeyCode::KeyT, ButtonState::Released));
    until_subgoals_built(&mut app);
    let optimum = app.world().resource::<RaceTable>().optimum.expect("a route");
    let built = subgoal_row_of(&app).preprocessing;
    assert!(built.is_some(), "the row says how long the build took");
    let RaceOutcome::Found { cost, optimal: true, .. } = subgoal_outcome(&app) else {
        panic!("once built, the subgoal graph answers exactly: {:?}", subgoal_outcome(&app));
    };
    assert!((cost - optimum).abs() < 1e-6, "{cost} against Dijkstra's {optimum}");

    // A wall across the way round the cup's top: the graph is repaired within the frame, not
    // built again, and answers exactly for the map as painted.
    drag(&mut app, MouseButton::Left, &[Pos::new(12, 0)]);
    until_raced(&mut app);
    let subgoals = app.world().resource::<RaceSubgoals>();
    assert!(
        !subgoals.is_building() || subgoals.is_rebuilding_hierarchy(),
        "one cell's edit is repaired, not rebuilt (only a hierarchy dropped by the repair is)"
    );
    assert_eq!(subgoal_row_of(&app).preprocessing, built, "the same graph, repaired: not built again");
    let after = app.world().resource::<RaceTable>().optimum.expect("a route round the other side");
    match subgoal_outcome(&app) {
        RaceOutcome::Found { cost, optimal: true, .. } => {
            assert!((cost - after).abs() < 1e-6, "the repaired graph's {cost} against Dijkstra's {after}");
        }
        other => panic!("the repaired graph answers at once, exactly: {other:?}"),
    }

    // A heuristic weight changes nothing: the graph runs at weight 1, as its row says.
    shift_tap_key(&mut app, KeyCode::BracketRight);
    until_raced(&mut app);
    assert!(pathfinder(&app).settings().weight > 1.0, "Shift+] raised the heuristic weight");
    assert!(
        matches!(subgoal_outcome(&app), RaceOutcome::Found { optimal: true, .. }),
        "weighted settings still race the exact graph: {:?}",
        subgoal_outcome(&app)
    );

    // Four moves: the row says why it does not apply.
    tap_key(&mut app, KeyCode::KeyM);
    until_raced(&mut app);
    assert!(
        matches!(subgoal_outcome(&app), RaceOutcome::Unsupported(_)),
        "4 moves are refused: {:?}",
        subgoal_outcome(&app)
    );
}

#[test]
fn another_map_gets_a_graph_of_its_own_never_the_last_maps() {
    let mut app = test_app(MapSource::Text { name: "race".into(), text: MAP.into() });
    tap_key(&mut app, KeyCode::KeyT);
    until_subgoals_built(&mut app);
    let size = |app: &App| (pathfinder(app).grid().width(), pathfinder(app).grid().height());
    let before = size(&app);
    // `]`: the next built-in map, of another size and shape. The frame it opens starts its
    // race, which must not take the last map's graph along: it races while that map's own graph
    // is built (a tiny map's may be done by the next frame, and raced again then).
    app.world_mut().write_message(key_message(KeyCode::BracketRight, ButtonState::Pressed));
    app.update();
    assert_ne!(size(&app), before, "] opened another map");
    assert!(app.world().resource::<RaceSubgoals>().is_building(), "the new map gets a graph of its own");
    let table = app.world().resource::<RaceTable>();
    assert!(
        table.racing && table.rows.is_empty(),
        "the last map's rows are not shown for this one: {table:?}"
    );
    app.world_mut().write_message(key_message(KeyCode::BracketRight, ButtonState::Released));
    // The first race on the new map: its graph was not built when it started.
    for _ in 0..1_000 {
        if !app.world().resource::<RaceTable>().rows.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
        app.update();
    }
    assert!(
        matches!(subgoal_outcome(&app), RaceOutcome::Preparing),
        "the new map's graph is built in the background, the old one is not used: {:?}",
        subgoal_outcome(&app)
    );
    until_subgoals_built(&mut app);
    let optimum = app.world().resource::<RaceTable>().optimum;
    match (subgoal_outcome(&app), optimum) {
        (RaceOutcome::Found { cost, optimal: true, .. }, Some(optimum)) => {
            assert!(
                (cost - optimum).abs() < 1e-6,
                "the new map's graph: {cost} against Dijkstra's {optimum}"
            );
        }
        // A map whose goal cannot be reached: the graph says so too.
        (RaceOutcome::Failed(_), None) => {}
        (other, optimum) => {
            panic!("the new map's graph answers as Dijkstra does: {other:?} against {optimum:?}")
        }
    }
}

#[test]
fn edits_made_while_the_race_runs_are_raced_once_it_is_done() {
    // Big enough that the race is still running while the walls go in (a race of a 256 x 256
    // map takes tens of milliseconds, a frame of the test app a few).
    let side = 256;
    let mut rows = vec![".".repeat(side); side];
    rows[2].replace_range(2..3, "S");
    rows[side - 3].replace_range(side - 3..side - 2, "G");
    let mut app = test_app(MapSource::Text { name: "open".into(), text: rows.join("\n") });
    tap_key(&mut app, KeyCode::KeyT);
    // A wall across the diagonal, painted over several frames (a drag, as `drag` does), each
    // frame noting whether a race was running then.
    let wall: Vec<Pos> = (20..140).map(|x| Pos::new(x, 150 - x)).collect();
    let mut edits_during_a_race = 0;
    hover(&mut app, Some(wall[0]));
    mouse(&mut app, MouseButton::Left, ButtonState::Pressed);
    for &cell in &wall {
        hover(&mut app, Some(cell));
        let racing = app.world().resource::<RaceRunner>().is_racing();
        app.update();
        edits_during_a_race += usize::from(racing);
    }
    mouse(&mut app, MouseButton::Left, ButtonState::Released);
    app.update();
    assert!(edits_during_a_race > 0, "the scene tests edits made while a race runs");
    until_raced(&mut app);
    let grid = pathfinder(&app).grid().clone();
    assert!(!grid.is_passable(Pos::new(80, 70)), "the wall was painted");
    let far = u32::try_from(side - 3).expect("a small map");
    assert!(!grid.is_passable(Pos::new(20, 130)) && !grid.is_passable(Pos::new(139, 11)), "the whole wall");
    let (start, goal) = (Pos::new(2, 2), Pos::new(far, far));
    let dijkstra = Settings::with_algorithm(Algorithm::Dijkstra);
    let optimum =
        Searcher::new().find_path(&grid, start, goal, &dijkstra).expect("a route round the wall").cost;
    let table = app.world().resource::<RaceTable>();
    assert_eq!(table.optimum, Some(optimum), "the table describes the map as painted: {table:?}");
    assert!(!table.racing, "and says it is done");
    for row in table.rows.iter().filter(|row| row.guaranteed) {
        match row.outcome {
            RaceOutcome::Found { cost, .. } => {
                assert!((cost - optimum).abs() < 1e-6, "{:?}: {cost} against {optimum}", row.method);
            }
            // The graph may still be building.
            RaceOutcome::Preparing => assert_eq!(row.method, RaceMethod::Subgoal),
            ref other => panic!("{:?} found no route: {other:?}", row.method),
        }
    }
}

#[test]
fn walls_painted_while_the_subgoal_graph_builds_are_in_its_answer() {
    // A cave map big enough that its graph takes a while to build (~0.15 s): the walls go in on
    // the frames after T, while it builds.
    let source = MapSource::Generated {
        generator: gridpath::generate::Generator::Caves,
        seed: 7,
        width: 256,
        height: 256,
    };
    let mut app = test_app(source);
    let (start, goal) = (pathfinder(&app).start(), pathfinder(&app).goal());
    let dijkstra = Settings::with_algorithm(Algorithm::Dijkstra);
    let route =
        Searcher::new().find_path(pathfinder(&app).grid(), start, goal, &dijkstra).expect("a route").cells;
    tap_key(&mut app, KeyCode::KeyT);
    assert!(
        app.world().resource::<RaceSubgoals>().is_building(),
        "the scene tests walls painted while the graph for the map before them builds"
    );
    // Three cells of the middle of the optimal route walled, one stroke each.
    let middle = route.len() / 2;
    for &cell in &route[middle - 1..=middle + 1] {
        drag(&mut app, MouseButton::Left, &[cell]);
    }
    until_subgoals_built(&mut app);
    let grid = pathfinder(&app).grid().clone();
    assert!(!grid.is_passable(route[middle]), "the route was walled");
    let optimum = Searcher::new().find_path(&grid, start, goal, &dijkstra).map(|path| path.cost).ok();
    assert_eq!(app.world().resource::<RaceTable>().optimum, optimum, "the race ran on the map as painted");
    match (subgoal_outcome(&app), optimum) {
        (RaceOutcome::Found { cost, optimal: true, .. }, Some(optimum)) => {
            assert!((cost - optimum).abs() < 1e-6, "the graph's {cost} against Dijkstra's {optimum}");
        }
        (RaceOutcome::Failed(_), None) => {}
        (other, optimum) => {
            panic!("the graph answers for the walls painted during its build: {other:?}, {optimum:?}")
        }
    }
}

#[test]
fn a_repaired_graph_gets_its_hierarchy_back_in_the_background() {
    // A maze: its graph keeps a contraction hierarchy (the hierarchy pays most on mazes).
    let source = MapSource::Generated {
        generator: gridpath::generate::Generator::Maze { corridor: 1 },
        seed: 3,
        width: 128,
        height: 128,
    };
    let mut app = test_app(source);
    tap_key(&mut app, KeyCode::KeyT);
    until_subgoals_built(&mut app);
    assert!(app.world().resource::<RaceSubgoals>().is_sped_up(), "a maze's graph keeps its hierarchy");
    assert_eq!(subgoal_row_of(&app).note, None, "built whole: nothing to say");
    let built = subgoal_row_of(&app).preprocessing;

    // A wall off the route (any edit changes the graph): the race's repair drops the hierarchy;
    // its row says the hierarchy is being built again, and it is, on the graph's thread.
    let (start, goal) = (pathfinder(&app).start(), pathfinder(&app).goal());
    let dijkstra = Settings::with_algorithm(Algorithm::Dijkstra);
    let grid = pathfinder(&app).grid().clone();
    let route = Searcher::new().find_path(&grid, start, goal, &dijkstra).expect("a route").cells;
    let off_route =
        grid.positions().find(|&p| grid.is_passable(p) && !route.contains(&p)).expect("a free cell");
    drag(&mut app, MouseButton::Left, &[off_route]);
    assert!(!pathfinder(&app).grid().is_passable(off_route), "the wall was painted");
    until_raced(&mut app);
    assert_eq!(subgoal_row_of(&app).note, Some("hierarchy rebuilding"), "{:?}", subgoal_row_of(&app));
    assert!(app.world().resource::<RaceSubgoals>().is_rebuilding_hierarchy(), "and it is");

    // Once built, the race runs again with it: no note, the same graph (not built whole again),
    // exact for the map as painted.
    until_subgoals_built(&mut app);
    let row = subgoal_row_of(&app);
    assert_eq!(row.note, None, "the hierarchy is back: {row:?}");
    assert_eq!(row.preprocessing, built, "the graph was repaired and its hierarchy built, not the graph");
    let optimum =
        Searcher::new().find_path(pathfinder(&app).grid(), start, goal, &dijkstra).map(|p| p.cost).ok();
    match (row.outcome, optimum) {
        (RaceOutcome::Found { cost, optimal: true, .. }, Some(optimum)) => {
            assert!((cost - optimum).abs() < 1e-6, "{cost} against Dijkstra's {optimum}");
        }
        (RaceOutcome::Failed(_), None) => {}
        (other, optimum) => panic!("the graph answers as Dijkstra does: {other:?} against {optimum:?}"),
    }
}
