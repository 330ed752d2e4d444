//! `gridpath bench --subgoal`: the simple subgoal graph against A* and JPS on the same
//! queries, with its preprocessing (time, bytes per cell) and its repair after one-cell edits,
//! against issue 24's targets.

use std::time::Instant;

use gridpath::formats::Scenario;
use gridpath::{Algorithm, Grid, Pos, Rules, Searcher, Settings, SubgoalGraph, Tile};

use crate::Failure;
use crate::bench::{BenchArgs, Order, evict_caches, load, median, sample};

/// One-cell edits timed per map (each made and then undone: twice as many repairs).
const EDITS: usize = 50;

/// A small seeded generator (xorshift64*): the same edits on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// The methods, in column order.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Method {
    AStar,
    Jps,
    Subgoal,
}

const METHODS: [Method; 3] = [Method::AStar, Method::Jps, Method::Subgoal];

/// One map's results.
struct Row {
    micros: [f64; 3],
    /// Mean expansions per query (graph nodes for the subgoal graph).
    expanded: [f64; 3],
    wrong: usize,
    build_ms: f64,
    bytes_per_cell: f64,
    repair_us: f64,
    side_512: bool,
    /// The graph's own timing at its build found JPS faster ([`SubgoalGraph::jps_is_faster`]).
    jps_faster: bool,
}

