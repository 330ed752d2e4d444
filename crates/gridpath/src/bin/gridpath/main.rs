//! The `gridpath` command-line tool: solve a map, print a wavefront table, check Moving AI
//! scenarios, benchmark against the `pathfinding` crate.

mod any_angle;
mod bench;
mod route;
mod subgoal;
mod terrain;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};
use gridpath::formats::{self, ParsedMap};
use gridpath::generate::Generator;
use gridpath::{Algorithm, Corners, FlowField, Grid, Heuristic, Moves, Pos, Rules, Searcher, Settings, Tile};

#[derive(Parser)]
#[command(
    name = "gridpath",
    version,
    about = "Grid pathfinding: solve maps, print wavefronts, check Moving AI scenarios"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Find a path on a map and print it.
    Solve {
        /// Map file: Moving AI .map, digit grid (0 free, 1 wall, 3 start, 4 goal) or ASCII (. # S G).
        map: PathBuf,
        /// Start as X,Y (column,row from the top-left); defaults to the start the map marks.
        #[arg(long, value_parser = parse_pos)]
        from: Option<Pos>,
        /// Goal as X,Y; defaults to the goal the map marks.
        #[arg(long, value_parser = parse_pos)]
        to: Option<Pos>,
        #[command(flatten)]
        search: SearchArgs,
        /// Print one JSON object instead of the map.
        #[arg(long)]
        json: bool,
    },
    /// Print the wavefront ("contour line") step table toward a goal.
    Field {
        /// Map file.
        map: PathBuf,
        /// Goal as X,Y.
        #[arg(long, value_parser = parse_pos)]
        goal: Pos,
        #[command(flatten)]
        rules: RuleArgs,
    },
    /// Run Moving AI scenarios and check every length against the published optimum.
    Scen {
        /// Scenario files (`X.map.scen`; the map `X.map` must sit next to each).
        #[arg(required = true)]
        scen: Vec<PathBuf>,
        /// Algorithm to run.
        #[arg(long, value_enum, default_value_t = Algorithm::AStar)]
        algo: Algorithm,
        /// Heuristic.
        #[arg(long, value_enum, default_value_t = Heuristic::Octile)]
        heuristic: Heuristic,
        /// Heuristic weight (≥ 1).
        #[arg(long, default_value_t = 1.0)]
        weight: f64,
        /// Times each query is run; its time is the mean of the runs.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
        runs: u32,
        /// JPS without the grid's jump bits: every line scanned, as online JPS.
        #[arg(long)]
        no_jump_bits: bool,
        /// Pull every path taut (`gridpath::smooth`) and check it segment by segment: a smoothed
        /// path longer than the published optimum is an error.
        #[arg(long)]
        smooth: bool,
        /// Agent size: a K x K body anchored at its top-left cell (1..=4). Above 1 every step is
        /// checked for room for the whole body, lengths are compared with the published
        /// (size 1) optima without failing, and queries whose start or goal has no room for
        /// the body are skipped and counted.
        #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=4))]
        size: u8,
        /// When a goal cannot be reached, check the route to the reachable cell closest to it
        /// instead (counted as partial).
        #[arg(long)]
        partial: bool,
    },
    /// Time gridpath's A*, JPS and JPS without jump bits (and with --peers the `pathfinding`
    /// crate) on the same scenarios, checking every answer against the published optimum.
    Bench {
        /// Scenario files (`X.map.scen`; the map `X.map` must sit next to each).
        #[arg(required = true)]
        scen: Vec<PathBuf>,
        /// Also run `pathfinding::astar` and `dijkstra_all` (needs `--features peers`).
        #[arg(long)]
        peers: bool,
        /// Times each query is run; its time is the mean of the runs (with --subgoal the
        /// fastest run).
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
        runs: u32,
        /// Use at most this many scenarios per map, evenly spaced over the file.
        #[arg(long)]
        max_queries: Option<usize>,
        /// Also time a full octile distance field on each 512x512 map.
        #[arg(long)]
        field: bool,
        /// `method` (the default, as GPPC runs its entries): every query by one method, then
        /// the next method; `query`: each query by every method back to back, so each finds the
        /// caches as the methods before it left them.
        #[arg(long, value_enum, default_value_t = bench::Order::Method)]
        order: bench::Order,
        /// Also time the any-angle routes on the same queries: A*, JPS, JPS + smoothing,
        /// Theta*, Lazy Theta* (and with --peers condor's), their mean lengths against the
        /// octile optimum, and the clearance maps of large agents.
        #[arg(long)]
        any_angle: bool,
        /// Instead: paint each map with a seeded overlay of costly patches (costs 2, 5 and 10
        /// on plain ground, the same for the same SEED) and time JPS on terrain costs against
        /// A*, checking that every JPS cost is A*'s.
        #[arg(long, value_name = "SEED", conflicts_with = "subgoal")]
        terrain: Option<u64>,
        /// Instead: time the subgoal graph (`SubgoalGraph`) against A* and JPS on the same
        /// queries, with its build time, bytes per cell and one-cell repair time, against
        /// issue 24's targets.
        #[arg(long)]
        subgoal: bool,
    },
    /// Convert a map between formats; the output format comes from OUT's extension: .map
    /// (Moving AI), .tpmap (tilepath, exact), .tmx (Tiled, with tilepath.tsx), .txt (ASCII),
    /// .csv (digit grid). The output is replaced atomically.
    Convert {
        /// Map to read (any format `solve` reads, plus .tpmap and .tmx).
        input: PathBuf,
        /// File to write.
        output: PathBuf,
    },
    /// Generate a seeded random map with a start and goal (the same seed gives the same map on
    /// every machine) and print it as .tpmap, or write it in OUTPUT's format.
    Generate {
        /// Kind of map.
        #[arg(value_enum)]
        kind: Generator,
        /// Width in cells.
        width: u32,
        /// Height in cells.
        height: u32,
        /// Random seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Wall probability for `noise`, from 0 to 1 (the default shown from the generator's own).
        #[arg(long, value_parser = parse_density,
              help = format!("Wall probability for `noise`, from 0 to 1 [default: {}]", Generator::DEFAULT_DENSITY))]
        density: Option<f64>,
        /// Corridor width in cells for `maze`, 1 or more (the default shown from the generator's own).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..),
              help = format!("Corridor width in cells for `maze`, 1 or more [default: {}]", Generator::DEFAULT_CORRIDOR))]
        corridor: Option<u32>,
        /// File to write (format from the extension); prints .tpmap text when absent.
        #[arg(long, short)]
        output: Option<PathBuf>,
        /// Also write N benchmark queries as OUTPUT.scen (Moving AI format: buckets of optimal
        /// length 4 wide, 10 queries each), so the map can be run with `scen` and `bench`.
        #[arg(long, value_name = "N", requires = "output")]
        scen: Option<usize>,
    },
}

