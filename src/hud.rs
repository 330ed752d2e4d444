//! The HUD: a bar on top with the search settings and the current search's stats (cost, cells,
//! nodes expanded, peak open list, time), the replay and the unit's state, the latest notice and
//! `H: help`; `H` toggles an overlay listing every control.
//!
//! It only spawns UI nodes and writes their text, so the headless tests add it too (its
//! [`plugin`] is public for them) and read what a player would read.

use bevy::input::common_conditions::input_just_pressed;
use bevy::prelude::*;

use crate::AppSystems;
use crate::animation::{AnimationSpeed, SearchAnimation};
use crate::brushes::CurrentBrush;
use crate::crowd::CrowdUnit;
use crate::level::MapInfo;
use crate::mapfiles::UnsavedEdits;
use crate::notice::{Notice, Severity};
use crate::planning::{Pathfinder, PlanOutcome, PlanReport, corners_label, moves_label};
use crate::scenario::ScenarioRun;
use crate::selection::Selected;
use crate::theme::{GOOD_COLOR, TEXT_COLOR};
use crate::units::{LabUnit, Speed, UnitStatus};

/// Height of the HUD bar, in logical pixels (the camera keeps the map below it).
pub(crate) const HUD_HEIGHT: f32 = 58.0;
/// How long a notice stays, in seconds.
const NOTICE_SECONDS: f32 = 5.0;
/// HUD text size, in logical pixels.
const FONT_SIZE: FontSize = FontSize::Px(15.0);
/// Help text size, in logical pixels.
const HELP_FONT_SIZE: FontSize = FontSize::Px(13.0);

const BAR_COLOR: Color = Color::srgba(0.07, 0.08, 0.11, 0.92);
const DIM_COLOR: Color = Color::srgb(0.62, 0.65, 0.72);
const WARN_COLOR: Color = Color::srgb(1.0, 0.78, 0.35);
const ERROR_COLOR: Color = Color::srgb(1.0, 0.45, 0.42);

/// Every control, one per line: shown by `H`.
const HELP: &str = "\
Mouse
  left-drag            paint with the brush (no gaps, however fast)
  right-drag           erase (back to floor), when no unit is selected
  drag start or goal   move the marker
  Shift+left-drag      select the crowd units in the box
  right-click          send the selected units there
  wheel                zoom about the cursor
  middle-drag          pan
  panel buttons        the keys shown on them

Map keys
  0 or W / 1 - 4       brush: wall / floor 1, grass 2, mud 5, water 10
  S / G                put the start / goal under the cursor
  C                    clear all walls
  R / Shift+R          new map from the generator / next generator
  [ / ]                previous / next map of the game's maps
  Ctrl+S               save the map (.tpmap); drop a file to open it
  arrow keys / F       pan / fit the map to the window

Scenario keys (tilepath --scen FILE)
  B                    the next 50 queries as crowd units
  Q                    the lab's unit takes the next query now

Crowd keys
  U / Shift+U          one unit at the cursor / 100 at random cells
  A                    select every crowd unit

Search keys
  F1 - F7              A*, Dijkstra, BFS, greedy, JPS, bidir, wavefront
  Tab / Shift+Tab      next / previous algorithm that applies
  M                    4 or 8 moves
  K / Shift+K          corner rule
  E / Shift+E          heuristic
  Shift+[ / Shift+]    heuristic weight down / up

Animation and views
  Space                pause / play (replay when shown)
  N                    one search event
  Esc                  skip to the end
  , / .                replay slower / faster (past 10000/s: instant)
  T                    race every algorithm
  D                    flow field: distance heat map, arrows
  V                    show / hide the searched cells
  - / =                unit speed down / up
  H                    show / hide this help

The unit waits while the search replays, then walks;
it re-plans when the map, goal or settings change.
Crowds sharing a goal follow one flow field.";

/// Adds the HUD bar and the help overlay.
pub fn plugin(app: &mut App) {
    app.init_resource::<LatestNotice>();
    app.add_systems(Startup, spawn_hud);
    app.add_systems(
        Update,
        toggle_help.run_if(input_just_pressed(KeyCode::KeyH)).in_set(AppSystems::RecordInput),
    );
    app.add_systems(
        Update,
        (remember_notices, update_search_line, update_status_line, update_notice, update_scenario_box)
            .chain()
            .in_set(AppSystems::Present),
    );
}

/// The HUD line with the search settings.
#[derive(Component)]
struct SettingsText;

/// The HUD line with the search result.
#[derive(Component)]
struct ResultText;

/// The HUD line with the map and unit state.
#[derive(Component)]
struct StatusText;

/// The HUD text with the latest notice.
#[derive(Component)]
struct NoticeText;

/// The help overlay.
#[derive(Component)]
struct HelpPanel;

