//! Local avoidance for crowds: ORCA, optimal reciprocal collision avoidance (van den Berg, Guy,
//! Lin, Manocha, "Reciprocal n-body collision avoidance", 2011), with the grid's walls as static
//! obstacles, followed by a positional pass that guarantees what ORCA alone only makes likely:
//! no two bodies overlap by more than a sliver and no body ever overlaps a wall.
//!
//! Each frame:
//! 1. [`Avoidance::prepare`] buckets the bodies by cell (a counting sort, no hashing).
//! 2. [`Avoidance::velocity`] picks, for one body, the velocity closest to the one it wants
//!    among those that keep it clear of its nearest neighbours for [`AvoidanceSettings::time_horizon`]
//!    seconds (each of two moving bodies takes half the avoiding) and of the walls for
//!    [`AvoidanceSettings::wall_horizon`] seconds: two small linear programs, no allocation.
//!    It reads only the prepared buckets, so callers may split the bodies over threads. Two
//!    stalled bodies that alone hold each other up (side by side in a one-tile gap at a wall
//!    corner, where ORCA alone lets neither move for good) get right of way by index. A body
//!    stuck for a while ([`Body::stuck`]) is jostled a little aside, which breaks the arches
//!    a crowd pressing on a gap forms; idle bodies in its way (arrived units of another
//!    [group](Body::group)) make room for it, as worked out in `prepare`.
//! 3. [`Avoidance::separate`] moves the new positions apart where bodies still overlap and
//!    pushes them out of walls; a body whose centre would cross into a cell it cannot enter
//!    keeps its old position. Its per-body phases ([`Avoidance::overlapping`],
//!    [`Avoidance::settle`]) read only, so callers may split them over threads too, around
//!    the rounds of [`Avoidance::separate_overlapping`]. Last, [`Avoidance::pass_through`]
//!    lets a body stuck for [`SWAP_AFTER`] trade places with another group's idle body in its
//!    way, or with one stuck face to face with it, where no one has room to make.
//!
//! [`Avoidance::step`] does all three on one thread. Why our own and not the `dodgy_2d` crate
//! (ORCA in Rust): walls here are grid cells, not polygons (a polygon per wall run would have
//! to be rebuilt on every paint stroke), dodgy allocates per body per frame and knows nothing
//! of the non-overlap guarantee, and it pins another glam than Bevy's.
//!
//! Walls: a body's obstacles are the cells it cannot enter from where it stands — walls, the
//! map's edge, and cells of another terrain class (ground units keep out of water). Fences
//! between cells ([`Grid::set_fence`](crate::Grid::set_fence)) are not obstacles here: a body
//! pushed by others could cross one (the game opens no map with fences). Bodies are
//! circles, so a body never squeezes diagonally between two walls that touch at a corner.
//!
//! Space: x to the right, y down, one unit per tile; cell `(x, y)` covers `[x, x + 1) × [y, y + 1)`.

#![expect(clippy::cast_precision_loss, reason = "cell coordinates (at most MAX_SIDE) are exact in f32")]

mod buckets;
mod quality;
mod rest;
mod ring;

use std::cmp::Ordering;
use std::ops::Range;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering::Relaxed;

use glam::Vec2;

pub use buckets::Buckets;
pub use quality::Quality;
pub use ring::{
    ArrivalRing, Contact, DISPLACED, Held, LONG_STALL, Landing, RING_MARGIN, STRAGGLERS, Touch,
    beside_along_way, displaced, in_passage, land_in_ring, landing, ring_reach, within_ring,
};

use crate::grid::{Grid, MAX_AGENT_SIZE, Pos};
use rest::Resting;

/// One body as avoidance sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Body {
    /// Centre, in tiles.
    pub position: Vec2,
    /// Velocity last frame, in tiles per second.
    pub velocity: Vec2,
    /// The velocity avoidance last planned for it (what [`Avoidance::velocity`] returned), in
    /// tiles per second: on the frames it does not plan (see
    /// [`AvoidanceSettings::plan_every`]) it keeps to it. Zero for a body never planned.
    pub planned: Vec2,
    /// Velocity it wants (towards its goal), in tiles per second.
    pub preferred: Vec2,
    /// Radius, in tiles.
    pub radius: f32,
    /// Fastest it may go, in tiles per second.
    pub max_speed: f32,
    /// `false` for a body that does not take part in avoiding (arrived, standing guard, or
    /// driven by something else): it keeps its velocity, others avoid it entirely, and the
    /// positional pass never moves it.
    pub moving: bool,
    /// Seconds the body has gone without getting closer to its goal (0 if the caller does not
    /// keep count). Idle bodies in the way of a body stuck for a second make room for it
    /// (see [`Avoidance::prepare`]); a body stuck for [`JOSTLE_AFTER`] seconds is jostled: it
    /// wants to go a little to one side or the other, changing every [`JOSTLE_PERIOD`], which
    /// breaks the arches a crowd pressing on a gap forms (as shaking breaks them in a hopper
    /// of grain).
    pub stuck: f32,
    /// The group the body walks with (units sent to one goal together), or 0 for none. An
    /// idle body makes room for a stuck body of another group or of none, never for one of
    /// its own: a unit reaching its own group's arrival ring arrives there instead of
    /// pushing in (see [`Avoidance::prepare`]). Two walking bodies of different groups that
    /// block each other where they cannot pass: the higher group gives way.
    pub group: u32,
    /// How far the body still has to go to its goal, in tiles (its flow field's distance
    /// from where it aims plus the way there), or infinity when the caller does not know.
    /// Between two walking bodies of one [group](Body::group), the one farther from the goal
    /// avoids the one ahead as in ORCA (all of the avoiding once that one is held up), and
    /// the one ahead only keeps from pressing into it, by at most a hair (0.003 tiles) a frame
    /// once held up itself: a crowd pressing on a door or a one-tile passage queues behind the
    /// body at its head instead of clogging it (under plain ORCA, the head pressed from behind
    /// and from the sides by its own group cannot move, and neither can anyone: an arch). The
    /// order is strict, so the body at the head of any cluster has its way free of its own
    /// group.
    pub distance: f32,
}

/// Seconds without progress after which a body is jostled (see [`Body::stuck`]).
pub const JOSTLE_AFTER: f32 = 4.0;
/// Seconds a body must be stuck for idle bodies in its way to make room for it.
const MAKE_ROOM_AFTER: f32 = 1.0;
/// How far beyond touching an idle body in a stuck body's way makes room, in tiles (and how
/// close two walkers blocking each other must stand to give way, `give_way`). At 0.3 a unit
/// walled in by another group's arrival ring at a one-tile gap stood for good (seeded scene
/// 108): the arrived unit in the gap stood 0.9005 from it centre to centre, a hair beyond the
/// reach, and the one beside it that did make room was pinned against a wall by its own ring.
const MAKE_ROOM_GAP: f32 = 0.45;
/// Idle bodies in a row that make room for one stuck body, at most.
const MAKE_ROOM_CHAIN: usize = 8;
/// Seconds a body must be stuck for before it trades places with an idle body of another
/// group in its way that could not make room, or with one of another group stuck as long face
/// to face with it ([`Avoidance::pass_through`]).
pub const SWAP_AFTER: f32 = 3.0;
/// Share of its top speed an idle body makes room at.
const MAKE_ROOM_SPEED: f32 = 0.5;
/// How deep (tiles) a body ahead in its group's queue may press into one behind it in a
/// frame (see [`Body::distance`]): a quarter of the overlap the quality goal allows (2 % of
/// two radii of 0.3), which the positional pass then parts.
const QUEUE_PUSH: f32 = 0.003;
/// Seconds a body ahead in its group's queue must be held up for before it presses on.
const QUEUE_PUSH_AFTER: f32 = 0.5;
/// Seconds a jostled body keeps one direction.
pub const JOSTLE_PERIOD: f32 = 0.5;
/// The widest a jostled body turns from the way it wants to go, in radians.
const JOSTLE_ANGLE: f32 = 1.3;

impl Body {
    /// A moving body at `position` wanting `preferred`, starting from rest.
    #[must_use]
    pub fn new(position: Vec2, radius: f32, max_speed: f32) -> Self {
        Self {
            position,
            velocity: Vec2::ZERO,
            planned: Vec2::ZERO,
            preferred: Vec2::ZERO,
            radius,
            max_speed,
            moving: true,
            stuck: 0.0,
            group: 0,
            distance: f32::INFINITY,
        }
    }
}

/// Tuning of [`Avoidance`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AvoidanceSettings {
    /// Seconds ahead a body keeps clear of other bodies. Longer: earlier, gentler swerves but
    /// more hesitation in a dense crowd.
    pub time_horizon: f32,
    /// Seconds ahead a body keeps clear of walls (short: bodies may walk along a wall).
    pub wall_horizon: f32,
    /// Nearest neighbours each body avoids (at most [`MAX_NEIGHBOURS`]).
    pub max_neighbours: usize,
    /// Rounds of the positional pass that moves overlapping bodies apart.
    pub separation_passes: u32,
    /// The most the positional pass moves a body in one frame, in tiles: bodies spawned on one
    /// point spread over a few frames instead of jumping (walls are kept out of regardless).
    pub max_push: f32,
    /// How far a body veers to its right (as a share of its speed, sideways) while a body
    /// ahead comes the other way: two streams meeting head-on in a corridor form two lanes
    /// instead of pushing against each other. 0 turns it off. "Right" is in the grid's own
    /// axes (x right, y down); mirrored axes make it "left", the same for everyone.
    pub pass_side: f32,
    /// Each moving body plans its velocity (its neighbour scan and linear program) every this
    /// many frames, the bodies taking turns (by index); in between it keeps to the velocity it
    /// planned ([`Body::planned`]), and the bodies that do plan take all of the avoiding of
    /// it, as of a body that does not avoid. 2 halves the cost of avoidance with the same
    /// quality (the crowd tests' gap ratios, jams and arrival times, docs/BENCHMARKS.md); 1
    /// plans every body every frame. A body making room, or giving way, plans every frame.
    pub plan_every: u32,
    /// A calm body — its last plan gave it its preferred velocity, every neighbour's and
    /// wall's line leaving it room to spare (open ground, a stream all going its way; not a
    /// queue) — plans only every this many frames (rounded up to a multiple of
    /// [`plan_every`](Self::plan_every)) until a plan finds it bound again: most of a crowd
    /// walking to one goal has nothing to avoid, and the bodies near it that do plan take all
    /// of the avoiding of it meanwhile. At most `plan_every` turns it off.
    pub calm_every: u32,
}

impl Default for AvoidanceSettings {
    fn default() -> Self {
        Self {
            time_horizon: 1.0,
            wall_horizon: 0.2,
            max_neighbours: 8,
            separation_passes: 12,
            max_push: 0.4,
            pass_side: 0.6,
            plan_every: 2,
            calm_every: 4,
        }
    }
}

/// Neighbours one body avoids, at most.
pub const MAX_NEIGHBOURS: usize = 16;
/// Wall cells one body's velocity is constrained by, at most.
const MAX_WALLS: usize = 12;
/// How far beyond the touching distance a body looks for neighbours, in tiles.
const LOOKAHEAD: f32 = 1.0;
const EPSILON: f32 = 1e-5;
/// Forward share of a body's preferred direction while a body coming the other way is in its
/// way (against [`AvoidanceSettings::pass_side`] sideways).
const STEP_ASIDE_FORWARD: f32 = 0.5;
/// Distances ahead (tiles) at which a body looks for a stream coming its way.
const STREAM_LOOKS: [f32; 6] = [1.5, 3.5, 5.5, 7.5, 9.5, 11.5];
/// Summed preferred directions of a cell against a body's heading that make a stream.
const STREAM_AGAINST: f32 = 0.5;
/// How far bodies may have moved since they were bucketed, in tiles.
const SEPARATION_SLACK: f32 = 0.5;
/// Overlap the positional pass leaves alone, as a share of the sum of radii.
const OVERLAP_TOLERANCE: f32 = 0.002;

/// A half-plane of allowed velocities: those on the left of `direction` through `point`
/// (`det(direction, point - v) <= 0`).
#[derive(Clone, Copy, Debug, Default)]
struct Line {
    point: Vec2,
    direction: Vec2,
}

/// Room for the constraints of one body's linear program: its walls', then its neighbours'.
type Lines = [Line; MAX_WALLS + MAX_NEIGHBOURS];

fn new_lines() -> Lines {
    [Line::default(); MAX_WALLS + MAX_NEIGHBOURS]
}

/// What the neighbour scan reads of one body, kept in bucket order: a row of cells is one run
/// of memory instead of a jump per body.
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    position: Vec2,
    velocity: Vec2,
    /// [`Body::planned`].
    planned: Vec2,
    preferred: Vec2,
    /// `-0.3 × |preferred|` for a moving body: its preferred velocity against a heading below
    /// this comes the other way. Minus infinity for a body that is not moving.
    against: f32,
    radius: f32,
    /// The body's index.
    index: u32,
    moving: bool,
    /// [`Body::stuck`].
    stuck: f32,
    max_speed: f32,
    /// [`Body::group`].
    group: u32,
    /// [`Body::distance`], or infinity for a body that wants nothing (it never queues).
    distance: f32,
    /// It does not plan this frame: it keeps to its planned velocity, and the bodies that plan
    /// take all of the avoiding of it (see [`AvoidanceSettings::plan_every`]).
    coasting: bool,
    /// It stands still without planning: at rest where nothing stirs, it would plan to
    /// (`rest.rs`). Unlike a coasting body it counts as planning for its neighbours.
    asleep: bool,
}

impl Slot {
    /// A body outside avoiding that means to walk (a walker on a route of its own): seen going
    /// where it means to go, though its own mover may hold it back.
    fn is_walker(&self) -> bool {
        !self.moving && self.velocity != Vec2::ZERO
    }

    /// The body in this slot, as planning sees it: read from the slots in bucket order
    /// instead of a jump into the bodies (in a game's spawn order) per body. Its distance is
    /// infinite unless it moves and wants to go somewhere, as only then does it queue.
    fn body(&self) -> Body {
        Body {
            position: self.position,
            velocity: self.velocity,
            planned: self.planned,
            preferred: self.preferred,
            radius: self.radius,
            max_speed: self.max_speed,
            moving: self.moving,
            stuck: self.stuck,
            group: self.group,
            distance: self.distance,
        }
    }
}

/// The nearest neighbours found so far, sorted by squared distance.
#[derive(Clone, Copy, Debug)]
struct Nearest {
    k: usize,
    found: usize,
    /// The squared distance a body must be below to join: the farthest kept once full.
    limit: f32,
    /// Squared distance and slot.
    pairs: [(f32, u32); MAX_NEIGHBOURS],
}

impl Nearest {
    fn nearest(&self) -> &[(f32, u32)] {
        &self.pairs[..self.found]
    }

    /// Whether no body at a squared distance of `d2` or more could join.
    fn is_settled(&self, d2: f32) -> bool {
        self.k == 0 || (self.found == self.k && self.pairs[self.k - 1].0 <= d2)
    }

    /// Keeps the body at squared distance `d2` (below [`limit`](Self::limit)), in slot `slot`.
    #[inline]
    fn offer(&mut self, d2: f32, slot: u32) {
        let k = self.k;
        let mut at = self.found.min(k - 1);
        while at > 0 && self.pairs[at - 1].0 > d2 {
            self.pairs[at] = self.pairs[at - 1];
            at -= 1;
        }
        self.pairs[at] = (d2, slot);
        self.found = (self.found + 1).min(k);
        if self.found == k {
            self.limit = self.pairs[k - 1].0;
        }
    }
}

