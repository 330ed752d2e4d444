//! Crowds: many units on the map besides the lab's unit. `U` spawns one at the cursor,
//! `Shift+U` a hundred at random free cells; all of them head for the main goal until ordered
//! elsewhere (right-click with units selected, see the selection plugin).
//!
//! Units that share a goal follow one shared `gridpath` [`FlowField`] (Dijkstra, honouring
//! terrain costs) instead of one search each: the main goal's crowd and every order given to
//! two or more units. A unit ordered alone plans its own route with the chosen algorithm
//! through the asynchronous planning queue. On a map edit every flow field is rebuilt in place
//! (its followers re-route by reading it), and exactly the units with their own route whose
//! remaining route crosses an edited cell re-plan. How units move is the steering plugin's job.

use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use gridpath::{FlowField, Grid, Pos, Rules, Settings};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::AppSystems;
use crate::async_plan::{AsyncPlanSystems, PlanQueue, PlanRequest, RoutePlanned};
use crate::controls::{Control, ControlSystems, shift_held};
use crate::editor::HoverTile;
use crate::level::{Geometry, MapEdited, MapLoaded};
use crate::notice::Notice;
use crate::planning::Pathfinder;
use crate::units::{Speed, Unit, UnitLook, UnitSpeed, UnitStatus, Waypoint, Waypoints};

/// Units `Shift+U` spawns.
pub const CROWD_SPAWN: usize = 100;
/// Most crowd units the keys spawn (more is a benchmark's business, not a player's).
pub const MAX_CROWD: usize = 20_000;
/// Depth of crowd units: above the markers, below the lab's unit.
const CROWD_Z: f32 = 2.5;
/// How crowd units are drawn: smaller than the lab's unit, tinted.
pub(crate) const CROWD_LOOK: UnitLook = UnitLook { scale: 0.7, color: Color::srgb(0.55, 0.80, 1.0) };

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<FlowFields>();
    app.init_resource::<CrowdStats>();
    app.init_resource::<CrowdSeed>();
    app.add_systems(
        Update,
        (
            spawn_unit_at_cursor.run_if(key_u_pressed.and_then(not(shift_held))),
            spawn_crowd.run_if(on_message::<Control>),
        )
            .in_set(AppSystems::RecordInput)
            .after(ControlSystems),
    );
    app.add_systems(
        Update,
        (forget_fields.run_if(on_message::<MapLoaded>), resolve_goals, update_flow_fields, reroute_units)
            .chain()
            .in_set(AppSystems::Plan)
            .before(AsyncPlanSystems),
    );
    app.add_systems(Update, take_planned_routes.in_set(AppSystems::Plan).after(AsyncPlanSystems));
}

/// A crowd unit. Its [`Target`] says where it goes; with [`FlowFollower`] it follows its goal's
/// shared flow field, without it walks its own [`Waypoints`].
#[derive(Component, Debug, Clone, Copy)]
#[require(Target, UnitLook = CROWD_LOOK)]
pub struct CrowdUnit {
    /// The goal cell it heads for now (the main goal's cell for [`Target::MainGoal`]).
    pub(crate) goal: Pos,
    /// The smallest flow-field distance to the goal it reached so far.
    pub(crate) best: f32,
    /// Tiles it could have walked since it last got closer to the goal.
    pub(crate) stalled: f32,
}

impl CrowdUnit {
    /// A unit heading for `goal`.
    pub(crate) fn new(goal: Pos) -> Self {
        Self { goal, best: f32::INFINITY, stalled: 0.0 }
    }
}

impl CrowdUnit {
    /// The goal cell it heads for.
    pub fn goal(&self) -> Pos {
        self.goal
    }
}

/// Where a crowd unit goes.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Target {
    /// The main goal, wherever it is moved (the default).
    #[default]
    MainGoal,
    /// A cell it was ordered to.
    Cell(Pos),
}

/// The unit follows the shared flow field of its goal (and has no waypoints of its own).
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct FlowFollower;

/// The unit was given an order and waits for its first route request (units with their own
/// route only).
#[derive(Component, Clone, Copy, Debug, Default)]
struct NeedsRoute;

/// Which flow field: the goal and the movement rules.
pub type FieldKey = (Pos, Rules);

/// A flow field and who uses it.
#[derive(Debug)]
pub struct SharedField {
    /// The field; `None` while its goal is not a usable cell.
    pub field: Option<FlowField>,
    /// Why there is no field, if there is none.
    pub problem: Option<String>,
    /// The grid revision it was built for.
    built: u64,
    /// Units following it (counted every frame).
    pub followers: usize,
}

/// Every flow field in use, one per goal and rules. Fields nobody follows are dropped.
#[derive(Resource, Debug, Default)]
pub struct FlowFields(pub HashMap<FieldKey, SharedField>);