#[derive(clap::Args, Clone, Copy)]
struct RuleArgs {
    /// 4- or 8-connected moves.
    #[arg(long, value_enum, default_value_t = Moves::Eight)]
    moves: Moves,
    /// Corner rule for diagonal steps.
    #[arg(long, value_enum, default_value_t = Corners::Forbid)]
    corners: Corners,
}

#[derive(clap::Args, Clone, Copy)]
struct SearchArgs {
    /// Algorithm.
    #[arg(long, value_enum, default_value_t = Algorithm::AStar)]
    algo: Algorithm,
    #[command(flatten)]
    rules: RuleArgs,
    /// Heuristic.
    #[arg(long, value_enum, default_value_t = Heuristic::Octile)]
    heuristic: Heuristic,
    /// Heuristic weight (≥ 1; above 1 is weighted A*, faster but not optimal).
    #[arg(long, default_value_t = 1.0)]
    weight: f64,
    /// When the goal cannot be reached, print the route to the reachable cell closest to it
    /// (the summary says `partial`) instead of failing.
    #[arg(long)]
    partial: bool,
    /// Agent size: a body of K x K cells, the path its top-left cell's route (1..=4).
    #[arg(long = "size", visible_alias = "agent-size", value_name = "K", default_value_t = 1)]
    size: u8,
    /// Pull the path taut afterwards (`gridpath::smooth`, on the agent's grid): the route is
    /// then its turning points, walked in straight lines.
    #[arg(long)]
    smooth: bool,
}

impl RuleArgs {
    fn rules(self) -> Rules {
        Rules { moves: self.moves, corners: self.corners }
    }
}

