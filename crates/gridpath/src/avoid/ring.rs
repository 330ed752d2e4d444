//! The arrival ring: how far from a shared goal the units already arrived there reach, so a
//! unit held up by them arrives too — but only within the ring, never back through a door.

use glam::Vec2;

use crate::field::FlowField;
use crate::grid::Grid;

/// How far beyond the area its arrived units fill a unit still arrives round a goal, in tiles.
pub const RING_MARGIN: f32 = 1.5;
/// Tiles a unit could have walked without getting closer to its goal, touching a unit arrived
/// there, after which it arrives within the reach of its whole group packed loosely (see
/// [`within_ring`]).
pub const LONG_STALL: f32 = 20.0;
/// The last of a group still on their way, at most (or a hundredth of the group, if more): once
/// no more are left, one held up for [`LONG_STALL`] by a unit arrived round the goal, boxed in
/// all round, arrives wherever it stands (see [`within_ring`]).
pub const STRAGGLERS: usize = 4;
/// How much more area than its ring's density gives them the whole group may take before a unit
/// held up for [`LONG_STALL`] no longer arrives: a pressed crowd's arrived units stand less
/// tightly than the ring's half density (they are pushed about by the units coming in).
const LOOSE: f32 = 2.0;

/// How far (tiles along its field) beyond both where it first arrived and its group's ring a
/// unit pushed about by passers must end before it walks back (see [`displaced`]).
pub const DISPLACED: f32 = 3.0;

/// Whether a unit that first arrived `landed` tiles from its goal (along its field), now
/// `now` tiles from it, has been pushed away from its group's arrival ring and walks back
/// instead of standing where the push left it; such a unit arrives again (on touching the
/// ring, [`within_ring`]) only once back within the same bound, so it never flips between
/// the two. `extent` is how far the ring reaches: [`ArrivalRing::reach`] (or [`ring_reach`])
/// for the whole group, or the farthest that one of its arrived units first arrived, where
/// walls and passages took the ring beyond that. Where it first arrived, not where it last
/// did: a ring shoved along a corridor ahead of a group passing through would otherwise count
/// as arrived wherever the shove left it, and the passers behind it at a dead end never
/// arrived. Walking, it takes a lane against the passers as one stream does against another.
///
/// ```
/// use gridpath::avoid::displaced;
/// // Arrived 4 tiles out round a ring that reaches 6: pushed to 8, it stays; to 10, it walks back.
/// assert!(!displaced(4.0, 6.0, 8.0));
/// assert!(displaced(4.0, 6.0, 10.0));
/// // One that arrived far out (after a long wait) is measured from there.
/// assert!(!displaced(12.0, 6.0, 14.0));
/// ```
#[must_use]
pub fn displaced(landed: f32, extent: f32, now: f32) -> bool {
    now > landed.max(extent) + DISPLACED
}

/// Where a unit held up by its group's ring (`stalled` tiles it could have walked, `now` tiles
/// from its goal) may land on touching the ring ([`within_ring`]), or `None` while it must walk
/// on. Within [`displaced`]'s bound (of where it `landed` first and the ring's `extent`) it
/// lands, keeping the nearest it ever landed. Beyond the bound (pushed away by passers, it
/// walks back) it lands only once its way back has been blocked for [`LONG_STALL`], and only
/// hemmed in by arrived units ([`Landing::admits`]): a ring that passers loosened reaches past
/// the bound, and its units never make room for one of their own group, so without this it
/// waited there for good; with a unit of another group still pressing on it, it walks on (as a
/// walker it takes a lane against them; landed, it would block their way).
///
/// ```
/// use gridpath::avoid::{LONG_STALL, Landing, landing};
/// // Within the bound (a ring reaching 6 tiles, 3 more for pushes): it keeps its nearest.
/// assert_eq!(landing(4.0, 6.0, 8.0, 2.0), Some(Landing { at: 4.0, beyond: false }));
/// assert_eq!(landing(f32::INFINITY, 6.0, 5.0, 2.0), Some(Landing { at: 5.0, beyond: false }));
/// // Walking back from 10 tiles out: not at once; held up long, there.
/// assert_eq!(landing(4.0, 6.0, 10.0, 2.0), None);
/// assert_eq!(landing(4.0, 6.0, 10.0, LONG_STALL), Some(Landing { at: 10.0, beyond: true }));
/// ```
#[must_use]
pub fn landing(landed: f32, extent: f32, now: f32, stalled: f32) -> Option<Landing> {
    if !displaced(landed, extent, now) {
        Some(Landing { at: landed.min(now), beyond: false })
    } else if stalled >= LONG_STALL {
        Some(Landing { at: now, beyond: true })
    } else {
        None
    }
}

