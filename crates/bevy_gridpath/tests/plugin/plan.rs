//! `PathRequest` -> `Waypoints` and `PathStatus`: at once for one, batched for many, outdated
//! results thrown away, edits re-planning exactly the routes they cross.

use super::*;

const ROOM: &str = "\
..........
..........
....##....
....##....
..........";

#[test]
fn a_lone_request_is_answered_in_the_same_frame() {
    let mut app = app_on(ROOM);
    let unit = spawn_at(&mut app, Pos::new(0, 2), PathRequest::new(Pos::new(9, 2)));
    app.update();
    assert_eq!(status(&app, unit), PathStatus::Following, "one request is planned in the frame it was made");
    let cells = route(&app, unit);
    assert_eq!(cells.last(), Some(&Pos::new(9, 2)), "the route ends on the goal");
    assert_ne!(cells.first(), Some(&Pos::new(0, 2)), "the cell the unit stands on is not a waypoint");
    assert_legal_route(&app, Pos::new(0, 2), &cells);
    let points = app.world().get::<Waypoints>(unit).unwrap().clone();
    for w in points.iter() {
        assert_eq!(w.point, nav(&app).cell_center(w.cell), "waypoints are cell centres in world space");
    }
    assert_eq!(queue(&app).counts().searched, 1);
}

#[test]
fn many_requests_are_planned_in_batches_within_the_frame_budget() {
    let mut app = app_on(ROOM);
    app.insert_resource(PlanBudget { requests_per_frame: 16, batch_size: 4, max_in_flight: 8, sync_max: 1 });
    let units: Vec<Entity> = (0..40)
        .map(|i| {
            spawn_at(&mut app, Pos::new(i % 10, if i < 20 { 0 } else { 4 }), PathRequest::new(Pos::new(9, 2)))
        })
        .collect();
    app.update();
    assert!(queue(&app).counts().searched <= 16, "no more than the budget starts in a frame");
    run_until(&mut app, 200, |app| queue(app).is_idle());
    app.update();
    for &unit in &units {
        assert!(
            matches!(status(&app, unit), PathStatus::Following | PathStatus::Arrived),
            "every request is answered"
        );
        let from = cell_of(&app, unit).unwrap();
        assert_legal_route(&app, from, &route(&app, unit));
    }
    assert_eq!(queue(&app).counts().delivered, 40, "each request answered once");
}

#[test]
fn a_result_for_an_edited_grid_is_thrown_away_and_planned_again() {
    let mut app = app_on(ROOM);
    app.insert_resource(PlanBudget { requests_per_frame: 64, batch_size: 64, max_in_flight: 4, sync_max: 0 });
    let units: Vec<Entity> =
        (0..5).map(|y| spawn_at(&mut app, Pos::new(0, y), PathRequest::new(Pos::new(9, y)))).collect();
    app.update();
    // While the batch may still run, wall the whole column 7 except its bottom cell.
    {
        let mut nav = app.world_mut().resource_mut::<NavGrid>();
        for y in 0..4 {
            nav.set_wall(Pos::new(7, y), true).unwrap();
        }
    }
    run_until(&mut app, 200, |app| queue(app).is_idle());
    app.update();
    for &unit in &units {
        let cells = route(&app, unit);
        assert!(!cells.is_empty(), "every unit gets a route");
        assert!(
            cells.iter().all(|&c| nav(&app).grid().is_passable(c)),
            "a delivered route never crosses a wall built while it was planned: {cells:?}"
        );
        assert_legal_route(&app, cell_of(&app, unit).unwrap(), &cells);
    }
}

