//! `Avoid`: movers that steer clear of each other and of the walls — head-on in a corridor, a
//! crowd through a one-cell door settling around its goal, around a large unit that does not
//! avoid — checked every frame; and with `LocalAvoidance` off, movers as before.

use super::*;

/// The least centre distance over the sum of radii allowed between two bodies (2 % overlap).
const GAP_RATIO: f32 = 0.98;

/// Where `entity`'s body is, in tiles (x right, y down, as the grid).
fn tiles(app: &App, entity: Entity) -> Vec2 {
    let at = app.world().get::<Transform>(entity).expect("the entity has a transform").translation;
    let layout = nav(app).layout();
    Vec2::new(at.x - layout.origin.x, layout.origin.y - at.y) / layout.tile_size
}

/// The radius (tiles) of `entity`'s body: its `Avoid`, or a one-cell or `size`-cell body.
fn radius(app: &App, entity: Entity, size: u8) -> f32 {
    app.world().get::<Avoid>(entity).map_or(f32::from(size) / 2.0 - 0.2, |a| a.radius)
}

/// Checks, this frame, that no two of `bodies` (entity, size) overlap beyond the 2 % and that
/// none overlaps a wall or the map's edge; returns the least gap ratio.
fn check_frame(app: &App, bodies: &[(Entity, u8)], frame: usize) -> f32 {
    let grid = nav(app).grid();
    let placed: Vec<(Vec2, f32)> =
        bodies.iter().map(|&(e, size)| (tiles(app, e), radius(app, e, size))).collect();
    let mut least = f32::INFINITY;
    for (i, &(p, r)) in placed.iter().enumerate() {
        for &(q, s) in &placed[i + 1..] {
            let ratio = p.distance(q) / (r + s);
            least = least.min(ratio);
            assert!(
                ratio >= GAP_RATIO,
                "frame {frame}: bodies at {p} and {q} overlap (gap ratio {ratio:.3})"
            );
        }
        let (x0, y0) = ((p.x - r).floor() as i64, (p.y - r).floor() as i64);
        let (x1, y1) = ((p.x + r).floor() as i64, (p.y + r).floor() as i64);
        for y in y0..=y1 {
            for x in x0..=x1 {
                let open = x >= 0
                    && y >= 0
                    && grid.is_passable(Pos::new(x as u32, y as u32))
                    && (x as u32) < grid.width()
                    && (y as u32) < grid.height();
                if open {
                    continue;
                }
                let nearest =
                    p.clamp(Vec2::new(x as f32, y as f32), Vec2::new(x as f32 + 1.0, y as f32 + 1.0));
                assert!(
                    p.distance(nearest) >= r - 1e-3,
                    "frame {frame}: the body at {p} (radius {r}) overlaps the wall ({x}, {y})"
                );
            }
        }
    }
    least
}

/// Runs frames until every one of `units` has arrived, checking every frame; returns the
/// frames it took.
fn run_checked(app: &mut App, units: &[Entity], others: &[(Entity, u8)], frames: usize) -> usize {
    let bodies: Vec<(Entity, u8)> = units.iter().map(|&e| (e, 1)).chain(others.iter().copied()).collect();
    let mut least = f32::INFINITY;
    for frame in 0..frames {
        least = least.min(check_frame(app, &bodies, frame));
        if units.iter().all(|&u| status(app, u) == PathStatus::Arrived) {
            eprintln!("{} units arrived in {frame} frames, least gap ratio {least:.3}", units.len());
            return frame;
        }
        app.update();
    }
    let left: Vec<(PathStatus, Vec2, Vec<Pos>)> = units
        .iter()
        .filter(|&&u| status(app, u) != PathStatus::Arrived)
        .map(|&u| (status(app, u), tiles(app, u), route(app, u)))
        .collect();
    panic!("every unit must arrive within {frames} frames; still on the way: {left:?}");
}

const CORRIDOR: &str = "\
########################
........................
........................
........................
########################";

