//! Where the map lies in the world: [`TILE_SIZE`] and the conversions between `gridpath` cells,
//! world space and tile-map positions, in one type.

use bevy::prelude::*;
use bevy_ecs_tilemap::tiles::TilePos;
use bevy_gridpath::GridLayout;
use gridpath::{Grid, Pos};

/// Side of one cell in world units (one screen pixel at zoom 1, and the tileset's tile size).
pub const TILE_SIZE: f32 = 32.0;

/// The placement of a `width` × `height` map in world space: centred on the origin, row 0 at
/// the top, each cell [`TILE_SIZE`] wide (the plugin's [`GridLayout`], which the app's
/// `NavGrid` uses too), plus the tile map's row order.
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

    /// Where the map lies in the world: the plugin's layout, which does the conversions.
    pub fn layout(self) -> GridLayout {
        GridLayout::centered(self.width, self.height, TILE_SIZE)
    }

    /// Size of the whole map in world units.
    pub fn world_size(self) -> Vec2 {
        self.layout().world_size()
    }

    /// The centre of `cell` in world space.
    pub fn cell_center(self, cell: Pos) -> Vec2 {
        self.layout().cell_center(cell)
    }

    /// The cell containing the world point `world`, or `None` off the map.
    pub fn cell_at(self, world: Vec2) -> Option<Pos> {
        self.layout().cell_at(world)
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
