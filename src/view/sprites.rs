//! Unit sprites: every unit gets a body (a child sprite that turns and walks through the walk
//! cycle), bodies stay readable when a big map is zoomed out, and each unit's remaining route
//! is drawn as a line.

use bevy::prelude::*;
use bevy_gridpath::{PathStatus, Waypoints};

use crate::AppSystems;
use crate::map::geometry::TILE_SIZE;
use crate::units::lab::{LabUnit, Unit, UnitLook};
use crate::view::assets::{GameAssets, UNIT_FRAMES};
use crate::view::camera::{MainCamera, marker_enlargement};

/// World distance (in tiles) walked per animation frame of the walk cycle.
const TILES_PER_FRAME: f32 = 0.2;
/// How fast a unit turns to its heading: the remaining angle shrinks by e each 1/rate seconds.
const TURN_RATE: f32 = 14.0;
/// Colour of a unit's remaining route (a line from the unit to the goal).
const ROUTE_COLOR: Color = Color::srgba(0.15, 0.1, 0.35, 0.55);

/// The sprite, its walk animation and the route line.
pub(super) fn plugin(app: &mut App) {
    app.add_observer(add_unit_body);
    // The route line would give the search's answer away while it is being replayed.
    app.add_systems(
        Update,
        (animate_units, enlarge_units_when_zoomed_out, draw_routes).in_set(AppSystems::Present),
    );
}

/// The visible part of a unit: a child entity, so it can turn without turning the unit.
#[derive(Component, Debug, Default)]
pub(crate) struct UnitBody {
    /// Distance walked, in tiles, driving the walk cycle.
    walked: f32,
    /// Where the unit was last frame, in world space.
    last: Option<Vec2>,
}

fn add_unit_body(
    add: On<Add, Unit>,
    mut commands: Commands,
    assets: Res<GameAssets>,
    looks: Query<&UnitLook>,
) {
    let look = looks.get(add.entity).copied().unwrap_or_default();
    let mut sprite = Sprite::from_atlas_image(
        assets.unit.clone(),
        TextureAtlas { layout: assets.unit_atlas.clone(), index: 0 },
    );
    sprite.color = look.color;
    commands.entity(add.entity).insert(Visibility::default()).with_child((
        UnitBody::default(),
        sprite,
        Transform::from_scale(Vec3::splat(look.scale)),
    ));
}

fn animate_units(
    time: Res<Time>,
    units: Query<(&Unit, &PathStatus, &Transform), Without<UnitBody>>,
    mut bodies: Query<(&ChildOf, &mut UnitBody, &mut Sprite, &mut Transform)>,
) {
    for (child_of, mut body, mut sprite, mut transform) in &mut bodies {
        let Ok((unit, status, unit_transform)) = units.get(child_of.parent()) else {
            continue;
        };
        let at = unit_transform.translation.truncate();
        let moved = body.last.map_or(0.0, |last| last.distance(at)) / TILE_SIZE;
        body.last = Some(at);
        body.walked += moved;
        let frame = if *status == PathStatus::Following && moved > 0.0 {
            // The cast is exact: the value is a small non-negative whole number.
            (body.walked / TILES_PER_FRAME).floor() as usize % UNIT_FRAMES as usize
        } else {
            0
        };
        if let Some(atlas) = &mut sprite.texture_atlas {
            atlas.index = frame;
        }
        let target = Quat::from_rotation_z(unit.heading.to_angle());
        let blend = 1.0 - (-TURN_RATE * time.delta_secs()).exp();
        transform.rotation = transform.rotation.slerp(target, blend);
    }
}

/// Smallest on-screen size of a crowd unit, in logical pixels: smaller than the lab's unit
/// (thousands of big sprites would hide the map) but never under a visible dot.
const MIN_CROWD_PIXELS: f32 = 6.0;

/// Keeps units readable when a big map is zoomed out: the lab's unit at the markers' minimum
/// size, crowd units at [`MIN_CROWD_PIXELS`] (on a fitted 1024 x 1024 map a cell is under a
/// pixel, and a crowd there would be invisible).
fn enlarge_units_when_zoomed_out(
    camera: Query<&Projection, With<MainCamera>>,
    units: Query<(Option<&UnitLook>, Has<LabUnit>, Ref<Children>), With<Unit>>,
    mut bodies: Query<&mut Transform, With<UnitBody>>,
    mut last_scale: Local<Option<f32>>,
) {
    let Some(ortho_scale) = camera.iter().find_map(|projection| match projection {
        Projection::Orthographic(ortho) => Some(ortho.scale),
        _ => None,
    }) else {
        return;
    };
    // Crowds run to 10,000 units: look at every body only when the zoom changed, else only at
    // units whose body was just added.
    let zoomed = *last_scale != Some(ortho_scale);
    *last_scale = Some(ortho_scale);
    let lab_enlargement = marker_enlargement(ortho_scale);
    // The sprite scale at which a crowd unit covers MIN_CROWD_PIXELS on screen.
    let crowd_min_scale = MIN_CROWD_PIXELS * ortho_scale / TILE_SIZE;
    for (look, is_lab, children) in &units {
        if !zoomed && !children.is_changed() {
            continue;
        }
        let base = look.copied().unwrap_or_default().scale;
        let scale = if is_lab { base * lab_enlargement } else { base.max(crowd_min_scale) };
        for &child in &*children {
            if let Ok(mut transform) = bodies.get_mut(child)
                && transform.scale.x != scale
            {
                transform.scale = Vec3::new(scale, scale, 1.0);
            }
        }
    }
}

/// Draws every unit's remaining route, except the route of a unit waiting for its search's
/// replay: the line would give the search's answer away while it is being replayed.
fn draw_routes(mut gizmos: Gizmos, units: Query<(&Transform, &Waypoints, Option<&LabUnit>), With<Unit>>) {
    for (transform, waypoints, lab) in &units {
        if waypoints.is_empty() || lab.is_some_and(LabUnit::is_waiting) {
            continue;
        }
        let points =
            std::iter::once(transform.translation.truncate()).chain(waypoints.iter().map(|w| w.point));
        gizmos.linestrip_2d(points, ROUTE_COLOR);
    }
}
