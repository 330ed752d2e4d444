//! Breadth-first search and the "contour line" wavefront.

use super::{Query, Searcher, Stats};
use crate::Pos;
use crate::grid::Neighbours;
use crate::trace::{Observer, TraceEvent};

/// Plain BFS from the start: fewest steps, each step counting 1.
pub(crate) fn run<O: Observer>(
    searcher: &mut Searcher,
    q: &Query<'_>,
    out: &mut Vec<Pos>,
    obs: &mut O,
) -> Result<Stats, Stats> {
    let grid = q.grid;
    let start = grid.index(q.start);
    let goal = grid.index(q.goal);
    let found = flood(searcher, q, start, goal, obs);
    if found.0 {
        searcher.fwd.unwind(grid, start, goal, out);
        Ok(found.1)
    } else {
        Err(found.1)
    }
}

/// The wavefront of the classic tutorial: BFS *from the goal*, numbering the goal 1 and each
/// layer one more, until the start is numbered; then the path walks from the start to a
/// neighbour numbered one less, down to the goal.
pub(crate) fn wavefront<O: Observer>(
    searcher: &mut Searcher,
    q: &Query<'_>,
    out: &mut Vec<Pos>,
    obs: &mut O,
) -> Result<Stats, Stats> {
    let grid = q.grid;
    let start = grid.index(q.start);
    let goal = grid.index(q.goal);
    let (found, stats) = flood(searcher, q, goal, start, obs);
    if !found {
        return Err(stats);
    }
    let nodes = &searcher.fwd;
    let nb = Neighbours::new(grid, q.settings.rules);
    let class = grid.class_at(start);
    let cells = grid.cells();
    let fences = grid.fence_masks();
    let mut i = start;
    out.push(q.start);
    while i != goal {
        let want = nodes.g(i) - 1.0;
        // Downhill: the first legal neighbour numbered one less (cardinals are tried first,
        // which keeps the path's length low among equal step counts).
        let next = (0..nb.count).find_map(|k| {
            let j = i.wrapping_add_signed(nb.offset[k]);
            (nb.legal(cells, fences, i, k, class) && nodes.seen(j) && nodes.g(j) == want).then_some(j)
        });
        // BFS layers guarantee a lower neighbour; fail safe instead of looping if not.
        let Some(j) = next else { return Err(stats) };
        out.push(grid.pos_of(j));
        i = j;
    }
    Ok(stats)
}

/// BFS from `from` until `to` is reached, in `searcher.fwd` (g = number of steps, 0 at `from`).
fn flood<O: Observer>(
    searcher: &mut Searcher,
    q: &Query<'_>,
    from: usize,
    to: usize,
    obs: &mut O,
) -> (bool, Stats) {
    let grid = q.grid;
    let cells = grid.cells();
    let fences = grid.fence_masks();
    let nb = Neighbours::new(grid, q.settings.rules);
    let class = grid.class_at(from);
    let nodes = &mut searcher.fwd;
    let queue = &mut searcher.queue;
    nodes.reset(grid.padded_len(), grid.stride());
    queue.clear();
    let mut stats = Stats { generated: 1, peak_open: 1, expanded: 0 };
    nodes.open_cell(from, 0.0, from);
    #[expect(clippy::cast_possible_truncation, reason = "padded grids have < 2^32 cells")]
    queue.push_back(from as u32);
    if O::ENABLED {
        obs.event(TraceEvent::Opened { pos: grid.pos_of(from), g: 0.0, h: 0.0, f: 0.0 });
    }
    while let Some(i) = queue.pop_front() {
        let i = i as usize;
        nodes.close(i);
        stats.expanded += 1;
        if O::ENABLED {
            obs.event(TraceEvent::Closed { pos: grid.pos_of(i) });
        }
        if i == to {
            return (true, stats);
        }
        let g = nodes.g(i) + 1.0;
        for k in 0..nb.count {
            let j = i.wrapping_add_signed(nb.offset[k]);
            if nodes.seen(j) || !nb.legal(cells, fences, i, k, class) {
                continue;
            }
            #[expect(clippy::cast_possible_truncation, reason = "a direction index below 8")]
            nodes.open_dir(j, g, k as u32);
            #[expect(clippy::cast_possible_truncation, reason = "padded grids have < 2^32 cells")]
            queue.push_back(j as u32);
            stats.generated += 1;
            stats.peak_open = stats.peak_open.max(queue.len() as u64);
            if O::ENABLED {
                obs.event(TraceEvent::Opened { pos: grid.pos_of(j), g, h: 0.0, f: g });
            }
        }
    }
    (false, stats)
}
