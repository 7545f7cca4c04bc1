#!/usr/bin/env python3
"""Runs every client driver against every serve fault scenario, under each revision.

    python3 matrix.py --summarize FILE   (a Markdown table of a finished run)
    python3 matrix.py [--bin PATH] [--out FILE] [--timeout SECONDS] [--max-seconds N]
                      [--clients a,b] [--revisions r1,r2] [SCENARIO[:PARAMS] ...]

Default scenarios: every scenario that `serve --list` prints, with its default params, plus
the EXTRA variants below. For each scenario, revision and driver it starts
`serve --scenario S --port 0 --log L`, runs the driver calling the baseline tool echo (every
scenario offers it; no scenario's params name a tool), stops serve, and appends one JSON line
per cell to the output file: scenario, revision, client, version, the driver's line, and from
serve's log the POSTs the server saw (count, methods and statuses). A driver that does not
speak a revision is recorded as skipped. Each cell is bounded (driver timeout + a grace), and
so is the whole run (--max-seconds); cells not reached are left out and counted on stderr.
Uses only the Python standard library.
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REVISIONS = ["2025-11-25", "2026-07-28"]
# Which revisions each driver speaks (see each driver's header comment).
DRIVERS = {
    "ts-sdk-v2": (["node", os.path.join(HERE, "ts-v2.mjs")], REVISIONS),
    "ts-sdk-v1": (["node", os.path.join(HERE, "ts-v1.mjs")], ["2025-11-25"]),
    "python-sdk": ([os.path.join(HERE, ".venv", "bin", "python"), os.path.join(HERE, "python-sdk.py")], REVISIONS),
    "inspector-cli": (["node", os.path.join(HERE, "inspector-cli.mjs")], ["2025-11-25"]),
}
# Variants that put a non-2xx on a later POST (the default 503,200 hits the first one).
EXTRA = ["http_status_sequence:200,503", "http_status_sequence:200,200,503"]
TOOL, ARGS = "echo", {"text": "hello from the client matrix"}


def list_scenarios(binary):
    out = subprocess.run([binary, "serve", "--list"], capture_output=True, text=True, timeout=30, check=True).stdout
    names = []
    for line in out.splitlines():
        if line and line[0].islower():
            name = line.split()[0]
            for sep in "[:":
                name = name.split(sep)[0]
            names.append(name)
    return names


def start_serve(binary, scenario, log):
    proc = subprocess.Popen(
        [binary, "serve", "--port", "0", "--scenario", scenario, "--log", log],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, start_new_session=True,
    )
    deadline = time.monotonic() + 10
    line = ""
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if line.startswith("listening on "):
            return proc, line.split("listening on ", 1)[1].strip()
        if not line and proc.poll() is not None:
            break
    stop(proc)
    raise RuntimeError(f"serve --scenario {scenario} did not start: {line!r}")


def stop(proc):
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=5)
        except (subprocess.TimeoutExpired, ProcessLookupError):
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()


def read_log(path):
    entries = []
    try:
        with open(path) as f:
            for line in f:
                try:
                    entries.append(json.loads(line))
                except ValueError:
                    pass
    except FileNotFoundError:
        pass
    exchanges = [
        {"method": e.get("method"), "httpStatuses": e.get("httpStatuses"), "postCount": e.get("postCount"),
         "streamEnd": e.get("streamEnd"), "finalResponse": e.get("finalResponse")}
        for e in entries
    ]
    statuses = [s for e in entries for s in (e.get("httpStatuses") or [])]
    calls = [e for e in entries if e.get("method") == "tools/call"]
    return {
        "posts": max([e.get("postCount") or 0 for e in entries], default=0),
        "statuses": statuses,
        "toolsCallPosts": sum(len(e.get("httpStatuses") or []) for e in calls),
        "exchanges": exchanges,
    }


def run_cell(binary, scenario, revision, client, timeout):
    argv, _ = DRIVERS[client]
    with tempfile.TemporaryDirectory(prefix="mcp-matrix-") as tmp:
        log = os.path.join(tmp, "serve.jsonl")
        proc, url = start_serve(binary, scenario, log)
        driver = None
        try:
            cmd = argv + [url, TOOL, json.dumps(ARGS), "--protocol", revision, "--timeout", str(timeout)]
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 15, start_new_session=True)
                lines = [l for l in p.stdout.splitlines() if l.strip()]
                driver = json.loads(lines[-1]) if lines else None
                if driver is None:
                    driver = {"outcome": "driver-failed", "error": {"type": "NoOutput", "message": p.stderr[-400:]}}
            except subprocess.TimeoutExpired:
                driver = {"outcome": "driver-failed", "error": {"type": "DriverOverran", "message": "the driver did not stop itself"}}
            except ValueError as e:
                driver = {"outcome": "driver-failed", "error": {"type": "BadDriverLine", "message": str(e)}}
        finally:
            stop(proc)
        return driver, read_log(log)


def brief(cell):
    """A few words for one cell: what the client concluded, and the POSTs serve saw."""
    if cell.get("outcome") == "skipped":
        return "-"
    d = cell.get("driver") or {}
    o = d.get("outcome")
    if o == "returned":
        r = d.get("result") or {}
        word = "isError" if r.get("isError") else "ok"
    elif o == "threw":
        e = d.get("error") or {}
        code = f" {e['code']}" if "code" in e else ""
        word = f"threw {e.get('type')}{code}@{e.get('stage')}"
    else:
        word = o or "?"
    ex = (cell.get("serve") or {}).get("exchanges") or []
    posts = [e for e in ex if e.get("postCount")]
    calls = [str(s) for e in posts if e.get("method") == "tools/call" for s in e.get("httpStatuses") or []]
    other = [f"{e.get('method')} {','.join(str(s) for s in e.get('httpStatuses') or [])}"
             for e in posts if e.get("method") != "tools/call" and any(s >= 300 for s in e.get("httpStatuses") or [])]
    seen = f"{len(posts)} POSTs" + (f"; call {','.join(calls)}" if calls else "; no call") + "".join(f"; {o}" for o in other)
    return f"{word} ({seen})"


def summarize(path):
    cells = [json.loads(l) for l in open(path) if l.strip()]
    clients = list(dict.fromkeys(c["client"] for c in cells))
    print("| scenario | revision | " + " | ".join(clients) + " |")
    print("|---|---|" + "---|" * len(clients))
    rows = {}
    for c in cells:
        rows.setdefault((c["scenario"], c["revision"]), {})[c["client"]] = brief(c)
    for (scenario, revision), by in rows.items():
        print(f"| {scenario} | {revision} | " + " | ".join(by.get(k, "") for k in clients) + " |")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--summarize":
        return summarize(sys.argv[2])
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.environ.get("MCP_VERDICT_BIN", "target/debug/mcp-verdict"))
    ap.add_argument("--out", default="target/client-matrix.jsonl")
    ap.add_argument("--timeout", type=float, default=10.0, help="per-driver timeout, seconds")
    ap.add_argument("--max-seconds", type=float, default=1800.0, help="bound on the whole run")
    ap.add_argument("--clients", default=",".join(DRIVERS))
    ap.add_argument("--revisions", default=",".join(REVISIONS))
    ap.add_argument("scenarios", nargs="*")
    a = ap.parse_args()
    scenarios = a.scenarios or list_scenarios(a.bin) + EXTRA
    clients = a.clients.split(",")
    revisions = a.revisions.split(",")
    start = time.monotonic()
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    done = skipped = left = 0
    with open(a.out, "a") as out:
        for scenario in scenarios:
            for revision in revisions:
                for client in clients:
                    cell = {"scenario": scenario, "revision": revision, "client": client}
                    if revision not in DRIVERS[client][1]:
                        cell.update(outcome="skipped", reason=f"{client} does not speak {revision}")
                        out.write(json.dumps(cell) + "\n")
                        skipped += 1
                        continue
                    if time.monotonic() - start + a.timeout + 20 > a.max_seconds:
                        left += 1
                        continue
                    driver, log = run_cell(a.bin, scenario, revision, client, a.timeout)
                    cell.update(version=driver.get("version"), outcome=driver.get("outcome"), driver=driver, serve=log)
                    out.write(json.dumps(cell) + "\n")
                    out.flush()
                    done += 1
                    err = driver.get("error") or {}
                    res = driver.get("result") or {}
                    print(f"{scenario:34} {revision} {client:13} {driver.get('outcome'):8} "
                          f"{'isError=' + str(res.get('isError')) if driver.get('outcome') == 'returned' else err.get('type', '')} "
                          f"posts={log['posts']} {log['statuses']}", file=sys.stderr, flush=True)
    print(f"matrix: {done} cells run, {skipped} skipped (revision not spoken), {left} not reached, "
          f"{time.monotonic() - start:.0f} s -> {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
