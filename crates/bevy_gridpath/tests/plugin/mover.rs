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

/// A negative limit backs a mover up along the way it came (room for a unit it cornered),
/// that far and never past the last point it reached; without a limit it walks on.
#[test]
fn a_negative_limit_backs_a_mover_up_along_its_way() {
    let mut app = app_on(CORRIDOR);
    let unit = spawn_at(&mut app, Pos::new(0, 1), (PathRequest::new(Pos::new(11, 1)), Mover::new(5.0)));
    let at = |app: &App| app.world().get::<Transform>(unit).unwrap().translation;
    let mover = |app: &App| *app.world().get::<Mover>(unit).unwrap();
    // Between two cell centres, a good way past the last one.
    let reached = run_until(&mut app, 100, |app| {
        mover(app).next().is_some()
            && mover(app).cell().is_some_and(|cell| at(app).distance(center(app, cell)) > 0.4 * TILE)
    });
    assert!(reached < 100, "it should set off");
    let last = center(&app, mover(&app).cell().unwrap());
    let before = at(&app);
    app.world_mut().get_mut::<Mover>(unit).unwrap().limit = Some(-0.1);
    app.update();
    let after = at(&app);
    assert!((before.distance(after) - 0.1 * TILE).abs() < 1e-3, "backed up 0.1 tiles: {before} -> {after}");
    assert!(after.distance(last) < before.distance(last), "towards where it came from");
    assert_eq!(after.y, before.y, "along the way it came");
    app.world_mut().get_mut::<Mover>(unit).unwrap().limit = Some(-100.0);
    app.update();
    assert_eq!(at(&app), last, "never past the last point it reached");
    app.world_mut().get_mut::<Mover>(unit).unwrap().limit = Some(-1.0);
    app.update();
    assert_eq!(at(&app), last, "and no further when asked again");
    assert_eq!(mover(&app).limit, None, "the move clears the limit");
    frames_to_arrive(&mut app, unit, 200);
    assert_eq!(cell_of(&app, unit), Some(Pos::new(11, 1)), "then it walks on and arrives");
}

/// A game walls the cell a smoothed segment crosses next, beside the step the mover is taking
/// (not the cell it stands in, nor the one it steps into): the mover must not walk on into it.
/// It turns back to the centre of the cell it stands in and takes the new route from there.
#[test]
fn a_wall_across_the_step_a_mover_is_taking_turns_it_back_not_through() {
    let mut app = app_on("......\n......\n......\n......\n......");
    // (3, 0) to (4, 2): one straight segment through (3, 1) and (4, 1), a knight's move.
    let unit =
        spawn_at(&mut app, Pos::new(3, 0), (PathRequest::new(Pos::new(4, 2)).smoothed(), Mover::new(5.0)));
    let at = |app: &App| app.world().get::<Transform>(unit).unwrap().translation.truncate();
    let mover = |app: &App| *app.world().get::<Mover>(unit).unwrap();
    // Until it stands in (3, 1) with (4, 2) as the cell it steps into: (4, 1) is beside the step.
    let frames = run_until(&mut app, 100, |app| {
        nav(app).cell_at(at(app)) == Some(Pos::new(3, 1)) && mover(app).next() == Some(Pos::new(4, 2))
    });
    assert!(frames < 100, "it should walk the segment: {:?} {:?}", nav(&app).cell_at(at(&app)), mover(&app));
    app.world_mut().resource_mut::<NavGrid>().set_wall(Pos::new(4, 1), true).unwrap();
    for frame in 0..200 {
        app.update();
        let cell = nav(&app).cell_at(at(&app)).expect("on the map");
        assert!(
            nav(&app).grid().is_passable(cell),
            "frame {frame}: the mover walked into the wall at {cell}"
        );
        if status(&app, unit) == PathStatus::Arrived {
            assert_eq!(cell, Pos::new(4, 2), "it arrives on the goal");
            return;
        }
    }
    panic!("it should arrive by the new route: {:?}", status(&app, unit));
}

