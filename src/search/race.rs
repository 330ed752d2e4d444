//! Race mode (`T` or the panel's button): every algorithm on the current map and endpoints, with
//! the current moves, corner rule and heuristic, in one table — cost, cells expanded, time —
//! each result compared with Dijkstra's cost, which is always optimal. The table is kept up to
//! date while it is shown. Its last row is the preprocessed search, `gridpath`'s subgoal graph:
//! built once per map on a thread of its own (the row says so meanwhile: a 2048 x 2048 noise map
//! takes half a minute), then repaired after each edit instead of built again, so it answers for
//! the map as painted, never a stale one.
//!
//! The race itself runs on a thread of its own too, one race at a time: on a 2048 x 2048 map
//! its searches take seconds, and painting with the table shown froze every frame that long.
//! The table keeps the last race's rows, marked as racing, until the race for the map as it is
//! now is done; edits made meanwhile are raced once it is.

use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy_gridpath::NavVersion;
use gridpath::{Algorithm, Grid, Pos, SearchError, Searcher, Settings, SubgoalGraph};

use crate::AppSystems;
use crate::input::bindings::{Control, ControlSystems};
use crate::map::problem::{SearchProblem, problem_changed};
use bevy_gridpath::OffFrame;

/// Heuristic weight of the race's weighted-A* row when the settings' weight is 1.
pub const RACE_WEIGHT: f64 = 2.0;
/// Runs per algorithm; the table shows the fastest, which is the least disturbed by the rest of
/// the machine.
const RUNS: usize = 3;
/// A search slower than this runs once: its time varies little against itself, and three runs
/// of every search on a 2048 x 2048 map would triple a race that already takes seconds.
const RUN_ONCE_OVER: Duration = Duration::from_millis(20);
/// Two costs closer than this count as equal.
const COST_TOLERANCE: f64 = 1e-6;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<RaceTable>().init_resource::<RaceSubgoals>().init_resource::<RaceRunner>();
    app.add_systems(
        Update,
        toggle_race.run_if(on_message::<Control>).in_set(AppSystems::RecordInput).after(ControlSystems),
    );
    app.add_systems(
        Update,
        (
            finish_subgoal_build.run_if(subgoals_building),
            finish_race.run_if(racing),
            start_race.run_if(race_shown.and_then(problem_changed.or_else(race_wanted))),
        )
            .chain()
            .in_set(AppSystems::Plan),
    );
}

/// The race under way on its thread, and whether the table wants another once it is done.
#[derive(Resource, Default)]
pub struct RaceRunner {
    /// The race running, and what it lent it: the subgoal graph's version of the map, if it
    /// took the graph along.
    running: OffFrame<Option<NavVersion>, RaceResult>,
    /// Race again (the map, endpoints or settings changed, the table was shown, a graph was
    /// built): at once if no race runs, else when the one running is done.
    wanted: bool,
    /// The searcher the races reuse (its buffers grow to the map), while no race has it.
    searcher: Option<Searcher>,
    /// The map version the last race started on.
    raced: Option<NavVersion>,
}

impl RaceRunner {
    /// `true` while a race runs, or another is due (the map changed during the last one).
    pub fn is_racing(&self) -> bool {
        self.running.is_running() || self.wanted
    }
}

/// What a race's thread gives back: the rows, Dijkstra's cost, and what it borrowed.
struct RaceResult {
    rows: Vec<RaceRow>,
    optimum: Option<f64>,
    searcher: Searcher,
    graph: Option<SubgoalGraph>,
}

/// What a race runs against: a copy of the map as it was when the race started.
struct RaceJob {
    grid: Grid,
    start: Pos,
    goal: Pos,
    settings: Settings,
    searcher: Searcher,
    /// The subgoal graph's row: the graph to race (repaired first on the thread), or the row as
    /// it stands (being built, failed, refused).
    subgoal: Result<SubgoalGraph, RaceRow>,
    /// The graph was built with a hierarchy or landmarks: its row says when a repair dropped them.
    sped_up: bool,
}

