//! [`Mover`]: walks an entity along its [`Waypoints`] or its [`FollowFlowField`], from cell
//! centre to cell centre, at its speed divided by the terrain cost of the cell it steps into
//! (the cost rule every search uses).

use bevy::prelude::*;
use gridpath::Pos;

use crate::GridPathSystems;
use crate::avoid::{Avoid, LocalAvoidance};
use crate::flow::{FlowFields, FollowFlowField};
use crate::nav::NavGrid;
use crate::plan::{PathFailure, PathRequest, PathStatus, Waypoints};

pub(crate) fn plugin(app: &mut App) {
    app.add_systems(Update, (follow_waypoints, follow_flow_fields).in_set(GridPathSystems::Move));
}

/// Walks the entity: along its [`Waypoints`] (with a [`PathRequest`](crate::PathRequest)) or
/// down its flow field (with a [`FollowFlowField`]).
///
/// ```
/// use bevy_gridpath::prelude::*;
///
/// let mover = Mover::new(4.0);
/// assert_eq!(mover.speed, 4.0);
/// assert_eq!(mover.next(), None);
/// ```
#[derive(Component, Debug, Clone, Copy, PartialEq)]
#[require(Transform)]
pub struct Mover {
    /// Tiles per second on plain ground (cost 1); a cell of cost `c` is crossed `c` times slower.
    pub speed: f32,
    /// Stands still while `true` (a cut-scene, a replay, a stun), keeping its route.
    pub hold: bool,
    /// The farthest it may walk in the next frame, in tiles, if anything limits it: a game's own
    /// avoidance sets it before the move (stop short of a unit in the way); the move clears it.
    /// A mover with an [`Avoid`](crate::Avoid) is steered by the plugin's avoidance instead,
    /// which clears it unread.
    /// A negative limit backs it up that far straight back along the way it came, never past
    /// the last point it reached (a cell centre or a waypoint) nor out of the cells it stands
    /// on and came from: room for a unit that cannot otherwise get out of its way.
    pub limit: Option<f32>,
    /// The last cell centre it reached.
    cell: Option<Pos>,
    /// The cell it is stepping into, while between two cell centres.
    next: Option<Pos>,
    /// Direction of travel (unit length).
    heading: Vec2,
    /// Where it stood when it last reached [`Mover::cell`]: the farthest it backs up to.
    reached: Option<Vec2>,
}

impl Mover {
    /// A mover walking `speed` tiles per second, facing +x.
    pub fn new(speed: f32) -> Self {
        Self { speed, hold: false, limit: None, cell: None, next: None, heading: Vec2::X, reached: None }
    }

    /// The last cell centre it reached (`None` before it reached one); for a mover steered by
    /// local avoidance ([`Avoid`](crate::Avoid)), the cell its body stands on.
    pub fn cell(&self) -> Option<Pos> {
        self.cell
    }

    /// The cell it is stepping into, while between two cell centres. A new route starts there.
    pub fn next(&self) -> Option<Pos> {
        self.next
    }

    /// Direction of travel (unit length; +x before it moved).
    pub fn heading(&self) -> Vec2 {
        self.heading
    }

    /// Where local avoidance left it: standing on `cell` (its body's top-left cell), facing
    /// `heading` (world space; zero keeps the last), in no step (a new route starts from
    /// `cell`), and backing up no farther than where it stands.
    pub(crate) fn steered(&mut self, cell: Option<Pos>, heading: Vec2) {
        if heading != Vec2::ZERO {
            self.heading = heading;
        }
        if cell.is_some() {
            self.cell = cell;
        }
        self.next = None;
        self.reached = None;
    }

    /// Forgets the step it was taking: for a unit put down somewhere (move its `Transform`
    /// too), then [`Mover::cell`] is `cell`.
    pub fn place(&mut self, cell: Pos) {
        self.cell = Some(cell);
        self.next = None;
        self.reached = None;
    }