/// One body's neighbour scan.
struct Scan {
    me: Body,
    me_index: u32,
    heading: Vec2,
    nearest: Nearest,
    oncoming: bool,
}

impl Scan {
    /// Takes the bodies of a run of slots: as neighbours (with `nearest`) and as bodies in the
    /// way coming the other way.
    #[inline]
    fn visit(&mut self, all: &[Slot], slots: Range<usize>, nearest: bool) {
        let (me, heading) = (self.me, self.heading);
        let first = slots.start;
        if heading == Vec2::ZERO {
            // Standing still: nobody comes its way, only the nearest count.
            if nearest {
                for (s, other) in all[slots].iter().enumerate() {
                    let range = me.radius + other.radius + LOOKAHEAD;
                    let d2 = (other.position - me.position).length_squared();
                    if d2 < range * range && d2 < self.nearest.limit && other.index != self.me_index {
                        #[expect(clippy::cast_possible_truncation, reason = "fewer than 2^32 bodies")]
                        self.nearest.offer(d2, (first + s) as u32);
                    }
                }
            }
            return;
        }
        for (s, other) in all[slots].iter().enumerate() {
            if other.index == self.me_index {
                continue;
            }
            let range = me.radius + other.radius + LOOKAHEAD;
            let ahead = other.position - me.position;
            let d2 = ahead.length_squared();
            if d2 >= range * range {
                continue;
            }
            // A body in the way, coming the other way: step aside rather than push on.
            self.oncoming |= other.preferred.dot(heading) < other.against
                && ahead.dot(heading) > 0.0
                && det(heading, ahead).abs() < me.radius + other.radius;
            if nearest && d2 < self.nearest.limit {
                #[expect(clippy::cast_possible_truncation, reason = "fewer than 2^32 bodies")]
                self.nearest.offer(d2, (first + s) as u32);
            }
        }
    }
}

/// How [`Avoidance::solve_among`] treats one neighbour (by body index).
#[derive(Clone, Copy, Debug)]
enum Yield {
    /// Like every other.
    None,
    /// As if it were not there: it gives way.
    Ignore(usize),
    /// As going on at this velocity, taking all of the avoiding: we give way.
    To(usize, Vec2),
}

impl Yield {
    /// A body that stands still, for all of the avoiding: a body not taking part that waits
    /// where it is, whatever way it means to go.
    fn still(j: usize) -> Self {
        Self::To(j, Vec2::ZERO)
    }
}

/// How far inside a neighbour's line (tiles per second) a velocity must lie for the line not to
/// bound it: far above rounding, far below any velocity that matters.
const LOOSE: f32 = 1e-3;

/// Headway, as a share of its preferred speed, below which a body is stalled.
const STALLED: f32 = 0.1;
/// Headway, as a share of its preferred speed, a stalled body would make without the one
/// neighbour that holds it up, for that neighbour to be what holds it up.
const FREED: f32 = 0.25;

/// Which of a stalled body's nearest neighbours (bits, in their order) might alone hold it up:
/// those whose program solved again without them could give it headway. All of them, unless
/// its program found `v` with every line allowing it (`program`: the wall lines first in
/// `lines`, then the `neighbours`' lines) and `v` makes no headway; then not one
/// - whose line leaves `v` well inside: without it the velocity closest to the one wanted is
///   `v` itself (the closest point of a convex set, where a line that does not bound it is
///   taken away), no headway;
/// - while another line alone keeps the body below the freed share of its speed, `LOOSE` to
///   spare ([`most_along`]): without the neighbour, the program still has that line.
fn may_free(me: &Body, (v, program): (Vec2, Option<usize>), lines: &[Line], neighbours: usize) -> u32 {
    let all = u32::MAX;
    let Some(walls) = program.filter(|_| headway(me, v) < STALLED) else { return all };
    let (speed, heading) = (me.preferred.length(), me.preferred.normalize_or_zero());
    // The two lowest speeds one line alone allows, and the neighbour whose line allows the
    // lowest (none for a wall); none claimed for a body that hardly wants to go anywhere.
    let mut lowest = (f32::INFINITY, f32::INFINITY, None);
    if speed >= EPSILON {
        for (k, line) in lines[..walls + neighbours].iter().enumerate() {
            let most = most_along(heading, me.max_speed, line);
            if most < lowest.0 {
                lowest = (most, lowest.0, k.checked_sub(walls));
            } else if most < lowest.1 {
                lowest.1 = most;
            }
        }
    }
    let held = FREED * speed - LOOSE;
    let mut may = 0;
    for (k, line) in lines[walls..walls + neighbours].iter().enumerate() {
        let loose = det(line.direction, line.point - v) < -LOOSE;
        let others = if lowest.2 == Some(k) { lowest.1 } else { lowest.0 };
        if !loose && others >= held {
            may |= 1 << k;
        }
    }
    may
}

/// How fast along `heading` (a unit vector; tiles per second) `line` alone lets a body of top
/// speed `top` go: no velocity a linear program that satisfies the line finds goes faster
/// (beyond rounding). Infinite (nothing claimed) for a line that binds nearly tangent to the top
/// speed's circle: there this formula and `linear_program1`'s both lose digits (up to ~1e-3
/// tiles per second apart, found by a review's probe).
fn most_along(heading: Vec2, top: f32, line: &Line) -> f32 {
    // The line allows the velocities `v` with `n · v <= c` (those to the left of its direction).
    let n = Vec2::new(line.direction.y, -line.direction.x);
    let c = n.dot(line.point);
    if n.dot(heading) * top <= c {
        top
    } else if top - c.abs() < TANGENT * top {
        f32::INFINITY
    } else {
        // On the line, as far along the heading as the top speed allows.
        c * n.dot(heading) + (top * top - c * c).sqrt() * line.direction.dot(heading).abs()
    }
}

/// How near the top speed's circle (a share of the top speed) a line's distance from standing
/// still may come before [`most_along`] claims nothing.
const TANGENT: f32 = 1e-3;

/// How far velocity `v` takes `body` the way it wants to go, as a share of its preferred speed.
fn headway(body: &Body, v: Vec2) -> f32 {
    v.dot(body.preferred) / body.preferred.length_squared().max(EPSILON)
}

/// Seconds two bodies stand face to face where they could pass side by side before one gives
/// way all the same (see [`Avoidance::give_way`]): lanes usually part them well before, but
/// walls staggered on either side can leave no way round.
const GIVE_WAY_ANYWHERE_AFTER: f32 = 15.0;

/// Seconds without progress after which a body near a walker no longer takes the velocity it
/// works out for headway (see [`Avoidance::goes_by`]).
const UNREALISED_AFTER: f32 = 1.0;

/// Share of its speed a body's preferred velocity must have against a heading to come the
/// other way.
const ONCOMING: f32 = 0.3;

/// The bodies bucketed by cell, and the settings: reusable, allocation-free in the steady state.
#[derive(Clone, Debug, Default)]
pub struct Avoidance {
    settings: AvoidanceSettings,
    buckets: Buckets,
    /// The prepared bodies in bucket order (slot `s` is body `buckets.order()[s]`).
    slots: Vec<Slot>,
    max_radius: f32,
    /// The positional pass's bodies still overlapping, this round and the next.
    active: Vec<u32>,
    next: Vec<u32>,
    /// Per body, the last round that queued it.
    marks: Vec<u32>,
    /// The positions handed to the positional pass.
    before: Vec<Vec2>,
    /// Per body, whether the overlap test found it clear of walls where it stood after moving
    /// and the rounds left it there: [`settle`](Self::settle) need not look for walls again.
    clear: Vec<bool>,
    /// The positional pass's centres, in bucket order.
    centres: Vec<Vec2>,
    /// [`separate`](Self::separate)'s overlap flags, one per body.
    flags: Vec<bool>,
    /// [`step`](Self::step)'s new centres.
    positions: Vec<Vec2>,
    /// Dense bucketing: per cell, the sum of its moving bodies' preferred directions, so a
    /// body sees a stream coming its way a few tiles ahead at the cost of a few lookups.
    intent: Vec<Vec2>,
    /// Dense bucketing: per cell, how many moving bodies want to go somewhere.
    walkers: Vec<u16>,
    /// The cells `intent` and `walkers` count bodies in this frame.
    intent_cells: Vec<u32>,
    /// Per slot, the velocity an idle body wants in order to make room ([`make_room`](Self::make_room)), or zero.
    room: Vec<Vec2>,
    /// Per body, its slot.
    slot_of: Vec<u32>,
    /// [`make_room`](Self::make_room)'s queue: slots, the way each presses, for which group,
    /// and whether it gives way to a walking body it blocks (or backs out behind one that
    /// does).
    pressing: Vec<(u32, Vec2, u32, bool)>,
    /// Frames prepared so far (wrapping): whose turn it is to plan.
    frame: u32,
    /// [`pass_through`](Self::pass_through)'s bodies that traded places this frame, by index.
    traded: Vec<bool>,
    /// Whether any body traded places in the last [`pass_through`](Self::pass_through).
    traded_any: bool,
    /// The centres handed to the positional pass, in bucket order (slot `s`'s at `s`).
    moved: Vec<Vec2>,
    /// How far any body moved from where it was bucketed, at most, to the positions the
    /// positional pass starts from ([`integrate`](Self::integrate)).
    drift: f32,
    /// Which bodies at rest may skip planning, kept from frame to frame.
    resting: Resting,
    /// Per body (by index), whether its last plan gave it its preferred velocity with room to
    /// spare: it plans every [`AvoidanceSettings::calm_every`] frames only.
    calm: Vec<bool>,
    /// Per slot, whether its plan this frame was calm: noted by the planning threads.
    calm_plans: CalmPlans,
}

/// Per slot, whether a body's plan this frame was calm (see [`Avoidance::plan`]): written by
/// the threads that plan, each its own slots.
#[derive(Debug, Default)]
struct CalmPlans(Vec<AtomicBool>);

impl Clone for CalmPlans {
    fn clone(&self) -> Self {
        Self(self.0.iter().map(|m| AtomicBool::new(m.load(Relaxed))).collect())
    }
}

impl CalmPlans {
    /// `slots` marks, none calm.
    fn reset(&mut self, slots: usize) {
        self.0.truncate(slots);
        self.0.iter_mut().for_each(|m| *m.get_mut() = false);
        self.0.resize_with(slots, AtomicBool::default);
    }
}

/// Room (tiles per second, as a share of its top speed) a calm plan leaves inside every line:
/// a body whose velocity a neighbour or a wall nearly bounds plans on every turn.
const CALM_SLACK: f32 = 0.03;

impl Avoidance {
    /// Avoidance with these settings.
    #[must_use]
    pub fn new(settings: AvoidanceSettings) -> Self {
        Self { settings, ..Self::default() }
    }

    /// The settings.
    #[must_use]
    pub fn settings(&self) -> AvoidanceSettings {
        self.settings
    }

    /// Buckets `bodies` by cell for this frame's [`velocity`](Self::velocity) and
    /// [`separate`](Self::separate) calls, and works out which idle bodies make room this
    /// frame: an idle body (wanting to go nowhere) in the path of a body [stuck](Body::stuck)
    /// for a second, of another [group](Body::group), steps aside, and the idle bodies in its
    /// way in turn; of two walking bodies of different groups that block each other where they
    /// cannot pass, the higher group's gives way.
    pub fn prepare(&mut self, bodies: &[Body], grid: &Grid) {
        self.bucket(bodies.iter().map(|b| b.position), grid);
        self.prepare_bucketed(bodies, grid);
    }

    /// Buckets the bodies' centres alone, before the bodies themselves are known (a caller
    /// that asks [`near`](Self::near) while it works out what each body wants); then
    /// [`prepare_bucketed`](Self::prepare_bucketed) with bodies at those same centres.
    pub fn bucket(&mut self, centres: impl Iterator<Item = Vec2> + Clone, grid: &Grid) {
        self.buckets.fill(grid.width(), grid.height(), centres);
    }

    /// The slots (bodies in bucket order) and the largest radius, for `bodies`.
    fn prepare_slots(&mut self, bodies: &[Body]) {
        // Until `integrate` measures it, what bodies usually move in a frame, and more.
        self.drift = SEPARATION_SLACK;
        self.max_radius = bodies.iter().map(|b| b.radius).fold(0.0, f32::max);
        self.slots.clear();
        self.slots.extend(self.buckets.order().iter().map(|&index| {
            let body = &bodies[index as usize];
            let against = if body.moving { -ONCOMING * body.preferred.length() } else { f32::NEG_INFINITY };
            Slot {
                position: body.position,
                velocity: body.velocity,
                planned: body.planned,
                preferred: body.preferred,
                against,
                radius: body.radius,
                index,
                moving: body.moving,
                stuck: body.stuck,
                max_speed: body.max_speed,
                group: body.group,
                distance: if body.moving && body.preferred != Vec2::ZERO {
                    body.distance
                } else {
                    f32::INFINITY
                },
                coasting: false,
                asleep: false,
            }
        }));
    }

    /// [`prepare`](Self::prepare) for bodies whose centres were just [`bucket`](Self::bucket)ed.
    /// Also works out which idle bodies make room this frame, and which way (`make_room`).
    pub fn prepare_bucketed(&mut self, bodies: &[Body], grid: &Grid) {
        self.prepare_slots(bodies);
        self.make_room(grid);
        self.resting.stir(bodies, self.buckets.size());
        self.turns_rest_and_intent();
    }

    /// Per slot, in one pass (10,000 slots outgrow the L2 cache: three passes read them from
    /// memory three times; one pass takes about a tenth off `prepare`):
    /// - whether a moving body coasts on its planned velocity this frame
    ///   ([`AvoidanceSettings::plan_every`]): the bodies take turns by index, and a body making
    ///   room (or giving way) plans every frame, as its way out changes;
    /// - whether a body at rest skips planning and stands still (`rest.rs`): only on its turn
    ///   to plan, so the bodies that coast stay those the turns picked;
    /// - per cell, the moving bodies' preferred directions and how many, for
    ///   [`stream_ahead`](Self::stream_ahead): only the cells last frame wrote are cleared, and
    ///   the bodies come in bucket order (cell by cell, each cell's by index: the same sums as
    ///   in index order), not a pass over every cell and a jump per body.
    fn turns_rest_and_intent(&mut self) {
        self.frame = self.frame.wrapping_add(1);
        let every = self.settings.plan_every.max(1);
        // A multiple of `every`: a calm body plans on some of its turns, never off them.
        let calm_every = self.settings.calm_every.max(1).div_ceil(every) * every;
        self.calm.resize(self.slots.len(), false);
        self.calm_plans.reset(self.slots.len());
        let turns = every > 1 || calm_every > 1;
        // Not a multiple of `m`: for a power of two (the defaults) a mask, not a division per body.
        let off = |turn: u32, m: u32| {
            if m.is_power_of_two() { turn & (m - 1) != 0 } else { !turn.is_multiple_of(m) }
        };
        let dense = self.clear_intent();
        let beyond = self.max_radius + LOOKAHEAD;
        let Self { slots, room, calm, resting, buckets, intent, walkers, intent_cells, frame, .. } = self;
        for (slot, room) in slots.iter_mut().zip(room.iter()) {
            let making_room = *room != Vec2::ZERO;
            if turns {
                let turn = slot.index.wrapping_add(*frame);
                let off_turn = off(turn, every) || (calm[slot.index as usize] && off(turn, calm_every));
                slot.coasting = slot.moving && !making_room && off_turn;
            }
            slot.asleep = slot.moving
                && !slot.coasting
                && !making_room
                && resting.may_skip(slot, (slot.radius + beyond, JOSTLE_AFTER));
            if dense && slot.moving && slot.preferred != Vec2::ZERO {
                let c = buckets.cell_index(slot.position);
                if walkers[c] == 0 {
                    #[expect(clippy::cast_possible_truncation, reason = "cells of a map fit in u32")]
                    intent_cells.push(c as u32);
                }
                intent[c] += slot.preferred.normalize_or_zero();
                walkers[c] = walkers[c].saturating_add(1);
            }
        }
    }

