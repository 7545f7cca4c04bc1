#!/usr/bin/env bash
# Same-machine, one-run throughput comparison of mcp-verdict with two peers: the seed document's
# Node.js classifier (extracted at run time, never copied into the project) and ajv validating
# CallToolResult instances against the official 2026-07-28 schema. See README.md beside this file.
#
#   benches/compare/run.sh
#
# Environment (all optional):
#   COMPARE_RUNS=5        rounds; each row's figure is the median of its rounds
#   COMPARE_MIN_MS=1000   minimum timed length of one row in one round
#   COMPARE_WARM_MS=200   untimed warm-up before each row
#   MCP_SEED_DIR          the seed document's folder (default: ../shared/seed from the repo root)
#   MCP_SPEC_SCHEMA       the official schema (default: ../shared/spec/2026-07-28/schema/schema.json)
#   NODE                  the node binary (default: node on PATH; 20 or later)
#   COMPARE_STREAM_LINES=100000  lines of the whole-process comparison
#
# Needs the network only for `npm ci` when benches/compare/node_modules is missing or stale.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

RUNS="${COMPARE_RUNS:-5}"
MIN_MS="${COMPARE_MIN_MS:-1000}"
WARM_MS="${COMPARE_WARM_MS:-200}"
SEED_DIR="${MCP_SEED_DIR:-$root/../shared/seed}"
SCHEMA="${MCP_SPEC_SCHEMA:-$root/../shared/spec/2026-07-28/schema/schema.json}"
NODE="${NODE:-node}"
target="${CARGO_TARGET_DIR:-$root/target}"
out="$target/compare"

die() { echo "compare: $*" >&2; exit 2; }

[ -d "$SEED_DIR" ] || die "the seed document's folder $SEED_DIR does not exist (set MCP_SEED_DIR)"
[ -f "$SCHEMA" ] || die "the official 2026-07-28 schema $SCHEMA does not exist (set MCP_SPEC_SCHEMA)"
command -v "$NODE" >/dev/null || die "node not found (set NODE); Node 20 or later is needed"
node_major="$("$NODE" -p 'process.versions.node.split(".")[0]')"
[ "$node_major" -ge 20 ] || die "Node $("$NODE" --version) is too old; 20 or later is needed"

# 1. ajv, pinned by package-lock.json; install only when missing or not the locked version.
locked="$("$NODE" -p 'require("./benches/compare/package-lock.json").packages["node_modules/ajv"].version')"
installed="$("$NODE" -p 'try { require("./benches/compare/node_modules/ajv/package.json").version } catch { "" }')"
if [ "$installed" != "$locked" ]; then
  echo "compare: npm ci (ajv $locked)" >&2
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error >&2)
fi

# 2. The release build of the Rust side (benches/compare.rs).
echo "compare: cargo bench --bench compare --no-run (release profile)" >&2
bench_bin="$(cargo bench --bench compare --no-run --message-format=json |
  "$NODE" -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{let exe="";
    for (const l of s.split("\n")) { try { const m=JSON.parse(l);
      if (m.reason==="compiler-artifact" && m.target.name==="compare" && m.executable) exe=m.executable; } catch {} }
    console.log(exe)})')" || die "building the compare bench failed (see above)"
[ -n "$bench_bin" ] || die "cargo built no executable for the compare bench"

# 3. Inputs and the seed classifier, outside git.
mkdir -p "$out"
"$NODE" "$here/gen-data.mjs" "$out"
"$NODE" "$here/extract-seed.mjs" "$SEED_DIR" "$out/seed-classifier.mjs"