/// Whether a unit `held` up on its way arrives round its goal, and if so where it counts as
/// landed from then on: [`landing`] (pushed away from its ring it walks back first, or lands
/// where its own ring keeps it out), then [`within_ring`] with the touch the landing
/// [admits](Landing::admits). `landed` is where it first landed (infinity: not yet), `extent`
/// how far its ring reaches ([`displaced`]); the rest is [`within_ring`]'s. And a unit in a
/// passage ([`in_passage`]) with passage ground ahead, touching an arrived unit in its way
/// (within 60° of its heading) that stands in a passage too, no more than a diagonal step
/// beyond the ring's `extent`, lands at once: the ring has grown into a line back along
/// corridors, and the line grows on unit by unit behind it.
///
/// ```
/// use glam::Vec2;
/// use gridpath::avoid::{Held, LONG_STALL, Touch, land_in_ring, ring_reach};
/// use gridpath::{Grid, Tile};
/// let grid = Grid::filled(64, 64, Tile::FLOOR).unwrap();
/// let reach = |n| ring_reach(n, 0.3);
/// let held = |distance, stalled| Held { position: Vec2::new(2.5, 2.5), heading: Vec2::X, distance, stalled, radius: 0.3 };
/// let touch = |hemmed_in| move || Some(Touch { arrived: Vec2::new(3.0, 2.5), hemmed_in, blocked: 0 });
/// // First time round, 4 tiles out among 100 arrived of 1,000: lands there.
/// assert_eq!(land_in_ring(&grid, held(4.0, 2.0), (100, 1_000), reach, (f32::INFINITY, 6.0), touch(false)), Some(4.0));
/// // Walking back from 12 tiles out (it first landed 4 out): only held up long, hemmed in.
/// assert_eq!(land_in_ring(&grid, held(12.0, 2.0), (100, 1_000), reach, (4.0, 6.0), touch(true)), None);
/// assert_eq!(land_in_ring(&grid, held(12.0, LONG_STALL), (100, 1_000), reach, (4.0, 6.0), touch(false)), None);
/// assert_eq!(land_in_ring(&grid, held(12.0, LONG_STALL), (100, 1_000), reach, (4.0, 6.0), touch(true)), Some(12.0));
///
/// // A corridor one tile wide (row 2) whose ring has lined it out to 30 tiles from the goal:
/// // 31 tiles out, touching the line's last unit ahead, it lands at once; on open ground, or
/// // with the arrived unit behind it rather than ahead, it waits.
/// let mut corridor = Grid::filled(40, 5, Tile::FLOOR).unwrap();
/// for x in 0..40 {
///     for y in [0, 1, 3, 4] {
///         corridor.set_wall(gridpath::Pos::new(x, y), true).unwrap();
///     }
/// }
/// let in_line = Held { position: Vec2::new(9.5, 2.5), ..held(31.0, 2.0) };
/// let ahead = || Some(Touch { arrived: Vec2::new(10.1, 2.5), hemmed_in: false, blocked: 1 });
/// assert_eq!(land_in_ring(&corridor, in_line, (200, 1_000), reach, (f32::INFINITY, 30.0), ahead), Some(31.0));
/// assert_eq!(land_in_ring(&corridor, in_line, (200, 1_000), reach, (f32::INFINITY, 20.0), ahead), None);
/// assert_eq!(land_in_ring(&grid, held(31.0, 2.0), (200, 1_000), reach, (f32::INFINITY, 30.0), touch(false)), None);
/// let behind = || Some(Touch { arrived: Vec2::new(8.9, 2.5), hemmed_in: false, blocked: 16 });
/// assert_eq!(land_in_ring(&corridor, in_line, (200, 1_000), reach, (f32::INFINITY, 30.0), behind), None);
/// ```
#[must_use]
pub fn land_in_ring(
    grid: &Grid,
    held: Held,
    counts: (usize, usize),
    reach: impl Fn(usize) -> f32,
    (landed, extent): (f32, f32),
    touches: impl FnOnce() -> Option<Touch>,
) -> Option<f32> {
    let landing = landing(landed, extent, held.distance, held.stalled)?;
    // `touches` is asked once at most: by `within_ring`, or here after it.
    let mut asked: Option<Option<Touch>> = None;
    let mut touches = Some(touches);
    let mut touch = || *asked.get_or_insert_with(|| landing.admits(touches.take().and_then(|f| f())));
    if within_ring(grid, held, counts, &reach, &mut touch) {
        return Some(landing.at);
    }
    // Behind the line its ring forms back along passages, no farther out than a step beyond
    // the ring's extent: it joins the line at once. `within_ring` asks a unit out of the
    // reach of the arrived count to wait [`LONG_STALL`] first, so a line growing back through
    // a door grew a unit every 20 s, and a room behind the door held its last units for good
    // (seeded rooms 300 and 554: a ring lining one-tile corridors, its goal's room plugged).
    // Only a line in corridors: a unit in a one-tile door onto the goal's room, touching a
    // unit that arrived in the door, waits (landing, it started a line that grew back out
    // through the door while the room still held the crowd: 370 of the door scene's 1,000).
    let lined = !landing.beyond
        && held.distance <= extent + std::f32::consts::SQRT_2
        && in_passage(grid, held.position, held.heading)
        && passage_ahead(grid, held.position, held.heading)
        && touch().is_some_and(|t| {
            (t.arrived - held.position).normalize_or_zero().dot(held.heading) >= AHEAD
                && lines_passage(grid, t.arrived, held.heading)
        });
    lined.then_some(landing.at)
}

