//! Scripted mode for the real window (`tilepath --script FILE --screenshot OUT.png`): plays a
//! list of steps — cursor moves, mouse buttons, keys, waits — through the same input path a
//! person uses, then takes a screenshot and exits.
//!
//! Script format: one step per line; `#` starts a comment; blank lines are ignored. Every step
//! takes one frame, except the waits.
//!
//! | step                  | effect                                                          |
//! |-----------------------|-----------------------------------------------------------------|
//! | `move X Y`            | put the OS cursor on the centre of cell column X, row Y (row 0 on top, as in map files) |
//! | `press B` / `release B` | mouse button `left`, `right` or `middle`                      |
//! | `key K`               | press key K this frame, release it the next (any key of the key table: a letter or digit, `Left` `Right` `Up` `Down`, or its code name: `Tab`, `Space`, `Escape`, `Comma`, `BracketLeft`, `F5`…); `key Shift+K` / `key Ctrl+K` hold Shift / Ctrl with it |
//! | `wait N`              | let N frames pass                                               |
//! | `wait_arrival [N]`    | wait until every unit stands on the goal; fail if one has no path or after N frames (default 3000) |
//! | `wait_at X Y [N]`     | wait until a unit's centre is in cell X Y (a large unit's body centre); fail after N frames (default 3000) |
//! | `wait_crowd_at X Y [N]` | the same for a crowd unit only (the lab's unit racing the crowd does not count) |
//! | `resize W H`          | resize the window to W × H logical pixels                       |
//! | `screenshot PATH`     | save the window as PNG, plus the layout as JSON next to it (`PATH` with `.json`); relative to the working directory |
//! | `exit`                | quit with success                                               |
//!
//! A failed step (a cell off the map, a unit with no path, a timeout) quits with exit code 1.

use std::path::{Path, PathBuf};

use bevy::ecs::system::SystemParam;
use bevy::input::ButtonState;
use bevy::input::InputSystems;
use bevy::input::keyboard::{Key, KeyboardInput};
use bevy::input::mouse::MouseButtonInput;
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured, save_to_disk};
use bevy::window::PrimaryWindow;
use bevy_gridpath::PathStatus;
use gridpath::Pos;
use serde::{Deserialize, Serialize};

use crate::input::bindings::bindings;
use crate::map::problem::SearchProblem;
use crate::search::plan::PlanReport;
use crate::search::race::RaceTable;
use crate::search::replay::SearchAnimation;
use crate::units::big::BigUnit;
use crate::units::crowd::CrowdUnit;
use crate::units::lab::{Unit, status_label};
use crate::view::camera::MainCamera;
use crate::view::flow::FlowView;

/// Frames to let pass before the first step, so the window, camera and map are set up.
const WARMUP_FRAMES: u32 = 10;
/// Default frame limit of `wait_arrival`.
const DEFAULT_ARRIVAL_FRAMES: u32 = 3000;
/// Frames to wait after a screenshot was captured (it is written to disk by then).
const AFTER_SCREENSHOT_FRAMES: u32 = 2;

/// One step of a script.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Put the cursor on the centre of a cell.
    Move(Pos),
    /// Press a mouse button.
    Press(MouseButton),
    /// Release a mouse button.
    Release(MouseButton),
    /// Press a key, release it the next frame.
    Key(KeyCode),
    /// Press a key with Shift held, release both the next frame.
    ShiftKey(KeyCode),
    /// Press a key with Ctrl held, release both the next frame.
    CtrlKey(KeyCode),
    /// Let this many frames pass.
    Wait(u32),
    /// Wait until every unit arrived, at most this many frames.
    WaitArrival(u32),
    /// Wait until a unit's centre is in this cell, at most this many frames.
    WaitAt(Pos, u32),
    /// Wait until a crowd unit's centre is in this cell; give up after that many frames.
    WaitCrowdAt(Pos, u32),
    /// Resize the window to this width and height, in logical pixels.
    Resize(u32, u32),
    /// Save a screenshot (and its layout JSON).
    Screenshot(PathBuf),
    /// Quit with success.
    Exit,
}

/// A problem in a script file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for ScriptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ScriptError {}

