//! Local avoidance for [`Mover`]s: entities with an [`Avoid`] steer clear of each other and of
//! the walls (ORCA and a positional pass, [`gridpath::avoid`]) on their way along their
//! [`Waypoints`] or down their [`FollowFlowField`], instead of walking from cell centre to cell
//! centre through each other. Movers without an [`Avoid`] are obstacles to them, with the
//! radius of their body's size, seen walking the way they walk: avoiders in their way step aside
//! in time (an obstacle never gives way; a game that wants its movers to wait for avoiders
//! sets their [`Mover::limit`]).
//!
//! Each frame, after the plugin walked the other movers: every avoider works out where it aims
//! (its next waypoint, its field's next step, or straight for its field's goal once it sees
//! it), whether it has arrived (on its goal, or
//! stalled against a unit that arrived there before it: a crowd with one goal settles around
//! it, not on one point; a follower pushed away from that ring by passers walks back,
//! [`gridpath::avoid::displaced`], or lands where its own ring keeps it out,
//! [`gridpath::avoid::land_in_ring`]), and the velocity it wants; then [`gridpath::avoid`] picks the velocities
//! (on the compute task pool) and parts what overlap is left (an avoider stuck for 3 s trades
//! places with another group's idle unit in its way, or one face to face with it:
//! [`gridpath::avoid::Avoidance::pass_through`]); every avoider is put where it ended up. A
//! body only ever changes cell by a legal step and never overlaps a wall.

use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use gridpath::avoid::{
    Avoidance, AvoidanceSettings, Body, Contact, Held, Touch, displaced, land_in_ring, ring_reach, step_aim,
};
use gridpath::{Grid, Pos, SQRT2};

use crate::GridPathSystems;
use crate::chunks::map_chunks;
use crate::flow::{FieldLookup, FlowFields, FollowFlowField, GoalSight, SharedField, SightChecks};
use crate::mover::{Mover, follow_flow_fields, follow_waypoints};
use crate::nav::{GridLayout, NavGrid, NavVersion};
use crate::plan::{PathFailure, PathRequest, PathStatus, Waypoints};

pub(crate) fn plugin(app: &mut App) {
    app.init_resource::<LocalAvoidance>();
    // After the other movers walked: avoiders keep clear of them where they are now.
    app.add_systems(
        Update,
        steer_avoiders.in_set(GridPathSystems::Move).after(follow_waypoints).after(follow_flow_fields),
    );
}

/// Radius of a one-cell unit's body, in tiles: a little narrower than its cell, so two pass side
/// by side in a corridor two cells wide and one passes a one-cell door.
pub const UNIT_RADIUS: f32 = 0.3;

/// Local avoidance, beside a [`Mover`] (with a [`PathRequest`](crate::PathRequest) or a
/// [`FollowFlowField`]): the plugin steers it clear of the other avoiders, of every other
/// mover and of the walls, while [`LocalAvoidance`] is on. Its body is a circle of
/// [`Avoid::radius`] tiles.
///
/// ```
/// use bevy_gridpath::prelude::*;
///
/// assert_eq!(Avoid::default().radius, 0.3);
/// // A 2x2 unit: its square less the margin a one-cell unit has.
/// assert_eq!(Avoid::for_agent_size(2).radius, 0.8);
/// ```
#[derive(Component, Debug, Clone, Copy, PartialEq)]
pub struct Avoid {
    /// Radius of the body, in tiles.
    pub radius: f32,
    /// Velocity last frame, in tiles per second (grid space: x right, y down).
    velocity: Vec2,
    /// The velocity avoidance last planned for it ([`Body::planned`]).
    planned: Vec2,
    /// Tiles it could have walked, at its speed, since it last got closer to its goal.
    stalled: f32,
    /// The least distance to go it has had since its route last changed, in tiles.
    best: f32,
    /// Its distance to go where it first arrived round its goal since it was sent there, in
    /// tiles (infinity: not arrived yet): pushed away from there and from its group's ring
    /// by passers, it walks back (`gridpath::avoid::displaced`).
    landed: f32,
    /// Where it was last sent (its route's end or its field's goal) on which grid: another
    /// order, or an edit that may lengthen its way, starts its progress afresh.
    order: Option<(Pos, NavVersion)>,
    /// Its goal was taken away (its follow component removed): one given back is a new order.
    lost: bool,
    /// The way from its next waypoint to the end of its route, in tiles, and the route's length
    /// and next cell it was measured for: measured again only when they change.
    tail: (f32, usize, Option<Pos>),
}

impl Default for Avoid {
    fn default() -> Self {
        Self::new(UNIT_RADIUS)
    }
}

impl Avoid {
    /// A body of `radius` tiles.
    pub fn new(radius: f32) -> Self {
        Self {
            radius,
            velocity: Vec2::ZERO,
            planned: Vec2::ZERO,
            stalled: 0.0,
            best: f32::INFINITY,
            landed: f32::INFINITY,
            order: None,
            lost: false,
            tail: (0.0, 0, None),
        }
    }

    /// The body of a unit `agent_size` cells wide (1 to 4): its square less the margin a
    /// one-cell unit has ([`UNIT_RADIUS`] for one cell).
    pub fn for_agent_size(agent_size: u8) -> Self {
        Self::new(radius_for_size(agent_size))
    }

