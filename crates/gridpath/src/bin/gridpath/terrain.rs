//! `gridpath bench --terrain SEED`: JPS on terrain costs against A* on the benchmark maps
//! painted with a seeded overlay of costly patches, checking that JPS's every cost is A*'s.

use std::time::Instant;

use gridpath::formats::Scenario;
use gridpath::{Algorithm, Grid, Pos, Rules, Searcher, Settings, Tile};

use crate::Failure;
use crate::bench::{BenchArgs, Order, evict_caches, load, median, sample};

/// The costs the overlay paints, one per patch.
const COSTS: [u8; 3] = [2, 5, 10];

/// Map cells per patch: a 512 × 512 map gets 128 patches.
const CELLS_PER_PATCH: usize = 2048;

/// A small seeded generator (xorshift64*), so the overlay is the same on every machine.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `lo..hi`.
    fn range(&mut self, lo: u32, hi: u32) -> u32 {
        #[expect(clippy::cast_possible_truncation, reason = "below hi")]
        let r = (self.next() % u64::from(hi - lo)) as u32;
        lo + r
    }
}

/// Paints the overlay of `seed` onto `grid`: one patch per [`CELLS_PER_PATCH`] cells, each a
/// rectangle (sides 4 to 39) or a disc (radius 3 to 19) at a random place with one cost of
/// [`COSTS`], painted onto the plain ground (cost 1) it covers — walls, water and trees stay,
/// so every scenario keeps its endpoints and its reachability. Returns the share of the open
/// cells painted.
pub(crate) fn paint(grid: &mut Grid, seed: u64) -> f64 {
    let mut rng = Rng::new(seed);
    let (w, h) = (grid.width(), grid.height());
    let mut edits = Vec::new();
    for _ in 0..(grid.len() / CELLS_PER_PATCH).max(1) {
        let (cx, cy) = (rng.range(0, w), rng.range(0, h));
        let cost = COSTS[rng.range(0, 3) as usize];
        let disc = rng.next() & 1 == 0;
        let (rx, ry) = if disc {
            let r = rng.range(3, 20);
            (r, r)
        } else {
            (rng.range(2, 20), rng.range(2, 20))
        };
        for y in cy.saturating_sub(ry)..(cy + ry).min(h) {
            for x in cx.saturating_sub(rx)..(cx + rx).min(w) {
                let (dx, dy) = (x.abs_diff(cx), y.abs_diff(cy));
                if disc && dx * dx + dy * dy > rx * rx {
                    continue;
                }
                let p = Pos::new(x, y);
                if grid.tile(p) == Some(Tile::FLOOR) {
                    edits.push((p, Tile::Ground { cost }));
                }
            }
        }
    }
    // Later patches paint over earlier ones where they overlap.
    let _ = grid.set_tiles(&edits);
    let open = grid.positions().filter(|&p| grid.is_passable(p)).count();
    let painted =
        grid.positions().filter(|&p| grid.tile(p).and_then(Tile::cost).is_some_and(|c| c > 1)).count();
    #[expect(clippy::cast_precision_loss, reason = "cell counts are small")]
    let share = painted as f64 / open.max(1) as f64;
    share
}

/// Timings of one method on one map.
#[derive(Default)]
struct Times {
    micros: Vec<f64>,
    expanded: u64,
}

impl Times {
    fn mean(&self) -> f64 {
        #[expect(clippy::cast_precision_loss, reason = "query counts are small")]
        let n = self.micros.len().max(1) as f64;
        self.micros.iter().sum::<f64>() / n
    }

    fn cells(&mut self) -> String {
        let mean = self.mean();
        #[expect(clippy::cast_precision_loss, reason = "counts are small")]
        let per = self.expanded as f64 / self.micros.len().max(1) as f64;
        format!("{mean:>9.1} {:>9.1} {per:>9.0}", median(&mut self.micros))
    }
}

