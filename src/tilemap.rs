//! Drawing the map with `bevy_ecs_tilemap`: a terrain layer mirroring the `gridpath` grid, an
//! overlay layer tinting the search replay's frontier and visited cells and (once the replay
//! ended) the planned path, JPS jump points as rings, and the start and goal markers.

use bevy::platform::collections::HashSet;
use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use gridpath::Pos;

use crate::AppSystems;
use crate::animation::SearchAnimation;
use crate::assets::{GameAssets, TileLook};
use crate::controls::{Control, ControlSystems};
use crate::flowview::FlowView;
use crate::level::{Geometry, MapLoaded, TILE_SIZE};
use crate::planning::{Pathfinder, PlanReport};

/// Depth of the terrain layer.
const TERRAIN_Z: f32 = 0.0;
/// Depth of the path overlay, over the terrain.
const OVERLAY_Z: f32 = 1.0;
/// Depth of the start and goal markers, over the overlay.
const MARKER_Z: f32 = 2.0;
/// Radius of the ring marking a JPS jump point, in tiles.
const JUMP_POINT_RADIUS: f32 = 0.32;
/// Colour of the jump point rings.
const JUMP_POINT_COLOR: Color = Color::srgb(0.85, 0.15, 0.55);

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<ShowSearch>();
    app.add_systems(Startup, spawn_markers);
    app.add_systems(
        Update,
        toggle_search_cells
            .run_if(on_message::<Control>)
            .in_set(AppSystems::RecordInput)
            .after(ControlSystems),
    );
    app.add_systems(
        Update,
        (
            rebuild_tilemap.run_if(on_message::<MapLoaded>),
            sync_terrain.run_if(resource_changed::<Pathfinder>.and_then(grid_revision_changed)),
            show_search.run_if(
                resource_changed::<SearchAnimation>
                    .or_else(resource_changed::<PlanReport>)
                    .or_else(resource_changed::<ShowSearch>)
                    .or_else(resource_changed::<FlowView>),
            ),
            place_markers.run_if(resource_changed::<Pathfinder>),
            mark_jump_points.run_if(search_tint_shown),
        )
            .chain()
            .in_set(AppSystems::Present),
    );
}

/// Whether the overlay shows the cells the search visited and left open (key `V`).
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ShowSearch(pub bool);

impl Default for ShowSearch {
    fn default() -> Self {
        Self(true)
    }
}

fn toggle_search_cells(mut controls: MessageReader<Control>, mut show: ResMut<ShowSearch>) {
    for control in controls.read() {
        if *control == Control::ToggleSearchCells {
            show.0 = !show.0;
        }
    }
}

/// A tile map layer entity; despawned with its tiles when a new map loads.
#[derive(Component)]
struct MapLayer;

/// A tile of the terrain layer.
#[derive(Component)]
struct TerrainTile;

/// A tile of the overlay layer.
#[derive(Component)]
struct OverlayTile;

/// The overlay layer entity.
#[derive(Component)]
struct OverlayLayer;

/// The start or goal marker sprite.
#[derive(Component, Clone, Copy, PartialEq, Eq)]
enum Marker {
    Start,
    Goal,
}

fn spawn_markers(mut commands: Commands, assets: Res<GameAssets>) {
    for (marker, look) in [(Marker::Start, TileLook::Start), (Marker::Goal, TileLook::Goal)] {
        commands.spawn((
            Name::new(if marker == Marker::Start { "Start" } else { "Goal" }),
            marker,
            Sprite::from_atlas_image(
                assets.tiles.clone(),
                TextureAtlas { layout: assets.tile_atlas.clone(), index: look.index() as usize },
            ),
            Transform::from_xyz(0.0, 0.0, MARKER_Z),
        ));
    }
}

fn place_markers(pathfinder: Res<Pathfinder>, mut markers: Query<(&Marker, &mut Transform)>) {
    let geometry = pathfinder.geometry();
    for (marker, mut transform) in &mut markers {
        let cell = match marker {
            Marker::Start => pathfinder.start(),
            Marker::Goal => pathfinder.goal(),
        };
        transform.translation = geometry.cell_center(cell).extend(MARKER_Z);
    }
}

