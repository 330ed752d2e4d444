//! Route planning: a [`PathRequest`] on an entity is answered with [`Waypoints`] and a
//! [`PathStatus`]. A lone request is searched in the frame it was made; many are handed to
//! Bevy's `AsyncComputeTaskPool` in batches, each batch searched by one pooled
//! [`gridpath::Searcher`] on a shared snapshot of the grid, and collected on a later frame. A
//! result for a grid that was edited meanwhile is thrown away and its request queued again.

use std::collections::VecDeque;
use std::fmt;
use std::sync::Arc;

use bevy::platform::collections::HashSet;
use bevy::prelude::*;
use bevy::tasks::{AsyncComputeTaskPool, Task, TaskPool, block_on};
use gridpath::{Grid, Incremental, Pos, Rules, SearchError, Searcher, Settings, Stats, SubgoalQuery};

use crate::GridPathSystems;
use crate::flow::FollowFlowField;
use crate::mover::Mover;
use crate::nav::{GridChanged, GridSnapshot, NavGrid, NavVersion};
use crate::subgoal::{GraphOf, SubgoalRoutes};

pub(crate) fn plugin(app: &mut App) {
    app.init_resource::<PlanBudget>();
    app.init_resource::<PlanQueue>();
    app.add_systems(
        Update,
        (queue_new_requests, queue_routes_crossed_by_edits)
            .chain()
            .in_set(GridPathSystems::Request)
            .after(crate::nav::publish_grid_changes),
    );
    app.add_systems(
        Update,
        (collect_finished_batches.run_if(batches_in_flight), plan_waiting_requests.run_if(requests_waiting))
            .chain()
            .in_set(GridPathSystems::Plan),
    );
}

/// A route wanted: from where the entity stands (its `Transform`, or the cell a [`Mover`] is
/// stepping into) to `goal`, searched with `settings`. Insert it, or change it, to plan; the
/// answer comes as [`Waypoints`] and a [`PathStatus`].
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[require(Transform, Waypoints, PathStatus)]
pub struct PathRequest {
    /// Where to go.
    pub goal: Pos,
    /// How to search: algorithm, movement rules, heuristic.
    pub settings: Settings,
    /// Pull the found route taut ([`gridpath::smooth`]): straight segments between the corners
    /// that need them, in line of sight under the rules, never longer than the grid route. A
    /// [`Mover`] walks them in straight lines.
    pub smooth: bool,
}

impl PathRequest {
    /// A route to `goal` with the default settings (A*, 8 moves without corner cutting).
    pub fn new(goal: Pos) -> Self {
        Self { goal, settings: Settings::default(), smooth: false }
    }

    /// The same request, with its route pulled taut (see [`PathRequest::smooth`]).
    #[must_use]
    pub fn smoothed(self) -> Self {
        Self { smooth: true, ..self }
    }

    /// The same request, searched with `settings`.
    #[must_use]
    pub fn with_settings(self, settings: Settings) -> Self {
        Self { settings, ..self }
    }
}

/// Opt-in, beside a [`PathRequest`]: the entity's routes are planned by D* Lite
/// ([`gridpath::Incremental`]), which keeps its last search and, when an edit crosses the route
/// or the entity re-plans from further along, repairs it instead of starting over — the same
/// least cost as a fresh A*, usually for a fraction of the work (the request's algorithm is not
/// used). Planned in the frame, never on the task pool (the kept search is the entity's own).
/// Requests for a large agent (`agent_size` above 1) or a partial route are searched as usual.
///
/// ```
/// use bevy_gridpath::prelude::*;
///
/// let replan = ReplanIncrementally::default();
/// assert_eq!(replan.last_plan(), None);
/// ```
#[derive(Component, Default)]
pub struct ReplanIncrementally {
    planner: Option<Incremental>,
    last: Option<Stats>,
    repaired: bool,
    recording: bool,
}

impl ReplanIncrementally {
    /// The work of the last plan: `expanded` cells (made consistent or raised) and `generated`
    /// queue updates since the plan before — a repair's, or the first full search's.
    pub fn last_plan(&self) -> Option<Stats> {
        self.last
    }

