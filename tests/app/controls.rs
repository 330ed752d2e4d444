//! The one key table: every key sends exactly its control, the help overlay and the panel show
//! it, and docs/controls.md is generated from it.

use super::*;
use tilepath::input::bindings::{Chord, Control, KEY_TABLE, bindings, controls_markdown};

/// The controls sent in each frame.
#[derive(Resource, Default)]
struct Sent(Vec<Control>);

fn record_controls(mut controls: MessageReader<Control>, mut sent: ResMut<Sent>) {
    sent.0.extend(controls.read().copied());
}

/// Presses `chord`'s key (with its modifier) and returns the controls sent in that frame.
fn press(app: &mut App, chord: Chord) -> Vec<Control> {
    let (modifier, key) = match chord {
        Chord::Key(key) => (None, key),
        Chord::Shift(key) => (Some(KeyCode::ShiftLeft), key),
        Chord::Ctrl(key) => (Some(KeyCode::ControlLeft), key),
        Chord::Hold(_) | Chord::Pointer(_) => unreachable!("only pressed chords"),
    };
    if let Some(modifier) = modifier {
        app.world_mut().write_message(key_message(modifier, ButtonState::Pressed));
        app.update();
    }
    app.world_mut().resource_mut::<Sent>().0.clear();
    app.world_mut().write_message(key_message(key, ButtonState::Pressed));
    app.update();
    let sent = std::mem::take(&mut app.world_mut().resource_mut::<Sent>().0);
    app.world_mut().write_message(key_message(key, ButtonState::Released));
    if let Some(modifier) = modifier {
        app.world_mut().write_message(key_message(modifier, ButtonState::Released));
    }
    app.update();
    sent
}

#[test]
fn every_pressed_key_sends_exactly_its_control_and_no_chord_is_bound_twice() {
    let mut app = test_app(MapSource::BuiltIn);
    app.init_resource::<Sent>();
    app.add_systems(Update, record_controls.after(tilepath::input::bindings::ControlSystems));
    let mut seen = Vec::new();
    for binding in bindings() {
        assert!(!seen.contains(&binding.chord), "{:?} is bound twice", binding.chord);
        seen.push(binding.chord);
        if matches!(binding.chord, Chord::Hold(_) | Chord::Pointer(_)) {
            assert!(binding.control.is_none() || matches!(binding.control, Some(Control::Pan(_))));
            continue;
        }
        let sent = press(&mut app, binding.chord);
        assert_eq!(sent, vec![binding.control.expect("a key sends a control")], "{}", binding.chord.label());
    }
    assert!(seen.len() > 40, "the table holds every binding: {}", seen.len());
}

#[test]
fn controls_page_help_and_panel_come_from_the_key_table() {
    let page = std::fs::read_to_string("docs/controls.md").expect("docs/controls.md exists");
    assert_eq!(
        page,
        controls_markdown(),
        "docs/controls.md differs from the key table: regenerate it with \
         `cargo run -- --controls > docs/controls.md`"
    );
    let readme = std::fs::read_to_string("README.md").expect("README.md");
    assert!(readme.contains("docs/controls.md"), "README links the controls page");

    let mut app = test_app_with_hud(MapSource::BuiltIn);
    tap_key(&mut app, KeyCode::KeyH);
    let text = ui_text(&mut app);
    for row in KEY_TABLE {
        assert!(text.contains(&row.keys_label()), "the help shows {:?}:\n{text}", row.keys_label());
        let first_word = row.action.split(' ').next().expect("an action");
        assert!(text.contains(first_word), "the help says what {} does", row.keys_label());
    }
    // The panel's buttons carry the table's keys.
    for label in ["F5 JPS", "Shift+[ less", "0/W wall", "Ctrl+S save", "Shift+U spawn 100"] {
        assert!(text.contains(label), "the panel shows {label:?}:\n{text}");
    }
}
