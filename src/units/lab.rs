//! Units: every unit has a [`Unit`] (where it is, where it steps, which way it faces) and a
//! plugin [`PathStatus`]. The lab's own unit ([`LabUnit`]) is a `bevy_gridpath` user like any
//! game's unit: a [`PathRequest`] to the goal with the current settings and a [`Mover`]. The
//! plugin plans its route, re-plans it from where the unit stands when an edit crosses it,
//! and walks it; this plugin keeps the request in step with the goal and the settings, puts
//! the unit back on the start when the start moves, and holds it still while the search
//! replay shows how its new route was found. Crowd units (the `crowd` plugin) share the
//! [`Unit`] part. The view half animates every unit's sprite.

use bevy::prelude::*;
use bevy_gridpath::{
    GridPathSystems, Mover, PathFailure, PathRequest, PathStatus, ReplanIncrementally, Waypoints,
};
use gridpath::Pos;

use crate::AppSystems;
use crate::input::bindings::{Control, ControlSystems};
use crate::map::level::MapLoaded;
use crate::map::problem::{IncrementalReplanning, SearchProblem, SmoothRoutes};
use crate::notice::Notice;
use crate::search::plan::PlanRunner;
use crate::search::replay::SearchAnimation;

/// Walking speed of new units, in tiles per second.
pub const DEFAULT_SPEED: f32 = 5.0;
/// Slowest and fastest speed the `-` / `=` keys allow, in tiles per second.
const SPEED_RANGE: (f32, f32) = (1.0, 40.0);
/// Factor one press of `-` / `=` changes the speed by.
const SPEED_STEP: f32 = 1.25;
/// Depth of units: above the terrain (0), the path overlay (1) and the markers (2).
const UNIT_Z: f32 = 3.0;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<UnitSpeed>();
    app.init_resource::<Reroutes>();
    app.add_systems(
        Update,
        change_speed.run_if(on_message::<Control>).after(ControlSystems).in_set(AppSystems::RecordInput),
    );
    app.add_systems(
        Update,
        (respawn_lab_unit.run_if(on_message::<MapLoaded>), request_lab_route, replan_lab_unit_incrementally)
            .chain()
            .in_set(AppSystems::Plan)
            .before(GridPathSystems::Request),
    );
    app.add_systems(Update, notice_new_lab_routes.in_set(AppSystems::Plan).after(GridPathSystems::Plan));
    app.add_systems(
        Update,
        hold_lab_unit_during_replay.in_set(AppSystems::Move).before(GridPathSystems::Move),
    );
    app.add_systems(Update, track_lab_unit.in_set(AppSystems::Move).after(GridPathSystems::Move));
}

/// A unit: the lab's unit or a crowd unit.
#[derive(Component, Debug, Clone)]
#[require(Transform, Waypoints, PathStatus)]
pub struct Unit {
    /// The last cell centre it reached (lab) or the cell it stands in (crowd).
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
}

/// The lab's unit: spawned on the start, it walks the main route to the main goal.
#[derive(Component, Debug, Clone)]
pub struct LabUnit {
    /// Where it was spawned: the start. When the start moves, the unit is put there.
    home: Pos,
    /// The cells of its route as last seen, to tell a new route from the same one walked on.
    route: Vec<Pos>,
    /// It had a route before: a later new route is a re-route.
    routed: bool,
    /// Its route was just planned and the search behind it is being replayed: it sets off when
    /// the replay ends. A unit whose route an edit left alone keeps walking through the replay.
    waiting: bool,
}

impl LabUnit {
    fn new(at: Pos) -> Self {
        Self { home: at, route: Vec::new(), routed: false, waiting: true }
    }

    /// `true` while it stands still until the replay of its new route's search ends.
    pub fn is_waiting(&self) -> bool {
        self.waiting
    }
}

/// Walking speed of a crowd unit, in tiles per second (the lab's unit has its [`Mover`]'s).
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

/// A few words for the HUD about a unit's status.
pub fn status_label(status: &PathStatus) -> &'static str {
    match status {
        PathStatus::Following => "walking",
        PathStatus::Arrived => "arrived",
        PathStatus::Partial => "goal unreachable: going as close as possible",
        PathStatus::Failed(PathFailure::OffGrid) => "stopped: off the map",
        PathStatus::Failed(PathFailure::Search(_)) => "stopped: no path",
        PathStatus::Planning => "planning",
    }
}

/// How many times the lab's unit took a new route since start-up (its first route after a
/// spawn excluded).
#[derive(Resource, Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Reroutes(pub u64);