/// The `--subgoal` bench: per map, the mean time of A*, JPS and the subgoal graph over the same
/// sampled queries (each query's time the fastest of `runs` runs), every answer checked against the published optimum and
/// every path checked legal; the graph's build time and bytes per cell; the median time of a
/// repair after a one-cell edit. Then the medians over the maps against issue 24's targets.
pub(crate) fn run(args: &BenchArgs) -> Result<(), Failure> {
    println!(
        "{:<20} {:>5} {:>9} {:>9} {:>9} {:>7} {:>7} {:>8} {:>8} {:>8} {:>7} {:>8} {:>8} {:>13} {:>9} {:>6} {:>6}",
        "map",
        "n",
        "A* µs",
        "JPS µs",
        "SG µs",
        "JPS/SG",
        "A*/SG",
        "JPS exp",
        "SG exp",
        "build ms",
        "B/cell",
        "subgoals",
        "edges",
        "core/short",
        "repair µs",
        "faster",
        "wrong"
    );
    let (mut rows, mut total) = (Vec::new(), 0);
    let mut eviction = Vec::new();
    for file in &args.scen {
        let (name, mut grid, scenarios) = load(file)?;
        let picked = sample(&scenarios, args.max_queries);
        total += picked.len();
        let mut graph = SubgoalGraph::build(&grid);
        let build_ms = graph.build_time().as_secs_f64() * 1e3;
        #[expect(clippy::cast_precision_loss, reason = "sizes are small")]
        let bytes_per_cell = graph.bytes() as f64 / grid.len() as f64;
        let mut searcher = Searcher::new();
        let mut cells = Vec::new();
        let mut times: [Vec<f64>; 3] = std::array::from_fn(|_| Vec::new());
        let mut expanded = [0u64; 3];
        let mut wrong = 0;
        let mut measure = |method: Method, s: &Scenario, timed: bool| {
            let settings = Settings::with_algorithm(if method == Method::AStar {
                Algorithm::AStar
            } else {
                Algorithm::Jps
            });
            // The fastest of the runs: a preemption on a shared machine (tens of ms) would
            // swamp a mean of microsecond queries.
            let mut elapsed = f64::INFINITY;
            let mut answer = None;
            for _ in 0..if timed { args.runs } else { 1 } {
                let began = Instant::now();
                answer = match method {
                    Method::Subgoal => {
                        graph.find_path_into(&grid, s.start, s.goal, &settings, &mut cells).ok()
                    }
                    _ => searcher
                        .find_path_into(&grid, s.start, s.goal, &settings, &mut cells)
                        .ok()
                        .map(|(c, st, _)| (c, st)),
                };
                elapsed = elapsed.min(began.elapsed().as_secs_f64());
            }
            if !timed {
                return;
            }
            times[method as usize].push(elapsed * 1e6);
            expanded[method as usize] += answer.map_or(0, |(_, stats)| stats.expanded);
            let right = answer.is_some_and(|(cost, _)| {
                (cost - s.optimal).abs() <= 0.01
                    && cells.first() == Some(&s.start)
                    && cells.last() == Some(&s.goal)
                    && grid.path_cost(&cells, Rules::OCTILE).is_ok_and(|c| (c - cost).abs() < 1e-6)
            });
            wrong += usize::from(!right);
        };
        if let Some(first) = picked.first() {
            for method in METHODS {
                measure(method, first, false);
            }
        }
        match args.order {
            Order::Query => {
                for s in &picked {
                    for method in METHODS {
                        measure(method, s, true);
                    }
                }
            }
            Order::Method => {
                for method in METHODS {
                    evict_caches(&mut eviction);
                    for s in &picked {
                        measure(method, s, true);
                    }
                }
            }
        }
        let micros = times.map(|t| {
            #[expect(clippy::cast_precision_loss, reason = "query counts are small")]
            let n = t.len().max(1) as f64;
            t.iter().sum::<f64>() / n
        });
        // The hierarchy as built ("+L" with hub labels), or the landmarks (a repair drops them).
        let hierarchy = match graph.hierarchy_size() {
            Some((core, shortcuts)) if graph.has_labels() => format!("{core}/{shortcuts}+L"),
            Some((core, shortcuts)) => format!("{core}/{shortcuts}"),
            None if graph.has_landmarks() => "landmarks".to_owned(),
            None => "none".to_owned(),
        };
        let repair_us = repair_median(&mut graph, &mut grid);
        #[expect(clippy::cast_precision_loss, reason = "counts are small")]
        let expanded = expanded.map(|e| e as f64 / picked.len().max(1) as f64);
        let row = Row {
            micros,
            expanded,
            wrong,
            build_ms,
            bytes_per_cell,
            repair_us,
            side_512: grid.width() == 512 && grid.height() == 512,
            jps_faster: graph.jps_is_faster(),
        };
        println!(
            "{:<20} {:>5} {:>9.1} {:>9.1} {:>9.1} {:>7.2} {:>7.2} {:>8.0} {:>8.0} {:>8.1} {:>7.1} {:>8} {:>8} {:>13} {:>9.1} {:>6} {:>6}",
            name,
            picked.len(),
            row.micros[0],
            row.micros[1],
            row.micros[2],
            row.micros[1] / row.micros[2],
            row.micros[0] / row.micros[2],
            row.expanded[1],
            row.expanded[2],
            row.build_ms,
            row.bytes_per_cell,
            graph.subgoals(),
            graph.edges(),
            hierarchy,
            row.repair_us,
            if row.jps_faster { "JPS" } else { "SG" },
            row.wrong
        );
        rows.push((name, row));
    }
    summary(&rows, total);
    let wrong: usize = rows.iter().map(|(_, r)| r.wrong).sum();
    if wrong > 0 {
        return Err(Failure(
            format!("{wrong} answers differ from the published optimum or are not legal"),
            1,
        ));
    }
    Ok(())
}

/// The median time (µs) of [`SubgoalGraph::repair`] after a one-cell edit: [`EDITS`] random
/// cells, each toggled (an open cell becomes a wall, a wall plain ground) and then restored,
/// every repair timed (the grid's own edit is not); the grid ends as it began.
fn repair_median(graph: &mut SubgoalGraph, grid: &mut Grid) -> f64 {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut micros = Vec::with_capacity(2 * EDITS);
    for _ in 0..EDITS {
        #[expect(clippy::cast_possible_truncation, reason = "below the side")]
        let p = Pos::new(
            (rng.next() % u64::from(grid.width())) as u32,
            (rng.next() % u64::from(grid.height())) as u32,
        );
        let Some(old) = grid.tile(p) else { continue };
        let new = if old.is_wall() { Tile::FLOOR } else { Tile::Wall };
        for tile in [new, old] {
            let _ = grid.set_tile(p, tile);
            let began = Instant::now();
            graph.repair(grid);
            micros.push(began.elapsed().as_secs_f64() * 1e6);
        }
    }
    median(&mut micros)
}

