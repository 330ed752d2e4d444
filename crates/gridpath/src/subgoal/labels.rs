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
//! The core is not searched from each subgoal: an upward search stops at the core subgoals it
//! reaches (they end the label too), and a table keeps the distances between core subgoals
//! with the first step of a shortest route between them. A route through the core is the
//! least sum over the start's core entries `a` and the goal's `b` of the costs to `a`, from
//! `a` to `b` (the table) and from `b`.
//!
//! *Why exact.* A shortest route between two subgoals `x` and `y` can be taken up the hierarchy
//! and down, or up, through the core and down (`hierarchy.rs`). Take the first: its top `w` is
//! reached from `x` by an upward route that is a shortest route, so `x`'s upward search settles
//! `w` at its true distance and never stalls it (a stall needs a cheaper route), and so does
//! `y`'s: `w` is in both labels with the two halves' costs. Through the core: the upward part
//! ends at the first core subgoal `a`, found by `x`'s search at its distance as above, and the
//! downward part begins at the last, `b`, likewise; the core keeps the distances between its
//! subgoals (each contraction kept those of the graph left), so the table holds the middle.
//! Every entry is the cost of a real route, so no sum is below the optimum.
//!
//! *Memory.* A label holds the subgoal's upward search space below the core, which grows with
//! the hierarchy's depth, and the table the core's size squared: labels are kept for cores of
//! at most [`MAX_CORE`] and while the graph stays within [`GRAPH_BYTES_PER_CELL`], else queries
//! search the hierarchy.
//! Pruning the entries not at their distance, as hub labelings do, would save 0–2 % here
//! (measured on the shared maps): stall on demand drops nearly all of them already.

use super::hierarchy::{DIAGONAL_FIRST, Ends, Hierarchy, Hop, Side, add, less, stalled, unpack_hops};
use super::{NONE, Subgoal, octile, value};
use crate::search::{Entry, OpenList};

/// Cores of more subgoals than this get no labels: the table's searches would take seconds
/// (`random512-25`'s core of 802; `orz900d`'s 257 takes milliseconds).
const MAX_CORE: usize = 512;
/// Labels are kept only while the whole graph stays within this many bytes a grid cell
/// (issue 24 allows 64 on 512 × 512 maps; `8room_000`'s labels fit, `random512-40`'s do not) ...
pub(super) const GRAPH_BYTES_PER_CELL: usize = 60;
/// ... or the labels and the hierarchy within this many bytes, whatever the map's size (small
/// maps).
const FLOOR_BYTES: usize = 1 << 20;

/// The bytes labels may take on a grid of `cells` cells whose graph takes `graph` bytes without
/// them ([`GRAPH_BYTES_PER_CELL`], [`FLOOR_BYTES`]).
pub(super) fn budget(cells: usize, graph: usize) -> usize {
    cells.saturating_mul(GRAPH_BYTES_PER_CELL).saturating_sub(graph).max(FLOOR_BYTES)
}

/// Every subgoal's label, laid out one after another, each sorted by hub: per entry its hub,
/// its cost and its parent's place (14 bytes an entry), in three arrays (a query reads the
/// first two only).
///
/// The costs are `f64`, not exact `(straight, diagonal)` pairs: a query sums and compares them
/// with no conversion. Two routes of different costs `a + b·√2` (`b` diagonal steps) differ by
/// at least about `0.35 / b`, and three sums round by about `C · 10⁻¹⁶` for routes of cost `C`:
/// far apart for any route below a million steps (the longest shared route costs ~5,000), so the
/// least sum is a least route. A route of tens of millions of steps (a maze filling an 8,192²
/// map) could lose a tie of 10⁻⁸ to a route that much longer. The exact cost is summed again
/// from the route found.
#[derive(Clone, Debug, Default)]
pub(super) struct Labels {
    /// Per slot, where its label begins; then where the last ends.
    first: Vec<u32>,
    hubs: Vec<u32>,
    costs: Vec<f64>,
    /// The place in its label of the hub's parent in the upward search ([`ROOT`] for the
    /// label's own subgoal): the route up to a hub, read back.
    parents: Vec<u16>,
    /// The core's slots, and per slot its place among them ([`NONE`] outside the core).
    core: Vec<u32>,
    core_place: Vec<u32>,
    /// Per pair of core places `(a, b)`, at `a * core + b`: the distance from `a` to `b`, and
    /// the place of the core subgoal after `a` on a shortest route to `b`.
    table: Vec<f64>,
    next: Vec<u16>,
}

