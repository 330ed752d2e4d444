//! `SubgoalRoutes`: requests answered by a subgoal graph kept in step with the grid off the
//! frame — exact, never stale across edits, and only for the requests a graph answers.

use std::time::{Duration, Instant};

use bevy_gridpath::gridpath::generate::{Generator, generate};
use bevy_gridpath::{HIERARCHY_AFTER, SubgoalRoutes};

use super::*;

/// An app with the plugin and `SubgoalRoutes` on `grid`, its graph built.
fn app_with_graph(grid: Grid) -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, GridPathPlugin));
    app.insert_resource(TimeUpdateStrategy::ManualDuration(FRAME));
    app.insert_resource(NavGrid::centered(grid, TILE));
    app.init_resource::<SubgoalRoutes>();
    app.update();
    wait_for_graph(&mut app);
    app
}

fn routes(app: &App) -> &SubgoalRoutes {
    app.world().resource::<SubgoalRoutes>()
}

/// Runs frames, a millisecond apart in real time (the graph's thread runs in real time), until
/// a graph describes the grid as it is and no job runs. The app's clock stands still meanwhile:
/// however long a job takes on a loaded machine, the grid has not rested for the plugin
/// (`HIERARCHY_AFTER`) when this returns, unless it had before.
fn wait_for_graph(app: &mut App) {
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::ZERO));
    let began = Instant::now();
    while !routes(app).is_ready(nav(app)) || routes(app).is_working() {
        assert!(began.elapsed() < Duration::from_secs(30), "the graph must be done within 30 s");
        std::thread::sleep(Duration::from_millis(1));
        app.update();
    }
    app.insert_resource(TimeUpdateStrategy::ManualDuration(FRAME));
}

/// Runs frames until nothing waits to be planned and nothing is in flight.
fn plan_all(app: &mut App) {
    let began = Instant::now();
    app.update();
    while !queue(app).is_idle() {
        assert!(began.elapsed() < Duration::from_secs(30), "every request must be planned within 30 s");
        std::thread::sleep(Duration::from_millis(1));
        app.update();
    }
}

/// Open cells of `grid`, spread over it by a fixed stride.
fn open_cells(grid: &Grid, count: usize) -> Vec<Pos> {
    let open: Vec<Pos> = grid.positions().filter(|&p| grid.is_passable(p)).collect();
    let stride = (open.len() / count).max(1);
    open.iter().copied().step_by(stride).take(count).collect()
}

/// Requests from `count` open cells spread over the grid, each to the one half the list further
/// on (an A* request, the default settings): the entities with their start and goal.
fn request_across(app: &mut App, count: usize) -> Vec<(Entity, Pos, Pos)> {
    let cells = open_cells(nav(app).grid(), count);
    (0..cells.len())
        .map(|k| {
            let (from, to) = (cells[k], cells[(k + cells.len() / 2) % cells.len()]);
            (spawn_at(app, from, PathRequest::new(to)), from, to)
        })
        .collect()
}

/// Each request's answer is the least cost route on the grid as it is now (a fresh Dijkstra),
/// or the failure Dijkstra gives; returns how many found a route.
fn assert_exact(app: &App, units: &[(Entity, Pos, Pos)]) -> u64 {
    let grid = nav(app).grid();
    let dijkstra = Settings::with_algorithm(gridpath::Algorithm::Dijkstra);
    let mut routed = 0;
    for &(unit, from, to) in units {
        let want = gridpath::Searcher::new().find_path(grid, from, to, &dijkstra);
        match (status(app, unit), want) {
            (PathStatus::Following, Ok(want)) => {
                let cells = route(app, unit);
                assert_legal_route(app, from, &cells);
                assert_eq!(cells.last(), Some(&to), "{from} -> {to}: the route ends on the goal");
                let walked: Vec<Pos> = std::iter::once(from).chain(cells).collect();
                let cost = grid.path_cost(&walked, gridpath::Rules::OCTILE).expect("a legal route");
                assert!(
                    (cost - want.cost).abs() < 1e-9,
                    "{from} -> {to}: cost {cost}, the optimum {}",
                    want.cost
                );
                routed += 1;
            }
            (PathStatus::Failed(_), Err(_)) => {}
            (got, want) => panic!("{from} -> {to}: got {got:?}, Dijkstra says {:?}", want.map(|p| p.cost)),
        }
    }
    routed
}

#[test]
fn requests_are_answered_by_the_graph_exactly_once_it_describes_the_grid() {
    let grid = generate(Generator::Noise { density: 0.3 }, 48, 40, 7).expect("a map");
    let mut app = app_with_graph(grid);
    assert_eq!(routes(&app).counts().builds, 1);
    // Forty at once: batches on the task pool, sharing the graph.
    let units = request_across(&mut app, 40);
    plan_all(&mut app);
    let routed = assert_exact(&app, &units);
    assert!(routed >= 20, "most pairs of a 30 % noise map are connected ({routed} of 40)");
    assert_eq!(queue(&app).counts().by_subgoal_graph, routed, "the graph answered every route");
    // And a lone request, searched in the frame.
    let &(_, from, to) =
        units.iter().find(|(unit, ..)| status(&app, *unit) == PathStatus::Following).expect("a route");
    let unit = spawn_at(&mut app, from, PathRequest::new(to));
    app.update();
    assert_exact(&app, &[(unit, from, to)]);
    assert_eq!(queue(&app).counts().by_subgoal_graph, routed + 1, "a lone request too");
}