#[test]
fn two_groups_meeting_head_on_in_a_corridor_pass_without_touching() {
    let mut app = app_on(CORRIDOR);
    // One group on routes of their own, the other on a shared flow field: each group to one goal.
    let (west_goal, east_goal) = (Pos::new(2, 2), Pos::new(21, 2));
    let mut units = Vec::new();
    for row in 1..=3 {
        for column in 0..3 {
            let (west, east) = (Pos::new(column, row), Pos::new(23 - column, row));
            units.push(spawn_at(
                &mut app,
                west,
                (PathRequest::new(east_goal), Mover::new(4.0), Avoid::default()),
            ));
            let follow = FollowFlowField::new(west_goal);
            units.push(spawn_at(&mut app, east, (follow, Mover::new(4.0), Avoid::default())));
        }
    }
    // 18 tiles or more at 4 tiles/s: 4.5 s, 90 frames of 50 ms, if nobody were in the way.
    let frames = run_checked(&mut app, &units, &[], 1_200);
    assert!(frames >= 90, "nobody walks faster than its speed: {frames} frames");
    // Within the ring its group fills (the other 8 arrived first), not strung out along the
    // corridor.
    let ring = bevy_gridpath::gridpath::avoid::ring_reach(8, bevy_gridpath::UNIT_RADIUS);
    for &unit in &units {
        let goal = app.world().get::<PathRequest>(unit).map_or(west_goal, |r| r.goal);
        let at = tiles(&app, unit);
        let centre = Vec2::new(goal.x as f32 + 0.5, goal.y as f32 + 0.5);
        assert!(at.distance(centre) <= ring, "a unit settles around its group's goal: {at} for {goal}");
    }
}

const DOOR: &str = "\
.........#.........
.........#.........
.........#.........
.........#.........
...................
.........#.........
.........#.........
.........#.........
.........#.........";

#[test]
fn a_crowd_squeezes_through_a_one_cell_door_and_settles_around_its_goal() {
    let mut app = app_on(DOOR);
    let goal = Pos::new(15, 4);
    let mut units = Vec::new();
    for y in 0..9 {
        for x in 0..4 {
            let unit = spawn_at(
                &mut app,
                Pos::new(x, y),
                (FollowFlowField::new(goal), Mover::new(4.0), Avoid::default()),
            );
            units.push(unit);
        }
    }
    run_checked(&mut app, &units, &[], 2_400);
    let centre = Vec2::new(goal.x as f32 + 0.5, goal.y as f32 + 0.5);
    let near_goal = units.iter().filter(|&&u| tiles(&app, u).distance(centre) <= 0.5).count();
    assert!(near_goal >= 1, "someone stands on the goal");
    for &unit in &units {
        let at = tiles(&app, unit);
        assert!(at.x > 10.0, "every unit went through the door: one stands at {at}");
        // 36 bodies of 0.6 packed around the goal fit within 4 tiles of it.
        assert!(at.distance(centre) <= 4.5, "arrivals settle around the goal, not strung out: {at}");
    }
}

#[test]
fn avoiders_go_around_a_large_unit_that_does_not_avoid() {
    let mut app = app_on(
        "\
...........
...........
...........
...........
...........",
    );
    // A 2x2 unit standing still across the middle of the way.
    let big = spawn_at(
        &mut app,
        Pos::new(5, 1),
        (
            PathRequest::new(Pos::new(5, 1)).with_settings(Settings { agent_size: 2, ..Settings::default() }),
            Mover::new(3.0),
        ),
    );
    app.world_mut().get_mut::<Mover>(big).unwrap().hold = true;
    app.world_mut().get_mut::<Transform>(big).unwrap().translation =
        nav(&app).body_center(Pos::new(5, 1), 2).extend(0.0);
    let units: Vec<Entity> = (1..=3)
        .map(|y| {
            spawn_at(
                &mut app,
                Pos::new(0, y),
                (PathRequest::new(Pos::new(10, y)), Mover::new(4.0), Avoid::default()),
            )
        })
        .collect();
    run_checked(&mut app, &units, &[(big, 2)], 600);
    assert_eq!(tiles(&app, big), Vec2::new(6.0, 2.0), "the unit that does not avoid is never pushed");
}