impl SearchArgs {
    fn settings(self) -> Settings {
        Settings {
            algorithm: self.algo,
            rules: self.rules.rules(),
            heuristic: self.heuristic,
            weight: self.weight,
            partial: self.partial,
            agent_size: self.size,
        }
    }
}

fn parse_pos(s: &str) -> Result<Pos, String> {
    let (x, y) = s.split_once(',').ok_or_else(|| format!("{s:?} is not X,Y"))?;
    let coord = |v: &str| {
        v.trim().parse::<u32>().map_err(|_| format!("{v:?} in {s:?} is not a non-negative whole number"))
    };
    Ok(Pos::new(coord(x)?, coord(y)?))
}

/// A failure to report: the message, and the exit code.
pub(crate) struct Failure(pub(crate) String, pub(crate) u8);

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Solve { map, from, to, search, json } => {
            solve(&map, from, to, search.settings(), search.smooth, json)
        }
        Command::Field { map, goal, rules } => field(&map, goal, rules.rules()),
        Command::Scen { scen, algo, heuristic, weight, runs, no_jump_bits, smooth, size, partial } => {
            let settings = Settings {
                algorithm: algo,
                rules: Rules::OCTILE,
                heuristic,
                weight,
                partial,
                agent_size: size,
            };
            run_scenarios(&scen, settings, ScenOptions { runs, jump_bits: !no_jump_bits, smooth })
        }
        Command::Bench { scen, peers, runs, max_queries, field, order, any_angle, terrain, subgoal } => {
            let args = bench::BenchArgs { scen, peers, runs, max_queries, field, order, any_angle };
            match terrain {
                Some(seed) => terrain::run(&args, seed),
                None if subgoal => subgoal::run(&args),
                None => bench::run(&args),
            }
        }
        Command::Convert { input, output } => convert(&input, &output),
        Command::Generate { kind, width, height, seed, density, corridor, output, scen } => {
            // The parsed kind carries the default parameters: the flags set them. A flag for
            // another kind of map is refused rather than ignored (`rooms --density 0.4` would
            // otherwise look as if it did something).
            let misplaced = match kind {
                Generator::Noise { .. } => corridor.map(|_| "--corridor"),
                Generator::Maze { .. } => density.map(|_| "--density"),
                _ => density.map(|_| "--density").or(corridor.map(|_| "--corridor")),
            };
            if let Some(flag) = misplaced {
                Err(Failure(format!("{flag} does not apply to {} maps", kind.name()), 2))
            } else {
                let generator = match kind {
                    Generator::Noise { .. } => {
                        Generator::Noise { density: density.unwrap_or(Generator::DEFAULT_DENSITY) }
                    }
                    Generator::Maze { .. } => {
                        Generator::Maze { corridor: corridor.unwrap_or(Generator::DEFAULT_CORRIDOR) }
                    }
                    other => other,
                };
                generate(generator, width, height, seed, output.as_deref(), scen)
            }
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure(message, code)) => {
            eprintln!("error: {message}");
            ExitCode::from(code)
        }
    }
}

/// `--density`: a wall probability, a number from 0 to 1 (the generator would clamp anything
/// else to a map of all walls or none without a word).
fn parse_density(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(d) if (0.0..=1.0).contains(&d) => Ok(d),
        _ => Err(format!("{text:?} is not a wall probability: give a number from 0 to 1, e.g. 0.25")),
    }
}

pub(crate) fn load_map(path: &Path) -> Result<ParsedMap, Failure> {
    formats::load_map(path).map_err(|e| Failure(e.to_string(), 2))
}

/// The map of a scenario file, at the size its scenarios were made on (a 2007 `octile-corner`
/// map is scaled to it, as HOG did: `formats::load_map_for_scen`).
pub(crate) fn load_scen_map(path: &Path, scenarios: &[formats::Scenario]) -> Result<ParsedMap, Failure> {
    let size = scenarios.first().map(|s| (s.width, s.height));
    formats::load_map_for_scen(path, size).map_err(|e| Failure(e.to_string(), 2))
}

