//! The HUD: a bar on top with the search settings and the current search's stats (cost, cells,
//! nodes expanded, peak open list, time), the replay and the unit's state, the frame rate (`F12`)
//! and `H: help`; over the map, the latest notices and a banner while a replay is paused or
//! holds the unit; `H` toggles an overlay listing every control.
//!
//! It only spawns UI nodes and writes their text, so the headless tests add it too (its
//! [`plugin`] is public for them) and read what a player would read.

use bevy::prelude::*;
use bevy_gridpath::{Mover, PathStatus};

use bevy::diagnostic::{DiagnosticsStore, FrameTimeDiagnosticsPlugin};

use crate::AppSystems;
use crate::edit::files::{AUTOSAVES_KEPT, SaveDir, UnsavedEdits};
use crate::input::bindings::{Control, ControlSystems, KEY_TABLE, Section, control_sent};
use crate::input::pointer::Selected;
use crate::map::level::MapInfo;
use crate::map::problem::{IncrementalReplanning, SearchProblem, SmoothRoutes};
use crate::notice::{Notice, Severity};
use crate::search::plan::{PlanOutcome, PlanReport, PlanRunner};
use crate::search::replay::{AnimationSpeed, SearchAnimation};
use crate::theme::{GOOD_COLOR, TEXT_COLOR};
use crate::units::crowd::CrowdUnit;
use crate::units::lab::{LabUnit, status_label};
use crate::units::scenario::ScenarioRun;
use crate::view::camera::UiInsets;

/// Smallest height of the HUD bar, in logical pixels; it grows when a narrow window wraps its
/// lines, and what lies below it follows ([`UiInsets`]).
pub(crate) const HUD_HEIGHT: f32 = 52.0;
/// How long a notice stays, in seconds.
const NOTICE_SECONDS: f32 = 6.0;
/// How many notices are on screen at most (the newest at the bottom).
const MAX_NOTICES: usize = 3;
/// HUD text size, in logical pixels.
const FONT_SIZE: FontSize = FontSize::Px(14.0);
/// Help text size, in logical pixels.
const HELP_FONT_SIZE: FontSize = FontSize::Px(12.0);
/// Free space between the map area's edges and the boxes laid over it, in logical pixels.
const GAP: f32 = 10.0;

const BAR_COLOR: Color = Color::srgba(0.07, 0.08, 0.11, 0.92);
const BOX_COLOR: Color = Color::srgba(0.07, 0.08, 0.11, 0.88);
const PAUSED_COLOR: Color = Color::srgba(0.42, 0.27, 0.04, 0.92);
const DIM_COLOR: Color = Color::srgb(0.62, 0.65, 0.72);
const WARN_COLOR: Color = Color::srgb(1.0, 0.78, 0.35);
const ERROR_COLOR: Color = Color::srgb(1.0, 0.45, 0.42);

/// What the help says beside the keys, at the foot of its second column.
const HELP_NOTE: &str = "\
Deep water (blue, from the maps) connects only to
water: a unit in a pond swims to other water, never
onto land. Shallows (pale, brush 4) are slow ground
that connects to the shore. A new route waits for its
search's replay, then the unit walks; it re-plans when
the map, the goal or the settings change.";

/// Width of the keys column of the help, in characters.
const HELP_KEYS_WIDTH: usize = 20;
/// Width of a help line, in characters: two columns fit a 1024 x 600 window.
const HELP_LINE_WIDTH: usize = 56;

/// The help's two columns from the key table: the mouse, the map and the crowd left; the
/// search, the replay and the note right.
fn help_columns() -> [String; 2] {
    let column = |sections: &[Section]| -> Vec<String> {
        let mut lines = Vec::new();
        for &section in sections {
            if !lines.is_empty() {
                lines.push(String::new());
            }
            lines.push(section.title().to_owned());
            for row in KEY_TABLE.iter().filter(|row| row.section == section) {
                lines.extend(help_lines(&row.keys_label(), row.action));
            }
        }
        lines
    };
    let left = column(&[Section::Mouse, Section::Map, Section::Crowd]);
    let mut right = column(&[Section::Search, Section::Replay]);
    right.push(String::new());
    right.push(HELP_NOTE.to_owned());
    [left.join("\n"), right.join("\n")]
}

