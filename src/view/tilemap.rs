//! Drawing the map with `bevy_ecs_tilemap`: a terrain layer mirroring the `gridpath` grid, an
//! overlay layer tinting the search replay's frontier and visited cells and (once the replay
//! ended) the planned path, JPS jump points as rings, and the start and goal markers.
//!
//! Big maps (more than [`TILED_MAX_CELLS`] cells) are drawn as two images instead, one texel
//! per cell in the tile's average colour: a 1024 × 1024 map as tiles is two million quads and
//! two million entities, which took over a second a frame on a software renderer, while at the
//! fitted zoom a cell is under a pixel and the tile pictures cannot be seen anyway. Edits and
//! the search replay update only the texels of the cells they touch.

use bevy::platform::collections::HashSet;
use bevy::prelude::*;
use bevy_ecs_tilemap::prelude::*;
use bevy_gridpath::GridChanged;
use gridpath::Pos;

use crate::AppSystems;
use crate::input::bindings::{Control, ControlSystems};
use crate::map::geometry::{Geometry, TILE_SIZE};
use crate::map::level::MapLoaded;
use crate::map::problem::{SearchProblem, problem_changed};
use crate::search::plan::PlanReport;
use crate::search::replay::SearchAnimation;
use crate::view::assets::{GameAssets, TileLook, cell_image};
use crate::view::camera::{MainCamera, current_enlargement};
use crate::view::flow::FlowView;

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
/// Maps with more cells than this (128 × 128) are drawn one texel per cell, not as tiles.
pub const TILED_MAX_CELLS: usize = 128 * 128;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<ShowSearch>();
    app.init_resource::<MapDrawing>();
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
            sync_terrain.run_if(on_message::<GridChanged>),
            (show_search.run_if(drawn_as_tiles), show_search_texels.run_if(not(drawn_as_tiles))).run_if(
                resource_changed::<SearchAnimation>
                    .or_else(resource_changed::<PlanReport>)
                    .or_else(resource_changed::<ShowSearch>)
                    .or_else(resource_changed::<FlowView>),
            ),
            place_markers.run_if(problem_changed),
            enlarge_markers_when_zoomed_out,
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

/// The terrain layer entity.
#[derive(Component)]
struct TerrainLayer;

/// How the current map is drawn.
#[derive(Resource, Debug, Default, Clone, PartialEq)]
enum MapDrawing {
    /// As `bevy_ecs_tilemap` layers, one tile entity per cell and layer.
    #[default]
    Tiles,
    /// As two images of one texel per cell (big maps).
    Texels {
        /// The terrain.
        terrain: Handle<Image>,
        /// The search and path overlay.
        overlay: Handle<Image>,
    },
}

/// Run condition: the map is drawn as tiles.
fn drawn_as_tiles(drawing: Res<MapDrawing>) -> bool {
    *drawing == MapDrawing::Tiles
}

/// The first byte of `cell`'s texel in a cell image of `geometry`.
fn texel_offset(geometry: Geometry, cell: Pos) -> usize {
    (cell.y as usize * geometry.width as usize + cell.x as usize) * 4
}

/// A sprite covering the map with a cell image.
fn cell_sprite(geometry: Geometry, image: Handle<Image>, name: &'static str, z: f32) -> impl Bundle {
    (
        Name::new(name),
        MapLayer,
        Sprite { image, custom_size: Some(geometry.world_size()), ..default() },
        Transform::from_xyz(0.0, 0.0, z),
    )
}

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

fn place_markers(problem: SearchProblem, mut markers: Query<(&Marker, &mut Transform)>) {
    let geometry = problem.geometry();
    for (marker, mut transform) in &mut markers {
        let cell = match marker {
            Marker::Start => problem.start(),
            Marker::Goal => problem.goal(),
        };
        transform.translation = geometry.cell_center(cell).extend(MARKER_Z);
    }
}

/// Keeps the start and goal readable when a big map is zoomed out ([`marker_enlargement`](crate::view::camera::marker_enlargement)).
fn enlarge_markers_when_zoomed_out(
    camera: Query<&Projection, (With<MainCamera>, Changed<Projection>)>,
    mut markers: Query<&mut Transform, With<Marker>>,
) {
    let Some(enlargement) = camera.iter().find_map(current_enlargement) else { return };
    for mut transform in &mut markers {
        transform.scale = Vec3::new(enlargement, enlargement, 1.0);
    }
}