fn generate(
    generator: gridpath::generate::Generator,
    width: u32,
    height: u32,
    seed: u64,
    output: Option<&Path>,
    scen: Option<usize>,
) -> Result<(), Failure> {
    let grid = gridpath::generate::generate(generator, width, height, seed)
        .map_err(|e| Failure(e.to_string(), 2))?;
    let ends = gridpath::generate::pick_endpoints(&grid);
    let map = ParsedMap { grid, start: ends.map(|e| e.0), goal: ends.map(|e| e.1) };
    match output {
        None => {
            print!("{}", formats::write_tilepath(&map.grid, map.start, map.goal));
            Ok(())
        }
        Some(path) => {
            write_map(&map, path)?;
            let Some(count) = scen else { return Ok(()) };
            let name = path.file_name().map_or_else(|| "map".into(), |n| n.to_string_lossy().into_owned());
            let queries = gridpath::scenarios::make_scenarios(&map.grid, &name, count, seed);
            let mut scen_path = path.as_os_str().to_owned();
            scen_path.push(".scen");
            let scen_path = PathBuf::from(scen_path);
            formats::write_atomic(&scen_path, formats::write_scen(&queries).as_bytes())
                .map_err(|e| Failure(format!("{}: {e}", scen_path.display()), 1))?;
            if queries.len() < count {
                eprintln!(
                    "note: the map holds routes for {} of the {count} queries asked for",
                    queries.len()
                );
            }
            Ok(())
        }
    }
}

fn convert(input: &Path, output: &Path) -> Result<(), Failure> {
    let map = load_map(input)?;
    write_map(&map, output)
}

/// Writes `map` in the format `output`'s extension names, atomically.
fn write_map(map: &ParsedMap, output: &Path) -> Result<(), Failure> {
    let format = formats::MapFormat::from_path(output).ok_or_else(|| {
        Failure(
            format!(
                "{}: unknown output format: use .map, .tpmap, .tmx, .txt (ASCII) or .csv (digits)",
                output.display()
            ),
            2,
        )
    })?;
    if map.grid.has_fences() {
        // No output format stores fences: writing would drop the map's height steps.
        return Err(Failure(
            format!(
                "{}: the map has {} fenced cell sides (height steps), which no output format keeps",
                output.display(),
                map.grid.fence_count()
            ),
            2,
        ));
    }
    let write = |path: &Path, text: &str| {
        formats::write_atomic(path, text.as_bytes())
            .map_err(|e| Failure(format!("{}: {e}", path.display()), 2))
    };
    write(output, &format.write(map))?;
    if format == formats::MapFormat::Tmx {
        // The map names its tileset relative to itself: put one beside it unless one is there.
        let tsx = output.with_file_name("tilepath.tsx");
        if !tsx.exists() {
            write(&tsx, formats::TILESET_TSX)?;
            eprintln!("wrote {} (its image is ../tiles.png, as in tilepath's assets/maps/)", tsx.display());
        }
    }
    Ok(())
}

fn solve(
    map_path: &Path,
    from: Option<Pos>,
    to: Option<Pos>,
    settings: Settings,
    smooth: bool,
    json: bool,
) -> Result<(), Failure> {
    let map = load_map(map_path)?;
    let start = from
        .or(map.start)
        .ok_or_else(|| Failure("no start: give --from X,Y (the map marks none)".into(), 2))?;
    let goal =
        to.or(map.goal).ok_or_else(|| Failure("no goal: give --to X,Y (the map marks none)".into(), 2))?;
    let mut searcher = Searcher::new();
    let began = Instant::now();
    let result = searcher.find_path(&map.grid, start, goal, &settings);
    let micros = began.elapsed().as_secs_f64() * 1e6;
    let path = match result {
        Ok(path) => path,
        Err(e) => {
            if json {
                println!("{}", serde_json::json!({ "error": e.to_string() }));
            }
            return Err(Failure(e.to_string(), 1));
        }
    };
    // Straight-line routes (any-angle, smoothed) are their vertices walked straight, costed
    // segment by segment; a grid route is its cells, costed step by step.
    let straight = settings.algorithm.is_any_angle() || smooth;
    let walk = searcher.agent_grid(&map.grid, settings.agent_size);
    let (vertices, cost) = if smooth {
        let taut = gridpath::smooth(walk, &path.cells, settings.rules);
        let cost = walk.any_angle_cost(&taut, settings.rules).unwrap_or(f64::NAN);
        (taut, cost)
    } else {
        (path.cells.clone(), path.cost)
    };
    let crossed = if straight { gridpath::sight::path_cells(&map.grid, &vertices) } else { vertices.clone() };
    if json {
        let xy = |cells: &[Pos]| cells.iter().map(|p| [p.x, p.y]).collect::<Vec<_>>();
        let out = serde_json::json!({
            "algorithm": settings.algorithm.name(),
            "cost": cost,
            "path": xy(&gridpath::sight::corners(&vertices)),
            "cells": crossed.len(),
            "cells_path": xy(&crossed),
            "smoothed": smooth,
            "size": settings.agent_size,
            "expanded": path.stats.expanded,
            "generated": path.stats.generated,
            "peak_open": path.stats.peak_open,
            "time_us": micros,
            "partial": path.outcome.is_partial(),
        });
        println!("{out}");
    } else {
        print!("{}", render(&map.grid, &crossed, start, goal));
        println!(
            "cost={cost:.4} cells={} expanded={} time_us={micros:.1}{}",
            vertices.len(),
            path.stats.expanded,
            match path.outcome {
                gridpath::Outcome::Complete => String::new(),
                gridpath::Outcome::Partial { goal } => format!(" partial: {goal} cannot be reached"),
            }
        );
    }
    Ok(())
}

