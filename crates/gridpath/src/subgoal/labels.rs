//! Hub labels over the contraction hierarchy: each subgoal's upward search, done once at the
//! build and kept as a list (its *label*: every subgoal the search settles without stalling,
//! with its distance). Abraham, Delling, Goldberg and Werneck, "A Hub-Based Labeling Algorithm
//! for Shortest Paths on Road Networks" (SEA 2011), derive labels so from a contraction
//! hierarchy.
//!
//! A query's two upward searches become two scans of lists laid out one after another: the
//! start's side writes, for every hub in the labels of the subgoals the start reaches (or its
//! own, if it is one), the least cost through them; the goal's side reads the same for its
//! subgoals and keeps the least sum. On the cluttered maps an upward search was most of a
//! query, a heap operation and a stall test per node; a scan is a few additions per entry.
//!
//! *Why exact.* A shortest route between two subgoals `a` and `b` can be taken up the hierarchy
//! and down (`hierarchy.rs`); its top `w` is reached from `a` by an upward route that is a
//! shortest route, so `a`'s upward search settles `w` at its true distance and never stalls
//! it (a stall needs a cheaper route), and so does `b`'s: `w` is in both labels with the two
//! halves' costs. In the core the upward search takes every core edge, as the query's does,
//! so the labels hold the core subgoals each end reaches at their distances. Every entry
//! is the cost of a real route, so no sum is below the optimum.
//!
//! *Memory.* A label holds the subgoal's whole upward search space, which grows with the
//! hierarchy's depth and the core: labels are kept only for a small core ([`MAX_CORE`]) and
//! while the graph stays within [`GRAPH_BYTES_PER_CELL`], else queries search the hierarchy.
//! Pruning the entries not at their distance, as hub labelings do, would save 0–2 % here
//! (measured on the shared maps): stall on demand drops nearly all of them already.

use super::hierarchy::{DIAGONAL_FIRST, Ends, Hierarchy, Hop, Side, add, less, stalled, unpack_hops};
use super::{NONE, Subgoal, octile, value};
use crate::search::{Entry, OpenList};

/// Cores of more subgoals than this get no labels: every label would hold most of the core,
/// and a query would read more entries than the search settles nodes (den520d's core of 125,
/// orz900d's 257: no faster with labels).
const MAX_CORE: usize = 32;
/// Labels are kept only while the whole graph stays within this many bytes a grid cell
/// (issue 24 allows 64 on 512 × 512 maps; `8room_000`'s labels fit, `random512-40`'s do not) ...
const GRAPH_BYTES_PER_CELL: usize = 60;
/// ... or the labels within this many bytes, whatever the map's size (small maps).
const FLOOR_BYTES: usize = 1 << 20;

/// The bytes labels may take on a grid of `cells` cells whose graph takes `graph` bytes without
/// them ([`GRAPH_BYTES_PER_CELL`], [`FLOOR_BYTES`]).
pub(super) fn budget(cells: usize, graph: usize) -> usize {
    (cells * GRAPH_BYTES_PER_CELL).saturating_sub(graph).max(FLOOR_BYTES)
}

/// Every subgoal's label, laid out one after another, each sorted by hub: per entry its hub,
/// its cost and its parent's place (14 bytes an entry), in three arrays (a query reads the
/// first two only).
///
/// The costs are `f64`, not exact `(straight, diagonal)` pairs: a query sums and compares them
/// with no conversion. Two routes of different costs `a + b·√2` on maps of up to 8,192 cells
/// a side differ by far more than the rounding of three sums, so the least sum is a least
/// route; the exact cost is summed again from the route found.
#[derive(Clone, Debug, Default)]
pub(super) struct Labels {
    /// Per slot, where its label begins; then where the last ends.
    first: Vec<u32>,
    hubs: Vec<u32>,
    costs: Vec<f64>,
    /// The place in its label of the hub's parent in the upward search ([`ROOT`] for the
    /// label's own subgoal): the route up to a hub, read back.
    parents: Vec<u16>,
}

/// A hub's best reach from the start in a query: through which seed and label entry.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Reach {
    cost: f64,
    /// The query's generation when set.
    stamp: u32,
    seed: u32,
    /// The entry's index in [`Labels::hubs`].
    entry: u32,
}

/// [`Labels::parents`] of a label's own subgoal.
const ROOT: u16 = u16::MAX;

