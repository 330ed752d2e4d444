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
    assert!(text.contains("The unit waits for the search replay") && text.contains("Esc skips it"), "{text}");
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
    assert_eq!(replay.applied_events(), &report(&app).trace[..replay.applied()], "it replays the new search");
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