/// Parses a script (format in the module documentation).
///
/// # Errors
/// The first line that is not a valid step.
pub fn parse_script(text: &str) -> Result<Vec<Step>, ScriptError> {
    let mut steps = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let content = raw.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let step = parse_step(content).map_err(|message| ScriptError { line: index + 1, message })?;
        steps.push(step);
    }
    Ok(steps)
}

fn parse_step(line: &str) -> Result<Step, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let number = |word: &str, what: &str| -> Result<u32, String> {
        word.parse().map_err(|_| format!("{what} must be a whole number, got {word:?}"))
    };
    match words.as_slice() {
        ["move", x, y] => Ok(Step::Move(Pos::new(number(x, "X")?, number(y, "Y")?))),
        ["press", button] => Ok(Step::Press(parse_button(button)?)),
        ["release", button] => Ok(Step::Release(parse_button(button)?)),
        ["key", key] => match (key.strip_prefix("Shift+"), key.strip_prefix("Ctrl+")) {
            (Some(key), _) => Ok(Step::ShiftKey(parse_key(key)?)),
            (_, Some(key)) => Ok(Step::CtrlKey(parse_key(key)?)),
            _ => Ok(Step::Key(parse_key(key)?)),
        },
        ["wait", frames] => Ok(Step::Wait(number(frames, "the frame count")?)),
        ["wait_arrival"] => Ok(Step::WaitArrival(DEFAULT_ARRIVAL_FRAMES)),
        ["wait_arrival", frames] => Ok(Step::WaitArrival(number(frames, "the frame limit")?)),
        ["wait_at", x, y] => {
            Ok(Step::WaitAt(Pos::new(number(x, "X")?, number(y, "Y")?), DEFAULT_ARRIVAL_FRAMES))
        }
        ["wait_at", x, y, frames] => {
            Ok(Step::WaitAt(Pos::new(number(x, "X")?, number(y, "Y")?), number(frames, "the frame limit")?))
        }
        ["wait_crowd_at", x, y] => {
            Ok(Step::WaitCrowdAt(Pos::new(number(x, "X")?, number(y, "Y")?), DEFAULT_ARRIVAL_FRAMES))
        }
        ["wait_crowd_at", x, y, frames] => Ok(Step::WaitCrowdAt(
            Pos::new(number(x, "X")?, number(y, "Y")?),
            number(frames, "the frame limit")?,
        )),
        ["resize", width, height] => {
            let (width, height) = (number(width, "the width")?, number(height, "the height")?);
            if !(200..=8192).contains(&width) || !(200..=8192).contains(&height) {
                return Err(format!("a window of {width} x {height} is out of range (200 to 8192 a side)"));
            }
            Ok(Step::Resize(width, height))
        }
        ["screenshot", path] => Ok(Step::Screenshot(PathBuf::from(path))),
        ["exit"] => Ok(Step::Exit),
        _ => Err(format!(
            "unknown step {line:?}: expected move X Y, press|release left|right|middle, key K, \
             wait N, wait_arrival [N], wait_at X Y [N], wait_crowd_at X Y [N], resize W H, screenshot PATH \
             or exit"
        )),
    }
}

fn parse_button(word: &str) -> Result<MouseButton, String> {
    match word {
        "left" => Ok(MouseButton::Left),
        "right" => Ok(MouseButton::Right),
        "middle" => Ok(MouseButton::Middle),
        _ => Err(format!("unknown mouse button {word:?}: use left, right or middle")),
    }
}

/// A key of the key table by name: a letter, a digit, `Left` / `Right` / `Up` / `Down`, or the
/// key's code name (`Space`, `Escape`, `Comma`, `BracketLeft`, `F5`…). Keys nothing is bound to
/// are refused: a script cannot press a key the game does not read.
pub fn parse_key(word: &str) -> Result<KeyCode, String> {
    let code_name = match word {
        "Left" | "Right" | "Up" | "Down" => format!("Arrow{word}"),
        _ if word.len() == 1 && word.chars().all(|c| c.is_ascii_alphabetic()) => {
            format!("Key{}", word.to_ascii_uppercase())
        }
        _ if word.len() == 1 && word.chars().all(|c| c.is_ascii_digit()) => format!("Digit{word}"),
        _ => word.to_owned(),
    };
    bindings()
        .filter_map(|binding| binding.chord.key())
        .find(|key| format!("{key:?}") == code_name)
        .ok_or_else(|| {
            format!("unknown key {word:?} (a letter, a digit or a key name such as Space, Escape, F5)")
        })
}