impl FlowFields {
    /// The field for `key`, if it exists and has been built.
    pub fn field(&self, key: &FieldKey) -> Option<&FlowField> {
        self.0.get(key).and_then(|shared| shared.field.as_ref())
    }
}

/// Counters for the HUD, tests and benchmarks.
#[derive(Resource, Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct CrowdStats {
    /// Flow fields built or rebuilt since start-up.
    pub field_builds: u64,
    /// Flow-field followers re-routed by a rebuild of their field.
    pub flow_reroutes: u64,
    /// Units with their own route that re-planned because of an edit, a new goal or new
    /// settings (not counting the first route after an order).
    pub route_reroutes: u64,
    /// Route requests sent to the planning queue.
    pub route_requests: u64,
}

/// The seed of the next `Shift+U` crowd; it grows by one per crowd, so a session is
/// reproducible.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq)]
pub struct CrowdSeed(pub u64);

impl Default for CrowdSeed {
    fn default() -> Self {
        Self(1)
    }
}

/// A crowd unit standing on `cell`, heading for the main goal along the shared flow field.
pub fn crowd_unit(cell: Pos, geometry: Geometry, speed: f32) -> impl Bundle {
    (
        Name::new("Crowd unit"),
        CrowdUnit::new(cell),
        Unit::new(cell),
        Target::MainGoal,
        FlowFollower,
        Speed(speed),
        Transform::from_translation(geometry.cell_center(cell).extend(CROWD_Z)),
    )
}

/// A crowd unit standing on `cell` with a route of its own to `goal`, asked for from the
/// planning queue on its first frame (scenario batches: every unit has another goal).
pub fn routed_crowd_unit(cell: Pos, goal: Pos, geometry: Geometry, speed: f32) -> impl Bundle {
    (
        Name::new("Crowd unit"),
        CrowdUnit::new(cell),
        Unit::new(cell),
        Target::Cell(goal),
        Speed(speed),
        UnitStatus::Planning,
        Transform::from_translation(geometry.cell_center(cell).extend(CROWD_Z)),
    )
}

fn key_u_pressed(keys: Res<ButtonInput<KeyCode>>) -> bool {
    keys.just_pressed(KeyCode::KeyU)
}

fn spawn_unit_at_cursor(
    mut commands: Commands,
    hover: Res<HoverTile>,
    pathfinder: Res<Pathfinder>,
    speed: Res<UnitSpeed>,
    units: Query<(), With<CrowdUnit>>,
    mut notices: MessageWriter<Notice>,
) {
    let Some(cell) = hover.0 else {
        notices.write(Notice::warning("point at a map cell to spawn a unit there"));
        return;
    };
    if !pathfinder.grid().is_passable(cell) {
        notices.write(Notice::warning("units can't stand in a wall"));
    } else if units.iter().len() >= MAX_CROWD {
        notices.write(Notice::warning(format!("the crowd is full ({MAX_CROWD} units)")));
    } else {
        commands.spawn(crowd_unit(cell, pathfinder.geometry(), speed.0));
    }
}

/// Free cells for a new crowd: cells that can reach the main goal (so the crowd walks), or
/// any passable cell when none can.
fn spawn_cells(grid: &Grid, goal: Pos, rules: Rules) -> Vec<Pos> {
    let reaching: Vec<Pos> = FlowField::dijkstra(grid, goal, rules)
        .map(|field| grid.positions().filter(|&p| p != goal && field.distance(p).is_some()).collect())
        .unwrap_or_default();
    if reaching.is_empty() { grid.positions().filter(|&p| grid.is_passable(p)).collect() } else { reaching }
}

/// `count` random cells out of `cells` (repeats allowed: separation spreads units apart).
pub fn random_cells(cells: &[Pos], count: usize, seed: u64) -> Vec<Pos> {
    let mut rng = StdRng::seed_from_u64(seed);
    if cells.is_empty() {
        return Vec::new();
    }
    (0..count).map(|_| cells[rng.random_range(0..cells.len())]).collect()
}

fn spawn_crowd(
    mut commands: Commands,
    mut controls: MessageReader<Control>,
    pathfinder: Res<Pathfinder>,
    speed: Res<UnitSpeed>,
    mut seed: ResMut<CrowdSeed>,
    units: Query<(), With<CrowdUnit>>,
    mut notices: MessageWriter<Notice>,
) {
    let (mut spawned, mut asked) = (0, false);
    for control in controls.read() {
        if *control != Control::SpawnCrowd {
            continue;
        }
        asked = true;
        let room = MAX_CROWD.saturating_sub(units.iter().len() + spawned);
        let grid = pathfinder.grid();
        let cells = spawn_cells(grid, pathfinder.goal(), pathfinder.settings().rules);
        let cells = random_cells(&cells, CROWD_SPAWN.min(room), seed.0);
        seed.0 += 1;
        let geometry = pathfinder.geometry();
        spawned += cells.len();
        for cell in cells {
            commands.spawn(crowd_unit(cell, geometry, speed.0));
        }
    }
    if spawned > 0 {
        notices.write(Notice::info(format!("{spawned} units spawned")));
    } else if asked {
        // Other controls are none of this system's business.
        notices.write(Notice::warning(format!("no room for more units ({MAX_CROWD} at most)")));
    }
}

