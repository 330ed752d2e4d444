//! The open list: a binary min-heap keyed by `(f, h)`.

/// One open-list entry. Stale entries (whose cell has since got a better cost or been closed)
/// stay in the heap and are skipped when popped: cheaper than a decrease-key.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub(crate) f: f64,
    pub(crate) h: f64,
    pub(crate) cell: u32,
}

impl Entry {
    /// `true` when `self` must come out before `other`: lower `f`, then lower `h` (the
    /// tie-break of the Unity tutorial: among equal estimates, the node nearer the goal).
    #[inline(always)]
    fn before(&self, other: &Entry) -> bool {
        self.f < other.f || (self.f == other.f && self.h < other.h)
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
        let heap = &mut self.heap;
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

    pub(crate) fn pop(&mut self) -> Option<Entry> {
        let heap = &mut self.heap;
        let last = heap.pop()?;
        if heap.is_empty() {
            return Some(last);
        }
        let top = heap[0];
        let len = heap.len();
        let mut i = 0;
        loop {
            let left = 2 * i + 1;
            if left >= len {
                break;
            }
            let right = left + 1;
            let child = if right < len && heap[right].before(&heap[left]) { right } else { left };
            if !heap[child].before(&last) {
                break;
            }
            heap[i] = heap[child];
            i = child;
        }
        heap[i] = last;
        Some(top)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_f_then_h_order() {
        let mut open = OpenList::default();
        for (f, h, cell) in [(3.0, 1.0, 0), (1.0, 0.5, 1), (3.0, 0.0, 2), (2.0, 2.0, 3), (1.0, 0.2, 4)] {
            open.push(Entry { f, h, cell });
        }
        let order: Vec<u32> = std::iter::from_fn(|| open.pop()).map(|e| e.cell).collect();
        assert_eq!(order, vec![4, 1, 3, 2, 0], "lower f first, then lower h");
    }
}
