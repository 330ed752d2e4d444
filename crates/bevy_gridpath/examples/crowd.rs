//! A crowd with local avoidance: 60 units share one flow field to the clicked cell and squeeze
//! through the doors without walking through each other or the walls. `O` turns avoidance off
//! and on, to compare.
use bevy::prelude::*;
use bevy_gridpath::prelude::*;

/// Side of a cell, in pixels.
const TILE: f32 = 32.0;
/// `#` is a wall, `.` is ground: two rooms joined by one-cell doors.
const MAP: &str = "\
......................
......................
..........#...........
..........#...........
..........#...........
......................
..........#...........
..........#...........
..........#...........
..........#...........
..........#...........
..........#...........
......................
......................";
/// Units in the crowd.
const UNITS: u32 = 60;
/// Where the crowd heads first.
const FIRST_GOAL: Pos = Pos::new(17, 6);

fn main() {
    App::new().add_plugins(DefaultPlugins).add_plugins(game).run();
}

/// Everything but the window: the pathfinding, the map, the crowd, the click and the key.
pub fn game(app: &mut App) {
    app.add_plugins(GridPathPlugin);
    app.add_systems(Startup, setup);
    app.add_systems(Update, (send_crowd_on_click, toggle_avoidance).before(GridPathSystems::Request));
}

/// A crowd unit.
#[derive(Component)]
pub struct Walker;

fn setup(mut commands: Commands) {
    let grid = bevy_gridpath::gridpath::formats::parse_map(MAP).expect("the map parses").grid;
    let nav = NavGrid::centered(grid, TILE);
    commands.spawn(Camera2d);
    for cell in nav.grid().positions() {
        let shade = if nav.grid().is_passable(cell) { 0.75 } else { 0.2 };
        let sprite = Sprite::from_color(Color::srgb(shade, shade, shade + 0.05), Vec2::splat(TILE - 1.0));
        commands.spawn((sprite, Transform::from_translation(nav.cell_center(cell).extend(0.0))));
    }
    // A circle would show the body best; a square of the body's width will do.
    let body = Vec2::splat(TILE * 2.0 * Avoid::default().radius);
    for k in 0..UNITS {
        let cell = Pos::new(k % 6, k / 6 + 2);
        let sprite = Sprite::from_color(Color::srgb(0.9, 0.35, 0.2), body);
        let start = nav.cell_center(cell).extend(1.0);
        commands.spawn((
            Walker,
            sprite,
            Transform::from_translation(start),
            Mover::new(4.0),
            Avoid::default(),
            FollowFlowField::new(FIRST_GOAL),
        ));
    }
    commands.insert_resource(nav);
}

fn send_crowd_on_click(
    mouse: Res<ButtonInput<MouseButton>>,
    window: Single<&Window>,
    camera: Single<(&Camera, &GlobalTransform)>,
    nav: Res<NavGrid>,
    mut crowd: Query<&mut FollowFlowField, With<Walker>>,
) {
    let (camera, at) = *camera;
    let clicked = window.cursor_position().filter(|_| mouse.just_pressed(MouseButton::Left));
    let world = clicked.and_then(|cursor| camera.viewport_to_world_2d(at, cursor).ok());
    if let Some(cell) = world.and_then(|world| nav.cell_at(world)).filter(|&c| nav.grid().is_passable(c)) {
        for mut follow in &mut crowd {
            follow.goal = cell;
        }
    }
}

fn toggle_avoidance(keys: Res<ButtonInput<KeyCode>>, mut avoidance: ResMut<LocalAvoidance>) {
    if keys.just_pressed(KeyCode::KeyO) {
        avoidance.enabled = !avoidance.enabled;
        info!("local avoidance {}", if avoidance.enabled { "on" } else { "off" });
    }
}
