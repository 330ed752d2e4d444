//! `gridpath bench`: gridpath's searches against the `pathfinding` crate, in one process, on the
//! same queries, reporting per-map times and the peer/ours ratios.

use std::path::{Path, PathBuf};
use std::time::Instant;

use gridpath::formats::{self, Scenario};
use gridpath::{Algorithm, FlowField, Grid, Pos, Rules, Searcher, Settings, Tile};

use crate::Failure;

/// What to run.
pub(crate) struct BenchArgs {
    pub(crate) scen: Vec<PathBuf>,
    pub(crate) peers: bool,
    pub(crate) runs: u32,
    pub(crate) max_queries: Option<usize>,
    pub(crate) field: bool,
    pub(crate) order: Order,
    pub(crate) any_angle: bool,
}

/// The order in which the queries and the methods are run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Order {
    /// Query by query, the methods back to back on each.
    Query,
    /// Method by method, each over all of the map's queries.
    Method,
}

/// Timings of one method on one map.
#[derive(Default)]
struct Method {
    micros: Vec<f64>,
    expanded: u64,
    wrong: usize,
}

impl Method {
    fn mean(&self) -> f64 {
        #[expect(clippy::cast_precision_loss, reason = "query counts are small")]
        let n = self.micros.len().max(1) as f64;
        self.micros.iter().sum::<f64>() / n
    }

    fn quantile(&mut self, q: f64) -> f64 {
        self.micros.sort_by(f64::total_cmp);
        crate::quantile(&self.micros, q)
    }

    fn expanded_per_query(&self) -> f64 {
        #[expect(clippy::cast_precision_loss, reason = "counts are small")]
        let r = self.expanded as f64 / self.micros.len().max(1) as f64;
        r
    }

    fn cells(&mut self) -> String {
        format!(
            "{:>9.1} {:>9.1} {:>9.1} {:>9.0}",
            self.mean(),
            self.quantile(0.5),
            self.quantile(0.95),
            self.expanded_per_query()
        )
    }
}

