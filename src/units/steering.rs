//! Steering: how crowd units move. Each frame every crowd unit seeks the centre of its next
//! cell (its flow field's next step, or its next waypoint; a flow follower whose cell sees its
//! goal in a straight line seeks the goal itself) at its [`Speed`] divided by the
//! terrain cost underfoot, and is pushed apart from units closer than two body radii
//! (neighbours found in `gridpath::avoid::Buckets`, one bucket per map cell), so units never stack on
//! one point. A unit arrives on its goal cell's centre, or when, held up, it touches a unit that
//! already arrived there and stands beside it along the way (`gridpath::avoid::beside_along_way`) — within the
//! reach of the ring the arrived units fill, measured along the field
//! (`gridpath::avoid::within_ring`): arrivals settle around the goal instead of on it, and the
//! ring never grows back out through a door while the room still holds it. A follower pushed
//! away from its ring by passers walks back (`gridpath::avoid::displaced`), or lands where its
//! own ring keeps it out (`gridpath::avoid::land_in_ring`).
//!
//! With [`CrowdAvoidance`] on (the default; `O` toggles it) the push is replaced by local
//! avoidance (`gridpath::avoid`, ORCA): each unit picks the velocity nearest the one it wants
//! that keeps it clear of its neighbours and the walls, then a positional pass removes what
//! overlap is left, so bodies never overlap each other or a wall and streams meeting head-on
//! form lanes. Arrived units keep avoiding with no wish of their own: they give way to units
//! passing through, and a unit stuck among them for 3 s where none has room to give trades
//! places with the one in its way (`Avoidance::pass_through`). Units the plugin's `Mover`
//! walks (the lab's unit, 2x2 and 3x3 units) are bodies too, with their real radii: the crowd steers clear of them and is pushed out of them
//! as of a body that does not give way, and a walker stops short of any unit on its way and of
//! the other walkers (its `Mover::limit`, set before it moves): it waits for them to clear
//! instead of walking over them. Arrived crowd units step aside for it.
//!
//! A unit only ever changes cell by a legal step of the movement rules (the same rule every
//! search uses), so no push and no seek ever takes it into a wall, across a cut corner the
//! rules forbid, or onto another terrain class.

use bevy::prelude::*;
use bevy_gridpath::{
    Avoid, AvoidFrame, FieldLookup, FlowFields, FollowFlowField, GoalCounts, GoalSight, GridPathSystems,
    Mover, PathRequest, PathStatus, SightChecks, Waypoints, map_chunks,
};
use gridpath::avoid::{
    Avoidance, Body, Contact, Held, Touch, displaced, land_in_ring, ring_reach, split_direction, step_aim,
};
use gridpath::{Grid, Pos, Rules};

use crate::AppSystems;
use crate::input::bindings::{Control, ControlSystems, control_sent};
use crate::map::geometry::TILE_SIZE;
use crate::map::problem::SearchProblem;
use crate::notice::Notice;
use crate::units::big::{BigUnit, body_over};
use crate::units::crowd::CrowdUnit;
use crate::units::lab::{Speed, Unit};

/// Radius of a crowd unit's body, in tiles: the plugin's one-cell body.
pub use bevy_gridpath::UNIT_RADIUS;
/// Closest two unit centres come before they push each other apart, in tiles.
const SPACING: f32 = 2.0 * UNIT_RADIUS;
/// An arrived unit this close (centre to centre, in tiles) makes a unit with the same goal
/// arrive too.
const TOUCH: f32 = SPACING * 1.15;
/// A unit this close to its goal cell's centre has arrived, in tiles.
const ARRIVE_RADIUS: f32 = 0.3;
/// The most a unit is pushed per frame, in tiles (a dense crowd relaxes over a few frames
/// instead of jumping).
const MAX_PUSH: f32 = 0.15;
/// Neighbours a unit is pushed by, at most: a pile-up of thousands on a few cells (a spawn
/// on a tiny map) costs linear time, not quadratic, while it spreads out.
const MAX_NEIGHBOURS: usize = 24;
/// Tiles a unit could have walked without getting closer to its goal while it touches an arrived
/// unit with the same goal before it gives up and arrives too (a jam at the goal, not a stream
/// passing by).
const STALL_TILES: f32 = 1.5;
/// Tiles closer to its goal than ever before that count as progress (and reset the stall).
const PROGRESS: f32 = 0.25;
/// How far from a cell's border a unit stays, in tiles: world positions round-trip to the
/// same cell whatever the float rounding.
const EDGE: f32 = 1e-3;
/// Share of an overlap each of the two units corrects per frame.
const PUSH_SHARE: f32 = 0.5;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<CrowdAvoidance>().init_resource::<WalkersInTheWay>();
    // No crowd, no work: bucketing is a pass over every cell, too much per frame on a big map.
    // After the plugin moved its walkers: the crowd avoids them where they are now.
    app.add_systems(
        Update,
        steer_crowd
            .run_if(any_with_component::<CrowdUnit>)
            .in_set(AppSystems::Move)
            .after(GridPathSystems::Move),
    );
    app.add_systems(
        Update,
        yield_walkers
            .run_if(resource_equals(CrowdAvoidance(true)))
            .in_set(AppSystems::Move)
            .before(GridPathSystems::Move),
    );
    app.add_systems(
        Update,
        // After the keys and the panel's buttons became controls: the press counts this frame.
        toggle_avoidance
            .run_if(control_sent(Control::ToggleAvoidance))
            .after(ControlSystems)
            .in_set(AppSystems::RecordInput),
    );
}

/// Whether crowd units avoid each other and the walls (ORCA, `gridpath::avoid`) or are only
/// pushed apart where they overlap.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq, Deref, DerefMut)]
pub struct CrowdAvoidance(pub bool);

impl Default for CrowdAvoidance {
    fn default() -> Self {
        Self(true)
    }
}

