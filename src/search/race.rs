//! Race mode (`T` or the panel's button): every algorithm on the current map and endpoints, with
//! the current moves, corner rule and heuristic, in one table — cost, cells expanded, time —
//! each result compared with Dijkstra's cost, which is always optimal. The table is kept up to
//! date while it is shown.

use std::time::{Duration, Instant};

use bevy::prelude::*;
use gridpath::{Algorithm, Grid, Pos, SearchError, Searcher, Settings};

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
    app.init_resource::<RaceTable>();
    app.add_systems(
        Update,
        toggle_race.run_if(on_message::<Control>).in_set(AppSystems::RecordInput).after(ControlSystems),
    );
    app.add_systems(
        Update,
        run_race
            .run_if(race_shown.and_then(problem_changed.or_else(resource_changed::<RaceTable>)))
            .in_set(AppSystems::Plan),
    );
}

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

/// One contestant's result.
#[derive(Debug, Clone, PartialEq)]
pub struct RaceRow {
    /// The algorithm.
    pub algorithm: Algorithm,
    /// Heuristic weight it ran with (1 except for the weighted-A* row).
    pub weight: f64,
    /// `true` when `gridpath` guarantees a least-cost path for it here
    /// ([`Algorithm::is_optimal`]).
    pub guaranteed: bool,
    /// What it found.
    pub outcome: RaceOutcome,
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
        contestants.into_iter().map(|s| (s, timed_search(searcher, grid, start, goal, &s))).collect();
    let optimum = results.iter().find_map(|(s, result)| match result {
        Ok((path, _)) if s.algorithm == Algorithm::Dijkstra => Some(path.cost),
        _ => None,
    });
    let rows = results
        .into_iter()
        .map(|(s, result)| RaceRow {
            algorithm: s.algorithm,
            weight: s.weight,
            guaranteed: s.algorithm.is_optimal(grid, &s),
            outcome: match result {
                Ok((path, took)) => {
                    let best = optimum.unwrap_or(path.cost);
                    let optimal = (path.cost - best).abs() <= COST_TOLERANCE * best.max(1.0);
                    RaceOutcome::Found {
                        cost: path.cost,
                        cells: path.cells.len(),
                        expanded: path.stats.expanded,
                        micros: took.as_secs_f64() * 1e6,
                        optimal,
                        excess_percent: if optimal || best <= 0.0 {
                            0.0
                        } else {
                            (path.cost / best - 1.0) * 100.0
                        },
                    }
                }
                Err(SearchError::Unsupported { reason, .. }) => RaceOutcome::Unsupported(reason),
                Err(error) => RaceOutcome::Failed(error.to_string()),
            },
        })
        .collect();
    (rows, optimum)
}

/// One search, timed as the fastest of [`RUNS`] identical runs.
fn timed_search(
    searcher: &mut Searcher,
    grid: &Grid,
    start: Pos,
    goal: Pos,
    settings: &Settings,
) -> Result<(gridpath::Path, Duration), SearchError> {
    let time = |searcher: &mut Searcher| {
        let started = Instant::now();
        let result = searcher.find_path(grid, start, goal, settings);
        (result, started.elapsed())
    };
    let (result, mut fastest) = time(searcher);
    // Errors need no timing; a found path is searched again for a steadier time.
    let path = result?;
    for _ in 1..RUNS {
        fastest = fastest.min(time(searcher).1);
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
/// table's visibility changed).
fn run_race(problem: SearchProblem, mut table: ResMut<RaceTable>, mut searcher: Local<Searcher>) {
    let (rows, optimum) =
        race(&mut searcher, problem.grid(), problem.start(), problem.goal(), problem.settings());
    let table = table.bypass_change_detection();
    table.rows = rows;
    table.optimum = optimum;
}