/// Tiles ahead of a unit in a passage where [`passage_ahead`] looks.
const AHEAD_TILES: f32 = 1.5;

/// Whether the ground [`AHEAD_TILES`] ahead of `p` along `heading` is a passage too (either
/// way, or no ground of its class at all: the passage turns or ends): a corridor, not a door
/// onto a room, where arrived units ahead could spread out.
fn passage_ahead(grid: &Grid, p: Vec2, heading: Vec2) -> bool {
    let q = p + heading * AHEAD_TILES;
    super::class_at(grid, q) != super::class_at(grid, p) || lines_passage(grid, q, heading)
}

/// Cosine of the widest angle off its heading at which an arrived unit it touches stands in
/// the way of a unit in a passage (60°, as [`Touch::blocked`] counts).
const AHEAD: f32 = 0.5;

/// Whether an arrived unit at `p` stands in a passage, along `heading`, across it or
/// diagonally: a unit held up on its way (`heading`) out of a door onto a corridor its ring
/// lines touches the line across its way, or where corridors cross.
fn lines_passage(grid: &Grid, p: Vec2, heading: Vec2) -> bool {
    // Diagonally too: where two one-tile corridors cross, each straight way is long, both
    // diagonal ones a tile wide.
    let diagonal = Vec2::from_angle(std::f32::consts::FRAC_PI_4).rotate(heading);
    [heading, heading.perp(), diagonal, diagonal.perp()].into_iter().any(|way| in_passage(grid, p, way))
}

/// Where a unit may land round its goal ([`landing`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Landing {
    /// Its way to go where it counts as landed from then on (tiles along its field).
    pub at: f32,
    /// Beyond [`displaced`]'s bound: it lands only hemmed in by arrived units.
    pub beyond: bool,
}

impl Landing {
    /// The `touch` that lets it land ([`within_ring`]'s): beyond the bound, only one hemmed in
    /// by arrived units.
    ///
    /// ```
    /// use glam::Vec2;
    /// use gridpath::avoid::{Landing, Touch};
    /// let touch = |hemmed_in| Some(Touch { arrived: Vec2::ZERO, hemmed_in, blocked: 0 });
    /// let beyond = Landing { at: 10.0, beyond: true };
    /// assert!(beyond.admits(touch(true)).is_some());
    /// assert!(beyond.admits(touch(false)).is_none());
    /// assert!(Landing { at: 4.0, beyond: false }.admits(touch(false)).is_some());
    /// ```
    #[must_use]
    pub fn admits(self, touch: Option<Touch>) -> Option<Touch> {
        touch.filter(|touch| !self.beyond || touch.hemmed_in)
    }
}

/// A unit held up on its way to its goal, as [`within_ring`] weighs it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Held {
    /// Where it stands (tiles).
    pub position: Vec2,
    /// Which way it wants to go (a unit vector; zero: nowhere).
    pub heading: Vec2,
    /// Its way left to the goal (tiles along its field or route).
    pub distance: f32,
    /// Tiles it could have walked without getting closer to the goal.
    pub stalled: f32,
    /// Radius of its body (tiles).
    pub radius: f32,
}

