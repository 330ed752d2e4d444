//! Units: every unit has a [`Unit`] (where it is, where it steps, which way it faces), a
//! [`Speed`] and a [`UnitStatus`]. The lab's own unit ([`LabUnit`]) is spawned at the start and
//! walks its [`Waypoints`] to the goal, re-plans from where it is when the goal, the settings or
//! the map under its remaining route change, and stops when no route exists. It stands still
//! while the search animation replays the main search, and sets off when it ends. Crowd units
//! (the `crowd` plugin) share the [`Unit`] part. The view half animates every unit's sprite.

use std::collections::VecDeque;

use bevy::prelude::*;
use gridpath::{Pos, Settings};

use crate::AppSystems;
use crate::animation::SearchAnimation;
use crate::assets::{GameAssets, UNIT_FRAMES};
use crate::camera::{MainCamera, marker_enlargement};
use crate::level::{MapEdited, MapLoaded, TILE_SIZE};
use crate::notice::Notice;
use crate::planning::Pathfinder;

/// Walking speed of new units, in tiles per second.
pub const DEFAULT_SPEED: f32 = 5.0;
/// Slowest and fastest speed the `-` / `=` keys allow, in tiles per second.
const SPEED_RANGE: (f32, f32) = (1.0, 40.0);
/// Factor one press of `-` / `=` changes the speed by.
const SPEED_STEP: f32 = 1.25;
/// Depth of units: above the terrain (0), the path overlay (1) and the markers (2).
const UNIT_Z: f32 = 3.0;

/// World distance (in tiles) walked per animation frame of the walk cycle.
const TILES_PER_FRAME: f32 = 0.2;
/// How fast a unit turns to its heading: the remaining angle shrinks by e each 1/rate seconds.
const TURN_RATE: f32 = 14.0;
/// Colour of a unit's remaining route (a line from the unit to the goal).
const ROUTE_COLOR: Color = Color::srgba(0.15, 0.1, 0.35, 0.55);

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<UnitSpeed>();
    app.init_resource::<Reroutes>();
    app.add_systems(Update, change_speed.in_set(AppSystems::RecordInput));
    app.add_systems(
        Update,
        (respawn_units.run_if(on_message::<MapLoaded>), route_units).chain().in_set(AppSystems::Plan),
    );
    app.add_systems(Update, follow_waypoints.in_set(AppSystems::Move));
}

/// The sprite, its walk animation and the route line.
pub(super) fn view_plugin(app: &mut App) {
    app.add_observer(add_unit_body);
    // The route line would give the search's answer away while it is being replayed.
    app.add_systems(
        Update,
        (animate_units, enlarge_units_when_zoomed_out, draw_routes).in_set(AppSystems::Present),
    );
}

/// A unit: the lab's unit or a crowd unit.
#[derive(Component, Debug, Clone)]
#[require(Transform, Waypoints, Speed, UnitStatus)]
pub struct Unit {
    /// The lab's unit: the last cell centre it reached. A crowd unit: the cell it stands in.
    pub(crate) cell: Pos,
    /// The cell it is stepping into, if it is between two cell centres (the lab's unit only:
    /// crowd units never stand in more than one cell).
    pub(crate) next: Option<Pos>,
    /// Direction of travel (unit length; +x when it has not moved yet).
    pub(crate) heading: Vec2,
}

impl Unit {
    /// A unit standing in `at`, facing +x.
    pub(crate) fn new(at: Pos) -> Self {
        Self { cell: at, next: None, heading: Vec2::X }
    }

    /// The lab's unit: the last cell centre it reached; a crowd unit: the cell it stands in.
    pub fn cell(&self) -> Pos {
        self.cell
    }

    /// The cells the unit stands on or is stepping into: no wall may be built there.
    pub fn occupied(&self) -> impl Iterator<Item = Pos> + use<> {
        std::iter::once(self.cell).chain(self.next)
    }

    /// The cell a new route starts from: where the unit stands, or the cell it is stepping
    /// into (it finishes the step first, so it never turns around between two cells).
    fn anchor(&self) -> Pos {
        self.next.unwrap_or(self.cell)
    }
}

/// The lab's unit: spawned on the start, it walks the main route to the main goal.
#[derive(Component, Debug, Clone)]
pub struct LabUnit {
    /// Where it was spawned: the start. When the start moves, the unit is put there.
    home: Pos,
    /// The goal its route leads to.
    goal: Pos,
    /// The settings its route was planned with.
    settings: Settings,
    /// Its route was just planned and the search behind it is being replayed: it sets off when
    /// the replay ends. A unit whose route an edit left alone keeps walking through the replay.
    waiting: bool,
}