/// The scenario box under the HUD bar (shown while a scenario runs).
#[derive(Component)]
struct ScenarioBox;

/// The notice on screen and when it expires (elapsed seconds since start-up).
#[derive(Resource, Default)]
struct LatestNotice(Option<(Notice, f32)>);

fn text(value: impl Into<String>, color: Color, size: FontSize) -> impl Bundle {
    (Text::new(value), TextFont { font_size: size, ..default() }, TextColor(color), TextLayout::no_wrap())
}

fn spawn_hud(mut commands: Commands) {
    let row = || Node { column_gap: px(18), align_items: AlignItems::Center, ..default() };
    commands.spawn((
        Name::new("HUD"),
        Node {
            position_type: PositionType::Absolute,
            top: px(0),
            left: px(0),
            width: percent(100),
            height: px(HUD_HEIGHT),
            padding: UiRect::axes(px(12), px(6)),
            flex_direction: FlexDirection::Column,
            justify_content: JustifyContent::SpaceEvenly,
            // A narrow window cuts the lines off rather than spilling over the map.
            overflow: Overflow::clip(),
            ..default()
        },
        BackgroundColor(BAR_COLOR),
        children![
            (
                row(),
                children![
                    (text("", TEXT_COLOR, FONT_SIZE), SettingsText),
                    (text("", GOOD_COLOR, FONT_SIZE), ResultText),
                ]
            ),
            (
                row(),
                children![
                    (text("", DIM_COLOR, FONT_SIZE), StatusText),
                    (text("", WARN_COLOR, FONT_SIZE), NoticeText),
                ]
            ),
        ],
    ));
    commands.spawn((
        Name::new("Scenario"),
        ScenarioBox,
        Node {
            display: Display::None,
            position_type: PositionType::Absolute,
            top: px(HUD_HEIGHT + 6.0),
            left: px(12),
            padding: UiRect::axes(px(10), px(5)),
            border_radius: BorderRadius::all(px(6)),
            ..default()
        },
        BackgroundColor(BAR_COLOR),
        children![text("", TEXT_COLOR, FONT_SIZE)],
    ));
    commands.spawn((
        Name::new("Help"),
        HelpPanel,
        Node {
            display: Display::None,
            position_type: PositionType::Absolute,
            top: px(HUD_HEIGHT + 16.0),
            left: px(16),
            padding: UiRect::all(px(16)),
            border_radius: BorderRadius::all(px(8)),
            ..default()
        },
        BackgroundColor(BAR_COLOR),
        children![text(HELP, TEXT_COLOR, HELP_FONT_SIZE)],
    ));
}

fn toggle_help(mut panel: Single<&mut Node, With<HelpPanel>>) {
    panel.display = match panel.display {
        Display::None => Display::Flex,
        _ => Display::None,
    };
}

/// Sets `target` to `value` only when it differs, so unchanged text is not laid out again.
fn set_text(target: &mut Text, value: String) {
    if target.0 != value {
        target.0 = value;
    }
}

fn update_search_line(
    pathfinder: Res<Pathfinder>,
    report: Res<PlanReport>,
    mut settings_text: Single<&mut Text, (With<SettingsText>, Without<ResultText>)>,
    result_text: Single<(&mut Text, &mut TextColor), With<ResultText>>,
) {
    let settings = pathfinder.settings();
    let rules = settings.rules;
    let corners = match rules.moves {
        gridpath::Moves::Four => String::new(),
        gridpath::Moves::Eight => format!(", {}", corners_label(rules.corners)),
    };
    let line = format!(
        "{}  |  {} moves{}  |  heuristic {} x{:.1}",
        settings.algorithm,
        moves_label(rules.moves),
        corners,
        settings.heuristic.name(),
        settings.weight,
    );
    set_text(&mut settings_text, line);
    let (mut result, mut color) = result_text.into_inner();
    let (line, tint) = match &report.outcome {
        PlanOutcome::Pending => ("planning...".to_owned(), DIM_COLOR),
        PlanOutcome::Found { path, micros } => (
            format!(
                "cost {:.2}  |  {} cells  |  {} expanded  |  peak open {}  |  {} us",
                path.cost,
                path.cells.len(),
                path.stats.expanded,
                path.stats.peak_open,
                micros
            ),
            GOOD_COLOR,
        ),
        PlanOutcome::Failed(error) => (error.to_string(), ERROR_COLOR),
    };
    set_text(&mut result, line);
    color.set_if_neq(TextColor(tint));
}

