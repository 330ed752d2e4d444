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
