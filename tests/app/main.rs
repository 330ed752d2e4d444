//! Headless tests of the app: `MinimalPlugins` + Bevy's input + tilepath's logic plugins, a
//! manual clock, and input written as messages, exactly as the window would deliver it.
//! One test binary (every Bevy test binary costs a long link and ~1 GB of disk), one file per
//! feature; the helpers every feature's tests share are here.

use std::time::Duration;

use bevy::input::ButtonState;
use bevy::input::InputPlugin;
use bevy::input::keyboard::{Key, KeyboardInput};
use bevy::input::mouse::MouseButtonInput;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_gridpath::{Mover, NavGrid, PathStatus, Waypoints};
use gridpath::{Grid, Settings};
use gridpath::{Pos, Tile};
use tilepath::LogicPlugin;
use tilepath::edit::files::SaveDir;
use tilepath::input::pointer::HoverTile;
use tilepath::map::geometry::Geometry;
use tilepath::map::geometry::TILE_SIZE;
use tilepath::map::level::{MapInfo, MapSource};
use tilepath::map::problem::{Endpoints, SearchSettings};
use tilepath::notice::Notice;
use tilepath::search::plan::{PlanOutcome, PlanReport};
use tilepath::search::replay::{AnimationSpeed, SearchAnimation};
use tilepath::units::lab::{LabUnit, Reroutes, Unit};

/// Simulated frame time, in seconds.
const FRAME: f32 = 1.0 / 30.0;
/// Frames after which a walk that has not arrived counts as stuck.
const MAX_WALK_FRAMES: usize = 3000;

/// The app without window or renderer, on the map `source`, after its first frame.
fn test_app(source: MapSource) -> App {
    let mut app = unstarted_app(source);
    app.update();
    app
}

/// The app before its first frame. Searches are shown at once (no replay), so units set off
/// on the first frame as they did before the search animation existed; the animation tests
/// choose their own speed with [`animated_app`].
fn unstarted_app(source: MapSource) -> App {
    unstarted_app_at(source, AnimationSpeed::Instant)
}

fn unstarted_app_at(source: MapSource, speed: AnimationSpeed) -> App {
    let mut app = App::new();
    // Saves and autosaves go to a folder of the test's own, removed with the app.
    let save_dir = tempfile::tempdir().expect("a temporary save folder");
    app.add_plugins((MinimalPlugins, InputPlugin))
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f32(FRAME)))
        .insert_resource(source)
        .insert_resource(speed)
        .insert_resource(SaveDir(save_dir.path().to_path_buf()))
        .insert_resource(TempSaveDir(save_dir))
        .add_plugins(LogicPlugin);
    app
}

