//! `gridpath bench --any-angle`: the straight-line routes of issue 21 on the benchmark's
//! queries (A*, JPS, JPS + smoothing, Theta*, Lazy Theta* over jump points and cell by cell,
//! and with `--peers` the
//! `condor-pathfinding-grid` crate's two), their times and lengths against the published
//! octile optima, and what the clearance maps of large agents cost to build.

use std::path::Path;
use std::time::Instant;

use gridpath::formats::Scenario;
use gridpath::{Algorithm, Grid, Rules, Searcher, Settings};

use crate::Failure;
use crate::bench::{BenchArgs, evict_caches, load, median, sample};

/// The methods, in the order they run (method by method over a map's queries).
const NAMES: [&str; 8] =
    ["A*", "JPS", "JPS+smooth", "Theta*", "Lazy Theta*", "LΘ* cells", "condor Θ*", "condor lazy Θ*"];

/// gridpath's own methods (the first of [`NAMES`]); the peers follow.
const OURS: usize = 6;

/// One method's results on one map.
#[derive(Clone, Default)]
struct Tally {
    micros: f64,
    timed: usize,
    /// Sum and count of (length / optimum − 1).
    excess: f64,
    measured: usize,
    /// Illegal, or (grid searches, smoothing, Lazy Theta* over jump points) longer than the
    /// optimum.
    wrong: usize,
    /// Queries a peer cannot take (off its ground cells).
    skipped: usize,
}

impl Tally {
    fn mean_us(&self) -> f64 {
        #[expect(clippy::cast_precision_loss, reason = "query counts are small")]
        let n = self.timed.max(1) as f64;
        self.micros / n
    }

    fn mean_excess(&self) -> f64 {
        #[expect(clippy::cast_precision_loss, reason = "query counts are small")]
        let n = self.measured.max(1) as f64;
        self.excess / n
    }

    fn add_length(&mut self, length: f64, optimal: f64) {
        if optimal > 0.0 {
            self.excess += length / optimal - 1.0;
            self.measured += 1;
        }
    }
}

/// The workspace of one map's runs.
struct Run<'a> {
    grid: &'a Grid,
    searcher: Searcher,
    cells: Vec<gridpath::Pos>,
    smoother: gridpath::sight::Smoother,
    #[cfg(feature = "peers")]
    peer: Option<gridpath::peers::CondorGrid>,
}

impl Run<'_> {
    /// Runs method `m` on `s` and checks its answer into `t` (`timed: false`: a warm-up).
    fn measure(&mut self, m: usize, s: &Scenario, t: &mut Tally, timed: bool) {
        let algorithm = match m {
            0 => Algorithm::AStar,
            1 | 2 => Algorithm::Jps,
            3 => Algorithm::Theta,
            _ => Algorithm::LazyTheta,
        };
        // Lazy Theta* over jump points (its default on these maps), then cell by cell.
        self.searcher.set_lazy_theta_jumps(m != 5);
        let began = Instant::now();
        let (length, legal) = if m >= OURS {
            match self.peer(m, s) {
                Some(Some(length)) => (length, true),
                Some(None) => (f64::NAN, false),
                None => {
                    t.skipped += 1;
                    return;
                }
            }
        } else {
            let settings = Settings::with_algorithm(algorithm);
            let found = self.searcher.find_path_into(self.grid, s.start, s.goal, &settings, &mut self.cells);
            let taut = (m == 2).then(|| self.smoother.smooth(self.grid, &self.cells, Rules::OCTILE));
            let elapsed = began.elapsed().as_secs_f64();
            if timed {
                t.micros += elapsed * 1e6;
                t.timed += 1;
            }
            let route = taut.unwrap_or(&self.cells);
            let ends = route.first() == Some(&s.start) && route.last() == Some(&s.goal);
            let measured = if m <= 1 {
                self.grid.path_cost(route, Rules::OCTILE)
            } else {
                self.grid.any_angle_cost(route, Rules::OCTILE)
            };
            match (found, measured) {
                (Ok((cost, _, _)), Ok(length)) if ends => {
                    // The searches' costs are their routes'; a grid search's is the optimum,
                    // and a smoothed optimal route is never longer than it.
                    let exact = m == 2 || (length - cost).abs() < 1e-6;
                    let bound = match m {
                        0 | 1 => (length - s.optimal).abs() <= 0.01,
                        // Smoothing and Lazy Theta* over jump points are never longer.
                        2 | 4 => length <= s.optimal + 0.01,
                        _ => true,
                    };
                    (length, exact && bound)
                }
                _ => (f64::NAN, false),
            }
        };
        if m >= OURS && timed {
            t.micros += began.elapsed().as_secs_f64() * 1e6;
            t.timed += 1;
        }
        if !timed {
            return;
        }
        if legal {
            t.add_length(length, s.optimal);
        } else {
            t.wrong += 1;
        }
    }

    /// A peer method's length (`Some(None)`: no route), `None` when it cannot take the query.
    #[cfg(feature = "peers")]
    fn peer(&self, m: usize, s: &Scenario) -> Option<Option<f64>> {
        let ground = |p| matches!(self.grid.tile(p), Some(gridpath::Tile::Ground { .. }));
        let peer = self.peer.as_ref().filter(|_| ground(s.start) && ground(s.goal))?;
        Some(peer.any_angle(s.start, s.goal, m == OURS + 1).map(|(length, _)| length))
    }

    #[cfg(not(feature = "peers"))]
    #[expect(clippy::unused_self, reason = "the peers build's signature")]
    fn peer(&self, _: usize, _: &Scenario) -> Option<Option<f64>> {
        None
    }
}