impl LabUnit {
    fn new(at: Pos) -> Self {
        Self { home: at, goal: at, settings: Settings::default(), waiting: true }
    }

    /// `true` while it stands still until the replay of its new route's search ends.
    pub fn is_waiting(&self) -> bool {
        self.waiting
    }
}

/// One point of a route.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Waypoint {
    /// The cell.
    pub cell: Pos,
    /// The cell's centre in world space.
    pub point: Vec2,
}

/// The rest of a unit's route, next point first: tile centres in world space.
#[derive(Component, Debug, Clone, Default, Deref, DerefMut)]
pub struct Waypoints(pub(crate) VecDeque<Waypoint>);

/// Walking speed, in tiles per second.
#[derive(Component, Debug, Clone, Copy, PartialEq)]
pub struct Speed(pub f32);

impl Default for Speed {
    fn default() -> Self {
        Self(DEFAULT_SPEED)
    }
}

/// The speed the `-` / `=` keys set for every unit, in tiles per second.
#[derive(Resource, Debug, Clone, Copy, PartialEq)]
pub struct UnitSpeed(pub f32);

impl Default for UnitSpeed {
    fn default() -> Self {
        Self(DEFAULT_SPEED)
    }
}

/// What a unit is doing.
#[derive(Component, Debug, Clone, Default, PartialEq, Eq)]
pub enum UnitStatus {
    /// Following its waypoints.
    #[default]
    Walking,
    /// Standing on the goal.
    Arrived,
    /// Standing still: the goal cannot be reached from its cell; the reason.
    NoPath(String),
    /// Waiting for its route from the planning queue (crowd units with their own route).
    Planning,
}

impl UnitStatus {
    /// A few words for the HUD.
    pub fn label(&self) -> &'static str {
        match self {
            UnitStatus::Walking => "walking",
            UnitStatus::Arrived => "arrived",
            UnitStatus::NoPath(_) => "stopped: no path",
            UnitStatus::Planning => "planning",
        }
    }
}

/// How many times units planned a new route since start-up (spawns excluded).
#[derive(Resource, Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Reroutes(pub u64);

/// Plans `unit`'s route from its anchor cell to the goal and stores it.
fn plan_unit_route(
    pathfinder: &mut Pathfinder,
    unit: &mut Unit,
    lab: &mut LabUnit,
    waypoints: &mut Waypoints,
    status: &mut UnitStatus,
) {
    let geometry = pathfinder.geometry();
    let waypoint = |cell| Waypoint { cell, point: geometry.cell_center(cell) };
    lab.goal = pathfinder.goal();
    lab.settings = *pathfinder.settings();
    let before = std::mem::take(&mut waypoints.0);
    let anchor = unit.anchor();
    match pathfinder.search(anchor, lab.goal) {
        Ok((path, _)) => {
            // The route starts at the anchor; keep it only while still stepping towards it.
            let skip = usize::from(unit.next.is_none());
            waypoints.0 = path.cells.iter().skip(skip).map(|&c| waypoint(c)).collect();
            *status = if waypoints.0.is_empty() { UnitStatus::Arrived } else { UnitStatus::Walking };
        }
        Err(error) => {
            // Finish the current step, then stand still on a cell centre.
            waypoints.0 = unit.next.map(waypoint).into_iter().collect();
            *status = UnitStatus::NoPath(error.to_string());
        }
    }
    unit.next = waypoints.0.front().map(|w| w.cell);
    // A new route waits for the replay of the search that found it; the same route, re-planned
    // after an edit or a settings change that did not alter it, is walked on without a pause.
    lab.waiting |= waypoints.0 != before;
}

fn respawn_units(
    mut commands: Commands,
    mut pathfinder: ResMut<Pathfinder>,
    units: Query<Entity, With<Unit>>,
    speed: Res<UnitSpeed>,
) {
    for entity in &units {
        commands.entity(entity).despawn();
    }
    let pathfinder = pathfinder.bypass_change_detection();
    let start = pathfinder.start();
    let mut unit = Unit::new(start);
    let mut lab = LabUnit::new(start);
    let mut waypoints = Waypoints::default();
    let mut status = UnitStatus::default();
    plan_unit_route(pathfinder, &mut unit, &mut lab, &mut waypoints, &mut status);
    let at = pathfinder.geometry().cell_center(start);
    commands.spawn((
        Name::new("Unit"),
        unit,
        lab,
        waypoints,
        status,
        Speed(speed.0),
        Transform::from_translation(at.extend(UNIT_Z)),
    ));
}

