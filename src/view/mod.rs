//! What the player sees of the world: assets, the camera, the cursor, the tile map with its
//! markers and search overlay, flow arrows, unit sprites and the selection.

use bevy::prelude::*;

pub mod assets;
pub mod camera;
mod cursor;
pub mod flow;
pub mod selection;
pub mod sprites;
pub mod tilemap;

pub(super) fn plugin(app: &mut App) {
    app.add_plugins((
        bevy_ecs_tilemap::TilemapPlugin,
        assets::plugin,
        camera::plugin,
        cursor::plugin,
        tilemap::plugin,
        sprites::plugin,
        selection::plugin,
        flow::plugin,
    ));
}