#[test]
fn avoiders_re_route_around_walls_painted_on_their_way_and_never_touch_them() {
    let mut app = app_on("............\n............\n............");
    let goal = Pos::new(11, 1);
    let mut units: Vec<Entity> = (0..3)
        .map(|y| {
            spawn_at(&mut app, Pos::new(0, y), (PathRequest::new(goal), Mover::new(4.0), Avoid::default()))
        })
        .collect();
    units.push(spawn_at(
        &mut app,
        Pos::new(1, 1),
        (FollowFlowField::new(goal), Mover::new(4.0), Avoid::default()),
    ));
    for _ in 0..10 {
        app.update();
    }
    for y in 0..2 {
        app.world_mut().resource_mut::<NavGrid>().set_wall(Pos::new(6, y), true).unwrap();
    }
    run_checked(&mut app, &units, &[], 600);
    for &unit in &units {
        let at = tiles(&app, unit);
        assert!(
            at.distance(Vec2::new(11.5, 1.5)) <= 1.5,
            "every unit got round the new wall to the goal: {at}"
        );
    }
}

#[test]
fn large_avoiders_round_wall_corners_to_their_goals_without_touching_the_walls() {
    let mut app = app_on(
        "\
................
................
................
................
......####......
......####......
......####......
......####......
................
................
................
................",
    );
    // A 3x3 on a shared field and a 2x2 on a route of its own, both round the block's corners.
    let three = FollowFlowField::new(Pos::new(12, 9)).with_agent_size(3);
    let big = spawn_at(&mut app, Pos::new(1, 8), (three, Mover::new(3.0), Avoid::for_agent_size(3)));
    let two =
        PathRequest::new(Pos::new(1, 9)).with_settings(Settings { agent_size: 2, ..Settings::default() });
    let small = spawn_at(&mut app, Pos::new(13, 0), (two, Mover::new(3.0), Avoid::for_agent_size(2)));
    for (unit, anchor, size) in [(big, Pos::new(1, 8), 3), (small, Pos::new(13, 0), 2)] {
        let centre = nav(&app).body_center(anchor, size).extend(0.0);
        app.world_mut().get_mut::<Transform>(unit).unwrap().translation = centre;
    }
    let bodies = [(big, 3), (small, 2)];
    for frame in 0..600 {
        check_frame(&app, &bodies, frame);
        if bodies.iter().all(|&(u, _)| status(&app, u) == PathStatus::Arrived) {
            break;
        }
        app.update();
    }
    assert_eq!(status(&app, big), PathStatus::Arrived, "the 3x3 gets round the block");
    assert_eq!(status(&app, small), PathStatus::Arrived, "the 2x2 gets round the block");
    let at = tiles(&app, big);
    assert!(at.distance(Vec2::new(13.5, 10.5)) <= 0.3, "the 3x3 stands on its goal's square: {at}");
}

#[test]
fn a_held_avoider_stands_as_an_obstacle_and_a_new_goal_given_meanwhile_counts_once_released() {
    let mut app = app_on("..........\n..........\n..........");
    // It arrives in the corridor's middle, where a passer-by must go round it.
    let goal = Pos::new(5, 1);
    let unit =
        spawn_at(&mut app, Pos::new(0, 1), (FollowFlowField::new(goal), Mover::new(4.0), Avoid::default()));
    run_until(&mut app, 200, |app| status(app, unit) == PathStatus::Arrived);
    // Held, then sent back: it stays put while held, then goes.
    app.world_mut().get_mut::<Mover>(unit).unwrap().hold = true;
    app.world_mut().get_mut::<FollowFlowField>(unit).unwrap().goal = Pos::new(0, 1);
    let held_at = tiles(&app, unit);
    // A passer-by goes round the held unit.
    let passer = spawn_at(
        &mut app,
        Pos::new(2, 1),
        (PathRequest::new(Pos::new(9, 1)), Mover::new(4.0), Avoid::default()),
    );
    for frame in 0..60 {
        app.update();
        check_frame(&app, &[(unit, 1), (passer, 1)], frame);
    }
    assert_eq!(tiles(&app, unit), held_at, "a held avoider is not moved");
    assert_eq!(status(&app, passer), PathStatus::Arrived, "the passer-by got round it");
    app.world_mut().get_mut::<Mover>(unit).unwrap().hold = false;
    run_until(&mut app, 200, |app| status(app, unit) == PathStatus::Arrived);
    assert!(tiles(&app, unit).distance(Vec2::new(0.5, 1.5)) <= 0.3, "released, it walked to its new goal");
}

