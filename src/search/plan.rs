//! Planning: the search problem is three resources — the map ([`NavGrid`], the plugin's),
//! the [`Endpoints`] and the [`SearchSettings`] — read together through [`SearchProblem`]. The
//! main route from start to goal is searched (traced, for the replay) only when one of them
//! changed, with a search workspace local to the system that searches.
//!
//! Settings change through [`Control`] messages (keys and panel buttons alike). An option that
//! does not apply to the current choices ([`option_problem`]) is refused with its reason, never
//! taken and silently ignored.

use std::time::Instant;

use bevy::platform::collections::HashSet;
use bevy::prelude::*;
use bevy_gridpath::{NavGrid, NavVersion, ReplanIncrementally};
use gridpath::{
    Algorithm, Corners, Grid, Heuristic, Moves, Path, Pos, Rules, SearchError, Searcher, Settings, TraceEvent,
};

use crate::AppSystems;
use crate::input::bindings::{Control, ControlSystems, control_sent};
use crate::map::problem::{
    Endpoints, IncrementalReplanning, SearchProblem, SearchSettings, SmoothRoutes, cost_blind,
    problem_changed,
};
use crate::notice::Notice;
use bevy_gridpath::OffFrame;

/// Heuristic weights the `[` / `]` keys step through.
const WEIGHT_STEP: f64 = 0.5;
/// Largest heuristic weight the keys allow.
pub const MAX_WEIGHT: f64 = 5.0;
/// Every corner rule, in the order `K` steps through them.
pub const CORNERS: [Corners; 3] = [Corners::Forbid, Corners::AllowOne, Corners::Allow];

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<PlanReport>().init_resource::<PlanRunner>();
    app.add_systems(
        Update,
        (
            change_settings.run_if(on_message::<Control>),
            toggle_smoothing.run_if(control_sent(Control::ToggleSmoothing)),
            toggle_partial.run_if(control_sent(Control::TogglePartial)),
            toggle_incremental.run_if(control_sent(Control::ToggleIncremental)),
        )
            .in_set(AppSystems::RecordInput)
            .after(ControlSystems),
    );
    app.add_systems(
        Update,
        (
            finish_plan.run_if(planning_off_the_frame),
            plan_main_route
                .run_if(resource_exists::<Endpoints>.and_then(problem_changed.or_else(plan_wanted))),
        )
            .chain()
            .in_set(AppSystems::Plan),
    );
}

/// Maps with more cells than this are searched on a thread of their own: on a 2048 x 2048 map
/// the main search, its trace and what it explored took ~250 ms, and painting there froze every
/// frame that long. Smaller maps are searched within the frame, their result shown at once.
pub const INLINE_PLAN_CELLS: usize = 512 * 512;

/// The main search under way on its thread (big maps, [`INLINE_PLAN_CELLS`]), and whether
/// another is due when it ends.
#[derive(Resource, Default)]
pub struct PlanRunner {
    /// The search running and the problem it searches.
    running: OffFrame<PlanStamp, PlanResult>,
    /// The problem changed while a search ran: search again once it is done.
    wanted: bool,
    /// The searcher the threads reuse, while none has it.
    searcher: Option<Searcher>,
    /// A search within the frame (a small map's, D* Lite's) answered since the running one
    /// started: its result will not be shown.
    superseded: bool,
    /// Which map (its [`NavVersion::generation`]) the report shown is about.
    shown: Option<u64>,
}

impl PlanRunner {
    /// `true` while the main route is searched on its thread, or another search is due: the
    /// [`PlanReport`] is the last search's, for the map as it was.
    pub fn is_planning(&self) -> bool {
        (self.running.is_running() && !self.superseded) || self.wanted
    }
}

/// Which problem a search was for: a result for another one is not shown.
#[derive(Clone, Copy, Debug, PartialEq)]
struct PlanStamp {
    version: NavVersion,
    start: Pos,
    goal: Pos,
    settings: Settings,
    incremental: bool,
}