impl Labels {
    /// The labels of the subgoals `subgoals` over `h`, or `None` past `budget` bytes, for a
    /// label of [`ROOT`] entries or more, or a core of more than [`MAX_CORE`].
    #[expect(clippy::cast_possible_truncation, reason = "slots and label lengths fit in u32")]
    pub(super) fn build(h: &Hierarchy, subgoals: &[Subgoal], budget: usize) -> Option<Self> {
        if h.core > MAX_CORE {
            return None;
        }
        let max_entries = budget / (size_of::<u32>() + size_of::<f64>() + size_of::<u16>());
        let n = subgoals.len();
        let mut sides = vec![Side::default(); n];
        let mut heap = OpenList::default();
        let mut labels = Self { first: Vec::with_capacity(n + 1), ..Self::default() };
        // This label's entries as settled: hub, cost, parent's slot.
        let mut settled: Vec<(u32, [u32; 2], u32)> = Vec::new();
        let mut generation = 0u32;
        for v in 0..n {
            labels.first.push(labels.hubs.len() as u32);
            if subgoals[v].cell == NONE {
                continue;
            }
            generation += 2;
            settled.clear();
            // Dijkstra up from `v`, keeping what it settles without stalling.
            sides[v] = Side { g: [0, 0], parent: NONE, via: NONE, stamp: generation };
            heap.clear();
            heap.push(Entry { f: 0.0, h: 0.0, cell: v as u32 });
            while let Some(entry) = heap.pop() {
                let u = entry.cell as usize;
                if sides[u].stamp != generation {
                    continue;
                }
                sides[u].stamp = generation + 1;
                if stalled(h, &sides, u, generation) {
                    continue;
                }
                let g = sides[u].g;
                settled.push((u as u32, g, sides[u].parent));
                for e in h.up(u) {
                    let t = e.to as usize;
                    if sides[t].stamp == generation + 1 {
                        continue;
                    }
                    let d = add(g, e.cost);
                    if sides[t].stamp != generation || less(d, sides[t].g) {
                        sides[t] = Side { g: d, parent: u as u32, via: NONE, stamp: generation };
                        heap.push(Entry { f: value(d), h: 0.0, cell: t as u32 });
                    }
                }
            }
            if labels.hubs.len() + settled.len() > max_entries || settled.len() >= usize::from(ROOT) {
                return None;
            }
            // Sorted by hub; each parent (settled, as only what is kept is expanded) by its place.
            settled.sort_unstable_by_key(|&(hub, ..)| hub);
            let start = labels.hubs.len();
            labels.hubs.extend(settled.iter().map(|&(hub, ..)| hub));
            labels.costs.extend(settled.iter().map(|&(_, cost, _)| value(cost)));
            let label = &labels.hubs[start..];
            labels.parents.extend(settled.iter().map(|&(.., parent)| match parent {
                NONE => ROOT,
                parent => label.binary_search(&parent).map_or(ROOT, |k| k as u16),
            }));
        }
        labels.first.push(labels.hubs.len() as u32);
        Some(labels)
    }

    /// Where `v`'s label lies in the arrays.
    fn range(&self, v: usize) -> std::ops::Range<usize> {
        self.first[v] as usize..self.first[v + 1] as usize
    }

    /// The route up the hierarchy from `v` to the hub at `place` in `v`'s label, read back
    /// through the parents: each edge pushed as a hop upwards, or as a hop downwards when
    /// `down`, in the route's order either way. `false` if an edge is missing (never seen).
    fn climb(&self, h: &Hierarchy, v: usize, place: usize, down: bool, hops: &mut Vec<Hop>) -> bool {
        let range = self.range(v);
        let (label, parents) = (&self.hubs[range.clone()], &self.parents[range]);
        let mark = hops.len();
        let mut k = place;
        while parents[k] != ROOT {
            let p = usize::from(parents[k]);
            let (lower, upper) = (label[p], label[k]);
            let Some(e) = h.up(lower as usize).iter().find(|e| e.to == upper) else { return false };
            hops.push(if down {
                Hop { from: upper, to: lower, via: e.via, held_by_to: true }
            } else {
                Hop { from: lower, to: upper, via: e.via, held_by_to: false }
            });
            k = p;
        }
        if !down {
            hops[mark..].reverse();
        }
        true
    }

    /// Bytes the labels hold.
    pub(super) fn bytes(&self) -> usize {
        self.first.len() * size_of::<u32>()
            + self.hubs.len() * size_of::<u32>()
            + self.costs.len() * size_of::<f64>()
            + self.parents.len() * size_of::<u16>()
    }
}

