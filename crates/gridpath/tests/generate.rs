//! Seeded map generators: deterministic, connected where promised, every size.

use std::collections::VecDeque;

use gridpath::generate::{Generator, generate, pick_endpoints};
use gridpath::{Algorithm, Grid, Pos, Rules, Searcher, Settings, Tile};

fn open_cells(grid: &Grid) -> usize {
    grid.positions().filter(|&p| grid.is_passable(p)).count()
}

/// Open cells reachable from `from` by 4-neighbour steps (a plain flood fill).
fn flood(grid: &Grid, from: Pos) -> usize {
    let mut seen = vec![false; grid.len()];
    let idx = |p: Pos| (p.y * grid.width() + p.x) as usize;
    let mut queue = VecDeque::from([from]);
    seen[idx(from)] = true;
    let mut count = 0;
    while let Some(p) = queue.pop_front() {
        count += 1;
        let (x, y) = (i64::from(p.x), i64::from(p.y));
        for (nx, ny) in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)] {
            let (Ok(nx), Ok(ny)) = (u32::try_from(nx), u32::try_from(ny)) else { continue };
            let q = Pos::new(nx, ny);
            if grid.is_passable(q) && !seen[idx(q)] {
                seen[idx(q)] = true;
                queue.push_back(q);
            }
        }
    }
    count
}

/// Every open cell is reachable from the first one.
fn assert_connected(grid: &Grid, what: &str) {
    let first =
        grid.positions().find(|&p| grid.is_passable(p)).unwrap_or_else(|| panic!("{what}: no open cell"));
    assert_eq!(flood(grid, first), open_cells(grid), "{what}: every open cell must be 4-connected");
}

const SIZES: [(u32, u32); 9] =
    [(1, 1), (2, 3), (3, 2), (1, 40), (40, 1), (5, 5), (7, 12), (64, 48), (101, 99)];

#[test]
fn the_same_seed_gives_the_same_map_and_other_seeds_differ() {
    for g in Generator::ALL {
        let a = generate(g, 60, 40, 42).unwrap();
        let b = generate(g, 60, 40, 42).unwrap();
        assert!(a == b, "{}: seed 42 twice must give one map", g.name());
        let others = (43..48).filter(|&s| generate(g, 60, 40, s).unwrap() != a).count();
        assert_eq!(others, 5, "{}: five other seeds must give five other maps", g.name());
    }
}

#[test]
fn a_seed_gives_these_exact_maps() {
    // Pinned outputs: a change here means saved seeds no longer reproduce their maps.
    let text = |g| gridpath::formats::write_movingai(&generate(g, 12, 5, 2024).unwrap());
    let rows = |t: String| t.lines().skip(4).collect::<Vec<_>>().join("\n");
    assert_eq!(
        rows(text(Generator::Maze { corridor: 1 })),
        "...@.......@\n.@.@@@@@.@.@\n.@...@...@.@\n.@@@.@.@@@.@\n...@...@...@",
        "maze 12x5 seed 2024"
    );
    assert_eq!(
        rows(text(Generator::Noise { density: 0.3 })),
        "@.....@.....\n........@...\n.@.@...@....\n.........@.@\n.@..@.@.@...",
        "noise 12x5 seed 2024"
    );
}

#[test]
fn generated_maps_have_the_move_masks_of_cell_by_cell_edits() {
    // The generators set cells without masks and compute them in one pass; the same cells set
    // one by one through the public `set_tile` (which keeps masks and bit planes current) give
    // an identical grid, masks, bit planes and revision included.
    for g in Generator::ALL {
        for (w, h) in [(1, 1), (7, 5), (70, 66)] {
            let grid = generate(g, w, h, 11).unwrap();
            let mut by_hand = Grid::filled(w, h, Tile::Wall).unwrap();
            for p in grid.positions() {
                if grid.tile(p) == Some(Tile::FLOOR) {
                    by_hand.set_tile(p, Tile::FLOOR).unwrap();
                }
            }
            assert!(by_hand == grid, "{} {w}x{h}: masks differ from cell-by-cell edits", g.name());
        }
    }
}

#[test]
fn noise_density_is_within_tolerance() {
    for density in [0.0, 0.1, 0.25, 0.4, 1.0] {
        let grid = generate(Generator::Noise { density }, 200, 200, 9).unwrap();
        #[expect(clippy::cast_precision_loss, reason = "small counts")]
        let walls = (grid.len() - open_cells(&grid)) as f64 / grid.len() as f64;
        // 40 000 cells: the standard deviation of the share is at most 0.0025.
        assert!((walls - density).abs() < 0.015, "density {density}: got {walls}");
    }
    // Out-of-range densities are clamped rather than refused.
    let grid = generate(Generator::Noise { density: 7.0 }, 10, 10, 1).unwrap();
    assert_eq!(open_cells(&grid), 0);
    let grid = generate(Generator::Noise { density: f64::NAN }, 10, 10, 1).unwrap();
    assert_eq!(open_cells(&grid), 100);
}