/// Replaces the map layers with new ones the size of the loaded map: tiles, or cell images
/// for a big map.
fn rebuild_tilemap(
    mut commands: Commands,
    layers: Query<(Entity, Option<&TileStorage>), With<MapLayer>>,
    problem: SearchProblem,
    report: Res<PlanReport>,
    animation: Res<SearchAnimation>,
    show: Res<ShowSearch>,
    flow: Res<FlowView>,
    assets: Res<GameAssets>,
    mut images: ResMut<Assets<Image>>,
    mut drawing: ResMut<MapDrawing>,
) {
    for (layer, storage) in &layers {
        for tile in storage.into_iter().flat_map(|s| s.iter().flatten()) {
            commands.entity(*tile).despawn();
        }
        commands.entity(layer).despawn();
    }
    let grid = problem.grid();
    let geometry = problem.geometry();
    let overlay = OverlayLooks::new(&report, &animation, *show, &flow);
    if grid.len() > TILED_MAX_CELLS {
        let colors = &assets.tile_colors;
        let terrain: Vec<u8> = grid
            .positions()
            .flat_map(|cell| colors[grid.tile(cell).map_or(TileLook::Wall, TileLook::of) as usize])
            .collect();
        let marks: Vec<u8> = grid
            .positions()
            .flat_map(|cell| overlay.look(cell).map_or([0; 4], |look| colors[look as usize]))
            .collect();
        let terrain = images.add(cell_image(geometry, terrain));
        let overlay = images.add(cell_image(geometry, marks));
        commands.spawn(cell_sprite(geometry, terrain.clone(), "Terrain", TERRAIN_Z));
        commands.spawn(cell_sprite(geometry, overlay.clone(), "Overlay", OVERLAY_Z));
        *drawing = MapDrawing::Texels { terrain, overlay };
        return;
    }
    *drawing = MapDrawing::Tiles;
    let terrain_layer = spawn_layer(&mut commands, geometry, &assets, "Terrain", TERRAIN_Z, |cell| {
        let look = grid.tile(cell).map_or(TileLook::Wall, TileLook::of);
        (TerrainTile, TileTextureIndex(look.index()), TileVisible(true))
    });
    commands.entity(terrain_layer).insert(TerrainLayer);
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

/// Updates the terrain of the cells this frame's edits changed, as the plugin announced them
/// (every cell after an edit that names none; a new map is drawn whole by `rebuild_tilemap`):
/// only the touched tiles or texels, so a stroke on a big map does not walk the whole map.
fn sync_terrain(
    problem: SearchProblem,
    mut edits: MessageReader<GridChanged>,
    drawing: Res<MapDrawing>,
    assets: Res<GameAssets>,
    mut images: ResMut<Assets<Image>>,
    terrain_layer: Query<&TileStorage, With<TerrainLayer>>,
    mut tiles: Query<&mut TileTextureIndex, With<TerrainTile>>,
) {
    let grid = problem.grid();
    let geometry = problem.geometry();
    let mut cells: Vec<Pos> = Vec::new();
    let mut all = false;
    for edit in edits.read() {
        match edit {
            GridChanged::Cells(changed) => cells.extend(changed),
            GridChanged::All => all = true,
            GridChanged::Replaced => return,
        }
    }
    let cells: Box<dyn Iterator<Item = Pos>> =
        if all || cells.is_empty() { Box::new(grid.positions()) } else { Box::new(cells.into_iter()) };
    match &*drawing {
        MapDrawing::Tiles => {
            let Ok(storage) = terrain_layer.single() else { return };
            for cell in cells {
                let look = grid.tile(cell).map_or(TileLook::Wall, TileLook::of);
                let Some(entity) = storage.checked_get(&geometry.tile_pos(cell)) else { continue };
                if let Ok(mut index) = tiles.get_mut(entity)
                    && index.0 != look.index()
                {
                    index.0 = look.index();
                }
            }
        }
        MapDrawing::Texels { terrain, .. } => {
            let Some(mut image) = images.get_mut(terrain) else { return };
            let Some(data) = image.data.as_mut() else { return };
            for cell in cells.filter(|&c| grid.in_bounds(c)) {
                let look = grid.tile(cell).map_or(TileLook::Wall, TileLook::of);
                let at = texel_offset(geometry, cell);
                if let Some(texel) = data.get_mut(at..at + 4) {
                    texel.copy_from_slice(&assets.tile_colors[look as usize]);
                }
            }
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
        let path =
            if animation.is_finished() { report.route.iter().copied().collect() } else { HashSet::default() };
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
    problem: SearchProblem,
    report: Res<PlanReport>,
    animation: Res<SearchAnimation>,
    show: Res<ShowSearch>,
    flow: Res<FlowView>,
    layer: Single<(Entity, &TileStorage), With<OverlayLayer>>,
    mut tiles: Query<(&mut TileTextureIndex, &mut TileVisible), With<OverlayTile>>,
    mut drawn: Local<OverlayDrawn>,
) {
    let geometry = problem.geometry();
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
        Box::new(problem.grid().positions())
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

/// What the overlay image shows: the cells it tints, so a redraw clears only those.
#[derive(Default)]
struct TexelsDrawn {
    image: Option<Handle<Image>>,
    restarts: u64,
    finished: bool,
    show_search: bool,
    touched: usize,
    tinted: Vec<Pos>,
}

/// [`show_search`] for a map drawn as cell images: the replay's new events recolour their
/// texels; a restart, the end of the replay or a visibility change clears the tinted texels and
/// draws the trace and the path again (work in proportion to the search, not the map).
fn show_search_texels(
    problem: SearchProblem,
    report: Res<PlanReport>,
    animation: Res<SearchAnimation>,
    show: Res<ShowSearch>,
    flow: Res<FlowView>,
    drawing: Res<MapDrawing>,
    assets: Res<GameAssets>,
    mut images: ResMut<Assets<Image>>,
    mut drawn: Local<TexelsDrawn>,
) {
    let MapDrawing::Texels { overlay: handle, .. } = &*drawing else { return };
    let geometry = problem.geometry();
    let overlay = OverlayLooks::new(&report, &animation, *show, &flow);
    let touched = animation.touched();
    let incremental = drawn.image.as_ref() == Some(handle)
        && drawn.restarts == animation.restarts()
        && drawn.finished == animation.is_finished()
        && drawn.show_search == overlay.show_search
        && drawn.touched <= touched.len()
        && !report.is_changed();
    let Some(mut image) = images.get_mut(handle) else { return };
    let Some(data) = image.data.as_mut() else { return };
    let mut paint = |cell: Pos, tinted: &mut Vec<Pos>| {
        let at = texel_offset(geometry, cell);
        let Some(texel) = data.get_mut(at..at + 4) else { return };
        let color = overlay.look(cell).map_or([0; 4], |look| assets.tile_colors[look as usize]);
        if color[3] > 0 {
            tinted.push(cell);
        }
        texel.copy_from_slice(&color);
    };
    let mut tinted = std::mem::take(&mut drawn.tinted);
    if incremental {
        for &cell in &touched[drawn.touched..] {
            paint(cell, &mut tinted);
        }
    } else {
        let old = std::mem::take(&mut tinted);
        // Clear what was tinted; then the trace so far and the path.
        for cell in old.into_iter().chain(touched.iter().copied()).chain(report.route.iter().copied()) {
            paint(cell, &mut tinted);
        }
    }
    // Cells tinted twice are listed twice: keep the list from growing past the map.
    if tinted.len() > 2 * geometry.width as usize * geometry.height as usize {
        tinted.sort_unstable();
        tinted.dedup();
    }
    *drawn = TexelsDrawn {
        image: Some(handle.clone()),
        restarts: animation.restarts(),
        finished: animation.is_finished(),
        show_search: overlay.show_search,
        touched: touched.len(),
        tinted,
    };
}

/// Run condition: the search's cells are tinted (shown, and not under the flow-field view).
fn search_tint_shown(show: Res<ShowSearch>, flow: Res<FlowView>) -> bool {
    show.0 && !flow.shown
}

/// Rings on the jump points JPS found so far in the replay.
fn mark_jump_points(mut gizmos: Gizmos, problem: SearchProblem, animation: Res<SearchAnimation>) {
    let geometry = problem.geometry();
    for &cell in animation.jump_points() {
        gizmos.circle_2d(geometry.cell_center(cell), JUMP_POINT_RADIUS * TILE_SIZE, JUMP_POINT_COLOR);
    }
}
