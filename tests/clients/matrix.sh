#!/usr/bin/env bash
# Runs the client matrix (see matrix.py): every driver against every serve fault scenario
# under each revision it speaks, one JSON line per cell appended to the output file.
#   bash tests/clients/matrix.sh [--out FILE] [--timeout SECONDS] [--max-seconds N] [SCENARIO ...]
# The mcp-verdict binary is MCP_VERDICT_BIN, or target/debug/mcp-verdict after `cargo build -q`.
# Install the clients first: bash tests/clients/install.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
if [ -z "${MCP_VERDICT_BIN:-}" ]; then
  cargo build -q
  MCP_VERDICT_BIN=$root/target/debug/mcp-verdict
fi
export MCP_VERDICT_BIN
# A hard bound on the whole run on top of matrix.py's own (--max-seconds, default 1800 s).
exec timeout --kill-after=30 2400 python3 tests/clients/matrix.py "$@"
