//! Headless tests of the app: `MinimalPlugins` + Bevy's input + tilepath's logic plugins, a
//! manual clock, and input written as messages, exactly as the window would deliver it.
//! One file with modules: every Bevy test binary costs a long link and ~1 GB of disk.

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
/// format): JPS cannot run on it.
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

mod editing {
    use super::*;
    use bevy_gridpath::GridChanged;
    use tilepath::edit::paint::{Drag, line_cells};

    #[test]
    fn line_cells_are_4_connected_and_end_at_both_samples() {
        for (a, b) in
            [((2, 3), (25, 14)), ((10, 10), (0, 0)), ((5, 1), (5, 9)), ((0, 7), (13, 7)), ((3, 3), (3, 3))]
        {
            let (a, b) = (Pos::new(a.0, a.1), Pos::new(b.0, b.1));
            let cells = line_cells(a, b);
            assert_eq!(cells.first(), Some(&a), "the line must start at the first sample");
            assert_eq!(cells.last(), Some(&b), "the line must end at the second sample");
            for pair in cells.windows(2) {
                let d = pair[0].x.abs_diff(pair[1].x) + pair[0].y.abs_diff(pair[1].y);
                assert_eq!(d, 1, "consecutive line cells must share an edge: {pair:?}");
            }
            let expected_len = a.x.abs_diff(b.x) + a.y.abs_diff(b.y) + 1;
            assert_eq!(cells.len(), expected_len as usize, "no cell may repeat");
        }
    }

    #[test]
    fn fast_drag_paints_every_cell_between_samples() {
        let mut app = test_app(open_map(30, 20));
        let (a, b) = (Pos::new(2, 3), Pos::new(25, 14));
        // Two cursor samples, one frame apart, 23 columns and 11 rows apart.
        drag(&mut app, MouseButton::Left, &[a, b]);
        let expected = line_cells(a, b);
        for cell in &expected {
            assert_eq!(
                pathfinder(&app).grid().tile(*cell),
                Some(Tile::Wall),
                "the cell {cell} between the samples should be painted"
            );
        }
        assert_eq!(walls(&app).len(), expected.len(), "only the dragged line should be painted");
        assert_eq!(*app.world().resource::<Drag>(), Drag::Idle, "releasing ends the stroke");
    }

    #[test]
    fn a_stroke_over_several_frames_has_no_gaps() {
        let mut app = test_app(open_map(30, 20));
        let samples = [Pos::new(3, 15), Pos::new(9, 4), Pos::new(20, 12), Pos::new(27, 2)];
        drag(&mut app, MouseButton::Left, &samples);
        for pair in samples.windows(2) {
            for cell in line_cells(pair[0], pair[1]) {
                assert!(!pathfinder(&app).grid().is_passable(cell), "{cell} should be a wall");
            }
        }
    }

    #[test]
    fn right_drag_erases_walls() {
        let mut app = test_app(open_map(30, 20));
        drag(&mut app, MouseButton::Left, &[Pos::new(5, 5), Pos::new(20, 5)]);
        assert_eq!(walls(&app).len(), 16);
        drag(&mut app, MouseButton::Right, &[Pos::new(8, 5), Pos::new(12, 5)]);
        assert_eq!(walls(&app).len(), 11, "the right-dragged cells should be floor again");
        assert_eq!(pathfinder(&app).grid().tile(Pos::new(10, 5)), Some(Tile::FLOOR));
    }

    #[test]
    fn walls_are_refused_on_the_start_the_goal_and_the_unit() {
        let mut app = test_app(open_map(30, 20));
        let goal = pathfinder(&app).goal();
        // A stroke through the goal paints around it and says why the goal was skipped.
        hover(&mut app, Some(Pos::new(goal.x - 3, goal.y)));
        mouse(&mut app, MouseButton::Left, ButtonState::Pressed);
        app.update();
        hover(&mut app, Some(goal));
        app.update();
        assert!(pathfinder(&app).grid().is_passable(goal), "the goal must stay free");
        assert!(
            notices(&app).iter().any(|n| n.text.contains("goal")),
            "the HUD should say why the goal was not painted, got {:?}",
            notices(&app)
        );
        mouse(&mut app, MouseButton::Left, ButtonState::Released);
        app.update();
        assert!(!pathfinder(&app).grid().is_passable(Pos::new(goal.x - 1, goal.y)));

        // A click on the unit's cell.
        let (walker, ..) = unit(&mut app);
        for cell in walker.occupied().collect::<Vec<_>>() {
            drag(&mut app, MouseButton::Left, &[cell]);
            let (walker_now, ..) = unit(&mut app);
            for occupied in walker_now.occupied() {
                assert!(
                    pathfinder(&app).grid().is_passable(occupied),
                    "no wall under the unit at {occupied}"
                );
            }
        }
        // The start cannot be painted either (a left press on it grabs the marker instead).
        let start = pathfinder(&app).start();
        drag(&mut app, MouseButton::Left, &[Pos::new(start.x, start.y + 2), start]);
        assert!(pathfinder(&app).grid().is_passable(start), "the start must stay free");
    }

    #[test]
    fn keys_s_and_g_place_the_endpoints_under_the_cursor() {
        let mut app = test_app(open_map(30, 20));
        hover(&mut app, Some(Pos::new(4, 6)));
        tap_key(&mut app, KeyCode::KeyS);
        assert_eq!(pathfinder(&app).start(), Pos::new(4, 6), "S should put the start under the cursor");
        hover(&mut app, Some(Pos::new(17, 11)));
        tap_key(&mut app, KeyCode::KeyG);
        assert_eq!(pathfinder(&app).goal(), Pos::new(17, 11), "G should put the goal under the cursor");
        let (walker, ..) = unit(&mut app);
        assert_eq!(walker.cell(), Pos::new(4, 6), "a moved start puts the unit there");
    }

    #[test]
    fn endpoints_are_refused_on_walls_and_on_each_other() {
        let mut app = test_app(open_map(30, 20));
        drag(&mut app, MouseButton::Left, &[Pos::new(8, 8)]);
        let start = pathfinder(&app).start();
        hover(&mut app, Some(Pos::new(8, 8)));
        tap_key(&mut app, KeyCode::KeyS);
        assert_eq!(pathfinder(&app).start(), start, "the start must not move onto a wall");
        let goal = pathfinder(&app).goal();
        hover(&mut app, Some(goal));
        tap_key(&mut app, KeyCode::KeyS);
        assert_eq!(pathfinder(&app).start(), start, "the start must not move onto the goal");
    }

    #[test]
    fn dragging_the_markers_moves_them() {
        let mut app = test_app(open_map(30, 20));
        let goal = pathfinder(&app).goal();
        let path = [goal, Pos::new(25, 17), Pos::new(20, 15), Pos::new(15, 12)];
        drag(&mut app, MouseButton::Left, &path);
        assert_eq!(pathfinder(&app).goal(), Pos::new(15, 12), "the goal should follow the drag");
        let start = pathfinder(&app).start();
        drag(&mut app, MouseButton::Left, &[start, Pos::new(3, 9)]);
        assert_eq!(pathfinder(&app).start(), Pos::new(3, 9), "the start should follow the drag");
        assert!(walls(&app).is_empty(), "dragging a marker must not paint");
    }

    #[test]
    fn a_click_outside_the_map_does_nothing() {
        let mut app = test_app(open_map(30, 20));
        let revision = pathfinder(&app).grid().revision();
        hover(&mut app, None);
        mouse(&mut app, MouseButton::Left, ButtonState::Pressed);
        app.update();
        // Even moving onto the map with the button still held does not start a stroke.
        hover(&mut app, Some(Pos::new(10, 10)));
        app.update();
        mouse(&mut app, MouseButton::Left, ButtonState::Released);
        app.update();
        assert_eq!(pathfinder(&app).grid().revision(), revision, "the map must be unchanged");
    }

    #[test]
    fn c_clears_walls_and_r_makes_a_seeded_random_map() {
        let mut app = test_app(MapSource::BuiltIn);
        tap_key(&mut app, KeyCode::KeyR);
        let first = walls(&app);
        assert!(first.len() > 50, "a random map should have walls, got {}", first.len());
        let pf = pathfinder(&app);
        assert!(pf.grid().is_passable(pf.start()) && pf.grid().is_passable(pf.goal()));
        let (walker, ..) = unit(&mut app);
        assert!(pathfinder(&app).grid().is_passable(walker.cell()), "no wall on the unit");

        // The same key sequence in a fresh app gives the same map.
        let mut again = test_app(MapSource::BuiltIn);
        tap_key(&mut again, KeyCode::KeyR);
        assert_eq!(walls(&again), first, "random maps must be reproducible");

        tap_key(&mut app, KeyCode::KeyC);
        assert!(walls(&app).is_empty(), "C should clear every wall");
    }

    #[test]
    fn edits_report_the_changed_cells() {
        let mut app = test_app(open_map(30, 20));
        hover(&mut app, Some(Pos::new(6, 6)));
        mouse(&mut app, MouseButton::Left, ButtonState::Pressed);
        app.update();
        let edits: Vec<GridChanged> =
            app.world().resource::<Messages<GridChanged>>().iter_current_update_messages().cloned().collect();
        assert_eq!(edits, vec![GridChanged::Cells(vec![Pos::new(6, 6)])]);
    }
}

mod planning {
    use super::*;
    use gridpath::{Algorithm, SearchError};

    #[test]
    fn the_first_frame_plans_the_builtin_route() {
        let app = test_app(MapSource::BuiltIn);
        let PlanOutcome::Found { path, .. } = &report(&app).outcome else {
            panic!("the built-in map should have a route, got {:?}", report(&app).outcome);
        };
        let pf = pathfinder(&app);
        assert_eq!(path.cells.first(), Some(&pf.start()));
        assert_eq!(path.cells.last(), Some(&pf.goal()));
        assert_eq!(report(&app).plans, 1);
    }

    #[test]
    fn changing_a_setting_replans_exactly_once() {
        let mut app = test_app(MapSource::BuiltIn);
        for _ in 0..10 {
            app.update();
        }
        let before = report(&app).plans;
        assert_eq!(before, 1, "nothing changed, so nothing should be re-planned");
        tap_key(&mut app, KeyCode::Tab);
        for _ in 0..10 {
            app.update();
        }
        assert_eq!(
            pathfinder(&app).settings().algorithm,
            Algorithm::Dijkstra,
            "Tab selects the next algorithm"
        );
        assert_eq!(report(&app).plans, before + 1, "one setting change must cause exactly one re-plan");
    }

    #[test]
    fn moving_the_goal_replans_once_and_painting_replans_once() {
        let mut app = test_app(open_map(30, 20));
        let before = report(&app).plans;
        hover(&mut app, Some(Pos::new(12, 12)));
        tap_key(&mut app, KeyCode::KeyG);
        app.update();
        assert_eq!(report(&app).plans, before + 1);
        drag(&mut app, MouseButton::Left, &[Pos::new(20, 2)]);
        app.update();
        assert_eq!(report(&app).plans, before + 2);
        // Painting over an existing wall changes nothing, so plans nothing.
        drag(&mut app, MouseButton::Left, &[Pos::new(20, 2)]);
        assert_eq!(report(&app).plans, before + 2);
    }

    #[test]
    fn unsupported_settings_are_refused_or_reported_not_ignored() {
        let mut app = test_app(MapSource::BuiltIn);
        while pathfinder(&app).settings().algorithm != Algorithm::Jps {
            tap_key(&mut app, KeyCode::Tab);
        }
        assert!(matches!(report(&app).outcome, PlanOutcome::Found { .. }), "JPS runs on the built-in map");
        // 4 moves would break JPS: refused, with the reason.
        app.world_mut().write_message(key_message(KeyCode::KeyM, ButtonState::Pressed));
        app.update();
        assert_eq!(
            pathfinder(&app).settings().rules.moves,
            gridpath::Moves::Eight,
            "M must be refused under JPS"
        );
        assert!(
            notices(&app).iter().any(|n| n.text.contains("JPS needs 8-connected moves")),
            "the refusal must say why: {:?}",
            notices(&app)
        );
        app.world_mut().write_message(key_message(KeyCode::KeyM, ButtonState::Released));
        app.update();

        // A map with terrain costs: JPS cannot run, and the search says why.
        let mut app = test_app(costly_map());
        tap_key(&mut app, KeyCode::F5);
        assert_eq!(pathfinder(&app).settings().algorithm, Algorithm::AStar, "F5 must not pick JPS here");
        // Tab skips JPS (and says so) rather than picking a search that cannot run.
        for _ in 0..Algorithm::ALL.len() {
            tap_key(&mut app, KeyCode::Tab);
            assert_ne!(pathfinder(&app).settings().algorithm, Algorithm::Jps, "Tab must skip JPS here");
        }
        assert!(
            matches!(report(&app).outcome, PlanOutcome::Found { .. }),
            "every algorithm Tab picks must run: {:?}",
            report(&app).outcome
        );
        assert!(
            !matches!(report(&app).outcome, PlanOutcome::Failed(SearchError::Unsupported { .. })),
            "no unsupported search is ever planned from the keys"
        );
    }

    #[test]
    fn the_search_records_visited_and_frontier_cells() {
        let app = test_app(MapSource::BuiltIn);
        let explored = &report(&app).explored;
        assert!(explored.visited.len() > 40, "A* should have expanded cells");
        assert!(explored.visited.contains(&pathfinder(&app).start()));
        assert!(explored.frontier.is_disjoint(&explored.visited));
    }
}

mod units {
    use super::*;
    use tilepath::map::level::{BUILTIN_GOAL, BUILTIN_START};

