//! Preprocessed routes, opt-in: with a [`SubgoalRoutes`] resource, the plugin keeps a subgoal
//! graph of the grid ([`gridpath::SubgoalGraph`]: the corners routes bend round, joined where
//! they see each other along an octile route, with a contraction hierarchy or landmarks where
//! they pay) and answers the [`PathRequest`](crate::PathRequest)s it can from it: the same least
//! cost as A*, on mazes and cluttered maps often many times faster (the benchmarks are in
//! `docs/BENCHMARKS.md`).
//!
//! The graph is built, repaired after edits, and given its hierarchy back on a thread of its
//! own ([`OffFrame`]), one job at a time, never in the frame. A request is answered by the graph
//! only while the graph describes the grid as it is: from an edit until its repair is done
//! (a few milliseconds on a 512 × 512 map), requests are searched as without it — an answer is
//! never stale. The graph is shared by the planning tasks, each with buffers of its own.

use std::sync::Arc;
use std::time::Duration;

use bevy::prelude::*;
use gridpath::{Algorithm, Grid, Settings, SubgoalGraph};

use crate::GridPathSystems;
use crate::nav::{GridSnapshot, NavGrid, NavVersion};
use crate::off_frame::OffFrame;

pub(crate) fn plugin(app: &mut App) {
    app.add_systems(
        Update,
        (collect_subgoal_job, note_when_the_grid_changed, start_subgoal_job)
            .chain()
            .run_if(resource_exists::<SubgoalRoutes>)
            .in_set(GridPathSystems::Request)
            .after(crate::nav::publish_grid_changes),
    );
}

/// How long the grid stays unedited (in real time: a paused game's too) before the hierarchy a
/// repair dropped is built again: a build takes from a few milliseconds to a second or two,
/// and an edit made meanwhile waits for it (one job at a time), so it waits for a pause in the
/// painting.
pub const HIERARCHY_AFTER: Duration = Duration::from_millis(500);

/// Opt-in: insert it (`app.init_resource::<SubgoalRoutes>()`) and the plugin answers the
/// requests a subgoal graph can from one it keeps in step with the [`NavGrid`] (see the module
/// notes of `subgoal.rs`): requests for 1 × 1 agents under 8 moves without corner cutting
/// ([`gridpath::Rules::OCTILE`]), on a grid of uniform cost, with an exact algorithm (A*,
/// Dijkstra, JPS, bidirectional; an admissible heuristic) and no partial route, for entities
/// without [`ReplanIncrementally`](crate::ReplanIncrementally) (their own search is repaired
/// after edits). JPS requests only where the graph is the faster: on open maps (most game and
/// city maps) JPS jumps far and the graph is dense, so the graph times both when it is built
/// ([`gridpath::SubgoalGraph::jps_is_faster`]) and, where JPS won, leaves JPS requests to JPS.
/// Other requests, and every request while the graph is built or repaired, are searched as
/// without it. Remove the resource to stop.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_gridpath::prelude::*;
/// use bevy_gridpath::SubgoalRoutes;
///
/// let mut app = App::new();
/// app.add_plugins((MinimalPlugins, GridPathPlugin)).init_resource::<SubgoalRoutes>();
/// let grid = bevy_gridpath::gridpath::formats::parse_map("....\n.##.\n....").unwrap().grid;
/// app.insert_resource(NavGrid::centered(grid, 16.0));
/// // The graph is built on a thread of its own: requests made meanwhile are searched.
/// while !app.world().resource::<SubgoalRoutes>().is_ready(app.world().resource::<NavGrid>()) {
///     app.update();
/// }
/// assert_eq!(app.world().resource::<SubgoalRoutes>().counts().builds, 1);
/// ```
#[derive(Resource, Default)]
pub struct SubgoalRoutes {
    /// The last graph done, with the grid it describes (it may be for an older version).
    done: Option<GraphOf>,
    /// The job running: what it is, for which version.
    job: OffFrame<(Job, NavVersion), GraphOf>,
    /// The version a job failed on (not tried again until the grid changes), and why.
    failed: Option<NavVersion>,
    failure: Option<String>,
    /// Since when (the app's elapsed time) the grid has had this version.
    since: Option<(NavVersion, Duration)>,
    counts: SubgoalCounts,
}

