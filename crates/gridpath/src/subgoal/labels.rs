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
use super::{NONE, Runs, Subgoal, octile, value};
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

/// One entry of a subgoal's label (12 bytes; its parent's place is kept apart, 2 more).
#[derive(Clone, Copy, Debug)]
pub(super) struct Label {
    /// The hub's slot.
    hub: u32,
    /// The cost from the label's subgoal to the hub.
    cost: [u32; 2],
}

/// The bytes labels may take on a grid of `cells` cells whose graph takes `graph` bytes without
/// them ([`GRAPH_BYTES_PER_CELL`], [`FLOOR_BYTES`]).
pub(super) fn budget(cells: usize, graph: usize) -> usize {
    (cells * GRAPH_BYTES_PER_CELL).saturating_sub(graph).max(FLOOR_BYTES)
}

/// Every subgoal's label, laid out one after another, each sorted by hub.
#[derive(Clone, Debug, Default)]
pub(super) struct Labels {
    lists: Runs<Label>,
    /// Per entry (as laid out in `lists`), the place in its label of the hub's parent in the
    /// upward search ([`ROOT`] for the label's own subgoal): the route up to a hub, read back.
    parents: Vec<u16>,
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
        let max_entries = budget / (size_of::<Label>() + size_of::<u16>());
        let n = subgoals.len();
        let mut sides = vec![Side::default(); n];
        let mut heap = OpenList::default();
        let mut first = Vec::with_capacity(n + 1);
        let mut items: Vec<Label> = Vec::new();
        let mut parents: Vec<u16> = Vec::new();
        // This label's entries as settled, with their parents' slots.
        let mut settled: Vec<(Label, u32)> = Vec::new();
        let mut generation = 0u32;
        for v in 0..n {
            first.push(items.len() as u32);
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
                settled.push((Label { hub: u as u32, cost: g }, sides[u].parent));
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
            if items.len() + settled.len() > max_entries || settled.len() >= usize::from(ROOT) {
                return None;
            }
            // Sorted by hub; each parent (settled, as only what is kept is expanded) by its place.
            settled.sort_unstable_by_key(|(l, _)| l.hub);
            let start = items.len();
            items.extend(settled.iter().map(|&(l, _)| l));
            let label = &items[start..];
            parents.extend(settled.iter().map(|&(_, parent)| match parent {
                NONE => ROOT,
                parent => label.binary_search_by_key(&parent, |l| l.hub).map_or(ROOT, |k| k as u16),
            }));
        }
        first.push(items.len() as u32);
        Some(Self { lists: Runs::from_parts(first, items), parents })
    }

    /// The route up the hierarchy from `v` to the hub at `place` in `v`'s label, read back
    /// through the parents: each edge pushed as a hop upwards, or as a hop downwards when
    /// `down`, in the route's order either way. `false` if an edge is missing (never seen).
    fn climb(&self, h: &Hierarchy, v: usize, place: usize, down: bool, hops: &mut Vec<Hop>) -> bool {
        let label = self.lists.get(v);
        let parents = &self.parents[self.lists.start(v)..];
        let mark = hops.len();
        let mut k = place;
        while parents[k] != ROOT {
            let p = usize::from(parents[k]);
            let (lower, upper) = (label[p].hub, label[k].hub);
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
        self.lists.bytes() + self.parents.len() * size_of::<u16>()
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
    if w.fwd.len() < n + 2 {
        w.fwd.resize(n + 2, Side::default());
    }
    if generation == 2 {
        w.fwd.fill(Side::default());
    }
    let mut stats = crate::Stats::default();
    // Per hub, the least cost from the start through a seed (in `fwd`, `parent` the seed and
    // `via` the hub's place in its label).
    for (seed, to_seed) in seeds(ends.start_v, n, ends.start_edges, &ends.slot_of, &pos) {
        for (k, e) in labels.lists.get(seed).iter().enumerate() {
            let d = add(to_seed, e.cost);
            let hub = &mut w.fwd[e.hub as usize];
            if hub.stamp != generation || less(d, hub.g) {
                *hub = Side { g: d, parent: seed as u32, via: k as u32, stamp: generation };
            }
        }
        stats.expanded += labels.lists.get(seed).len() as u64;
    }
    // The least sum over the hubs the goal's seeds reach too: (cost, hub, goal seed, place).
    let mut best: Option<([u32; 2], usize, usize, usize)> = None;
    for (seed, from_seed) in seeds(ends.goal_v, n, ends.goal_edges, &ends.slot_of, &pos) {
        for (k, e) in labels.lists.get(seed).iter().enumerate() {
            let hub = &w.fwd[e.hub as usize];
            if hub.stamp == generation {
                let sum = add(add(hub.g, e.cost), from_seed);
                if best.is_none_or(|(b, ..)| value(sum) < value(b)) {
                    best = Some((sum, e.hub as usize, seed, k));
                }
            }
        }
        stats.expanded += labels.lists.get(seed).len() as u64;
    }
    stats.generated = stats.expanded;
    let Some((cost, hub, goal_seed, goal_place)) = best else {
        return Err(stats);
    };
    // The hops: the start to its seed, up to the hub, down to the goal's seed, to the goal.
    let mut hops = std::mem::take(&mut w.hops);
    hops.clear();
    let (start_seed, start_place) = (w.fwd[hub].parent as usize, w.fwd[hub].via as usize);
    if ends.start_v >= n {
        hops.push(Hop { from: n as u32, to: start_seed as u32, via: DIAGONAL_FIRST, held_by_to: false });
    }
    let mut whole = labels.climb(h, start_seed, start_place, false, &mut hops);
    whole &= labels.climb(h, goal_seed, goal_place, true, &mut hops);
    if ends.goal_v >= n {
        hops.push(Hop { from: goal_seed as u32, to: (n + 1) as u32, via: DIAGONAL_FIRST, held_by_to: true });
    }
    w.hops = hops;
    if !whole || !unpack_hops(h, w, ends.start_v as u32, pos) {
        // Never seen: as `hierarchy::search`.
        w.chain.clear();
    }
    Ok((cost, stats))
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