    #[test]
    fn unit_walks_the_builtin_map_to_the_goal_on_passable_cells() {
        let mut app = test_app(MapSource::BuiltIn);
        let (walker, waypoints, status, at) = unit(&mut app);
        assert_eq!(walker.cell(), BUILTIN_START);
        assert_eq!(status, PathStatus::Following);
        assert_eq!(waypoints.back().map(|w| w.cell), Some(BUILTIN_GOAL));
        assert_eq!(at, pathfinder(&app).geometry().cell_center(BUILTIN_START));
        let frames = walk_to_arrival(&mut app);
        let (walker, waypoints, status, at) = unit(&mut app);
        assert_eq!(status, PathStatus::Arrived);
        assert_eq!(walker.cell(), BUILTIN_GOAL, "the unit should stand on the goal");
        assert!(waypoints.is_empty());
        assert_eq!(at, pathfinder(&app).geometry().cell_center(BUILTIN_GOAL));
        // It idles there.
        for _ in 0..30 {
            app.update();
        }
        assert_eq!(unit(&mut app).3, at, "an arrived unit stays put");
        assert!(frames > 100, "a ~50-cell route at 5 tiles/s takes seconds, took {frames} frames");
    }

    #[test]
    fn wall_painted_across_the_route_mid_walk_reroutes_and_still_arrives() {
        let mut app = test_app(MapSource::BuiltIn);
        for _ in 0..20 {
            app.update();
        }
        let (_, waypoints, ..) = unit(&mut app);
        let target = waypoints[5].cell;
        // A three-cell wall across the route, perpendicular to the step into `target`.
        let before = waypoints[4].cell;
        let across: Vec<Pos> = if before.y == target.y {
            vec![Pos::new(target.x, target.y.saturating_sub(1)), Pos::new(target.x, target.y + 1)]
        } else {
            vec![Pos::new(target.x.saturating_sub(1), target.y), Pos::new(target.x + 1, target.y)]
        };
        let reroutes = app.world().resource::<Reroutes>().0;
        drag(&mut app, MouseButton::Left, &across);
        assert!(!pathfinder(&app).grid().is_passable(target), "the stroke should wall off {target}");
        assert!(app.world().resource::<Reroutes>().0 > reroutes, "the unit should re-plan");
        let (_, waypoints, status, _) = unit(&mut app);
        assert_eq!(status, PathStatus::Following);
        assert!(
            waypoints.iter().all(|w| pathfinder(&app).grid().is_passable(w.cell)),
            "the new route must avoid the new wall"
        );
        walk_to_arrival(&mut app);
        assert_eq!(unit(&mut app).0.cell(), BUILTIN_GOAL);
    }

    #[test]
    fn an_unreachable_goal_stops_the_unit_with_no_path() {
        let mut app = test_app(MapSource::BuiltIn);
        // The goal room's only door.
        let door = Pos::new(31, 25);
        drag(&mut app, MouseButton::Left, &[door]);
        assert!(!pathfinder(&app).grid().is_passable(door));
        let PlanOutcome::Failed(error @ gridpath::SearchError::NoPath { .. }) = &report(&app).outcome else {
            panic!("the main plan should report no path, got {:?}", report(&app).outcome);
        };
        assert!(error.to_string().contains("no path"), "the HUD text should say so: {error}");
        for _ in 0..30 {
            app.update();
        }
        let (walker, waypoints, status, at) = unit(&mut app);
        assert!(matches!(status, PathStatus::Failed(_)), "the unit should be stopped: {status:?}");
        assert!(waypoints.is_empty(), "a stopped unit has no route left");
        assert_eq!(at, pathfinder(&app).geometry().cell_center(walker.cell()), "it stops on a cell centre");
        app.update();
        assert_eq!(unit(&mut app).3, at, "a stopped unit does not move");

        // Opening the door again sends it on its way.
        drag(&mut app, MouseButton::Right, &[door]);
        walk_to_arrival(&mut app);
    }

    #[test]
    fn moving_the_goal_mid_walk_replans_from_where_the_unit_is() {
        let mut app = test_app(MapSource::BuiltIn);
        for _ in 0..40 {
            app.update();
        }
        let (walker, ..) = unit(&mut app);
        let new_goal = Pos::new(20, 28);
        hover(&mut app, Some(new_goal));
        tap_key(&mut app, KeyCode::KeyG);
        let (after, waypoints, ..) = unit(&mut app);
        assert_ne!(after.cell(), BUILTIN_START, "the unit must not go back to the start");
        assert!(after.cell().x >= walker.cell().x, "it continues from where it was");
        assert_eq!(waypoints.back().map(|w| w.cell), Some(new_goal));
        walk_to_arrival(&mut app);
        assert_eq!(unit(&mut app).0.cell(), new_goal);
    }

    #[test]
    fn speed_keys_change_the_walking_speed() {
        let mut app = test_app(MapSource::BuiltIn);
        let before = unit_speed(&mut app);
        tap_key(&mut app, KeyCode::Equal);
        assert!(unit_speed(&mut app) > before, "= should speed units up");
        tap_key(&mut app, KeyCode::Minus);
        tap_key(&mut app, KeyCode::Minus);
        assert!(unit_speed(&mut app) < before, "- should slow units down");
    }

    fn unit_speed(app: &mut App) -> f32 {
        app.world_mut().query::<&Mover>().single(app.world()).map_or(0.0, |m| m.speed)
    }
}

mod hud {
    use super::*;

    #[test]
    fn the_hud_shows_the_search_result_and_help() {
        let mut app = test_app_with_hud(MapSource::BuiltIn);
        let text = ui_text(&mut app);
        for expected in ["A*", "8 moves", "cost ", "47 cells", "expanded", " us", "unit: walking", "H: help"]
        {
            assert!(text.contains(expected), "the HUD should show {expected:?}:\n{text}");
        }
        assert!(
            text.contains("left-drag") && text.contains("R / Shift+R") && text.contains("Ctrl+S"),
            "the help lists the controls"
        );
        let mut panels = app.world_mut().query::<&Node>();
        let hidden = panels.iter(app.world()).filter(|n| n.display == Display::None).count();
        tap_key(&mut app, KeyCode::KeyH);
        let hidden_after = panels.iter(app.world()).filter(|n| n.display == Display::None).count();
        assert_eq!(hidden_after + 1, hidden, "H should show the help overlay");
    }

    #[test]
    fn errors_appear_in_the_hud() {
        let mut app = test_app_with_hud(MapSource::BuiltIn);
        // Wall off the goal room's only door: no path.
        drag(&mut app, MouseButton::Left, &[Pos::new(31, 25)]);
        app.update();
        let text = ui_text(&mut app);
        assert!(
            text.contains("no path from (2,2) to (36,27)"),
            "the HUD should say there is no path:\n{text}"
        );
        assert!(text.contains("unit: stopped: no path"), "the HUD should say the unit stopped:\n{text}");
        // An invalid placement: the start onto a wall.
        hover(&mut app, Some(Pos::new(13, 0)));
        tap_key(&mut app, KeyCode::KeyS);
        let text = ui_text(&mut app);
        assert!(
            text.contains("the start must be on a free cell"),
            "the HUD should explain the refusal:\n{text}"
        );
    }

    #[test]
    fn a_broken_map_file_is_reported_in_the_hud() {
        let mut app = test_app_with_hud(MapSource::File("/no/such/dir/missing.map".into()));
        let text = ui_text(&mut app);
        assert!(text.contains("missing.map") && text.contains("built-in map"), "{text}");
    }
}

mod level {
    use super::*;
    use bevy_ecs_tilemap::prelude::*;
    use tilepath::map::geometry::Geometry;
    use tilepath::map::level::{BUILTIN_GOAL, BUILTIN_START, builtin_level, parse_level};

    #[test]
    fn the_builtin_map_has_far_apart_endpoints_and_needs_a_detour() {
        let level = builtin_level();
        assert_eq!((level.grid.width(), level.grid.height()), (40, 30));
        assert!(level.grid.is_passable(BUILTIN_START) && level.grid.is_passable(BUILTIN_GOAL));
        let straight =
            f64::from(BUILTIN_START.x.abs_diff(BUILTIN_GOAL.x).max(BUILTIN_START.y.abs_diff(BUILTIN_GOAL.y)));
        let path = gridpath::Searcher::new()
            .find_path(&level.grid, level.start, level.goal, &gridpath::Settings::default())
            .expect("the built-in map has a route");
        assert!(straight >= 30.0, "start and goal should be far apart");
        assert!(path.cost > straight * 1.2, "the route should need a detour: {} vs {straight}", path.cost);
    }

    #[test]
    fn a_missing_map_file_shows_an_error_and_the_builtin_map() {
        let app = test_app(MapSource::File("/definitely/not/here.map".into()));
        let info = app.world().resource::<MapInfo>();
        let error = info.error.as_deref().expect("a missing map should be reported");
        assert!(error.contains("here.map"), "the error should name the file: {error}");
        assert_eq!(pathfinder(&app).start(), BUILTIN_START, "the built-in map is shown instead");
    }

    #[test]
    fn a_broken_map_shows_the_parse_error() {
        let broken = MapSource::Text {
            name: "broken.map".into(),
            text: "type octile\nheight 2\nwidth 3\nmap\n..\n...\n".into(),
        };
        let app = test_app(broken);
        let error = app.world().resource::<MapInfo>().error.clone().expect("a broken map should be reported");
        assert!(error.contains("broken.map") && error.contains("line"), "{error}");
    }

    #[test]
    fn ascii_maps_keep_their_endpoints_and_others_get_corner_ones() {
        let level = parse_level("....\n.S#.\n..#G").expect("valid ASCII map");
        assert_eq!((level.start, level.goal), (Pos::new(1, 1), Pos::new(3, 2)));
        let level = parse_level("type octile\nheight 3\nwidth 3\nmap\n@@.\n..@\n..@\n").expect("valid map");
        assert_eq!((level.start, level.goal), (Pos::new(0, 1), Pos::new(1, 2)));
    }

    #[test]
    fn geometry_agrees_with_the_tilemap() {
        let geometry = Geometry { width: 40, height: 30 };
        let size = TilemapSize { x: 40, y: 30 };
        let tile_size = TilemapTileSize { x: TILE_SIZE, y: TILE_SIZE };
        for cell in [Pos::new(0, 0), Pos::new(39, 0), Pos::new(0, 29), Pos::new(17, 11), Pos::new(39, 29)] {
            let tile = geometry.tile_pos(cell);
            assert_eq!(geometry.cell_of(tile), cell);
            let tilemap_centre = tile.center_in_world(
                &size,
                &tile_size.into(),
                &tile_size,
                &TilemapType::Square,
                &TilemapAnchor::Center,
            );
            assert_eq!(
                geometry.cell_center(cell),
                tilemap_centre,
                "cell {cell} is drawn where it is planned"
            );
            assert_eq!(geometry.cell_at(tilemap_centre), Some(cell));
            assert_eq!(geometry.cell_at(tilemap_centre + Vec2::splat(TILE_SIZE * 0.49)), Some(cell));
        }
        assert_eq!(geometry.cell_at(Vec2::new(-20.0 * TILE_SIZE - 0.1, 0.0)), None, "left of the map");
        assert_eq!(geometry.cell_at(Vec2::new(0.0, 15.0 * TILE_SIZE + 0.1)), None, "above the map");
    }
}

mod animation {
    use super::*;
    use gridpath::TraceEvent;
    use tilepath::search::plan::Explored;
    use tilepath::search::replay::RATES;

    /// The trace of the latest main search.
    fn trace(app: &App) -> Vec<TraceEvent> {
        report(app).trace.clone()
    }

    #[test]
    fn stepping_visits_exactly_the_trace_events_in_order() {
        // The state machine alone: one event per step, the trace's, in its order.
        let app = test_app(MapSource::BuiltIn);
        let events = trace(&app);
        assert!(events.len() > 100, "A* on the built-in map should leave a long trace");
        let mut replay = SearchAnimation::default();
        replay.restart(events.clone(), 40, 30);
        let mut seen = Vec::new();
        while let Some(event) = replay.step() {
            seen.push(event);
            assert_eq!(replay.applied(), seen.len(), "each step applies exactly one event");
            assert_eq!(replay.explored(), Explored::from_trace(&seen), "cell states follow the events");
        }
        assert_eq!(seen, events, "stepping must visit exactly the trace's events, in order");
        assert!(replay.is_finished());

        // In the app: Space pauses, each N applies exactly the next event of the trace.
        let mut app = animated_app(MapSource::BuiltIn, 300);
        tap_key(&mut app, KeyCode::Space);
        assert!(animation(&app).is_paused(), "Space should pause the replay");
        let paused_at = animation(&app).applied();
        for _ in 0..5 {
            app.update();
        }
        assert_eq!(animation(&app).applied(), paused_at, "a paused replay does not advance");
        let events = trace(&app);
        for n in 1..=20 {
            tap_key(&mut app, KeyCode::KeyN);
            let replay = animation(&app);
            assert_eq!(replay.applied(), paused_at + n, "N must apply exactly one event");
            assert_eq!(replay.applied_events(), &events[..paused_at + n], "N follows the trace in order");
        }
        let (_, _, _, at) = unit(&mut app);
        let start = pathfinder(&app).geometry().cell_center(pathfinder(&app).start());
        assert_eq!(at, start, "the unit waits while the search is being shown");
    }

    #[test]
    fn the_replay_advances_by_elapsed_time_at_the_chosen_rate() {
        let mut replay = SearchAnimation::default();
        let events = vec![TraceEvent::Closed { pos: Pos::new(1, 1) }; 100];
        replay.restart(events, 4, 4);
        assert_eq!(replay.advance(0.25, 100), 25, "a quarter second at 100/s is 25 events");
        // Fractions carry over: ten frames of 1/300 s at 100/s make 3 events, not 0.
        let applied: usize = (0..10).map(|_| replay.advance(1.0 / 300.0, 100)).sum();
        assert!((3..=4).contains(&applied), "fractions must carry over, applied {applied}");
        let remaining = 100 - replay.applied();
        assert_eq!(replay.advance(10.0, 10_000), remaining, "never past the end");
        assert!(replay.is_finished());

        // In the app, 30 frames of 1/30 s at 300 events/s make about 300 events.
        let mut app = animated_app(MapSource::BuiltIn, 300);
        let before = animation(&app).applied();
        for _ in 0..30 {
            app.update();
        }
        let advanced = animation(&app).applied() - before;
        assert!((295..=305).contains(&advanced), "one second at 300 events/s, got {advanced}");
    }

