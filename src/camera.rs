//! The 2D camera: fits the map below the HUD and left of the controls panel (on load, on window
//! resize and with `F`), zooms about the cursor with the mouse wheel, pans with middle-drag and
//! the arrow keys.

use bevy::input::common_conditions::input_just_pressed;
use bevy::input::mouse::{AccumulatedMouseScroll, MouseScrollUnit};
use bevy::prelude::*;
use bevy::window::{PrimaryWindow, WindowResized};

use crate::AppSystems;
use crate::hud::HUD_HEIGHT;
use crate::level::MapLoaded;
use crate::panel::PANEL_WIDTH;
use crate::planning::Pathfinder;

/// Free space around the fitted map, in logical pixels.
const FIT_MARGIN: f32 = 12.0;
/// Zoom factor per wheel line.
const ZOOM_STEP: f32 = 1.1;
/// Wheel pixels counted as one line (touchpads report pixels).
const PIXELS_PER_LINE: f32 = 40.0;
/// Smallest projection scale (most zoomed in): world units per logical pixel.
const MIN_SCALE: f32 = 0.08;
/// How far out one can zoom, as a multiple of the scale that fits the map.
const MAX_ZOOM_OUT: f32 = 4.0;
/// Arrow-key panning speed, in logical pixels per second.
const PAN_SPEED: f32 = 700.0;

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Startup, spawn_camera);
    app.add_systems(
        Update,
        (
            fit_camera.run_if(
                on_message::<MapLoaded>
                    .or_else(on_message::<WindowResized>)
                    .or_else(input_just_pressed(KeyCode::KeyF)),
            ),
            // The wheel over the controls panel is not meant for the map.
            zoom_camera.run_if(
                (|scroll: Res<AccumulatedMouseScroll>| scroll.delta != Vec2::ZERO)
                    .and_then(not(crate::editor::pointer_over_ui)),
            ),
            pan_camera,
        )
            .chain()
            .in_set(AppSystems::RecordInput),
    );
}

/// The camera that shows the map.
#[derive(Component)]
pub(crate) struct MainCamera;

/// Smallest on-screen size of the start and goal markers and the lab's unit, in logical pixels:
/// on a fitted 1024 × 1024 map a cell is under a pixel, and the player must still see where the
/// route starts, ends and who walks it.
const MIN_MARKER_PIXELS: f32 = 14.0;

/// How much a one-tile sprite must be enlarged to stay at least [`MIN_MARKER_PIXELS`] on screen
/// at projection scale `scale` (world units per logical pixel): 1 whenever a tile is big enough.
pub(crate) fn marker_enlargement(scale: f32) -> f32 {
    (MIN_MARKER_PIXELS * scale / crate::level::TILE_SIZE).max(1.0)
}

/// The main camera's current [`marker_enlargement`], if the camera has an orthographic projection.
pub(crate) fn current_enlargement(projection: &Projection) -> Option<f32> {
    match projection {
        Projection::Orthographic(ortho) => Some(marker_enlargement(ortho.scale)),
        _ => None,
    }
}

fn spawn_camera(mut commands: Commands) {
    commands.spawn((Name::new("Camera"), Camera2d, MainCamera));
}

/// The projection scale at which the whole map fits below the HUD and left of the panel.
fn fit_scale(window: &Window, map_size: Vec2) -> f32 {
    let room = window.size() - Vec2::new(2.0 * FIT_MARGIN + PANEL_WIDTH, 2.0 * FIT_MARGIN + HUD_HEIGHT);
    (map_size / room.max(Vec2::splat(1.0))).max_element()
}

/// Keeps the view centre over the map, so the map never leaves the screen entirely.
fn clamp_to_map(translation: &mut Vec3, map_size: Vec2) {
    let half = map_size / 2.0;
    translation.x = translation.x.clamp(-half.x, half.x + PANEL_WIDTH);
    translation.y = translation.y.clamp(-half.y, half.y + HUD_HEIGHT);
}

fn fit_camera(
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<(&mut Transform, &mut Projection), With<MainCamera>>,
    pathfinder: Res<Pathfinder>,
) {
    let (mut transform, mut projection) = camera.into_inner();
    let Projection::Orthographic(ortho) = &mut *projection else { return };
    let scale = fit_scale(&window, pathfinder.geometry().world_size());
    ortho.scale = scale;
    // Centre the map in the area below the HUD bar and left of the panel.
    transform.translation.x = PANEL_WIDTH / 2.0 * scale;
    transform.translation.y = HUD_HEIGHT / 2.0 * scale;
}

fn zoom_camera(
    scroll: Res<AccumulatedMouseScroll>,
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<(&mut Transform, &mut Projection), With<MainCamera>>,
    pathfinder: Res<Pathfinder>,
) {
    let (mut transform, mut projection) = camera.into_inner();
    let Projection::Orthographic(ortho) = &mut *projection else { return };
    let lines = match scroll.unit {
        MouseScrollUnit::Line => scroll.delta.y,
        MouseScrollUnit::Pixel => scroll.delta.y / PIXELS_PER_LINE,
    };
    let map_size = pathfinder.geometry().world_size();
    let max_scale = fit_scale(&window, map_size) * MAX_ZOOM_OUT;
    let old = ortho.scale;
    let new = (old * ZOOM_STEP.powf(-lines)).clamp(MIN_SCALE, max_scale.max(MIN_SCALE));
    if let Some(cursor) = window.cursor_position() {
        // Keep the world point under the cursor where it is on screen.
        let offset = (cursor - window.size() / 2.0) * Vec2::new(1.0, -1.0);
        let anchor = transform.translation.truncate() + offset * old;
        let centre = anchor - offset * new;
        transform.translation = centre.extend(transform.translation.z);
    }
    ortho.scale = new;
    clamp_to_map(&mut transform.translation, map_size);
}

fn pan_camera(
    time: Res<Time>,
    keys: Res<ButtonInput<KeyCode>>,
    buttons: Res<ButtonInput<MouseButton>>,
    window: Single<&Window, With<PrimaryWindow>>,
    camera: Single<(&mut Transform, &Projection), With<MainCamera>>,
    pathfinder: Res<Pathfinder>,
    mut last_cursor: Local<Option<Vec2>>,
) {
    let (mut transform, projection) = camera.into_inner();
    let Projection::Orthographic(ortho) = projection else { return };
    // Screen pixels to world units; screen y grows downwards.
    let to_world = Vec2::new(ortho.scale, -ortho.scale);
    let mut shift = Vec2::ZERO;
    let cursor = window.cursor_position();
    // Only motion while the button was already down: a press often arrives in the same frame
    // as the move that brought the cursor there.
    if buttons.pressed(MouseButton::Middle)
        && !buttons.just_pressed(MouseButton::Middle)
        && let (Some(now), Some(before)) = (cursor, *last_cursor)
    {
        // Grab and drag: the map follows the cursor.
        shift -= (now - before) * to_world;
    }
    *last_cursor = cursor;
    let arrows = [
        (KeyCode::ArrowLeft, Vec2::NEG_X),
        (KeyCode::ArrowRight, Vec2::X),
        (KeyCode::ArrowUp, Vec2::Y),
        (KeyCode::ArrowDown, Vec2::NEG_Y),
    ];
    for (key, direction) in arrows {
        if keys.pressed(key) {
            shift += direction * PAN_SPEED * ortho.scale * time.delta_secs();
        }
    }
    if shift != Vec2::ZERO {
        transform.translation += shift.extend(0.0);
        clamp_to_map(&mut transform.translation, pathfinder.geometry().world_size());
    }
}
