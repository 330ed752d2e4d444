use super::*;
use bevy_ecs_tilemap::prelude::*;
use tilepath::map::geometry::Geometry;
use tilepath::map::level::{BUILTIN_GOAL, BUILTIN_START, builtin_level, parse_level};

#[test]
fn the_builtin_map_has_far_apart_endpoints_and_needs_a_detour() {
    let level = builtin_level();
    assert_eq!((level.grid.width(), level.grid.height()), (40, 30));
    assert!(level.grid.is_passable(BUILTIN_START) && level.grid.is_passable(BUILTIN_GOAL));
    let straight =
        f64::from(BUILTIN_START.x.abs_diff(BUILTIN_GOAL.x).max(BUILTIN_START.y.abs_diff(BUILTIN_GOAL.y)));
    let path = gridpath::Searcher::new()
        .find_path(&level.grid, level.start, level.goal, &gridpath::Settings::default())
        .expect("the built-in map has a route");
    assert!(straight >= 30.0, "start and goal should be far apart");
    assert!(path.cost > straight * 1.2, "the route should need a detour: {} vs {straight}", path.cost);
}

#[test]
fn a_missing_map_file_shows_an_error_and_the_builtin_map() {
    let app = test_app(MapSource::File("/definitely/not/here.map".into()));
    let info = app.world().resource::<MapInfo>();
    let error = info.error.as_deref().expect("a missing map should be reported");
    assert!(error.contains("here.map"), "the error should name the file: {error}");
    assert_eq!(pathfinder(&app).start(), BUILTIN_START, "the built-in map is shown instead");
}

#[test]
fn a_broken_map_shows_the_parse_error() {
    let broken = MapSource::Text {
        name: "broken.map".into(),
        text: "type octile\nheight 2\nwidth 3\nmap\n..\n...\n".into(),
    };
    let app = test_app(broken);
    let error = app.world().resource::<MapInfo>().error.clone().expect("a broken map should be reported");
    assert!(error.contains("broken.map") && error.contains("line"), "{error}");
}

#[test]
fn ascii_maps_keep_their_endpoints_and_others_get_corner_ones() {
    let level = parse_level("....\n.S#.\n..#G").expect("valid ASCII map");
    assert_eq!((level.start, level.goal), (Pos::new(1, 1), Pos::new(3, 2)));
    let level = parse_level("type octile\nheight 3\nwidth 3\nmap\n@@.\n..@\n..@\n").expect("valid map");
    assert_eq!((level.start, level.goal), (Pos::new(0, 1), Pos::new(1, 2)));
}

#[test]
fn geometry_agrees_with_the_tilemap() {
    let geometry = Geometry { width: 40, height: 30 };
    let size = TilemapSize { x: 40, y: 30 };
    let tile_size = TilemapTileSize { x: TILE_SIZE, y: TILE_SIZE };
    for cell in [Pos::new(0, 0), Pos::new(39, 0), Pos::new(0, 29), Pos::new(17, 11), Pos::new(39, 29)] {
        let tile = geometry.tile_pos(cell);
        assert_eq!(geometry.cell_of(tile), cell);
        let tilemap_centre = tile.center_in_world(
            &size,
            &tile_size.into(),
            &tile_size,
            &TilemapType::Square,
            &TilemapAnchor::Center,
        );
        assert_eq!(geometry.cell_center(cell), tilemap_centre, "cell {cell} is drawn where it is planned");
        assert_eq!(geometry.cell_at(tilemap_centre), Some(cell));
        assert_eq!(geometry.cell_at(tilemap_centre + Vec2::splat(TILE_SIZE * 0.49)), Some(cell));
    }
    assert_eq!(geometry.cell_at(Vec2::new(-20.0 * TILE_SIZE - 0.1, 0.0)), None, "left of the map");
    assert_eq!(geometry.cell_at(Vec2::new(0.0, 15.0 * TILE_SIZE + 0.1)), None, "above the map");
}
