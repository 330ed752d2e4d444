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
    // The chunks are handed out in turn under one lock (a few dozen a frame: it is never held
    // long); each result is put once, in its chunk's place.
    let parts = Mutex::new(items.chunks_mut(chunk).enumerate());
    let results: Vec<Mutex<Option<R>>> = (0..count).map(|_| Mutex::new(None)).collect();
    let take_chunks = || {
        loop {
            // Its own statement: the lock is let go before the work starts.
            let next = parts.lock().unwrap_or_else(PoisonError::into_inner).next();
            let Some((k, part)) = next else { break };
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
