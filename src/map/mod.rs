//! The map and the search problem on it: the level (loading, geometry, the map's messages), the
//! endpoints and settings, and the terrain a brush can paint.

use bevy::prelude::*;

pub mod geometry;
pub mod level;
pub mod problem;
pub mod terrain;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<problem::SearchSettings>();
    app.init_resource::<problem::SmoothRoutes>();
    app.init_resource::<problem::IncrementalReplanning>();
    app.add_plugins(level::plugin);
}
