//! Race mode (`T` or the panel's button): every algorithm on the current map and endpoints, with
//! the current moves, corner rule and heuristic, in one table — cost, cells expanded, time —
//! each result compared with Dijkstra's cost, which is always optimal. The table is kept up to
//! date while it is shown. Its last row is the preprocessed search, `gridpath`'s subgoal graph:
//! built once per map on a thread of its own (the row says so meanwhile: a 2048 x 2048 noise map
//! takes half a minute), then repaired after each edit instead of built again, so it answers for
//! the map as painted, never a stale one.

use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy_gridpath::NavVersion;
use gridpath::{Algorithm, Grid, Pos, SearchError, Searcher, Settings, SubgoalGraph};

use crate::AppSystems;
use crate::input::bindings::{Control, ControlSystems};
use crate::map::problem::{SearchProblem, problem_changed};

/// Heuristic weight of the race's weighted-A* row when the settings' weight is 1.
pub const RACE_WEIGHT: f64 = 2.0;
/// Runs per algorithm; the table shows the fastest, which is the least disturbed by the rest of
/// the machine.
const RUNS: usize = 3;
/// Two costs closer than this count as equal.
const COST_TOLERANCE: f64 = 1e-6;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<RaceTable>().init_resource::<RaceSubgoals>();
    app.add_systems(
        Update,
        toggle_race.run_if(on_message::<Control>).in_set(AppSystems::RecordInput).after(ControlSystems),
    );
    app.add_systems(
        Update,
        (
            finish_subgoal_build.run_if(subgoals_building),
            run_race.run_if(race_shown.and_then(problem_changed.or_else(resource_changed::<RaceTable>))),
        )
            .chain()
            .in_set(AppSystems::Plan),
    );
}

/// The race's subgoal graph, and the build of one under way. Kept while the race is hidden:
/// showing it again on the same map needs no new build.
///
/// A build runs on a thread of its own, not on Bevy's async pool: that pool has one thread on
/// two cores, and the units' path planning waits for it (a 2048 x 2048 noise map's graph takes
/// ~32 s to build, caves ~9 s). One build at a time: a map changed during a build is built
/// once that build ends (a build cannot be cancelled, and maps opened one after another must
/// not leave a thread each).
#[derive(Resource, Default)]
pub struct RaceSubgoals {
    /// The graph, and the version of the map it last answered for (edits since are repaired).
    graph: Option<(SubgoalGraph, NavVersion)>,
    /// A build under way, and the version of the map it is built from.
    building: Option<(JoinHandle<SubgoalGraph>, NavVersion)>,
    /// Why the last build gave no graph, for the map version it was started for.
    failed: Option<(String, NavVersion)>,
    /// The graph was built with a contraction hierarchy or landmarks, which speed its queries.
    sped_up: bool,
}

impl RaceSubgoals {
    /// `true` while a graph is being built.
    pub fn is_building(&self) -> bool {
        self.building.is_some()
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
/// `settings`' rules, timed as the fastest of [`RUNS`] and compared with `optimum`. The graph
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

/// One search, timed as the fastest of [`RUNS`] identical runs.
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
    for _ in 1..RUNS {
        fastest = fastest.min(time().1);
    }
    Ok((path, fastest))
}

/// Run condition: the race table is shown.
fn race_shown(table: Res<RaceTable>) -> bool {
    table.shown
}

fn toggle_race(mut controls: MessageReader<Control>, mut table: ResMut<RaceTable>) {
    for control in controls.read() {
        if *control == Control::ToggleRace {
            table.shown = !table.shown;
        }
    }
}

/// Races every algorithm on the current problem (when the table is shown and the problem or the
/// table's visibility changed), then the subgoal graph: repaired after small edits, else built
/// anew on its own thread, its row saying so until [`finish_subgoal_build`] has it.
fn run_race(
    problem: SearchProblem,
    mut table: ResMut<RaceTable>,
    mut subgoals: ResMut<RaceSubgoals>,
    mut searcher: Local<Searcher>,
) {
    let (grid, settings, nav) = (problem.grid(), problem.settings(), problem.nav());
    let (mut rows, optimum) = race(&mut searcher, grid, problem.start(), problem.goal(), settings);
    let version = nav.version();
    let subgoals = &mut *subgoals;
    // The graph answers for this map if it describes it, or a few edits from it.
    let current = subgoals.graph.as_mut().filter(|(_, seen)| {
        *seen == version
            || nav.cells_edited_since(*seen).is_some_and(|cells| cells.len() <= MAX_INLINE_REPAIR)
    });
    // At weight 1, as its row runs (`subgoal_row`): the graph answers exactly or not at all.
    let exact = Settings { weight: 1.0, ..*settings };
    let row = if let Err(reason) = SubgoalGraph::check(grid, &exact) {
        // Nothing to build for settings it refuses; a build under way goes on.
        RaceRow::subgoal(RaceOutcome::Unsupported(reason))
    } else if let Some((graph, seen)) = current {
        *seen = version;
        let mut row = subgoal_row(graph, grid, (problem.start(), problem.goal()), settings, optimum);
        if subgoals.sped_up && !(graph.has_hierarchy() || graph.has_landmarks()) {
            // An edit's repair drops the hierarchy (or landmarks) built for the map as it was:
            // the time is the plain graph search's from then on.
            row.note = Some("repaired: no hierarchy");
        }
        row
    } else {
        let outcome = match &subgoals.failed {
            Some((why, from)) if *from == version => RaceOutcome::Failed(why.clone()),
            // One build at a time: one for an older map finishes first, then this map's starts.
            _ if subgoals.building.is_some() => RaceOutcome::Preparing,
            _ => {
                let grid = grid.clone();
                let build = std::thread::Builder::new()
                    .name("race subgoal graph".into())
                    .spawn(move || SubgoalGraph::build(&grid));
                match build {
                    Ok(handle) => {
                        subgoals.building = Some((handle, version));
                        RaceOutcome::Preparing
                    }
                    Err(error) => RaceOutcome::Failed(format!("no thread to build on: {error}")),
                }
            }
        };
        RaceRow::subgoal(outcome)
    };
    rows.push(row);
    let table = table.bypass_change_detection();
    table.rows = rows;
    table.optimum = optimum;
}

/// Run condition: a subgoal graph is being built.
fn subgoals_building(subgoals: Res<RaceSubgoals>) -> bool {
    subgoals.is_building()
}

/// Takes the subgoal graph once its build is done, and has the race run again for its row (for
/// a map edited or changed meanwhile, that repairs the graph or starts the next build).
fn finish_subgoal_build(mut subgoals: ResMut<RaceSubgoals>, mut table: ResMut<RaceTable>) {
    let Some((handle, version)) = subgoals.building.take_if(|(handle, _)| handle.is_finished()) else {
        return;
    };
    // Finished: `join` returns at once.
    match handle.join() {
        Ok(graph) => {
            subgoals.sped_up = graph.has_hierarchy() || graph.has_landmarks();
            subgoals.graph = Some((graph, version));
        }
        Err(_) => {
            let why = "the subgoal graph's build failed (a bug: please report the map)";
            error!("{why}");
            subgoals.failed = Some((why.to_owned(), version));
        }
    }
    table.set_changed();
}
