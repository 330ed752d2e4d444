//! Criterion benches: gridpath's A*, JPS and full octile field against the `pathfinding` crate
//! (`gridpath::peers`), on the same queries of shared Moving AI maps.
//!
//! ```text
//! cargo bench -p gridpath --features peers --bench peers
//! ```
//!
//! The maps are read from `GRIDPATH_MOVINGAI`, or `../shared/benchmarks/movingai` beside the
//! repository (the layout of this project's machines); when neither exists the benches say so
//! and measure nothing. Each map's 100 queries (evenly spaced over its scenario file, as in
//! `gridpath bench`) are checked against the published optimum first, for every method, and
//! then timed as one batch per iteration: criterion's time divided by 100 is the mean time
//! per query, and its throughput line reads in queries per second.
//!
//! These numbers are *warm*: criterion repeats the same batch many times, so the map, the
//! workspace and the branch predictors are trained on it. `gridpath bench` measures each query
//! once, the three methods back to back, which is closer to a game's mix of work; the two
//! disagree on the ratios (see `docs/BENCHMARKS.md`).

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use gridpath::formats::{self, Scenario};
use gridpath::peers::PeerGrid;
use gridpath::{Algorithm, FlowField, Grid, Pos, Rules, Searcher, Settings};

/// The maps: the median maps of the `gridpath bench` table and one of each other kind.
const MAPS: [&str; 6] = [
    "dao/hrt201n",
    "dao/den520d",
    "mazes/maze512-4-0",
    "street/Boston_0_512",
    "rooms/8room_000",
    "bg512/AR0011SR",
];

/// The 512×512 maps whose full field is timed.
const FIELD_MAPS: [&str; 2] = ["mazes/maze512-4-0", "street/Boston_0_512"];

const QUERIES: usize = 100;

fn movingai_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("GRIDPATH_MOVINGAI").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/benchmarks/movingai"),
        PathBuf::from,
    );
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "no Moving AI maps at {}: set GRIDPATH_MOVINGAI to the folder with the .map and .scen files",
            dir.display()
        );
        None
    }
}

/// The map and its sample of queries.
fn load(dir: &Path, name: &str) -> (Grid, Vec<Scenario>) {
    let map = dir.join(format!("{name}.map"));
    let grid = formats::load_map(&map).unwrap_or_else(|e| panic!("{}: {e}", map.display())).grid;
    let scen = dir.join(format!("{name}.map.scen"));
    let text = std::fs::read_to_string(&scen).unwrap_or_else(|e| panic!("{}: {e}", scen.display()));
    let all = formats::parse_scen(&text).unwrap_or_else(|e| panic!("{}: {e}", scen.display()));
    let picked = (0..QUERIES.min(all.len())).map(|k| all[k * all.len() / QUERIES.min(all.len())].clone());
    (grid, picked.collect())
}

/// Runs every query once with `run` and checks each answer's length against the optimum, so
/// the timed code is the code that answers correctly.
fn check(name: &str, method: &str, queries: &[Scenario], mut run: impl FnMut(Pos, Pos) -> f64) {
    for s in queries {
        let cost = run(s.start, s.goal);
        assert!(
            (cost - s.optimal).abs() <= 0.01,
            "{name}, {method}: {} -> {} costs {cost}, the optimum is {}",
            s.start,
            s.goal,
            s.optimal
        );
    }
}

fn queries(c: &mut Criterion) {
    let Some(dir) = movingai_dir() else { return };
    for name in MAPS {
        let (grid, scenarios) = load(&dir, name);
        let peer = PeerGrid::new(&grid);
        let mut searcher = Searcher::new();
        let mut cells = Vec::new();
        // `jump_bits`: JPS reads the grid's jump bits (the default) or scans every line.
        let mut ours = |algorithm: Algorithm, jump_bits: bool, start: Pos, goal: Pos| {
            let settings = Settings::with_algorithm(algorithm);
            searcher.set_jump_bits(jump_bits);
            searcher
                .find_path_into(&grid, start, goal, &settings, &mut cells)
                .map_or(f64::NAN, |(cost, _, _)| cost)
        };
        let methods = [
            ("gridpath A*", Algorithm::AStar, true),
            ("gridpath JPS", Algorithm::Jps, true),
            ("gridpath JPS without jump bits", Algorithm::Jps, false),
        ];
        for (label, algorithm, bits) in methods {
            check(name, label, &scenarios, |s, g| ours(algorithm, bits, s, g));
        }
        check(name, "pathfinding astar", &scenarios, |s, g| peer.astar(s, g).map_or(f64::NAN, |r| r.1));

        let short = name.rsplit('/').next().unwrap_or(name);
        let mut group = c.benchmark_group(format!("queries/{short}"));
        group.throughput(Throughput::Elements(scenarios.len() as u64));
        group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
        for (label, algorithm, bits) in methods {
            group.bench_function(label, |b| {
                b.iter(|| {
                    for s in &scenarios {
                        black_box(ours(algorithm, bits, s.start, s.goal));
                    }
                });
            });
        }
        group.bench_function("pathfinding astar", |b| {
            b.iter(|| {
                for s in &scenarios {
                    black_box(peer.astar(s.start, s.goal));
                }
            });
        });
        group.finish();
    }
}

fn fields(c: &mut Criterion) {
    let Some(dir) = movingai_dir() else { return };
    for name in FIELD_MAPS {
        let (grid, scenarios) = load(&dir, name);
        let goal = scenarios[0].goal;
        let peer = PeerGrid::new(&grid);
        let mut field = FlowField::dijkstra(&grid, goal, Rules::OCTILE).expect("the goal is open");
        // The same reach as the peer's (whose map leaves the origin out).
        assert_eq!(peer.dijkstra_all(goal).len() + 1, field.reached(), "{name}: field reach");

        let short = name.rsplit('/').next().unwrap_or(name);
        let mut group = c.benchmark_group(format!("field/{short}"));
        group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
        group.bench_function("gridpath FlowField::rebuild", |b| {
            b.iter(|| field.rebuild(black_box(&grid)).expect("the goal is open"));
        });
        group.bench_function("pathfinding dijkstra_all", |b| b.iter(|| black_box(peer.dijkstra_all(goal))));
        group.finish();
    }
}

criterion_group!(benches, queries, fields);
criterion_main!(benches);