/// A new map: every unit goes, the lab's unit is put on the start with a request for the goal.
fn respawn_lab_unit(
    mut commands: Commands,
    problem: SearchProblem,
    units: Query<Entity, With<Unit>>,
    speed: Res<UnitSpeed>,
    smooth: Res<SmoothRoutes>,
) {
    for entity in &units {
        commands.entity(entity).despawn();
    }
    let start = problem.start();
    let mut mover = Mover::new(speed.0);
    mover.place(start);
    commands.spawn((
        Name::new("Unit"),
        Unit::new(start),
        LabUnit::new(start),
        mover,
        PathRequest { goal: problem.goal(), settings: *problem.settings(), smooth: smooth.0 },
        Transform::from_translation(problem.geometry().cell_center(start).extend(UNIT_Z)),
    ));
}

/// Keeps the lab's unit's request in step with the goal and the settings (the plugin re-plans
/// a changed request from where the unit stands); when the start moved, puts the unit there
/// (the one deliberate jump: the player placed it) and plans again.
fn request_lab_route(
    problem: SearchProblem,
    smooth: Res<SmoothRoutes>,
    mut units: Query<(&mut LabUnit, &mut Unit, &mut Mover, &mut PathRequest, &mut Waypoints, &mut Transform)>,
) {
    let wanted = PathRequest { goal: problem.goal(), settings: *problem.settings(), smooth: smooth.0 };
    for (mut lab, mut unit, mut mover, mut request, mut waypoints, mut transform) in &mut units {
        if lab.home != problem.start() {
            let start = problem.start();
            *lab = LabUnit::new(start);
            *unit = Unit::new(start);
            mover.place(start);
            waypoints.clear();
            let at = problem.geometry().cell_center(start);
            transform.translation = at.extend(transform.translation.z);
            *request = wanted;
        } else {
            request.set_if_neq(wanted);
        }
    }
}

/// With incremental re-planning on, the lab's unit re-plans with D* Lite (the plugin's
/// [`ReplanIncrementally`]): an edit across its route is repaired from its kept search.
fn replan_lab_unit_incrementally(
    incremental: Res<IncrementalReplanning>,
    mut commands: Commands,
    units: Query<(Entity, Has<ReplanIncrementally>), With<LabUnit>>,
) {
    for (entity, has) in &units {
        if incremental.0 && !has {
            commands.entity(entity).insert(ReplanIncrementally::default());
        } else if !incremental.0 && has {
            commands.entity(entity).remove::<ReplanIncrementally>();
        }
    }
}

/// Tells a new route from the same route walked on: a new one waits for the replay of the
/// search that found it (and counts as a re-route after the first); the same route, re-planned
/// after an edit or a settings change that did not alter it, is walked on without a pause.
fn notice_new_lab_routes(mut units: Query<(&mut LabUnit, Ref<Waypoints>)>, mut reroutes: ResMut<Reroutes>) {
    for (mut lab, waypoints) in &mut units {
        if !waypoints.is_changed() {
            continue;
        }
        let cells: Vec<Pos> = waypoints.iter().map(|w| w.cell).collect();
        if !lab.route.ends_with(&cells) {
            lab.waiting = true;
            if lab.routed {
                reroutes.0 += 1;
            }
        }
        lab.routed |= !cells.is_empty();
        lab.route = cells;
    }
}

/// The lab's unit waits while the search behind its new route is replayed (on a big map, also
/// while that search runs on its thread: its replay has not begun).
fn hold_lab_unit_during_replay(
    animation: Res<SearchAnimation>,
    planning: Res<PlanRunner>,
    mut units: Query<(&mut LabUnit, &mut Mover)>,
) {
    for (mut lab, mut mover) in &mut units {
        if lab.waiting && animation.is_finished() && !planning.is_planning() {
            lab.waiting = false;
        }
        if mover.hold != lab.waiting {
            mover.hold = lab.waiting;
        }
    }
}

/// Copies where a unit's [`Mover`] took it (the lab's unit, large units) into its [`Unit`],
/// which the editor, the HUD and the sprite read for every unit alike.
fn track_lab_unit(mut units: Query<(&mut Unit, &Mover), Changed<Mover>>) {
    for (mut unit, mover) in &mut units {
        unit.cell = mover.cell().unwrap_or(unit.cell);
        unit.next = mover.next();
        unit.heading = mover.heading();
    }
}

fn change_speed(
    mut controls: MessageReader<Control>,
    mut speed: ResMut<UnitSpeed>,
    mut units: Query<&mut Speed>,
    mut movers: Query<&mut Mover>,
    mut notices: MessageWriter<Notice>,
) {
    let factor = controls.read().fold(1.0, |factor, control| match control {
        Control::UnitFaster => factor * SPEED_STEP,
        Control::UnitSlower => factor / SPEED_STEP,
        _ => factor,
    });
    if factor == 1.0 {
        return;
    }
    speed.0 = (speed.0 * factor).clamp(SPEED_RANGE.0, SPEED_RANGE.1);
    for mut unit_speed in &mut units {
        unit_speed.0 = speed.0;
    }
    for mut mover in &mut movers {
        mover.speed = speed.0;
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
