//! Crowd benchmarks (issue 6): headless, `MinimalPlugins` + input + tilepath's `LogicPlugin`, no
//! window and no renderer, on a 256 × 256 map. Results go to `docs/BENCHMARKS.md` (## Crowds).
//!
//! ```sh
//! cargo bench --profile crowd-bench --bench crowd            # all three
//! cargo bench --profile crowd-bench --bench crowd -- flow    # or: flow-push, edit, async, flood, bigmap
//! cargo bench --profile crowd-bench --bench crowd -- =flow   # `flow` alone (`=name`: that name only)
//! ```
//!
//! 1. `flow`: 10,000 units following one flow field; time per frame (planning + movement).
//!    `flow-push` (run with `flow` too): the same with avoidance off, units only pushed apart.
//! 2. `edit`: wall strokes painted while 10,000 units (100 of them on routes of their own)
//!    walk; time of the frames that apply an edit (field rebuild + re-routing + movement).
//! 3. `async`: 1,000 units each ordered alone (1,000 A* requests) at 60 frames per second;
//!    frames until every route arrived, and the longest frame on the main thread.
//! 4. `flood`: 100,000 path requests in one frame, then all asking again: frame times, the
//!    queue's peak length, memory.
//! 6. `avoid`: local avoidance (ORCA, on by default) in four jam scenarios, one line each with
//!    frame times and the quality figures of `gridpath::avoid::Quality`: `corridor` (200 against
//!    200 head-on through a corridor 3 tiles wide and 40 long), `door` (1,000 units through a
//!    one-tile door), `converge` (10,000 units on distinct cells converging on the goal;
//!    `CONVERGE_SEED=N` spawns them in another order) and `ring` (10 units through another
//!    group's arrival ring of 60 in a corridor 2 tiles wide, to its dead end). `-- converge`
//!    (or `door`, `corridor`, `ring`) runs one of them. Each line is followed by the frame
//!    times of the scene at rest: 300
//!    frames once every unit arrived (an arrived crowd still avoids, to give way to passers),
//!    and how many units still moved on the last of them (a crowd at rest stands still).
//! 7. `plugin-flow`: the same crowd as `flow` on the same map, but as any game would make it with
//!    `bevy_gridpath` alone: 10,000 entities with a `Mover`, an `Avoid` and a `FollowFlowField`,
//!    `MinimalPlugins` + `GridPathPlugin` (no tilepath); `plugin-flow-off` with
//!    `LocalAvoidance` off (movers walking cell to cell through each other).
//!    `plugin-avoid` (run with `avoid` too): the same four scenarios with the plugin alone.
//! 5. `bigmap`: every generator at 2048 x 2048 with crowds and new random maps: memory against
//!    a budget.
//! 8. `paint`: one-cell walls painted on a 2048 x 2048 cave map, first as it is, then with the
//!    race table shown, then with the flow-field view (the app's view plugin for it, with an
//!    asset store for its heat map): the edit frames' times (the main route, the race and the
//!    flow field are worked out on threads of their own there), and how long after the last edit
//!    the route shown (and the race, the flow field) is for the map as painted.
//! 9. `plugin-routes`: 1,000 JPS requests with `bevy_gridpath` alone on 512 x 512 generated maps
//!    (maze, rooms, caves, 25 % noise), searched as they are and answered by `SubgoalRoutes`'
//!    graph: the time until every request is answered, the graph's build, and how long after a
//!    one-cell edit the graph describes the grid again (meanwhile requests are searched).

use std::time::{Duration, Instant};

use bevy::input::ButtonState;
use bevy::input::InputPlugin;
use bevy::input::mouse::MouseButtonInput;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_gridpath::{
    Avoid, FlowFields, FollowFlowField, GridPathPlugin, LocalAvoidance, Mover, NavGrid, PathRequest,
    PathStatus, PlanQueue, SubgoalRoutes,
};
use gridpath::avoid::{Body, Quality};
use gridpath::generate::Generator;
use gridpath::{Algorithm, FlowField, Grid, Pos, Rules, Settings};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tilepath::LogicPlugin;
use tilepath::input::bindings::Control;
use tilepath::input::pointer::HoverTile;
use tilepath::map::geometry::Geometry;
use tilepath::map::level::MapSource;
use tilepath::map::problem::Endpoints;
use tilepath::search::plan::PlanRunner;
use tilepath::search::race::RaceRunner;
use tilepath::search::replay::AnimationSpeed;
use tilepath::units::crowd::{CrowdUnit, Target, crowd_unit};
use tilepath::units::lab::DEFAULT_SPEED;
use tilepath::view::flow::FlowJobs;

/// Side of the benchmark map, in cells.
const SIDE: u32 = 256;
/// Units in the flow and edit benchmarks.
const UNITS: usize = 10_000;
/// Frame time the app is stepped with, in seconds (60 frames per second).
const FRAME: f64 = 1.0 / 60.0;