    /// The velocity it walked at last frame, in tiles per second (grid space: x right, y
    /// down): its move over the frame, or where it traded places with a unit in its way
    /// ([`Avoidance::pass_through`]), the velocity avoidance planned for it — a trade is no walk.
    pub fn velocity(&self) -> Vec2 {
        self.velocity
    }

    /// Tiles it could have walked, at its speed, since it last got closer to its goal (by
    /// a quarter of a tile).
    pub fn stalled(&self) -> f32 {
        self.stalled
    }

    /// Forgets its velocities and progress (avoidance was off, or it was put down elsewhere),
    /// not its order: the same goal is no new walk (an arrived unit stays arrived, where it
    /// arrived).
    fn forget(&mut self) {
        *self = Self { order: self.order, lost: self.lost, landed: self.landed, ..Self::new(self.radius) };
    }
}

/// The radius of the body of a unit `agent_size` cells wide, in tiles.
fn radius_for_size(agent_size: u8) -> f32 {
    f32::from(agent_size.max(1)) / 2.0 - (0.5 - UNIT_RADIUS)
}

/// Whether [`Avoid`]ers avoid (on by default), and how.
///
/// Off, they walk as any [`Mover`]: from cell centre to cell centre, through each other.
#[derive(Resource, Debug, Clone, Copy, PartialEq)]
pub struct LocalAvoidance {
    /// Whether avoiders avoid.
    pub enabled: bool,
    /// ORCA's tuning: time horizons, neighbours, the positional pass.
    pub settings: AvoidanceSettings,
}

impl Default for LocalAvoidance {
    fn default() -> Self {
        Self { enabled: true, settings: AvoidanceSettings::default() }
    }
}

impl LocalAvoidance {
    /// Whether the plugin steers an entity that has (`has_avoid`) or lacks an [`Avoid`].
    pub(crate) fn steers(&self, has_avoid: bool) -> bool {
        self.enabled && has_avoid
    }
}

/// A unit this close to its goal's centre has arrived, in tiles.
const ARRIVE_RADIUS: f32 = 0.3;
/// Tiles a unit could have walked without getting closer to its goal, touching a unit arrived
/// on its goal, before it arrives there too (a jam at the goal, not a stream passing by).
const STALL_TILES: f32 = 1.5;

/// Touching, for the arrival rule: centres this many times the sum of radii apart.
const TOUCH: f32 = 1.15;
/// Less progress than this (tiles) is none: a unit pressing into the crowd around its goal
/// creeps closer by slivers, and must count as stalled to arrive there.
const PROGRESS: f32 = 0.25;
/// Bodies in each chunk of an avoidance phase ([`map_chunks`]): small, so the threads finish
/// together (a chunk of a dense crowd plans several times as long as one of open ground).
const CHUNK: usize = 256;
/// Followers in each chunk of the wishes, each with its share of the frame's sight checks.
const WISH_CHUNK: usize = 512;
/// Bodies in each chunk of the positional pass's last step, cheap per body.
const SETTLE_CHUNK: usize = 1024;

/// Grid space (x right, y down, one unit per tile, cell `(x, y)` covering `[x, x + 1) × [y, y +
/// 1)`, as [`gridpath::avoid`] works) to and from world space.
#[derive(Clone, Copy)]
struct Space {
    layout: GridLayout,
}

impl Space {
    fn to_grid(self, world: Vec2) -> Vec2 {
        Vec2::new(world.x - self.layout.origin.x, self.layout.origin.y - world.y) / self.layout.tile_size
    }

    fn to_world(self, p: Vec2) -> Vec2 {
        self.layout.origin + Vec2::new(p.x, -p.y) * self.layout.tile_size
    }

    /// The centre of the `size`-cell body whose top-left cell is `anchor`.
    fn body_center(anchor: Pos, size: u8) -> Vec2 {
        Vec2::new(anchor.x as f32, anchor.y as f32) + Vec2::splat(f32::from(size.max(1)) / 2.0)
    }

    /// The top-left cell of the `size`-cell body centred on `p`: the nearest whose square is all
    /// passable, for a large body (a 3x3 or 4x4 body kept clear of the walls as a circle can
    /// have a wall in a corner cell of the square nearest its centre, while a square one cell
    /// over is clear).
    fn anchor_at(p: Vec2, size: u8, grid: &Grid) -> Option<Pos> {
        let corner = p - Vec2::splat(f32::from(size.max(1) - 1) / 2.0);
        let cell = |c: Vec2| {
            let inside = c.x >= 0.0 && c.y >= 0.0 && c.x < grid.width() as f32 && c.y < grid.height() as f32;
            // The range check makes both casts exact and in range.
            inside.then(|| Pos::new(c.x as u32, c.y as u32))
        };
        let base = corner.floor();
        let nearest = cell(base);
        if size <= 2 {
            return nearest;
        }
        let clear = |anchor: Pos| {
            (0..u32::from(size)).all(|dy| {
                (0..u32::from(size)).all(|dx| grid.is_passable(Pos::new(anchor.x + dx, anchor.y + dy)))
            })
        };
        // The squares round the nearest, nearest first (no allocation: a hot path).
        let mut offsets = [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0), (-1.0, 0.0), (0.0, -1.0)]
            .map(|(dx, dy)| base + Vec2::new(dx, dy));
        offsets.sort_by(|a, b| corner.distance_squared(*a).total_cmp(&corner.distance_squared(*b)));
        offsets.into_iter().filter_map(cell).find(|&a| clear(a)).or(nearest)
    }
}

