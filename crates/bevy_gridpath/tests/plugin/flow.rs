//! `FollowFlowField`: followers of one goal share one field, which is rebuilt when the grid
//! changes and dropped when nobody follows it.

use super::*;

const ROOM: &str = "\
..........
....#.....
....#.....
....#.....
..........";

#[test]
fn followers_of_one_goal_share_one_field_and_walk_to_the_goal() {
    let mut app = app_on(ROOM);
    let goal = Pos::new(9, 2);
    let units: Vec<Entity> = [Pos::new(0, 0), Pos::new(0, 2), Pos::new(0, 4)]
        .into_iter()
        .map(|at| spawn_at(&mut app, at, (FollowFlowField::new(goal), Mover::new(8.0))))
        .collect();
    app.update();
    let fields = app.world().resource::<FlowFields>();
    assert_eq!(fields.len(), 1, "one field for one goal");
    assert_eq!(fields.builds, 1);
    let follow = FollowFlowField::new(goal);
    assert_eq!(fields.shared(&follow).map(|s| s.followers), Some(3));
    run_until(&mut app, 300, |app| units.iter().all(|&u| status(app, u) == PathStatus::Arrived));
    for &unit in &units {
        assert_eq!(cell_of(&app, unit), Some(goal), "every follower reaches the goal");
    }
}

#[test]
fn a_field_is_rebuilt_when_the_grid_changes_and_dropped_without_followers() {
    let mut app = app_on(ROOM);
    let goal = Pos::new(9, 2);
    let unit = spawn_at(&mut app, Pos::new(0, 2), FollowFlowField::new(goal));
    app.update();
    app.world_mut().resource_mut::<NavGrid>().set_wall(Pos::new(4, 4), true).unwrap();
    app.update();
    let fields = app.world().resource::<FlowFields>();
    assert_eq!(fields.builds, 2, "an edit rebuilds the field");
    let field = fields.field(&FollowFlowField::new(goal)).expect("the field exists");
    assert_eq!(field.path_from(Pos::new(0, 2)).map(|p| p.contains(&Pos::new(4, 4))), Some(false));
    app.world_mut().entity_mut(unit).despawn();
    app.update();
    assert!(app.world().resource::<FlowFields>().is_empty(), "a field nobody follows is dropped");
}

/// Whether `app`'s field to `goal` has, cell for cell, the distances of a field built afresh on
/// its grid now.
fn field_is_exact(app: &App, goal: Pos) -> bool {
    let grid = nav(app).grid();
    let fields = app.world().resource::<FlowFields>();
    let field = fields.field(&FollowFlowField::new(goal)).expect("the field exists");
    let fresh = gridpath::FlowField::dijkstra(grid, goal, gridpath::Rules::OCTILE).expect("the goal is free");
    grid.positions().all(|p| match (field.distance(p), fresh.distance(p)) {
        (Some(a), Some(b)) => (a - b).abs() < 1e-9,
        (a, b) => a.is_none() && b.is_none(),
    })
}

#[test]
fn edits_repair_the_field_around_them_and_an_edit_of_any_cell_rebuilds_it() {
    let mut app = app_on(ROOM);
    let goal = Pos::new(9, 2);
    spawn_at(&mut app, Pos::new(0, 2), FollowFlowField::new(goal));
    app.update();
    let counts = |app: &App| {
        let fields = app.world().resource::<FlowFields>();
        (fields.builds, fields.repaired)
    };
    assert_eq!(counts(&app), (1, 0));
    // A wall closing the gap below the wall, then one cleared, then terrain: one edit a frame.
    let edits = [
        (Pos::new(4, 4), Tile::Wall),
        (Pos::new(4, 2), Tile::FLOOR),
        (Pos::new(6, 2), Tile::Ground { cost: 5 }),
    ];
    for (n, &(cell, tile)) in (1..).zip(&edits) {
        app.world_mut().resource_mut::<NavGrid>().set_tile(cell, tile).unwrap();
        app.update();
        assert_eq!(counts(&app), (1 + n, n), "edit {n} is repaired");
        assert!(field_is_exact(&app, goal), "after edit {n}");
    }
    // Two edits in one frame, one of them undone.
    {
        let mut nav = app.world_mut().resource_mut::<NavGrid>();
        nav.set_tile(Pos::new(8, 1), Tile::Wall).unwrap();
        nav.set_tile(Pos::new(8, 3), Tile::Wall).unwrap();
        nav.set_tile(Pos::new(8, 1), Tile::FLOOR).unwrap();
    }
    app.update();
    assert_eq!(counts(&app), (5, 4));
    assert!(field_is_exact(&app, goal), "after a frame of several edits");
    // An edit of any cell: rebuilt.
    app.world_mut()
        .resource_mut::<NavGrid>()
        .edit(|grid| grid.set_tile(Pos::new(1, 1), Tile::Wall).map(|_| ()))
        .unwrap();
    app.update();
    assert_eq!(counts(&app), (6, 4), "an edit of any cell rebuilds");
    assert!(field_is_exact(&app, goal), "after a rebuild");
}

