//! Landmarks: a differential heuristic for the search over the subgoal graph itself (Goldberg
//! and Harrelson's ALT, 2005; Sturtevant et al., "Memory-Based Heuristics for Explicit State
//! Spaces", IJCAI 2009, for grids). A few subgoals far apart each keep their exact distance to
//! every subgoal. The distance from a node to the goal is at least the difference of their
//! distances to any landmark (the triangle inequality, both ways), which on a cluttered map
//! — where the octile distance misses every detour round the obstacles — is far closer to the
//! truth: the search expands the nodes near the route instead of an ellipse round it.
//!
//! The differences are consistent (an edge changes them by at most its cost), so the search
//! keeps its closed set and its bucketed open list. Distances are the exact cost pairs of the
//! graph (`a + b·√2`), taken as every octile search in the crate takes them; they hold only for
//! the graph they were measured on, so a repair that changes the graph drops them with the
//! hierarchy.

use super::{NONE, Subgoal, TARGET, octile, value};
use crate::search::{BucketQueue, Entry};

/// Landmarks kept, at most: 8 values (64 bytes, one cache line) per subgoal.
pub(super) const LANDMARKS: usize = 8;

/// The landmarks' exact distances to every subgoal slot.
#[derive(Clone, Debug)]
pub(super) struct Landmarks {
    /// How many landmarks (at most `stride`).
    count: usize,
    /// Values kept per slot: the most landmarks the bytes allowed (at most [`LANDMARKS`]).
    stride: usize,
    /// Per slot, its distance to each landmark (infinite where it cannot reach it), `stride`
    /// values: slot-major, so one node's values are one read.
    distance: Vec<f64>,
}

/// Exact distances (values of the cost pairs) from slot `from` to every slot over the
/// subgoals' edges, into `out`; infinite where unreached and for free slots. `side`: the map's
/// longer side (no edge is longer than the octile distance across it), for the bucketed open
/// list the searches use (Dijkstra's `f` never falls either).
fn distances_from(
    subgoals: &[Subgoal],
    (from, side): (usize, f64),
    (pairs, open): (&mut Vec<[u32; 2]>, &mut BucketQueue),
    out: &mut Vec<f64>,
) {
    out.clear();
    out.resize(subgoals.len(), f64::INFINITY);
    pairs.clear();
    pairs.resize(subgoals.len(), [u32::MAX; 2]);
    open.reset_for_long_edges(side);
    pairs[from] = [0, 0];
    #[expect(clippy::cast_possible_truncation, reason = "slots fit in u32")]
    open.push(Entry { f: 0.0, h: 0.0, cell: from as u32 });
    while let Some(entry) = open.pop() {
        let slot = entry.cell as usize;
        if out[slot].is_finite() {
            continue;
        }
        out[slot] = entry.f;
        let (here, g) = (&subgoals[slot], pairs[slot]);
        for e in &here.adj {
            let t = (e.to & TARGET) as usize;
            if out[t].is_finite() {
                continue;
            }
            let c = octile((here.x, here.y), (e.x, e.y));
            let ng = [g[0] + c[0], g[1] + c[1]];
            let nd = value(ng);
            if pairs[t][0] == u32::MAX || nd < value(pairs[t]) {
                pairs[t] = ng;
                #[expect(clippy::cast_possible_truncation, reason = "slots fit in u32")]
                open.push(Entry { f: nd, h: 0.0, cell: t as u32 });
            }
        }
    }
}

impl Landmarks {
    /// Picks up to [`LANDMARKS`] subgoals far apart (each the subgoal farthest from those
    /// picked before, the first the one farthest from the first subgoal), as many as take at
    /// most `room` bytes, and measures their distances (`side`: the map's longer side). `None`
    /// for a graph without subgoals or without room for one.
    pub(super) fn build(subgoals: &[Subgoal], side: f64, room: usize) -> Option<Self> {
        let stride = (room / (subgoals.len().max(1) * size_of::<f64>())).min(LANDMARKS);
        if stride == 0 {
            return None;
        }
        let first = subgoals.iter().position(|s| s.cell != NONE)?;
        let (mut pairs, mut from, mut open) = (Vec::new(), Vec::new(), BucketQueue::default());
        distances_from(subgoals, (first, side), (&mut pairs, &mut open), &mut from);
        // The distance from each slot to the nearest landmark picked so far (only within the
        // first subgoal's part of the graph: other parts keep the octile estimate).
        let mut nearest = from.clone();
        let mut distance = vec![f64::INFINITY; subgoals.len() * stride];
        let mut count = 0;
        while count < stride {
            let Some((pick, &d)) = nearest
                .iter()
                .enumerate()
                .filter(|(_, d)| d.is_finite())
                .max_by(|a, b| a.1.total_cmp(b.1).then_with(|| b.0.cmp(&a.0)))
            else {
                break;
            };
            if d <= 0.0 {
                // Every reachable subgoal is a landmark already.
                break;
            }
            distances_from(subgoals, (pick, side), (&mut pairs, &mut open), &mut from);
            for (slot, &to) in from.iter().enumerate() {
                distance[slot * stride + count] = to;
                nearest[slot] = nearest[slot].min(to);
            }
            count += 1;
        }
        (count > 0).then_some(Self { count, stride, distance })
    }

    /// Bytes the distances take.
    pub(super) fn bytes(&self) -> usize {
        self.distance.len() * size_of::<f64>()
    }

    /// Slot `slot`'s distances to the landmarks.
    #[inline]
    fn of_slot(&self, slot: usize) -> &[f64] {
        &self.distance[slot * self.stride..][..self.count]
    }

    /// The goal's distance to each landmark, from the subgoals its scan found (`(slot, octile
    /// pair to the goal)`): every route into the goal arrives from one of them in a straight
    /// octile line, so the least of their distances plus that line is the goal's own.
    pub(super) fn goal_through(&self, entries: impl Iterator<Item = (usize, [u32; 2])>) -> [f64; LANDMARKS] {
        let mut goal = [f64::INFINITY; LANDMARKS];
        for (slot, line) in entries {
            let line = value(line);
            for (g, d) in goal.iter_mut().zip(self.of_slot(slot)) {
                *g = g.min(d + line);
            }
        }
        goal
    }

    /// The goal's distance to each landmark when the goal is subgoal `slot`.
    pub(super) fn of(&self, slot: usize) -> [f64; LANDMARKS] {
        let mut goal = [f64::INFINITY; LANDMARKS];
        goal[..self.count].copy_from_slice(self.of_slot(slot));
        goal
    }

    /// A lower bound on the distance from subgoal `slot` to the goal whose landmark distances
    /// are `goal`: the largest difference over the landmarks both reach (0 where none).
    #[inline]
    pub(super) fn estimate(&self, slot: usize, goal: &[f64; LANDMARKS]) -> f64 {
        let mut best = 0.0f64;
        for (&a, &b) in self.of_slot(slot).iter().zip(goal) {
            if a.is_finite() && b.is_finite() {
                best = best.max((a - b).abs());
            }
        }
        best
    }
}
