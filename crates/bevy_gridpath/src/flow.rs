//! Shared flow fields: every entity with a [`FollowFlowField`] to the same goal (under the same
//! movement rules, for the same body size) reads one [`gridpath::FlowField`] instead of
//! searching a route of its own.
//! A field is built when its first follower appears, rebuilt in place when the grid changes,
//! and dropped when nobody follows it any more.

use std::sync::OnceLock;

use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use gridpath::avoid::{ArrivalRing, ring_reach};
use gridpath::sight::sight_shadow;
use gridpath::{FieldKind, FlowField, Grid, Pos, Rules, SearchError};

use crate::GridPathSystems;
use crate::nav::{NavGrid, NavVersion};
use crate::plan::{PathFailure, PathStatus};

pub(crate) fn plugin(app: &mut App) {
    app.init_resource::<FlowFields>();
    app.add_systems(
        Update,
        update_flow_fields.in_set(GridPathSystems::Request).after(crate::nav::publish_grid_changes),
    );
}

/// Follow the shared flow field to `goal`: the cheapest way from any cell (Dijkstra, terrain
/// costs honoured). With a [`Mover`](crate::Mover) the plugin walks it; without one, read the
/// field from [`FlowFields`] and steer it yourself.
///
/// Followers of one goal, rules and body size share one field; a large body (`agent_size`
/// 2 to 4, anchored at its top-left cell as every gridpath search anchors it) gets a field on
/// the grid's clearance, so every step it takes fits the whole body, round corners too.
///
/// ```
/// use bevy_gridpath::prelude::*;
/// use bevy_gridpath::gridpath::Pos;
///
/// let follow = FollowFlowField::new(Pos::new(9, 4)).with_agent_size(2);
/// assert_eq!((follow.goal, follow.agent_size), (Pos::new(9, 4), 2));
/// ```
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[require(Transform, PathStatus)]
pub struct FollowFlowField {
    /// Where to go: for a large body, the cell its top-left corner ends on.
    pub goal: Pos,
    /// The movement rules (moves and corner rule) the field is built with.
    pub rules: Rules,
    /// The body's size in cells (1 to 4; 1 for a unit of one cell).
    pub agent_size: u8,
}

impl FollowFlowField {
    /// To `goal` with the default rules (8 moves without corner cutting), for a body of one
    /// cell.
    pub fn new(goal: Pos) -> Self {
        Self { goal, rules: Rules::OCTILE, agent_size: 1 }
    }

    /// The same for a body of `agent_size` × `agent_size` cells.
    #[must_use]
    pub fn with_agent_size(self, agent_size: u8) -> Self {
        Self { agent_size, ..self }
    }
}

/// A flow field and who uses it.
#[derive(Debug)]
pub struct SharedField {
    /// The field; `None` when its goal is not a cell a field can start from (a wall, off the
    /// grid).
    pub field: Option<FlowField>,
    /// Why there is no field, if there is none.
    pub problem: Option<SearchError>,
    /// Entities following it, counted every frame.
    pub followers: usize,
    /// The grid version it was built for.
    built: Option<NavVersion>,
    /// The field's cells counted by distance, for the arrival ring round its goal: counted
    /// the first time a follower asks after each build (a crowd held up by the units arrived
    /// there), not on every build.
    ring: OnceLock<ArrivalRing>,
}

impl SharedField {
    /// How far along the field from its goal a unit of `radius` arrives on touching one of the
    /// `arrived` units round it ([`ArrivalRing::reach`]); with no field, the disc on open
    /// ground ([`ring_reach`]).
    pub fn ring_reach(&self, arrived: usize, radius: f32) -> f32 {
        self.field.as_ref().map_or_else(
            || ring_reach(arrived, radius),
            |field| self.ring.get_or_init(|| ArrivalRing::new(field)).reach(arrived, radius),
        )
    }

