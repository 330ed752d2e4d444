use std::path::PathBuf;

use super::*;
use tilepath::cli::{Options, parse_args};
use tilepath::dev::script::{Step, parse_script};

#[test]
fn scripts_parse_every_step() {
    let text = "# comment\nmove 3 4\npress left\nrelease right # trailing\n\nkey S\nkey Tab\nwait 7\n\
                    wait_arrival\nwait_arrival 10\nscreenshot out.png\nexit\nwait_at 16 4\nwait_at 2 3 50\nwait_crowd_at 16 9\n";
    let steps = parse_script(text).expect("a valid script");
    assert_eq!(steps.len(), 13);
    assert_eq!(steps[0], Step::Move(Pos::new(3, 4)));
    assert_eq!(steps[1], Step::Press(MouseButton::Left));
    assert_eq!(steps[2], Step::Release(MouseButton::Right));
    assert_eq!(steps[3], Step::Key(KeyCode::KeyS));
    assert_eq!(steps[4], Step::Key(KeyCode::Tab));
    assert_eq!(steps[5], Step::Wait(7));
    assert!(matches!(steps[6], Step::WaitArrival(_)));
    assert_eq!(steps[7], Step::WaitArrival(10));
    assert_eq!(steps[8], Step::Screenshot(PathBuf::from("out.png")));
    assert_eq!(steps[9], Step::Exit);
    assert_eq!(steps[10], Step::WaitAt(Pos::new(16, 4), 3000));
    assert_eq!(steps[11], Step::WaitAt(Pos::new(2, 3), 50));
    assert_eq!(steps[12], Step::WaitCrowdAt(Pos::new(16, 9), 3000));
}

#[test]
fn script_errors_name_the_line() {
    let error = parse_script("move 1 2\nmove 1\n").expect_err("an incomplete step");
    assert_eq!(error.line, 2);
    let error = parse_script("key Hyper\n").expect_err("an unknown key");
    assert!(error.to_string().contains("Hyper"));
    assert!(parse_script("press thumb\n").is_err());
    assert!(parse_script("wait -3\n").is_err());
    assert!(parse_script("wait_at 3\n").is_err());
}

#[test]
fn the_demo_scripts_parse() {
    let steps = parse_script(include_str!("../scripts/demo.txt")).expect("tests/scripts/demo.txt is valid");
    assert!(steps.contains(&Step::WaitArrival(3000)));
    let steps =
        parse_script(include_str!("../scripts/search.txt")).expect("tests/scripts/search.txt is valid");
    assert!(steps.contains(&Step::Key(KeyCode::Comma)) && steps.contains(&Step::Key(KeyCode::KeyT)));
    let steps =
        parse_script(include_str!("../scripts/tutorial.txt")).expect("tests/scripts/tutorial.txt is valid");
    assert!(steps.contains(&Step::Key(KeyCode::KeyD)));
    let steps = parse_script(include_str!("../scripts/maps.txt")).expect("tests/scripts/maps.txt is valid");
    assert!(
        steps.contains(&Step::Key(KeyCode::BracketRight)) && steps.contains(&Step::ShiftKey(KeyCode::KeyR))
    );
    let steps =
        parse_script(include_str!("../scripts/movement.txt")).expect("tests/scripts/movement.txt is valid");
    assert!(steps.contains(&Step::Key(KeyCode::KeyP)) && steps.contains(&Step::ShiftKey(KeyCode::KeyJ)));
    for script in [
        include_str!("../scripts/squeeze.txt"),
        include_str!("../scripts/partial.txt"),
        include_str!("../scripts/door.txt"),
    ] {
        assert!(
            parse_script(script).is_ok_and(|steps| steps.iter().any(|s| matches!(s, Step::Screenshot(_))))
        );
    }
    assert_eq!(parse_script("key Period\n"), Ok(vec![Step::Key(KeyCode::Period)]));
}

#[test]
fn command_line_options() {
    let args = |list: &[&str]| parse_args(list.iter().map(ToString::to_string));
    assert_eq!(args(&[]).ok(), Some(Options::default()));
    assert_eq!(
        args(&["--script", "s.txt", "--screenshot", "o.png", "--map", "m.map"]).ok(),
        Some(Options {
            map: Some("m.map".into()),
            script: Some("s.txt".into()),
            screenshot: Some("o.png".into()),
            ..Options::default()
        })
    );
    assert_eq!(
        args(&["--scen", "a.scen", "--seed", "7", "--generator", "maze", "--save-dir", "d"]).ok(),
        Some(Options {
            scen: Some("a.scen".into()),
            seed: Some(7),
            generator: Some(gridpath::generate::Generator::Maze { corridor: 1 }),
            save_dir: Some("d".into()),
            ..Options::default()
        })
    );
    assert!(args(&["--map", "m.map", "--scen", "a.scen"]).is_err(), "the scenario names its map");
    assert!(args(&["--seed", "x"]).is_err(), "a seed is a number");
    assert!(args(&["--generator", "spirals"]).is_err(), "an unknown generator");
    let help = args(&["--help"]).expect_err("--help prints the help");
    assert_eq!(help.kind(), clap::error::ErrorKind::DisplayHelp);
    for flag in ["--map", "--scen", "--seed", "--generator", "--save-dir", "--script", "--screenshot"] {
        assert!(help.to_string().contains(flag), "--help lists {flag}");
    }
    assert_eq!(args(&["--bogus"]).expect_err("a bad flag").exit_code(), 2, "a bad flag exits with 2");
    let page = std::fs::read_to_string("docs/cli.md").expect("docs/cli.md exists");
    assert!(
        page.contains(help.to_string().trim_end()),
        "docs/cli.md must show `tilepath --help` as it is now:\n{help}"
    );
    assert!(args(&["--map"]).is_err(), "a missing value is an error");
    assert!(args(&["--bogus"]).is_err());
    assert!(args(&["--map", "a", "--map", "b"]).is_err());
}