fn toggle_avoidance(mut avoidance: ResMut<CrowdAvoidance>, mut notices: MessageWriter<Notice>) {
    avoidance.0 = !avoidance.0;
    notices.write(Notice::info(if avoidance.0 {
        "crowd avoidance: on (units steer clear of each other and the walls)"
    } else {
        "crowd avoidance: off (units are only pushed apart)"
    }));
}

/// Local avoidance's bodies and results, kept between frames so it allocates nothing in the
/// steady state.
#[derive(Default)]
struct AvoidScratch {
    bodies: Vec<Body>,
    /// Velocities and new centres, worked out on the compute pool.
    frame: AvoidFrame,
    /// The plugin's walkers this frame, appended after the crowd's bodies.
    walkers: Vec<Body>,
    /// The same walkers as agents, appended after the crowd's.
    walker_agents: Vec<Agent>,
    /// The same walkers' entities.
    walker_entities: Vec<Entity>,
}

/// Walkers that a stalled crowd unit cannot get out of the way of (a unit in a dead-end
/// corner that the walker, waiting for it, stands at the mouth of): each backs up a little
/// next frame. Written by [`steer_crowd`], read by [`yield_walkers`].
#[derive(Resource, Debug, Default, Clone, PartialEq, Eq, Deref, DerefMut)]
pub struct WalkersInTheWay(Vec<Entity>);

/// Share of its speed a walker backs up at to let a unit out.
const BACK_UP_SHARE: f32 = 0.5;

/// Radius of the body of a unit `size` cells wide that the plugin's `Mover` walks: its square
/// less the margin a one-cell crowd unit has ([`UNIT_RADIUS`] for size 1), as the plugin's
/// [`Avoid`] sizes it.
pub fn walker_radius(size: u8) -> f32 {
    Avoid::for_agent_size(size).radius
}

/// Units the plugin's `Mover` walks (the lab's unit, large units): bodies the crowd avoids.
type WalkerQuery<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static Transform,
        &'static Mover,
        &'static Waypoints,
        &'static PathStatus,
        Option<&'static PathRequest>,
        Option<&'static BigUnit>,
    ),
    (With<Unit>, Without<CrowdUnit>),
>;

/// The walkers as bodies where their `Mover` took them this frame, that do not take part in
/// avoiding: the crowd avoids them entirely and the positional pass never moves them.
///
/// Each also comes as an [`Agent`] (into `agents`): a crowd unit that touches a walker standing
/// arrived on the crowd's goal arrives too, as it would on touching an arrived crowd unit.
fn walker_bodies(
    walkers: &WalkerQuery,
    (grid, space, fields): (&Grid, GridSpace, &FlowFields),
    (out, agents, entities): (&mut Vec<Body>, &mut Vec<Agent>, &mut Vec<Entity>),
) {
    out.clear();
    agents.clear();
    entities.clear();
    for (entity, transform, mover, waypoints, status, request, big) in walkers {
        entities.push(entity);
        let cost =
            mover.next().or(mover.cell()).and_then(|c| grid.tile(c)).and_then(|t| t.cost()).unwrap_or(1);
        let speed = mover.speed / f32::from(cost.max(1));
        let position = space.to_grid(transform.translation.truncate());
        // The velocity it means to walk at, even while it waits for the way to clear: units in
        // its way (arrived ones included) see it coming and step aside.
        let velocity = match waypoints.front() {
            Some(next) if !mover.hold => (space.to_grid(next.point) - position).normalize_or_zero() * speed,
            _ => Vec2::ZERO,
        };
        out.push(Body {
            position,
            velocity,
            planned: velocity,
            preferred: velocity,
            radius: walker_radius(big.map_or(1, |big| big.size)),
            max_speed: speed,
            moving: false,
            stuck: 0.0,
            group: 0,
            distance: f32::INFINITY,
        });
        let cell = cell_of(position, grid).unwrap_or(Pos::new(0, 0));
        let arrived = *status == PathStatus::Arrived;
        let goal = request.map_or(cell, |r| r.goal);
        // How far from the goal it stopped, on the crowd's field for that goal (a walker that
        // arrived in the jam before the goal lets the units behind it arrive too).
        let follow = FollowFlowField {
            rules: request.map_or(Rules::OCTILE, |r| r.settings.rules),
            ..FollowFlowField::new(goal)
        };
        let distance = fields.field(&follow).and_then(|f| f.distance(cell)).map_or(0.0, |d| d as f32);
        agents.push(Agent {
            pos: position,
            cell,
            goal,
            arrived,
            distance: if arrived { distance } else { f32::INFINITY },
            landed: distance,
        });
    }
}

