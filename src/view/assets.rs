//! The images the app cannot live without — the tileset and the unit sprite — embedded in the
//! binary, so it runs from any working directory. Regenerate them with
//! `python3 assets/tools/make_tiles.py`.

use bevy::asset::RenderAssetUsages;
use bevy::image::{CompressedImageFormats, ImageSampler, ImageType};
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};
use gridpath::Tile;

use crate::map::geometry::{Geometry, TILE_SIZE};
use crate::notice::Notice;

/// `assets/tiles.png`: one row of [`TileLook`] tiles.
const TILES_PNG: &[u8] = include_bytes!("../../assets/tiles.png");
/// `assets/unit.png`: one row of [`UNIT_FRAMES`] frames of a unit facing +x.
const UNIT_PNG: &[u8] = include_bytes!("../../assets/unit.png");
/// Tiles in `tiles.png`.
const TILE_COUNT: u32 = 12;
/// Frames in `unit.png`: frame 0 stands, all of them loop as the walk cycle.
pub const UNIT_FRAMES: u32 = 4;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<GameAssets>();
}

/// Index of each look in the tileset, in `tiles.png` order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TileLook {
    /// Plain floor.
    Floor = 0,
    /// Wall.
    Wall = 1,
    /// The start marker (drawn over the terrain).
    Start = 2,
    /// The goal marker (drawn over the terrain).
    Goal = 3,
    /// A cell on the planned path (overlay).
    Path = 4,
    /// A cell the search closed (overlay).
    Visited = 5,
    /// A cell on the search's open list (overlay).
    Frontier = 6,
    /// Cheap rough terrain (cost 2–4).
    Grass = 7,
    /// Expensive terrain (cost 5–9).
    Mud = 8,
    /// Deep water: the terrain class that connects only to water.
    Water = 9,
    /// Trees.
    Trees = 10,
    /// Shallows: ground that costs 10 or more (the shallows brush), pale so it is never taken
    /// for deep water.
    Shallows = 11,
}

impl TileLook {
    /// How a map tile is drawn.
    pub fn of(tile: Tile) -> Self {
        match tile {
            Tile::Wall => TileLook::Wall,
            Tile::Ground { cost: 1 } => TileLook::Floor,
            Tile::Ground { cost: 2..=4 } => TileLook::Grass,
            Tile::Ground { cost: 5..=9 } => TileLook::Mud,
            // The shallows brush: ground that costs 10 or more (a slow crossing, not an island).
            Tile::Ground { .. } => TileLook::Shallows,
            Tile::Water { .. } => TileLook::Water,
            Tile::Trees { .. } => TileLook::Trees,
        }
    }

    /// The index in the tileset.
    pub fn index(self) -> u32 {
        self as u32
    }
}

/// Handles to the embedded images and their atlas layouts.
#[derive(Resource, Debug, Clone)]
pub struct GameAssets {
    /// The tileset strip.
    pub tiles: Handle<Image>,
    /// The tileset as an atlas, for sprites (markers).
    pub tile_atlas: Handle<TextureAtlasLayout>,
    /// The unit's frames.
    pub unit: Handle<Image>,
    /// The unit's frames as an atlas.
    pub unit_atlas: Handle<TextureAtlasLayout>,
    /// The average colour of each tileset tile (sRGB with alpha), in [`TileLook`] order: how a
    /// cell looks on a big map drawn one texel per cell.
    pub tile_colors: [[u8; 4]; TILE_COUNT as usize],
}

impl FromWorld for GameAssets {
    fn from_world(world: &mut World) -> Self {
        let mut problems = Vec::new();
        let mut decode = |name: &str, bytes: &[u8], frames: u32| {
            decode_png(bytes).unwrap_or_else(|error| {
                problems.push(format!("cannot decode the embedded {name}: {error}"));
                placeholder(frames)
            })
        };
        let tiles_image = decode("tileset", TILES_PNG, TILE_COUNT);
        let unit_image = decode("unit sprite", UNIT_PNG, UNIT_FRAMES);
        let tile_colors = average_tile_colors(&tiles_image);
        let mut images = world.resource_mut::<Assets<Image>>();
        let tiles = images.add(tiles_image);
        let unit = images.add(unit_image);
        let tile_size = UVec2::splat(TILE_SIZE as u32);
        let mut layouts = world.resource_mut::<Assets<TextureAtlasLayout>>();
        let tile_atlas = layouts.add(TextureAtlasLayout::from_grid(tile_size, TILE_COUNT, 1, None, None));
        let unit_atlas = layouts.add(TextureAtlasLayout::from_grid(tile_size, UNIT_FRAMES, 1, None, None));
        for problem in problems {
            world.write_message(Notice::error(problem));
        }
        Self { tiles, tile_atlas, unit, unit_atlas, tile_colors }
    }
}

/// The mean colour of each 32 × 32 tile of the tileset strip (magenta if the image is not the
/// expected 8-bit RGBA strip). Alpha-weighted, so a half-transparent overlay tile keeps its hue.
fn average_tile_colors(strip: &Image) -> [[u8; 4]; TILE_COUNT as usize] {
    let size = TILE_SIZE as usize;
    let width = strip.width() as usize;
    let Some(data) =
        strip.data.as_ref().filter(|d| d.len() >= width * size * 4 && width >= size * TILE_COUNT as usize)
    else {
        return [[255, 0, 255, 255]; TILE_COUNT as usize];
    };
    std::array::from_fn(|tile| {
        let mut sum = [0u64; 4];
        for y in 0..size {
            for x in tile * size..(tile + 1) * size {
                let texel = &data[(y * width + x) * 4..][..4];
                let alpha = u64::from(texel[3]);
                for channel in 0..3 {
                    sum[channel] += u64::from(texel[channel]) * alpha;
                }
                sum[3] += alpha;
            }
        }
        let pixels = (size * size) as u64;
        let color = |c: u64| u8::try_from(c / sum[3].max(1)).unwrap_or(u8::MAX);
        [color(sum[0]), color(sum[1]), color(sum[2]), u8::try_from(sum[3] / pixels).unwrap_or(u8::MAX)]
    })
}

fn decode_png(bytes: &[u8]) -> Result<Image, String> {
    Image::from_buffer(
        bytes,
        ImageType::Extension("png"),
        CompressedImageFormats::NONE,
        true,
        ImageSampler::nearest(),
        RenderAssetUsages::default(),
    )
    .map_err(|e| e.to_string())
}

/// A magenta strip of `frames` tiles: loud, so a broken image is noticed, but the app runs.
fn placeholder(frames: u32) -> Image {
    let size = TILE_SIZE as u32;
    Image::new_fill(
        Extent3d { width: size * frames, height: size, depth_or_array_layers: 1 },
        TextureDimension::D2,
        &[255, 0, 255, 255],
        TextureFormat::Rgba8UnormSrgb,
        RenderAssetUsages::default(),
    )
}

/// An image of one RGBA texel per cell of a `geometry`-sized map, row 0 on top, drawn
/// nearest-texel (the terrain and overlay of large maps, the flow view's heat map).
pub(crate) fn cell_image(geometry: Geometry, texels: Vec<u8>) -> Image {
    let mut image = Image::new(
        Extent3d { width: geometry.width, height: geometry.height, depth_or_array_layers: 1 },
        TextureDimension::D2,
        texels,
        TextureFormat::Rgba8UnormSrgb,
        RenderAssetUsages::default(),
    );
    image.sampler = ImageSampler::nearest();
    image
}
