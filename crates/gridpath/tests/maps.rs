//! Maps in and out: every format's round trip, the shared Moving AI maps, the shipped Tiled map,
//! one `LoadError` per kind of bad file, atomic saves.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use gridpath::formats::{
    self, LoadError, MAX_FILE_BYTES, MapFormat, TmxError, load_map, load_map_bytes, parse_ascii,
    parse_digits, parse_movingai, parse_tilepath, write_ascii, write_atomic, write_digits, write_movingai,
    write_tilepath,
};
use gridpath::{Grid, MAX_COST, Pos, Tile};
use proptest::prelude::*;

fn asset(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets").join(rel)
}

/// Every tile gridpath can hold: the wall and each class at each cost.
fn all_tiles() -> Vec<Tile> {
    let mut tiles = vec![Tile::Wall];
    for cost in 1..=MAX_COST {
        tiles.extend([Tile::Ground { cost }, Tile::Water { cost }, Tile::Trees { cost }]);
    }
    tiles
}

/// The size and every cell, for comparing grids by content (`Grid`'s `==` also compares its edit
/// counter, which differs between grids built by different sequences of edits).
fn contents(grid: &Grid) -> (u32, u32, Vec<Tile>) {
    (grid.width(), grid.height(), grid.positions().map(|p| grid.tile(p).unwrap()).collect())
}

fn grid_of(w: u32, h: u32, cells: &[Tile]) -> Grid {
    let mut grid = Grid::new(w, h).unwrap();
    for (i, p) in grid.positions().collect::<Vec<_>>().into_iter().enumerate() {
        grid.set_tile(p, cells[i % cells.len()]).unwrap();
    }
    grid
}

// ---------------------------------------------------------------------------------------------
// Round trips

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn tpmap_round_trips_any_grid_exactly(
        w in 1u32..20, h in 1u32..20,
        picks in prop::collection::vec(0usize..190, 1..400),
        start in prop::option::of((0u32..20, 0u32..20)),
        goal in prop::option::of((0u32..20, 0u32..20)),
    ) {
        let tiles = all_tiles();
        let cells: Vec<Tile> = picks.iter().map(|&i| tiles[i]).collect();
        let grid = grid_of(w, h, &cells);
        let start = start.map(|(x, y)| Pos::new(x % w, y % h));
        let goal = goal.map(|(x, y)| Pos::new(x % w, y % h));
        let back = parse_tilepath(&write_tilepath(&grid, start, goal)).unwrap();
        prop_assert_eq!(contents(&back.grid), contents(&grid));
        prop_assert_eq!((back.start, back.goal), (start, goal));
    }

    #[test]
    fn movingai_round_trips_the_tiles_it_can_hold(
        w in 1u32..30, h in 1u32..30, picks in prop::collection::vec(0usize..12, 1..200),
    ) {
        let mut tiles = vec![Tile::Wall, Tile::Water { cost: 1 }, Tile::Trees { cost: 1 }];
        tiles.extend((1..=9).map(|cost| Tile::Ground { cost }));
        let cells: Vec<Tile> = picks.iter().map(|&i| tiles[i]).collect();
        let grid = grid_of(w, h, &cells);
        let text = write_movingai(&grid);
        prop_assert_eq!(contents(&parse_movingai(&text).unwrap()), contents(&grid));
        // The front end recognises it too.
        prop_assert_eq!(contents(&load_map_bytes("x.map".as_ref(), text.as_bytes()).unwrap().grid), contents(&grid));
    }

    #[test]
    fn ascii_and_digits_round_trip_walls_start_and_goal(
        w in 1u32..30, h in 1u32..30, walls in prop::collection::vec(any::<bool>(), 1..200),
        start in (0u32..30, 0u32..30), goal in (0u32..30, 0u32..30),
    ) {
        let cells: Vec<Tile> = walls.iter().map(|&b| if b { Tile::Wall } else { Tile::FLOOR }).collect();
        let mut grid = grid_of(w, h, &cells);
        let start = Pos::new(start.0 % w, start.1 % h);
        let goal = Pos::new(goal.0 % w, goal.1 % h);
        prop_assume!(start != goal);
        // The formats mark start and goal on floor cells.
        grid.set_tile(start, Tile::FLOOR).unwrap();
        grid.set_tile(goal, Tile::FLOOR).unwrap();
        for (name, map) in [
            ("ascii", parse_ascii(&write_ascii(&grid, Some(start), Some(goal))).unwrap()),
            ("digits", parse_digits(&write_digits(&grid, Some(start), Some(goal))).unwrap()),
        ] {
            prop_assert_eq!(contents(&map.grid), contents(&grid), "{}", name);
            prop_assert_eq!((map.start, map.goal), (Some(start), Some(goal)), "{}", name);
        }
    }
}

