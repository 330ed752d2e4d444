//! Scenario replay (`tilepath --scen FILE.scen`): the queries of a Moving AI scenario file walked
//! on its map. The lab's unit takes query k (the scenario's start and goal become the start and
//! goal), then query k+1 when it arrives (or at once with `Q`); `B` spawns the next batch of
//! queries as crowd units with routes of their own. For every query the HUD shows our path
//! length against the published optimum, and keeps count of matches and mismatches — the lab
//! unit's queries and, on a line of their own, the batch units' first routes.
//!
//! The published optima assume 8 moves without corner cutting (the default settings): other
//! settings make other lengths, and the counts say so.

use std::path::{Path, PathBuf};

use bevy::prelude::*;
use bevy_gridpath::{PathRequest, PathStatus, Waypoints};
use gridpath::Pos;
use gridpath::formats::{Scenario, map_path_for_scen, parse_scen};

use crate::AppSystems;
use crate::edit::files::{LoadMapSystems, UnsavedEdits};
use crate::input::bindings::{Control, ControlSystems};
use crate::map::level::{LoadLevelSystems, MapInfo, MapSource};
use crate::map::problem::{SearchProblem, SearchProblemMut};
use crate::notice::Notice;
use crate::search::plan::{PlanOutcome, PlanReport, plan_main_route};
use crate::units::crowd::routed_crowd_unit;
use crate::units::lab::{LabUnit, Unit, UnitSpeed};

/// Queries one press of `B` spawns as crowd units.
pub const BATCH_SIZE: usize = 50;
/// A length within this of the published optimum matches it (the files round to 5 decimals).
pub const TOLERANCE: f64 = 0.01;

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        Startup,
        (
            read_requested_scenario.run_if(resource_exists::<ScenarioFile>).before(LoadLevelSystems),
            check_scenario_map.run_if(resource_exists::<ScenarioRun>).after(LoadLevelSystems),
        ),
    );
    app.add_systems(
        Update,
        (
            // A new map has nothing to do with the scenario's queries.
            end_scenario_on_new_map.run_if(resource_exists::<ScenarioRun>).after(LoadMapSystems),
            take_next_query.run_if(resource_exists::<ScenarioRun>).after(ControlSystems),
            spawn_query_batch.run_if(resource_exists::<ScenarioRun>.and_then(on_message::<Control>)),
        )
            .chain()
            .in_set(AppSystems::RecordInput)
            .after(ControlSystems),
    );
    // Our lengths against the optimum: the lab unit's main route, the batch units' own routes.
    app.add_systems(
        Update,
        (
            measure_query.run_if(resource_changed::<PlanReport>).after(plan_main_route),
            judge_batch_routes.after(bevy_gridpath::GridPathSystems::Plan),
        )
            .run_if(resource_exists::<ScenarioRun>)
            .in_set(AppSystems::Plan),
    );
    app.add_systems(
        Update,
        refuse_scenario_keys
            .run_if(not(resource_exists::<ScenarioRun>).and_then(on_message::<Control>))
            .in_set(AppSystems::RecordInput)
            .after(ControlSystems),
    );
}

/// The scenario file the command line names (`--scen`).
#[derive(Resource, Debug, Clone)]
pub struct ScenarioFile(pub PathBuf);

/// A scenario being replayed.
#[derive(Resource, Debug, Clone)]
pub struct ScenarioRun {
    /// The scenario file's name, for the HUD.
    pub name: String,
    /// Every query, in file order.
    pub queries: Vec<Scenario>,
    /// The query the lab's unit walks now (`None` before the first frame and after the last).
    pub current: Option<usize>,
    /// Our latest path length for the current query (`Some(None)`: no path found).
    pub ours: Option<Option<f64>>,
    /// Finished queries whose length matched the published optimum.
    pub matches: usize,
    /// Finished queries whose length did not (or that found no path).
    pub mismatches: usize,
    /// The first query the next `B` spawns.
    pub next_batch: usize,
    /// Batch units spawned (a query whose start or goal is a wall now spawns none).
    pub batch_spawned: usize,
    /// Batch units whose first route's length matched the published optimum.
    pub batch_matches: usize,
    /// Batch units whose first route did not (or that found no route).
    pub batch_mismatches: usize,
}

/// A batch unit's scenario query, for judging its first route against the optimum.
#[derive(Component, Debug, Clone, Copy)]
pub struct BatchQuery {
    start: Pos,
    goal: Pos,
    optimal: f64,
    /// Its first route from the query's start has been judged.
    judged: bool,
}

impl ScenarioRun {
    /// A run of `queries` from the file `name`, before its first query.
    pub fn new(name: String, queries: Vec<Scenario>) -> Self {
        Self {
            name,
            queries,
            current: None,
            ours: None,
            matches: 0,
            mismatches: 0,
            next_batch: 0,
            batch_spawned: 0,
            batch_matches: 0,
            batch_mismatches: 0,
        }
    }

    /// The query the lab's unit walks now.
    pub fn current_query(&self) -> Option<&Scenario> {
        self.current.and_then(|k| self.queries.get(k))
    }