/// What a [`Held`] unit touches, as [`within_ring`] asks for it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Touch {
    /// Where the unit arrived round its goal that it touches stands.
    pub arrived: Vec2,
    /// Every body it touches has arrived: nobody presses on behind it.
    pub hemmed_in: bool,
    /// Of the eight compass directions (bit `k`: `k` × 45° from +x, towards +y), those a body
    /// it touches stands in the way of (within 60°).
    pub blocked: u8,
}

/// A unit touching a held one, as [`Touch::among`] weighs it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact {
    /// Where it stands (tiles).
    pub position: Vec2,
    /// It has arrived.
    pub arrived: bool,
    /// It is bound for the held unit's goal.
    pub same_goal: bool,
    /// Its way left to that goal (tiles; infinite when not measured).
    pub distance: f32,
    /// The larger step cost of the two units' cells ([`beside_along_way`]).
    pub cost: u8,
    /// Centre distance (tiles) at which the two touch.
    pub touch: f32,
}

impl Touch {
    /// What a unit at `at`, `distance` from its goal, touches among its `contacts`: the last
    /// unit arrived on its goal that stands beside it along the way ([`beside_along_way`]), if
    /// any, whether every contact has arrived, and which ways the contacts block. The game's,
    /// the plugin's and the test harness's one rule; each lists the contacts its own way.
    ///
    /// ```
    /// use glam::Vec2;
    /// use gridpath::avoid::{Contact, Touch};
    /// let contact = |x: f32, arrived, distance| Contact {
    ///     position: Vec2::new(x, 0.0),
    ///     arrived,
    ///     same_goal: true,
    ///     distance,
    ///     cost: 1,
    ///     touch: 0.69,
    /// };
    /// let arrived_beside = contact(0.6, true, 9.0);
    /// let at = Vec2::ZERO;
    /// // It stands in the way of steps towards +x, and 45° either side (bits 0, 1 and 7).
    /// let blocked = 0b1000_0011;
    /// let touch = Touch { arrived: Vec2::new(0.6, 0.0), hemmed_in: true, blocked };
    /// assert_eq!(Touch::among(at, 10.0, [arrived_beside]), Some(touch));
    /// // A walker behind it: touching, not hemmed in. An arrived unit far ahead along the way: no.
    /// let walker = contact(-0.6, false, 11.0);
    /// let both = Touch::among(at, 10.0, [arrived_beside, walker]).unwrap();
    /// assert_eq!((both.hemmed_in, both.blocked), (false, 0b1011_1011));
    /// assert_eq!(Touch::among(at, 10.0, [contact(0.6, true, 5.0)]), None);
    /// ```
    #[must_use]
    pub fn among(at: Vec2, distance: f32, contacts: impl IntoIterator<Item = Contact>) -> Option<Self> {
        let (mut touched, mut hemmed_in, mut blocked) = (None, true, 0);
        for contact in contacts {
            hemmed_in &= contact.arrived;
            blocked |= directions_towards(contact.position - at);
            if contact.arrived
                && contact.same_goal
                && beside_along_way(distance, contact.distance, contact.cost, contact.touch)
            {
                touched = Some(contact.position);
            }
        }
        touched.map(|arrived| Self { arrived, hemmed_in, blocked })
    }
}

/// The eight compass directions (as [`Touch::blocked`]).
const COMPASS: [Vec2; 8] = {
    const D: f32 = std::f32::consts::FRAC_1_SQRT_2;
    [
        Vec2::new(1.0, 0.0),
        Vec2::new(D, D),
        Vec2::new(0.0, 1.0),
        Vec2::new(-D, D),
        Vec2::new(-1.0, 0.0),
        Vec2::new(-D, -D),
        Vec2::new(0.0, -1.0),
        Vec2::new(D, -D),
    ]
};

/// The compass directions (bits, as [`Touch::blocked`]) within 60° of `offset`: a body
/// touching there stands in the way of a step that way.
fn directions_towards(offset: Vec2) -> u8 {
    let length = offset.length();
    COMPASS.iter().enumerate().fold(0, |bits, (k, d)| {
        if offset.dot(*d) >= 0.5 * length && length > 0.0 { bits | (1 << k) } else { bits }
    })
}