/// A 256 × 256 ASCII map: 10 % scattered walls and 60 wall segments (4 to 30 cells), the goal
/// in the middle, the start in the top-left corner.
fn bench_map(seed: u64) -> MapSource {
    let side = SIDE as usize;
    let mut rng = StdRng::seed_from_u64(seed);
    let mut cells = vec![b'.'; side * side];
    for cell in &mut cells {
        if rng.random_bool(0.10) {
            *cell = b'#';
        }
    }
    for _ in 0..60 {
        let (x, y) = (rng.random_range(0..side), rng.random_range(0..side));
        let horizontal = rng.random_bool(0.5);
        for i in 0..rng.random_range(4..30) {
            let (cx, cy) = if horizontal { (x + i, y) } else { (x, y + i) };
            if cx < side && cy < side {
                cells[cy * side + cx] = b'#';
            }
        }
    }
    // Free neighbourhoods round the endpoints.
    for (x, y, marker) in [(1, 1, b'S'), (side / 2, side / 2, b'G')] {
        for cy in y - 1..=y + 1 {
            cells[cy * side + x - 1..=cy * side + x + 1].fill(b'.');
        }
        cells[y * side + x] = marker;
    }
    let rows: Vec<String> =
        cells.chunks(side).map(|row| String::from_utf8(row.to_vec()).unwrap_or_default()).collect();
    MapSource::Text { name: "bench".into(), text: rows.join("\n") }
}

fn bench_app() -> App {
    bench_app_on(bench_map(1))
}

fn bench_app_on(map: MapSource) -> App {
    let mut app = unstarted_bench_app(map);
    app.update();
    app
}

/// The benchmark app before its first frame (plugins added now still get their start-up).
fn unstarted_bench_app(map: MapSource) -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins.set(tilepath::task_pool_plugin()), InputPlugin))
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(FRAME)))
        .insert_resource(map)
        .insert_resource(AnimationSpeed::Instant)
        .add_plugins(LogicPlugin);
    app
}

/// Cells that can reach the main goal.
fn reachable_cells(app: &App) -> Vec<Pos> {
    let grid = app.world().resource::<NavGrid>().grid();
    let goal = app.world().resource::<Endpoints>().goal;
    let field = FlowField::dijkstra(grid, goal, Rules::OCTILE).expect("the goal is free");
    grid.positions().filter(|&p| p != goal && field.distance(p).is_some()).collect()
}

fn spawn_crowd(app: &mut App, count: usize, seed: u64) -> Vec<Entity> {
    let cells = reachable_cells(app);
    let geometry = Geometry::of(app.world().resource::<NavGrid>().grid());
    let mut rng = StdRng::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            let cell = cells[rng.random_range(0..cells.len())];
            app.world_mut().spawn(crowd_unit(cell, geometry, DEFAULT_SPEED)).id()
        })
        .collect()
}

/// Sends `units` each to a random reachable cell on a route of its own.
fn order_alone(app: &mut App, units: &[Entity], seed: u64) {
    let cells = reachable_cells(app);
    let mut rng = StdRng::seed_from_u64(seed);
    for &unit in units {
        let goal = cells[rng.random_range(0..cells.len())];
        app.world_mut()
            .entity_mut(unit)
            .remove::<FollowFlowField>()
            .insert((Target::Cell(goal), PathRequest::new(goal)));
    }
}

/// Flow fields built (and of those, repaired around the edit), followers re-routed by a
/// rebuild, own routes re-planned after edits.
fn counters(app: &App) -> (u64, u64, u64, u64) {
    let fields = app.world().resource::<FlowFields>();
    (fields.builds, fields.repaired, fields.rerouted, app.world().resource::<PlanQueue>().counts().replans)
}

fn timed_update(app: &mut App) -> Duration {
    let started = Instant::now();
    app.update();
    started.elapsed()
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort_unstable();
    times[times.len() / 2]
}

fn percentile(times: &mut [Duration], p: f64) -> Duration {
    times.sort_unstable();
    let index = ((times.len() - 1) as f64 * p).round() as usize;
    times[index]
}

fn statuses(app: &mut App) -> (usize, usize, usize, usize) {
    let mut query = app.world_mut().query_filtered::<&PathStatus, With<CrowdUnit>>();
    let (mut walking, mut arrived, mut planning, mut stopped) = (0, 0, 0, 0);
    for status in query.iter(app.world()) {
        match status {
            // A partial route is walked too (the bench's goals are all reachable).
            PathStatus::Following | PathStatus::Partial => walking += 1,
            PathStatus::Arrived => arrived += 1,
            PathStatus::Planning => planning += 1,
            PathStatus::Failed(_) => stopped += 1,
        }
    }
    (walking, arrived, planning, stopped)
}

/// `avoidance` off: units only pushed apart (the `O` key), the cost of avoidance by difference.
fn flow(avoidance: bool) {
    let mut app = bench_app();
    app.insert_resource(tilepath::units::CrowdAvoidance(avoidance));
    spawn_crowd(&mut app, UNITS, 2);
    // Warm-up: the field is built, buffers grow.
    for _ in 0..30 {
        app.update();
    }
    let mut times: Vec<Duration> = (0..600).map(|_| timed_update(&mut app)).collect();
    let (walking, arrived, _, stopped) = statuses(&mut app);
    println!(
        "flow{}:  {UNITS} units, 1 flow field, 256x256, 600 frames: median {:.3} ms, p95 {:.3} ms, max {:.3} ms \
         (after 10.5 s: {walking} walking, {arrived} arrived, {stopped} stopped)",
        if avoidance { "" } else { " (push)" },
        ms(median(&mut times)),
        ms(percentile(&mut times, 0.95)),
        ms(*times.iter().max().unwrap_or(&Duration::ZERO)),
    );
}

