//! tilepath: paint walls, place a start and a goal, and watch a unit walk the route.

use bevy::prelude::*;
use bevy::window::WindowResolution;
use tilepath::dev::script::{ScriptPlugin, load_script};
use tilepath::edit::files::SaveDir;
use tilepath::edit::paint::{GenerateAtStart, MapGenerator, MapSeed};
use tilepath::input::bindings::controls_markdown;
use tilepath::map::level::MapSource;
use tilepath::units::scenario::ScenarioFile;
use tilepath::{LogicPlugin, PresentPlugin, cli};

/// Window size at start-up, in logical pixels.
const WINDOW_SIZE: (u32, u32) = (1280, 720);
/// Behind the map.
const BACKGROUND: Color = Color::srgb(0.16, 0.17, 0.21);

fn main() -> AppExit {
    // `--help`, `--version` and bad flags: clap prints and exits (code 2 for an error).
    let options = cli::parse_args(std::env::args().skip(1)).unwrap_or_else(|error| error.exit());
    if options.controls {
        print!("{}", controls_markdown());
        return AppExit::Success;
    }
    let script = match options.script.as_deref().map(load_script).transpose() {
        Ok(script) => script,
        Err(error) => {
            eprintln!("tilepath: {error}");
            return AppExit::from_code(2);
        }
    };

    let mut app = App::new();
    app.add_plugins(
        DefaultPlugins
            .set(WindowPlugin {
                primary_window: Some(Window {
                    title: "tilepath".into(),
                    resolution: WindowResolution::from(WINDOW_SIZE),
                    ..default()
                }),
                ..default()
            })
            .set(tilepath::task_pool_plugin()),
    )
    .insert_resource(ClearColor(BACKGROUND))
    .insert_resource(options.map.map_or(MapSource::BuiltIn, MapSource::File))
    .add_plugins((LogicPlugin, PresentPlugin));
    if let Some(scen) = options.scen {
        app.insert_resource(ScenarioFile(scen));
    }
    if let Some(dir) = options.save_dir {
        app.insert_resource(SaveDir(dir));
    }
    if let Some(generator) = options.generator {
        app.insert_resource(MapGenerator(generator));
    }
    if let Some(seed) = options.seed {
        app.insert_resource(MapSeed(seed)).insert_resource(GenerateAtStart);
    }
    if script.is_some() || options.screenshot.is_some() {
        app.add_plugins(ScriptPlugin { steps: script.unwrap_or_default(), screenshot: options.screenshot });
    }
    app.run()
}
