use super::*;
use bevy::asset::AssetPlugin;
use tilepath::view::flow::{FlowJobs, INLINE_FLOW_CELLS};

/// Updates `app` until the flow-field view's field is worked out (big maps: on its thread).
fn until_flow_built(app: &mut App) {
    for _ in 0..10_000 {
        if !app.world().resource::<FlowJobs>().is_updating() {
            return;
        }
        std::thread::sleep(Duration::from_millis(2));
        app.update();
    }
    panic!("the flow field of a test map must be worked out within seconds");
}

/// The heat map's texel of `cell` (RGBA), once shown.
fn heat_texel(app: &mut App, cell: Pos) -> Option<[u8; 4]> {
    let mut sprites = app.world_mut().query::<(&Name, &Sprite, &Visibility)>();
    let (_, sprite, visibility) = sprites
        .iter(app.world())
        .find(|(name, ..)| name.as_str() == "Heat map")
        .expect("the heat map sprite");
    if *visibility == Visibility::Hidden {
        return None;
    }
    let image = app.world().resource::<Assets<Image>>().get(&sprite.image)?;
    let width = image.width() as usize;
    let at = (cell.y as usize * width + cell.x as usize) * 4;
    let data = image.data.as_ref()?;
    Some([data[at], data[at + 1], data[at + 2], data[at + 3]])
}

#[test]
fn a_big_maps_flow_field_is_worked_out_off_the_frame_and_follows_the_edits() {
    let side = 600;
    assert!((side * side) as usize > INLINE_FLOW_CELLS);
    let source = MapSource::Generated {
        generator: gridpath::generate::Generator::Caves,
        seed: 5,
        width: side,
        height: side,
    };
    let mut app = unstarted_app(source);
    app.add_plugins(AssetPlugin::default()).init_asset::<Image>().add_plugins(tilepath::view::flow::plugin);
    app.update();
    until_planned(&mut app);
    app.world_mut().write_message(key_message(KeyCode::KeyD, ButtonState::Pressed));
    app.update();
    assert!(app.world().resource::<FlowJobs>().is_updating(), "the frame D is pressed only starts the field");
    app.world_mut().write_message(key_message(KeyCode::KeyD, ButtonState::Released));
    until_flow_built(&mut app);
    let goal = pathfinder(&app).goal();
    let grid = pathfinder(&app).grid().clone();
    let near = grid
        .positions()
        .find(|&p| p != goal && grid.is_passable(p) && p.x.abs_diff(goal.x) + p.y.abs_diff(goal.y) <= 3);
    let near = near.expect("a free cell near the goal");
    let texel = heat_texel(&mut app, near).expect("the heat map is shown once worked out");
    assert!(texel[3] > 0, "a cell next to the goal is on the heat scale: {texel:?}");

    // A wall painted there: the edit frame only starts the field again; once done, the wall's
    // texel is clear.
    drag(&mut app, MouseButton::Left, &[near]);
    assert!(!pathfinder(&app).grid().is_passable(near), "the wall was painted");
    until_flow_built(&mut app);
    let texel = heat_texel(&mut app, near).expect("the heat map is shown");
    assert_eq!(texel[3], 0, "the painted wall is off the heat scale: {texel:?}");

    // Another big map opened while a field is worked out: the last map's heat map goes at once.
    let free =
        grid.positions().find(|&p| p != goal && p != near && grid.is_passable(p)).expect("a free cell");
    hover(&mut app, Some(free));
    mouse(&mut app, MouseButton::Left, ButtonState::Pressed);
    app.update();
    assert!(app.world().resource::<FlowJobs>().is_updating(), "the wall's frame starts a field");
    mouse(&mut app, MouseButton::Left, ButtonState::Released);
    let other = MapSource::Generated {
        generator: gridpath::generate::Generator::Caves,
        seed: 6,
        width: side,
        height: side,
    };
    app.world_mut().write_message(tilepath::edit::files::OpenMap(other));
    app.update();
    assert_eq!(heat_texel(&mut app, near), None, "no heat map of the last map over the new one");
    until_flow_built(&mut app);
    let new_goal = pathfinder(&app).goal();
    assert!(heat_texel(&mut app, new_goal).is_some(), "then the new map's own");
}
