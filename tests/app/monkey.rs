//! The monkey test: a seeded driver presses every bound key (with its modifiers), moves the
//! pointer on and off the map, drags and clicks every mouse button with and without Shift and
//! Ctrl, opens saved maps, for thousands of frames, and checks after every frame that nothing
//! broke: no unit in a wall, off the map or at a NaN position; every route a unit follows legal
//! under its rules on the current map (steps for grid routes, line of sight for smoothed ones); the HUD's route the current one; every save reading back
//! as the map it saved.
//!
//! `cargo test` runs 10,000 frames; more with
//! `MONKEY_FRAMES=100000 cargo test -p tilepath --test app monkey -- --nocapture`
//! (`MONKEY_SEED=N` for another seed).

use super::*;
use bevy_gridpath::PathRequest;
use gridpath::formats::load_map;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tilepath::edit::files::OpenMap;
use tilepath::input::bindings::{Chord, bindings};
use tilepath::search::plan::PlanOutcome;
use tilepath::units::crowd::CrowdUnit;

/// Crowd units beyond which the monkey stops spawning (a debug build steers a few thousand
/// units per frame fast enough; the point is the variety of input, not the crowd's size).
const MAX_CROWD: usize = 1_500;

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[test]
fn ten_thousand_frames_of_random_input_break_no_invariant() {
    let frames = env_number("MONKEY_FRAMES", 10_000);
    let seed = env_number("MONKEY_SEED", 2026);
    let mut app = test_app(MapSource::BuiltIn);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let keys: Vec<Chord> =
        bindings().map(|b| b.chord).filter(|c| !matches!(c, Chord::Pointer(_) | Chord::Hold(_))).collect();
    let mut held: Vec<KeyCode> = Vec::new();
    let mut stats = Stats::default();
    for frame in 0..frames {
        // Release what the last frame pressed (keys are taps; mouse buttons stay down for drags).
        for key in held.drain(..) {
            app.world_mut().write_message(key_message(key, ButtonState::Released));
        }
        let saved = act(&mut app, &mut rng, &keys, &mut held, &mut stats);
        if frame >= env_number("MONKEY_TRACE_FROM", u64::MAX) {
            let hover = app.world().resource::<HoverTile>().0;
            let keys: Vec<_> =
                app.world().resource::<ButtonInput<KeyCode>>().get_pressed().copied().collect();
            let grid = pathfinder(&app).grid();
            let tile = hover.and_then(|c| grid.tile(c));
            eprintln!(
                "frame {frame}: hover {hover:?} ({tile:?}, map {}x{} r{}), keys down before {keys:?}, last {:?}",
                grid.width(),
                grid.height(),
                grid.revision(),
                stats.last
            );
        }
        app.update();
        if frame >= env_number("MONKEY_TRACE_FROM", u64::MAX) {
            let geometry = pathfinder(&app).geometry();
            let mut q = app.world_mut().query::<(
                Entity,
                &Transform,
                Option<&Mover>,
                Has<tilepath::units::crowd::CrowdUnit>,
                &PathStatus,
                &Waypoints,
            )>();
            for (e, t, m, crowd, st, w) in q.iter(app.world()) {
                eprintln!(
                    "  unit {e} crowd={crowd} cell {:?} at {:?} mover {:?} status {st:?} next wps {:?}",
                    geometry.cell_at(t.translation.truncate()),
                    t.translation.truncate(),
                    m.map(|m| (m.cell(), m.next(), m.limit)),
                    w.iter().take(3).map(|w| w.cell).collect::<Vec<_>>()
                );
            }
        }
        check_invariants(&mut app, frame, &mut stats);
        if saved {
            check_save(&app, frame);
        }
    }
    println!("monkey: seed {seed}, {frames} frames: {stats:?}");
    assert!(
        stats.saves > 0 && stats.loads > 0 && stats.keys > frames / 4,
        "the monkey did things: {stats:?}"
    );
}

