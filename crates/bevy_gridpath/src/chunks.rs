//! Per-unit work split over the cores: the avoidance phases and the followers' wishes of every
//! frame (the plugin's and any game's that steers units of its own the same way).
//!
//! *Why not one task per chunk.* Spawning a task wakes a sleeping pool thread, and on a small
//! machine that costs tens of microseconds each before any work starts; the thread that opened
//! the scope waited meanwhile, and a chunk finished late left the others idle. On 2 cores, a
//! 10,000-unit frame's four phases lost ~0.45 ms so, of ~4 ms. Here the calling thread starts on
//! the first chunk at once, one helper per other core joins it, and each takes the next chunk
//! nobody has taken: no more threads than cores, and small chunks balance the load.

use std::panic::AssertUnwindSafe;
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Mutex, OnceLock, PoisonError};

use bevy::tasks::{ComputeTaskPool, TaskPool};

/// Runs `work` over `items` in chunks of `chunk` items (the last may be shorter), on the calling
/// thread and on up to one compute-pool thread per other core, each taking the next chunk not yet
/// taken. `work` gets each chunk's first index; the chunks' results come back in chunk order.
/// Which thread runs a chunk never changes what it returns: the chunks are the same on every
/// machine.
///
/// ```
/// let mut squares: Vec<u64> = (0..1000).collect();
/// let sums = bevy_gridpath::map_chunks(&mut squares, 100, |first, chunk| {
///     chunk.iter_mut().for_each(|n| *n *= *n);
///     first
/// });
/// assert_eq!(sums, (0..10).map(|k| k * 100).collect::<Vec<_>>());
/// assert_eq!(squares[999], 999 * 999);
/// ```
pub fn map_chunks<T: Send, R: Send>(
    items: &mut [T],
    chunk: usize,
    work: impl Fn(usize, &mut [T]) -> R + Sync,
) -> Vec<R> {
    let chunk = chunk.max(1);
    let count = items.len().div_ceil(chunk);
    let pool = ComputeTaskPool::get_or_init(TaskPool::default);
    let helpers = pool.thread_num().min(cores() - 1).min(count.saturating_sub(1));
    if helpers == 0 {
        return items.chunks_mut(chunk).enumerate().map(|(k, part)| work(k * chunk, part)).collect();
    }
    // Each chunk and each result is taken or put once, by whoever drew its number: the locks
    // are never contended, they only make the hand-over safe.
    let parts: Vec<Mutex<Option<&mut [T]>>> =
        items.chunks_mut(chunk).map(|part| Mutex::new(Some(part))).collect();
    let results: Vec<Mutex<Option<R>>> = (0..count).map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let take_chunks = || {
        loop {
            let k = next.fetch_add(1, Relaxed);
            let Some(part) = parts.get(k) else { break };
            let Some(part) = part.lock().unwrap_or_else(PoisonError::into_inner).take() else { continue };
            let result = work(k * chunk, part);
            *results[k].lock().unwrap_or_else(PoisonError::into_inner) = Some(result);
        }
    };
    let take_chunks = &take_chunks;
    let mut here = Ok(());
    pool.scope(|scope| {
        for _ in 0..helpers {
            scope.spawn(async move { take_chunks() });
        }
        // Here at once, while the helpers wake up. A panic waits for the helpers to finish
        // (they borrow what this frame owns) and goes on from there.
        here = std::panic::catch_unwind(AssertUnwindSafe(take_chunks));
    });
    if let Err(panic) = here {
        std::panic::resume_unwind(panic);
    }
    results
        .into_iter()
        .map(|result| {
            result
                .into_inner()
                .unwrap_or_else(PoisonError::into_inner)
                .expect("every chunk was taken and worked (a panic in one ends the scope)")
        })
        .collect()
}

/// The cores this process may run on, read once (on Linux the answer comes from the cgroup
/// files: too dear to read every frame).
fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, std::num::NonZero::get))
}

#[cfg(test)]
mod tests {
    use super::map_chunks;

    #[test]
    fn every_chunk_is_worked_once_in_order_whatever_its_size() {
        for (len, chunk) in [(0, 4), (1, 4), (5, 0), (1000, 7), (1000, 1000), (1000, 5000)] {
            let mut items = vec![0_u32; len];
            let firsts = map_chunks(&mut items, chunk, |first, part| {
                part.iter_mut().for_each(|n| *n += 1);
                (first, part.len())
            });
            assert!(items.iter().all(|&n| n == 1), "{len} items in chunks of {chunk}: each worked once");
            let expected: Vec<(usize, usize)> =
                (0..len).step_by(chunk.max(1)).map(|first| (first, chunk.max(1).min(len - first))).collect();
            assert_eq!(firsts, expected, "{len} items in chunks of {chunk}");
        }
    }

    #[test]
    fn a_panic_in_a_chunk_reaches_the_caller_and_the_next_call_works() {
        let mut items = vec![0_u32; 100];
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            map_chunks(&mut items, 10, |first, _| assert!(first != 50, "chunk at 50"))
        }));
        assert!(caught.is_err());
        assert_eq!(map_chunks(&mut items, 10, |first, _| first).len(), 10);
    }
}