/// Re-plans units whose route went stale: the goal or the settings changed, an edit touched
/// their remaining route, or they were stuck and the map changed. When the start moved, the
/// unit is put on the new start (the one deliberate jump: the player placed it there).
fn route_units(
    mut pathfinder: ResMut<Pathfinder>,
    mut edits: MessageReader<MapEdited>,
    mut units: Query<(&mut Unit, &mut LabUnit, &mut Waypoints, &mut UnitStatus, &mut Transform)>,
    mut reroutes: ResMut<Reroutes>,
) {
    let edits: Vec<MapEdited> = edits.read().cloned().collect();
    let pathfinder = pathfinder.bypass_change_detection();
    for (mut unit, mut lab, mut waypoints, mut status, mut transform) in &mut units {
        if lab.home != pathfinder.start() {
            let start = pathfinder.start();
            *unit = Unit::new(start);
            *lab = LabUnit::new(start);
            let at = pathfinder.geometry().cell_center(start);
            transform.translation = at.extend(transform.translation.z);
        } else {
            let stale = lab.goal != pathfinder.goal()
                || lab.settings != *pathfinder.settings()
                || (matches!(*status, UnitStatus::NoPath(_)) && !edits.is_empty())
                || waypoints.iter().any(|w| edits.iter().any(|e| e.touches(w.cell)));
            if !stale {
                continue;
            }
            reroutes.0 += 1;
        }
        plan_unit_route(pathfinder, &mut unit, &mut lab, &mut waypoints, &mut status);
    }
}

/// Moves units towards their next waypoint at their speed; several waypoints per frame when
/// the frame is long, never past the last one. A unit whose route was just planned waits until
/// the replay of that search ends.
fn follow_waypoints(
    time: Res<Time>,
    animation: Res<SearchAnimation>,
    mut units: Query<(&mut Unit, &mut LabUnit, &mut Waypoints, &mut UnitStatus, &mut Transform, &Speed)>,
) {
    for (mut unit, mut lab, mut waypoints, mut status, mut transform, speed) in &mut units {
        if lab.waiting {
            if !animation.is_finished() {
                continue;
            }
            lab.waiting = false;
        }
        let mut budget = speed.0 * TILE_SIZE * time.delta_secs();
        let mut at = transform.translation.truncate();
        while let Some(&next) = waypoints.0.front() {
            let to = next.point - at;
            let distance = to.length();
            if distance > f32::EPSILON {
                unit.heading = to / distance;
            }
            if distance > budget {
                at += unit.heading * budget;
                unit.next = Some(next.cell);
                break;
            }
            budget -= distance;
            at = next.point;
            unit.cell = next.cell;
            waypoints.0.pop_front();
            unit.next = waypoints.0.front().map(|w| w.cell);
        }
        transform.translation = at.extend(transform.translation.z);
        if waypoints.0.is_empty() && *status == UnitStatus::Walking {
            *status = UnitStatus::Arrived;
        }
    }
}

fn change_speed(
    keys: Res<ButtonInput<KeyCode>>,
    mut speed: ResMut<UnitSpeed>,
    mut units: Query<&mut Speed>,
    mut notices: MessageWriter<Notice>,
) {
    let factor = if keys.just_pressed(KeyCode::Equal) {
        SPEED_STEP
    } else if keys.just_pressed(KeyCode::Minus) {
        1.0 / SPEED_STEP
    } else {
        return;
    };
    speed.0 = (speed.0 * factor).clamp(SPEED_RANGE.0, SPEED_RANGE.1);
    for mut unit_speed in &mut units {
        unit_speed.0 = speed.0;
    }
    notices.write(Notice::info(format!("unit speed: {:.1} tiles/s", speed.0)));
}

/// How a unit's sprite is drawn: its scale and tint (the lab's unit: full size, untinted).
#[derive(Component, Debug, Clone, Copy, PartialEq)]
pub struct UnitLook {
    /// Sprite scale (1 = one tile).
    pub scale: f32,
    /// Sprite tint.
    pub color: Color,
}

impl Default for UnitLook {
    fn default() -> Self {
        Self { scale: 1.0, color: Color::WHITE }
    }
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
    units: Query<(&Unit, &UnitStatus, &Transform), Without<UnitBody>>,
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
        let frame = if *status == UnitStatus::Walking && moved > 0.0 {
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