    /// Whether `settings` can be planned incrementally.
    pub fn applies(settings: &Settings) -> bool {
        settings.agent_size <= 1 && !settings.partial
    }

    /// A least-cost path from `from` to `goal` under `rules` by D* Lite: a repair of the kept
    /// search when it is for the same goal and rules (the start may have moved, the grid may
    /// have been edited), else a new planner's full search. Its work is then
    /// [`last_plan`](Self::last_plan); [`last_was_repair`](Self::last_was_repair) tells which.
    ///
    /// # Errors
    /// As [`Incremental::plan`]; an endpoint off the grid.
    pub fn plan_path(
        &mut self,
        grid: &Grid,
        from: Pos,
        goal: Pos,
        rules: Rules,
    ) -> Result<gridpath::Path, SearchError> {
        let kept = self.planner.take().filter(|p| p.goal() == goal && p.rules() == rules);
        self.repaired = kept.is_some();
        self.last = None;
        let recording = self.recording;
        let planner = match kept {
            Some(planner) => self.planner.insert(planner),
            None => self.planner.insert(Incremental::new(grid, from, goal, rules)?),
        };
        planner.set_recording(recording);
        planner.set_start(from)?;
        let path = planner.plan(grid);
        self.last = Some(match &path {
            Ok(path) => path.stats,
            Err(SearchError::NoPath { stats, .. }) => *stats,
            Err(_) => Stats::default(),
        });
        path
    }

    /// Whether the last [`plan_path`](Self::plan_path) repaired a kept search (`false`: a new
    /// planner's full search).
    pub fn last_was_repair(&self) -> bool {
        self.repaired
    }

    /// Records what every plan touches from now on (see [`Incremental::set_recording`]), for a
    /// replay; [`take_events`](Self::take_events) hands the events over.
    pub fn set_recording(&mut self, on: bool) {
        self.recording = on;
        if let Some(planner) = &mut self.planner {
            planner.set_recording(on);
        }
    }

    /// The events recorded since the last call (empty when not recording).
    pub fn take_events(&mut self) -> Vec<gridpath::TraceEvent> {
        self.planner.as_mut().map(Incremental::take_events).unwrap_or_default()
    }

    /// The route for `job`, pulled taut when the request says so.
    fn plan(&mut self, grid: &Grid, job: &Job) -> Result<Route, SearchError> {
        let rules = job.request.settings.rules;
        let path = self.plan_path(grid, job.from, job.request.goal, rules)?;
        let cells = if job.request.smooth { gridpath::smooth(grid, &path.cells, rules) } else { path.cells };
        Ok(Route { cells, partial: false, by_graph: false })
    }
}

/// Where an entity with a [`PathRequest`] or a [`FollowFlowField`] stands with its route.
#[derive(Component, Clone, Debug, Default, PartialEq)]
pub enum PathStatus {
    /// Its route is being planned.
    #[default]
    Planning,
    /// It has a route ([`Waypoints`], or its flow field) and is on its way.
    Following,
    /// It is on its goal.
    Arrived,
    /// Its goal cannot be reached, and its request asked for a partial route
    /// (`settings.partial`): it walks (or, at the end, stands on) the route to the reachable
    /// cell nearest the goal. Any edit of the grid plans again, in case it opened the way.
    Partial,
    /// There is no route; why. An edit of the grid plans again.
    Failed(PathFailure),
}

/// Why an entity has no route.
#[derive(Clone, Debug, PartialEq)]
pub enum PathFailure {
    /// The entity stands outside the grid.
    OffGrid,
    /// The search found none (no path, an endpoint on a wall, settings that do not apply).
    Search(SearchError),
}

impl fmt::Display for PathFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PathFailure::OffGrid => f.write_str("it stands outside the map"),
            PathFailure::Search(error) => error.fmt(f),
        }
    }
}

/// One point of a route.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Waypoint {
    /// The cell.
    pub cell: Pos,
    /// The cell's centre in world space.
    pub point: Vec2,
}

/// The rest of an entity's route, next point first (the cell it stands on is not in it). A
/// game that steers its units itself pops points as they are reached; a [`Mover`] does it.
#[derive(Component, Debug, Clone, Default, PartialEq, Deref, DerefMut)]
pub struct Waypoints(pub VecDeque<Waypoint>);