#[test]
fn after_edits_answers_are_never_stale_and_the_repaired_graph_answers_again() {
    let grid = generate(Generator::Maze { corridor: 2 }, 41, 41, 3).expect("a map");
    let mut app = app_with_graph(grid);
    let units = request_across(&mut app, 24);
    plan_all(&mut app);
    assert_exact(&app, &units);
    // Walls across corridors and walls opened, every frame for a while: each frame's requests
    // must be exact on the grid as it is that frame, whether the repair is done or not.
    for round in 0..12u32 {
        let (x, y) = ((round * 7) % 41, (round * 13) % 41);
        app.world_mut().resource_mut::<NavGrid>().edit(|grid| {
            let at = Pos::new(x, y);
            let wall = grid.is_passable(at);
            grid.set_wall(at, wall).expect("in bounds");
        });
        let fresh: Vec<(Entity, Pos, Pos)> = request_across(&mut app, 8);
        app.update();
        plan_all(&mut app);
        assert_exact(&app, &fresh);
        assert_exact(&app, &units);
        for (unit, ..) in fresh {
            app.world_mut().despawn(unit);
        }
    }
    assert!(routes(&app).counts().repairs >= 1, "edits are repaired, not built anew");
    assert_eq!(routes(&app).counts().builds, 1);
    wait_for_graph(&mut app);
    let fresh = request_across(&mut app, 10);
    let before = queue(&app).counts().by_subgoal_graph;
    plan_all(&mut app);
    let routed = assert_exact(&app, &fresh);
    assert_eq!(queue(&app).counts().by_subgoal_graph - before, routed, "the repaired graph answers again");
    // A grid of another size: the graph is built for it inside its repair, and answers it.
    app.world_mut().resource_mut::<NavGrid>().replace(generate(Generator::Rooms, 30, 20, 5).expect("a map"));
    app.update();
    let fresh = request_across(&mut app, 10);
    plan_all(&mut app);
    assert_exact(&app, &fresh);
    wait_for_graph(&mut app);
    let fresh = request_across(&mut app, 10);
    let before = queue(&app).counts().by_subgoal_graph;
    plan_all(&mut app);
    let routed = assert_exact(&app, &fresh);
    assert_eq!(queue(&app).counts().by_subgoal_graph - before, routed);
}

/// JPS requests follow the graph's own timing against JPS (`SubgoalGraph::jps_is_faster`):
/// answered by the graph where it was the faster, else searched by JPS; A* requests are
/// answered by the graph either way. Both exact. On a one-wide maze the graph wins by far, on
/// an open map sprinkled with walls JPS does, so the two maps take the two ways (which one a
/// map takes is the machine's timing: only the rule is asserted).
#[test]
fn jps_requests_go_to_the_graph_only_where_it_outpaced_jps() {
    let maze = generate(Generator::Maze { corridor: 1 }, 63, 63, 5).expect("a map");
    let open = generate(Generator::Noise { density: 0.02 }, 96, 96, 9).expect("a map");
    let jps = Settings::with_algorithm(gridpath::Algorithm::Jps);
    for grid in [maze, open] {
        let mut app = app_with_graph(grid);
        let jps_faster = routes(&app).graph().expect("built").jps_is_faster();
        // Two cells far apart with a route between them.
        let cells = open_cells(nav(&app).grid(), 20);
        let (from, to) = (0..10)
            .map(|k| (cells[k], cells[k + 10]))
            .find(|&(a, b)| gridpath::Searcher::new().find_path(nav(&app).grid(), a, b, &jps).is_ok())
            .expect("a connected pair");
        let unit = spawn_at(&mut app, from, PathRequest::new(to).with_settings(jps));
        plan_all(&mut app);
        assert_exact(&app, &[(unit, from, to)]);
        assert_eq!(status(&app, unit), PathStatus::Following, "{from} -> {to} is connected");
        let by_graph = queue(&app).counts().by_subgoal_graph;
        assert_eq!(by_graph, u64::from(!jps_faster), "JPS timed faster: {jps_faster}");
        let unit = spawn_at(&mut app, from, PathRequest::new(to));
        plan_all(&mut app);
        assert_exact(&app, &[(unit, from, to)]);
        assert_eq!(queue(&app).counts().by_subgoal_graph, by_graph + 1, "A* requests go to the graph");
    }
}

