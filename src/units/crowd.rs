//! Crowds: many units on the map besides the lab's unit. `U` spawns one at the cursor,
//! `Shift+U` a hundred at random free cells; all of them head for the main goal until ordered
//! elsewhere (right-click with units selected, see the selection plugin).
//!
//! Crowd units are `bevy_gridpath` users: units that share a goal follow one shared flow field
//! ([`FollowFlowField`]: the main goal's crowd and every order given to two or more units); a
//! unit ordered alone asks for a route of its own ([`PathRequest`]), planned by the plugin in
//! batches off the frame. The plugin rebuilds fields on an edit and re-plans exactly the routes
//! an edit crosses; this plugin keeps every unit's goal and rules in step with the main goal
//! and the settings. How units move is the steering plugin's job.

use bevy::prelude::*;
use bevy_gridpath::{FollowFlowField, GridPathSystems, PathRequest, PathStatus, Waypoints};
use gridpath::{FlowField, Grid, Pos, Rules};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::AppSystems;
use crate::edit::files::LoadMapSystems;
use crate::edit::paint::EditSystems;
use crate::input::bindings::{Control, ControlSystems, control_sent};
use crate::input::pointer::HoverTile;
use crate::map::geometry::Geometry;
use crate::map::problem::{SearchProblem, SmoothRoutes};
use crate::notice::Notice;
use crate::units::lab::{Speed, Unit, UnitLook, UnitSpeed};

/// Units `Shift+U` spawns.
pub const CROWD_SPAWN: usize = 100;
/// Most crowd units the keys spawn (more is a benchmark's business, not a player's).
pub const MAX_CROWD: usize = 20_000;
/// Depth of crowd units: above the markers, below the lab's unit.
const CROWD_Z: f32 = 2.5;
/// How crowd units are drawn: smaller than the lab's unit, tinted.
pub(crate) const CROWD_LOOK: UnitLook = UnitLook { scale: 0.7, color: Color::srgb(0.55, 0.80, 1.0) };

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<CrowdSeed>();
    app.add_systems(
        Update,
        (
            spawn_unit_at_cursor.run_if(control_sent(Control::SpawnUnit)),
            spawn_crowd.run_if(on_message::<Control>),
        )
            .in_set(AppSystems::RecordInput)
            .after(ControlSystems)
            .after(EditSystems)
            .after(LoadMapSystems),
    );
    app.add_systems(Update, resolve_goals.in_set(AppSystems::Plan).before(GridPathSystems::Request));
}

/// A crowd unit. Its [`Target`] says where it goes; with a [`FollowFlowField`] it follows its
/// goal's shared flow field, with a [`PathRequest`] it walks its own [`Waypoints`].
#[derive(Component, Debug, Clone, Copy)]
#[require(Target, UnitLook = CROWD_LOOK)]
pub struct CrowdUnit {
    /// The goal cell it heads for now (the main goal's cell for [`Target::MainGoal`]).
    pub(crate) goal: Pos,
    /// The smallest flow-field distance to the goal it reached so far.
    pub(crate) best: f32,
    /// Tiles it could have walked since it last got closer to the goal.
    pub(crate) stalled: f32,
    /// Its distance to go where it first arrived round the goal (infinity: not arrived yet):
    /// pushed away from there and from its group's ring by passers, it walks back
    /// (`gridpath::avoid::displaced`).
    pub(crate) landed: f32,
    /// Its velocity last frame, in tiles per second, x right and y down (local avoidance
    /// starts from it).
    pub(crate) velocity: Vec2,
    /// The velocity local avoidance last planned for it (`Body::planned`): it keeps to it on
    /// the frames it does not plan.
    pub(crate) planned: Vec2,
}

impl CrowdUnit {
    /// A unit heading for `goal`.
    pub(crate) fn new(goal: Pos) -> Self {
        Self {
            goal,
            best: f32::INFINITY,
            stalled: 0.0,
            landed: f32::INFINITY,
            velocity: Vec2::ZERO,
            planned: Vec2::ZERO,
        }
    }

    /// The goal cell it heads for.
    pub fn goal(&self) -> Pos {
        self.goal
    }

