//! The search animation: the main search's trace replayed event by event, so the player watches
//! the frontier grow and cells close. [`SearchAnimation`] is a plain state machine — restarted
//! with a new trace whenever the main route is re-planned, advanced in `Update` by elapsed time
//! at the [`AnimationSpeed`] (by default fast enough to end within [`AUTO_SECONDS`]), stepped,
//! paused and skipped by [`Control`]s — and knows nothing of drawing; the tile map reads it. A
//! unit whose route was just planned waits for the replay to end ([`search_shown`]).

use bevy::prelude::*;
use gridpath::{Pos, TraceEvent};

use crate::AppSystems;
use crate::input::bindings::{Control, ControlSystems};
use crate::map::level::MapLoaded;
use crate::map::problem::SearchProblem;
use crate::notice::Notice;
use crate::search::plan::{Explored, PlanReport, plan_main_route};

/// The replay rates the speed controls step through, in search events per second.
pub const RATES: [u32; 7] = [10, 30, 100, 300, 1_000, 3_000, 10_000];
/// The slowest rate of the automatic speed, in search events per second: small searches replay
/// at this pace, slow enough to follow.
pub const DEFAULT_RATE: u32 = 300;
/// The longest an automatic replay takes, in seconds, whatever the search's size: a unit on a
/// big map never waits minutes for its first step.
pub const AUTO_SECONDS: f64 = 3.0;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<SearchAnimation>();
    app.init_resource::<AnimationSpeed>();
    app.add_systems(
        Update,
        control_animation.run_if(on_message::<Control>).in_set(AppSystems::RecordInput).after(ControlSystems),
    );
    app.add_systems(
        Update,
        (
            play_after_map_load.run_if(on_message::<MapLoaded>),
            restart_animation.run_if(resource_changed::<PlanReport>),
            play_animation.run_if(animation_playing),
        )
            .chain()
            .after(plan_main_route)
            .in_set(AppSystems::Plan),
    );
}

/// How fast searches are replayed.
#[derive(Resource, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum AnimationSpeed {
    /// [`DEFAULT_RATE`] events per second, or faster when that would take longer than
    /// [`AUTO_SECONDS`]: every replay ends within a few seconds.
    #[default]
    Auto,
    /// This many search events per second, however long the replay takes.
    PerSecond(u32),
    /// No replay: every search is shown finished at once.
    Instant,
}

impl AnimationSpeed {
    /// The rate a replay of `total` events plays at, in events per second; `None` when instant.
    pub fn rate(self, total: usize) -> Option<u32> {
        match self {
            AnimationSpeed::Auto => {
                // Float to count: a trace's length is far below 2^52 and the quotient positive.
                let needed = (total as f64 / AUTO_SECONDS).ceil() as u32;
                Some(needed.max(DEFAULT_RATE))
            }
            AnimationSpeed::PerSecond(rate) => Some(rate),
            AnimationSpeed::Instant => None,
        }
    }

    /// One step faster than the rate the replay of `total` events plays at now: the next of
    /// [`RATES`] above it; past the fastest rate, instant.
    pub fn faster(self, total: usize) -> Self {
        let Some(now) = self.rate(total) else { return AnimationSpeed::Instant };
        RATES.iter().find(|&&r| r > now).map_or(AnimationSpeed::Instant, |&r| AnimationSpeed::PerSecond(r))
    }

    /// One step slower than the rate the replay of `total` events plays at now: the next of
    /// [`RATES`] below it (never below the slowest); from instant, the fastest rate.
    pub fn slower(self, total: usize) -> Self {
        let Some(now) = self.rate(total) else { return AnimationSpeed::PerSecond(RATES[RATES.len() - 1]) };
        AnimationSpeed::PerSecond(RATES.iter().rev().find(|&&r| r < now).copied().unwrap_or(RATES[0]))
    }

    /// The rate a replay of `total` events plays at, for the HUD ("300 events/s", "instant").
    pub fn rate_label(self, total: usize) -> String {
        self.rate(total).map_or_else(|| "instant".to_owned(), |rate| format!("{rate} events/s"))
    }

    /// A few words for the HUD and the panel ("auto", "300 events/s", "instant").
    pub fn label(self) -> String {
        match self {
            AnimationSpeed::Auto => format!("auto (<= {AUTO_SECONDS:.0} s)"),
            AnimationSpeed::PerSecond(rate) => format!("{rate} events/s"),
            AnimationSpeed::Instant => "instant".to_owned(),
        }
    }
}

