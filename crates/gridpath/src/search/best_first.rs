//! A*, Dijkstra and greedy best-first: one loop, three priority rules.

use super::heap::{Entry, Frontier};
use super::{Nodes, Query, Searcher, Stats};
use crate::grid::Neighbours;
use crate::trace::{Observer, TraceEvent};
use crate::{Heuristic, Pos};

/// How the open list is ordered.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// `f = g + w·h`, ties to lower `h`. With a weight above 1 a closed cell is never
    /// re-opened (see [`run`]).
    AStar,
    /// `f = g`.
    Dijkstra,
    /// `f = h`; a cell is never re-opened.
    Greedy,
}

/// Below this a "better" cost for a closed cell is float noise, not a real improvement.
const REOPEN_EPSILON: f64 = 1e-9;

/// Heuristic from a padded index to the goal, weighted.
pub(crate) struct Estimator {
    stride: u64,
    /// `ceil(2^40 / stride)`: row = `(i · magic) >> 40`, exact for every padded index (at most
    /// 8194² < 2^40 / 8194), and far cheaper than a division in the inner loop.
    magic: u64,
    gx: f64,
    gy: f64,
    heuristic: Heuristic,
    weight: f64,
}

impl Estimator {
    pub(crate) fn new(stride: usize, goal: Pos, heuristic: Heuristic, weight: f64) -> Self {
        let stride = stride as u64;
        // Padded coordinates are one more than real ones; only differences matter.
        Self {
            stride,
            magic: (1u64 << 40).div_ceil(stride),
            gx: f64::from(goal.x + 1),
            gy: f64::from(goal.y + 1),
            heuristic,
            weight,
        }
    }

    #[inline(always)]
    #[expect(clippy::cast_precision_loss, reason = "coordinates are below 8194")]
    pub(crate) fn at(&self, i: usize) -> f64 {
        let i = i as u64;
        let row = (i * self.magic) >> 40;
        let col = i - row * self.stride;
        self.weight * self.heuristic.of_delta((col as f64 - self.gx).abs(), (row as f64 - self.gy).abs())
    }
}

pub(crate) fn run<O: Observer>(
    searcher: &mut Searcher,
    q: &Query<'_>,
    mode: Mode,
    out: &mut Vec<Pos>,
    obs: &mut O,
) -> Result<Stats, Stats> {
    let settings = q.settings;
    // With a consistent heuristic (or none) f never decreases along the search, and every push
    // lands within one step's cost plus one heuristic change above the last pop: the bucketed
    // open list applies. Greedy and weighted A* need the general heap.
    let monotone = match mode {
        Mode::Dijkstra => true,
        Mode::AStar => settings.weight == 1.0 && settings.heuristic.is_admissible(settings.rules.moves),
        Mode::Greedy => false,
    };
    let Searcher { fwd, heap, buckets, .. } = searcher;
    if monotone {
        let window = crate::SQRT2 * f64::from(q.grid.max_cost()) + 2.0;
        buckets.reset(window);
        let found = best_first(fwd, buckets, q, mode, out, obs);
        found
            .map(|mut s| {
                s.peak_open = buckets.peak() as u64;
                s
            })
            .map_err(|mut s| {
                s.peak_open = buckets.peak() as u64;
                s
            })
    } else {
        heap.clear();
        best_first(fwd, heap, q, mode, out, obs)
    }
}

fn best_first<O: Observer, F: Frontier>(
    nodes: &mut Nodes,
    open: &mut F,
    q: &Query<'_>,
    mode: Mode,
    out: &mut Vec<Pos>,
    obs: &mut O,
) -> Result<Stats, Stats> {
    let grid = q.grid;
    let cells = grid.cells();
    let fences = grid.fence_masks();
    let nb = Neighbours::new(grid, q.settings.rules);
    let est = Estimator::new(grid.stride(), q.goal, q.settings.heuristic, q.settings.weight);
    nodes.reset(grid.padded_len(), grid.stride());
    let start = grid.index(q.start);
    let goal = grid.index(q.goal);
    let class = grid.class_at(start);
    let mut stats = Stats::default();

    // Weighted A* expands every cell at most once: with a consistent heuristic the path found
    // without re-expansions still costs at most `w` times the optimum (Likhachev, Gordon and
    // Thrun, ARA*, 2003), while re-opening can expand cells many times over (752,747
    // expansions on orz900d's 96,603 open cells at w = 2).
    let reopen = !(mode == Mode::AStar && q.settings.weight > 1.0);
    let key = |g: f64, h: f64| match mode {
        Mode::AStar => (g + h, h),
        Mode::Dijkstra => (g, 0.0),
        Mode::Greedy => (h, 0.0),
    };
    let h0 = if mode == Mode::Dijkstra { 0.0 } else { est.at(start) };
    nodes.open_cell(start, 0.0, start);
    let (f, h) = key(0.0, h0);
    #[expect(
        clippy::cast_possible_truncation,
        reason = "padded grids have < 2^32 cells; h only breaks ties"
    )]
    open.push(Entry { f, h: h as f32, cell: start as u32 });
    stats.generated = 1;
    stats.peak_open = 1;
    if O::ENABLED {
        obs.event(TraceEvent::Opened { pos: q.start, g: 0.0, h: h0, f });
    }

    while let Some(entry) = open.pop() {
        let i = entry.cell as usize;
        if nodes.closed(i) {
            continue; // a stale duplicate of a cell already expanded
        }
        nodes.close(i);
        stats.expanded += 1;
        if O::ENABLED {
            obs.event(TraceEvent::Closed { pos: grid.pos_of(i) });
        }
        if i == goal {
            nodes.unwind(grid, start, goal, out);
            return Ok(stats);
        }
        let gi = nodes.g(i);
        for k in 0..nb.count {
            if !nb.legal(cells, fences, i, k, class) {
                continue;
            }
            let j = i.wrapping_add_signed(nb.offset[k]);
            let ng = gi + nb.base[k] * f64::from(grid.cost_at(j));
            let seen = nodes.seen(j);
            if seen
                && (mode == Mode::Greedy
                    || ng >= nodes.g(j)
                    || (nodes.closed(j) && (!reopen || ng + REOPEN_EPSILON >= nodes.g(j))))
            {
                continue;
            }
            let hj = if mode == Mode::Dijkstra { 0.0 } else { est.at(j) };
            #[expect(clippy::cast_possible_truncation, reason = "a direction index below 8")]
            nodes.open_dir(j, ng, k as u32);
            let (f, h) = key(ng, hj);
            #[expect(
                clippy::cast_possible_truncation,
                reason = "padded grids have < 2^32 cells; h only breaks ties"
            )]
            open.push(Entry { f, h: h as f32, cell: j as u32 });
            stats.generated += 1;
            if O::ENABLED {
                let pos = grid.pos_of(j);
                obs.event(TraceEvent::pushed(seen, pos, ng, hj, f));
            }
        }
        stats.peak_open = stats.peak_open.max(open.len() as u64);
    }
    Err(stats)
}