    /// Why a follower on `cell` cannot be led anywhere.
    pub fn failure(&self, cell: Pos) -> PathFailure {
        match (&self.problem, &self.field) {
            (Some(problem), _) => PathFailure::Search(problem.clone()),
            (None, Some(field)) => PathFailure::Search(SearchError::NoPath {
                start: cell,
                goal: field.goal(),
                stats: gridpath::Stats::default(),
            }),
            (None, None) => PathFailure::OffGrid,
        }
    }
}

/// Every flow field in use, one per goal, rules and body size (keyed by the
/// [`FollowFlowField`] its followers carry).
#[derive(Resource, Debug, Default)]
pub struct FlowFields {
    fields: HashMap<FollowFlowField, SharedField>,
    /// Fields built or rebuilt since start-up.
    pub builds: u64,
    /// Of those, the rebuilds that repaired the field around the edited cells instead of
    /// searching the whole map again ([`FlowField::repair`]; it rebuilds where a repair would
    /// not pay).
    pub repaired: u64,
    /// Followers whose field was rebuilt under them (they re-route by reading it) since
    /// start-up.
    pub rerouted: u64,
}

impl FlowFields {
    /// The field `follow` leads along, if it has been built.
    pub fn field(&self, follow: &FollowFlowField) -> Option<&FlowField> {
        self.shared(follow).and_then(|shared| shared.field.as_ref())
    }

    /// The field `follow` leads along, with its followers and its problem.
    pub fn shared(&self, follow: &FollowFlowField) -> Option<&SharedField> {
        self.fields.get(follow)
    }

    /// Every field in use, by goal, rules and body size.
    pub fn iter(&self) -> impl Iterator<Item = (&FollowFlowField, &SharedField)> {
        self.fields.iter()
    }

    /// Fields in use.
    pub fn len(&self) -> usize {
        self.fields.len()
    }

    /// `true` when nobody follows a field.
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }
}

/// The flow fields, looked up by follower: a run of followers of one field (most of a crowd
/// follows one) hashes its key once.
///
/// ```
/// use bevy_gridpath::{FieldLookup, FlowFields, FollowFlowField};
/// use bevy_gridpath::gridpath::Pos;
///
/// let fields = FlowFields::default();
/// let mut lookup = FieldLookup::new(&fields);
/// assert!(lookup.shared(&FollowFlowField::new(Pos::new(1, 1))).is_none());
/// ```
pub struct FieldLookup<'a> {
    fields: &'a FlowFields,
    last: Option<(FollowFlowField, Option<&'a SharedField>)>,
}

impl<'a> FieldLookup<'a> {
    /// Looks up in `fields`.
    pub fn new(fields: &'a FlowFields) -> Self {
        Self { fields, last: None }
    }

    /// The field `follow` leads along, with its followers and its problem.
    pub fn shared(&mut self, follow: &FollowFlowField) -> Option<&'a SharedField> {
        match self.last {
            Some((key, shared)) if key == *follow => shared,
            _ => {
                let shared = self.fields.shared(follow);
                self.last = Some((*follow, shared));
                shared
            }
        }
    }
}

/// Which cells see their flow field's goal in a straight line (under the field's rules), per
/// followed goal, remembered per grid version: a follower on such a cell can head straight for
/// the goal instead of down the field's 45° and 90° steps, and each cell is checked once
/// however many units pass it; every edit starts afresh. At most
/// [`SIGHT_CHECKS_PER_FRAME`] new checks a frame (a crowd of thousands after an edit): a cell
/// not checked yet follows its field that frame.
///
/// ```
/// use bevy_gridpath::GoalSight;
/// use bevy_gridpath::gridpath::{Grid, Pos, Rules, Tile};
///
/// let grid = Grid::filled(8, 8, Tile::FLOOR).unwrap();
/// let mut sight = GoalSight::default();
/// assert!(sight.sees(&grid, Pos::new(0, 0), Pos::new(7, 3), Rules::OCTILE));
/// assert_eq!(sight.table(Pos::new(7, 3), Rules::OCTILE).and_then(|t| t.get(Pos::new(0, 0))), Some(true));
/// ```
#[derive(Debug, Default)]
pub struct GoalSight {
    version: Option<NavVersion>,
    /// Per followed goal and rules, per cell (row by row): [`UNCHECKED`], [`BLIND`] or
    /// [`SEES`]. A table per goal, not a map of cells: every follower looks its cell up every
    /// frame.
    tables: HashMap<(Pos, Rules), Vec<u8>>,
    /// The grid's size: a table's length is `width` × `height`.
    width: u32,
    height: u32,
    checks_left: usize,
}