    #[test]
    fn instant_mode_equals_the_final_state_and_the_unit_walks_at_once() {
        let mut app = test_app(MapSource::BuiltIn);
        let replay = animation(&app);
        assert!(replay.is_finished(), "in instant mode the search is shown finished on the first frame");
        assert_eq!(replay.applied(), report(&app).trace.len());
        assert_eq!(replay.explored(), report(&app).explored, "instant must equal the trace's final state");
        let (_, _, _, before) = unit(&mut app);
        app.update();
        let (_, _, _, after) = unit(&mut app);
        assert_ne!(before, after, "the unit sets off at once in instant mode");

        // Skipping with Esc reaches the same final state.
        let mut app = animated_app(MapSource::BuiltIn, 100);
        assert!(!animation(&app).is_finished());
        tap_key(&mut app, KeyCode::Escape);
        assert!(animation(&app).is_finished(), "Esc skips to the end");
        assert_eq!(animation(&app).explored(), report(&app).explored);
    }

    #[test]
    fn the_unit_waits_for_the_replay_then_walks() {
        let mut app = animated_app(MapSource::BuiltIn, 3000);
        let start = pathfinder(&app).geometry().cell_center(pathfinder(&app).start());
        let mut frames = 0;
        while !animation(&app).is_finished() {
            assert_eq!(unit(&mut app).3, start, "the unit stands still during the replay");
            app.update();
            frames += 1;
            assert!(frames < 300, "a 3000 events/s replay of ~1300 events ends within seconds");
        }
        app.update();
        assert_ne!(unit(&mut app).3, start, "the unit walks once the replay ended");
        walk_to_arrival(&mut app);
    }

    #[test]
    fn the_automatic_speed_ends_any_replay_within_a_few_seconds() {
        use tilepath::search::replay::{AUTO_SECONDS, DEFAULT_RATE};
        // The rule: small searches at the default pace, big ones fast enough for AUTO_SECONDS;
        // a speed the player chose applies as it is.
        assert_eq!(AnimationSpeed::Auto.rate(100), Some(DEFAULT_RATE));
        assert_eq!(AnimationSpeed::Auto.rate(545_454), Some(181_818), "NewYork's first search in 3 s");
        assert_eq!(AnimationSpeed::PerSecond(10).rate(545_454), Some(10), "a chosen speed still applies");
        assert_eq!(AnimationSpeed::Instant.rate(10), None);
        assert_eq!(AnimationSpeed::default(), AnimationSpeed::Auto, "the automatic speed is the default");

        // In the app: Dijkstra over an open 256 x 256 map leaves a trace of 100,000+ events,
        // five minutes at 300 events/s; the unit still sets off within AUTO_SECONDS.
        let mut app = unstarted_app_at(open_map(256, 256), AnimationSpeed::Auto);
        app.update();
        tap_key(&mut app, KeyCode::F2);
        let total = animation(&app).total();
        assert!(total > 100_000, "Dijkstra on 256 x 256 should leave a long trace, got {total}");
        let start = unit(&mut app).3;
        let mut frames = 0;
        while !animation(&app).is_finished() {
            app.update();
            frames += 1;
            // Float to count: a small positive number of frames.
            let limit = (AUTO_SECONDS / f64::from(FRAME)).ceil() as usize + 2;
            assert!(frames <= limit, "the replay of {total} events took over {AUTO_SECONDS} s");
        }
        app.update();
        assert_ne!(unit(&mut app).3, start, "the unit walks once the replay ended");
    }

    #[test]
    fn an_edit_off_the_route_does_not_stop_the_walking_unit() {
        let mut app = animated_app(MapSource::BuiltIn, 100);
        tap_key(&mut app, KeyCode::Escape);
        for _ in 0..10 {
            app.update();
        }
        let route: Vec<Pos> = unit(&mut app).1.iter().map(|w| w.cell).collect();
        assert!(route.len() > 10, "the unit is on its way");
        // A free cell far from the rest of the route, the start and the goal.
        let here = unit(&mut app).0.cell();
        let grid = pathfinder(&app).grid();
        let far = |p: Pos, q: Pos| p.x.abs_diff(q.x).max(p.y.abs_diff(q.y)) > 4;
        let (start, goal) = (pathfinder(&app).start(), pathfinder(&app).goal());
        let cell = grid
            .positions()
            .find(|&p| grid.is_passable(p) && route.iter().chain([&start, &goal, &here]).all(|&r| far(p, r)))
            .expect("the built-in map has room away from the route");
        let restarts = animation(&app).restarts();
        drag(&mut app, MouseButton::Left, &[cell]);
        assert!(!pathfinder(&app).grid().is_passable(cell), "the wall is painted");
        assert!(animation(&app).restarts() > restarts && !animation(&app).is_finished(), "a new replay runs");
        for _ in 0..5 {
            let before = unit(&mut app).3;
            app.update();
            assert_ne!(unit(&mut app).3, before, "the unit walks on: the edit left its route alone");
            assert!(!animation(&app).is_finished(), "still during the replay");
        }

        // An edit across its route stops it until the new search is shown.
        let ahead = unit(&mut app).1.iter().nth(4).map(|w| w.cell).expect("route ahead");
        drag(&mut app, MouseButton::Left, &[ahead]);
        assert!(!animation(&app).is_finished(), "the new search is replayed");
        let waiting = unit(&mut app).3;
        app.update();
        app.update();
        assert_eq!(unit(&mut app).3, waiting, "a re-routed unit waits for the replay of its new search");
        tap_key(&mut app, KeyCode::Escape);
        walk_to_arrival(&mut app);
    }

    #[test]
    fn loading_or_generating_a_map_after_a_pause_plays_again() {
        let mut app = animated_app(MapSource::BuiltIn, 3000);
        tap_key(&mut app, KeyCode::Space);
        assert!(animation(&app).is_paused(), "Space pauses");
        tap_key(&mut app, KeyCode::BracketRight);
        assert!(!animation(&app).is_paused(), "the next map's search plays");
        tap_key(&mut app, KeyCode::Space);
        tap_key(&mut app, KeyCode::KeyR);
        assert!(!animation(&app).is_paused(), "a generated map's search plays");
        let start = unit(&mut app).3;
        for _ in 0..300 {
            if animation(&app).is_finished() {
                break;
            }
            app.update();
        }
        assert!(animation(&app).is_finished(), "the replay runs to its end by itself");
        app.update();
        assert_ne!(unit(&mut app).3, start, "and the unit walks");
    }

    #[test]
    fn the_replay_banner_says_how_to_skip_and_shows_a_pause() {
        let mut app = unstarted_app_at(MapSource::BuiltIn, AnimationSpeed::PerSecond(100));
        app.add_plugins((tilepath::ui::hud::plugin, tilepath::ui::panel::plugin));
        app.update();
        app.update();
        let text = ui_text(&mut app);
        assert!(
            text.contains("The unit waits for the search replay") && text.contains("Esc skips it"),
            "{text}"
        );
        tap_key(&mut app, KeyCode::Space);
        let text = ui_text(&mut app);
        assert!(text.contains("SEARCH PAUSED") && text.contains("Space plays"), "{text}");
        tap_key(&mut app, KeyCode::Escape);
        let banner = |app: &mut App| {
            let mut nodes = app.world_mut().query::<(&Node, &Children)>();
            let mut texts = app.world_mut().query::<&Text>();
            nodes
                .iter(app.world())
                .filter(|(_, children)| {
                    children
                        .iter()
                        .any(|c| texts.get(app.world(), c).is_ok_and(|t| t.0.contains("SEARCH PAUSED")))
                })
                .map(|(node, _)| node.display)
                .collect::<Vec<_>>()
        };
        assert_eq!(banner(&mut app), vec![Display::None], "the banner hides once the search is shown");
    }

    #[test]
    fn an_edit_mid_animation_restarts_it_cleanly() {
        let mut app = animated_app(MapSource::BuiltIn, 100);
        for _ in 0..30 {
            app.update();
        }
        let (restarts, applied) = (animation(&app).restarts(), animation(&app).applied());
        assert!(applied > 50 && !animation(&app).is_finished(), "mid-way through the replay");
        // A wall in the middle of the explored area.
        let wall = Pos::new(8, 4);
        assert!(pathfinder(&app).grid().is_passable(wall));
        hover(&mut app, Some(wall));
        mouse(&mut app, MouseButton::Left, ButtonState::Pressed);
        app.update();
        assert!(!pathfinder(&app).grid().is_passable(wall), "the wall is painted");
        let replay = animation(&app);
        assert_eq!(replay.restarts(), restarts + 1, "the edit restarts the replay once");
        assert!(replay.applied() <= 4, "the replay starts over, {} events in", replay.applied());
        assert_eq!(
            replay.applied_events(),
            &report(&app).trace[..replay.applied()],
            "it replays the new search"
        );
        assert_eq!(
            replay.explored(),
            Explored::from_trace(replay.applied_events()),
            "no cell state survives from the old replay"
        );
        mouse(&mut app, MouseButton::Left, ButtonState::Released);
        app.update();
        assert_eq!(animation(&app).restarts(), restarts + 1, "releasing the button changes nothing");
    }

    #[test]
    fn speed_keys_step_through_the_rates_up_to_instant() {
        let mut app = animated_app(MapSource::BuiltIn, RATES[0]);
        let speed = |app: &App| *app.world().resource::<AnimationSpeed>();
        tap_key(&mut app, KeyCode::Comma);
        assert_eq!(speed(&app), AnimationSpeed::PerSecond(RATES[0]), "no slower than the slowest rate");
        for &rate in &RATES[1..] {
            tap_key(&mut app, KeyCode::Period);
            assert_eq!(speed(&app), AnimationSpeed::PerSecond(rate));
        }
        tap_key(&mut app, KeyCode::Period);
        assert_eq!(speed(&app), AnimationSpeed::Instant, "past 10,000 events/s comes instant");
        assert!(animation(&app).is_finished(), "instant shows the search finished at once");
        tap_key(&mut app, KeyCode::Comma);
        assert_eq!(speed(&app), AnimationSpeed::PerSecond(10_000));
    }
}

mod race {
    use super::*;
    use gridpath::{Algorithm, Moves, Searcher, Settings, formats};
    use tilepath::search::race::{RaceOutcome, RaceTable, race};

    /// A small fixed map: a cup open toward the start lures greedy search in, so its path is
    /// dearer than the optimum (21.66 against 20.49).
    const MAP: &str = "\
......................
.........#######......
...............#......
.S.............#...G..
...............#......
.........#######......
......................";

    #[test]
    fn the_race_table_flags_exactly_the_costs_equal_to_dijkstras() {
        let map = formats::parse_ascii(MAP).expect("a valid map");
        let (start, goal) = (map.start.expect("S"), map.goal.expect("G"));
        let optimum = Searcher::new()
            .find_path(&map.grid, start, goal, &Settings::with_algorithm(Algorithm::Dijkstra))
            .expect("a route")
            .cost;
        let (rows, reference) = race(&mut Searcher::new(), &map.grid, start, goal, &Settings::default());
        assert_eq!(reference, Some(optimum), "the table compares with Dijkstra's cost");
        assert_eq!(rows.len(), Algorithm::ALL.len() + 1, "every algorithm plus weighted A*");
        let mut suboptimal = Vec::new();
        for row in &rows {
            let RaceOutcome::Found { cost, optimal, excess_percent, .. } = row.outcome else {
                panic!("every algorithm runs with the default settings: {row:?}");
            };
            let equal = (cost - optimum).abs() < 1e-6;
            assert_eq!(optimal, equal, "{:?}: flagged optimal iff its cost equals Dijkstra's", row.algorithm);
            if row.guaranteed {
                assert!(optimal, "{:?} is guaranteed optimal, so it must match Dijkstra", row.algorithm);
            }
            let expected = (cost / optimum - 1.0) * 100.0;
            assert!((excess_percent - expected).abs() < 1e-6, "excess % of {:?}", row.algorithm);
            if !optimal {
                suboptimal.push(row.algorithm);
            }
        }
        assert!(suboptimal.contains(&Algorithm::Greedy), "greedy is lured into the long way here: {rows:?}");
        let astar = rows.iter().find(|r| r.algorithm == Algorithm::AStar && r.weight == 1.0).expect("A*");
        assert!(astar.guaranteed, "A* with octile and weight 1 is guaranteed optimal");

        // 4 moves: JPS does not apply and says why; BFS and the wavefront become optimal.
        let four = Settings { rules: gridpath::Rules::FOUR, ..Settings::default() };
        let (rows, _) = race(&mut Searcher::new(), &map.grid, start, goal, &four);
        let jps = rows.iter().find(|r| r.algorithm == Algorithm::Jps).expect("a JPS row");
        assert_eq!(jps.outcome, RaceOutcome::Unsupported("JPS needs 8-connected moves"));
        for algorithm in [Algorithm::Bfs, Algorithm::Wavefront] {
            let row = rows.iter().find(|r| r.algorithm == algorithm).expect("a row");
            assert!(row.guaranteed && matches!(row.outcome, RaceOutcome::Found { optimal: true, .. }));
        }
        assert_eq!(four.rules.moves, Moves::Four);
    }

