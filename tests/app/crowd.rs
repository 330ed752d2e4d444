//! Crowds: many units, shared flow fields, orders, terrain, async planning, re-routing.
use super::*;
use bevy_gridpath::{FlowFields, FollowFlowField, PathRequest, PlanBudget, PlanQueue};
use gridpath::{Algorithm, FlowField, Searcher, Settings};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tilepath::input::pointer::Selected;
use tilepath::units::crowd::{CrowdUnit, Target, crowd_unit, routed_crowd_unit};
use tilepath::units::lab::DEFAULT_SPEED;

/// Frames to wait for the planning queue's background searches.
const MAX_PLAN_FRAMES: usize = 400;

/// Where a crowd unit is: its entity, cell, goal, status and world position.
#[derive(Debug, Clone)]
struct Seen {
    entity: Entity,
    cell: Pos,
    goal: Pos,
    status: PathStatus,
    at: Vec2,
    route: Vec<Pos>,
    follows: bool,
}

fn crowd(app: &mut App) -> Vec<Seen> {
    let mut query =
        app.world_mut()
            .query::<(Entity, &Unit, &CrowdUnit, &PathStatus, &Transform, &Waypoints, Has<FollowFlowField>)>(
            );
    let mut seen: Vec<Seen> = query
        .iter(app.world())
        .map(|(entity, unit, crowd, status, transform, waypoints, follows)| Seen {
            entity,
            cell: unit.cell(),
            goal: crowd.goal(),
            status: status.clone(),
            at: transform.translation.truncate(),
            route: waypoints.iter().map(|w| w.cell).collect(),
            follows,
        })
        .collect();
    seen.sort_by_key(|s| s.entity);
    seen
}

/// Spawns crowd units on `cells`, sent together to `goal` (one group, one shared flow field).
fn send_group(app: &mut App, cells: impl IntoIterator<Item = Pos>, goal: Pos) {
    let geometry = pathfinder(app).geometry();
    for cell in cells {
        app.world_mut()
            .spawn(crowd_unit(cell, geometry, DEFAULT_SPEED))
            .insert((Target::Cell(goal), FollowFlowField::new(goal)));
    }
}

/// Spawns flow-following crowd units (heading for the main goal) on `cells`.
fn spawn(app: &mut App, cells: &[Pos]) -> Vec<Entity> {
    let geometry = pathfinder(app).geometry();
    cells.iter().map(|&cell| app.world_mut().spawn(crowd_unit(cell, geometry, DEFAULT_SPEED)).id()).collect()
}

/// Spawns a crowd unit on `cell` with a route of its own to `goal`.
fn spawn_alone(app: &mut App, cell: Pos, goal: Pos) -> Entity {
    let geometry = pathfinder(app).geometry();
    app.world_mut().spawn(routed_crowd_unit(cell, goal, geometry, DEFAULT_SPEED)).id()
}

/// Searches run, routes re-planned after edits (the plugin's counters), flow fields built.
fn stats(app: &App) -> (u64, u64, u64) {
    let counts = app.world().resource::<PlanQueue>().counts();
    (counts.searched, counts.replans, app.world().resource::<FlowFields>().builds)
}