/// New line-of-sight checks a [`GoalSight`] makes per frame, at most.
pub const SIGHT_CHECKS_PER_FRAME: usize = 2_000;
/// [`GoalSight`]'s marks of a cell: not checked yet, does not see its goal, sees it.
const UNCHECKED: u8 = 0;
const BLIND: u8 = 1;
const SEES: u8 = 2;

impl GoalSight {
    /// A new frame on `nav`'s grid: forgets what the edits since the last frame may have
    /// changed — the cells in the shadow they cast from each goal ([`sight_shadow`]), or
    /// everything when that is not known ([`NavGrid::cells_edited_since`]) — and the goals no
    /// field is followed to any more (a table is a byte per cell); the frame's budget of checks
    /// anew. A wall painted far from a crowd's line to its goal leaves the crowd walking
    /// straight, instead of every unit following the field's stair-steps until its cell is
    /// checked again.
    pub fn on(&mut self, nav: &NavGrid, fields: &FlowFields) {
        self.checks_left = SIGHT_CHECKS_PER_FRAME;
        let (version, grid) = (nav.version(), nav.grid());
        if self.version != Some(version) {
            let size = (grid.width(), grid.height());
            let edited = self
                .version
                .filter(|_| size == (self.width, self.height) && !grid.has_fences())
                .and_then(|seen| nav.cells_edited_since(seen));
            match edited {
                Some(cells) => self.forget(&cells),
                None => self.tables.clear(),
            }
            self.version = Some(version);
            (self.width, self.height) = size;
        }
        let followed =
            |goal: Pos, rules: Rules| fields.iter().any(|(f, _)| (f.goal, f.rules) == (goal, rules));
        self.tables.retain(|&(goal, rules), _| followed(goal, rules));
    }

    /// Forgets the marks of the cells whose sight of their goal the `edited` cells may have
    /// changed.
    fn forget(&mut self, edited: &[Pos]) {
        if edited.is_empty() {
            return;
        }
        let width = self.width as usize;
        for (&(goal, _), marks) in &mut self.tables {
            let bounded = sight_shadow(goal, edited, (self.width, self.height), |y, xs| {
                let row = y as usize * width;
                marks[row + xs.start as usize..row + xs.end as usize].fill(UNCHECKED);
            });
            if !bounded {
                marks.fill(UNCHECKED);
            }
        }
    }

    /// New checks left this frame.
    pub fn checks_left(&self) -> usize {
        self.checks_left
    }