    #[test]
    fn t_shows_the_race_and_keeps_it_up_to_date() {
        let mut app = test_app(MapSource::Text { name: "race".into(), text: MAP.into() });
        assert!(app.world().resource::<RaceTable>().rows.is_empty(), "no race before T");
        tap_key(&mut app, KeyCode::KeyT);
        let table = app.world().resource::<RaceTable>();
        assert!(table.shown && table.rows.len() == 8, "T races every algorithm: {table:?}");
        assert!(table.optimum.is_some());
        // Wall off both ways around the cup: the table follows the edits.
        drag(&mut app, MouseButton::Left, &[Pos::new(12, 6)]);
        drag(&mut app, MouseButton::Left, &[Pos::new(12, 0)]);
        let table = app.world().resource::<RaceTable>();
        assert_eq!(table.optimum, None, "the table must be re-run after an edit: {table:?}");
        assert!(
            table.rows.iter().all(|r| matches!(r.outcome, RaceOutcome::Failed(_))),
            "every contestant reports no path: {table:?}"
        );
        tap_key(&mut app, KeyCode::KeyT);
        assert!(!app.world().resource::<RaceTable>().shown, "T hides the race");
    }
}

mod panel {
    use super::*;
    use gridpath::{Algorithm, Moves};
    use tilepath::input::bindings::Control;
    use tilepath::ui::panel::PanelButton;

    /// The panel button sending `control`.
    fn button(app: &mut App, control: Control) -> Entity {
        let mut buttons = app.world_mut().query::<(Entity, &PanelButton)>();
        buttons
            .iter(app.world())
            .find(|(_, b)| b.0 == control)
            .map(|(e, _)| e)
            .unwrap_or_else(|| panic!("the panel should have a button for {control:?}"))
    }

    /// Presses the mouse on `control`'s button while the map cell `under` is hovered, as the
    /// window delivers it (the UI sets the button's `Interaction`), then releases.
    fn click(app: &mut App, control: Control, under: Pos) {
        let entity = button(app, control);
        hover(app, Some(under));
        app.world_mut().entity_mut(entity).insert(Interaction::Pressed);
        mouse(app, MouseButton::Left, ButtonState::Pressed);
        app.update();
        app.world_mut().entity_mut(entity).insert(Interaction::Hovered);
        mouse(app, MouseButton::Left, ButtonState::Released);
        app.update();
        app.world_mut().entity_mut(entity).insert(Interaction::None);
        app.update();
    }

    #[test]
    fn panel_clicks_change_settings_and_never_paint_the_map() {
        let mut app = test_app_with_hud(open_map(30, 20));
        let cell = Pos::new(10, 10);
        click(&mut app, Control::SelectAlgorithm(Algorithm::Dijkstra), cell);
        assert_eq!(pathfinder(&app).settings().algorithm, Algorithm::Dijkstra, "the click selects Dijkstra");
        click(&mut app, Control::SetMoves(Moves::Four), cell);
        assert_eq!(pathfinder(&app).settings().rules.moves, Moves::Four, "the click selects 4 moves");
        click(&mut app, Control::ToggleRace, cell);
        assert!(
            app.world().resource::<tilepath::search::race::RaceTable>().shown,
            "the race button shows the race"
        );
        assert!(walls(&app).is_empty(), "clicks on the panel must not paint the map under the pointer");
        // The same press without the panel under the pointer does paint.
        drag(&mut app, MouseButton::Left, &[cell]);
        assert_eq!(walls(&app), vec![cell], "a press on the map paints");
    }

    #[test]
    fn every_control_has_a_button_with_its_key() {
        let mut app = test_app_with_hud(open_map(30, 20));
        let text = ui_text(&mut app);
        for label in [
            "F1 A*",
            "F2 Dijkstra",
            "F5 JPS",
            "F7 Wavefront",
            "M 4",
            "M 8",
            "K no cut",
            "E octile",
            "Shift+[ less",
            "Shift+] more",
            "[ prev",
            "] next",
            "Ctrl+S save",
            "R random",
            "Shift+R generator",
        ] {
            assert!(text.contains(label), "the panel should show {label:?}:\n{text}");
        }
        for label in [
            ", slow",
            ". fast",
            ". instant",
            "/ auto",
            "F8 fps",
            "Space",
            "N step",
            "Esc skip",
            "T race",
            "D flow",
            "V searched",
        ] {
            assert!(text.contains(label), "the panel should show {label:?}:\n{text}");
        }
    }

    #[test]
    fn options_that_do_not_apply_are_disabled_with_the_reason() {
        let mut app = test_app_with_hud(open_map(30, 20));
        // JPS: 4 moves and corner cutting would break it.
        tap_key(&mut app, KeyCode::F5);
        let text = ui_text(&mut app);
        assert!(text.contains("JPS needs 8-connected moves"), "4 moves is disabled under JPS:\n{text}");
        assert!(text.contains("JPS needs the no-corner-cutting rule"), "so is corner cutting:\n{text}");
        // A click on the disabled button is refused with the reason, not ignored.
        click(&mut app, Control::SetMoves(Moves::Four), Pos::new(3, 3));
        assert_eq!(pathfinder(&app).settings().rules.moves, Moves::Eight, "the disabled option is not taken");

        // Dijkstra: no heuristic, no weight.
        tap_key(&mut app, KeyCode::F2);
        let text = ui_text(&mut app);
        assert!(text.contains("Dijkstra uses no heuristic"), "the heuristic is disabled:\n{text}");
        let heuristic = pathfinder(&app).settings().heuristic;
        app.world_mut().write_message(key_message(KeyCode::KeyE, ButtonState::Pressed));
        app.update();
        assert_eq!(pathfinder(&app).settings().heuristic, heuristic, "E is refused under Dijkstra");
        assert!(notices(&app).iter().any(|n| n.text.contains("Dijkstra uses no heuristic")));
        app.world_mut().write_message(key_message(KeyCode::KeyE, ButtonState::Released));
        app.update();

        // Greedy takes no weight; 4 moves have no corner rule.
        tap_key(&mut app, KeyCode::F4);
        assert!(ui_text(&mut app).contains("a weight changes nothing"));
        tap_key(&mut app, KeyCode::KeyM);
        assert!(ui_text(&mut app).contains("4 moves have none"), "corners are disabled with 4 moves");

        // A* with a weight: bidirectional search does not apply.
        tap_key(&mut app, KeyCode::F1);
        shift_tap_key(&mut app, KeyCode::BracketRight);
        assert!(ui_text(&mut app).contains("bidirectional search takes no heuristic weight"));
        tap_key(&mut app, KeyCode::F6);
        assert_eq!(pathfinder(&app).settings().algorithm, Algorithm::AStar, "F6 is refused while weighted");

        // Terrain costs: JPS is disabled whatever the rules.
        let mut app = test_app_with_hud(costly_map());
        assert!(ui_text(&mut app).contains("JPS needs uniform terrain cost"));
    }
}