impl PlanStamp {
    fn of(problem: &SearchProblem, incremental: bool) -> Self {
        Self {
            version: problem.nav().version(),
            start: problem.start(),
            goal: problem.goal(),
            settings: *problem.settings(),
            incremental,
        }
    }
}

/// What a search on its thread found, and the searcher it borrowed.
struct PlanResult {
    outcome: PlanOutcome,
    explored: Explored,
    trace: Vec<TraceEvent>,
    route: Vec<Pos>,
    searcher: Searcher,
}

/// Run condition: a search runs on its thread.
fn planning_off_the_frame(runner: Res<PlanRunner>) -> bool {
    runner.running.is_running()
}

/// Run condition: a search is due (the problem changed during the last one).
fn plan_wanted(runner: Res<PlanRunner>) -> bool {
    runner.wanted
}

/// Shows a search's result once its thread is done, if it is for the problem as it is now (else
/// the next search, due since the change, runs in [`plan_main_route`]).
fn finish_plan(
    problem: SearchProblem,
    incremental: Res<IncrementalReplanning>,
    mut runner: ResMut<PlanRunner>,
    mut report: ResMut<PlanReport>,
    mut notices: MessageWriter<Notice>,
) {
    let Some((result, stamp)) = runner.running.take_finished() else {
        return;
    };
    let current = !std::mem::take(&mut runner.superseded) && stamp == PlanStamp::of(&problem, incremental.0);
    match result {
        Ok(PlanResult { outcome, explored, trace, route, searcher }) => {
            runner.searcher = Some(searcher);
            if current {
                // The problem changed and changed back meanwhile: this answers it already.
                runner.wanted = false;
                runner.shown = Some(stamp.version.generation);
                report.plans += 1;
                report.repair = None;
                report.outcome = outcome;
                report.explored = explored;
                report.trace = trace;
                report.route = route;
            }
        }
        Err(_) if current => {
            // Not searched again until the problem changes: it would fail the same way.
            let why = "the search of the main route failed (a bug: please report the map)";
            error!("{why}");
            notices.write(Notice::error(why));
            runner.wanted = false;
            *report = PlanReport { plans: report.plans, ..PlanReport::default() };
        }
        // For a problem since changed: the search due for it runs next.
        Err(_) => error!("a search of the main route failed (a bug: please report the map)"),
    }
}

/// The cells a search looked at, as it left them.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Explored {
    /// Cells expanded (closed).
    pub visited: HashSet<Pos>,
    /// Cells still on the open list when the search ended.
    pub frontier: HashSet<Pos>,
}

impl Explored {
    /// The final state after `events`.
    pub fn from_trace(events: &[TraceEvent]) -> Self {
        let mut explored = Self::default();
        for event in events {
            match *event {
                TraceEvent::Opened { pos, .. } => {
                    explored.frontier.insert(pos);
                }
                TraceEvent::Closed { pos } => {
                    explored.frontier.remove(&pos);
                    explored.visited.insert(pos);
                }
                _ => {}
            }
        }
        explored
    }
}

/// The outcome of the latest main search (start to goal), for the path display and the HUD.
#[derive(Resource, Debug, Default)]
pub struct PlanReport {
    /// How many main searches were shown since start-up (on a big map, edits made while one
    /// runs are searched together once it is done, and a search for a problem since changed is
    /// not shown).
    pub plans: u64,
    /// The latest outcome.
    pub outcome: PlanOutcome,
    /// What the latest main search looked at, as it left it.
    pub explored: Explored,
    /// Every step of the latest main search, in order: what the search animation replays.
    pub trace: Vec<TraceEvent>,
    /// Every cell the latest route passes through, start to goal: its cells, or for an
    /// any-angle route (whose cells are its corners) the cells its straight segments cross.
    pub route: Vec<Pos>,
    /// With incremental re-planning: what the latest plan cost D* Lite, against a fresh A*.
    pub repair: Option<Repair>,
}

