//! The real binary in a real window under Xvfb (Mesa's software Vulkan): `tests/window.sh` plays
//! `tests/scripts/demo.txt`, saves a screenshot and checks pixel colours at known cells.

use std::path::Path;
use std::process::Command;

#[test]
fn scripted_run_in_a_real_window_passes_the_pixel_checks() {
    let have_xvfb =
        Command::new("sh").args(["-c", "command -v xvfb-run"]).output().is_ok_and(|o| o.status.success());
    if !have_xvfb {
        // CI installs Xvfb (.ci/run), so there a missing one is a failure, not a skip.
        assert!(std::env::var_os("CI").is_none(), "xvfb-run is missing: .ci/run should have installed it");
        eprintln!("skipped: xvfb-run is not installed (see docs/manual.md: the real-window test)");
        return;
    }
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::env::temp_dir().join(format!("tilepath-window-{}", std::process::id()));
    let status = Command::new("bash")
        .arg(repo.join("tests/window.sh"))
        .arg(&out)
        .env("TILEPATH_BIN", env!("CARGO_BIN_EXE_tilepath"))
        .status()
        .expect("bash runs tests/window.sh");
    assert!(status.success(), "the window test failed: see its output above and {}", out.display());
    let _ = std::fs::remove_dir_all(&out);
}