/// `plugin-flow`: [`flow`]'s crowd made with `bevy_gridpath` alone, local avoidance `avoidance`.
fn plugin_flow(avoidance: bool) {
    let MapSource::Text { text, .. } = bench_map(1) else { unreachable!("the bench map is ASCII") };
    let parsed = gridpath::formats::parse_map(&text).expect("the bench map parses");
    let goal = parsed.goal.expect("the bench map marks its goal");
    let field = FlowField::dijkstra(&parsed.grid, goal, Rules::OCTILE).expect("the goal is free");
    let cells: Vec<Pos> =
        parsed.grid.positions().filter(|&p| p != goal && field.distance(p).is_some()).collect();
    let nav = NavGrid::centered(parsed.grid, 16.0);
    let mut app = App::new();
    app.add_plugins((MinimalPlugins.set(tilepath::task_pool_plugin()), GridPathPlugin))
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(FRAME)))
        .insert_resource(LocalAvoidance { enabled: avoidance, ..LocalAvoidance::default() });
    // The same cells as `flow`'s crowd.
    let mut rng = StdRng::seed_from_u64(2);
    for _ in 0..UNITS {
        let cell = cells[rng.random_range(0..cells.len())];
        let at = Transform::from_translation(nav.cell_center(cell).extend(1.0));
        app.world_mut().spawn((at, Mover::new(DEFAULT_SPEED), Avoid::default(), FollowFlowField::new(goal)));
    }
    app.insert_resource(nav);
    for _ in 0..30 {
        app.update();
    }
    let mut times: Vec<Duration> = (0..600).map(|_| timed_update(&mut app)).collect();
    let mut query = app.world_mut().query::<&PathStatus>();
    let arrived = query.iter(app.world()).filter(|s| **s == PathStatus::Arrived).count();
    println!(
        "plugin-flow{}:  {UNITS} avoiders, 1 flow field, 256x256, 600 frames: median {:.3} ms, p95 {:.3} ms, \
         max {:.3} ms (after 10.5 s: {arrived} arrived)",
        if avoidance { "" } else { " (off)" },
        ms(median(&mut times)),
        ms(percentile(&mut times, 0.95)),
        ms(*times.iter().max().unwrap_or(&Duration::ZERO)),
    );
}

/// An ASCII map from rows of `.` and `#`, the lab's start and goal side by side in the top-left
/// corner (out of the crowd's way).
fn ascii_map(name: &str, width: usize, height: usize, wall: impl Fn(usize, usize) -> bool) -> MapSource {
    let rows: Vec<String> = (0..height)
        .map(|y| {
            (0..width)
                .map(|x| match (x, y) {
                    (0, 0) => 'S',
                    (1, 0) => 'G',
                    _ if wall(x, y) => '#',
                    _ => '.',
                })
                .collect()
        })
        .collect();
    MapSource::Text { name: name.into(), text: rows.join("\n") }
}

fn avoid(wanted: impl Fn(&str) -> bool) {
    let scenes: [(&str, fn() -> Scene); 4] = [
        ("corridor", corridor_scene),
        ("door", door_scene),
        ("converge", converge_scene),
        ("ring", ring_scene),
    ];
    for (name, scene) in scenes {
        if wanted(&format!("avoid-{name}")) {
            let (map, units, seconds) = scene();
            avoid_scenario(name, map, &units, seconds);
        }
        if wanted(&format!("plugin-avoid-{name}")) {
            let (map, units, seconds) = scene();
            plugin_avoid_scenario(name, map, &units, seconds);
        }
    }
}

/// A jam scenario: the map, each unit's cell and goal (`None`: the map's goal), seconds of play.
type Scene = (MapSource, Vec<(Pos, Option<Pos>)>, f64);

fn corridor_scene() -> Scene {
    // Corridor: rooms of 20 x 13 at both ends of a corridor 3 tiles wide (rows 5-7) and 40 long.
    let corridor = ascii_map("corridor", 80, 13, |x, y| (20..60).contains(&x) && !(5..=7).contains(&y));
    let left: Vec<Pos> = (0..20).flat_map(|x| (1..13).map(move |y| Pos::new(x, y))).collect();
    let right: Vec<Pos> = (60..80).flat_map(|x| (1..13).map(move |y| Pos::new(x, y))).collect();
    let mut groups = Vec::new();
    groups.extend(left.iter().rev().take(200).map(|&cell| (cell, Some(Pos::new(75, 6)))));
    groups.extend(right.iter().take(200).map(|&cell| (cell, Some(Pos::new(4, 6)))));
    // Another spawn order: CORRIDOR_SEED=N (the crossing goes differently in each).
    if let Some(seed) = std::env::var("CORRIDOR_SEED").ok().and_then(|s| s.parse().ok()) {
        use rand::seq::SliceRandom;
        groups.shuffle(&mut StdRng::seed_from_u64(seed));
    }
    (corridor, groups, 600.0)
}

/// The door scene's wall column.
const DOOR_WALL: u32 = 45;

fn door_scene() -> Scene {
    // Door (the gridpath harness's): a wall down column 45 with a one-tile door at row 30;
    // 1,000 units left of it, their goal 25 tiles beyond it in a room of 44 x 60 that holds
    // them at a unit to 2.6 cells (a room they fill to the door would end them there).
    let door = ascii_map("door", 90, 60, |x, y| x == DOOR_WALL as usize && y != 30);
    let cells: Vec<(Pos, Option<Pos>)> = (0..DOOR_WALL)
        .rev()
        .flat_map(|x| (1..60u32).map(move |y| Pos::new(x, y)))
        .take(1000)
        .map(|cell| (cell, Some(Pos::new(70, 30))))
        .collect();
    (door, cells, 900.0)
}