/// The text a key types, for [`KeyboardInput::logical_key`].
fn logical_key(key: KeyCode) -> Key {
    let name = format!("{key:?}");
    match name.strip_prefix("Key").or_else(|| name.strip_prefix("Digit")) {
        Some(c) if c.len() == 1 => Key::Character(c.to_lowercase().as_str().into()),
        _ => match key {
            KeyCode::Tab => Key::Tab,
            KeyCode::Space => Key::Space,
            KeyCode::Enter => Key::Enter,
            KeyCode::Escape => Key::Escape,
            KeyCode::ArrowLeft => Key::ArrowLeft,
            KeyCode::ArrowRight => Key::ArrowRight,
            KeyCode::ArrowUp => Key::ArrowUp,
            KeyCode::ArrowDown => Key::ArrowDown,
            KeyCode::Minus => Key::Character("-".into()),
            KeyCode::Equal => Key::Character("=".into()),
            KeyCode::BracketLeft => Key::Character("[".into()),
            KeyCode::BracketRight => Key::Character("]".into()),
            KeyCode::Comma => Key::Character(",".into()),
            KeyCode::Period => Key::Character(".".into()),
            KeyCode::ShiftLeft => Key::Shift,
            _ => Key::Unidentified(bevy::input::keyboard::NativeKey::Unidentified),
        },
    }
}

/// Reads and parses a script file.
///
/// # Errors
/// A message naming the file and the problem.
pub fn load_script(path: &Path) -> Result<Vec<Step>, String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("cannot read script {}: {e}", path.display()))?;
    parse_script(&text).map_err(|e| format!("script {}: {e}", path.display()))
}

/// Plays `steps`, then saves `screenshot` (if any) and exits.
pub struct ScriptPlugin {
    /// The steps.
    pub steps: Vec<Step>,
    /// A screenshot to take after the last step.
    pub screenshot: Option<PathBuf>,
}

impl Plugin for ScriptPlugin {
    fn build(&self, app: &mut App) {
        let mut steps = self.steps.clone();
        if let Some(path) = &self.screenshot {
            steps.push(Step::Screenshot(path.clone()));
        }
        steps.push(Step::Exit);
        app.insert_resource(ScriptRunner {
            steps,
            next: 0,
            waiting: Waiting::Frames(WARMUP_FRAMES),
            held_keys: Vec::new(),
        });
        app.init_resource::<ScreenshotsSaved>();
        app.add_systems(
            PreUpdate,
            (run_script, hold_replay_until_the_first_step).chain().before(InputSystems),
        );
    }
}

/// Holds the search replay paused until the script's first step: the replay starts with the
/// app's first frame at the automatic rate (over within 3 s of game time), and on a loaded
/// machine the warm-up frames alone took that long (Bevy counts up to 0.25 s a frame), so a
/// script that slowed the replay and paused it mid-way found it over and replayed it instead.
fn hold_replay_until_the_first_step(
    runner: Res<ScriptRunner>,
    animation: Option<ResMut<SearchAnimation>>,
    mut held: Local<bool>,
) {
    let Some(mut animation) = animation else { return };
    if runner.next == 0 {
        if !animation.is_paused() {
            animation.set_paused(true);
        }
        *held = true;
    } else if std::mem::take(&mut *held) {
        animation.set_paused(false);
    }
}