    /// Whether our length for the current query matches its published optimum.
    pub fn current_matches(&self) -> Option<bool> {
        let query = self.current_query()?;
        let ours = self.ours?;
        Some(ours.is_some_and(|length| (length - query.optimal).abs() <= TOLERANCE))
    }

    /// Two lines for the HUD: the query and its keys; our length against the optimum and the
    /// running counts (two short lines, so the box stays left of the controls panel); a third
    /// once batch units were spawned: their first routes against the optimum.
    pub fn summary(&self) -> String {
        let lab = self.lab_summary();
        if self.batch_spawned == 0 {
            return lab;
        }
        let planning = self.batch_spawned - self.batch_matches - self.batch_mismatches;
        format!(
            "{lab}\nbatch units: {} match, {} differ, {planning} planning",
            self.batch_matches, self.batch_mismatches
        )
    }

    fn lab_summary(&self) -> String {
        let total = self.queries.len();
        let counts = format!("{} match, {} differ", self.matches, self.mismatches);
        let Some(query) = self.current_query() else {
            return format!("{}: {total} queries done: {counts}", self.name);
        };
        let k = self.current.unwrap_or(0);
        let ours = match self.ours {
            None => "planning".to_owned(),
            Some(None) => "no path".to_owned(),
            Some(Some(length)) => format!("{length:.4}"),
        };
        let verdict = match self.current_matches() {
            Some(true) => "  = optimum",
            Some(false) => "  MISMATCH",
            None => "",
        };
        format!(
            "{}: query {}/{total}  {} -> {}  (Q next, B next {BATCH_SIZE} as a crowd)\n\
             ours {ours} vs optimum {:.4}{verdict}  |  done: {counts}",
            self.name,
            k + 1,
            query.start,
            query.goal,
            query.optimal
        )
    }
}

/// Reads a scenario file and the map next to it.
///
/// # Errors
/// A message naming the file and the problem.
pub fn read_scenario(path: &Path) -> Result<(ScenarioRun, PathBuf), String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("cannot read scenario {}: {e}", path.display()))?;
    let queries = parse_scen(&text).map_err(|e| format!("scenario {}: {e}", path.display()))?;
    if queries.is_empty() {
        return Err(format!("scenario {} has no queries", path.display()));
    }
    let name =
        path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
    Ok((ScenarioRun::new(name, queries), map_path_for_scen(path)))
}

/// Start-up: the scenario decides the map. A bad file is reported; the game goes on without it.
fn read_requested_scenario(
    mut commands: Commands,
    file: Res<ScenarioFile>,
    mut notices: MessageWriter<Notice>,
) {
    match read_scenario(&file.0) {
        Ok((run, map)) => {
            commands.insert_resource(MapSource::File(map));
            commands.insert_resource(run);
        }
        Err(error) => {
            notices.write(Notice::error(error));
        }
    }
}

/// Start-up: the map must be the scenario's (it loaded, and every query fits on it).
fn check_scenario_map(
    mut commands: Commands,
    run: Res<ScenarioRun>,
    info: Res<MapInfo>,
    problem: SearchProblem,
    mut notices: MessageWriter<Notice>,
) {
    let grid = problem.grid();
    let problem = if info.error.is_some() {
        Some(format!("the scenario {} cannot run without its map", run.name))
    } else {
        run.queries.iter().position(|q| !grid.in_bounds(q.start) || !grid.in_bounds(q.goal)).map(|i| {
            format!("query {} of {} lies outside the {}x{} map", i + 1, run.name, grid.width(), grid.height())
        })
    };
    if let Some(problem) = problem {
        notices.write(Notice::error(problem));
        commands.remove_resource::<ScenarioRun>();
    }
}

fn end_scenario_on_new_map(
    mut commands: Commands,
    mut loaded: MessageReader<crate::map::level::MapLoaded>,
    run: Res<ScenarioRun>,
    mut notices: MessageWriter<Notice>,
) {
    // The start-up map's own MapLoaded comes before the first query.
    if loaded.read().count() > 0 && run.current.is_some() {
        commands.remove_resource::<ScenarioRun>();
        notices.write(Notice::info(format!("scenario {} ended: another map was opened", run.name)));
    }
}