/// Keeps a test app's save folder alive as long as the app.
#[derive(Resource)]
struct TempSaveDir(#[expect(dead_code, reason = "held for its Drop: removes the folder")] tempfile::TempDir);

/// The test app's save folder.
fn save_dir(app: &App) -> std::path::PathBuf {
    app.world().resource::<SaveDir>().0.clone()
}

/// [`test_app`] with searches replayed at `rate` events per second, after its first frame.
fn animated_app(source: MapSource, rate: u32) -> App {
    let mut app = unstarted_app_at(source, AnimationSpeed::PerSecond(rate));
    app.update();
    app
}

/// [`test_app`] plus the HUD and the controls panel (UI nodes and their text only: no renderer
/// needed).
fn test_app_with_hud(source: MapSource) -> App {
    let mut app = unstarted_app(source);
    app.add_plugins((tilepath::ui::hud::plugin, tilepath::ui::panel::plugin));
    app.update();
    app
}

/// Updates `app` until the main route is no longer searched on its thread (maps above
/// `INLINE_PLAN_CELLS` are searched off the frame).
fn until_planned(app: &mut App) {
    for _ in 0..10_000 {
        if !app.world().resource::<tilepath::search::plan::PlanRunner>().is_planning() {
            return;
        }
        std::thread::sleep(Duration::from_millis(2));
        app.update();
    }
    panic!("the main route of a test map must be searched within seconds");
}

fn animation(app: &App) -> &SearchAnimation {
    app.world().resource::<SearchAnimation>()
}

/// Every line of text in the UI (a text's coloured spans follow it on the same line).
fn ui_text(app: &mut App) -> String {
    let mut texts = app.world_mut().query::<(&Text, Option<&Children>)>();
    let mut spans = app.world_mut().query::<&TextSpan>();
    texts
        .iter(app.world())
        .map(|(text, children)| {
            let tail = children.into_iter().flatten().filter_map(|&c| spans.get(app.world(), c).ok());
            std::iter::once(text.0.clone()).chain(tail.map(|s| s.0.clone())).collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A 12 × 8 map with a strip of cost-3 ground (tilepath's digit extension of the Moving AI
/// format): BFS and the wavefront would ignore its costs; JPS runs on it.
fn costly_map() -> MapSource {
    let rows = [
        "............",
        "............",
        "....3333....",
        "....3333....",
        "............",
        "............",
        "............",
        "............",
    ];
    MapSource::Text {
        name: "costly".into(),
        text: format!("type octile\nheight 8\nwidth 12\nmap\n{}\n", rows.join("\n")),
    }
}

/// An open map of `width` × `height` floor cells, start top-left, goal bottom-right.
fn open_map(width: usize, height: usize) -> MapSource {
    let row = ".".repeat(width);
    let text = vec![row; height].join("\n");
    MapSource::Text {
        name: "open".into(),
        text: format!("type octile\nheight {height}\nwidth {width}\nmap\n{text}\n"),
    }
}

/// The search problem as the app holds it: the map, the endpoints and the settings.
struct Problem<'a> {
    nav: &'a NavGrid,
    endpoints: Endpoints,
    settings: &'a Settings,
}

impl<'a> Problem<'a> {
    fn grid(&self) -> &'a Grid {
        self.nav.grid()
    }

    fn start(&self) -> Pos {
        self.endpoints.start
    }

    fn goal(&self) -> Pos {
        self.endpoints.goal
    }

    fn settings(&self) -> &'a Settings {
        self.settings
    }

    fn geometry(&self) -> Geometry {
        Geometry::of(self.nav.grid())
    }
}

fn pathfinder(app: &App) -> Problem<'_> {
    let world = app.world();
    Problem {
        nav: world.resource::<NavGrid>(),
        endpoints: *world.resource::<Endpoints>(),
        settings: &world.resource::<SearchSettings>().0,
    }
}

fn report(app: &App) -> &PlanReport {
    app.world().resource::<PlanReport>()
}

fn hover(app: &mut App, cell: Option<Pos>) {
    app.world_mut().resource_mut::<HoverTile>().0 = cell;
}

fn mouse(app: &mut App, button: MouseButton, state: ButtonState) {
    app.world_mut().write_message(MouseButtonInput { button, state, window: Entity::PLACEHOLDER });
}

fn key_message(key_code: KeyCode, state: ButtonState) -> KeyboardInput {
    KeyboardInput {
        key_code,
        logical_key: Key::Unidentified(bevy::input::keyboard::NativeKey::Unidentified),
        state,
        text: None,
        repeat: false,
        window: Entity::PLACEHOLDER,
    }
}

/// Presses and releases `key` over two frames.
fn tap_key(app: &mut App, key: KeyCode) {
    app.world_mut().write_message(key_message(key, ButtonState::Pressed));
    app.update();
    app.world_mut().write_message(key_message(key, ButtonState::Released));
    app.update();
}

/// Presses and releases `key` with Shift held, over two frames.
fn shift_tap_key(app: &mut App, key: KeyCode) {
    app.world_mut().write_message(key_message(KeyCode::ShiftLeft, ButtonState::Pressed));
    tap_key(app, key);
    app.world_mut().write_message(key_message(KeyCode::ShiftLeft, ButtonState::Released));
    app.update();
}

/// Drags with `button` through `cells`, one cursor sample per frame, then releases.
fn drag(app: &mut App, button: MouseButton, cells: &[Pos]) {
    let (first, rest) = cells.split_first().expect("a drag needs at least one cell");
    hover(app, Some(*first));
    mouse(app, button, ButtonState::Pressed);
    app.update();
    for &cell in rest {
        hover(app, Some(cell));
        app.update();
    }
    mouse(app, button, ButtonState::Released);
    app.update();
}

fn unit(app: &mut App) -> (Unit, Waypoints, PathStatus, Vec2) {
    let mut query = app.world_mut().query::<(&Unit, &Waypoints, &PathStatus, &Transform)>();
    let (unit, waypoints, status, transform) = query.single(app.world()).expect("exactly one unit");
    (unit.clone(), waypoints.clone(), status.clone(), transform.translation.truncate())
}

fn notices(app: &App) -> Vec<Notice> {
    app.world().resource::<Messages<Notice>>().iter_current_update_messages().cloned().collect()
}

fn walls(app: &App) -> Vec<Pos> {
    let grid = pathfinder(app).grid();
    grid.positions().filter(|&p| grid.tile(p) == Some(Tile::Wall)).collect()
}

/// Runs frames until the unit arrives, checking every frame that it stands on a passable cell
/// and moved no further than its speed allows. Returns the frames it took.
fn walk_to_arrival(app: &mut App) -> usize {
    for frame in 0..MAX_WALK_FRAMES {
        let (_, _, before_status, before) = unit(app);
        if before_status == PathStatus::Arrived {
            return frame;
        }
        assert!(
            !matches!(before_status, PathStatus::Failed(_)),
            "the unit should have a route, but: {before_status:?}"
        );
        app.update();
        let (unit_now, _, _, after) = unit(app);
        let geometry = pathfinder(app).geometry();
        let cell = geometry.cell_at(after).expect("the unit must stay on the map");
        assert!(
            pathfinder(app).grid().is_passable(cell),
            "the unit must never stand in a wall, but it is in {cell} (frame {frame})"
        );
        let speed = app.world_mut().query::<&Mover>().iter(app.world()).next().map_or(0.0, |m| m.speed);
        let max_step = speed * TILE_SIZE * FRAME + 1e-3;
        assert!(
            before.distance(after) <= max_step,
            "the unit must never teleport: it moved {} world units in one frame (max {max_step}), \
             to {cell} of {unit_now:?}",
            before.distance(after)
        );
    }
    panic!("the unit did not arrive within {MAX_WALK_FRAMES} frames: {:?}", unit(app).2);
}

mod animation;
mod controls;
mod crowd;
mod editing;
mod flow_view;
mod frame;
mod hud;
mod layout;
mod level;
mod maps_in_and_out;
mod monkey;
mod panel;
mod planning;
mod race;
mod scenario_replay;
mod script;
mod units;
mod window;
