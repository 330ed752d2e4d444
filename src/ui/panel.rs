//! The controls panel on the right: clickable buttons for the algorithm, moves, corner rule,
//! heuristic, weight, the search animation and the views, each labelled with its key; and the
//! race table, over the map's top right corner. A button sends the same [`Control`] as its key. Options that do not apply to the
//! current choices are drawn disabled and the panel says why (a click on one is refused with
//! the reason as well). The panel is a [`BlocksMap`] node: clicks on it never reach the map.
//!
//! It only spawns UI nodes and writes their text and colours, so the headless tests add it
//! too (its [`plugin`] is public for them) and press its buttons by setting [`Interaction`].

use bevy::prelude::*;
use bevy_gridpath::PathStatus;
use gridpath::{Algorithm, Corners, Heuristic, Moves};

use crate::AppSystems;
use crate::edit::brushes::CurrentBrush;
use crate::input::bindings::{Control, ControlSystems};
use crate::input::pointer::BlocksMap;
use crate::input::pointer::Selected;
use crate::map::problem::{IncrementalReplanning, SearchProblem, SmoothRoutes, problem_changed};
use crate::map::terrain::{Brush, brush_problem};
use crate::search::plan::{CORNERS, PlanOutcome, PlanReport, SearchOption, option_problem};
use crate::search::race::{RaceMethod, RaceOutcome, RaceRow, RaceTable};
use crate::search::replay::{AnimationSpeed, SearchAnimation};
use crate::theme::{GOOD_COLOR, TEXT_COLOR};
use crate::ui::hud::{BelowHud, HUD_HEIGHT, ShowFrameRate};
use crate::units::crowd::CrowdUnit;
use crate::units::steering::CrowdAvoidance;
use crate::view::camera::UiInsets;
use crate::view::flow::FlowView;
use crate::view::tilemap::ShowSearch;

/// Width of the panel, in logical pixels (the camera keeps the map left of it).
pub const PANEL_WIDTH: f32 = 376.0;
/// Space between the race table and the HUD bar and panel, in logical pixels.
const RACE_GAP: f32 = 10.0;
/// Button and label text size, in logical pixels.
const FONT_SIZE: FontSize = FontSize::Px(13.0);
/// Section titles, reasons and the race table, in logical pixels.
const SMALL_FONT_SIZE: FontSize = FontSize::Px(12.0);

const PANEL_COLOR: Color = Color::srgba(0.07, 0.08, 0.11, 0.94);
const TITLE_COLOR: Color = Color::srgb(0.55, 0.62, 0.78);
const DIM_COLOR: Color = Color::srgb(0.46, 0.48, 0.54);
const REASON_COLOR: Color = Color::srgb(1.0, 0.74, 0.38);
const BAD_COLOR: Color = Color::srgb(1.0, 0.55, 0.45);
const BUTTON_COLOR: Color = Color::srgb(0.19, 0.21, 0.27);
const BUTTON_HOVER_COLOR: Color = Color::srgb(0.27, 0.30, 0.38);
const SELECTED_COLOR: Color = Color::srgb(0.95, 0.66, 0.23);
const SELECTED_TEXT_COLOR: Color = Color::srgb(0.10, 0.08, 0.05);
const DISABLED_COLOR: Color = Color::srgba(0.19, 0.21, 0.27, 0.35);

/// Adds the panel.
pub fn plugin(app: &mut App) {
    app.world_mut().get_resource_or_init::<UiInsets>().right = PANEL_WIDTH;
    app.add_systems(Startup, (spawn_panel, spawn_race_table).chain());
    app.add_systems(Update, press_panel_buttons.in_set(AppSystems::RecordInput).in_set(ControlSystems));
    app.add_systems(
        Update,
        (
            style_panel_buttons,
            update_panel_text,
            update_play_label.run_if(resource_changed::<SearchAnimation>),
            fill_race_table.run_if(
                resource_changed::<RaceTable>
                    .or_else(problem_changed)
                    .or_else(resource_changed::<PlanReport>),
            ),
        )
            .chain()
            .in_set(AppSystems::Present),
    );
}