/// Replaces the tile map layers with new ones the size of the loaded map.
fn rebuild_tilemap(
    mut commands: Commands,
    layers: Query<(Entity, &TileStorage), With<MapLayer>>,
    pathfinder: Res<Pathfinder>,
    report: Res<PlanReport>,
    animation: Res<SearchAnimation>,
    show: Res<ShowSearch>,
    flow: Res<FlowView>,
    assets: Res<GameAssets>,
) {
    for (layer, storage) in &layers {
        for tile in storage.iter().flatten() {
            commands.entity(*tile).despawn();
        }
        commands.entity(layer).despawn();
    }
    let grid = pathfinder.grid();
    let geometry = pathfinder.geometry();
    let overlay = OverlayLooks::new(&report, &animation, *show, &flow);
    spawn_layer(&mut commands, geometry, &assets, "Terrain", TERRAIN_Z, |cell| {
        let look = grid.tile(cell).map_or(TileLook::Wall, TileLook::of);
        (TerrainTile, TileTextureIndex(look.index()), TileVisible(true))
    });
    let overlay_layer = spawn_layer(&mut commands, geometry, &assets, "Overlay", OVERLAY_Z, |cell| {
        let look = overlay.look(cell);
        let index = look.unwrap_or(TileLook::Path).index();
        (OverlayTile, TileTextureIndex(index), TileVisible(look.is_some()))
    });
    commands.entity(overlay_layer).insert(OverlayLayer);
}

/// Spawns one layer covering the map; `tile` gives each cell's marker, look and visibility.
/// Returns the layer entity.
fn spawn_layer<M: Component>(
    commands: &mut Commands,
    geometry: Geometry,
    assets: &GameAssets,
    name: &'static str,
    z: f32,
    mut tile: impl FnMut(Pos) -> (M, TileTextureIndex, TileVisible),
) -> Entity {
    let size = TilemapSize { x: geometry.width, y: geometry.height };
    let mut storage = TileStorage::empty(size);
    let layer = commands.spawn((Name::new(name), MapLayer)).id();
    for x in 0..size.x {
        for y in 0..size.y {
            let position = TilePos { x, y };
            let (marker, texture_index, visible) = tile(geometry.cell_of(position));
            let entity = commands
                .spawn((
                    marker,
                    TileBundle {
                        position,
                        tilemap_id: TilemapId(layer),
                        texture_index,
                        visible,
                        ..default()
                    },
                ))
                .id();
            storage.set(&position, entity);
        }
    }
    let tile_size = TilemapTileSize { x: TILE_SIZE, y: TILE_SIZE };
    commands.entity(layer).insert(TilemapBundle {
        grid_size: tile_size.into(),
        map_type: TilemapType::Square,
        size,
        storage,
        texture: TilemapTexture::Single(assets.tiles.clone()),
        tile_size,
        anchor: TilemapAnchor::Center,
        transform: Transform::from_xyz(0.0, 0.0, z),
        ..default()
    });
    layer
}

/// `true` when the grid's revision differs from the one seen last time: a cell changed (moving
/// the start or goal also changes the [`Pathfinder`], but not its grid).
fn grid_revision_changed(pathfinder: Res<Pathfinder>, mut seen: Local<Option<u64>>) -> bool {
    let revision = Some(pathfinder.grid().revision());
    let changed = *seen != revision;
    *seen = revision;
    changed
}

/// Updates terrain tiles whose cell changed.
fn sync_terrain(
    pathfinder: Res<Pathfinder>,
    mut tiles: Query<(&TilePos, &mut TileTextureIndex), With<TerrainTile>>,
) {
    let grid = pathfinder.grid();
    let geometry = pathfinder.geometry();
    for (position, mut index) in &mut tiles {
        let look = grid.tile(geometry.cell_of(*position)).map_or(TileLook::Wall, TileLook::of);
        if index.0 != look.index() {
            index.0 = look.index();
        }
    }
}

