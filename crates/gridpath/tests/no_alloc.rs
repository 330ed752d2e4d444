//! Repeated queries on a reused `Searcher` allocate nothing (checked with a counting allocator).
#![expect(unsafe_code, reason = "a counting global allocator needs an unsafe impl")]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use gridpath::{Algorithm, Grid, Pos, Searcher, Settings};

struct Counting;
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    // Only this test's thread counts: the test harness allocates on its own threads meanwhile.
    static COUNTING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn count() {
    if COUNTING.with(std::cell::Cell::get) {
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
    }
}

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn repeated_queries_allocate_nothing() {
    let mut grid = Grid::new(64, 64).unwrap();
    for y in 5..60 {
        grid.set_wall(Pos::new(30, y), true).unwrap();
    }
    let mut searcher = Searcher::new();
    let mut cells = Vec::new();
    let queries = [
        (Pos::new(0, 63), Pos::new(63, 63)),
        (Pos::new(2, 40), Pos::new(50, 10)),
        (Pos::new(10, 10), Pos::new(60, 60)),
    ];
    for algorithm in Algorithm::ALL {
        let settings = Settings::with_algorithm(algorithm);
        // Warm-up: the workspace grows to the grid's size once.
        for &(a, b) in &queries {
            searcher.find_path_into(&grid, a, b, &settings, &mut cells).unwrap();
        }
        // An edit between queries is allowed and costs nothing either.
        grid.set_wall(Pos::new(30, 62), algorithm == Algorithm::Bfs).unwrap();
        let before = ALLOCATIONS.load(Ordering::SeqCst);
        COUNTING.with(|c| c.set(true));
        for &(a, b) in &queries {
            let found = searcher.find_path_into(&grid, a, b, &settings, &mut cells);
            COUNTING.with(|c| c.set(false));
            assert!(found.is_ok(), "{algorithm}: {found:?}");
            COUNTING.with(|c| c.set(true));
        }
        COUNTING.with(|c| c.set(false));
        let after = ALLOCATIONS.load(Ordering::SeqCst);
        assert_eq!(after - before, 0, "{algorithm}: repeated queries must not allocate");
    }
}