/// Sends `unit` to `target`: with `shared`, along the goal's flow field, else on a route of
/// its own from the planning queue.
pub(crate) fn give_order(
    commands: &mut Commands,
    unit: Entity,
    target: Target,
    shared: bool,
    status: &mut UnitStatus,
) {
    let mut entity = commands.entity(unit);
    entity.insert(target);
    if shared {
        entity.insert(FlowFollower);
        entity.insert(Waypoints::default());
        *status = UnitStatus::Walking;
    } else {
        entity.remove::<FlowFollower>();
        entity.insert(NeedsRoute);
        // `resolve_goals` queues the route request.
        *status = UnitStatus::Planning;
    }
}

/// Asks the planning queue for a route for `unit` from its cell to `goal`.
pub(crate) fn request_route(
    queue: &mut PlanQueue,
    stats: &mut CrowdStats,
    entity: Entity,
    unit: &Unit,
    goal: Pos,
    waypoints: &mut Waypoints,
    status: &mut UnitStatus,
) {
    waypoints.clear();
    *status = UnitStatus::Planning;
    stats.route_requests += 1;
    queue.request(PlanRequest { unit: entity, from: unit.cell, to: goal });
}

/// A new map: the old fields are meaningless.
fn forget_fields(mut fields: ResMut<FlowFields>) {
    fields.0.clear();
}

/// Brings every unit's goal cell up to date (the main goal moves with its marker); a unit
/// whose goal changed walks again, and a unit with its own route asks for a new one.
fn resolve_goals(
    mut commands: Commands,
    pathfinder: Res<Pathfinder>,
    mut queue: ResMut<PlanQueue>,
    mut stats: ResMut<CrowdStats>,
    mut units: Query<(
        Entity,
        &Unit,
        &mut CrowdUnit,
        &Target,
        &mut Waypoints,
        &mut UnitStatus,
        Has<FlowFollower>,
        Has<NeedsRoute>,
    )>,
) {
    for (entity, unit, mut crowd, target, mut waypoints, mut status, follows, ordered) in &mut units {
        let goal = match *target {
            Target::MainGoal => pathfinder.goal(),
            Target::Cell(cell) => cell,
        };
        if crowd.goal == goal && !ordered {
            continue;
        }
        if ordered {
            commands.entity(entity).remove::<NeedsRoute>();
        }
        let new_goal = crowd.goal != goal;
        *crowd = CrowdUnit::new(goal);
        if follows {
            *status = UnitStatus::Walking;
        } else {
            // A unit that had a route re-routes; a first route is not a re-route.
            if new_goal && !ordered && !waypoints.is_empty() {
                stats.route_reroutes += 1;
            }
            request_route(&mut queue, &mut stats, entity, unit, goal, &mut waypoints, &mut status);
        }
    }
}

/// Creates the flow field of every goal units follow, rebuilds (in place) those the map
/// changed under, and drops those nobody follows.
fn update_flow_fields(
    pathfinder: Res<Pathfinder>,
    mut fields: ResMut<FlowFields>,
    mut stats: ResMut<CrowdStats>,
    units: Query<&CrowdUnit, With<FlowFollower>>,
) {
    let rules = pathfinder.settings().rules;
    let grid = pathfinder.grid();
    for shared in fields.0.values_mut() {
        shared.followers = 0;
    }
    // Most followers share one goal: count runs of the same goal without hashing each unit.
    let mut run: Option<(Pos, usize)> = None;
    let count = |fields: &mut FlowFields, goal: Pos, n: usize| {
        let shared = fields.0.entry((goal, rules)).or_insert_with(|| SharedField {
            field: None,
            problem: None,
            built: u64::MAX,
            followers: 0,
        });
        shared.followers += n;
    };
    for crowd in &units {
        match &mut run {
            Some((goal, n)) if *goal == crowd.goal => *n += 1,
            _ => {
                if let Some((goal, n)) = run {
                    count(&mut fields, goal, n);
                }
                run = Some((crowd.goal, 1));
            }
        }
    }
    if let Some((goal, n)) = run {
        count(&mut fields, goal, n);
    }
    fields.0.retain(|_, shared| shared.followers > 0);
    for (&(goal, rules), shared) in &mut fields.0 {
        if shared.built == grid.revision() {
            continue;
        }
        shared.built = grid.revision();
        stats.field_builds += 1;
        if shared.field.is_some() {
            stats.flow_reroutes += shared.followers as u64;
        }
        let result = if let Some(field) = shared.field.as_mut() {
            // Same goal and rules: rebuild in place, reusing the field's memory.
            field.rebuild(grid)
        } else {
            FlowField::dijkstra(grid, goal, rules).map(|field| shared.field = Some(field))
        };
        shared.problem = result.err().map(|error| error.to_string());
    }
}

