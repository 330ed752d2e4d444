//! `map_chunks`: every chunk worked once and in order, whatever the sizes; panics reach the caller.

use bevy_gridpath::map_chunks;

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