    /// What is known of the cells' sight of `goal` under `rules`, once one was checked.
    pub fn table(&self, goal: Pos, rules: Rules) -> Option<SightTable<'_>> {
        self.tables.get(&(goal, rules)).map(|marks| SightTable { marks, width: self.width })
    }

    /// Remembers a check made this frame (one of the frame's budget): whether `cell` sees
    /// `goal` under `rules`.
    pub fn remember(&mut self, (cell, goal, rules): (Pos, Pos, Rules), seen: bool) {
        self.checks_left = self.checks_left.saturating_sub(1);
        let cells = self.width as usize * self.height as usize;
        let index = cell.y as usize * self.width as usize + cell.x as usize;
        let table = self.tables.entry((goal, rules)).or_insert_with(|| vec![UNCHECKED; cells]);
        if let Some(mark) = table.get_mut(index) {
            *mark = if seen { SEES } else { BLIND };
        }
    }

    /// Whether `cell` sees `goal` under `rules` on `grid`: known, or checked now if the frame's
    /// budget allows (else `false`: follow the field this frame).
    pub fn sees(&mut self, grid: &Grid, cell: Pos, goal: Pos, rules: Rules) -> bool {
        if (self.width, self.height) != (grid.width(), grid.height()) {
            // Never told of this grid (no `on` yet): sized for it now.
            (self.width, self.height) = (grid.width(), grid.height());
            self.tables.clear();
        }
        if let Some(seen) = self.table(goal, rules).and_then(|t| t.get(cell)) {
            return seen;
        }
        if self.checks_left == 0 && self.version.is_some() {
            return false;
        }
        let seen = grid.line_of_sight(cell, goal, rules);
        self.remember((cell, goal, rules), seen);
        seen
    }
}

/// The sight checks one task makes while followers are split over threads: it reads a
/// [`GoalSight`] shared by all tasks, makes each new check once, within its share of the
/// frame's budget, and the caller hands what it [`made`](Self::made) to
/// [`GoalSight::remember`] once the tasks are done.
///
/// ```
/// use bevy_gridpath::{GoalSight, SightChecks};
/// use bevy_gridpath::gridpath::{Grid, Pos, Rules, Tile};
///
/// let grid = Grid::filled(8, 8, Tile::FLOOR).unwrap();
/// let sight = GoalSight::default();
/// let (cell, goal) = (Pos::new(0, 0), Pos::new(7, 3));
/// let mut checks = SightChecks::new(1);
/// assert_eq!(checks.sees(&sight, &grid, (cell, goal, Rules::OCTILE)), Some(true));
/// // Made once: asked again, it is known.
/// assert_eq!(checks.sees(&sight, &grid, (cell, goal, Rules::OCTILE)), Some(true));
/// // Its one check is spent: another cell is not checked this frame.
/// assert_eq!(checks.sees(&sight, &grid, (Pos::new(1, 0), goal, Rules::OCTILE)), None);
/// assert_eq!(checks.made.get(&(cell, goal, Rules::OCTILE)), Some(&true));
/// ```
#[derive(Debug)]
pub struct SightChecks<'a> {
    budget: usize,
    /// The checks made: cell, goal and rules, and whether the cell sees the goal.
    pub made: HashMap<(Pos, Pos, Rules), bool>,
    /// The last goal's table looked up: a run of followers of one goal finds it once.
    last: Option<((Pos, Rules), Option<SightTable<'a>>)>,
}

impl<'a> SightChecks<'a> {
    /// At most `budget` new checks (a share of [`GoalSight::checks_left`]).
    pub fn new(budget: usize) -> Self {
        Self { budget, made: HashMap::default(), last: None }
    }

    /// Whether `cell` sees `goal` under `rules`: known to `sight`, checked by this task
    /// already, or checked now; `None` when the budget is spent (follow the field this frame).
    pub fn sees(
        &mut self,
        sight: &'a GoalSight,
        grid: &Grid,
        (cell, goal, rules): (Pos, Pos, Rules),
    ) -> Option<bool> {
        let table = match self.last {
            Some((key, table)) if key == (goal, rules) => table,
            _ => {
                let table = sight.table(goal, rules);
                self.last = Some(((goal, rules), table));
                table
            }
        };
        if let Some(seen) = table.and_then(|t| t.get(cell)) {
            return Some(seen);
        }
        if let Some(&seen) = self.made.get(&(cell, goal, rules)) {
            return Some(seen);
        }
        (self.made.len() < self.budget).then(|| {
            let seen = grid.line_of_sight(cell, goal, rules);
            self.made.insert((cell, goal, rules), seen);
            seen
        })
    }
}