/// Prints the any-angle table and the clearance table; returns the number of wrong answers
/// of gridpath's own methods (illegal routes, wrong grid costs, smoothed routes longer than
/// the optimum).
pub(crate) fn table(args: &BenchArgs) -> Result<usize, Failure> {
    let methods = if args.peers { NAMES.len() } else { OURS };
    println!();
    print!("{:<20} {:>6} |", "any-angle (mean us)", "n");
    for name in &NAMES[..methods] {
        print!(" {name:>11}");
    }
    println!(
        " | {:>7} {:>7} | {:>9} {:>9} {:>9} {:>9}{}",
        "LΘ*/A*",
        "sm/JPS",
        "len sm",
        "len Θ*",
        "len LΘ*",
        "cells",
        if args.peers { "  len condor Θ* / lazy" } else { "" }
    );
    let (mut lazy_ratios, mut smooth_ratios, mut theta_ratios) = (Vec::new(), Vec::new(), Vec::new());
    let mut cell_ratios = Vec::new();
    let mut dao = vec![Tally::default(); methods];
    let mut wrong = 0;
    let mut eviction = Vec::new();
    let mut clearance_rows = Vec::new();
    for file in &args.scen {
        let (name, grid, scenarios) = load(file)?;
        clearance_rows.push((name.clone(), clearance(&grid)));
        let picked = sample(&scenarios, args.max_queries);
        let mut run = Run {
            grid: &grid,
            searcher: Searcher::new(),
            cells: Vec::new(),
            smoother: gridpath::sight::Smoother::new(),
            #[cfg(feature = "peers")]
            peer: if args.peers { gridpath::peers::CondorGrid::new(&grid).ok() } else { None },
        };
        let mut tallies = vec![Tally::default(); methods];
        for (m, t) in tallies.iter_mut().enumerate() {
            if let Some(first) = picked.first() {
                run.measure(m, first, &mut Tally::default(), false);
            }
            evict_caches(&mut eviction);
            for s in &picked {
                run.measure(m, s, t, true);
            }
        }
        wrong += tallies[..OURS].iter().map(|t| t.wrong).sum::<usize>();
        let ratio = |a: usize, b: usize| tallies[a].mean_us() / tallies[b].mean_us();
        lazy_ratios.push(ratio(4, 0));
        smooth_ratios.push(ratio(2, 1));
        theta_ratios.push(ratio(3, 0));
        cell_ratios.push(ratio(5, 0));
        if is_dao(file) {
            for (d, t) in dao.iter_mut().zip(&tallies) {
                d.excess += t.excess;
                d.measured += t.measured;
            }
        }
        print_row(&name, picked.len(), &tallies, (ratio(4, 0), ratio(2, 1)));
    }
    println!(
        "any-angle medians over {} maps: Lazy Theta* / A* {:.2}x (target <= 1.5x; slowest map {:.2}x), \
         JPS + smoothing / JPS {:.2}x (target <= 1.3x), Theta* / A* {:.2}x, Lazy Theta* cell by cell / A* {:.2}x",
        lazy_ratios.len(),
        median(&mut lazy_ratios),
        lazy_ratios.iter().copied().fold(0.0, f64::max),
        median(&mut smooth_ratios),
        median(&mut theta_ratios),
        median(&mut cell_ratios)
    );
    if dao.iter().any(|t| t.measured > 0) {
        let pct = |k: usize| 100.0 * dao[k].mean_excess();
        print!(
            "mean length vs octile on the DAO maps: JPS + smoothing {:+.2}%, Theta* {:+.2}%, Lazy Theta* {:+.2}% \
             (target <= -3%), Lazy Theta* cell by cell {:+.2}%",
            pct(2),
            pct(3),
            pct(4),
            pct(5)
        );
        if methods > OURS {
            print!("; condor (corner vertices) Theta* {:+.2}%, Lazy Theta* {:+.2}%", pct(6), pct(7));
        }
        println!();
    }
    print_clearance(&mut clearance_rows);
    Ok(wrong)
}