fn ring_scene() -> Scene {
    // Ring (the gridpath harness's dead-end ring): a corridor 2 tiles wide (rows 1-2) and 160
    // long with a dead end; 60 units gather round (80, 1), and 10 from its left end, bound for
    // (158, 1), must get through them (before arrived units pushed away walked back, they
    // shoved the ring into the dead end, onto the passers' goal, and never arrived).
    let corridor = ascii_map("ring", 160, 4, |_, y| y == 0 || y == 3);
    let ring = (60..90).flat_map(|x| (1..3).map(move |y| (Pos::new(x, y), Some(Pos::new(80, 1)))));
    let passers = (2..7).flat_map(|x| (1..3).map(move |y| (Pos::new(x, y), Some(Pos::new(158, 1)))));
    (corridor, ring.chain(passers).collect(), 900.0)
}

fn converge_scene() -> Scene {
    // Converge: 10,000 units on distinct cells of the bench map, on the main goal.
    let app = bench_app();
    let mut cells = reachable_cells(&app);
    drop(app);
    {
        use rand::seq::SliceRandom;
        // Another spawn order: CONVERGE_SEED=N (jams show in some orders and not in others).
        let seed = std::env::var("CONVERGE_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(4);
        cells.shuffle(&mut StdRng::seed_from_u64(seed));
    }
    let units: Vec<(Pos, Option<Pos>)> = cells.iter().take(UNITS).map(|&cell| (cell, None)).collect();
    (bench_map(1), units, 120.0)
}

/// Runs the crowd `units` (each on its cell, heading for its own goal along that goal's shared
/// flow field, or for the main goal) on `map` until every one arrived or `seconds` of play
/// passed, and prints the scenario's line.
fn avoid_scenario(name: &str, map: MapSource, units: &[(Pos, Option<Pos>)], seconds: f64) {
    use tilepath::map::geometry::TILE_SIZE;
    use tilepath::units::UNIT_RADIUS;

    let mut app = bench_app_on(map);
    let grid = app.world().resource::<NavGrid>().grid().clone();
    let geometry = Geometry::of(&grid);
    for &(cell, goal) in units {
        let mut unit = app.world_mut().spawn(crowd_unit(cell, geometry, DEFAULT_SPEED));
        if let Some(goal) = goal {
            unit.insert((Target::Cell(goal), FollowFlowField::new(goal)));
        }
    }
    let half = geometry.world_size() / 2.0;
    let mut query = app.world_mut().query::<(&Transform, &CrowdUnit, &PathStatus)>();
    run_scene(&format!("avoid {name}"), &mut app, &grid, seconds, |app, bodies, arrived| {
        for (transform, crowd, status) in query.iter(app.world()) {
            let world = transform.translation.truncate();
            let position = Vec2::new(world.x + half.x, half.y - world.y) / TILE_SIZE;
            bodies
                .push(Body { velocity: crowd.velocity(), ..Body::new(position, UNIT_RADIUS, DEFAULT_SPEED) });
            arrived.push(*status == PathStatus::Arrived);
        }
    });
}

/// [`avoid_scenario`]'s crowd made with `bevy_gridpath` alone, as any game would: a `Mover`, an
/// `Avoid` and a `FollowFlowField` per unit, `MinimalPlugins` + `GridPathPlugin`. Prints the
/// same line, named `plugin-avoid <name>`.
fn plugin_avoid_scenario(name: &str, map: MapSource, units: &[(Pos, Option<Pos>)], seconds: f64) {
    const TILE: f32 = 16.0;
    let MapSource::Text { text, .. } = map else { unreachable!("the scenes' maps are ASCII") };
    let parsed = gridpath::formats::parse_map(&text).expect("the scene's map parses");
    // Units without a goal of their own head for the map's.
    let main_goal = parsed.goal.expect("the scene's map marks its goal");
    let grid = parsed.grid.clone();
    let nav = NavGrid::centered(parsed.grid, TILE);
    let origin = nav.layout().origin;
    let mut app = App::new();
    app.add_plugins((MinimalPlugins.set(tilepath::task_pool_plugin()), GridPathPlugin))
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(FRAME)));
    let radius = Avoid::default().radius;
    for &(cell, goal) in units {
        let at = Transform::from_translation(nav.cell_center(cell).extend(1.0));
        let follow = FollowFlowField::new(goal.unwrap_or(main_goal));
        app.world_mut().spawn((at, Mover::new(DEFAULT_SPEED), Avoid::default(), follow));
    }
    app.insert_resource(nav);
    app.update();
    let tiles = |t: &Transform| Vec2::new(t.translation.x - origin.x, origin.y - t.translation.y) / TILE;
    let mut query = app.world_mut().query::<(&Transform, &PathStatus, &Avoid)>();
    run_scene(&format!("plugin-avoid {name}"), &mut app, &grid, seconds, |app, bodies, arrived| {
        for (transform, status, avoid) in query.iter(app.world()) {
            // The velocity it walked at (a trade of places is none, as the game's units count it).
            bodies.push(Body {
                velocity: avoid.velocity(),
                ..Body::new(tiles(transform), radius, DEFAULT_SPEED)
            });
            arrived.push(*status == PathStatus::Arrived);
        }
    });
}

