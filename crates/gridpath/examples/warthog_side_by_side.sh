#!/usr/bin/env bash
# gridpath's JPS side by side with Warthog's (ShortestPathLab/warthog-jps, built outside this
# repository: its CMake Release, or g++ -O3 -DNDEBUG -std=c++20 over its and warthog-core's
# sources). Per map and round, alternating: Warthog jps2+ against our JPS with jump bits, and
# Warthog jps2 against our online JPS; each the mean time per query in ns. Warthog's `nanos`
# column is its search alone: its timer stops before it extracts the path. Ours are
# `jps_times --corners`, the route's corners written (`Searcher::find_corners_into`); the
# `cells` column is our JPS with every cell of the route written (`find_path_into`), and its
# ratio to jps2+. Ratio > 1: ours faster.
#
#   crates/gridpath/examples/warthog_side_by_side.sh /path/to/warthog-jps ROUNDS X.map.scen ...
set -euo pipefail
warthog=$1 rounds=$2
shift 2
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/gridpath-target}"
cargo build --release --manifest-path "$(dirname "$0")/../Cargo.toml" --example jps_times --quiet
ours="$CARGO_TARGET_DIR/release/examples/jps_times"
# Warthog's mean of its `nanos` column (the first two lines are headers).
theirs() { "$warthog" --alg "$1" --scen "$2" --map "${2%.scen}" 2>/dev/null | awk 'NR > 2 { s += $8; n++ } END { printf "%.0f", s / n }'; }
printf '%-20s %10s %10s %7s %10s %10s %7s %10s %7s\n' map jps2+ ours ratio jps2 online ratio cells ratio
for scen in "$@"; do
  for _ in $(seq "$rounds"); do
    plus=$(theirs jps2+ "$scen")
    read -r name _ bits online < <("$ours" --corners "$scen" | tail -1)
    plain=$(theirs jps2 "$scen")
    read -r _ _ cells _ < <("$ours" --bits "$scen" | tail -1)
    awk -v m="$name" -v p="$plus" -v b="$bits" -v q="$plain" -v o="$online" -v c="$cells" \
      'BEGIN { printf "%-20s %10d %10d %7.2f %10d %10d %7.2f %10d %7.2f\n", m, p, b, p / b, q, o, q / o, c, p / c }'
  done
done