    /// Clears the per-cell intent [`turns_rest_and_intent`](Self::turns_rest_and_intent) fills
    /// (the cells last frame wrote; all of it on another map), and whether there is one: only
    /// with dense buckets (a cell per tile).
    fn clear_intent(&mut self) -> bool {
        let (width, height) = self.buckets.size();
        let cells = width as usize * height as usize;
        if !self.buckets.is_dense() || self.intent.len() != cells {
            self.intent.clear();
            self.walkers.clear();
            self.intent_cells.clear();
            if !self.buckets.is_dense() {
                return false;
            }
            self.intent.resize(cells, Vec2::ZERO);
            self.walkers.resize(cells, 0);
        }
        for &c in &self.intent_cells {
            self.intent[c as usize] = Vec2::ZERO;
            self.walkers[c as usize] = 0;
        }
        self.intent_cells.clear();
        true
    }

    /// Which idle bodies make room, and which way ([`room`](Self::room)): a unit that arrived,
    /// or waits, steps out of the way of one stuck pressing on it ([`MAKE_ROOM_AFTER`]), as
    /// players expect. Without it, the arrived units round one goal wall in a unit bound
    /// elsewhere for good: ORCA leaves a body at rest among bodies at rest where it is. The
    /// idle body in a stuck body's path (within [`MAKE_ROOM_GAP`] beyond touching) wants to go
    /// aside, to the side it stands on, and a little onwards; an idle body in *its* way does
    /// the same in turn, up to [`MAKE_ROOM_CHAIN`] bodies on, so a passage packed with idle
    /// bodies clears ahead of the one pushing through. Where a wall stands on that side, the
    /// other side; where walls stand on both (a one-tile passage), straight on, and the chain
    /// clears the passage ahead. Never for a stuck body of the idle body's own
    /// [group](Body::group): a unit reaching its group's arrival ring arrives there, and the
    /// ring stays a ring. Further down the chain, which carries the group of the body stuck at
    /// its head, that group's idle bodies make room too: its arrived units may be what holds up
    /// another group's idle body in the way (a seeded scene walled a unit in for good so, two
    /// groups' arrival rings meeting in a one-tile gap). Walking bodies that block each other
    /// give way first ([`give_way`](Self::give_way)); behind one that gives way, the walkers of
    /// its group that come its way make room as idle bodies do.
    fn make_room(&mut self, grid: &Grid) {
        self.room.clear();
        self.room.resize(self.slots.len(), Vec2::ZERO);
        self.slot_of.clear();
        self.slot_of.resize(self.slots.len(), 0);
        for (s, slot) in self.slots.iter().enumerate() {
            #[expect(clippy::cast_possible_truncation, reason = "fewer than 2^32 bodies")]
            {
                self.slot_of[slot.index as usize] = s as u32;
            }
        }
        let mut pressing = std::mem::take(&mut self.pressing);
        pressing.clear();
        // Bodies blocking each other first: who gives way, so a body that does presses on no one.
        self.give_way(grid, &mut pressing);
        #[expect(clippy::cast_possible_truncation, reason = "fewer than 2^32 bodies")]
        pressing.extend(
            self.slots
                .iter()
                .enumerate()
                .filter(|&(s, slot)| {
                    slot.moving
                        && slot.stuck >= MAKE_ROOM_AFTER
                        && slot.preferred != Vec2::ZERO
                        && self.room[s] == Vec2::ZERO
                })
                .map(|(s, slot)| (s as u32, slot.preferred.normalize(), slot.group, false)),
        );
        let (mut from, mut hops) = (0, 0);
        while from < pressing.len() && hops < MAKE_ROOM_CHAIN {
            let to = pressing.len();
            for k in from..to {
                let (s, heading, group, yielding) = pressing[k];
                let presser = self.slots[s as usize];
                let reach = presser.radius + self.max_radius + MAKE_ROOM_GAP;
                self.buckets.square_rows(presser.position, reach, |run| {
                    for t in run {
                        let other = &self.slots[t];
                        // Further down the chain, the head's group makes room too: its arrived
                        // units may be what holds up the body in the head's way.
                        let own = hops == 0 && group != 0 && other.group == group;
                        if !other.moving || self.room[t] != Vec2::ZERO || own {
                            continue;
                        }
                        // Idle, or (behind one giving way) walking against it: its queue backs
                        // out with it.
                        let against = other.preferred.dot(heading) < other.against;
                        if other.preferred != Vec2::ZERO && !(yielding && against) {
                            continue;
                        }
                        if in_the_way(&presser, heading, other) {
                            let way = room_way(grid, &presser, heading, other);
                            self.room[t] = way * other.max_speed * MAKE_ROOM_SPEED;
                            #[expect(clippy::cast_possible_truncation, reason = "fewer than 2^32 bodies")]
                            pressing.push((t as u32, way, group, yielding));
                        }
                    }
                });
            }
            from = to;
            hops += 1;
        }
        self.pressing = pressing;
    }

    /// Face to face (or crossing): two walking bodies of different [groups](Body::group), each
    /// in the other's way, one stuck for [`MAKE_ROOM_AFTER`] and the other stalled, where the
    /// open ground across either one's heading is narrower than two bodies side by side (or,
    /// anywhere, once stuck for [`GIVE_WAY_ANYWHERE_AFTER`]). In a passage one body wide
    /// neither can pass, and ORCA's lanes and jostles leave both where they are for good; at a
    /// crossroads of such passages, four groups blocked each other so. The body of the higher
    /// group number (the higher index within group 0) gives way: it makes room as an idle body
    /// does, aside where there is ground, else on along the other's way (backwards, face to
    /// face), and the walkers of its group behind it that come its way back out with it (the
    /// chain of [`make_room`](Self::make_room)). A fixed order, not one read off the scene
    /// (such as the shorter queue giving way): the same two groups decide the same way at every
    /// meeting, so the lowest group present always gets through, where a choice that changes
    /// as the queues change sent both sides back and forth for good in a test. Once the other
    /// goes on (it is no longer held up), the one that gave way walks on too; meeting that
    /// group's next walker, it gives way again as soon as that one stalls, its own count of
    /// seconds stuck having run on.
    fn give_way(&mut self, grid: &Grid, pressing: &mut Vec<(u32, Vec2, u32, bool)>) {
        for s in 0..self.slots.len() {
            let me = self.slots[s];
            if !me.moving || me.preferred == Vec2::ZERO || me.stuck < MAKE_ROOM_AFTER {
                continue;
            }
            let heading = me.preferred.normalize();
            let reach = me.radius + self.max_radius + MAKE_ROOM_GAP;
            let mut blocking = None;
            self.buckets.square_rows(me.position, reach, |run| {
                for t in run {
                    let other = &self.slots[t];
                    if blocking.is_some()
                        || t == s
                        || !other.moving
                        || other.preferred == Vec2::ZERO
                        || (me.group != 0 && other.group == me.group)
                    {
                        continue;
                    }
                    let theirs = other.preferred.normalize();
                    // Face to face or crossing: either way, each stands in the other's path.
                    let each_in_the_way = each_in_the_way((&me, heading), (other, theirs));
                    let stalled =
                        other.velocity.dot(other.preferred) < STALLED * other.preferred.length_squared();
                    // Where the two cannot pass side by side; elsewhere lanes let them by, or
                    // else they have stood long enough.
                    let passing = 2.0 * (me.radius + other.radius);
                    if each_in_the_way
                        && stalled
                        && (me.stuck >= GIVE_WAY_ANYWHERE_AFTER
                            || open_across(grid, me.position, heading, passing) < passing
                            || open_across(grid, other.position, theirs, passing) < passing)
                    {
                        blocking = Some(t);
                    }
                }
            });
            let Some(t) = blocking else { continue };
            // The lower group goes on: the same two groups decide the same way wherever and
            // whenever they meet, so the lowest group present always gets through.
            let other = self.slots[t];
            let (loser, winner) =
                if (me.group, me.index) > (other.group, other.index) { (s, other) } else { (t, me) };
            if self.room[loser] != Vec2::ZERO {
                continue;
            }
            let loser_slot = self.slots[loser];
            let way = room_way(grid, &winner, winner.preferred.normalize(), &loser_slot);
            self.room[loser] = way * loser_slot.max_speed * MAKE_ROOM_SPEED;
            #[expect(clippy::cast_possible_truncation, reason = "fewer than 2^32 bodies")]
            pressing.push((loser as u32, way, winner.group, true));
        }
    }