/// How much planning a frame may start.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanBudget {
    /// Requests planned or handed to the task pool per frame, at most.
    pub requests_per_frame: usize,
    /// Requests per task: one task searches them one after the other with one `Searcher`.
    pub batch_size: usize,
    /// Batches running at once, at most: an edit makes their work worthless, so few in flight
    /// waste little.
    pub max_in_flight: usize,
    /// Up to this many waiting requests, with nothing in flight, are searched at once in the
    /// frame (no task, no frame of delay).
    pub sync_max: usize,
}

impl Default for PlanBudget {
    fn default() -> Self {
        Self { requests_per_frame: 256, batch_size: 32, max_in_flight: 16, sync_max: 1 }
    }
}

/// Counters since start-up, for a HUD, tests and benchmarks.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct PlanCounts {
    /// Searches run (in the frame or on the task pool).
    pub searched: u64,
    /// Answers given to entities.
    pub delivered: u64,
    /// Results thrown away because the grid changed while they were computed (each request is
    /// planned again).
    pub discarded: u64,
    /// Routes planned again because an edit crossed them, or freed an entity that had none.
    pub replans: u64,
    /// Routes delivered that the subgoal graph found ([`SubgoalRoutes`]; not its failures,
    /// nor the routes searched over the cells while it was repaired).
    pub by_subgoal_graph: u64,
}

/// A search to run: for whom, from where, to where, how.
#[derive(Clone, Copy, Debug)]
struct Job {
    entity: Entity,
    from: Pos,
    request: PathRequest,
}

/// What a finished task hands back.
struct Batch {
    version: NavVersion,
    workspace: Workspace,
    results: Vec<(Job, Result<Route, SearchError>)>,
}

/// One search at a time's buffers: the searcher's, and a subgoal graph query's.
#[derive(Default)]
struct Workspace {
    searcher: Searcher,
    subgoal: SubgoalQuery,
}

/// The requests waiting to be planned and the batches being searched.
#[derive(Resource, Default)]
pub struct PlanQueue {
    waiting: VecDeque<Entity>,
    queued: HashSet<Entity>,
    in_flight: Vec<Task<Batch>>,
    /// Workspaces not in use by a task.
    workspaces: Vec<Workspace>,
    counts: PlanCounts,
}

impl PlanQueue {
    /// Requests not yet planned or handed to the task pool.
    pub fn waiting(&self) -> usize {
        self.waiting.len()
    }

    /// Batches being searched.
    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// `true` when nothing waits and nothing runs.
    pub fn is_idle(&self) -> bool {
        self.waiting.is_empty() && self.in_flight.is_empty()
    }

    /// Counters since start-up.
    pub fn counts(&self) -> PlanCounts {
        self.counts
    }

    /// Queues `entity` once, however often it is asked for.
    fn push(&mut self, entity: Entity) {
        if self.queued.insert(entity) {
            self.waiting.push_back(entity);
        }
    }
}

fn batches_in_flight(queue: Res<PlanQueue>) -> bool {
    !queue.in_flight.is_empty()
}

fn requests_waiting(queue: Res<PlanQueue>) -> bool {
    !queue.waiting.is_empty()
}

/// The cell a new route of an entity starts from, and whether it is in the middle of a step
/// towards it (a [`Mover`] finishes its step first: it never turns around between two cells).
///
/// For a large agent (`agent_size` > 1) the cell is its body's top-left cell, as gridpath plans.
fn route_start(
    nav: &NavGrid,
    transform: &Transform,
    mover: Option<&Mover>,
    agent_size: u8,
) -> Option<(Pos, bool)> {
    let here = nav.anchor_at(transform.translation.truncate(), agent_size);
    match mover.and_then(Mover::next) {
        // An edit broke the step it is in the middle of (a wall beside its diagonal, or on the
        // cell a long segment crosses next): back to the centre of the cell it stands in.
        Some(next) if here.is_some_and(|here| !step_is_clear(nav, here, next, agent_size)) => {
            here.map(|here| (here, true))
        }
        Some(next) => Some((next, true)),
        None => here.map(|cell| (cell, false)),
    }
}