/// The map as text: `#` wall, `.` floor, `~` water, a digit for terrain cost, `*` path, `S`/`G`.
fn render(grid: &Grid, path: &[Pos], start: Pos, goal: Pos) -> String {
    let on_path: std::collections::HashSet<Pos> = path.iter().copied().collect();
    let mut out = String::new();
    for y in 0..grid.height() {
        for x in 0..grid.width() {
            let p = Pos::new(x, y);
            out.push(if p == start {
                'S'
            } else if p == goal {
                'G'
            } else if on_path.contains(&p) {
                '*'
            } else {
                match grid.tile(p) {
                    Some(Tile::Ground { cost: 1 }) => '.',
                    Some(Tile::Ground { cost }) => char::from(b'0' + cost.min(9)),
                    Some(Tile::Water { .. }) => '~',
                    Some(Tile::Trees { .. }) => 'T',
                    Some(Tile::Wall) | None => '#',
                }
            });
        }
        out.push('\n');
    }
    out
}

fn field(map_path: &Path, goal: Pos, rules: Rules) -> Result<(), Failure> {
    let map = load_map(map_path)?;
    let field = FlowField::wavefront(&map.grid, goal, rules).map_err(|e| Failure(e.to_string(), 1))?;
    print!("{}", step_table(&field));
    Ok(())
}

/// The contour-line table: each cell's step number (goal 1), `00` for walls and unreached
/// cells, at least two digits, wider when the numbers need it.
fn step_table(field: &FlowField) -> String {
    let numbers: Vec<u32> = (0..field.height())
        .flat_map(|y| (0..field.width()).map(move |x| Pos::new(x, y)))
        .map(|p| field.step_number(p).unwrap_or(0))
        .collect();
    let width = numbers.iter().max().map_or(2, |m| m.to_string().len().max(2));
    let mut out = String::new();
    for row in numbers.chunks(field.width() as usize) {
        let cells: Vec<String> = row.iter().map(|n| format!("{n:0width$}")).collect();
        out.push_str(&cells.join(" "));
        out.push('\n');
    }
    out
}

/// Per-map results of a scenario run.
struct MapReport {
    queries: usize,
    optimal: usize,
    mismatches: usize,
    illegal: usize,
    micros: Vec<f64>,
    expanded: u64,
}

/// How `scen` runs and checks the searches (besides their settings).
struct ScenOptions {
    runs: u32,
    jump_bits: bool,
    smooth: bool,
}

/// Query counts of a `scen` run beyond the per-map report.
#[derive(Default)]
struct Tally {
    total: usize,
    mismatches: usize,
    illegal: usize,
    /// No room for the body at the start or the goal (sizes above 1).
    skipped: usize,
    /// No route for the body (sizes above 1, without `--partial`).
    unreached: usize,
    /// Routes to the cell closest to an unreachable goal (`--partial`).
    partial: usize,
}

/// What a scenario's route turned out to be.
enum Verdict {
    Illegal,
    /// A legal route to the cell closest to an unreachable goal.
    Partial,
    /// A legal route to the goal, and its cost (smoothed when asked).
    Complete(f64),
}