/// Every walker stops short of the bodies in its way this frame (crowd units and the other
/// walkers, where they stand before anyone moves): its [`Mover::limit`] is how far it can go
/// towards its next waypoint before it would touch one it is not already moving away from. A
/// walker held up by an arrived crowd unit on its own goal has arrived too — the jam at the
/// goal that crowd units end in the same way — so it never pushes through an arrived crowd
/// and never blocks the units queueing behind it.
fn yield_walkers(
    time: Res<Time>,
    problem: SearchProblem,
    in_the_way: Res<WalkersInTheWay>,
    mut walkers: Query<
        (
            Entity,
            &Transform,
            &mut Mover,
            &mut Waypoints,
            &mut PathStatus,
            Option<&PathRequest>,
            Option<&BigUnit>,
        ),
        Without<CrowdUnit>,
    >,
    crowd: Query<(&Transform, &PathStatus, &CrowdUnit)>,
) {
    let space = GridSpace { half: problem.geometry().world_size() / 2.0 };
    let others: Vec<(Entity, Vec2, f32)> = walkers
        .iter()
        .map(|(entity, transform, .., big)| {
            (
                entity,
                space.to_grid(transform.translation.truncate()),
                walker_radius(big.map_or(1, |b| b.size)),
            )
        })
        .collect();
    let size = (problem.grid().width(), problem.grid().height());
    for (entity, transform, mut mover, mut waypoints, mut status, request, big) in &mut walkers {
        let Some(next) = waypoints.front() else { continue };
        let at = space.to_grid(transform.translation.truncate());
        let body = big.map_or(1, |b| b.size);
        let radius = walker_radius(body);
        let direction = (space.to_grid(next.point) - at).normalize_or_zero();
        if mover.hold || direction == Vec2::ZERO {
            continue;
        }
        // A crowd unit's goal is this walker's when the walker's body would stand over it.
        let its_goal = |goal: Pos| request.is_some_and(|r| body_over(goal, body, size) == r.goal);
        let bodies = crowd
            .iter()
            .map(|(t, status, unit)| {
                let arrived_here = *status == PathStatus::Arrived && its_goal(unit.goal());
                (space.to_grid(t.translation.truncate()), UNIT_RADIUS, arrived_here)
            })
            .chain(others.iter().filter(|o| o.0 != entity).map(|o| (o.1, o.2, false)));
        let (limit, jammed) =
            bodies.clone().fold((f32::INFINITY, false), |(limit, jammed), (centre, other, arrived)| {
                let run = free_run(at, direction, centre, radius + other);
                if run < limit { (run, arrived) } else { (limit, jammed) }
            });
        if jammed && limit <= JAM_RUN {
            waypoints.clear();
            *status = PathStatus::Arrived;
            mover.limit = None;
            continue;
        }
        let mut limit = limit.is_finite().then_some(limit);
        // Only with the unit ahead: a walker with its way clear walks on and frees it so.
        if in_the_way.contains(&entity) && limit.is_some_and(|run| run < IN_THE_WAY) {
            // Held up by a unit that cannot get out of its way: step back, as far as the
            // bodies behind allow.
            let room = bodies.fold(f32::INFINITY, |room, (centre, other, _)| {
                room.min(free_run(at, -direction, centre, radius + other))
            });
            let back = (mover.speed * BACK_UP_SHARE * time.delta_secs()).min(room);
            if back > 0.0 {
                limit = Some(-back);
            }
        }
        if mover.limit != limit {
            mover.limit = limit;
        }
    }
}

/// A walker this close (tiles of free run) to an arrived crowd unit on its goal has arrived.
const JAM_RUN: f32 = 0.05;

/// How far a body at `at` can go along `direction` (unit length) before its centre comes
/// within `reach` of `centre`: infinite when it passes clear or moves away, zero when it is
/// already that close and moving closer.
fn free_run(at: Vec2, direction: Vec2, centre: Vec2, reach: f32) -> f32 {
    let to = centre - at;
    let along = to.dot(direction);
    if along <= 0.0 {
        return f32::INFINITY;
    }
    let distance_sq = to.length_squared();
    if distance_sq < reach * reach {
        return 0.0;
    }
    // Where the ray meets the circle of radius `reach` about `centre`, if it does.
    let miss_sq = distance_sq - along * along;
    if miss_sq >= reach * reach {
        return f32::INFINITY;
    }
    (along - (reach * reach - miss_sq).sqrt()).max(0.0)
}

/// The velocity a unit at `me` wants towards `target` (its next cell, a far waypoint or the
/// goal it sees), at most `speed` tiles per second and no farther than the target in one frame.
fn preferred_velocity(grid: &Grid, me: Agent, target: Option<Pos>, speed: f32, dt: f32) -> Vec2 {
    let Some(target) = target else { return Vec2::ZERO };
    // The goal itself is aimed at its centre, where the unit arrives.
    let adjacent = target != me.cell
        && target != me.goal
        && target.x.abs_diff(me.cell.x) <= 1
        && target.y.abs_diff(me.cell.y) <= 1;
    let aim = if adjacent { step_aim(grid, me.pos, UNIT_RADIUS, me.cell, target) } else { center(target) };
    let towards = aim - me.pos;
    towards.normalize_or_zero() * speed.min(towards.length() / dt.max(1e-4))
}

/// A crowd unit as the neighbours see it this frame.
#[derive(Clone, Copy, Debug)]
struct Agent {
    /// Position in grid space: x to the right, y down, one unit per tile; the cell is the floor.
    pos: Vec2,
    cell: Pos,
    goal: Pos,
    arrived: bool,
    /// A walker's field distance from its cell when it arrived (0 where its field does not
    /// reach that cell), else infinity. A crowd unit's is read from its field only when asked
    /// ([`agent_distance`]): read for every unit as they were gathered, the field's word was a
    /// cache miss on the serial path (the units come in no order of place).
    distance: f32,
    /// A crowd unit's way to go where it first arrived ([`CrowdUnit`]'s), a walker's
    /// `distance`: how far its goal's ring reaches.
    landed: f32,
}

/// Buffers kept between frames so steering allocates nothing in the steady state.
#[derive(Default)]
struct Scratch {
    agents: Vec<Agent>,
    /// Per crowd agent (same order), what its wish is worked out from if it follows a flow
    /// field.
    followers: Vec<Option<Follower>>,
    /// Per crowd agent, its wish this frame if it follows a flow field.
    wishes: Vec<Option<Wish>>,
    /// The crowd agents on routes of their own (not following a field), and their entities.
    routed: Vec<(usize, Entity)>,
    /// The agents bucketed by cell (neighbours for the push and the arrival touch) and, with
    /// avoidance on, its bodies: bucketed once a frame for both.
    avoidance: Avoidance,
    /// Per goal, the agents arrived there and all the agents bound there: how far its arrival
    /// ring reaches now, and once all are there.
    rings: GoalCounts,
}

/// The centre of `cell` in grid space.
fn center(cell: Pos) -> Vec2 {
    Vec2::new(cell.x as f32 + 0.5, cell.y as f32 + 0.5)
}

/// The cell containing the grid-space point `p`, or `None` off the map.
fn cell_of(p: Vec2, grid: &Grid) -> Option<Pos> {
    let inside = p.x >= 0.0 && p.y >= 0.0 && p.x < grid.width() as f32 && p.y < grid.height() as f32;
    // The range check makes both casts exact and in range.
    inside.then(|| Pos::new(p.x as u32, p.y as u32))
}