#[test]
fn arrived_avoiders_ask_for_no_more_routes() {
    let mut app = app_on(CORRIDOR);
    let units: Vec<Entity> = (1..=3)
        .map(|y| {
            spawn_at(
                &mut app,
                Pos::new(0, y),
                (PathRequest::new(Pos::new(20, 2)), Mover::new(4.0), Avoid::default()),
            )
        })
        .collect();
    run_checked(&mut app, &units, &[], 600);
    let searched = queue(&app).counts().searched;
    for _ in 0..120 {
        app.update();
    }
    assert_eq!(queue(&app).counts().searched, searched, "standing in their ring, nobody re-plans");
}

#[test]
fn an_avoider_whose_goal_cannot_be_reached_fails_with_the_reason_and_stays() {
    let mut app = app_on("..#..\n..#..");
    let unit = spawn_at(
        &mut app,
        Pos::new(0, 0),
        (FollowFlowField::new(Pos::new(4, 0)), Mover::new(5.0), Avoid::default()),
    );
    let before = tiles(&app, unit);
    for _ in 0..5 {
        app.update();
    }
    let PathStatus::Failed(reason) = status(&app, unit) else { panic!("an unreachable goal must fail") };
    assert!(reason.to_string().contains("no path"), "{reason}");
    assert_eq!(tiles(&app, unit), before, "it stays where it is");
}

#[test]
fn with_avoidance_off_avoiders_walk_through_each_other_as_movers_do() {
    let closest = |enabled: bool| {
        let mut app = app_on("##########\n..........\n##########");
        app.world_mut().resource_mut::<LocalAvoidance>().enabled = enabled;
        let bundle = |goal| (PathRequest::new(goal), Mover::new(4.0), Avoid::default());
        let west = spawn_at(&mut app, Pos::new(0, 1), bundle(Pos::new(9, 1)));
        let east = spawn_at(&mut app, Pos::new(9, 1), bundle(Pos::new(0, 1)));
        let mut closest = f32::INFINITY;
        for _ in 0..100 {
            app.update();
            closest = closest.min(tiles(&app, west).distance(tiles(&app, east)));
        }
        (closest, status(&app, west), status(&app, east))
    };
    let (off, west, east) = closest(false);
    assert!(off < 0.3, "off, the two walk through each other: {off} tiles apart at the closest");
    assert_eq!((west, east), (PathStatus::Arrived, PathStatus::Arrived), "off, both walk their routes");
    let (on, ..) = closest(true);
    assert!(on >= 0.6 * GAP_RATIO, "on, they stop short of each other in a one-cell corridor: {on} tiles");
}

#[path = "../../examples/crowd.rs"]
#[expect(dead_code, reason = "the test runs the example's game, not its windowed main")]
mod example;

#[test]
fn the_crowd_example_runs_headless_and_its_crowd_reaches_a_new_goal_without_overlapping() {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, bevy::input::InputPlugin));
    app.insert_resource(TimeUpdateStrategy::ManualDuration(FRAME));
    app.add_plugins(example::game);
    app.update();
    let crowd: Vec<Entity> =
        app.world_mut().query_filtered::<Entity, With<example::Walker>>().iter(app.world()).collect();
    assert_eq!(crowd.len(), 60, "the example's crowd comes up");
    run_checked(&mut app, &crowd, &[], 2_400);
    // What a click on the other room does: every unit gets the new goal.
    let goal = Pos::new(2, 12);
    for &unit in &crowd {
        app.world_mut().get_mut::<FollowFlowField>(unit).unwrap().goal = goal;
    }
    app.update();
    assert!(
        crowd.iter().any(|&u| status(&app, u) == PathStatus::Following),
        "a new goal sets them off again"
    );
    run_checked(&mut app, &crowd, &[], 2_400);
    let centre = Vec2::new(goal.x as f32 + 0.5, goal.y as f32 + 0.5);
    assert!(crowd.iter().all(|&u| tiles(&app, u).x < 10.0), "every unit went back through a door");
    assert!(crowd.iter().any(|&u| tiles(&app, u).distance(centre) <= 0.5), "someone stands on the new goal");
}

