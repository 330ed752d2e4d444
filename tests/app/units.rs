use super::*;
use tilepath::map::level::{BUILTIN_GOAL, BUILTIN_START};

#[test]
fn unit_walks_the_builtin_map_to_the_goal_on_passable_cells() {
    let mut app = test_app(MapSource::BuiltIn);
    let (walker, waypoints, status, at) = unit(&mut app);
    assert_eq!(walker.cell(), BUILTIN_START);
    assert_eq!(status, PathStatus::Following);
    assert_eq!(waypoints.back().map(|w| w.cell), Some(BUILTIN_GOAL));
    assert_eq!(at, pathfinder(&app).geometry().cell_center(BUILTIN_START));
    let frames = walk_to_arrival(&mut app);
    let (walker, waypoints, status, at) = unit(&mut app);
    assert_eq!(status, PathStatus::Arrived);
    assert_eq!(walker.cell(), BUILTIN_GOAL, "the unit should stand on the goal");
    assert!(waypoints.is_empty());
    assert_eq!(at, pathfinder(&app).geometry().cell_center(BUILTIN_GOAL));
    // It idles there.
    for _ in 0..30 {
        app.update();
    }
    assert_eq!(unit(&mut app).3, at, "an arrived unit stays put");
    assert!(frames > 100, "a ~50-cell route at 5 tiles/s takes seconds, took {frames} frames");
}

#[test]
fn wall_painted_across_the_route_mid_walk_reroutes_and_still_arrives() {
    let mut app = test_app(MapSource::BuiltIn);
    for _ in 0..20 {
        app.update();
    }
    let (_, waypoints, ..) = unit(&mut app);
    let target = waypoints[5].cell;
    // A three-cell wall across the route, perpendicular to the step into `target`.
    let before = waypoints[4].cell;
    let across: Vec<Pos> = if before.y == target.y {
        vec![Pos::new(target.x, target.y.saturating_sub(1)), Pos::new(target.x, target.y + 1)]
    } else {
        vec![Pos::new(target.x.saturating_sub(1), target.y), Pos::new(target.x + 1, target.y)]
    };
    let reroutes = app.world().resource::<Reroutes>().0;
    drag(&mut app, MouseButton::Left, &across);
    assert!(!pathfinder(&app).grid().is_passable(target), "the stroke should wall off {target}");
    assert!(app.world().resource::<Reroutes>().0 > reroutes, "the unit should re-plan");
    let (_, waypoints, status, _) = unit(&mut app);
    assert_eq!(status, PathStatus::Following);
    assert!(
        waypoints.iter().all(|w| pathfinder(&app).grid().is_passable(w.cell)),
        "the new route must avoid the new wall"
    );
    walk_to_arrival(&mut app);
    assert_eq!(unit(&mut app).0.cell(), BUILTIN_GOAL);
}

#[test]
fn an_unreachable_goal_stops_the_unit_with_no_path() {
    let mut app = test_app(MapSource::BuiltIn);
    // The goal room's only door.
    let door = Pos::new(31, 25);
    drag(&mut app, MouseButton::Left, &[door]);
    assert!(!pathfinder(&app).grid().is_passable(door));
    let PlanOutcome::Failed(error @ gridpath::SearchError::NoPath { .. }) = &report(&app).outcome else {
        panic!("the main plan should report no path, got {:?}", report(&app).outcome);
    };
    assert!(error.to_string().contains("no path"), "the HUD text should say so: {error}");
    for _ in 0..30 {
        app.update();
    }
    let (walker, waypoints, status, at) = unit(&mut app);
    assert!(matches!(status, PathStatus::Failed(_)), "the unit should be stopped: {status:?}");
    assert!(waypoints.is_empty(), "a stopped unit has no route left");
    assert_eq!(at, pathfinder(&app).geometry().cell_center(walker.cell()), "it stops on a cell centre");
    app.update();
    assert_eq!(unit(&mut app).3, at, "a stopped unit does not move");

    // Opening the door again sends it on its way.
    drag(&mut app, MouseButton::Right, &[door]);
    walk_to_arrival(&mut app);
}