/// Checks a route the search returned for `s` (its `cells` and `cost`; smoothed first when
/// `smooth`): it starts at the start, ends at the goal (or, when `outcome` is partial,
/// anywhere), costs what the search says on the grid the agent walks, segment by segment
/// when `straight`, and above size 1 leaves room for the whole body on every step.
fn check_route(
    walk: &Grid,
    grid: &Grid,
    s: &formats::Scenario,
    (cells, cost, outcome): (&mut Vec<Pos>, f64, gridpath::Outcome),
    (straight, smooth, size): (bool, bool, u8),
) -> Verdict {
    let cost = if smooth {
        *cells = gridpath::smooth(walk, cells, Rules::OCTILE);
        walk.any_angle_cost(cells, Rules::OCTILE).unwrap_or(f64::NAN)
    } else {
        cost
    };
    let measured = if straight {
        walk.any_angle_cost(cells, Rules::OCTILE)
    } else {
        walk.path_cost(cells, Rules::OCTILE)
    };
    let legal = cells.first() == Some(&s.start)
        && (outcome.is_partial() || cells.last() == Some(&s.goal))
        && measured.is_ok_and(|c| (c - cost).abs() < 1e-6)
        && (size == 1 || route::body_fits_along(grid, cells, u32::from(size)));
    match (legal, outcome.is_partial()) {
        (false, _) => Verdict::Illegal,
        (true, true) => Verdict::Partial,
        (true, false) => Verdict::Complete(cost),
    }
}

fn run_scenarios(files: &[PathBuf], settings: Settings, opts: ScenOptions) -> Result<(), Failure> {
    let size = settings.agent_size;
    // Straight-line paths (any-angle searches, smoothed paths) are checked segment by segment
    // and may beat the published octile optimum; so may not a large body's grid path, but the
    // published optima are for size 1: both summaries say how the lengths compare.
    let straight = settings.algorithm.is_any_angle() || opts.smooth;
    let relative = straight || size > 1;
    let mut lengths = Lengths::default();
    let mut searcher = Searcher::new();
    searcher.set_jump_bits(opts.jump_bits);
    let mut cells = Vec::new();
    let mut tally = Tally::default();
    let mut optimal_algorithm = true;
    println!(
        "{:<24} {:>7} {:>7} {:>5} {:>7} {:>10} {:>10} {:>10} {:>14}",
        "map", "queries", "optimal", "wrong", "illegal", "mean_us", "median_us", "p95_us", "expanded"
    );
    for file in files {
        let text =
            std::fs::read_to_string(file).map_err(|e| Failure(format!("{}: {e}", file.display()), 2))?;
        let scenarios =
            formats::parse_scen(&text).map_err(|e| Failure(format!("{}: {e}", file.display()), 2))?;
        let map_path = formats::map_path_for_scen(file);
        let grid = load_scen_map(&map_path, &scenarios)?.grid;
        optimal_algorithm &= settings.algorithm.is_optimal(&grid, &settings);
        let mut report =
            MapReport { queries: 0, optimal: 0, mismatches: 0, illegal: 0, micros: Vec::new(), expanded: 0 };
        for s in &scenarios {
            let mut elapsed = 0.0;
            let mut outcome = None;
            for _ in 0..opts.runs {
                let began = Instant::now();
                let r = searcher.find_path_into(&grid, s.start, s.goal, &settings, &mut cells);
                elapsed += began.elapsed().as_secs_f64();
                outcome = Some(r);
            }
            report.queries += 1;
            report.micros.push(elapsed * 1e6 / f64::from(opts.runs));
            match outcome {
                Some(Ok((cost, stats, outcome))) => {
                    report.expanded += stats.expanded;
                    let walk = searcher.agent_grid(&grid, size);
                    let route = (&mut cells, cost, outcome);
                    match check_route(walk, &grid, s, route, (straight, opts.smooth, size)) {
                        Verdict::Illegal => report.illegal += 1,
                        Verdict::Partial => tally.partial += 1,
                        Verdict::Complete(cost) => {
                            if relative {
                                lengths.add(cost, s.optimal);
                            }
                            if (cost - s.optimal).abs() <= 0.01 || (relative && cost <= s.optimal + 0.01) {
                                report.optimal += 1;
                            } else {
                                report.mismatches += 1;
                            }
                        }
                    }
                }
                Some(Err(gridpath::SearchError::NoRoom { .. })) if size > 1 => tally.skipped += 1,
                Some(Err(gridpath::SearchError::NoPath { .. })) if size > 1 => tally.unreached += 1,
                _ => report.mismatches += 1,
            }
        }
        let name = map_path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        print_report(&name, &mut report);
        tally.total += report.queries;
        tally.mismatches += report.mismatches;
        tally.illegal += report.illegal;
    }
    summarize(&tally, &lengths, relative, (size, opts.smooth, optimal_algorithm), settings.algorithm)
}