/// The work of an incremental plan (D* Lite repairing its last search, or its first full search)
/// next to a fresh A* on the same problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Repair {
    /// Cells D* Lite expanded (made consistent or raised).
    pub expanded: u64,
    /// Its open-list updates (the edited cells' neighbours included).
    pub generated: u64,
    /// Cells a fresh A* expands on the same problem.
    pub fresh_expanded: u64,
    /// Whether this was a repair (`false`: the planner's first, full search).
    pub repaired: bool,
}

/// What the latest main search found.
#[derive(Debug, Default)]
pub enum PlanOutcome {
    /// Nothing planned yet.
    #[default]
    Pending,
    /// A route.
    Found {
        /// The route and its stats.
        path: Path,
        /// Search time in microseconds.
        micros: u64,
    },
    /// No route, and why.
    Failed(SearchError),
}

impl PlanOutcome {
    /// The route's cells, start to goal (empty without a route).
    pub fn cells(&self) -> &[Pos] {
        match self {
            PlanOutcome::Found { path, .. } => &path.cells,
            _ => &[],
        }
    }
}

/// Searches the main route, start to goal, recording every step for the replay: within the
/// frame, or on a thread of its own on a big map ([`INLINE_PLAN_CELLS`]; one search at a time,
/// the next once it is done if the problem changed meanwhile). The HUD reports the time of an
/// untraced run: the algorithm's speed, not the tracing's. With incremental re-planning on
/// (and settings it applies to), D* Lite repairs its last search instead, within the frame
/// (a repair is what it saves).
pub(crate) fn plan_main_route(
    problem: SearchProblem,
    incremental: Res<IncrementalReplanning>,
    mut searcher: Local<Searcher>,
    mut replan: Local<ReplanIncrementally>,
    mut report: ResMut<PlanReport>,
    mut runner: ResMut<PlanRunner>,
) {
    runner.wanted = false;
    let generation = problem.nav().version().generation;
    if incremental.0 && incremental_applies(problem.settings()) {
        runner.superseded |= runner.running.is_running();
        runner.shown = Some(generation);
        report.plans += 1;
        plan_incrementally(&problem, &mut searcher, &mut replan, &mut report);
        return;
    }
    *replan = ReplanIncrementally::default();
    let (grid, start, goal, settings) =
        (problem.grid(), problem.start(), problem.goal(), *problem.settings());
    if grid.len() > INLINE_PLAN_CELLS {
        if runner.running.is_running() {
            runner.wanted = true;
            return;
        }
        let stamp = PlanStamp::of(&problem, incremental.0);
        let mut thread_searcher = runner.searcher.take().unwrap_or_default();
        let grid = grid.clone();
        let job = move || {
            let (outcome, explored, trace, route) =
                search_traced(&mut thread_searcher, &grid, start, goal, &settings);
            PlanResult { outcome, explored, trace, route, searcher: thread_searcher }
        };
        match runner.running.start("main route", stamp, job) {
            Ok(()) => {
                runner.superseded = false;
                if runner.shown != Some(generation) {
                    // Another map: the last one's route, search and replay are not about it.
                    runner.shown = Some(generation);
                    *report = PlanReport { plans: report.plans, ..PlanReport::default() };
                }
                return;
            }
            // No thread: searched within the frame, as on a small map.
            Err(error) => warn!("no thread to search the main route on ({error}): searched within the frame"),
        }
    }
    runner.superseded |= runner.running.is_running();
    runner.shown = Some(generation);
    report.plans += 1;
    report.repair = None;
    let found = search_traced(&mut searcher, grid, start, goal, &settings);
    (report.outcome, report.explored, report.trace, report.route) = found;
}