mod crowd {
    //! Crowds: many units, shared flow fields, orders, terrain, async planning, re-routing.
    use super::*;
    use bevy_gridpath::{FlowFields, FollowFlowField, PathRequest, PlanBudget, PlanQueue};
    use gridpath::{Algorithm, FlowField, Searcher, Settings};
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};
    use tilepath::input::pointer::Selected;
    use tilepath::units::crowd::{CrowdUnit, Target, crowd_unit, routed_crowd_unit};
    use tilepath::units::lab::DEFAULT_SPEED;

    /// Frames to wait for the planning queue's background searches.
    const MAX_PLAN_FRAMES: usize = 400;

    /// Where a crowd unit is: its entity, cell, goal, status and world position.
    #[derive(Debug, Clone)]
    struct Seen {
        entity: Entity,
        cell: Pos,
        goal: Pos,
        status: PathStatus,
        at: Vec2,
        route: Vec<Pos>,
        follows: bool,
    }

    fn crowd(app: &mut App) -> Vec<Seen> {
        let mut query = app.world_mut().query::<(
            Entity,
            &Unit,
            &CrowdUnit,
            &PathStatus,
            &Transform,
            &Waypoints,
            Has<FollowFlowField>,
        )>();
        let mut seen: Vec<Seen> = query
            .iter(app.world())
            .map(|(entity, unit, crowd, status, transform, waypoints, follows)| Seen {
                entity,
                cell: unit.cell(),
                goal: crowd.goal(),
                status: status.clone(),
                at: transform.translation.truncate(),
                route: waypoints.iter().map(|w| w.cell).collect(),
                follows,
            })
            .collect();
        seen.sort_by_key(|s| s.entity);
        seen
    }

    /// Spawns flow-following crowd units (heading for the main goal) on `cells`.
    fn spawn(app: &mut App, cells: &[Pos]) -> Vec<Entity> {
        let geometry = pathfinder(app).geometry();
        cells
            .iter()
            .map(|&cell| app.world_mut().spawn(crowd_unit(cell, geometry, DEFAULT_SPEED)).id())
            .collect()
    }

    /// Spawns a crowd unit on `cell` with a route of its own to `goal`.
    fn spawn_alone(app: &mut App, cell: Pos, goal: Pos) -> Entity {
        let geometry = pathfinder(app).geometry();
        app.world_mut().spawn(routed_crowd_unit(cell, goal, geometry, DEFAULT_SPEED)).id()
    }

    /// Searches run, routes re-planned after edits (the plugin's counters), flow fields built.
    fn stats(app: &App) -> (u64, u64, u64) {
        let counts = app.world().resource::<PlanQueue>().counts();
        (counts.searched, counts.replans, app.world().resource::<FlowFields>().builds)
    }

    /// Runs frames until no crowd unit waits for a route; fails after [`MAX_PLAN_FRAMES`].
    fn wait_for_routes(app: &mut App) {
        for _ in 0..MAX_PLAN_FRAMES {
            app.update();
            let planning = crowd(app).iter().any(|s| s.status == PathStatus::Planning);
            if !planning && app.world().resource::<PlanQueue>().is_idle() {
                return;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        panic!("routes should be planned within {MAX_PLAN_FRAMES} frames: {:?}", crowd(app));
    }

    /// Checks that no crowd unit stands in a wall and that each stands in the cell it thinks.
    fn assert_on_free_cells(app: &mut App, when: &str) {
        let geometry = pathfinder(app).geometry();
        for seen in crowd(app) {
            let cell = geometry.cell_at(seen.at).expect("a unit must stay on the map");
            assert!(
                pathfinder(app).grid().is_passable(cell),
                "a unit must never stand in a wall, but {:?} is in {cell} ({when})",
                seen.entity
            );
            assert_eq!(cell, seen.cell, "a unit's cell must be where it stands ({when})");
        }
    }

    /// Runs frames until every crowd unit arrived, checking the cells every frame.
    fn run_to_arrival(app: &mut App, max_frames: usize) -> usize {
        for frame in 0..max_frames {
            let units = crowd(app);
            if units.iter().all(|s| s.status == PathStatus::Arrived) {
                return frame;
            }
            if let Some(stuck) = units.iter().find(|s| matches!(s.status, PathStatus::Failed(_))) {
                panic!("every unit should have a path: {stuck:?}");
            }
            app.update();
            assert_on_free_cells(app, &format!("frame {frame}"));
            std::thread::sleep(Duration::from_micros(200));
        }
        let left: Vec<Seen> = crowd(app).into_iter().filter(|s| s.status != PathStatus::Arrived).collect();
        panic!("every unit should arrive within {max_frames} frames; still going: {left:?}");
    }

    /// Two units on one cell push each other apart whether steering buckets the crowd per cell
    /// (a small map) or sorts it (a map with far more cells than units): without finding each
    /// other they would follow the same flow and stay on one point.
    #[test]
    fn units_on_one_cell_separate_on_small_and_big_maps() {
        for side in [30usize, 400] {
            let row = ".".repeat(side);
            let text = vec![row; side].join("\n");
            let mut app = test_app(MapSource::Text { name: format!("open{side}"), text });
            let cell = Pos::new(3, 3);
            spawn(&mut app, &[cell, cell]);
            for _ in 0..10 {
                app.update();
            }
            let units = crowd(&mut app);
            let gap = units[0].at.distance(units[1].at) / TILE_SIZE;
            assert!(gap > 0.3, "{side}x{side}: two units on one cell must separate, {gap} tiles apart");
        }
    }

    /// A `width` × `height` maze (odd sides) carved by a seeded depth-first search, start
    /// top-left, goal bottom-right.
    fn maze(width: usize, height: usize, seed: u64) -> MapSource {
        let mut cells = vec![vec![b'#'; width]; height];
        let mut rng = StdRng::seed_from_u64(seed);
        let mut stack = vec![(1usize, 1usize)];
        cells[1][1] = b'.';
        while let Some(&(x, y)) = stack.last() {
            let mut options = Vec::new();
            for (dx, dy) in [(2i64, 0i64), (-2, 0), (0, 2), (0, -2)] {
                let (nx, ny) = (x as i64 + dx, y as i64 + dy);
                if nx > 0 && ny > 0 && nx < width as i64 - 1 && ny < height as i64 - 1 {
                    let (nx, ny) = (nx as usize, ny as usize);
                    if cells[ny][nx] == b'#' {
                        options.push((nx, ny));
                    }
                }
            }
            if options.is_empty() {
                stack.pop();
                continue;
            }
            let (nx, ny) = options[rng.random_range(0..options.len())];
            cells[(y + ny) / 2][(x + nx) / 2] = b'.';
            cells[ny][nx] = b'.';
            stack.push((nx, ny));
        }
        cells[1][1] = b'S';
        cells[height - 2][width - 2] = b'G';
        let text: Vec<String> = cells.into_iter().map(|row| String::from_utf8(row).expect("ASCII")).collect();
        MapSource::Text { name: "maze".into(), text: text.join("\n") }
    }

    #[test]
    fn flow_field_units_all_reach_the_goal_on_a_maze() {
        let mut app = test_app(maze(31, 21, 7));
        let goal = pathfinder(&app).goal();
        let grid = pathfinder(&app).grid().clone();
        let free: Vec<Pos> = grid.positions().filter(|&p| grid.is_passable(p) && p != goal).collect();
        let mut rng = StdRng::seed_from_u64(3);
        let cells: Vec<Pos> = (0..60).map(|_| free[rng.random_range(0..free.len())]).collect();
        let (searched, ..) = stats(&app);
        spawn(&mut app, &cells);
        app.update();
        let fields = app.world().resource::<FlowFields>();
        assert_eq!(fields.len(), 1, "units sharing a goal must share one flow field");
        assert_eq!(fields.iter().next().map(|(_, f)| f.followers), Some(60), "all 60 follow it");
        run_to_arrival(&mut app, 6000);
        assert_eq!(stats(&app).0, searched, "flow-field units need no searches of their own");
        // Arrived units still make room for each other: let the jam relax for a second.
        for _ in 0..30 {
            app.update();
        }
        assert_on_free_cells(&mut app, "after arrival");
        // Arrivals pile up around the goal, along the maze's corridor, not on one point.
        let field = FlowField::dijkstra(&grid, goal, pathfinder(&app).settings().rules).expect("a field");
        let units = crowd(&mut app);
        for seen in &units {
            let distance = field.distance(seen.cell).expect("reachable");
            assert!(distance <= 60.0, "{:?} should have arrived near the goal, is {distance} away", seen);
        }
        let closest = units
            .iter()
            .enumerate()
            .flat_map(|(i, a)| units[i + 1..].iter().map(move |b| a.at.distance(b.at)))
            .fold(f32::INFINITY, f32::min);
        // Bodies are 0.6 tiles wide; a jam in a corridor may squeeze them a little, never onto
        // one point.
        assert!(closest > 0.25 * TILE_SIZE, "units must not stack on one point: closest pair {closest}");
    }

    #[test]
    fn an_edit_reroutes_only_the_units_whose_route_crosses_it() {
        let mut app = test_app(open_map(30, 20));
        let rows_a = [2, 4, 6];
        let rows_b = [12, 14, 16];
        let a: Vec<Entity> =
            rows_a.iter().map(|&y| spawn_alone(&mut app, Pos::new(2, y), Pos::new(27, y))).collect();
        let b: Vec<Entity> =
            rows_b.iter().map(|&y| spawn_alone(&mut app, Pos::new(2, y), Pos::new(27, y))).collect();
        // A few flow followers heading for the main goal too.
        spawn(&mut app, &[Pos::new(5, 9), Pos::new(6, 9)]);
        wait_for_routes(&mut app);
        let before = crowd(&mut app);
        for seen in before.iter().filter(|s| !s.follows) {
            assert_eq!(seen.status, PathStatus::Following, "{seen:?} should walk its own route");
            assert!(seen.route.iter().all(|c| c.y == seen.goal.y), "straight routes expected: {seen:?}");
        }
        let (_, reroutes, builds) = stats(&app);
        // A wall across rows 1..=7 at column 15: it crosses group A's routes only.
        drag(&mut app, MouseButton::Left, &[Pos::new(15, 1), Pos::new(15, 7)]);
        assert!(!pathfinder(&app).grid().is_passable(Pos::new(15, 4)), "the wall should be painted");
        assert_eq!(
            stats(&app).1 - reroutes,
            rows_a.len() as u64,
            "exactly the units whose route crosses the wall must re-plan"
        );
        assert!(stats(&app).2 > builds, "the flow field must be rebuilt after an edit");
        let after = crowd(&mut app);
        for entity in &b {
            let was = before.iter().find(|s| s.entity == *entity).expect("unit B");
            let now = after.iter().find(|s| s.entity == *entity).expect("unit B");
            assert_eq!(now.status, PathStatus::Following, "units not crossing the wall keep walking");
            assert!(was.route.ends_with(&now.route), "their route is untouched: {was:?} vs {now:?}");
        }
        wait_for_routes(&mut app);
        for entity in &a {
            let now = crowd(&mut app).into_iter().find(|s| s.entity == *entity).expect("unit A");
            assert!(
                now.route.iter().all(|&c| pathfinder(&app).grid().is_passable(c)),
                "new routes avoid the wall"
            );
        }
        run_to_arrival(&mut app, 3000);
    }

    #[test]
    fn terrain_costs_change_the_route_and_its_cost_is_dijkstras() {
        // A strip across the middle column (rows 1..=9 of 11): crossing cheap grass beats the
        // detour round its ends, crossing water does not.
        for (key, crosses) in [(KeyCode::Digit2, true), (KeyCode::Digit4, false)] {
            let mut app = test_app(open_map(20, 11));
            tap_key(&mut app, key);
            drag(&mut app, MouseButton::Left, &[Pos::new(10, 1), Pos::new(10, 9)]);
            let grid = pathfinder(&app).grid().clone();
            assert!(!grid.has_uniform_cost(), "the brush should paint terrain costs");
            let (from, to) = (Pos::new(1, 5), Pos::new(18, 5));
            let dijkstra = Searcher::new()
                .find_path(&grid, from, to, &Settings::with_algorithm(Algorithm::Dijkstra))
                .expect("a route");
            // A unit of its own plans with the chosen algorithm (A*) through the queue.
            let entity = spawn_alone(&mut app, from, to);
            wait_for_routes(&mut app);
            let seen = crowd(&mut app).into_iter().find(|s| s.entity == entity).expect("the unit");
            let cells: Vec<Pos> = std::iter::once(from).chain(seen.route.iter().copied()).collect();
            let cost = grid.path_cost(&cells, pathfinder(&app).settings().rules).expect("a legal route");
            assert!(
                (cost - dijkstra.cost).abs() < 1e-9,
                "A* must find Dijkstra's cost {}: {cost}",
                dijkstra.cost
            );
            let through = cells.iter().any(|c| c.x == 10 && (1..=9).contains(&c.y));
            assert_eq!(through, crosses, "the route should cross the strip: {crosses} ({cells:?})");
            // The shared flow field measures the same costs.
            let field = FlowField::dijkstra(&grid, to, pathfinder(&app).settings().rules).expect("a field");
            assert!((field.distance(from).unwrap_or(f64::NAN) - dijkstra.cost).abs() < 1e-9);
            run_to_arrival(&mut app, 3000);
        }
    }

    #[test]
    fn cost_blind_algorithms_and_brushes_exclude_each_other() {
        let mut app = test_app(open_map(20, 11));
        // JPS on a uniform map: the cost brushes are refused, with the reason.
        tap_key(&mut app, KeyCode::F5);
        assert_eq!(pathfinder(&app).settings().algorithm, Algorithm::Jps);
        app.world_mut().write_message(key_message(KeyCode::Digit3, ButtonState::Pressed));
        app.update();
        assert!(
            notices(&app).iter().any(|n| n.text.contains("JPS needs uniform terrain cost")),
            "the mud brush must be refused under JPS: {:?}",
            notices(&app)
        );
        app.world_mut().write_message(key_message(KeyCode::Digit3, ButtonState::Released));
        app.update();
        drag(&mut app, MouseButton::Left, &[Pos::new(4, 4)]);
        assert_eq!(
            pathfinder(&app).grid().tile(Pos::new(4, 4)),
            Some(Tile::Wall),
            "the brush is still walls"
        );
        // A* and mud; then JPS and BFS are refused on the map with costs.
        tap_key(&mut app, KeyCode::F1);
        tap_key(&mut app, KeyCode::Digit3);
        drag(&mut app, MouseButton::Left, &[Pos::new(6, 6)]);
        assert_eq!(pathfinder(&app).grid().tile(Pos::new(6, 6)), Some(Tile::Ground { cost: 5 }));
        for (key, reason) in
            [(KeyCode::F5, "JPS needs uniform terrain cost"), (KeyCode::F3, "BFS counts steps")]
        {
            app.world_mut().write_message(key_message(key, ButtonState::Pressed));
            app.update();
            assert!(
                notices(&app).iter().any(|n| n.text.contains(reason)),
                "{key:?} must be refused with {reason:?}: {:?}",
                notices(&app)
            );
            app.world_mut().write_message(key_message(key, ButtonState::Released));
            app.update();
            assert_eq!(pathfinder(&app).settings().algorithm, Algorithm::AStar);
        }
        // Floor (1) erases costs; the wall brush is 0.
        tap_key(&mut app, KeyCode::Digit1);
        drag(&mut app, MouseButton::Left, &[Pos::new(6, 6)]);
        assert_eq!(pathfinder(&app).grid().tile(Pos::new(6, 6)), Some(Tile::FLOOR));
        tap_key(&mut app, KeyCode::Digit0);
        drag(&mut app, MouseButton::Left, &[Pos::new(7, 7)]);
        assert_eq!(pathfinder(&app).grid().tile(Pos::new(7, 7)), Some(Tile::Wall));
    }

    fn shift(app: &mut App, state: ButtonState) {
        app.world_mut().write_message(key_message(KeyCode::ShiftLeft, state));
    }

    fn selected(app: &mut App) -> Vec<Entity> {
        let mut query = app.world_mut().query_filtered::<Entity, With<Selected>>();
        let mut list: Vec<Entity> = query.iter(app.world()).collect();
        list.sort();
        list
    }

    fn target(app: &App, entity: Entity) -> Target {
        *app.world().get::<Target>(entity).expect("a crowd unit")
    }

    #[test]
    fn selection_box_and_orders() {
        let mut app = test_app_with_hud(open_map(30, 20));
        let mut left = spawn(&mut app, &[Pos::new(3, 3), Pos::new(4, 4), Pos::new(5, 3)]);
        left.sort();
        let right = spawn(&mut app, &[Pos::new(20, 15), Pos::new(22, 16)]);
        // Hold them still while selecting: stop the clock.
        app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::ZERO));
        app.update();
        assert!(ui_text(&mut app).contains("crowd: 5 units (0 selected)"), "the panel counts units");

        // Shift+left-drag: a box from (2, 2) to (6, 5) selects the three on the left.
        shift(&mut app, ButtonState::Pressed);
        drag(&mut app, MouseButton::Left, &[Pos::new(2, 2), Pos::new(6, 5)]);
        shift(&mut app, ButtonState::Released);
        app.update();
        assert_eq!(selected(&mut app), left, "the box selects exactly the units inside it");
        assert!(walls(&app).is_empty(), "a selection drag never paints");
        assert!(ui_text(&mut app).contains("crowd: 5 units (3 selected)"), "the panel counts the selection");

        // Right-click: the selection goes there, sharing one flow field.
        let goal = Pos::new(12, 10);
        drag(&mut app, MouseButton::Right, &[goal]);
        for &entity in &left {
            assert_eq!(target(&app, entity), Target::Cell(goal), "the selected units are ordered");
            assert!(app.world().get::<FollowFlowField>(entity).is_some(), "a group shares a flow field");
        }
        for &entity in &right {
            assert_eq!(target(&app, entity), Target::MainGoal, "unselected units keep their goal");
        }
        // A right-drag with units selected gives orders, it does not erase.
        drag(&mut app, MouseButton::Left, &[Pos::new(25, 2), Pos::new(25, 4)]);
        assert_eq!(walls(&app).len(), 3);
        hover(&mut app, Some(Pos::new(25, 3)));
        mouse(&mut app, MouseButton::Right, ButtonState::Pressed);
        app.update();
        assert!(
            notices(&app).iter().any(|n| n.text.contains("wall")),
            "an order into a wall is refused: {:?}",
            notices(&app)
        );
        mouse(&mut app, MouseButton::Right, ButtonState::Released);
        app.update();
        assert_eq!(walls(&app).len(), 3, "with a selection, the right button orders instead of erasing");

        // A single unit gets a route of its own from the planning queue.
        shift(&mut app, ButtonState::Pressed);
        drag(&mut app, MouseButton::Left, &[Pos::new(20, 15)]);
        shift(&mut app, ButtonState::Released);
        app.update();
        assert_eq!(selected(&mut app), vec![right[0]]);
        app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f32(FRAME)));
        drag(&mut app, MouseButton::Right, &[Pos::new(27, 18)]);
        assert!(app.world().get::<FollowFlowField>(right[0]).is_none(), "a unit alone plans its own route");
        wait_for_routes(&mut app);
        let alone = crowd(&mut app).into_iter().find(|s| s.entity == right[0]).expect("the unit");
        assert_eq!(alone.route.last(), Some(&Pos::new(27, 18)), "its route leads to the order's cell");

        // An empty box clears the selection; A selects every crowd unit.
        shift(&mut app, ButtonState::Pressed);
        drag(&mut app, MouseButton::Left, &[Pos::new(0, 19)]);
        shift(&mut app, ButtonState::Released);
        app.update();
        assert!(selected(&mut app).is_empty(), "an empty box clears the selection");
        tap_key(&mut app, KeyCode::KeyA);
        assert_eq!(selected(&mut app).len(), 5, "A selects every crowd unit");
        // Without a selection the right button erases again.
        for entity in selected(&mut app) {
            app.world_mut().entity_mut(entity).remove::<Selected>();
        }
        drag(&mut app, MouseButton::Right, &[Pos::new(25, 3)]);
        assert_eq!(walls(&app).len(), 2, "without a selection, the right button erases");
    }

    #[test]
    fn keys_spawn_units_at_the_cursor_and_a_hundred_at_random() {
        let mut app = test_app(MapSource::BuiltIn);
        hover(&mut app, Some(Pos::new(5, 5)));
        tap_key(&mut app, KeyCode::KeyU);
        assert_eq!(crowd(&mut app).len(), 1, "U spawns one unit");
        assert_eq!(crowd(&mut app)[0].cell, Pos::new(5, 5), "at the cursor");
        shift(&mut app, ButtonState::Pressed);
        tap_key(&mut app, KeyCode::KeyU);
        shift(&mut app, ButtonState::Released);
        app.update();
        let units = crowd(&mut app);
        assert_eq!(units.len(), 101, "Shift+U spawns 100 more");
        assert!(units.iter().all(|s| pathfinder(&app).grid().is_passable(s.cell)), "on free cells");
        run_to_arrival(&mut app, 4000);
    }

    #[test]
    fn async_results_for_an_outdated_map_are_discarded_and_requested_again() {
        let mut app = test_app(open_map(30, 20));
        // Never at once in the frame: this test is about the task pool. The lab's unit and its
        // route would only add to the counters.
        app.insert_resource(PlanBudget { sync_max: 0, ..default() });
        let lab = app
            .world_mut()
            .query_filtered::<Entity, With<LabUnit>>()
            .single(app.world())
            .expect("a lab unit");
        app.world_mut().entity_mut(lab).despawn();
        let searched = stats(&app).0;
        let entity = spawn_alone(&mut app, Pos::new(2, 2), Pos::new(27, 17));
        // This frame queues the request and hands it to the task pool.
        app.update();
        let counts = app.world().resource::<PlanQueue>().counts();
        assert_eq!(counts.searched - searched, 1, "the request should be started: {counts:?}");
        let delivered = counts.delivered;
        // Let the search finish in the background, then edit the map before it is collected.
        std::thread::sleep(Duration::from_millis(50));
        drag(&mut app, MouseButton::Left, &[Pos::new(15, 0)]);
        let counts = app.world().resource::<PlanQueue>().counts();
        assert_eq!(counts.discarded, 1, "a route for the old map must be discarded: {counts:?}");
        wait_for_routes(&mut app);
        let counts = app.world().resource::<PlanQueue>().counts();
        assert_eq!(counts.searched - searched, 2, "and requested again: {counts:?}");
        assert_eq!(
            counts.delivered - delivered,
            1,
            "only the route for the current map is delivered: {counts:?}"
        );
        let seen = crowd(&mut app).into_iter().find(|s| s.entity == entity).expect("the unit");
        assert_eq!(seen.status, PathStatus::Following);
        assert_eq!(seen.route.last(), Some(&Pos::new(27, 17)));
    }

    #[test]
    fn no_unit_ever_stands_in_a_wall_over_random_edits() {
        let mut app = test_app(MapSource::BuiltIn);
        let mut rng = StdRng::seed_from_u64(11);
        let grid = pathfinder(&app).grid().clone();
        let free: Vec<Pos> = grid.positions().filter(|&p| grid.is_passable(p)).collect();
        let cells: Vec<Pos> = (0..150).map(|_| free[rng.random_range(0..free.len())]).collect();
        let units = spawn(&mut app, &cells);
        // A few units with their own routes, to random free cells.
        for &entity in units.iter().take(10) {
            let goal = free[rng.random_range(0..free.len())];
            app.world_mut()
                .entity_mut(entity)
                .remove::<FollowFlowField>()
                .insert((Target::Cell(goal), PathRequest::new(goal)));
        }
        let (width, height) = (grid.width(), grid.height());
        for round in 0..120 {
            let a = Pos::new(rng.random_range(0..width), rng.random_range(0..height));
            let b = Pos::new(
                (a.x + rng.random_range(0..6)).min(width - 1),
                (a.y + rng.random_range(0..6)).min(height - 1),
            );
            let button = if rng.random_bool(0.6) { MouseButton::Left } else { MouseButton::Right };
            drag(&mut app, button, &[a, b]);
            assert_on_free_cells(&mut app, &format!("after edit {round}"));
            for frame in 0..4 {
                app.update();
                assert_on_free_cells(&mut app, &format!("edit {round}, frame {frame}"));
            }
        }
        assert!(walls(&app).len() > 100, "the run should have built plenty of walls: {}", walls(&app).len());
    }
}