/// Whether a body of `agent_size` can still go on from the cell `here` (top-left cells) to
/// `next`: every cell its body covers on the way is passable, with both cells beside a diagonal
/// step (a conservative reading of every corner rule: a start from `here` is always legal).
fn step_is_clear(nav: &NavGrid, here: Pos, next: Pos, agent_size: u8) -> bool {
    let grid = nav.grid();
    let body_free = |anchor: Pos| nav.body_cells(anchor, agent_size).all(|cell| grid.is_passable(cell));
    let (dx, dy) = (here.x.abs_diff(next.x), here.y.abs_diff(next.y));
    match (dx, dy) {
        (0, 0) => true,
        (0 | 1, 0 | 1) => {
            body_free(next)
                && (dx + dy < 2 || body_free(Pos::new(here.x, next.y)) && body_free(Pos::new(next.x, here.y)))
        }
        _ => gridpath::sight::segment_cells(grid, here, next).into_iter().all(body_free),
    }
}

/// Marks `entity` as planning: it keeps only the step it is in the middle of, so it never walks
/// on along a route that may cross a new wall.
fn start_planning(
    nav: &NavGrid,
    waypoints: &mut Waypoints,
    status: &mut PathStatus,
    (start, agent_size): (Option<(Pos, bool)>, u8),
) {
    keep_current_step(nav, waypoints, start, agent_size);
    if *status != PathStatus::Planning {
        *status = PathStatus::Planning;
    }
}

/// Keeps only the step a mover is in the middle of (to the centre of the cell it is entering;
/// on a long straight segment, of the cell it is in), or nothing when it stands on a centre.
fn keep_current_step(nav: &NavGrid, waypoints: &mut Waypoints, start: Option<(Pos, bool)>, agent_size: u8) {
    match start {
        Some((cell, true)) => {
            waypoints.clear();
            waypoints.push_back(Waypoint { cell, point: nav.body_center(cell, agent_size) });
        }
        _ => waypoints.clear(),
    }
}

/// Queues every new or changed request.
fn queue_new_requests(
    nav: Res<NavGrid>,
    mut queue: ResMut<PlanQueue>,
    mut units: Query<
        (Entity, &PathRequest, &Transform, Option<&Mover>, &mut Waypoints, &mut PathStatus),
        (Changed<PathRequest>, Without<FollowFlowField>),
    >,
) {
    for (entity, request, transform, mover, mut waypoints, mut status) in &mut units {
        let size = request.settings.agent_size;
        start_planning(&nav, &mut waypoints, &mut status, (route_start(&nav, transform, mover, size), size));
        queue.push(entity);
    }
}

/// Which cells this frame's edits touched: a stamp per cell, so checking a route costs one
/// array read per waypoint however many cells were edited.
#[derive(Default)]
struct EditedCells {
    stamp: Vec<u32>,
    width: u32,
    current: u32,
    all: bool,
}

impl EditedCells {
    fn mark(&mut self, grid: &Grid, changes: &[&GridChanged]) {
        if self.stamp.len() != grid.len() || self.width != grid.width() || self.current == u32::MAX {
            self.stamp = vec![0; grid.len()];
            self.width = grid.width();
            self.current = 0;
        }
        self.current += 1;
        self.all = false;
        for change in changes {
            match change {
                GridChanged::All | GridChanged::Replaced => self.all = true,
                GridChanged::Cells(cells) => {
                    for cell in cells.iter().filter(|c| grid.in_bounds(**c)) {
                        self.stamp[cell.y as usize * self.width as usize + cell.x as usize] = self.current;
                    }
                }
            }
        }
    }

    fn touches(&self, cell: Pos) -> bool {
        self.all
            || self.stamp.get(cell.y as usize * self.width as usize + cell.x as usize) == Some(&self.current)
    }

