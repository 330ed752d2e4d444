//! The lab's controls as one table, [`KEY_TABLE`]: every key and mouse gesture is declared there
//! once. Key presses become [`Control`] messages here (the panel's buttons write the same
//! messages), the panel's key labels, the `H` help overlay and `docs/controls.md` are generated
//! from the table, and a test keeps the page equal to it. Each feature reads the [`Control`]
//! messages it owns; the camera alone reads its held keys (panning) through [`pan_keys`].

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
    keys.any_pressed(SHIFT_KEYS)
}

/// Run condition: a Ctrl key is held.
pub fn ctrl_held(keys: Res<ButtonInput<KeyCode>>) -> bool {
    keys.any_pressed(CTRL_KEYS)
}

/// Run condition: `control` was sent this frame (by a key or a panel button). Order the system
/// after [`ControlSystems`].
pub fn control_sent(control: Control) -> impl FnMut(MessageReader<Control>) -> bool + Clone {
    move |mut controls: MessageReader<Control>| {
        // Every message is read (not `any`, which would stop at the first match and leave the
        // rest for the next frame's run): one press, one run.
        let sent: Vec<Control> = controls.read().copied().collect();
        sent.contains(&control)
    }
}

const SHIFT_KEYS: [KeyCode; 2] = [KeyCode::ShiftLeft, KeyCode::ShiftRight];
const CTRL_KEYS: [KeyCode; 2] = [KeyCode::ControlLeft, KeyCode::ControlRight];

/// Systems that turn input into [`Control`] messages; systems that apply them run after.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ControlSystems;

/// Which way the view pans.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PanDirection {
    /// Towards the map's left edge.
    Left,
    /// Towards the right edge.
    Right,
    /// Towards the top.
    Up,
    /// Towards the bottom.
    Down,
}

/// Something the player asked for with a key or a panel button. The keys are in [`KEY_TABLE`].
#[derive(Message, Clone, Copy, Debug, PartialEq)]
pub enum Control {
    /// Use this algorithm.
    SelectAlgorithm(Algorithm),
    /// The next (or with `back`, previous) algorithm that applies.
    CycleAlgorithm {
        /// Go backwards.
        back: bool,
    },
    /// Use 4 or 8 moves.
    SetMoves(gridpath::Moves),
    /// Toggle between 4 and 8 moves.
    ToggleMoves,
    /// Use this corner rule.
    SetCorners(gridpath::Corners),
    /// The next (or previous) corner rule.
    CycleCorners {
        /// Go backwards.
        back: bool,
    },
    /// Use this heuristic.
    SetHeuristic(gridpath::Heuristic),
    /// The next (or previous) heuristic.
    CycleHeuristic {
        /// Go backwards.
        back: bool,
    },
    /// Walk routes pulled taut into straight segments, or cell to cell.
    ToggleSmoothing,
    /// When the goal cannot be reached, go as close as possible (or stop).
    TogglePartial,
    /// Re-plan incrementally (D* Lite repairs the last search) or with a fresh search.
    ToggleIncremental,
    /// Heuristic weight down one step.
    WeightDown,
    /// Heuristic weight up one step.
    WeightUp,
    /// Replay the search more slowly.
    AnimationSlower,
    /// Replay the search faster; past the fastest rate, instantly.
    AnimationFaster,
    /// Show searches at once, without replay.
    AnimationInstant,
    /// Replay at the automatic speed: a few hundred events per second, faster on big searches
    /// so that no replay takes more than a few seconds.
    AnimationAuto,
    /// Pause or resume the replay; after the end, replay from the start.
    PlayPause,
    /// Pause and apply exactly one more search event.
    StepEvent,
    /// Skip to the end of the replay.
    SkipAnimation,
    /// Show or hide the flow-field view.
    ToggleFlowField,
    /// Show or hide the race table.
    ToggleRace,
    /// Show or hide the searched cells.
    ToggleSearchCells,
    /// Show or hide the frame rate in the HUD.
    ToggleFrameRate,
    /// Show or hide the help overlay.
    ToggleHelp,
    /// Paint with this brush.
    SelectBrush(Brush),
    /// Put the start on the cell under the cursor.
    PlaceStart,
    /// Put the goal on the cell under the cursor.
    PlaceGoal,
    /// Turn every wall back into floor.
    ClearWalls,
    /// Spawn one crowd unit on the cell under the cursor.
    SpawnUnit,
    /// Spawn a crowd of units at random free cells.
    SpawnCrowd,
    /// Spawn a unit this many cells wide and high, its top-left cell under the cursor.
    SpawnBigUnit(u8),
    /// Select every crowd unit.
    SelectAll,
    /// Crowd units avoid each other and the walls (ORCA) or are only pushed apart.
    ToggleAvoidance,
    /// Units walk more slowly.
    UnitSlower,
    /// Units walk faster.
    UnitFaster,
    /// Open the previous map of the built-in collection.
    PreviousMap,
    /// Open the next map of the built-in collection.
    NextMap,
    /// Save the map, its terrain and endpoints as a `.tpmap` file.
    SaveMap,
    /// Export the map as a Moving AI `.map` with benchmark queries (`.map.scen`) beside it.
    ExportBenchmark,
    /// Replace the map with a new one from the current generator and the next seed.
    RandomMap,
    /// Switch to the next map generator and make a map with it.
    NextGenerator,
    /// Fit the map to the window.
    FitMap,
    /// Pan the view while the key is held (read by the camera from [`pan_keys`], never sent).
    Pan(PanDirection),
    /// Scenario replay: spawn the next batch of queries as crowd units.
    ScenarioBatch,
    /// Scenario replay: give the lab's unit the next query now.
    NextQuery,
}