/// Where a body stands this frame, worked out once: its centre (grid space), its size in cells,
/// its anchor (top-left) cell and that cell's terrain cost (at least 1).
#[derive(Clone, Copy, Debug)]
struct Place {
    centre: Vec2,
    size: u8,
    anchor: Option<Pos>,
    cost: u8,
}

/// What the arrival rule needs to know of a body.
#[derive(Clone, Copy, Debug)]
struct Standing {
    goal: Option<Pos>,
    radius: f32,
    arrived: bool,
    /// [`Avoid::landed`], for the rings' extent.
    landed: f32,
    /// The flow field it follows, if any: how far it has to go is read from it only for the
    /// few units held up at a ring and the bodies they touch ([`touches_arrived`]); read
    /// for every unit as they were gathered, the field's word for a unit's cell was a cache
    /// miss on the serial path (the units come in no order of place).
    follow: Option<FollowFlowField>,
    /// The terrain cost of the cell its body stands on (at least 1).
    cost: u8,
    /// Its body's top-left cell (an avoider's; none for an obstacle).
    anchor: Option<Pos>,
}

/// Buffers kept between frames: no allocation in the steady state.
#[derive(Default)]
struct Scratch {
    avoidance: Avoidance,
    centres: Vec<Vec2>,
    standing: Vec<Standing>,
    bodies: Vec<Body>,
    frame: AvoidFrame,
    /// Whether avoidance was off last frame: the avoiders' velocities are stale.
    was_off: bool,
    sight: GoalSight,
    /// Avoiders arrived before this frame, and all avoiders, per goal.
    rings: GoalCounts,
    /// Per avoider, what its flow field wish is worked out from (a walking follower), and
    /// the wish worked out on the compute pool, with the status it leaves the follower in.
    jobs: Vec<Option<FieldJob>>,
    wishes: Vec<Option<(Wish, PathStatus)>>,
}

/// What a walking flow follower's wish is worked out from, gathered with the bodies: the
/// wishes then need no access to components and are split over the compute pool (thousands
/// of followers: their field steps, sight checks and aims are most of a frame's own work).
#[derive(Clone, Debug)]
struct FieldJob {
    follow: FollowFlowField,
    place: Place,
    /// Radius (tiles) and speed (tiles per second).
    body: (f32, f32),
    status: PathStatus,
    /// [`Avoid::landed`].
    landed: f32,
}

/// The avoiders' components the steering reads and writes.
type Avoiders<'w, 's> = Query<
    'w,
    's,
    (
        &'static mut Avoid,
        &'static mut Mover,
        &'static mut Transform,
        &'static mut PathStatus,
        Option<&'static mut Waypoints>,
        Option<Ref<'static, FollowFlowField>>,
        Option<&'static mut PathRequest>,
    ),
>;

/// Movers without an [`Avoid`]: obstacles.
type Obstacles<'w, 's> = Query<
    'w,
    's,
    (&'static Transform, &'static Mover, Option<&'static PathRequest>, Option<&'static FollowFlowField>),
    Without<Avoid>,
>;

/// The terrain cost (at least 1) of the cell a body stands on or steps into, 1 off the grid.
fn cost_at(grid: &Grid, cell: Option<Pos>) -> u8 {
    cell.and_then(|c| grid.tile(c)).and_then(|t| t.cost()).unwrap_or(1).max(1)
}

/// The size in cells of an entity's body.
fn agent_size(request: Option<&PathRequest>, follow: Option<&FollowFlowField>) -> u8 {
    follow.map(|f| f.agent_size).or(request.map(|r| r.settings.agent_size)).unwrap_or(1).max(1)
}

/// Where an avoider aims this frame and what it wants.
#[derive(Clone, Copy, Debug)]
struct Wish {
    /// The point it steers for (grid space), if it walks.
    aim: Option<Vec2>,
    arrived: bool,
    /// How far it has to go (tiles), infinity when not known.
    distance: f32,
    /// Tiles per second on the cell it stands on.
    speed: f32,
}