/// Steps `app` until every unit arrived or `seconds` of play passed; `observe` lists each
/// frame's bodies (grid space, with their velocities) and whether each has arrived. Prints the
/// scene's line as `label: units=… arrived=…`, with the units the door scene left behind it.
fn run_scene(
    label: &str,
    app: &mut App,
    grid: &gridpath::Grid,
    seconds: f64,
    mut observe: impl FnMut(&mut App, &mut Vec<Body>, &mut Vec<bool>),
) {
    let mut quality = Quality::default();
    let (mut bodies, mut flags) = (Vec::new(), Vec::new());
    let mut times = Vec::new();
    let (mut arrived, mut last_arrival) = (0, 0.0);
    for frame in 0..(seconds / FRAME) as usize {
        times.push(timed_update(app));
        bodies.clear();
        flags.clear();
        observe(app, &mut bodies, &mut flags);
        quality.observe(&bodies, grid);
        let now = flags.iter().filter(|&&a| a).count();
        if now > arrived {
            arrived = now;
            last_arrival = frame as f64 * FRAME;
        }
        if arrived == bodies.len() {
            break;
        }
    }
    if arrived < bodies.len() {
        // Where the jam is: a few of the units that did not arrive.
        let stuck: Vec<Vec2> =
            bodies.iter().zip(&flags).filter(|(_, a)| !**a).map(|(b, _)| b.position).take(5).collect();
        eprintln!("{label}: not arrived, e.g. at {stuck:?}");
    }
    // The crowd at rest: what an arrived crowd costs a frame while nothing passes, and how many
    // units still move on its last frame (a standing jiggle).
    let (mut resting, mut still_moving) = (Vec::new(), 0);
    if arrived == bodies.len() {
        resting.extend((1..REST_FRAMES).map(|_| timed_update(app)));
        let mut before = Vec::new();
        flags.clear();
        observe(app, &mut before, &mut flags);
        resting.push(timed_update(app));
        bodies.clear();
        flags.clear();
        observe(app, &mut bodies, &mut flags);
        still_moving = bodies
            .iter()
            .zip(&before)
            .filter(|(now, was)| now.position.distance(was.position) > 1e-4)
            .count();
    }
    if label.ends_with(" door") {
        // "Arrived" left of the door's wall means a unit stopped on touching an arrived one
        // that stopped the same way, back along the way from the ring round the goal, out
        // through the door.
        #[expect(clippy::cast_precision_loss, reason = "a column")]
        let behind = bodies.iter().filter(|b| b.position.x < DOOR_WALL as f32 + 1.0).count();
        println!("  door: {behind} of {} units ended behind the door", bodies.len());
    }
    println!(
        "{label}: units={} arrived={arrived} gap_ratio={:.3} wall_overlaps={} last_arrival_s={last_arrival:.1} \
         oscillation={:.2}% median_ms={:.3} p95_ms={:.3}",
        bodies.len(),
        quality.gap_ratio,
        quality.wall_overlaps,
        quality.oscillation_percent(),
        ms(median(&mut times)),
        ms(percentile(&mut times, 0.95)),
    );
    if !resting.is_empty() {
        println!(
            "  {label} at rest, {REST_FRAMES} frames after the last arrival: median_ms={:.3} p95_ms={:.3} \
             moving_on_last_frame={still_moving}",
            ms(median(&mut resting)),
            ms(percentile(&mut resting, 0.95)),
        );
    }
}

/// Frames timed after a scene's last arrival, the crowd at rest.
const REST_FRAMES: usize = 300;

fn mouse(app: &mut App, state: ButtonState) {
    app.world_mut().write_message(MouseButtonInput {
        button: MouseButton::Left,
        state,
        window: Entity::PLACEHOLDER,
    });
}

fn edit() {
    let mut app = bench_app();
    let units = spawn_crowd(&mut app, UNITS, 3);
    order_alone(&mut app, &units[..100], 4);
    for _ in 0..120 {
        app.update();
        // Let the 100 routes arrive before measuring.
        std::thread::sleep(Duration::from_millis(2));
    }
    let mut quiet: Vec<Duration> = (0..120).map(|_| timed_update(&mut app)).collect();
    let mut rng = StdRng::seed_from_u64(5);
    let mut edit_frames = Vec::new();
    let before = counters(&app);
    for _ in 0..20 {
        // A 2-frame stroke: the press paints one cell, the next frame a line of up to 24 cells.
        let a = Pos::new(rng.random_range(8..SIDE - 32), rng.random_range(8..SIDE - 32));
        let b = if rng.random_bool(0.5) { Pos::new(a.x + 24, a.y) } else { Pos::new(a.x, a.y + 24) };
        app.world_mut().resource_mut::<HoverTile>().0 = Some(a);
        mouse(&mut app, ButtonState::Pressed);
        edit_frames.push(timed_update(&mut app));
        app.world_mut().resource_mut::<HoverTile>().0 = Some(b);
        edit_frames.push(timed_update(&mut app));
        mouse(&mut app, ButtonState::Released);
        app.update();
        for _ in 0..10 {
            app.update();
        }
    }
    let after = counters(&app);
    let quiet_median = median(&mut quiet);
    println!(
        "edit:  {UNITS} units (100 on own routes), 20 wall strokes = 40 edit frames: median {:.3} ms, \
         max {:.3} ms (frames without edits: median {:.3} ms); {} field rebuilds ({} repaired around \
         the edit), {} followers re-routed by them, {} own routes re-planned",
        ms(median(&mut edit_frames)),
        ms(*edit_frames.iter().max().unwrap_or(&Duration::ZERO)),
        ms(quiet_median),
        after.0 - before.0,
        after.1 - before.1,
        after.2 - before.2,
        after.3 - before.3,
    );
}

