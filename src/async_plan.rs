//! Asynchronous route planning for units with a goal of their own: requests wait in the
//! [`PlanQueue`], and every frame up to [`PlanBudget::requests_per_frame`] of them are handed
//! to Bevy's `AsyncComputeTaskPool` in batches, each batch searched by one pooled
//! `gridpath::Searcher` on a shared `Arc<Grid>` snapshot of the map. The frame never waits for a
//! search: finished batches are collected on a later frame.
//!
//! A result computed on a map version that is no longer current (an edit or a new map happened
//! meanwhile) is discarded and its request queued again; a current one is delivered as a
//! [`RoutePlanned`] message.

use std::collections::VecDeque;
use std::sync::Arc;

use bevy::prelude::*;
use bevy::tasks::{AsyncComputeTaskPool, Task, block_on};
use gridpath::{Grid, Pos, SearchError, Searcher, Settings};

use crate::AppSystems;
use crate::level::MapLoaded;
use crate::planning::Pathfinder;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<PlanQueue>();
    app.init_resource::<PlanBudget>();
    app.add_message::<RoutePlanned>();
    app.add_systems(
        Update,
        (
            forget_old_map.run_if(on_message::<MapLoaded>),
            collect_plan_results.run_if(plans_in_flight),
            dispatch_plan_requests.run_if(plans_waiting),
        )
            .chain()
            .in_set(AppSystems::Plan)
            .in_set(AsyncPlanSystems),
    );
}

/// The systems that collect finished searches and start new ones.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AsyncPlanSystems;

/// How much planning work a frame may start.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanBudget {
    /// Requests handed to the task pool per frame, at most.
    pub requests_per_frame: usize,
    /// Requests per task: one task searches them one after the other with one `Searcher`.
    pub batch_size: usize,
    /// Batches running at once, at most: a new map version makes their work worthless, so
    /// few in flight waste little.
    pub max_in_flight: usize,
}

impl Default for PlanBudget {
    fn default() -> Self {
        Self { requests_per_frame: 256, batch_size: 32, max_in_flight: 16 }
    }
}

/// The map a search ran on: which load and which edit revision of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct MapVersion {
    /// Maps loaded since start-up.
    pub loads: u64,
    /// `Grid::revision` of that map.
    pub revision: u64,
}

/// A route wanted for one unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlanRequest {
    /// The unit.
    pub unit: Entity,
    /// Where its route starts.
    pub from: Pos,
    /// Where it leads.
    pub to: Pos,
}

/// A current route for a unit (or why there is none), computed on the current map.
#[derive(Message, Clone, Debug)]
pub struct RoutePlanned {
    /// What was asked.
    pub request: PlanRequest,
    /// The cells from `from` to `to`, both included, or why there is no route.
    pub result: Result<Vec<Pos>, SearchError>,
}

/// What a finished task hands back.
struct Batch {
    version: MapVersion,
    searcher: Searcher,
    results: Vec<(PlanRequest, Result<Vec<Pos>, SearchError>)>,
}

/// Counters for the HUD, tests and benchmarks.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct PlanCounts {
    /// Requests handed to the task pool.
    pub started: u64,
    /// Results delivered.
    pub delivered: u64,
    /// Results thrown away because the map changed while they were computed (each one is
    /// requested again).
    pub discarded: u64,
}

/// The queue of route requests and the searches running for it.
#[derive(Resource, Default)]
pub struct PlanQueue {
    waiting: VecDeque<PlanRequest>,
    in_flight: Vec<Task<Batch>>,
    /// Workspaces not in use by a task.
    searchers: Vec<Searcher>,
    /// The map the next batches search, shared by every task of this version.
    snapshot: Option<(MapVersion, Arc<Grid>)>,
    loads: u64,
    /// Counters.
    pub counts: PlanCounts,
}

impl PlanQueue {
    /// Queues a request; it is served in order of arrival.
    pub fn request(&mut self, request: PlanRequest) {
        self.waiting.push_back(request);
    }

    /// Requests not yet handed to the task pool.
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

    /// The version of the map `grid` is, in this session.
    fn version_of(&self, grid: &Grid) -> MapVersion {
        MapVersion { loads: self.loads, revision: grid.revision() }
    }
}

fn plans_in_flight(queue: Res<PlanQueue>) -> bool {
    !queue.in_flight.is_empty()
}

fn plans_waiting(queue: Res<PlanQueue>) -> bool {
    !queue.waiting.is_empty()
}

/// A new map: nothing planned for the old one is wanted (its units are gone).
fn forget_old_map(mut queue: ResMut<PlanQueue>) {
    queue.loads += 1;
    queue.waiting.clear();
    queue.snapshot = None;
}

/// Starts up to the frame's budget of waiting requests, in batches, on the async task pool.
fn dispatch_plan_requests(
    mut queue: ResMut<PlanQueue>,
    pathfinder: Res<Pathfinder>,
    budget: Res<PlanBudget>,
) {
    let queue = &mut *queue;
    let version = queue.version_of(pathfinder.grid());
    if queue.snapshot.as_ref().is_none_or(|(v, _)| *v != version) {
        queue.snapshot = Some((version, Arc::new(pathfinder.grid().clone())));
    }
    let Some((_, grid)) = &queue.snapshot else { return };
    let settings: Settings = *pathfinder.settings();
    let pool = AsyncComputeTaskPool::get();
    let mut budget_left = budget.requests_per_frame;
    while budget_left > 0 && !queue.waiting.is_empty() && queue.in_flight.len() < budget.max_in_flight {
        let take = budget.batch_size.max(1).min(budget_left).min(queue.waiting.len());
        let batch: Vec<PlanRequest> = queue.waiting.drain(..take).collect();
        budget_left -= take;
        queue.counts.started += take as u64;
        let mut searcher = queue.searchers.pop().unwrap_or_default();
        let grid = Arc::clone(grid);
        queue.in_flight.push(pool.spawn(async move {
            let results = batch
                .into_iter()
                .map(|request| {
                    let result = searcher.find_path(&grid, request.from, request.to, &settings);
                    (request, result.map(|path| path.cells))
                })
                .collect();
            Batch { version, searcher, results }
        }));
    }
}

/// Takes the results of finished batches: current ones become [`RoutePlanned`] messages,
/// outdated ones are queued again (first, so they are served next).
fn collect_plan_results(
    mut queue: ResMut<PlanQueue>,
    pathfinder: Res<Pathfinder>,
    mut planned: MessageWriter<RoutePlanned>,
) {
    let queue = &mut *queue;
    let current = queue.version_of(pathfinder.grid());
    let mut index = 0;
    while index < queue.in_flight.len() {
        if !queue.in_flight[index].is_finished() {
            index += 1;
            continue;
        }
        // Finished: `block_on` returns at once.
        let batch = block_on(queue.in_flight.swap_remove(index));
        queue.searchers.push(batch.searcher);
        if batch.version == current {
            queue.counts.delivered += batch.results.len() as u64;
            planned.write_batch(
                batch.results.into_iter().map(|(request, result)| RoutePlanned { request, result }),
            );
        } else if batch.version.loads == current.loads {
            queue.counts.discarded += batch.results.len() as u64;
            for (request, _) in batch.results.into_iter().rev() {
                queue.waiting.push_front(request);
            }
        }
        // A batch for a map that was replaced is dropped: its units are gone.
    }
}