/// Steers every avoider one frame (see the module doc).
fn steer_avoiders(
    time: Res<Time>,
    nav: Res<NavGrid>,
    fields: Res<FlowFields>,
    local: Res<LocalAvoidance>,
    mut avoiders: Avoiders,
    obstacles: Obstacles,
    mut scratch: Local<Scratch>,
) {
    if !local.enabled {
        scratch.was_off = true;
        return;
    }
    if avoiders.is_empty() {
        return;
    }
    let scratch = &mut *scratch;
    if scratch.avoidance.settings() != local.settings {
        scratch.avoidance = Avoidance::new(local.settings);
    }
    let grid = nav.grid();
    let space = Space { layout: nav.layout() };
    let dt = time.delta_secs();
    let was_off = std::mem::take(&mut scratch.was_off);

    scratch.sight.on(&nav, &fields);
    let mut lookup = FieldLookup::new(&fields);
    // Where everyone stands, the avoiders first (in query order), then the obstacles.
    scratch.centres.clear();
    scratch.standing.clear();
    scratch.jobs.clear();
    for (mut avoid, mover, transform, mut status, _, follow, request) in &mut avoiders {
        if was_off {
            avoid.forget();
        }
        let p = space.to_grid(transform.translation.truncate());
        scratch.centres.push(p);
        // A follow component inserted since the last frame (at spawn, or taken away and given
        // back within a frame) is an order given afresh, as is one given back after frames
        // without (`lost`); an `Avoid` inserted on an arrived unit is not.
        let fresh = avoid.lost || follow.as_ref().is_some_and(Ref::is_added);
        let follow = follow.as_deref();
        let goal = follow.map(|f| f.goal).or(request.as_deref().map(|r| r.goal));
        // A new goal (or a grid edit): its progress starts afresh, and arrived it is not.
        let order = goal.map(|g| (g, nav.version()));
        let new_order = order.is_some() && (fresh || avoid.order.is_some_and(|o| Some(o) != order));
        let new_goal = new_order && (fresh || avoid.order.map(|o| o.0) != goal);
        avoid.lost |= order.is_none() && avoid.order.is_some();
        if avoid.order != order || new_order {
            avoid.order = order;
            if new_order {
                avoid.best = f32::INFINITY;
                avoid.stalled = 0.0;
                avoid.landed = f32::INFINITY;
                avoid.tail = (0.0, 0, None);
                avoid.lost = false;
            }
        }
        let size = agent_size(request.as_deref(), follow);
        let anchor = Space::anchor_at(p, size, grid);
        let cost = cost_at(grid, anchor);
        let mut arrived = *status == PathStatus::Arrived;
        if new_goal && follow.is_some() && arrived {
            // A follower sent on from where it arrived (a routed one is re-planned).
            *status = PathStatus::Following;
            arrived = false;
        }
        scratch.standing.push(Standing {
            goal,
            radius: avoid.radius,
            arrived,
            landed: avoid.landed,
            follow: follow.copied(),
            cost,
            anchor,
        });
        scratch.jobs.push(follow.filter(|_| !mover.hold).map(|&follow| FieldJob {
            follow,
            place: Place { centre: p, size, anchor, cost },
            body: (avoid.radius, mover.speed),
            status: status.clone(),
            landed: avoid.landed,
        }));
    }
    let avoiding = scratch.centres.len();
    for (transform, mover, request, follow) in &obstacles {
        let p = space.to_grid(transform.translation.truncate());
        scratch.centres.push(p);
        let size = agent_size(request, follow);
        // The cell it walks on, or into: its speed there.
        let cell = mover.next().or(mover.cell()).or_else(|| Space::anchor_at(p, size, grid));
        let cost = cost_at(grid, cell);
        scratch.standing.push(Standing {
            goal: None,
            radius: radius_for_size(size),
            arrived: false,
            landed: f32::INFINITY,
            follow: None,
            cost,
            anchor: None,
        });
    }
    scratch.avoidance.bucket(scratch.centres.iter().copied(), grid);
    let max_radius = scratch.standing.iter().map(|s| s.radius).fold(0.0, f32::max);
    // How big the ring round each goal has grown, and grows once all are there.
    scratch
        .rings
        .count(scratch.standing.iter().filter_map(|s| s.goal.map(|g| (g, s.arrived.then_some(s.landed)))));
    field_wishes(scratch, grid, &fields);

    scratch.bodies.clear();
    for (i, (mut avoid, mut mover, _, mut status, mut waypoints, follow, mut request)) in
        avoiders.iter_mut().enumerate()
    {
        let p = scratch.centres[i];
        // Avoidance moves it, not its own walk.
        if mover.limit.is_some() {
            mover.limit = None;
        }
        let size = agent_size(request.as_deref(), follow.as_deref());
        let held = mover.hold;
        let wish = if held {
            Wish { aim: None, arrived: *status == PathStatus::Arrived, distance: f32::INFINITY, speed: 0.0 }
        } else if let Some((wish, new_status)) = scratch.wishes[i].take() {
            if *status == PathStatus::Arrived && !wish.arrived {
                // Walking back to its ring: its progress starts afresh.
                avoid.best = f32::INFINITY;
                avoid.stalled = 0.0;
            }
            status.set_if_neq(new_status);
            wish
        } else if let Some(waypoints) = waypoints.as_mut() {
            let (radius, tail) = (avoid.radius, &mut avoid.tail);
            let me = &scratch.standing[i];
            let place = Place { centre: p, size, anchor: me.anchor, cost: me.cost };
            let mut wish =
                route_wish((grid, space), waypoints, tail, (place, radius, mover.speed), request.as_mut());
            // Arrived, it still avoids: it gives way to passers.
            wish.arrived |= *status == PathStatus::Arrived && wish.aim.is_none();
            wish
        } else {
            Wish { aim: None, arrived: false, distance: f32::INFINITY, speed: 0.0 }
        };
        let mut arrived = wish.arrived;
        // Progress: closer to the goal than ever since its route began.
        if wish.aim.is_some() && wish.distance < avoid.best - PROGRESS {
            avoid.best = wish.distance;
            avoid.stalled = 0.0;
        } else if wish.aim.is_some() {
            avoid.stalled += wish.speed * dt;
        }
        let me = scratch.standing[i];
        // Held up by the ring round its goal: arrived there too. Only within the ring's reach
        // (measured along the field, walls and doors included, for a follower), so the ring
        // never grows back out through a door while the room holds it; after a long wait,
        // within the reach of the whole group packed loosely, or with no way round the ring
        // (`within_ring`).
        let mut landed = None;
        if !arrived && wish.aim.is_some() && avoid.stalled >= STALL_TILES {
            let counts = me.goal.map_or((0, 0), |g| scratch.rings.get(g));
            let field = follow.as_deref().and_then(|f| lookup.shared(f));
            let reach = |n: usize| {
                field.map_or_else(|| ring_reach(n, avoid.radius), |f| f.ring_reach(n, avoid.radius))
            };
            let heading = wish.aim.map_or(Vec2::ZERO, |aim| (aim - p).normalize_or_zero());
            let (distance, stalled) = (wish.distance, avoid.stalled);
            let held = Held { position: p, heading, distance, stalled, radius: avoid.radius };
            // One pushed away from its ring walks all the way back before it arrives again, or
            // lands where its own ring keeps it out (`land_in_ring`).
            let extent = reach(counts.1).max(me.goal.map_or(0.0, |g| scratch.rings.farthest(g)));
            landed = land_in_ring(grid, held, counts, reach, (avoid.landed, extent), || {
                touches_arrived(scratch, &mut lookup, i, max_radius)
            });
            arrived = landed.is_some();
        }
        if arrived && *status != PathStatus::Arrived {
            // Where it arrived: held up on the way, or on its goal (no way left measured).
            avoid.landed = landed.unwrap_or_else(|| {
                avoid.landed.min(if wish.distance.is_finite() { wish.distance } else { 0.0 })
            });
            if let Some(waypoints) = waypoints.as_deref_mut() {
                waypoints.clear();
            }
            // As the plugin's own walk: a partial route's end is not the goal, and hand-made
            // waypoints without a request (planning) end where they end.
            if *status == PathStatus::Following {
                *status = PathStatus::Arrived;
            }
        }
        let aim = if arrived { None } else { wish.aim };
        let preferred = aim.map_or(Vec2::ZERO, |aim| {
            let to = aim - p;
            to.normalize_or_zero() * wish.speed.min(to.length() / dt.max(1e-4))
        });
        let goal = me.goal.unwrap_or(Pos::new(u32::MAX, u32::MAX));
        scratch.bodies.push(Body {
            position: p,
            velocity: avoid.velocity,
            planned: avoid.planned,
            preferred,
            radius: avoid.radius,
            max_speed: wish.speed,
            // Arrived units want nothing but still avoid: they give way to passers. A unit with
            // nowhere to go (no route yet, no way to its goal, held) stands its ground.
            moving: !held && (aim.is_some() || arrived),
            // Seconds stuck, at its speed on this cell.
            stuck: avoid.stalled / wish.speed.max(f32::EPSILON),
            // Units with one goal are a group: they queue, and never make room for each other.
            group: goal.y.wrapping_mul(grid.width()).wrapping_add(goal.x).wrapping_add(1),
            distance: if aim.is_some() { wish.distance } else { f32::INFINITY },
        });
    }
    for (k, (_, mover, ..)) in obstacles.iter().enumerate() {
        let me = &scratch.standing[avoiding + k];
        let position = scratch.centres[avoiding + k];
        let speed = mover.speed / f32::from(me.cost);
        // The velocity it walks at, seen even while a game's own avoidance holds it back
        // (`Mover::limit`): avoiders in its way see it coming and step aside in time, instead of
        // standing until it walks into them and the positional pass shoves them out.
        let walking = !mover.hold && mover.next().is_some();
        let heading = mover.heading();
        let velocity = if walking { Vec2::new(heading.x, -heading.y) * speed } else { Vec2::ZERO };
        // Not moving: it takes no part in avoiding, and nobody trades places with it.
        let body = Body {
            velocity,
            planned: velocity,
            preferred: velocity,
            moving: false,
            ..Body::new(position, me.radius, speed)
        };
        scratch.bodies.push(body);
    }
    debug_assert_eq!(scratch.bodies.len(), scratch.centres.len());

    let Scratch { avoidance, bodies, frame, .. } = scratch;
    frame.run(avoidance, bodies, grid, dt);
    let (velocities, positions) = (frame.velocities(), frame.positions());

    for (i, (mut avoid, mut mover, mut transform, .., follow, request)) in avoiders.iter_mut().enumerate() {
        debug_assert!(i < avoiding);
        let (body, p) = (bodies[i], positions[i]);
        avoid.velocity = avoidance.walked(i, (body.position, p), velocities[i], dt);
        avoid.planned = velocities[i];
        let size = agent_size(request.as_deref(), follow.as_deref());
        let anchor = Space::anchor_at(p, size, grid);
        // Grid space has y down; the heading is in world space.
        let heading = Vec2::new(body.preferred.x, -body.preferred.y).normalize_or_zero();
        // Written only when it differs: a mover left alone is not marked changed.
        let turned = heading != Vec2::ZERO && mover.heading() != heading;
        if turned || mover.next().is_some() || (anchor.is_some() && mover.cell() != anchor) {
            mover.steered(anchor, heading);
        }
        if p != body.position {
            let world = space.to_world(p);
            transform.translation.x = world.x;
            transform.translation.y = world.y;
        }
    }
}

