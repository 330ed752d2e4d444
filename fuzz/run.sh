#!/usr/bin/env bash
# Runs gridpath's fuzz targets one after another, each for SECONDS (default 600), at the lowest
# CPU priority, with cargo fuzz on the stable toolchain (RUSTC_BOOTSTRAP=1 unlocks the nightly
# flags cargo fuzz passes). Logs go to fuzz/logs/TARGET.log; the last lines are the final stats.
#   fuzz/run.sh [SECONDS] [TARGET...]
set -u
cd "$(dirname "$0")"
export RUSTC_BOOTSTRAP=1
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/gridpath-fuzz}"
secs="${1:-600}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(movingai scen ascii digits tpmap tmx map_bytes)
fi
mkdir -p logs
for t in "${targets[@]}"; do
    mkdir -p "corpus/$t"
    nice -n 19 cargo fuzz run "$t" "corpus/$t" "seeds/$t" -- \
        -max_total_time="$secs" -print_final_stats=1 >"logs/$t.log" 2>&1
    echo "$t: exit $? at $(date -u +%FT%TZ)" >>logs/summary.txt
done
