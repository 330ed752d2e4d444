//! Command-line options of the `tilepath` binary, with clap's derive: `--help` lists every flag
//! from the doc comments below, a bad flag exits with code 2 and clap's message.

use std::path::PathBuf;

use clap::Parser;
use gridpath::generate::Generator;

/// A desktop pathfinding lab and game demo: paint walls, place a start and a goal, and watch
/// units walk the route. Keys and mouse: press H in the game, or see docs/controls.md.
#[derive(Parser, Debug, Clone, Default, PartialEq)]
#[command(name = "tilepath", version)]
pub struct Options {
    /// Open this map instead of the built-in one: Moving AI .map, tilepath .tpmap, Tiled .tmx,
    /// ASCII .#SG grid or digit grid.
    #[arg(long, value_name = "FILE", conflicts_with = "scen")]
    pub map: Option<PathBuf>,
    /// Replay a Moving AI scenario (.scen): opens the map next to it (X.map for X.map.scen) and
    /// sends the lab's unit through its queries, one after another.
    #[arg(long, value_name = "FILE")]
    pub scen: Option<PathBuf>,
    /// Start with a generated map (seed N) the size of the map that would open.
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// The generator for --seed and R: noise, maze, rooms or caves [default: noise].
    // Parsed with FromStr on purpose: with gridpath's `cli` feature (on in workspace builds),
    // clap would take its ValueEnum and the help text would depend on the build.
    #[arg(long, value_name = "NAME", value_parser = parse_generator)]
    pub generator: Option<Generator>,
    /// Where Ctrl+S saves and autosaves go [default: the data folder's tilepath/maps, e.g.
    /// ~/.local/share/tilepath/maps].
    #[arg(long, value_name = "DIR")]
    pub save_dir: Option<PathBuf>,
    /// Play the steps in FILE (see docs/manual.md: scripted mode), then exit.
    #[arg(long, value_name = "FILE")]
    pub script: Option<PathBuf>,
    /// Save a screenshot when the script ends (or after start-up), then exit.
    #[arg(long, value_name = "OUT.png")]
    pub screenshot: Option<PathBuf>,
    /// Print every key and mouse control as a Markdown page (docs/controls.md), then exit.
    #[arg(long)]
    pub controls: bool,
}

/// Parses the arguments after the program name.
///
/// # Errors
/// clap's error: an unknown option, a missing or bad value, a repeated option, `--map` with
/// `--scen`; also `--help` and `--version`, whose "error" prints the text asked for.
pub fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Options, clap::Error> {
    Options::try_parse_from(std::iter::once("tilepath".to_owned()).chain(args))
}

fn parse_generator(name: &str) -> Result<Generator, gridpath::ParseNameError> {
    name.parse()
}
