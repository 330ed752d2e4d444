//! Shared flow fields: every entity with a [`FollowFlowField`] to the same goal (under the same
//! movement rules, for the same body size) reads one [`gridpath::FlowField`] instead of
//! searching a route of its own.
//! A field is built when its first follower appears, rebuilt in place when the grid changes,
//! and dropped when nobody follows it any more.

use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use gridpath::{FieldKind, FlowField, Pos, Rules, SearchError};

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
}

impl SharedField {
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

/// Counts the followers of every field, creates the fields new goals need, drops those nobody
/// follows, and (re)builds those the grid changed under.
fn update_flow_fields(nav: Res<NavGrid>, mut fields: ResMut<FlowFields>, units: Query<&FollowFlowField>) {
    if units.is_empty() && fields.fields.is_empty() {
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
    for (follow, shared) in &mut fields.fields {
        if shared.built == Some(version) {
            continue;
        }
        shared.built = Some(version);
        fields.builds += 1;
        let result = match shared.field.as_mut() {
            // Same goal and rules on a grid of the same size: rebuild in place, reusing memory.
            Some(field) if field.width() == nav.grid().width() && field.height() == nav.grid().height() => {
                fields.rerouted += shared.followers as u64;
                field.rebuild(nav.grid())
            }
            _ => FlowField::for_agent(
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
        .or_insert_with(|| SharedField { field: None, problem: None, followers: 0, built: None })
        .followers += followers;
}