/// Prints `scen`'s summary line and decides the exit code.
fn summarize(
    t: &Tally,
    lengths: &Lengths,
    relative: bool,
    (size, smooth, optimal_algorithm): (u8, bool, bool),
    algorithm: Algorithm,
) -> Result<(), Failure> {
    let (total, illegal) = (t.total, t.illegal);
    let mut extra = String::new();
    if size > 1 {
        extra += &format!(
            ", {} skipped (no room for a {size}x{size} body at start or goal), {} unreachable for it",
            t.skipped, t.unreached
        );
    }
    if t.partial > 0 {
        extra += &format!(", {} partial", t.partial);
    }
    if relative {
        println!(
            "scen: {total} queries, {} longer than optimal (worst {:+.2}%), {illegal} illegal, mean length {:+.2}% vs octile{extra}",
            lengths.longer,
            lengths.worst * 100.0,
            lengths.mean() * 100.0
        );
        // A smoothed path is never longer than the optimal grid path it came from (the
        // published optima are for size 1: a larger body may well walk further).
        if illegal > 0 || (smooth && optimal_algorithm && size == 1 && lengths.longer > 0) {
            return Err(Failure(
                format!("{illegal} illegal and {} longer-than-optimal straight-line paths", lengths.longer),
                1,
            ));
        }
        return Ok(());
    }
    let mismatches = t.mismatches;
    println!("scen: {total} queries, {mismatches} mismatches, {illegal} illegal{extra}");
    if illegal > 0 || (optimal_algorithm && mismatches > 0) {
        return Err(Failure(
            format!("{} returned {mismatches} non-optimal and {illegal} illegal paths", algorithm.label()),
            1,
        ));
    }
    Ok(())
}

/// How straight-line paths compare with the published octile optima.
#[derive(Default)]
struct Lengths {
    /// Paths longer than the optimum (beyond the published rounding).
    longer: usize,
    /// The largest excess, as a fraction of the optimum (negative when all are shorter).
    worst: f64,
    /// Sum of (length / optimum − 1) and how many.
    sum: f64,
    count: usize,
}

impl Lengths {
    fn add(&mut self, cost: f64, optimal: f64) {
        if optimal <= 0.0 {
            return;
        }
        let excess = cost / optimal - 1.0;
        if cost > optimal + 0.01 {
            self.longer += 1;
        }
        self.worst = if self.count == 0 { excess } else { self.worst.max(excess) };
        self.sum += excess;
        self.count += 1;
    }

    fn mean(&self) -> f64 {
        #[expect(clippy::cast_precision_loss, reason = "query counts are small")]
        let count = self.count.max(1) as f64;
        self.sum / count
    }
}

fn print_report(name: &str, r: &mut MapReport) {
    r.micros.sort_by(f64::total_cmp);
    #[expect(clippy::cast_precision_loss, reason = "query counts are small")]
    let mean = r.micros.iter().sum::<f64>() / r.micros.len().max(1) as f64;
    let at = |q: f64| quantile(&r.micros, q);
    println!(
        "{:<24} {:>7} {:>7} {:>5} {:>7} {:>10.1} {:>10.1} {:>10.1} {:>14}",
        name,
        r.queries,
        r.optimal,
        r.mismatches,
        r.illegal,
        mean,
        at(0.5),
        at(0.95),
        r.expanded
    );
}

/// The `q`-quantile (nearest rank) of `sorted`, a list sorted in increasing order; 0 when empty.
pub(crate) fn quantile(sorted: &[f64], q: f64) -> f64 {
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss,
        reason = "an index into a short list"
    )]
    let i = ((sorted.len().saturating_sub(1)) as f64 * q).round() as usize;
    sorted.get(i).copied().unwrap_or(0.0)
}
