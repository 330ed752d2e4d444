//! Checks the `wc3maps512` scenarios' published optimal lengths against shortest paths on the
//! 2007 `octile-corner` maps they were made on, read by [`gridpath::formats::parse_octile_corner`].
//!
//! ```sh
//! mkdir -p /tmp/wc3-2007/maps /tmp/wc3-2007/scen
//! # hog2 at bddf397a: maps/wc3maps/*.map -> maps/, HEAD: scenarios/wc3maps512/*.map.scen -> scen/
//! cargo run --release -p gridpath --example wc3_2007_check -- /tmp/wc3-2007/maps /tmp/wc3-2007/scen
//! ```
//!
//! For every `NAME.map.scen` in the scenario folder, `NAME.map` is read from the map folder and
//! scaled to the size the scenarios state; each query is answered by a plain Dijkstra written
//! here (octile costs: 1 cardinal, √2 diagonal) over the tiles and cut masks, and matches when
//! it rounds to the published length, which has 2 decimals (within 0.005). Printed: per map
//! `NAME: matched M of N` with the first few mismatches, then the total and the largest
//! difference among the matches. Exit status 1 unless every query matches.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::{Path, PathBuf};

use gridpath::formats::{CORNER_DIRECTIONS, CornerMap, Scenario, parse_octile_corner, parse_scen};
use gridpath::{SQRT2, Tile};

/// Dijkstra with reusable buffers (a generation stamp per cell instead of clearing).
struct Dijkstra {
    dist: Vec<f64>,
    stamp: Vec<u32>,
    generation: u32,
    heap: BinaryHeap<Reverse<(u64, u32)>>,
}

fn class(t: Tile) -> u8 {
    match t {
        Tile::Wall => 0,
        Tile::Water { .. } => 1,
        Tile::Ground { .. } => 2,
        Tile::Trees { .. } => 3,
    }
}

impl Dijkstra {
    fn new(cells: usize) -> Self {
        Self { dist: vec![0.0; cells], stamp: vec![0; cells], generation: 0, heap: BinaryHeap::new() }
    }

    /// The shortest octile distance from `start` to `goal`, `None` when unreachable. A step
    /// is legal when both cells are passable and of one class, for a diagonal the two
    /// orthogonal cells too (no corner cutting), and its cut bit is clear.
    fn distance(&mut self, map: &CornerMap, start: (u32, u32), goal: (u32, u32)) -> Option<f64> {
        let (w, h) = (map.width as usize, map.height as usize);
        let idx = |x: u32, y: u32| y as usize * w + x as usize;
        let (s, g) = (idx(start.0, start.1), idx(goal.0, goal.1));
        if class(map.tiles[s]) == 0 || class(map.tiles[g]) == 0 {
            return None;
        }
        self.generation += 1;
        self.heap.clear();
        self.dist[s] = 0.0;
        self.stamp[s] = self.generation;
        self.heap.push(Reverse((0f64.to_bits(), s as u32)));
        while let Some(Reverse((bits, i))) = self.heap.pop() {
            let d = f64::from_bits(bits);
            let i = i as usize;
            if d > self.dist[i] {
                continue;
            }
            if i == g {
                return Some(d);
            }
            let (x, y) = (i % w, i / w);
            let c = class(map.tiles[i]);
            let cuts = map.cuts[i];
            for (k, &(dx, dy)) in CORNER_DIRECTIONS.iter().enumerate() {
                if cuts & (1 << k) != 0 {
                    continue;
                }
                let (nx, ny) = (x as i64 + i64::from(dx), y as i64 + i64::from(dy));
                if nx < 0 || ny < 0 || nx >= w as i64 || ny >= h as i64 {
                    continue;
                }
                let (nx, ny) = (nx as usize, ny as usize);
                let j = ny * w + nx;
                if class(map.tiles[j]) != c {
                    continue;
                }
                let diagonal = dx != 0 && dy != 0;
                if diagonal && (class(map.tiles[y * w + nx]) != c || class(map.tiles[ny * w + x]) != c) {
                    continue;
                }
                let nd = d + if diagonal { SQRT2 } else { 1.0 };
                if self.stamp[j] != self.generation || nd < self.dist[j] {
                    self.stamp[j] = self.generation;
                    self.dist[j] = nd;
                    self.heap.push(Reverse((nd.to_bits(), j as u32)));
                }
            }
        }
        None
    }
}

