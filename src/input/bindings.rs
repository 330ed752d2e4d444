//! The lab's controls as one table: every [`Control`] has a key (read here) and a button in the
//! controls panel (which writes the same message), so keys and clicks cannot drift apart.
//! Each feature reads the [`Control`] messages it owns: settings (planning), playback
//! (animation), the race table (race), the flow-field view and the search tint (view plugins).

use bevy::prelude::*;
use gridpath::Algorithm;

use crate::AppSystems;
use crate::map::terrain::Brush;

pub(super) fn plugin(app: &mut App) {
    app.add_message::<Control>();
    app.add_systems(Update, read_control_keys.in_set(AppSystems::RecordInput).in_set(ControlSystems));
}

/// Run condition: a Shift key is held.
pub fn shift_held(keys: Res<ButtonInput<KeyCode>>) -> bool {
    keys.any_pressed([KeyCode::ShiftLeft, KeyCode::ShiftRight])
}

/// Run condition: a Ctrl key is held. While it is, plain letter keys do nothing: `Ctrl+S` saves
/// the map and must not also put the start under the cursor.
pub fn ctrl_held(keys: Res<ButtonInput<KeyCode>>) -> bool {
    keys.any_pressed(CTRL_KEYS)
}

/// Both Ctrl keys.
const CTRL_KEYS: [KeyCode; 2] = [KeyCode::ControlLeft, KeyCode::ControlRight];

/// Systems that turn input into [`Control`] messages; systems that apply them run after.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ControlSystems;

/// Something the player asked for with a key or a panel button.
#[derive(Message, Clone, Copy, Debug, PartialEq)]
pub enum Control {
    /// Use this algorithm (keys `F1`–`F7`).
    SelectAlgorithm(Algorithm),
    /// The next (or with `back`, previous) algorithm that applies (`Tab` / `Shift+Tab`).
    CycleAlgorithm {
        /// Go backwards.
        back: bool,
    },
    /// Use 4 or 8 moves (`M` toggles).
    SetMoves(gridpath::Moves),
    /// Toggle between 4 and 8 moves (`M`).
    ToggleMoves,
    /// Use this corner rule.
    SetCorners(gridpath::Corners),
    /// The next (or previous) corner rule (`K` / `Shift+K`).
    CycleCorners {
        /// Go backwards.
        back: bool,
    },
    /// Use this heuristic.
    SetHeuristic(gridpath::Heuristic),
    /// The next (or previous) heuristic (`E` / `Shift+E`).
    CycleHeuristic {
        /// Go backwards.
        back: bool,
    },
    /// Heuristic weight down one step (`Shift+[`).
    WeightDown,
    /// Heuristic weight up one step (`Shift+]`).
    WeightUp,
    /// Replay the search more slowly (`,`).
    AnimationSlower,
    /// Replay the search faster; past the fastest rate, instantly (`.`).
    AnimationFaster,
    /// Show searches at once, without replay.
    AnimationInstant,
    /// Replay at the automatic speed: a few hundred events per second, faster on big searches
    /// so that no replay takes more than a few seconds (`/`).
    AnimationAuto,
    /// Pause or resume the replay; after the end, replay from the start (`Space`).
    PlayPause,
    /// Pause and apply exactly one more search event (`N`).
    StepEvent,
    /// Skip to the end of the replay (`Esc`).
    SkipAnimation,
    /// Show or hide the flow-field view (`D`).
    ToggleFlowField,
    /// Show or hide the race table (`T`).
    ToggleRace,
    /// Show or hide the searched cells (`V`).
    ToggleSearchCells,
    /// Show or hide the frame rate in the HUD (`F8`).
    ToggleFrameRate,
    /// Paint with this brush (`0`/`W` wall, `1`–`4` floor, grass, mud, shallows).
    SelectBrush(Brush),
    /// Spawn a crowd of units at random free cells (`Shift+U`).
    SpawnCrowd,
    /// Select every crowd unit (`A`).
    SelectAll,
    /// Open the previous map of the built-in collection (`[`).
    PreviousMap,
    /// Open the next map of the built-in collection (`]`).
    NextMap,
    /// Save the map, its terrain and endpoints as a `.tpmap` file (`Ctrl+S`).
    SaveMap,
    /// Replace the map with a new one from the current generator and the next seed (`R`).
    RandomMap,
    /// Switch to the next map generator and make a map with it (`Shift+R`).
    NextGenerator,
    /// Scenario replay: spawn the next batch of queries as crowd units (`B`).
    ScenarioBatch,
    /// Scenario replay: give the lab's unit the next query now (`Q`).
    NextQuery,
}

