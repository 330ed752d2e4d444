//! Command-line options of the `tilepath` binary (plain `std::env::args`: a handful of options do
//! not need an argument-parsing crate in the app).

use std::path::PathBuf;

use gridpath::generate::Generator;

/// Shown by `--help` and after a bad option.
pub const USAGE: &str = "\
usage: tilepath [--map FILE | --scen FILE] [--seed N] [--generator NAME] [--save-dir DIR]
                [--script FILE] [--screenshot OUT.png]

  --map FILE           open this map instead of the built-in one: Moving AI .map, tilepath
                       .tpmap, Tiled .tmx, ASCII .#SG grid or digit grid
  --scen FILE          replay a Moving AI scenario (.scen): opens the map next to it (X.map for
                       X.map.scen) and sends the lab's unit through its queries, one after another
  --seed N             start with a generated map (seed N) the size of the map that would open
  --generator NAME     the generator for --seed and R: noise, maze, rooms or caves (default noise)
  --save-dir DIR       where Ctrl+S saves and autosaves go (default: $XDG_DATA_HOME/tilepath/maps,
                       i.e. ~/.local/share/tilepath/maps)
  --script FILE        play the steps in FILE (see docs/manual.md: scripted mode), then exit
  --screenshot OUT.png save a screenshot when the script ends (or after start-up), then exit
  -h, --help           show this help";

/// What the command line asks for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Options {
    /// A map file to open instead of the built-in map.
    pub map: Option<PathBuf>,
    /// A scenario file to replay (its map is opened instead of the built-in map).
    pub scen: Option<PathBuf>,
    /// Start with a generated map from this seed.
    pub seed: Option<u64>,
    /// The generator of `R` and of `--seed`.
    pub generator: Option<Generator>,
    /// Where saves and autosaves go.
    pub save_dir: Option<PathBuf>,
    /// A script to play.
    pub script: Option<PathBuf>,
    /// Where to save a screenshot before exiting.
    pub screenshot: Option<PathBuf>,
}

/// Parses the arguments after the program name. `Ok(None)` means "print [`USAGE`] and exit".
///
/// # Errors
/// An unknown option, a missing or bad value, a repeated option, or both `--map` and `--scen`.
pub fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Option<Options>, String> {
    let mut options = Options::default();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        if matches!(arg.as_str(), "-h" | "--help") {
            return Ok(None);
        }
        if !matches!(
            arg.as_str(),
            "--map" | "--scen" | "--seed" | "--generator" | "--save-dir" | "--script" | "--screenshot"
        ) {
            return Err(format!("unknown argument {arg:?}"));
        }
        let value = args.next().ok_or_else(|| format!("{arg} needs a value"))?;
        let twice = match arg.as_str() {
            "--seed" => {
                let seed =
                    value.parse().map_err(|_| format!("--seed needs a whole number, got {value:?}"))?;
                options.seed.replace(seed).is_some()
            }
            "--generator" => {
                let generator = Generator::from_name(&value)
                    .ok_or_else(|| format!("unknown generator {value:?}: use noise, maze, rooms or caves"))?;
                options.generator.replace(generator).is_some()
            }
            path_option => {
                let slot = match path_option {
                    "--map" => &mut options.map,
                    "--scen" => &mut options.scen,
                    "--save-dir" => &mut options.save_dir,
                    "--script" => &mut options.script,
                    _ => &mut options.screenshot,
                };
                slot.replace(PathBuf::from(value)).is_some()
            }
        };
        if twice {
            return Err(format!("{arg} given twice"));
        }
    }
    if options.map.is_some() && options.scen.is_some() {
        return Err("--map and --scen both given: a scenario opens the map next to it".to_owned());
    }
    Ok(Some(options))
}
