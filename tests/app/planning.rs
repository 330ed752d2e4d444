use super::*;
use gridpath::{Algorithm, SearchError};
use tilepath::search::plan::{INLINE_PLAN_CELLS, PlanRunner};

#[test]
fn the_first_frame_plans_the_builtin_route() {
    let app = test_app(MapSource::BuiltIn);
    let PlanOutcome::Found { path, .. } = &report(&app).outcome else {
        panic!("the built-in map should have a route, got {:?}", report(&app).outcome);
    };
    let pf = pathfinder(&app);
    assert_eq!(path.cells.first(), Some(&pf.start()));
    assert_eq!(path.cells.last(), Some(&pf.goal()));
    assert_eq!(report(&app).plans, 1);
}

#[test]
fn changing_a_setting_replans_exactly_once() {
    let mut app = test_app(MapSource::BuiltIn);
    for _ in 0..10 {
        app.update();
    }
    let before = report(&app).plans;
    assert_eq!(before, 1, "nothing changed, so nothing should be re-planned");
    tap_key(&mut app, KeyCode::Tab);
    for _ in 0..10 {
        app.update();
    }
    assert_eq!(pathfinder(&app).settings().algorithm, Algorithm::Dijkstra, "Tab selects the next algorithm");
    assert_eq!(report(&app).plans, before + 1, "one setting change must cause exactly one re-plan");
}

#[test]
fn moving_the_goal_replans_once_and_painting_replans_once() {
    let mut app = test_app(open_map(30, 20));
    let before = report(&app).plans;
    hover(&mut app, Some(Pos::new(12, 12)));
    tap_key(&mut app, KeyCode::KeyG);
    app.update();
    assert_eq!(report(&app).plans, before + 1);
    drag(&mut app, MouseButton::Left, &[Pos::new(20, 2)]);
    app.update();
    assert_eq!(report(&app).plans, before + 2);
    // Painting over an existing wall changes nothing, so plans nothing.
    drag(&mut app, MouseButton::Left, &[Pos::new(20, 2)]);
    assert_eq!(report(&app).plans, before + 2);
}

#[test]
fn unsupported_settings_are_refused_or_reported_not_ignored() {
    let mut app = test_app(MapSource::BuiltIn);
    while pathfinder(&app).settings().algorithm != Algorithm::Jps {
        tap_key(&mut app, KeyCode::Tab);
    }
    assert!(matches!(report(&app).outcome, PlanOutcome::Found { .. }), "JPS runs on the built-in map");
    // 4 moves would break JPS: refused, with the reason.
    app.world_mut().write_message(key_message(KeyCode::KeyM, ButtonState::Pressed));
    app.update();
    assert_eq!(
        pathfinder(&app).settings().rules.moves,
        gridpath::Moves::Eight,
        "M must be refused under JPS"
    );
    assert!(
        notices(&app).iter().any(|n| n.text.contains("JPS needs 8-connected moves")),
        "the refusal must say why: {:?}",
        notices(&app)
    );
    app.world_mut().write_message(key_message(KeyCode::KeyM, ButtonState::Released));
    app.update();

    // A map with terrain costs: JPS runs there (exact on costs since issue 24); BFS, which
    // would ignore the costs, is refused, and Tab skips it.
    let mut app = test_app(costly_map());
    tap_key(&mut app, KeyCode::F5);
    assert_eq!(pathfinder(&app).settings().algorithm, Algorithm::Jps, "F5 picks JPS on terrain costs");
    assert!(matches!(report(&app).outcome, PlanOutcome::Found { .. }), "JPS runs on the costly map");
    tap_key(&mut app, KeyCode::F3);
    assert_eq!(pathfinder(&app).settings().algorithm, Algorithm::Jps, "F3 must not pick BFS here");
    for _ in 0..Algorithm::ALL.len() {
        tap_key(&mut app, KeyCode::Tab);
        assert_ne!(pathfinder(&app).settings().algorithm, Algorithm::Bfs, "Tab must skip BFS here");
    }
    assert!(
        matches!(report(&app).outcome, PlanOutcome::Found { .. }),
        "every algorithm Tab picks must run: {:?}",
        report(&app).outcome
    );
    assert!(
        !matches!(report(&app).outcome, PlanOutcome::Failed(SearchError::Unsupported { .. })),
        "no unsupported search is ever planned from the keys"
    );
}

