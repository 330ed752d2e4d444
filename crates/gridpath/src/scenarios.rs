//! Benchmark scenarios for any map, the way the Moving AI benchmarks are made: random start and
//! goal pairs, bucketed by their optimal length (bucket `b` holds lengths in `[4b, 4b + 4)`, at
//! most ten queries a bucket), so a generated or painted map becomes a benchmark that
//! `gridpath scen` and `gridpath bench` read like the published ones.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::field::FlowField;
use crate::formats::Scenario;
use crate::grid::{Grid, Pos, Rules};

/// Queries per bucket, as in the Moving AI sets.
pub const PER_BUCKET: usize = 10;
/// Width of a bucket in optimal length, as in the Moving AI sets.
pub const BUCKET_LENGTH: f64 = 4.0;
/// Random starts tried per goal before another goal is drawn.
const STARTS_PER_GOAL: usize = 64;

/// Up to `count` queries on `grid` for the map file `map_name`, with their optimal octile
/// lengths (no corner cutting, terrain costs included: the rule of [`Grid`]'s step cost),
/// sorted by bucket. Start and goal are distinct passable cells joined by a route, and no pair
/// comes twice. The same
/// grid and seed give the same queries on every machine.
///
/// Fewer than `count` come back when the map has too few distinct routes to fill the buckets
/// (a tiny map, a map of isolated cells): the search for more stops after a bounded number of
/// tries.
///
/// ```
/// use gridpath::{Grid, scenarios::make_scenarios};
/// let grid = Grid::new(20, 20).unwrap();
/// let queries = make_scenarios(&grid, "open.map", 30, 7);
/// assert_eq!(queries.len(), 30);
/// assert!(queries.windows(2).all(|q| q[0].bucket <= q[1].bucket));
/// ```
#[must_use]
pub fn make_scenarios(grid: &Grid, map_name: &str, count: usize, seed: u64) -> Vec<Scenario> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // The format separates fields by whitespace: a name with spaces would shift them.
    let map_name: String = map_name.chars().map(|c| if c.is_whitespace() { '_' } else { c }).collect();
    let open: Vec<Pos> = grid.positions().filter(|&p| grid.is_passable(p)).collect();
    let mut buckets: Vec<Vec<Scenario>> = Vec::new();
    let mut total = 0;
    let mut pairs = std::collections::HashSet::new();
    // Bounded work: a map that cannot fill the buckets gives what it has.
    let goals = count.saturating_mul(4).max(16);
    for _ in 0..goals {
        if total >= count || open.len() < 2 {
            break;
        }
        let goal = open[rng.random_range(0..open.len())];
        let Ok(field) = FlowField::dijkstra(grid, goal, Rules::OCTILE) else { continue };
        for _ in 0..STARTS_PER_GOAL {
            if total >= count {
                break;
            }
            let start = open[rng.random_range(0..open.len())];
            let Some(length) = field.distance(start).filter(|&d| d > 0.0) else { continue };
            // Lengths are finite, positive and far below 2^32 buckets: the cast is exact.
            #[expect(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "see above")]
            let bucket = (length / BUCKET_LENGTH) as usize;
            if buckets.len() <= bucket {
                buckets.resize_with(bucket + 1, Vec::new);
            }
            if buckets[bucket].len() < PER_BUCKET && pairs.insert((start, goal)) {
                buckets[bucket].push(Scenario {
                    bucket: u32::try_from(bucket).unwrap_or(u32::MAX),
                    map: map_name.clone(),
                    width: grid.width(),
                    height: grid.height(),
                    start,
                    goal,
                    optimal: length,
                });
                total += 1;
            }
        }
    }
    buckets.into_iter().flatten().collect()
}