/// Where a unit in `cell` at `from` ends up when it tries to move to `to`: the whole move if it
/// stays in `cell` or enters a cell by a legal step; else the move along one axis only; else a
/// step towards its cell's centre (always legal), at most `step` long.
fn settle(grid: &Grid, rules: Rules, cell: Pos, from: Vec2, to: Vec2, step: f32) -> (Vec2, Pos) {
    let candidates = [to, Vec2::new(to.x, from.y), Vec2::new(from.x, to.y)];
    for candidate in candidates {
        if let Some(next) = cell_of(candidate, grid)
            && (next == cell || grid.can_step(cell, next, rules))
        {
            return (candidate, next);
        }
    }
    (from + (center(cell) - from).clamp_length_max(step), cell)
}

/// The crowd's components steering reads and writes.
type CrowdQuery<'w, 's> = Query<
    'w,
    's,
    (
        &'static mut Unit,
        &'static mut CrowdUnit,
        &'static mut Transform,
        &'static mut PathStatus,
        &'static mut Waypoints,
        &'static Speed,
        Option<&'static FollowFlowField>,
        Option<&'static mut PathRequest>,
        Entity,
    ),
>;

/// Grid space (x right, y down, one unit per tile) to and from world space.
#[derive(Clone, Copy)]
struct GridSpace {
    half: Vec2,
}

impl GridSpace {
    fn to_grid(self, world: Vec2) -> Vec2 {
        Vec2::new(world.x + self.half.x, self.half.y - world.y) / TILE_SIZE
    }

    fn to_world(self, p: Vec2) -> Vec2 {
        Vec2::new(p.x * TILE_SIZE - self.half.x, self.half.y - p.y * TILE_SIZE)
    }
}

/// Moves every crowd unit one frame: seek the next cell, keep apart, arrive, never leave the
/// legal cells.
fn steer_crowd(
    time: Res<Time>,
    problem: SearchProblem,
    (fields, avoidance): (Res<FlowFields>, Res<CrowdAvoidance>),
    mut units: CrowdQuery,
    walkers: WalkerQuery,
    mut scratch: Local<Scratch>,
    mut sight: Local<GoalSight>,
    mut avoid: Local<AvoidScratch>,
    mut blocking: ResMut<WalkersInTheWay>,
) {
    let grid = problem.grid();
    let rules = problem.settings().rules;
    let space = GridSpace { half: problem.geometry().world_size() / 2.0 };
    let dt = time.delta_secs();
    sight.on(problem.nav(), &fields);
    if avoidance.0 {
        let AvoidScratch { walkers: bodies, walker_agents, walker_entities, .. } = &mut *avoid;
        walker_bodies(&walkers, (grid, space, &fields), (bodies, walker_agents, walker_entities));
    } else {
        avoid.walkers.clear();
        avoid.walker_agents.clear();
        avoid.walker_entities.clear();
    }
    gather_agents(&mut scratch, &units, (grid, space), &avoid.walker_agents);
    if avoidance.0 {
        let AvoidScratch { bodies, walkers: walker_bodies, .. } = &mut *avoid;
        // The followers' bodies come with their wishes, the other units' after them.
        follower_wishes(&mut scratch, (&fields, &mut sight, grid), dt, Some(bodies));
        route_bodies(&scratch, (grid, rules), dt, &mut units, bodies);
        bodies.extend_from_slice(walker_bodies);
        avoid_and_move(&mut scratch, &mut avoid, grid, dt, &mut units, space);
        let in_the_way = walkers_in_the_way(&scratch.avoidance, &avoid, grid, dt);
        if **blocking != in_the_way {
            **blocking = in_the_way;
        }
    } else {
        follower_wishes(&mut scratch, (&fields, &mut sight, grid), dt, None);
        push_and_move(&scratch, (grid, rules, space), dt, &mut units);
        if !blocking.is_empty() {
            blocking.clear();
        }
    }
}

/// With avoidance off: every unit seeks its next cell and is pushed apart from the units it
/// overlaps, then takes the legal part of that move (`settle`).
fn push_and_move(
    scratch: &Scratch,
    (grid, rules, space): (&Grid, Rules, GridSpace),
    dt: f32,
    units: &mut CrowdQuery,
) {
    for (i, (mut unit, mut crowd, mut transform, mut status, mut waypoints, speed, _, request, _)) in
        units.iter_mut().enumerate()
    {
        let me = scratch.agents[i];
        let push = separation(scratch, i);
        let cost = grid.tile(me.cell).and_then(|t| t.cost()).unwrap_or(1);
        let step = speed.0 / f32::from(cost) * dt;
        let target = if let Some(wish) = &scratch.wishes[i] {
            apply_wish(wish, me, (&mut *crowd, &mut status, &mut waypoints));
            wish.target
        } else {
            let route = (&mut *crowd, &mut status, &mut waypoints, request);
            route_step(grid, rules, me, route, speed.0 / f32::from(cost), dt, false).0
        };
        if crowd.planned != Vec2::ZERO {
            // Pushed, not planned: when avoidance comes back on, no unit coasts on a velocity
            // planned before it went off (`Body::planned`).
            crowd.planned = Vec2::ZERO;
        }
        let seek = target.map_or(Vec2::ZERO, |cell| (center(cell) - me.pos).clamp_length_max(step));
        let wanted = me.pos + seek + push.clamp_length_max(MAX_PUSH);
        if wanted != me.pos {
            let (pos, cell) = settle(grid, rules, me.cell, me.pos, wanted, step.max(MAX_PUSH));
            place_unit(&mut unit, &mut transform, space, (pos, cell), seek);
        }
    }
}

/// A flow follower's wish, applied to its components.
fn apply_wish(
    wish: &Wish,
    me: Agent,
    (crowd, status, waypoints): (&mut CrowdUnit, &mut Mut<PathStatus>, &mut Mut<Waypoints>),
) {
    crowd.best = wish.best;
    crowd.stalled = wish.stalled;
    crowd.landed = wish.landed;
    if let Some(new) = &wish.status {
        **status = new.clone();
    }
    if wish.arrived && !me.arrived {
        waypoints.clear();
    }
}

