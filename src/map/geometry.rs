//! Where the map lies in the world: [`TILE_SIZE`] and the conversions between `gridpath` cells,
//! world space and tile-map positions, in one type.

use bevy::prelude::*;
use bevy_ecs_tilemap::tiles::TilePos;
use gridpath::{Grid, Pos};

/// Side of one cell in world units (one screen pixel at zoom 1, and the tileset's tile size).
pub const TILE_SIZE: f32 = 32.0;

/// The placement of a `width` × `height` map in world space: centred on the origin, row 0 at
/// the top, each cell [`TILE_SIZE`] wide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// Columns.
    pub width: u32,
    /// Rows.
    pub height: u32,
}

impl Geometry {
    /// The geometry of `grid`.
    pub fn of(grid: &Grid) -> Self {
        Self { width: grid.width(), height: grid.height() }
    }

    /// Size of the whole map in world units.
    pub fn world_size(self) -> Vec2 {
        Vec2::new(self.width as f32, self.height as f32) * TILE_SIZE
    }

    /// The centre of `cell` in world space.
    pub fn cell_center(self, cell: Pos) -> Vec2 {
        let half = self.world_size() / 2.0;
        Vec2::new((cell.x as f32 + 0.5) * TILE_SIZE - half.x, half.y - (cell.y as f32 + 0.5) * TILE_SIZE)
    }

    /// The cell containing the world point `world`, or `None` off the map.
    pub fn cell_at(self, world: Vec2) -> Option<Pos> {
        let half = self.world_size() / 2.0;
        let col = ((world.x + half.x) / TILE_SIZE).floor();
        let row = ((half.y - world.y) / TILE_SIZE).floor();
        let inside = (0.0..self.width as f32).contains(&col) && (0.0..self.height as f32).contains(&row);
        // The range check above makes both casts exact and in range.
        inside.then(|| Pos::new(col as u32, row as u32))
    }

    /// The tile-map position of `cell` (the tile map counts rows from the bottom).
    pub fn tile_pos(self, cell: Pos) -> TilePos {
        TilePos::new(cell.x, self.height - 1 - cell.y)
    }

    /// The cell at tile-map position `tile` (inverse of [`Geometry::tile_pos`]).
    pub fn cell_of(self, tile: TilePos) -> Pos {
        Pos::new(tile.x, self.height - 1 - tile.y)
    }
}