/// Which cells the edits of this frame touched: a stamp per cell, so checking a route costs
/// one array read per waypoint however many cells were edited.
#[derive(Default)]
struct EditedCells {
    stamp: Vec<u32>,
    width: u32,
    current: u32,
    all: bool,
}

impl EditedCells {
    fn mark(&mut self, grid: &Grid, edits: &[MapEdited]) {
        let len = grid.len();
        if self.stamp.len() != len || self.width != grid.width() || self.current == u32::MAX {
            self.stamp = vec![0; len];
            self.width = grid.width();
            self.current = 0;
        }
        self.current += 1;
        self.all = false;
        for edit in edits {
            match edit {
                MapEdited::All => self.all = true,
                MapEdited::Cells(cells) => {
                    for cell in cells.iter().filter(|c| grid.in_bounds(**c)) {
                        let index = cell.y as usize * self.width as usize + cell.x as usize;
                        self.stamp[index] = self.current;
                    }
                }
            }
        }
    }

    fn touches(&self, cell: Pos) -> bool {
        self.all
            || self.stamp.get(cell.y as usize * self.width as usize + cell.x as usize) == Some(&self.current)
    }
}

/// Re-plans exactly the units with their own route whose remaining route crosses a cell an
/// edit changed (and those stopped without a route, which an edit may have freed); on a
/// settings change, every unit with its own route.
fn reroute_units(
    pathfinder: Res<Pathfinder>,
    mut edits: MessageReader<MapEdited>,
    mut queue: ResMut<PlanQueue>,
    mut stats: ResMut<CrowdStats>,
    mut edited: Local<EditedCells>,
    mut planned_with: Local<Option<Settings>>,
    mut units: Query<(Entity, &Unit, &CrowdUnit, &mut Waypoints, &mut UnitStatus), Without<FlowFollower>>,
) {
    let edits: Vec<MapEdited> = edits.read().cloned().collect();
    let settings = *pathfinder.settings();
    let new_settings = planned_with.is_some_and(|s| s != settings);
    *planned_with = Some(settings);
    if edits.is_empty() && !new_settings {
        return;
    }
    edited.mark(pathfinder.grid(), &edits);
    for (entity, unit, crowd, mut waypoints, mut status) in &mut units {
        let stale = match *status {
            UnitStatus::Planning => false,
            UnitStatus::NoPath(_) => true,
            UnitStatus::Walking => new_settings || waypoints.iter().any(|w| edited.touches(w.cell)),
            UnitStatus::Arrived => new_settings && unit.cell != crowd.goal,
        };
        if stale {
            stats.route_reroutes += 1;
            request_route(&mut queue, &mut stats, entity, unit, crowd.goal, &mut waypoints, &mut status);
        }
    }
}

/// Gives units the routes the planning queue found; a route that no longer fits (the unit was
/// given another goal, or was pushed off its start) is asked for again.
fn take_planned_routes(
    pathfinder: Res<Pathfinder>,
    mut planned: MessageReader<RoutePlanned>,
    mut queue: ResMut<PlanQueue>,
    mut stats: ResMut<CrowdStats>,
    mut units: Query<(&Unit, &CrowdUnit, &mut Waypoints, &mut UnitStatus), Without<FlowFollower>>,
) {
    let geometry = pathfinder.geometry();
    let rules = pathfinder.settings().rules;
    for route in planned.read() {
        let request = route.request;
        let Ok((unit, crowd, mut waypoints, mut status)) = units.get_mut(request.unit) else { continue };
        if *status != UnitStatus::Planning || crowd.goal != request.to {
            continue;
        }
        match &route.result {
            Ok(cells) => {
                let rest = cells.get(1..).unwrap_or_default();
                let joins = unit.cell == request.from
                    || rest.first().is_some_and(|&next| {
                        next == unit.cell || pathfinder.grid().can_step(unit.cell, next, rules)
                    });
                if !joins {
                    request_route(
                        &mut queue,
                        &mut stats,
                        request.unit,
                        unit,
                        crowd.goal,
                        &mut waypoints,
                        &mut status,
                    );
                    continue;
                }
                let rest = rest.iter().skip_while(|&&c| c == unit.cell);
                waypoints.0 =
                    rest.map(|&cell| Waypoint { cell, point: geometry.cell_center(cell) }).collect();
                *status = UnitStatus::Walking;
            }
            Err(error) => *status = UnitStatus::NoPath(error.to_string()),
        }
    }
}