/// A unit on a route of its own this frame: the cell it heads for, its status on arriving, its
/// stall count; with `preferred`, the velocity it wants (else zero).
fn route_step(
    grid: &Grid,
    rules: Rules,
    me: Agent,
    (crowd, status, waypoints, request): (
        &mut CrowdUnit,
        &mut Mut<PathStatus>,
        &mut Mut<Waypoints>,
        Option<Mut<PathRequest>>,
    ),
    speed: f32,
    dt: f32,
    preferred: bool,
) -> (Option<Pos>, bool, Vec2) {
    let mut target = None;
    let mut arrived = me.arrived;
    if !arrived && matches!(**status, PathStatus::Following | PathStatus::Partial) {
        // A partial route's end is not the goal: the unit stands there, still partial.
        let (next, done) = waypoint_target(grid, rules, me.cell, waypoints, request);
        target = next;
        arrived = (done && **status == PathStatus::Following)
            || (target == Some(crowd.goal)
                && me.cell == crowd.goal
                && me.pos.distance(center(me.cell)) <= ARRIVE_RADIUS);
    }
    if arrived && !me.arrived {
        **status = PathStatus::Arrived;
        waypoints.clear();
        target = None;
    }
    let preferred = if preferred { preferred_velocity(grid, me, target, speed, dt) } else { Vec2::ZERO };
    // On a route of its own a unit has no field distance to measure progress by: it counts as
    // stalled while it makes almost no headway (avoidance jostles it, idle units make room for
    // it).
    if preferred != Vec2::ZERO && crowd.velocity.dot(preferred) < 0.1 * preferred.length_squared() {
        crowd.stalled += speed * dt;
    } else {
        crowd.stalled = 0.0;
    }
    (target, arrived, preferred)
}

/// The bodies of the crowd's units on routes of their own (the followers' came with their
/// wishes), each at `bodies[i]` for crowd agent `i`; their route steps are applied.
fn route_bodies(
    scratch: &Scratch,
    (grid, rules): (&Grid, Rules),
    dt: f32,
    units: &mut CrowdQuery,
    bodies: &mut [Body],
) {
    for &(i, entity) in &scratch.routed {
        // Gathered from this query this frame: it is there.
        let Ok((_, mut crowd, _, mut status, mut waypoints, speed, _, request, _)) = units.get_mut(entity)
        else {
            continue;
        };
        let me = scratch.agents[i];
        let cost = f32::from(grid.tile(me.cell).and_then(|t| t.cost()).unwrap_or(1));
        let route = (&mut *crowd, &mut status, &mut waypoints, request);
        let (target, arrived, preferred) = route_step(grid, rules, me, route, speed.0 / cost, dt, true);
        // No field to measure the way left by: it never queues (`Body::distance`).
        let motion = Motion { top_speed: speed.0, cost, velocity: crowd.velocity, planned: crowd.planned };
        bodies[i] = crowd_body(
            me,
            motion,
            (crowd.stalled, preferred, f32::INFINITY),
            target.is_some() || arrived,
            grid,
        );
    }
}

/// What a crowd unit's body is made of besides its wish: its speed and last velocities.
#[derive(Clone, Copy, Debug)]
struct Motion {
    /// Its speed on open ground, and the cost of the cell it stands on.
    top_speed: f32,
    cost: f32,
    /// [`CrowdUnit`]'s.
    velocity: Vec2,
    planned: Vec2,
}

impl Motion {
    /// Its speed on the cell it stands on, in tiles per second.
    fn speed(self) -> f32 {
        self.top_speed / self.cost
    }
}

/// Crowd unit `me`'s body for avoidance, with its stall count, the velocity it wants and its
/// way left; `moving` when it heads somewhere or has arrived. Arrived units wish for nothing but
/// still avoid: they give way to passers. A unit with nowhere to go (no route yet, no way to
/// its goal) stands its ground.
fn crowd_body(
    me: Agent,
    motion: Motion,
    (stalled, preferred, distance): (f32, Vec2, f32),
    moving: bool,
    grid: &Grid,
) -> Body {
    Body {
        position: me.pos,
        velocity: motion.velocity,
        planned: motion.planned,
        preferred,
        radius: UNIT_RADIUS,
        max_speed: motion.speed(),
        moving,
        // Tiles it could have walked without getting closer, at its speed on this cell (how
        // they were counted): seconds stuck.
        stuck: stalled * motion.cost / motion.top_speed.max(f32::EPSILON),
        // Units sent to one goal are a group: they never make room for each other.
        group: me.goal.y.wrapping_mul(grid.width()).wrapping_add(me.goal.x).wrapping_add(1),
        distance,
    }
}

/// The walkers that alone hold up a stalled crowd unit within [`IN_THE_WAY`] of their body,
/// even seen standing where they stand (`Avoidance::holds_up`, after this frame's
/// velocities).
fn walkers_in_the_way(avoidance: &Avoidance, avoid: &AvoidScratch, grid: &Grid, dt: f32) -> Vec<Entity> {
    let AvoidScratch { bodies, frame, walker_entities, .. } = avoid;
    let velocities = frame.velocities();
    let crowd = bodies.len() - walker_entities.len();
    let mut found = Vec::new();
    for (k, &entity) in walker_entities.iter().enumerate() {
        let walker = bodies[crowd + k];
        let reach = walker.radius + UNIT_RADIUS + IN_THE_WAY;
        let holds_up = avoidance
            .near(walker.position, reach)
            .filter(|&i| i < crowd)
            .any(|i| avoidance.holds_up(bodies, grid, crowd + k, (i, velocities[i]), dt));
        if holds_up {
            found.push(entity);
        }
    }
    found
}