/// A panel button: pressing it sends this control.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[require(Button, BlocksMap)]
pub struct PanelButton(pub Control);

/// How a button is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ButtonLook {
    /// The current choice (or a view that is on).
    Selected,
    /// Available.
    Enabled,
    /// Does not apply to the current choices.
    Disabled,
}

/// A panel text that changes: which one.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
enum PanelText {
    /// Why algorithms are disabled.
    AlgorithmReasons,
    /// Why a move count or corner rule is disabled.
    RuleReasons,
    /// Why the heuristic or the weight is disabled.
    HeuristicReasons,
    /// The heuristic weight.
    Weight,
    /// The replay speed.
    Speed,
    /// How far the replay is.
    Progress,
    /// Why a brush is disabled.
    BrushReasons,
    /// The crowd: units, selection, what they do.
    Crowd,
}

/// The race section (hidden while the race is off).
#[derive(Component)]
struct RaceSection;

/// The container of the race table's rows.
#[derive(Component)]
struct RaceRows;

/// The label of a panel button.
#[derive(Component)]
struct ButtonText;

fn text(value: impl Into<String>, color: Color, size: FontSize) -> impl Bundle {
    (Text::new(value), TextFont { font_size: size, ..default() }, TextColor(color))
}

/// A button sending `control`, labelled with its key and `label`.
fn button(control: Control, label: &str) -> impl Bundle {
    (
        PanelButton(control),
        Node { padding: UiRect::axes(px(6), px(1)), border_radius: BorderRadius::all(px(4)), ..default() },
        BackgroundColor(BUTTON_COLOR),
        children![(
            ButtonText,
            text(format!("{} {label}", control.key_label()), TEXT_COLOR, FONT_SIZE),
            TextLayout::no_wrap()
        )],
    )
}

/// A row of buttons that wraps.
fn row_node() -> Node {
    Node {
        flex_wrap: FlexWrap::Wrap,
        column_gap: px(4),
        row_gap: px(4),
        align_items: AlignItems::Center,
        ..default()
    }
}

/// A section title.
fn title(value: &str) -> impl Bundle {
    text(value, TITLE_COLOR, SMALL_FONT_SIZE)
}

/// A row label of fixed width, so buttons line up.
fn label(value: &str) -> impl Bundle {
    (
        text(value, TEXT_COLOR, FONT_SIZE),
        Node { width: px(72), flex_shrink: 0.0, margin: UiRect::top(px(3)), ..default() },
    )
}

/// A row: `name` on the left, then what `fill` spawns, wrapping beside the name.
fn labelled_row(panel: &mut ChildSpawnerCommands, name: &str, fill: impl FnOnce(&mut ChildSpawnerCommands)) {
    panel.spawn(Node { align_items: AlignItems::Start, ..default() }).with_children(|row| {
        row.spawn(label(name));
        row.spawn(Node { flex_grow: 1.0, flex_basis: px(0), ..row_node() }).with_children(fill);
    });
}

/// A reason line (empty when nothing is disabled).
fn reasons(which: PanelText) -> impl Bundle {
    (which, text("", REASON_COLOR, SMALL_FONT_SIZE))
}

/// Short button labels of the heuristics.
fn heuristic_label(heuristic: Heuristic) -> &'static str {
    match heuristic {
        Heuristic::Manhattan => "Manhattan",
        Heuristic::Euclidean => "Euclid",
        Heuristic::Octile => "octile",
        Heuristic::Chebyshev => "Chebyshev",
        Heuristic::Zero => "zero",
    }
}

/// Short button labels of the corner rules.
fn corner_button_label(corners: Corners) -> &'static str {
    match corners {
        Corners::Forbid => "no cut",
        Corners::AllowOne => "cut one",
        Corners::Allow => "cut all",
    }
}

/// Short button labels of the algorithms.
fn algorithm_label(algorithm: Algorithm) -> &'static str {
    match algorithm {
        Algorithm::Bidirectional => "Bidir",
        Algorithm::LazyTheta => "LazyTheta*",
        other => other.label(),
    }
}