pub(crate) fn run(args: &BenchArgs) -> Result<(), Failure> {
    if args.peers && !cfg!(feature = "peers") {
        return Err(Failure(
            "--peers needs the peers feature: cargo run --release -p gridpath --features peers -- bench …"
                .into(),
            2,
        ));
    }
    println!(
        "{:<20} {:>6} | {:^39} | {:^39} | {:^39} | {:^39} | {:>7} {:>7} {:>7}",
        "map",
        "n",
        "gridpath A*: mean median p95 exp/q",
        "gridpath JPS: mean median p95 exp/q",
        "JPS, no jump bits: mean median p95 exp/q",
        "pathfinding astar: mean median p95 exp/q",
        "x A*",
        "x JPS",
        "x JPSnb"
    );
    let mut ratios_astar = Vec::new();
    let mut ratios_jps = Vec::new();
    let mut ratios_online = Vec::new();
    let mut wrong = 0;
    let mut total = 0;
    let mut field_rows = Vec::new();
    let mut prep_rows = Vec::new();
    // Written over before each method's pass in method order (see `evict_caches`).
    let mut eviction = Vec::new();
    for file in &args.scen {
        let (name, grid, scenarios) = load(file)?;
        prep_rows.push((name.clone(), preprocessing(&grid)));
        let picked = sample(&scenarios, args.max_queries);
        total += picked.len();
        let mut searcher = Searcher::new();
        let mut cells = Vec::new();
        let mut astar = Method::default();
        let mut jps = Method::default();
        let mut online = Method::default();
        let mut peer = Method::default();
        #[cfg(feature = "peers")]
        let peer_grid = gridpath::peers::PeerGrid::new(&grid);
        let mut peer_path: Vec<Pos> = Vec::new();
        // Times `method` (0: gridpath A*, 1: gridpath JPS, 2: JPS without the jump bits, 3: the
        // peer) on query `s`, `runs` times back to back, and checks the answer; `timed: false`
        // runs it once and records nothing (a warm-up).
        let mut measure = |method: usize, s: &Scenario, timed: bool| {
            let settings =
                Settings::with_algorithm(if method == 0 { Algorithm::AStar } else { Algorithm::Jps });
            searcher.set_jump_bits(method != 2);
            let mut elapsed = 0.0;
            let mut answer = None;
            for _ in 0..if timed { args.runs } else { 1 } {
                let began = Instant::now();
                let r = match method {
                    0..=2 => searcher
                        .find_path_into(&grid, s.start, s.goal, &settings, &mut cells)
                        .ok()
                        .map(|(cost, stats, _)| (cost, stats.expanded, None)),
                    #[cfg(feature = "peers")]
                    _ => peer_grid
                        .astar(s.start, s.goal)
                        .map(|(path, cost, expanded)| (cost, expanded, Some(path))),
                    // Never reached: `--peers` without the feature is refused up front.
                    #[cfg(not(feature = "peers"))]
                    _ => None,
                };
                elapsed += began.elapsed().as_secs_f64();
                // The peer's path (and the one it replaces) is moved and freed outside the timing.
                answer = r.map(|(cost, expanded, path)| {
                    if let Some(path) = path {
                        peer_path = path;
                    }
                    (cost, expanded)
                });
            }
            if !timed {
                return;
            }
            let record = match method {
                0 => &mut astar,
                1 => &mut jps,
                2 => &mut online,
                _ => &mut peer,
            };
            record.micros.push(elapsed * 1e6 / f64::from(args.runs));
            let path = if method < 3 { &cells } else { &peer_path };
            match answer {
                Some((cost, expanded)) if good(&grid, path, cost, s) => record.expanded += expanded,
                _ => record.wrong += 1,
            }
        };
        let methods = if args.peers { 4 } else { 3 };
        // Each method answers the map's first query once untimed before its timed queries: the
        // workspaces are sized and their pages mapped (gridpath's `Searcher` is per map and
        // shared, so without this whichever method ran first paid for the others; the peer's
        // allocator pools fill), as in a game before its first frame.
        let warm_up = picked.first();
        match args.order {
            // Each query by every method back to back, then the next query: the methods meet
            // the same machine state, and each query finds the caches as the others left them.
            Order::Query => {
                if let Some(first) = warm_up {
                    for method in 0..methods {
                        measure(method, first, false);
                    }
                }
                for s in &picked {
                    for method in 0..methods {
                        measure(method, s, true);
                    }
                }
            }
            // Every query by one method, then the next method (as GPPC runs its entries, each in
            // a process of its own): each method finds the caches its own previous query left,
            // and starts each map with caches emptied of what the methods before it loaded.
            Order::Method => {
                for method in 0..methods {
                    if let Some(first) = warm_up {
                        measure(method, first, false);
                    }
                    evict_caches(&mut eviction);
                    for s in &picked {
                        measure(method, s, true);
                    }
                }
            }
        }
        wrong += astar.wrong + jps.wrong + online.wrong + peer.wrong;
        let [ra, rj, ro] = if args.peers {
            let ratios = [astar.mean(), jps.mean(), online.mean()].map(|ours| peer.mean() / ours);
            ratios_astar.push(ratios[0]);
            ratios_jps.push(ratios[1]);
            ratios_online.push(ratios[2]);
            ratios.map(|r| format!("{r:>7.1}"))
        } else {
            ["-".into(), "-".into(), "-".into()]
        };
        let peer_cells = if args.peers { peer.cells() } else { format!("{:^39}", "-") };
        println!(
            "{:<20} {:>6} | {} | {} | {} | {} | {:>7} {:>7} {:>7}{}",
            name,
            picked.len(),
            astar.cells(),
            jps.cells(),
            online.cells(),
            peer_cells,
            ra,
            rj,
            ro,
            if astar.wrong + jps.wrong + online.wrong + peer.wrong > 0 {
                format!(
                    "  WRONG: A* {} JPS {} JPS without jump bits {} peer {}",
                    astar.wrong, jps.wrong, online.wrong, peer.wrong
                )
            } else {
                String::new()
            }
        );
        if args.field && grid.width() == 512 && grid.height() == 512 {
            field_rows.push(field_bench(&name, &grid, &scenarios, args)?);
        }
    }
    println!();
    if args.peers {
        println!(
            "median ratio pathfinding::astar / gridpath over {} maps: A* {:.2}x, JPS {:.1}x, \
             JPS without jump bits {:.1}x",
            ratios_astar.len(),
            median(&mut ratios_astar),
            median(&mut ratios_jps),
            median(&mut ratios_online)
        );
    }
    if !field_rows.is_empty() {
        println!();
        println!(
            "{:<20} {:>16} {:>16} {:>16} {:>8}",
            "full octile field", "gridpath ms", "dijkstra_all ms", "cells reached", "ratio"
        );
        let mut ratios = Vec::new();
        for row in &field_rows {
            println!("{row}");
            ratios.push(row.ratio);
        }
        if args.peers {
            println!("median field ratio dijkstra_all / gridpath: {:.1}x", median(&mut ratios));
        }
    }
    let grid_bytes = GRID_BYTES_PER_CELL;
    #[expect(clippy::cast_precision_loss, reason = "a few bytes")]
    let (astar, jps) =
        (Searcher::bytes_per_cell(Algorithm::AStar) as f64, Searcher::bytes_per_cell(Algorithm::Jps) as f64);
    println!(
        "memory per cell (padding excluded): grid {grid_bytes} B (1 B cell + 1 B move mask + 1 B jump bits + 1 B clearance + 2.5 B bit planes); \
         A* {} B total ({astar} B workspace); JPS {} B total ({jps} B workspace)",
        grid_bytes + astar,
        grid_bytes + jps
    );
    if !prep_rows.is_empty() {
        let mut builds: Vec<f64> = prep_rows.iter().map(|(_, (b, _))| *b).collect();
        let mut edits: Vec<f64> = prep_rows.iter().map(|(_, (_, e))| *e).collect();
        let slowest = |k: usize| {
            let pick = |r: &(String, (f64, f64))| if k == 0 { r.1.0 } else { r.1.1 };
            prep_rows.iter().max_by(|a, b| pick(a).total_cmp(&pick(b))).map(|r| (r.0.clone(), pick(r)))
        };
        let ((build_map, build_max), (edit_map, edit_max)) =
            (slowest(0).unwrap_or_default(), slowest(1).unwrap_or_default());
        println!(
            "jump bits (JPS's preprocessing, 1 B/cell): built in {:.2} ms per map (median; slowest {build_max:.2} ms, \
             {build_map}); an edit (set_tile, with everything it keeps in step) {:.1} µs (median of the maps' means; \
             slowest {edit_max:.1} µs, {edit_map})",
            median(&mut builds),
            median(&mut edits)
        );
    }
    if args.any_angle {
        wrong += crate::any_angle::table(args)?;
    }
    println!("bench: {total} queries, {wrong} wrong or illegal answers");
    if wrong > 0 {
        return Err(Failure(format!("{wrong} answers were not optimal or not legal"), 1));
    }
    Ok(())
}