/// The compass directions (bits, as [`Touch::blocked`]) in which a body of `radius` at `p`
/// could not take a step of a quarter tile without touching a wall (or a cell of another
/// class, or the map's edge); a diagonal also where both its sides are walled (a corner).
fn walled_directions(grid: &Grid, p: Vec2, radius: f32) -> u8 {
    let class = super::class_at(grid, p);
    let walled = COMPASS.iter().enumerate().fold(0_u8, |bits, (k, d)| {
        let probe = p + *d * (radius + STEP_PROBE);
        if super::class_at(grid, probe) == class { bits } else { bits | (1 << k) }
    });
    // The diagonals (odd bits) between two walled sides (the even bits either side).
    let corners = (1..8).step_by(2).fold(0_u8, |bits, k| {
        let sides = (1 << (k - 1)) | (1 << ((k + 1) % 8));
        if walled & sides == sides { bits | (1 << k) } else { bits }
    });
    walled | corners
}

/// How far beyond its body [`walled_directions`] looks for a wall, in tiles.
const STEP_PROBE: f32 = 0.25;

/// Whether a unit `held` up by the units arrived round its goal arrives too. It must touch one
/// of them (`touches`: where one stands that is beside it along the way, and whether every
/// body it touches has arrived; asked only when the answer can matter, as finding out means
/// scanning its neighbours) and stand within the ring the `arrived` units fill (`reach`:
/// [`ArrivalRing::reach`] along a field, or [`ring_reach`] on open ground), or, after
/// [`LONG_STALL`], within the ring the whole group of `all` fills packed loosely (at quarter
/// density: a crowd that started on every cell of a map, at 0.28, packs no tighter against
/// its ring), or anywhere when it has no way on round the ring: every body it touches has
/// arrived ([`Touch::hemmed_in`]), or it and the arrived unit it touches stand in a passage
/// ([`in_passage`]; the arrived unit's along its way, across it or diagonally), where the
/// arrived units block the way and the ring is a line back along
/// it (a goal in a maze's corridor: the cells the field counts beyond it are out of reach), or
/// it is one of the group's last [`STRAGGLERS`], boxed in all round by the bodies it touches
/// and walls ([`Touch::blocked`]): two of them walled in together by their arrived group each
/// touch the other, a walker, so neither is hemmed in, and neither can move. (The last few
/// waiting at a door the ring inside has reached are not boxed in: the way back is open, and
/// they squeeze through in time.)
/// The first keeps the ring from growing into tendrils back across open ground (out through a
/// door while the room beyond still holds the crowd: the unit in the door touches arrived
/// units on open ground, not in the door).
///
/// ```
/// use glam::Vec2;
/// use gridpath::avoid::{Held, LONG_STALL, Touch, ring_reach, within_ring};
/// use gridpath::{Grid, Tile};
/// let grid = Grid::filled(64, 64, Tile::FLOOR).unwrap();
/// let reach = |n| ring_reach(n, 0.3);
/// let held = |distance, stalled| Held { position: Vec2::new(2.5, 2.5), heading: Vec2::X, distance, stalled, radius: 0.3 };
/// let touching = |hemmed_in| move || Some(Touch { arrived: Vec2::new(3.0, 2.5), hemmed_in, blocked: 0b0000_0011 });
/// let boxed_in = || Some(Touch { arrived: Vec2::new(3.0, 2.5), hemmed_in: false, blocked: u8::MAX });
/// // 100 arrived of 1,000: 4 tiles out arrives, 12 tiles out does not, unless held up long.
/// assert!(within_ring(&grid, held(4.0, 2.0), (100, 1_000), reach, touching(false)));
/// assert!(!within_ring(&grid, held(12.0, 2.0), (100, 1_000), reach, touching(false)));
/// assert!(within_ring(&grid, held(12.0, LONG_STALL), (100, 1_000), reach, touching(false)));
/// // Far out on open ground: no; with no way round, after a long wait: yes.
/// assert!(!within_ring(&grid, held(40.0, LONG_STALL), (100, 1_000), reach, touching(false)));
/// assert!(within_ring(&grid, held(40.0, LONG_STALL), (100, 1_000), reach, touching(true)));
/// // One of the last few of its group, boxed in: after a long wait, anywhere; not boxed in, no.
/// assert!(within_ring(&grid, held(40.0, LONG_STALL), (996, 1_000), reach, boxed_in));
/// assert!(!within_ring(&grid, held(40.0, LONG_STALL), (996, 1_000), reach, touching(false)));
/// assert!(!within_ring(&grid, held(40.0, LONG_STALL), (980, 1_000), reach, boxed_in));
/// // Touching no arrived unit: never. Out of reach and not held up long: its neighbours are
/// // not even looked at.
/// assert!(!within_ring(&grid, held(4.0, LONG_STALL), (100, 1_000), reach, || None));
/// assert!(!within_ring(&grid, held(12.0, 2.0), (100, 1_000), reach, || -> Option<Touch> { unreachable!() }));
/// ```
#[must_use]
pub fn within_ring(
    grid: &Grid,
    held: Held,
    (arrived, all): (usize, usize),
    reach: impl Fn(usize) -> f32,
    touches: impl FnOnce() -> Option<Touch>,
) -> bool {
    let in_reach = held.distance <= reach(arrived);
    if !in_reach && held.stalled < LONG_STALL {
        return false;
    }
    let Some(touch) = touches() else { return false };
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss,
        reason = "a count of units"
    )]
    let loose = (all as f32 * LOOSE) as usize;
    // Behind a unit arrived in a passage, in it too: the ring is a line along the passage.
    let walled =
        || in_passage(grid, held.position, held.heading) && lines_passage(grid, touch.arrived, held.heading);
    // One of the last few, boxed in by bodies and walls all round.
    let last_few = || {
        all.saturating_sub(arrived) <= STRAGGLERS.max(all / 100)
            && held.stalled >= LONG_STALL
            && touch.blocked | walled_directions(grid, held.position, held.radius) == u8::MAX
    };
    in_reach || held.distance <= reach(loose) || touch.hemmed_in || walled() || last_few()
}