/// Where the script is.
#[derive(Resource, Debug)]
struct ScriptRunner {
    steps: Vec<Step>,
    /// Index of the next step.
    next: usize,
    /// What the script waits for before the next step.
    waiting: Waiting,
    /// Keys pressed last frame, to release this frame.
    held_keys: Vec<KeyCode>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Waiting {
    Nothing,
    /// Frames left.
    Frames(u32),
    /// Frames left before giving up.
    Arrival(u32),
    /// A unit's centre (a crowd unit's, when `true`) in this cell; frames left before giving up.
    At(Pos, u32, bool),
    /// The screenshot count to reach.
    Screenshot(u32),
    /// The script ended; the exit was requested.
    Done,
}

/// Screenshots captured so far.
#[derive(Resource, Debug, Default)]
struct ScreenshotsSaved(u32);

/// What the script reads to place the cursor and describe the screen.
#[derive(SystemParam)]
struct ScriptView<'w, 's> {
    camera: Single<'w, 's, (&'static Camera, &'static GlobalTransform), With<MainCamera>>,
    problem: SearchProblem<'w>,
    report: Res<'w, PlanReport>,
    animation: Res<'w, SearchAnimation>,
    race: Res<'w, RaceTable>,
    flow: Res<'w, FlowView>,
    units: Query<'w, 's, UnitView>,
    boxes: Query<
        'w,
        's,
        (&'static Name, &'static ComputedNode, &'static UiGlobalTransform, &'static InheritedVisibility),
    >,
    saved: Res<'w, ScreenshotsSaved>,
}

/// What the script reads of a unit: where it is, its status, its body's side if it is large,
/// whether it is a crowd unit.
type UnitView =
    (&'static Unit, &'static PathStatus, &'static Transform, Option<&'static BigUnit>, Has<CrowdUnit>);

/// What the script writes: input as the window would deliver it, screenshots, the exit.
#[derive(SystemParam)]
struct ScriptOutput<'w, 's> {
    mouse: MessageWriter<'w, MouseButtonInput>,
    keyboard: MessageWriter<'w, KeyboardInput>,
    commands: Commands<'w, 's>,
    exit: MessageWriter<'w, AppExit>,
}

fn run_script(
    mut runner: ResMut<ScriptRunner>,
    window: Single<(Entity, &mut Window), With<PrimaryWindow>>,
    view: ScriptView,
    mut output: ScriptOutput,
) {
    let (window_entity, mut window) = window.into_inner();
    for key in std::mem::take(&mut runner.held_keys) {
        output.keyboard.write(key_message(window_entity, key, ButtonState::Released));
    }
    let outcome = match next_wait(runner.waiting, &view.units, &view.problem, view.saved.0) {
        Ok(Waiting::Nothing) => match runner.steps.get(runner.next).cloned() {
            Some(step) => {
                runner.next += 1;
                info!("script step {}: {step:?}", runner.next);
                take_step(step, (window_entity, &mut window), &view, &mut output, &mut runner.held_keys)
            }
            None => {
                output.exit.write(AppExit::Success);
                Ok(Waiting::Done)
            }
        },
        other => other,
    };
    runner.waiting = outcome.unwrap_or_else(|message| {
        error!("script failed: {message}");
        output.exit.write(AppExit::from_code(1));
        Waiting::Done
    });
}

/// A key event for the primary window.
fn key_message(window: Entity, key_code: KeyCode, state: ButtonState) -> KeyboardInput {
    KeyboardInput { key_code, logical_key: logical_key(key_code), state, text: None, repeat: false, window }
}

/// Plays one step; the keys it presses go to `held_keys`, released the next frame.
///
/// # Errors
/// The step cannot be played (a cell off the map, a layout that cannot be written).
fn take_step(
    step: Step,
    (window_entity, window): (Entity, &mut Window),
    view: &ScriptView,
    output: &mut ScriptOutput,
    held_keys: &mut Vec<KeyCode>,
) -> Result<Waiting, String> {
    let (camera, camera_transform) = *view.camera;
    let mut press = |keys: &[KeyCode]| {
        for &key in keys {
            output.keyboard.write(key_message(window_entity, key, ButtonState::Pressed));
            held_keys.push(key);
        }
        Ok(Waiting::Nothing)
    };
    match step {
        Step::Move(cell) => cursor_target(camera, camera_transform, &view.problem, cell).map(|position| {
            window.set_cursor_position(Some(position));
            Waiting::Nothing
        }),
        Step::Press(button) | Step::Release(button) => {
            let state =
                if matches!(step, Step::Press(_)) { ButtonState::Pressed } else { ButtonState::Released };
            output.mouse.write(MouseButtonInput { button, state, window: window_entity });
            Ok(Waiting::Nothing)
        }
        Step::Key(key) => press(&[key]),
        Step::ShiftKey(key) => press(&[KeyCode::ShiftLeft, key]),
        Step::CtrlKey(key) => press(&[KeyCode::ControlLeft, key]),
        Step::Wait(frames) => Ok(Waiting::Frames(frames)),
        Step::Resize(width, height) => {
            // Float from count: window sides are far below 2^24.
            window.resolution.set(width as f32, height as f32);
            Ok(Waiting::Nothing)
        }
        Step::WaitArrival(frames) => Ok(Waiting::Arrival(frames)),
        Step::WaitAt(cell, frames) | Step::WaitCrowdAt(cell, frames) => {
            if view.problem.grid().in_bounds(cell) {
                Ok(Waiting::At(cell, frames, matches!(step, Step::WaitCrowdAt(..))))
            } else {
                Err(format!("cell {cell} is off the map"))
            }
        }
        Step::Screenshot(path) => {
            let layout = Layout::describe(view, window);
            let json_path = path.with_extension("json");
            let json = serde_json::to_string_pretty(&layout).map_err(|e| format!("layout JSON: {e}"))?;
            // Atomic, like every file the game writes: a checker never reads half a layout.
            gridpath::formats::write_atomic(&json_path, json.as_bytes())
                .map_err(|e| format!("cannot write {}: {e}", json_path.display()))?;
            output
                .commands
                .spawn(Screenshot::primary_window())
                .observe(save_to_disk(path))
                .observe(count_screenshot);
            Ok(Waiting::Screenshot(view.saved.0 + 1))
        }
        Step::Exit => {
            output.exit.write(AppExit::Success);
            Ok(Waiting::Done)
        }
    }
}

/// What is still awaited after this frame; [`Waiting::Nothing`] when the next step may run.
///
/// # Errors
/// A unit has no path, or the arrival wait timed out.
fn next_wait(
    waiting: Waiting,
    units: &Query<UnitView>,
    problem: &SearchProblem,
    screenshots: u32,
) -> Result<Waiting, String> {
    Ok(match waiting {
        Waiting::Nothing | Waiting::Frames(0) => Waiting::Nothing,
        Waiting::Frames(left) => Waiting::Frames(left - 1),
        Waiting::Arrival(left) => {
            if let Some(PathStatus::Failed(reason)) =
                units.iter().map(|(_, status, ..)| status).find(|s| matches!(s, PathStatus::Failed(_)))
            {
                return Err(format!("a unit has no path: {reason}"));
            }
            if units.iter().all(|(_, status, ..)| *status == PathStatus::Arrived) {
                Waiting::Nothing
            } else if left == 0 {
                return Err("wait_arrival timed out".to_owned());
            } else {
                Waiting::Arrival(left - 1)
            }
        }
        Waiting::At(cell, left, crowd_only) => {
            let geometry = problem.geometry();
            let there =
                |(_, _, transform, _, crowd): (&Unit, &PathStatus, &Transform, Option<&BigUnit>, bool)| {
                    (crowd || !crowd_only) && geometry.cell_at(transform.translation.truncate()) == Some(cell)
                };
            if units.iter().any(there) {
                Waiting::Nothing
            } else if left == 0 {
                let who = if crowd_only { "crowd unit's" } else { "unit's" };
                return Err(format!(
                    "waiting for a unit at {cell} timed out: no {who} centre came into that cell"
                ));
            } else {
                Waiting::At(cell, left - 1, crowd_only)
            }
        }
        Waiting::Screenshot(count) if screenshots >= count => Waiting::Frames(AFTER_SCREENSHOT_FRAMES),
        other @ (Waiting::Screenshot(_) | Waiting::Done) => other,
    })
}

/// Where the cursor must go to point at the centre of `cell`, in logical window pixels.
///
/// # Errors
/// The cell is off the map, or the camera cannot project it.
fn cursor_target(
    camera: &Camera,
    camera_transform: &GlobalTransform,
    problem: &SearchProblem,
    cell: Pos,
) -> Result<Vec2, String> {
    if !problem.grid().in_bounds(cell) {
        return Err(format!("cell {cell} is off the map"));
    }
    let world = problem.geometry().cell_center(cell).extend(0.0);
    camera
        .world_to_viewport(camera_transform, world)
        .map_err(|error| format!("cannot put the cursor on {cell}: {error:?}"))
}

fn count_screenshot(_: On<ScreenshotCaptured>, mut saved: ResMut<ScreenshotsSaved>) {
    saved.0 += 1;
}

/// Where things are on screen, in screenshot pixels (physical, origin top-left): what the
/// real-window test needs to find cells in the image; plus the replay's progress, the race
/// table and the named UI boxes. Written next to each screenshot as JSON.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Layout {
    /// The map's size in cells.
    pub map: Size,
    /// The screenshot's size in pixels.
    pub image: Size,
    /// Pixels per cell.
    pub cell_pixels: f32,
    /// Where cell (0, 0)'s centre is in the image.
    pub cell0_center: [f32; 2],
    /// The start cell.
    pub start: [u32; 2],
    /// The goal cell.
    pub goal: [u32; 2],
    /// Every unit (the lab's first).
    pub units: Vec<UnitPlace>,
    /// The replay's progress.
    pub animation: Progress,
    /// Rows of the race table shown (0 while it is hidden).
    pub race_rows: usize,
    /// Whether the flow-field view is on.
    pub flow_field: bool,
    /// Every named UI node that is laid out and visible, sorted by name.
    pub ui: Vec<UiBox>,
    /// The main route's cells.
    pub path: Vec<[u32; 2]>,
}