#[test]
fn the_search_records_visited_and_frontier_cells() {
    let app = test_app(MapSource::BuiltIn);
    let explored = &report(&app).explored;
    assert!(explored.visited.len() > 40, "A* should have expanded cells");
    assert!(explored.visited.contains(&pathfinder(&app).start()));
    assert!(explored.frontier.is_disjoint(&explored.visited));
}

/// `I` turns incremental re-planning on: the main search becomes D* Lite, whose first search is
/// full and whose re-plans after an edit repair it — A*'s cost for far fewer expansions than a
/// fresh A* — the replay shows the repair, the HUD and the race table count both, and the lab's
/// unit re-plans the same way (the plugin's `ReplanIncrementally`). `I` again turns it off.
#[test]
fn incremental_replanning_repairs_the_last_search_after_an_edit() {
    use bevy_gridpath::ReplanIncrementally;
    use gridpath::{Searcher, TraceEvent};
    use tilepath::units::lab::LabUnit;
    let mut app = test_app_with_hud(MapSource::BuiltIn);
    tap_key(&mut app, KeyCode::KeyI);
    app.update();
    let first = report(&app).repair.expect("D* Lite planned the main route");
    assert!(!first.repaired, "the first incremental plan is a full search");
    let PlanOutcome::Found { path, .. } = &report(&app).outcome else { panic!("a route") };
    // A wall on the route, two thirds of the way: the unit is far from it.
    let blocked = path.cells[path.cells.len() * 2 / 3];
    drag(&mut app, MouseButton::Left, &[blocked]);
    app.update();
    let repair = report(&app).repair.expect("a repair");
    assert!(repair.repaired, "an edit is repaired, not searched afresh");
    let PlanOutcome::Found { path, .. } = &report(&app).outcome else { panic!("a detour") };
    assert!(!path.cells.contains(&blocked));
    let pf = pathfinder(&app);
    let fresh =
        Searcher::new().find_path(pf.grid(), pf.start(), pf.goal(), &Settings::default()).expect("A*");
    assert!(
        (path.cost - fresh.cost).abs() < 1e-9,
        "the repair finds A*'s cost: {} vs {}",
        path.cost,
        fresh.cost
    );
    assert_eq!(repair.fresh_expanded, fresh.stats.expanded);
    assert!(
        repair.expanded < repair.fresh_expanded,
        "the repair expands fewer cells than a fresh A*: {} vs {}",
        repair.expanded,
        repair.fresh_expanded
    );
    let closed = report(&app).trace.iter().filter(|e| matches!(e, TraceEvent::Closed { .. })).count();
    assert_eq!(closed as u64, repair.expanded, "the replay is the repair's expansions");
    let text = ui_text(&mut app);
    assert!(text.contains("D* Lite (incremental)") && text.contains("repair:"), "the HUD says so: {text}");
    let lab =
        app.world_mut().query_filtered::<Entity, With<LabUnit>>().single(app.world()).expect("the lab unit");
    let replan = app.world().get::<ReplanIncrementally>(lab).expect("the lab unit re-plans incrementally");
    assert!(replan.last_plan().is_some(), "its route across the new wall was re-planned by D* Lite");
    tap_key(&mut app, KeyCode::KeyI);
    app.update();
    assert_eq!(report(&app).repair, None, "off again: a fresh search");
    assert!(app.world().get::<ReplanIncrementally>(lab).is_none());
}

