//! Terrain brushes: what a left-drag paints. The wall brush (`0` or `W`) is the default; `1`–`4`
//! paint floor (cost 1), grass (2), mud (5) and shallows (10). Every cost-aware algorithm honours
//! the costs (and crowd units walk slower on them); a brush with costs is refused while the
//! chosen algorithm cannot use them (JPS, BFS, the wavefront), with the reason.
//!
//! Shallows are expensive *ground*, drawn pale and sandy: `gridpath`'s `Tile::Water` (the maps'
//! deep blue water) is a terrain class of its own that only connects to water (the Moving AI
//! rule), so painted water would be an island nobody could enter from the shore, not a slow
//! crossing. The two look different on purpose, and the help explains both.

use bevy::prelude::*;
use gridpath::{Settings, Tile};

use crate::AppSystems;
use crate::controls::{Control, ControlSystems};
use crate::notice::Notice;
use crate::planning::{SearchProblem, cost_blind};

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<CurrentBrush>();
    app.add_systems(
        Update,
        select_brush.run_if(on_message::<Control>).in_set(AppSystems::RecordInput).after(ControlSystems),
    );
}

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

    /// The key that picks it.
    pub const fn key_label(self) -> &'static str {
        match self {
            Brush::Wall => "0/W",
            Brush::Floor => "1",
            Brush::Grass => "2",
            Brush::Mud => "3",
            Brush::Shallows => "4",
        }
    }

    /// The terrain cost it paints (`None` for walls).
    pub const fn cost(self) -> Option<u8> {
        self.tile().cost()
    }
}

/// The brush a left-drag paints with.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CurrentBrush(pub Brush);

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

fn select_brush(
    mut controls: MessageReader<Control>,
    mut brush: ResMut<CurrentBrush>,
    problem: SearchProblem,
    mut notices: MessageWriter<Notice>,
) {
    for control in controls.read() {
        let Control::SelectBrush(chosen) = *control else { continue };
        if let Some(problem) = brush_problem(problem.settings(), chosen) {
            notices.write(Notice::warning(format!("{} brush not available: {problem}", chosen.name())));
            continue;
        }
        brush.set_if_neq(CurrentBrush(chosen));
        let cost = chosen.cost().map_or_else(String::new, |c| format!(" (cost {c})"));
        notices.write(Notice::info(format!("brush: {}{cost}", chosen.name())));
    }
}
