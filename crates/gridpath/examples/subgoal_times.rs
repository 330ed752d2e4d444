//! Times the subgoal graph's queries alone on Moving AI scenario files, per map, for A/B runs
//! and profiles of the query (`gridpath bench --subgoal` interleaves A\*, JPS and the graph per
//! query, which leaves the graph's share of a profile small). The graph is built first, not
//! timed; each query is timed on its own (one `SubgoalGraph::find_path_into` call, the cells
//! written; with `--corners` one `SubgoalGraph::find_corners_into` call, the route's corners)
//! over `--passes N` warm passes (default 5) after a first one that is not counted; the mean
//! per query in nanoseconds. Every cost is checked against the scenario's optimum.
//!
//! ```sh
//! cargo run --release -p gridpath --example subgoal_times -- ../shared/benchmarks/movingai/dao/hrt201n.map.scen
//! ```

use std::time::Instant;

use gridpath::formats::{self, map_path_for_scen};
use gridpath::{Settings, SubgoalGraph};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut passes = 5;
    if let Some(k) = args.iter().position(|a| a == "--passes") {
        passes = args
            .get(k + 1)
            .and_then(|n| n.parse().ok())
            .filter(|&n| n > 0)
            .ok_or("--passes N: a count of 1 or more")?;
        args.drain(k..=k + 1);
    }
    // `--corners`: only the route's corners written (`SubgoalGraph::find_corners_into`).
    let corners = args.iter().position(|a| a == "--corners").map(|k| args.remove(k)).is_some();
    if args.is_empty() {
        return Err(
            "usage: subgoal_times [--passes N] [--corners] X.map.scen ... (each map X.map next to its scenarios)".into(),
        );
    }
    // The Moving AI rules, the graph's own.
    let settings = Settings::default();
    println!("{:<20} {:>6} {:>12}", "map", "n", "graph ns");
    for file in &args {
        let scenarios = formats::parse_scen(&std::fs::read_to_string(file)?)?;
        let grid = formats::load_map(&map_path_for_scen(file.as_ref()))?.grid;
        let mut graph = SubgoalGraph::build(&grid);
        let mut cells = Vec::new();
        let mut total = 0.0;
        for pass in 0..=passes {
            for s in &scenarios {
                let began = Instant::now();
                let found = if corners {
                    graph.find_corners_into(&grid, s.start, s.goal, &settings, &mut cells)
                } else {
                    graph.find_path_into(&grid, s.start, s.goal, &settings, &mut cells)
                };
                let elapsed = began.elapsed();
                let (cost, _) = found.map_err(|e| format!("{file}: {e}"))?;
                if (cost - s.optimal).abs() > 0.01 {
                    return Err(format!("{file}: cost {cost} against the optimum {}", s.optimal).into());
                }
                if pass > 0 {
                    total += elapsed.as_secs_f64();
                }
            }
        }
        #[expect(clippy::cast_precision_loss, reason = "a count of queries")]
        let mean = total * 1e9 / (scenarios.len() * passes).max(1) as f64;
        let name = file.rsplit('/').next().unwrap_or(file).trim_end_matches(".map.scen");
        println!("{name:<20} {:>6} {mean:>12.0}", scenarios.len());
    }
    Ok(())
}