/// The keys behind the controls, as the panel and the help show them.
impl Control {
    /// The key (or keys) for this control, for button labels.
    pub fn key_label(self) -> &'static str {
        match self {
            Control::SelectAlgorithm(algorithm) => match algorithm {
                Algorithm::AStar => "F1",
                Algorithm::Dijkstra => "F2",
                Algorithm::Bfs => "F3",
                Algorithm::Greedy => "F4",
                Algorithm::Jps => "F5",
                Algorithm::Bidirectional => "F6",
                Algorithm::Wavefront => "F7",
            },
            Control::CycleAlgorithm { .. } => "Tab",
            Control::SetMoves(_) | Control::ToggleMoves => "M",
            Control::SetCorners(_) | Control::CycleCorners { .. } => "K",
            Control::SetHeuristic(_) | Control::CycleHeuristic { .. } => "E",
            Control::WeightDown => "Shift+[",
            Control::WeightUp => "Shift+]",
            Control::AnimationSlower => ",",
            Control::AnimationFaster | Control::AnimationInstant => ".",
            Control::AnimationAuto => "/",
            Control::PlayPause => "Space",
            Control::StepEvent => "N",
            Control::SkipAnimation => "Esc",
            Control::ToggleFlowField => "D",
            Control::ToggleRace => "T",
            Control::ToggleSearchCells => "V",
            Control::ToggleFrameRate => "F8",
            Control::SelectBrush(brush) => brush.key_label(),
            Control::SpawnCrowd => "Shift+U",
            Control::SelectAll => "A",
            Control::PreviousMap => "[",
            Control::NextMap => "]",
            Control::SaveMap => "Ctrl+S",
            Control::RandomMap => "R",
            Control::NextGenerator => "Shift+R",
            Control::ScenarioBatch => "B",
            Control::NextQuery => "Q",
        }
    }
}

/// Function keys `F1`–`F7`, in [`Algorithm::ALL`] order (the digits pick brushes).
const ALGORITHM_KEYS: [KeyCode; 7] =
    [KeyCode::F1, KeyCode::F2, KeyCode::F3, KeyCode::F4, KeyCode::F5, KeyCode::F6, KeyCode::F7];

/// Keys and the control each one sends, with Shift held or not.
const PLAIN_KEYS: [(KeyCode, Control); 20] = [
    (KeyCode::Digit0, Control::SelectBrush(Brush::Wall)),
    (KeyCode::KeyW, Control::SelectBrush(Brush::Wall)),
    (KeyCode::Digit1, Control::SelectBrush(Brush::Floor)),
    (KeyCode::Digit2, Control::SelectBrush(Brush::Grass)),
    (KeyCode::Digit3, Control::SelectBrush(Brush::Mud)),
    (KeyCode::Digit4, Control::SelectBrush(Brush::Shallows)),
    (KeyCode::KeyA, Control::SelectAll),
    (KeyCode::KeyM, Control::ToggleMoves),
    (KeyCode::KeyB, Control::ScenarioBatch),
    (KeyCode::KeyQ, Control::NextQuery),
    (KeyCode::Comma, Control::AnimationSlower),
    (KeyCode::Period, Control::AnimationFaster),
    (KeyCode::Slash, Control::AnimationAuto),
    (KeyCode::Space, Control::PlayPause),
    (KeyCode::KeyN, Control::StepEvent),
    (KeyCode::Escape, Control::SkipAnimation),
    (KeyCode::KeyD, Control::ToggleFlowField),
    (KeyCode::KeyT, Control::ToggleRace),
    (KeyCode::KeyV, Control::ToggleSearchCells),
    (KeyCode::F8, Control::ToggleFrameRate),
];

/// Keys that mean one thing alone and another with Shift: (key, alone, with Shift).
const SHIFTED_KEYS: [(KeyCode, Control, Control); 3] = [
    (KeyCode::BracketLeft, Control::PreviousMap, Control::WeightDown),
    (KeyCode::BracketRight, Control::NextMap, Control::WeightUp),
    (KeyCode::KeyR, Control::RandomMap, Control::NextGenerator),
];

fn read_control_keys(keys: Res<ButtonInput<KeyCode>>, mut controls: MessageWriter<Control>) {
    if keys.any_pressed(CTRL_KEYS) {
        // Only Ctrl shortcuts while Ctrl is held: Ctrl+S is not also an S.
        if keys.just_pressed(KeyCode::KeyS) {
            controls.write(Control::SaveMap);
        }
        return;
    }
    let back = keys.any_pressed([KeyCode::ShiftLeft, KeyCode::ShiftRight]);
    for (key, alone, shifted) in SHIFTED_KEYS {
        if keys.just_pressed(key) {
            controls.write(if back { shifted } else { alone });
        }
    }
    for (key, algorithm) in ALGORITHM_KEYS.into_iter().zip(Algorithm::ALL) {
        if keys.just_pressed(key) {
            controls.write(Control::SelectAlgorithm(algorithm));
        }
    }
    let cycles = [
        (KeyCode::Tab, Control::CycleAlgorithm { back }),
        (KeyCode::KeyK, Control::CycleCorners { back }),
        (KeyCode::KeyE, Control::CycleHeuristic { back }),
    ];
    for (key, control) in cycles.into_iter().chain(PLAIN_KEYS) {
        if keys.just_pressed(key) {
            controls.write(control);
        }
    }
    // Plain `U` spawns one unit at the cursor (the crowd plugin reads the key itself).
    if back && keys.just_pressed(KeyCode::KeyU) {
        controls.write(Control::SpawnCrowd);
    }
}
