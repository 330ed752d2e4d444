use super::*;

#[test]
fn the_hud_shows_the_search_result_and_help() {
    let mut app = test_app_with_hud(MapSource::BuiltIn);
    let text = ui_text(&mut app);
    for expected in ["A*", "8 moves", "cost ", "47 cells", "expanded", " us", "unit: walking", "H: help"] {
        assert!(text.contains(expected), "the HUD should show {expected:?}:\n{text}");
    }
    assert!(
        text.contains("left-drag") && text.contains("R / Shift+R") && text.contains("Ctrl+S"),
        "the help lists the controls"
    );
    let mut panels = app.world_mut().query::<&Node>();
    let hidden = panels.iter(app.world()).filter(|n| n.display == Display::None).count();
    tap_key(&mut app, KeyCode::KeyH);
    let hidden_after = panels.iter(app.world()).filter(|n| n.display == Display::None).count();
    assert_eq!(hidden_after + 1, hidden, "H should show the help overlay");
}

#[test]
fn errors_appear_in_the_hud() {
    let mut app = test_app_with_hud(MapSource::BuiltIn);
    // Wall off the goal room's only door: no path.
    drag(&mut app, MouseButton::Left, &[Pos::new(31, 25)]);
    app.update();
    let text = ui_text(&mut app);
    assert!(text.contains("no path from (2,2) to (36,27)"), "the HUD should say there is no path:\n{text}");
    assert!(text.contains("unit: stopped: no path"), "the HUD should say the unit stopped:\n{text}");
    // An invalid placement: the start onto a wall.
    hover(&mut app, Some(Pos::new(13, 0)));
    tap_key(&mut app, KeyCode::KeyS);
    let text = ui_text(&mut app);
    assert!(text.contains("the start must be on a free cell"), "the HUD should explain the refusal:\n{text}");
}

#[test]
fn a_broken_map_file_is_reported_in_the_hud() {
    let mut app = test_app_with_hud(MapSource::File("/no/such/dir/missing.map".into()));
    let text = ui_text(&mut app);
    assert!(text.contains("missing.map") && text.contains("built-in map"), "{text}");
}