/// Per goal, the units arrived there and all the units bound there: how far the arrival ring
/// round it reaches now, and once all are there ([`gridpath::avoid::within_ring`]'s counts);
/// and the farthest from it (tiles to go) one of its arrived units first arrived: how far the
/// ring itself reaches (walls and passages may take it beyond the counts' reach), past which
/// an arrived unit pushed there walks back ([`gridpath::avoid::displaced`]). Counted once a
/// frame; a run of units bound for one goal (most of a crowd) hashes it once.
///
/// ```
/// use bevy_gridpath::GoalCounts;
/// use bevy_gridpath::gridpath::Pos;
///
/// let (a, b) = (Pos::new(1, 1), Pos::new(5, 5));
/// let mut counts = GoalCounts::default();
/// // Each unit's goal, and where it first arrived (its way to go there), if it has.
/// counts.count([(a, Some(2.0)), (a, None), (b, None), (a, Some(4.5))]);
/// assert_eq!((counts.get(a), counts.get(b), counts.get(Pos::new(0, 0))), ((2, 3), (0, 1), (0, 0)));
/// assert_eq!((counts.farthest(a), counts.farthest(b)), (4.5, 0.0));
/// ```
#[derive(Debug, Default)]
pub struct GoalCounts(HashMap<Pos, Ring>);