#[test]
fn requests_the_graph_does_not_answer_are_searched_as_without_it() {
    let map = "\
..........
..........
....#.....
....#.....
....#.....
..........
..........";
    let mut app = app_with_graph(grid(map));
    // (A 2 x 2 body's top-left cell: its body fits there too.)
    let (from, to) = (Pos::new(0, 3), Pos::new(8, 3));
    let four = Settings { rules: gridpath::Rules::FOUR, ..Settings::default() };
    let requests = [
        PathRequest::new(to).with_settings(four),
        PathRequest::new(to).with_settings(Settings { partial: true, ..Settings::default() }),
        PathRequest::new(to).with_settings(Settings { agent_size: 2, ..Settings::default() }),
        PathRequest::new(to).with_settings(Settings::with_algorithm(gridpath::Algorithm::Theta)),
        PathRequest::new(to).with_settings(Settings::with_algorithm(gridpath::Algorithm::Greedy)),
        PathRequest::new(to)
            .with_settings(Settings { heuristic: gridpath::Heuristic::Manhattan, ..Settings::default() }),
    ];
    for request in requests {
        let unit = spawn_at(&mut app, from, request);
        app.update();
        plan_all(&mut app);
        assert_eq!(status(&app, unit), PathStatus::Following, "{:?} is searched", request.settings);
        let mut searcher = gridpath::Searcher::new();
        let want = searcher.find_path(nav(&app).grid(), from, to, &request.settings).expect("a route");
        assert_eq!(route(&app, unit).last(), want.cells.last(), "{:?}", request.settings);
    }
    assert_eq!(queue(&app).counts().by_subgoal_graph, 0, "none by the graph");
    // Terrain costs: no graph is kept up to date while the grid has them.
    app.world_mut().resource_mut::<NavGrid>().edit(|grid| {
        grid.set_tile(Pos::new(2, 0), gridpath::Tile::Ground { cost: 5 }).expect("in bounds");
    });
    for _ in 0..20 {
        app.update();
    }
    assert!(!routes(&app).is_ready(nav(&app)) && !routes(&app).is_working());
    assert_eq!(routes(&app).counts().repairs, 0);
}

#[test]
fn the_hierarchy_a_repair_dropped_is_built_again_once_the_grid_rests() {
    let grid = generate(Generator::Maze { corridor: 1 }, 63, 63, 11).expect("a map");
    let mut app = app_with_graph(grid);
    let graph = routes(&app).graph().expect("built");
    // Built by a timed choice: a maze's long corridors make its hierarchy or landmarks pay.
    assert!(graph.has_hierarchy() || graph.has_landmarks(), "a maze keeps a hierarchy or landmarks");
    // A wall in a corridor: the repair drops them.
    let at = open_cells(nav(&app).grid(), 2)[1];
    app.world_mut().resource_mut::<NavGrid>().edit(|grid| grid.set_wall(at, true).expect("in bounds"));
    wait_for_graph(&mut app);
    assert_eq!(routes(&app).counts().repairs, 1);
    let graph = routes(&app).graph().expect("repaired");
    assert!(!graph.has_hierarchy() && !graph.has_landmarks(), "the repair dropped them");
    assert_eq!(routes(&app).counts().speed_ups, 0, "not before the grid rests");
    // The grid rests (manual time: 50 ms a frame): they are built again, on a copy.
    let frames = HIERARCHY_AFTER.as_millis() / FRAME.as_millis() + 2;
    for _ in 0..frames {
        app.update();
    }
    assert_eq!(routes(&app).counts().speed_ups, 1);
    wait_for_graph(&mut app);
    for _ in 0..frames {
        app.update();
    }
    assert_eq!(routes(&app).counts().speed_ups, 1, "once");
    let graph = routes(&app).graph().expect("sped up");
    assert!(!graph.speed_up_dropped() && (graph.has_hierarchy() || graph.has_landmarks()));
    let units = request_across(&mut app, 20);
    plan_all(&mut app);
    let routed = assert_exact(&app, &units);
    assert_eq!(queue(&app).counts().by_subgoal_graph, routed);
    // Another wall drops them again; before the grid rests, a grid of another size comes: its
    // repair builds the graph anew, choosing its speed-up again, so nothing is built once it
    // rests.
    let at = open_cells(nav(&app).grid(), 3)[2];
    app.world_mut().resource_mut::<NavGrid>().edit(|grid| grid.set_wall(at, true).expect("in bounds"));
    wait_for_graph(&mut app);
    assert!(routes(&app).graph().expect("repaired").speed_up_dropped());
    let other = generate(Generator::Maze { corridor: 1 }, 47, 47, 12).expect("a map");
    app.world_mut().resource_mut::<NavGrid>().replace(other);
    app.update();
    wait_for_graph(&mut app);
    assert_eq!(routes(&app).counts().repairs, 3);
    assert!(!routes(&app).graph().expect("built anew").speed_up_dropped());
    for _ in 0..frames {
        app.update();
    }
    assert!(!routes(&app).is_working());
    assert_eq!(routes(&app).counts().speed_ups, 1, "none after a rebuild");
}