#[test]
fn tpmap_keeps_all_190_tiles_and_the_endpoints() {
    let tiles = all_tiles();
    assert_eq!(tiles.len(), 190, "the wall and 3 classes x 63 costs");
    let grid = grid_of(23, 11, &tiles);
    let text = write_tilepath(&grid, Some(Pos::new(22, 10)), Some(Pos::new(0, 0)));
    assert!(text.starts_with("tilepath 1\nwidth 23\nheight 11\n"), "{text}");
    let back = load_map_bytes("all.tpmap".as_ref(), text.as_bytes()).unwrap();
    assert_eq!(contents(&back.grid), contents(&grid), "every tile must come back");
    assert_eq!((back.start, back.goal), (Some(Pos::new(22, 10)), Some(Pos::new(0, 0))));
}

#[test]
fn map_format_follows_the_extension() {
    let cases = [
        ("a.map", MapFormat::MovingAi),
        ("a.TXT", MapFormat::Ascii),
        ("dir/a.csv", MapFormat::Digits),
        ("a.tpmap", MapFormat::Tilepath),
        ("a.Tmx", MapFormat::Tmx),
    ];
    for (name, format) in cases {
        assert_eq!(MapFormat::from_path(name.as_ref()), Some(format), "{name}");
        assert_eq!(MapFormat::from_path(format!("b.{}", format.extension()).as_ref()), Some(format));
    }
    assert_eq!(MapFormat::from_path("a.png".as_ref()), None);
    assert_eq!(MapFormat::from_path("noext".as_ref()), None);
}

// ---------------------------------------------------------------------------------------------
// The shared Moving AI maps

/// Width, height and per-character counts read straight from the file text, without gridpath.
fn independent_counts(text: &str) -> (u32, u32, [usize; 4]) {
    let mut lines = text.lines().map(|l| l.trim_end_matches('\r'));
    let (mut w, mut h) = (0, 0);
    for line in lines.by_ref() {
        let mut words = line.split_whitespace();
        match (words.next(), words.next()) {
            (Some("width"), Some(v)) => w = v.parse().unwrap(),
            (Some("height"), Some(v)) => h = v.parse().unwrap(),
            (Some("map"), None) => break,
            _ => {}
        }
    }
    // [walls (@ and O), water (W), trees (T), ground (. G S)]
    let mut counts = [0usize; 4];
    for row in lines.take(h as usize) {
        for c in row.chars() {
            match c {
                '@' | 'O' => counts[0] += 1,
                'W' => counts[1] += 1,
                'T' => counts[2] += 1,
                '.' | 'G' | 'S' => counts[3] += 1,
                other => panic!("unexpected character {other:?} in a benchmark map"),
            }
        }
    }
    (w, h, counts)
}

#[test]
fn every_shared_movingai_map_loads_with_its_size_and_walls() {
    let root = common::movingai_dir();
    let mut maps: Vec<PathBuf> = fs::read_dir(&root)
        .unwrap_or_else(|e| {
            panic!("{}: {e} (the shared benchmarks must sit beside the repo)", root.display())
        })
        .flat_map(|set| fs::read_dir(set.unwrap().path()).into_iter().flatten())
        .map(|f| f.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "map"))
        .collect();
    maps.sort();
    assert!(maps.len() >= 20, "expected the 20 shared maps, found {}", maps.len());
    for path in &maps {
        let text = fs::read_to_string(path).unwrap();
        let (w, h, [walls, water, trees, ground]) = independent_counts(&text);
        let map = load_map(path).unwrap_or_else(|e| panic!("{e}"));
        let name = path.display();
        assert_eq!((map.grid.width(), map.grid.height()), (w, h), "{name}: size");
        assert_eq!(walls + water + trees + ground, (w * h) as usize, "{name}: the text has every cell");
        let mut got = [0usize; 4];
        for p in map.grid.positions() {
            let i = match map.grid.tile(p).unwrap() {
                Tile::Wall => 0,
                Tile::Water { cost: 1 } => 1,
                Tile::Trees { cost: 1 } => 2,
                Tile::Ground { cost: 1 } => 3,
                other => panic!("{name}: {other:?} at {p} is not a Moving AI tile"),
            };
            got[i] += 1;
        }
        assert_eq!(got, [walls, water, trees, ground], "{name}: [walls, water, trees, ground]");
        assert_eq!((map.start, map.goal), (None, None), "{name}: Moving AI maps mark no endpoints");
    }
}