/// Runs frames until no crowd unit waits for a route; fails after [`MAX_PLAN_FRAMES`].
fn wait_for_routes(app: &mut App) {
    for _ in 0..MAX_PLAN_FRAMES {
        app.update();
        let planning = crowd(app).iter().any(|s| s.status == PathStatus::Planning);
        if !planning && app.world().resource::<PlanQueue>().is_idle() {
            return;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    panic!("routes should be planned within {MAX_PLAN_FRAMES} frames: {:?}", crowd(app));
}

/// Checks that no crowd unit stands in a wall and that each stands in the cell it thinks.
fn assert_on_free_cells(app: &mut App, when: &str) {
    let geometry = pathfinder(app).geometry();
    for seen in crowd(app) {
        let cell = geometry.cell_at(seen.at).expect("a unit must stay on the map");
        assert!(
            pathfinder(app).grid().is_passable(cell),
            "a unit must never stand in a wall, but {:?} is in {cell} ({when})",
            seen.entity
        );
        assert_eq!(cell, seen.cell, "a unit's cell must be where it stands ({when})");
    }
}

/// Runs frames until every crowd unit arrived, checking the cells every frame.
fn run_to_arrival(app: &mut App, max_frames: usize) -> usize {
    for frame in 0..max_frames {
        let units = crowd(app);
        if units.iter().all(|s| s.status == PathStatus::Arrived) {
            return frame;
        }
        if let Some(stuck) = units.iter().find(|s| matches!(s.status, PathStatus::Failed(_))) {
            panic!("every unit should have a path: {stuck:?}");
        }
        app.update();
        assert_on_free_cells(app, &format!("frame {frame}"));
        std::thread::sleep(Duration::from_micros(200));
    }
    let left: Vec<Seen> = crowd(app).into_iter().filter(|s| s.status != PathStatus::Arrived).collect();
    panic!("every unit should arrive within {max_frames} frames; still going: {left:?}");
}

/// Two units on one cell push each other apart whether steering buckets the crowd per cell
/// (a small map) or sorts it (a map with far more cells than units): without finding each
/// other they would follow the same flow and stay on one point.
#[test]
fn units_on_one_cell_separate_on_small_and_big_maps() {
    for side in [30usize, 400] {
        let row = ".".repeat(side);
        let text = vec![row; side].join("\n");
        let mut app = test_app(MapSource::Text { name: format!("open{side}"), text });
        let cell = Pos::new(3, 3);
        spawn(&mut app, &[cell, cell]);
        for _ in 0..10 {
            app.update();
        }
        let units = crowd(&mut app);
        let gap = units[0].at.distance(units[1].at) / TILE_SIZE;
        assert!(gap > 0.3, "{side}x{side}: two units on one cell must separate, {gap} tiles apart");
    }
}

/// A `width` × `height` maze (odd sides) carved by a seeded depth-first search, start
/// top-left, goal bottom-right.
fn maze(width: usize, height: usize, seed: u64) -> MapSource {
    let mut cells = vec![vec![b'#'; width]; height];
    let mut rng = StdRng::seed_from_u64(seed);
    let mut stack = vec![(1usize, 1usize)];
    cells[1][1] = b'.';
    while let Some(&(x, y)) = stack.last() {
        let mut options = Vec::new();
        for (dx, dy) in [(2i64, 0i64), (-2, 0), (0, 2), (0, -2)] {
            let (nx, ny) = (x as i64 + dx, y as i64 + dy);
            if nx > 0 && ny > 0 && nx < width as i64 - 1 && ny < height as i64 - 1 {
                let (nx, ny) = (nx as usize, ny as usize);
                if cells[ny][nx] == b'#' {
                    options.push((nx, ny));
                }
            }
        }
        if options.is_empty() {
            stack.pop();
            continue;
        }
        let (nx, ny) = options[rng.random_range(0..options.len())];
        cells[(y + ny) / 2][(x + nx) / 2] = b'.';
        cells[ny][nx] = b'.';
        stack.push((nx, ny));
    }
    cells[1][1] = b'S';
    cells[height - 2][width - 2] = b'G';
    let text: Vec<String> = cells.into_iter().map(|row| String::from_utf8(row).expect("ASCII")).collect();
    MapSource::Text { name: "maze".into(), text: text.join("\n") }
}

#[test]
fn flow_field_units_all_reach_the_goal_on_a_maze() {
    let mut app = test_app(maze(31, 21, 7));
    let goal = pathfinder(&app).goal();
    let grid = pathfinder(&app).grid().clone();
    let free: Vec<Pos> = grid.positions().filter(|&p| grid.is_passable(p) && p != goal).collect();
    let mut rng = StdRng::seed_from_u64(3);
    let cells: Vec<Pos> = (0..60).map(|_| free[rng.random_range(0..free.len())]).collect();
    let (searched, ..) = stats(&app);
    spawn(&mut app, &cells);
    app.update();
    let fields = app.world().resource::<FlowFields>();
    assert_eq!(fields.len(), 1, "units sharing a goal must share one flow field");
    assert_eq!(fields.iter().next().map(|(_, f)| f.followers), Some(60), "all 60 follow it");
    run_to_arrival(&mut app, 6000);
    assert_eq!(stats(&app).0, searched, "flow-field units need no searches of their own");
    // Arrived units still make room for each other: let the jam relax for a second.
    for _ in 0..30 {
        app.update();
    }
    assert_on_free_cells(&mut app, "after arrival");
    // Arrivals pile up around the goal, along the maze's corridor, not on one point.
    let field = FlowField::dijkstra(&grid, goal, pathfinder(&app).settings().rules).expect("a field");
    let units = crowd(&mut app);
    for seen in &units {
        let distance = field.distance(seen.cell).expect("reachable");
        assert!(distance <= 60.0, "{:?} should have arrived near the goal, is {distance} away", seen);
    }
    let closest = units
        .iter()
        .enumerate()
        .flat_map(|(i, a)| units[i + 1..].iter().map(move |b| a.at.distance(b.at)))
        .fold(f32::INFINITY, f32::min);
    // Bodies are 0.6 tiles wide; a jam in a corridor may squeeze them a little, never onto
    // one point.
    assert!(closest > 0.25 * TILE_SIZE, "units must not stack on one point: closest pair {closest}");
}

/// A crowd unit in a dead-end corner and the lab's unit at the corner's mouth, touching:
/// the crowd unit's only way out passes under the walker, too close while the walker stands
/// there, and the walker waits for the crowd unit. Found on a maze (the crowd unit fled into
/// the corner from the walker coming its way); both waited for good. The walker must back up
/// along the way it came until the unit can get out, then both go on.
#[test]
fn a_walker_backs_up_for_a_crowd_unit_it_corners() {
    let map = ["#######", "###S###", "###.###", "#G..###", "#######"].join("\n");
    let mut app = test_app(MapSource::Text { name: "corner".into(), text: map });
    let geometry = pathfinder(&app).geometry();
    // The lab's unit sets off from S towards G: down into the corner cell (3, 3), then left.
    let lab =
        app.world_mut().query_filtered::<Entity, With<LabUnit>>().single(app.world()).expect("a lab unit");
    let status = |app: &App| app.world().get::<PathStatus>(lab).cloned();
    let stepping_into = |app: &App| app.world().get::<Mover>(lab).and_then(Mover::next);
    for _ in 0..30 {
        if stepping_into(&app) == Some(Pos::new(3, 3)) {
            break;
        }
        app.update();
    }
    assert_eq!(stepping_into(&app), Some(Pos::new(3, 3)), "the lab's unit should step into the corner");
    assert_eq!(status(&app), Some(PathStatus::Following));
    let route = app.world().get::<Waypoints>(lab).expect("a route").clone();
    assert!(route.iter().any(|w| w.cell == Pos::new(3, 3)), "the route turns in the corner: {route:?}");
    // Grid coordinates (tiles, y down) to the world.
    let world = |x: f32, y: f32| {
        let (cx, cy) = (x.floor(), y.floor());
        let centre = geometry.cell_center(Pos::new(cx as _, cy as _));
        centre + Vec2::new(x - cx - 0.5, -(y - cy - 0.5)) * TILE_SIZE
    };
    let crowd_unit = spawn(&mut app, &[Pos::new(3, 3)])[0];
    // Where the maze left them: the crowd unit in the corner's far corner, the walker just
    // touching it from above.
    for (entity, at) in [(crowd_unit, world(3.7, 3.7)), (lab, world(3.5, 3.134))] {
        app.world_mut().get_mut::<Transform>(entity).expect("placed").translation = at.extend(1.0);
    }
    let mut lab_arrived = false;
    for frame in 0..600 {
        app.update();
        assert_on_free_cells(&mut app, &format!("frame {frame}"));
        lab_arrived |= status(&app) == Some(PathStatus::Arrived);
        let crowd_done = crowd(&mut app).iter().all(|s| s.status == PathStatus::Arrived);
        if lab_arrived && crowd_done {
            return;
        }
    }
    panic!("both should arrive within 20 s: lab {:?}, crowd {:?}", status(&app), crowd(&mut app));
}

#[test]
fn an_edit_reroutes_only_the_units_whose_route_crosses_it() {
    let mut app = test_app(open_map(30, 20));
    let rows_a = [2, 4, 6];
    let rows_b = [12, 14, 16];
    let a: Vec<Entity> =
        rows_a.iter().map(|&y| spawn_alone(&mut app, Pos::new(2, y), Pos::new(27, y))).collect();
    let b: Vec<Entity> =
        rows_b.iter().map(|&y| spawn_alone(&mut app, Pos::new(2, y), Pos::new(27, y))).collect();
    // A few flow followers heading for the main goal too.
    spawn(&mut app, &[Pos::new(5, 9), Pos::new(6, 9)]);
    wait_for_routes(&mut app);
    let before = crowd(&mut app);
    for seen in before.iter().filter(|s| !s.follows) {
        assert_eq!(seen.status, PathStatus::Following, "{seen:?} should walk its own route");
        assert!(seen.route.iter().all(|c| c.y == seen.goal.y), "straight routes expected: {seen:?}");
    }
    let (_, reroutes, builds) = stats(&app);
    // A wall across rows 1..=7 at column 15: it crosses group A's routes only.
    drag(&mut app, MouseButton::Left, &[Pos::new(15, 1), Pos::new(15, 7)]);
    assert!(!pathfinder(&app).grid().is_passable(Pos::new(15, 4)), "the wall should be painted");
    assert_eq!(
        stats(&app).1 - reroutes,
        rows_a.len() as u64,
        "exactly the units whose route crosses the wall must re-plan"
    );
    assert!(stats(&app).2 > builds, "the flow field must be rebuilt after an edit");
    let after = crowd(&mut app);
    for entity in &b {
        let was = before.iter().find(|s| s.entity == *entity).expect("unit B");
        let now = after.iter().find(|s| s.entity == *entity).expect("unit B");
        assert_eq!(now.status, PathStatus::Following, "units not crossing the wall keep walking");
        assert!(was.route.ends_with(&now.route), "their route is untouched: {was:?} vs {now:?}");
    }
    wait_for_routes(&mut app);
    for entity in &a {
        let now = crowd(&mut app).into_iter().find(|s| s.entity == *entity).expect("unit A");
        assert!(
            now.route.iter().all(|&c| pathfinder(&app).grid().is_passable(c)),
            "new routes avoid the wall"
        );
    }
    run_to_arrival(&mut app, 3000);
}

#[test]
fn terrain_costs_change_the_route_and_its_cost_is_dijkstras() {
    // A strip across the middle column (rows 1..=9 of 11): crossing cheap grass beats the
    // detour round its ends, crossing water does not.
    for (key, crosses) in [(KeyCode::Digit2, true), (KeyCode::Digit4, false)] {
        let mut app = test_app(open_map(20, 11));
        tap_key(&mut app, key);
        drag(&mut app, MouseButton::Left, &[Pos::new(10, 1), Pos::new(10, 9)]);
        let grid = pathfinder(&app).grid().clone();
        assert!(!grid.has_uniform_cost(), "the brush should paint terrain costs");
        let (from, to) = (Pos::new(1, 5), Pos::new(18, 5));
        let dijkstra = Searcher::new()
            .find_path(&grid, from, to, &Settings::with_algorithm(Algorithm::Dijkstra))
            .expect("a route");
        // A unit of its own plans with the chosen algorithm (A*) through the queue.
        let entity = spawn_alone(&mut app, from, to);
        wait_for_routes(&mut app);
        let seen = crowd(&mut app).into_iter().find(|s| s.entity == entity).expect("the unit");
        let cells: Vec<Pos> = std::iter::once(from).chain(seen.route.iter().copied()).collect();
        let cost = grid.path_cost(&cells, pathfinder(&app).settings().rules).expect("a legal route");
        assert!(
            (cost - dijkstra.cost).abs() < 1e-9,
            "A* must find Dijkstra's cost {}: {cost}",
            dijkstra.cost
        );
        let through = cells.iter().any(|c| c.x == 10 && (1..=9).contains(&c.y));
        assert_eq!(through, crosses, "the route should cross the strip: {crosses} ({cells:?})");
        // The shared flow field measures the same costs.
        let field = FlowField::dijkstra(&grid, to, pathfinder(&app).settings().rules).expect("a field");
        assert!((field.distance(from).unwrap_or(f64::NAN) - dijkstra.cost).abs() < 1e-9);
        run_to_arrival(&mut app, 3000);
    }
}

#[test]
fn cost_blind_algorithms_and_brushes_exclude_each_other() {
    let mut app = test_app(open_map(20, 11));
    // BFS on a uniform map: the cost brushes are refused, with the reason.
    tap_key(&mut app, KeyCode::F3);
    assert_eq!(pathfinder(&app).settings().algorithm, Algorithm::Bfs);
    app.world_mut().write_message(key_message(KeyCode::Digit3, ButtonState::Pressed));
    app.update();
    assert!(
        notices(&app).iter().any(|n| n.text.contains("BFS counts steps")),
        "the mud brush must be refused under BFS: {:?}",
        notices(&app)
    );
    app.world_mut().write_message(key_message(KeyCode::Digit3, ButtonState::Released));
    app.update();
    drag(&mut app, MouseButton::Left, &[Pos::new(4, 4)]);
    assert_eq!(pathfinder(&app).grid().tile(Pos::new(4, 4)), Some(Tile::Wall), "the brush is still walls");
    // JPS and mud (JPS is exact on terrain costs since issue 24); then BFS and the wavefront
    // are refused on the map with costs.
    tap_key(&mut app, KeyCode::F5);
    tap_key(&mut app, KeyCode::Digit3);
    drag(&mut app, MouseButton::Left, &[Pos::new(6, 6)]);
    assert_eq!(pathfinder(&app).grid().tile(Pos::new(6, 6)), Some(Tile::Ground { cost: 5 }));
    assert_eq!(pathfinder(&app).settings().algorithm, Algorithm::Jps, "JPS stays on the map with costs");
    tap_key(&mut app, KeyCode::F1);
    for (key, reason) in [(KeyCode::F3, "BFS counts steps"), (KeyCode::F7, "the wavefront counts steps")] {
        app.world_mut().write_message(key_message(key, ButtonState::Pressed));
        app.update();
        assert!(
            notices(&app).iter().any(|n| n.text.contains(reason)),
            "{key:?} must be refused with {reason:?}: {:?}",
            notices(&app)
        );
        app.world_mut().write_message(key_message(key, ButtonState::Released));
        app.update();
        assert_eq!(pathfinder(&app).settings().algorithm, Algorithm::AStar);
    }
    // Floor (1) erases costs; the wall brush is 0.
    tap_key(&mut app, KeyCode::Digit1);
    drag(&mut app, MouseButton::Left, &[Pos::new(6, 6)]);
    assert_eq!(pathfinder(&app).grid().tile(Pos::new(6, 6)), Some(Tile::FLOOR));
    tap_key(&mut app, KeyCode::Digit0);
    drag(&mut app, MouseButton::Left, &[Pos::new(7, 7)]);
    assert_eq!(pathfinder(&app).grid().tile(Pos::new(7, 7)), Some(Tile::Wall));
}

fn shift(app: &mut App, state: ButtonState) {
    app.world_mut().write_message(key_message(KeyCode::ShiftLeft, state));
}

fn selected(app: &mut App) -> Vec<Entity> {
    let mut query = app.world_mut().query_filtered::<Entity, With<Selected>>();
    let mut list: Vec<Entity> = query.iter(app.world()).collect();
    list.sort();
    list
}

fn target(app: &App, entity: Entity) -> Target {
    *app.world().get::<Target>(entity).expect("a crowd unit")
}

#[test]
fn selection_box_and_orders() {
    let mut app = test_app_with_hud(open_map(30, 20));
    let mut left = spawn(&mut app, &[Pos::new(3, 3), Pos::new(4, 4), Pos::new(5, 3)]);
    left.sort();
    let right = spawn(&mut app, &[Pos::new(20, 15), Pos::new(22, 16)]);
    // Hold them still while selecting: stop the clock.
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::ZERO));
    app.update();
    assert!(ui_text(&mut app).contains("crowd: 5 units (0 selected)"), "the panel counts units");

    // Shift+left-drag: a box from (2, 2) to (6, 5) selects the three on the left.
    shift(&mut app, ButtonState::Pressed);
    drag(&mut app, MouseButton::Left, &[Pos::new(2, 2), Pos::new(6, 5)]);
    shift(&mut app, ButtonState::Released);
    app.update();
    assert_eq!(selected(&mut app), left, "the box selects exactly the units inside it");
    assert!(walls(&app).is_empty(), "a selection drag never paints");
    assert!(ui_text(&mut app).contains("crowd: 5 units (3 selected)"), "the panel counts the selection");

    // Right-click: the selection goes there, sharing one flow field.
    let goal = Pos::new(12, 10);
    drag(&mut app, MouseButton::Right, &[goal]);
    for &entity in &left {
        assert_eq!(target(&app, entity), Target::Cell(goal), "the selected units are ordered");
        assert!(app.world().get::<FollowFlowField>(entity).is_some(), "a group shares a flow field");
    }
    for &entity in &right {
        assert_eq!(target(&app, entity), Target::MainGoal, "unselected units keep their goal");
    }
    // A right-drag with units selected gives orders, it does not erase.
    drag(&mut app, MouseButton::Left, &[Pos::new(25, 2), Pos::new(25, 4)]);
    assert_eq!(walls(&app).len(), 3);
    hover(&mut app, Some(Pos::new(25, 3)));
    mouse(&mut app, MouseButton::Right, ButtonState::Pressed);
    app.update();
    assert!(
        notices(&app).iter().any(|n| n.text.contains("wall")),
        "an order into a wall is refused: {:?}",
        notices(&app)
    );
    mouse(&mut app, MouseButton::Right, ButtonState::Released);
    app.update();
    assert_eq!(walls(&app).len(), 3, "with a selection, the right button orders instead of erasing");

    // A single unit gets a route of its own from the planning queue.
    shift(&mut app, ButtonState::Pressed);
    drag(&mut app, MouseButton::Left, &[Pos::new(20, 15)]);
    shift(&mut app, ButtonState::Released);
    app.update();
    assert_eq!(selected(&mut app), vec![right[0]]);
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f32(FRAME)));
    drag(&mut app, MouseButton::Right, &[Pos::new(27, 18)]);
    assert!(app.world().get::<FollowFlowField>(right[0]).is_none(), "a unit alone plans its own route");
    wait_for_routes(&mut app);
    let alone = crowd(&mut app).into_iter().find(|s| s.entity == right[0]).expect("the unit");
    assert_eq!(alone.route.last(), Some(&Pos::new(27, 18)), "its route leads to the order's cell");

    // An empty box clears the selection; A selects every crowd unit.
    shift(&mut app, ButtonState::Pressed);
    drag(&mut app, MouseButton::Left, &[Pos::new(0, 19)]);
    shift(&mut app, ButtonState::Released);
    app.update();
    assert!(selected(&mut app).is_empty(), "an empty box clears the selection");
    tap_key(&mut app, KeyCode::KeyA);
    assert_eq!(selected(&mut app).len(), 5, "A selects every crowd unit");
    // Without a selection the right button erases again.
    for entity in selected(&mut app) {
        app.world_mut().entity_mut(entity).remove::<Selected>();
    }
    drag(&mut app, MouseButton::Right, &[Pos::new(25, 3)]);
    assert_eq!(walls(&app).len(), 2, "without a selection, the right button erases");
}

