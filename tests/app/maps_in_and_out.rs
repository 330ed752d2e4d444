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
        (write(dir.path(), "malformed.map", b"type octile\nheight 2\nwidth 3\nmap\n..x\n...\n"), "line 5"),
        (write(dir.path(), "truncated.map", b"type octile\nheight 4\nwidth 3\nmap\n...\n..."), "line"),
        (write(dir.path(), "binary.map", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), "not a text map"),
        (huge, "limited to"),
        (write(dir.path(), "toobig.map", too_big.as_bytes()), "2048"),
        (
            write(dir.path(), "broken.tmx", b"<?xml version=\"1.0\"?><map orientation=\"orthogonal\""),
            "broken.tmx",
        ),
        (write(dir.path(), "walls.txt", b"###\n###\n"), "no ground cell"),
        // A 2007 map of corner heights whose two tiles differ in height: a fence between them.
        (
            write(
                dir.path(),
                "cliff.map",
                b"type octile-corner\nheight 2\nwidth 3\nmap\n233\n233\nGGG\nGGG\n",
            ),
            "height steps",
        ),
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
        assert_eq!(seen(&mut app), before, "{name}: the map, its edits and the units must stay as they were");
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
    let path = write(dir.path(), "dropped.map", b"type octile\nheight 3\nwidth 4\nmap\n....\n.@@.\n....\n");
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
    let expected: Vec<String> =
        (sessions - AUTOSAVES_KEPT + 1..=sessions).map(|n| format!("autosave-default~{n}.tpmap")).collect();
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
    assert!(std::env::var_os("CI").is_none(), "CI has the shared benchmarks: {} is missing", full.display());
    eprintln!("skipped: {} is missing", full.display());
    None
}

#[test]
fn a_1024_map_loads_and_edits_on_it_work() {
    let Some(path) = movingai("street/NewYork_0_1024.map") else { return };
    let mut app = test_app(MapSource::BuiltIn);
    open(&mut app, MapSource::File(path));
    assert_eq!(pathfinder(&app).grid().width(), 1024, "the big map is open");
    // Its route is searched on a thread of its own (a map above INLINE_PLAN_CELLS).
    until_planned(&mut app);
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
    until_planned(&mut app);
    let (start, goal) = (pathfinder(&app).start(), pathfinder(&app).goal());
    let (dx, dy) = (f64::from(start.x.abs_diff(goal.x)), f64::from(start.y.abs_diff(goal.y)));
    let straight_on = dx.max(dy) - dx.min(dy) + dx.min(dy) * std::f64::consts::SQRT_2;
    match &report(&app).outcome {
        PlanOutcome::Found { path, .. } => {
            assert!((path.cost - straight_on).abs() < 1e-6, "the route is planned again, on open ground");
        }
        other => panic!("the route is planned again: {other:?}"),
    }
}