fn run_async(algorithm: Algorithm) {
    let mut app = bench_app();
    if algorithm != Algorithm::AStar {
        app.world_mut().write_message(Control::SelectAlgorithm(algorithm));
        app.update();
    }
    let units = spawn_crowd(&mut app, 1000, 6);
    order_alone(&mut app, &units, 7);
    let period = Duration::from_secs_f64(FRAME);
    let mut times = Vec::new();
    let started = Instant::now();
    let mut frames = 0;
    loop {
        let frame_start = Instant::now();
        times.push(timed_update(&mut app));
        frames += 1;
        let (_, _, planning, _) = statuses(&mut app);
        if planning == 0 && app.world().resource::<PlanQueue>().is_idle() {
            break;
        }
        if frames > 10_000 {
            println!("async: gave up after {frames} frames");
            break;
        }
        // Paced like a 60 Hz game: the searches run on the task pool meanwhile.
        if let Some(rest) = period.checked_sub(frame_start.elapsed()) {
            std::thread::sleep(rest);
        }
    }
    let counts = app.world().resource::<PlanQueue>().counts();
    let (walking, arrived, _, stopped) = statuses(&mut app);
    println!(
        "async: 1000 {algorithm} requests at 60 fps: all served after {frames} frames ({:.0} ms), longest \
         frame {:.3} ms, median frame {:.3} ms; delivered {}, discarded {}; {walking} walking, {arrived} \
         arrived, {stopped} without a route",
        ms(started.elapsed()),
        ms(*times.iter().max().unwrap_or(&Duration::ZERO)),
        ms(median(&mut times)),
        counts.delivered,
        counts.discarded,
    );
}

/// Requests in the flood benchmark.
const FLOOD: usize = 100_000;

/// A line of `/proc/self/status` in MiB (`VmRSS`: now, `VmHWM`: the peak); 0 where there is none.
fn memory_mib(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib = status.lines().find_map(|line| {
        line.strip_prefix(field)?
            .trim_start_matches(':')
            .trim()
            .strip_suffix("kB")?
            .trim()
            .parse::<f64>()
            .ok()
    });
    kib.unwrap_or(0.0) / 1024.0
}

/// 100,000 path requests in one frame (entities with a `PathRequest` to a cell a few steps
/// away), then all 100,000 asking again for another goal while the first wave still waits:
/// every frame's time, the queue's peak length and the process's memory.
fn flood() {
    let mut app = bench_app();
    let cells = reachable_cells(&app);
    let nav = app.world().resource::<NavGrid>().clone();
    let mut rng = StdRng::seed_from_u64(8);
    let near = |rng: &mut StdRng, from: Pos| {
        let mut pick = |v: u32, side: u32| (v + rng.random_range(0..9)).saturating_sub(4).min(side - 1);
        Pos::new(pick(from.x, SIDE), pick(from.y, SIDE))
    };
    let rss_before = memory_mib("VmRSS");
    let units: Vec<Entity> = (0..FLOOD)
        .map(|_| {
            let from = cells[rng.random_range(0..cells.len())];
            let goal = near(&mut rng, from);
            let at = Transform::from_translation(nav.cell_center(from).extend(0.0));
            app.world_mut().spawn((at, PathRequest::new(goal))).id()
        })
        .collect();
    let mut times = vec![timed_update(&mut app)];
    let mut peak_waiting = app.world().resource::<PlanQueue>().waiting();
    for &unit in &units {
        let from = app.world().get::<Transform>(unit).map(|t| t.translation.truncate()).unwrap_or_default();
        let goal = near(&mut rng, nav.cell_at(from).unwrap_or(Pos::new(0, 0)));
        if let Some(mut request) = app.world_mut().get_mut::<PathRequest>(unit) {
            request.goal = goal;
        }
    }
    let mut frames = 1;
    while !app.world().resource::<PlanQueue>().is_idle() && frames < 20_000 {
        times.push(timed_update(&mut app));
        peak_waiting = peak_waiting.max(app.world().resource::<PlanQueue>().waiting());
        frames += 1;
    }
    let counts = app.world().resource::<PlanQueue>().counts();
    let first = times[0];
    println!(
        "flood: requests={} then {} again: frames={frames} first_frame_ms={:.2} max_frame_ms={:.2} \
         median_ms={:.3} p95_ms={:.3} peak_waiting={peak_waiting} searched={} delivered={} \
         rss_before_mib={rss_before:.0} rss_after_mib={:.0} rss_peak_mib={:.0}",
        FLOOD,
        FLOOD,
        ms(first),
        ms(*times.iter().max().unwrap_or(&Duration::ZERO)),
        ms(median(&mut times.clone())),
        ms(percentile(&mut times, 0.95)),
        counts.searched,
        counts.delivered,
        memory_mib("VmRSS"),
        memory_mib("VmHWM"),
    );
}