/// The main route's search: the outcome (timed on an untraced run), what it explored, its
/// trace, and the cells the route passes through.
fn search_traced(
    searcher: &mut Searcher,
    grid: &Grid,
    start: Pos,
    goal: Pos,
    settings: &Settings,
) -> (PlanOutcome, Explored, Vec<TraceEvent>, Vec<Pos>) {
    let started = Instant::now();
    let result = searcher.find_path(grid, start, goal, settings);
    let micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
    let mut trace: Vec<TraceEvent> = Vec::new();
    let _ = searcher.find_path_traced(grid, start, goal, settings, &mut trace);
    let explored = Explored::from_trace(&trace);
    let route =
        result.as_ref().map_or_else(|_| Vec::new(), |path| gridpath::sight::path_cells(grid, &path.cells));
    let outcome = match result {
        Ok(path) => PlanOutcome::Found { path, micros },
        Err(error) => PlanOutcome::Failed(error),
    };
    (outcome, explored, trace, route)
}

/// Whether incremental re-planning serves `settings`: one-cell agents, complete routes (D* Lite
/// finds A*'s costs, whatever the algorithm chosen).
pub fn incremental_applies(settings: &Settings) -> bool {
    ReplanIncrementally::applies(settings)
}

/// The main route by D* Lite (the plugin's [`ReplanIncrementally`], recording for the replay),
/// next to what a fresh A* expands on the same problem.
fn plan_incrementally(
    problem: &SearchProblem,
    searcher: &mut Searcher,
    replan: &mut ReplanIncrementally,
    report: &mut PlanReport,
) {
    let (start, goal, settings) = (problem.start(), problem.goal(), problem.settings());
    let grid = problem.grid();
    replan.set_recording(true);
    let started = Instant::now();
    let result = replan.plan_path(grid, start, goal, settings.rules);
    let micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
    let trace = replan.take_events();
    // What a fresh search costs on the same problem, for comparison.
    let fresh =
        Settings { algorithm: Algorithm::AStar, heuristic: Heuristic::Octile, weight: 1.0, ..*settings };
    let fresh_expanded = match searcher.find_path(grid, start, goal, &fresh) {
        Ok(path) => path.stats.expanded,
        Err(SearchError::NoPath { stats, .. }) => stats.expanded,
        Err(_) => 0,
    };
    let stats = replan.last_plan().unwrap_or_default();
    let repaired = replan.last_was_repair();
    report.repair =
        Some(Repair { expanded: stats.expanded, generated: stats.generated, fresh_expanded, repaired });
    report.explored = Explored::from_trace(&trace);
    report.trace = trace;
    report.route =
        result.as_ref().map_or_else(|_| Vec::new(), |path| gridpath::sight::path_cells(grid, &path.cells));
    report.outcome = match result {
        Ok(path) => PlanOutcome::Found { path, micros },
        Err(error) => PlanOutcome::Failed(error),
    };
}

fn toggle_incremental(
    mut incremental: ResMut<IncrementalReplanning>,
    mut settings: ResMut<SearchSettings>,
    mut notices: MessageWriter<Notice>,
) {
    incremental.0 = !incremental.0;
    // How the problem is searched changed: plan it again (the settings stand for the problem).
    settings.set_changed();
    notices.write(if !incremental.0 {
        Notice::info("re-planning: a fresh search after every change")
    } else if incremental_applies(&settings) {
        Notice::info("re-planning: incremental (D* Lite repairs the last search after an edit)")
    } else {
        Notice::warning(
            "re-planning: incremental, but not with partial routes or large units: those search afresh",
        )
    });
}

/// A search option a key or a panel button chooses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SearchOption {
    /// The algorithm.
    Algorithm(Algorithm),
    /// 4 or 8 moves.
    Moves(Moves),
    /// The corner rule.
    Corners(Corners),
    /// The heuristic.
    Heuristic(Heuristic),
    /// The heuristic weight (any value: whether a weight applies does not depend on it).
    Weight(f64),
}