/// Open width (tiles) below which [`in_passage`] calls ground a passage: two tiles wide at most.
const PASSAGE: f32 = 2.5;

/// Whether `p` stands in a passage at most two tiles wide across `heading` (a unit vector):
/// a corridor, a door, a gap between walls — where units arrived ahead block the way.
///
/// ```
/// use gridpath::avoid::in_passage;
/// use gridpath::{Grid, Pos, Tile};
/// use glam::Vec2;
/// // A corridor one tile wide (row 2) in a block of walls, then open ground from column 6.
/// let mut grid = Grid::filled(12, 5, Tile::FLOOR).unwrap();
/// for x in 0..6 {
///     for y in [0, 1, 3, 4] {
///         grid.set_wall(Pos::new(x, y), true).unwrap();
///     }
/// }
/// assert!(in_passage(&grid, Vec2::new(3.5, 2.5), Vec2::X));
/// assert!(!in_passage(&grid, Vec2::new(9.5, 2.5), Vec2::X));
/// ```
#[must_use]
pub fn in_passage(grid: &Grid, p: Vec2, heading: Vec2) -> bool {
    heading != Vec2::ZERO && super::open_across(grid, p, heading, PASSAGE) < PASSAGE
}

/// Whether an arrived unit with `other` tiles of way left to the goal, touched by a unit with
/// `me` tiles left, stands beside it along the way too: no more than a diagonal step of the
/// costlier `cost` of their two cells nearer the goal or farther, per cell their `touch`
/// distance (tiles, centre to centre) spans — one for one-cell bodies, up to four for large
/// ones, whose anchors stand cells apart. Only then can it hold the unit up: two touching
/// bodies stand that far apart along the field at most, unless a wall or a fence between them
/// makes the way round long (a body touching one across a fence arrives on the wrong side; one
/// ahead of an arrived unit that fell behind it is not held up by it). A way not measured
/// (infinite: a unit on a route of its own, with no field) leaves the touch alone to count.
/// The one test of the game, the plugin and the harness.
///
/// ```
/// use gridpath::avoid::beside_along_way;
/// let touch = 0.69; // two bodies of radius 0.3, and a margin
/// assert!(beside_along_way(5.0, 4.2, 1, touch)); // just behind it
/// assert!(beside_along_way(4.2, 5.0, 1, touch)); // just ahead of it
/// assert!(!beside_along_way(12.0, 4.0, 1, touch)); // across a fence: long way round
/// assert!(!beside_along_way(2.0, 4.0, 1, touch)); // it fell behind
/// assert!(beside_along_way(6.0, 4.0, 2, touch)); // on costly ground a step is longer
/// assert!(beside_along_way(6.5, 4.0, 1, 1.84)); // two 2x2 bodies: anchors two cells apart
/// assert!(beside_along_way(f32::INFINITY, f32::INFINITY, 1, touch)); // ways not measured
/// ```
#[must_use]
pub fn beside_along_way(me: f32, other: f32, cost: u8, touch: f32) -> bool {
    let step = std::f32::consts::SQRT_2 * f32::from(cost.max(1)) * touch.ceil().max(1.0);
    // A way not measured (a routed unit's, off any field) is infinite: the touch alone counts.
    // A field's distances of neighbouring cells differ by a step exactly, rounded apart.
    !(me.is_finite() && other.is_finite()) || (me - other).abs() <= step + 1e-3
}