/// A core subgoal's best reach to the goal in a query, and the goal's hub where a route meets:
/// through which label entry (the seed whose label holds the entry is found again once,
/// [`Labels::owner`]).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Reach {
    cost: f64,
    /// The query's generation when set.
    stamp: u32,
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
        let k = h.core;
        if k > MAX_CORE {
            return None;
        }
        let n = subgoals.len();
        // The core's table, and per slot where its label starts (one more closes the last) and
        // its place in the core, with the core's list: what `bytes` counts besides the entries.
        let table_bytes = k * k * (size_of::<f64>() + size_of::<u16>());
        let fixed = (n + 1 + n + k) * size_of::<u32>();
        let max_entries = budget.checked_sub(table_bytes + fixed)?
            / (size_of::<u32>() + size_of::<f64>() + size_of::<u16>());
        let mut sides = vec![Side::default(); n];
        let mut heap = OpenList::default();
        let mut labels = Self { first: Vec::with_capacity(n + 1), ..Self::default() };
        labels.core = (0..n as u32).filter(|&v| h.in_core(v as usize)).collect();
        labels.core_place = vec![NONE; n];
        for (place, &v) in labels.core.iter().enumerate() {
            labels.core_place[v as usize] = place as u32;
        }
        labels.core_table(h, &mut sides, &mut heap);
        sides.fill(Side::default());
        // This label's entries as settled: hub, cost, parent's slot.
        let mut settled: Vec<(u32, [u32; 2], u32)> = Vec::new();
        let mut generation = 0u32;
        for (v, subgoal) in subgoals.iter().enumerate() {
            labels.first.push(labels.hubs.len() as u32);
            if subgoal.cell == NONE {
                continue;
            }
            generation += 2;
            settled.clear();
            // Up from `v`, keeping what it settles without stalling; a core entry ends its
            // branch (the table goes on from there).
            let core_place = &labels.core_place;
            let settle = |u: usize, sides: &[Side]| {
                if stalled(h, sides, u, generation) {
                    return false;
                }
                settled.push((u as u32, sides[u].g, sides[u].parent));
                core_place[u] == NONE
            };
            dijkstra(h, (&mut sides, &mut heap, generation), v, settle, |u, _, _| u as u32);
            if labels.hubs.len() + settled.len() > max_entries || settled.len() >= usize::from(ROOT) {
                return None;
            }
            // Sorted by hub; each parent (settled, as only what is kept is expanded) by its place.
            settled.sort_unstable_by_key(|&(hub, ..)| hub);
            let start = labels.hubs.len();
            labels.hubs.extend(settled.iter().map(|&(hub, ..)| hub));
            labels.costs.extend(settled.iter().map(|&(_, cost, _)| value(cost)));
            let label = &labels.hubs[start..];
            for &(.., parent) in &settled {
                let place = match parent {
                    NONE => ROOT,
                    // Never missing (a parent is kept before it is expanded); without it a
                    // route would be read back cut short, so no labels rather than that.
                    parent => label.binary_search(&parent).ok()? as u16,
                };
                labels.parents.push(place);
            }
        }
        labels.first.push(labels.hubs.len() as u32);
        Some(labels)
    }

    /// The table of distances between the core's subgoals (Dijkstra from each over the core's
    /// edges, which keep the graph's distances between them), with each route's first step.
    #[expect(clippy::cast_possible_truncation, reason = "core places fit in u16 (MAX_CORE)")]
    fn core_table(&mut self, h: &Hierarchy, sides: &mut [Side], heap: &mut OpenList) {
        let k = self.core.len();
        self.table = vec![f64::INFINITY; k * k];
        self.next = vec![u16::MAX; k * k];
        let mut generation = 0;
        for a in 0..k {
            generation += 2;
            // `parent` holds the first step's core place.
            let (core_place, table, next) = (&self.core_place, &mut self.table, &mut self.next);
            let settle = |u: usize, sides: &[Side]| {
                let (b, first) = (core_place[u] as usize, sides[u].parent);
                table[a * k + b] = value(sides[u].g);
                next[a * k + b] = if first == NONE { b as u16 } else { first as u16 };
                true
            };
            let first_step =
                |_, side: &Side, t: usize| if side.parent == NONE { core_place[t] } else { side.parent };
            dijkstra(h, (sides, heap, generation), self.core[a] as usize, settle, first_step);
        }
    }

    /// The route through the core from core place `a` to core place `b`, a hop per core edge,
    /// by the table's first steps; `false` if an edge is missing (never seen).
    fn cross(&self, h: &Hierarchy, a: usize, b: usize, hops: &mut Vec<Hop>) -> bool {
        let k = self.core.len();
        let mut x = a;
        while x != b {
            let y = usize::from(self.next[x * k + b]);
            let (from, to) = (self.core[x], self.core[y]);
            // Core subgoals keep their core edges: `from`'s list holds this one.
            let Some((edge, e)) = h.edge_to(from, to) else { return false };
            hops.push(Hop { from, to, via: e.via, held_by_to: false, edge });
            x = y;
        }
        true
    }

    /// The start's side of a query: per hub, the least cost from the start through one of its
    /// `seeds` (slot, cost to it) into `w.reach` (infinite where not reached: every hub written
    /// here is made so again by [`Labels::forget_start`]). Returns the entries read.
    ///
    /// No stamps and no branch: a hub's cost is the lesser of the two, whichever it is (on
    /// hrt201n a query reads ~490 entries, and a stamp, a branch the predictor cannot guess
    /// and 16 bytes a hub were most of their time).
    fn read_start(&self, w: &mut super::Workspace, seeds: impl Iterator<Item = (usize, [u32; 2])>) -> u64 {
        let mut read = 0;
        for (seed, to_seed) in seeds {
            let range = self.range(seed);
            let to_seed = value(to_seed);
            for (&hub, &cost) in self.hubs[range.clone()].iter().zip(&self.costs[range.clone()]) {
                let reach = &mut w.reach[hub as usize];
                *reach = reach.min(to_seed + cost);
            }
            read += range.len() as u64;
        }
        read
    }

    /// The start's seed whose label gave hub `hub` its reach, and the hub's place in that
    /// label (the same sum again, so the same value), once the query has picked the hub.
    fn reached_by(
        &self,
        w: &super::Workspace,
        seeds: impl Iterator<Item = (usize, [u32; 2])>,
        hub: usize,
    ) -> Option<(usize, usize)> {
        let reach = w.reach[hub];
        seeds.into_iter().find_map(|(seed, to_seed)| {
            let range = self.range(seed);
            #[expect(clippy::cast_possible_truncation, reason = "slots fit in u32")]
            let place = self.hubs[range.clone()].binary_search(&(hub as u32)).ok()?;
            (value(to_seed) + self.costs[range.start + place] == reach).then_some((seed, place))
        })
    }

    /// Makes every hub [`Labels::read_start`] wrote for `seeds` unreached again.
    fn forget_start(&self, w: &mut super::Workspace, seeds: impl Iterator<Item = (usize, [u32; 2])>) {
        for (seed, _) in seeds {
            for &hub in &self.hubs[self.range(seed)] {
                w.reach[hub as usize] = f64::INFINITY;
            }
        }
        w.reach_written = false;
    }

    /// The goal's side: the least sum over the hubs that the goal's `seeds` (slot, cost from
    /// it) reach and the start reached (`w.reach`), and per core place the least cost to the
    /// goal into `w.goal_core`. Returns the best meeting, if any, and the entries read.
    fn read_goal(
        &self,
        w: &mut super::Workspace,
        seeds: impl Iterator<Item = (usize, [u32; 2])>,
    ) -> (Option<(f64, Meeting)>, u64) {
        // Without a core, no entry is looked up in the core's places (a tenth of a query).
        if self.core.is_empty() {
            self.read_goal_with::<false>(w, seeds)
        } else {
            self.read_goal_with::<true>(w, seeds)
        }
    }

    /// [`Labels::read_goal`], noting core entries when `CORE`.
    #[expect(clippy::cast_possible_truncation, reason = "slots and entries fit in u32")]
    fn read_goal_with<const CORE: bool>(
        &self,
        w: &mut super::Workspace,
        seeds: impl Iterator<Item = (usize, [u32; 2])>,
    ) -> (Option<(f64, Meeting)>, u64) {
        let (mut best, mut read) = (None, 0);
        let mut least = f64::INFINITY;
        for (seed, from_seed) in seeds {
            let range = self.range(seed);
            let from_seed = value(from_seed);
            for (entry, (&hub, &cost)) in
                self.hubs[range.clone()].iter().zip(&self.costs[range.clone()]).enumerate()
            {
                let here = Reach {
                    cost: cost + from_seed,
                    stamp: w.generation,
                    entry: (range.start + entry) as u32,
                };
                // An unreached hub's infinite cost is never less.
                let sum = w.reach[hub as usize] + here.cost;
                if sum < least {
                    least = sum;
                    best = Some((least, Meeting::Hub(hub as usize, here)));
                }
                let place = if CORE { self.core_place[hub as usize] } else { NONE };
                if place != NONE {
                    let to_goal = &mut w.goal_core[place as usize];
                    if to_goal.stamp != w.generation || here.cost < to_goal.cost {
                        *to_goal = here;
                    }
                }
            }
            read += range.len() as u64;
        }
        (best, read)
    }

    /// The least sum over the core entries the start reached and those the goal did, across the
    /// table, if below `best`; returns the better meeting and the table cells read.
    fn cross_core(
        &self,
        w: &mut super::Workspace,
        best: Option<(f64, Meeting)>,
    ) -> (Option<(f64, Meeting)>, u64) {
        let k = self.core.len();
        if k == 0 {
            return (best, 0);
        }
        let (mut from, mut to) = (std::mem::take(&mut w.core_from), std::mem::take(&mut w.core_to));
        from.clear();
        to.clear();
        let generation = w.generation;
        from.extend(self.core.iter().enumerate().filter_map(|(a, &v)| {
            let reach = w.reach[v as usize];
            (reach < f64::INFINITY).then_some((a, reach))
        }));
        let reached = w.goal_core[..k].iter().enumerate().filter(|(_, r)| r.stamp == generation);
        to.extend(reached.map(|(b, r)| (b, r.cost)));
        let mut least = best.as_ref().map_or(f64::INFINITY, |&(cost, _)| cost);
        let mut across = None;
        for &(a, to_a) in &from {
            let row = &self.table[a * k..(a + 1) * k];
            for &(b, from_b) in &to {
                if to_a + row[b] + from_b < least {
                    least = to_a + row[b] + from_b;
                    across = Some((a, b));
                }
            }
        }
        let read = (from.len() * to.len()) as u64;
        (w.core_from, w.core_to) = (from, to);
        match across {
            Some((a, b)) => (Some((least, Meeting::Core(a, b))), read),
            None => (best, read),
        }
    }

    /// The slot whose label holds entry `entry`.
    fn owner(&self, entry: u32) -> usize {
        // The last label beginning at or before it (empty labels begin there too).
        self.first.partition_point(|&start| start <= entry) - 1
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
            let Some((edge, e)) = h.edge_to(lower, upper) else { return false };
            hops.push(if down {
                Hop { from: upper, to: lower, via: e.via, held_by_to: true, edge }
            } else {
                Hop { from: lower, to: upper, via: e.via, held_by_to: false, edge }
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
            + (self.core.len() + self.core_place.len()) * size_of::<u32>()
            + self.table.len() * size_of::<f64>()
            + self.next.len() * size_of::<u16>()
    }
}

/// Where a query's best route meets: at a hub both ends' labels hold (with the goal's seed and
/// entry there), or across the core from the start's core entry `a` to the goal's `b` (core
/// places).
enum Meeting {
    Hub(usize, Reach),
    Core(usize, usize),
}

/// The query by labels: the best hub both ends reach, or the best way across the core; leaves
/// the route in the subgoal graph, start first, in `w.steps` (as `hierarchy::search`).
/// `expanded` counts the label entries and table cells read.
#[expect(clippy::cast_possible_truncation, reason = "slots fit in u32")]
pub(super) fn search<F: Fn(usize) -> usize>(
    h: &Hierarchy,
    labels: &Labels,
    w: &mut super::Workspace,
    ends: &Ends<'_, F>,
) -> Result<([u32; 2], crate::Stats), crate::Stats> {
    let n = h.xy.len();
    let pos = |v: usize| ends.pos(&h.xy, v);
    if w.reach_written {
        // A query that stopped between writing and forgetting (a panic caught): start clean.
        w.reach.fill(f64::INFINITY);
    }
    if w.reach.len() < n {
        w.reach.resize(n, f64::INFINITY);
    }
    // New room in the goal's core reaches is unstamped; `search_in` clears the stamps when they
    // start again.
    if w.goal_core.len() < labels.core.len() {
        w.goal_core.resize(labels.core.len(), Reach::default());
    }
    let mut stats = crate::Stats::default();
    let start_seeds = || seeds(ends.start_v, n, ends.start_edges, &ends.slot_of, &pos);
    w.reach_written = true;
    stats.expanded += labels.read_start(w, start_seeds());
    let (best, read) = labels.read_goal(w, seeds(ends.goal_v, n, ends.goal_edges, &ends.slot_of, &pos));
    stats.expanded += read;
    let (best, read) = labels.cross_core(w, best);
    stats.expanded += read;
    stats.generated = stats.expanded;
    // The hops: the start to its seed, up to the hub (or the core entry), through the core,
    // down to the goal's seed, to the goal.
    let found = best.map(|(_, meeting)| {
        let (up_to, to_goal) = match meeting {
            Meeting::Hub(hub, to_goal) => (hub, to_goal),
            Meeting::Core(a, b) => (labels.core[a] as usize, w.goal_core[b]),
        };
        (meeting, to_goal, labels.reached_by(w, start_seeds(), up_to))
    });
    labels.forget_start(w, start_seeds());
    let Some((meeting, to_goal, from_start)) = found else {
        return Err(stats);
    };
    let mut hops = std::mem::take(&mut w.hops);
    hops.clear();
    // Never missing (the hub's reach is one of these sums); without it, the exact fallback.
    let Some((start_seed, start_place)) = from_start else {
        w.hops = hops;
        w.steps.clear();
        return Ok(([0, 0], stats));
    };
    let goal_seed = labels.owner(to_goal.entry);
    if ends.start_v >= n {
        hops.push(Hop {
            from: n as u32,
            to: start_seed as u32,
            via: DIAGONAL_FIRST,
            held_by_to: false,
            edge: NONE,
        });
    }
    let mut whole = labels.climb(h, start_seed, start_place, false, &mut hops);
    if let Meeting::Core(a, b) = meeting {
        whole &= labels.cross(h, a, b, &mut hops);
    }
    let goal_place = to_goal.entry as usize - labels.range(goal_seed).start;
    whole &= labels.climb(h, goal_seed, goal_place, true, &mut hops);
    if ends.goal_v >= n {
        hops.push(Hop {
            from: goal_seed as u32,
            to: (n + 1) as u32,
            via: DIAGONAL_FIRST,
            held_by_to: true,
            edge: NONE,
        });
    }
    w.hops = hops;
    if !whole || !unpack_hops(h, w, ends.start_v as u32, pos) {
        // Never seen: as `hierarchy::search`.
        w.steps.clear();
        return Ok(([0, 0], stats));
    }
    // The exact cost: the route's edges' octile distances, summed as pairs.
    let exact = w
        .steps
        .windows(2)
        .fold([0, 0], |sum, pair| add(sum, octile((pair[0].x, pair[0].y), (pair[1].x, pair[1].y))));
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

/// Dijkstra from `source` over the hierarchy's upward (or core) edges, in `sides` at
/// `generation`: `settle(u, sides)` is called for each subgoal as it is settled and says
/// whether its edges are relaxed; `parent(u, side of u, t)` is what a subgoal `t` reached from
/// `u` keeps as its parent.
fn dijkstra(
    h: &Hierarchy,
    (sides, heap, generation): (&mut [Side], &mut OpenList, u32),
    source: usize,
    mut settle: impl FnMut(usize, &[Side]) -> bool,
    parent: impl Fn(usize, &Side, usize) -> u32,
) {
    sides[source] = Side { g: [0, 0], parent: NONE, via: NONE, stamp: generation };
    heap.clear();
    #[expect(clippy::cast_possible_truncation, reason = "slots fit in u32")]
    heap.push(Entry { f: 0.0, h: 0.0, cell: source as u32 });
    while let Some(entry) = heap.pop() {
        let u = entry.cell as usize;
        if sides[u].stamp != generation {
            continue;
        }
        sides[u].stamp = generation + 1;
        if !settle(u, sides) {
            continue;
        }
        let here = sides[u];
        for e in h.up(u) {
            let t = e.to as usize;
            if sides[t].stamp == generation + 1 {
                continue;
            }
            let d = add(here.g, e.cost);
            if sides[t].stamp != generation || less(d, sides[t].g) {
                sides[t] = Side { g: d, parent: parent(u, &here, t), via: NONE, stamp: generation };
                heap.push(Entry { f: value(d), h: 0.0, cell: e.to });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::subgoal::pillars;
    use crate::{Pos, Settings, SubgoalGraph, SubgoalQuery};

    /// Every hub a query's start side reached is unreached again once it answers (the next
    /// query reads no stale reach), whether the goal was found or not.
    #[test]
    fn a_query_leaves_every_hub_unreached() {
        let mut grid = pillars();
        // A walled-off corner: a query into it reads the start's labels and finds no route.
        for (x, y) in [(37, 36), (38, 36), (39, 36), (36, 37), (36, 38), (36, 39)] {
            grid.set_wall(Pos::new(x, y), true).unwrap();
        }
        let mut graph = SubgoalGraph::build(&grid);
        graph.force_hierarchy();
        assert!(graph.has_labels());
        let settings = Settings::default();
        let mut query = SubgoalQuery::default();
        let found = graph.find_path_with(&grid, Pos::new(0, 0), Pos::new(35, 30), &settings, &mut query);
        assert!(found.is_ok());
        let cut_off = graph.find_path_with(&grid, Pos::new(0, 0), Pos::new(38, 38), &settings, &mut query);
        assert!(cut_off.is_err());
        assert!(!query.work.reach.is_empty());
        assert!(query.work.reach.iter().all(|cost| cost.is_infinite()));
        assert!(!query.work.reach_written);
    }

    /// When the query stamps start again, no stamp of the last round passes for the new
    /// round's, though the round's first query (a goal in sight) never reaches the labels.
    #[test]
    fn stamps_of_the_last_round_never_pass_for_the_new_ones() {
        let grid = pillars();
        let mut graph = SubgoalGraph::build(&grid);
        graph.force_hierarchy();
        assert!(graph.has_labels());
        let settings = Settings::default();
        let far = (Pos::new(0, 0), Pos::new(38, 39));
        let near = (Pos::new(0, 0), Pos::new(2, 0));
        let expected = graph.find_path(&grid, far.0, far.1, &settings).unwrap().cost;
        let mut query = SubgoalQuery::default();
        // Stamp the buffers with generations 2 and 4, the second on a route from beside the far
        // goal (the start's reaches are not stamped, and are unreached again after each query).
        for other in [(Pos::new(0, 39), Pos::new(39, 0)), (Pos::new(37, 39), Pos::new(20, 20))] {
            graph.find_path_with(&grid, other.0, other.1, &settings, &mut query).unwrap();
        }
        // Start the stamps again: the first query of the round (2) is answered in sight, the
        // next (4) by the labels, at the generation the last round's second stamps hold.
        query.work.generation = u32::MAX - 4;
        graph.find_path_with(&grid, near.0, near.1, &settings, &mut query).unwrap();
        for _ in 0..4 {
            let path = graph.find_path_with(&grid, far.0, far.1, &settings, &mut query).unwrap();
            assert!((path.cost - expected).abs() < 1e-9, "{} against {expected}", path.cost);
            assert!(grid.path_cost(&path.cells, crate::Rules::OCTILE).is_ok());
        }
    }
}