/// What [`SubgoalRoutes`] has done since it was inserted.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct SubgoalCounts {
    /// Builds from scratch started (the first, and after a build or repair failed).
    pub builds: u64,
    /// Repairs after edits started (a grid of another size or with most cells changed is
    /// built anew inside its repair, `SubgoalGraph::repair`).
    pub repairs: u64,
    /// Builds started of the hierarchy (or landmarks) a repair dropped.
    pub speed_ups: u64,
    /// Jobs that panicked.
    pub failures: u64,
}

/// The kinds of job (counted when they start).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Job {
    Build,
    Repair,
    SpeedUp,
}

/// A graph and the snapshot of the grid it describes, at a version of the [`NavGrid`]: queries
/// read that snapshot (the graph knows a grid by its id, which a copy does not share).
#[derive(Clone)]
pub(crate) struct GraphOf {
    pub(crate) version: NavVersion,
    pub(crate) grid: Arc<Grid>,
    pub(crate) graph: Arc<SubgoalGraph>,
}

impl GraphOf {
    /// Whether the graph answers `settings` (see [`SubgoalRoutes`]): a request of A*,
    /// Dijkstra or bidirectional search it can answer exactly, and one of JPS unless JPS was
    /// timed faster than the graph on this map ([`SubgoalGraph::jps_is_faster`]: open maps).
    pub(crate) fn answers(&self, settings: &Settings) -> bool {
        let faster = match settings.algorithm {
            Algorithm::AStar | Algorithm::Dijkstra | Algorithm::Bidirectional => true,
            Algorithm::Jps => !self.graph.jps_is_faster(),
            _ => false,
        };
        // An inadmissible heuristic (Manhattan under 8 moves) gives a costlier route without
        // the graph: such a request is searched as asked, not answered with the optimum.
        faster
            && settings.algorithm.is_optimal(&self.grid, settings)
            && SubgoalGraph::check(&self.grid, settings).is_ok()
    }
}

impl SubgoalRoutes {
    /// Whether a graph describes `nav`'s grid as it is now (requests are answered by it).
    pub fn is_ready(&self, nav: &NavGrid) -> bool {
        self.ready(nav.version()).is_some()
    }

    /// Whether a build, repair or hierarchy build is running.
    pub fn is_working(&self) -> bool {
        self.job.is_running()
    }

    /// The last graph done (for its size and build time, say), which may describe the grid
    /// before the latest edits; `None` until the first build is done, and while a build or a
    /// repair runs: a repair works on the graph in place (a copy kept meanwhile would cost
    /// about ten times the repair: 6-13 ms against under 1 ms on a 512 x 512 maze), and a
    /// failed one takes it along (the next edit builds anew).
    pub fn graph(&self) -> Option<&SubgoalGraph> {
        self.done.as_ref().map(|done| &*done.graph)
    }

    /// What it has done since it was inserted.
    pub fn counts(&self) -> SubgoalCounts {
        self.counts
    }

    /// The graph for `version`, if the last one done describes it.
    pub(crate) fn ready(&self, version: NavVersion) -> Option<&GraphOf> {
        self.done.as_ref().filter(|done| done.version == version)
    }

    /// Takes the finished job's graph.
    fn collect(&mut self) {
        let Some((result, (job, version))) = self.job.take_finished() else { return };
        match result {
            Ok(done) => {
                self.done = Some(done);
                self.failure = None;
            }
            Err(panic) => {
                let why = panic
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                // A build or repair took the graph with it; a speed-up left it here (not tried
                // again until the grid changes).
                self.fail(version, format!("the subgoal graph's {job:?} failed ({why})"));
            }
        }
    }