#[test]
fn a_new_grid_of_the_same_size_rebuilds_the_field() {
    let mut app = app_on(ROOM);
    let goal = Pos::new(9, 2);
    spawn_at(&mut app, Pos::new(0, 2), FollowFlowField::new(goal));
    app.update();
    // Another level, put in whole: no cell announced, every cell may differ.
    let level = "\
..........
..######..
..#....#..
..#....#..
..........";
    app.insert_resource(NavGrid::centered(grid(level), TILE));
    app.update();
    assert_eq!(app.world().resource::<FlowFields>().repaired, 0, "nothing to repair from");
    assert!(field_is_exact(&app, goal), "the new level's field");
}

#[test]
fn every_grid_a_nav_grid_holds_is_another_version() {
    // The same map, cell for cell and edit for edit: two grids all the same, as is a copy.
    let (a, b) = (NavGrid::centered(grid(ROOM), TILE), NavGrid::centered(grid(ROOM), TILE));
    assert_eq!(a.version().revision, b.version().revision);
    assert_ne!(a.version(), b.version());
    assert_ne!(a.clone().version(), a.version());
}

#[test]
fn a_follower_that_cannot_reach_the_goal_fails_with_the_reason() {
    let mut app = app_on("..#..\n..#..");
    let unit = spawn_at(&mut app, Pos::new(0, 0), (FollowFlowField::new(Pos::new(4, 0)), Mover::new(5.0)));
    app.update();
    app.update();
    let PathStatus::Failed(reason) = status(&app, unit) else { panic!("an unreachable goal must fail") };
    assert!(reason.to_string().contains("no path"), "{reason}");
    assert_eq!(cell_of(&app, unit), Some(Pos::new(0, 0)), "it stays where it is");
}

/// A wall down the middle with gaps of one cell (row 1), two (rows 4-5) and three (rows 8-10).
const GAPS: &str = "\
......#.......
..............
......#.......
......#.......
..............
..............
......#.......
......#.......
..............
..............
..............
......#.......";

/// Runs until every unit arrived, checking every frame that each body (its size) covers only
/// free cells.
fn walk_bodies(app: &mut App, units: &[(Entity, u8)], frames: usize) {
    let grid = nav(app).grid().clone();
    for frame in 0..frames {
        if units.iter().all(|&(u, _)| status(app, u) == PathStatus::Arrived) {
            return;
        }
        app.update();
        for &(unit, size) in units {
            let at = app.world().get::<Transform>(unit).unwrap().translation.truncate();
            let half = f32::from(size) * TILE / 2.0 - 0.01;
            for corner in
                [Vec2::new(-1.0, -1.0), Vec2::new(1.0, -1.0), Vec2::new(-1.0, 1.0), Vec2::new(1.0, 1.0)]
            {
                let cell = nav(app).cell_at(at + corner * half).expect("on the grid");
                assert!(
                    grid.is_passable(cell),
                    "frame {frame}: the {size}x{size} body overlaps the wall at {cell}"
                );
            }
        }
    }
    panic!(
        "not all arrived in {frames} frames: {:?}",
        units.iter().map(|&(u, _)| status(app, u)).collect::<Vec<_>>()
    );
}