fn spawn_panel(mut commands: Commands) {
    let panel = commands
        .spawn((
            Name::new("Controls panel"),
            BlocksMap,
            BelowHud { gap: 0.0 },
            Node {
                position_type: PositionType::Absolute,
                top: px(HUD_HEIGHT),
                right: px(0),
                bottom: px(0),
                width: px(PANEL_WIDTH),
                padding: UiRect::all(px(10)),
                flex_direction: FlexDirection::Column,
                // Compact enough for a 1024 x 600 window (checked by the real-window test).
                row_gap: px(3),
                overflow: Overflow::clip(),
                ..default()
            },
            BackgroundColor(PANEL_COLOR),
        ))
        .id();
    commands.entity(panel).with_children(|panel| {
        search_section(panel);
        animation_section(panel);
        map_section(panel);
        view_section(panel);
    });
}

/// Algorithm, moves, corner rule, heuristic and weight buttons, each with why it is disabled.
fn search_section(panel: &mut ChildSpawnerCommands) {
    panel.spawn(title("SEARCH   (Tab / Shift+Tab cycle)"));
    panel.spawn(row_node()).with_children(|row| {
        for algorithm in Algorithm::ALL {
            row.spawn(button(Control::SelectAlgorithm(algorithm), algorithm_label(algorithm)));
        }
        // How routes are re-planned, after the algorithms that plan them.
        row.spawn(button(Control::ToggleIncremental, "incremental"));
    });
    panel.spawn(reasons(PanelText::AlgorithmReasons));
    labelled_row(panel, "Moves", |row| {
        for moves in [Moves::Four, Moves::Eight] {
            row.spawn(button(Control::SetMoves(moves), moves.name()));
        }
        // Beside the moves, to keep the panel within a 600-pixel-high window.
        row.spawn(button(Control::ToggleSmoothing, "smooth"));
        row.spawn(button(Control::TogglePartial, "partial"));
    });
    labelled_row(panel, "Corners", |row| {
        for corners in CORNERS {
            row.spawn(button(Control::SetCorners(corners), corner_button_label(corners)));
        }
    });
    panel.spawn(reasons(PanelText::RuleReasons));
    labelled_row(panel, "Heuristic", |row| {
        for heuristic in Heuristic::ALL {
            row.spawn(button(Control::SetHeuristic(heuristic), heuristic_label(heuristic)));
        }
    });
    labelled_row(panel, "Weight", |row| {
        row.spawn(button(Control::WeightDown, "less"));
        row.spawn((
            PanelText::Weight,
            text("", TEXT_COLOR, FONT_SIZE),
            Node { margin: UiRect::top(px(3)), ..default() },
        ));
        row.spawn(button(Control::WeightUp, "more"));
    });
    panel.spawn(reasons(PanelText::HeuristicReasons));
}

/// Replay speed and playback buttons, the speed and the progress.
fn animation_section(panel: &mut ChildSpawnerCommands) {
    panel.spawn(title("ANIMATION"));
    labelled_row(panel, "Speed", |row| {
        row.spawn(button(Control::AnimationSlower, "slow"));
        row.spawn(button(Control::AnimationFaster, "fast"));
        row.spawn(button(Control::AnimationInstant, "instant"));
        row.spawn(button(Control::AnimationAuto, "auto"));
    });
    panel.spawn(row_node()).with_children(|row| {
        row.spawn(button(Control::PlayPause, "play"));
        row.spawn(button(Control::StepEvent, "step"));
        row.spawn(button(Control::SkipAnimation, "skip to end"));
    });
    panel.spawn(row_node()).with_children(|row| {
        row.spawn((PanelText::Speed, text("", TEXT_COLOR, SMALL_FONT_SIZE)));
        row.spawn((PanelText::Progress, text("", DIM_COLOR, SMALL_FONT_SIZE)));
    });
}