impl Control {
    /// The control whose key a panel button shows: a button that sets one value directly
    /// (`4 moves`, a corner rule) shows the key that cycles through the values.
    const fn keyed(self) -> Control {
        match self {
            Control::SetMoves(_) => Control::ToggleMoves,
            Control::SetCorners(_) => Control::CycleCorners { back: false },
            Control::SetHeuristic(_) => Control::CycleHeuristic { back: false },
            Control::AnimationInstant => Control::AnimationFaster,
            other => other,
        }
    }

    /// The key for this control as the panel's buttons show it (`"F1"`, `"Shift+["`), from
    /// [`KEY_TABLE`]; every key that sends it, joined with `/`.
    pub fn key_label(self) -> String {
        let keyed = self.keyed();
        let chords: Vec<String> = bindings()
            .filter(|binding| binding.control == Some(keyed))
            .map(|binding| binding.chord.label())
            .collect();
        chords.join("/")
    }
}

/// What sets a binding off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chord {
    /// The key pressed with neither Shift nor Ctrl held.
    Key(KeyCode),
    /// The key pressed with Shift held (and not Ctrl).
    Shift(KeyCode),
    /// The key pressed with Ctrl held.
    Ctrl(KeyCode),
    /// The key held down: it acts every frame while held (the camera reads these).
    Hold(KeyCode),
    /// A mouse or window gesture, read by its feature's own systems; the text says what.
    Pointer(&'static str),
}

impl Chord {
    /// How the help, the panel and the docs spell it (`"Shift+Tab"`, `"Esc"`, `"left-drag"`).
    pub fn label(self) -> String {
        match self {
            Chord::Key(key) | Chord::Hold(key) => key_name(key),
            Chord::Shift(key) => format!("Shift+{}", key_name(key)),
            Chord::Ctrl(key) => format!("Ctrl+{}", key_name(key)),
            Chord::Pointer(gesture) => gesture.to_owned(),
        }
    }

    /// Its key, if it is a key.
    pub const fn key(self) -> Option<KeyCode> {
        match self {
            Chord::Key(key) | Chord::Shift(key) | Chord::Ctrl(key) | Chord::Hold(key) => Some(key),
            Chord::Pointer(_) => None,
        }
    }
}

/// A key's printed name: the letter, digit or symbol on it, or its name (`Tab`, `F5`, `Left`).
pub fn key_name(key: KeyCode) -> String {
    let symbol = match key {
        KeyCode::Escape => "Esc",
        KeyCode::Minus => "-",
        KeyCode::Equal => "=",
        KeyCode::BracketLeft => "[",
        KeyCode::BracketRight => "]",
        KeyCode::Comma => ",",
        KeyCode::Period => ".",
        KeyCode::Slash => "/",
        _ => "",
    };
    if !symbol.is_empty() {
        return symbol.to_owned();
    }
    let name = format!("{key:?}");
    ["Key", "Digit", "Arrow"]
        .iter()
        .find_map(|prefix| name.strip_prefix(prefix))
        .map_or_else(|| name.clone(), str::to_owned)
}