    /// Its velocity last frame, in tiles per second, x right and y down.
    pub fn velocity(&self) -> Vec2 {
        self.velocity
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

/// The seed of the next `Shift+U` crowd; it grows by one per crowd, so a session is
/// reproducible.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq)]
pub struct CrowdSeed(pub u64);

impl Default for CrowdSeed {
    fn default() -> Self {
        Self(1)
    }
}

/// A crowd unit standing on `cell`, heading for the main goal along the shared flow field
/// (its goal and rules are filled in before the plugin reads them).
pub fn crowd_unit(cell: Pos, geometry: Geometry, speed: f32) -> impl Bundle {
    (
        Name::new("Crowd unit"),
        CrowdUnit::new(cell),
        Unit::new(cell),
        Target::MainGoal,
        FollowFlowField::new(cell),
        Speed(speed),
        Transform::from_translation(geometry.cell_center(cell).extend(CROWD_Z)),
    )
}

/// A crowd unit standing on `cell` with a route of its own to `goal` (scenario batches: every
/// unit has another goal), planned by the plugin with the current settings.
pub fn routed_crowd_unit(cell: Pos, goal: Pos, geometry: Geometry, speed: f32) -> impl Bundle {
    (
        Name::new("Crowd unit"),
        CrowdUnit::new(goal),
        Unit::new(cell),
        Target::Cell(goal),
        PathRequest::new(goal),
        Speed(speed),
        Transform::from_translation(geometry.cell_center(cell).extend(CROWD_Z)),
    )
}

fn spawn_unit_at_cursor(
    mut commands: Commands,
    hover: Res<HoverTile>,
    problem: SearchProblem,
    speed: Res<UnitSpeed>,
    units: Query<(), With<CrowdUnit>>,
    mut notices: MessageWriter<Notice>,
) {
    let Some(cell) = hover.0 else {
        notices.write(Notice::warning("point at a map cell to spawn a unit there"));
        return;
    };
    if !problem.grid().is_passable(cell) {
        notices.write(Notice::warning("units can't stand in a wall"));
    } else if units.iter().len() >= MAX_CROWD {
        notices.write(Notice::warning(format!("the crowd is full ({MAX_CROWD} units)")));
    } else {
        commands.spawn(crowd_unit(cell, problem.geometry(), speed.0));
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
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    if cells.is_empty() {
        return Vec::new();
    }
    (0..count).map(|_| cells[rng.random_range(0..cells.len())]).collect()
}

fn spawn_crowd(
    mut commands: Commands,
    mut controls: MessageReader<Control>,
    problem: SearchProblem,
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
        let grid = problem.grid();
        let cells = spawn_cells(grid, problem.goal(), problem.settings().rules);
        let cells = random_cells(&cells, CROWD_SPAWN.min(room), seed.0);
        seed.0 += 1;
        let geometry = problem.geometry();
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

/// Sends `unit` to `target`: with `shared`, along the goal's shared flow field, else on a route
/// of its own. [`resolve_goals`] fills in the goal and the rules.
pub(crate) fn give_order(commands: &mut Commands, unit: Entity, target: Target, shared: bool) {
    let mut entity = commands.entity(unit);
    entity.insert(target);
    let goal = match target {
        Target::Cell(cell) => cell,
        // Any cell: the main goal is filled in before the plugin reads it.
        Target::MainGoal => Pos::new(0, 0),
    };
    if shared {
        entity.remove::<PathRequest>().insert((FollowFlowField::new(goal), Waypoints::default()));
    } else {
        entity.remove::<FollowFlowField>().insert(PathRequest::new(goal));
    }
    entity.insert(PathStatus::Planning);
}

/// Brings every unit's goal and rules up to date (the main goal moves with its marker, the
/// settings change): a flow follower switches to the field of its goal, a unit with its own
/// route changes its request, which the plugin plans again. Only real changes are written.
fn resolve_goals(
    problem: SearchProblem,
    smooth: Res<SmoothRoutes>,
    mut units: Query<(
        &mut CrowdUnit,
        &Target,
        Option<&mut FollowFlowField>,
        Option<&mut PathRequest>,
        &mut PathStatus,
    )>,
) {
    let settings = *problem.settings();
    for (mut crowd, target, follow, request, mut status) in &mut units {
        let goal = match *target {
            Target::MainGoal => problem.goal(),
            Target::Cell(cell) => cell,
        };
        if crowd.goal != goal {
            *crowd = CrowdUnit::new(goal);
            if *status == PathStatus::Arrived {
                *status = PathStatus::Following;
            }
        }
        if let Some(mut follow) = follow {
            follow.set_if_neq(FollowFlowField { rules: settings.rules, ..FollowFlowField::new(goal) });
        }
        if let Some(mut request) = request {
            request.set_if_neq(PathRequest { goal, settings, smooth: smooth.0 });
        }
    }
}
