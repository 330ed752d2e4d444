//! Helpers shared by the integration tests: an independent reference search and map builders.
#![allow(dead_code, reason = "each test binary uses a different subset")]

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use gridpath::{Grid, Pos, Rules};

/// Every neighbour offset, in no particular order.
const OFFSETS: [(i64, i64); 8] = [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)];

fn neighbours(grid: &Grid, p: Pos, rules: Rules) -> impl Iterator<Item = (Pos, f64)> + '_ {
    OFFSETS.iter().filter_map(move |&(dx, dy)| {
        let x = u32::try_from(i64::from(p.x) + dx).ok()?;
        let y = u32::try_from(i64::from(p.y) + dy).ok()?;
        let q = Pos::new(x, y);
        grid.step_cost(p, q, rules).map(|c| (q, c))
    })
}

/// Plain Dijkstra over `Grid::step_cost`: the least cost from `start` to `goal`, `None` when
/// unreachable or an endpoint is blocked. Costs are scaled to integers of 1e-9 for the heap.
pub fn reference_cost(grid: &Grid, start: Pos, goal: Pos, rules: Rules) -> Option<f64> {
    if !grid.is_passable(start) || !grid.is_passable(goal) {
        return None;
    }
    let mut dist = std::collections::HashMap::new();
    let mut heap = BinaryHeap::new();
    dist.insert(start, 0.0f64);
    heap.push(Reverse((Ord64(0.0), start)));
    while let Some(Reverse((Ord64(d), p))) = heap.pop() {
        if p == goal {
            return Some(d);
        }
        if d > dist[&p] {
            continue;
        }
        for (q, c) in neighbours(grid, p, rules) {
            let nd = d + c;
            if dist.get(&q).is_none_or(|&old| nd < old) {
                dist.insert(q, nd);
                heap.push(Reverse((Ord64(nd), q)));
            }
        }
    }
    None
}

/// Plain BFS: the fewest steps from `start` to `goal`.
pub fn reference_steps(grid: &Grid, start: Pos, goal: Pos, rules: Rules) -> Option<usize> {
    if !grid.is_passable(start) || !grid.is_passable(goal) {
        return None;
    }
    let mut seen = std::collections::HashMap::new();
    let mut queue = VecDeque::from([start]);
    seen.insert(start, 0usize);
    while let Some(p) = queue.pop_front() {
        if p == goal {
            return Some(seen[&p]);
        }
        let d = seen[&p] + 1;
        for (q, _) in neighbours(grid, p, rules) {
            seen.entry(q).or_insert_with(|| {
                queue.push_back(q);
                d
            });
        }
    }
    None
}

#[derive(Clone, Copy)]
struct Ord64(f64);
impl PartialEq for Ord64 {
    fn eq(&self, other: &Self) -> bool {
        self.0.total_cmp(&other.0).is_eq()
    }
}
impl Eq for Ord64 {}
impl PartialOrd for Ord64 {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Ord64 {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// The shared Moving AI benchmark folder (next to the repository).
pub fn movingai_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/benchmarks/movingai")
}

/// Every movement rule: 4 moves, and 8 moves under each corner rule.
pub fn arb_rules() -> impl proptest::strategy::Strategy<Value = Rules> {
    use gridpath::Corners;
    use proptest::prelude::{Just, prop_oneof};
    prop_oneof![
        Just(Rules::FOUR),
        Just(Rules::eight(Corners::Forbid)),
        Just(Rules::eight(Corners::AllowOne)),
        Just(Rules::eight(Corners::Allow)),
    ]
}