/// Why `option` does not apply with `settings` on `grid`, or `None` when it does.
///
/// An algorithm is checked with `gridpath`'s own [`Algorithm::check`]; moves and corner rules
/// are refused when they would break the current algorithm (but not for a problem it already
/// has, e.g. Lazy Theta* on a map with terrain costs); the heuristic and the weight when the current
/// algorithm does not use them.
pub fn option_problem(grid: &Grid, settings: &Settings, option: SearchOption) -> Option<&'static str> {
    // A rule change is refused only for a new problem, not for one the settings already have.
    let breaks = |rules: Rules| {
        let now = settings.algorithm.check(grid, settings).err();
        settings.algorithm.check(grid, &Settings { rules, ..*settings }).err().filter(|&r| Some(r) != now)
    };
    match option {
        SearchOption::Algorithm(algorithm) => algorithm
            .check(grid, &Settings { algorithm, ..*settings })
            .err()
            .or_else(|| if grid.has_uniform_cost() { None } else { cost_blind(algorithm) }),
        SearchOption::Moves(moves) => breaks(Rules { moves, ..settings.rules }),
        SearchOption::Corners(corners) => match settings.rules.moves {
            Moves::Four => Some("the corner rule is for diagonal steps: 4 moves have none"),
            Moves::Eight => breaks(Rules { corners, ..settings.rules }),
        },
        SearchOption::Heuristic(_) => uses_no_heuristic(settings.algorithm),
        SearchOption::Weight(_) => uses_no_heuristic(settings.algorithm).or(match settings.algorithm {
            Algorithm::Greedy => Some("greedy search ranks by the heuristic alone: a weight changes nothing"),
            // Probe with a weight above 1: whether a weight applies does not depend on its value.
            algorithm => algorithm.check(grid, &Settings { weight: MAX_WEIGHT, ..*settings }).err(),
        }),
    }
}

/// Why `algorithm` has no use for a heuristic, if it has none.
fn uses_no_heuristic(algorithm: Algorithm) -> Option<&'static str> {
    match algorithm {
        Algorithm::Dijkstra => Some("Dijkstra uses no heuristic"),
        Algorithm::Bfs => Some("BFS uses no heuristic"),
        Algorithm::Wavefront => Some("the wavefront uses no heuristic"),
        Algorithm::AStar
        | Algorithm::Greedy
        | Algorithm::Jps
        | Algorithm::Bidirectional
        | Algorithm::Theta
        | Algorithm::LazyTheta => None,
    }
}

/// `settings` with `option` chosen.
fn with_option(settings: Settings, option: SearchOption) -> Settings {
    let mut settings = settings;
    match option {
        SearchOption::Algorithm(algorithm) => settings.algorithm = algorithm,
        SearchOption::Moves(moves) => settings.rules.moves = moves,
        SearchOption::Corners(corners) => settings.rules.corners = corners,
        SearchOption::Heuristic(heuristic) => settings.heuristic = heuristic,
        SearchOption::Weight(weight) => settings.weight = weight.clamp(1.0, MAX_WEIGHT),
    }
    settings
}

/// What the HUD says about a chosen option.
fn describe(option: SearchOption) -> String {
    match option {
        SearchOption::Algorithm(algorithm) => format!("algorithm: {algorithm}"),
        SearchOption::Moves(moves) => format!("moves: {}", moves.name()),
        SearchOption::Corners(corners) => format!("corners: {corners}"),
        SearchOption::Heuristic(heuristic) => format!("heuristic: {}", heuristic.name()),
        SearchOption::Weight(weight) => format!("heuristic weight: {:.1}", weight.clamp(1.0, MAX_WEIGHT)),
    }
}