// ---------------------------------------------------------------------------------------------
// Tiled

/// The map `assets/maps/tutorial.tmx` was converted from (`gridpath convert`), as tpmap text.
const TUTORIAL: &str = "tilepath 1
width 24
height 14
start 1 1
goal 21 12
legend w ground 10
map
........................
........#.....22222.....
..5555..#....2222222....
..5555..#....2222222....
........#.......#.......
####.####.......#..wwww.
........#.......#..wwww.
..TT....#..######..wwww.
..TT........#......wwww.
............#...........
.....wwwww..#...555.....
.....wwwww..#...555.....
............#...........
........................
";

#[test]
fn the_shipped_tileset_is_the_built_in_one() {
    let shipped = fs::read_to_string(asset("maps/tilepath.tsx")).unwrap();
    assert_eq!(shipped, formats::TILESET_TSX, "assets/maps/tilepath.tsx and TILESET_TSX must not drift");
    assert!(shipped.contains("<image source=\"../tiles.png\" width=\"352\" height=\"32\"/>"));
}

#[test]
fn the_shipped_tmx_is_written_as_tiled_writes_it() {
    let text = fs::read_to_string(asset("maps/tutorial.tmx")).unwrap();
    assert!(text.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<map version=\"1.10\""), "{text}");
    assert!(
        text.contains("orientation=\"orthogonal\" renderorder=\"right-down\" width=\"24\" height=\"14\"")
    );
    assert!(text.contains("<tileset firstgid=\"1\" source=\"tilepath.tsx\"/>"));
    assert!(text.contains("<data encoding=\"csv\">"));
    let expected = parse_tilepath(TUTORIAL).unwrap();
    assert_eq!(
        text,
        formats::write_tmx(&expected.grid, expected.start, expected.goal, "tilepath.tsx"),
        "the shipped map is the writer's output for TUTORIAL"
    );
}

#[cfg(feature = "tiled")]
mod tiled {
    use super::*;
    use gridpath::formats::ParsedMap;

    /// Serves `tilepath.tsx` (the built-in tileset) from memory next to any map.
    fn memory_tileset(p: &Path) -> std::io::Result<Vec<u8>> {
        if p.file_name().is_some_and(|n| n == "tilepath.tsx") {
            Ok(formats::TILESET_TSX.as_bytes().to_vec())
        } else {
            Err(std::io::Error::new(std::io::ErrorKind::NotFound, "not in memory"))
        }
    }

    fn parse(text: &str) -> Result<ParsedMap, TmxError> {
        formats::parse_tmx(text.as_bytes(), "mem/test.tmx".as_ref(), &mut memory_tileset)
    }

