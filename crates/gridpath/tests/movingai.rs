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