#[test]
fn large_followers_share_a_field_per_size_and_their_bodies_never_overlap_a_wall() {
    let mut app = app_on(GAPS);
    let goal = Pos::new(10, 0);
    let mut units = Vec::new();
    for (size, anchor) in [(1, Pos::new(0, 0)), (2, Pos::new(0, 2)), (2, Pos::new(2, 2)), (3, Pos::new(0, 5))]
    {
        let at = nav(&app).body_center(anchor, size).extend(0.0);
        let follow = FollowFlowField::new(goal).with_agent_size(size);
        units.push((
            app.world_mut().spawn((Transform::from_translation(at), follow, Mover::new(8.0))).id(),
            size,
        ));
    }
    app.update();
    let fields = app.world().resource::<FlowFields>();
    assert_eq!(fields.len(), 3, "one field per body size");
    let two = FollowFlowField::new(goal).with_agent_size(2);
    assert_eq!(fields.shared(&two).map(|s| s.followers), Some(2));
    // The fields lead each size through the first gap its body fits: 1, 2 and 3 cells wide.
    let through = |size: u8, from: Pos| {
        let follow = FollowFlowField::new(goal).with_agent_size(size);
        let path = fields.field(&follow).and_then(|f| f.path_from(from)).expect("a way to the goal");
        path.iter().find(|p| p.x == 6).map(|p| p.y).expect("it crosses the wall's column")
    };
    assert_eq!(through(1, Pos::new(0, 0)), 1);
    assert_eq!(through(2, Pos::new(0, 2)), 4, "the 2x2 body takes the two-cell gap (rows 4-5)");
    assert_eq!(through(3, Pos::new(0, 5)), 8, "the 3x3 body takes the three-cell gap (rows 8-10)");
    walk_bodies(&mut app, &units, 600);
    for &(unit, size) in &units {
        let at = app.world().get::<Transform>(unit).unwrap().translation.truncate();
        assert_eq!(at, nav(&app).body_center(goal, size), "the {size}x{size} body stands on the goal");
    }
}

#[test]
fn an_edit_that_closes_the_gap_of_a_large_follower_re_routes_it_and_a_goal_without_room_fails() {
    let mut app = app_on(GAPS);
    let goal = Pos::new(10, 0);
    let at = nav(&app).body_center(Pos::new(0, 2), 2).extend(0.0);
    let unit = app
        .world_mut()
        .spawn((
            Transform::from_translation(at),
            FollowFlowField::new(goal).with_agent_size(2),
            Mover::new(8.0),
        ))
        .id();
    app.update();
    // Narrow the two-cell gap to one: only the three-cell gap is left for the 2x2 body.
    app.world_mut().resource_mut::<NavGrid>().set_wall(Pos::new(6, 5), true).unwrap();
    walk_bodies(&mut app, &[(unit, 2)], 600);
    // A goal where a 3x3 body does not fit (against the wall's gap of one row).
    let too_tight = Pos::new(5, 0);
    app.world_mut().entity_mut(unit).insert(FollowFlowField::new(too_tight).with_agent_size(3));
    app.update();
    app.update();
    let PathStatus::Failed(reason) = status(&app, unit) else {
        panic!("a goal the body cannot stand on must fail")
    };
    assert!(
        reason.to_string().contains("no room for an agent of 3x3"),
        "the reason names the body size: {reason}"
    );
}

#[test]
fn a_goals_sight_marks_are_forgotten_only_in_the_shadow_of_an_edit() {
    use bevy_gridpath::{FlowFields, GoalSight};
    let mut app = app_on(&vec![".".repeat(32); 9].join("\n"));
    let goal = Pos::new(16, 4);
    spawn_at(&mut app, Pos::new(0, 0), (FollowFlowField::new(goal), Mover::new(4.0)));
    app.update();
    let rules = gridpath::Rules::OCTILE;
    let cells: Vec<Pos> = nav(&app).grid().positions().collect();
    let mut sight = GoalSight::default();
    sight.on(nav(&app), app.world().resource::<FlowFields>());
    for &cell in &cells {
        assert!(sight.sees(nav(&app).grid(), cell, goal, rules), "open ground: {cell} sees the goal");
    }
    // A wall six cells right of the goal.
    app.world_mut().resource_mut::<NavGrid>().set_wall(Pos::new(22, 4), true).unwrap();
    sight.on(nav(&app), app.world().resource::<FlowFields>());
    let grid = nav(&app).grid();
    let table = sight.table(goal, rules).expect("the followed goal keeps its table");
    for &cell in &cells {
        match table.get(cell) {
            // Still known: still right.
            Some(seen) => assert_eq!(seen, grid.line_of_sight(cell, goal, rules), "{cell}"),
            // Forgotten: only behind the wall, as seen from the goal.
            None => assert!(cell.x >= 20, "{cell} is out of the wall's shadow, yet forgotten"),
        }
    }
    for cell in [Pos::new(23, 4), Pos::new(31, 4), Pos::new(31, 5)] {
        assert_eq!(table.get(cell), None, "{cell}, behind the wall, is checked again");
    }
    let kept = cells.iter().filter(|&&c| table.get(c).is_some()).count();
    assert!(kept >= cells.len() * 3 / 4, "most of the map keeps its marks: {kept} of {}", cells.len());
}
