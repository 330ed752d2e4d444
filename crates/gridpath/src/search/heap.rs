//! Open lists: a binary min-heap keyed by `(f, h)`, and a bucketed queue for searches whose `f`
//! never decreases (A* with a consistent heuristic, Dijkstra), which is what makes A* fast on
//! big maps: most pushes are an O(1) append to a future bucket, and only the current bucket,
//! small and cache-resident, is kept as a heap.

/// One open-list entry (16 bytes). Stale entries (whose cell has since got a better cost or
/// been closed) stay in the list and are skipped when popped: cheaper than a decrease-key.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub(crate) f: f64,
    /// Only breaks ties between equal `f`, so single precision is plenty.
    pub(crate) h: f32,
    pub(crate) cell: u32,
}

impl Entry {
    /// `true` when `self` must come out before `other`: lower `f`, then lower `h` (the
    /// tie-break of the Unity tutorial: among equal estimates, the node nearer the goal).
    #[inline(always)]
    fn before(&self, other: &Entry) -> bool {
        self.f < other.f || (self.f == other.f && self.h < other.h)
    }

    /// The `(f, h)` order, best last (the order of a bucket turned into the stack): the bits
    /// of non-negative floats order like their values, so two integer compares suffice.
    #[inline(always)]
    fn worse_first(&self, other: &Entry) -> std::cmp::Ordering {
        (other.f.to_bits(), other.h.to_bits()).cmp(&(self.f.to_bits(), self.h.to_bits()))
    }
}

/// Binary-heap operations on a plain `Vec<Entry>`.
mod binary {
    use super::Entry;

    #[inline]
    pub(super) fn push(heap: &mut Vec<Entry>, entry: Entry) {
        heap.push(entry);
        let mut i = heap.len() - 1;
        while i > 0 {
            let parent = (i - 1) / 2;
            if !entry.before(&heap[parent]) {
                break;
            }
            heap[i] = heap[parent];
            i = parent;
        }
        heap[i] = entry;
    }

    #[inline]
    pub(super) fn pop(heap: &mut Vec<Entry>) -> Option<Entry> {
        let last = heap.pop()?;
        if heap.is_empty() {
            return Some(last);
        }
        let top = heap[0];
        sift_down(heap, 0, last);
        Some(top)
    }

    fn sift_down(heap: &mut [Entry], mut i: usize, entry: Entry) {
        let len = heap.len();
        loop {
            let left = 2 * i + 1;
            if left >= len {
                break;
            }
            let right = left + 1;
            let child = if right < len && heap[right].before(&heap[left]) { right } else { left };
            if !heap[child].before(&entry) {
                break;
            }
            heap[i] = heap[child];
            i = child;
        }
        heap[i] = entry;
    }
}

/// Binary min-heap of [`Entry`]s that keeps its allocation between queries.
#[derive(Default, Debug)]
pub(crate) struct OpenList {
    heap: Vec<Entry>,
}

impl OpenList {
    pub(crate) fn clear(&mut self) {
        self.heap.clear();
    }

    pub(crate) fn len(&self) -> usize {
        self.heap.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// The smallest entry's `f`, or infinity when empty.
    pub(crate) fn min_f(&self) -> f64 {
        self.heap.first().map_or(f64::INFINITY, |e| e.f)
    }

    pub(crate) fn push(&mut self, entry: Entry) {
        binary::push(&mut self.heap, entry);
    }

    pub(crate) fn pop(&mut self) -> Option<Entry> {
        binary::pop(&mut self.heap)
    }
}

/// What the best-first loop needs of an open list.
pub(crate) trait Frontier {
    fn push(&mut self, entry: Entry);
    fn pop(&mut self) -> Option<Entry>;
    fn len(&self) -> usize;
}

impl Frontier for OpenList {
    #[inline]
    fn push(&mut self, entry: Entry) {
        binary::push(&mut self.heap, entry);
    }
    #[inline]
    fn pop(&mut self) -> Option<Entry> {
        binary::pop(&mut self.heap)
    }
    fn len(&self) -> usize {
        self.heap.len()
    }
}

impl Frontier for BucketQueue {
    #[inline]
    fn push(&mut self, entry: Entry) {
        BucketQueue::push(self, entry);
    }
    #[inline]
    fn pop(&mut self) -> Option<Entry> {
        BucketQueue::pop(self)
    }
    fn len(&self) -> usize {
        self.len
    }
}

/// Buckets per unit of `f` for A* and Dijkstra. On uniform-cost octile grids `f` grows by 0 or
/// by at least `2 − √2 ≈ 0.59` along an edge, so with width 1/8 a push into the current bucket
/// is always a child on the current plateau of equal `f`.
pub(crate) const BUCKETS_PER_UNIT: f64 = 8.0;

/// Buckets per unit of `f` for searches with long edges ([`BucketQueue::reset_for_long_edges`]):
/// one bucket per 4 units. A JPS query pushes a few hundred jump points spread over a window of
/// `2(1 + √2)·side` units, so with one bucket per unit most pushes landed in a bucket of their
/// own — a cold bucket header and buffer each. Four units per bucket: a quarter of the buckets,
/// a few more entries sorted per bucket (cachegrind, ten median maps: −2.1 % instructions, −3 %
/// L1 misses).
const LONG_EDGE_BUCKETS_PER_UNIT: f64 = 0.25;

/// An open list for monotone searches: `f` of every push is at least the `f` last popped (up to
/// float noise) and at most `window` above it.
///
/// Entries go to circular buckets of width `1 / BUCKETS_PER_UNIT`. The current bucket is a
/// stack sorted by `(f, h)` (best on top: the bucket is sorted when it becomes current, and
/// later pushes that are no worse than the top go on top) plus a binary heap for the other
/// pushes, and pops take the better of the two tops, so entries come out in exactly the order
/// one heap would give. The stack is what makes A* fast on the plateaus of equal `f` of octile
/// grids: an expansion there pushes children with the same `f` and a lower `h` than anything
/// left (the popped node had the lowest), which a heap would sift all the way to its root.
#[derive(Default, Debug)]
pub(crate) struct BucketQueue {
    buckets: Vec<Vec<Entry>>,
    /// Entries of the current bucket pushed in non-increasing order: the last is the smallest.
    stack: Vec<Entry>,
    mask: usize,
    /// Buckets per unit of `f` (the inverse of their width) for this search.
    per_unit: f64,
    /// Highest absolute bucket index pushed to since the reset (buckets up to it may hold
    /// entries; the next reset clears only those).
    high: usize,
    /// Absolute index of the current bucket.
    current: usize,
    len: usize,
    peak: usize,
}

impl BucketQueue {
    /// Empties the queue for a search whose pushes stay within `window` above the last pop,
    /// with [`BUCKETS_PER_UNIT`] buckets per unit of `f`.
    pub(crate) fn reset(&mut self, window: f64) {
        self.reset_with(window, BUCKETS_PER_UNIT);
    }