/// One goal's [`GoalCounts`]: units arrived, units in all, the farthest first arrival.
#[derive(Clone, Copy, Debug, Default)]
struct Ring {
    landed: usize,
    all: usize,
    farthest: f32,
}

impl GoalCounts {
    /// Counts `units` afresh: each one's goal, and if it has arrived there, its way to go where
    /// it first arrived (0 on the goal; a distance that is not finite counts as 0).
    pub fn count(&mut self, units: impl IntoIterator<Item = (Pos, Option<f32>)>) {
        self.0.clear();
        let mut add = |(goal, ring): (Pos, Ring)| {
            let entry = self.0.entry(goal).or_default();
            entry.landed += ring.landed;
            entry.all += ring.all;
            entry.farthest = entry.farthest.max(ring.farthest);
        };
        let mut run: Option<(Pos, Ring)> = None;
        for (goal, landed) in units {
            let one = Ring {
                landed: usize::from(landed.is_some()),
                all: 1,
                farthest: landed.filter(|d| d.is_finite()).unwrap_or(0.0),
            };
            match &mut run {
                Some((g, ring)) if *g == goal => {
                    ring.landed += one.landed;
                    ring.all += 1;
                    ring.farthest = ring.farthest.max(one.farthest);
                }
                _ => run.replace((goal, one)).into_iter().for_each(&mut add),
            }
        }
        run.into_iter().for_each(add);
    }

    /// The units arrived at `goal`, and all the units bound there.
    pub fn get(&self, goal: Pos) -> (usize, usize) {
        self.0.get(&goal).map_or((0, 0), |ring| (ring.landed, ring.all))
    }

    /// The farthest from `goal` (tiles to go) one of the units arrived there first arrived (0:
    /// none arrived).
    pub fn farthest(&self, goal: Pos) -> f32 {
        self.0.get(&goal).map_or(0.0, |ring| ring.farthest)
    }
}

/// What avoider `i` touches ([`Touch`]): a unit that arrived on its goal and stands beside it
/// along the way (`beside_along_way`), if any, and whether every body it touches has arrived
/// (`max_radius`: the largest body's).
fn touches_arrived(scratch: &Scratch, fields: &mut FieldLookup, i: usize, max_radius: f32) -> Option<Touch> {
    let (p, me) = (scratch.centres[i], scratch.standing[i]);
    // How far a body has to go: its field's distance from its anchor (infinity when not known).
    let mut distance = |body: Standing| {
        body.follow
            .and_then(|f| fields.shared(&f))
            .and_then(|shared| shared.field.as_ref())
            .zip(body.anchor)
            .and_then(|(field, anchor)| field.distance(anchor))
            .map_or(f32::INFINITY, |d| d as f32)
    };
    let mine = distance(me);
    let contacts = scratch.avoidance.near(p, (me.radius + max_radius) * TOUCH).filter_map(|j| {
        let other = scratch.standing[j];
        let touch = (me.radius + other.radius) * TOUCH;
        (j != i && p.distance(scratch.centres[j]) <= touch).then(|| Contact {
            position: scratch.centres[j],
            arrived: other.arrived,
            same_goal: other.goal == me.goal,
            distance: distance(other),
            cost: me.cost.max(other.cost),
            touch,
        })
    });
    Touch::among(p, mine, contacts)
}