/// Gives the lab's unit its first query, the next one when it arrived (or stopped without a
/// path), or at once on `Q`. The finished query is counted as a match or a mismatch.
fn take_next_query(
    mut run: ResMut<ScenarioRun>,
    mut controls: MessageReader<Control>,
    mut problem: SearchProblemMut,
    mut unsaved: ResMut<UnsavedEdits>,
    lab: Query<(&Unit, &PathStatus), With<LabUnit>>,
    mut notices: MessageWriter<Notice>,
) {
    let skip = controls.read().any(|c| *c == Control::NextQuery);
    let next = match (run.current, run.current_query()) {
        (None, _) => 0,
        (Some(_), None) => return,
        (Some(k), Some(query)) => {
            let goal = query.goal;
            let finished = run.ours.is_some()
                && lab.iter().any(|(unit, status)| {
                    (*status == PathStatus::Arrived && unit.cell() == goal)
                        || matches!(status, PathStatus::Failed(_))
                });
            if !finished && !skip {
                return;
            }
            match run.current_matches() {
                Some(true) => run.matches += 1,
                Some(false) => run.mismatches += 1,
                // Skipped before it was planned: not counted.
                None => {}
            }
            k + 1
        }
    };
    run.current = Some(next);
    run.ours = None;
    let Some(query) = run.queries.get(next).cloned() else {
        notices.write(Notice::info(format!(
            "scenario {} done: {} match, {} differ",
            run.name, run.matches, run.mismatches
        )));
        return;
    };
    if !problem.grid().is_passable(query.start) || !problem.grid().is_passable(query.goal) {
        // Only after an edit walled one in: the published endpoints are always free.
        notices.write(Notice::warning(format!("query {} starts or ends in a wall now", next + 1)));
    }
    if query.start == query.goal {
        notices.write(Notice::warning(format!("query {} starts on its goal", next + 1)));
    }
    problem.set_start(query.start);
    problem.set_goal(query.goal);
    // The scenario moved the endpoints, not the player: nothing to save.
    unsaved.accept_endpoints(query.start, query.goal);
}

/// Records our path length for the current query whenever its main route is (re)planned.
fn measure_query(mut run: ResMut<ScenarioRun>, problem: SearchProblem, report: Res<PlanReport>) {
    let Some(query) = run.current_query() else { return };
    if (problem.start(), problem.goal()) != (query.start, query.goal) {
        return;
    }
    run.ours = Some(match &report.outcome {
        PlanOutcome::Found { path, .. } => Some(path.cost),
        PlanOutcome::Failed(_) => None,
        PlanOutcome::Pending => return,
    });
}

/// `B`: the next [`BATCH_SIZE`] queries as crowd units, each on its start with a route of its
/// own to its goal.
fn spawn_query_batch(
    mut commands: Commands,
    mut controls: MessageReader<Control>,
    mut run: ResMut<ScenarioRun>,
    problem: SearchProblem,
    speed: Res<UnitSpeed>,
    mut notices: MessageWriter<Notice>,
) {
    for _ in controls.read().filter(|c| **c == Control::ScenarioBatch) {
        let from = run.next_batch;
        let to = (from + BATCH_SIZE).min(run.queries.len());
        if from >= to {
            notices.write(Notice::warning(format!("every query of {} was spawned", run.name)));
            continue;
        }
        let grid = problem.grid();
        let mut spawned = 0;
        for query in &run.queries[from..to] {
            if grid.is_passable(query.start) && grid.is_passable(query.goal) {
                commands.spawn((
                    routed_crowd_unit(query.start, query.goal, problem.geometry(), speed.0),
                    BatchQuery {
                        start: query.start,
                        goal: query.goal,
                        optimal: query.optimal,
                        judged: false,
                    },
                ));
                spawned += 1;
            }
        }
        run.next_batch = to;
        run.batch_spawned += spawned;
        let skipped = to - from - spawned;
        let note = if skipped > 0 {
            format!(" ({skipped} skipped: start or goal is a wall now)")
        } else {
            String::new()
        };
        notices.write(Notice::info(format!(
            "queries {}-{to} of {} spawned as crowd units{note}",
            from + 1,
            run.name
        )));
    }
}

/// Judges each batch unit's first route from its query's start against the published optimum
/// (later routes start wherever the unit was, so they compare with nothing). Runs right after
/// the plugin answered, before anyone moved.
fn judge_batch_routes(
    mut run: ResMut<ScenarioRun>,
    problem: SearchProblem,
    mut units: Query<(&mut BatchQuery, &Unit, &PathRequest, &PathStatus, &Waypoints), Changed<PathStatus>>,
) {
    let rules = problem.settings().rules;
    for (mut query, unit, request, status, waypoints) in &mut units {
        let first = unit.cell() == query.start && request.goal == query.goal;
        if query.judged || *status == PathStatus::Planning || !first {
            continue;
        }
        query.judged = true;
        // Routes are planned on the current map (stale ones are dropped), so its cost is theirs.
        let cells: Vec<Pos> = std::iter::once(query.start).chain(waypoints.iter().map(|w| w.cell)).collect();
        let length = match status {
            PathStatus::Failed(_) => None,
            _ => problem.grid().path_cost(&cells, rules).ok(),
        };
        if length.is_some_and(|length| (length - query.optimal).abs() <= TOLERANCE) {
            run.batch_matches += 1;
        } else {
            run.batch_mismatches += 1;
        }
    }
}

/// `B` and `Q` without a scenario: say how to start one.
fn refuse_scenario_keys(mut controls: MessageReader<Control>, mut notices: MessageWriter<Notice>) {
    if controls.read().any(|c| matches!(c, Control::ScenarioBatch | Control::NextQuery)) {
        notices.write(Notice::warning("no scenario: start one with tilepath --scen FILE.scen"));
    }
}