#[test]
fn a_big_maps_route_is_searched_off_the_frame_and_shown_for_the_map_as_painted() {
    // Above INLINE_PLAN_CELLS: the main route is searched on a thread of its own.
    let side = 600;
    assert!(side * side > INLINE_PLAN_CELLS);
    let source = MapSource::Generated {
        generator: gridpath::generate::Generator::Caves,
        seed: 5,
        width: side as u32,
        height: side as u32,
    };
    let mut app = test_app_with_hud(source);
    until_planned(&mut app);
    let (start, goal) = (pathfinder(&app).start(), pathfinder(&app).goal());
    let dijkstra = Settings::with_algorithm(Algorithm::Dijkstra);
    let optimum = |app: &App| {
        gridpath::Searcher::new()
            .find_path(pathfinder(app).grid(), start, goal, &dijkstra)
            .map(|p| p.cost)
            .ok()
    };
    let cost = |app: &App| match &app.world().resource::<PlanReport>().outcome {
        PlanOutcome::Found { path, .. } => Some(path.cost),
        _ => None,
    };
    let same = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) => (a - b).abs() < 1e-6,
        (a, b) => a == b,
    };
    let first = cost(&app);
    assert!(first.is_some() && same(first, optimum(&app)), "the first route is shown once searched");
    let route = app.world().resource::<PlanReport>().outcome.cells().to_vec();

    // Walls on the route, one a frame: each edit frame only starts a search (the HUD says the
    // route shown is the last one's), and the route shown in the end is for the map as painted.
    let plans = app.world().resource::<PlanReport>().plans;
    let middle = route.len() / 2;
    hover(&mut app, Some(route[middle]));
    mouse(&mut app, MouseButton::Left, ButtonState::Pressed);
    app.update();
    assert!(!pathfinder(&app).grid().is_passable(route[middle]), "the wall was painted");
    assert!(app.world().resource::<PlanRunner>().is_planning(), "the edit frame starts a search");
    assert_eq!(app.world().resource::<PlanReport>().plans, plans, "and does not wait for it");
    assert!(
        ui_text(&mut app).contains("planning the map as it is now"),
        "the HUD says so: {}",
        ui_text(&mut app)
    );
    for &cell in &route[middle + 1..middle + 4] {
        hover(&mut app, Some(cell));
        app.update();
    }
    mouse(&mut app, MouseButton::Left, ButtonState::Released);
    app.update();
    until_planned(&mut app);
    assert!(!pathfinder(&app).grid().is_passable(route[middle + 3]), "the whole stroke was painted");
    assert!(same(cost(&app), optimum(&app)), "the route shown is for the map as painted");
    let shown = app.world().resource::<PlanReport>().outcome.cells().to_vec();
    assert!(
        route[middle..middle + 4].iter().all(|cell| !shown.contains(cell)),
        "and goes round every wall of the stroke"
    );
    assert!(!same(cost(&app), first), "a longer one: the old route is walled");
    assert!(app.world().resource::<PlanReport>().plans > plans);
    assert!(!ui_text(&mut app).contains("planning the map"), "and the HUD no longer says it is planning");
}

#[test]
fn a_big_map_opened_shows_no_route_of_the_last_map_while_its_own_is_searched() {
    let mut app = test_app_with_hud(MapSource::BuiltIn);
    assert!(matches!(app.world().resource::<PlanReport>().outcome, PlanOutcome::Found { .. }));
    let side = 600;
    let source = MapSource::Generated {
        generator: gridpath::generate::Generator::Caves,
        seed: 5,
        width: side,
        height: side,
    };
    app.world_mut().write_message(tilepath::edit::files::OpenMap(source));
    app.update();
    assert_eq!(pathfinder(&app).grid().width(), side, "the big map is open");
    assert!(app.world().resource::<PlanRunner>().is_planning(), "its route is searched off the frame");
    let report = app.world().resource::<PlanReport>();
    assert!(
        matches!(report.outcome, PlanOutcome::Pending) && report.trace.is_empty() && report.route.is_empty(),
        "the built-in map's route, search and replay are gone meanwhile"
    );
    assert!(ui_text(&mut app).contains("planning..."), "the HUD says it is planning: {}", ui_text(&mut app));
    for _ in 0..3 {
        // Whenever its own route arrives, the lab's unit waits for the search behind it.
        let waiting = {
            let mut lab = app.world_mut().query::<&LabUnit>();
            lab.single(app.world()).is_ok_and(LabUnit::is_waiting)
        };
        if app.world().resource::<PlanRunner>().is_planning() {
            assert!(waiting, "the lab's unit waits while the search behind its route runs");
        }
        app.update();
    }
    until_planned(&mut app);
    let cells = app.world().resource::<PlanReport>().outcome.cells().to_vec();
    assert_eq!(cells.first(), Some(&pathfinder(&app).start()), "then the new map's route");
    assert_eq!(cells.last(), Some(&pathfinder(&app).goal()));
}