/// What the overlay shows on each cell: the path once the replay ended, else (when shown, and
/// not under the flow-field view) the replay's frontier and visited cells.
struct OverlayLooks<'a> {
    path: HashSet<Pos>,
    animation: &'a SearchAnimation,
    show_search: bool,
}

impl<'a> OverlayLooks<'a> {
    fn new(report: &PlanReport, animation: &'a SearchAnimation, show: ShowSearch, flow: &FlowView) -> Self {
        let path = if animation.is_finished() {
            report.outcome.cells().iter().copied().collect()
        } else {
            HashSet::default()
        };
        Self { path, animation, show_search: show.0 && !flow.shown }
    }

    fn look(&self, cell: Pos) -> Option<TileLook> {
        let state = self.animation.cell(cell);
        if self.path.contains(&cell) {
            Some(TileLook::Path)
        } else if self.show_search && state.is_open() {
            Some(TileLook::Frontier)
        } else if self.show_search && state.is_closed() {
            Some(TileLook::Visited)
        } else {
            None
        }
    }
}

/// What the overlay showed when [`show_search`] last drew it.
#[derive(Default)]
struct OverlayDrawn {
    layer: Option<Entity>,
    restarts: u64,
    finished: bool,
    show_search: bool,
    /// How many of the replay's touched cells are drawn.
    touched: usize,
}

/// Brings the overlay up to date with the search replay. While a replay plays, only the cells
/// its new events touched are redrawn; a restart, the end of the replay or a visibility change
/// redraws the whole layer.
fn show_search(
    pathfinder: Res<Pathfinder>,
    report: Res<PlanReport>,
    animation: Res<SearchAnimation>,
    show: Res<ShowSearch>,
    flow: Res<FlowView>,
    layer: Single<(Entity, &TileStorage), With<OverlayLayer>>,
    mut tiles: Query<(&mut TileTextureIndex, &mut TileVisible), With<OverlayTile>>,
    mut drawn: Local<OverlayDrawn>,
) {
    let geometry = pathfinder.geometry();
    let overlay = OverlayLooks::new(&report, &animation, *show, &flow);
    let (layer, storage) = *layer;
    let touched = animation.touched();
    let incremental = drawn.layer == Some(layer)
        && drawn.restarts == animation.restarts()
        && drawn.finished == animation.is_finished()
        && drawn.show_search == overlay.show_search
        && drawn.touched <= touched.len()
        && !report.is_changed();
    let cells: Box<dyn Iterator<Item = Pos>> = if incremental {
        Box::new(touched[drawn.touched..].iter().copied())
    } else {
        Box::new(pathfinder.grid().positions())
    };
    for cell in cells {
        let Some(entity) = storage.checked_get(&geometry.tile_pos(cell)) else { continue };
        let Ok((mut index, mut visible)) = tiles.get_mut(entity) else { continue };
        let look = overlay.look(cell);
        if visible.0 != look.is_some() {
            visible.0 = look.is_some();
        }
        if let Some(look) = look
            && index.0 != look.index()
        {
            index.0 = look.index();
        }
    }
    *drawn = OverlayDrawn {
        layer: Some(layer),
        restarts: animation.restarts(),
        finished: animation.is_finished(),
        show_search: overlay.show_search,
        touched: touched.len(),
    };
}

/// Run condition: the search's cells are tinted (shown, and not under the flow-field view).
fn search_tint_shown(show: Res<ShowSearch>, flow: Res<FlowView>) -> bool {
    show.0 && !flow.shown
}

/// Rings on the jump points JPS found so far in the replay.
fn mark_jump_points(mut gizmos: Gizmos, pathfinder: Res<Pathfinder>, animation: Res<SearchAnimation>) {
    let geometry = pathfinder.geometry();
    for &cell in animation.jump_points() {
        gizmos.circle_2d(geometry.cell_center(cell), JUMP_POINT_RADIUS * TILE_SIZE, JUMP_POINT_COLOR);
    }
}