fn is_dao(scen: &Path) -> bool {
    scen.parent().and_then(Path::file_name).is_some_and(|d| d == "dao")
}

fn print_row(name: &str, n: usize, tallies: &[Tally], (lazy, smooth): (f64, f64)) {
    print!("{name:<20} {n:>6} |");
    for t in tallies {
        print!(" {:>11.1}", t.mean_us());
    }
    let pct = |t: &Tally| format!("{:+.2}%", 100.0 * t.mean_excess());
    print!(
        " | {lazy:>7.2} {smooth:>7.2} | {:>9} {:>9} {:>9} {:>9}",
        pct(&tallies[2]),
        pct(&tallies[3]),
        pct(&tallies[4]),
        pct(&tallies[5])
    );
    if tallies.len() > OURS {
        print!("  {} / {} (skipped {})", pct(&tallies[6]), pct(&tallies[7]), tallies[6].skipped);
    }
    let wrong: Vec<String> = tallies
        .iter()
        .zip(NAMES)
        .filter(|(t, _)| t.wrong > 0)
        .map(|(t, n)| format!("{n} {}", t.wrong))
        .collect();
    if wrong.is_empty() {
        println!();
    } else {
        println!("  WRONG: {}", wrong.join(", "));
    }
}

/// The clearance map's build time (ms, median of 5: [`Grid::refresh_clearance`]) and the
/// build times of the agent grids of sizes 2 to 4 ([`Grid::for_agent_size`], median of 3).
fn clearance(grid: &Grid) -> (f64, [f64; 3]) {
    let mut copy = grid.clone();
    let mut builds: Vec<f64> = (0..5)
        .map(|_| {
            let began = Instant::now();
            copy.refresh_clearance();
            began.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    let sized = [2u8, 3, 4].map(|k| {
        let mut times: Vec<f64> = (0..3)
            .map(|_| {
                let began = Instant::now();
                std::hint::black_box(grid.for_agent_size(k));
                began.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        median(&mut times)
    });
    (median(&mut builds), sized)
}

fn print_clearance(rows: &mut [(String, (f64, [f64; 3]))]) {
    println!();
    println!(
        "{:<20} {:>14} {:>14} {:>14} {:>14}",
        "clearance (ms)", "clearance map", "size 2 grid", "size 3 grid", "size 4 grid"
    );
    for (name, (build, sized)) in rows.iter() {
        println!("{name:<20} {build:>14.2} {:>14.2} {:>14.2} {:>14.2}", sized[0], sized[1], sized[2]);
    }
    let column = |k: usize| {
        let mut v: Vec<f64> = rows.iter().map(|(_, (b, s))| if k == 0 { *b } else { s[k - 1] }).collect();
        median(&mut v)
    };
    println!(
        "clearance: the map (1 B/cell, in every grid, kept in step by edits) built in {:.2} ms per map (median); \
         an agent grid (Grid::for_agent_size: a whole grid, {} B/cell, kept per size by a Searcher) {:.2} / {:.2} / {:.2} ms \
         for sizes 2 / 3 / 4 (medians)",
        column(0),
        crate::bench::GRID_BYTES_PER_CELL,
        column(1),
        column(2),
        column(3)
    );
}