    /// Whether an edit touched the route through `cells`: a cell of it, or a cell beside one of
    /// its diagonal steps (the corner rule reads those, so a wall there can make the step
    /// illegal without touching the route itself). A straight segment between far cells (a
    /// smoothed route) is touched through any cell it crosses, or when the edit broke its line
    /// of sight under `rules`.
    fn crosses(
        &self,
        (nav, grid): (&NavGrid, &Grid),
        (rules, size): (Rules, u8),
        mut cells: impl Iterator<Item = Pos>,
    ) -> bool {
        // A large agent's cells are the top-left cells of its body: an edit anywhere under the
        // body counts.
        let touches = |anchor: Pos| nav.body_cells(anchor, size).any(|cell| self.touches(cell));
        let Some(mut from) = cells.next() else { return false };
        if touches(from) {
            return true;
        }
        for to in cells {
            let (dx, dy) = (from.x.abs_diff(to.x), from.y.abs_diff(to.y));
            let crossed = if dx <= 1 && dy <= 1 {
                let diagonal = dx == 1 && dy == 1;
                touches(to)
                    || diagonal && (touches(Pos::new(from.x, to.y)) || touches(Pos::new(to.x, from.y)))
            } else {
                !grid.line_of_sight(from, to, rules)
                    || gridpath::sight::segment_cells(grid, from, to).into_iter().any(&touches)
            };
            if crossed {
                return true;
            }
            from = to;
        }
        false
    }
}

/// Queues exactly the routes an edit crossed, and the entities without a route (an edit may
/// have opened one); a new grid re-plans everyone.
fn queue_routes_crossed_by_edits(
    nav: Res<NavGrid>,
    mut changes: MessageReader<GridChanged>,
    mut queue: ResMut<PlanQueue>,
    mut edited: Local<EditedCells>,
    mut units: Query<
        (Entity, &PathRequest, &Transform, Option<&Mover>, &mut Waypoints, &mut PathStatus),
        Without<FollowFlowField>,
    >,
) {
    let changes: Vec<&GridChanged> = changes.read().collect();
    if changes.is_empty() {
        return;
    }
    let replaced = changes.contains(&&GridChanged::Replaced);
    edited.mark(nav.grid(), &changes);
    // The grids large agents move on, made once per size this frame when a route needs one.
    let mut sized: Vec<(u8, Grid)> = Vec::new();
    for (entity, request, transform, mover, mut waypoints, mut status) in &mut units {
        let stale = match *status {
            PathStatus::Planning => false,
            PathStatus::Failed(_) | PathStatus::Partial => true,
            PathStatus::Following => {
                let size = request.settings.agent_size;
                let from = route_start(&nav, transform, mover, size).map(|(cell, _)| cell);
                // From the cell it stands in: an edit beside the step it is taking counts too.
                let here = nav.anchor_at(transform.translation.truncate(), size);
                let route = here.into_iter().chain(from).chain(waypoints.iter().map(|w| w.cell));
                let grid = if size <= 1 {
                    nav.grid()
                } else {
                    if !sized.iter().any(|(s, _)| *s == size) {
                        sized.push((size, nav.grid().for_agent_size(size)));
                    }
                    &sized.iter().find(|(s, _)| *s == size).expect("just made").1
                };
                edited.crosses((&nav, grid), (request.settings.rules, size), route)
            }
            PathStatus::Arrived => replaced,
        };
        if stale {
            queue.counts.replans += 1;
            let size = request.settings.agent_size;
            start_planning(
                &nav,
                &mut waypoints,
                &mut status,
                (route_start(&nav, transform, mover, size), size),
            );
            queue.push(entity);
        }
    }
}

/// The entities the planner answers, with what it needs to know about them.
type Planned<'a> = (&'a PathRequest, &'a Transform, Option<&'a Mover>, &'a mut Waypoints, &'a mut PathStatus);

/// Takes the results of finished batches: current ones are given to their entities, outdated
/// ones are queued again.
fn collect_finished_batches(
    nav: Res<NavGrid>,
    mut queue: ResMut<PlanQueue>,
    mut units: Query<Planned, Without<FollowFlowField>>,
) {
    let queue = &mut *queue;
    let current = nav.version();
    let mut index = 0;
    while index < queue.in_flight.len() {
        if !queue.in_flight[index].is_finished() {
            index += 1;
            continue;
        }
        // Finished: `block_on` returns at once.
        let batch = block_on(queue.in_flight.swap_remove(index));
        queue.workspaces.push(batch.workspace);
        for (job, result) in batch.results {
            if batch.version == current {
                deliver(&nav, queue, &mut units, job, result);
            } else {
                queue.counts.discarded += 1;
                queue.push(job.entity);
            }
        }
    }
}