/// Map files and generators, brushes, crowd units.
fn map_section(panel: &mut ChildSpawnerCommands) {
    panel.spawn(title("MAP & CROWD"));
    labelled_row(panel, "Map", |row| {
        row.spawn(button(Control::PreviousMap, "prev"));
        row.spawn(button(Control::NextMap, "next"));
        row.spawn(button(Control::SaveMap, "save"));
        row.spawn(button(Control::RandomMap, "random"));
        row.spawn(button(Control::NextGenerator, "generator"));
    });
    labelled_row(panel, "Brush", |row| {
        for brush in Brush::ALL {
            row.spawn(button(Control::SelectBrush(brush), brush.name()));
        }
    });
    panel.spawn(reasons(PanelText::BrushReasons));
    labelled_row(panel, "Units", |row| {
        row.spawn(button(Control::SpawnCrowd, "spawn 100"));
        row.spawn(button(Control::SpawnBigUnit(2), "2x2"));
        row.spawn(button(Control::SpawnBigUnit(3), "3x3"));
        row.spawn(button(Control::SelectAll, "all"));
        row.spawn(button(Control::ToggleAvoidance, "avoid"));
    });
    panel.spawn((PanelText::Crowd, text("", DIM_COLOR, SMALL_FONT_SIZE)));
}

/// The overlays.
fn view_section(panel: &mut ChildSpawnerCommands) {
    panel.spawn(title("VIEW"));
    panel.spawn((Name::new("Panel: view row"), row_node())).with_children(|row| {
        row.spawn(button(Control::ToggleRace, "race"));
        row.spawn(button(Control::ToggleFlowField, "flow field"));
        row.spawn(button(Control::ToggleSearchCells, "searched"));
        row.spawn(button(Control::ToggleFrameRate, "fps"));
    });
}

/// The race table lies over the map's top right corner, not in the panel: with it the panel
/// would not fit a 600-pixel-high window.
fn spawn_race_table(mut commands: Commands) {
    commands
        .spawn((
            Name::new("Race table"),
            RaceSection,
            BlocksMap,
            BelowHud { gap: RACE_GAP },
            Node {
                display: Display::None,
                position_type: PositionType::Absolute,
                top: px(HUD_HEIGHT + RACE_GAP),
                right: px(PANEL_WIDTH + RACE_GAP),
                padding: UiRect::axes(px(10), px(6)),
                flex_direction: FlexDirection::Column,
                row_gap: px(2),
                border_radius: BorderRadius::all(px(6)),
                ..default()
            },
            BackgroundColor(PANEL_COLOR),
            GlobalZIndex(1),
        ))
        .with_children(|section| {
            section.spawn(title("RACE   (same map, endpoints, rules)"));
            section.spawn((
                RaceRows,
                Node { flex_direction: FlexDirection::Column, row_gap: px(1), ..default() },
            ));
        });
}

/// Sends the control of every button pressed this frame.
fn press_panel_buttons(
    buttons: Query<(&Interaction, &PanelButton), Changed<Interaction>>,
    mut controls: MessageWriter<Control>,
) {
    for (interaction, button) in &buttons {
        if *interaction == Interaction::Pressed {
            controls.write(button.0);
        }
    }
}

/// What the panel needs to know to draw its buttons.
struct PanelState<'a> {
    problem: &'a SearchProblem<'a>,
    smooth: bool,
    avoid: bool,
    incremental: bool,
    brush: Brush,
    speed: AnimationSpeed,
    race: bool,
    flow: bool,
    search_cells: bool,
    frame_rate: bool,
}

