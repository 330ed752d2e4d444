//! Measures incremental replanning (`gridpath::Incremental`, D* Lite) against a fresh A* on
//! Moving AI maps: one-cell edits that wall off a cell of the current route.
//!
//! ```sh
//! cargo run --release -p gridpath --example incremental -- /work/shared/benchmarks/movingai/*/*.scen
//! ```
//!
//! For each map, `--queries` scenarios evenly spaced over its `.scen` file (the files are
//! sorted by length bucket, so the sample keeps the mix); for each, the planner plans once,
//! then `--edits` times a random cell of its current route (not an endpoint) becomes a wall
//! and both the planner's repair (`update_cells` + `plan`) and a fresh A* (`Searcher`, the
//! octile A*) answer the edited grid; their costs must agree. The walls are undone before the
//! next query. Printed per map: medians over the edits of the expansion ratio (fresh / repair),
//! of both sides' expansions and of both sides' times, the repair's 90th percentile time and
//! the share of edits whose repair took longer than the fresh A*; then the median over maps.

use std::path::PathBuf;
use std::time::Instant;

use gridpath::formats::{self, map_path_for_scen};
use gridpath::{Grid, Incremental, Pos, Rules, Searcher, Settings, Tile};

struct Options {
    scens: Vec<PathBuf>,
    queries: usize,
    edits: usize,
    seed: u64,
}

fn parse_args() -> Result<Options, String> {
    let mut options = Options { scens: Vec::new(), queries: 20, edits: 5, seed: 1 };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut number = |name: &str| -> Result<u64, String> {
            args.next().and_then(|v| v.parse().ok()).ok_or_else(|| format!("{name} takes a number"))
        };
        match arg.as_str() {
            "--queries" => options.queries = count(number("--queries")?)?,
            "--edits" => options.edits = count(number("--edits")?)?,
            "--seed" => options.seed = number("--seed")?,
            _ if arg.starts_with("--") => return Err(format!("unknown option {arg}")),
            _ => options.scens.push(PathBuf::from(arg)),
        }
    }
    if options.scens.is_empty() {
        return Err("usage: incremental [--queries N] [--edits K] [--seed S] FILE.map.scen...".into());
    }
    Ok(options)
}

fn count(n: u64) -> Result<usize, String> {
    usize::try_from(n).map_err(|e| e.to_string())
}

/// One edit's measurements.
struct Sample {
    repair_expanded: u64,
    fresh_expanded: u64,
    repair_us: f64,
    fresh_us: f64,
    /// The walled cell lies in the half of the route nearer the start.
    near_start: bool,
}

