//! `bevy_gridpath`'s tests, headless: `MinimalPlugins`, the plugin, a manual time step.

use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_gridpath::gridpath::formats::parse_map;
use bevy_gridpath::prelude::*;
use bevy_gridpath::{PlanQueue, gridpath};

mod avoid;
mod chunks;
mod flow;
mod minimal;
mod mover;
mod off_frame;
mod plan;
mod subgoal;

/// Side of a cell in the tests' worlds.
const TILE: f32 = 10.0;
/// The frame time the tests step.
const FRAME: Duration = Duration::from_millis(50);

/// An app with the plugin on `map` (ASCII: `#` wall, `.` ground, digits terrain costs).
fn app_on(map: &str) -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, GridPathPlugin));
    app.insert_resource(TimeUpdateStrategy::ManualDuration(FRAME));
    app.insert_resource(NavGrid::centered(grid(map), TILE));
    // The first update only starts the clock.
    app.update();
    app
}

fn grid(map: &str) -> Grid {
    parse_map(map).expect("test maps parse").grid
}

fn nav(app: &App) -> &NavGrid {
    app.world().resource::<NavGrid>()
}

fn center(app: &App, cell: Pos) -> Vec3 {
    nav(app).cell_center(cell).extend(0.0)
}

/// Spawns an entity standing on `at` with `bundle`.
fn spawn_at(app: &mut App, at: Pos, bundle: impl Bundle) -> Entity {
    let translation = center(app, at);
    app.world_mut().spawn((Transform::from_translation(translation), bundle)).id()
}

fn status(app: &App, entity: Entity) -> PathStatus {
    app.world().get::<PathStatus>(entity).cloned().expect("the entity has a status")
}

fn route(app: &App, entity: Entity) -> Vec<Pos> {
    app.world().get::<Waypoints>(entity).expect("the entity has waypoints").iter().map(|w| w.cell).collect()
}

fn cell_of(app: &App, entity: Entity) -> Option<Pos> {
    let at = app.world().get::<Transform>(entity).expect("the entity has a transform").translation;
    nav(app).cell_at(at.truncate())
}

fn queue(app: &App) -> &PlanQueue {
    app.world().resource::<PlanQueue>()
}

/// Runs frames until `done` holds (at most `frames`); returns how many ran.
fn run_until(app: &mut App, frames: usize, done: impl Fn(&App) -> bool) -> usize {
    for frame in 0..frames {
        if done(app) {
            return frame;
        }
        app.update();
    }
    assert!(done(app), "the condition must hold within {frames} frames");
    frames
}

/// Checks that `cells` is a walk of legal steps under the default rules, from a neighbour of
/// (or on) `from`.
fn assert_legal_route(app: &App, from: Pos, cells: &[Pos]) {
    let grid = nav(app).grid();
    let mut at = from;
    for &cell in cells {
        assert!(
            at == cell || grid.can_step(at, cell, gridpath::Rules::OCTILE),
            "route step {at} -> {cell} must be a legal move"
        );
        at = cell;
    }
}