    /// Moves from `at` towards the centre of `cell` with `budget` (world units on plain ground);
    /// returns whether the centre was reached.
    ///
    /// A step into a neighbouring cell costs that cell's terrain for its whole length (the rule
    /// every search uses). A longer straight segment (an any-angle or smoothed route) costs the
    /// terrain underfoot, cell by cell; while on it, [`Mover::next`] is the cell it is in, so a
    /// new route starts there and it never walks on towards a far corner of the old one.
    ///
    /// `target` is where the mover stands on `cell`: its centre, or for a large agent the centre
    /// of the body whose top-left cell `cell` is; cells and costs are the body's top-left cell's.
    ///
    /// It never crosses into a cell its body (`size` cells a side) cannot stand on now (a wall):
    /// a game system that walls a cell after the plugin planned this frame (the plugin re-plans
    /// from the edit next frame) finds the mover stopped at the border, not in the wall.
    fn step(
        &mut self,
        nav: &NavGrid,
        at: &mut Vec2,
        (cell, target, size): (Pos, Vec2, u8),
        budget: &mut f32,
    ) -> bool {
        // From the body's centre to its top-left cell's centre (zero for one-cell movers).
        let offset = target - nav.cell_center(cell);
        let tiny = nav.tile_size() * 1e-4;
        while *budget > 0.0 {
            let to = target - *at;
            let distance = to.length();
            if distance <= tiny {
                break;
            }
            self.heading = to / distance;
            // The cell just ahead: on a border, the one the mover is entering.
            let here = nav.cell_at(*at - offset + self.heading * tiny);
            let (through, span) = match here {
                Some(here) if here.x.abs_diff(cell.x) > 1 || here.y.abs_diff(cell.y) > 1 => {
                    (here, distance.min(exit_distance(nav, here, *at - offset, self.heading).max(tiny)))
                }
                _ => (cell, distance),
            };
            self.next = Some(through);
            let cost = f32::from(nav.grid().tile(through).and_then(|t| t.cost()).unwrap_or(1).max(1));
            // The cell its body's top-left stands in (just behind it, on a border) and the one
            // this move goes into (just past its end: a move ending on a corner point of four
            // cells has entered the one on its line, not one it only touches there).
            let length = span.min(*budget / cost);
            let from = nav.cell_at(*at - offset - self.heading * tiny);
            let to = nav.cell_at(*at - offset + self.heading * (length + tiny));
            // Only the cells it enters: the route's corner rule decides the cells beside a
            // diagonal, and a body centre never enters those.
            if let (Some(from), Some(to)) = (from, to)
                && from != to
                && !nav.body_cells(to, size).all(|c| nav.grid().is_passable(c))
            {
                let room = exit_distance(nav, from, *at - offset, self.heading) - tiny;
                *at += self.heading * room.clamp(0.0, length);
                *budget = 0.0;
                return false;
            }
            if span * cost > *budget {
                *at += self.heading * (*budget / cost);
                *budget = 0.0;
                return false;
            }
            *budget -= span * cost;
            *at = if span >= distance { target } else { *at + self.heading * span };
        }
        if at.distance(target) > tiny {
            return false;
        }
        *at = target;
        self.cell = Some(cell);
        self.reached = Some(target);
        self.next = None;
        true
    }

    /// Backs up from `at` by `distance` (world units) towards where it last reached a cell,
    /// straight back along the line it walked from there, and only over ground it stands on:
    /// within its body's cell, or on into the cell it last reached when that is next to it (an
    /// editor that keeps walls from under units keeps both free; the cells a long any-angle
    /// segment crossed may have been painted since). After a turn (a new route) the line back is
    /// not one it walked, and it stays. Returns whether it moved.
    fn back_up(&self, nav: &NavGrid, at: &mut Vec2, distance: f32) -> bool {
        let (Some(reached), Some(last)) = (self.reached, self.cell) else { return false };
        let back = reached - *at;
        let length = back.length();
        if length <= nav.tile_size() * 1e-4 || back.dot(self.heading) > -STRAIGHT * length {
            return false;
        }
        let direction = back / length;
        // From the body's centre to its top-left cell's centre (zero for one-cell movers).
        let offset = reached - nav.cell_center(last);
        let Some(here) = nav.cell_at(*at - offset) else { return false };
        let room = if here.x.abs_diff(last.x) <= 1 && here.y.abs_diff(last.y) <= 1 {
            length
        } else {
            exit_distance(nav, here, *at - offset, direction)
        };
        let step = distance.min(room);
        if step <= 0.0 {
            return false;
        }
        *at += direction * step;
        true
    }
}

/// How straight back a mover must be from where it last reached a cell to back up (cosine).
const STRAIGHT: f32 = 0.999;

/// How far from `at`, going `direction` (unit length), the mover leaves `cell`'s square.
fn exit_distance(nav: &NavGrid, cell: Pos, at: Vec2, direction: Vec2) -> f32 {
    let size = nav.tile_size();
    let left = nav.origin().x + cell.x as f32 * size;
    let top = nav.origin().y - cell.y as f32 * size;
    let along = |from: f32, low: f32, high: f32, d: f32| {
        if d > 0.0 {
            (high - from) / d
        } else if d < 0.0 {
            (low - from) / d
        } else {
            f32::INFINITY
        }
    };
    along(at.x, left, left + size, direction.x).min(along(at.y, top - size, top, direction.y))
}