    #[test]
    fn the_shipped_tmx_loads_with_its_walls_terrain_and_endpoints() {
        let map = load_map(&asset("maps/tutorial.tmx")).unwrap_or_else(|e| panic!("{e}"));
        let expected = parse_tilepath(TUTORIAL).unwrap();
        assert_eq!(contents(&map.grid), contents(&expected.grid));
        // The reader computes move masks in one pass at the end: A* (which reads them) finds
        // the same costs from the start to every cell as on the .tpmap copy, whose reader is
        // checked elsewhere.
        let mut searcher = gridpath::Searcher::new();
        let settings = gridpath::Settings::default();
        let start = Pos::new(1, 1);
        let mut reached = 0;
        for p in map.grid.positions() {
            let ours = searcher.find_path(&map.grid, start, p, &settings).map(|path| path.cost);
            let theirs = searcher.find_path(&expected.grid, start, p, &settings).map(|path| path.cost);
            assert_eq!(ours.is_ok(), theirs.is_ok(), "reachability of {p}");
            if let (Ok(a), Ok(b)) = (ours, theirs) {
                assert!((a - b).abs() < 1e-9, "cost to {p}: {a} against {b}");
                reached += 1;
            }
        }
        assert!(reached > 100, "most of the map is reachable from the start: {reached}");
        assert_eq!((map.start, map.goal), (Some(Pos::new(1, 1)), Some(Pos::new(21, 12))));
        let walls = map.grid.positions().filter(|&p| map.grid.tile(p) == Some(Tile::Wall)).count();
        let hashes = TUTORIAL.split("map\n").nth(1).unwrap().matches('#').count();
        assert_eq!(walls, hashes, "the '#' cells of the map");
        assert_eq!(walls, 28);
        for (x, y, tile) in [
            (8, 1, Tile::Wall),
            (0, 5, Tile::Wall),
            (4, 5, Tile::FLOOR),
            (11, 7, Tile::Wall),
            (12, 12, Tile::Wall),
            (14, 1, Tile::Ground { cost: 2 }),
            (2, 2, Tile::Ground { cost: 5 }),
            (19, 5, Tile::Ground { cost: 10 }),
            (2, 7, Tile::Trees { cost: 1 }),
            (23, 13, Tile::FLOOR),
        ] {
            assert_eq!(map.grid.tile(Pos::new(x, y)), Some(tile), "cell ({x},{y})");
        }
    }

    #[test]
    fn tmx_round_trips_the_tiles_the_tileset_has() {
        let tiles = [
            Tile::FLOOR,
            Tile::Wall,
            Tile::Ground { cost: 2 },
            Tile::Ground { cost: 5 },
            Tile::Ground { cost: 10 },
            Tile::Trees { cost: 1 },
        ];
        let grid = grid_of(7, 5, &tiles);
        let text = formats::write_tmx(&grid, Some(Pos::new(6, 4)), Some(Pos::new(0, 0)), "tilepath.tsx");
        let back = parse(&text).unwrap();
        assert_eq!(contents(&back.grid), contents(&grid));
        assert_eq!((back.start, back.goal), (Some(Pos::new(6, 4)), Some(Pos::new(0, 0))));
        // Other costs get the tile the app draws for them.
        let mut odd = Grid::new(3, 1).unwrap();
        odd.set_tile(Pos::new(0, 0), Tile::Ground { cost: 3 }).unwrap();
        odd.set_tile(Pos::new(1, 0), Tile::Ground { cost: 40 }).unwrap();
        odd.set_tile(Pos::new(2, 0), Tile::Water { cost: 1 }).unwrap();
        let back = parse(&formats::write_tmx(&odd, None, None, "tilepath.tsx")).unwrap();
        let row: Vec<_> = (0..3).map(|x| back.grid.tile(Pos::new(x, 0)).unwrap()).collect();
        assert_eq!(row, [Tile::Ground { cost: 2 }, Tile::Ground { cost: 10 }, Tile::Ground { cost: 10 }]);
    }