    /// Records a failed job for `version`: said on stderr and by [`SubgoalRoutes::failure`],
    /// not tried again until the grid changes.
    fn fail(&mut self, version: NavVersion, why: String) {
        // The plugin does not depend on Bevy's logging (a game may leave it out): stderr.
        eprintln!("bevy_gridpath: {why}; requests are searched without the graph");
        self.counts.failures += 1;
        self.failed = Some(version);
        self.failure = Some(why);
    }

    /// Why the last job failed (a panic, no thread), until one succeeds: requests are searched
    /// without the graph meanwhile, and the next edit of the grid tries again.
    pub fn failure(&self) -> Option<&str> {
        self.failure.as_deref()
    }

    /// Starts `job` for `version`; a thread refused counts as a failure.
    fn start(&mut self, job: Job, version: NavVersion, work: impl FnOnce() -> GraphOf + Send + 'static) {
        if let Err(error) = self.job.start("subgoal graph", (job, version), work) {
            self.fail(version, format!("no thread for the subgoal graph ({error})"));
            return;
        }
        match job {
            Job::Build => self.counts.builds += 1,
            Job::Repair => self.counts.repairs += 1,
            Job::SpeedUp => self.counts.speed_ups += 1,
        }
    }
}

/// Takes a finished job's graph (or its failure).
fn collect_subgoal_job(mut routes: ResMut<SubgoalRoutes>) {
    routes.collect();
}

/// Notes when (in real time: a paused game's grid rests too) the grid got its current version.
fn note_when_the_grid_changed(nav: Res<NavGrid>, time: Res<Time<Real>>, mut routes: ResMut<SubgoalRoutes>) {
    let version = nav.version();
    if routes.since.is_none_or(|(seen, _)| seen != version) {
        routes.since = Some((version, time.elapsed()));
    }
}

/// Starts the job due, off the frame, when none runs: a build, a repair of the last graph for
/// the grid as it is now, or, once the grid has rested [`HIERARCHY_AFTER`], the hierarchy a
/// repair dropped.
fn start_subgoal_job(
    nav: Res<NavGrid>,
    time: Res<Time<Real>>,
    mut routes: ResMut<SubgoalRoutes>,
    mut snapshot: ResMut<GridSnapshot>,
) {
    let routes = &mut *routes;
    let version = nav.version();
    // Terrain costs: no request is answered by the graph, so none is kept up to date.
    if routes.job.is_running() || routes.failed == Some(version) || !nav.grid().has_uniform_cost() {
        return;
    }
    if let Some(done) = routes.ready(version) {
        let rested =
            routes.since.is_some_and(|(_, since)| time.elapsed().saturating_sub(since) >= HIERARCHY_AFTER);
        if done.graph.speed_up_dropped() && rested {
            let done = done.clone();
            routes.start(Job::SpeedUp, version, move || {
                // On a copy: the planning tasks answer from the graph meanwhile.
                let mut graph = (*done.graph).clone();
                graph.rebuild_hierarchy();
                graph.time_against_jps(&done.grid);
                graph.lay_out_edges();
                GraphOf { graph: Arc::new(graph), ..done }
            });
        }
        return;
    }
    let grid = snapshot.of(&nav);
    match routes.done.take() {
        Some(before) => routes.start(Job::Repair, version, move || {
            // Planning tasks may still hold the old graph (their results are for an older
            // version, thrown away): then a copy is repaired.
            let mut graph = Arc::try_unwrap(before.graph).unwrap_or_else(|shared| (*shared).clone());
            graph.repair(&grid);
            graph.lay_out_edges();
            GraphOf { version, grid, graph: Arc::new(graph) }
        }),
        None => routes.start(Job::Build, version, move || {
            let graph = SubgoalGraph::build(&grid);
            GraphOf { version, grid, graph: Arc::new(graph) }
        }),
    }
}