/// Waypoints handed to a mover (no planner) across a cell walled since: it stops at the
/// border of that cell and never enters it.
#[test]
fn a_mover_never_steps_into_a_cell_walled_since_its_route_was_made() {
    let mut app = app_on(CORRIDOR);
    let unit = walker(&mut app, Pos::new(0, 1), Pos::new(6, 1));
    app.world_mut().resource_mut::<NavGrid>().set_wall(Pos::new(3, 1), true).unwrap();
    for frame in 0..60 {
        app.update();
        let cell = cell_of(&app, unit).expect("on the map");
        assert!(cell.x < 3, "frame {frame}: the mover walked into the wall ({cell})");
    }
    // Stopped against the wall, still on its way (nothing plans it a new route here).
    let x = app.world().get::<Transform>(unit).unwrap().translation.x;
    let border = center(&app, Pos::new(2, 1)).x + nav(&app).tile_size() / 2.0;
    assert!(border - x < nav(&app).tile_size() * 0.01, "it walks up to the wall: {x} against {border}");
    assert_eq!(status(&app, unit), PathStatus::Following);
}

/// A straight segment through a corner point of four cells, one of the two it only touches
/// there a wall (legal where corners may be cut): the mover walks on through the corner.
#[test]
fn a_segment_through_a_corner_beside_a_wall_is_walked_through() {
    let mut app = app_on(CORRIDOR);
    app.world_mut().resource_mut::<NavGrid>().set_wall(Pos::new(1, 2), true).unwrap();
    let unit = walker(&mut app, Pos::new(0, 2), Pos::new(2, 0));
    let frames = run_until(&mut app, 60, |app| status(app, unit) == PathStatus::Arrived);
    assert!(frames < 60, "it should arrive: stuck at {:?}", cell_of(&app, unit));
    assert_eq!(cell_of(&app, unit), Some(Pos::new(2, 0)));
}

