use super::*;
use gridpath::{Algorithm, Moves};
use tilepath::input::bindings::Control;
use tilepath::ui::panel::PanelButton;

/// The panel button sending `control`.
fn button(app: &mut App, control: Control) -> Entity {
    let mut buttons = app.world_mut().query::<(Entity, &PanelButton)>();
    buttons
        .iter(app.world())
        .find(|(_, b)| b.0 == control)
        .map(|(e, _)| e)
        .unwrap_or_else(|| panic!("the panel should have a button for {control:?}"))
}

/// Presses the mouse on `control`'s button while the map cell `under` is hovered, as the
/// window delivers it (the UI sets the button's `Interaction`), then releases.
fn click(app: &mut App, control: Control, under: Pos) {
    let entity = button(app, control);
    hover(app, Some(under));
    app.world_mut().entity_mut(entity).insert(Interaction::Pressed);
    mouse(app, MouseButton::Left, ButtonState::Pressed);
    app.update();
    app.world_mut().entity_mut(entity).insert(Interaction::Hovered);
    mouse(app, MouseButton::Left, ButtonState::Released);
    app.update();
    app.world_mut().entity_mut(entity).insert(Interaction::None);
    app.update();
}

#[test]
fn panel_clicks_change_settings_and_never_paint_the_map() {
    let mut app = test_app_with_hud(open_map(30, 20));
    let cell = Pos::new(10, 10);
    click(&mut app, Control::SelectAlgorithm(Algorithm::Dijkstra), cell);
    assert_eq!(pathfinder(&app).settings().algorithm, Algorithm::Dijkstra, "the click selects Dijkstra");
    click(&mut app, Control::SetMoves(Moves::Four), cell);
    assert_eq!(pathfinder(&app).settings().rules.moves, Moves::Four, "the click selects 4 moves");
    click(&mut app, Control::ToggleRace, cell);
    assert!(
        app.world().resource::<tilepath::search::race::RaceTable>().shown,
        "the race button shows the race"
    );
    assert!(walls(&app).is_empty(), "clicks on the panel must not paint the map under the pointer");
    // The same press without the panel under the pointer does paint.
    drag(&mut app, MouseButton::Left, &[cell]);
    assert_eq!(walls(&app), vec![cell], "a press on the map paints");
}

#[test]
fn every_control_has_a_button_with_its_key() {
    let mut app = test_app_with_hud(open_map(30, 20));
    let text = ui_text(&mut app);
    for label in [
        "F1 A*",
        "F2 Dijkstra",
        "F5 JPS",
        "F7 Wavefront",
        "M 4",
        "M 8",
        "K no cut",
        "E octile",
        "Shift+[ less",
        "Shift+] more",
        "[ prev",
        "] next",
        "Ctrl+S save",
        "R random",
        "Shift+R generator",
    ] {
        assert!(text.contains(label), "the panel should show {label:?}:\n{text}");
    }
    for label in [
        ", slow",
        ". fast",
        ". instant",
        "/ auto",
        "F12 fps",
        "Space",
        "N step",
        "Esc skip",
        "T race",
        "D flow",
        "V searched",
    ] {
        assert!(text.contains(label), "the panel should show {label:?}:\n{text}");
    }
}

#[test]
fn options_that_do_not_apply_are_disabled_with_the_reason() {
    let mut app = test_app_with_hud(open_map(30, 20));
    // JPS: 4 moves and corner cutting would break it.
    tap_key(&mut app, KeyCode::F5);
    let text = ui_text(&mut app);
    assert!(text.contains("JPS needs 8-connected moves"), "4 moves is disabled under JPS:\n{text}");
    assert!(text.contains("JPS needs the no-corner-cutting rule"), "so is corner cutting:\n{text}");
    // A click on the disabled button is refused with the reason, not ignored.
    click(&mut app, Control::SetMoves(Moves::Four), Pos::new(3, 3));
    assert_eq!(pathfinder(&app).settings().rules.moves, Moves::Eight, "the disabled option is not taken");

    // Dijkstra: no heuristic, no weight.
    tap_key(&mut app, KeyCode::F2);
    let text = ui_text(&mut app);
    assert!(text.contains("Dijkstra uses no heuristic"), "the heuristic is disabled:\n{text}");
    let heuristic = pathfinder(&app).settings().heuristic;
    app.world_mut().write_message(key_message(KeyCode::KeyE, ButtonState::Pressed));
    app.update();
    assert_eq!(pathfinder(&app).settings().heuristic, heuristic, "E is refused under Dijkstra");
    assert!(notices(&app).iter().any(|n| n.text.contains("Dijkstra uses no heuristic")));
    app.world_mut().write_message(key_message(KeyCode::KeyE, ButtonState::Released));
    app.update();

    // Greedy takes no weight; 4 moves have no corner rule.
    tap_key(&mut app, KeyCode::F4);
    assert!(ui_text(&mut app).contains("a weight changes nothing"));
    tap_key(&mut app, KeyCode::KeyM);
    assert!(ui_text(&mut app).contains("4 moves have none"), "corners are disabled with 4 moves");

    // A* with a weight: bidirectional search does not apply.
    tap_key(&mut app, KeyCode::F1);
    shift_tap_key(&mut app, KeyCode::BracketRight);
    assert!(ui_text(&mut app).contains("bidirectional search takes no heuristic weight"));
    tap_key(&mut app, KeyCode::F6);
    assert_eq!(pathfinder(&app).settings().algorithm, Algorithm::AStar, "F6 is refused while weighted");

    // Terrain costs: BFS is disabled whatever the rules; JPS is not (exact on costs since
    // issue 24).
    let mut app = test_app_with_hud(costly_map());
    let text = ui_text(&mut app);
    assert!(text.contains("BFS counts steps"), "{text}");
    assert!(!text.contains("JPS needs"), "JPS runs on terrain costs:\n{text}");
}
