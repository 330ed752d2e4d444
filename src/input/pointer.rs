//! The pointer: which map cell it hovers ([`HoverTile`], written by the cursor plugin, a test or
//! a script), the UI nodes that take it from the map ([`BlocksMap`]), and what it picked
//! ([`Selected`] units).

use bevy::prelude::*;
use gridpath::Pos;

use crate::AppSystems;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<HoverTile>();
    app.add_systems(
        Update,
        ignore_map_under_ui.run_if(pointer_over_ui).in_set(AppSystems::RecordInput).in_set(PointerSystems),
    );
}

/// The system that clears [`HoverTile`] while the pointer is over the UI: whatever reads the
/// hover in `RecordInput` runs after it.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PointerSystems;

/// The map cell under the mouse cursor, or `None` when the cursor is off the map or outside
/// the window.
#[derive(Resource, Default, Debug, Clone, Copy, PartialEq, Eq)]
pub struct HoverTile(pub Option<Pos>);

/// A UI node that takes the mouse: while the pointer is over it (its [`Interaction`] is not
/// `None`), the map underneath gets no hover and no clicks.
#[derive(Component, Debug, Default, Clone, Copy)]
#[require(Interaction)]
pub struct BlocksMap;

/// Run condition: the pointer is over a [`BlocksMap`] node.
pub(crate) fn pointer_over_ui(nodes: Query<&Interaction, With<BlocksMap>>) -> bool {
    nodes.iter().any(|interaction| *interaction != Interaction::None)
}

/// The pointer is over the UI, not the map: nothing on the map is hovered.
fn ignore_map_under_ui(mut hover: ResMut<HoverTile>) {
    hover.set_if_neq(HoverTile(None));
}

/// A selected crowd unit: right-click orders it.
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct Selected;
