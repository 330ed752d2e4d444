//! `Mover`: walks the waypoints, slower on costly terrain, re-plans from where it stands when an
//! edit crosses its remaining route, and holds still on demand.

use super::*;

const CORRIDOR: &str = "\
............
............
............";

/// Frames until `unit` arrives (at most `limit`).
fn frames_to_arrive(app: &mut App, unit: Entity, limit: usize) -> usize {
    run_until(app, limit, |app| status(app, unit) == PathStatus::Arrived)
}

#[test]
fn a_mover_walks_its_route_to_the_goal_centre_and_arrives() {
    let mut app = app_on(CORRIDOR);
    let unit = spawn_at(&mut app, Pos::new(0, 1), (PathRequest::new(Pos::new(11, 1)), Mover::new(5.0)));
    let frames = frames_to_arrive(&mut app, unit, 200);
    // 11 tiles at 5 tiles/s in 50 ms frames: 44 frames and a little.
    assert!((44..=47).contains(&frames), "the walk takes as long as its speed says: {frames} frames");
    let at = app.world().get::<Transform>(unit).unwrap().translation;
    assert_eq!(at, center(&app, Pos::new(11, 1)), "it stands on the goal's centre");
    assert!(route(&app, unit).is_empty());
}

#[test]
fn costly_terrain_slows_a_mover_down() {
    let plain = {
        let mut app = app_on("......\n......");
        let unit = spawn_at(&mut app, Pos::new(0, 0), (PathRequest::new(Pos::new(5, 0)), Mover::new(5.0)));
        frames_to_arrive(&mut app, unit, 400)
    };
    // Every cell costs 3 to enter.
    let costly = {
        let mut app = app_on("......\n......");
        app.world_mut().resource_mut::<NavGrid>().fill(Tile::Ground { cost: 3 }).unwrap();
        let unit = spawn_at(&mut app, Pos::new(0, 0), (PathRequest::new(Pos::new(5, 0)), Mover::new(5.0)));
        frames_to_arrive(&mut app, unit, 400)
    };
    assert!(costly >= plain * 3 - 3, "cost-3 cells take three times as long: {plain} vs {costly} frames");
}

#[test]
fn a_mover_re_plans_from_where_it_stands_when_an_edit_crosses_its_route() {
    let mut app = app_on(CORRIDOR);
    let unit = spawn_at(&mut app, Pos::new(0, 1), (PathRequest::new(Pos::new(11, 1)), Mover::new(5.0)));
    for _ in 0..10 {
        app.update();
    }
    let walked_to = cell_of(&app, unit).unwrap();
    assert!(walked_to.x >= 1, "it set off");
    app.world_mut().resource_mut::<NavGrid>().set_wall(Pos::new(8, 1), true).unwrap();
    app.update();
    let cells = route(&app, unit);
    assert!(!cells.contains(&Pos::new(8, 1)), "the new route avoids the new wall");
    let mover = *app.world().get::<Mover>(unit).unwrap();
    let first = mover.next().or(mover.cell()).unwrap();
    assert!(first.x >= walked_to.x, "the new route starts where it stands, not back at the start");
    frames_to_arrive(&mut app, unit, 200);
    assert_eq!(cell_of(&app, unit), Some(Pos::new(11, 1)));
}

#[test]
fn a_held_mover_keeps_its_route_and_stands_still() {
    let mut app = app_on(CORRIDOR);
    let mut mover = Mover::new(5.0);
    mover.hold = true;
    let unit = spawn_at(&mut app, Pos::new(0, 1), (PathRequest::new(Pos::new(11, 1)), mover));
    for _ in 0..10 {
        app.update();
    }
    assert_eq!(cell_of(&app, unit), Some(Pos::new(0, 1)), "a held mover does not move");
    assert!(!route(&app, unit).is_empty(), "it keeps its route");
    app.world_mut().get_mut::<Mover>(unit).unwrap().hold = false;
    frames_to_arrive(&mut app, unit, 200);
}
