//! Every open cell's scan, done once at the build: the subgoals a query's start or goal on that
//! cell directly-h-reaches, read as a list instead of scanned for (the scans were about a third
//! of a query on the middle maps). Kept where memory and a build-time budget allow; a repair
//! that changes the graph drops it with the hierarchy, and queries scan again until
//! [`SubgoalGraph::rebuild_hierarchy`](super::SubgoalGraph::rebuild_hierarchy).
//!
//! A query still asks whether the other end is in direct reach (`View::reaches`, along one ray
//! or quadrant): the scan with that end as a stop too finds the same subgoals as the scan
//! without it unless it finds that end, and then the answer is the straight route.

use std::time::{Duration, Instant};

use super::{NONE, View};

/// How long a build may take until its table is done, the table's time estimated from a sample
/// of its scans first: issue 24 allows 2 s for a 512 × 512 map's whole build, which times the
/// graph against JPS after the table. One bound for the whole build, not one for the table:
/// 32room's and maze512-16's tables take ~0.2–0.35 s here, after a build of ~30 ms, and a bound
/// of the table's own (0.4 s, then 0.8) dropped them on a machine a few times slower or busier,
/// and with them the median map's speed-up.
pub(super) const BUILD_BUDGET: Duration = Duration::from_millis(1500);

/// Cells of the sample the estimate is made from.
const SAMPLE: usize = 2048;

/// Bytes the whole graph may take with the table on any map: small maps, where a fixed few
/// megabytes are more bytes a cell than the rule for large ones allows (lak303d's table takes
/// 30 B/cell, its labels having taken the graph to 48). From 69,906 cells on (a 265 × 265 map)
/// 60 bytes a cell is the larger.
const SMALL_MAP_BYTES: usize = 4 << 20;

/// The bytes a table may take for a graph of `graph` bytes on a grid of `cells` cells: the
/// whole graph within the labels' bytes a cell with it, or within [`SMALL_MAP_BYTES`].
pub(super) fn budget(cells: usize, graph: usize) -> usize {
    cells.saturating_mul(super::labels::GRAPH_BYTES_PER_CELL).max(SMALL_MAP_BYTES).saturating_sub(graph)
}

/// Per padded cell, the subgoals (padded cells) its scan finds, in the scan's order.
#[derive(Clone, Debug, Default)]
pub(super) struct Seeds {
    /// Where each padded cell's list starts in `cells`; one more entry closes the last.
    start: Vec<u32>,
    cells: Vec<u32>,
}

impl Seeds {
    /// The table for the open cells of `view` that are not subgoals, or `None` where it would
    /// take more than `budget` bytes or (by a sample's estimate) longer than `time` to build.
    #[expect(clippy::cast_possible_truncation, reason = "padded cells of a grid fit in u32")]
    pub(super) fn build(view: &View<'_>, budget: usize, time: Duration) -> Option<Self> {
        let len = view.cells.len();
        let wanted = |i: usize| view.cells[i] >> 6 != 0 && view.slot_at[i] == NONE;
        let open = (0..len).filter(|&i| wanted(i)).count();
        if open == 0 || (len + 1) * size_of::<u32>() > budget {
            return None;
        }
        // A sample of cells spread over the map first: its time and its lists' length, times
        // the open cells, must fit the budgets (an open map's long scans find many subgoals
        // each: its table would run out of bytes only after most of the time).
        let mut found = Vec::new();
        let step = (len / SAMPLE).max(1);
        let began = Instant::now();
        let (mut sampled, mut listed) = (0usize, 0usize);
        for i in (0..len).step_by(step).filter(|&i| wanted(i)) {
            found.clear();
            view.scan(i, usize::MAX, &mut found);
            sampled += 1;
            listed += found.len();
        }
        let sampled = sampled.max(1);
        let most = budget / size_of::<u32>() - (len + 1);
        let scale = u32::try_from(open.div_ceil(sampled)).unwrap_or(u32::MAX);
        if began.elapsed().saturating_mul(scale) > time || listed * open / sampled > most {
            return None;
        }
        let mut seeds = Self { start: Vec::with_capacity(len + 1), cells: Vec::new() };
        for i in 0..len {
            seeds.start.push(seeds.cells.len() as u32);
            if wanted(i) {
                found.clear();
                view.scan(i, usize::MAX, &mut found);
                if seeds.cells.len() + found.len() > most {
                    return None;
                }
                seeds.cells.extend(found.iter().map(|&c| c as u32));
            }
        }
        seeds.start.push(seeds.cells.len() as u32);
        // Grown by doubling: the bytes counted are the bytes held.
        seeds.cells.shrink_to_fit();
        Some(seeds)
    }