    /// [`BucketQueue::reset`] with `per_unit` buckets per unit of `f`. Any width gives the
    /// exact `(f, h)` order (buckets are sorted); wide buckets suit searches with long edges
    /// (JPS), whose window would otherwise need many buckets.
    pub(crate) fn reset_with(&mut self, window: f64, per_unit: f64) {
        // Only the buckets the last search could have used hold entries.
        let used = (self.high.wrapping_sub(self.current).min(self.mask) + 1).min(self.buckets.len());
        for k in 0..used {
            self.buckets[self.current.wrapping_add(k) & self.mask].clear();
        }
        debug_assert!(self.buckets.iter().all(Vec::is_empty), "a bucket outside the used range");
        #[expect(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "a small positive count")]
        let needed = ((window * per_unit).ceil() as usize + 2).next_power_of_two();
        if self.buckets.len() < needed {
            self.buckets.resize_with(needed, Vec::new);
        }
        self.stack.clear();
        self.mask = needed - 1;
        self.per_unit = per_unit;
        self.high = 0;
        self.current = 0;
        self.len = 0;
        self.peak = 0;
    }

    /// [`BucketQueue::reset_with`] for a search whose edges may cross the map (JPS's jumps, a
    /// subgoal graph's edges) with a consistent estimate: `f` never falls and grows along an
    /// edge by at most twice its cost, at most (√2 + 1) × `side` (a diagonal run and a straight
    /// one off it; `side`: the longer side of the map, times the largest step cost on terrain).
    /// Wide buckets keep their number low.
    pub(crate) fn reset_for_long_edges(&mut self, side: f64) {
        self.reset_with(2.0 * (crate::grid::SQRT2 + 1.0) * side + 2.0, LONG_EDGE_BUCKETS_PER_UNIT);
    }

    /// Largest length since the last reset.
    pub(crate) fn peak(&self) -> usize {
        self.peak
    }

    #[inline(always)]
    pub(crate) fn push(&mut self, entry: Entry) {
        // Via i64: one instruction, where a float-to-u64 conversion needs a branchy sequence.
        #[expect(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "f is finite and >= 0")]
        let mut b = (entry.f * self.per_unit) as i64 as usize;
        if self.len == 0 {
            // Empty: restart the window here.
            self.current = b;
            self.high = b;
        }
        // Float noise may put f a hair below the last pop; the buckets before the current one
        // are all empty, so the current bucket is the right place.
        b = b.max(self.current);
        debug_assert!(b - self.current <= self.mask, "push outside the monotone window");
        if b == self.current {
            match self.stack.last() {
                Some(top) if top.before(&entry) => {
                    binary::push(&mut self.buckets[b & self.mask], entry);
                }
                _ => self.stack.push(entry),
            }
        } else {
            self.buckets[b & self.mask].push(entry);
            self.high = self.high.max(b);
        }
        self.len += 1;
        self.peak = self.peak.max(self.len);
    }

    #[inline]
    pub(crate) fn pop(&mut self) -> Option<Entry> {
        self.pop_live(|_| true)
    }

