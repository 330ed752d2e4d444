//! Which map cell the OS cursor is over: screen → world → cell, written to [`HoverTile`] once
//! per frame, right after Bevy reads the input. Everything else reads that resource, so it
//! needs no window.

use bevy::input::InputSystems;
use bevy::prelude::*;
use bevy::window::PrimaryWindow;

use crate::input::pointer::HoverTile;
use crate::map::problem::SearchProblem;
use crate::view::camera::MainCamera;

pub(super) fn plugin(app: &mut App) {
    app.add_systems(PreUpdate, update_hover_tile.after(InputSystems));
}

fn update_hover_tile(
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<(&Camera, &GlobalTransform), With<MainCamera>>,
    problem: SearchProblem,
    mut hover: ResMut<HoverTile>,
) {
    let (camera, camera_transform) = *camera;
    let cell = window
        .cursor_position()
        .and_then(|cursor| camera.viewport_to_world_2d(camera_transform, cursor).ok())
        .and_then(|world| problem.geometry().cell_at(world));
    hover.set_if_neq(HoverTile(cell));
}
