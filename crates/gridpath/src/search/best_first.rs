//! A*, Dijkstra and greedy best-first: one loop, three priority rules.

use super::heap::Entry;
use super::{Query, Searcher, Stats};
use crate::grid::Neighbours;
use crate::trace::{Observer, TraceEvent};
use crate::{Heuristic, Pos};

/// How the open list is ordered.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// `f = g + w·h`, ties to lower `h`.
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
    stride: usize,
    gx: f64,
    gy: f64,
    heuristic: Heuristic,
    weight: f64,
}

impl Estimator {
    pub(crate) fn new(stride: usize, goal: Pos, heuristic: Heuristic, weight: f64) -> Self {
        // Padded coordinates are one more than real ones; only differences matter.
        Self { stride, gx: f64::from(goal.x + 1), gy: f64::from(goal.y + 1), heuristic, weight }
    }

    #[inline(always)]
    #[expect(clippy::cast_precision_loss, reason = "coordinates are below 8194")]
    pub(crate) fn at(&self, i: usize) -> f64 {
        let x = (i % self.stride) as f64;
        let y = (i / self.stride) as f64;
        self.weight * self.heuristic.of_delta((x - self.gx).abs(), (y - self.gy).abs())
    }
}

pub(crate) fn run<O: Observer>(
    searcher: &mut Searcher,
    q: &Query<'_>,
    mode: Mode,
    out: &mut Vec<crate::Pos>,
    obs: &mut O,
) -> Result<Stats, Stats> {
    let grid = q.grid;
    let cells = grid.cells();
    let nb = Neighbours::new(grid, q.settings.rules);
    let est = Estimator::new(grid.stride(), q.goal, q.settings.heuristic, q.settings.weight);
    let nodes = &mut searcher.fwd;
    nodes.reset(grid.padded_len());
    let start = grid.index(q.start);
    let goal = grid.index(q.goal);
    let class = grid.class_at(start);
    let mut stats = Stats::default();

    let key = |g: f64, h: f64| match mode {
        Mode::AStar => (g + h, h),
        Mode::Dijkstra => (g, 0.0),
        Mode::Greedy => (h, 0.0),
    };
    let h0 = if mode == Mode::Dijkstra { 0.0 } else { est.at(start) };
    nodes.open_cell(start, 0.0, start);
    let (f, h) = key(0.0, h0);
    #[expect(clippy::cast_possible_truncation, reason = "padded grids have < 2^32 cells")]
    nodes.open.push(Entry { f, h, cell: start as u32 });
    stats.generated = 1;
    stats.peak_open = 1;
    if O::ENABLED {
        obs.event(TraceEvent::Opened { pos: q.start, g: 0.0, h: h0, f });
    }

    while let Some(entry) = nodes.open.pop() {
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
        let gi = nodes.g[i];
        for k in 0..nb.count {
            if !nb.legal(cells, i, k, class) {
                continue;
            }
            let j = i.wrapping_add_signed(nb.offset[k]);
            let ng = gi + nb.base[k] * f64::from(grid.cost_at(j));
            let seen = nodes.seen(j);
            if seen
                && (mode == Mode::Greedy
                    || ng >= nodes.g[j]
                    || (nodes.closed(j) && ng + REOPEN_EPSILON >= nodes.g[j]))
            {
                continue;
            }
            let hj = if mode == Mode::Dijkstra { 0.0 } else { est.at(j) };
            nodes.open_cell(j, ng, i);
            let (f, h) = key(ng, hj);
            #[expect(clippy::cast_possible_truncation, reason = "padded grids have < 2^32 cells")]
            nodes.open.push(Entry { f, h, cell: j as u32 });
            stats.generated += 1;
            stats.peak_open = stats.peak_open.max(nodes.open.len() as u64);
            if O::ENABLED {
                let pos = grid.pos_of(j);
                obs.event(if seen {
                    TraceEvent::Updated { pos, g: ng, h: hj, f }
                } else {
                    TraceEvent::Opened { pos, g: ng, h: hj, f }
                });
            }
        }
    }
    Err(stats)
}