/// How far apart (beyond touching, in tiles) a walker may hold up a unit: a unit sees a
/// walker close to it as coming its way, so a walker backing up lets it out only once it has
/// backed up far enough (ORCA's linear constraint is cautious at close range).
const IN_THE_WAY: f32 = 1.0;

/// Local avoidance for the bodies gathered this frame (the crowd's, then the walkers'):
/// velocities on the compute task pool, then the positional pass, then every unit placed where
/// it ended up, with its wish applied if it follows a field.
fn avoid_and_move(
    scratch: &mut Scratch,
    avoid: &mut AvoidScratch,
    grid: &Grid,
    dt: f32,
    units: &mut CrowdQuery,
    space: GridSpace,
) {
    let AvoidScratch { bodies, frame, .. } = avoid;
    let Scratch { avoidance, agents, wishes, .. } = scratch;
    // The bodies stand where the agents were bucketed this frame. The walkers (after the
    // crowd's bodies) are not moving: they stay where their Mover took them.
    frame.run(avoidance, bodies, grid, dt);
    let (velocities, positions) = (frame.velocities(), frame.positions());
    for (i, (mut unit, mut crowd, mut transform, mut status, mut waypoints, ..)) in
        units.iter_mut().enumerate()
    {
        if let Some(wish) = &wishes[i] {
            apply_wish(wish, agents[i], (&mut *crowd, &mut status, &mut waypoints));
        }
        let (body, pos) = (bodies[i], positions[i]);
        crowd.velocity = avoidance.walked(i, (body.position, pos), velocities[i], dt);
        crowd.planned = velocities[i];
        if pos != body.position {
            // The positional pass keeps a centre in its cell or a legal step away.
            let cell = cell_of(pos, grid).unwrap_or(unit.cell);
            place_unit(&mut unit, &mut transform, space, (pos, cell), body.preferred);
        }
    }
}

/// Where everyone is, bucketed by cell: the crowd's agents, then the `walkers`.
fn gather_agents(
    scratch: &mut Scratch,
    units: &CrowdQuery,
    (grid, space): (&Grid, GridSpace),
    walkers: &[Agent],
) {
    let (width, height) = (grid.width(), grid.height());
    scratch.agents.clear();
    scratch.followers.clear();
    scratch.routed.clear();
    for (unit, crowd, transform, status, _, speed, follow, _, entity) in units {
        let cell = Pos::new(unit.cell.x.min(width - 1), unit.cell.y.min(height - 1));
        if follow.is_none() {
            scratch.routed.push((scratch.agents.len(), entity));
        }
        scratch.followers.push(follow.map(|&follow| {
            let cost = grid.tile(cell).and_then(|t| t.cost()).unwrap_or(1);
            Follower {
                follow,
                motion: Motion {
                    top_speed: speed.0,
                    cost: f32::from(cost),
                    velocity: crowd.velocity,
                    planned: crowd.planned,
                },
                best: crowd.best,
                stalled: crowd.stalled,
                landed: crowd.landed,
                following: *status == PathStatus::Following,
                failed: matches!(status, PathStatus::Failed(_)),
            }
        }));
        scratch.agents.push(Agent {
            pos: space.to_grid(transform.translation.truncate()),
            // A unit on a cell of a map that shrank is put back on the map.
            cell,
            goal: crowd.goal,
            arrived: *status == PathStatus::Arrived,
            distance: f32::INFINITY,
            landed: crowd.landed,
        });
    }
    scratch.agents.extend_from_slice(walkers);
    scratch.avoidance.bucket(scratch.agents.iter().map(|a| a.pos), grid);
    scratch.rings.count(scratch.agents.iter().map(|a| (a.goal, a.arrived.then_some(a.landed))));
}

/// The agents agent `i` touches (its nearest, up to [`MAX_NEIGHBOURS`]).
fn touching(scratch: &Scratch, i: usize) -> impl Iterator<Item = (usize, Agent)> + '_ {
    let p = scratch.agents[i].pos;
    scratch
        .avoidance
        .near(p, TOUCH)
        .take(MAX_NEIGHBOURS + 1)
        .filter(move |&j| j != i)
        .map(|j| (j, scratch.agents[j]))
        .filter(move |(_, other)| p.distance_squared(other.pos) < TOUCH * TOUCH)
}

/// The push keeping agent `i` apart from its neighbours.
fn separation(scratch: &Scratch, i: usize) -> Vec2 {
    let me = scratch.agents[i];
    let mut push = Vec2::ZERO;
    for (j, other) in touching(scratch, i) {
        let apart = me.pos - other.pos;
        let distance_sq = apart.length_squared();
        if distance_sq < SPACING * SPACING {
            let distance = distance_sq.sqrt();
            let away = if distance > 1e-4 { apart / distance } else { split_direction(i, j) };
            push += away * (SPACING - distance) * PUSH_SHARE;
        }
    }
    push
}

/// What agent `i` touches ([`Touch`]): an arrived unit with its goal that stands beside it along
/// the way (`beside_along_way`), if any, and whether every unit it touches has arrived.
fn touches_arrived(scratch: &Scratch, fields: &mut FieldLookup, i: usize, grid: &Grid) -> Option<Touch> {
    let me = scratch.agents[i];
    if me.arrived {
        return None;
    }
    let cost = |cell| grid.tile(cell).and_then(|t| t.cost()).unwrap_or(1);
    let mine = agent_distance(scratch, fields, i);
    let contacts = touching(scratch, i).map(|(j, other)| Contact {
        position: other.pos,
        arrived: other.arrived,
        same_goal: other.goal == me.goal,
        distance: agent_distance(scratch, fields, j),
        cost: cost(me.cell).max(cost(other.cell)),
        touch: TOUCH,
    });
    Touch::among(me.pos, mine, contacts)
}

