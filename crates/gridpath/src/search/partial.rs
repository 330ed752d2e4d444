//! Partial paths: the reachable cell closest to an unreachable goal.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::grid::{Grid, Neighbours, Pos, Rules};

/// The cell reachable from `start` under `rules` closest to `goal` by straight-line distance
/// (exact: squared integer distance), ties to the lower least cost from `start` (the grid's
/// step-cost rule), then to the lower padded index (row order). Dijkstra over the start's
/// component; a failure path, so it allocates its own arrays.
pub(crate) fn closest_reachable(grid: &Grid, start: Pos, goal: Pos, rules: Rules) -> Pos {
    let cells = grid.cells();
    let fences = grid.fence_masks();
    let nb = Neighbours::new(grid, rules);
    let s = grid.index(start);
    let class = grid.class_at(s);
    let mut dist = vec![f64::INFINITY; grid.padded_len()];
    let mut done = vec![false; grid.padded_len()];
    // Costs as ordered bits: non-negative floats order like their bit patterns.
    let mut heap = BinaryHeap::new();
    dist[s] = 0.0;
    heap.push(Reverse((0u64, s)));
    let key = |i: usize| {
        let p = grid.pos_of(i);
        let (dx, dy) = (u64::from(p.x.abs_diff(goal.x)), u64::from(p.y.abs_diff(goal.y)));
        dx * dx + dy * dy
    };
    let mut best = (key(s), 0.0, s);
    while let Some(Reverse((bits, i))) = heap.pop() {
        let d = f64::from_bits(bits);
        if done[i] || d > dist[i] {
            continue;
        }
        done[i] = true;
        let k = key(i);
        if (k, d, i) < best {
            best = (k, d, i);
        }
        for dir in 0..nb.count {
            if !nb.legal(cells, fences, i, dir, class) {
                continue;
            }
            let j = i.wrapping_add_signed(nb.offset[dir]);
            let nd = d + nb.base[dir] * f64::from(grid.cost_at(j));
            if nd < dist[j] {
                dist[j] = nd;
                heap.push(Reverse((nd.to_bits(), j)));
            }
        }
    }
    grid.pos_of(best.2)
}