# 4. Machine facts, then the rounds: Node side and Rust side one after the other (never at the
#    same time), alternating which goes first, so load drift on a shared machine hits both.
results="$out/results.jsonl"
: >"$results"
cpu="$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //' || true)"
[ -n "$cpu" ] || cpu="$(uname -m)"
load_before="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
node_side() {
  (cd "$here" && "$NODE" harness.mjs --data "$out" --seed "$out/seed-classifier.mjs" --schema "$SCHEMA" \
    --runs 1 --min-ms "$MIN_MS" --warm-ms "$WARM_MS" --out "$results")
}
rust_side() {
  "$bench_bin" --data "$out" --schema "$SCHEMA" --runs 1 --min-ms "$MIN_MS" --warm-ms "$WARM_MS" --out "$results"
}
for r in $(seq 1 "$RUNS"); do
  echo "compare: round $r/$RUNS" >&2
  if [ $((r % 2)) -eq 1 ]; then node_side; rust_side; else rust_side; node_side; fi
done
# 5. Whole processes over one JSON Lines file: the 17 exchanges cycled to STREAM_LINES lines,
#    judged by `mcp-verdict classify --jsonl` (full and compact records, each on all cores and on
#    one) and
#    classified by the seed in one Node process (`stream.mjs`), each writing a line per exchange
#    to /dev/null; rounds alternate which goes first. Rates are lines per second of wall time.
STREAM_LINES="${COMPARE_STREAM_LINES:-100000}"
echo "compare: cargo build --release --bin mcp-verdict" >&2
cargo build --release -q --bin mcp-verdict || die "building mcp-verdict failed (see above)"
cli="$target/release/mcp-verdict"
stream_file="$out/stream.jsonl"
"$NODE" -e 'const fs=require("fs");const [src,dst,n]=process.argv.slice(1);
  const ls=fs.readFileSync(src,"utf8").split("\n").filter(Boolean);
  const out=[];for(let i=0;i<Number(n);i++)out.push(ls[i%ls.length]);fs.writeFileSync(dst,out.join("\n")+"\n")' \
  "$out/exchanges.jsonl" "$stream_file" "$STREAM_LINES"
timed() { # SIDE NAME COMMAND...: one timed run, appended as a row
  local side="$1" name="$2"; shift 2
  local t0 t1
  t0="$(date +%s%N)"
  "$@" >/dev/null 2>&1 || [ $? -eq 1 ] || die "$side: $* failed"
  t1="$(date +%s%N)"
  "$NODE" -e 'const [s,n,l,ns,f]=process.argv.slice(1);require("fs").appendFileSync(f,
    JSON.stringify({side:s,name:n,rates:[Number(l)*1e9/Number(ns)],result:null})+"\n")' \
    "$side" "$name" "$STREAM_LINES" "$((t1 - t0))" "$results"
}
for r in $(seq 1 "$RUNS"); do
  echo "compare: whole processes, round $r/$RUNS ($STREAM_LINES lines)" >&2
  seed_proc() { timed process-seed stream "$NODE" "$here/stream.mjs" "$out/seed-classifier.mjs" "$stream_file"; }
  ours() {
    timed process-full stream "$cli" classify --jsonl "$stream_file" --protocol 2026-07-28
    timed process-compact stream "$cli" classify --jsonl "$stream_file" --protocol 2026-07-28 --compact
    timed process-compact-1 stream "$cli" classify --jsonl "$stream_file" --protocol 2026-07-28 --compact --jobs 1
    timed process-full-1 stream "$cli" classify --jsonl "$stream_file" --protocol 2026-07-28 --jobs 1
  }
  if [ $((r % 2)) -eq 1 ]; then seed_proc; ours; else ours; seed_proc; fi
done
load_after="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"

# 6. The table.
MACHINE_CPU="$cpu" MACHINE_CORES="$(nproc)" MACHINE_NODE="$("$NODE" --version)" \
  MACHINE_RUSTC="$(rustc --version)" MACHINE_AJV="$locked" MACHINE_DATE="$(date -u '+%Y-%m-%d %H:%M UTC')" \
  MACHINE_LOAD="$load_before -> $load_after" COMPARE_RUNS="$RUNS" COMPARE_MIN_MS="$MIN_MS" \
  COMPARE_STREAM_LINES="$STREAM_LINES" \
  "$NODE" "$here/report.mjs" "$results" "$out/exchanges.jsonl" "$out/instances.jsonl" | tee "$out/report.md"
echo "compare: table written to $out/report.md" >&2
