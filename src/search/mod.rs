//! The lab's search: planning the main route (and the settings controls), the replay of the
//! search, and the race of every algorithm.

use bevy::prelude::*;

pub mod plan;
pub mod race;
pub mod replay;

pub(super) fn plugin(app: &mut App) {
    app.add_plugins((plan::plugin, replay::plugin, race::plugin));
}