#[test]
fn an_edit_re_plans_exactly_the_routes_it_crosses() {
    let mut app = app_on(ROOM);
    let top = spawn_at(&mut app, Pos::new(0, 0), PathRequest::new(Pos::new(9, 0)));
    app.update();
    let bottom = spawn_at(&mut app, Pos::new(0, 4), PathRequest::new(Pos::new(9, 4)));
    app.update();
    let before = queue(&app).counts();
    app.world_mut().resource_mut::<NavGrid>().set_wall(Pos::new(5, 0), true).unwrap();
    app.update();
    let after = queue(&app).counts();
    assert_eq!(after.replans - before.replans, 1, "only the route through the new wall is planned again");
    assert!(!route(&app, top).contains(&Pos::new(5, 0)), "the re-planned route avoids the wall");
    assert!(route(&app, bottom).contains(&Pos::new(5, 4)), "the other route is kept");
}

#[test]
fn an_unreachable_goal_fails_with_the_reason_and_an_edit_that_opens_it_plans_again() {
    let mut app = app_on("...#..\n...#..\n...#..");
    let unit = spawn_at(&mut app, Pos::new(0, 1), PathRequest::new(Pos::new(5, 1)));
    app.update();
    let PathStatus::Failed(reason) = status(&app, unit) else { panic!("no route must fail") };
    assert!(reason.to_string().contains("no path"), "the failure says why: {reason}");
    app.world_mut().resource_mut::<NavGrid>().set_wall(Pos::new(3, 2), false).unwrap();
    app.update();
    assert_eq!(status(&app, unit), PathStatus::Following, "an opening edit plans the failed request again");
    assert!(route(&app, unit).contains(&Pos::new(3, 2)));
}

#[test]
fn a_changed_request_is_planned_again_and_an_entity_off_the_grid_fails() {
    let mut app = app_on(ROOM);
    let unit = spawn_at(&mut app, Pos::new(0, 0), PathRequest::new(Pos::new(9, 0)));
    app.update();
    app.world_mut().get_mut::<PathRequest>(unit).unwrap().goal = Pos::new(0, 4);
    app.update();
    assert_eq!(route(&app, unit).last(), Some(&Pos::new(0, 4)), "a new goal is planned at once");
    let lost =
        app.world_mut().spawn((Transform::from_xyz(1e6, 0.0, 0.0), PathRequest::new(Pos::new(1, 1)))).id();
    app.update();
    assert_eq!(status(&app, lost), PathStatus::Failed(PathFailure::OffGrid));
}

#[test]
fn a_replaced_grid_re_plans_everyone_and_grid_changed_says_what_changed() {
    let mut app = app_on(ROOM);
    let unit = spawn_at(&mut app, Pos::new(0, 0), PathRequest::new(Pos::new(2, 0)));
    app.update();
    app.world_mut().resource_mut::<NavGrid>().set_wall(Pos::new(9, 4), true).unwrap();
    app.update();
    let changes: Vec<GridChanged> =
        app.world().resource::<Messages<GridChanged>>().iter_current_update_messages().cloned().collect();
    assert_eq!(changes, vec![GridChanged::Cells(vec![Pos::new(9, 4)])]);
    let before = nav(&app).version().generation;
    app.world_mut().resource_mut::<NavGrid>().replace(grid("...\n...\n..."));
    app.update();
    let changes: Vec<GridChanged> =
        app.world().resource::<Messages<GridChanged>>().iter_current_update_messages().cloned().collect();
    assert_eq!(changes, vec![GridChanged::Replaced]);
    assert_ne!(nav(&app).version().generation, before, "another grid");
    assert!(
        matches!(status(&app, unit), PathStatus::Following | PathStatus::Arrived | PathStatus::Failed(_)),
        "the request is answered on the new grid"
    );
}