/// The grid's bytes per cell: 1 byte per cell, 1 byte of legal-move mask, 1 byte of jump
/// bits, 1 byte of clearance, and for its 3 terrain classes the bit rows and columns (6 bits)
/// and their forced-neighbour bits (12 bits), and the rough bits (2 bits: rows and columns).
pub(crate) const GRID_BYTES_PER_CELL: f64 = 4.0 + 20.0 / 8.0;

/// Pushes the previous method's data out of the caches: writes a buffer twice the size of
/// the largest last-level cache this bench has run on (32 MB), allocated on first use.
pub(crate) fn evict_caches(buffer: &mut Vec<u64>) {
    const WORDS: usize = 64 << 20 >> 3;
    if buffer.len() != WORDS {
        *buffer = vec![0; WORDS];
    }
    for (k, w) in buffer.iter_mut().enumerate().step_by(8) {
        *w = w.wrapping_add(k as u64);
    }
    std::hint::black_box(&buffer);
}

/// JPS's preprocessing on `grid`: the median time of a full rebuild of the jump bits (ms),
/// and the mean time of an edit (µs): up to 200 open cells, evenly spaced, each made a wall and
/// then restored, on a copy of the grid.
fn preprocessing(grid: &Grid) -> (f64, f64) {
    let mut copy = grid.clone();
    let mut builds: Vec<f64> = (0..5)
        .map(|_| {
            let began = Instant::now();
            copy.refresh_jump_bits();
            began.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    let open: Vec<Pos> = grid.positions().filter(|&p| grid.is_passable(p)).collect();
    let (mut micros, mut edits) = (0.0, 0u32);
    for &p in open.iter().step_by((open.len() / 200).max(1)) {
        let Some(old) = copy.tile(p) else { continue };
        let began = Instant::now();
        let changed = copy.set_tile(p, Tile::Wall).and_then(|_| copy.set_tile(p, old));
        micros += began.elapsed().as_secs_f64() * 1e6;
        edits += if changed.is_ok() { 2 } else { 0 };
    }
    (median(&mut builds), micros / f64::from(edits.max(1)))
}

/// One full-field timing row.
struct FieldRow {
    name: String,
    ours_ms: f64,
    peer_ms: Option<f64>,
    reached: usize,
    ratio: f64,
}

impl std::fmt::Display for FieldRow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let peer = self.peer_ms.map_or_else(|| "-".to_string(), |p| format!("{p:.2}"));
        let ratio = if self.peer_ms.is_some() { format!("{:.1}", self.ratio) } else { "-".into() };
        write!(f, "{:<20} {:>16.2} {:>16} {:>16} {:>8}", self.name, self.ours_ms, peer, self.reached, ratio)
    }
}