impl RaceJob {
    fn run(self) -> RaceResult {
        let Self { grid, start, goal, settings, mut searcher, subgoal, sped_up } = self;
        let (mut rows, optimum) = race(&mut searcher, &grid, start, goal, &settings);
        let (row, graph) = match subgoal {
            Ok(mut graph) => {
                let mut row = subgoal_row(&mut graph, &grid, (start, goal), &settings, optimum);
                if sped_up && !(graph.has_hierarchy() || graph.has_landmarks()) {
                    // An edit's repair drops the hierarchy (or landmarks) built for the map as it
                    // was: the time is the plain graph search's until it is built again
                    // (`rebuild_hierarchy_if_dropped`, once this race is done).
                    row.note = Some("hierarchy rebuilding");
                }
                (row, Some(graph))
            }
            Err(row) => (row, None),
        };
        rows.push(row);
        RaceResult { rows, optimum, searcher, graph }
    }
}

/// The race's subgoal graph, and the build of one under way. Kept while the race is hidden:
/// showing it again on the same map needs no new build.
///
/// A build runs on a thread of its own, not on Bevy's async pool: that pool has one thread on
/// two cores, and the units' path planning waits for it (a 2048 x 2048 noise map's graph takes
/// ~32 s to build, caves ~9 s). One build at a time: a map changed during a build is built
/// once that build ends (a build cannot be cancelled, and maps opened one after another must
/// not leave a thread each).
///
/// A repair drops the contraction hierarchy (or landmarks) built for the map as it was; a copy of
/// the repaired graph gets them built again on the same thread, meanwhile the race searches the
/// repaired graph itself (exact, slower), so its row is fast again a moment after the edits.
#[derive(Resource, Default)]
pub struct RaceSubgoals {
    /// The graph, and the version of the map it last answered for (edits since are repaired).
    graph: Option<(SubgoalGraph, NavVersion)>,
    /// A build under way, the version of the map it is built from, and what it builds.
    building: OffFrame<(NavVersion, Build), SubgoalGraph>,
    /// A graph whose hierarchy was built again while a race had the graph: it takes the graph's
    /// place if the race brings it back for the same version of the map (not edited since).
    rebuilt: Option<(SubgoalGraph, NavVersion)>,
    /// Why the last build gave no graph, for the map version it was started for.
    failed: Option<(String, NavVersion)>,
    /// The graph was built with a contraction hierarchy or landmarks, which speed its queries
    /// (and are built again after a repair drops them).
    sped_up: bool,
}

/// What a build on the subgoal graph's thread makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Build {
    /// The whole graph, for a map it does not describe.
    Map,
    /// The hierarchy (or landmarks) of a repaired graph that lost them.
    Hierarchy,
}

impl RaceSubgoals {
    /// `true` while a graph is being built (or its hierarchy built again).
    pub fn is_building(&self) -> bool {
        self.building.is_running()
    }

    /// `true` when the map's graph was built with a contraction hierarchy or landmarks (kept
    /// where they make its queries faster; built again after a repair drops them).
    pub fn is_sped_up(&self) -> bool {
        self.sped_up
    }

    /// `true` while a repaired graph's hierarchy is being built again.
    pub fn is_rebuilding_hierarchy(&self) -> bool {
        self.building.stamp().is_some_and(|(_, build)| *build == Build::Hierarchy)
    }
}

/// Edits to more cells than this build the graph anew on its thread, as a new map does, rather
/// than repair it inside the frame: each repaired cell rescans the subgoals whose scans read it,
/// so a bulk edit of a big map would take most of a build inside one frame. (Past an eighth of
/// the cells the graph rebuilds itself in a repair, [`SubgoalGraph::repair`]: only on maps under
/// 8,192 cells, which build in well under a millisecond.)
const MAX_INLINE_REPAIR: usize = 1_024;