/// Tiles² a body of radius `r` takes in a crowd at rest: its area at half density (a crowd
/// among walls packs loosely).
fn area_per_body(radius: f32) -> f32 {
    2.0 * std::f32::consts::PI * radius * radius
}
/// Width of the distance bands [`ArrivalRing`] counts cells in, in tiles.
const BAND: f64 = 0.25;

/// How far from its goal (tiles of its way there) a unit of `radius` arrives on touching one
/// of the `arrived` units already round that goal, on open ground: the radius of the disc they
/// fill, a body and [`RING_MARGIN`] beyond. With a flow field to the goal,
/// [`ArrivalRing::reach`] measures the same along the field, walls and doors included.
///
/// A unit that stops on the first arrived unit it meets, wherever it meets it, grows the ring
/// into tendrils reaching back along the way — out through a door, until the crowd still
/// queueing in the room behind "arrives" there.
///
/// ```
/// use gridpath::avoid::ring_reach;
/// // The first to arrive reach a little beyond the goal; 1,000 of radius 0.3 fill a disc of
/// // ~13.4 tiles, and a unit arrives within a body and a margin beyond it.
/// assert!(ring_reach(0, 0.3) < 2.0);
/// assert!((15.0..15.5).contains(&ring_reach(1_000, 0.3)));
/// ```
#[must_use]
pub fn ring_reach(arrived: usize, radius: f32) -> f32 {
    #[expect(clippy::cast_precision_loss, reason = "a count of units")]
    let area = arrived as f32 * area_per_body(radius);
    (area / std::f32::consts::PI).sqrt() + radius + RING_MARGIN
}

/// The arrival ring measured along a flow field: how many cells lie within each distance of
/// the goal, so [`reach`](Self::reach) is the distance (along the field) within which the
/// cells hold the arrived units. Unlike [`ring_reach`]'s disc it knows the walls: a goal in a
/// corner or next to a door gets a ring of the room's shape, and the ring reaches out through
/// a door only once the room is full — as a player expects of a crowd sent into a room too
/// small for it.
///
/// ```
/// use gridpath::avoid::ArrivalRing;
/// use gridpath::{FlowField, Pos, Rules, formats};
/// // A 9 x 5 room with a one-tile door in its right wall at (9, 2), a corridor on from it.
/// let rows: Vec<String> = (0..5)
///     .map(|y| format!("{}{}", ".".repeat(9), if y == 2 { ".".repeat(61) } else { "#".repeat(61) }))
///     .collect();
/// let map = formats::parse_ascii(&rows.join("\n")).unwrap();
/// let field = FlowField::dijkstra(&map.grid, Pos::new(4, 2), Rules::OCTILE).unwrap();
/// let ring = ArrivalRing::new(&field);
/// let door = field.distance(Pos::new(9, 2)).unwrap() as f32;
/// // 20 units fill a quarter of the room: their ring stops short of the door.
/// assert!(ring.reach(20, 0.3) < door);
/// // 150 units do not fit in the room's 45 cells: the ring reaches out along the corridor.
/// let spilled = ring.reach(150, 0.3);
/// assert!(spilled > door + 20.0 && spilled.is_finite(), "{spilled}");
/// ```
#[derive(Clone, Debug, Default)]
pub struct ArrivalRing {
    /// Per band of [`BAND`] tiles of distance, the cells at most that band's upper end away.
    within: Vec<u32>,
}

impl ArrivalRing {
    /// Counts `field`'s reached cells by their distance to its goal.
    #[must_use]
    pub fn new(field: &FlowField) -> Self {
        let mut within: Vec<u32> = Vec::new();
        // Rebuilt after every edit of a followed field, on the frame's serial path: one pass over
        // the field's words, and the band rounded up by integer arithmetic (x86-64 without
        // SSE4.1 calls libm for `ceil`; a third of a 256 × 256 map's tally went there).
        for d in field.reached_distances() {
            let scaled = d / BAND;
            #[expect(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "distances on a map")]
            let down = scaled as usize;
            #[expect(clippy::cast_precision_loss, reason = "distances on a map are exact")]
            let band = if (down as f64) < scaled { down + 1 } else { down };
            if within.len() <= band {
                within.resize(band + 1, 0);
            }
            within[band] += 1;
        }
        let mut total = 0;
        for count in &mut within {
            total += *count;
            *count = total;
        }
        Self { within }
    }

