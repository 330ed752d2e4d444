//! The interface over the world: the HUD (status line, notices, help) and the controls panel
//! with the race table. Both only spawn UI nodes, so headless tests can add them.

use bevy::prelude::*;

pub mod hud;
pub mod panel;

/// The HUD and the panel.
pub fn plugin(app: &mut App) {
    app.add_plugins((hud::plugin, panel::plugin));
}