#[derive(Debug, Default)]
struct Stats {
    keys: u64,
    clicks: u64,
    saves: u64,
    loads: u64,
    routes_checked: u64,
    max_units: usize,
    /// The last action, for tracing.
    last: String,
    map_sizes: Vec<(u32, u32)>,
}

/// One frame's random input; `true` when it pressed Ctrl+S.
fn act(
    app: &mut App,
    rng: &mut ChaCha8Rng,
    keys: &[Chord],
    held: &mut Vec<KeyCode>,
    stats: &mut Stats,
) -> bool {
    let (width, height) = {
        let grid = pathfinder(app).grid();
        (grid.width(), grid.height())
    };
    let action = rng.random_range(0..100);
    let chord = keys[rng.random_range(0..keys.len())];
    // The pointer: mostly on the map, sometimes off it (over the panel, outside the window).
    // It stays put while saving, so a drag in progress paints nothing after the save.
    if !(40..70).contains(&action) || chord != Chord::Ctrl(KeyCode::KeyS) {
        let cell =
            rng.random_bool(0.9).then(|| Pos::new(rng.random_range(0..width), rng.random_range(0..height)));
        hover(app, cell);
    }
    match action {
        0..40 => {}
        40..70 => {
            let crowd = app.world_mut().query_filtered::<(), With<CrowdUnit>>().iter(app.world()).count();
            if crowd >= MAX_CROWD && matches!(chord, Chord::Key(KeyCode::KeyU) | Chord::Shift(KeyCode::KeyU))
            {
                return false;
            }
            let (modifier, key) = match chord {
                Chord::Key(key) => (None, key),
                Chord::Shift(key) => (Some(KeyCode::ShiftLeft), key),
                Chord::Ctrl(key) => (Some(KeyCode::ControlLeft), key),
                Chord::Hold(_) | Chord::Pointer(_) => return false,
            };
            stats.last = format!("{chord:?}");
            for key in modifier.into_iter().chain([key]) {
                app.world_mut().write_message(key_message(key, ButtonState::Pressed));
                held.push(key);
            }
            stats.keys += 1;
            if chord == Chord::Ctrl(KeyCode::KeyS) {
                stats.saves += 1;
                return true;
            }
        }
        70..90 => {
            let button = [MouseButton::Left, MouseButton::Right, MouseButton::Middle][rng.random_range(0..3)];
            let state = if rng.random_bool(0.5) { ButtonState::Pressed } else { ButtonState::Released };
            // Shift+left-drag selects, Ctrl is held while clicking too.
            if rng.random_bool(0.3) {
                let modifier = if rng.random_bool(0.5) { KeyCode::ShiftLeft } else { KeyCode::ControlLeft };
                app.world_mut().write_message(key_message(modifier, ButtonState::Pressed));
                held.push(modifier);
            }
            stats.last = format!("{button:?} {state:?} (modifier held: {:?})", held.last());
            mouse(app, button, state);
            stats.clicks += 1;
        }
        90..92 => {
            // Open one of the saves (a map load from the save folder), or a file that is gone.
            let dir = save_dir(app);
            let mut files: Vec<_> =
                std::fs::read_dir(&dir).map(|e| e.flatten().map(|e| e.path()).collect()).unwrap_or_default();
            files.sort();
            let path = if files.is_empty() || rng.random_bool(0.2) {
                dir.join("no-such-map.tpmap")
            } else {
                files[rng.random_range(0..files.len())].clone()
            };
            stats.last = format!("open {}", path.display());
            app.world_mut().write_message(OpenMap(MapSource::File(path)));
            stats.loads += 1;
        }
        _ => {
            // A replay speed other than instant now and then, and back.
            let speed = if rng.random_bool(0.5) { AnimationSpeed::Instant } else { AnimationSpeed::Auto };
            *app.world_mut().resource_mut::<AnimationSpeed>() = speed;
        }
    }
    false
}