#[test]
fn a_flood_of_requests_coalesces_per_entity_and_every_entity_gets_its_latest_goal() {
    let mut app = app_on(ROOM);
    let budget = *app.world().resource::<PlanBudget>();
    let units: Vec<Entity> = (0..5_000)
        .map(|i| spawn_at(&mut app, Pos::new(i % 10, 0), PathRequest::new(Pos::new(9, 4))))
        .collect();
    // Every frame for ten frames, every entity asks again, for another goal: 50,000 requests.
    let mut peak = 0;
    for round in 0..10_u32 {
        let goal = Pos::new(round % 10, 4);
        for &unit in &units {
            app.world_mut().get_mut::<PathRequest>(unit).expect("a request").goal = goal;
        }
        let searched = queue(&app).counts().searched;
        app.update();
        peak = peak.max(queue(&app).waiting());
        assert!(
            queue(&app).waiting() <= units.len(),
            "one place in the queue per entity, however often it asks"
        );
        let started = queue(&app).counts().searched - searched;
        assert!(started <= budget.requests_per_frame as u64, "the frame budget holds in a flood: {started}");
    }
    assert!(peak > 0, "the flood queued");
    run_until(&mut app, 2_000, |app| queue(app).is_idle());
    app.update();
    let latest = Pos::new(9, 4);
    for &unit in &units {
        let route = route(&app, unit);
        assert_eq!(status(&app, unit), PathStatus::Following, "every request is answered");
        assert_eq!(route.last(), Some(&latest), "with a route to its latest goal, not an older one");
        assert_legal_route(&app, cell_of(&app, unit).expect("on the grid"), &route);
    }
    // Answers for goals already replaced were dropped, not delivered.
    assert!(queue(&app).counts().delivered <= units.len() as u64 * 2, "{:?}", queue(&app).counts());
}

#[test]
fn a_wall_beside_a_diagonal_step_re_plans_the_route_that_step_belongs_to() {
    // The route from (0, 0) to (2, 2) on open ground is the diagonal through (1, 1). A wall at
    // (1, 0) does not touch its cells, but makes its first step cut a corner.
    let mut app = app_on("...\n...\n...");
    let unit = spawn_at(&mut app, Pos::new(0, 0), PathRequest::new(Pos::new(2, 2)));
    app.update();
    assert_eq!(route(&app, unit), vec![Pos::new(1, 1), Pos::new(2, 2)]);
    app.world_mut().resource_mut::<NavGrid>().set_wall(Pos::new(1, 0), true).expect("on the grid");
    app.update();
    let from = cell_of(&app, unit).expect("on the grid");
    assert_legal_route(&app, from, &route(&app, unit));
    assert_ne!(route(&app, unit).first(), Some(&Pos::new(1, 1)), "the corner cut is no longer taken");
}

#[test]
fn a_partial_request_walks_to_the_nearest_reachable_cell_and_plans_again_when_an_edit_opens_the_way() {
    // The goal (9, 2) is walled in on the right-hand side.
    let mut app = app_on("........#.\n........#.\n........#.\n........#.\n........#.");
    let goal = Pos::new(9, 2);
    let settings = Settings { partial: true, ..Settings::default() };
    let unit =
        spawn_at(&mut app, Pos::new(0, 2), (PathRequest::new(goal).with_settings(settings), Mover::new(5.0)));
    app.update();
    assert_eq!(status(&app, unit), PathStatus::Partial, "an unreachable goal gives a partial route");
    assert_eq!(route(&app, unit).last(), Some(&Pos::new(7, 2)), "to the reachable cell nearest the goal");
    run_until(&mut app, 200, |app| route(app, unit).is_empty());
    app.update();
    assert_eq!(cell_of(&app, unit), Some(Pos::new(7, 2)));
    assert_eq!(status(&app, unit), PathStatus::Partial, "at the end it is still not on its goal");
    // Without `partial`, the same request fails.
    let strict = spawn_at(&mut app, Pos::new(0, 0), PathRequest::new(goal));
    app.update();
    assert!(matches!(status(&app, strict), PathStatus::Failed(_)));
    // An edit that opens the wall plans again, and the unit reaches its goal.
    app.world_mut().resource_mut::<NavGrid>().set_wall(Pos::new(8, 2), false).expect("on the grid");
    run_until(&mut app, 200, |app| status(app, unit) == PathStatus::Arrived);
    assert_eq!(cell_of(&app, unit), Some(goal));
}