/// Bit of [`SearchAnimation`]'s cell state: the cell is on the open list.
const OPEN: u8 = 1;
/// Bit of a cell state: the cell was expanded (closed).
const CLOSED: u8 = 2;
/// Bit of a cell state: JPS found a jump point here.
const JUMP: u8 = 4;

/// What a cell looks like at the current point of the replay.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CellState(u8);

impl CellState {
    /// On the open list (the frontier).
    pub fn is_open(self) -> bool {
        self.0 & OPEN != 0
    }

    /// Expanded (visited).
    pub fn is_closed(self) -> bool {
        self.0 & CLOSED != 0
    }

    /// A JPS jump point.
    pub fn is_jump_point(self) -> bool {
        self.0 & JUMP != 0
    }
}

/// The replay of the latest main search: a trace, how much of it is applied, and the state of
/// every cell after those events.
///
/// Cell states follow [`Explored::from_trace`] exactly: `Opened` puts a cell on the frontier,
/// `Closed` moves it to the visited cells, `Updated` and `Direction` change no tint, `JumpPoint`
/// marks the cell.
#[derive(Resource, Debug, Default)]
pub struct SearchAnimation {
    events: Vec<TraceEvent>,
    /// Events applied so far: `events[..applied]`.
    applied: usize,
    /// Map width in cells (cell states are row-major).
    width: u32,
    cells: Vec<CellState>,
    /// Cells changed by the applied events, in order (one per applied event that names a cell).
    touched: Vec<Pos>,
    /// Jump points found so far, in order.
    jump_points: Vec<Pos>,
    /// Replays started since start-up; a drawing that remembers it knows when to start over.
    restarts: u64,
    /// The player paused the replay. Kept across restarts: a player stepping through a search
    /// keeps stepping through the re-planned one.
    paused: bool,
    /// Events owed to the clock but not applied yet: the fraction of one event.
    owed: f64,
}

impl SearchAnimation {
    /// Starts replaying `events` on a `width` × `height` map from the first event; the pause
    /// state is kept.
    pub fn restart(&mut self, events: Vec<TraceEvent>, width: u32, height: u32) {
        self.events = events;
        self.applied = 0;
        self.width = width;
        self.cells.clear();
        self.cells.resize(width as usize * height as usize, CellState::default());
        self.touched.clear();
        self.jump_points.clear();
        self.restarts += 1;
        self.owed = 0.0;
    }

    /// Applies the next event and returns it; `None` at the end.
    pub fn step(&mut self) -> Option<TraceEvent> {
        let event = *self.events.get(self.applied)?;
        self.applied += 1;
        let (pos, set, clear) = match event {
            TraceEvent::Opened { pos, .. } => (pos, OPEN, 0),
            TraceEvent::Closed { pos } => (pos, CLOSED, OPEN),
            TraceEvent::JumpPoint { pos } => {
                self.jump_points.push(pos);
                (pos, JUMP, 0)
            }
            TraceEvent::Updated { .. } | TraceEvent::Direction { .. } => return Some(event),
        };
        if let Some(index) = self.index(pos) {
            let cell = &mut self.cells[index];
            cell.0 = (cell.0 & !clear) | set;
            self.touched.push(pos);
        }
        Some(event)
    }

    /// Applies every remaining event.
    pub fn finish(&mut self) {
        while self.step().is_some() {}
        self.owed = 0.0;
    }

    /// Lets `seconds` of replay time pass at `rate` events per second: applies every event
    /// that became due (fractions carry over to the next call). Returns how many were applied.
    pub fn advance(&mut self, seconds: f64, rate: u32) -> usize {
        self.owed += seconds.max(0.0) * f64::from(rate);
        let due = self.owed.floor();
        self.owed -= due;
        let remaining = self.events.len() - self.applied;
        // Float to count: `due` is whole and non-negative, and capped by what remains.
        let count = if due >= remaining as f64 { remaining } else { due as usize };
        for _ in 0..count {
            self.step();
        }
        if self.is_finished() {
            self.owed = 0.0;
        }
        count
    }

    /// `true` when every event is applied (also for an empty trace).
    pub fn is_finished(&self) -> bool {
        self.applied == self.events.len()
    }

    /// `true` while the player paused the replay.
    pub fn is_paused(&self) -> bool {
        self.paused
    }

    /// Pauses or resumes the replay.
    pub fn set_paused(&mut self, paused: bool) {
        self.paused = paused;
    }

    /// Events applied so far.
    pub fn applied(&self) -> usize {
        self.applied
    }

    /// Events in the trace.
    pub fn total(&self) -> usize {
        self.events.len()
    }