mod maps_in_and_out {
    //! Opening maps at run time (messages, keys, dropped files), bad files, saving, autosaving,
    //! generators and big maps.
    use std::path::{Path, PathBuf};

    use super::*;
    use bevy::window::FileDragAndDrop;
    use gridpath::formats::{MAX_FILE_BYTES, load_map};
    use gridpath::generate::{Generator, generate, pick_endpoints};
    use tilepath::edit::files::{OpenMap, UnsavedEdits};
    use tilepath::edit::paint::{GenerateAtStart, MapGenerator, MapSeed};
    use tilepath::map::level::{BUILTIN_GOAL, BUILTIN_START};

    /// Everything a failed load must leave alone (the tiles as a text picture, so a failure
    /// prints something readable).
    #[derive(Debug, PartialEq)]
    struct Seen {
        walls: usize,
        picture: u64,
        revision: u64,
        endpoints: (Pos, Pos),
        units: Vec<Entity>,
        map_name: String,
    }

    fn seen(app: &mut App) -> Seen {
        use std::hash::{Hash, Hasher};
        let grid = pathfinder(app).grid();
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        tiles(grid).hash(&mut hasher);
        let revision = grid.revision();
        let endpoints = (pathfinder(app).start(), pathfinder(app).goal());
        // The same unit entities: none was despawned and respawned (they may walk meanwhile).
        let units = app.world_mut().query_filtered::<Entity, With<Unit>>().iter(app.world()).collect();
        let map_name = app.world().resource::<MapInfo>().name.clone();
        Seen { walls: walls(app).len(), picture: hasher.finish(), revision, endpoints, units, map_name }
    }

    fn tiles(grid: &gridpath::Grid) -> Vec<Option<Tile>> {
        grid.positions().map(|p| grid.tile(p)).collect()
    }

    fn open(app: &mut App, source: MapSource) {
        app.world_mut().write_message(OpenMap(source));
        app.update();
    }

    fn all_notices(app: &mut App) -> String {
        notices(app).iter().map(|n| n.text.clone()).collect::<Vec<_>>().join("\n")
    }

    fn ctrl_s(app: &mut App) {
        app.world_mut().write_message(key_message(KeyCode::ControlLeft, ButtonState::Pressed));
        tap_key(app, KeyCode::KeyS);
        app.world_mut().write_message(key_message(KeyCode::ControlLeft, ButtonState::Released));
        app.update();
    }

    fn unsaved(app: &App) -> bool {
        app.world().resource::<UnsavedEdits>().is_unsaved()
    }

    fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, bytes).expect("write a test map");
        path
    }

    /// A wall at (5, 5) of the built-in map (a free cell off the route's ends).
    const PAINTED: Pos = Pos::new(5, 5);

    #[test]
    fn a_map_opened_at_run_time_replaces_the_level_units_and_all() {
        let mut app = test_app(MapSource::BuiltIn);
        let dir = tempfile::tempdir().expect("temp dir");
        let path = write(dir.path(), "small.txt", b"S....\n.###.\n....G\n");
        open(&mut app, MapSource::File(path));
        let pf = pathfinder(&app);
        assert_eq!((pf.grid().width(), pf.grid().height()), (5, 3), "the new map is shown");
        assert_eq!((pf.start(), pf.goal()), (Pos::new(0, 0), Pos::new(4, 2)), "with its own endpoints");
        assert_eq!(app.world().resource::<MapInfo>().name, "small.txt");
        let (walker, ..) = unit(&mut app);
        assert_eq!(walker.cell(), Pos::new(0, 0), "the unit starts again on the new start");
        assert!(all_notices(&mut app).contains("opened small.txt"));
        walk_to_arrival(&mut app);
    }

    #[test]
    fn bad_files_of_every_kind_leave_map_edits_and_units_untouched() {
        let mut app = test_app_with_hud(MapSource::BuiltIn);
        drag(&mut app, MouseButton::Left, &[PAINTED]);
        let before = seen(&mut app);
        assert_eq!(before.walls, walls(&app).len());
        assert_eq!(pathfinder(&app).grid().tile(PAINTED), Some(Tile::Wall), "the edit is there to be kept");
        let dir = tempfile::tempdir().expect("temp dir");
        let huge = dir.path().join("huge.map");
        std::fs::File::create(&huge)
            .and_then(|f| f.set_len(MAX_FILE_BYTES + 1))
            .expect("a sparse file over the size limit");
        let side = 2100;
        let too_big = format!(
            "type octile\nheight {side}\nwidth {side}\nmap\n{}",
            format!("{}\n", ".".repeat(side)).repeat(side)
        );
        let cases: Vec<(PathBuf, &str)> = vec![
            (dir.path().join("missing.map"), "cannot read"),
            (
                write(dir.path(), "malformed.map", b"type octile\nheight 2\nwidth 3\nmap\n..x\n...\n"),
                "line 5",
            ),
            (write(dir.path(), "truncated.map", b"type octile\nheight 4\nwidth 3\nmap\n...\n..."), "line"),
            (write(dir.path(), "binary.map", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), "not a text map"),
            (huge, "limited to"),
            (write(dir.path(), "toobig.map", too_big.as_bytes()), "2048"),
            (
                write(dir.path(), "broken.tmx", b"<?xml version=\"1.0\"?><map orientation=\"orthogonal\""),
                "broken.tmx",
            ),
            (write(dir.path(), "walls.txt", b"###\n###\n"), "no ground cell"),
        ];
        for (path, problem) in cases {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            open(&mut app, MapSource::File(path));
            let text = all_notices(&mut app);
            assert!(
                text.contains(&name) && text.contains(problem),
                "opening {name} should be refused naming the file and {problem:?}, got:\n{text}"
            );
            assert!(ui_text(&mut app).contains(&name), "the HUD shows the error about {name}");
            assert_eq!(
                seen(&mut app),
                before,
                "{name}: the map, its edits and the units must stay as they were"
            );
            assert!(unsaved(&app), "{name}: the edit is still unsaved");
        }
    }

    #[test]
    fn brackets_cycle_through_the_embedded_maps_and_shift_brackets_change_the_weight() {
        let mut app = test_app(MapSource::BuiltIn);
        let size = |app: &App| (pathfinder(app).grid().width(), pathfinder(app).grid().height());
        tap_key(&mut app, KeyCode::BracketRight);
        assert_eq!(size(&app), (10, 10), "] opens the next embedded map: the tutorial map");
        assert_eq!(app.world().resource::<MapInfo>().name, "tutorial.txt");
        tap_key(&mut app, KeyCode::BracketRight);
        assert_eq!(app.world().resource::<MapInfo>().name, "tutorial.tmx", "then the Tiled map");
        assert_eq!(size(&app), (24, 14));
        let grid = pathfinder(&app).grid();
        assert_eq!(grid.tile(Pos::new(8, 1)), Some(Tile::Wall), "a wall of the Tiled map's walls");
        assert_eq!(grid.tile(Pos::new(2, 2)), Some(Tile::Ground { cost: 5 }), "mud from its tileset");
        assert_eq!((pathfinder(&app).start(), pathfinder(&app).goal()), (Pos::new(1, 1), Pos::new(21, 12)));
        tap_key(&mut app, KeyCode::BracketRight);
        assert_eq!(size(&app), (40, 30), "] wraps around to the built-in map");
        assert_eq!((pathfinder(&app).start(), pathfinder(&app).goal()), (BUILTIN_START, BUILTIN_GOAL));
        tap_key(&mut app, KeyCode::BracketLeft);
        assert_eq!(size(&app), (24, 14), "[ goes back to the Tiled map");
        tap_key(&mut app, KeyCode::BracketLeft);
        assert_eq!(size(&app), (10, 10), "and to the tutorial map");
        let weight = pathfinder(&app).settings().weight;
        shift_tap_key(&mut app, KeyCode::BracketRight);
        assert_eq!(pathfinder(&app).settings().weight, weight + 0.5, "Shift+] raises the weight");
        assert_eq!(size(&app), (10, 10), "Shift+] does not change the map");
    }

    #[test]
    fn a_file_dropped_on_the_window_opens() {
        let mut app = test_app(MapSource::BuiltIn);
        let dir = tempfile::tempdir().expect("temp dir");
        let path =
            write(dir.path(), "dropped.map", b"type octile\nheight 3\nwidth 4\nmap\n....\n.@@.\n....\n");
        app.world_mut()
            .write_message(FileDragAndDrop::DroppedFile { window: Entity::PLACEHOLDER, path_buf: path });
        app.update();
        assert_eq!(pathfinder(&app).grid().width(), 4, "the dropped map is open");
        assert_eq!(app.world().resource::<MapInfo>().name, "dropped.map");
    }

    #[test]
    fn ctrl_s_saves_a_tpmap_that_loads_back_identically_without_placing_the_start() {
        let mut app = test_app_with_hud(MapSource::BuiltIn);
        assert!(!unsaved(&app), "a freshly opened map has nothing to save");
        drag(&mut app, MouseButton::Left, &[PAINTED, Pos::new(5, 6)]);
        tap_key(&mut app, KeyCode::Digit3); // mud
        drag(&mut app, MouseButton::Left, &[Pos::new(8, 3), Pos::new(10, 3)]);
        hover(&mut app, Some(Pos::new(20, 20)));
        tap_key(&mut app, KeyCode::KeyG);
        assert!(unsaved(&app) && ui_text(&mut app).contains("(unsaved)"), "edits show as unsaved");
        // Ctrl+S with the cursor over a free cell: S alone would move the start there.
        ctrl_s(&mut app);
        assert_eq!(pathfinder(&app).start(), BUILTIN_START, "Ctrl+S must not place the start");
        let path = save_dir(&app).join("default.tpmap");
        assert!(path.exists(), "the map is saved as {}", path.display());
        assert!(ui_text(&mut app).contains(&path.display().to_string()), "the HUD names the file");
        assert!(!unsaved(&app) && !ui_text(&mut app).contains("(unsaved)"), "saving clears unsaved");
        let loaded = load_map(&path).expect("the saved map loads");
        assert_eq!(tiles(&loaded.grid), tiles(pathfinder(&app).grid()), "walls and terrain come back");
        assert_eq!((loaded.start, loaded.goal), (Some(BUILTIN_START), Some(Pos::new(20, 20))));
        assert!(loaded.grid.tile(Pos::new(9, 3)).is_some_and(|t| t.cost() == Some(5)), "mud kept");

        // The next save goes over the same file; opening it back gives the same map.
        drag(&mut app, MouseButton::Left, &[Pos::new(30, 5)]);
        ctrl_s(&mut app);
        let files = std::fs::read_dir(save_dir(&app)).expect("save folder").count();
        assert_eq!(files, 1, "a second save writes over the map's own .tpmap");
        let saved = tiles(pathfinder(&app).grid());
        let endpoints = (pathfinder(&app).start(), pathfinder(&app).goal());
        tap_key(&mut app, KeyCode::BracketRight);
        open(&mut app, MapSource::File(path));
        assert_eq!(tiles(pathfinder(&app).grid()), saved, "the saved map opens as it was");
        assert_eq!((pathfinder(&app).start(), pathfinder(&app).goal()), endpoints);
    }

    #[test]
    fn saving_never_overwrites_another_file() {
        let mut app = test_app(MapSource::BuiltIn);
        let taken = save_dir(&app).join("default.tpmap");
        std::fs::write(&taken, "someone else's").expect("a file in the way");
        drag(&mut app, MouseButton::Left, &[PAINTED]);
        ctrl_s(&mut app);
        assert_eq!(std::fs::read_to_string(&taken).ok().as_deref(), Some("someone else's"));
        assert!(save_dir(&app).join("default-2.tpmap").exists(), "the save takes the next free name");
    }

    #[test]
    fn quitting_with_unsaved_edits_autosaves_and_without_does_not() {
        let mut app = test_app(MapSource::BuiltIn);
        app.world_mut().write_message(AppExit::Success);
        app.update();
        assert_eq!(std::fs::read_dir(save_dir(&app)).map(Iterator::count).ok(), Some(0), "nothing to save");

        let mut app = test_app(MapSource::BuiltIn);
        drag(&mut app, MouseButton::Left, &[PAINTED]);
        app.world_mut().write_message(AppExit::Success);
        app.update();
        let autosave = save_dir(&app).join("autosave-default~1.tpmap");
        let loaded = load_map(&autosave).expect("quitting wrote the autosave");
        assert_eq!(loaded.grid.tile(PAINTED), Some(Tile::Wall), "with the painted wall");
        assert_eq!(tiles(&loaded.grid), tiles(pathfinder(&app).grid()));

        // Closing the window counts as quitting too.
        let mut app = test_app(MapSource::BuiltIn);
        drag(&mut app, MouseButton::Left, &[PAINTED]);
        app.world_mut().write_message(bevy::window::WindowCloseRequested { window: Entity::PLACEHOLDER });
        app.update();
        assert!(save_dir(&app).join("autosave-default~1.tpmap").exists(), "closing the window autosaves");

        // A second session's edits of the same map never replace the first session's autosave.
        let first = std::fs::read(save_dir(&app).join("autosave-default~1.tpmap")).expect("first autosave");
        drag(&mut app, MouseButton::Left, &[Pos::new(8, 3)]);
        app.world_mut().write_message(AppExit::Success);
        app.update();
        let second = load_map(&save_dir(&app).join("autosave-default~2.tpmap")).expect("second autosave");
        assert_eq!(second.grid.tile(Pos::new(8, 3)), Some(Tile::Wall), "with the new edit");
        assert_eq!(std::fs::read(save_dir(&app).join("autosave-default~1.tpmap")).ok(), Some(first));
    }

    #[test]
    fn autosaves_keep_the_newest_few_of_each_map_and_nobody_elses_files() {
        use tilepath::edit::files::AUTOSAVES_KEPT;
        let mut app = test_app(MapSource::BuiltIn);
        // Files that only look alike: another map's autosave, an older naming, a backup.
        let others = ["autosave-default-7.tpmap", "autosave-default.tpmap", "autosave-default~1.bak.tpmap"];
        for name in others {
            write(&save_dir(&app), name, b"someone else's");
        }
        let sessions = AUTOSAVES_KEPT + 3;
        for n in 0..sessions {
            let x = 4 + u32::try_from(n).expect("a few sessions");
            drag(&mut app, MouseButton::Left, &[Pos::new(x, 5)]);
            app.world_mut().write_message(AppExit::Success);
            app.update();
        }
        let mut names: Vec<String> = std::fs::read_dir(save_dir(&app))
            .expect("the save folder")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|name| !others.contains(&name.as_str()))
            .collect();
        names.sort();
        let expected: Vec<String> = (sessions - AUTOSAVES_KEPT + 1..=sessions)
            .map(|n| format!("autosave-default~{n}.tpmap"))
            .collect();
        let mut expected_sorted = expected.clone();
        expected_sorted.sort();
        assert_eq!(names, expected_sorted, "only the newest {AUTOSAVES_KEPT} autosaves are kept");
        let newest = load_map(&save_dir(&app).join(&expected[AUTOSAVES_KEPT - 1])).expect("newest autosave");
        let last_x = 4 + u32::try_from(sessions - 1).expect("a few sessions");
        assert_eq!(newest.grid.tile(Pos::new(last_x, 5)), Some(Tile::Wall), "the newest has the last edit");
        for name in others {
            assert_eq!(
                std::fs::read(save_dir(&app).join(name)).ok().as_deref(),
                Some(&b"someone else's"[..]),
                "{name} is not one of this map's autosaves: it stays"
            );
        }
    }

    #[test]
    fn a_generated_map_nobody_edited_is_not_autosaved_on_quit() {
        let mut app = test_app(MapSource::BuiltIn);
        tap_key(&mut app, KeyCode::KeyR);
        assert!(unsaved(&app), "a generated map is on no disk");
        app.world_mut().write_message(AppExit::Success);
        app.update();
        assert_eq!(
            std::fs::read_dir(save_dir(&app)).map(Iterator::count).ok(),
            Some(0),
            "its generator and seed make it again: nothing to autosave"
        );
        let walker = unit(&mut app).0;
        let free = {
            let grid = pathfinder(&app).grid();
            let taken = [pathfinder(&app).start(), pathfinder(&app).goal(), walker.cell()];
            let clear =
                |p: Pos| taken.iter().chain(walker.occupied().collect::<Vec<_>>().iter()).all(|&t| t != p);
            grid.positions().find(|&p| grid.is_passable(p) && clear(p)).expect("a free cell")
        };
        drag(&mut app, MouseButton::Left, &[free]);
        app.world_mut().write_message(AppExit::Success);
        app.update();
        assert_eq!(
            std::fs::read_dir(save_dir(&app)).map(Iterator::count).ok(),
            Some(1),
            "an edited generated map is autosaved"
        );
    }

    #[test]
    fn opening_another_map_with_unsaved_edits_autosaves_them_first() {
        let mut app = test_app(MapSource::BuiltIn);
        drag(&mut app, MouseButton::Left, &[PAINTED]);
        app.world_mut().write_message(key_message(KeyCode::BracketRight, ButtonState::Pressed));
        app.update();
        let text = all_notices(&mut app);
        let autosave = save_dir(&app).join("autosave-default~1.tpmap");
        assert!(text.contains("autosaved") && text.contains(&autosave.display().to_string()), "{text}");
        assert_eq!(load_map(&autosave).ok().and_then(|m| m.grid.tile(PAINTED)), Some(Tile::Wall));
        assert!(!unsaved(&app), "the tutorial map is fresh");
    }

    #[test]
    fn r_shift_r_and_seed_make_reproducible_generated_maps() {
        let mut app = test_app_with_hud(MapSource::BuiltIn);
        tap_key(&mut app, KeyCode::KeyR);
        let expected = generate(Generator::ALL[0], 40, 30, 1).expect("noise map");
        assert_eq!(tiles(pathfinder(&app).grid()), tiles(&expected), "R: the noise generator, seed 1");
        assert_eq!(
            (Some(pathfinder(&app).start()), Some(pathfinder(&app).goal())),
            pick_endpoints(&expected).map_or((None, None), |(s, g)| (Some(s), Some(g))),
            "endpoints from gridpath's helper"
        );
        assert!(ui_text(&mut app).contains("noise seed 1"), "the HUD names generator and seed");
        assert!(unsaved(&app), "a generated map is unsaved");
        shift_tap_key(&mut app, KeyCode::KeyR);
        let maze = generate(Generator::Maze { corridor: 1 }, 40, 30, 2).expect("maze");
        assert_eq!(tiles(pathfinder(&app).grid()), tiles(&maze), "Shift+R: the maze generator, next seed");
        assert!(ui_text(&mut app).contains("maze seed 2"));
        assert_eq!(
            std::fs::read_dir(save_dir(&app)).map(Iterator::count).ok(),
            Some(0),
            "a pristine generated map is not autosaved when replaced: its seed makes it again"
        );
        walk_to_arrival(&mut app);

        // --seed 2 --generator maze at start-up: the same map.
        let mut again = unstarted_app(MapSource::BuiltIn);
        again.insert_resource(MapSeed(2)).insert_resource(MapGenerator(Generator::Maze { corridor: 1 }));
        again.insert_resource(GenerateAtStart);
        again.update();
        again.update();
        assert_eq!(tiles(pathfinder(&again).grid()), tiles(&maze), "--seed 2 --generator maze reproduces it");
    }

    /// The shared Moving AI benchmark folder (next to the checkout, as CI has it).
    pub(super) fn movingai(path: &str) -> Option<PathBuf> {
        let full = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/benchmarks/movingai").join(path);
        if full.exists() {
            return Some(full);
        }
        assert!(
            std::env::var_os("CI").is_none(),
            "CI has the shared benchmarks: {} is missing",
            full.display()
        );
        eprintln!("skipped: {} is missing", full.display());
        None
    }

    #[test]
    fn a_1024_map_loads_and_edits_on_it_work() {
        let Some(path) = movingai("street/NewYork_0_1024.map") else { return };
        let mut app = test_app(MapSource::BuiltIn);
        open(&mut app, MapSource::File(path));
        assert_eq!(pathfinder(&app).grid().width(), 1024, "the big map is open");
        assert!(matches!(report(&app).outcome, PlanOutcome::Found { .. }), "and planned");
        let free = pathfinder(&app)
            .grid()
            .positions()
            .find(|&p| p.x > 600 && pathfinder(&app).grid().is_passable(p))
            .expect("a free cell");
        drag(&mut app, MouseButton::Left, &[free]);
        assert_eq!(pathfinder(&app).grid().tile(free), Some(Tile::Wall), "painting works on the big map");
        assert!(unsaved(&app));
        // Clearing the city's walls is one bulk edit (cell by cell, each would recompute its
        // rows' and columns' jump bits: seconds on this map).
        tap_key(&mut app, KeyCode::KeyC);
        let grid = pathfinder(&app).grid();
        assert_eq!(grid.positions().filter(|&p| !grid.is_passable(p)).count(), 0, "C clears every wall");
        assert!(matches!(report(&app).outcome, PlanOutcome::Found { .. }), "and the route is planned again");
    }
}

mod scenario_replay {
    use super::*;
    use tilepath::units::crowd::CrowdUnit;
    use tilepath::units::scenario::{BATCH_SIZE, ScenarioFile, ScenarioRun};

    fn run(app: &App) -> &ScenarioRun {
        app.world().resource::<ScenarioRun>()
    }

    /// The app replaying `dao/arena.map.scen`, with its HUD, after its first two frames; `None`
    /// without the shared benchmark folder.
    fn arena_replay() -> Option<App> {
        let scen = super::maps_in_and_out::movingai("dao/arena.map.scen")?;
        let mut app = unstarted_app(MapSource::BuiltIn);
        app.add_plugins((tilepath::ui::hud::plugin, tilepath::ui::panel::plugin));
        app.insert_resource(ScenarioFile(scen));
        app.update();
        app.update();
        Some(app)
    }

    #[test]
    fn scen_walks_the_queries_one_after_another_and_the_hud_compares_lengths() {
        let Some(mut app) = arena_replay() else { return };
        assert_eq!(app.world().resource::<MapInfo>().name, "arena.map", "the map next to the .scen opens");
        let first = run(&app).queries[0].clone();
        assert_eq!((pathfinder(&app).start(), pathfinder(&app).goal()), (first.start, first.goal));
        let text = ui_text(&mut app);
        assert!(
            text.contains("query 1/160") && text.contains("vs optimum"),
            "the HUD shows the query:\n{text}"
        );

        // The lab's unit walks queries 1, 2, 3 in turn; each length is checked against the file.
        let mut seen_queries = vec![0];
        for _ in 0..3000 {
            app.update();
            let k = run(&app).current.unwrap_or(0);
            if seen_queries.last() != Some(&k) {
                seen_queries.push(k);
            }
            if k == 3 {
                break;
            }
        }
        assert_eq!(seen_queries, vec![0, 1, 2, 3], "queries are taken one after another");
        assert_eq!((run(&app).matches, run(&app).mismatches), (3, 0), "A* matches every published optimum");
        let text = ui_text(&mut app);
        assert!(text.contains("query 4/160") && text.contains("done: 3 match, 0 differ"), "{text}");
        let query = run(&app).queries[3].clone();
        assert_eq!(pathfinder(&app).start(), query.start, "the unit's start is the query's");
        assert!(
            !app.world().resource::<tilepath::edit::files::UnsavedEdits>().is_unsaved(),
            "queries are no edits"
        );

        // Q skips to the next query; B spawns the next 50 queries as crowd units on their starts.
        tap_key(&mut app, KeyCode::KeyQ);
        assert_eq!(run(&app).current, Some(4), "Q gives the unit the next query");
        tap_key(&mut app, KeyCode::KeyB);
        let mut crowd = app.world_mut().query::<(&Unit, &CrowdUnit)>();
        let starts: Vec<(Pos, Pos)> = crowd.iter(app.world()).map(|(u, c)| (u.cell(), c.goal())).collect();
        let expected: Vec<(Pos, Pos)> =
            run(&app).queries[..BATCH_SIZE].iter().map(|q| (q.start, q.goal)).collect();
        assert_eq!(starts.len(), BATCH_SIZE, "B spawns {BATCH_SIZE} units");
        for pair in &expected {
            assert!(starts.contains(pair), "a unit for query {pair:?}");
        }

        // Each batch unit's first route is judged against its query's published optimum.
        wait_for_batch_verdicts(&mut app);
        let r = run(&app);
        assert_eq!(
            (r.batch_spawned, r.batch_matches, r.batch_mismatches),
            (BATCH_SIZE, BATCH_SIZE, 0),
            "A* routes match every optimum"
        );
        let text = ui_text(&mut app);
        assert!(text.contains(&format!("batch units: {BATCH_SIZE} match, 0 differ, 0 planning")), "{text}");
    }