/// Plans the frame's budget of waiting requests: at once when there are few and nothing runs,
/// else in batches on the task pool, taking no more than the free batch slots hold.
fn plan_waiting_requests(
    nav: Res<NavGrid>,
    budget: Res<PlanBudget>,
    mut queue: ResMut<PlanQueue>,
    mut snapshot: ResMut<GridSnapshot>,
    mut sync_workspace: Local<Workspace>,
    mut units: Query<Planned, Without<FollowFlowField>>,
    mut incremental: Query<&mut ReplanIncrementally>,
    routes: Option<Res<SubgoalRoutes>>,
) {
    let queue = &mut *queue;
    // The subgoal graph, when one describes the grid as it is.
    let graph = routes.as_ref().and_then(|routes| routes.ready(nav.version())).cloned();
    let at_once = queue.in_flight.is_empty() && queue.waiting.len() <= budget.sync_max;
    let batch_size = budget.batch_size.max(1);
    let room = if at_once {
        budget.sync_max
    } else {
        budget.max_in_flight.saturating_sub(queue.in_flight.len()) * batch_size
    };
    let mut jobs = Vec::new();
    let mut repairs = Vec::new();
    while jobs.len() < budget.requests_per_frame.min(room) {
        let Some(entity) = queue.waiting.pop_front() else { break };
        queue.queued.remove(&entity);
        let Ok((request, transform, mover, mut waypoints, mut status)) = units.get_mut(entity) else {
            continue;
        };
        match route_start(&nav, transform, mover, request.settings.agent_size) {
            Some((from, _))
                if incremental.contains(entity) && ReplanIncrementally::applies(&request.settings) =>
            {
                repairs.push(Job { entity, from, request: *request });
            }
            Some((from, _)) => jobs.push(Job { entity, from, request: *request }),
            None => {
                waypoints.clear();
                status.set_if_neq(PathStatus::Failed(PathFailure::OffGrid));
            }
        }
    }
    queue.counts.searched += (jobs.len() + repairs.len()) as u64;
    for job in repairs {
        let Ok(mut replan) = incremental.get_mut(job.entity) else { continue };
        let result = replan.plan(nav.grid(), &job);
        deliver(&nav, queue, &mut units, job, result);
    }
    if at_once {
        for job in jobs {
            let result = search(&mut sync_workspace, nav.grid(), graph.as_ref(), &job);
            deliver(&nav, queue, &mut units, job, result);
        }
    } else {
        dispatch(&nav, queue, snapshot.of(&nav), (jobs, graph), batch_size);
    }
}

/// A route found for a job: its cells, whether it stops short of an unreachable goal, and
/// whether the subgoal graph found it.
#[derive(Clone, Debug)]
struct Route {
    cells: Vec<Pos>,
    partial: bool,
    by_graph: bool,
}

/// The route `job` asks for: the search's cells (the subgoal graph's, when `graph` describes
/// `grid` and answers the request), pulled taut when the request says so.
fn search(
    workspace: &mut Workspace,
    grid: &Grid,
    graph: Option<&GraphOf>,
    job: &Job,
) -> Result<Route, SearchError> {
    let request = &job.request;
    if let Some(of) = graph.filter(|of| of.answers(&request.settings)) {
        // The graph's own snapshot of the grid: the same cells, the id the graph knows.
        let path = of.graph.find_path_with(
            &of.grid,
            job.from,
            request.goal,
            &request.settings,
            &mut workspace.subgoal,
        )?;
        let cells = if request.smooth {
            gridpath::smooth(&of.grid, &path.cells, request.settings.rules)
        } else {
            path.cells
        };
        let by_graph = workspace.subgoal.answered_by_graph();
        return Ok(Route { cells, partial: false, by_graph });
    }
    let searcher = &mut workspace.searcher;
    let path = searcher.find_path(grid, job.from, request.goal, &request.settings)?;
    let partial = path.outcome.is_partial();
    let size = request.settings.agent_size;
    // A large body's straight lines must see past its whole width: smooth on the grid its
    // top-left cell moves on (the one the search just used, kept by the searcher).
    let cells = if request.smooth {
        gridpath::smooth(searcher.agent_grid(grid, size), &path.cells, request.settings.rules)
    } else {
        path.cells
    };
    Ok(Route { cells, partial, by_graph: false })
}