/// The query by labels: the best hub both ends reach; leaves the route's subgoal-graph vertices,
/// goal first, in `w.chain` with their coordinates in `w.nodes` (as `hierarchy::search`).
/// `expanded` counts the label entries read.
#[expect(clippy::cast_possible_truncation, reason = "slots and label places fit in u32")]
pub(super) fn search<F: Fn(usize) -> usize>(
    h: &Hierarchy,
    labels: &Labels,
    n: usize,
    w: &mut super::Workspace,
    ends: &Ends<'_, F>,
) -> Result<([u32; 2], crate::Stats), crate::Stats> {
    let generation = w.generation;
    let pos = |v: usize| {
        if v == n {
            ends.s_xy
        } else if v == n + 1 {
            ends.g_xy
        } else {
            h.xy[v]
        }
    };
    if w.reach.len() < n {
        w.reach.resize(n, Reach::default());
    }
    if generation == 2 {
        w.reach.fill(Reach::default());
    }
    let mut stats = crate::Stats::default();
    // Per hub, the least cost from the start through a seed.
    for (seed, to_seed) in seeds(ends.start_v, n, ends.start_edges, &ends.slot_of, &pos) {
        let range = labels.range(seed);
        for (entry, (&hub, &cost)) in
            labels.hubs[range.clone()].iter().zip(&labels.costs[range.clone()]).enumerate()
        {
            let d = value(to_seed) + cost;
            let reach = &mut w.reach[hub as usize];
            if reach.stamp != generation || d < reach.cost {
                *reach = Reach {
                    cost: d,
                    stamp: generation,
                    seed: seed as u32,
                    entry: (range.start + entry) as u32,
                };
            }
        }
        stats.expanded += range.len() as u64;
    }
    // The least sum over the hubs the goal's seeds reach too: (cost, hub, goal seed, entry).
    let mut best = (f64::INFINITY, 0, 0, 0);
    for (seed, from_seed) in seeds(ends.goal_v, n, ends.goal_edges, &ends.slot_of, &pos) {
        let range = labels.range(seed);
        let from_seed = value(from_seed);
        for (entry, (&hub, &cost)) in
            labels.hubs[range.clone()].iter().zip(&labels.costs[range.clone()]).enumerate()
        {
            let reach = &w.reach[hub as usize];
            if reach.stamp == generation && reach.cost + cost + from_seed < best.0 {
                best = (reach.cost + cost + from_seed, hub as usize, seed, range.start + entry);
            }
        }
        stats.expanded += range.len() as u64;
    }
    stats.generated = stats.expanded;
    let (cost, hub, goal_seed, goal_entry) = best;
    if cost == f64::INFINITY {
        return Err(stats);
    }
    // The hops: the start to its seed, up to the hub, down to the goal's seed, to the goal.
    let mut hops = std::mem::take(&mut w.hops);
    hops.clear();
    let reach = w.reach[hub];
    let start_seed = reach.seed as usize;
    if ends.start_v >= n {
        hops.push(Hop { from: n as u32, to: start_seed as u32, via: DIAGONAL_FIRST, held_by_to: false });
    }
    let start_place = reach.entry as usize - labels.range(start_seed).start;
    let goal_place = goal_entry - labels.range(goal_seed).start;
    let mut whole = labels.climb(h, start_seed, start_place, false, &mut hops);
    whole &= labels.climb(h, goal_seed, goal_place, true, &mut hops);
    if ends.goal_v >= n {
        hops.push(Hop { from: goal_seed as u32, to: (n + 1) as u32, via: DIAGONAL_FIRST, held_by_to: true });
    }
    w.hops = hops;
    if !whole || !unpack_hops(h, w, ends.start_v as u32, pos) {
        // Never seen: as `hierarchy::search`.
        w.chain.clear();
        return Ok(([0, 0], stats));
    }
    // The exact cost: the route's edges' octile distances, summed as pairs.
    let at = |v: u32| (w.nodes[v as usize].x, w.nodes[v as usize].y);
    let exact = w.chain.windows(2).fold([0, 0], |sum, pair| add(sum, octile(at(pair[1]), at(pair[0]))));
    Ok((exact, stats))
}

/// An end's seeds: the end `v` itself when it is a subgoal (below `n`), else the subgoals its
/// scan found (`edges`, padded cells), each with the cost of reaching it.
fn seeds<'a>(
    v: usize,
    n: usize,
    edges: &'a [usize],
    slot_of: &'a impl Fn(usize) -> usize,
    pos: &'a impl Fn(usize) -> (u16, u16),
) -> impl Iterator<Item = (usize, [u32; 2])> + 'a {
    let own = (v < n).then_some((v, [0, 0]));
    let found = edges.iter().filter(move |_| v >= n).map(|&c| slot_of(c));
    own.into_iter().chain(found.map(move |t| (t, octile(pos(v), pos(t)))))
}