#[test]
fn a_follower_that_sees_its_goal_walks_straight_at_it() {
    let mut app = app_on("..........\n..........\n..........\n..........\n..........");
    let (start, goal) = (Pos::new(0, 0), Pos::new(9, 3));
    let unit = spawn_at(&mut app, start, (FollowFlowField::new(goal), Mover::new(4.0), Avoid::default()));
    let (from, to) = (Vec2::new(0.5, 0.5), Vec2::new(9.5, 3.5));
    // `run_until` takes a plain `Fn`.
    let widest = std::cell::Cell::new(0.0_f32);
    run_until(&mut app, 200, |app| {
        // How far off the straight line from start to goal the unit is.
        let at = tiles(app, unit);
        let along = (to - from).normalize();
        let off = (at - from).perp_dot(along).abs();
        widest.set(widest.get().max(off));
        status(app, unit) == PathStatus::Arrived
    });
    // Down the field's steps (three diagonals, then six straight) it would stray 1.7 tiles.
    let widest = widest.get();
    assert!(widest < 0.2, "it strays {widest} tiles from the straight line to its goal");
}

#[test]
fn a_follower_whose_field_is_taken_away_and_given_back_with_another_goal_walks_there() {
    for avoiding in [true, false] {
        let mut app = app_on("..........\n..........\n..........");
        let unit =
            spawn_at(&mut app, Pos::new(0, 1), (FollowFlowField::new(Pos::new(8, 1)), Mover::new(4.0)));
        if avoiding {
            app.world_mut().entity_mut(unit).insert(Avoid::default());
        }
        run_until(&mut app, 200, |app| status(app, unit) == PathStatus::Arrived);
        // Taken off its field for a while (a game's "stop" order), then sent elsewhere.
        app.world_mut().entity_mut(unit).remove::<FollowFlowField>();
        for _ in 0..10 {
            app.update();
        }
        app.world_mut().entity_mut(unit).insert(FollowFlowField::new(Pos::new(1, 1)));
        app.update();
        assert_ne!(status(&app, unit), PathStatus::Arrived, "avoiding {avoiding}: a new goal is a new walk");
        run_until(&mut app, 200, |app| status(app, unit) == PathStatus::Arrived);
        assert!(
            tiles(&app, unit).distance(Vec2::new(1.5, 1.5)) <= 0.3,
            "avoiding {avoiding}: it walked to its new goal, not {}",
            tiles(&app, unit)
        );
    }
}

#[test]
fn an_avoid_inserted_on_an_arrived_follower_keeps_it_arrived_and_a_goal_replaced_within_a_frame_is_walked_to()
{
    let mut app = app_on("..........\n..........\n..........");
    let unit = spawn_at(&mut app, Pos::new(0, 1), (FollowFlowField::new(Pos::new(8, 1)), Mover::new(4.0)));
    run_until(&mut app, 200, |app| status(app, unit) == PathStatus::Arrived);
    // Avoidance given to a unit standing at its goal (or its body resized): no new walk.
    app.world_mut().entity_mut(unit).insert(Avoid::for_agent_size(1));
    for _ in 0..5 {
        app.update();
    }
    assert_eq!(status(&app, unit), PathStatus::Arrived, "a new Avoid is no new order");
    // Its field taken away and another given in the same frame: a new order.
    app.world_mut().entity_mut(unit).remove::<FollowFlowField>();
    app.world_mut().entity_mut(unit).insert(FollowFlowField::new(Pos::new(1, 1)));
    app.update();
    assert_ne!(status(&app, unit), PathStatus::Arrived, "a goal replaced within a frame is a new walk");
    run_until(&mut app, 200, |app| status(app, unit) == PathStatus::Arrived);
    assert!(tiles(&app, unit).distance(Vec2::new(1.5, 1.5)) <= 0.3, "it walked to {}", tiles(&app, unit));
}