#[test]
fn keys_spawn_units_at_the_cursor_and_a_hundred_at_random() {
    let mut app = test_app(MapSource::BuiltIn);
    hover(&mut app, Some(Pos::new(5, 5)));
    tap_key(&mut app, KeyCode::KeyU);
    assert_eq!(crowd(&mut app).len(), 1, "U spawns one unit");
    assert_eq!(crowd(&mut app)[0].cell, Pos::new(5, 5), "at the cursor");
    shift(&mut app, ButtonState::Pressed);
    tap_key(&mut app, KeyCode::KeyU);
    shift(&mut app, ButtonState::Released);
    app.update();
    let units = crowd(&mut app);
    assert_eq!(units.len(), 101, "Shift+U spawns 100 more");
    assert!(units.iter().all(|s| pathfinder(&app).grid().is_passable(s.cell)), "on free cells");
    run_to_arrival(&mut app, 4000);
}

#[test]
fn async_results_for_an_outdated_map_are_discarded_and_requested_again() {
    let mut app = test_app(open_map(30, 20));
    // Never at once in the frame: this test is about the task pool. The lab's unit and its
    // route would only add to the counters.
    app.insert_resource(PlanBudget { sync_max: 0, ..default() });
    let lab =
        app.world_mut().query_filtered::<Entity, With<LabUnit>>().single(app.world()).expect("a lab unit");
    app.world_mut().entity_mut(lab).despawn();
    let searched = stats(&app).0;
    let entity = spawn_alone(&mut app, Pos::new(2, 2), Pos::new(27, 17));
    // This frame queues the request and hands it to the task pool.
    app.update();
    let counts = app.world().resource::<PlanQueue>().counts();
    assert_eq!(counts.searched - searched, 1, "the request should be started: {counts:?}");
    let delivered = counts.delivered;
    // Let the search finish in the background, then edit the map before it is collected.
    std::thread::sleep(Duration::from_millis(50));
    drag(&mut app, MouseButton::Left, &[Pos::new(15, 0)]);
    let counts = app.world().resource::<PlanQueue>().counts();
    assert_eq!(counts.discarded, 1, "a route for the old map must be discarded: {counts:?}");
    wait_for_routes(&mut app);
    let counts = app.world().resource::<PlanQueue>().counts();
    assert_eq!(counts.searched - searched, 2, "and requested again: {counts:?}");
    assert_eq!(
        counts.delivered - delivered,
        1,
        "only the route for the current map is delivered: {counts:?}"
    );
    let seen = crowd(&mut app).into_iter().find(|s| s.entity == entity).expect("the unit");
    assert_eq!(seen.status, PathStatus::Following);
    assert_eq!(seen.route.last(), Some(&Pos::new(27, 17)));
}

