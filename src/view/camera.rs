//! The 2D camera: fits the map below the HUD and left of the controls panel (on load, on window
//! resize and with `F`), zooms about the cursor with the mouse wheel, pans with middle-drag and
//! the arrow keys (a tap pans a visible step), and never loses the map: some of it always stays
//! in view.

use bevy::input::mouse::{AccumulatedMouseScroll, MouseScrollUnit};
use bevy::prelude::*;
use bevy::window::{PrimaryWindow, WindowResized};

use crate::AppSystems;
use crate::input::bindings::{Control, ControlSystems, PanDirection, control_sent, pan_keys};
use crate::map::level::MapLoaded;
use crate::map::problem::SearchProblem;

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
/// Arrow-key panning speed while a key is held, in logical pixels per second.
const PAN_SPEED: f32 = 700.0;
/// How far one tap of an arrow key pans, in logical pixels (holding it keeps panning).
const PAN_TAP: f32 = 80.0;
/// How much of the map stays in view however far it is panned, in logical pixels (or the whole
/// map when it is smaller on screen).
const KEEP_IN_VIEW: f32 = 120.0;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<UiInsets>();
    app.add_systems(Startup, spawn_camera);
    app.add_systems(
        Update,
        (
            fit_camera.run_if(
                on_message::<MapLoaded>
                    .or_else(on_message::<WindowResized>)
                    .or_else(control_sent(Control::FitMap)),
            ),
            // The wheel over the controls panel is not meant for the map.
            zoom_camera.run_if(
                (|scroll: Res<AccumulatedMouseScroll>| scroll.delta != Vec2::ZERO)
                    .and_then(not(crate::input::pointer::pointer_over_ui)),
            ),
            pan_camera,
        )
            .chain()
            .after(ControlSystems)
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
    (MIN_MARKER_PIXELS * scale / crate::map::geometry::TILE_SIZE).max(1.0)
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

/// The part of the window the map is seen in: below the HUD bar, left of the panel.
/// Screen space the UI covers at the map's edges, in logical pixels: the HUD bar on top (its
/// measured height) and the controls panel on the right. The UI keeps it current; the camera
/// fits and clamps the map to what is left.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Default)]
pub struct UiInsets {
    /// Covered at the top: the HUD bar.
    pub top: f32,
    /// Covered on the right: the panel.
    pub right: f32,
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct MapArea {
    /// The window's size, in logical pixels.
    window: Vec2,
    /// The HUD bar's height, in logical pixels.
    top: f32,
    /// The panel's width, in logical pixels.
    right: f32,
}

impl MapArea {
    fn of(window: &Window, insets: &UiInsets) -> Self {
        Self { window: window.size(), top: insets.top, right: insets.right }
    }

    /// Width and height of the area, in logical pixels.
    fn size(self) -> Vec2 {
        (self.window - Vec2::new(self.right, self.top)).max(Vec2::ONE)
    }

    /// The area's centre relative to the window's centre, in logical pixels with y up.
    fn centre_offset(self) -> Vec2 {
        Vec2::new(-self.right / 2.0, -self.top / 2.0)
    }
}

/// The projection scale at which the whole map fits the map area.
fn fit_scale(area: MapArea, map_size: Vec2) -> f32 {
    let room = area.size() - Vec2::splat(2.0 * FIT_MARGIN);
    (map_size / room.max(Vec2::splat(1.0))).max_element()
}

/// Keeps at least [`KEEP_IN_VIEW`] pixels of the map (or all of it, if smaller) inside the map
/// area, so panning and zooming never lose the map entirely.
fn clamp_to_map(translation: &mut Vec3, map_size: Vec2, area: MapArea, scale: f32) {
    let half_map = map_size / 2.0;
    // The map area's centre and half size, in world units.
    let half_area = area.size() / 2.0 * scale;
    let keep = (Vec2::splat(KEEP_IN_VIEW) * scale).min(map_size).min(half_area * 2.0);
    let offset = area.centre_offset() * scale;
    let centre = translation.truncate() + offset;
    // The area's right edge must lie `keep` right of the map's left edge, its left edge `keep`
    // left of the map's right edge; the same vertically.
    let low = -half_map + keep - half_area;
    let high = half_map - keep + half_area;
    let clamped = centre.clamp(low.min(high), high.max(low));
    translation.x = clamped.x - offset.x;
    translation.y = clamped.y - offset.y;
}

fn fit_camera(
    window: Single<&Window, With<PrimaryWindow>>,
    insets: Res<UiInsets>,
    camera: Single<(&mut Transform, &mut Projection), With<MainCamera>>,
    problem: SearchProblem,
) {
    let (mut transform, mut projection) = camera.into_inner();
    let Projection::Orthographic(ortho) = &mut *projection else { return };
    let area = MapArea::of(&window, &insets);
    let scale = fit_scale(area, problem.geometry().world_size());
    ortho.scale = scale;
    // Centre the map in the area below the HUD bar and left of the panel.
    let centre = -area.centre_offset() * scale;
    transform.translation.x = centre.x;
    transform.translation.y = centre.y;
}

fn zoom_camera(
    scroll: Res<AccumulatedMouseScroll>,
    window: Single<&Window, With<PrimaryWindow>>,
    insets: Res<UiInsets>,
    camera: Single<(&mut Transform, &mut Projection), With<MainCamera>>,
    problem: SearchProblem,
) {
    let (mut transform, mut projection) = camera.into_inner();
    let Projection::Orthographic(ortho) = &mut *projection else { return };
    let lines = match scroll.unit {
        MouseScrollUnit::Line => scroll.delta.y,
        MouseScrollUnit::Pixel => scroll.delta.y / PIXELS_PER_LINE,
    };
    let map_size = problem.geometry().world_size();
    let area = MapArea::of(&window, &insets);
    let max_scale = fit_scale(area, map_size) * MAX_ZOOM_OUT;
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
    clamp_to_map(&mut transform.translation, map_size, area, new);
}

fn pan_camera(
    time: Res<Time>,
    keys: Res<ButtonInput<KeyCode>>,
    buttons: Res<ButtonInput<MouseButton>>,
    window: Single<&Window, With<PrimaryWindow>>,
    insets: Res<UiInsets>,
    camera: Single<(&mut Transform, &Projection), With<MainCamera>>,
    problem: SearchProblem,
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
    for (key, direction) in pan_keys() {
        let direction = match direction {
            PanDirection::Left => Vec2::NEG_X,
            PanDirection::Right => Vec2::X,
            PanDirection::Up => Vec2::Y,
            PanDirection::Down => Vec2::NEG_Y,
        };
        // A tap moves a visible step at once; holding the key keeps panning from there.
        if keys.just_pressed(key) {
            shift += direction * PAN_TAP * ortho.scale;
        } else if keys.pressed(key) {
            shift += direction * PAN_SPEED * ortho.scale * time.delta_secs();
        }
    }
    if shift != Vec2::ZERO {
        transform.translation += shift.extend(0.0);
        let area = MapArea::of(&window, &insets);
        clamp_to_map(&mut transform.translation, problem.geometry().world_size(), area, ortho.scale);
    }
}