    /// Indices of the bucketed bodies in the cells a square of half-side `reach` around `p`
    /// touches (a superset of those within `reach`).
    pub fn near(&self, p: Vec2, reach: f32) -> impl Iterator<Item = usize> + '_ {
        self.buckets.near(p, reach)
    }

    /// The velocity body `i` takes this frame (`dt` seconds): the one closest to its preferred
    /// velocity that avoids its nearest neighbours and the walls; a body that is not moving
    /// keeps its own, and one whose turn to plan it is not ([`AvoidanceSettings::plan_every`])
    /// its [planned](Body::planned) one.
    ///
    /// Right of way: ORCA alone deadlocks two stalled bodies that block each other — e.g. two
    /// side by side in a one-tile gap between a wall corner diagonally ahead and a wall beside
    /// them, where each one's only way on closes on the other and both take half of the
    /// avoiding around velocities of zero: every velocity either allows leads backwards, so
    /// both stand still for good. When body `i` is stalled (last frame and this one it makes
    /// almost no headway) and one stalled neighbour `j` alone holds it up, and `i` alone holds
    /// `j` up too, the lower index goes on as if the other were not there and the higher index
    /// gets out of its way, avoiding it at the velocity it goes on at, with all of the
    /// avoiding. Both decide from the same prepared data, so in the deadlock each sees the
    /// other as its partner; where a third body or a walker makes them decide differently,
    /// the positional pass still keeps them apart. The order by index admits no cycle, and
    /// bodies that make headway are never affected.
    #[must_use]
    pub fn velocity(&self, bodies: &[Body], grid: &Grid, i: usize, dt: f32) -> Vec2 {
        let slot = self
            .slot_of
            .get(i)
            .map(|&s| s as usize)
            .filter(|&s| self.slots.get(s).is_some_and(|slot| slot.index as usize == i));
        match slot {
            Some(s) => self.velocity_in_slot(bodies, (grid, &mut new_lines()), s, dt),
            None if bodies[i].moving => self.plan(bodies, (grid, &mut new_lines()), (bodies[i], i, None), dt),
            None => bodies[i].velocity,
        }
    }

    /// [`velocity`](Self::velocity) of the body in slot `s`.
    fn velocity_in_slot(
        &self,
        bodies: &[Body],
        (grid, lines): (&Grid, &mut Lines),
        s: usize,
        dt: f32,
    ) -> Vec2 {
        let slot = &self.slots[s];
        if !slot.moving {
            return slot.velocity;
        }
        if slot.coasting {
            // Not its turn to plan (`AvoidanceSettings::plan_every`).
            return slot.planned;
        }
        if slot.asleep {
            return Vec2::ZERO;
        }
        self.plan(bodies, (grid, lines), (slot.body(), slot.index as usize, Some(s)), dt)
    }

    /// The velocity moving body `me` (body `i`, in slot `slot` once prepared) plans this frame
    /// (see [`velocity`](Self::velocity)).
    fn plan(
        &self,
        bodies: &[Body],
        (grid, lines): (&Grid, &mut Lines),
        (me, i, slot): (Body, usize, Option<usize>),
        dt: f32,
    ) -> Vec2 {
        let near = self.neighbours(me, i);
        let wanted = me.preferred;
        // An idle body in the way of a stuck one makes room (see `make_room`).
        let room = slot.and_then(|s| self.room.get(s)).copied().unwrap_or(Vec2::ZERO);
        let me = if room == Vec2::ZERO {
            me
        } else {
            // Out of the way (idle, or giving way face to face), not on its way anywhere: it
            // never leads a queue.
            Body { preferred: room, distance: f32::INFINITY, ..me }
        };
        // Jostled only where no stream comes the other way: there lanes, not shoving, let both
        // through. (The stream is looked for only when it matters: most bodies are not stuck.)
        // Never while making room: that way is chosen.
        let jostle = me.stuck >= JOSTLE_AFTER && room == Vec2::ZERO && !near.1 && !self.stream_ahead(me);
        let me = if jostle { jostled(me, i) } else { me };
        let (v, program) = self.solve_among((grid, lines), me, &near, dt, Yield::None);
        let nearest = &near.0;
        if let (Some(s), Some(walls)) = (slot, program)
            && !jostle
            && room == Vec2::ZERO
            && me.stuck < QUEUE_PUSH_AFTER
            && v == wanted
            && wanted != Vec2::ZERO
        {
            // Calm: it goes where it wants, is not held up, and no line comes near to bounding
            // it.
            let spare = CALM_SLACK * me.max_speed;
            let calm = lines[..walls + nearest.nearest().len()]
                .iter()
                .all(|line| det(line.direction, v - line.point) >= spare);
            if calm {
                self.calm_plans.0[s].store(true, Relaxed);
            }
        }
        if me.preferred == Vec2::ZERO || headway(&me, me.velocity) >= STALLED || self.goes_by(&me, v, nearest)
        {
            return v;
        }
        let may_free = may_free(&me, (v, program), lines, nearest.nearest().len());
        for (k, &(_, s)) in nearest.nearest().iter().enumerate() {
            let other = &self.slots[s as usize];
            let j = other.index as usize;
            if other.is_walker() {
                // A body outside avoiding that means to walk (a walker on its own route) and
                // is held up: seen coming, it may leave a stalled body no velocity at all
                // (touching it, in a corner), while it in turn waits for that body. Both
                // would wait for good. Seen as standing where it stands, as it does, it
                // lets the stalled body get out of its way when it can.
                let freed = self.solve_among((grid, lines), me, &near, dt, Yield::still(j)).0;
                if headway(&me, freed) >= FREED {
                    return freed;
                }
                continue;
            }
            // Its slot, not `bodies[j]`: the same preferred velocity, already in the cache (a
            // jump into the bodies, in spawn order, was a tenth of this function's time).
            if !other.moving
                || other.preferred == Vec2::ZERO
                || headway(&other.body(), other.velocity) >= STALLED
            {
                continue;
            }
            // Does `j` alone hold `i` up?
            if may_free & (1 << k) == 0 {
                continue;
            }
            let mine = self.solve_among((grid, lines), me, &near, dt, Yield::Ignore(j)).0;
            if headway(&me, mine) < FREED {
                continue;
            }
            // And `i` alone `j`?
            let theirs_near = self.neighbours(bodies[j], j);
            let theirs_now = self.solve_among((grid, lines), bodies[j], &theirs_near, dt, Yield::None).0;
            if headway(&bodies[j], theirs_now) >= STALLED {
                continue;
            }
            let theirs = self.solve_among((grid, lines), bodies[j], &theirs_near, dt, Yield::Ignore(i)).0;
            if headway(&bodies[j], theirs) < FREED {
                continue;
            }
            return if i < j {
                mine
            } else {
                self.solve_among((grid, lines), me, &near, dt, Yield::To(j, theirs)).0
            };
        }
        v
    }

    /// Whether body `j` alone holds body `i` up: `i` takes part in avoiding, wants to go
    /// somewhere, made almost no headway last frame and does not go its way at `velocity`,
    /// worked out for it this frame (headway at `velocity` counts, unless a walker is among
    /// its neighbours and it has been held up for a second: a walker's mover may hold it
    /// back); `j` is among its nearest neighbours, and without `j` it would make good headway.
    /// `j` may be a body that does not take part in avoiding (a walker on a route of its own,
    /// holding back for `i` while `i` cannot get out of its way): the caller can then make it
    /// step back. Asked of one `j`, not for the one body that holds `i` up: more than one
    /// neighbour may hold `i` up alone, and only a walker can be asked to step back.
    #[must_use]
    pub fn holds_up(
        &self,
        bodies: &[Body],
        grid: &Grid,
        j: usize,
        (i, velocity): (usize, Vec2),
        dt: f32,
    ) -> bool {
        let me = bodies[i];
        if !me.moving || me.preferred == Vec2::ZERO || headway(&me, me.velocity) >= STALLED {
            return false;
        }
        let near = self.neighbours(me, i);
        let is_near = near.0.nearest().iter().any(|&(_, s)| self.slots[s as usize].index as usize == j);
        is_near
            && !self.goes_by(&me, velocity, &near.0)
            && headway(&me, self.solve_among((grid, &mut new_lines()), me, &near, dt, Yield::Ignore(j)).0)
                >= FREED
    }

    /// Whether `me` goes its way at velocity `v`, worked out for it this frame among its
    /// `nearest` neighbours: `v` makes headway, unless a walker is among them and `me` has
    /// been held up for [`UNREALISED_AFTER`]. A walker is seen going where it means to go,
    /// but its own mover may hold it back for `me`: the velocity worked out against it can
    /// then be the least bad of the linear program (the walker seen coming one way, `me`'s
    /// own group the other), pointing `me`'s way while walls and the positional pass keep
    /// `me` where it is, frame after frame, and the walker waits for good. Among bodies that
    /// all take part, a velocity that makes headway is what they agreed on and is believed.
    fn goes_by(&self, me: &Body, v: Vec2, nearest: &Nearest) -> bool {
        headway(me, v) >= STALLED
            && (me.stuck < UNREALISED_AFTER
                || !nearest.nearest().iter().any(|&(_, s)| self.slots[s as usize].is_walker()))
    }

    /// The velocity of `me` (a moving body) among its nearest neighbours and whether one in its
    /// way comes the other way (`near`, from [`neighbours`](Self::neighbours)), with one
    /// neighbour ignored or given way to as `how` says; and when the linear program found a
    /// velocity every line allows, how many wall lines come first in `lines` (the neighbours'
    /// follow, in the order of `near`, but for one ignored).
    fn solve_among(
        &self,
        (grid, lines): (&Grid, &mut Lines),
        me: Body,
        near: &(Nearest, bool),
        dt: f32,
        how: Yield,
    ) -> (Vec2, Option<usize>) {
        let (nearest, oncoming) = (&near.0, near.1);
        // The neighbours' lines go after room for the walls', and move down next to them. Each
        // call writes all it reads of `lines`.
        let mut found = 0;
        for &(_, s) in nearest.nearest() {
            let slot = &self.slots[s as usize];
            let line = match how {
                Yield::Ignore(j) if slot.index as usize == j => continue,
                // All of the avoiding, of the velocity it goes on at.
                Yield::To(j, velocity) if slot.index as usize == j => {
                    body_line(me, &Slot { velocity, moving: false, ..*slot }, self.settings.time_horizon, dt)
                }
                _ => match queue_order(&me, slot) {
                    // Behind me in my group's queue: it avoids me; I only keep from pressing in.
                    // (Coasting, it keeps to a velocity it planned avoiding me last frame.)
                    Ordering::Less => contact_line(me, slot, dt),
                    Ordering::Greater => {
                        // All of the avoiding for one held up at the head (it presses on),
                        // half for one on its way (it may stop any moment, as in plain ORCA).
                        let moving = slot.stuck < QUEUE_PUSH_AFTER && !slot.coasting;
                        body_line(me, &Slot { moving, ..*slot }, self.settings.time_horizon, dt)
                    }
                    // A coasting body does not avoid this frame: all of the avoiding.
                    Ordering::Equal => body_line(
                        me,
                        &Slot { moving: slot.moving && !slot.coasting, ..*slot },
                        self.settings.time_horizon,
                        dt,
                    ),
                },
            };
            lines[MAX_WALLS + found] = line;
            found += 1;
        }
        let others = &lines[MAX_WALLS..MAX_WALLS + found];
        // A body that wants to stand still and may (a packed crowd at rest): the linear program
        // would start at zero and keep it, as every wall allows standing still.
        if me.preferred == Vec2::ZERO && others.iter().all(|line| det(line.direction, line.point) <= 0.0) {
            return (Vec2::ZERO, None);
        }
        let walls = wall_lines(grid, me, self.settings.wall_horizon, &mut lines[..MAX_WALLS]);
        let preferred = self.keep_to_side(me, oncoming);
        let count = walls + found;
        lines.copy_within(MAX_WALLS..MAX_WALLS + found, walls);
        let lines = &lines[..count];
        let mut v = Vec2::ZERO;
        let failed = linear_program2(lines, me.max_speed, preferred, false, &mut v);
        if failed < lines.len() {
            linear_program3(lines, walls, failed, me.max_speed, &mut v);
            return (v, None);
        }
        (v, Some(walls))
    }

    /// Body `i`'s nearest neighbours within reach, and whether one in its way comes the other
    /// way. Scans the 3 × 3 cells around it first; the cells farther out (up to
    /// [`LOOKAHEAD`] beyond touching) only when a nearer neighbour could still lie there, and
    /// then only those ahead of it when all it still needs to know is whether one comes its way.
    fn neighbours(&self, me: Body, i: usize) -> (Nearest, bool) {
        let k = self.settings.max_neighbours.min(MAX_NEIGHBOURS);
        #[expect(clippy::cast_possible_truncation, reason = "fewer than 2^32 bodies")]
        let mut scan = Scan {
            me,
            me_index: i as u32,
            heading: me.preferred.normalize_or_zero(),
            // Nobody joins an empty list: the limit stays below every distance.
            nearest: Nearest {
                k,
                found: 0,
                limit: if k == 0 { f32::NEG_INFINITY } else { f32::INFINITY },
                pairs: [(0.0, 0); MAX_NEIGHBOURS],
            },
            oncoming: false,
        };
        let p = me.position;
        let reach = me.radius + self.max_radius + LOOKAHEAD;
        let (width, height) = self.buckets.size();
        let (cx, cy) = self.buckets.cell_of(p);
        let block =
            [cx.saturating_sub(1), cy.saturating_sub(1), (cx + 1).min(width - 1), (cy + 1).min(height - 1)];
        self.buckets.block_rows(block, |slots| scan.visit(&self.slots, slots, true));
        // Every body outside the block is at least this far (no cells beyond the map's edge).
        let gap = |has_cells: bool, d: f32| if has_cells { d } else { f32::INFINITY };
        let (fx, fy) = (cx as f32, cy as f32);
        let outside = gap(cx >= 2, p.x - (fx - 1.0))
            .min(gap(cx + 2 < width, fx + 2.0 - p.x))
            .min(gap(cy >= 2, p.y - (fy - 1.0)))
            .min(gap(cy + 2 < height, fy + 2.0 - p.y));
        if outside >= reach {
            return (scan.nearest, scan.oncoming);
        }
        let settled = scan.nearest.is_settled(outside * outside);
        if !settled {
            self.buckets.disc_rows((p, reach), (p - reach, p + reach), Some(block), |slots| {
                scan.visit(&self.slots, slots, true);
            });
        } else if !scan.oncoming && scan.heading != Vec2::ZERO {
            // Only bodies in the band ahead, as wide as two bodies, can come our way.
            let side = Vec2::new(-scan.heading.y, scan.heading.x) * (me.radius + self.max_radius);
            let far = p + scan.heading * reach;
            let low = (p - side).min(p + side).min(far - side).min(far + side);
            let high = (p - side).max(p + side).max(far - side).max(far + side);
            self.buckets.disc_rows((p, reach), (low, high), Some(block), |slots| {
                if !scan.oncoming {
                    scan.visit(&self.slots, slots, false);
                }
            });
        }
        (scan.nearest, scan.oncoming)
    }

    /// `me`'s preferred velocity, turned towards its right while a stream ahead comes the other
    /// way, and mostly sideways while a body coming the other way is right in its way.
    /// Whether bodies a few tiles ahead of `me` (behind the ones of its own stream, too) want
    /// to go the other way.
    fn stream_ahead(&self, me: Body) -> bool {
        if self.intent.is_empty() {
            return false;
        }
        let heading = me.preferred.normalize_or_zero();
        if heading == Vec2::ZERO {
            return false;
        }
        let (width, height) = self.buckets.size();
        STREAM_LOOKS.iter().any(|&ahead| {
            let p = me.position + heading * ahead;
            let inside = p.x >= 0.0 && p.y >= 0.0 && p.x < width as f32 && p.y < height as f32;
            // Walkers there going our way count +1, against -1: how many come against us.
            // (Most cells hold none: their intent, a cache miss away, is not read.)
            inside && {
                let c = self.buckets.cell_index(p);
                let walkers = self.walkers[c];
                walkers != 0 && (f32::from(walkers) - self.intent[c].dot(heading)) * 0.5 > STREAM_AGAINST
            }
        })
    }

    fn keep_to_side(&self, me: Body, in_the_way: bool) -> Vec2 {
        let speed = me.preferred.length();
        // The stream ahead is looked for last: it is the dearest test.
        if self.settings.pass_side <= 0.0 || speed < EPSILON || !(in_the_way || self.stream_ahead(me)) {
            return me.preferred;
        }
        let heading = me.preferred / speed;
        let right = Vec2::new(-heading.y, heading.x);
        // Face to face: mostly sideways, so the two make room instead of pressing on.
        let forward = if in_the_way { STEP_ASIDE_FORWARD } else { 1.0 };
        (heading * forward + right * self.settings.pass_side).normalize() * speed
    }

    /// [`velocity`](Self::velocity) for bodies `first..first + out.len()`, into `out`.
    pub fn velocities(&self, bodies: &[Body], grid: &Grid, dt: f32, first: usize, out: &mut [Vec2]) {
        let last = first + out.len();
        if self.slots.len() != bodies.len() {
            for (k, v) in out.iter_mut().enumerate() {
                *v = self.velocity(bodies, grid, first + k, dt);
            }
            return;
        }
        // In bucket order, not index order: consecutive bodies are neighbours, so their cells,
        // slots and lookups are already in the cache (a game's bodies come in spawn order,
        // scattered over the map).
        // One buffer for the linear programs of all: clearing one per body is a measurable
        // share of the frame.
        let lines = &mut new_lines();
        for (s, slot) in self.slots.iter().enumerate() {
            let i = slot.index as usize;
            if (first..last).contains(&i) {
                out[i - first] = self.velocity_in_slot(bodies, (grid, lines), s, dt);
            }
        }
    }

    /// [`velocity`](Self::velocity) of the bodies in slots `first..first + out.len()`, into
    /// `out`: in bucket order, a run of neighbouring bodies, as a caller splitting the bodies
    /// over threads wants them (each thread then reads its own part of the map, not every
    /// part); [`in_body_order`](Self::in_body_order) puts them back in the bodies' order.
    /// Before the bodies are prepared ([`prepare`](Self::prepare)), slot `s` is body `s`.
    pub fn velocities_by_slot(&self, bodies: &[Body], grid: &Grid, dt: f32, first: usize, out: &mut [Vec2]) {
        if self.slots.len() != bodies.len() {
            for (k, v) in out.iter_mut().enumerate() {
                *v = self.velocity(bodies, grid, first + k, dt);
            }
            return;
        }
        let lines = &mut new_lines();
        for (k, v) in out.iter_mut().enumerate() {
            *v = self.velocity_in_slot(bodies, (grid, lines), first + k, dt);
        }
    }

    /// `by_slot` (one value per slot, as [`velocities_by_slot`](Self::velocities_by_slot)
    /// gives them) in the bodies' order, into `out` (one per body).
    pub fn in_body_order<T: Copy>(&self, by_slot: &[T], out: &mut [T]) {
        if self.slots.len() != by_slot.len() {
            out.copy_from_slice(by_slot);
            return;
        }
        for (slot, &value) in self.slots.iter().zip(by_slot) {
            out[slot.index as usize] = value;
        }
    }

    /// Moves `positions` (the bodies' new centres, one per body, after they moved) apart where
    /// two bodies overlap and out of walls. A body that is not moving is never moved; one whose
    /// centre would end in a cell it cannot step to from its old cell (`bodies[i].position`)
    /// keeps its old position. Then bodies stuck long trade places
    /// ([`pass_through`](Self::pass_through)). The bodies must be prepared
    /// ([`prepare`](Self::prepare)).
    ///
    /// On one thread; a caller with threads can split the two per-body phases instead:
    /// [`overlapping`](Self::overlapping) by chunks, [`separate_overlapping`](Self::separate_overlapping),
    /// then [`settle`](Self::settle) by chunks, then [`pass_through`](Self::pass_through) — the
    /// same result.
    pub fn separate(&mut self, bodies: &[Body], grid: &Grid, positions: &mut [Vec2]) {
        self.note_drift(bodies, positions);
        self.separate_measured(bodies, grid, positions);
    }

    /// [`separate`](Self::separate) once the drift to `positions` is known.
    fn separate_measured(&mut self, bodies: &[Body], grid: &Grid, positions: &mut [Vec2]) {
        let mut flags = std::mem::take(&mut self.flags);
        flags.clear();
        flags.resize(bodies.len(), false);
        self.overlapping(bodies, grid, positions, 0, &mut flags);
        self.separate_overlapping(bodies, grid, positions, &flags);
        self.flags = flags;
        self.settle(bodies, grid, 0, positions);
        self.pass_through(bodies, grid, positions);
    }

    /// How far any body moved from where it was bucketed to `positions`: the overlap test
    /// looks that much farther than touching, and no farther.
    /// Also copies the moved centres in bucket order for [`overlapping`](Self::overlapping),
    /// which reads the rest of each body from its slot: a body's neighbours are then runs of
    /// memory, not a jump each (a game's bodies come in spawn order, scattered over the map).
    fn note_drift(&mut self, bodies: &[Body], positions: &[Vec2]) {
        if self.slots.len() != bodies.len() {
            // Bucketed but not prepared: the slots as the bodies stand now.
            self.prepare_slots(bodies);
        }
        self.drift = bodies.iter().zip(positions).map(|(b, p)| b.position.distance(*p)).fold(0.0, f32::max);
        let mut moved = std::mem::take(&mut self.moved);
        moved.clear();
        moved.extend(self.buckets.order().iter().map(|&j| positions[j as usize]));
        self.moved = moved;
    }

    /// Whether each of the bodies in slots `first..first + out.len()` (bucket order: slot `s`
    /// is body `order()[s]`), at `positions` (one per body, from [`integrate`](Self::integrate)),
    /// is moving and overlaps another body beyond the tolerance or a wall, into `out`. In
    /// bucket order, not body order: neighbouring bodies are worked out one after the other,
    /// so their cells, walls and neighbours are already in the cache (a game's bodies come in
    /// spawn order, scattered over the map). Reads only: callers may split the slots over
    /// threads.
    pub fn overlapping(
        &self,
        bodies: &[Body],
        grid: &Grid,
        positions: &[Vec2],
        first: usize,
        out: &mut [bool],
    ) {
        let (moved, slots) = (&self.moved, &self.slots);
        debug_assert_eq!(moved.len(), bodies.len(), "positions from `integrate` or `separate`");
        for (k, flag) in out.iter_mut().enumerate() {
            let s = first + k;
            let (me, p) = (&slots[s], moved[s]);
            debug_assert_eq!(p, positions[me.index as usize]);
            if !me.moving {
                *flag = false;
                continue;
            }
            // Bodies moved since they were bucketed (by `drift` at most): look that much farther.
            let reach = me.radius + self.max_radius + self.drift;
            let mut overlaps = false;
            self.buckets.square_rows(p, reach, |run| {
                overlaps = overlaps
                    || run.into_iter().any(|t| {
                        t != s && too_close(p.distance_squared(moved[t]), me.radius + slots[t].radius)
                    });
            });
            *flag = overlaps || out_of_walls_from(grid, (me.position, me.radius), p) != p;
        }
    }

    /// The positional pass's rounds (Gauss-Seidel over the bodies that still overlap), starting
    /// from the bodies `overlapping` flags (one per slot, from [`overlapping`](Self::overlapping)
    /// at these `positions`); then [`settle`](Self::settle) finishes the pass.
    pub fn separate_overlapping(
        &mut self,
        bodies: &[Body],
        grid: &Grid,
        positions: &mut [Vec2],
        overlapping: &[bool],
    ) {
        // The rounds work in bucket order on a copy of the centres (slot `s` is body
        // `order[s]`): a body's neighbours are a few runs of consecutive slots.
        let mut active = std::mem::take(&mut self.active);
        let mut next = std::mem::take(&mut self.next);
        let mut marks = std::mem::take(&mut self.marks);
        let mut centres = std::mem::take(&mut self.centres);
        if self.slots.len() != bodies.len() {
            // Bucketed but not prepared: the slots as the bodies stand now.
            self.prepare_slots(bodies);
        }
        let order = self.buckets.order();
        let slots = &self.slots;
        centres.clear();
        centres.extend(order.iter().map(|&i| positions[i as usize]));
        active.clear();
        #[expect(clippy::cast_possible_truncation, reason = "fewer than 2^32 bodies")]
        active.extend((0..slots.len()).filter(|&s| overlapping[s]).map(|s| s as u32));
        marks.clear();
        marks.resize(slots.len(), u32::MAX);
        for pass in 0..self.settings.separation_passes {
            if active.is_empty() {
                break;
            }
            next.clear();
            for &s in &active {
                let s = s as usize;
                // Its slot, not `bodies`: the same body, read in bucket order.
                let (from, radius) = (slots[s].position, slots[s].radius);
                let reach = radius + self.max_radius + SEPARATION_SLACK;
                self.buckets.square_rows(centres[s], reach, |run| {
                    for t in run {
                        if t != s && push_apart(slots, &mut centres, s, t) {
                            for k in [s, t] {
                                if slots[k].moving && marks[k] != pass {
                                    marks[k] = pass;
                                    #[expect(
                                        clippy::cast_possible_truncation,
                                        reason = "fewer than 2^32 bodies"
                                    )]
                                    next.push(k as u32);
                                }
                            }
                        }
                    }
                });
                // Out of the walls: a body pushed into one goes back towards the body that
                // pushed it, so it takes its turn again next round (else that overlap stays).
                let out = out_of_walls_from(grid, (from, radius), centres[s]);
                if out != centres[s] {
                    centres[s] = out;
                    if marks[s] != pass {
                        marks[s] = pass;
                        #[expect(clippy::cast_possible_truncation, reason = "fewer than 2^32 bodies")]
                        next.push(s as u32);
                    }
                }
            }
            std::mem::swap(&mut active, &mut next);
        }
        let mut before = std::mem::take(&mut self.before);
        before.clear();
        before.extend_from_slice(positions);
        let mut clear = std::mem::take(&mut self.clear);
        clear.clear();
        clear.resize(positions.len(), false);
        for (s, (&i, &c)) in order.iter().zip(&centres).enumerate() {
            let i = i as usize;
            clear[i] = !overlapping[s] && positions[i] == c;
            positions[i] = c;
        }
        self.before = before;
        self.clear = clear;
        self.centres = centres;
        self.active = active;
        self.next = next;
        self.marks = marks;
    }

    /// Finishes the positional pass for bodies `first..first + out.len()` (`out`: their
    /// centres after [`separate_overlapping`](Self::separate_overlapping)): no body pushed
    /// farther than [`AvoidanceSettings::max_push`] this frame, none left in a wall, none
    /// across a cell border it may not cross (it keeps its old position). Reads only the
    /// avoidance: callers may split the bodies over threads. It trusts this frame's
    /// [`separate_overlapping`](Self::separate_overlapping) (with the flags
    /// [`overlapping`](Self::overlapping) gave at the same positions): a body those found clear
    /// of the walls and left where it was is not tested for walls again.
    pub fn settle(&self, bodies: &[Body], grid: &Grid, first: usize, out: &mut [Vec2]) {
        for (k, position) in out.iter_mut().enumerate() {
            let (body, before) = (&bodies[first + k], self.before[first + k]);
            if !body.moving {
                continue;
            }
            let p = before + (*position - before).clamp_length_max(self.settings.max_push);
            let p = if self.clear[first + k] && p == *position {
                // Where the overlap test found it clear of the walls.
                p
            } else {
                let pushed = out_of_walls(grid, body, p);
                // A push out of one wall leads into another only in an inner corner: once more
                // then.
                if pushed == p { p } else { out_of_walls(grid, body, pushed) }
            };
            *position = if crossing_is_legal(grid, body.position, p) { p } else { body.position };
        }
    }

    /// The last resort of a body stuck pressing on an idle body of another
    /// [group](Body::group) (or of none) that cannot make room, or face to face with a body of
    /// another group stuck as long where neither can pass nor back out: after [`SWAP_AFTER`]
    /// seconds stuck, the two trade places (`positions`, one per body, after
    /// [`settle`](Self::settle)).
    /// Making room needs room: in a passage packed with another group's arrived units (a ring
    /// filling two-wide maze corridors) no idle body can step aside, and ORCA and the
    /// positional pass leave a body passing through where it is for good. An arrived unit
    /// serves its ring as well one place further back, and each trade takes the stuck body a
    /// place on towards its goal, so a group always gets through another's ring. Only between
    /// bodies of one radius (each fits where the other stood, clear of the walls and of every
    /// other body), each body once a frame, and only by a legal crossing for both; never with a
    /// body of its own group (a unit reaching its ring arrives there). Face to face, both gain
    /// a place: where giving way (`give_way`) cannot back the one that
    /// yields out (another group's arrived units behind it, seeded scene 55), they stood for good.
    /// The bodies must be prepared ([`prepare`](Self::prepare)) for `bodies`.
    pub fn pass_through(&mut self, bodies: &[Body], grid: &Grid, positions: &mut [Vec2]) {
        // Last frame's trades are forgotten (a pass over every body only after a frame with
        // trades).
        if self.traded_any {
            self.traded.fill(false);
            self.traded_any = false;
        }
        self.traded.resize(bodies.len(), false);
        if self.slots.len() != bodies.len() {
            return;
        }
        let Self { slots, buckets, traded, traded_any, max_radius, .. } = self;
        for (s, presser) in slots.iter().enumerate() {
            if !presser.moving || presser.preferred == Vec2::ZERO || presser.stuck < SWAP_AFTER {
                continue;
            }
            let me = presser.index as usize;
            if traded[me] {
                continue;
            }
            let heading = presser.preferred.normalize();
            let reach = presser.radius + *max_radius + MAKE_ROOM_GAP;
            // The body nearest ahead in its path that it may trade with.
            let mut best: Option<(f32, usize)> = None;
            buckets.square_rows(presser.position, reach, |run| {
                for t in run {
                    let other = &slots[t];
                    let them = other.index as usize;
                    if t == s
                        || !other.moving
                        || (presser.group != 0 && other.group == presser.group)
                        || traded[them]
                        || (other.radius - presser.radius).abs() > 1e-4
                    {
                        continue;
                    }
                    // Idle and in its path, or walking the other way stuck as long, face to face
                    // with it (where neither can pass, and neither can back out).
                    let in_path = if other.preferred == Vec2::ZERO {
                        in_the_way(presser, heading, other)
                    } else {
                        other.stuck >= SWAP_AFTER
                            && other.preferred.dot(heading) < 0.0
                            && each_in_the_way((presser, heading), (other, other.preferred.normalize()))
                    };
                    if !in_path {
                        continue;
                    }
                    let ahead = (other.position - presser.position).dot(heading);
                    if best.is_none_or(|(a, _)| ahead < a) {
                        best = Some((ahead, them));
                    }
                }
            });
            let Some((_, them)) = best else { continue };
            let (mine, theirs) = (positions[me], positions[them]);
            // Onwards for the stuck one (and for the other, walking), by steps both may take.
            if (theirs - mine).dot(heading) > 0.0
                && (mine - theirs).dot(bodies[them].preferred) >= 0.0
                && crossing_is_legal(grid, bodies[me].position, theirs)
                && crossing_is_legal(grid, bodies[them].position, mine)
            {
                positions[me] = theirs;
                positions[them] = mine;
                traded[me] = true;
                traded[them] = true;
                *traded_any = true;
            }
        }
    }

    /// Whether body `i` traded places in this frame's [`pass_through`](Self::pass_through):
    /// its move this frame is no walk, so a caller records the velocity it planned, not its
    /// displacement over the frame (a place's width in one frame, some 30 tiles a second, would
    /// throw its neighbours' next plans and its own reciprocity off).
    #[must_use]
    pub fn traded(&self, i: usize) -> bool {
        self.traded.get(i).copied().unwrap_or(false)
    }

    /// The velocity body `i` walked at this frame, from `from` to `to` in `dt` seconds, with
    /// `planned` the velocity avoidance picked for it: its displacement over `dt`, the planned
    /// velocity where it traded places ([`traded`](Self::traded)), or zero where no time
    /// passed (a paused frame: bodies that stood still stay asleep).
    #[must_use]
    pub fn walked(&self, i: usize, (from, to): (Vec2, Vec2), planned: Vec2, dt: f32) -> Vec2 {
        if self.traded(i) {
            planned
        } else if dt > 0.0 {
            (to - from) / dt
        } else {
            Vec2::ZERO
        }
    }

    /// One frame on one thread: new velocities, moved bodies, separated. Updates `position`
    /// and `velocity` of every moving body.
    pub fn step(&mut self, bodies: &mut [Body], grid: &Grid, dt: f32, velocities: &mut Vec<Vec2>) {
        self.prepare(bodies, grid);
        velocities.clear();
        velocities.resize(bodies.len(), Vec2::ZERO);
        self.velocities(bodies, grid, dt, 0, velocities);
        let mut positions = std::mem::take(&mut self.positions);
        self.advance(bodies, grid, dt, velocities, &mut positions);
        self.move_bodies(bodies, &positions, velocities, dt);
        self.positions = positions;
    }

    /// Puts every moving body where this frame took it (`positions`), with the velocity it
    /// planned (`planned`, one per body) and the one it [`walked`](Self::walked) at over `dt`
    /// seconds: the bodies for the next frame.
    pub fn move_bodies(&self, bodies: &mut [Body], positions: &[Vec2], planned: &[Vec2], dt: f32) {
        for (i, ((body, p), v)) in bodies.iter_mut().zip(positions).zip(planned).enumerate() {
            if body.moving {
                body.velocity = self.walked(i, (body.position, *p), *v, dt);
                body.planned = *v;
                body.position = *p;
            }
        }
    }

    /// The bodies' centres after `dt` seconds at their new `velocities` (one per body), then
    /// [`separate`](Self::separate)d, into `positions`. Bodies that are not moving stay put.
    pub fn advance(
        &mut self,
        bodies: &[Body],
        grid: &Grid,
        dt: f32,
        velocities: &[Vec2],
        positions: &mut Vec<Vec2>,
    ) {
        self.integrate(bodies, dt, velocities, positions);
        self.separate_measured(bodies, grid, positions);
    }

    /// The bodies' centres after `dt` seconds at their new `velocities` (one per body), into
    /// `positions`, before the positional pass. Bodies that are not moving stay put.
    pub fn integrate(&mut self, bodies: &[Body], dt: f32, velocities: &[Vec2], positions: &mut Vec<Vec2>) {
        positions.clear();
        positions.extend(
            bodies
                .iter()
                .zip(velocities)
                .map(|(b, v)| if b.moving { b.position + *v * dt } else { b.position }),
        );
        if self.slots.len() == bodies.len() {
            // Prepared for these bodies: which planned to stand still at rest, and which planned
            // their preferred velocity, for `turns_rest_and_intent`.
            for (s, (slot, room)) in self.slots.iter().zip(&self.room).enumerate() {
                let planned = slot.moving && !slot.coasting && !slot.asleep;
                let i = slot.index as usize;
                if !planned {
                    // Coasting keeps it calm; standing out of avoiding does not.
                    self.calm[i] &= slot.moving;
                    continue;
                }
                let v = velocities[i];
                self.calm[i] = self.calm_plans.0[s].load(Relaxed);
                if *room == Vec2::ZERO && slot.preferred == Vec2::ZERO && v == Vec2::ZERO {
                    self.resting.planned_still(i, slot.position);
                }
            }
        }
        self.note_drift(bodies, positions);
    }
}

