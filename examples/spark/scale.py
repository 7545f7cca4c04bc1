"""One run, one input, four ways to judge it: the Python binding one call per exchange
(`judge`), the binding in batches (`judge_many`), the Spark job in local mode, and
`mcp-verdict classify --jsonl`. Prints wall times and exchanges per second per core, as ratios
to the command line.

    python examples/spark/scale.py [N]        # N exchanges, default 100,000

Needs the `mcp_verdict` wheel and pyspark installed in this Python, Java 17 on PATH, and the
`mcp-verdict` binary (MCP_VERDICT_BIN, else target/release/mcp-verdict).
"""

from __future__ import annotations

import collections
import json
import os
import pathlib
import subprocess
import sys
import time
from dataclasses import dataclass

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import judge_captures  # noqa: E402


def cli_binary() -> pathlib.Path:
    given = os.environ.get("MCP_VERDICT_BIN")
    if given:
        return pathlib.Path(given)
    for profile in ("release", "debug"):
        p = ROOT / "target" / profile / "mcp-verdict"
        if p.exists():
            return p
    raise RuntimeError("no mcp-verdict binary: cargo build --release, or set MCP_VERDICT_BIN")


def write_captures(path: pathlib.Path, n: int) -> int:
    """Writes `n` capture lines cycling through the shipped fixture corpus, most named like a
    gateway would name them (every seventh left unnamed), with a line that is not JSON and a
    blank line every 10,000. Returns the number of lines written."""
    fixtures = []
    for p in sorted((ROOT / "tests" / "fixtures").rglob("*.json")):
        d = json.loads(p.read_text())
        d.pop("$schema", None)
        d.pop("expect", None)
        fixtures.append(d)
    written = 0
    with path.open("w") as out:
        for i in range(n):
            if i % 10_000 == 5_000:
                out.write('{"response": not json}\n')
            elif i % 10_000 == 7_000:
                out.write("\n")
            else:
                d = dict(fixtures[i % len(fixtures)])
                if i % 7:
                    d["name"] = f"gw-{i:07d}"
                else:
                    d.pop("name", None)
                out.write(json.dumps(d, separators=(",", ":")) + "\n")
            written += 1
    return written


@dataclass
class Run:
    """One way of judging the input: its wall time, the cores it had, and its verdicts as
    `{(record, revision): (outcome, deciding rule, finding rules)}` plus error records."""

    name: str
    seconds: float
    cores: int
    verdicts: dict
    errors: set

    def counts(self) -> collections.Counter:
        c = collections.Counter((rev, v[0]) for (_, rev), v in self.verdicts.items())
        c[("-", "error record")] = len(self.errors)
        return c


def collect(name: str, seconds: float, cores: int, rows) -> Run:
    verdicts, errors = {}, set()
    for record, revision, outcome, deciding, findings, error in rows:
        if error is not None:
            errors.add(record)
        else:
            verdicts[(record, revision)] = (outcome, deciding, tuple(findings))
    return Run(name, seconds, cores, verdicts, errors)


def doc_rows(docs_with_records):
    for record, doc in docs_with_records:
        for r in judge_captures.rows_of(doc, record):
            yield r[1], r[3], r[4], r[6], [f[0] for f in r[7]], r[8]


def run_cli(captures: pathlib.Path) -> Run:
    cores = os.cpu_count() or 1
    start = time.perf_counter()
    p = subprocess.run(
        [str(cli_binary()), "classify", "--jsonl", str(captures)], capture_output=True
    )
    seconds = time.perf_counter() - start
    if p.returncode not in (0, 1):
        raise RuntimeError(p.stderr.decode())
    docs = ((d.pop("line"), d) for d in map(json.loads, p.stdout.splitlines()))
    return collect("classify --jsonl", seconds, cores, doc_rows(docs))


def read_lines(captures: pathlib.Path) -> list[tuple[int, str]]:
    """The non-blank lines with their 1-based numbers (a BOM dropped from the first)."""
    lines = captures.read_text().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if lines:
        lines[0] = lines[0].removeprefix("\ufeff")
    return [(i + 1, line) for i, line in enumerate(lines) if line.strip()]


def run_binding_batch(captures: pathlib.Path, batch: int = 512) -> Run:
    import mcp_verdict

    lines = read_lines(captures)
    start = time.perf_counter()
    docs = []
    for i in range(0, len(lines), batch):
        docs.extend(mcp_verdict.judge_many([x for _, x in lines[i : i + batch]], errors="record"))
    seconds = time.perf_counter() - start
    return collect("judge_many (batches of %d)" % batch, seconds, 1, doc_rows(zip((n for n, _ in lines), docs)))


def run_binding_single(captures: pathlib.Path) -> Run:
    import mcp_verdict

    lines = read_lines(captures)
    start = time.perf_counter()
    docs = []
    for _, line in lines:
        try:
            docs.append(mcp_verdict.judge(line))
        except mcp_verdict.VerdictError as e:
            docs.append({"error": str(e)})
    seconds = time.perf_counter() - start
    return collect("judge (one call each)", seconds, 1, doc_rows(zip((n for n, _ in lines), docs)))


def spark_session(cores: int):
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    return (
        SparkSession.builder.master(f"local[{cores}]")
        .appName("mcp-verdict scale")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", str(cores))
        .config("spark.python.worker.reuse", "true")
        .getOrCreate()
    )


def run_spark(spark, captures: pathlib.Path, out: pathlib.Path, via: str = "binding") -> Run:
    cores = spark.sparkContext.defaultParallelism
    start = time.perf_counter()
    df = judge_captures.judge_captures(
        spark, str(captures), via=via, binary=str(cli_binary()), partitions=cores
    )
    df.write.mode("overwrite").parquet(str(out))
    seconds = time.perf_counter() - start
    rows = (
        spark.read.parquet(str(out))
        .select("record", "revision", "outcome", "deciding_rule", "findings.rule", "error")
        .collect()
    )
    name = "Spark local[%d], judge_many" % cores if via == "binding" else "Spark local[%d], rdd.pipe" % cores
    return collect(name, seconds, cores, (tuple(r) for r in rows))


def report(n: int, runs: list[Run], reference: Run) -> str:
    ref = n / reference.seconds / reference.cores
    out = [
        f"{n:,} exchanges, one run, {os.cpu_count()} cores",
        f"{'':34} {'wall s':>8} {'cores':>5} {'exch/s/core':>12} {'vs CLI':>7}",
    ]
    for r in runs:
        per_core = n / r.seconds / r.cores
        out.append(f"{r.name:34} {r.seconds:8.2f} {r.cores:5d} {per_core:12.0f} {per_core / ref:6.2f}x")
    return "\n".join(out)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    work = ROOT / "target" / "spark-scale"
    work.mkdir(parents=True, exist_ok=True)
    captures = work / f"captures-{n}.jsonl"
    lines = write_captures(captures, n)
    cli = run_cli(captures)
    single = run_binding_single(captures)
    batch = run_binding_batch(captures)
    spark = spark_session(os.cpu_count() or 1)
    try:
        spark_run = run_spark(spark, captures, work / "verdicts.parquet")
    finally:
        spark.stop()
    for r in (single, batch, spark_run):
        assert r.counts() == cli.counts(), r.name
    print(report(lines, [single, batch, spark_run, cli], cli))


if __name__ == "__main__":
    main()