/// The race table: whether it is shown, and its rows for the current map and settings.
#[derive(Resource, Debug, Default)]
pub struct RaceTable {
    /// Shown in the panel (and kept up to date).
    pub shown: bool,
    /// One row per contestant; empty until the first race.
    pub rows: Vec<RaceRow>,
    /// Dijkstra's cost, the optimum every row is compared with (`None` without a path).
    pub optimum: Option<f64>,
    /// A race is under way: the rows are for the map as it was before the latest edits (or
    /// none yet).
    pub racing: bool,
}

/// What a row of the race ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RaceMethod {
    /// A search of [`Searcher`] with this algorithm.
    Search(Algorithm),
    /// The subgoal graph ([`SubgoalGraph`]): preprocessed once per map, repaired after edits.
    Subgoal,
}

/// One contestant's result.
#[derive(Debug, Clone, PartialEq)]
pub struct RaceRow {
    /// What ran.
    pub method: RaceMethod,
    /// Heuristic weight it ran with (1 except for the weighted-A* row).
    pub weight: f64,
    /// `true` when `gridpath` guarantees a least-cost path for it here
    /// ([`Algorithm::is_optimal`]).
    pub guaranteed: bool,
    /// What it found.
    pub outcome: RaceOutcome,
    /// How long its preprocessing of this map took (the subgoal graph's build), if it has one.
    pub preprocessing: Option<Duration>,
    /// A remark on how it ran, if any.
    pub note: Option<&'static str>,
}

impl RaceRow {
    /// The subgoal graph's row with this outcome (it always runs at weight 1, exactly).
    fn subgoal(outcome: RaceOutcome) -> Self {
        Self {
            method: RaceMethod::Subgoal,
            weight: 1.0,
            guaranteed: true,
            outcome,
            preprocessing: None,
            note: None,
        }
    }
}