/// Where a body at `position` following a field's step from cell `here` to cell `next` should
/// steer: along the step from where it stands (a stream keeps its width instead of queuing on
/// cell centres), unless its body would touch a cell it cannot enter on the way — then at
/// `next`'s centre, which the step makes safe.
#[must_use]
pub fn step_aim(grid: &Grid, position: Vec2, radius: f32, here: Pos, next: Pos) -> Vec2 {
    let centre = |p: Pos| Vec2::new(p.x as f32 + 0.5, p.y as f32 + 0.5);
    let step = centre(next) - centre(here);
    let class = class_at(grid, position);
    let clear = |p: Vec2| {
        let mut clear = true;
        // A little less than the radius: a body flush against a wall it walks along is clear.
        blocked_near(grid, p, radius * 0.9, class, |_| clear = false);
        clear
    };
    if clear(position + step * 0.5) && clear(position + step) { position + step } else { centre(next) }
}

/// `body` as it wants to go this frame: turned aside by a pseudo-random angle, the same
/// through each [`JOSTLE_PERIOD`], once it is stuck (see [`Body::stuck`]).
fn jostled(body: Body, i: usize) -> Body {
    if body.stuck < JOSTLE_AFTER || body.preferred == Vec2::ZERO {
        return body;
    }
    #[expect(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "a phase count")]
    let phase = ((body.stuck - JOSTLE_AFTER) / JOSTLE_PERIOD) as u64;
    // splitmix64 of the body and the phase: a different turn for each, no state kept.
    let mut z = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ phase.wrapping_add(0xD1B5_4A32_D192_ED03);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    #[expect(clippy::cast_precision_loss, reason = "any angle will do")]
    let share = (z >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0;
    Body { preferred: Vec2::from_angle(share * JOSTLE_ANGLE).rotate(body.preferred), ..body }
}

/// Steps across a passage at which the open width is measured, per tile.
const ACROSS_STEPS: f32 = 8.0;

/// How wide the open ground of `p`'s class is across `heading` (a unit vector) through `p`,
/// in tiles, up to `most`: the sum of the open reach on either side, sampled every
/// 1 / [`ACROSS_STEPS`] of a tile.
fn open_across(grid: &Grid, p: Vec2, heading: Vec2, most: f32) -> f32 {
    let class = class_at(grid, p);
    let side = Vec2::new(-heading.y, heading.x);
    let reach = |way: Vec2| {
        let mut open = 0.0;
        while open < most && class_at(grid, p + way * (open + 1.0 / ACROSS_STEPS)) == class {
            open += 1.0 / ACROSS_STEPS;
        }
        open
    };
    reach(side) + reach(-side)
}

/// Whether `other` stands in the path of `presser` going along `heading` (a unit vector):
/// ahead of it, less than a body's width aside, within [`MAKE_ROOM_GAP`] beyond touching.
fn in_the_way(presser: &Slot, heading: Vec2, other: &Slot) -> bool {
    let ahead = other.position - presser.position;
    let touch = presser.radius + other.radius;
    ahead.dot(heading) > 0.0
        && det(heading, ahead).abs() < touch
        && ahead.length_squared() < (touch + MAKE_ROOM_GAP) * (touch + MAKE_ROOM_GAP)
}

/// Whether each of two bodies, going along its heading (a unit vector), stands in the other's
/// path ([`in_the_way`]): face to face or crossing.
fn each_in_the_way((a, a_heading): (&Slot, Vec2), (b, b_heading): (&Slot, Vec2)) -> bool {
    in_the_way(a, a_heading, b) && in_the_way(b, b_heading, a)
}

/// Which way (a unit vector) `other`, in the path of `presser` going along `heading`, makes
/// room: aside to the side it stands on, and a little onwards, where there is open ground as
/// far as it must go to clear the path (across it, to the other side) plus its radius; else
/// to the other side; else (walls on both sides: a one-tile passage) straight on.
fn room_way(grid: &Grid, presser: &Slot, heading: Vec2, other: &Slot) -> Vec2 {
    let ahead = other.position - presser.position;
    let touch = presser.radius + other.radius;
    let lateral = det(heading, ahead);
    let side = if lateral >= 0.0 { 1.0 } else { -1.0 };
    let aside = Vec2::new(-heading.y, heading.x) * side;
    let class = class_at(grid, other.position);
    let open = |way: Vec2, clear: f32| class_at(grid, other.position + way * (clear + other.radius)) == class;
    if open(aside, touch - lateral.abs()) {
        (aside + heading * 0.5).normalize()
    } else if open(-aside, touch + lateral.abs()) {
        (-aside + heading * 0.5).normalize()
    } else {
        heading
    }
}

/// Where `me` stands against `other` in their group's queue (see [`Body::distance`]): `Less`
/// ahead of it, `Greater` behind it, `Equal` when neither queues behind the other (other
/// groups, no group, idle or unknown distances, a tie).
fn queue_order(me: &Body, other: &Slot) -> Ordering {
    let queues = me.group != 0
        && me.group == other.group
        && me.moving
        && me.preferred != Vec2::ZERO
        && me.distance.is_finite()
        && other.distance.is_finite();
    if queues { me.distance.partial_cmp(&other.distance).unwrap_or(Ordering::Equal) } else { Ordering::Equal }
}

/// The constraint on `me`, ahead in its group's queue, from `other` behind it: not into it
/// this frame deeper than [`QUEUE_PUSH`], whatever `other` does. It is `other` that avoids;
/// the shallow push lets the head of a crowd that presses on it from behind and from the
/// sides make its way (under ORCA, touching bodies at rest can never move closer: the
/// pressing crowd's arch holds), and the positional pass parts the two.
fn contact_line(me: Body, other: &Slot, dt: f32) -> Line {
    let apart = me.position - other.position;
    let d = apart.length();
    let away = if d > EPSILON { apart / d } else { Vec2::X };
    let gap = d - me.radius - other.radius;
    // Only a body held up presses on: one on its way has no need to, and every press makes
    // the one behind it give a hair of ground (a jitter in a moving queue).
    let push = if me.stuck >= QUEUE_PUSH_AFTER { QUEUE_PUSH } else { 0.0 };
    // Allowed: velocities v with v · away ≥ -(gap + push) / dt.
    let least = -(gap + push) / dt.max(1e-3);
    Line { point: away * least, direction: Vec2::new(away.y, -away.x) }
}

/// Whether two bodies whose radii sum to `sum`, their centres `d2` apart squared, overlap by
/// more than the positional pass leaves alone.
fn too_close(d2: f32, sum: f32) -> bool {
    let floor = sum * (1.0 - OVERLAP_TOLERANCE);
    d2 < floor * floor
}

/// Moves the bodies in slots `s` and `t` apart (their centres in `centres`, by slot) if they
/// overlap by more than the tolerance: half each when both move, all of it by the one that
/// moves otherwise. Returns whether it moved them.
fn push_apart(slots: &[Slot], centres: &mut [Vec2], s: usize, t: usize) -> bool {
    let sum = slots[s].radius + slots[t].radius;
    let apart = centres[s] - centres[t];
    let d2 = apart.length_squared();
    if !too_close(d2, sum) {
        return false;
    }
    let d = d2.sqrt();
    let away =
        if d > 1e-5 { apart / d } else { split_direction(slots[s].index as usize, slots[t].index as usize) };
    // A little beyond touching, so a chain of bodies settles in fewer rounds.
    let overlap = sum * (1.0 + OVERLAP_TOLERANCE) - d;
    if slots[t].moving {
        centres[s] += away * (overlap * 0.5);
        centres[t] -= away * (overlap * 0.5);
    } else {
        centres[s] += away * overlap;
    }
    true
}

/// A direction to split bodies `i` and `j` found on the same point: opposite for the two,
/// different for different pairs.
#[must_use]
pub fn split_direction(i: usize, j: usize) -> Vec2 {
    let (low, high) = (i.min(j), i.max(j));
    // The golden angle spreads pairs evenly around the circle.
    #[expect(clippy::cast_precision_loss, reason = "any angle will do")]
    let angle = (low.wrapping_mul(31) ^ high) as f32 * 2.399_963;
    let direction = Vec2::from_angle(angle);
    if i < j { direction } else { -direction }
}

/// `v` rounded down to a cell coordinate: integer arithmetic instead of a call to libm's
/// `floorf` (x86-64 without SSE4.1 has no rounding instruction).
#[expect(clippy::cast_possible_truncation, reason = "saturates far off the map, which is off the map still")]
fn floor(v: f32) -> i32 {
    let t = v as i32;
    if t as f32 > v { t - 1 } else { t }
}

/// The terrain class a body standing at `p` has (0 off the map or in a wall).
fn class_at(grid: &Grid, p: Vec2) -> u8 {
    cell_class(grid, floor(p.x), floor(p.y))
}

/// The class of cell `(x, y)`, 0 off the map.
#[expect(clippy::cast_sign_loss, reason = "range-checked")]
fn cell_class(grid: &Grid, x: i32, y: i32) -> u8 {
    if x < 0 || y < 0 || x >= grid.width().cast_signed() || y >= grid.height().cast_signed() {
        return 0;
    }
    grid.class_at(grid.index(Pos::new(x as u32, y as u32)))
}

/// Whether every cell of `x0..=x1` × `y0..=y1` is on the map and of class `class`, read from
/// the grid's clearance (squares of one class) in a few lookups instead of one per cell.
#[expect(clippy::cast_sign_loss, reason = "range-checked")]
fn all_of_class(grid: &Grid, (x0, y0): (i32, i32), (x1, y1): (i32, i32), class: u8) -> bool {
    if x0 < 0 || y0 < 0 || x1 >= grid.width().cast_signed() || y1 >= grid.height().cast_signed() {
        return false;
    }
    // Squares of this side tile the rectangle (the last of a row or column overlapping).
    let side = (x1 - x0 + 1).min(y1 - y0 + 1).min(i32::from(MAX_AGENT_SIZE));
    let mut y = y0;
    loop {
        let top = y.min(y1 + 1 - side);
        let mut x = x0;
        loop {
            let left = x.min(x1 + 1 - side);
            let at = grid.index(Pos::new(left as u32, top as u32));
            if i32::from(grid.clearance_at(at)) < side || grid.class_at(at) != class {
                return false;
            }
            if left + side > x1 {
                break;
            }
            x += side;
        }
        if top + side > y1 {
            return true;
        }
        y += side;
    }
}

/// The cells a square of half-side `reach` around `p` touches that a body of class `class`
/// cannot enter, each as its top-left corner.
#[expect(clippy::cast_precision_loss, reason = "cell coordinates near the map are exact in f32")]
fn blocked_cells(grid: &Grid, p: Vec2, reach: f32, class: u8, mut each: impl FnMut(Vec2)) {
    let (x0, x1) = (floor(p.x - reach), floor(p.x + reach));
    let (y0, y1) = (floor(p.y - reach), floor(p.y + reach));
    // Open ground (most of a map, most of the time): nothing to walk.
    if all_of_class(grid, (x0, y0), (x1, y1), class) {
        return;
    }
    for y in y0..=y1 {
        for x in x0..=x1 {
            if cell_class(grid, x, y) != class {
                each(Vec2::new(x as f32, y as f32));
            }
        }
    }
}

/// The point of the cell with top-left corner `cell` nearest to `p`.
fn nearest_in(cell: Vec2, p: Vec2) -> Vec2 {
    p.clamp(cell, cell + Vec2::ONE)
}

/// The cells within `reach` of `p` that a body of class `class` cannot enter, each as its point
/// nearest to `p`.
fn blocked_near(grid: &Grid, p: Vec2, reach: f32, class: u8, mut each: impl FnMut(Vec2)) {
    blocked_cells(grid, p, reach, class, |cell| {
        let nearest = nearest_in(cell, p);
        if nearest.distance_squared(p) < reach * reach {
            each(nearest);
        }
    });
}

/// Velocity constraints keeping `me` clear of the walls for `horizon` seconds, into `lines`;
/// returns how many. Each allows standing still, so the walls alone are always satisfiable.
fn wall_lines(grid: &Grid, me: Body, horizon: f32, lines: &mut [Line]) -> usize {
    let class = class_at(grid, me.position);
    let reach = me.radius + me.max_speed * horizon;
    let mut count = 0;
    blocked_near(grid, me.position, reach, class, |nearest| {
        if count == lines.len() {
            return;
        }
        let towards = nearest - me.position;
        let d = towards.length();
        if d < 1e-6 {
            return;
        }
        let n = towards / d;
        // v · n <= c: at most this fast towards the wall.
        let c = ((d - me.radius) / horizon).max(0.0);
        lines[count] = Line { point: n * c, direction: Vec2::new(-n.y, n.x) };
        count += 1;
    });
    count
}

/// `p` moved so that a body of `body`'s radius and class overlaps no wall around it.
fn out_of_walls(grid: &Grid, body: &Body, p: Vec2) -> Vec2 {
    out_of_walls_from(grid, (body.position, body.radius), p)
}

/// [`out_of_walls`] for a body of radius `r` that stood at `from` before it moved.
fn out_of_walls_from(grid: &Grid, (from, r): (Vec2, f32), p: Vec2) -> Vec2 {
    let class = class_at(grid, from);
    let mut moved = p;
    blocked_cells(grid, p, r, class, |cell| {
        // Each push starts from where the pushes before left the body.
        let nearest = nearest_in(cell, moved);
        let out = moved - nearest;
        let d = out.length();
        if d < r {
            // A centre inside the cell goes back to where it came from.
            moved = if d > 1e-6 { nearest + out / d * r } else { from };
        }
    });
    moved
}

/// Whether a centre moving from `from` to `to` stays in its cell or enters a neighbouring cell
/// of its class without cutting a corner.
fn crossing_is_legal(grid: &Grid, from: Vec2, to: Vec2) -> bool {
    let (fx, fy, tx, ty) = (floor(from.x), floor(from.y), floor(to.x), floor(to.y));
    if fx == tx && fy == ty {
        return true;
    }
    let class = cell_class(grid, fx, fy);
    if tx.abs_diff(fx) > 1 || ty.abs_diff(fy) > 1 || cell_class(grid, tx, ty) != class {
        return false;
    }
    fx == tx || fy == ty || (cell_class(grid, tx, fy) == class && cell_class(grid, fx, ty) == class)
}

fn det(a: Vec2, b: Vec2) -> f32 {
    a.x * b.y - a.y * b.x
}

/// The ORCA half-plane of velocities that keep `me` clear of `other` for `horizon` seconds
/// (RVO2's construction). A moving neighbour takes half of the avoiding; one that is not
/// moving none of it.
fn body_line(me: Body, other: &Slot, horizon: f32, dt: f32) -> Line {
    let relative_position = other.position - me.position;
    let relative_velocity = me.velocity - other.velocity;
    let dist_sq = relative_position.length_squared();
    let r = me.radius + other.radius;
    let r_sq = r * r;
    let share = if other.moving { 0.5 } else { 1.0 };
    let (direction, u);
    if dist_sq > r_sq {
        // No collision yet: the velocity obstacle is the cone cut off at `horizon`.
        let w = relative_velocity - relative_position / horizon;
        let w_len_sq = w.length_squared();
        let dot1 = w.dot(relative_position);
        if dot1 < 0.0 && dot1 * dot1 > r_sq * w_len_sq {
            // Project on the cut-off circle.
            let w_len = w_len_sq.sqrt();
            let unit_w = w / w_len;
            direction = Vec2::new(unit_w.y, -unit_w.x);
            u = unit_w * (r / horizon - w_len);
        } else {
            // Project on a leg of the cone.
            let leg = (dist_sq - r_sq).sqrt();
            direction = if det(relative_position, w) > 0.0 {
                Vec2::new(
                    relative_position.x * leg - relative_position.y * r,
                    relative_position.x * r + relative_position.y * leg,
                ) / dist_sq
            } else {
                -Vec2::new(
                    relative_position.x * leg + relative_position.y * r,
                    -relative_position.x * r + relative_position.y * leg,
                ) / dist_sq
            };
            u = direction * relative_velocity.dot(direction) - relative_velocity;
        }
    } else {
        // Already overlapping: get apart within this frame.
        let inv_dt = 1.0 / dt.max(1e-3);
        let w = relative_velocity - relative_position * inv_dt;
        let w_len = w.length();
        let unit_w = if w_len > EPSILON { w / w_len } else { -relative_position.normalize_or(Vec2::X) };
        direction = Vec2::new(unit_w.y, -unit_w.x);
        u = unit_w * (r * inv_dt - w_len);
    }
    Line { point: me.velocity + u * share, direction }
}

/// Best velocity on line `line_no` within the disc of `radius`, subject to the lines before it.
fn linear_program1(
    lines: &[Line],
    line_no: usize,
    radius: f32,
    optimum: Vec2,
    direction_opt: bool,
    result: &mut Vec2,
) -> bool {
    let line = lines[line_no];
    let dot = line.point.dot(line.direction);
    let discriminant = dot * dot + radius * radius - line.point.length_squared();
    if discriminant < 0.0 {
        return false;
    }
    let root = discriminant.sqrt();
    let (mut t_left, mut t_right) = (-dot - root, -dot + root);
    for other in &lines[..line_no] {
        let denominator = det(line.direction, other.direction);
        let numerator = det(other.direction, line.point - other.point);
        if denominator.abs() <= EPSILON {
            if numerator < 0.0 {
                return false;
            }
            continue;
        }
        let t = numerator / denominator;
        if denominator >= 0.0 {
            t_right = t_right.min(t);
        } else {
            t_left = t_left.max(t);
        }
        if t_left > t_right {
            return false;
        }
    }
    let t = if direction_opt {
        if optimum.dot(line.direction) > 0.0 { t_right } else { t_left }
    } else {
        line.direction.dot(optimum - line.point).clamp(t_left, t_right)
    };
    *result = line.point + line.direction * t;
    true
}

/// The velocity closest to `optimum` (or furthest along it, with `direction_opt`) within the
/// disc of `radius` that satisfies every line; returns the index of the first line that could
/// not be satisfied, or `lines.len()`.
fn linear_program2(
    lines: &[Line],
    radius: f32,
    optimum: Vec2,
    direction_opt: bool,
    result: &mut Vec2,
) -> usize {
    *result = if direction_opt {
        optimum * radius
    } else if optimum.length_squared() > radius * radius {
        optimum.normalize_or_zero() * radius
    } else {
        optimum
    };
    for (i, line) in lines.iter().enumerate() {
        if det(line.direction, line.point - *result) > 0.0 {
            let before = *result;
            if !linear_program1(lines, i, radius, optimum, direction_opt, result) {
                *result = before;
                return i;
            }
        }
    }
    lines.len()
}

/// When the lines leave no room (a dense crowd): the velocity that violates the body lines
/// least, keeping the first `walls` lines (walls) satisfied.
fn linear_program3(lines: &[Line], walls: usize, begin: usize, radius: f32, result: &mut Vec2) {
    let mut distance = 0.0;
    let mut projected = [Line::default(); MAX_WALLS + MAX_NEIGHBOURS];
    for i in begin..lines.len() {
        if det(lines[i].direction, lines[i].point - *result) <= distance {
            continue;
        }
        projected[..walls].copy_from_slice(&lines[..walls]);
        let mut count = walls;
        for j in walls..i {
            let determinant = det(lines[i].direction, lines[j].direction);
            let point = if determinant.abs() <= EPSILON {
                if lines[i].direction.dot(lines[j].direction) > 0.0 {
                    continue;
                }
                (lines[i].point + lines[j].point) * 0.5
            } else {
                lines[i].point
                    + lines[i].direction
                        * (det(lines[j].direction, lines[i].point - lines[j].point) / determinant)
            };
            let direction = (lines[j].direction - lines[i].direction).normalize_or_zero();
            // The same line through its point nearest the origin: two lines nearly parallel
            // meet far off (hundreds of tiles per second), where f32 keeps too few digits of
            // the velocity found on it (|v| came out up to 2 % above the top speed).
            let point = point - direction * point.dot(direction);
            projected[count] = Line { point, direction };
            count += 1;
        }
        let before = *result;
        let towards = Vec2::new(-lines[i].direction.y, lines[i].direction.x);
        if linear_program2(&projected[..count], radius, towards, true, result) < count {
            *result = before;
        }
        distance = det(lines[i].direction, lines[i].point - *result);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Tile;

    fn open(side: u32) -> Grid {
        Grid::filled(side, side, Tile::FLOOR).unwrap()
    }

    /// A body of radius 0.3 at (`x`, `y`) walking along x at `vx` tiles a second (top speed 4),
    /// as it planned and wants to.
    fn walking(x: f32, y: f32, vx: f32) -> Body {
        let v = Vec2::new(vx, 0.0);
        Body { velocity: v, planned: v, preferred: v, ..Body::new(Vec2::new(x, y), 0.3, 4.0) }
    }

    /// The linear programs never return a velocity above the top speed, also when the lines
    /// leave no room and near-parallel lines meet far off (a seeded sweep of crowded line
    /// sets; before the fix |v| came out up to 2 % above it in a 10,000-unit crowd).
    #[test]
    fn the_linear_programs_keep_within_the_top_speed() {
        use rand::{Rng, SeedableRng};
        use std::f32::consts::{PI, TAU};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let radius = 5.0;
        let mut worst = 0.0_f32;
        for _ in 0..20_000 {
            // Lines bunched round a few headings (nearly parallel pairs), through points near
            // the disc: a crowd pressing from one side.
            let count = rng.random_range(3..13);
            let base = rng.random_range(0.0..TAU);
            let lines: Vec<Line> = (0..count)
                .map(|_| {
                    let flip = if rng.random_bool(0.3) { PI } else { 0.0 };
                    let direction = Vec2::from_angle(base + rng.random_range(-0.01..0.01) + flip);
                    let normal = Vec2::new(direction.y, -direction.x);
                    let point =
                        normal * rng.random_range(-2.0..6.0) + direction * rng.random_range(-0.5..0.5);
                    Line { point, direction }
                })
                .collect();
            let preferred = Vec2::from_angle(rng.random_range(0.0..TAU)) * radius;
            let mut v = Vec2::ZERO;
            let failed = linear_program2(&lines, radius, preferred, false, &mut v);
            if failed < lines.len() {
                linear_program3(&lines, 0, failed, radius, &mut v);
            }
            worst = worst.max(v.length() / radius);
        }
        assert!(worst <= 1.0 + 1e-4, "a velocity {:.3} % above the top speed", (worst - 1.0) * 100.0);
    }

    /// `most_along` is the fastest a line alone lets a body go along its heading: no velocity
    /// of a feasible program with the line goes faster, velocities on the disc and the line come
    /// close, and a line nearly tangent to the disc (where rounding rules) claims nothing.
    #[test]
    fn one_line_caps_the_speed_along_the_heading_as_closely_as_velocities_reach() {
        use rand::{Rng, SeedableRng};
        use std::f32::consts::TAU;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let top = 4.0;
        let (mut programs, mut capped) = (0, 0);
        for _ in 0..5_000 {
            let preferred = Vec2::from_angle(rng.random_range(0.0..TAU)) * rng.random_range(0.5..top);
            let heading = preferred.normalize();
            let direction = Vec2::from_angle(rng.random_range(0.0..TAU));
            let normal = Vec2::new(direction.y, -direction.x);
            let point =
                normal * rng.random_range(-1.5 * top..1.5 * top) + direction * rng.random_range(-1.0..1.0);
            let line = Line { point, direction };
            let most = most_along(heading, top, &line);
            // The best velocity of many, within the top speed and allowed by the line.
            let mut best = f32::NEG_INFINITY;
            for k in 0..720 {
                for r in [0.25, 0.5, 0.75, 1.0] {
                    let v = Vec2::from_angle(k as f32 * TAU / 720.0) * top * r;
                    if det(line.direction, line.point - v) <= 0.0 {
                        best = best.max(v.dot(heading));
                    }
                }
            }
            assert!(best <= most + 1e-4, "a velocity goes {best} past {most}");
            if most.is_finite() {
                assert!(best >= most - 0.02 * top, "{most} claimed but at most {best} reached");
            }
            // A feasible program with more lines finds nothing faster.
            let mut lines = vec![line];
            lines.extend((0..rng.random_range(0..4)).map(|_| {
                let d = Vec2::from_angle(rng.random_range(0.0..TAU));
                Line { point: Vec2::new(d.y, -d.x) * rng.random_range(0.0..top), direction: d }
            }));
            let mut v = Vec2::ZERO;
            if linear_program2(&lines, top, preferred, false, &mut v) == lines.len() {
                programs += 1;
                assert!(v.dot(heading) <= most + 1e-4, "{v} goes {} past {most}", v.dot(heading));
                capped += usize::from(most < top);
            }
        }
        assert!(
            programs > 1_000 && capped > 100,
            "{programs} feasible programs, {capped} capped below the top speed"
        );
        // Binding nearly tangent to the disc, just inside or just outside it: nothing claimed
        // (the velocities it allows, if any, are a sliver away from the heading).
        let heading = Vec2::new(0.0, 1.0);
        let n = Vec2::new(0.3, 1.0).normalize();
        for c in [-top * (1.0 - 1e-6), -top * (1.0 + 1e-6)] {
            let line = Line { point: n * c, direction: Vec2::new(-n.y, n.x) };
            assert_eq!(most_along(heading, top, &line), f32::INFINITY, "c = {c}");
        }
        // Well inside, the chord's end: c · (n · h) + √(top² − c²) · |d · h|.
        let line = Line { point: n * -2.0, direction: Vec2::new(-n.y, n.x) };
        let chord = -2.0 * n.y + (top * top - 4.0).sqrt() * n.x;
        assert!((most_along(heading, top, &line) - chord).abs() < 1e-5);
    }

    #[test]
    fn two_bodies_head_on_pass_without_touching() {
        let grid = open(20);
        let mut bodies = vec![
            Body { preferred: Vec2::new(4.0, 0.0), ..Body::new(Vec2::new(3.0, 10.0), 0.3, 4.0) },
            Body { preferred: Vec2::new(-4.0, 0.0), ..Body::new(Vec2::new(17.0, 10.0), 0.3, 4.0) },
        ];
        let mut avoidance = Avoidance::new(AvoidanceSettings::default());
        let mut scratch = Vec::new();
        let mut closest = f32::INFINITY;
        for _ in 0..300 {
            for (b, goal) in bodies.iter_mut().zip([17.0_f32, 3.0]) {
                b.preferred = Vec2::new((goal - b.position.x).clamp(-4.0, 4.0), 0.0);
            }
            avoidance.step(&mut bodies, &grid, 1.0 / 60.0, &mut scratch);
            closest = closest.min(bodies[0].position.distance(bodies[1].position));
        }
        assert!(closest >= 0.6 * 0.98, "closest {closest}");
        assert!(bodies[0].position.x > 16.0 && bodies[1].position.x < 4.0, "{bodies:?}");
    }

    /// Bodies take turns to plan (`AvoidanceSettings::plan_every`): each frame one of two
    /// bodies closing head-on keeps to its planned velocity and the other plans, taking all
    /// of the avoiding — twice the swerve ORCA gives it when both plan (half each). (The pass
    /// above runs with turns: the default.)
    #[test]
    fn bodies_take_turns_to_plan_and_the_planner_takes_all_of_the_avoiding() {
        let grid = open(20);
        let bodies = vec![walking(9.0, 10.0, 4.0), walking(10.5, 10.05, -4.0)];
        // No keeping to the right: the swerve is ORCA's alone.
        let settings = AvoidanceSettings { pass_side: 0.0, ..AvoidanceSettings::default() };
        let dt = 1.0 / 60.0;
        let mut every_frame = Avoidance::new(AvoidanceSettings { plan_every: 1, ..settings });
        every_frame.prepare(&bodies, &grid);
        let shared = [0, 1].map(|i| every_frame.velocity(&bodies, &grid, i, dt));
        assert!(shared.iter().zip(&bodies).all(|(v, b)| *v != b.planned), "both swerve: {shared:?}");
        let mut turns = Avoidance::new(settings);
        let mut planners = Vec::new();
        for _ in 0..4 {
            turns.prepare(&bodies, &grid);
            let v = [0, 1].map(|i| turns.velocity(&bodies, &grid, i, dt));
            let coasting: Vec<usize> = (0..2).filter(|&i| v[i] == bodies[i].planned).collect();
            assert_eq!(coasting.len(), 1, "one keeps to its planned velocity: {v:?}");
            let planner = 1 - coasting[0];
            planners.push(planner);
            let whole = (v[planner] - bodies[planner].velocity).length();
            let half = (shared[planner] - bodies[planner].velocity).length();
            assert!((whole / half - 2.0).abs() < 0.05, "swerve {whole} alone against {half} shared");
        }
        assert!(planners.windows(2).all(|w| w[0] != w[1]), "they take turns: {planners:?}");
    }

    /// A body whose plan gave it its preferred velocity (nothing to avoid) plans every
    /// `calm_every` frames only, and walks on at that velocity meanwhile; a body whose plan
    /// swerved it plans again on its next turn.
    #[test]
    fn a_body_with_nothing_to_avoid_plans_less_often_and_walks_on() {
        let grid = open(40);
        // Alone on open ground; and two 2 tiles apart, head-on, closing at 2 tiles a second.
        let mut bodies = vec![walking(5.0, 5.0, 1.0), walking(19.0, 20.0, 1.0), walking(21.0, 20.05, -1.0)];
        let settings = AvoidanceSettings { pass_side: 0.0, ..AvoidanceSettings::default() };
        assert_eq!((settings.plan_every, settings.calm_every), (2, 4));
        let mut avoidance = Avoidance::new(settings);
        let (dt, frames) = (1.0 / 60.0, 40);
        let mut velocities = Vec::new();
        let mut plans = [0; 3];
        // Per body, the frame it last planned a swerve.
        let mut swerved = [None; 3];
        for frame in 0..frames {
            let before = bodies[0].position;
            avoidance.step(&mut bodies, &grid, dt, &mut velocities);
            for (i, body) in bodies.iter().enumerate() {
                let planned = !avoidance.slots[avoidance.slot_of[i] as usize].coasting;
                plans[i] += usize::from(planned);
                if frame >= 2 && swerved[i] == Some(frame - 2) {
                    assert!(planned, "body {i} swerved at frame {} and plans on its next turn", frame - 2);
                }
                if planned && velocities[i] != body.preferred {
                    swerved[i] = Some(frame);
                }
            }
            let walked = bodies[0].position - before;
            assert!((walked - Vec2::new(dt, 0.0)).length() < 1e-5, "the lone body walks on: {walked}");
            let gap = bodies[1].position.distance(bodies[2].position);
            assert!(gap >= 0.6 * 0.98, "the two never overlap: {gap} at frame {frame}");
        }
        // Its first turn, then one turn in two.
        assert!((frames / 4..=frames / 4 + 1).contains(&plans[0]), "the lone body plans {} times", plans[0]);
        assert!(swerved[1].is_some() && swerved[2].is_some(), "both swerved: {swerved:?}");
        assert!(plans[1] > plans[0] && plans[2] > plans[0], "they plan more often: {plans:?}");
    }

    /// Bodies at rest skip planning (`rest.rs`) with the same outcome, bit for bit, as when
    /// every body plans: a block of 100 bodies at rest, then walkers passing along it (the
    /// bodies near them wake), and a body placed among them.
    #[test]
    fn bodies_at_rest_skip_planning_and_move_exactly_as_when_they_plan() {
        let grid = open(40);
        let bodies: Vec<Body> = (0..100)
            .map(|k| {
                Body::new(Vec2::new(10.5 + (k % 10) as f32 * 0.7, 10.5 + (k / 10) as f32 * 0.7), 0.3, 4.0)
            })
            .collect();
        let walker =
            |y: f32| Body { preferred: Vec2::new(3.0, 0.0), ..Body::new(Vec2::new(2.5, y), 0.3, 4.0) };
        let (mut resting, mut planning) = (Avoidance::default(), Avoidance::default());
        let (mut ours, mut theirs) = (bodies.clone(), bodies.clone());
        let dt = 1.0 / 60.0;
        let mut asleep_per_frame = Vec::new();
        for frame in 0..900 {
            if frame == 200 {
                // Two walkers pass along the block.
                for y in [17.9, 18.6] {
                    ours.push(walker(y));
                    theirs.push(walker(y));
                }
            }
            if frame == 600 {
                // A body appears among them, overlapping two.
                let newcomer = Body::new(Vec2::new(12.25, 12.0), 0.3, 4.0);
                ours.push(newcomer);
                theirs.push(newcomer);
            }
            for (me, they) in ours.iter_mut().zip(theirs.iter_mut()).skip(100) {
                // The walkers stop at the far side.
                if me.position.x > 30.0 {
                    me.preferred = Vec2::ZERO;
                    they.preferred = Vec2::ZERO;
                }
            }
            let asleep = |a: &Avoidance| a.slots.iter().filter(|s| s.asleep).count();
            let mut v = Vec::new();
            resting.step(&mut ours, &grid, dt, &mut v);
            asleep_per_frame.push(asleep(&resting));
            planning.prepare(&theirs, &grid);
            for slot in &mut planning.slots {
                slot.asleep = false;
            }
            let mut w = vec![Vec2::ZERO; theirs.len()];
            planning.velocities(&theirs, &grid, dt, 0, &mut w);
            let mut positions = Vec::new();
            planning.advance(&theirs, &grid, dt, &w, &mut positions);
            planning.move_bodies(&mut theirs, &positions, &w, dt);
            assert_eq!(ours, theirs, "frame {frame}");
        }
        // Half the bodies plan each frame (`plan_every`): at rest, all of those skip.
        let least = |frames: std::ops::Range<usize>| asleep_per_frame[frames].iter().copied().min().unwrap();
        assert_eq!(least(150..200), 50, "{asleep_per_frame:?}");
        assert!(least(200..400) < 40, "the walkers wake the bodies near them: {asleep_per_frame:?}");
        assert!(least(600..610) < 45, "so does a body placed among them: {asleep_per_frame:?}");
        assert!(
            asleep_per_frame[850..].iter().all(|&n| n >= 45),
            "then they rest again: {asleep_per_frame:?}"
        );
    }

    #[test]
    fn a_stuck_body_is_jostled_aside_never_backwards_and_the_same_within_a_period() {
        let body = Body { preferred: Vec2::new(4.0, 0.0), ..Body::new(Vec2::new(3.0, 3.0), 0.3, 4.0) };
        // Not stuck long enough, or wanting nothing: as it is.
        assert_eq!(
            jostled(Body { stuck: JOSTLE_AFTER * 0.99, ..body }, 7),
            Body { stuck: JOSTLE_AFTER * 0.99, ..body }
        );
        let idle = Body { preferred: Vec2::ZERO, stuck: 100.0, ..body };
        assert_eq!(jostled(idle, 7), idle);
        let mut turns = Vec::new();
        for i in 0..50 {
            for period in 0..20 {
                let at = |offset: f32| {
                    let stuck = JOSTLE_AFTER + (period as f32 + offset) * JOSTLE_PERIOD;
                    jostled(Body { stuck, ..body }, i).preferred
                };
                let (early, late) = (at(0.1), at(0.9));
                assert_eq!(early, late, "body {i} period {period}: one direction through a period");
                assert!((early.length() - 4.0).abs() < 1e-4, "the same speed: {early}");
                let angle = Vec2::X.angle_to(early);
                assert!(angle.abs() <= JOSTLE_ANGLE + 1e-4, "at most JOSTLE_ANGLE aside: {angle}");
                turns.push(angle);
            }
        }
        // Both sides, spread over the range (not one fixed turn).
        let left = turns.iter().filter(|&&a| a < -JOSTLE_ANGLE / 2.0).count();
        let right = turns.iter().filter(|&&a| a > JOSTLE_ANGLE / 2.0).count();
        assert!(left > 150 && right > 150, "{left} far left, {right} far right of {}", turns.len());
    }

    /// Met in the game (10,000 units converging, one spawn order): a unit at the mouth of a
    /// one-cell dead end, two of its group in the dead end behind it, and a walker (the lab's
    /// unit, not taking part) touching it from above, meaning to go down-right through it and
    /// waiting for it. Seen coming, the walker left the unit only a velocity into the wall
    /// corner, which never moved it; both waited for good.
    #[test]
    fn a_unit_pinned_between_a_waiting_walker_and_its_group_gets_out_of_the_way() {
        let mut grid = open(16);
        // The dead end is cell (6, 8): walls left, right and below it.
        for wall in [(5, 8), (7, 8), (6, 9)] {
            grid.set_wall(Pos::new(wall.0, wall.1), true).unwrap();
        }
        let member = |position: Vec2, preferred: Vec2, distance: f32| Body {
            preferred,
            stuck: 90.0,
            group: 7,
            distance,
            ..Body::new(position, 0.3, 5.0)
        };
        let walker = Body {
            velocity: Vec2::new(3.536, 3.536),
            preferred: Vec2::new(3.536, 3.536),
            moving: false,
            ..Body::new(Vec2::new(6.249, 7.249), 0.3, 5.0)
        };
        let mut bodies = vec![
            member(Vec2::new(6.259, 7.848), Vec2::new(4.814, -1.35), 77.51),
            member(Vec2::new(6.7, 8.254), Vec2::new(0.0, -5.0), 78.01),
            member(Vec2::new(6.3, 8.7), Vec2::new(0.0, -5.0), 78.44),
            walker,
        ];
        let (start, dt) = (bodies[0].position, 1.0 / 60.0);
        let mut avoidance = Avoidance::new(AvoidanceSettings::default());
        avoidance.prepare(&bodies, &grid);
        let v = avoidance.velocity(&bodies, &grid, 0, dt);
        // Its velocity points its way, but it is stalled there: the walker alone holds it up.
        assert!(avoidance.holds_up(&bodies, &grid, 3, (0, v), dt), "the walker holds it up: {v}");
        let mut scratch = Vec::new();
        let mut backed = 0.0;
        for _ in 0..60 {
            // As the game does: after a frame's velocities, a walker that holds a unit up steps
            // back (one `prepare` a frame: the bodies take turns to plan by it).
            let before = bodies.clone();
            avoidance.step(&mut bodies, &grid, dt, &mut scratch);
            if avoidance.holds_up(&before, &grid, 3, (0, scratch[0]), dt) {
                bodies[3].position.y -= 0.05;
                backed += 0.05;
            }
            for (i, a) in bodies.iter().enumerate() {
                for b in &bodies[i + 1..] {
                    assert!(a.position.distance(b.position) >= 0.6 * 0.98, "{a:?} overlaps {b:?}");
                }
            }
        }
        let moved = bodies[0].position - start;
        assert!(moved.x >= 0.3, "the unit at the mouth went its way (right): moved {moved}");
        assert!(backed < 1.0, "the walker stepped back {backed} tiles: less than a tile");
    }

    /// A corridor two tiles wide packed with another group's arrived units (seeded scenes 89
    /// and 100: a ring filling two-wide maze corridors): none can make room, so the unit bound
    /// through stood among them for good. Stuck, it trades places with the idle unit ahead of
    /// it, one at a time, and gets through; no two bodies ever overlap, none touches a wall.
    #[test]
    fn a_unit_trades_places_through_a_corridor_packed_with_another_groups_arrived_units() {
        // Open: rows 4 and 5, columns 0 to 19.
        let mut grid = open(20);
        for x in 0..20 {
            for y in (0..20).filter(|y| !(4..=5).contains(y)) {
                grid.set_wall(Pos::new(x, y), true).unwrap();
            }
        }
        let idle =
            |x: f32, y: f32| Body { preferred: Vec2::ZERO, group: 2, ..Body::new(Vec2::new(x, y), 0.3, 5.0) };
        let mut bodies = vec![Body { group: 1, ..Body::new(Vec2::new(0.4, 5.0), 0.3, 5.0) }];
        // Packed from end to end in three rows 0.7 apart (the gaps between them are a tenth of
        // a tile): nowhere to make room.
        for k in 0..30 {
            let x = 1.02 + 0.62 * k as f32;
            for y in [4.31, 5.0, 5.69] {
                bodies.push(idle(x, y));
            }
        }
        let (dt, mut scratch, mut quality) = (1.0 / 60.0, Vec::new(), Quality::default());
        let mut avoidance = Avoidance::new(AvoidanceSettings::default());
        let (mut best, mut stuck) = (f32::INFINITY, 0.0);
        for _ in 0..60 * 200 {
            let me = bodies[0].position;
            if me.x > 17.0 {
                break;
            }
            // Wants to go right along the middle of the corridor; stuck counts as the harness
            // counts it: seconds without getting a quarter tile closer.
            bodies[0].preferred = (Vec2::new(19.0, 5.0) - me).normalize() * 5.0;
            let to_go = 19.0 - me.x;
            if to_go < best - 0.25 {
                (best, stuck) = (to_go, 0.0);
            } else {
                stuck += dt;
            }
            bodies[0].stuck = stuck;
            avoidance.step(&mut bodies, &grid, dt, &mut scratch);
            quality.observe(&bodies, &grid);
        }
        assert!(bodies[0].position.x > 17.0, "through the packed corridor: at {}", bodies[0].position);
        assert!(quality.gap_ratio >= 0.98, "gap ratio {}", quality.gap_ratio);
        assert_eq!(quality.wall_overlaps, 0);
    }

    /// A body of group 1 stuck long enough to trade, heading +x, and an idle body of group 2
    /// touching it ahead.
    fn stuck_behind_an_idle_body() -> (Body, Body) {
        let presser = Body {
            preferred: Vec2::new(5.0, 0.0),
            stuck: SWAP_AFTER + 1.0,
            group: 1,
            ..Body::new(Vec2::new(5.0, 5.5), 0.3, 5.0)
        };
        let ahead = Body { preferred: Vec2::ZERO, group: 2, ..Body::new(Vec2::new(5.62, 5.5), 0.3, 5.0) };
        (presser, ahead)
    }

    /// Places are traded only with a body of another group, of the same radius, ahead: idle, or
    /// face to face and stuck as long.
    #[test]
    fn places_are_traded_only_with_another_groups_idle_or_facing_bodies_ahead() {
        let grid = open(12);
        let (presser, ahead) = stuck_behind_an_idle_body();
        let traded = |other: Body, presser: Body| {
            let bodies = [presser, other];
            let mut avoidance = Avoidance::new(AvoidanceSettings::default());
            avoidance.prepare(&bodies, &grid);
            let mut positions = vec![presser.position, other.position];
            avoidance.pass_through(&bodies, &grid, &mut positions);
            positions == vec![other.position, presser.position]
        };
        assert!(traded(ahead, presser), "an idle body of another group ahead");
        assert!(!traded(Body { group: 1, ..ahead }, presser), "its own group's");
        assert!(
            !traded(Body { preferred: Vec2::new(-5.0, 0.0), ..ahead }, presser),
            "a walking body, not stuck"
        );
        assert!(
            !traded(Body { preferred: Vec2::new(5.0, 0.0), stuck: 9.0, ..ahead }, presser),
            "one going its way"
        );
        let facing = Body { preferred: Vec2::new(-5.0, 0.0), stuck: SWAP_AFTER, ..ahead };
        assert!(traded(facing, presser), "face to face, both stuck");
        assert!(
            !traded(Body { radius: 0.5, position: Vec2::new(5.85, 5.5), ..ahead }, presser),
            "a bigger body"
        );
        assert!(!traded(Body { position: Vec2::new(4.38, 5.5), ..ahead }, presser), "a body behind it");
        assert!(!traded(ahead, Body { stuck: SWAP_AFTER - 0.5, ..presser }), "before it is stuck long");
    }

    /// A trade is no walk: the two bodies walked at the velocity they planned, not at a place's
    /// width over the frame, and the next frame without a trade forgets it.
    #[test]
    fn bodies_that_traded_places_walked_at_their_planned_velocity_for_that_frame_only() {
        let grid = open(12);
        let (presser, ahead) = stuck_behind_an_idle_body();
        let bodies = [presser, ahead];
        let mut avoidance = Avoidance::new(AvoidanceSettings::default());
        avoidance.prepare(&bodies, &grid);
        let mut positions = vec![presser.position, ahead.position];
        avoidance.pass_through(&bodies, &grid, &mut positions);
        assert_eq!(positions, vec![ahead.position, presser.position], "they traded places");
        let (planned, dt) = (Vec2::new(0.1, 0.0), 1.0 / 60.0);
        assert!(avoidance.traded(0) && avoidance.traded(1));
        assert_eq!(avoidance.walked(0, (presser.position, positions[0]), planned, dt), planned);
        assert_eq!(avoidance.walked(1, (ahead.position, positions[1]), Vec2::ZERO, dt), Vec2::ZERO);

        // Next frame nobody is stuck: no trade, and each walked its displacement over the frame.
        let calm = [Body { stuck: 0.0, ..presser }, ahead];
        avoidance.prepare(&calm, &grid);
        let mut positions = vec![presser.position + Vec2::new(0.05, 0.0), ahead.position];
        avoidance.pass_through(&calm, &grid, &mut positions);
        assert!(!avoidance.traded(0) && !avoidance.traded(1), "last frame's trade is forgotten");
        let walked = avoidance.walked(0, (presser.position, positions[0]), planned, dt);
        assert!((walked - Vec2::new(3.0, 0.0)).length() < 1e-3, "walked {walked}");
    }

    /// An idle body in the way of a stuck one steps aside where it has room, and straight on
    /// in a one-tile passage (where stepping aside only pressed it into a wall, and the idle
    /// bodies ahead of it never moved: a passage plugged by another group's arrived units).
    #[test]
    fn an_idle_body_makes_room_aside_or_straight_on_in_a_one_tile_passage() {
        let idle =
            |x: f32, y: f32| Body { preferred: Vec2::ZERO, group: 2, ..Body::new(Vec2::new(x, y), 0.3, 5.0) };
        let presser = |y: f32| Body {
            preferred: Vec2::new(5.0, 0.0),
            stuck: 2.0,
            group: 1,
            ..Body::new(Vec2::new(5.9, y), 0.3, 5.0)
        };
        let room = |grid: &Grid, bodies: &[Body]| {
            let mut avoidance = Avoidance::new(AvoidanceSettings::default());
            avoidance.prepare(bodies, grid);
            (1..bodies.len()).map(|i| avoidance.room[avoidance.slot_of[i] as usize]).collect::<Vec<_>>()
        };
        // Open ground: aside (to the side it stands on) and a little onwards.
        let open = open(16);
        let aside = room(&open, &[presser(5.5), idle(6.5, 5.6)]);
        assert!(aside[0].y > 0.0 && aside[0].y > aside[0].x.abs(), "aside: {aside:?}");
        // A one-tile passage along row 5: straight on, and the idle body ahead of it too.
        let mut passage = Grid::filled(16, 11, Tile::Wall).unwrap();
        for x in 0..16 {
            passage.set_wall(Pos::new(x, 5), false).unwrap();
        }
        let on = room(&passage, &[presser(5.5), idle(6.5, 5.6), idle(7.1, 5.5)]);
        for way in &on {
            assert!(way.x > 0.0 && way.y.abs() < 1e-4, "straight on along the passage: {on:?}");
        }
    }

    /// The positional pass parts a body pressed against a wall from one overlapping it: the
    /// wall takes none of the push. (Pushed half into the wall and back out without another
    /// turn, the body against the wall kept part of the overlap: 3 % here, 1.1 % in the
    /// harness corridor's jam.)
    #[test]
    fn the_positional_pass_parts_a_body_against_a_wall_from_one_overlapping_it() {
        let mut grid = open(12);
        for y in 0..12 {
            grid.set_wall(Pos::new(5, y), true).unwrap();
        }
        let bodies =
            vec![Body::new(Vec2::new(6.3, 6.5), 0.3, 5.0), Body::new(Vec2::new(6.75, 6.5), 0.3, 5.0)];
        let mut avoidance = Avoidance::new(AvoidanceSettings::default());
        avoidance.prepare(&bodies, &grid);
        let mut positions: Vec<Vec2> = bodies.iter().map(|b| b.position).collect();
        avoidance.separate(&bodies, &grid, &mut positions);
        let gap = positions[0].distance(positions[1]) / 0.6;
        assert!(gap >= 1.0 - OVERLAP_TOLERANCE, "still {:.1} % overlap: {positions:?}", (1.0 - gap) * 100.0);
        assert!(positions[0].x >= 6.3 - 1e-4, "the body against the wall stays out of it: {positions:?}");
    }

    #[test]
    fn a_body_never_enters_a_wall() {
        let mut grid = open(10);
        for y in 0..10 {
            grid.set_wall(Pos::new(5, y), true).unwrap();
        }
        let mut bodies =
            vec![Body { preferred: Vec2::new(5.0, 0.0), ..Body::new(Vec2::new(2.5, 4.5), 0.3, 5.0) }];
        let mut avoidance = Avoidance::new(AvoidanceSettings::default());
        let mut scratch = Vec::new();
        for _ in 0..120 {
            avoidance.step(&mut bodies, &grid, 1.0 / 60.0, &mut scratch);
            assert!(bodies[0].position.x <= 5.0 - 0.3 + 1e-4, "{:?}", bodies[0]);
        }
        assert!(bodies[0].position.x > 4.5);
    }
}
