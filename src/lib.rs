//! tilepath's app as a library: the game logic ([`LogicPlugin`]) runs headless in tests, the
//! presentation ([`PresentPlugin`]) adds the tile map, camera, cursor, sprites and HUD on top.
//!
//! Every frame runs the [`AppSystems`] chain in `Update`: input is recorded and edits are
//! applied, routes are planned (and the search replay advances), units move, and the result is
//! presented.

use bevy::prelude::*;

pub mod animation;
mod assets;
pub mod brushes;
mod camera;
pub mod cli;
pub mod controls;
pub mod crowd;
mod cursor;
pub mod editor;
mod flowview;
pub mod hud;
pub mod level;
pub mod mapfiles;
pub mod notice;
pub mod panel;
pub mod planning;
pub mod race;
pub mod scenario;
pub mod script;
pub mod selection;
pub mod steering;
mod theme;
mod tilemap;
pub mod units;

/// The stages of a frame, in order. Feature plugins put their `Update` systems in one of these.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AppSystems {
    /// Read the mouse and keyboard; apply edits to the map, the endpoints and the settings.
    RecordInput,
    /// Plan routes for whatever changed.
    Plan,
    /// Move units along their routes.
    Move,
    /// Bring the screen up to date: tiles, markers, sprites, HUD.
    Present,
}

/// Everything that decides what happens, without any window or renderer: the level, editing and
/// brushes, controls, planning (also asynchronous), the search replay, the race, the lab's unit
/// and crowds (selection, orders, flow fields, steering). Needs `MinimalPlugins` (or
/// `DefaultPlugins`) and Bevy's `InputPlugin`.
pub struct LogicPlugin;

impl Plugin for LogicPlugin {
    fn build(&self, app: &mut App) {
        app.configure_sets(
            Update,
            (AppSystems::RecordInput, AppSystems::Plan, AppSystems::Move, AppSystems::Present).chain(),
        );
        // The pathfinding any game can add: the lab's unit and the crowds are its users.
        app.add_plugins(bevy_gridpath::GridPathPlugin);
        app.configure_sets(
            Update,
            (
                (bevy_gridpath::GridPathSystems::Request, bevy_gridpath::GridPathSystems::Plan)
                    .in_set(AppSystems::Plan),
                bevy_gridpath::GridPathSystems::Move.in_set(AppSystems::Move),
            ),
        );
        app.add_plugins((
            notice::plugin,
            controls::plugin,
            level::plugin,
            planning::plugin,
            editor::plugin,
            animation::plugin,
            race::plugin,
            units::plugin,
            brushes::plugin,
        ));
        app.add_plugins((
            crowd::plugin,
            selection::plugin,
            steering::plugin,
            mapfiles::plugin,
            scenario::plugin,
        ));
    }
}

/// What the player sees and the window-side input: needs `DefaultPlugins` and [`LogicPlugin`].
/// The HUD and the controls panel only spawn UI nodes, so headless tests add them on their own.
pub struct PresentPlugin;

impl Plugin for PresentPlugin {
    fn build(&self, app: &mut App) {
        // The frame rate the HUD shows with F8.
        app.add_plugins(bevy::diagnostic::FrameTimeDiagnosticsPlugin::default());
        app.add_plugins((
            bevy_ecs_tilemap::TilemapPlugin,
            assets::plugin,
            camera::plugin,
            cursor::plugin,
            tilemap::plugin,
            units::view_plugin,
            selection::view_plugin,
            flowview::plugin,
            hud::plugin,
            panel::plugin,
        ));
    }
}
