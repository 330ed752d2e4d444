//! Benchmark scenarios made for any map: bucketed like the Moving AI sets, optimal lengths that
//! our searches reproduce, the same queries for the same seed.

use gridpath::generate::{Generator, generate};
use gridpath::scenarios::{BUCKET_LENGTH, PER_BUCKET, make_scenarios};
use gridpath::{Searcher, Settings, formats};

#[test]
fn generated_scenarios_are_bucketed_distinct_optimal_and_seeded() {
    for (generator, seed) in
        [(Generator::Maze { corridor: 1 }, 3), (Generator::Caves, 4), (Generator::Noise { density: 0.3 }, 5)]
    {
        let grid = generate(generator, 96, 64, seed).unwrap();
        let queries = make_scenarios(&grid, "g.map", 200, seed);
        assert!(queries.len() >= 100, "{generator:?}: {} queries", queries.len());
        assert_eq!(queries, make_scenarios(&grid, "g.map", 200, seed), "the same seed, the same queries");
        let mut searcher = Searcher::new();
        for (i, q) in queries.iter().enumerate() {
            assert!(q.start != q.goal && grid.is_passable(q.start) && grid.is_passable(q.goal));
            assert_eq!(q.bucket, (q.optimal / BUCKET_LENGTH) as u32, "{q:?}");
            assert!(i == 0 || queries[i - 1].bucket <= q.bucket, "sorted by bucket");
            let path = searcher.find_path(&grid, q.start, q.goal, &Settings::default()).unwrap();
            assert!((path.cost - q.optimal).abs() < 1e-6, "{q:?}: A* {}", path.cost);
        }
        let pairs: std::collections::HashSet<_> = queries.iter().map(|q| (q.start, q.goal)).collect();
        assert_eq!(pairs.len(), queries.len(), "no query twice");
        let per_bucket = |b: u32| queries.iter().filter(|q| q.bucket == b).count();
        assert!(queries.iter().all(|q| per_bucket(q.bucket) <= PER_BUCKET));
        let text = formats::write_scen(&queries);
        let back = formats::parse_scen(&text).unwrap();
        for (a, b) in queries.iter().zip(&back) {
            assert!(
                (a.start, a.goal, a.bucket) == (b.start, b.goal, b.bucket)
                    && (a.optimal - b.optimal).abs() < 1e-8
            );
        }
    }
}

#[test]
fn a_map_without_routes_gives_no_queries_and_a_tiny_one_what_it_has() {
    let walls = gridpath::Grid::filled(8, 8, gridpath::Tile::Wall).unwrap();
    assert!(make_scenarios(&walls, "w.map", 50, 1).is_empty());
    let tiny = gridpath::Grid::new(2, 1).unwrap();
    let queries = make_scenarios(&tiny, "t.map", 50, 1);
    assert!(!queries.is_empty() && queries.len() <= PER_BUCKET, "{queries:?}");
}
