//! The `minimal` example's game, run headless: its map and unit come up, and a request like
//! the one its click makes walks the unit there.

use bevy::input::InputPlugin;

use super::*;

#[path = "../../examples/minimal.rs"]
#[expect(dead_code, reason = "the test runs the example's game, not its windowed main")]
mod example;

#[test]
fn the_minimal_example_runs_headless_and_its_unit_walks_where_it_is_sent() {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, InputPlugin));
    app.insert_resource(TimeUpdateStrategy::ManualDuration(FRAME));
    app.add_plugins(example::game);
    for _ in 0..3 {
        app.update();
    }
    let nav = app.world().resource::<NavGrid>();
    let (w, h) = (nav.grid().width(), nav.grid().height());
    let goal = Pos::new(w - 1, h - 1);
    let sprites = app.world_mut().query::<&Sprite>().iter(app.world()).count();
    assert_eq!(sprites, (w * h) as usize + 1, "a sprite per cell and one for the unit");
    let unit = app.world_mut().query_filtered::<Entity, With<Mover>>().single(app.world()).expect("one unit");
    // What a click on the goal cell does.
    app.world_mut().entity_mut(unit).insert(PathRequest::new(goal));
    run_until(&mut app, 600, |app| status(app, unit) == PathStatus::Arrived);
    assert_eq!(cell_of(&app, unit), Some(goal), "the unit walked to the clicked cell");
}