#[test]
fn moving_the_goal_mid_walk_replans_from_where_the_unit_is() {
    let mut app = test_app(MapSource::BuiltIn);
    for _ in 0..40 {
        app.update();
    }
    let (walker, ..) = unit(&mut app);
    let new_goal = Pos::new(20, 28);
    hover(&mut app, Some(new_goal));
    tap_key(&mut app, KeyCode::KeyG);
    let (after, waypoints, ..) = unit(&mut app);
    assert_ne!(after.cell(), BUILTIN_START, "the unit must not go back to the start");
    assert!(after.cell().x >= walker.cell().x, "it continues from where it was");
    assert_eq!(waypoints.back().map(|w| w.cell), Some(new_goal));
    walk_to_arrival(&mut app);
    assert_eq!(unit(&mut app).0.cell(), new_goal);
}

#[test]
fn speed_keys_change_the_walking_speed() {
    let mut app = test_app(MapSource::BuiltIn);
    let before = unit_speed(&mut app);
    tap_key(&mut app, KeyCode::Equal);
    assert!(unit_speed(&mut app) > before, "= should speed units up");
    tap_key(&mut app, KeyCode::Minus);
    tap_key(&mut app, KeyCode::Minus);
    assert!(unit_speed(&mut app) < before, "- should slow units down");
}

fn unit_speed(app: &mut App) -> f32 {
    app.world_mut().query::<&Mover>().single(app.world()).map_or(0.0, |m| m.speed)
}

#[test]
fn a_smoothed_route_on_open_ground_is_one_straight_line_and_the_unit_walks_it() {
    let mut app = test_app(open_map(20, 12));
    tap_key(&mut app, KeyCode::KeyP);
    assert!(app.world().resource::<tilepath::map::problem::SmoothRoutes>().0, "P turns smoothing on");
    app.update();
    let (start, goal) = (pathfinder(&app).start(), pathfinder(&app).goal());
    let (_, waypoints, _, _) = unit(&mut app);
    let cells: Vec<Pos> = waypoints.iter().map(|w| w.cell).collect();
    assert_eq!(cells, vec![goal], "no turn where the straight line is free");
    let geometry = pathfinder(&app).geometry();
    let (a, b) = (geometry.cell_center(start), geometry.cell_center(goal));
    for _ in 0..MAX_WALK_FRAMES {
        let (_, _, status, at) = unit(&mut app);
        let off = (at - a).perp_dot((b - a).normalize()).abs();
        assert!(off < 1e-2 * TILE_SIZE, "the unit stays on the straight line: {off}");
        if status == PathStatus::Arrived {
            break;
        }
        app.update();
    }
    assert_eq!(unit(&mut app).2, PathStatus::Arrived);
}

#[test]
fn a_wall_across_a_smoothed_segment_re_plans_it() {
    let mut app = test_app(open_map(20, 12));
    tap_key(&mut app, KeyCode::KeyP);
    // Walk a few frames, then wall off a column across the middle but for its last cell.
    for _ in 0..5 {
        app.update();
    }
    let wall: Vec<Pos> = (0..11).map(|y| Pos::new(10, y)).collect();
    drag(&mut app, MouseButton::Left, &wall);
    let (_, waypoints, status, _) = unit(&mut app);
    let grid = pathfinder(&app).grid().clone();
    let rules = pathfinder(&app).settings().rules;
    assert!(matches!(status, PathStatus::Following | PathStatus::Planning), "{status:?}");
    let cells: Vec<Pos> = waypoints.iter().map(|w| w.cell).collect();
    for pair in cells.windows(2) {
        assert!(
            grid.line_of_sight(pair[0], pair[1], rules),
            "segment {} -> {} crosses the wall",
            pair[0],
            pair[1]
        );
    }
    walk_to_arrival(&mut app);
    assert_eq!(unit(&mut app).2, PathStatus::Arrived);
}

#[test]
fn theta_star_gives_the_unit_an_any_angle_route_and_the_map_its_crossed_cells() {
    // A wall in the middle: Theta*'s route bends once at its corner instead of zig-zagging.
    let mut app = test_app(open_map(20, 12));
    drag(&mut app, MouseButton::Left, &(2..10).map(|y| Pos::new(9, y)).collect::<Vec<_>>());
    tap_key(&mut app, KeyCode::F8);
    assert_eq!(pathfinder(&app).settings().algorithm, gridpath::Algorithm::Theta, "F8 picks Theta*");
    app.update();
    let grid = pathfinder(&app).grid().clone();
    let rules = pathfinder(&app).settings().rules;
    let corners = report(&app).outcome.cells().to_vec();
    assert!(corners.len() <= 4, "a few corners, not a cell-by-cell route: {corners:?}");
    let length = grid.any_angle_cost(&corners, rules).expect("every segment in line of sight");
    let route = &report(&app).route;
    assert!(route.windows(2).all(|p| p[0].x.abs_diff(p[1].x) <= 1 && p[0].y.abs_diff(p[1].y) <= 1));
    assert_eq!(
        (route.first(), route.last()),
        (corners.first(), corners.last()),
        "the tinted cells join the ends"
    );
    let octile = gridpath::Searcher::new()
        .find_path(&grid, pathfinder(&app).start(), pathfinder(&app).goal(), &Settings::default())
        .expect("a grid route")
        .cost;
    assert!(length < octile, "any-angle is shorter than the grid optimum: {length} vs {octile}");
    walk_to_arrival(&mut app);
    assert_eq!(unit(&mut app).2, PathStatus::Arrived);
}