/// Times a full octile distance field from a few scenario goals (ours, and the peer's
/// `dijkstra_all` when enabled), checking that both give the same distances.
fn field_bench(
    name: &str,
    grid: &Grid,
    scenarios: &[Scenario],
    args: &BenchArgs,
) -> Result<FieldRow, Failure> {
    let goals: Vec<Pos> = sample(scenarios, Some(5)).iter().map(|s| s.goal).collect();
    let mut ours = Vec::new();
    let mut peer = Vec::new();
    let mut reached = 0;
    #[cfg(feature = "peers")]
    let peer_grid = gridpath::peers::PeerGrid::new(grid);
    for &goal in &goals {
        let mut field =
            FlowField::dijkstra(grid, goal, Rules::OCTILE).map_err(|e| Failure(e.to_string(), 1))?;
        for _ in 0..args.runs.max(3) {
            let began = Instant::now();
            field.rebuild(grid).map_err(|e| Failure(e.to_string(), 1))?;
            ours.push(began.elapsed().as_secs_f64() * 1e3);
        }
        reached = field.reached();
        #[cfg(feature = "peers")]
        if args.peers {
            let began = Instant::now();
            let all = peer_grid.dijkstra_all(goal);
            peer.push(began.elapsed().as_secs_f64() * 1e3);
            // Same reach (the peer's map excludes the start) and the same distances.
            if all.len() + 1 != field.reached() {
                return Err(Failure(format!("{name}: field reach differs from dijkstra_all"), 1));
            }
            for (&cell, &(_, cost)) in &all {
                let pos = peer_grid.pos(cell);
                let d = field.distance(pos).unwrap_or(f64::INFINITY);
                #[expect(clippy::cast_precision_loss, reason = "fixed-point costs are far below 2^52")]
                let p = cost as f64 / gridpath::peers::SCALE;
                if (d - p).abs() > 0.01 {
                    return Err(Failure(
                        format!("{name}: field distance at {pos} is {d}, dijkstra_all says {p}"),
                        1,
                    ));
                }
            }
        }
    }
    let ours_ms = median(&mut ours);
    let peer_ms = (!peer.is_empty()).then(|| median(&mut peer));
    Ok(FieldRow {
        name: name.to_string(),
        ours_ms,
        peer_ms,
        reached,
        ratio: peer_ms.map_or(0.0, |p| p / ours_ms),
    })
}

fn good(grid: &Grid, cells: &[Pos], cost: f64, s: &Scenario) -> bool {
    cells.first() == Some(&s.start)
        && cells.last() == Some(&s.goal)
        && grid.path_cost(cells, Rules::OCTILE).is_ok_and(|c| (c - cost).abs() < 0.01)
        && (cost - s.optimal).abs() <= 0.01
}

pub(crate) fn load(file: &Path) -> Result<(String, Grid, Vec<Scenario>), Failure> {
    let text = std::fs::read_to_string(file).map_err(|e| Failure(format!("{}: {e}", file.display()), 2))?;
    let scenarios = formats::parse_scen(&text).map_err(|e| Failure(format!("{}: {e}", file.display()), 2))?;
    let map_path = formats::map_path_for_scen(file);
    let grid = crate::load_scen_map(&map_path, &scenarios)?.grid;
    let name = map_path.file_stem().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    Ok((name, grid, scenarios))
}

/// At most `max` scenarios, evenly spaced over the file (files are sorted by difficulty bucket,
/// so the sample keeps the mix of short and long queries).
pub(crate) fn sample(scenarios: &[Scenario], max: Option<usize>) -> Vec<Scenario> {
    match max {
        Some(max) if max < scenarios.len() && max > 0 => {
            (0..max).map(|k| scenarios[k * scenarios.len() / max].clone()).collect()
        }
        _ => scenarios.to_vec(),
    }
}

pub(crate) fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => f64::midpoint(v[n / 2 - 1], v[n / 2]),
    }
}
