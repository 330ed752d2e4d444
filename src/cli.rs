//! Command-line options of the `tilepath` binary (plain `std::env::args`: three options do not
//! need an argument-parsing crate in the app).

use std::path::PathBuf;

/// Shown by `--help` and after a bad option.
pub const USAGE: &str = "\
usage: tilepath [--map FILE] [--script FILE] [--screenshot OUT.png]

  --map FILE           open this map (Moving AI .map, ASCII .#SG grid or digit grid)
                       instead of the built-in one
  --script FILE        play the steps in FILE (see README: scripted mode), then exit
  --screenshot OUT.png save a screenshot when the script ends (or after start-up), then exit
  -h, --help           show this help";

/// What the command line asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// A map file to open instead of the built-in map.
    pub map: Option<PathBuf>,
    /// A script to play.
    pub script: Option<PathBuf>,
    /// Where to save a screenshot before exiting.
    pub screenshot: Option<PathBuf>,
}

/// Parses the arguments after the program name. `Ok(None)` means "print [`USAGE`] and exit".
///
/// # Errors
/// An unknown option, a missing value or a repeated option.
pub fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Option<Options>, String> {
    let mut options = Options::default();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let slot = match arg.as_str() {
            "-h" | "--help" => return Ok(None),
            "--map" => &mut options.map,
            "--script" => &mut options.script,
            "--screenshot" => &mut options.screenshot,
            other => return Err(format!("unknown argument {other:?}")),
        };
        let value = args.next().ok_or_else(|| format!("{arg} needs a value"))?;
        if slot.replace(PathBuf::from(value)).is_some() {
            return Err(format!("{arg} given twice"));
        }
    }
    Ok(Some(options))
}