#[test]
fn no_unit_ever_stands_in_a_wall_over_random_edits() {
    let mut app = test_app(MapSource::BuiltIn);
    let mut rng = StdRng::seed_from_u64(11);
    let grid = pathfinder(&app).grid().clone();
    let free: Vec<Pos> = grid.positions().filter(|&p| grid.is_passable(p)).collect();
    let cells: Vec<Pos> = (0..150).map(|_| free[rng.random_range(0..free.len())]).collect();
    let units = spawn(&mut app, &cells);
    // A few units with their own routes, to random free cells.
    for &entity in units.iter().take(10) {
        let goal = free[rng.random_range(0..free.len())];
        app.world_mut()
            .entity_mut(entity)
            .remove::<FollowFlowField>()
            .insert((Target::Cell(goal), PathRequest::new(goal)));
    }
    let (width, height) = (grid.width(), grid.height());
    for round in 0..120 {
        let a = Pos::new(rng.random_range(0..width), rng.random_range(0..height));
        let b = Pos::new(
            (a.x + rng.random_range(0..6)).min(width - 1),
            (a.y + rng.random_range(0..6)).min(height - 1),
        );
        let button = if rng.random_bool(0.6) { MouseButton::Left } else { MouseButton::Right };
        drag(&mut app, button, &[a, b]);
        assert_on_free_cells(&mut app, &format!("after edit {round}"));
        for frame in 0..4 {
            app.update();
            assert_on_free_cells(&mut app, &format!("edit {round}, frame {frame}"));
        }
    }
    assert!(walls(&app).len() > 100, "the run should have built plenty of walls: {}", walls(&app).len());
}