#[test]
fn with_partial_routes_on_a_walled_in_goal_sends_the_unit_as_close_as_possible() {
    let mut app = test_app(open_map(20, 12));
    let goal = pathfinder(&app).goal();
    // Wall the goal in (its two free neighbours on a corner goal, and the diagonal).
    let around: Vec<Pos> = [(-1, 0), (0, -1), (-1, -1)]
        .iter()
        .map(|&(dx, dy)| Pos::new(goal.x.wrapping_add_signed(dx), goal.y.wrapping_add_signed(dy)))
        .collect();
    for &cell in &around {
        drag(&mut app, MouseButton::Left, &[cell]);
    }
    assert!(matches!(unit(&mut app).2, PathStatus::Failed(_)), "by default the unit stops");
    tap_key(&mut app, KeyCode::KeyL);
    assert!(pathfinder(&app).settings().partial, "L turns partial routes on");
    app.update();
    assert_eq!(unit(&mut app).2, PathStatus::Partial);
    assert_eq!(
        tilepath::units::lab::status_label(&PathStatus::Partial),
        "goal unreachable: going as close as possible"
    );
    for _ in 0..MAX_WALK_FRAMES {
        if unit(&mut app).1.is_empty() {
            break;
        }
        app.update();
    }
    let (lab, _, status, _) = unit(&mut app);
    assert_eq!(status, PathStatus::Partial);
    assert!(
        lab.cell().x.abs_diff(goal.x) <= 2 && lab.cell().y.abs_diff(goal.y) <= 2,
        "close to the goal: {}",
        lab.cell()
    );
}

#[test]
fn a_large_unit_never_overlaps_a_wall_while_walls_are_painted_around_it() {
    use rand::{Rng, SeedableRng};
    use tilepath::units::big::BigUnit;
    let mut app = test_app(open_map(24, 16));
    hover(&mut app, Some(Pos::new(1, 1)));
    app.world_mut().write_message(key_message(KeyCode::ShiftLeft, ButtonState::Pressed));
    tap_key(&mut app, KeyCode::KeyJ);
    app.world_mut().write_message(key_message(KeyCode::ShiftLeft, ButtonState::Released));
    app.update();
    let big = app
        .world_mut()
        .query_filtered::<Entity, With<BigUnit>>()
        .single(app.world())
        .expect("Shift+J spawned one");
    assert_eq!(app.world().get::<BigUnit>(big).map(|b| b.size), Some(3));
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(21);
    let size = 3.0 * TILE_SIZE;
    let home = app.world().get::<Transform>(big).expect("the unit").translation.truncate();
    let mut farthest: f32 = 0.0;
    for frame in 0..600 {
        // Random wall strokes now and then (the editor refuses cells under any body).
        if frame % 15 == 0 {
            let from = Pos::new(rng.random_range(0..24), rng.random_range(0..16));
            let to = Pos::new(rng.random_range(0..24), rng.random_range(0..16));
            drag(&mut app, MouseButton::Left, &[from, to]);
        }
        app.update();
        let at = app.world().get::<Transform>(big).expect("the unit").translation.truncate();
        let problem = pathfinder(&app);
        for corner in [Vec2::new(-0.5, -0.5), Vec2::new(0.5, -0.5), Vec2::new(-0.5, 0.5), Vec2::new(0.5, 0.5)]
        {
            let point = at + corner * (size - 0.02);
            let cell = problem.nav.cell_at(point).expect("on the map");
            assert!(
                problem.grid().is_passable(cell),
                "frame {frame}: the 3x3 body overlaps a wall at {cell}"
            );
        }
        farthest = farthest.max(at.distance(home));
    }
    assert!(farthest > 5.0 * TILE_SIZE, "it walked towards the goal: {} tiles", farthest / TILE_SIZE);
}