fn update_status_line(
    pathfinder: Res<Pathfinder>,
    animation: Res<SearchAnimation>,
    speed: Res<AnimationSpeed>,
    map: Res<MapInfo>,
    unsaved: Option<Res<UnsavedEdits>>,
    brush: Res<CurrentBrush>,
    units: Query<(&UnitStatus, &Speed), With<LabUnit>>,
    crowd: Query<(&UnitStatus, Has<Selected>), With<CrowdUnit>>,
    status_text: Single<(&mut Text, &mut TextColor), With<StatusText>>,
) {
    let grid = pathfinder.grid();
    let mut line = format!("{} {}x{}", map.name, grid.width(), grid.height());
    let mut tint = DIM_COLOR;
    if let Some(error) = &map.error {
        line = format!("{error}  (showing the built-in map)");
        tint = ERROR_COLOR;
    }
    if unsaved.is_some_and(|u| u.is_unsaved()) {
        line.push_str(" (unsaved)");
    }
    if !animation.is_finished() {
        let state = if animation.is_paused() { "paused" } else { "replay" };
        line.push_str(&format!(
            "  |  search {state} {}/{}, {}",
            animation.applied(),
            animation.total(),
            speed.label()
        ));
    }
    if let Ok((status, speed)) = units.single() {
        let label =
            if *status == UnitStatus::Walking && !animation.is_finished() { "waits" } else { status.label() };
        line.push_str(&format!("  |  unit: {label}, {:.1} tiles/s", speed.0));
    }
    line.push_str(&format!("  |  brush: {}", brush.0.name()));
    let selected = crowd.iter().filter(|(_, is_selected)| *is_selected).count();
    line.push_str(&format!("  |  crowd: {} units, {selected} selected", crowd.iter().len()));
    if units.iter().any(|(status, _)| matches!(status, UnitStatus::NoPath(_))) {
        tint = ERROR_COLOR;
    }
    line.push_str("  |  H: help");
    let (mut text, mut color) = status_text.into_inner();
    set_text(&mut text, line);
    color.set_if_neq(TextColor(tint));
}

/// "120 units (40 selected): 80 walking, 40 arrived" and the like.
pub(crate) fn crowd_summary(crowd: &Query<(&UnitStatus, Has<Selected>), With<CrowdUnit>>) -> String {
    let (mut total, mut selected, mut walking, mut arrived, mut planning, mut stopped) = (0, 0, 0, 0, 0, 0);
    for (status, is_selected) in crowd {
        total += 1;
        selected += usize::from(is_selected);
        match status {
            UnitStatus::Walking => walking += 1,
            UnitStatus::Arrived => arrived += 1,
            UnitStatus::Planning => planning += 1,
            UnitStatus::NoPath(_) => stopped += 1,
        }
    }
    if total == 0 {
        return "crowd: none (U / Shift+U spawn)".to_owned();
    }
    let mut line =
        format!("crowd: {total} units ({selected} selected): {walking} walking, {arrived} arrived");
    if planning > 0 {
        line.push_str(&format!(", {planning} planning"));
    }
    if stopped > 0 {
        line.push_str(&format!(", {stopped} stopped"));
    }
    line
}

/// Shows the scenario's query, our length against the optimum and the counts; hidden without
/// a scenario.
fn update_scenario_box(
    run: Option<Res<ScenarioRun>>,
    scenario_box: Single<(&mut Node, &Children), With<ScenarioBox>>,
    mut texts: Query<(&mut Text, &mut TextColor)>,
) {
    let (mut node, children) = scenario_box.into_inner();
    let display = if run.is_some() { Display::Flex } else { Display::None };
    if node.display != display {
        node.display = display;
    }
    let Some(run) = run else { return };
    let tint = match run.current_matches() {
        Some(true) => GOOD_COLOR,
        Some(false) => ERROR_COLOR,
        None => TEXT_COLOR,
    };
    for &child in children {
        if let Ok((mut text, mut color)) = texts.get_mut(child) {
            set_text(&mut text, run.summary());
            color.set_if_neq(TextColor(tint));
        }
    }
}

fn remember_notices(time: Res<Time>, mut notices: MessageReader<Notice>, mut latest: ResMut<LatestNotice>) {
    if let Some(notice) = notices.read().last() {
        latest.0 = Some((notice.clone(), time.elapsed_secs() + NOTICE_SECONDS));
    }
}

fn update_notice(
    time: Res<Time>,
    mut latest: ResMut<LatestNotice>,
    notice_text: Single<(&mut Text, &mut TextColor), With<NoticeText>>,
) {
    if latest.0.as_ref().is_some_and(|(_, until)| time.elapsed_secs() > *until) {
        latest.0 = None;
    }
    let (mut text, mut color) = notice_text.into_inner();
    let (line, tint) = match &latest.0 {
        Some((notice, _)) => (
            notice.text.clone(),
            match notice.severity {
                Severity::Info => TEXT_COLOR,
                Severity::Warning => WARN_COLOR,
                Severity::Error => ERROR_COLOR,
            },
        ),
        None => (String::new(), TEXT_COLOR),
    };
    set_text(&mut text, line);
    color.set_if_neq(TextColor(tint));
}
