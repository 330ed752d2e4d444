//! The `wc3maps512` optima, matched: on HOG's 2007 `octile-corner` maps scaled to 512 × 512
//! (fences on the height steps), every exact method returns every published length. The maps
//! and scenarios are in `tests/data/wc3-2007` (see its SOURCES.md).

use std::path::{Path, PathBuf};

use gridpath::formats::{self, Scenario};
use gridpath::{
    Algorithm, FlowField, Grid, Incremental, Pos, Rules, SearchError, Searcher, Settings, SubgoalGraph,
};

/// The published lengths have two decimals: a match is within half a unit of the last one.
const ROUNDING: f64 = 0.005;

const MAPS: [&str; 3] = ["duskwood", "swampofsorrows", "bootybay"];

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/wc3-2007").join(name)
}

/// The 512 × 512 grid of `name` and its scenarios.
fn load(name: &str) -> (Grid, Vec<Scenario>) {
    let text = std::fs::read_to_string(data(&format!("{name}.map.scen"))).unwrap();
    let scenarios = formats::parse_scen(&text).unwrap();
    let size = scenarios.first().map(|s| (s.width, s.height));
    assert_eq!(size, Some((512, 512)), "{name}: the scenarios were made at 512 x 512");
    let grid = formats::load_map_for_scen(&data(&format!("{name}.map")), size).unwrap().grid;
    assert_eq!((grid.width(), grid.height()), (512, 512));
    assert!(grid.has_fences(), "{name}: the height steps are fences");
    (grid, scenarios)
}

/// `path` (found by `what`) for scenario `s` costs the published length, and walks it legally.
fn assert_published(grid: &Grid, s: &Scenario, path: Result<gridpath::Path, SearchError>, what: &str) {
    let path = path.unwrap_or_else(|e| panic!("{what}: {} -> {}: {e}", s.start, s.goal));
    let walked = grid.path_cost(&path.cells, Rules::OCTILE).unwrap();
    assert!(
        (path.cost - s.optimal).abs() < ROUNDING && (walked - path.cost).abs() < 1e-9,
        "{what}: {} -> {} costs {} (walked {walked}), published {}",
        s.start,
        s.goal,
        path.cost,
        s.optimal
    );
}

/// A*, Dijkstra, JPS with and without jump bits, bidirectional search and the subgoal graph
/// return every published length, on legal paths.
#[test]
fn every_exact_search_matches_every_published_length() {
    let mut total = 0;
    for name in MAPS {
        let (grid, scenarios) = load(name);
        for algorithm in Algorithm::ALL {
            let settings = Settings::with_algorithm(algorithm);
            if algorithm.check(&grid, &settings).is_err() || !algorithm.is_optimal(&grid, &settings) {
                continue;
            }
            for bits in [true, false] {
                if !bits && algorithm != Algorithm::Jps {
                    continue;
                }
                let mut searcher = Searcher::new();
                searcher.set_jump_bits(bits);
                for s in &scenarios {
                    let path = searcher.find_path(&grid, s.start, s.goal, &settings);
                    assert_published(&grid, s, path, &format!("{name} {algorithm} (jump bits {bits})"));
                    total += 1;
                }
            }
        }
        let mut graph = SubgoalGraph::build(&grid);
        for s in &scenarios {
            let path = graph.find_path(&grid, s.start, s.goal, &Settings::default());
            assert_published(&grid, s, path, &format!("{name} subgoal graph"));
            total += 1;
        }
    }
    // A*, Dijkstra, JPS twice, bidirectional search and the subgoal graph on 3,772 queries.
    assert_eq!(total, 6 * (1280 + 1212 + 1280));
}

/// The cost fields and the incremental planner give the published lengths too (a sample of
/// goals: a field answers every start at once).
#[test]
fn fields_and_the_incremental_planner_match_too() {
    for name in MAPS {
        let (grid, scenarios) = load(name);
        for s in scenarios.iter().step_by(97) {
            let field = FlowField::dijkstra(&grid, s.goal, Rules::OCTILE).unwrap();
            let d = field.distance(s.start).unwrap();
            assert!(
                (d - s.optimal).abs() < ROUNDING,
                "{name} field: {} -> {}: {d}, published {}",
                s.start,
                s.goal,
                s.optimal
            );
            let mut planner = Incremental::new(&grid, s.start, s.goal, Rules::OCTILE).unwrap();
            let cost = planner.plan(&grid).unwrap().cost;
            assert!(
                (cost - s.optimal).abs() < ROUNDING,
                "{name} incremental: {cost}, published {}",
                s.optimal
            );
        }
    }
}

/// The grid's steps are exactly the 2007 graph's edges: the fences put on the cut cardinal
/// sides block every cut diagonal and nothing else.
#[test]
fn the_fenced_grid_has_exactly_hogs_edges() {
    for name in MAPS {
        let text = std::fs::read_to_string(data(&format!("{name}.map"))).unwrap();
        let map = formats::parse_octile_corner(&text, 512, 512).unwrap();
        let grid = map.to_grid().unwrap();
        let mut cut = 0;
        for y in 0..512u32 {
            for x in 0..512u32 {
                for (k, &(dx, dy)) in formats::CORNER_DIRECTIONS.iter().enumerate() {
                    let (Some(nx), Some(ny)) = (x.checked_add_signed(dx), y.checked_add_signed(dy)) else {
                        continue;
                    };
                    let step = grid.can_step(Pos::new(x, y), Pos::new(nx, ny), Rules::OCTILE);
                    assert_eq!(step, map.allows(x, y, k), "{name}: ({x}, {y}) direction {k}");
                    cut += usize::from(map.cuts[(y * 512 + x) as usize] >> k & 1);
                }
            }
        }
        assert!(cut > 0, "{name} has height steps");
    }
}

/// Read unscaled (a plain `load_map`), a 2007 map is one cell per tile.
#[test]
fn an_octile_corner_map_loads_one_cell_per_tile() {
    let grid = formats::load_map(&data("bootybay.map")).unwrap().grid;
    assert_eq!((grid.width(), grid.height()), (192, 96));
    assert!(grid.has_fences());
}
