#!/usr/bin/env python3
"""Scale measurements for mcp-verdict, one run, reported as ratios.

1. `classify --jsonl` on 100,000 exchanges, full and `--compact` records: throughput against
   the single-threaded parse floor of the same file (reading each line and parsing its body
   once), and peak memory on 10,000 vs 100,000 lines (it should not grow with the file).
2. `check` on a large corpus (the shipped fixtures copied 20 times): wall time on one thread
   (RAYON_NUM_THREADS=1) against all cores.
3. Hostile recordings (`benches/big_recording.py`): `check` against `classify` on an SSE stream
   of 5,000 and 20,000 progress events that each draw a finding, `check` time on 10,000 events
   against 1,000 (linear: about 10x), and the peak memory of `check` on a 50 MB recording as a
   multiple of the file's size.
4. `check --format sarif` on 10,000 files with 20 findings each: peak memory.

Usage: python3 benches/scale.py   (builds the release binaries first)
"""
import json, os, pathlib, shutil, statistics, subprocess, sys, time

ROOT = pathlib.Path(__file__).resolve().parent.parent
TARGET = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
WORK = TARGET / "scale"
BIN = TARGET / "release" / "mcp-verdict"
FLOOR = TARGET / "release" / "examples" / "jsonl_floor"


def run(cmd, env=None):
    """Runs a command; returns (wall seconds, peak RSS in KiB)."""
    start = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        sys.exit(f"{' '.join(map(str, cmd))} exited {code}")
    return wall, usage.ru_maxrss


def median(cmd, n=5, env=None):
    walls, rss = [], []
    for _ in range(n):
        w, r = run(cmd, env)
        walls.append(w)
        rss.append(r)
    return statistics.median(walls), max(rss)


def corpus_lines():
    out = []
    for p in sorted((ROOT / "tests" / "fixtures").rglob("*.json")):
        d = json.loads(p.read_text())
        d.pop("$schema", None)
        out.append(json.dumps(d, separators=(",", ":"), ensure_ascii=False))
    return out


def main():
    subprocess.run(["cargo", "build", "--release", "-q", "--bin", "mcp-verdict", "--example", "jsonl_floor"],
                   cwd=ROOT, check=True)
    WORK.mkdir(parents=True, exist_ok=True)
    lines = corpus_lines()
    files = {}
    for n in (10_000, 100_000):
        f = WORK / f"exchanges-{n}.jsonl"
        with f.open("w") as out:
            for i in range(n):
                out.write(lines[i % len(lines)] + "\n")
        files[n] = f
    cores = os.cpu_count()
    print(f"machine: {cores} cores; {len(lines)} distinct exchanges cycled\n")

    big = files[100_000]
    floor, _ = median([FLOOR, big], 3)
    jsonl, rss_big = median([BIN, "classify", "--jsonl", big], 3)
    compact, rss_compact = median([BIN, "classify", "--jsonl", big, "--compact"], 3)
    _, rss_small = median([BIN, "classify", "--jsonl", files[10_000]], 3)
    print("classify --jsonl, 100,000 exchanges")
    print(f"  parse floor (1 thread)       {floor:7.2f} s   {100_000 / floor:9.0f} exchanges/s")
    print(f"  classify --jsonl ({cores} threads) {jsonl:7.2f} s   {100_000 / jsonl:9.0f} exchanges/s")
    print(f"  classify / parse floor       {jsonl / floor:7.2f}x  (wall time)")
    print(f"  --compact ({cores} threads)        {compact:7.2f} s   {100_000 / compact:9.0f} exchanges/s")
    print(f"  compact / parse floor        {compact / floor:7.2f}x  (wall time); compact / full {compact / jsonl:.2f}x")
    print(f"  peak RSS --compact, 100,000  {rss_compact / 1024:7.1f} MiB")
    print(f"  peak RSS 10,000 lines        {rss_small / 1024:7.1f} MiB")
    print(f"  peak RSS 100,000 lines       {rss_big / 1024:7.1f} MiB   ratio {rss_big / rss_small:.2f}\n")

    corpus = WORK / "corpus"
    shutil.rmtree(corpus, ignore_errors=True)
    for i in range(20):
        shutil.copytree(ROOT / "tests" / "fixtures", corpus / f"copy-{i:02}")
    nfiles = sum(1 for _ in corpus.rglob("*.json"))
    one = dict(os.environ, RAYON_NUM_THREADS="1")
    t1, _ = median([BIN, "check", corpus, "--protocol", "all"], 3, one)
    tn, _ = median([BIN, "check", corpus, "--protocol", "all"], 3)
    print(f"check, {nfiles} files under both revisions")
    print(f"  1 thread                     {t1:7.2f} s")
    print(f"  {cores} threads                    {tn:7.2f} s   speedup {t1 / tn:.2f}x")

    hostile()


def recording(kind, n):
    f = WORK / f"{kind}-{n}.json"
    if not f.exists():
        with f.open("w") as out:
            subprocess.run([sys.executable, ROOT / "benches" / "big_recording.py", kind, str(n)],
                           stdout=out, check=True)
    return f


def hostile():
    print("\nhostile recordings")
    for n in (5_000, 20_000):
        f = recording("progress", n)
        tc, _ = median([BIN, "classify", "--format", "json", f], 3)
        tk, _ = median([BIN, "check", "--format", "json", f], 3)
        print(f"  {n:,} progress findings: check {tk:6.2f} s, classify {tc:6.2f} s, ratio {tk / tc:.2f}x")
    t1, _ = median([BIN, "check", "--format", "json", recording("progress", 1_000)], 3)
    t10, _ = median([BIN, "check", "--format", "json", recording("progress", 10_000)], 3)
    print(f"  check on 10,000 events / on 1,000   {t10 / t1:6.2f}x  (linear: about 10x)")
    big = recording("size", 50)
    size_kib = big.stat().st_size / 1024
    _, rss = median([BIN, "check", "--format", "json", big], 1)
    _, crss = median([BIN, "classify", "--format", "json", big], 1)
    print(f"  50 MB recording: check peak RSS {rss / 1024:7.1f} MiB = {rss / size_kib:.2f}x the file; "
          f"classify {crss / 1024:7.1f} MiB = {crss / size_kib:.2f}x")
    many = WORK / "many"
    if not many.exists():
        doc = subprocess.run([sys.executable, ROOT / "benches" / "big_recording.py", "progress", "20"],
                             capture_output=True, text=True, check=True).stdout
        for i in range(10_000):
            d = many / f"d{i // 500:02}"
            d.mkdir(parents=True, exist_ok=True)
            (d / f"f{i:05}.json").write_text(doc)
    _, srss = median([BIN, "check", "--format", "sarif", "--output", WORK / "many.sarif", many], 1)
    _, jrss = median([BIN, "check", "--format", "json", "--output", WORK / "many.json", many], 1)
    print(f"  10,000 files, 200,000 findings: peak RSS sarif {srss / 1024:7.1f} MiB, json {jrss / 1024:7.1f} MiB")


if __name__ == "__main__":
    main()
