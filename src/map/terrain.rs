//! Terrain brushes: what a left-drag can paint, and which terrain the current algorithm refuses.
//! Shallows are expensive *ground*, drawn pale and sandy: `gridpath`'s `Tile::Water` (the maps'
//! deep blue water) is a terrain class of its own that only connects to water (the Moving AI
//! rule), so painted water would be an island nobody could enter from the shore.

use gridpath::{Settings, Tile};

use crate::map::problem::cost_blind;

/// What a left-drag paints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Brush {
    /// Walls (the default).
    #[default]
    Wall,
    /// Plain floor, cost 1 (also what a right-drag erases to).
    Floor,
    /// Grass, cost 2.
    Grass,
    /// Mud, cost 5.
    Mud,
    /// Shallow water, cost 10: slow ground that connects to the shore (unlike the maps' deep
    /// water, a class of its own).
    Shallows,
}

impl Brush {
    /// Every brush, in key order.
    pub const ALL: [Brush; 5] = [Brush::Wall, Brush::Floor, Brush::Grass, Brush::Mud, Brush::Shallows];

    /// The tile it paints.
    pub const fn tile(self) -> Tile {
        match self {
            Brush::Wall => Tile::Wall,
            Brush::Floor => Tile::FLOOR,
            Brush::Grass => Tile::Ground { cost: 2 },
            Brush::Mud => Tile::Ground { cost: 5 },
            Brush::Shallows => Tile::Ground { cost: 10 },
        }
    }

    /// Its name for the HUD and the panel.
    pub const fn name(self) -> &'static str {
        match self {
            Brush::Wall => "wall",
            Brush::Floor => "floor",
            Brush::Grass => "grass",
            Brush::Mud => "mud",
            Brush::Shallows => "shallows",
        }
    }

    /// The terrain cost it paints (`None` for walls).
    pub const fn cost(self) -> Option<u8> {
        self.tile().cost()
    }
}

/// Why `tile` cannot be painted while searching with `settings`: terrain costs above 1 under
/// an algorithm that cannot use them.
pub fn terrain_problem(settings: &Settings, tile: Tile) -> Option<&'static str> {
    match tile {
        Tile::Ground { cost } if cost > 1 => cost_blind(settings.algorithm),
        _ => None,
    }
}

/// Why `brush` is not available with `settings`, if it is not.
pub fn brush_problem(settings: &Settings, brush: Brush) -> Option<&'static str> {
    terrain_problem(settings, brush.tile())
}