/// Published lengths are rounded to 2 decimals: a match is within half a unit of the last one.
const TOLERANCE: f64 = 0.005 + 1e-9;

/// Per map: the number of matches, the largest difference among them, the mismatches.
fn check_map(map_path: &Path, queries: &[Scenario]) -> Result<(usize, f64, Vec<String>), String> {
    let text = std::fs::read_to_string(map_path).map_err(|e| format!("{}: {e}", map_path.display()))?;
    let (w, h) = queries.first().map_or((512, 512), |q| (q.width, q.height));
    let map = parse_octile_corner(&text, w, h).map_err(|e| format!("{}: {e}", map_path.display()))?;
    let mut search = Dijkstra::new(map.tiles.len());
    let mut matched = 0;
    let mut worst = 0f64;
    let mut misses = Vec::new();
    for q in queries {
        if (q.width, q.height) != (w, h) {
            return Err(format!("{}: queries state different map sizes", map_path.display()));
        }
        let got = search.distance(&map, (q.start.x, q.start.y), (q.goal.x, q.goal.y));
        if let Some(d) = got.filter(|d| (d - q.optimal).abs() <= TOLERANCE) {
            matched += 1;
            worst = worst.max((d - q.optimal).abs());
        } else {
            misses.push(format!(
                "  bucket {} ({},{}) -> ({},{}): published {:.2}, found {}",
                q.bucket,
                q.start.x,
                q.start.y,
                q.goal.x,
                q.goal.y,
                q.optimal,
                got.map_or_else(|| "no path".to_string(), |d| format!("{d:.4}"))
            ));
        }
    }
    Ok((matched, worst, misses))
}

fn main() {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [maps, scens] = args.as_slice() else {
        eprintln!("usage: wc3_2007_check MAP_FOLDER SCEN_FOLDER");
        std::process::exit(2);
    };
    let mut files: Vec<PathBuf> = match std::fs::read_dir(scens) {
        Ok(dir) => dir
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "scen"))
            .collect(),
        Err(e) => {
            eprintln!("{}: {e}", scens.display());
            std::process::exit(2);
        }
    };
    files.sort();
    let (mut total_matched, mut total, mut failed_maps, mut worst) = (0, 0, 0, 0f64);
    for scen_path in &files {
        let name = scen_path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let name = name.strip_suffix(".scen").unwrap_or(name);
        let queries = match std::fs::read_to_string(scen_path)
            .map_err(|e| e.to_string())
            .and_then(|t| parse_scen(&t).map_err(|e| e.to_string()))
        {
            Ok(q) => q,
            Err(e) => {
                eprintln!("{}: {e}", scen_path.display());
                failed_maps += 1;
                continue;
            }
        };
        total += queries.len();
        match check_map(&maps.join(name), &queries) {
            Ok((matched, map_worst, misses)) => {
                worst = worst.max(map_worst);
                let label = name.strip_suffix(".map").unwrap_or(name);
                println!("{label}: matched {matched} of {}", queries.len());
                for m in misses.iter().take(5) {
                    println!("{m}");
                }
                total_matched += matched;
                if matched < queries.len() {
                    failed_maps += 1;
                }
            }
            Err(e) => {
                eprintln!("{e}");
                failed_maps += 1;
            }
        }
    }
    println!(
        "total: matched {total_matched} of {total} on {} maps ({failed_maps} with mismatches); \
         largest difference in a match {worst:.6}",
        files.len()
    );
    if total_matched < total || failed_maps > 0 {
        std::process::exit(1);
    }
}