/// The cells' sight of one goal, as far as checked ([`GoalSight::table`]).
#[derive(Clone, Copy, Debug)]
pub struct SightTable<'a> {
    marks: &'a [u8],
    width: u32,
}

impl SightTable<'_> {
    /// Whether `cell` sees the goal; `None` until checked.
    pub fn get(&self, cell: Pos) -> Option<bool> {
        match self.marks.get(cell.y as usize * self.width as usize + cell.x as usize) {
            Some(&SEES) => Some(true),
            Some(&BLIND) => Some(false),
            _ => None,
        }
    }
}

/// Counts the followers of every field, creates the fields new goals need, drops those nobody
/// follows, and (re)builds those the grid changed under.
///
/// A field built on the grid as this system last saw it is repaired around the cells edited
/// since ([`FlowField::repair`]: exact, and on a large map a stroke's repair takes a fraction
/// of a rebuild); after a replaced grid, an edit of any cell, or a frame this system did not
/// follow, it is rebuilt.
fn update_flow_fields(
    nav: Res<NavGrid>,
    mut fields: ResMut<FlowFields>,
    units: Query<&FollowFlowField>,
    mut seen: Local<Option<NavVersion>>,
) {
    // The version the fields last brought in step with, and the cells edited since when known
    // cell by cell (the grid's own log: a frame this system skipped loses nothing).
    let previous = seen.take();
    let edited = previous.and_then(|version| nav.cells_edited_since(version));
    if units.is_empty() && fields.fields.is_empty() {
        // Not following: the next fields are built afresh.
        return;
    }
    let fields = &mut *fields;
    for shared in fields.fields.values_mut() {
        shared.followers = 0;
    }
    // Most followers share one goal: count runs of the same key without hashing each one.
    let mut run: Option<(FollowFlowField, usize)> = None;
    for &key in &units {
        match &mut run {
            Some((k, n)) if *k == key => *n += 1,
            _ => {
                if let Some((k, n)) = run.replace((key, 1)) {
                    count_followers(fields, k, n);
                }
            }
        }
    }
    if let Some((k, n)) = run {
        count_followers(fields, k, n);
    }
    fields.fields.retain(|_, shared| shared.followers > 0);
    let version = nav.version();
    *seen = Some(version);
    for (follow, shared) in &mut fields.fields {
        if shared.built == Some(version) {
            continue;
        }
        let repairable = previous.is_some() && shared.built == previous;
        shared.built = Some(version);
        shared.ring = OnceLock::new();
        fields.builds += 1;
        let result = match (shared.field.as_mut(), &edited) {
            // Built on the grid last seen, and the cells edited since known: repaired (a
            // field that cannot be, a large agent's, is rebuilt by `repair` itself).
            (Some(field), Some(cells)) if repairable => {
                fields.rerouted += shared.followers as u64;
                field.repair(nav.grid(), cells).map(|repaired| fields.repaired += u64::from(repaired))
            }
            // Same goal and rules on a grid of the same size: rebuild in place, reusing memory.
            (Some(field), _)
                if field.width() == nav.grid().width() && field.height() == nav.grid().height() =>
            {
                fields.rerouted += shared.followers as u64;
                field.rebuild(nav.grid())
            }
            (_, _) => FlowField::for_agent(
                FieldKind::Cost,
                nav.grid(),
                follow.goal,
                follow.rules,
                follow.agent_size,
            )
            .map(|field| shared.field = Some(field)),
        };
        if result.is_err() {
            shared.field = None;
        }
        shared.problem = result.err();
    }
}

fn count_followers(fields: &mut FlowFields, key: FollowFlowField, followers: usize) {
    fields
        .fields
        .entry(key)
        .or_insert_with(|| SharedField {
            field: None,
            problem: None,
            followers: 0,
            built: None,
            ring: OnceLock::new(),
        })
        .followers += followers;
}