#[test]
fn a_flow_follower_that_sees_the_goal_walks_straight_at_it() {
    // Open ground: from (2, 2) the goal (19, 11) is in sight; the field alone would walk a
    // diagonal then a straight run (a stair-step), the unit walks the straight line.
    let mut app = test_app(open_map(20, 12));
    let goal = pathfinder(&app).goal();
    let start = Pos::new(2, 2);
    let unit = spawn(&mut app, &[start])[0];
    let geometry = pathfinder(&app).geometry();
    let (a, b) = (geometry.cell_center(start), geometry.cell_center(goal));
    let mut worst: f32 = 0.0;
    for _ in 0..600 {
        app.update();
        let at = app.world().get::<Transform>(unit).expect("the unit").translation.truncate();
        worst = worst.max((at - a).perp_dot((b - a).normalize()).abs());
        if app.world().get::<PathStatus>(unit) == Some(&PathStatus::Arrived) {
            break;
        }
    }
    assert_eq!(app.world().get::<PathStatus>(unit), Some(&PathStatus::Arrived));
    assert!(worst < 0.05 * TILE_SIZE, "off the straight line by {} tiles at most", worst / TILE_SIZE);
}

/// Crowd units avoid the units the plugin's `Mover` walks (the lab's unit and a 3x3 unit) with
/// their real radii, and the walkers stop short of crowd units: over a run where the 3x3 unit
/// walks through a crowd heading for the same goal (the map's corner), no crowd body ever
/// overlaps a walker's by more than the 2 % avoidance allows, whether the unit is on its way or
/// arrived (the walker arrives on touching the arrived crowd at the goal, as crowd units do).
/// Without walkers as bodies the crowd stood 0.31 of the radii's sum from the 3x3 unit's centre.
#[test]
fn crowd_units_keep_clear_of_the_units_the_plugin_walks() {
    use tilepath::units::big::BigUnit;
    use tilepath::units::{UNIT_RADIUS, walker_radius};
    let mut app = test_app(open_map(24, 16));
    hover(&mut app, Some(Pos::new(6, 6)));
    shift_tap_key(&mut app, KeyCode::KeyJ);
    app.update();
    // Two columns of crowd units across the 3x3 unit's way to the goal (23, 15).
    let cells: Vec<Pos> = (1..15).flat_map(|y| [Pos::new(13, y), Pos::new(15, y)]).collect();
    spawn(&mut app, &cells);
    let (mut on_the_way, mut arrived) = (f32::INFINITY, f32::INFINITY);
    let mut walked = 0.0_f32;
    let mut last = None;
    for _ in 0..900 {
        app.update();
        let walkers: Vec<(Vec2, f32)> = app
            .world_mut()
            .query_filtered::<(&Transform, Option<&BigUnit>), (With<Unit>, Without<CrowdUnit>)>()
            .iter(app.world())
            .map(|(t, big)| (t.translation.truncate(), walker_radius(big.map_or(1, |b| b.size))))
            .collect();
        assert_eq!(walkers.len(), 2, "the lab's unit and the 3x3 unit");
        let big_at = walkers.iter().find(|w| w.1 > 1.0).map(|w| w.0).expect("the 3x3 unit");
        walked += last.map_or(0.0, |l: Vec2| l.distance(big_at));
        last = Some(big_at);
        for seen in crowd(&mut app) {
            for &(at, radius) in &walkers {
                let gap = seen.at.distance(at) / ((UNIT_RADIUS + radius) * TILE_SIZE);
                let closest = if seen.status == PathStatus::Arrived { &mut arrived } else { &mut on_the_way };
                *closest = closest.min(gap);
            }
        }
    }
    println!("closest to a walker: units on their way {on_the_way:.3}, arrived units {arrived:.3}");
    assert!(walked > 10.0 * TILE_SIZE, "the 3x3 unit walked through the crowd: {walked}");
    assert!(
        on_the_way >= 0.98,
        "units on their way overlap a walker: closest {on_the_way:.3} of the radii's sum"
    );
    assert!(arrived >= 0.98, "arrived units are walked over: closest {arrived:.3} of the radii's sum");
}