/// The largest maps play can make: every generator at the largest map the app opens
/// (`MAX_MAP_SIDE` squared), each with a crowd and a few random maps after it; the process's
/// memory after each and its peak, against a budget.
fn bigmap() {
    /// Peak resident memory the game logic may reach on the largest maps, in MiB.
    const BUDGET_MIB: f64 = 1024.0;
    let mut app = bench_app();
    let side = tilepath::map::level::MAX_MAP_SIDE;
    let mut line = format!("bigmap: {side}x{side}:");
    let mut slowest = Duration::ZERO;
    for generator in Generator::ALL {
        let source = MapSource::Generated { generator, seed: 1, width: side, height: side };
        app.world_mut().write_message(tilepath::edit::files::OpenMap(source));
        slowest = slowest.max(timed_update(&mut app));
        for control in [Control::SpawnCrowd, Control::RandomMap, Control::SpawnCrowd, Control::RandomMap] {
            app.world_mut().write_message(control);
            slowest = slowest.max(timed_update(&mut app));
            for _ in 0..30 {
                slowest = slowest.max(timed_update(&mut app));
            }
        }
        line.push_str(&format!(" {}={:.0}MiB", generator.name(), memory_mib("VmRSS")));
    }
    let peak = memory_mib("VmHWM");
    println!(
        "{line} peak={peak:.0}MiB budget={BUDGET_MIB:.0}MiB {} slowest_frame_ms={:.0}",
        if peak <= BUDGET_MIB { "within" } else { "OVER" },
        ms(slowest)
    );
}

/// Updates `app` until `done`, at most `limit`; the time it took.
fn until(app: &mut App, limit: Duration, done: impl Fn(&App) -> bool) -> Duration {
    let started = Instant::now();
    while !done(app) && started.elapsed() < limit {
        app.update();
        std::thread::sleep(Duration::from_millis(1));
    }
    started.elapsed()
}

fn paint() {
    let side = tilepath::map::level::MAX_MAP_SIDE;
    for shown in ["nothing more", "the race", "the flow field"] {
        let (race, flow) = (shown == "the race", shown == "the flow field");
        let source = MapSource::Generated { generator: Generator::Caves, seed: 3, width: side, height: side };
        let mut app = unstarted_bench_app(source);
        if flow {
            app.add_plugins(bevy::asset::AssetPlugin::default())
                .init_asset::<Image>()
                .add_plugins(tilepath::view::flow::plugin);
        }
        app.update();
        let planned = |app: &App| !app.world().resource::<PlanRunner>().is_planning();
        let raced = |app: &App| !app.world().resource::<RaceRunner>().is_racing();
        let flowed = |app: &App| !app.world().get_resource::<FlowJobs>().is_some_and(FlowJobs::is_updating);
        until(&mut app, Duration::from_secs(60), planned);
        if race {
            app.world_mut().write_message(Control::ToggleRace);
            app.update();
            until(&mut app, Duration::from_secs(120), raced);
        }
        if flow {
            app.world_mut().write_message(Control::ToggleFlowField);
            app.update();
            until(&mut app, Duration::from_secs(60), flowed);
        }
        let mut rng = StdRng::seed_from_u64(5);
        let mut frames = Vec::new();
        for _ in 0..20 {
            let cell = Pos::new(rng.random_range(8..side - 8), rng.random_range(8..side - 8));
            app.world_mut().resource_mut::<HoverTile>().0 = Some(cell);
            mouse(&mut app, ButtonState::Pressed);
            frames.push(timed_update(&mut app));
            mouse(&mut app, ButtonState::Released);
            app.update();
        }
        let after = Instant::now();
        until(&mut app, Duration::from_secs(60), planned);
        let route = after.elapsed();
        until(&mut app, Duration::from_secs(120), |app| raced(app) && flowed(app));
        let rest = after.elapsed();
        println!(
            "paint: {side}x{side} caves with {shown}, 20 one-cell walls: edit frames median {:.1} ms, max {:.1} ms; \
             for the map as painted {:.0} ms after the last: the route{}",
            ms(median(&mut frames)),
            ms(*frames.iter().max().unwrap_or(&Duration::ZERO)),
            ms(route),
            if race || flow { format!(" ({}: {:.0} ms)", shown, ms(rest)) } else { String::new() },
        );
    }
}

fn main() {
    let filter: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    // `=flow` runs `flow` alone; `flow` every benchmark whose name holds it.
    let wanted = |name: &str| {
        filter.is_empty()
            || filter
                .iter()
                .any(|f| f.strip_prefix('=').map_or_else(|| name.contains(f.as_str()), |exact| name == exact))
    };
    println!("threads: {}", std::thread::available_parallelism().map_or(1, |n| n.get()));
    if wanted("flow") {
        flow(true);
    }
    if wanted("flow-push") {
        flow(false);
    }
    if wanted("plugin-flow") {
        plugin_flow(true);
    }
    if wanted("plugin-flow-off") {
        plugin_flow(false);
    }
    if wanted("edit") {
        edit();
    }
    // `avoid` runs its four scenarios, in the game and with the plugin alone; `avoid-door`
    // (or `door`) one of them, `plugin-avoid` the plugin's.
    let scenes = ["avoid-corridor", "avoid-door", "avoid-converge", "avoid-ring"];
    if scenes.iter().any(|name| wanted(name) || wanted(&format!("plugin-{name}"))) {
        avoid(wanted);
    }
    if wanted("async") {
        run_async(Algorithm::AStar);
        run_async(Algorithm::Jps);
    }
    if wanted("flood") {
        flood();
    }
    if wanted("bigmap") {
        bigmap();
    }
    if wanted("paint") {
        paint();
    }
    if wanted("plugin-routes") {
        plugin_routes();
    }
}