/// Backs a mover up by `distance` world units (a negative [`Mover::limit`]).
fn back_up(nav: &NavGrid, mover: &Mover, transform: &mut Transform, distance: f32) {
    let mut at = transform.translation.truncate();
    if mover.back_up(nav, &mut at, distance) {
        transform.translation = at.extend(transform.translation.z);
    }
}

/// Walks movers along their waypoints; several per frame when the frame is long, never past
/// the last. A mover whose waypoints ran out on a followed route has arrived.
pub(crate) fn follow_waypoints(
    time: Res<Time>,
    nav: Res<NavGrid>,
    avoidance: Res<LocalAvoidance>,
    mut units: Query<
        (&mut Mover, &mut Waypoints, &mut PathStatus, &mut Transform, Option<&PathRequest>, Has<Avoid>),
        Without<FollowFlowField>,
    >,
) {
    for (mut mover, mut waypoints, mut status, mut transform, request, avoids) in &mut units {
        if avoidance.steers(avoids) {
            continue;
        }
        // Waypoints handed to it without a request: a body of one cell.
        let size = request.map_or(1, |r| r.settings.agent_size);
        // Cleared only when set: a mover untouched by avoidance is not marked changed.
        let limit = if mover.limit.is_some() { mover.limit.take() } else { None };
        if mover.hold || waypoints.is_empty() {
            continue;
        }
        if let Some(back) = limit.filter(|l| *l < 0.0) {
            back_up(&nav, &mover, &mut transform, -back * nav.tile_size());
            continue;
        }
        // The budget is paid per world unit times the terrain cost (at least 1): capping it at
        // the limit's length keeps the walk within the limit.
        let mut budget =
            (mover.speed * time.delta_secs()).min(limit.unwrap_or(f32::INFINITY)) * nav.tile_size();
        let mut at = transform.translation.truncate();
        while budget > 0.0 {
            let Some(&next) = waypoints.front() else { break };
            if !mover.step(&nav, &mut at, (next.cell, next.point, size), &mut budget) {
                break;
            }
            waypoints.pop_front();
            mover.next = waypoints.front().map(|w| w.cell);
        }
        if waypoints.is_empty() {
            mover.next = None;
        }
        transform.translation = at.extend(transform.translation.z);
        if waypoints.is_empty() && *status == PathStatus::Following {
            *status = PathStatus::Arrived;
        }
    }
}

/// Walks movers down their shared flow field, one next step at a time (a large body by its
/// top-left cell, centred on its body); a mover on a cell the field cannot lead from (no
/// field, unreachable goal) stops with the reason.
pub(crate) fn follow_flow_fields(
    time: Res<Time>,
    nav: Res<NavGrid>,
    fields: Res<FlowFields>,
    avoidance: Res<LocalAvoidance>,
    mut units: Query<(&FollowFlowField, &mut Mover, &mut PathStatus, &mut Transform, Has<Avoid>)>,
) {
    for (follow, mut mover, mut status, mut transform, avoids) in &mut units {
        if avoidance.steers(avoids) {
            continue;
        }
        // Cleared only when set: a mover untouched by avoidance is not marked changed.
        let limit = if mover.limit.is_some() { mover.limit.take() } else { None };
        if mover.hold {
            continue;
        }
        if let Some(back) = limit.filter(|l| *l < 0.0) {
            back_up(&nav, &mover, &mut transform, -back * nav.tile_size());
            continue;
        }
        let Some(shared) = fields.shared(follow) else { continue };
        let mut budget =
            (mover.speed * time.delta_secs()).min(limit.unwrap_or(f32::INFINITY)) * nav.tile_size();
        let mut at = transform.translation.truncate();
        // A large body stands on its top-left cell, as its field was built.
        let size = follow.agent_size;
        while budget > 0.0 {
            let target = match mover.next {
                Some(next) => next,
                None => {
                    let Some(cell) = nav.anchor_at(at, size) else {
                        status.set_if_neq(PathStatus::Failed(PathFailure::OffGrid));
                        break;
                    };
                    if cell == follow.goal {
                        // Walk onto the goal's centre, then stay.
                        if at == nav.body_center(cell, size) {
                            status.set_if_neq(PathStatus::Arrived);
                            break;
                        }
                        cell
                    } else {
                        match shared.field.as_ref().and_then(|field| field.next_step(cell)) {
                            Some(next) => next,
                            None => {
                                status.set_if_neq(PathStatus::Failed(shared.failure(cell)));
                                break;
                            }
                        }
                    }
                }
            };
            status.set_if_neq(PathStatus::Following);
            if !mover.step(&nav, &mut at, (target, nav.body_center(target, size), size), &mut budget) {
                break;
            }
        }
        transform.translation = at.extend(transform.translation.z);
    }
}
