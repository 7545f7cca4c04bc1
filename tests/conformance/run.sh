#!/usr/bin/env bash
# Runs the official MCP conformance suite (installed by tests/conformance/install.sh) against
# this project:
#   server leg: the suite's server scenarios against `mcp-verdict serve` (the baseline scenario
#               with the suite's fixture tool set), for each revision and each response mode;
#   client leg: the suite's client scenarios with `mcp-verdict probe` as the client under test
#               (tests/conformance/client.sh), for each revision.
# Each run is scored against the revision's frozen requirement set (`--requirements`); the
# failures this project expects are listed, with their reason, in expected-failures.yml. Any
# other failure, or a listed scenario that now passes, fails the run.
#
# The suite's own test servers listen on every interface, so the whole run happens in a network
# namespace of its own (`unshare -rn`) in which only loopback is up: nothing here is reachable
# from beyond this machine, and nothing outside is reachable from here.
#
#   bash tests/conformance/run.sh [all|server|client]
# MCP_VERDICT_BIN names the binary to test (default: `cargo build`, then target/debug/mcp-verdict).
# Results (the suite's per-check JSON, its console output, serve's logs) go to
# target/conformance/ or to MCP_VERDICT_CONFORMANCE_OUT.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
leg=${1:-all}
case "$leg" in all | server | client) ;; *)
  echo "usage: bash tests/conformance/run.sh [all|server|client]" >&2
  exit 2
  ;;
esac
revisions=(2025-11-25 2026-07-28)
modes=(json sse)
# The suite's fixture tools, prompts and resources are a named tool set of the baseline scenario.
serve_scenario=${MCP_VERDICT_CONFORMANCE_SCENARIO:-baseline:tools=conformance}

if [ -z "${MCP_VERDICT_CONFORMANCE_IN_NETNS:-}" ]; then
  if [ ! -x "$here/node_modules/.bin/conformance" ]; then
    echo "tests/conformance/run.sh: the suite is not installed; run: bash tests/conformance/install.sh" >&2
    exit 1
  fi
  for tool in unshare ip; do
    if ! command -v "$tool" >/dev/null 2>&1; then
      echo "tests/conformance/run.sh: '$tool' is needed to run the suite in a network namespace of its own (packages util-linux and iproute2)" >&2
      exit 1
    fi
  done
  if [ -z "${MCP_VERDICT_BIN:-}" ]; then
    (cd "$root" && cargo build -q)
    MCP_VERDICT_BIN="$root/target/debug/mcp-verdict"
  fi
  MCP_VERDICT_CONFORMANCE_OUT=${MCP_VERDICT_CONFORMANCE_OUT:-$root/target/conformance}
  rm -rf "$MCP_VERDICT_CONFORMANCE_OUT"
  mkdir -p "$MCP_VERDICT_CONFORMANCE_OUT"
  MCP_VERDICT_BIN=$(cd "$(dirname "$MCP_VERDICT_BIN")" && pwd)/$(basename "$MCP_VERDICT_BIN")
  MCP_VERDICT_CONFORMANCE_OUT=$(cd "$MCP_VERDICT_CONFORMANCE_OUT" && pwd)
  export MCP_VERDICT_BIN MCP_VERDICT_CONFORMANCE_OUT MCP_VERDICT_CONFORMANCE_IN_NETNS=1
  exec unshare --map-root-user --net bash "$0" "$leg"
fi

# From here on: inside the namespace.
ip link set lo up
export PATH="$here/node_modules/.bin:$PATH"
out=$MCP_VERDICT_CONFORMANCE_OUT
failed=()
summary=()

# One line per run: the suite's check totals ("Total: N passed, M failed", every scenario run,
# scored or not) and the scored scenarios that failed, expected (listed) or not.
report() {
  local name=$1 rc=$2 file=$3 plain total expected unexpected verdict
  plain="$file.plain"
  sed 's/\x1b\[[0-9;]*m//g' "$file" >"$plain"
  total=$(grep -E '^Total: ' "$plain" | tail -1 || true)
  expected=$(sed -n '/^Expected failures/,/^$/p' "$plain" | grep -c '^ *~' || true)
  unexpected=$(sed -n '/^Unexpected failures/,/^$/p' "$plain" | grep -c '^ *✗' || true)
  if [ "$rc" -eq 0 ]; then verdict=ok; else
    verdict=FAILED
    failed+=("$name")
  fi
  summary+=("$(printf '%-26s %-6s %-40s scored scenarios failing: %s listed, %s not listed' \
    "$name" "$verdict" "${total:-no summary (see $file)}" "$expected" "$unexpected")")
  if [ "$rc" -ne 0 ]; then
    echo "---- $name (exit $rc): what the suite found beyond expected-failures.yml"
    sed -n '/^Stale baseline entries/,/^$/p;/^Unexpected failures/,/^$/p' "$plain"
  fi
}

serve_pid=
stop_serve() {
  if [ -n "$serve_pid" ]; then
    kill "$serve_pid" 2>/dev/null || true
    wait "$serve_pid" 2>/dev/null || true
    serve_pid=
  fi
}
trap stop_serve EXIT

if [ "$leg" != client ]; then
  for mode in "${modes[@]}"; do
    "$MCP_VERDICT_BIN" serve --scenario "$serve_scenario" --response-mode "$mode" --port 0 --color never \
      --log "$out/serve-$mode.jsonl" >"$out/serve-$mode.stdout" 2>"$out/serve-$mode.stderr" &
    serve_pid=$!
    url=
    for _ in $(seq 1 100); do
      url=$(sed -n 's/^listening on \(http[^ ]*\).*/\1/p' "$out/serve-$mode.stdout" | head -1)
      [ -n "$url" ] && break
      if ! kill -0 "$serve_pid" 2>/dev/null; then break; fi
      sleep 0.1
    done
    if [ -z "$url" ]; then
      echo "serve did not start (response mode $mode):" >&2
      cat "$out/serve-$mode.stderr" >&2
      exit 1
    fi
    for rev in "${revisions[@]}"; do
      name="server $rev $mode"
      file="$out/server-$rev-$mode.txt"
      rc=0
      conformance server --url "$url" --requirements "$rev" \
        --expected-failures "$here/expected-failures.yml" -o "$out/server-$rev-$mode" >"$file" 2>&1 || rc=$?
      report "$name" "$rc" "$file"
    done
    stop_serve
  done
fi

if [ "$leg" != server ]; then
  cd "$here"
  for rev in "${revisions[@]}"; do
    name="client $rev (probe)"
    file="$out/client-$rev.txt"
    rc=0
    conformance client --command "bash client.sh" --requirements "$rev" \
      --expected-failures "$here/expected-failures.yml" -o "$out/client-$rev" >"$file" 2>&1 || rc=$?
    report "$name" "$rc" "$file"
  done
fi

echo "== the official MCP conformance suite ($(conformance --version)), scored per revision; results in $out"
printf '%s\n' "${summary[@]}"
if [ "${#failed[@]}" -gt 0 ]; then
  echo "failed: ${failed[*]}" >&2
  exit 1
fi
echo "all runs passed (the failures listed in tests/conformance/expected-failures.yml excepted)"
