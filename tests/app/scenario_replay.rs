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
    assert!(text.contains("query 1/160") && text.contains("vs optimum"), "the HUD shows the query:\n{text}");

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
