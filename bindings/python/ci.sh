#!/usr/bin/env bash
# The Python side, run by .ci/run from the repository root: installs the pinned Python tools in
# a venv under target/, builds the wheel with maturin and installs it, builds the release
# command line, then runs the binding's test, the pytest example for server authors and the
# Spark local-mode test. Prints how long each step took.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
VENV=$ROOT/target/pyenv
PY=$VENV/bin/python
export PIP_DISABLE_PIP_VERSION_CHECK=1

t0=$SECONDS
lap() { echo "-- $1: $((SECONDS - t0)) s"; t0=$SECONDS; }

echo "-- python: $(python3 --version)"
[ -x "$PY" ] || python3 -m venv "$VENV"
"$PY" -m pip install -q -r bindings/python/requirements-ci.txt
if ! command -v java >/dev/null; then
  apt-get update -q && apt-get install -y -q openjdk-17-jre-headless
fi
java -version 2>&1 | head -1
lap "venv and pinned packages"

rm -rf target/wheels
"$VENV/bin/maturin" build --release -m bindings/python/Cargo.toml -i "$PY" -o target/wheels
"$PY" -m pip install -q --force-reinstall --no-deps target/wheels/mcp_verdict-*.whl
lap "wheel built (maturin, release) and installed"

cargo build --release --bin mcp-verdict
export MCP_VERDICT_BIN=$ROOT/target/release/mcp-verdict
lap "release command line (the reference the tests compare with)"

echo "== the binding against the command line"
(cd bindings/python && "$PY" -m pytest -q -p no:cacheprovider tests)
lap "binding test"

echo "== the pytest example: an MCP server (PyPI mcp SDK) judged over Streamable HTTP on loopback"
(cd bindings/python/examples/pytest_server && "$PY" -m pytest -q -p no:cacheprovider)
lap "server example"

echo "== the Spark job in local mode against classify --jsonl"
(cd examples/spark && "$PY" -m pytest -q -p no:cacheprovider --durations=0 test_spark_local.py)
lap "Spark local-mode test"