    /// Runs frames until every spawned batch unit's first route has been judged.
    fn wait_for_batch_verdicts(app: &mut App) {
        for _ in 0..3000 {
            app.update();
            let r = run(app);
            if r.batch_matches + r.batch_mismatches == r.batch_spawned {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        let r = run(app);
        panic!(
            "batch routes should be judged: {} spawned, {} match, {} differ",
            r.batch_spawned, r.batch_matches, r.batch_mismatches
        );
    }

    #[test]
    fn batch_routes_that_miss_the_optimum_are_counted() {
        let Some(mut app) = arena_replay() else { return };
        // Four moves: the published optima assume eight, so a query with a diagonal in its
        // optimal path now differs, and a straight one still matches.
        tap_key(&mut app, KeyCode::KeyM);
        assert_eq!(pathfinder(&app).settings().rules, gridpath::Rules::FOUR);
        // A wall on query 6's start: the queries that start or end there spawn no unit, and
        // the notice says how many.
        let walled = run(&app).queries[5].start;
        drag(&mut app, MouseButton::Left, &[walled]);
        assert_eq!(pathfinder(&app).grid().tile(walled), Some(Tile::Wall));
        let skipped =
            run(&app).queries[..BATCH_SIZE].iter().filter(|q| q.start == walled || q.goal == walled).count();
        app.world_mut().write_message(key_message(KeyCode::KeyB, ButtonState::Pressed));
        app.update();
        assert!(
            notices(&app)
                .iter()
                .any(|n| n.text.contains(&format!("({skipped} skipped: start or goal is a wall now)"))),
            "{:?}",
            notices(&app)
        );
        app.world_mut().write_message(key_message(KeyCode::KeyB, ButtonState::Released));
        app.update();
        wait_for_batch_verdicts(&mut app);
        let r = run(&app);
        let counts = (r.batch_spawned, r.batch_matches, r.batch_mismatches);
        assert_eq!(counts.0, BATCH_SIZE - skipped);
        assert_eq!(counts.1 + counts.2, counts.0, "every unit judged once: {counts:?}");
        assert!(counts.1 > 0 && counts.2 > 0, "straight queries match, diagonal ones differ: {counts:?}");
        let text = ui_text(&mut app);
        assert!(text.contains(&format!("batch units: {} match, {} differ", counts.1, counts.2)), "{text}");
    }

    #[test]
    fn a_bad_scenario_file_is_reported_and_the_game_goes_on() {
        let dir = tempfile::tempdir().expect("temp dir");
        let scen = dir.path().join("bad.map.scen");
        std::fs::write(&scen, "version 1\n0\tbad.map\t4\t4\t1\t1\t9\t9\t3\n").expect("write");
        let mut app = unstarted_app(MapSource::BuiltIn);
        app.insert_resource(ScenarioFile(scen));
        app.update();
        assert!(app.world().get_resource::<ScenarioRun>().is_none(), "no scenario runs");
        assert_eq!(pathfinder(&app).grid().width(), 40, "the built-in map is shown");
    }
}

mod script {
    use std::path::PathBuf;

    use super::*;
    use tilepath::cli::{Options, parse_args};
    use tilepath::dev::script::{Step, parse_script};

    #[test]
    fn scripts_parse_every_step() {
        let text = "# comment\nmove 3 4\npress left\nrelease right # trailing\n\nkey S\nkey Tab\nwait 7\n\
                    wait_arrival\nwait_arrival 10\nscreenshot out.png\nexit\n";
        let steps = parse_script(text).expect("a valid script");
        assert_eq!(steps.len(), 10);
        assert_eq!(steps[0], Step::Move(Pos::new(3, 4)));
        assert_eq!(steps[1], Step::Press(MouseButton::Left));
        assert_eq!(steps[2], Step::Release(MouseButton::Right));
        assert_eq!(steps[3], Step::Key(KeyCode::KeyS));
        assert_eq!(steps[4], Step::Key(KeyCode::Tab));
        assert_eq!(steps[5], Step::Wait(7));
        assert!(matches!(steps[6], Step::WaitArrival(_)));
        assert_eq!(steps[7], Step::WaitArrival(10));
        assert_eq!(steps[8], Step::Screenshot(PathBuf::from("out.png")));
        assert_eq!(steps[9], Step::Exit);
    }

    #[test]
    fn script_errors_name_the_line() {
        let error = parse_script("move 1 2\nmove 1\n").expect_err("an incomplete step");
        assert_eq!(error.line, 2);
        let error = parse_script("key Hyper\n").expect_err("an unknown key");
        assert!(error.to_string().contains("Hyper"));
        assert!(parse_script("press thumb\n").is_err());
        assert!(parse_script("wait -3\n").is_err());
    }

    #[test]
    fn the_demo_scripts_parse() {
        let steps = parse_script(include_str!("scripts/demo.txt")).expect("tests/scripts/demo.txt is valid");
        assert!(steps.contains(&Step::WaitArrival(3000)));
        let steps =
            parse_script(include_str!("scripts/search.txt")).expect("tests/scripts/search.txt is valid");
        assert!(steps.contains(&Step::Key(KeyCode::Comma)) && steps.contains(&Step::Key(KeyCode::KeyT)));
        let steps =
            parse_script(include_str!("scripts/tutorial.txt")).expect("tests/scripts/tutorial.txt is valid");
        assert!(steps.contains(&Step::Key(KeyCode::KeyD)));
        let steps = parse_script(include_str!("scripts/maps.txt")).expect("tests/scripts/maps.txt is valid");
        assert!(
            steps.contains(&Step::Key(KeyCode::BracketRight))
                && steps.contains(&Step::ShiftKey(KeyCode::KeyR))
        );
        assert_eq!(parse_script("key Period\n"), Ok(vec![Step::Key(KeyCode::Period)]));
    }

    #[test]
    fn command_line_options() {
        let args = |list: &[&str]| parse_args(list.iter().map(ToString::to_string));
        assert_eq!(args(&[]).ok(), Some(Options::default()));
        assert_eq!(
            args(&["--script", "s.txt", "--screenshot", "o.png", "--map", "m.map"]).ok(),
            Some(Options {
                map: Some("m.map".into()),
                script: Some("s.txt".into()),
                screenshot: Some("o.png".into()),
                ..Options::default()
            })
        );
        assert_eq!(
            args(&["--scen", "a.scen", "--seed", "7", "--generator", "maze", "--save-dir", "d"]).ok(),
            Some(Options {
                scen: Some("a.scen".into()),
                seed: Some(7),
                generator: Some(gridpath::generate::Generator::Maze { corridor: 1 }),
                save_dir: Some("d".into()),
                ..Options::default()
            })
        );
        assert!(args(&["--map", "m.map", "--scen", "a.scen"]).is_err(), "the scenario names its map");
        assert!(args(&["--seed", "x"]).is_err(), "a seed is a number");
        assert!(args(&["--generator", "spirals"]).is_err(), "an unknown generator");
        let help = args(&["--help"]).expect_err("--help prints the help");
        assert_eq!(help.kind(), clap::error::ErrorKind::DisplayHelp);
        for flag in ["--map", "--scen", "--seed", "--generator", "--save-dir", "--script", "--screenshot"] {
            assert!(help.to_string().contains(flag), "--help lists {flag}");
        }
        assert_eq!(args(&["--bogus"]).expect_err("a bad flag").exit_code(), 2, "a bad flag exits with 2");
        let page = std::fs::read_to_string("docs/cli.md").expect("docs/cli.md exists");
        assert!(
            page.contains(help.to_string().trim_end()),
            "docs/cli.md must show `tilepath --help` as it is now:\n{help}"
        );
        assert!(args(&["--map"]).is_err(), "a missing value is an error");
        assert!(args(&["--bogus"]).is_err());
        assert!(args(&["--map", "a", "--map", "b"]).is_err());
    }
}

/// The real binary in a real window under Xvfb (Mesa's software Vulkan): `tests/window.sh` plays
/// `tests/scripts/demo.txt`, saves a screenshot and checks pixel colours at known cells.
mod window {
    use std::path::Path;
    use std::process::Command;

    #[test]
    fn scripted_run_in_a_real_window_passes_the_pixel_checks() {
        let have_xvfb =
            Command::new("sh").args(["-c", "command -v xvfb-run"]).output().is_ok_and(|o| o.status.success());
        if !have_xvfb {
            // CI installs Xvfb (.ci/run), so there a missing one is a failure, not a skip.
            assert!(
                std::env::var_os("CI").is_none(),
                "xvfb-run is missing: .ci/run should have installed it"
            );
            eprintln!("skipped: xvfb-run is not installed (see docs/manual.md: the real-window test)");
            return;
        }
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        let out = std::env::temp_dir().join(format!("tilepath-window-{}", std::process::id()));
        let status = Command::new("bash")
            .arg(repo.join("tests/window.sh"))
            .arg(&out)
            .env("TILEPATH_BIN", env!("CARGO_BIN_EXE_tilepath"))
            .status()
            .expect("bash runs tests/window.sh");
        assert!(status.success(), "the window test failed: see its output above and {}", out.display());
        let _ = std::fs::remove_dir_all(&out);
    }
}

/// The source layout: feature folders whose imports run one way, and no import cycle between
/// files.
mod layout {
    use std::collections::{BTreeMap, BTreeSet};
    use std::path::Path;

    /// The features, lowest first: a file may import from its own folder and the folders before
    /// it, never from one after it.
    const ORDER: [&str; 8] = ["map", "input", "edit", "search", "units", "view", "ui", "dev"];

    /// Every `src/` file as its module path (`units::lab`), with its text.
    fn modules() -> BTreeMap<String, String> {
        fn walk(dir: &Path, files: &mut BTreeMap<String, String>) {
            for entry in std::fs::read_dir(dir).expect("src/ is readable").flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(&path, files);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let relative = path.strip_prefix("src").expect("under src/").with_extension("");
                    let name = relative.to_string_lossy().replace('/', "::").replace("::mod", "");
                    files.insert(name, std::fs::read_to_string(&path).expect("a source file"));
                }
            }
        }
        let mut files = BTreeMap::new();
        walk(Path::new("src"), &mut files);
        files
    }

    /// The modules `text` imports with `crate::…` paths (the longest path that is a module).
    fn imports(text: &str, modules: &BTreeMap<String, String>) -> BTreeSet<String> {
        let mut found = BTreeSet::new();
        for (at, _) in text.match_indices("crate::") {
            let rest = &text[at + "crate::".len()..];
            let path: String =
                rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
            let parts: Vec<&str> = path.split("::").filter(|p| !p.is_empty()).collect();
            if let Some(module) =
                (1..=parts.len()).rev().map(|k| parts[..k].join("::")).find(|m| modules.contains_key(m))
            {
                found.insert(module);
            }
        }
        found
    }

    #[test]
    fn feature_folders_import_one_way_and_no_file_imports_in_a_cycle() {
        let modules = modules();
        assert!(
            modules.contains_key("units::lab") && modules.contains_key("map::level"),
            "the folders exist"
        );
        let rank = |module: &str| ORDER.iter().position(|f| module.split("::").next() == Some(f));
        let mut graph: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
        for (module, text) in &modules {
            let deps = imports(text, &modules);
            for dep in &deps {
                if let (Some(from), Some(to)) = (rank(module), rank(dep)) {
                    assert!(
                        to <= from,
                        "{module} imports {dep}: features import only from the ones before them"
                    );
                }
                if rank(module).is_none() && !["lib", "main"].contains(&module.as_str()) {
                    assert!(
                        rank(dep).is_none(),
                        "the shared file {module} must not import the feature {dep}"
                    );
                }
            }
            // A folder's mod.rs declares its files; that is not an import.
            let deps = deps.into_iter().filter(|d| !d.starts_with(&format!("{module}::"))).collect();
            graph.insert(module, deps);
        }
        graph.remove("lib");
        // Depth-first search for a back edge.
        fn visit<'a>(
            m: &'a str,
            graph: &'a BTreeMap<&str, BTreeSet<String>>,
            state: &mut BTreeMap<&'a str, bool>,
            path: &mut Vec<&'a str>,
        ) {
            match state.get(m) {
                Some(true) => panic!("import cycle: {} -> {m}", path.join(" -> ")),
                Some(false) => return,
                None => {}
            }
            state.insert(m, true);
            path.push(m);
            for dep in graph.get(m).into_iter().flatten() {
                visit(dep, graph, state, path);
            }
            path.pop();
            state.insert(m, false);
        }
        let mut state = BTreeMap::new();
        for module in graph.keys() {
            visit(module, &graph, &mut state, &mut Vec::new());
        }
    }
}
