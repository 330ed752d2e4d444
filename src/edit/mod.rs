//! Editing the map: painting with brushes, moving the endpoints, generated maps, and map files
//! (open, save, drop, autosave).

use bevy::prelude::*;

pub(crate) mod brushes;
pub mod files;
pub mod paint;

pub(super) fn plugin(app: &mut App) {
    app.add_plugins((paint::plugin, brushes::plugin, files::plugin));
}