    /// The events applied so far, in order.
    pub fn applied_events(&self) -> &[TraceEvent] {
        &self.events[..self.applied]
    }

    /// Replays started since start-up.
    pub fn restarts(&self) -> u64 {
        self.restarts
    }

    /// The state of `cell` now (the default state off the map).
    pub fn cell(&self, cell: Pos) -> CellState {
        self.index(cell).map_or_else(CellState::default, |i| self.cells[i])
    }

    /// Cells changed by the applied events, in the order of the events (with repeats).
    pub fn touched(&self) -> &[Pos] {
        &self.touched
    }

    /// Jump points found so far.
    pub fn jump_points(&self) -> &[Pos] {
        &self.jump_points
    }

    /// The frontier and visited cells now, as [`Explored`] (equal to
    /// `Explored::from_trace(self.applied_events())`).
    pub fn explored(&self) -> Explored {
        let mut explored = Explored::default();
        for &cell in &self.touched {
            let state = self.cell(cell);
            if state.is_open() {
                explored.frontier.insert(cell);
            }
            if state.is_closed() {
                explored.visited.insert(cell);
            }
        }
        explored
    }

    fn index(&self, cell: Pos) -> Option<usize> {
        let index = cell.y as usize * self.width as usize + cell.x as usize;
        (cell.x < self.width && index < self.cells.len()).then_some(index)
    }
}

/// Run condition: the latest main search has been shown to the end, so units may walk.
pub fn search_shown(animation: Res<SearchAnimation>) -> bool {
    animation.is_finished()
}

/// Run condition: the replay runs (neither finished nor paused).
fn animation_playing(animation: Res<SearchAnimation>) -> bool {
    !animation.is_finished() && !animation.is_paused()
}

/// Starts replaying the new main search (in instant mode: shows it finished at once).
fn restart_animation(
    report: Res<PlanReport>,
    problem: SearchProblem,
    speed: Res<AnimationSpeed>,
    mut animation: ResMut<SearchAnimation>,
) {
    let grid = problem.grid();
    animation.restart(report.trace.clone(), grid.width(), grid.height());
    if *speed == AnimationSpeed::Instant {
        animation.finish();
    }
}

/// Advances the replay by the frame's time at the current speed.
fn play_animation(time: Res<Time>, speed: Res<AnimationSpeed>, mut animation: ResMut<SearchAnimation>) {
    match speed.rate(animation.total()) {
        Some(rate) => {
            animation.advance(time.delta_secs_f64(), rate);
        }
        None => animation.finish(),
    }
}

/// A new map plays its search: a pause the player chose for the previous map's replay would
/// otherwise leave the unit on the new map waiting for a replay that never advances.
fn play_after_map_load(mut animation: ResMut<SearchAnimation>) {
    animation.set_paused(false);
}

/// Applies the playback controls: speed, play/pause, single step, skip.
fn control_animation(
    mut controls: MessageReader<Control>,
    mut animation: ResMut<SearchAnimation>,
    mut speed: ResMut<AnimationSpeed>,
    report: Res<PlanReport>,
    problem: SearchProblem,
    mut notices: MessageWriter<Notice>,
) {
    for &control in controls.read() {
        match control {
            Control::AnimationSlower
            | Control::AnimationFaster
            | Control::AnimationInstant
            | Control::AnimationAuto => {
                let total = animation.total();
                let new = match control {
                    Control::AnimationSlower => speed.slower(total),
                    Control::AnimationFaster => speed.faster(total),
                    Control::AnimationAuto => AnimationSpeed::Auto,
                    _ => AnimationSpeed::Instant,
                };
                speed.set_if_neq(new);
                if new == AnimationSpeed::Instant {
                    animation.finish();
                }
                notices.write(Notice::info(format!("search animation: {}", new.label())));
            }
            Control::PlayPause if animation.is_finished() => {
                // Watch it again: replay the same search from its first event.
                let grid = problem.grid();
                animation.restart(report.trace.clone(), grid.width(), grid.height());
                animation.set_paused(false);
                if *speed == AnimationSpeed::Instant {
                    animation.finish();
                }
            }
            Control::PlayPause => {
                let paused = !animation.is_paused();
                animation.set_paused(paused);
                notices.write(Notice::info(if paused { "paused: N steps, Space plays" } else { "playing" }));
            }
            Control::StepEvent => {
                animation.set_paused(true);
                if animation.step().is_none() {
                    notices.write(Notice::info("the search animation is at its end: Space replays it"));
                }
            }
            Control::SkipAnimation => animation.finish(),
            _ => {}
        }
    }
}