/// Hands `jobs` to the task pool in batches of `batch_size`, all searching `grid`, the shared
/// snapshot of `nav`'s grid (and `graph`, the subgoal graph of it, when there is one).
fn dispatch(
    nav: &NavGrid,
    queue: &mut PlanQueue,
    grid: Arc<Grid>,
    (jobs, graph): (Vec<Job>, Option<GraphOf>),
    batch_size: usize,
) {
    let version = nav.version();
    let pool = AsyncComputeTaskPool::get_or_init(TaskPool::default);
    for batch in jobs.chunks(batch_size) {
        let batch = batch.to_vec();
        let mut workspace = queue.workspaces.pop().unwrap_or_default();
        let (grid, graph) = (Arc::clone(&grid), graph.clone());
        queue.in_flight.push(pool.spawn(async move {
            let results = batch
                .into_iter()
                .map(|job| {
                    let result = search(&mut workspace, &grid, graph.as_ref(), &job);
                    (job, result)
                })
                .collect();
            Batch { version, workspace, results }
        }));
    }
}

/// Gives `job`'s entity its route (or its failure), if the answer still fits: the request is
/// unchanged (else a newer one is queued) and the route starts where the entity stands, or one
/// legal step from it (else it is planned again).
fn deliver(
    nav: &NavGrid,
    queue: &mut PlanQueue,
    units: &mut Query<Planned, Without<FollowFlowField>>,
    job: Job,
    result: Result<Route, SearchError>,
) {
    let Ok((request, transform, mover, mut waypoints, mut status)) = units.get_mut(job.entity) else {
        return;
    };
    if *request != job.request {
        return;
    }
    let Some((now, mid_step)) = route_start(nav, transform, mover, request.settings.agent_size) else {
        queue.push(job.entity);
        return;
    };
    let route = match result {
        Err(error) if now == job.from => {
            // Finish the current step, then stand still.
            keep_current_step(nav, &mut waypoints, Some((now, mid_step)), request.settings.agent_size);
            status.set_if_neq(PathStatus::Failed(PathFailure::Search(error)));
            queue.counts.delivered += 1;
            return;
        }
        Ok(route) if now == job.from || joins(nav, &job, &route.cells, now) => route,
        _ => {
            queue.push(job.entity);
            return;
        }
    };
    // The route goes on from where the entity stands; one in the middle of a step finishes it.
    let size = request.settings.agent_size;
    let waypoint = |cell| Waypoint { cell, point: nav.body_center(cell, size) };
    let cells = &route.cells;
    let after = cells.iter().position(|&c| c == now).map_or(1, |i| i + 1);
    waypoints.0 = cells[after.min(cells.len())..].iter().map(|&cell| waypoint(cell)).collect();
    if mid_step {
        waypoints.0.push_front(waypoint(now));
    }
    if route.by_graph {
        queue.counts.by_subgoal_graph += 1;
    }
    let next = if route.partial {
        PathStatus::Partial
    } else if waypoints.is_empty() {
        PathStatus::Arrived
    } else {
        PathStatus::Following
    };
    status.set_if_neq(next);
    queue.counts.delivered += 1;
}

/// `true` when a route found from `job.from` still serves an entity that moved to `now`
/// meanwhile: `now` is on it, or one legal step from its second cell.
fn joins(nav: &NavGrid, job: &Job, cells: &[Pos], now: Pos) -> bool {
    let (rules, size) = (job.request.settings.rules, job.request.settings.agent_size);
    if cells.contains(&now) {
        return true;
    }
    let Some(&next) = cells.get(1) else { return false };
    // A large body moves on the grid of its top-left cell (made only in this rare case: the
    // entity moved while its route was planned).
    let sized;
    let grid = if size <= 1 {
        nav.grid()
    } else {
        sized = nav.grid().for_agent_size(size);
        &sized
    };
    grid.can_step(now, next, rules) || grid.line_of_sight(now, next, rules)
}