/// One help entry: the keys, then the action wrapped at word boundaries into the column.
fn help_lines(keys: &str, action: &str) -> Vec<String> {
    let indent = 2 + HELP_KEYS_WIDTH;
    let mut lines = vec![format!("  {keys:<HELP_KEYS_WIDTH$}")];
    if keys.len() >= HELP_KEYS_WIDTH {
        // Keys too long for their column: the action starts on the next line.
        lines.push(" ".repeat(indent));
    }
    for word in action.split(' ') {
        let line = lines.last_mut().expect("one line at least");
        let fresh = line.len() == indent;
        if !fresh && line.len() + 1 + word.len() > HELP_LINE_WIDTH {
            lines.push(format!("{}{word}", " ".repeat(indent)));
        } else {
            if !fresh {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines
}

/// The HUD bar, the boxes over the map (scenario, notices, replay banner) and the help overlay.
pub fn plugin(app: &mut App) {
    app.init_resource::<RecentNotices>();
    app.world_mut().get_resource_or_init::<UiInsets>().top = HUD_HEIGHT;
    app.init_resource::<ShowFrameRate>();
    app.add_systems(Startup, (spawn_hud_bar, spawn_scenario_box, spawn_messages, spawn_help).chain());
    app.add_systems(
        Update,
        (
            toggle_help.run_if(control_sent(Control::ToggleHelp)).after(ControlSystems),
            toggle_frame_rate.run_if(on_message::<Control>).after(ControlSystems),
        )
            .in_set(AppSystems::RecordInput),
    );
    app.add_systems(
        Update,
        (
            measure_hud,
            place_below_hud,
            remember_notices,
            update_search_line,
            update_status_line,
            update_notices,
            update_replay_banner,
            update_scenario_box,
            update_help_footer,
        )
            .chain()
            .in_set(AppSystems::Present),
    );
}

/// Whether the frame rate is shown in the HUD (`F12`).
#[derive(Resource, Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ShowFrameRate(pub bool);

/// A UI node kept `gap` logical pixels below the HUD bar, however tall the bar is.
#[derive(Component, Debug, Clone, Copy)]
pub(crate) struct BelowHud {
    /// Logical pixels between the bar and the node.
    pub(crate) gap: f32,
}

/// The HUD bar.
#[derive(Component)]
struct HudBar;

/// The HUD line with the search settings.
#[derive(Component)]
struct SettingsText;

/// The part of the first HUD line with the search result.
#[derive(Component)]
struct ResultSpan;

/// The HUD line with the map and unit state.
#[derive(Component)]
struct StatusText;

/// One of the notice boxes over the map, by its slot (0 = oldest on screen).
#[derive(Component)]
struct NoticeSlot(usize);

/// The banner over the map while a search replay holds the unit or is paused.
#[derive(Component)]
struct ReplayBanner;

/// The help overlay.
#[derive(Component)]
struct HelpPanel;

/// The help overlay's last line: where maps are saved.
#[derive(Component)]
struct HelpFooter;

/// The scenario box under the HUD bar (shown while a scenario runs).
#[derive(Component)]
struct ScenarioBox;

/// The notices on screen, oldest first, each with when it expires (elapsed seconds).
#[derive(Resource, Default)]
struct RecentNotices(Vec<(Notice, f32)>);

fn text(value: impl Into<String>, color: Color, size: FontSize) -> impl Bundle {
    (Text::new(value), TextFont { font_size: size, ..default() }, TextColor(color))
}

/// The bar at the top: the search line and the status line.
fn spawn_hud_bar(mut commands: Commands) {
    commands.spawn((
        Name::new("HUD"),
        HudBar,
        Node {
            position_type: PositionType::Absolute,
            top: px(0),
            left: px(0),
            width: percent(100),
            min_height: px(HUD_HEIGHT),
            padding: UiRect::axes(px(12), px(6)),
            flex_direction: FlexDirection::Column,
            justify_content: JustifyContent::SpaceEvenly,
            row_gap: px(2),
            ..default()
        },
        BackgroundColor(BAR_COLOR),
        // Lines wrap in a narrow window: the bar grows and everything below it moves down.
        children![
            (
                text("", TEXT_COLOR, FONT_SIZE),
                SettingsText,
                children![(
                    ResultSpan,
                    TextSpan::default(),
                    TextFont { font_size: FONT_SIZE, ..default() },
                    TextColor(GOOD_COLOR),
                )]
            ),
            (text("", DIM_COLOR, FONT_SIZE), StatusText),
        ],
    ));
}

/// The scenario replay's box under the bar (hidden without `--scen`).
fn spawn_scenario_box(mut commands: Commands) {
    commands.spawn((
        Name::new("Scenario"),
        ScenarioBox,
        BelowHud { gap: GAP },
        Node {
            display: Display::None,
            position_type: PositionType::Absolute,
            top: px(HUD_HEIGHT + GAP),
            left: px(GAP),
            max_width: px(560),
            padding: UiRect::axes(px(10), px(5)),
            border_radius: BorderRadius::all(px(6)),
            ..default()
        },
        BackgroundColor(BAR_COLOR),
        children![text("", TEXT_COLOR, FONT_SIZE)],
    ));
}

fn spawn_messages(mut commands: Commands, insets: Res<UiInsets>) {
    // Notices and the replay banner at the bottom of the map area, wrapping within it, so a
    // message is never cut off by the window's edge or hidden under the panel.
    commands
        .spawn((
            Name::new("Messages"),
            Node {
                position_type: PositionType::Absolute,
                left: px(GAP),
                right: px(insets.right + GAP),
                bottom: px(GAP),
                flex_direction: FlexDirection::Column,
                align_items: AlignItems::Start,
                row_gap: px(4),
                ..default()
            },
            GlobalZIndex(2),
        ))
        .with_children(|column| {
            column.spawn((
                Name::new("Replay banner"),
                ReplayBanner,
                message_box(BOX_COLOR),
                children![text("", TEXT_COLOR, FONT_SIZE)],
            ));
            for slot in 0..MAX_NOTICES {
                column.spawn((
                    Name::new(format!("Notice {slot}")),
                    NoticeSlot(slot),
                    message_box(BOX_COLOR),
                    children![text("", TEXT_COLOR, FONT_SIZE)],
                ));
            }
        });
}

/// The help overlay (`H`): the key table in two columns and the save folder.
fn spawn_help(mut commands: Commands) {
    commands
        .spawn((
            Name::new("Help"),
            HelpPanel,
            BelowHud { gap: GAP },
            Node {
                display: Display::None,
                position_type: PositionType::Absolute,
                top: px(HUD_HEIGHT + GAP),
                left: px(GAP),
                right: px(GAP),
                padding: UiRect::all(px(14)),
                border_radius: BorderRadius::all(px(8)),
                flex_direction: FlexDirection::Column,
                row_gap: px(8),
                ..default()
            },
            BackgroundColor(Color::srgba(0.07, 0.08, 0.11, 0.97)),
            GlobalZIndex(3),
        ))
        .with_children(|help| {
            help.spawn(Node { column_gap: px(28), flex_wrap: FlexWrap::Wrap, ..default() }).with_children(
                |columns| {
                    for (index, column) in help_columns().into_iter().enumerate() {
                        columns.spawn((
                            Name::new(format!("Help column {index}")),
                            text(column, TEXT_COLOR, HELP_FONT_SIZE),
                            TextLayout::no_wrap(),
                        ));
                    }
                },
            );
            help.spawn((Name::new("Help footer"), HelpFooter, text("", DIM_COLOR, HELP_FONT_SIZE)));
        });
}

/// A hidden box for one message over the map.
fn message_box(color: Color) -> impl Bundle {
    (
        Node {
            display: Display::None,
            padding: UiRect::axes(px(10), px(5)),
            border_radius: BorderRadius::all(px(6)),
            max_width: percent(100),
            ..default()
        },
        BackgroundColor(color),
    )
}

fn toggle_help(mut panel: Single<&mut Node, With<HelpPanel>>) {
    panel.display = match panel.display {
        Display::None => Display::Flex,
        _ => Display::None,
    };
}

fn toggle_frame_rate(mut controls: MessageReader<Control>, mut show: ResMut<ShowFrameRate>) {
    for control in controls.read() {
        if *control == Control::ToggleFrameRate {
            show.0 = !show.0;
        }
    }
}

/// Reads the HUD bar's laid-out height (the minimum until the UI has been laid out, and in
/// headless tests, which have no layout).
fn measure_hud(bar: Single<&ComputedNode, With<HudBar>>, mut insets: ResMut<UiInsets>) {
    let measured = (bar.size().y * bar.inverse_scale_factor()).max(HUD_HEIGHT);
    if (measured - insets.top).abs() > 0.5 {
        insets.top = measured;
    }
}

/// Keeps every [`BelowHud`] node below the bar.
fn place_below_hud(insets: Res<UiInsets>, mut nodes: Query<(&BelowHud, &mut Node)>) {
    for (below, mut node) in &mut nodes {
        let top = px(insets.top + below.gap);
        if node.top != top {
            node.top = top;
        }
    }
}

/// Sets `target` to `value` only when it differs, so unchanged text is not laid out again.
fn set_text(target: &mut String, value: String) {
    if *target != value {
        *target = value;
    }
}

fn update_search_line(
    problem: SearchProblem,
    (report, runner): (Res<PlanReport>, Res<PlanRunner>),
    incremental: Res<IncrementalReplanning>,
    smooth: Res<SmoothRoutes>,
    mut smoothed: Local<Option<f64>>,
    mut settings_text: Single<&mut Text, With<SettingsText>>,
    result_span: Single<(&mut TextSpan, &mut TextColor), With<ResultSpan>>,
) {
    let settings = problem.settings();
    let rules = settings.rules;
    let corners = match rules.moves {
        gridpath::Moves::Four => String::new(),
        gridpath::Moves::Eight => format!(", {}", rules.corners),
    };
    // (A big map's fresh search may still run after incremental was turned off: its report is
    // D* Lite's until then, but the search now is the chosen algorithm.)
    let algorithm = if report.repair.is_some() && incremental.0 {
        "D* Lite (incremental)".to_owned()
    } else if incremental.0 {
        format!("{} (incremental: not with partial routes)", settings.algorithm)
    } else {
        settings.algorithm.to_string()
    };
    let line = format!(
        "{} | {} moves{} | {} x{:.1}{}     ",
        algorithm,
        rules.moves.name(),
        corners,
        settings.heuristic.name(),
        settings.weight,
        match (smooth.0, settings.partial) {
            (true, true) => " | smoothed, partial",
            (true, false) => " | smoothed",
            (false, true) => " | partial",
            (false, false) => "",
        },
    );
    if report.is_changed() || smooth.is_changed() {
        // The length the unit walks: the route pulled taut (computed once per new route).
        *smoothed = match &report.outcome {
            PlanOutcome::Found { path, .. } if smooth.0 => {
                let taut = gridpath::smooth(problem.grid(), &path.cells, rules);
                problem.grid().any_angle_cost(&taut, rules).ok()
            }
            _ => None,
        };
    }
    set_text(&mut settings_text.0, line);
    let (mut result, mut color) = result_span.into_inner();
    let (line, tint) = match &report.outcome {
        PlanOutcome::Pending => ("planning...".to_owned(), DIM_COLOR),
        PlanOutcome::Found { path, micros } => (
            format!(
                "{}cost {:.2}{} | {} cells | {} | peak open {} | {} us",
                if path.outcome.is_partial() { "goal unreachable, to the nearest cell: " } else { "" },
                path.cost,
                smoothed.map_or_else(String::new, |length| format!(" (smoothed {length:.2})")),
                path.cells.len(),
                match report.repair {
                    Some(repair) => format!(
                        "{} {} expanded, {} updates (fresh A*: {} expanded)",
                        if repair.repaired { "repair:" } else { "first search:" },
                        repair.expanded,
                        repair.generated,
                        repair.fresh_expanded
                    ),
                    None => format!("{} expanded", path.stats.expanded),
                },
                path.stats.peak_open,
                micros
            ),
            GOOD_COLOR,
        ),
        PlanOutcome::Failed(error) => (error.to_string(), ERROR_COLOR),
    };
    // A big map's search runs on its own thread: until it is done the result is the last one's.
    let (line, tint) = if runner.is_planning() && !matches!(report.outcome, PlanOutcome::Pending) {
        (format!("planning the map as it is now... last: {line}"), DIM_COLOR)
    } else {
        (line, tint)
    };
    set_text(&mut result.0, line);
    color.set_if_neq(TextColor(tint));
}

fn update_status_line(
    problem: SearchProblem,
    animation: Res<SearchAnimation>,
    speed: Res<AnimationSpeed>,
    map: Res<MapInfo>,
    unsaved: Option<Res<UnsavedEdits>>,
    show_frame_rate: Res<ShowFrameRate>,
    diagnostics: Option<Res<DiagnosticsStore>>,
    units: Query<(&PathStatus, &Mover, &LabUnit)>,
    status_text: Single<(&mut Text, &mut TextColor), With<StatusText>>,
) {
    let grid = problem.grid();
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
        let rate = speed.rate_label(animation.total());
        line.push_str(&format!(" | search {state} {}/{} at {rate}", animation.applied(), animation.total()));
    }
    if let Ok((status, mover, lab)) = units.single() {
        let label =
            if lab.is_waiting() && *status == PathStatus::Following { "waits" } else { status_label(status) };
        line.push_str(&format!(" | unit: {label}, {:.1} tiles/s", mover.speed));
        if matches!(status, PathStatus::Failed(_)) {
            tint = ERROR_COLOR;
        }
    }
    if show_frame_rate.0 {
        let fps = diagnostics
            .as_ref()
            .and_then(|d| d.get(&FrameTimeDiagnosticsPlugin::FPS))
            .and_then(bevy::diagnostic::Diagnostic::smoothed);
        match fps {
            Some(fps) => line.push_str(&format!(" | {fps:.0} fps")),
            None => line.push_str(" | fps: measuring"),
        }
    }
    line.push_str(" | H: help");
    let (mut text, mut color) = status_text.into_inner();
    set_text(&mut text.0, line);
    color.set_if_neq(TextColor(tint));
}

/// "120 units (40 selected): 80 walking, 40 arrived" and the like.
pub(crate) fn crowd_summary(crowd: &Query<(&PathStatus, Has<Selected>), With<CrowdUnit>>) -> String {
    let (mut total, mut selected, mut walking, mut arrived, mut planning, mut stopped) = (0, 0, 0, 0, 0, 0);
    let mut partial = 0;
    for (status, is_selected) in crowd {
        total += 1;
        selected += usize::from(is_selected);
        match status {
            PathStatus::Following => walking += 1,
            PathStatus::Arrived => arrived += 1,
            PathStatus::Planning => planning += 1,
            PathStatus::Failed(_) => stopped += 1,
            PathStatus::Partial => partial += 1,
        }
    }
    if total == 0 {
        return "crowd: none (U / Shift+U spawn)".to_owned();
    }
    let mut line =
        format!("crowd: {total} units ({selected} selected): {walking} walking, {arrived} arrived");
    if partial > 0 {
        line.push_str(&format!(", {partial} going as close as they can"));
    }
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
            set_text(&mut text.0, run.summary());
            color.set_if_neq(TextColor(tint));
        }
    }
}