impl PanelState<'_> {
    /// How the button for `control` is drawn, and why it is disabled.
    fn look(&self, control: Control) -> (ButtonLook, Option<&'static str>) {
        let settings = self.problem.settings();
        let rules = settings.rules;
        let problem = |option| option_problem(self.problem.grid(), settings, option);
        let (selected, problem) = match control {
            Control::SelectAlgorithm(algorithm) => {
                (settings.algorithm == algorithm, problem(SearchOption::Algorithm(algorithm)))
            }
            Control::SetMoves(moves) => (rules.moves == moves, problem(SearchOption::Moves(moves))),
            Control::SetCorners(corners) => {
                let problem = problem(SearchOption::Corners(corners));
                (rules.corners == corners && problem.is_none(), problem)
            }
            Control::SetHeuristic(heuristic) => {
                let problem = problem(SearchOption::Heuristic(heuristic));
                (settings.heuristic == heuristic && problem.is_none(), problem)
            }
            Control::WeightDown | Control::WeightUp => {
                (false, problem(SearchOption::Weight(settings.weight)))
            }
            Control::AnimationInstant => (self.speed == AnimationSpeed::Instant, None),
            Control::AnimationAuto => (self.speed == AnimationSpeed::Auto, None),
            Control::ToggleFrameRate => (self.frame_rate, None),
            Control::ToggleSmoothing => (self.smooth, None),
            Control::ToggleAvoidance => (self.avoid, None),
            Control::TogglePartial => (settings.partial, None),
            Control::ToggleIncremental => (self.incremental, None),
            Control::ToggleRace => (self.race, None),
            Control::ToggleFlowField => (self.flow, None),
            Control::ToggleSearchCells => (self.search_cells, None),
            Control::SelectBrush(brush) => {
                let problem = brush_problem(settings, brush);
                (self.brush == brush && problem.is_none(), problem)
            }
            _ => (false, None),
        };
        let look = match (problem, selected) {
            (Some(_), _) => ButtonLook::Disabled,
            (None, true) => ButtonLook::Selected,
            (None, false) => ButtonLook::Enabled,
        };
        (look, problem)
    }
}

/// Colours every button by its look (selected, enabled, disabled) and the pointer.
fn style_panel_buttons(
    problem: SearchProblem,
    (smooth, avoid, incremental): (Res<SmoothRoutes>, Res<CrowdAvoidance>, Res<IncrementalReplanning>),
    brush: Res<CurrentBrush>,
    speed: Res<AnimationSpeed>,
    race: Res<RaceTable>,
    flow: Option<Res<FlowView>>,
    show_search: Option<Res<ShowSearch>>,
    frame_rate: Option<Res<ShowFrameRate>>,
    mut buttons: Query<(&PanelButton, &Interaction, &mut BackgroundColor, &Children)>,
    mut labels: Query<&mut TextColor, With<ButtonText>>,
) {
    let state = PanelState {
        problem: &problem,
        smooth: smooth.0,
        avoid: avoid.0,
        incremental: incremental.0,
        brush: brush.0,
        speed: *speed,
        race: race.shown,
        flow: flow.is_some_and(|f| f.shown),
        search_cells: show_search.is_some_and(|s| s.0),
        frame_rate: frame_rate.is_some_and(|f| f.0),
    };
    for (button, interaction, mut background, children) in &mut buttons {
        let (look, _) = state.look(button.0);
        let hovered = *interaction != Interaction::None;
        let (fill, ink) = match look {
            ButtonLook::Selected => (SELECTED_COLOR, SELECTED_TEXT_COLOR),
            ButtonLook::Enabled if hovered => (BUTTON_HOVER_COLOR, TEXT_COLOR),
            ButtonLook::Enabled => (BUTTON_COLOR, TEXT_COLOR),
            ButtonLook::Disabled => (DISABLED_COLOR, DIM_COLOR),
        };
        background.set_if_neq(BackgroundColor(fill));
        for &child in children {
            if let Ok(mut color) = labels.get_mut(child) {
                color.set_if_neq(TextColor(ink));
            }
        }
    }
}

/// The reasons behind every disabled option among `options`, one per line, without repeats.
fn reason_lines(state: &PanelState, options: impl IntoIterator<Item = Control>) -> String {
    let mut lines: Vec<&str> = Vec::new();
    for control in options {
        // The gist only (what comes before an explanation in brackets): the panel must fit a
        // 600-pixel-high window; the notice of a refused click says it all.
        if let (_, Some(reason)) = state.look(control)
            && let reason = gist(reason)
            && !lines.contains(&reason)
        {
            lines.push(reason);
        }
    }
    lines.join("\n")
}