/// Requests in the `plugin-routes` benchmark.
const ROUTES: usize = 1000;

/// `plugin-routes`: see the module notes.
fn plugin_routes() {
    let maps = [
        ("maze", Generator::Maze { corridor: 1 }),
        ("rooms", Generator::Rooms),
        ("caves", Generator::Caves),
        ("noise 25 %", Generator::Noise { density: 0.25 }),
    ];
    for (name, generator) in maps {
        let grid = gridpath::generate::generate(generator, 512, 512, 1).expect("a 512 x 512 map");
        // Pairs within the region of the open cell nearest the middle (a noise map has islands;
        // the middle is in its great one): every request has a route.
        let anchor = grid
            .positions()
            .filter(|&p| grid.is_passable(p))
            .min_by_key(|p| p.x.abs_diff(256) + p.y.abs_diff(256))
            .expect("an open cell");
        let field = FlowField::dijkstra(&grid, anchor, Rules::OCTILE).expect("an open cell");
        let cells: Vec<Pos> = grid.positions().filter(|&p| field.distance(p).is_some()).collect();
        let mut rng = StdRng::seed_from_u64(9);
        let pairs: Vec<(Pos, Pos)> = (0..ROUTES)
            .map(|_| (cells[rng.random_range(0..cells.len())], cells[rng.random_range(0..cells.len())]))
            .collect();
        let searched = answer_routes(&grid, &pairs, false);
        let by_graph = answer_routes(&grid, &pairs, true);
        println!(
            "plugin-routes {name}: {ROUTES} JPS requests answered in {:.1} ms searched, {:.1} ms by the subgoal graph \
             ({:.1}x; {} of {ROUTES} by the graph); graph built in {:.0} ms off the frame; after a one-cell \
             edit it describes the grid again in {:.1} ms (median of 20; max {:.1})",
            ms(searched.answered),
            ms(by_graph.answered),
            searched.answered.as_secs_f64() / by_graph.answered.as_secs_f64(),
            by_graph.by_graph,
            ms(by_graph.build),
            ms(by_graph.repair_median),
            ms(by_graph.repair_max),
        );
    }
}

/// What [`answer_routes`] measured.
#[derive(Default)]
struct RoutesRun {
    /// From the requests' frame until every one is answered.
    answered: Duration,
    /// Answers found by the graph.
    by_graph: u64,
    /// The graph's first build, and its repairs after one-cell edits.
    build: Duration,
    repair_median: Duration,
    repair_max: Duration,
}

/// One request per pair on `grid` with the plugin alone (JPS), with or without `SubgoalRoutes`
/// (its graph built first); frames back to back until all are answered.
fn answer_routes(grid: &Grid, pairs: &[(Pos, Pos)], graph: bool) -> RoutesRun {
    let mut app = App::new();
    // Real time: the graph's hierarchy comes back after the grid rests half a second of it,
    // and the edits below come faster than that, as a painting player's.
    app.add_plugins((MinimalPlugins.set(tilepath::task_pool_plugin()), GridPathPlugin))
        .insert_resource(NavGrid::centered(grid.clone(), 16.0));
    let mut run = RoutesRun::default();
    // Until the graph describes the grid as it is: the time, to a tenth of a millisecond.
    let wait_for_graph = |app: &mut App| {
        let began = Instant::now();
        loop {
            app.update();
            let routes = app.world().resource::<SubgoalRoutes>();
            if routes.is_ready(app.world().resource::<NavGrid>()) {
                return began.elapsed();
            }
            std::thread::sleep(Duration::from_micros(100));
        }
    };
    if graph {
        app.init_resource::<SubgoalRoutes>();
        run.build = wait_for_graph(&mut app);
    }
    app.update();
    let nav = app.world().resource::<NavGrid>().clone();
    let jps = Settings::with_algorithm(Algorithm::Jps);
    let units: Vec<Entity> = pairs
        .iter()
        .map(|&(from, to)| {
            let at = Transform::from_translation(nav.cell_center(from).extend(1.0));
            app.world_mut().spawn((at, PathRequest::new(to).with_settings(jps))).id()
        })
        .collect();
    let began = Instant::now();
    loop {
        app.update();
        let answered = units.iter().all(|&u| app.world().get::<PathStatus>(u) != Some(&PathStatus::Planning));
        if answered && app.world().resource::<PlanQueue>().is_idle() {
            break;
        }
    }
    run.answered = began.elapsed();
    run.by_graph = app.world().resource::<PlanQueue>().counts().by_subgoal_graph;
    if graph {
        // Without the requests, whose re-planning after an edit would share the cores.
        for unit in units {
            app.world_mut().despawn(unit);
        }
        // One-cell edits, each toggling an open cell of a pair to wall and back on the next.
        let mut repairs: Vec<Duration> = (0..20)
            .map(|k| {
                let at = pairs[k / 2].0;
                app.world_mut().resource_mut::<NavGrid>().set_wall(at, k % 2 == 0).expect("in bounds");
                wait_for_graph(&mut app)
            })
            .collect();
        run.repair_median = median(&mut repairs);
        run.repair_max = repairs.iter().copied().max().unwrap_or_default();
    }
    run
}