fn check_invariants(app: &mut App, frame: u64, stats: &mut Stats) {
    let mut units =
        app.world_mut().query::<(Entity, &Transform, &PathStatus, &Waypoints, Option<&PathRequest>)>();
    let problem = pathfinder(app);
    let grid = problem.grid();
    let (start, goal) = (problem.start(), problem.goal());
    let rules = problem.settings().rules;
    assert!(grid.is_passable(start) && grid.is_passable(goal), "frame {frame}: endpoints on free cells");
    let size = (grid.width(), grid.height());
    if !stats.map_sizes.contains(&size) {
        stats.map_sizes.push(size);
    }

    let world = app.world();
    let mut count = 0;
    for (entity, transform, status, waypoints, request) in units.iter(world) {
        count += 1;
        let at = transform.translation.truncate();
        assert!(at.is_finite(), "frame {frame}: unit {entity} at a NaN position");
        let cell = problem.nav.cell_at(at);
        let cell = cell.unwrap_or_else(|| panic!("frame {frame}: unit {entity} off the map at {at}"));
        assert!(grid.is_passable(cell), "frame {frame}: unit {entity} inside a wall at {cell}");
        // A large unit's whole body (its size from its request) stays off walls.
        let size = request.map_or(1, |r| r.settings.agent_size.max(1));
        if size > 1 {
            let anchor = problem.nav.anchor_at(at, size).expect("a body on the map");
            for part in problem.nav.body_cells(anchor, size) {
                assert!(
                    grid.is_passable(part),
                    "frame {frame}: large unit {entity}'s body in a wall at {part}"
                );
            }
        }
        if matches!(*status, PathStatus::Following | PathStatus::Partial)
            && let Some(request) = request
        {
            let cells: Vec<Pos> = waypoints.iter().map(|w| w.cell).collect();
            let rules = request.settings.rules;
            for pair in cells.windows(2) {
                // A smoothed route's segments need line of sight; a grid route's steps are moves.
                let legal = if request.smooth || request.settings.algorithm.is_any_angle() {
                    grid.line_of_sight(pair[0], pair[1], rules)
                } else {
                    grid.can_step(pair[0], pair[1], rules)
                };
                assert!(
                    legal,
                    "frame {frame}: unit {entity}'s route steps {} -> {} illegally under {rules:?}",
                    pair[0], pair[1]
                );
            }
            stats.routes_checked += 1;
        }
    }
    stats.max_units = stats.max_units.max(count);

    // The HUD's route is the current problem's: from the start to the goal, legal on this map.
    if let PlanOutcome::Found { path, .. } = &report(app).outcome {
        assert_eq!(path.cells.first(), Some(&start), "frame {frame}: the shown route starts at the start");
        match path.outcome {
            gridpath::Outcome::Complete => {
                assert_eq!(path.cells.last(), Some(&goal), "frame {frame}: the shown route ends at the goal");
            }
            // A partial route (L) ends short of the goal it was asked for: the current one.
            gridpath::Outcome::Partial { goal: asked } => {
                assert_eq!(asked, goal, "frame {frame}: the shown partial route is for the current goal");
            }
        }
        let legal = if problem.settings().algorithm.is_any_angle() {
            grid.any_angle_cost(&path.cells, rules)
        } else {
            grid.path_cost(&path.cells, rules)
        };
        if let Err(step) = legal {
            panic!("frame {frame}: the shown route is stale: {step}");
        }
    }
}

/// After Ctrl+S: the file the map now belongs to reads back as exactly the map on screen.
fn check_save(app: &App, frame: u64) {
    let Some(path) = app.world().resource::<MapInfo>().path.clone() else {
        panic!("frame {frame}: a saved map knows its file");
    };
    let loaded =
        load_map(&path).unwrap_or_else(|e| panic!("frame {frame}: the save {} reads: {e}", path.display()));
    let problem = pathfinder(app);
    let grid = problem.grid();
    assert_eq!((loaded.grid.width(), loaded.grid.height()), (grid.width(), grid.height()), "frame {frame}");
    assert!(
        grid.positions().all(|p| loaded.grid.tile(p) == grid.tile(p)),
        "frame {frame}: the save holds every cell"
    );
    assert_eq!(
        (loaded.start, loaded.goal),
        (Some(problem.start()), Some(problem.goal())),
        "frame {frame}: and the endpoints"
    );
}