/// What one contestant found.
#[derive(Debug, Clone, PartialEq)]
pub enum RaceOutcome {
    /// A path.
    Found {
        /// Its cost.
        cost: f64,
        /// Its cells, start and goal included.
        cells: usize,
        /// Nodes expanded.
        expanded: u64,
        /// Fastest of the runs, in microseconds.
        micros: f64,
        /// The cost equals Dijkstra's (within a rounding tolerance).
        optimal: bool,
        /// How much dearer than Dijkstra's path, in percent (0 when optimal).
        excess_percent: f64,
    },
    /// The algorithm does not apply here; the reason.
    Unsupported(&'static str),
    /// It ran but found no path (or another error); the message.
    Failed(String),
    /// Its preprocessing of this map is still under way.
    Preparing,
}

/// Runs every algorithm from `start` to `goal` on `grid` with the rules and heuristic of
/// `settings` (each at weight 1), plus weighted A* at the settings' weight (or
/// [`RACE_WEIGHT`] when that is 1). Returns the rows and Dijkstra's cost.
pub fn race(
    searcher: &mut Searcher,
    grid: &Grid,
    start: Pos,
    goal: Pos,
    settings: &Settings,
) -> (Vec<RaceRow>, Option<f64>) {
    let base = Settings { weight: 1.0, ..*settings };
    let weighted = if settings.weight > 1.0 { settings.weight } else { RACE_WEIGHT };
    let mut contestants: Vec<Settings> =
        Algorithm::ALL.iter().map(|&algorithm| Settings { algorithm, ..base }).collect();
    contestants.insert(1, Settings { algorithm: Algorithm::AStar, weight: weighted, ..base });
    let results: Vec<(Settings, Result<(gridpath::Path, Duration), SearchError>)> =
        contestants.into_iter().map(|s| (s, timed(|| searcher.find_path(grid, start, goal, &s)))).collect();
    let optimum = results.iter().find_map(|(s, result)| match result {
        Ok((path, _)) if s.algorithm == Algorithm::Dijkstra => Some(path.cost),
        _ => None,
    });
    let rows = results
        .into_iter()
        .map(|(s, result)| RaceRow {
            method: RaceMethod::Search(s.algorithm),
            weight: s.weight,
            guaranteed: s.algorithm.is_optimal(grid, &s),
            outcome: outcome(result, optimum),
            preprocessing: None,
            note: None,
        })
        .collect();
    (rows, optimum)
}

/// A row's outcome from what its search returned, compared with the optimum.
fn outcome(result: Result<(gridpath::Path, Duration), SearchError>, optimum: Option<f64>) -> RaceOutcome {
    match result {
        Ok((path, took)) => {
            let best = optimum.unwrap_or(path.cost);
            let optimal = (path.cost - best).abs() <= COST_TOLERANCE * best.max(1.0);
            RaceOutcome::Found {
                cost: path.cost,
                cells: path.cells.len(),
                expanded: path.stats.expanded,
                micros: took.as_secs_f64() * 1e6,
                optimal,
                excess_percent: if optimal || best <= 0.0 { 0.0 } else { (path.cost / best - 1.0) * 100.0 },
            }
        }
        Err(SearchError::Unsupported { reason, .. } | SearchError::SubgoalUnsupported { reason }) => {
            RaceOutcome::Unsupported(reason)
        }
        Err(error) => RaceOutcome::Failed(error.to_string()),
    }
}

/// The subgoal graph's row: `graph` (built for `grid`, or repaired to it here: an edit's
/// repair is left out of the time, as a build is) from `start` to `goal` under
/// `settings`' rules, timed as the fastest of `RUNS` and compared with `optimum`. The graph
/// answers exactly or says why it does not apply (4 moves, corner cutting, terrain costs,
/// weights).
pub fn subgoal_row(
    graph: &mut SubgoalGraph,
    grid: &Grid,
    (start, goal): (Pos, Pos),
    settings: &Settings,
    optimum: Option<f64>,
) -> RaceRow {
    let settings = Settings { weight: 1.0, ..*settings };
    // Brought in step with the map first, untimed (a query whose endpoints are refused would
    // not repair it).
    graph.repair(grid);
    let result = timed(|| graph.find_path(grid, start, goal, &settings));
    RaceRow { preprocessing: Some(graph.build_time()), ..RaceRow::subgoal(outcome(result, optimum)) }
}

/// One search, timed as the fastest of [`RUNS`] identical runs (one, when it takes longer than
/// [`RUN_ONCE_OVER`]).
fn timed(
    mut search: impl FnMut() -> Result<gridpath::Path, SearchError>,
) -> Result<(gridpath::Path, Duration), SearchError> {
    let mut time = || {
        let started = Instant::now();
        let result = search();
        (result, started.elapsed())
    };
    let (result, mut fastest) = time();
    // Errors need no timing; a found path is searched again for a steadier time.
    let path = result?;
    if fastest <= RUN_ONCE_OVER {
        for _ in 1..RUNS {
            fastest = fastest.min(time().1);
        }
    }
    Ok((path, fastest))
}

/// Run condition: the race table is shown.
fn race_shown(table: Res<RaceTable>) -> bool {
    table.shown
}

fn toggle_race(
    mut controls: MessageReader<Control>,
    mut table: ResMut<RaceTable>,
    mut runner: ResMut<RaceRunner>,
) {
    for control in controls.read() {
        if *control == Control::ToggleRace {
            table.shown = !table.shown;
            // Shown again: the map may have changed while it was hidden.
            runner.wanted |= table.shown;
        }
    }
}

/// Run condition: a race is due (see [`RaceRunner::wanted`]).
fn race_wanted(runner: Res<RaceRunner>) -> bool {
    runner.wanted
}

/// Run condition: a race runs on its thread.
fn racing(runner: Res<RaceRunner>) -> bool {
    runner.running.is_running()
}

/// Starts a race of every algorithm and the subgoal graph on the current problem, on a thread of
/// its own, when none runs (else the next one is due when it ends). The subgoal graph goes
/// along if it describes this map or a few edits from it (repaired there); otherwise its row
/// says it is being built, and its build starts on its own thread.
fn start_race(
    problem: SearchProblem,
    mut table: ResMut<RaceTable>,
    mut subgoals: ResMut<RaceSubgoals>,
    mut runner: ResMut<RaceRunner>,
) {
    if runner.running.is_running() {
        runner.wanted = true;
        return;
    }
    runner.wanted = false;
    let (grid, settings, nav) = (problem.grid(), problem.settings(), problem.nav());
    let version = nav.version();
    let subgoals = &mut *subgoals;
    if subgoals.graph.as_ref().is_some_and(|(_, seen)| seen.generation != version.generation) {
        // Another map (or one changed whole): its graph will never serve again, and may be big.
        subgoals.graph = None;
    }
    // At weight 1, as its row runs (`subgoal_row`): the graph answers exactly or not at all.
    let exact = Settings { weight: 1.0, ..*settings };
    let refused = SubgoalGraph::check(grid, &exact).err();
    // The graph goes along if it describes this map, or a few edits from it.
    let current = subgoals.graph.take_if(|(_, seen)| {
        refused.is_none()
            && (*seen == version
                || nav.cells_edited_since(*seen).is_some_and(|cells| cells.len() <= MAX_INLINE_REPAIR))
    });
    let subgoal = if let Some(reason) = refused {
        // Nothing to build for settings it refuses; a build under way goes on.
        Err(RaceRow::subgoal(RaceOutcome::Unsupported(reason)))
    } else if let Some((graph, _)) = current {
        Ok(graph)
    } else {
        let outcome = match &subgoals.failed {
            Some((why, from)) if *from == version => RaceOutcome::Failed(why.clone()),
            // One build at a time: one for an older map finishes first, then this map's starts.
            _ if subgoals.building.is_running() => RaceOutcome::Preparing,
            _ => {
                let grid = grid.clone();
                let build = move || SubgoalGraph::build(&grid);
                match subgoals.building.start("race subgoal graph", (version, Build::Map), build) {
                    Ok(()) => RaceOutcome::Preparing,
                    Err(error) => RaceOutcome::Failed(format!("no thread to build on: {error}")),
                }
            }
        };
        Err(RaceRow::subgoal(outcome))
    };
    if runner.raced.is_some_and(|raced| raced.generation != version.generation) {
        // Another map (or one changed whole): the last race's rows are not about it at all.
        table.rows.clear();
        table.optimum = None;
    }
    runner.raced = Some(version);
    let lent = subgoal.is_ok().then_some(version);
    let job = RaceJob {
        grid: grid.clone(),
        start: problem.start(),
        goal: problem.goal(),
        settings: *settings,
        searcher: runner.searcher.take().unwrap_or_default(),
        subgoal,
        sped_up: subgoals.sped_up,
    };
    match runner.running.start("race", lent, move || job.run()) {
        Ok(()) => table.racing = true,
        Err(error) => {
            // The graph went with the job that could not start: the next race builds it again.
            let why = format!("no thread to race on: {error}");
            error!("{why}");
            table.rows = vec![RaceRow::subgoal(RaceOutcome::Failed(why))];
            table.optimum = None;
            table.racing = false;
        }
    }
}

/// Takes a race's rows once its thread is done, and what it borrowed back: the searcher, and
/// the subgoal graph (repaired to the map it raced).
fn finish_race(
    problem: SearchProblem,
    mut runner: ResMut<RaceRunner>,
    mut table: ResMut<RaceTable>,
    mut subgoals: ResMut<RaceSubgoals>,
) {
    let Some((result, lent)) = runner.running.take_finished() else {
        return;
    };
    match result {
        Ok(RaceResult { rows, optimum, searcher, graph }) => {
            runner.searcher = Some(searcher);
            // Back where it was taken from, for the version it raced; unless a build finished
            // meanwhile (a build starts only for a map the lent graph no longer described).
            if let (Some(graph), Some(version)) = (graph, lent)
                && subgoals.graph.is_none()
            {
                let graph = match subgoals.rebuilt.take() {
                    // Its hierarchy came back while it raced, for the same map: race that one.
                    Some((rebuilt, at)) if at == version => {
                        runner.wanted = true;
                        rebuilt
                    }
                    _ => graph,
                };
                subgoals.graph = Some((graph, version));
            }
            rebuild_hierarchy_if_dropped(&mut subgoals, &problem);
            table.rows = rows;
            table.optimum = optimum;
        }
        Err(_) => {
            // The graph it borrowed is gone with it: the next race builds one again.
            let why = "the race failed (a bug: please report the map)";
            error!("{why}");
            table.rows = vec![RaceRow::subgoal(RaceOutcome::Failed(why.to_owned()))];
            table.optimum = None;
        }
    }
    // Racing again, if due, from the next system on.
    table.racing = false;
}

/// Run condition: a subgoal graph is being built.
fn subgoals_building(subgoals: Res<RaceSubgoals>) -> bool {
    subgoals.is_building()
}

/// Takes the subgoal graph once its build is done, and has the race run again for its row (for
/// a map edited or changed meanwhile, that repairs the graph or starts the next build).
fn finish_subgoal_build(
    problem: SearchProblem,
    mut subgoals: ResMut<RaceSubgoals>,
    mut runner: ResMut<RaceRunner>,
) {
    let Some((result, (version, build))) = subgoals.building.take_finished() else {
        return;
    };
    let subgoals = &mut *subgoals;
    match (result, build) {
        (Ok(graph), Build::Map) => {
            subgoals.sped_up = graph.has_hierarchy() || graph.has_landmarks();
            subgoals.graph = Some((graph, version));
            subgoals.rebuilt = None;
        }
        (Ok(graph), Build::Hierarchy) => {
            // Built again, the timing sample may find neither pays now: then the map is left
            // without, not rebuilt after every edit.
            subgoals.sped_up = graph.has_hierarchy() || graph.has_landmarks();
            match &subgoals.graph {
                Some((_, seen)) if *seen == version => subgoals.graph = Some((graph, version)),
                // A race has the graph: it may bring it back unchanged.
                None if runner.running.stamp().is_some_and(Option::is_some) => {
                    subgoals.rebuilt = Some((graph, version));
                }
                // Nobody has it (a race that had it failed): this one serves, repaired as needed.
                None => subgoals.graph = Some((graph, version)),
                // Edited since: built again from the graph as repaired, below.
                Some(_) => {}
            }
        }
        (Err(_), Build::Map) => {
            let why = "the subgoal graph's build failed (a bug: please report the map)";
            error!("{why}");
            subgoals.failed = Some((why.to_owned(), version));
        }
        (Err(_), Build::Hierarchy) => {
            error!("the subgoal graph's hierarchy failed to build (a bug: please report the map)");
            subgoals.sped_up = false;
        }
    }
    rebuild_hierarchy_if_dropped(subgoals, &problem);
    runner.wanted = true;
}

/// Builds the hierarchy (or landmarks) of the race's graph again on the graph's thread, on a
/// copy, if a repair dropped them, the thread is free and the graph describes the map as it is
/// now (while the player paints on, each copy would be out of date before it is done: the
/// race after the last edit starts it); the race searches the graph as repaired meanwhile.
fn rebuild_hierarchy_if_dropped(subgoals: &mut RaceSubgoals, problem: &SearchProblem) {
    let Some((graph, version)) = &subgoals.graph else { return };
    let exact = Settings { weight: 1.0, ..*problem.settings() };
    let wanted = *version == problem.nav().version() && SubgoalGraph::check(problem.grid(), &exact).is_ok();
    if !wanted
        || subgoals.building.is_running()
        || !subgoals.sped_up
        || graph.has_hierarchy()
        || graph.has_landmarks()
    {
        return;
    }
    let (mut copy, version) = (graph.clone(), *version);
    let build = move || {
        copy.rebuild_hierarchy();
        copy
    };
    if let Err(error) = subgoals.building.start("race subgoal hierarchy", (version, Build::Hierarchy), build)
    {
        // The graph still answers exactly, without it.
        warn!("no thread to build the subgoal graph's hierarchy again on: {error}");
    }
}