/// The `--terrain SEED` bench: per map, A* and JPS on the painted map over the same sampled
/// queries (each `runs` times), JPS's cost checked against A*'s and both paths checked legal
/// on every query; the per-map ratio of the mean times JPS / A* and their median.
pub(crate) fn run(args: &BenchArgs, seed: u64) -> Result<(), Failure> {
    println!(
        "terrain overlay: seed {seed}, one patch of cost 2, 5 or 10 per {CELLS_PER_PATCH} cells, on plain ground"
    );
    println!(
        "{:<20} {:>6} {:>8} {:>7} | {:^29} | {:^29} | {:^29} | {:>7} {:>7}",
        "map",
        "n",
        "painted",
        "rough",
        "A*: mean median exp/q",
        "JPS: mean median exp/q",
        "JPS no jump bits: mean median",
        "JPS/A*",
        "JPSnb/A*"
    );
    let (mut ratios, mut ratios_online, mut wrong, mut total) = (Vec::new(), Vec::new(), 0, 0);
    let mut eviction = Vec::new();
    for file in &args.scen {
        let (name, mut grid, scenarios) = load(file)?;
        let painted = paint(&mut grid, seed);
        let rough = rough_share(&grid);
        let picked = sample(&scenarios, args.max_queries);
        total += picked.len();
        let mut searcher = Searcher::new();
        let mut cells = Vec::new();
        // A*, JPS, JPS without its jump bits.
        let mut times = [Times::default(), Times::default(), Times::default()];
        let mut costs: [Vec<Option<f64>>; 3] = std::array::from_fn(|_| vec![None; picked.len()]);
        let mut illegal = 0;
        let mut measure = |method: usize, k: usize, s: &Scenario, timed: bool| {
            let settings =
                Settings::with_algorithm(if method == 0 { Algorithm::AStar } else { Algorithm::Jps });
            searcher.set_jump_bits(method != 2);
            let mut elapsed = 0.0;
            let mut answer = None;
            for _ in 0..if timed { args.runs } else { 1 } {
                let began = Instant::now();
                answer = searcher.find_path_into(&grid, s.start, s.goal, &settings, &mut cells).ok();
                elapsed += began.elapsed().as_secs_f64();
            }
            if !timed {
                return;
            }
            times[method].micros.push(elapsed * 1e6 / f64::from(args.runs));
            if let Some((cost, stats, _)) = answer {
                times[method].expanded += stats.expanded;
                let legal = cells.first() == Some(&s.start)
                    && cells.last() == Some(&s.goal)
                    && grid.path_cost(&cells, Rules::OCTILE).is_ok_and(|c| (c - cost).abs() < 1e-6);
                illegal += usize::from(!legal);
                costs[method][k] = Some(cost);
            }
        };
        if let Some(first) = picked.first() {
            for method in 0..3 {
                measure(method, 0, first, false);
            }
        }
        match args.order {
            Order::Query => {
                for (k, s) in picked.iter().enumerate() {
                    for method in 0..3 {
                        measure(method, k, s, true);
                    }
                }
            }
            Order::Method => {
                for method in 0..3 {
                    evict_caches(&mut eviction);
                    for (k, s) in picked.iter().enumerate() {
                        measure(method, k, s, true);
                    }
                }
            }
        }
        // JPS must find A*'s cost on every query (both reach the goal of every scenario).
        let differ = (1..3)
            .map(|m| {
                costs[0]
                    .iter()
                    .zip(&costs[m])
                    .filter(|(a, j)| match (a, j) {
                        (Some(a), Some(j)) => (a - j).abs() > 1e-6 * a.max(1.0),
                        _ => true,
                    })
                    .count()
            })
            .sum::<usize>();
        wrong += differ + illegal;
        let (ratio, online) = (times[1].mean() / times[0].mean(), times[2].mean() / times[0].mean());
        ratios.push(ratio);
        ratios_online.push(online);
        let [mut astar, mut jps, mut jps_online] = times;
        let online_cells = {
            let mean = jps_online.mean();
            format!("{mean:>9.1} {:>9.1} {:>9}", median(&mut jps_online.micros), "")
        };
        println!(
            "{:<20} {:>6} {:>7.1}% {:>6.1}% | {} | {} | {} | {:>7.2} {:>7.2}{}",
            name,
            picked.len(),
            painted * 100.0,
            rough * 100.0,
            astar.cells(),
            jps.cells(),
            online_cells,
            ratio,
            online,
            if differ + illegal > 0 {
                format!("  WRONG: {differ} costs differ, {illegal} illegal")
            } else {
                String::new()
            }
        );
    }
    println!();
    println!(
        "median time ratio over {} maps: JPS / A* {:.2}, JPS without jump bits / A* {:.2}",
        ratios.len(),
        median(&mut ratios),
        median(&mut ratios_online)
    );
    println!("bench --terrain: {total} queries, {wrong} wrong or illegal answers");
    if wrong > 0 {
        return Err(Failure(format!("{wrong} JPS answers differ from A*'s or are not legal"), 1));
    }
    Ok(())
}

/// The share of the open cells that are rough (where JPS on terrain stops its jumps): open,
/// with a neighbour of the same class and another cost.
fn rough_share(grid: &Grid) -> f64 {
    let (mut open, mut rough) = (0usize, 0usize);
    for p in grid.positions() {
        let Some(tile) = grid.tile(p).filter(|t| t.cost().is_some()) else { continue };
        open += 1;
        let differs = (-1i64..=1).any(|dy| {
            (-1i64..=1).any(|dx| {
                let (x, y) = (i64::from(p.x) + dx, i64::from(p.y) + dy);
                let (Ok(x), Ok(y)) = (u32::try_from(x), u32::try_from(y)) else { return false };
                grid.tile(Pos::new(x, y)).is_some_and(|n| same_class(n, tile) && n != tile)
            })
        });
        rough += usize::from(differs);
    }
    #[expect(clippy::cast_precision_loss, reason = "cell counts are small")]
    let share = rough as f64 / open.max(1) as f64;
    share
}

fn same_class(a: Tile, b: Tile) -> bool {
    std::mem::discriminant(&a) == std::mem::discriminant(&b)
}