/// One input and the control it sends (`None`: a gesture its feature reads itself).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Binding {
    /// The key or gesture.
    pub chord: Chord,
    /// What it asks for.
    pub control: Option<Control>,
}

const fn key(key: KeyCode, control: Control) -> Binding {
    Binding { chord: Chord::Key(key), control: Some(control) }
}

const fn shift(key: KeyCode, control: Control) -> Binding {
    Binding { chord: Chord::Shift(key), control: Some(control) }
}

const fn ctrl(key: KeyCode, control: Control) -> Binding {
    Binding { chord: Chord::Ctrl(key), control: Some(control) }
}

const fn hold(key: KeyCode, direction: PanDirection) -> Binding {
    Binding { chord: Chord::Hold(key), control: Some(Control::Pan(direction)) }
}

const fn pointer(gesture: &'static str) -> Binding {
    Binding { chord: Chord::Pointer(gesture), control: None }
}

/// Where a row appears in the help and the docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    /// Mouse and window gestures.
    Mouse,
    /// The map: brushes, endpoints, maps in and out, the view.
    Map,
    /// Crowd units and scenario replay.
    Crowd,
    /// Search settings.
    Search,
    /// The replay and the overlays.
    Replay,
}

impl Section {
    /// Every section, in the help's order.
    pub const ALL: [Section; 5] =
        [Section::Mouse, Section::Map, Section::Crowd, Section::Search, Section::Replay];

    /// Its heading.
    pub const fn title(self) -> &'static str {
        match self {
            Section::Mouse => "Mouse",
            Section::Map => "Map keys",
            Section::Crowd => "Crowd and scenario keys",
            Section::Search => "Search keys",
            Section::Replay => "Replay and views",
        }
    }
}

/// One line of the controls: its bindings and what they do.
#[derive(Clone, Copy, Debug)]
pub struct KeyRow {
    /// Where it appears.
    pub section: Section,
    /// The inputs, in the order the action's text names them (`"start / goal"`).
    pub bindings: &'static [Binding],
    /// What they do, short enough for the help overlay.
    pub action: &'static str,
    /// More for the docs page (empty when the action says it all).
    pub detail: &'static str,
}

impl KeyRow {
    /// The row's inputs as one label: `"S / G"`; runs of three or more consecutive digits or
    /// function keys as `"F1 - F7"`, the four arrows as `"arrow keys"`.
    pub fn keys_label(&self) -> String {
        self.key_parts().into_iter().map(|(label, _)| label).collect::<Vec<_>>().join(" / ")
    }

    /// The parts of [`KeyRow::keys_label`], each with whether it names keys (not a gesture).
    fn key_parts(&self) -> Vec<(String, bool)> {
        let labels: Vec<String> = self.bindings.iter().map(|binding| binding.chord.label()).collect();
        let mut parts = Vec::new();
        let mut i = 0;
        while i < labels.len() {
            let is_key = self.bindings[i].chord.key().is_some();
            if let Some(len) = numbered_run(&labels[i..]) {
                parts.push((format!("{} - {}", labels[i], labels[i + len - 1]), true));
                i += len;
            } else if self.bindings[i..].iter().take(4).filter(|b| matches!(b.chord, Chord::Hold(_))).count()
                == 4
            {
                parts.push(("arrow keys".to_owned(), true));
                i += 4;
            } else {
                parts.push((labels[i].clone(), is_key));
                i += 1;
            }
        }
        parts
    }
}

/// The length (3 or more) of the run of consecutively numbered keys (`1 2 3`, `F1 F2 F3`)
/// starting at `labels[0]`, if there is one.
fn numbered_run(labels: &[String]) -> Option<usize> {
    let number = |label: &str| -> Option<(bool, u32)> {
        let (f, digits) = label.strip_prefix('F').map_or((false, label), |rest| (true, rest));
        digits.parse().ok().map(|n| (f, n))
    };
    let (f, first) = number(labels.first()?)?;
    let len = labels
        .iter()
        .enumerate()
        .take_while(|(i, label)| number(label) == Some((f, first + *i as u32)))
        .count();
    (len >= 3).then_some(len)
}

