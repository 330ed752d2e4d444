//! Input: the key bindings (every control, declared once) and the pointer (the hovered cell, the
//! UI nodes that take it, the selection).

use bevy::prelude::*;

pub mod bindings;
pub mod pointer;

pub(super) fn plugin(app: &mut App) {
    app.add_plugins((bindings::plugin, pointer::plugin));
}