/// Keeps the latest notices, each for [`NOTICE_SECONDS`]; a repeat of the newest one only
/// extends its time.
fn remember_notices(time: Res<Time>, mut notices: MessageReader<Notice>, mut recent: ResMut<RecentNotices>) {
    let now = time.elapsed_secs();
    recent.0.retain(|(_, until)| *until >= now);
    for notice in notices.read() {
        let until = now + NOTICE_SECONDS;
        match recent.0.last_mut() {
            Some((last, last_until)) if last == notice => *last_until = until,
            _ => recent.0.push((notice.clone(), until)),
        }
    }
    let excess = recent.0.len().saturating_sub(MAX_NOTICES);
    recent.0.drain(..excess);
}

/// Writes the notices into their boxes; unused boxes are hidden.
fn update_notices(
    recent: Res<RecentNotices>,
    slots: Query<(&NoticeSlot, &mut Node, &Children)>,
    mut texts: Query<(&mut Text, &mut TextColor)>,
) {
    for (slot, mut node, children) in slots {
        let notice = recent.0.get(slot.0).map(|(notice, _)| notice);
        let display = if notice.is_some() { Display::Flex } else { Display::None };
        if node.display != display {
            node.display = display;
        }
        let Some(notice) = notice else { continue };
        let tint = match notice.severity {
            Severity::Info => TEXT_COLOR,
            Severity::Warning => WARN_COLOR,
            Severity::Error => ERROR_COLOR,
        };
        for &child in children {
            if let Ok((mut text, mut color)) = texts.get_mut(child) {
                set_text(&mut text.0, notice.text.clone());
                color.set_if_neq(TextColor(tint));
            }
        }
    }
}