fn median(values: &mut [f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 { values[n / 2] } else { f64::midpoint(values[n / 2 - 1], values[n / 2]) }
}

/// The `q` quantile (nearest rank) of values already sorted.
fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss,
        reason = "a rank within the slice"
    )]
    let rank = ((sorted.len() as f64 * q).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// Runs one map; returns its samples and the number of edits that cut the goal off.
fn run_map(
    grid: &mut Grid,
    queries: &[(Pos, Pos)],
    options: &Options,
) -> Result<(Vec<Sample>, usize), String> {
    let rules = Rules::OCTILE;
    let settings = Settings::default();
    let mut searcher = Searcher::new();
    let mut state = options.seed | 1;
    let mut samples = Vec::new();
    let mut cut_off = 0;
    for &(start, goal) in queries {
        let mut planner = Incremental::new(grid, start, goal, rules).map_err(|e| e.to_string())?;
        let Ok(mut route) = planner.plan(grid) else { continue };
        let mut undo: Vec<(Pos, Tile)> = Vec::new();
        for _ in 0..options.edits {
            if route.cells.len() < 3 {
                break;
            }
            let inner = route.cells.len() - 2;
            let at = 1 + usize::try_from(next(&mut state)).unwrap_or(0) % inner;
            let cell = route.cells[at];
            let near_start = 2 * at < route.cells.len();
            let old = grid.set_tile(cell, Tile::Wall).map_err(|e| e.to_string())?;
            undo.push((cell, old));

            let t = Instant::now();
            planner.update_cells(grid, &[cell]);
            let repaired = planner.plan(grid);
            let repair_us = t.elapsed().as_secs_f64() * 1e6;
            let t = Instant::now();
            let fresh = searcher.find_path(grid, start, goal, &settings);
            let fresh_us = t.elapsed().as_secs_f64() * 1e6;
            match (repaired, fresh) {
                (Ok(repaired), Ok(fresh)) => {
                    if (repaired.cost - fresh.cost).abs() > 1e-9 * fresh.cost.max(1.0) {
                        return Err(format!(
                            "{start}->{goal}: repaired cost {} but fresh A* {}",
                            repaired.cost, fresh.cost
                        ));
                    }
                    samples.push(Sample {
                        repair_expanded: repaired.stats.expanded,
                        fresh_expanded: fresh.stats.expanded,
                        repair_us,
                        fresh_us,
                        near_start,
                    });
                    route = repaired;
                }
                (Err(_), Err(_)) => {
                    cut_off += 1;
                    break;
                }
                (a, b) => return Err(format!("{start}->{goal}: incremental {a:?} but fresh A* {b:?}")),
            }
        }
        for &(cell, tile) in undo.iter().rev() {
            grid.set_tile(cell, tile).map_err(|e| e.to_string())?;
        }
    }
    Ok((samples, cut_off))
}

fn main() {
    let options = match parse_args() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    println!(
        "{:<20} {:>9} {:>5} {:>9} {:>7} {:>9} {:>8} {:>8} {:>8} {:>6}",
        "map", "size", "edits", "fresh/rep", "rep_exp", "fresh_exp", "rep_us", "p90_us", "fresh_us", "slower"
    );
    let mut ratios = Vec::new();
    let mut big_repair_us = Vec::new();
    let mut all_big = Vec::new();
    let mut all: Vec<Sample> = Vec::new();
    for scen in &options.scens {
        let text = match std::fs::read_to_string(scen) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{}: {e}", scen.display());
                continue;
            }
        };
        let scenarios = match formats::parse_scen(&text) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{}: {e}", scen.display());
                continue;
            }
        };
        let map_path = map_path_for_scen(scen);
        let mut grid = match formats::load_map(&map_path) {
            Ok(m) => m.grid,
            Err(e) => {
                eprintln!("{}: {e}", map_path.display());
                continue;
            }
        };
        let n = scenarios.len();
        let take = options.queries.min(n);
        let queries: Vec<(Pos, Pos)> =
            (0..take).map(|k| &scenarios[k * n / take]).map(|s| (s.start, s.goal)).collect();
        let (samples, cut_off) = match run_map(&mut grid, &queries, &options) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("{}: {e}", scen.display());
                std::process::exit(1);
            }
        };
        #[expect(clippy::cast_precision_loss, reason = "expansion counts are far below 2^52")]
        let mut ratio: Vec<f64> =
            samples.iter().map(|s| s.fresh_expanded as f64 / s.repair_expanded.max(1) as f64).collect();
        #[expect(clippy::cast_precision_loss, reason = "expansion counts are far below 2^52")]
        let mut rep_exp: Vec<f64> = samples.iter().map(|s| s.repair_expanded as f64).collect();
        #[expect(clippy::cast_precision_loss, reason = "expansion counts are far below 2^52")]
        let mut fresh_exp: Vec<f64> = samples.iter().map(|s| s.fresh_expanded as f64).collect();
        let mut rep_us: Vec<f64> = samples.iter().map(|s| s.repair_us).collect();
        let mut fresh_us: Vec<f64> = samples.iter().map(|s| s.fresh_us).collect();
        let name = map_path.file_name().map_or_else(String::new, |f| f.to_string_lossy().into_owned());
        #[expect(clippy::cast_precision_loss, reason = "sample counts are small")]
        let slower = 100.0 * samples.iter().filter(|s| s.repair_us > s.fresh_us).count() as f64
            / samples.len().max(1) as f64;
        let r = median(&mut ratio);
        let us = median(&mut rep_us);
        println!(
            "{:<20} {:>9} {:>5} {:>8.1}x {:>7.0} {:>9.0} {:>8.1} {:>8.1} {:>8.1} {:>5.0}%{}",
            name,
            format!("{}x{}", grid.width(), grid.height()),
            samples.len(),
            r,
            median(&mut rep_exp),
            median(&mut fresh_exp),
            us,
            percentile(&rep_us, 0.9),
            median(&mut fresh_us),
            slower,
            if cut_off > 0 { format!("  ({cut_off} cut off)") } else { String::new() }
        );
        if !samples.is_empty() {
            ratios.push(r);
            if grid.width() == 512 && grid.height() == 512 {
                big_repair_us.push(us);
                all_big.extend(samples.iter().map(|s| s.repair_us));
            }
        }
        all.extend(samples);
    }
    println!(
        "median over {} maps: fresh/repair expansions {:.1}x; 512x512 maps ({}): median of medians repair {:.1} us, pooled median {:.1} us",
        ratios.len(),
        median(&mut ratios),
        big_repair_us.len(),
        median(&mut big_repair_us),
        median(&mut all_big)
    );
    for (half, near) in [("start", true), ("goal", false)] {
        let part: Vec<&Sample> = all.iter().filter(|s| s.near_start == near).collect();
        #[expect(clippy::cast_precision_loss, reason = "expansion and sample counts are far below 2^52")]
        let mut ratio: Vec<f64> =
            part.iter().map(|s| s.fresh_expanded as f64 / s.repair_expanded.max(1) as f64).collect();
        let mut us: Vec<f64> = part.iter().map(|s| s.repair_us).collect();
        let med = median(&mut us);
        #[expect(clippy::cast_precision_loss, reason = "sample counts are small")]
        let slower = 100.0 * part.iter().filter(|s| s.repair_us > s.fresh_us).count() as f64
            / part.len().max(1) as f64;
        println!(
            "edits in the {half} half of the route ({} over all maps): fresh/repair expansions {:.1}x, repair {:.1} us (p90 {:.1}), slower than fresh A* {:.0}%",
            part.len(),
            median(&mut ratio),
            med,
            percentile(&us, 0.9),
            slower
        );
    }
}
