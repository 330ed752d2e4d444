//! tilepath's app as a library: the game logic ([`LogicPlugin`]) runs headless in tests, the
//! presentation ([`PresentPlugin`]) adds the tile map, camera, cursor, sprites and HUD on top.
//!
//! Every frame runs the [`AppSystems`] chain in `Update`: input is recorded and edits are
//! applied, routes are planned (and the search replay advances), units move, and the result is
//! presented.

use bevy::app::{FixedMainScheduleOrder, MainScheduleOrder, TaskPoolThreadAssignmentPolicy};
use bevy::ecs::schedule::SingleThreadedExecutor;
use bevy::prelude::*;

// Features, in the one direction their imports run: map -> input -> edit -> search -> units
// -> view -> ui -> dev (the app test `feature_folders_import_one_way` checks it). Public are the
// folders and files main.rs, the tests and the benches use; the rest (theme, view, the brushes'
// state, steering, selection) is crate-private.
pub mod cli;
pub mod dev;
pub mod edit;
pub mod input;
pub mod map;
pub mod notice;
pub mod search;
mod theme;
pub mod ui;
pub mod units;
pub mod view;

/// The stages of a frame, in order. Feature plugins put their `Update` systems in one of these.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AppSystems {
    /// Read the mouse and keyboard; apply edits to the map, the endpoints and the settings.
    RecordInput,
    /// Plan routes for whatever changed.
    Plan,
    /// Move units along their routes.
    Move,
    /// Bring the screen up to date: tiles, markers, sprites, HUD.
    Present,
}

/// Bevy's task pools as this app wants them: at least two compute threads. Bevy's defaults
/// give a quarter of the cores each to IO and async compute (at least one thread each) and the
/// rest to compute, so on a 2-core machine the compute pool has one thread. Under Bevy's
/// multi-threaded executor the thread that opens a scope does not take the scope's tasks, and
/// work split over the pool (the crowd's wishes and avoidance) ran on one core. `LogicPlugin`
/// runs the schedules single-threaded (`run_systems_in_turn`), whose main thread does take them:
/// with one compute thread the game's `flow` frame measured the same as with two, but a game
/// built on `bevy_gridpath` with the default executor (the `plugin-flow` benchmark) needs the
/// two. Add it with `DefaultPlugins.set(…)` or `MinimalPlugins.set(…)`.
#[must_use]
pub fn task_pool_plugin() -> TaskPoolPlugin {
    let defaults = TaskPoolOptions::default();
    let compute = TaskPoolThreadAssignmentPolicy { min_threads: 2, ..defaults.compute.clone() };
    TaskPoolPlugin { task_pool_options: TaskPoolOptions { compute, ..defaults } }
}

/// Everything that decides what happens, without any window or renderer: the level, editing and
/// brushes, controls, planning (also asynchronous), the search replay, the race, the lab's unit
/// and crowds (selection, orders, flow fields, steering). Needs `MinimalPlugins` (or
/// `DefaultPlugins`) and Bevy's `InputPlugin`.
pub struct LogicPlugin;

impl Plugin for LogicPlugin {
    fn build(&self, app: &mut App) {
        app.configure_sets(
            Update,
            (AppSystems::RecordInput, AppSystems::Plan, AppSystems::Move, AppSystems::Present).chain(),
        );
        // The pathfinding any game can add: the lab's unit and the crowds are its users.
        app.add_plugins(bevy_gridpath::GridPathPlugin);
        app.configure_sets(
            Update,
            (
                (bevy_gridpath::GridPathSystems::Request, bevy_gridpath::GridPathSystems::Plan)
                    .in_set(AppSystems::Plan),
                bevy_gridpath::GridPathSystems::Move.in_set(AppSystems::Move),
            ),
        );
        app.add_plugins((
            notice::plugin,
            map::plugin,
            input::plugin,
            edit::plugin,
            search::plugin,
            units::plugin,
        ));
        run_systems_in_turn(app);
    }
}

/// Runs the systems of every schedule of a frame (`First` to `Last`, and the fixed-step ones)
/// one after another on the schedule's thread, with Bevy's single-threaded executor instead of
/// the multi-threaded one. Why: a frame's heavy work already spreads itself over the compute
/// pool (the crowd's wishes and avoidance, in tasks), and the systems left are small and mostly
/// chained; handing each to a pool thread and waking the executor when it ends cost more than
/// running them side by side saved. Always, whatever the cores: measured on 2 (headless, the
/// `flow` benchmark's 10,000-unit frame: median 4.55–5.02 against 5.05–6.22 ms over 6
/// alternating runs; whole process 0.90× the wall time and 0.91× the CPU time, a third of the
/// system time, over 10; November 2026), where the crowd's passes are the frame.
fn run_systems_in_turn(app: &mut App) {
    let mut labels =
        app.world().get_resource::<MainScheduleOrder>().map(|order| order.labels.clone()).unwrap_or_default();
    if let Some(fixed) = app.world().get_resource::<FixedMainScheduleOrder>() {
        labels.extend(fixed.labels.iter().copied());
    }
    for label in labels {
        app.edit_schedule(label, |schedule| {
            schedule.set_executor(SingleThreadedExecutor::new());
        });
    }
}

/// What the player sees and the window-side input: needs `DefaultPlugins` and [`LogicPlugin`].
/// The HUD and the controls panel only spawn UI nodes, so headless tests add them on their own.
pub struct PresentPlugin;

impl Plugin for PresentPlugin {
    fn build(&self, app: &mut App) {
        // The frame rate the HUD shows with F12.
        app.add_plugins(bevy::diagnostic::FrameTimeDiagnosticsPlugin::default());
        app.add_plugins((view::plugin, ui::plugin));
    }
}