#[test]
fn large_avoiders_sharing_a_goal_arrive_around_it() {
    let mut app = app_on(&vec![".".repeat(30); 16].join("\n"));
    let goal = Pos::new(15, 7);
    let units: Vec<Entity> = (0..5)
        .flat_map(|k| [Pos::new(0, 3 * k), Pos::new(3, 3 * k), Pos::new(24, 3 * k), Pos::new(27, 3 * k)])
        .map(|at| {
            spawn_at(
                &mut app,
                at,
                (FollowFlowField::new(goal).with_agent_size(2), Mover::new(4.0), Avoid::for_agent_size(2)),
            )
        })
        .collect();
    let bodies: Vec<(Entity, u8)> = units.iter().map(|&u| (u, 2)).collect();
    for frame in 0..2400 {
        if units.iter().all(|&u| status(&app, u) == PathStatus::Arrived) {
            return;
        }
        app.update();
        check_frame(&app, &bodies, frame);
    }
    let left: Vec<Vec2> =
        units.iter().filter(|&&u| status(&app, u) != PathStatus::Arrived).map(|&u| tiles(&app, u)).collect();
    panic!("twenty 2x2 avoiders must all arrive round their shared goal; still going: {left:?}");
}

#[test]
fn an_arrived_follower_pushed_far_from_its_goal_walks_back_and_a_small_push_leaves_it_arrived() {
    let mut app = app_on("....................\n....................\n....................");
    let goal = Pos::new(3, 1);
    let unit =
        spawn_at(&mut app, Pos::new(0, 1), (FollowFlowField::new(goal), Mover::new(4.0), Avoid::default()));
    run_until(&mut app, 200, |app| status(app, unit) == PathStatus::Arrived);
    // Put two tiles along (as a crowd passing by pushes an arrived unit): it stays arrived there.
    let near = center(&app, Pos::new(5, 1));
    app.world_mut().get_mut::<Transform>(unit).expect("the unit has a transform").translation = near;
    for _ in 0..10 {
        app.update();
    }
    assert_eq!(status(&app, unit), PathStatus::Arrived, "a small push leaves it arrived where it stands");
    assert!(
        tiles(&app, unit).distance(Vec2::new(5.5, 1.5)) < 0.1,
        "arrived, it stays put: {}",
        tiles(&app, unit)
    );
    // Pushed twelve tiles away from its goal (a ring shoved along a corridor): it walks back.
    let far = center(&app, Pos::new(15, 1));
    app.world_mut().get_mut::<Transform>(unit).expect("the unit has a transform").translation = far;
    app.update();
    assert_eq!(status(&app, unit), PathStatus::Following, "pushed far from where it arrived, it walks back");
    run_until(&mut app, 300, |app| status(app, unit) == PathStatus::Arrived);
    assert!(
        tiles(&app, unit).distance(Vec2::new(3.5, 1.5)) <= 0.3,
        "it walked back to its goal, not {}",
        tiles(&app, unit)
    );
}