#[test]
fn mazes_are_perfect_with_the_asked_corridor_width() {
    for corridor in 1..=4u32 {
        for (w, h) in [(41, 31), (40, 30), (17, 9), (200, 120)] {
            let grid = generate(Generator::Maze { corridor }, w, h, u64::from(corridor)).unwrap();
            let what = format!("maze {w}x{h} corridor {corridor}");
            let (c, pitch) = (corridor, corridor + 1);
            let (nx, ny) = ((w - c) / pitch + 1, (h - c) / pitch + 1);
            let blocks = (nx * ny) as usize;
            // A spanning tree: every block open (c × c cells) plus one c-cell gap per tree edge.
            assert_eq!(
                open_cells(&grid),
                blocks * (c * c) as usize + (blocks - 1) * c as usize,
                "{what}: open cells of a perfect maze"
            );
            assert_connected(&grid, &what);
            for p in grid.positions() {
                let (on_x, on_y) = (p.x % pitch == c, p.y % pitch == c);
                let beyond = p.x >= nx * pitch - 1 || p.y >= ny * pitch - 1;
                let open = grid.is_passable(p);
                if beyond || (on_x && on_y) {
                    assert!(!open, "{what}: {p} lies on a wall-line crossing or past the last block");
                } else if !on_x && !on_y {
                    assert!(open, "{what}: {p} is inside a block and must be open");
                } else {
                    // A wall-line cell between two blocks: its whole c-cell gap is open or none is.
                    let gap_start = if on_x {
                        Pos::new(p.x, p.y - p.y % pitch)
                    } else {
                        Pos::new(p.x - p.x % pitch, p.y)
                    };
                    let gap: Vec<bool> = (0..c)
                        .map(|i| {
                            let q = if on_x {
                                Pos::new(gap_start.x, gap_start.y + i)
                            } else {
                                Pos::new(gap_start.x + i, gap_start.y)
                            };
                            grid.is_passable(q)
                        })
                        .collect();
                    assert!(gap.iter().all(|&o| o == open), "{what}: the gap at {p} must be {c} cells wide");
                }
            }
        }
    }
}

#[test]
fn rooms_and_caves_are_connected() {
    for g in [Generator::Rooms, Generator::Caves] {
        for seed in 0..8 {
            for (w, h) in SIZES {
                let grid = generate(g, w, h, seed).unwrap();
                assert_connected(&grid, &format!("{} {w}x{h} seed {seed}", g.name()));
            }
        }
        let grid = generate(g, 120, 80, 5).unwrap();
        let share = open_cells(&grid) * 100 / grid.len();
        assert!(share >= 15, "{}: a 120x80 map should be at least 15 % open, got {share} %", g.name());
    }
}

#[test]
fn every_size_from_tiny_to_1024_works() {
    for g in [
        Generator::Noise { density: 0.3 },
        Generator::Maze { corridor: 3 },
        Generator::Rooms,
        Generator::Caves,
    ] {
        for (w, h) in SIZES.into_iter().chain([(1024, 1024)]) {
            let grid = generate(g, w, h, 11).unwrap();
            assert_eq!((grid.width(), grid.height()), (w, h));
            assert!(
                grid.positions().all(|p| matches!(grid.tile(p), Some(Tile::Wall | Tile::Ground { cost: 1 })))
            );
        }
    }
    assert!(generate(Generator::Caves, 0, 5, 1).is_err());
    assert!(generate(Generator::Rooms, 5, 8193, 1).is_err());
}

#[test]
fn picked_endpoints_are_joined_by_a_path() {
    let mut searcher = Searcher::new();
    for g in Generator::ALL {
        for seed in 0..6 {
            let grid = generate(g, 50, 30, seed).unwrap();
            let Some((start, goal)) = pick_endpoints(&grid) else {
                panic!("{} seed {seed}: the map has open cells", g.name());
            };
            let settings = Settings { rules: Rules::FOUR, ..Settings::with_algorithm(Algorithm::AStar) };
            assert!(
                searcher.find_path(&grid, start, goal, &settings).is_ok(),
                "{} seed {seed}: {start} to {goal} must be joined",
                g.name()
            );
            assert!(start.x + start.y < goal.x + goal.y, "{}: start top-left of goal", g.name());
        }
    }
    // Endpoints stay within one terrain class, and an all-wall map has none.
    let mut grid = Grid::filled(4, 1, Tile::Water { cost: 1 }).unwrap();
    grid.set_tile(Pos::new(0, 0), Tile::FLOOR).unwrap();
    assert_eq!(pick_endpoints(&grid), Some((Pos::new(1, 0), Pos::new(3, 0))));
    assert_eq!(pick_endpoints(&Grid::filled(3, 3, Tile::Wall).unwrap()), None);
}

#[test]
fn names_round_trip() {
    for g in Generator::ALL {
        assert_eq!(Generator::from_name(g.name()), Some(g));
    }
    assert_eq!(Generator::from_name("lava"), None);
    assert_eq!(Generator::default(), Generator::Caves);
}