/// Works out every walking flow follower's wish ([`field_wish`]) on the compute pool, into
/// `scratch.wishes`; the sight checks the tasks made are remembered after them.
fn field_wishes(scratch: &mut Scratch, grid: &Grid, fields: &FlowFields) {
    let mut wishes = std::mem::take(&mut scratch.wishes);
    wishes.clear();
    wishes.resize(scratch.jobs.len(), None);
    let (jobs, sight, rings) = (&scratch.jobs, &scratch.sight, &scratch.rings);
    let (checks, followers) = (sight.checks_left(), jobs.len().max(1));
    let made = map_chunks(&mut wishes, WISH_CHUNK, |first, out| {
        let mut lookup = FieldLookup::new(fields);
        // This task's share of the frame's sight checks.
        let mut sights = SightChecks::new(checks * out.len() / followers);
        for (wish, job) in out.iter_mut().zip(&jobs[first..]) {
            *wish = job.as_ref().map(|job| {
                let mut status = job.status.clone();
                let shared = lookup.shared(&job.follow);
                let ring = (rings.get(job.follow.goal).1, rings.farthest(job.follow.goal));
                (field_wish((grid, shared, sight, &mut sights), (job, ring), &mut status), status)
            });
        }
        sights.made
    });
    scratch.wishes = wishes;
    for (&key, &seen) in made.iter().flatten() {
        scratch.sight.remember(key, seen);
    }
}

/// A flow follower's wish: its field's next step from the cell its body stands on (its goal's
/// centre on the goal), whether it is there, and the field's failure if it cannot be led
/// (into `status`). An arrived one pushed away from its ring (of the `group` units bound for
/// its goal, the farthest of them `farthest` from it: [`displaced`]) walks back.
fn field_wish<'a>(
    (grid, shared, sight, sights): (&Grid, Option<&SharedField>, &'a GoalSight, &mut SightChecks<'a>),
    (job, (group, farthest)): (&FieldJob, (usize, f32)),
    status: &mut PathStatus,
) -> Wish {
    let (follow, (radius, speed)) = (&job.follow, job.body);
    let (p, size) = (job.place.centre, job.place.size);
    let mut wish =
        Wish { aim: None, arrived: *status == PathStatus::Arrived, distance: f32::INFINITY, speed };
    let Some(anchor) = job.place.anchor else {
        *status = PathStatus::Failed(PathFailure::OffGrid);
        return wish;
    };
    wish.speed = speed / f32::from(job.place.cost);
    let Some(shared) = shared else { return wish };
    let field = shared.field.as_ref();
    if wish.arrived {
        #[expect(clippy::cast_possible_truncation, reason = "tiles on a map")]
        let here = field.and_then(|f| f.distance(anchor)).map(|d| d as f32);
        let reach = shared.ring_reach(group, radius).max(farthest);
        if !here.is_some_and(|here| displaced(job.landed, reach, here)) {
            return wish;
        }
        // Pushed away from where it arrived by passers: it walks back (as a walker it takes
        // a lane against them instead of being shoved on ahead of them).
        wish.arrived = false;
    }
    let next = if anchor == follow.goal {
        shared.problem.is_none().then_some(anchor)
    } else {
        field.and_then(|f| f.next_step(anchor))
    };
    let Some(next) = next else {
        *status = PathStatus::Failed(shared.failure(anchor));
        return wish;
    };
    *status = PathStatus::Following;
    let goal_centre = Space::body_center(follow.goal, size);
    if anchor == follow.goal && p.distance(goal_centre) <= ARRIVE_RADIUS {
        wish.arrived = true;
        return wish;
    }
    // From a cell that sees the goal, straight at it: a crowd on open ground streams in
    // straight lines instead of the field's stair-steps (the field's cells are a large body's
    // top-left cells, whose sight is not one cell's).
    let sees = size == 1
        && next != anchor
        && sights.sees(sight, grid, (anchor, follow.goal, follow.rules)) == Some(true);
    let next = if sees { follow.goal } else { next };
    let aim = if next == anchor || size > 1 || next == follow.goal {
        Space::body_center(next, size)
    } else {
        step_aim(grid, p, radius, anchor, next)
    };
    let ahead = field.and_then(|f| f.distance(next)).map_or(0.0, |d| d as f32);
    wish.distance = ahead + p.distance(Space::body_center(next, size));
    wish.aim = Some(aim);
    wish
}