/// A game system that walls the cell ahead of a mover after the plugin planned the frame
/// (between `GridPathSystems::Plan` and `GridPathSystems::Move`): the mover does not walk into
/// it that frame, and the next frame's re-plan takes it round.
#[test]
fn a_wall_painted_between_planning_and_moving_is_not_walked_into() {
    #[derive(Resource)]
    struct Paint(Option<Pos>);
    fn paint(mut nav: ResMut<NavGrid>, mut paint: ResMut<Paint>) {
        if let Some(cell) = paint.0.take() {
            nav.set_wall(cell, true).unwrap();
        }
    }
    let mut app = app_on("........\n........\n........");
    app.insert_resource(Paint(None));
    app.add_systems(Update, paint.after(GridPathSystems::Plan).before(GridPathSystems::Move));
    let unit = spawn_at(&mut app, Pos::new(0, 1), (PathRequest::new(Pos::new(7, 1)), Mover::new(4.0)));
    // Twice, wall the cell it steps into next in the frame it would cross into it.
    let tile = nav(&app).tile_size();
    let frame_walk = 4.0 * tile * FRAME.as_secs_f32();
    let mut painted = Vec::new();
    for frame in 0..300 {
        let at = app.world().get::<Transform>(unit).unwrap().translation.truncate();
        let next = app.world().get::<Mover>(unit).unwrap().next();
        if let Some(next) = next.filter(|&n| n.x >= 2 && n != Pos::new(7, 1) && !painted.contains(&n)) {
            let border = at.distance(center(&app, next).truncate()) - tile / 2.0;
            if painted.len() < 2 && border > 0.0 && border < frame_walk {
                app.world_mut().resource_mut::<Paint>().0 = Some(next);
                painted.push(next);
            }
        }
        app.update();
        let cell = cell_of(&app, unit).expect("on the map");
        assert!(
            nav(&app).grid().is_passable(cell),
            "frame {frame}: the mover walked into the wall at {cell}"
        );
        if status(&app, unit) == PathStatus::Arrived {
            assert_eq!(painted.len(), 2, "two cells were walled in its way");
            assert_eq!(cell, Pos::new(7, 1));
            return;
        }
    }
    panic!("it should arrive round the walls: {:?}", status(&app, unit));
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

/// An entity walking waypoints handed to it (no planner): a straight segment to `to`.
fn walker(app: &mut App, from: Pos, to: Pos) -> Entity {
    let point = nav(app).cell_center(to);
    let waypoints = Waypoints([Waypoint { cell: to, point }].into());
    spawn_at(app, from, (Mover::new(5.0), waypoints, PathStatus::Following))
}

#[test]
fn a_long_straight_segment_is_walked_in_a_straight_line_at_the_speed_of_the_terrain_underfoot() {
    // From (0, 0) to (11, 2): a segment across three rows, not a grid step.
    let mut app = app_on(CORRIDOR);
    let (from, to) = (Pos::new(0, 0), Pos::new(11, 2));
    let unit = walker(&mut app, from, to);
    let (a, b) = (center(&app, from).truncate(), center(&app, to).truncate());
    let mut frames = 0;
    while status(&app, unit) != PathStatus::Arrived {
        app.update();
        frames += 1;
        assert!(frames < 200, "it arrives");
        let at = app.world().get::<Transform>(unit).unwrap().translation.truncate();
        // Its distance from the line through a and b stays (numerically) zero.
        let off = (at - a).perp_dot((b - a).normalize()).abs();
        assert!(off < 1e-3 * TILE, "frame {frames}: {off} off the straight line");
    }
    // sqrt(11^2 + 2^2) = 11.18 tiles at 5 tiles/s in 50 ms frames: 45 frames.
    assert!((45..=47).contains(&frames), "{frames} frames");

    // The same segment with its middle columns costing 3: slower by the length walked in them.
    let mut app = app_on(CORRIDOR);
    for x in 4..7 {
        for y in 0..3 {
            app.world_mut()
                .resource_mut::<NavGrid>()
                .set_tile(Pos::new(x, y), Tile::Ground { cost: 3 })
                .unwrap();
        }
    }
    let unit = walker(&mut app, from, to);
    let slow = run_until(&mut app, 400, |app| status(app, unit) == PathStatus::Arrived);
    // 3 of the 11 columns (27 % of the length) at a third of the speed: 45 * (0.73 + 0.27 * 3) = 69 frames.
    assert!((66..=72).contains(&slow), "{slow} frames");
}

#[test]
fn a_re_plan_in_the_middle_of_a_long_segment_starts_from_the_cell_the_mover_is_in() {
    let mut app = app_on(CORRIDOR);
    let to = Pos::new(11, 2);
    let unit = walker(&mut app, Pos::new(0, 0), to);
    app.world_mut().entity_mut(unit).insert(PathRequest::new(to));
    // The request replaces the handed route: planning keeps only the step to the cell it is in.
    for _ in 0..20 {
        app.update();
    }
    let mover = *app.world().get::<Mover>(unit).unwrap();
    let here = cell_of(&app, unit).unwrap();
    let first = route(&app, unit).first().copied();
    assert!(
        first.is_some_and(|c| c.x.abs_diff(here.x) <= 1 && c.y.abs_diff(here.y) <= 1),
        "{first:?} from {here}"
    );
    assert!(mover.next().is_none_or(|n| n.x.abs_diff(here.x) <= 1 && n.y.abs_diff(here.y) <= 1));
    assert_legal_route(&app, here, &route(&app, unit));
    frames_to_arrive(&mut app, unit, 200);
}

#[test]
fn a_two_by_two_mover_plans_with_its_clearance_walks_body_centres_and_never_overlaps_a_wall() {
    // A wall across the middle with a one-cell gap (row 1) and a two-cell gap (rows 5-6).
    let map = "\
.....#.....
...........
.....#.....
.....#.....
.....#.....
...........
...........
.....#.....";
    for smooth in [false, true] {
        let mut app = app_on(map);
        let settings = Settings { agent_size: 2, ..Settings::default() };
        let mut request = PathRequest::new(Pos::new(8, 0)).with_settings(settings);
        request.smooth = smooth;
        let start = nav(&app).body_center(Pos::new(0, 0), 2).extend(0.0);
        let unit = app.world_mut().spawn((Transform::from_translation(start), Mover::new(5.0), request)).id();
        let grid = nav(&app).grid().clone();
        let mut frames = 0;
        while status(&app, unit) != PathStatus::Arrived {
            app.update();
            frames += 1;
            assert!(frames < 400, "smooth {smooth}: it arrives ({:?})", status(&app, unit));
            // The body's four corners, a hair inside, are on free cells.
            let at = app.world().get::<Transform>(unit).unwrap().translation.truncate();
            for corner in
                [Vec2::new(-1.0, -1.0), Vec2::new(1.0, -1.0), Vec2::new(-1.0, 1.0), Vec2::new(1.0, 1.0)]
            {
                let cell = nav(&app).cell_at(at + corner * (TILE - 0.01)).expect("on the grid");
                assert!(
                    grid.is_passable(cell),
                    "smooth {smooth}, frame {frames}: the body overlaps the wall at {cell}"
                );
            }
        }
        let at = app.world().get::<Transform>(unit).unwrap().translation.truncate();
        assert_eq!(at, nav(&app).body_center(Pos::new(8, 0), 2), "its body stands on the goal");
    }
}