    /// How far from the goal (tiles along the field) a unit of `radius` arrives on touching one
    /// of the `arrived` units round it: the distance within which the cells hold them (their
    /// area at half density, as [`ring_reach`]), a body and [`RING_MARGIN`] beyond. Past every
    /// reached cell (more units than the field's area holds): unbounded.
    #[must_use]
    pub fn reach(&self, arrived: usize, radius: f32) -> f32 {
        #[expect(clippy::cast_precision_loss, reason = "a count of units")]
        let area = arrived as f32 * area_per_body(radius);
        // The first band whose cells hold that area (at least the goal's own).
        let band = self.within.partition_point(|&cells| (cells as f32) < area.max(1.0));
        if band == self.within.len() {
            return f32::INFINITY;
        }
        #[expect(clippy::cast_possible_truncation, reason = "a distance on a map")]
        let distance = (band as f64 * BAND) as f32;
        distance + radius + RING_MARGIN
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::{Pos, Rules, Tile};

    /// A unit is boxed in when the bodies it touches and the walls leave it no step of any of
    /// the eight compass directions: three bodies round it on open ground; one body and the
    /// walls of a one-tile dead end; not one body in a corridor (the way back is open).
    #[test]
    fn boxed_in_by_bodies_and_walls_all_round() {
        let touching = |at: Vec2, others: &[Vec2]| {
            others.iter().fold(0, |bits, &other| bits | directions_towards(other - at))
        };
        let open = Grid::filled(10, 10, Tile::FLOOR).unwrap();
        let at = Vec2::new(5.5, 5.5);
        let three: Vec<Vec2> =
            [0.0_f32, 120.0, 240.0].iter().map(|deg| at + Vec2::from_angle(deg.to_radians()) * 0.6).collect();
        assert_eq!(touching(at, &three) | walled_directions(&open, at, 0.3), u8::MAX);
        assert_ne!(touching(at, &three[..2]) | walled_directions(&open, at, 0.3), u8::MAX);
        // A corridor along row 5, closed at x = 0: a dead end at (0, 5).
        let mut corridor = Grid::filled(10, 10, Tile::FLOOR).unwrap();
        for x in 0..10 {
            for y in [4, 6] {
                corridor.set_wall(Pos::new(x, y), true).unwrap();
            }
        }
        let (end, middle) = (Vec2::new(0.5, 5.5), Vec2::new(5.5, 5.5));
        assert_eq!(walled_directions(&corridor, end, 0.3) | touching(end, &[end + Vec2::X * 0.6]), u8::MAX);
        assert_ne!(
            walled_directions(&corridor, middle, 0.3) | touching(middle, &[middle + Vec2::X * 0.6]),
            u8::MAX
        );
    }

    #[test]
    fn on_open_ground_the_ring_is_about_the_disc() {
        let grid = Grid::filled(101, 101, Tile::FLOOR).unwrap();
        let field = FlowField::dijkstra(&grid, Pos::new(50, 50), Rules::OCTILE).unwrap();
        let ring = ArrivalRing::new(&field);
        for arrived in [0, 10, 100, 1_000, 5_000] {
            let (along, disc) = (ring.reach(arrived, 0.3), ring_reach(arrived, 0.3));
            // Octile distance: the cells within d form an octagon a little smaller than the
            // disc of radius d, so the field's reach is a little longer.
            assert!(along >= disc - 0.5 && along <= disc * 1.1 + 0.5, "{arrived}: {along} against {disc}");
        }
        assert_eq!(ring.reach(100_000, 0.3), f32::INFINITY, "more than the map holds");
    }

    #[test]
    fn in_a_corner_the_ring_reaches_farther_than_the_disc() {
        let grid = Grid::filled(60, 60, Tile::FLOOR).unwrap();
        let field = FlowField::dijkstra(&grid, Pos::new(0, 0), Rules::OCTILE).unwrap();
        let ring = ArrivalRing::new(&field);
        // A quarter of the disc's area lies on the map: the same units reach about twice as far.
        let (along, disc) = (ring.reach(1_000, 0.3), ring_reach(1_000, 0.3));
        assert!(along > 1.6 * (disc - 1.8), "{along} against {disc}");
    }
}