/// A corridor two tiles wide opening into a room: 48 crowd units gather round a goal in the
/// corridor's middle and fill it; 6 units from its far end, ordered into the room (sharing a
/// flow field, then each alone on a route of its own to a cell of its own), reach them after
/// they arrived. The arrived units must make room (steering hands avoidance each unit's goal
/// as its group and its stall as `Body::stuck`): without, they wall the six in for good.
#[test]
fn a_group_gets_through_another_groups_arrived_units_in_a_corridor() {
    for shared in [true, false] {
        let rows: Vec<String> = (0..12)
            .map(|y| {
                (0..60)
                    .map(
                        |x| if (5..=6).contains(&y) || (x > 40 && (1..=10).contains(&y)) { '.' } else { '#' },
                    )
                    .collect()
            })
            .collect();
        let mut app = test_app(MapSource::Text { name: "corridor".into(), text: rows.join("\n") });
        let (ring_goal, far_goal) = (Pos::new(22, 5), Pos::new(55, 5));
        send_group(&mut app, (10..34).flat_map(|x| [Pos::new(x, 5), Pos::new(x, 6)]), ring_goal);
        for (k, cell) in (0..3).flat_map(|x| [Pos::new(x, 5), Pos::new(x, 6)]).enumerate() {
            if shared {
                send_group(&mut app, [cell], far_goal);
            } else {
                spawn_alone(&mut app, cell, Pos::new(55, 2 + k as u32));
            }
        }
        let frames = run_to_arrival(&mut app, 9000);
        println!("shared {shared}: all arrived after {frames} frames");
        let passers: Vec<Seen> = crowd(&mut app).into_iter().filter(|s| s.goal.x == 55).collect();
        assert_eq!(passers.len(), 6);
        for seen in &passers {
            assert!(seen.cell.x > 40, "{seen:?} must have got past the arrived units (shared {shared})");
        }
    }
}

