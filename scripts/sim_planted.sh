#!/usr/bin/env bash
# The simulator's power (issue 44): builds the core with its planted bugs
# (the `planted` feature) and shows each one caught by the simulator, with the
# seeds it took (median and worst of ten starting seeds), as a Markdown table.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cargo test -q --profile sim -p evalpage-sim --features planted --test planted -- --nocapture
