//! Times gridpath's JPS alone on Moving AI scenario files, per map, for side-by-side runs with
//! another library on the same files (`warthog_side_by_side.sh` runs it against Warthog's
//! `warthog-jps`). Each query is timed on its own, as `gridpath bench` does (one
//! `Searcher::find_path_into` call, the cells written; with `--corners` one
//! `Searcher::find_corners_into` call, the route's corners written), over a warm pass after a
//! first one that is not counted; the mean per query in nanoseconds, with jump bits and online (no jump bits:
//! Warthog's `jps2` has no preprocessing, its `jps2+` has jump tables). Every cost is checked
//! against the scenario's published optimum.
//!
//! ```sh
//! cargo run --release -p gridpath --example jps_times -- ../shared/benchmarks/movingai/*/*.scen
//! ```

use std::time::Instant;

use gridpath::formats::{self, map_path_for_scen};
use gridpath::{Algorithm, Searcher, Settings};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut files: Vec<String> = std::env::args().skip(1).collect();
    // `--bits`: JPS with jump bits alone (the online column left empty), for A/B runs.
    // `--corners`: only the route's corners written (`Searcher::find_corners_into`), not every
    // cell: what Warthog's timer covers, which stops before it extracts its path.
    let mut flag = |name: &str| files.iter().position(|a| a == name).map(|k| files.remove(k)).is_some();
    let (bits_only, corners) = (flag("--bits"), flag("--corners"));
    if files.is_empty() {
        return Err(
            "usage: jps_times [--bits] [--corners] X.map.scen ... (each map X.map next to its scenarios)"
                .into(),
        );
    }
    let settings = Settings::with_algorithm(Algorithm::Jps);
    println!("{:<20} {:>6} {:>12} {:>12}", "map", "n", "JPS ns", "online ns");
    for file in &files {
        let scenarios = formats::parse_scen(&std::fs::read_to_string(file)?)?;
        let grid = formats::load_map(&map_path_for_scen(file.as_ref()))?.grid;
        let mut means = [0.0; 2];
        for (online, mean) in means.iter_mut().enumerate().take(if bits_only { 1 } else { 2 }) {
            let mut searcher = Searcher::new();
            searcher.set_jump_bits(online == 0);
            let mut cells = Vec::new();
            let mut total = 0.0;
            // The first pass warms the caches and the searcher's buffers; the second is timed.
            for timed in [false, true] {
                for s in &scenarios {
                    let began = Instant::now();
                    let found = if corners {
                        searcher.find_corners_into(&grid, s.start, s.goal, &settings, &mut cells)
                    } else {
                        searcher.find_path_into(&grid, s.start, s.goal, &settings, &mut cells)
                    };
                    let elapsed = began.elapsed();
                    let (cost, _, _) = found.map_err(|e| format!("{file}: {e}"))?;
                    // The published optima are rounded (`gridpath bench` allows 0.01 too).
                    if (cost - s.optimal).abs() > 0.01 {
                        return Err(format!("{file}: cost {cost} against the optimum {}", s.optimal).into());
                    }
                    if timed {
                        total += elapsed.as_secs_f64();
                    }
                }
            }
            #[expect(clippy::cast_precision_loss, reason = "a count of queries")]
            {
                *mean = total * 1e9 / scenarios.len().max(1) as f64;
            }
        }
        let name = file.rsplit('/').next().unwrap_or(file).trim_end_matches(".map.scen");
        println!("{name:<20} {:>6} {:>12.0} {:>12.0}", scenarios.len(), means[0], means[1]);
    }
    Ok(())
}
