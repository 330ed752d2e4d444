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
    assert!(
        table.shown && table.rows.len() == Algorithm::ALL.len() + 1,
        "T races every algorithm: {table:?}"
    );
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
