//! The `gridpath` binary, run as a user would.

mod common;

use std::process::Command;

fn gridpath(args: &[&str]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_gridpath")).args(args).output().expect("the binary runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

fn write_temp(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("gridpath-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn field_prints_the_contour_table() {
    let map = write_temp("field.txt", ".....\n.##..\n..#..\n....G\n");
    let (out, err, code) = gridpath(&["field", map.to_str().unwrap(), "--goal", "4,3", "--corners", "allow"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "06 05 04 04 04\n05 00 00 03 03\n05 04 00 02 02\n05 04 03 02 01\n");
}

#[test]
fn solve_prints_the_map_and_a_summary_line() {
    let map = write_temp("solve.txt", "S.#.\n..#.\n....\n...G\n");
    let (out, err, code) = gridpath(&["solve", map.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5, "{out}");
    assert!(lines[0].starts_with('S') && lines[3].ends_with('G'), "{out}");
    assert!(out.contains('*'), "path cells are marked: {out}");
    assert!(lines[4].starts_with("cost=4.8284 cells=5 expanded="), "{}", lines[4]);
    assert!(lines[4].contains(" time_us="), "{}", lines[4]);
}

#[test]
fn solve_json_has_the_documented_fields() {
    let map = write_temp("json.txt", "0,0,0\n1,1,0\n0,0,0\n");
    let (out, err, code) =
        gridpath(&["solve", map.to_str().unwrap(), "--from", "0,0", "--to", "0,2", "--json", "--moves", "4"]);
    assert_eq!(code, 0, "{err}");
    // `path` is the route's corner points, `cells_path` every cell it passes.
    for key in [
        "\"cost\":6.0",
        "\"cells\":7",
        "\"expanded\":",
        "\"time_us\":",
        "\"path\":[[0,0],[2,0],[2,2],[0,2]]",
        "\"cells_path\":[[0,0],[1,0],[2,0],[2,1],[2,2],[1,2],[0,2]]",
        "\"smoothed\":false",
        "\"size\":1",
    ] {
        assert!(out.contains(key), "missing {key} in {out}");
    }
}

#[test]
fn errors_are_readable_and_set_the_exit_code() {
    let map = write_temp("bad.map", "type octile\nheight 2\nwidth 2\nmap\n..\n.x\n");
    let (_, err, code) = gridpath(&["solve", map.to_str().unwrap(), "--from", "0,0", "--to", "1,0"]);
    assert_eq!(code, 2);
    assert!(err.contains("line 6, column 2"), "{err}");
    let walled = write_temp("walled.txt", "S#.\n.#G\n");
    let (_, err, code) = gridpath(&["solve", walled.to_str().unwrap()]);
    assert_eq!((code, err.trim()), (1, "error: no path from (0,0) to (2,1)"));
    let (_, err, code) = gridpath(&["solve", walled.to_str().unwrap(), "--to", "1,0"]);
    assert_eq!(code, 1);
    assert!(err.contains("goal (1,0) is on a wall"), "{err}");
}

#[test]
fn scen_checks_arena_and_prints_the_summary_line() {
    let scen = common::movingai_dir().join("dao/arena.map.scen");
    let (out, err, code) = gridpath(&["scen", scen.to_str().unwrap(), "--algo", "jps"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().last(), Some("scen: 160 queries, 0 mismatches, 0 illegal"), "{out}");
    let (out, err, code) = gridpath(&["scen", scen.to_str().unwrap(), "--algo", "jps", "--no-jump-bits"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().last(), Some("scen: 160 queries, 0 mismatches, 0 illegal"), "{out}");
    // A non-optimal algorithm may mismatch without failing the run.
    let (out, _, code) = gridpath(&["scen", scen.to_str().unwrap(), "--algo", "greedy"]);
    assert_eq!(code, 0, "greedy is not expected to be optimal: {out}");
}

#[test]
fn scen_matches_wc3maps512_on_its_2007_map_and_convert_keeps_no_half_map() {
    // The 2007 octile-corner map is scaled to the scenarios' 512 x 512, its height steps fenced.
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/wc3-2007");
    let scen = data.join("duskwood.map.scen");
    let (out, err, code) = gridpath(&["scen", scen.to_str().unwrap(), "--algo", "jps"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().last(), Some("scen: 1280 queries, 0 mismatches, 0 illegal"), "{out}");
    // No output format keeps fences: converting would lose the map's cliffs, so it is refused.
    let dir = tempfile::tempdir().unwrap();
    let to = dir.path().join("duskwood.tpmap");
    let (_, err, code) =
        gridpath(&["convert", data.join("duskwood.map").to_str().unwrap(), to.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("fenced") && !to.exists(), "{err}");
}

#[test]
fn bench_checks_every_answer_in_both_orders() {
    // Without the peers feature the bench times and checks gridpath's own searches; the
    // per-map row and the summary line are there in either order of the runs.
    let scen = common::movingai_dir().join("dao/arena.map.scen");
    for order in ["query", "method"] {
        let (out, err, code) =
            gridpath(&["bench", scen.to_str().unwrap(), "--max-queries", "20", "--order", order]);
        assert_eq!(code, 0, "{order}: {err}");
        assert!(out.lines().any(|l| l.starts_with("arena ") && l.contains(" 20 |")), "{order}: {out}");
        // JPS's preprocessing is reported apart from the query times, GPPC style.
        assert!(
            out.lines().any(|l| l.starts_with("jump bits (JPS's preprocessing, 1 B/cell): built in ")),
            "{order}: {out}"
        );
        assert_eq!(
            out.lines().last(),
            Some("bench: 20 queries, 0 wrong or illegal answers"),
            "{order}: {out}"
        );
    }
    let (_, err, code) = gridpath(&["bench", scen.to_str().unwrap(), "--order", "sideways"]);
    assert_eq!(code, 2, "an unknown order is a usage error: {err}");
}

#[test]
fn convert_round_trips_through_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let source = "tilepath 1\nwidth 5\nheight 3\nstart 0 0\ngoal 4 2\nmap\n..#..\n.2#5.\n.....\n";
    std::fs::write(path("a.tpmap"), source).unwrap();
    for (from, to) in [("a.tpmap", "b.tmx"), ("b.tmx", "c.tpmap")] {
        let (_, err, code) = gridpath(&["convert", &path(from), &path(to)]);
        assert_eq!(code, 0, "{from} -> {to}: {err}");
    }
    assert!(dir.path().join("tilepath.tsx").exists(), "a .tmx gets its tileset beside it");
    assert_eq!(std::fs::read_to_string(path("c.tpmap")).unwrap(), source, "tpmap -> tmx -> tpmap");
    let (_, err, code) = gridpath(&["convert", &path("c.tpmap"), &path("d.txt")]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read_to_string(path("d.txt")).unwrap(), "S.#..\n..#..\n....G\n");
    let (_, err, code) = gridpath(&["convert", &path("d.txt"), &path("e.map")]);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::read_to_string(path("e.map")).unwrap().ends_with("map\n..@..\n..@..\n.....\n"));
    let (out, _, code) = gridpath(&["solve", &path("b.tmx")]);
    assert_eq!(code, 0, "solve reads Tiled maps");
    assert!(out.contains("cost="), "{out}");
    let (_, err, code) = gridpath(&["convert", &path("a.tpmap"), &path("f.png")]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown output format"), "{err}");
    let (_, err, code) = gridpath(&["convert", &path("missing.map"), &path("g.tpmap")]);
    assert_eq!(code, 2);
    assert!(err.contains("missing.map"), "{err}");
}

#[test]
fn generate_prints_a_seeded_map_with_endpoints() {
    let (a, err, code) = gridpath(&["generate", "maze", "21", "11", "--seed", "5", "--corridor", "2"]);
    assert_eq!(code, 0, "{err}");
    let (b, _, _) = gridpath(&["generate", "maze", "21", "11", "--seed", "5", "--corridor", "2"]);
    assert_eq!(a, b, "the same seed prints the same map");
    let map = gridpath::formats::parse_tilepath(&a).unwrap();
    assert_eq!((map.grid.width(), map.grid.height()), (21, 11));
    assert_eq!((map.start, map.goal), (Some(gridpath::Pos::new(0, 0)), Some(gridpath::Pos::new(19, 10))));
    let (_, err, code) = gridpath(&["generate", "caves", "0", "5"]);
    assert_eq!(code, 2);
    assert!(err.contains("not allowed"), "{err}");
}

#[test]
fn generate_refuses_parameters_out_of_range_or_for_another_kind() {
    for (args, said) in [
        (&["generate", "noise", "10", "10", "--density", "2"][..], "wall probability"),
        (&["generate", "noise", "10", "10", "--density", "nan"], "wall probability"),
        (&["generate", "noise", "10", "10", "--density", "lots"], "wall probability"),
        (&["generate", "maze", "10", "10", "--corridor", "0"], "--corridor"),
        (&["generate", "rooms", "10", "10", "--density", "0.3"], "--density does not apply to rooms maps"),
        (&["generate", "caves", "10", "10", "--corridor", "3"], "--corridor does not apply to caves maps"),
        (&["generate", "maze", "10", "10", "--density", "0.3"], "--density does not apply to maze maps"),
        (&["generate", "noise", "10", "10", "--corridor", "3"], "--corridor does not apply to noise maps"),
    ] {
        let (out, err, code) = gridpath(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(said), "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: no map printed");
    }
    // In range, each for its own kind: the bounds themselves are maps.
    for args in [
        &["generate", "noise", "6", "4", "--density", "0"][..],
        &["generate", "noise", "6", "4", "--density", "1"],
        &["generate", "maze", "9", "9", "--corridor", "1"],
    ] {
        let (out, err, code) = gridpath(args);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(gridpath::formats::parse_tilepath(&out).is_ok(), "{args:?}: {out}");
    }
    // The help names the generator's own defaults.
    let (help, _, _) = gridpath(&["generate", "--help"]);
    let defaults =
        (gridpath::generate::Generator::DEFAULT_DENSITY, gridpath::generate::Generator::DEFAULT_CORRIDOR);
    assert!(help.contains(&format!("0 to 1 [default: {}]", defaults.0)), "{help}");
    assert!(help.contains(&format!("1 or more [default: {}]", defaults.1)), "{help}");
    // Without the flags, each kind's defaults, as before.
    let (default, _, _) = gridpath(&["generate", "noise", "12", "8", "--seed", "3"]);
    let (quarter, _, _) = gridpath(&["generate", "noise", "12", "8", "--seed", "3", "--density", "0.25"]);
    assert_eq!(default, quarter);
}

#[test]
fn generate_writes_a_benchmark_scen_that_scen_replays_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let map = dir.path().join("rooms 7.map");
    let map_arg = map.to_str().unwrap();
    let (_, err, code) =
        gridpath(&["generate", "rooms", "64", "48", "--seed", "7", "-o", map_arg, "--scen", "120"]);
    assert_eq!(code, 0, "{err}");
    let scen_path = dir.path().join("rooms 7.map.scen");
    let text = std::fs::read_to_string(&scen_path).expect("the .scen is written next to the map");
    let queries = gridpath::formats::parse_scen(&text).unwrap();
    assert_eq!(queries.len(), 120);
    assert!(queries.iter().all(|q| q.map == "rooms_7.map" && (q.width, q.height) == (64, 48)));
    let (out, err, code) = gridpath(&["scen", scen_path.to_str().unwrap()]);
    assert_eq!(code, 0, "our A* matches every generated optimum: {out}{err}");
    // Without a file to put it next to, --scen is refused by clap.
    let (_, _, code) = gridpath(&["generate", "rooms", "64", "48", "--scen", "10"]);
    assert_eq!(code, 2);
}

#[test]
fn any_angle_searches_are_checked_segment_by_segment() {
    // Theta*'s paths are no grid paths and may beat the octile optimum: `scen` must count
    // them neither illegal nor wrong.
    let scen = common::movingai_dir().join("dao/arena.map.scen");
    for algo in ["theta", "lazytheta"] {
        let (out, err, code) = gridpath(&["scen", scen.to_str().unwrap(), "--algo", algo]);
        assert_eq!(code, 0, "{algo}: {err}");
        let summary = out.lines().last().unwrap_or_default();
        assert!(summary.starts_with("scen: 160 queries, 0 longer than optimal"), "{algo}: {out}");
        assert!(
            summary.contains(", 0 illegal, mean length -"),
            "{algo}: shorter on average than octile: {out}"
        );
    }
    let map = write_temp("theta.txt", "S.......\n........\n.......G\n");
    let (out, err, code) = gridpath(&["solve", map.to_str().unwrap(), "--algo", "theta"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.lines().last().unwrap().starts_with("cost=7.2801 cells=2 "), "one straight segment: {out}");
}

#[test]
fn scen_smooth_checks_every_smoothed_path_and_its_length() {
    let scen = common::movingai_dir().join("dao/arena.map.scen");
    for algo in ["astar", "jps"] {
        let (out, err, code) = gridpath(&["scen", scen.to_str().unwrap(), "--algo", algo, "--smooth"]);
        assert_eq!(code, 0, "{algo}: {err}");
        let summary = out.lines().last().unwrap_or_default();
        // Smoothing an optimal grid path never makes it longer, and on arena it makes it shorter.
        assert!(summary.starts_with("scen: 160 queries, 0 longer than optimal"), "{algo}: {out}");
        assert!(summary.contains(", 0 illegal, mean length -"), "{algo}: {out}");
    }
}

/// The value of a top-level number field of a one-line JSON object.
fn json_number(out: &str, key: &str) -> f64 {
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
    v[key].as_f64().unwrap_or_else(|| panic!("{key} in {out}"))
}

#[test]
fn solve_smooths_any_path_and_prints_its_corner_points() {
    // Open ground: A*'s staircase becomes one straight segment, walked at its Euclidean length.
    let map = write_temp("smooth.txt", "S.......\n........\n.......G\n");
    let (out, err, code) = gridpath(&["solve", map.to_str().unwrap(), "--smooth", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"path\":[[0,0],[7,2]]"), "one straight segment: {out}");
    assert!(out.contains("\"smoothed\":true"), "{out}");
    assert!((json_number(&out, "cost") - 53f64.sqrt()).abs() < 1e-9, "the segment's length: {out}");
    let (out, err, code) = gridpath(&["solve", map.to_str().unwrap(), "--algo", "jps", "--smooth"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.lines().last().unwrap().starts_with("cost=7.2801 cells=2 "), "{out}");
    // Without smoothing, a grid path's corner points and its grid cost.
    let (out, err, code) = gridpath(&["solve", map.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"path\":[[0,0],[2,2],[7,2]]"), "{out}");
    assert!((json_number(&out, "cost") - (5.0 + 2.0 * std::f64::consts::SQRT_2)).abs() < 1e-9, "{out}");
    // Any-angle searches: the vertices, costed straight; `lazy-theta` is the spelling.
    for algo in ["theta", "lazy-theta", "lazytheta"] {
        let (out, err, code) = gridpath(&["solve", map.to_str().unwrap(), "--algo", algo, "--json"]);
        assert_eq!(code, 0, "{algo}: {err}");
        assert!(out.contains("\"path\":[[0,0],[7,2]]"), "{algo}: {out}");
    }
}

#[test]
fn solve_takes_size_and_its_old_name() {
    // A 2x2 body cannot pass the one-cell gap: round the wall's end instead.
    let map = write_temp("size.txt", "S.....\n......\n###.##\n......\n......\n.....G\n");
    let (out, err, code) = gridpath(&["solve", map.to_str().unwrap(), "--to", "4,4", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"size\":1"), "{out}");
    for flag in ["--size", "--agent-size"] {
        let (out, err, code) =
            gridpath(&["solve", map.to_str().unwrap(), "--to", "4,4", flag, "2", "--json"]);
        assert_eq!(code, 1, "{flag}: no route for a 2x2 body through a 1-cell gap: {out}");
        assert!(err.contains("no path"), "{flag}: {err}");
        let (out, err, code) = gridpath(&[
            "solve",
            map.to_str().unwrap(),
            "--to",
            "4,4",
            flag,
            "2",
            "--partial",
            "--smooth",
            "--json",
        ]);
        assert_eq!(code, 0, "{flag}: {err}");
        assert!(out.contains("\"partial\":true") && out.contains("\"size\":2"), "{flag}: {out}");
    }
}

#[test]
fn scen_checks_large_bodies_and_partial_routes() {
    let scen = common::movingai_dir().join("dao/arena.map.scen");
    let scen = scen.to_str().unwrap();
    for args in [
        &["--algo", "jps", "--size", "2"][..],
        &["--size", "3", "--smooth"],
        &["--algo", "lazy-theta", "--size", "2"],
    ] {
        let (out, err, code) = gridpath(&[&["scen", scen][..], args].concat());
        assert_eq!(code, 0, "{args:?}: {err}");
        let summary = out.lines().last().unwrap_or_default();
        assert!(summary.starts_with("scen: 160 queries, "), "{args:?}: {out}");
        // Larger bodies may walk further than the published size-1 optima, never illegally.
        assert!(summary.contains(" 0 illegal, mean length "), "{args:?}: {out}");
        assert!(
            summary.contains(" skipped (no room for a "),
            "{args:?}: starts without room are counted: {out}"
        );
    }
    let (out, err, code) = gridpath(&["scen", scen, "--size", "2", "--partial"]);
    assert_eq!(code, 0, "{err}");
    let summary = out.lines().last().unwrap_or_default();
    assert!(
        summary.contains(" 0 illegal, ") && summary.ends_with(" partial"),
        "goals without room: partial routes: {out}"
    );
    let (_, err, code) = gridpath(&["scen", scen, "--size", "5"]);
    assert_eq!(code, 2, "sizes are 1 to 4: {err}");
}

#[test]
fn bench_any_angle_times_and_measures_the_straight_line_routes() {
    let scen = common::movingai_dir().join("dao/arena.map.scen");
    let (out, err, code) = gridpath(&["bench", scen.to_str().unwrap(), "--max-queries", "20", "--any-angle"]);
    assert_eq!(code, 0, "{err}");
    let row = out.lines().find(|l| l.starts_with("arena ") && l.contains('%')).unwrap_or_default();
    assert!(!row.contains("WRONG"), "every route checked and legal: {out}");
    assert!(out.contains("any-angle medians over 1 maps: Lazy Theta* / A* "), "{out}");
    assert!(
        out.contains("mean length vs octile on the DAO maps: JPS + smoothing -"),
        "shorter than octile: {out}"
    );
    assert!(out.lines().any(|l| l.starts_with("clearance: the map (1 B/cell")), "{out}");
    assert_eq!(out.lines().last(), Some("bench: 20 queries, 0 wrong or illegal answers"), "{out}");
}

#[test]
fn solve_runs_jps_on_a_map_with_terrain_costs() {
    // A band of mud (cost 40) across the middle with a gap of floor at the right: JPS (once
    // refused on terrain costs) goes round through the gap as A* does, at A*'s cost.
    let map = write_temp(
        "mud.tpmap",
        "tilepath 1\nwidth 8\nheight 5\nstart 0 0\ngoal 0 4\nlegend m ground 40\nmap\n........\n........\nmmmmmmm.\n........\n........\n",
    );
    let mut costs = Vec::new();
    for algo in ["astar", "jps", "dijkstra"] {
        let (out, err, code) = gridpath(&["solve", map.to_str().unwrap(), "--algo", algo, "--json"]);
        assert_eq!(code, 0, "{algo}: {err}");
        costs.push(json_number(&out, "cost"));
    }
    assert!(costs.iter().all(|c| (c - costs[0]).abs() < 1e-9), "JPS, A* and Dijkstra agree: {costs:?}");
    // Through the gap at (7,2), 5 + 2√2 there and as much back, beats 43 straight down.
    let round = 10.0 + 4.0 * std::f64::consts::SQRT_2;
    assert!((costs[1] - round).abs() < 1e-9, "round the mud, not through it: {costs:?}");
    let (out, err, code) = gridpath(&["solve", map.to_str().unwrap(), "--algo", "jps"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.lines().last().unwrap().starts_with(&format!("cost={:.4} ", costs[0])), "{out}");
}

#[test]
fn bench_terrain_paints_the_map_and_checks_jps_against_astar() {
    let scen = common::movingai_dir().join("dao/arena.map.scen");
    let run = || gridpath(&["bench", scen.to_str().unwrap(), "--terrain", "24", "--max-queries", "40"]);
    let (out, err, code) = run();
    assert_eq!(code, 0, "{err}{out}");
    assert!(out.contains("bench --terrain: 40 queries, 0 wrong or illegal answers"), "{out}");
    let row = out.lines().find(|l| l.starts_with("arena")).expect("a row for the map");
    // The overlay is seeded: the same share of the map painted every time.
    let (again, _, _) = run();
    let painted = |o: &str| {
        o.lines().find(|l| l.starts_with("arena")).map(|l| l.split_whitespace().nth(2).map(str::to_owned))
    };
    assert_eq!(painted(&out), painted(&again), "{row}");
    assert!(row.split_whitespace().nth(2).is_some_and(|p| p.ends_with('%') && p != "0.0%"), "{row}");
}

#[test]
fn scen_runs_jps_on_a_map_with_terrain_costs() {
    // A Moving AI map with cost digits (2-9: ground of that cost) in patches, and queries whose
    // optimal lengths count the costs: JPS (with and without jump bits) matches every one.
    let mut grid = gridpath::Grid::new(48, 32).unwrap();
    for (x0, y0, x1, y1, cost) in
        [(5, 3, 20, 12, 5), (15, 10, 30, 28, 2), (33, 0, 36, 25, 9), (40, 20, 47, 31, 3)]
    {
        for y in y0..=y1 {
            for x in x0..=x1 {
                grid.set_tile(gridpath::Pos::new(x, y), gridpath::Tile::Ground { cost }).unwrap();
            }
        }
    }
    for p in [(10, 20), (11, 20), (12, 20), (25, 5), (25, 6), (44, 10), (2, 2)] {
        grid.set_tile(gridpath::Pos::new(p.0, p.1), gridpath::Tile::Wall).unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let map = dir.path().join("mud.map");
    std::fs::write(&map, gridpath::formats::write_movingai(&grid)).unwrap();
    let queries = gridpath::scenarios::make_scenarios(&grid, "mud.map", 200, 24);
    assert!(queries.len() >= 100, "{} queries", queries.len());
    let scen = dir.path().join("mud.map.scen");
    std::fs::write(&scen, gridpath::formats::write_scen(&queries)).unwrap();
    for extra in [&[][..], &["--no-jump-bits"][..]] {
        let args = [&["scen", scen.to_str().unwrap(), "--algo", "jps"][..], extra].concat();
        let (out, err, code) = gridpath(&args);
        assert_eq!(code, 0, "{out}{err}");
        let want = format!("scen: {} queries, 0 mismatches, 0 illegal", queries.len());
        assert!(out.lines().last().is_some_and(|l| l.starts_with(&want)), "{out}");
    }
}