/// A width and a height.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size {
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
}

/// A unit in the layout.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct UnitPlace {
    /// The cell it stands on.
    pub cell: [u32; 2],
    /// Its centre in the image.
    pub pixel: [f32; 2],
    /// Its status as the HUD says it (`walking`, `arrived`…).
    pub status: String,
    /// Its body's side in cells (1, or 2 and 3 for large units).
    pub size: u8,
}

/// The replay's progress.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Events applied.
    pub applied: usize,
    /// Events in the search.
    pub total: usize,
    /// Whether the replay is paused.
    pub paused: bool,
}

/// A named UI node's rectangle: `[left, top, right, bottom]` in image pixels.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct UiBox {
    /// Its `Name`.
    pub name: String,
    /// Where it is.
    pub rect: [f32; 4],
}

impl Layout {
    fn describe(view: &ScriptView, window: &Window) -> Self {
        let (camera, camera_transform) = *view.camera;
        let geometry = view.problem.geometry();
        let scale = window.scale_factor();
        let to_pixel = |world: Vec2| {
            let pixel = camera
                .world_to_viewport(camera_transform, world.extend(0.0))
                .map(|p| p * scale)
                .unwrap_or(Vec2::NAN);
            [pixel.x, pixel.y]
        };
        let cell = |p: Pos| [p.x, p.y];
        let origin = to_pixel(geometry.cell_center(Pos::new(0, 0)));
        let units = view
            .units
            .iter()
            .map(|(unit, status, transform, big, _)| UnitPlace {
                cell: cell(unit.cell()),
                pixel: to_pixel(transform.translation.truncate()),
                status: status_label(status).to_owned(),
                size: big.map_or(1, |big| big.size),
            })
            .collect();
        let mut ui: Vec<UiBox> = view
            .boxes
            .iter()
            .filter(|(_, node, _, visible)| visible.get() && node.size().x > 0.0 && node.size().y > 0.0)
            .map(|(name, node, transform, _)| {
                let (min, max) =
                    (transform.translation - node.size() / 2.0, transform.translation + node.size() / 2.0);
                UiBox { name: name.as_str().to_owned(), rect: [min.x, min.y, max.x, max.y] }
            })
            .collect();
        ui.sort_by(|a, b| a.name.cmp(&b.name));
        let animation = &view.animation;
        Layout {
            map: Size { width: geometry.width, height: geometry.height },
            image: Size { width: window.physical_width(), height: window.physical_height() },
            cell_pixels: to_pixel(geometry.cell_center(Pos::new(1, 0)))[0] - origin[0],
            cell0_center: origin,
            start: cell(view.problem.start()),
            goal: cell(view.problem.goal()),
            units,
            animation: Progress {
                applied: animation.applied(),
                total: animation.total(),
                paused: animation.is_paused(),
            },
            race_rows: if view.race.shown { view.race.rows.len() } else { 0 },
            flow_field: view.flow.shown,
            ui,
            path: view.report.outcome.cells().iter().map(|&p| cell(p)).collect(),
        }
    }
}