/// Every binding of the lab, in the order the help and the docs list them.
pub const KEY_TABLE: &[KeyRow] = &[
    row(
        Section::Mouse,
        &[pointer("left-drag")],
        "paint with the brush",
        "along the dragged line, no gaps however fast the mouse",
    ),
    row(Section::Mouse, &[pointer("right-drag")], "erase (no unit selected)", "back to floor"),
    row(Section::Mouse, &[pointer("drag start / goal")], "move the marker", ""),
    row(
        Section::Mouse,
        &[pointer("Shift+left-drag")],
        "select crowd units in the box",
        "an empty box clears the selection",
    ),
    row(Section::Mouse, &[pointer("right-click")], "send the selected units there", ""),
    row(Section::Mouse, &[pointer("wheel"), pointer("middle-drag")], "zoom / pan", "zoom about the cursor"),
    row(Section::Mouse, &[pointer("panel buttons")], "the keys shown on them", ""),
    row(
        Section::Mouse,
        &[pointer("drop a file")],
        "open it as the map",
        "a map that does not read is refused and the current one kept",
    ),
    row(
        Section::Map,
        &[
            key(KeyCode::Digit0, Control::SelectBrush(Brush::Wall)),
            key(KeyCode::KeyW, Control::SelectBrush(Brush::Wall)),
        ],
        "brush: wall",
        "the default",
    ),
    row(
        Section::Map,
        &[
            key(KeyCode::Digit1, Control::SelectBrush(Brush::Floor)),
            key(KeyCode::Digit2, Control::SelectBrush(Brush::Grass)),
            key(KeyCode::Digit3, Control::SelectBrush(Brush::Mud)),
            key(KeyCode::Digit4, Control::SelectBrush(Brush::Shallows)),
        ],
        "floor 1, grass 2, mud 5, shallows 10",
        "brushes with their terrain costs",
    ),
    row(
        Section::Map,
        &[key(KeyCode::KeyS, Control::PlaceStart), key(KeyCode::KeyG, Control::PlaceGoal)],
        "start / goal under the cursor",
        "",
    ),
    row(Section::Map, &[key(KeyCode::KeyC, Control::ClearWalls)], "clear all walls", ""),
    row(
        Section::Map,
        &[key(KeyCode::KeyR, Control::RandomMap), shift(KeyCode::KeyR, Control::NextGenerator)],
        "new generated map / next generator",
        "next seed of the current generator / switch generator (noise, maze, rooms, caves) and make one",
    ),
    row(
        Section::Map,
        &[key(KeyCode::BracketLeft, Control::PreviousMap), key(KeyCode::BracketRight, Control::NextMap)],
        "previous / next built-in map",
        "the game's own maps (assets/maps/, embedded in the binary)",
    ),
    row(
        Section::Map,
        &[ctrl(KeyCode::KeyS, Control::SaveMap)],
        "save the map (.tpmap)",
        "walls, terrain, start and goal",
    ),
    row(
        Section::Map,
        &[ctrl(KeyCode::KeyE, Control::ExportBenchmark)],
        "export as a benchmark (.map + .scen)",
        "a Moving AI map and 100 queries with their optimal lengths, for gridpath scen and bench",
    ),
    row(
        Section::Map,
        &[
            hold(KeyCode::ArrowLeft, PanDirection::Left),
            hold(KeyCode::ArrowRight, PanDirection::Right),
            hold(KeyCode::ArrowUp, PanDirection::Up),
            hold(KeyCode::ArrowDown, PanDirection::Down),
            key(KeyCode::KeyF, Control::FitMap),
        ],
        "pan / fit the map to the window",
        "a tapped arrow pans 80 pixels, a held one keeps panning; the map is also fitted on load and resize",
    ),
    row(
        Section::Crowd,
        &[key(KeyCode::KeyU, Control::SpawnUnit), shift(KeyCode::KeyU, Control::SpawnCrowd)],
        "a unit at the cursor / 100 units",
        "the 100 at random free cells",
    ),
    row(
        Section::Crowd,
        &[key(KeyCode::KeyJ, Control::SpawnBigUnit(2)), shift(KeyCode::KeyJ, Control::SpawnBigUnit(3))],
        "a 2x2 / 3x3 unit at the cursor",
        "large units plan with their clearance: their whole body passes",
    ),
    row(Section::Crowd, &[key(KeyCode::KeyA, Control::SelectAll)], "select every crowd unit", ""),
    row(
        Section::Crowd,
        &[key(KeyCode::KeyO, Control::ToggleAvoidance)],
        "crowd avoidance: on / off",
        "on: units steer clear of each other and of walls (ORCA), never overlapping; off: only pushed apart",
    ),
    row(
        Section::Crowd,
        &[key(KeyCode::KeyB, Control::ScenarioBatch), key(KeyCode::KeyQ, Control::NextQuery)],
        "(--scen) 50 queries as a crowd / the unit takes the next query",
        "",
    ),
    row(
        Section::Search,
        &[
            key(KeyCode::F1, Control::SelectAlgorithm(Algorithm::AStar)),
            key(KeyCode::F2, Control::SelectAlgorithm(Algorithm::Dijkstra)),
            key(KeyCode::F3, Control::SelectAlgorithm(Algorithm::Bfs)),
            key(KeyCode::F4, Control::SelectAlgorithm(Algorithm::Greedy)),
            key(KeyCode::F5, Control::SelectAlgorithm(Algorithm::Jps)),
            key(KeyCode::F6, Control::SelectAlgorithm(Algorithm::Bidirectional)),
            key(KeyCode::F7, Control::SelectAlgorithm(Algorithm::Wavefront)),
            key(KeyCode::F8, Control::SelectAlgorithm(Algorithm::Theta)),
            key(KeyCode::F9, Control::SelectAlgorithm(Algorithm::LazyTheta)),
        ],
        "A*, Dijkstra, BFS, greedy, JPS, bidirectional, wavefront, Theta*, Lazy Theta*",
        "",
    ),
    row(
        Section::Search,
        &[
            key(KeyCode::Tab, Control::CycleAlgorithm { back: false }),
            shift(KeyCode::Tab, Control::CycleAlgorithm { back: true }),
        ],
        "next / previous algorithm",
        "skips the ones that do not apply",
    ),
    row(Section::Search, &[key(KeyCode::KeyM, Control::ToggleMoves)], "4 or 8 moves", ""),
    row(
        Section::Search,
        &[
            key(KeyCode::KeyK, Control::CycleCorners { back: false }),
            shift(KeyCode::KeyK, Control::CycleCorners { back: true }),
        ],
        "corner rule: next / previous",
        "no corner cutting, cut one corner, cut corners",
    ),
    row(
        Section::Search,
        &[
            key(KeyCode::KeyE, Control::CycleHeuristic { back: false }),
            shift(KeyCode::KeyE, Control::CycleHeuristic { back: true }),
        ],
        "heuristic: next / previous",
        "Manhattan, Euclidean, octile, Chebyshev, zero",
    ),
    row(
        Section::Search,
        &[key(KeyCode::KeyP, Control::ToggleSmoothing)],
        "routes: cell by cell / smoothed",
        "smoothed routes are pulled taut into straight lines with line of sight (never longer)",
    ),
    row(
        Section::Search,
        &[key(KeyCode::KeyL, Control::TogglePartial)],
        "unreachable goal: stop / go as close as possible",
        "partial routes end on the reachable cell nearest the goal",
    ),
    row(
        Section::Search,
        &[key(KeyCode::KeyI, Control::ToggleIncremental)],
        "re-planning: fresh / incremental",
        "D* Lite repairs the last search after an edit (A*'s costs); the replay shows the repair",
    ),
    row(
        Section::Search,
        &[shift(KeyCode::BracketLeft, Control::WeightDown), shift(KeyCode::BracketRight, Control::WeightUp)],
        "heuristic weight down / up",
        "1 to 5",
    ),
    row(Section::Replay, &[key(KeyCode::Space, Control::PlayPause)], "pause / play (replays when done)", ""),
    row(
        Section::Replay,
        &[key(KeyCode::KeyN, Control::StepEvent), key(KeyCode::Escape, Control::SkipAnimation)],
        "one search event / skip to the end",
        "N pauses first",
    ),
    row(
        Section::Replay,
        &[key(KeyCode::Comma, Control::AnimationSlower), key(KeyCode::Period, Control::AnimationFaster)],
        "replay slower / faster",
        "10, 30, 100, 300, 1,000, 3,000, 10,000 events/s, then instant",
    ),
    row(
        Section::Replay,
        &[key(KeyCode::Slash, Control::AnimationAuto)],
        "automatic speed (<= 3 s a search)",
        "the default: 300 events/s, faster when that would take over 3 s",
    ),
    row(
        Section::Replay,
        &[
            key(KeyCode::KeyT, Control::ToggleRace),
            key(KeyCode::KeyD, Control::ToggleFlowField),
            key(KeyCode::KeyV, Control::ToggleSearchCells),
        ],
        "race / flow field / searched cells",
        "show / hide; the race runs every algorithm on the current query",
    ),
    row(
        Section::Replay,
        &[key(KeyCode::Minus, Control::UnitSlower), key(KeyCode::Equal, Control::UnitFaster)],
        "unit speed down / up",
        "tiles per second",
    ),
    row(Section::Replay, &[key(KeyCode::F12, Control::ToggleFrameRate)], "frame rate on / off", "in the HUD"),
    row(
        Section::Replay,
        &[key(KeyCode::KeyH, Control::ToggleHelp)],
        "this help",
        "every key, the two waters, and where maps are saved",
    ),
];