    fn tmx(attrs: &str, body: &str) -> String {
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<map version=\"1.10\" orientation=\"orthogonal\" \
             renderorder=\"right-down\" width=\"3\" height=\"2\" tilewidth=\"32\" tileheight=\"32\" {attrs}>\n\
             <tileset firstgid=\"1\" source=\"tilepath.tsx\"/>\n{body}</map>\n"
        )
    }

    fn csv_layer(name: &str, data: &str) -> String {
        format!(
            "<layer id=\"1\" name=\"{name}\" width=\"3\" height=\"2\"><data encoding=\"csv\">{data}</data></layer>\n"
        )
    }

    #[test]
    fn a_walls_layer_and_later_layers_override_earlier_ones() {
        // Layer 1: grass everywhere; layer 2 ("WALLS"): any tile is a wall; layer 3: mud over one wall.
        let text = tmx(
            "infinite=\"0\"",
            &[
                csv_layer("ground", "8,8,8,8,8,8"),
                csv_layer("WALLS", "0,3,0,0,0,9"),
                csv_layer("deco", "0,9,0,0,0,0"),
            ]
            .concat(),
        );
        let map = parse(&text).unwrap();
        let row = |y| (0..3).map(|x| map.grid.tile(Pos::new(x, y)).unwrap()).collect::<Vec<_>>();
        let (g, m) = (Tile::Ground { cost: 2 }, Tile::Ground { cost: 5 });
        assert_eq!(row(0), [g, m, g], "mud (a later layer) replaces the wall");
        assert_eq!(row(1), [g, g, Tile::Wall], "any tile in 'walls' is a wall, whatever its properties");
    }

    #[test]
    fn start_and_goal_objects_mark_the_endpoints() {
        let objects = "<objectgroup id=\"2\" name=\"o\">\
             <object id=\"1\" name=\"Start\" x=\"70\" y=\"40\"><point/></object>\
             <object id=\"2\" name=\"goal\" x=\"0\" y=\"0\" width=\"32\" height=\"32\"/></objectgroup>\n";
        let map = parse(&tmx(
            "",
            &[csv_layer("walls", "0,0,0,0,0,0"), csv_layer("t", "1,1,1,1,1,1"), objects.into()].concat(),
        ))
        .unwrap();
        assert_eq!((map.start, map.goal), (Some(Pos::new(2, 1)), Some(Pos::new(0, 0))));
        let outside = objects.replace("x=\"70\"", "x=\"700\"");
        assert!(matches!(
            parse(&tmx("", &[csv_layer("t", "1,1,1,1,1,1"), outside].concat())),
            Err(TmxError::Object { .. })
        ));
    }

    #[test]
    fn each_tiled_problem_has_its_own_error() {
        let ok = csv_layer("t", "1,2,1,1,1,1");
        assert!(parse(&tmx("", &ok)).is_ok());
        let cases: [(String, fn(&TmxError) -> bool); 8] = [
            (
                tmx("", &ok).replace("orthogonal", "isometric"),
                |e| matches!(e, TmxError::Orientation(o) if o == "isometric"),
            ),
            (tmx("infinite=\"1\"", &ok), |e| matches!(e, TmxError::Infinite)),
            (tmx("", &ok).replace("tilepath.tsx", "missing.tsx"), |e| matches!(e, TmxError::Resource { .. })),
            (tmx("", &csv_layer("t", "0,0,0,0,0,0")), |e| matches!(e, TmxError::NoTerrain)),
            (tmx("", &csv_layer("t", "1,2,1")), |e| matches!(e, TmxError::Layer { .. })),
            (
                tmx("", &ok)
                    .replace("width=\"3\" height=\"2\" tilewidth", "width=\"9000\" height=\"2\" tilewidth"),
                |e| matches!(e, TmxError::TooBig { side: 9000 }),
            ),
            (tmx("", &ok)[..120].to_string(), |e| matches!(e, TmxError::Xml(_))),
            (
                tmx("", &ok.replace("encoding=\"csv\"", "encoding=\"base64\" compression=\"zstd\"")),
                |e| matches!(e, TmxError::Layer { message, .. } if message.contains("zstd")),
            ),
        ];
        for (text, expected) in cases {
            let e = parse(&text).unwrap_err();
            assert!(expected(&e), "unexpected error {e:?} for\n{text}");
        }
    }

    #[test]
    fn deeply_nested_groups_are_refused_not_a_stack_overflow() {
        let depth = 100_000;
        let body = format!(
            "{}{}{}",
            "<group id=\"9\" name=\"g\">".repeat(depth),
            csv_layer("t", "1,1,1,1,1,1"),
            "</group>".repeat(depth)
        );
        let e = parse(&tmx("", &body)).unwrap_err();
        assert!(matches!(&e, TmxError::Xml(m) if m.contains("nested")), "{e:?}");
        // The same in an external tileset: class properties nest too.
        let deep_tsx = format!(
            "<tileset version=\"1.10\" name=\"t\" tilewidth=\"32\" tileheight=\"32\" tilecount=\"1\" columns=\"1\">\
             <tile id=\"0\">{}{}</tile></tileset>",
            "<properties><property name=\"p\" type=\"class\">".repeat(depth / 10),
            "</property></properties>".repeat(depth / 10)
        );
        let mut serve = |_: &Path| Ok(deep_tsx.clone().into_bytes());
        let e = formats::parse_tmx(
            tmx("", &csv_layer("t", "1,1,1,1,1,1")).as_bytes(),
            "m/a.tmx".as_ref(),
            &mut serve,
        )
        .unwrap_err();
        assert!(matches!(&e, TmxError::Resource { message, .. } if message.contains("nested")), "{e:?}");
        // A few levels are fine.
        let body = format!(
            "{}{}{}",
            "<group id=\"9\" name=\"g\">".repeat(5),
            csv_layer("t", "1,1,1,1,1,1"),
            "</group>".repeat(5)
        );
        assert!(parse(&tmx("", &body)).is_ok());
    }

    #[test]
    fn a_tileset_declaring_billions_of_tiles_is_refused_not_an_out_of_memory() {
        // tiled would reserve and fill a table of `tilecount` tiles: 4 billion, about 800 GB.
        let huge = formats::TILESET_TSX.replace("tilecount=\"11\"", "tilecount=\"4000000000\"");
        let mut serve = |_: &Path| Ok(huge.clone().into_bytes());
        let map = tmx("", &csv_layer("t", "1,1,1,1,1,1"));
        let e = formats::parse_tmx(map.as_bytes(), "m/a.tmx".as_ref(), &mut serve).unwrap_err();
        assert!(matches!(&e, TmxError::Resource { message, .. } if message.contains("4000000000")), "{e:?}");
        let embedded = map.replace(
            "<tileset firstgid=\"1\" source=\"tilepath.tsx\"/>",
            "<tileset firstgid=\"1\" name=\"x\" tilewidth=\"32\" tileheight=\"32\" tilecount=\"99999999999999999999999\" columns=\"1\"><image source=\"x.png\" width=\"32\" height=\"32\"/></tileset>",
        );
        assert!(matches!(parse(&embedded), Err(TmxError::Xml(m)) if m.contains("tiles")));
    }

    #[test]
    fn layers_together_declare_at_most_two_full_size_grids() {
        // tiled keeps 24 bytes per tile and layer: five 8192 × 4096 layers (tiny files when
        // compressed) would take 4 GB. Declared sizes are counted before any data is read.
        let layer = "<layer id=\"1\" name=\"t\" width=\"8192\" height=\"4096\"/>\n";
        let text = tmx("", &layer.repeat(5))
            .replace("width=\"3\" height=\"2\" tilewidth", "width=\"8192\" height=\"4096\" tilewidth");
        let e = parse(&text).unwrap_err();
        assert!(matches!(&e, TmxError::Xml(m) if m.contains("in all")), "{e:?}");
        // Two such layers are within the limit (and, holding no tiles, say nothing about walls).
        let e = parse(&text.replacen(layer, "", 3)).unwrap_err();
        assert!(matches!(&e, TmxError::NoTerrain), "{e:?}");
    }

    #[test]
    fn the_guard_reads_attributes_as_tiled_does() {
        // tiled matches attributes by local name and keeps the last: this layer is 100 wide to it.
        let prefixed =
            tmx("", &csv_layer("t", "1,1,1,1,1,1").replace("height=\"2\"", "height=\"2\" a:width=\"100\""));
        let e = parse(&prefixed).unwrap_err();
        assert!(matches!(&e, TmxError::Layer { message, .. } if message.contains("expected 200")), "{e:?}");
    }

    #[test]
    fn a_bad_tile_property_is_named() {
        let tileset = "<tileset firstgid=\"1\" name=\"mine\" tilewidth=\"32\" tileheight=\"32\" tilecount=\"1\" columns=\"1\">\
             <tile id=\"0\"><properties><property name=\"cost\" type=\"int\" value=\"99\"/></properties></tile></tileset>\n";
        let text = tmx("", &csv_layer("t", "1,1,1,1,1,1"))
            .replace("<tileset firstgid=\"1\" source=\"tilepath.tsx\"/>\n", tileset);
        let e = parse(&text).unwrap_err();
        assert!(matches!(&e, TmxError::Property { tileset, tile: 0, .. } if tileset == "mine"), "{e:?}");
        assert!(e.to_string().contains("99"), "{e}");
    }

    #[test]
    fn a_zlib_bomb_is_stopped_at_the_expected_size() {
        use base64::Engine as _;
        use std::io::Write as _;
        // 8 MiB of zeros in a few KB: the guard inflates no more than 3 × 2 × 4 + 1 bytes of it.
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        let zeros = vec![0u8; 1 << 20];
        for _ in 0..8 {
            z.write_all(&zeros).unwrap();
        }
        let data = base64::engine::general_purpose::STANDARD.encode(z.finish().unwrap());
        assert!(data.len() < 64 << 10, "the bomb is small: {} bytes", data.len());
        let layer = |data: &str| {
            format!(
                "<layer id=\"1\" name=\"t\" width=\"3\" height=\"2\">\
                 <data encoding=\"base64\" compression=\"zlib\">{data}</data></layer>\n"
            )
        };
        let e = parse(&tmx("", &layer(&data))).unwrap_err();
        assert!(matches!(&e, TmxError::Layer { message, .. } if message.contains("more than")), "{e:?}");
        // The same encoding with the right length loads.
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        for gid in [1u32, 2, 1, 1, 1, 2] {
            z.write_all(&gid.to_le_bytes()).unwrap();
        }
        let data = base64::engine::general_purpose::STANDARD.encode(z.finish().unwrap());
        let map = parse(&tmx("", &layer(&data))).unwrap();
        assert_eq!(map.grid.tile(Pos::new(2, 1)), Some(Tile::Wall));
    }
}

