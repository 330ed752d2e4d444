//! Bidirectional A* with balanced potentials.
//!
//! Both searches run on the same graph with reduced edge costs
//! `l(u,v) − p(u) + p(v)`, where `p = (h_goal − h_start) / 2` (Ikeda et al.). With a consistent
//! heuristic these are non-negative, so this is a bidirectional Dijkstra on that graph and the
//! classic stopping rule applies: stop when `top_fwd + top_bwd ≥ μ`, the best meeting cost.
//! With the zero heuristic it is plain bidirectional Dijkstra.

use super::heap::Entry;
use super::{Nodes, Query, Searcher, Stats};
use crate::Pos;
use crate::grid::Neighbours;
use crate::trace::{Observer, TraceEvent};

use super::best_first::Estimator;

const REOPEN_EPSILON: f64 = 1e-9;

pub(crate) fn run<O: Observer>(
    searcher: &mut Searcher,
    q: &Query<'_>,
    out: &mut Vec<Pos>,
    obs: &mut O,
) -> Result<Stats, Stats> {
    let grid = q.grid;
    let cells = grid.cells();
    let fences = grid.fence_masks();
    let nb = Neighbours::new(grid, q.settings.rules);
    let to_goal = Estimator::new(grid.stride(), q.goal, q.settings.heuristic, 1.0);
    let to_start = Estimator::new(grid.stride(), q.start, q.settings.heuristic, 1.0);
    let potential = |i: usize| 0.5 * (to_goal.at(i) - to_start.at(i));
    let start = grid.index(q.start);
    let goal = grid.index(q.goal);
    let class = grid.class_at(start);
    let Searcher { fwd, bwd, heap, heap_b, .. } = searcher;
    heap.clear();
    heap_b.clear();
    fwd.reset(grid.padded_len(), grid.stride());
    bwd.reset(grid.padded_len(), grid.stride());
    let mut stats = Stats { generated: 2, peak_open: 2, expanded: 0 };
    for (nodes, open, cell, sign) in
        [(&mut *fwd, &mut *heap, start, 1.0), (&mut *bwd, &mut *heap_b, goal, -1.0)]
    {
        nodes.open_cell(cell, 0.0, cell);
        #[expect(clippy::cast_possible_truncation, reason = "padded grids have < 2^32 cells")]
        open.push(Entry { f: sign * potential(cell), h: 0.0, cell: cell as u32 });
    }
    if O::ENABLED {
        obs.event(TraceEvent::Opened { pos: q.start, g: 0.0, h: to_goal.at(start), f: potential(start) });
        obs.event(TraceEvent::Direction { backward: true });
        obs.event(TraceEvent::Opened { pos: q.goal, g: 0.0, h: to_start.at(goal), f: -potential(goal) });
    }
    let mut best = f64::INFINITY;
    let mut meet = usize::MAX;
    let mut last_backward = true;

    loop {
        if heap.is_empty() || heap_b.is_empty() {
            break;
        }
        if heap.min_f() + heap_b.min_f() >= best - REOPEN_EPSILON {
            break;
        }
        // Expand the side with the smaller frontier: keeps the two searches balanced.
        let backward = heap_b.len() < heap.len();
        if O::ENABLED && backward != last_backward {
            obs.event(TraceEvent::Direction { backward });
        }
        last_backward = backward;
        let (this, other, open, other_open, sign) = if backward {
            (&mut *bwd, &*fwd, &mut *heap_b, &*heap, -1.0)
        } else {
            (&mut *fwd, &*bwd, &mut *heap, &*heap_b, 1.0)
        };
        let Some(entry) = open.pop() else { break };
        let i = entry.cell as usize;
        if this.closed(i) {
            continue;
        }
        this.close(i);
        stats.expanded += 1;
        if O::ENABLED {
            obs.event(TraceEvent::Closed { pos: grid.pos_of(i) });
        }
        let gi = this.g(i);
        for k in 0..nb.count {
            if !nb.legal(cells, fences, i, k, class) {
                continue;
            }
            let j = i.wrapping_add_signed(nb.offset[k]);
            // The step cost is charged for the cell entered in the *forward* direction: j when
            // searching forward, i when searching backward (the step is j -> i).
            let entered = if backward { i } else { j };
            let ng = gi + nb.base[k] * f64::from(grid.cost_at(entered));
            let seen = this.seen(j);
            if seen && (ng >= this.g(j) || (this.closed(j) && ng + REOPEN_EPSILON >= this.g(j))) {
                continue;
            }
            #[expect(clippy::cast_possible_truncation, reason = "a direction index below 8")]
            this.open_dir(j, ng, k as u32);
            let f = ng + sign * potential(j);
            #[expect(clippy::cast_possible_truncation, reason = "padded grids have < 2^32 cells")]
            open.push(Entry { f, h: 0.0, cell: j as u32 });
            stats.generated += 1;
            stats.peak_open = stats.peak_open.max((open.len() + other_open.len()) as u64);
            if O::ENABLED {
                let pos = grid.pos_of(j);
                let h = if backward { to_start.at(j) } else { to_goal.at(j) };
                obs.event(TraceEvent::pushed(seen, pos, ng, h, f));
            }
            if other.seen(j) && ng + other.g(j) < best {
                best = ng + other.g(j);
                meet = j;
            }
        }
    }
    if meet == usize::MAX {
        return Err(stats);
    }
    fwd.unwind(grid, start, meet, out);
    follow_back(bwd, grid, meet, goal, out);
    Ok(stats)
}

/// Appends the backward half: from `meet` (already in `out`) along backward parents to `goal`.
fn follow_back(bwd: &Nodes, grid: &crate::Grid, meet: usize, goal: usize, out: &mut Vec<Pos>) {
    let mut i = meet;
    while i != goal {
        i = bwd.parent(i);
        out.push(grid.pos_of(i));
    }
}
