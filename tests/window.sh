#!/usr/bin/env bash
# Real-window scripts: plays tests/scripts/demo.txt in the real binary under Xvfb (Mesa's software
# Vulkan) and saves a screenshot with Bevy's screenshot API; then the search lab's scripts
# (search.txt; tutorial.txt on the tutorial map), which save animation.png, race.png, flow.png and
# tutorial-flow.png in OUT_DIR; then crowd.txt (crowd.png), squeeze.txt (squeeze.png, partial.png: a
# 3x3 unit in a gap), partial.txt (partial.png: a walled-in goal), door.txt (door.png: a crowd through a door), maps.txt (maps-next.png, maze.png:
# maps opened at run time) and fit.txt (fit-*.png at 1280x720 and 1024x600). Each screenshot has
# its layout JSON beside it. The pixel checks are Rust, in tests/app/window.rs, which runs this
# script (cargo test -p tilepath --test app window); to check a folder of screenshots again:
#   TILEPATH_WINDOW_SHOTS=OUT_DIR cargo test -p tilepath --test app window
#
#   tests/window.sh [OUT_DIR]      (default OUT_DIR: $CARGO_TARGET_DIR/window-test)
#
# Needs: xvfb, xauth, mesa-vulkan-drivers, libvulkan1 and the X client libraries (STYLE.md).
# Set TILEPATH_BIN to test a prebuilt binary instead of building the debug one.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/tilepath-target}"
out="$(mkdir -p "${1:-$CARGO_TARGET_DIR/window-test}" && cd "${1:-$CARGO_TARGET_DIR/window-test}" && pwd)"

if [ -z "${TILEPATH_BIN:-}" ]; then
    (cd "$repo" && cargo build --bin tilepath)
    TILEPATH_BIN="$CARGO_TARGET_DIR/debug/tilepath"
fi

rm -rf "$out"/*.png "$out"/*.json "$out/saves"
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
# Start outside the repository: the binary must not need an assets/ folder.
scratch="$(mktemp -d)"
status=0
(cd "$scratch" && timeout 600 xvfb-run -a -s "-screen 0 1280x720x24" \
    "$TILEPATH_BIN" --script "$repo/tests/scripts/demo.txt" --screenshot "$out/demo.png") \
    >"$out/run.log" 2>&1 || status=$?
rmdir "$scratch" 2>/dev/null || true
if [ "$status" -ne 0 ]; then
    tail -n 40 "$out/run.log"
    echo "window test: tilepath exited with status $status (log: $out/run.log)" >&2
    exit 1
fi


# The lab scripts save their screenshots relative to the working directory: run them in $out.
run_lab() {
    local log="$1"
    shift
    local lab_status=0
    (cd "$out" && timeout 600 xvfb-run -a -s "-screen 0 1280x720x24" "$TILEPATH_BIN" "$@") \
        >"$out/$log" 2>&1 || lab_status=$?
    if [ "$lab_status" -ne 0 ]; then
        tail -n 40 "$out/$log"
        echo "window test: tilepath $* exited with status $lab_status (log: $out/$log)" >&2
        exit 1
    fi
}
run_lab search.log --script "$repo/tests/scripts/search.txt"
run_lab tutorial.log --map "$repo/assets/maps/tutorial.txt" --script "$repo/tests/scripts/tutorial.txt"
run_lab crowd.log --script "$repo/tests/scripts/crowd.txt"
# Maps at run time: ] opens the next embedded map, Shift+R a generated maze. Saves go to $out.
# Issue 21: a 3x3 unit squeezing through a 3-tile gap, then partial routes to a walled-in goal.
run_lab squeeze.log --map "$repo/tests/maps/gaps.txt" --script "$repo/tests/scripts/squeeze.txt"
run_lab partial.log --map "$repo/tests/maps/gaps.txt" --script "$repo/tests/scripts/partial.txt"
# Issue 22: a crowd through a one-tile door with avoidance on.
run_lab door.log --map "$repo/tests/maps/door.txt" --script "$repo/tests/scripts/door.txt"
run_lab maps.log --save-dir "$out/saves" --script "$repo/tests/scripts/maps.txt"
run_lab fit.log --save-dir "$out/saves" --script "$repo/tests/scripts/fit.txt"
# Random input for 60 seconds (monkey.txt, written by tests/app/window.rs): the game must still
# be running when the time is up (timeout's status 124) and log no panic and no error (the
# notices shown to the player aside).
if [ -f "$out/monkey.txt" ]; then
    monkey_status=0
    (cd "$out" && xvfb-run -a -s "-screen 0 1280x720x24" timeout 60 "$TILEPATH_BIN" \
        --save-dir "$out/saves" --script "$out/monkey.txt") >"$out/monkey.log" 2>&1 || monkey_status=$?
    steps="$(grep -c "script step" "$out/monkey.log" || true)"
    # Errors the game shows the player (tilepath::notice: a refused file, a generator with no room
    # on a tiny map) are answers to random input, not faults.
    faults() { grep -E "panicked|ERROR" "$out/monkey.log" | grep -v "tilepath::notice" || true; }
    # A floor showing the input was played, not a speed check: steps wait for frames, and
    # software rendering on a loaded 2-core machine plays fewer than 200 in the minute.
    if [ "$monkey_status" -ne 124 ] || [ "$steps" -lt 100 ] || [ -n "$(faults)" ]; then
        faults | head -n 20
        echo "window test: 60 s of random input ($steps steps) ended with status $monkey_status (124: still running), log: $out/monkey.log" >&2
        exit 1
    fi
    echo "window test: 60 s of random input ($steps steps played), the game still running, no panic or error in its log"
fi
echo "window scripts done: $out (demo.png, animation.png, race.png, flow.png, tutorial-flow.png, crowd.png, squeeze.png, partial.png, door.png, maps-next.png, maze.png, fit-race-1280.png, fit-help-1280.png, fit-race-1024.png, fit-help-1024.png)"