/// Every file directly inside `dir`, by name.
fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| entries.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn hostile_file_names_never_steer_a_save_or_an_autosave_out_of_the_save_folder() {
    // Names a dropped or opened file may carry on Linux (only `/` and NUL are impossible).
    let hostile = [
        "..\\..\\evil.map",
        " .. .map",
        "-rf ~.map",
        "ünïcødé 地图.map",
        "....map",
        ".hidden",
        "a\u{202e}gnp.map",
        "line\nbreak.map",
        "%2e%2e%2fescape.map",
        "CON.map",
    ];
    let maps = tempfile::tempdir().expect("a folder for the hostile maps");
    // The save folder is a subfolder, so a save that climbed out of it would land in `outside`.
    let outside = tempfile::tempdir().expect("a parent folder");
    let save_dir = outside.path().join("saves");
    let map_text = "type octile\nheight 5\nwidth 8\nmap\n........\n.@......\n........\n........\n........\n";
    for name in hostile {
        let path = write(maps.path(), name, map_text.as_bytes());
        let mut app = test_app(MapSource::File(path.clone()));
        app.insert_resource(SaveDir(save_dir.clone()));
        assert_eq!(app.world().resource::<MapInfo>().path.as_deref(), Some(path.as_path()), "{name:?} opens");
        drag(&mut app, MouseButton::Left, &[Pos::new(3, 2)]);
        ctrl_s(&mut app);
        drag(&mut app, MouseButton::Left, &[Pos::new(5, 2)]);
        app.world_mut().write_message(AppExit::Success);
        app.update();
        let grid = tiles(pathfinder(&app).grid());
        let saved: Vec<String> = files_in(&save_dir);
        let autosave = saved.iter().find(|n| n.starts_with("autosave-")).expect("the quit autosaved");
        let loaded = load_map(&save_dir.join(autosave)).expect("the autosave reads back");
        assert_eq!(tiles(&loaded.grid), grid, "{name:?}: the autosave holds the map");
        for file in &saved {
            assert!(!file.contains(['/', '\\', '\n']) && !file.starts_with('.'), "{name:?} gave {file:?}");
        }
        assert_eq!(
            files_in(outside.path()),
            vec!["saves".to_owned()],
            "{name:?}: nothing written beside the save folder"
        );
        assert_eq!(
            files_in(maps.path()).len(),
            hostile.iter().position(|n| *n == name).expect("listed") + 1,
            "{name:?}: nothing written beside the map"
        );
        std::fs::remove_dir_all(&save_dir).expect("empty the save folder for the next name");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

    /// Whatever the map's name, a new save lands directly in the save folder, with a name that
    /// is neither hidden nor a path.
    #[test]
    fn any_map_name_saves_inside_the_save_folder(name in "\\PC{0,40}|[./\\\\a~-]{0,12}") {
        let dir = Path::new("/srv/saves");
        let info = MapInfo { name: name.clone(), error: None, path: None };
        let target = tilepath::edit::files::save_target(&info, dir);
        proptest::prop_assert_eq!(target.parent(), Some(dir), "{:?} -> {:?}", name, target);
        let file = target.file_name().and_then(|f| f.to_str()).expect("a UTF-8 file name");
        proptest::prop_assert!(file.ends_with(".tpmap") && !file.starts_with('.') && !file.contains(['/', '\\']));
    }
}

#[test]
fn ctrl_e_exports_the_map_as_a_benchmark_whose_optima_the_searches_reproduce() {
    let mut app = test_app(MapSource::BuiltIn);
    drag(&mut app, MouseButton::Left, &[PAINTED]);
    // Shallows (cost 10): the .map format caps costs at 9, the queries must agree with the file.
    tap_key(&mut app, KeyCode::Digit4);
    drag(&mut app, MouseButton::Left, &[Pos::new(10, 12), Pos::new(14, 12)]);
    app.world_mut().write_message(key_message(KeyCode::ControlLeft, ButtonState::Pressed));
    app.world_mut().write_message(key_message(KeyCode::KeyE, ButtonState::Pressed));
    app.update();
    assert!(all_notices(&mut app).contains("gridpath scen"), "the notice says how to run it");
    app.world_mut().write_message(key_message(KeyCode::KeyE, ButtonState::Released));
    app.world_mut().write_message(key_message(KeyCode::ControlLeft, ButtonState::Released));
    app.update();
    let dir = save_dir(&app);
    let map = load_map(&dir.join("default.map")).expect("the exported map reads");
    assert_eq!(map.grid.tile(PAINTED), Some(Tile::Wall));
    let text = std::fs::read_to_string(dir.join("default.map.scen")).expect("the queries beside it");
    let queries = gridpath::formats::parse_scen(&text).expect("a valid .scen");
    assert!(queries.len() >= 50, "{} queries", queries.len());
    let mut searcher = gridpath::Searcher::new();
    for q in &queries {
        assert_eq!(q.map, "default.map");
        let path = searcher.find_path(&map.grid, q.start, q.goal, &Settings::default()).expect("a route");
        assert!((path.cost - q.optimal).abs() < 1e-6, "{q:?}: {}", path.cost);
    }
    // A second export never overwrites the first.
    app.world_mut().write_message(key_message(KeyCode::ControlLeft, ButtonState::Pressed));
    tap_key(&mut app, KeyCode::KeyE);
    app.world_mut().write_message(key_message(KeyCode::ControlLeft, ButtonState::Released));
    app.update();
    assert!(dir.join("default-2.map").exists() && dir.join("default-2.map.scen").exists());
}