    /// Like [`BucketQueue::pop`], first dropping the entries of a bucket that are no longer
    /// `live` (their cell was closed meanwhile) when the bucket becomes current: fewer to sort.
    #[inline]
    pub(crate) fn pop_live(&mut self, live: impl Fn(&Entry) -> bool) -> Option<Entry> {
        loop {
            if self.len == 0 {
                return None;
            }
            let heap = &mut self.buckets[self.current & self.mask];
            match (self.stack.last(), heap.first()) {
                (Some(s), Some(h)) => {
                    self.len -= 1;
                    return if h.before(s) { binary::pop(heap) } else { self.stack.pop() };
                }
                (Some(_), None) => {
                    self.len -= 1;
                    return self.stack.pop();
                }
                (None, Some(_)) => {
                    self.len -= 1;
                    return binary::pop(heap);
                }
                (None, None) => {
                    // Next bucket: sorted once, best last, it becomes the stack. Pushes while
                    // it is current are mostly children on the plateau of equal `f`, each
                    // better than everything left, so they stay on the stack too.
                    self.current += 1;
                    let next = &mut self.buckets[self.current & self.mask];
                    if next.is_empty() {
                        // Most buckets between a long jump's `f` and the next are empty (a
                        // maze's routes run far above the octile estimate): step on without
                        // the calls below, which were a tenth of a wide maze's JPS query.
                        continue;
                    }
                    let before = next.len();
                    next.retain(&live);
                    self.len -= before - next.len();
                    next.sort_unstable_by(Entry::worse_first);
                    // Copied rather than swapped, so that every vector keeps its capacity
                    // and repeated queries allocate nothing.
                    self.stack.extend_from_slice(next);
                    next.clear();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heap_pops_in_f_then_h_order() {
        let mut open = OpenList::default();
        for (f, h, cell) in [(3.0, 1.0, 0), (1.0, 0.5, 1), (3.0, 0.0, 2), (2.0, 2.0, 3), (1.0, 0.2, 4)] {
            open.push(Entry { f, h, cell });
        }
        let order: Vec<u32> = std::iter::from_fn(|| open.pop()).map(|e| e.cell).collect();
        assert_eq!(order, vec![4, 1, 3, 2, 0], "lower f first, then lower h");
    }

    fn state_index(r: f64) -> usize {
        usize::from(r >= 0.2) + usize::from(r >= 0.4) + usize::from(r >= 0.6) + usize::from(r >= 0.8)
    }

    #[test]
    fn bucket_queue_pops_exactly_like_the_heap() {
        // A monotone sequence of pushes interleaved with pops, as a search makes them.
        let mut heap = OpenList::default();
        let mut buckets = BucketQueue::default();
        buckets.reset(3.0);
        let mut state = 12345u64;
        let mut rnd = move || {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            f64::from(u32::try_from(state >> 33).unwrap_or(0)) / f64::from(1u32 << 31)
        };
        let mut floor = 10.0;
        let mut cell = 0;
        for _ in 0..2000 {
            for _ in 0..3 {
                // f within [floor, floor + 2.9], on a coarse grid so ties happen.
                let f = floor + (rnd() * 2.9 * 4.0).floor() / 4.0;
                let h = [0.0, 1.0, 2.5, 3.0, 7.0][state_index(rnd())];
                let e = Entry { f, h, cell };
                cell += 1;
                heap.push(e);
                buckets.push(e);
            }
            let (a, b) = (heap.pop().unwrap(), buckets.pop().unwrap());
            assert_eq!((a.f, a.h), (b.f, b.h), "same order as the heap");
            floor = a.f;
        }
        assert_eq!(Frontier::len(&heap), Frontier::len(&buckets));
    }

    #[test]
    fn bucket_queue_drops_dead_entries_and_keeps_the_order_of_the_rest() {
        // Monotone pushes as a search makes them: plateau children (same f), and later buckets.
        // Odd cells are dead (closed meanwhile); a search skips them whichever list gave them.
        let mut heap = OpenList::default();
        let mut buckets = BucketQueue::default();
        buckets.reset(3.0);
        let live = |e: &Entry| e.cell.is_multiple_of(2);
        let mut cell = 0u16;
        let mut floor = 5.0;
        for _ in 0..300 {
            for (df, h) in [(0.0, 9.0), (0.0, 8.0), (0.59, 7.0), (1.41, 1.0), (0.0, 3.0)] {
                // Distinct keys, so that the heap and the buckets agree on every cell.
                let e = Entry { f: floor + df, h: h - 0.001 * f32::from(cell), cell: u32::from(cell) };
                cell += 1;
                heap.push(e);
                buckets.push(e);
            }
            for _ in 0..2 {
                let want = std::iter::from_fn(|| heap.pop()).find(live);
                let got = std::iter::from_fn(|| buckets.pop_live(live)).find(live);
                assert_eq!(want.map(|e| (e.f, e.h)), got.map(|e| (e.f, e.h)), "same live order as the heap");
                if let Some(e) = want {
                    floor = e.f;
                }
            }
        }
    }
}