const fn row(
    section: Section,
    bindings: &'static [Binding],
    action: &'static str,
    detail: &'static str,
) -> KeyRow {
    KeyRow { section, bindings, action, detail }
}

/// Every binding of [`KEY_TABLE`], in order.
pub fn bindings() -> impl Iterator<Item = &'static Binding> {
    KEY_TABLE.iter().flat_map(|row| row.bindings)
}

/// The held keys that pan the view, and which way.
pub fn pan_keys() -> impl Iterator<Item = (KeyCode, PanDirection)> {
    bindings().filter_map(|binding| match (binding.chord, binding.control) {
        (Chord::Hold(key), Some(Control::Pan(direction))) => Some((key, direction)),
        _ => None,
    })
}

/// Every control as a Markdown page: `docs/controls.md` is this text (`tilepath --controls`
/// prints it; a test keeps them equal).
pub fn controls_markdown() -> String {
    let mut page = String::from(
        "# Controls\n\nGenerated from the key table (`src/input/bindings.rs`) by `tilepath --controls`; \
         the `H` overlay and the panel's key labels come from the same table.\n",
    );
    for section in Section::ALL {
        page.push_str(&format!("\n## {}\n\n| Input | Action |\n|-------|--------|\n", section.title()));
        for row in KEY_TABLE.iter().filter(|row| row.section == section) {
            let keys: Vec<String> = row
                .key_parts()
                .into_iter()
                .map(|(label, is_key)| if is_key { format!("`{label}`") } else { label })
                .collect();
            let action = if row.detail.is_empty() {
                row.action.to_owned()
            } else {
                format!("{} — {}", row.action, row.detail)
            };
            page.push_str(&format!("| {} | {action} |\n", keys.join(" / ")));
        }
    }
    page
}

fn read_control_keys(keys: Res<ButtonInput<KeyCode>>, mut controls: MessageWriter<Control>) {
    if keys.get_just_pressed().len() == 0 {
        return;
    }
    let (shift, ctrl) = (keys.any_pressed(SHIFT_KEYS), keys.any_pressed(CTRL_KEYS));
    for binding in bindings() {
        // With Ctrl held only Ctrl chords act: Ctrl+S saves and does not also place the start.
        let (key, wanted) = match binding.chord {
            Chord::Key(key) => (key, !shift && !ctrl),
            Chord::Shift(key) => (key, shift && !ctrl),
            Chord::Ctrl(key) => (key, ctrl),
            Chord::Hold(_) | Chord::Pointer(_) => continue,
        };
        if let (true, Some(control)) = (wanted && keys.just_pressed(key), binding.control) {
            controls.write(control);
        }
    }
}