/// How far agent `i` has to go: a flow follower's field distance from its cell (infinity when
/// its field does not reach it: the touch alone counts, `beside_along_way`), a walker's
/// [`Agent::distance`]; infinity for a crowd unit on a route of its own.
fn agent_distance(scratch: &Scratch, fields: &mut FieldLookup, i: usize) -> f32 {
    // Past the crowd's agents come the walkers, with no follower entry.
    let Some(follower) = scratch.followers.get(i) else { return scratch.agents[i].distance };
    follower
        .and_then(|follower| fields.shared(&follower.follow))
        .and_then(|shared| shared.field.as_ref())
        .and_then(|field| field.distance(scratch.agents[i].cell))
        .map_or(f32::INFINITY, |d| d as f32)
}

/// What a flow follower's wish is worked out from, gathered with the agents: its wish then
/// needs no access to its components, so the crowd's followers can be split over threads.
#[derive(Clone, Copy, Debug)]
struct Follower {
    follow: FollowFlowField,
    /// What its body is made of besides its wish.
    motion: Motion,
    /// [`CrowdUnit`]'s progress so far, and where it first arrived.
    best: f32,
    stalled: f32,
    landed: f32,
    /// Its status is `Following`; `Failed`.
    following: bool,
    failed: bool,
}

/// A flow follower's wish this frame, applied to its components afterwards.
#[derive(Clone, Debug)]
struct Wish {
    /// The cell it heads for (none when it arrived or has nowhere to go).
    target: Option<Pos>,
    /// Its progress after this frame, and where it first arrived.
    best: f32,
    stalled: f32,
    landed: f32,
    /// It is (or just became) arrived.
    arrived: bool,
    /// Its new status, if it changes.
    status: Option<PathStatus>,
    /// The velocity it wants (local avoidance only).
    preferred: Vec2,
    /// How far it still has to go: its field's distance from the cell it heads for plus the
    /// way to that cell's centre (infinity when it heads nowhere). Avoidance queues a
    /// stream by it (`Body::distance`).
    remaining: f32,
}

/// Flow followers in each chunk of the wishes ([`map_chunks`]), each with its share of the
/// frame's sight checks.
const WISH_CHUNK: usize = 512;

/// Works out the wishes of the flow followers among the crowd's agents into
/// `scratch.wishes`, over the compute pool; the sight checks the tasks make (each its share of
/// the frame's budget) are remembered afterwards. With `bodies` (avoidance on), each wish comes
/// with the velocity it wants and the follower's body at its index (the other units' places
/// are left for [`route_bodies`]).
fn follower_wishes(
    scratch: &mut Scratch,
    (fields, sight, grid): (&FlowFields, &mut GoalSight, &Grid),
    dt: f32,
    bodies: Option<&mut Vec<Body>>,
) {
    let mut wishes = std::mem::take(&mut scratch.wishes);
    wishes.clear();
    wishes.resize(scratch.followers.len(), None);
    let with_preferred = bodies.is_some();
    let mut no_bodies = Vec::new();
    let bodies = bodies.unwrap_or(&mut no_bodies);
    bodies.clear();
    if with_preferred {
        bodies.resize(wishes.len(), Body::new(Vec2::ZERO, UNIT_RADIUS, 0.0));
    }
    // Each chunk of wishes with its chunk of bodies, if any: one task writes both.
    let body_chunks = bodies.chunks_mut(WISH_CHUNK).map(Some).chain(std::iter::repeat_with(|| None));
    let mut parts: Vec<_> = wishes.chunks_mut(WISH_CHUNK).zip(body_chunks).collect();
    let (scratch_ref, sight_ref) = (&*scratch, &*sight);
    let (checks, followers) = (sight.checks_left(), scratch.followers.len().max(1));
    let made = map_chunks(&mut parts, 1, |chunk, part| {
        // One part per call: this chunk's wishes and bodies.
        let (out, bodies) = &mut part[0];
        let mut lookup = FieldLookup::new(fields);
        // This chunk's share of the frame's sight checks.
        let mut sights = SightChecks::new(checks * out.len() / followers);
        for (k, wish) in out.iter_mut().enumerate() {
            let i = chunk * WISH_CHUNK + k;
            let (me, follower) = (scratch_ref.agents[i], scratch_ref.followers[i]);
            *wish = follower.map(|follower| {
                let context = (&mut lookup, sight_ref, &mut sights, grid);
                follower_wish(context, scratch_ref, i, follower, dt, with_preferred)
            });
            if let Some(bodies) = bodies {
                bodies[k] = match (&*wish, follower) {
                    (Some(wish), Some(follower)) => {
                        let way = (wish.stalled, wish.preferred, wish.remaining);
                        let moving = wish.target.is_some() || wish.arrived;
                        crowd_body(me, follower.motion, way, moving, grid)
                    }
                    // Standing where it is until `route_bodies` gives it its body.
                    _ => Body::new(me.pos, UNIT_RADIUS, 0.0),
                };
            }
        }
        sights.made
    });
    scratch.wishes = wishes;
    for (&key, &seen) in made.iter().flatten() {
        sight.remember(key, seen);
    }
}

