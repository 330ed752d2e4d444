//! Grid pathfinding for Bevy games, on the engine-free [`gridpath`] core.
//!
//! Add [`GridPathPlugin`], insert a [`NavGrid`] (a [`gridpath::Grid`] placed in the world), and
//! give entities a [`PathRequest`]: the plugin plans their route and answers with
//! [`Waypoints`] (world positions, next first) and a [`PathStatus`]. Add a [`Mover`] and the
//! plugin walks the entity along its waypoints too, re-planning from where it stands when an
//! edit of the grid crosses its remaining route. Units that share a goal can share one flow
//! field instead of one search each: give them [`FollowFlowField`]. Large units (2×2 to 4×4
//! cells: `Settings::agent_size` on a request, [`FollowFlowField::with_agent_size`] on a field)
//! plan on the grid's clearance, so their whole body fits every step. Give a mover an [`Avoid`]
//! and it steers clear of the other units and of the walls on its way (local avoidance, ORCA:
//! two avoiders overlap by 2 % at most, none overlaps a wall, a crowd with one goal settles
//! around it);
//! [`LocalAvoidance`] turns it off and tunes it. `cargo run -p bevy_gridpath --example crowd`
//! shows 60 avoiders squeezing through doors. Avoidance's per-unit passes run over the cores in
//! fixed chunks ([`map_chunks`], which a game's own per-unit work can use too): the frame's
//! results are the same on every machine.
//!
//! One request is planned at once, in the frame it was made; many are batched on Bevy's
//! `AsyncComputeTaskPool` within a per-frame [`PlanBudget`], and a result computed for a grid
//! that was edited meanwhile is thrown away and planned again.
//!
//! Insert [`SubgoalRoutes`] and the requests a subgoal graph answers (1×1, 8 moves without corner
//! cutting, uniform cost, an exact algorithm) are answered from one the plugin keeps in step with
//! the grid on a thread of its own ([`OffFrame`]): the same least cost, many times sooner on
//! mazes and cluttered maps (JPS requests only where the graph timed itself faster than JPS).
//! Between an edit and its repair they are searched as without it, so no route is ever stale.
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_gridpath::prelude::*;
//!
//! let mut app = App::new();
//! app.add_plugins((MinimalPlugins, GridPathPlugin));
//! let grid = bevy_gridpath::gridpath::formats::parse_map("....\n.##.\n....").unwrap().grid;
//! app.insert_resource(NavGrid::centered(grid, 16.0));
//! let start = app.world().resource::<NavGrid>().cell_center(Pos::new(0, 0));
//! let unit = app
//!     .world_mut()
//!     .spawn((Transform::from_translation(start.extend(0.0)), PathRequest::new(Pos::new(3, 2))))
//!     .id();
//! app.update();
//! assert_eq!(app.world().get::<PathStatus>(unit), Some(&PathStatus::Following));
//! let waypoints = app.world().get::<Waypoints>(unit).unwrap();
//! assert_eq!(waypoints.back().map(|w| w.cell), Some(Pos::new(3, 2)));
//! ```
#![deny(missing_docs)]

use bevy::prelude::*;

mod avoid;
mod chunks;
#[cfg(feature = "debug")]
mod debug;
mod flow;
mod mover;
mod nav;
mod off_frame;
mod plan;
mod subgoal;

pub use avoid::{Avoid, AvoidFrame, GoalCounts, LocalAvoidance, UNIT_RADIUS};
pub use chunks::map_chunks;
#[cfg(feature = "debug")]
pub use debug::{GridPathDebug, GridPathDebugPlugin};
pub use flow::{
    FieldLookup, FlowFields, FollowFlowField, GoalSight, SIGHT_CHECKS_PER_FRAME, SharedField, SightChecks,
    SightTable,
};
/// The core this plugin runs on: grids, rules, searches, fields and map formats.
pub use gridpath;
pub use mover::Mover;
pub use nav::{GridChanged, GridLayout, NavGrid, NavVersion};
pub use off_frame::OffFrame;
pub use plan::{
    PathFailure, PathRequest, PathStatus, PlanBudget, PlanCounts, PlanQueue, ReplanIncrementally, Waypoint,
    Waypoints,
};
pub use subgoal::{HIERARCHY_AFTER, SubgoalCounts, SubgoalRoutes};

/// What a game needs in one `use`.
pub mod prelude {
    pub use crate::{
        Avoid, FlowFields, FollowFlowField, GridChanged, GridPathPlugin, GridPathSystems, LocalAvoidance,
        Mover, NavGrid, PathFailure, PathRequest, PathStatus, PlanBudget, ReplanIncrementally, SubgoalRoutes,
        Waypoint, Waypoints,
    };
    #[cfg(feature = "debug")]
    pub use crate::{GridPathDebug, GridPathDebugPlugin};
    pub use gridpath::{Algorithm, Corners, Grid, Moves, Pos, Rules, SearchError, Settings, Tile};
}

/// The plugin's stages in `Update`, in order. Order your own systems against them: edit the
/// [`NavGrid`] and make requests before [`GridPathSystems::Request`], read fresh
/// [`Waypoints`] after [`GridPathSystems::Plan`], and positions after [`GridPathSystems::Move`].
/// An edit made later in the frame is planned from the next frame on; meanwhile a [`Mover`]
/// stops at the border of a cell walled under its route instead of walking into it.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GridPathSystems {
    /// Publishes the grid's edits ([`GridChanged`]), finds requests to plan (new, changed, or
    /// crossed by an edit) and brings flow fields up to date.
    Request,
    /// Plans: collects finished batches, starts new ones, answers single requests at once.
    Plan,
    /// Walks [`Mover`]s along their waypoints or flow fields.
    Move,
}

/// Plans [`PathRequest`]s, keeps [`FlowFields`] current and moves [`Mover`]s on the [`NavGrid`].
///
/// Needs Bevy's time (`MinimalPlugins` or `DefaultPlugins`). Every system runs only while a
/// [`NavGrid`] exists.
pub struct GridPathPlugin;

impl Plugin for GridPathPlugin {
    fn build(&self, app: &mut App) {
        app.configure_sets(
            Update,
            (GridPathSystems::Request, GridPathSystems::Plan, GridPathSystems::Move)
                .chain()
                .run_if(resource_exists::<NavGrid>),
        );
        app.add_plugins((
            nav::plugin,
            plan::plugin,
            subgoal::plugin,
            flow::plugin,
            mover::plugin,
            avoid::plugin,
        ));
    }
}
