//! The shared Moving AI benchmark data: every `arena` scenario and one mid-size map must match
//! the published optimal lengths (absolute tolerance 0.01, as GPPC checks) with legal paths.

mod common;

use gridpath::formats::{map_path_for_scen, parse_map_bytes, parse_scen};
use gridpath::{Algorithm, Rules, Searcher, Settings};

fn check(scen_rel: &str, algorithms: &[Algorithm]) {
    check_with(scen_rel, algorithms, true);
}

/// `check` with JPS reading the grid's jump bits or not.
fn check_with(scen_rel: &str, algorithms: &[Algorithm], jump_bits: bool) {
    let scen_path = common::movingai_dir().join(scen_rel);
    let text = std::fs::read_to_string(&scen_path).unwrap_or_else(|e| {
        panic!("{}: {e} (the shared benchmark folder must sit beside the repo)", scen_path.display())
    });
    let scenarios = parse_scen(&text).unwrap();
    let grid = parse_map_bytes(&std::fs::read(map_path_for_scen(&scen_path)).unwrap()).unwrap().grid;
    let mut searcher = Searcher::new();
    searcher.set_jump_bits(jump_bits);
    for &algorithm in algorithms {
        let settings = Settings::with_algorithm(algorithm);
        for (n, s) in scenarios.iter().enumerate() {
            let path = searcher
                .find_path(&grid, s.start, s.goal, &settings)
                .unwrap_or_else(|e| panic!("{scen_rel} #{n} {algorithm}: {e}"));
            let legal = grid.path_cost(&path.cells, Rules::OCTILE);
            assert!(legal.is_ok(), "{scen_rel} #{n} {algorithm}: illegal path {legal:?}");
            assert!(
                (path.cost - s.optimal).abs() <= 0.01,
                "{scen_rel} #{n} {algorithm}: length {} but published optimum {}",
                path.cost,
                s.optimal
            );
        }
    }
}

#[test]
fn arena_all_scenarios_are_optimal() {
    check(
        "dao/arena.map.scen",
        &[Algorithm::AStar, Algorithm::Dijkstra, Algorithm::Jps, Algorithm::Bidirectional],
    );
}

#[test]
fn lak303d_all_scenarios_are_optimal() {
    check("dao/lak303d.map.scen", &[Algorithm::AStar, Algorithm::Jps]);
}

#[test]
fn jps_without_jump_bits_is_optimal_too() {
    check_with("dao/lak303d.map.scen", &[Algorithm::Jps], false);
    check_with("wc3maps512/moonglade.map.scen", &[Algorithm::Jps], false);
}

#[test]
fn moonglade_water_and_trees_scenarios_are_optimal() {
    // 12 queries start in water and 8 in trees: the terrain-class rule must hold.
    check("wc3maps512/moonglade.map.scen", &[Algorithm::Jps]);
}

/// Weighted A* on the shared maps: every cell is expanded at most once (so a search never
/// expands more cells than the map has open), and every route costs at most `w` times the
/// published optimum. A sample of each map's scenarios (every 25th) keeps the test short.
#[test]
fn weighted_astar_expands_each_cell_at_most_once_and_stays_within_its_bound() {
    let dir = common::movingai_dir();
    let mut scen_paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| {
            panic!("{}: {e} (the shared benchmark folder must sit beside the repo)", dir.display())
        })
        .flatten()
        .filter(|set| set.path().is_dir())
        .flat_map(|set| std::fs::read_dir(set.path()).into_iter().flatten().flatten())
        .map(|entry| entry.path())
        .filter(|path| path.to_string_lossy().ends_with(".map.scen"))
        .collect();
    scen_paths.sort();
    assert!(scen_paths.len() >= 10, "expected the shared Moving AI maps, found {}", scen_paths.len());
    let mut searcher = Searcher::new();
    let mut checked = 0;
    for scen_path in &scen_paths {
        let scenarios = parse_scen(&std::fs::read_to_string(scen_path).unwrap()).unwrap();
        let grid = parse_map_bytes(&std::fs::read(map_path_for_scen(scen_path)).unwrap()).unwrap().grid;
        let open = grid.positions().filter(|&p| grid.is_passable(p)).count() as u64;
        for weight in [1.5, 2.0, 5.0] {
            let settings = Settings { weight, ..Settings::with_algorithm(Algorithm::AStar) };
            for (n, s) in scenarios.iter().enumerate().step_by(25) {
                let name = format!("{} #{n} A* x{weight}", scen_path.display());
                let path = searcher
                    .find_path(&grid, s.start, s.goal, &settings)
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                assert!(grid.path_cost(&path.cells, Rules::OCTILE).is_ok(), "{name}: illegal path");
                assert!(
                    path.stats.expanded <= open,
                    "{name}: expanded {} cells on a map of {open} open cells: a cell was expanded twice",
                    path.stats.expanded
                );
                assert!(
                    path.cost <= weight * s.optimal + 0.01,
                    "{name}: cost {} is over {weight} x the published optimum {}",
                    path.cost,
                    s.optimal
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "only {checked} weighted searches were checked");
}

/// JPS's corners, written from its jump points, on real maps (maze512-16's long corridors and
/// diagonal skips, moonglade's terrain classes): the corners of the cell route of the same
/// query, and so the same length. Every 10th scenario.
#[test]
fn jps_corners_are_the_turns_of_its_cell_routes() {
    for scen_rel in ["mazes/maze512-16-0.map.scen", "wc3maps512/moonglade.map.scen"] {
        let scen_path = common::movingai_dir().join(scen_rel);
        let scenarios = parse_scen(&std::fs::read_to_string(&scen_path).unwrap()).unwrap();
        let grid = parse_map_bytes(&std::fs::read(map_path_for_scen(&scen_path)).unwrap()).unwrap().grid;
        let settings = Settings::with_algorithm(Algorithm::Jps);
        let (mut searcher, mut cells, mut corners) = (Searcher::new(), Vec::new(), Vec::new());
        for (n, s) in scenarios.iter().enumerate().step_by(10) {
            let (cost, ..) = searcher.find_path_into(&grid, s.start, s.goal, &settings, &mut cells).unwrap();
            let (turned, ..) =
                searcher.find_corners_into(&grid, s.start, s.goal, &settings, &mut corners).unwrap();
            assert_eq!(corners, gridpath::sight::corners(&cells), "{scen_rel} #{n}");
            assert!((cost - turned).abs() < 1e-9 && (cost - s.optimal).abs() <= 0.01, "{scen_rel} #{n}");
        }
    }
}