    /// The subgoals padded cell `i`'s scan finds (none for a subgoal or a blocked cell).
    pub(super) fn of(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        let (from, to) = (self.start[i] as usize, self.start[i + 1] as usize);
        self.cells[from..to].iter().map(|&c| c as usize)
    }

    /// Bytes the table holds.
    pub(super) fn bytes(&self) -> usize {
        (self.start.len() + self.cells.len()) * size_of::<u32>()
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use crate::grid::{Grid, Pos, Tile};
    use crate::subgoal::SubgoalGraph;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        /// For every pair of open cells of one class on random grids with walls, water and
        /// fences: `reaches` says what the scan with the other end as a stop says, and where
        /// it does not find that end, the scan finds what the table holds, in its order.
        #[test]
        fn reaches_and_the_table_are_the_scan(
            (w, h) in (1u32..=14, 1u32..=14),
            tiles in prop::collection::vec(0u8..100, 196),
            fences in prop::collection::vec((0u32..14, 0u32..14, 0u8..4), 0..6),
        ) {
            let mut grid = Grid::new(w, h).unwrap();
            for p in grid.positions().collect::<Vec<_>>() {
                let r = tiles[(p.y * 14 + p.x) as usize];
                let tile = match r {
                    0..25 => Tile::Wall,
                    94.. => Tile::Water { cost: 1 },
                    _ => Tile::FLOOR,
                };
                grid.set_tile(p, tile).unwrap();
            }
            for (x, y, side) in fences {
                let a = Pos::new(x.min(w - 1), y.min(h - 1));
                let b = match side {
                    0 => Pos::new(a.x + 1, a.y),
                    1 => Pos::new(a.x, a.y + 1),
                    2 => Pos::new(a.x.wrapping_sub(1), a.y),
                    _ => Pos::new(a.x, a.y.wrapping_sub(1)),
                };
                // A fence off the map is refused: nothing to test there.
                let _ = grid.set_fence(a, b, true);
            }
            let graph = SubgoalGraph::build(&grid);
            let view = graph.view();
            let open: Vec<usize> =
                grid.positions().map(|p| grid.index(p)).filter(|&i| graph.cells[i] >> 6 != 0).collect();
            let mut scanned = Vec::new();
            for &s in &open {
                for &g in &open {
                    if s == g || graph.cells[s] >> 6 != graph.cells[g] >> 6 {
                        continue;
                    }
                    scanned.clear();
                    view.scan(s, g, &mut scanned);
                    let found = scanned.contains(&g);
                    prop_assert_eq!(view.reaches(s, g), found, "from {} to {}", s, g);
                    if let (false, Some(seeds)) = (found, &graph.seeds)
                        && graph.slot_at[s] == super::NONE
                    {
                        let listed: Vec<usize> = seeds.of(s).collect();
                        prop_assert_eq!(listed, scanned.clone(), "the scan from {}", s);
                    }
                }
            }
        }
    }

    /// Small maps get the table (within their bytes and time).
    #[test]
    fn a_small_map_gets_the_table() {
        let graph = SubgoalGraph::build(&crate::subgoal::pillars());
        assert!(graph.seeds.is_some());
    }

    /// The hub labels' room leaves the speed-ups out, the table among them, as a rebuild
    /// (which builds the table after them) does: `force_hierarchy` on a graph with a table gives
    /// them the room a rebuild would.
    #[test]
    fn the_labels_room_leaves_the_table_out() {
        let mut graph = SubgoalGraph::build(&crate::subgoal::pillars());
        assert!(graph.seeds.as_ref().is_some_and(|seeds| seeds.bytes() > 0));
        let (with_table, without) = (graph.label_budget(), graph.bytes_without_speed_ups());
        graph.lay_out_edges();
        (graph.seeds, graph.hierarchy, graph.landmarks) = (None, None, None);
        assert_eq!(graph.label_budget(), with_table, "laid-out edges and all");
        graph.flat = None;
        assert_eq!(graph.bytes(), without);
    }
}
