//! Planning: the [`Pathfinder`] resource owns the map, the endpoints and the search settings;
//! the main route from start to goal is re-planned only when one of them changed.

use std::time::{Duration, Instant};

use bevy::platform::collections::HashSet;
use bevy::prelude::*;
use gridpath::{
    Algorithm, Corners, Grid, Heuristic, Moves, Path, Pos, SearchError, Searcher, Settings, TraceEvent,
};

use crate::AppSystems;
use crate::level::Geometry;
use crate::notice::Notice;

/// Heuristic weights the `[` / `]` keys step through.
const WEIGHT_STEP: f64 = 0.5;
/// Largest heuristic weight the keys allow.
const MAX_WEIGHT: f64 = 5.0;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<PlanReport>();
    app.add_systems(Update, change_settings.in_set(AppSystems::RecordInput));
    app.add_systems(Update, plan_main_route.run_if(resource_changed::<Pathfinder>).in_set(AppSystems::Plan));
}

/// The search problem: the map, the start and goal, and how to search.
///
/// Every change to any of these marks the resource changed, which is what triggers a re-plan,
/// so searches themselves go through [`Pathfinder::search`] on a change-detection bypass.
#[derive(Resource)]
pub struct Pathfinder {
    grid: Grid,
    start: Pos,
    goal: Pos,
    settings: Settings,
    searcher: Searcher,
}

impl Pathfinder {
    /// A problem on `grid` from `start` to `goal` with the default settings (A*, 8 moves, no
    /// corner cutting, octile heuristic).
    pub fn new(grid: Grid, start: Pos, goal: Pos) -> Self {
        Self { grid, start, goal, settings: Settings::default(), searcher: Searcher::new() }
    }

    /// The map.
    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    /// Where units start.
    pub fn start(&self) -> Pos {
        self.start
    }

    /// Where units go.
    pub fn goal(&self) -> Pos {
        self.goal
    }

    /// How routes are searched.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Where the map lies in world space.
    pub fn geometry(&self) -> Geometry {
        Geometry::of(&self.grid)
    }

    pub(crate) fn grid_mut(&mut self) -> &mut Grid {
        &mut self.grid
    }

    pub(crate) fn set_start(&mut self, start: Pos) {
        self.start = start;
    }

    pub(crate) fn set_goal(&mut self, goal: Pos) {
        self.goal = goal;
    }

    pub(crate) fn settings_mut(&mut self) -> &mut Settings {
        &mut self.settings
    }

    /// Searches a route from `from` to `to` with the current settings; also returns how long
    /// the search took.
    ///
    /// # Errors
    /// Whatever `gridpath` reports: no path, an endpoint on a wall, unsupported settings.
    pub(crate) fn search(&mut self, from: Pos, to: Pos) -> Result<(Path, Duration), SearchError> {
        let started = Instant::now();
        let path = self.searcher.find_path(&self.grid, from, to, &self.settings)?;
        Ok((path, started.elapsed()))
    }

    /// Like [`Pathfinder::search`], also collecting what the search looked at. Returns the
    /// outcome and the explored cells, whatever the outcome.
    fn search_explored(&mut self, from: Pos, to: Pos) -> (Result<(Path, Duration), SearchError>, Explored) {
        // Time an untraced run: the HUD reports the algorithm's speed, not the tracing's.
        let result = self.search(from, to);
        let mut events: Vec<TraceEvent> = Vec::new();
        let _ = self.searcher.find_path_traced(&self.grid, from, to, &self.settings, &mut events);
        (result, Explored::from_trace(&events))
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
    /// How many main searches ran since start-up.
    pub plans: u64,
    /// The latest outcome.
    pub outcome: PlanOutcome,
    /// What the latest main search looked at.
    pub explored: Explored,
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

fn plan_main_route(mut pathfinder: ResMut<Pathfinder>, mut report: ResMut<PlanReport>) {
    // Searching only uses the workspace: not a change anyone needs to react to.
    let pathfinder = pathfinder.bypass_change_detection();
    let (start, goal) = (pathfinder.start, pathfinder.goal);
    report.plans += 1;
    let (result, explored) = pathfinder.search_explored(start, goal);
    report.explored = explored;
    report.outcome = match result {
        Ok((path, took)) => {
            PlanOutcome::Found { path, micros: u64::try_from(took.as_micros()).unwrap_or(u64::MAX) }
        }
        Err(error) => PlanOutcome::Failed(error),
    };
}

/// Keys that change the search settings. Each changes the [`Pathfinder`] only when pressed,
/// so holding nothing never re-plans.
fn change_settings(
    keys: Res<ButtonInput<KeyCode>>,
    mut pathfinder: ResMut<Pathfinder>,
    mut notices: MessageWriter<Notice>,
) {
    let shift = keys.any_pressed([KeyCode::ShiftLeft, KeyCode::ShiftRight]);
    let mut changed = None;
    if keys.just_pressed(KeyCode::Tab) {
        let settings = pathfinder.settings_mut();
        settings.algorithm = cycle(&Algorithm::ALL, settings.algorithm, shift);
        changed = Some(format!("algorithm: {}", settings.algorithm));
    }
    if keys.just_pressed(KeyCode::KeyM) {
        let rules = &mut pathfinder.settings_mut().rules;
        rules.moves = match rules.moves {
            Moves::Four => Moves::Eight,
            Moves::Eight => Moves::Four,
        };
        changed = Some(format!("moves: {}", moves_label(rules.moves)));
    }
    if keys.just_pressed(KeyCode::KeyK) {
        let rules = &mut pathfinder.settings_mut().rules;
        rules.corners = cycle(&[Corners::Forbid, Corners::AllowOne, Corners::Allow], rules.corners, shift);
        changed = Some(format!("corners: {}", corners_label(rules.corners)));
    }
    if keys.just_pressed(KeyCode::KeyE) {
        let settings = pathfinder.settings_mut();
        settings.heuristic = cycle(&Heuristic::ALL, settings.heuristic, shift);
        changed = Some(format!("heuristic: {}", settings.heuristic.name()));
    }
    for (key, step) in [(KeyCode::BracketLeft, -WEIGHT_STEP), (KeyCode::BracketRight, WEIGHT_STEP)] {
        if keys.just_pressed(key) {
            let settings = pathfinder.settings_mut();
            settings.weight = (settings.weight + step).clamp(1.0, MAX_WEIGHT);
            changed = Some(format!("heuristic weight: {:.1}", settings.weight));
        }
    }
    if let Some(text) = changed {
        notices.write(Notice::info(text));
    }
}

/// The item after (or with `back`, before) `current` in `all`, wrapping around.
fn cycle<T: Copy + PartialEq>(all: &[T], current: T, back: bool) -> T {
    let index = all.iter().position(|&t| t == current).unwrap_or(0);
    let next = if back { index + all.len() - 1 } else { index + 1 };
    all[next % all.len()]
}

/// "4" or "8".
pub fn moves_label(moves: Moves) -> &'static str {
    match moves {
        Moves::Four => "4",
        Moves::Eight => "8",
    }
}

/// A short description of a corner rule.
pub fn corners_label(corners: Corners) -> &'static str {
    match corners {
        Corners::Forbid => "no corner cutting",
        Corners::AllowOne => "cut one corner",
        Corners::Allow => "cut corners",
    }
}