/// The option a cycling control moves to from `settings`: the next one in `all` (or with
/// `back`, the previous one) that applies. `Err` carries the reason when none does.
fn cycle_option<T: Copy + PartialEq>(
    grid: &Grid,
    settings: &Settings,
    all: &[T],
    current: T,
    back: bool,
    option: impl Fn(T) -> SearchOption,
) -> Result<SearchOption, &'static str> {
    let mut first_problem = None;
    let mut candidate = current;
    for _ in 1..all.len() {
        candidate = cycle(all, candidate, back);
        match option_problem(grid, settings, option(candidate)) {
            None => return Ok(option(candidate)),
            Some(problem) => first_problem = first_problem.or(Some(problem)),
        }
    }
    // Every other choice is refused (or there is none): say why the next one is.
    Err(first_problem.unwrap_or("there is no other choice"))
}

/// The option a control asks for, given the current settings; `Err` when it does not apply.
fn requested_option(
    grid: &Grid,
    settings: &Settings,
    control: Control,
) -> Option<Result<SearchOption, &'static str>> {
    let rules = settings.rules;
    let option = match control {
        Control::SelectAlgorithm(algorithm) => SearchOption::Algorithm(algorithm),
        Control::CycleAlgorithm { back } => {
            return Some(cycle_option(
                grid,
                settings,
                &Algorithm::ALL,
                settings.algorithm,
                back,
                SearchOption::Algorithm,
            ));
        }
        Control::SetMoves(moves) => SearchOption::Moves(moves),
        Control::ToggleMoves => SearchOption::Moves(match rules.moves {
            Moves::Four => Moves::Eight,
            Moves::Eight => Moves::Four,
        }),
        Control::SetCorners(corners) => SearchOption::Corners(corners),
        Control::CycleCorners { back } => {
            return Some(cycle_option(grid, settings, &CORNERS, rules.corners, back, SearchOption::Corners));
        }
        Control::SetHeuristic(heuristic) => SearchOption::Heuristic(heuristic),
        Control::CycleHeuristic { back } => {
            return Some(cycle_option(
                grid,
                settings,
                &Heuristic::ALL,
                settings.heuristic,
                back,
                SearchOption::Heuristic,
            ));
        }
        Control::WeightDown => SearchOption::Weight(settings.weight - WEIGHT_STEP),
        Control::WeightUp => SearchOption::Weight(settings.weight + WEIGHT_STEP),
        _ => return None,
    };
    Some(option_problem(grid, settings, option).map_or(Ok(option), Err))
}

/// Applies the settings controls (keys and panel buttons). The settings change only when a
/// setting really changes, so a refused or repeated choice never re-plans.
fn change_settings(
    mut controls: MessageReader<Control>,
    nav: Res<NavGrid>,
    mut settings: ResMut<SearchSettings>,
    mut notices: MessageWriter<Notice>,
) {
    for &control in controls.read() {
        let Some(request) = requested_option(nav.grid(), &settings, control) else {
            continue;
        };
        match request {
            Ok(option) => {
                settings.set_if_neq(SearchSettings(with_option(settings.0, option)));
                notices.write(Notice::info(describe(option)));
            }
            Err(problem) => {
                notices.write(Notice::warning(format!("not available: {problem}")));
            }
        }
    }
}

fn toggle_smoothing(mut smooth: ResMut<SmoothRoutes>, mut notices: MessageWriter<Notice>) {
    smooth.0 = !smooth.0;
    notices.write(Notice::info(if smooth.0 {
        "routes: smoothed (straight lines where the way is clear)"
    } else {
        "routes: cell by cell"
    }));
}

fn toggle_partial(mut settings: ResMut<SearchSettings>, mut notices: MessageWriter<Notice>) {
    settings.partial = !settings.partial;
    notices.write(Notice::info(if settings.partial {
        "unreachable goals: units go as close as possible"
    } else {
        "unreachable goals: units stop"
    }));
}

/// The item after (or with `back`, before) `current` in `all`, wrapping around.
fn cycle<T: Copy + PartialEq>(all: &[T], current: T, back: bool) -> T {
    let index = all.iter().position(|&t| t == current).unwrap_or(0);
    let next = if back { index + all.len() - 1 } else { index + 1 };
    all[next % all.len()]
}