/// The wish of crowd agent `i`, a flow follower: its next cell from its shared field (its goal
/// straight on from a cell that sees it, its own cell on the goal), its progress, whether it
/// arrives, and the velocity it wants (`with_preferred`); a field that cannot lead it there
/// gives it the field's failure.
fn follower_wish<'a>(
    (fields, sight, sights, grid): (&mut FieldLookup, &'a GoalSight, &mut SightChecks<'a>, &Grid),
    scratch: &Scratch,
    i: usize,
    follower: Follower,
    dt: f32,
    with_preferred: bool,
) -> Wish {
    let me = scratch.agents[i];
    let mut wish = Wish {
        target: None,
        best: follower.best,
        stalled: follower.stalled,
        landed: follower.landed,
        arrived: me.arrived,
        status: None,
        preferred: Vec2::ZERO,
        remaining: f32::INFINITY,
    };
    let goal = me.goal;
    // Every followed goal has a field entry: the plugin updated them this frame.
    let shared = fields.shared(&follower.follow);
    // Pushed away from its group's ring (of all the units bound for its goal) by passers, it
    // walks back instead of standing where the push left it.
    // (Worked out only when asked: most followers walk on, or stand arrived where they landed.)
    let ring_extent = || {
        let group = scratch.rings.get(goal).1;
        shared
            .map_or_else(|| ring_reach(group, UNIT_RADIUS), |shared| shared.ring_reach(group, UNIT_RADIUS))
            .max(scratch.rings.farthest(goal))
    };
    if me.arrived {
        let here = agent_distance(scratch, fields, i);
        if !(here.is_finite() && displaced(follower.landed, ring_extent(), here)) {
            return wish;
        }
        // Walking back: its progress starts afresh.
        wish.arrived = false;
        wish.best = f32::INFINITY;
        wish.stalled = 0.0;
        wish.status = Some(PathStatus::Following);
    }
    let mut target = shared.and_then(|shared| {
        let target = match shared.field.as_ref().and_then(|f| f.next_step(me.cell)) {
            // From a cell that sees the goal, straight at it: a crowd on open ground streams in
            // straight lines instead of the field's 45° and 90° stair-steps.
            Some(next) => {
                let seen = sights.sees(sight, grid, (me.cell, goal, follower.follow.rules));
                if seen == Some(true) { Some(goal) } else { Some(next) }
            }
            None if me.cell == goal && shared.problem.is_none() => Some(me.cell),
            None => {
                if !follower.failed {
                    wish.status = Some(PathStatus::Failed(shared.failure(me.cell)));
                }
                None
            }
        };
        if target.is_some() && !follower.following {
            wish.status = Some(PathStatus::Following);
        }
        target
    });
    // Its way left: the field's distance from the cell it heads for, and on to that cell's
    // centre — measured within a cell too, unlike its own cell's distance, so a unit inching
    // forward in a dense crowd is not taken for one held up.
    let field = shared.and_then(|shared| shared.field.as_ref());
    #[expect(clippy::cast_possible_truncation, reason = "tiles on a map")]
    let to_go = target
        .and_then(|t| {
            field.and_then(|f| f.distance(t)).map(|ahead| ahead as f32 + me.pos.distance(center(t)))
        })
        .unwrap_or_else(|| agent_distance(scratch, fields, i));
    // Progress: a quarter tile closer to the goal than ever before resets the stall.
    if to_go < wish.best - PROGRESS {
        wish.best = to_go;
        wish.stalled = 0.0;
    } else {
        wish.stalled += follower.motion.speed() * dt;
    }
    // Held up by the units arrived round its goal: arrived too, but only within their ring's
    // reach along the field (so the ring never grows back out through a door while the room
    // holds it), or after a long wait within the reach of its whole group packed loosely, or
    // with no way round the ring.
    let in_ring = || {
        let counts = scratch.rings.get(goal);
        let reach =
            |n| shared.map_or_else(|| ring_reach(n, UNIT_RADIUS), |shared| shared.ring_reach(n, UNIT_RADIUS));
        let heading = target.map_or(Vec2::ZERO, |t| (center(t) - me.pos).normalize_or_zero());
        let held =
            Held { position: me.pos, heading, distance: to_go, stalled: wish.stalled, radius: UNIT_RADIUS };
        // One pushed away from its ring walks all the way back before it arrives again, or lands
        // where its own ring keeps it out (`land_in_ring`).
        let (landed, extent) = (wish.landed, ring_extent());
        land_in_ring(grid, held, counts, reach, (landed, extent), || {
            touches_arrived(scratch, fields, i, grid)
        })
    };
    let on_goal =
        target == Some(goal) && me.cell == goal && me.pos.distance(center(me.cell)) <= ARRIVE_RADIUS;
    // Where it lands held up by the ring, if it does (on its goal it lands there: 0).
    let landed = (!on_goal && target.is_some() && wish.stalled >= STALL_TILES).then(in_ring).flatten();
    wish.arrived = on_goal || landed.is_some();
    if wish.arrived {
        wish.status = Some(PathStatus::Arrived);
        wish.landed = landed.unwrap_or(0.0);
        target = None;
    }
    wish.target = target;
    if with_preferred {
        wish.preferred = preferred_velocity(grid, me, target, follower.motion.speed(), dt);
        if target.is_some() {
            wish.remaining = to_go;
        }
    }
    wish
}

/// A routed unit's next waypoint cell, and whether it has arrived (no waypoint left). A unit
/// pushed off its route asks the plugin for a new one from where it stands.
fn waypoint_target(
    grid: &Grid,
    rules: Rules,
    cell: Pos,
    waypoints: &mut Waypoints,
    request: Option<Mut<PathRequest>>,
) -> (Option<Pos>, bool) {
    // Entered a waypoint's cell: aim for the one after it.
    while waypoints.len() > 1 && waypoints.front().is_some_and(|w| w.cell == cell) {
        waypoints.pop_front();
    }
    match waypoints.front().map(|w| w.cell) {
        // A smoothed route's next corner may be far: a straight line of sight leads there.
        Some(next)
            if next == cell || grid.can_step(cell, next, rules) || grid.line_of_sight(cell, next, rules) =>
        {
            (Some(next), false)
        }
        Some(_) => {
            if let Some(mut request) = request {
                request.set_changed();
            }
            (None, false)
        }
        None => (None, true),
    }
}

/// Puts a unit at `pos` in `cell` (grid space), kept off the cell's border, facing its seek.
fn place_unit(
    unit: &mut Unit,
    transform: &mut Transform,
    space: GridSpace,
    (pos, cell): (Vec2, Pos),
    seek: Vec2,
) {
    let corner = Vec2::new(cell.x as f32, cell.y as f32);
    let pos = pos.clamp(corner + EDGE, corner + (1.0 - EDGE));
    // Grid space has y down; the heading is in world space.
    let heading = Vec2::new(seek.x, -seek.y).normalize_or_zero();
    if heading != Vec2::ZERO {
        unit.heading = heading;
    }
    if unit.cell != cell {
        unit.cell = cell;
    }
    let world = space.to_world(pos);
    transform.translation.x = world.x;
    transform.translation.y = world.y;
}