/// A routed avoider's wish: its next waypoint (the ones whose cell it stands on are passed),
/// whether it reached the last, and the route's length left. A unit pushed off its route,
/// where its next waypoint is no step away, asks for a new route from where it stands.
fn route_wish(
    (grid, space): (&Grid, Space),
    waypoints: &mut Mut<Waypoints>,
    tail: &mut (f32, usize, Option<Pos>),
    (place, radius, speed): (Place, f32, f32),
    request: Option<&mut Mut<PathRequest>>,
) -> Wish {
    let (p, size) = (place.centre, place.size);
    let mut wish = Wish { aim: None, arrived: false, distance: f32::INFINITY, speed };
    let Some(anchor) = place.anchor else { return wish };
    wish.speed = speed / f32::from(place.cost);
    let rules = request.as_ref().map_or(gridpath::Rules::OCTILE, |r| r.settings.rules);
    // Past a waypoint once on its cell, or once the one after it is a legal step away: a
    // unit standing on a waypoint's cell is gone round, not waited for.
    while waypoints.len() > 1 {
        let (first, second) = (waypoints[0].cell, waypoints[1].cell);
        let beside = size == 1
            && second.x.abs_diff(anchor.x) <= 1
            && second.y.abs_diff(anchor.y) <= 1
            && grid.can_step(anchor, second, rules);
        if first != anchor && second != anchor && !beside {
            break;
        }
        waypoints.pop_front();
    }
    let Some(&next) = waypoints.front() else { return wish };
    let point = space.to_grid(next.point);
    if waypoints.len() == 1 && next.cell == anchor && p.distance(point) <= ARRIVE_RADIUS {
        waypoints.clear();
        wish.arrived = true;
        return wish;
    }
    let adjacent = next.cell.x.abs_diff(anchor.x) <= 1 && next.cell.y.abs_diff(anchor.y) <= 1;
    let reachable = size > 1
        || next.cell == anchor
        || grid.can_step(anchor, next.cell, rules)
        || (!adjacent && grid.line_of_sight(anchor, next.cell, rules));
    if !reachable {
        // Pushed off its route: a new one from here (the plugin plans it next frame).
        if let Some(request) = request {
            request.set_changed();
        }
        return wish;
    }
    let aim = if size == 1 && adjacent && next.cell != anchor && waypoints.len() > 1 {
        step_aim(grid, p, radius, anchor, next.cell)
    } else {
        point
    };
    // The way left: to the next point, then from point to point (measured once per route
    // and next point: a route can be hundreds of points long).
    if (tail.1, tail.2) != (waypoints.len(), Some(next.cell)) {
        let mut length = 0.0;
        let mut from = next.cell;
        for w in waypoints.iter().skip(1) {
            let (dx, dy) = (w.cell.x.abs_diff(from.x), w.cell.y.abs_diff(from.y));
            length += (dx.max(dy) - dx.min(dy)) as f32 + dx.min(dy) as f32 * SQRT2 as f32;
            from = w.cell;
        }
        *tail = (length, waypoints.len(), Some(next.cell));
    }
    wish.distance = p.distance(point) + tail.0;
    wish.aim = Some(aim);
    wish
}

/// One frame of [`gridpath::avoid`] with its per-body phases split over Bevy's compute pool,
/// and the buffers it keeps between frames: for the plugin's avoiders, and for a game that
/// gathers its own bodies (tilepath's crowd does).
///
/// ```
/// use bevy_gridpath::AvoidFrame;
/// use bevy_gridpath::gridpath::avoid::{Avoidance, Body};
/// use bevy_gridpath::gridpath::{Grid, Tile};
/// use bevy::math::Vec2;
///
/// let grid = Grid::filled(8, 8, Tile::FLOOR).unwrap();
/// let mut bodies = vec![Body::new(Vec2::new(2.5, 2.5), 0.3, 4.0), Body::new(Vec2::new(2.7, 2.5), 0.3, 4.0)];
/// let (mut avoidance, mut frame) = (Avoidance::default(), AvoidFrame::default());
/// avoidance.bucket(bodies.iter().map(|b| b.position), &grid);
/// frame.run(&mut avoidance, &bodies, &grid, 0.05);
/// // The two overlapping bodies are moved apart.
/// assert!(frame.positions()[0].distance(frame.positions()[1]) >= 0.6 * 0.98);
/// ```
#[derive(Debug, Default)]
pub struct AvoidFrame {
    velocities: Vec<Vec2>,
    /// The velocities in bucket order, as the tasks plan them.
    by_slot: Vec<Vec2>,
    positions: Vec<Vec2>,
    /// Per body, whether it overlaps another or a wall after moving.
    overlapping: Vec<bool>,
}

impl AvoidFrame {
    /// Prepares `avoidance` for `bodies` (whose centres it has just
    /// [`bucket`](Avoidance::bucket)ed), picks every body's velocity and moves it `dt`
    /// seconds, then parts what overlap is left ([`Avoidance::advance`], split over the
    /// compute pool) and lets bodies stuck long trade places ([`Avoidance::pass_through`]):
    /// [`velocities`](Self::velocities) and [`positions`](Self::positions), one per body; the
    /// velocity each walked at is [`Avoidance::walked`]'s (a trade of places is no walk).
    pub fn run(&mut self, avoidance: &mut Avoidance, bodies: &[Body], grid: &Grid, dt: f32) {
        let Self { velocities, by_slot, positions, overlapping } = self;
        avoidance.prepare_bucketed(bodies, grid);
        // By slot, so each task plans a run of neighbours (its part of the map).
        by_slot.clear();
        by_slot.resize(bodies.len(), Vec2::ZERO);
        let shared = &*avoidance;
        map_chunks(by_slot, CHUNK, |first, out| shared.velocities_by_slot(bodies, grid, dt, first, out));
        velocities.clear();
        velocities.resize(bodies.len(), Vec2::ZERO);
        avoidance.in_body_order(by_slot, velocities);
        avoidance.integrate(bodies, dt, velocities, positions);
        overlapping.clear();
        overlapping.resize(bodies.len(), false);
        let (shared, moved) = (&*avoidance, &*positions);
        map_chunks(overlapping, CHUNK, |first, out| shared.overlapping(bodies, grid, moved, first, out));
        avoidance.separate_overlapping(bodies, grid, positions, overlapping);
        let shared = &*avoidance;
        map_chunks(positions, SETTLE_CHUNK, |first, out| shared.settle(bodies, grid, first, out));
        avoidance.pass_through(bodies, grid, positions);
    }

    /// The velocities avoidance planned this frame, one per body (tiles per second).
    pub fn velocities(&self) -> &[Vec2] {
        &self.velocities
    }

    /// Where the bodies ended up this frame, one per body (tiles).
    pub fn positions(&self) -> &[Vec2] {
        &self.positions
    }
}