/// Characters of a reason the race table shows: the table stays as narrow as its columns.
const RACE_REASON_CHARS: usize = 30;

/// `text` cut at a word boundary to at most `max` characters, with an ellipsis when cut.
fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out = String::new();
    for word in text.split(' ') {
        if out.chars().count() + word.chars().count() + 4 > max {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out.push_str("...");
    out
}

/// A reason without its explanation in brackets.
fn gist(reason: &str) -> &str {
    reason.split(" (").next().unwrap_or(reason)
}

/// Writes the reasons, the weight, the replay speed and progress.
fn update_panel_text(
    problem: SearchProblem,
    (smooth, avoid, incremental): (Res<SmoothRoutes>, Res<CrowdAvoidance>, Res<IncrementalReplanning>),
    brush: Res<CurrentBrush>,
    crowd: Query<(&PathStatus, Has<Selected>), With<CrowdUnit>>,
    speed: Res<AnimationSpeed>,
    animation: Res<SearchAnimation>,
    mut texts: Query<(&PanelText, &mut Text, &mut Node)>,
) {
    let state = PanelState {
        problem: &problem,
        smooth: smooth.0,
        avoid: avoid.0,
        incremental: incremental.0,
        brush: brush.0,
        speed: *speed,
        race: false,
        flow: false,
        search_cells: false,
        frame_rate: false,
    };
    let settings = problem.settings();
    for (which, mut text, mut node) in &mut texts {
        let value = match which {
            PanelText::AlgorithmReasons => {
                reason_lines(&state, Algorithm::ALL.into_iter().map(Control::SelectAlgorithm))
            }
            PanelText::RuleReasons => reason_lines(
                &state,
                [Moves::Four, Moves::Eight]
                    .into_iter()
                    .map(Control::SetMoves)
                    .chain(CORNERS.into_iter().map(Control::SetCorners)),
            ),
            PanelText::HeuristicReasons => reason_lines(
                &state,
                Heuristic::ALL.into_iter().map(Control::SetHeuristic).chain([Control::WeightUp]),
            ),
            PanelText::Weight => format!("x{:.1}", settings.weight),
            PanelText::Speed => match (*speed, speed.rate(animation.total())) {
                (AnimationSpeed::Auto, Some(rate)) => format!("auto: {rate} events/s  "),
                (speed, _) => format!("{}  ", speed.label()),
            },
            PanelText::Progress => progress(&animation),
            PanelText::BrushReasons => reason_lines(&state, Brush::ALL.into_iter().map(Control::SelectBrush)),
            PanelText::Crowd => crate::ui::hud::crowd_summary(&crowd),
        };
        // An empty reason line takes no room.
        let display = if value.is_empty() { Display::None } else { Display::Flex };
        if node.display != display {
            node.display = display;
        }
        if text.0 != value {
            text.0 = value;
        }
    }
}

/// The play button says what it will do: play, pause or replay.
fn update_play_label(
    animation: Res<SearchAnimation>,
    buttons: Query<(&PanelButton, &Children)>,
    mut labels: Query<&mut Text, With<ButtonText>>,
) {
    let play = if animation.is_finished() {
        "replay"
    } else if animation.is_paused() {
        "play"
    } else {
        "pause"
    };
    let value = format!("{} {play}", Control::PlayPause.key_label());
    for (_, children) in buttons.iter().filter(|(button, _)| button.0 == Control::PlayPause) {
        for &child in children {
            if let Ok(mut label) = labels.get_mut(child)
                && label.0 != value
            {
                label.0 = value.clone();
            }
        }
    }
}

/// "event 340 / 812, paused" and the like.
fn progress(animation: &SearchAnimation) -> String {
    let state = if animation.is_finished() {
        "shown"
    } else if animation.is_paused() {
        "paused"
    } else {
        "playing"
    };
    format!("event {} / {}, {state}", animation.applied(), animation.total())
}

/// One line of the race table (the default font is monospaced, so columns line up).
fn race_line(row: &RaceRow) -> (String, Color) {
    let label = match row.method {
        RaceMethod::Search(algorithm) => algorithm_label(algorithm),
        RaceMethod::Subgoal => "Subgoal",
    };
    let name = if row.weight == 1.0 { label.to_owned() } else { format!("{label} x{:.1}", row.weight) };
    // The preprocessed search says what its preprocessing took, and any remark.
    let mut remarks = String::new();
    if let Some(took) = row.preprocessing {
        remarks += &format!(", built {:.0} ms", took.as_secs_f64() * 1e3);
    }
    if let Some(note) = row.note {
        remarks += &format!(", {note}");
    }
    match &row.outcome {
        RaceOutcome::Found { cost, expanded, micros, optimal, excess_percent, .. } => {
            let (note, color) = match (optimal, row.guaranteed) {
                (true, true) => ("optimal".to_owned(), GOOD_COLOR),
                // Optimal here by luck of the map: not guaranteed in general.
                (true, false) => ("optimal^".to_owned(), GOOD_COLOR),
                // Any-angle routes can beat the grid optimum: shorter shows in green.
                (false, _) if *excess_percent < 0.0 => (format!("{excess_percent:+.1}%"), GOOD_COLOR),
                (false, _) => (format!("{excess_percent:+.1}%"), REASON_COLOR),
            };
            (format!("{name:<11}{cost:>7.2}{expanded:>7}{micros:>7.0}  {note}{remarks}"), color)
        }
        RaceOutcome::Unsupported(reason) => {
            (format!("{name:<11}n/a: {}", clip(gist(reason), RACE_REASON_CHARS)), DIM_COLOR)
        }
        RaceOutcome::Failed(error) => (format!("{name:<11}{error}"), BAD_COLOR),
        RaceOutcome::Preparing => (format!("{name:<11}preprocessing the map..."), DIM_COLOR),
    }
}

/// With incremental re-planning, a row for D* Lite's latest plan: its cost, the cells it
/// expanded (a repair's, or its first full search's) and time, against a fresh A*'s expansions.
fn repair_line(report: &PlanReport) -> Option<(String, Color)> {
    let repair = report.repair?;
    let PlanOutcome::Found { path, micros } = &report.outcome else { return None };
    let what = if repair.repaired { "repair" } else { "first" };
    let line = format!(
        "{:<11}{:>7.2}{:>7}{:>7}  {what}, A* {}",
        "D* Lite", path.cost, repair.expanded, micros, repair.fresh_expanded
    );
    Some((line, GOOD_COLOR))
}

/// Shows or hides the race section and writes its rows.
fn fill_race_table(
    mut commands: Commands,
    table: Res<RaceTable>,
    report: Res<PlanReport>,
    mut section: Single<&mut Node, With<RaceSection>>,
    rows: Single<Entity, With<RaceRows>>,
) {
    section.display = if table.shown { Display::Flex } else { Display::None };
    let rows = *rows;
    commands.entity(rows).despawn_related::<Children>();
    let header = format!("{:<11}{:>7}{:>7}{:>7}  {}", "algorithm", "cost", "expand", "us", "result");
    let lines: Vec<(String, Color)> = if table.shown {
        let footer = ("^ optimal here, not guaranteed; -%: any-angle, shorter".to_owned(), DIM_COLOR);
        // The race runs on a thread of its own: until it is done the rows are the last race's.
        let racing = table.racing.then(|| {
            let what = if table.rows.is_empty() { "racing..." } else { "racing the map as it is now..." };
            (what.to_owned(), DIM_COLOR)
        });
        std::iter::once((header, TITLE_COLOR))
            .chain(racing)
            .chain(table.rows.iter().map(race_line))
            .chain(repair_line(&report))
            .chain([footer])
            .collect()
    } else {
        Vec::new()
    };
    commands.entity(rows).with_children(|list| {
        for (index, (line, color)) in lines.into_iter().enumerate() {
            list.spawn((Name::new(format!("Race line {index}")), text(line, color, SMALL_FONT_SIZE)));
        }
    });
}