/// What the replay banner says now, and whether the replay is paused; `None` hides it. A paused
/// replay is always shown; a playing one only while the lab's unit waits for it.
pub fn replay_banner(
    animation: &SearchAnimation,
    speed: AnimationSpeed,
    unit_waits: bool,
) -> Option<(String, bool)> {
    if animation.is_finished() {
        return None;
    }
    let progress = format!("{} / {}", animation.applied(), animation.total());
    if animation.is_paused() {
        let who = if unit_waits { " - the unit waits" } else { "" };
        return Some((
            format!(
                "SEARCH PAUSED at event {progress}{who}.  Space plays, N steps one event, Esc skips to the end"
            ),
            true,
        ));
    }
    if !unit_waits {
        return None;
    }
    let rate = speed.rate_label(animation.total());
    Some((
        format!(
            "The unit waits for the search replay ({progress} at {rate}).  Esc skips it, Space pauses; \
             the keys , and . set the speed, / the automatic one"
        ),
        false,
    ))
}

fn update_replay_banner(
    animation: Res<SearchAnimation>,
    speed: Res<AnimationSpeed>,
    units: Query<&LabUnit>,
    banner: Single<(&mut Node, &mut BackgroundColor, &Children), With<ReplayBanner>>,
    mut texts: Query<&mut Text>,
) {
    let unit_waits = units.iter().any(LabUnit::is_waiting);
    let shown = replay_banner(&animation, *speed, unit_waits);
    let (mut node, mut background, children) = banner.into_inner();
    let display = if shown.is_some() { Display::Flex } else { Display::None };
    if node.display != display {
        node.display = display;
    }
    let Some((line, paused)) = shown else { return };
    background.set_if_neq(BackgroundColor(if paused { PAUSED_COLOR } else { BOX_COLOR }));
    for &child in children {
        if let Ok(mut text) = texts.get_mut(child) {
            set_text(&mut text.0, line.clone());
        }
    }
}

/// The help's last line says where maps and autosaves go.
fn update_help_footer(save_dir: Option<Res<SaveDir>>, mut footer: Single<&mut Text, With<HelpFooter>>) {
    let Some(save_dir) = save_dir else { return };
    let line = format!(
        "Ctrl+S saves, and unsaved edits are autosaved (the newest {AUTOSAVES_KEPT} per map) in {}",
        save_dir.0.display()
    );
    set_text(&mut footer.0, line);
}
