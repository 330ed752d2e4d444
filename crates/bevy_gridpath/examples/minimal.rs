//! The smallest `bevy_gridpath` game: a map drawn with sprites and one unit. Click a cell and
//! the unit walks there around the walls.
use bevy::prelude::*;
use bevy_gridpath::prelude::*;

/// Side of a cell, in pixels.
const TILE: f32 = 40.0;
/// `#` is a wall, `.` is ground.
const MAP: &str = "\
..............
..#######.....
........#..#..
.######.#..#..
......#.####..
..#...#.......";

fn main() {
    App::new().add_plugins(DefaultPlugins).add_plugins(game).run();
}

/// Everything but the window: the pathfinding, the map, the unit and the click.
pub fn game(app: &mut App) {
    app.add_plugins(GridPathPlugin);
    app.add_systems(Startup, setup);
    app.add_systems(Update, send_unit_on_click.before(GridPathSystems::Request));
}

fn setup(mut commands: Commands) {
    let grid = bevy_gridpath::gridpath::formats::parse_map(MAP).expect("the map parses").grid;
    let nav = NavGrid::centered(grid, TILE);
    commands.spawn(Camera2d);
    for cell in nav.grid().positions() {
        let shade = if nav.grid().is_passable(cell) { 0.75 } else { 0.2 };
        let sprite = Sprite::from_color(Color::srgb(shade, shade, shade + 0.05), Vec2::splat(TILE - 2.0));
        commands.spawn((sprite, Transform::from_translation(nav.cell_center(cell).extend(0.0))));
    }
    let unit = Sprite::from_color(Color::srgb(0.9, 0.35, 0.2), Vec2::splat(TILE * 0.6));
    let start = nav.cell_center(Pos::new(0, 0)).extend(1.0);
    commands.spawn((Mover::new(6.0), unit, Transform::from_translation(start)));
    commands.insert_resource(nav);
}

fn send_unit_on_click(
    mut commands: Commands,
    mouse: Res<ButtonInput<MouseButton>>,
    window: Single<&Window>,
    camera: Single<(&Camera, &GlobalTransform)>,
    nav: Res<NavGrid>,
    unit: Single<Entity, With<Mover>>,
) {
    let (camera, at) = *camera;
    let clicked = window.cursor_position().filter(|_| mouse.just_pressed(MouseButton::Left));
    let world = clicked.and_then(|cursor| camera.viewport_to_world_2d(at, cursor).ok());
    if let Some(cell) = world.and_then(|world| nav.cell_at(world)) {
        commands.entity(*unit).insert(PathRequest::new(cell));
    }
}