/// Two rooms joined by a one-tile passage 14 long: 12 crowd units in each room, each room's
/// units sent to a goal in the other (two groups: steering hands avoidance each unit's goal as
/// its group). They meet face to face in the passage, where two bodies cannot pass, and one
/// group must back out for the other (`Avoidance::give_way`). On this map gridpath's crowd
/// harness stood both groups there for good without it; the game's steering got them through
/// before too (one group backed out after some 5 s), so this guards the whole game's way
/// through rather than reproducing that jam (`tests/avoid.rs` in gridpath does).
#[test]
fn two_groups_meeting_face_to_face_in_a_one_tile_passage_both_get_through() {
    let rows: Vec<String> = (0..11)
        .map(|y| {
            (0..36)
                .map(|x| {
                    let room = (1..=9).contains(&y) && ((1..=10).contains(&x) || (25..=34).contains(&x));
                    let passage = y == 5 && (11..=24).contains(&x);
                    if room || passage { '.' } else { '#' }
                })
                .collect()
        })
        .collect();
    let mut app = test_app(MapSource::Text { name: "passage".into(), text: rows.join("\n") });
    for (xs, goal) in [((6..10), Pos::new(30, 5)), ((26..30), Pos::new(5, 5))] {
        send_group(&mut app, xs.flat_map(|x| [Pos::new(x, 3), Pos::new(x, 5), Pos::new(x, 7)]), goal);
    }
    let frames = run_to_arrival(&mut app, 60 * 120);
    println!("all 24 arrived after {frames} frames ({:.1} s)", frames as f32 / 60.0);
    for seen in crowd(&mut app) {
        let home_left = seen.goal.x > 20;
        assert_eq!(seen.cell.x > 20, home_left, "{seen:?} must have got to the other room");
    }
}