/// Two followers round a goal at the dead end of a corridor one tile wide; then, as passers
/// leave a ring they shoved along, one of them stands a cell inside the bound within which a
/// unit walking back may land (`gridpath::avoid::displaced`: the ring's reach and 3 tiles
/// more), held there by a mover that does not avoid, and the other is put down far beyond.
/// It walks back to its ring, which never makes room for a unit of its own group, and stops
/// beyond the bound. Before `gridpath::avoid::landing` it waited there for good; now it lands
/// there once held up long, and stays arrived.
#[test]
fn a_follower_walking_back_to_its_ring_lands_where_the_ring_keeps_it_out() {
    let mut app = app_on(&["#".repeat(24), format!("#{}", ".".repeat(23)), "#".repeat(24)].join("\n"));
    let goal = Pos::new(1, 1);
    let follower = || (FollowFlowField::new(goal), Mover::new(4.0), Avoid::default());
    let first = spawn_at(&mut app, Pos::new(3, 1), follower());
    run_until(&mut app, 200, |app| status(app, first) == PathStatus::Arrived);
    let second = spawn_at(&mut app, Pos::new(6, 1), follower());
    run_until(&mut app, 400, |app| status(app, second) == PathStatus::Arrived);
    // The bound: the ring's reach for its two units (neither first arrived farther out, a
    // tile from the goal at most) and 3 tiles more; cell x lies x - 1 tiles from the goal.
    let field = gridpath::FlowField::dijkstra(nav(&app).grid(), goal, gridpath::Rules::OCTILE).unwrap();
    let reach = gridpath::avoid::ArrivalRing::new(&field).reach(2, Avoid::default().radius).max(1.0);
    let bound = reach + gridpath::avoid::DISPLACED;
    // The first unit at the far side of the last cell within the bound, a still mover against
    // it on the goal's side (in a corridor one tile wide, one body at the top of it and one at
    // the bottom touch 0.45 tiles apart): the second, stopped against it, stands beyond the
    // bound.
    #[expect(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "a cell of the test map")]
    let inside = bound.floor() as u32 + 1;
    let place = |app: &mut App, entity: Entity, (x, y): (f32, f32)| {
        let layout = nav(app).layout();
        let at =
            Vec3::new(layout.origin.x + x * layout.tile_size, layout.origin.y - y * layout.tile_size, 0.0);
        app.world_mut().get_mut::<Transform>(entity).expect("the unit has a transform").translation = at;
    };
    place(&mut app, first, (inside as f32 + 0.97, 1.3));
    let wall = spawn_at(&mut app, goal, Mover::new(4.0));
    place(&mut app, wall, (inside as f32 + 0.5, 1.7));
    place(&mut app, second, (inside as f32 + 8.5, 1.5));
    app.update();
    assert_eq!(status(&app, first), PathStatus::Arrived, "within the bound, it stays arrived");
    assert_eq!(status(&app, second), PathStatus::Following, "pushed far beyond its ring, it walks back");
    run_until(&mut app, 400, |app| status(app, second) == PathStatus::Arrived);
    let landed = tiles(&app, second).x;
    assert!(
        landed - 1.5 > bound && landed < inside as f32 + 2.5,
        "it walked back to the first and landed there, beyond the bound {bound:.1}: at x = {landed:.2}"
    );
    assert!(tiles(&app, first).x >= inside as f32, "the first stayed where it stood: {}", tiles(&app, first));
    for _ in 0..200 {
        app.update();
        assert_eq!(status(&app, second), PathStatus::Arrived, "landed, it does not walk off again");
    }
}

#[test]
fn avoiders_see_a_walking_unit_that_does_not_avoid_coming_and_step_aside_before_it_reaches_them() {
    let mut app = app_on(
        "\
...............
...............
...............
...............
...............",
    );
    // Arrived avoiders standing on the row a unit without `Avoid` walks along: one alone, and
    // a cluster of four.
    let standing: Vec<Entity> =
        [Pos::new(6, 2), Pos::new(10, 2), Pos::new(10, 1), Pos::new(10, 3), Pos::new(11, 2)]
            .into_iter()
            .map(|cell| spawn_at(&mut app, cell, (PathRequest::new(cell), Mover::new(4.0), Avoid::default())))
            .collect();
    for _ in 0..5 {
        app.update();
    }
    assert!(
        standing.iter().all(|&u| status(&app, u) == PathStatus::Arrived),
        "they arrived where they stand"
    );
    let walker = spawn_at(&mut app, Pos::new(0, 2), (PathRequest::new(Pos::new(14, 2)), Mover::new(4.0)));
    let bodies: Vec<(Entity, u8)> = standing.iter().map(|&u| (u, 1)).chain([(walker, 1)]).collect();
    // The walker's body: a one-cell unit's, as the avoiders see it.
    let reach = radius(&app, walker, 1) + bevy_gridpath::UNIT_RADIUS;
    let mut least = f32::INFINITY;
    for frame in 0..200 {
        check_frame(&app, &bodies, frame);
        let at = tiles(&app, walker);
        for &unit in &standing {
            least = least.min(at.distance(tiles(&app, unit)) / reach);
        }
        if status(&app, walker) == PathStatus::Arrived {
            break;
        }
        app.update();
    }
    assert_eq!(status(&app, walker), PathStatus::Arrived, "the walker got through");
    eprintln!("the walker came within {least:.3} of touching distance at the closest");
    // Seen coming, they are out of its way in time: it never walks into them, so the
    // positional pass never has to shove them aside (seen standing still, they stood until it
    // touched them: 0.998).
    assert!(least >= 1.01, "the walker came within {least:.3} of touching distance of a standing avoider");
}