// ---------------------------------------------------------------------------------------------
// LoadError: one variant per kind of bad file

fn temp_dir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

#[test]
fn a_missing_file_is_an_io_error_naming_it() {
    let dir = temp_dir();
    let path = dir.path().join("nope.map");
    let e = load_map(&path).unwrap_err();
    assert!(
        matches!(&e, LoadError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound),
        "{e:?}"
    );
    assert_eq!(e.path(), path);
    assert!(e.to_string().contains("nope.map"), "{e}");
}

#[test]
fn a_file_over_the_limit_is_refused_before_reading() {
    let dir = temp_dir();
    let path = dir.path().join("huge.map");
    // Sparse: sets the size without writing the bytes.
    let file = fs::File::create(&path).unwrap();
    file.set_len(MAX_FILE_BYTES + 1).unwrap();
    drop(file);
    let e = load_map(&path).unwrap_err();
    assert!(
        matches!(e, LoadError::TooLarge { size, limit, .. } if size == MAX_FILE_BYTES + 1 && limit == MAX_FILE_BYTES),
        "{e:?}"
    );
}

#[test]
fn binary_content_is_not_text() {
    let dir = temp_dir();
    let path = dir.path().join("image.map");
    fs::write(&path, b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
    assert!(matches!(load_map(&path), Err(LoadError::NotText { offset: 0, .. })));
    fs::write(&path, b"type octile\nheight 1\x00\n").unwrap();
    assert!(matches!(load_map(&path), Err(LoadError::NotText { offset: 20, .. })), "a NUL byte is binary");
    // A UTF-8 byte order mark is text.
    fs::write(&path, "\u{feff}S.G\n").unwrap();
    assert!(load_map(&path).is_ok());
}

#[test]
fn truncated_and_malformed_files_name_line_and_column() {
    let dir = temp_dir();
    let cases = [
        ("cut.map", "type octile\nheight 3\nwidth 4\nmap\n....\n..@", (6, 4)),
        ("bad.map", "type octile\nheight 2\nwidth 2\nmap\n..\n.x\n", (6, 2)),
        ("cut.tpmap", "tilepath 1\nwidth 3\nheight 2\nmap\n...\n", (6, 0)),
        ("bad.tpmap", "tilepath 1\nwidth 3\nheight 1\nstart 0 x\nmap\n...\n", (4, 9)),
        ("ragged.txt", "S..\n..\n", (2, 0)),
    ];
    for (name, text, (line, column)) in cases {
        let path = dir.path().join(name);
        fs::write(&path, text).unwrap();
        match load_map(&path) {
            Err(LoadError::Malformed { source, .. }) => {
                assert_eq!((source.line, source.column), (line, column), "{name}: {source}");
            }
            other => panic!("{name}: expected Malformed, got {other:?}"),
        }
    }
}

#[test]
fn a_map_over_max_side_is_map_too_big() {
    for (name, text) in [
        ("big.map", "type octile\nheight 9000\nwidth 4\nmap\n".to_string()),
        ("big.tpmap", "tilepath 1\nwidth 4\nheight 100000000000000000000\nmap\n".to_string()),
        ("wide.txt", ".".repeat(8193)),
    ] {
        match load_map_bytes(name.as_ref(), text.as_bytes()) {
            Err(LoadError::MapTooBig { side, .. }) => assert!(side > 8192, "{name}: {side}"),
            other => panic!("{name}: expected MapTooBig, got {other:?}"),
        }
    }
}

#[test]
fn a_bad_tmx_is_a_tiled_error() {
    let dir = temp_dir();
    let path = dir.path().join("flat.tmx");
    fs::write(&path, "<map orientation=\"hexagonal\" width=\"2\" height=\"2\"></map>").unwrap();
    let e = load_map(&path).unwrap_err();
    if cfg!(feature = "tiled") {
        assert!(matches!(&e, LoadError::Tiled { source: TmxError::Orientation(_), .. }), "{e:?}");
        // The tileset is looked up next to the map.
        fs::write(&path, formats::write_tmx(&Grid::new(2, 2).unwrap(), None, None, "tilepath.tsx")).unwrap();
        let e = load_map(&path).unwrap_err();
        assert!(matches!(&e, LoadError::Tiled { source: TmxError::Resource { .. }, .. }), "{e:?}");
        fs::write(dir.path().join("tilepath.tsx"), formats::TILESET_TSX).unwrap();
        assert_eq!(contents(&load_map(&path).unwrap().grid), contents(&Grid::new(2, 2).unwrap()));
    } else {
        assert!(matches!(&e, LoadError::Tiled { source: TmxError::Disabled, .. }), "{e:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// Atomic writes

#[test]
fn write_atomic_replaces_the_whole_file() {
    let dir = temp_dir();
    let path = dir.path().join("save.tpmap");
    fs::write(&path, "x".repeat(10_000)).unwrap();
    write_atomic(&path, b"short").unwrap();
    assert_eq!(fs::read(&path).unwrap(), b"short", "nothing of the longer old file may remain");
    let leftovers: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(leftovers, ["save.tpmap"], "no temporary file is left behind");
}

#[cfg(unix)]
#[test]
fn write_atomic_keeps_the_mode_of_the_file_it_replaces() {
    use std::os::unix::fs::PermissionsExt;
    let dir = temp_dir();
    let path = dir.path().join("shared.tpmap");
    fs::write(&path, "old").unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
    write_atomic(&path, b"new").unwrap();
    assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o640);
    // A new file is not private to its owner the way temporary files are (0600).
    let fresh = dir.path().join("fresh.tpmap");
    write_atomic(&fresh, b"new").unwrap();
    let plain = dir.path().join("plain.tpmap");
    fs::write(&plain, "x").unwrap();
    assert_eq!(
        fs::metadata(&fresh).unwrap().permissions().mode() & 0o777,
        fs::metadata(&plain).unwrap().permissions().mode() & 0o777,
        "a saved file gets the mode fs::write gives"
    );
}

#[test]
fn a_failed_write_leaves_the_old_file_intact() {
    let dir = temp_dir();
    let path = dir.path().join("save.tpmap");
    fs::write(&path, "old").unwrap();
    // The target is a folder that cannot be replaced by a file: the rename fails after the write.
    let blocked = dir.path().join("taken");
    fs::create_dir(&blocked).unwrap();
    fs::write(blocked.join("inside"), "keep").unwrap();
    assert!(write_atomic(&blocked, b"new").is_err());
    assert_eq!(fs::read(blocked.join("inside")).unwrap(), b"keep");
    // The folder of the target is missing.
    assert!(write_atomic(&dir.path().join("missing/save.tpmap"), b"new").is_err());
    assert_eq!(fs::read(&path).unwrap(), b"old");
    let mut names: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    names.sort();
    assert_eq!(names, ["save.tpmap", "taken"], "no temporary file is left behind");
}