/// A crossroads of one-tile passages with a room at each of its four ends: 8 crowd units in
/// each room, sent to the room across (four groups, one per goal), meet in the middle face to
/// face and crossing, where two bodies cannot pass. The higher group backs out each time
/// (`Avoidance::give_way`); without it units were still stuck at the crossing after 240 s.
#[test]
fn four_groups_meeting_at_a_crossroads_of_one_tile_passages_all_get_through() {
    let n = 31;
    let room = |a: u32, b: u32| ((1..=5).contains(&a) || (25..=29).contains(&a)) && (10..=20).contains(&b);
    let rows: Vec<String> = (0..n)
        .map(|y| {
            (0..n)
                .map(|x| {
                    let inside = (1..n - 1).contains(&x) && (1..n - 1).contains(&y);
                    let open = room(x, y) || room(y, x) || x == 15 || y == 15;
                    if inside && open { '.' } else { '#' }
                })
                .collect()
        })
        .collect();
    let mut app = test_app(MapSource::Text { name: "crossroads".into(), text: rows.join("\n") });
    let sides = [
        (1..5, 12..14, Pos::new(27, 15)),
        (26..30, 12..14, Pos::new(3, 15)),
        (12..14, 1..5, Pos::new(15, 27)),
        (12..14, 26..30, Pos::new(15, 3)),
    ];
    for (xs, ys, goal) in sides {
        send_group(&mut app, xs.flat_map(|x| ys.clone().map(move |y| Pos::new(x, y))), goal);
    }
    let frames = run_to_arrival(&mut app, 60 * 240);
    println!("all 32 arrived after {frames} frames ({:.1} s)", frames as f32 / 60.0);
    for seen in crowd(&mut app) {
        // The crossing's middle is 12 cells from every goal; each room lies within 6 of its own.
        let near_goal = seen.cell.x.abs_diff(seen.goal.x).max(seen.cell.y.abs_diff(seen.goal.y)) <= 6;
        assert!(near_goal, "{seen:?} must have got to the room across");
    }
}

/// A rooms map (one-tile doors and corridors) packed with one group: a crowd unit on every
/// cell, all sent to one goal. Steering hands avoidance each follower's distance to go
/// (`Body::distance`), so the crowd queues at each door behind the unit at its head; without
/// it the units pressing on a door from behind and both sides hold its head (ORCA lets bodies
/// touching at rest never close in): units were still left after 300 s of play, against 30 s.
#[test]
fn a_room_packed_with_one_group_empties_through_its_doors() {
    let grid = gridpath::generate::generate(gridpath::generate::Generator::Rooms, 48, 48, 2).expect("a map");
    let open: Vec<Pos> = grid.positions().filter(|&p| grid.is_passable(p)).collect();
    let (start, lab_goal, goal) = (open[0], open[1], open[open.len() / 2]);
    let text = gridpath::formats::write_ascii(&grid, Some(start), Some(lab_goal));
    let mut app = test_app(MapSource::Text { name: "rooms".into(), text });
    let field = FlowField::dijkstra(&grid, goal, gridpath::Rules::OCTILE).expect("the goal is free");
    let cells: Vec<Pos> = open
        .iter()
        .copied()
        .filter(|&p| ![start, lab_goal, goal].contains(&p) && field.distance(p).is_some())
        .collect();
    send_group(&mut app, cells.iter().copied(), goal);
    let frames = run_to_arrival(&mut app, 60 * 300);
    println!("{} units arrived after {frames} frames ({:.1} s)", cells.len(), frames as f32 / 60.0);
    // 105 s since units arrive only within their ring's reach (`within_ring`), no longer on
    // the first arrived unit they touch anywhere (30 s, many "arrived" queued behind doors).
    assert!(frames <= 60 * 150, "the rooms took {:.1} s to empty: a door clogged", frames as f32 / 60.0);
}

/// `O` turns crowd avoidance off mid-walk and on again, with a notice each time: a player
/// compares the two on one crowd. Off, units are only pushed apart; back on, within half a
/// second they keep clear of each other again (within avoidance's 2 %), and all arrive. (The
/// units' planned velocities are reset while avoidance is off: none coasts on one from before.)
#[test]
fn the_o_key_turns_avoidance_off_and_on_mid_walk_and_units_keep_clear_again() {
    use tilepath::units::{CrowdAvoidance, UNIT_RADIUS};
    let mut app = test_app(open_map(40, 15));
    send_group(&mut app, (2..8).flat_map(|x| (3..12).map(move |y| Pos::new(x, y))), Pos::new(36, 7));
    for _ in 0..30 {
        app.update();
    }
    for (on, word) in [(false, "off"), (true, "on")] {
        app.world_mut().write_message(key_message(KeyCode::KeyO, ButtonState::Pressed));
        app.update();
        assert!(
            notices(&app).iter().any(|n| n.text.contains(&format!("crowd avoidance: {word}"))),
            "the O key must say avoidance is {word}: {:?}",
            notices(&app)
        );
        assert_eq!(app.world().resource::<CrowdAvoidance>().0, on);
        app.world_mut().write_message(key_message(KeyCode::KeyO, ButtonState::Released));
        for _ in 0..30 {
            app.update();
        }
    }
    // Back on for half a second: every pair keeps clear from now until all arrived.
    for frame in 0..60 * 60 {
        let units = crowd(&mut app);
        let closest = units
            .iter()
            .enumerate()
            .flat_map(|(i, a)| units[i + 1..].iter().map(move |b| a.at.distance(b.at)))
            .fold(f32::INFINITY, f32::min);
        assert!(
            closest >= 2.0 * UNIT_RADIUS * TILE_SIZE * 0.98,
            "frame {frame} with avoidance back on: two units {:.3} tiles apart",
            closest / TILE_SIZE
        );
        if units.iter().all(|s| s.status == PathStatus::Arrived) {
            return;
        }
        app.update();
    }
    panic!("every unit should arrive within a minute: {:?}", crowd(&mut app));
}