/// The medians over the maps, against issue 24 point 4's targets.
fn summary(rows: &[(String, Row)], total: usize) {
    let mut over_jps: Vec<f64> = rows.iter().map(|(_, r)| r.micros[1] / r.micros[2]).collect();
    let mut over_astar: Vec<f64> = rows.iter().map(|(_, r)| r.micros[0] / r.micros[2]).collect();
    let weak: Vec<(&str, f64)> = rows
        .iter()
        .filter(|(n, _)| n.starts_with("random512") || n == "maze512-1-0")
        .map(|(n, r)| (n.as_str(), r.micros[0] / r.micros[2]))
        .collect();
    let big: Vec<&(String, Row)> = rows.iter().filter(|(_, r)| r.side_512).collect();
    let mut build: Vec<f64> = big.iter().map(|(_, r)| r.build_ms).collect();
    let mut bytes: Vec<f64> = big.iter().map(|(_, r)| r.bytes_per_cell).collect();
    let mut repair: Vec<f64> = big.iter().map(|(_, r)| r.repair_us).collect();
    let max = |v: &[f64]| v.iter().copied().fold(f64::NAN, f64::max);
    let mark = |met: bool| if met { "met" } else { "NOT met" };
    let jps = median(&mut over_jps);
    println!();
    println!(
        "summary over {} maps, {total} queries: median JPS/SG {jps:.2}x (target >= 3x: {}), median A*/SG {:.2}x",
        rows.len(),
        mark(jps >= 3.0),
        median(&mut over_astar)
    );
    // What a caller after the fastest exact route gets by the graph's own verdict (the rule of
    // bevy_gridpath's SubgoalRoutes for JPS requests): JPS where the graph timed JPS faster.
    let mut chosen: Vec<f64> =
        rows.iter().map(|(_, r)| if r.jps_faster { 1.0 } else { r.micros[1] / r.micros[2] }).collect();
    let picked_jps = rows.iter().filter(|(_, r)| r.jps_faster).count();
    let misjudged: Vec<&str> = rows
        .iter()
        .filter(|(_, r)| r.jps_faster != (r.micros[1] < r.micros[2]))
        .map(|(n, _)| n.as_str())
        .collect();
    println!(
        "  by the graph's verdict (JPS on the {picked_jps} maps where it timed JPS faster, else the graph): median JPS/chosen {:.2}x; verdicts this run's means contradict: {}",
        median(&mut chosen),
        if misjudged.is_empty() { "none".to_owned() } else { misjudged.join(", ") }
    );
    if !weak.is_empty() {
        let list: Vec<String> = weak.iter().map(|(n, r)| format!("{n} {r:.2}x")).collect();
        println!(
            "  weak maps A*/SG: {} (target >= 5x each: {})",
            list.join(", "),
            mark(weak.iter().all(|&(_, r)| r >= 5.0))
        );
    }
    if !big.is_empty() {
        let (build_max, bytes_max) = (max(&build), max(&bytes));
        // The repair target is per map (the median over its edits), so the verdict is the
        // slowest map's median, printed next to it; the median over the maps only describes.
        let (slowest, repair_max) = big
            .iter()
            .max_by(|(_, a), (_, b)| a.repair_us.total_cmp(&b.repair_us))
            .map_or(("", f64::NAN), |(name, r)| (name.as_str(), r.repair_us));
        println!(
            "  512x512 maps ({}): build median {:.0} ms, max {build_max:.0} ms (target <= 2000 ms: {}); {:.1} B/cell median, max {bytes_max:.1} (target <= 64: {}); one-cell repair: median per map at most {repair_max:.0} µs ({slowest}; target <= 2000 µs: {}), median over the maps {:.0} µs",
            big.len(),
            median(&mut build),
            mark(build_max <= 2000.0),
            median(&mut bytes),
            mark(bytes_max <= 64.0),
            mark(repair_max <= 2000.0),
            median(&mut repair)
        );
    }
}
