"""Judge captured MCP traffic at scale: a Spark job over JSON Lines exchange captures.

Reads JSON Lines captures (one exchange per line in the exchange file format of mcp-verdict,
as `mcp-verdict classify --jsonl` reads them) from a local path or any file system Spark reads
(hdfs://, s3a://, a directory, a glob), judges each partition with `mcp_verdict.judge_many` in
`mapPartitions`, writes one Parquet row per verdict, and prints the outcomes per tool and per
revision.

    spark-submit examples/spark/judge_captures.py CAPTURES OUT.parquet [--protocol all]

Each worker needs the `mcp_verdict` wheel installed in its Python (`pip install`); nothing
else. `--via pipe` judges with the `mcp-verdict` binary instead (`rdd.pipe` through
`mcp-verdict classify --jsonl -`, which writes one line per non-blank input line, in order),
for clusters where the binary is easier to ship than a wheel.

Parquet columns, one row per verdict (an exchange judged under two revisions has two rows):

    exchange_id    the exchange's `name`, else "<record>"
    record         1-based position of the line in the input (its line number for one file)
    tool           the tool called (`params.name` of the request), when there is one
    revision       the protocol revision of the verdict
    outcome        TOOL_SUCCESS, TOOL_ERROR, ... (null for a line that could not be judged)
    layer          transport, framing, protocol, interaction or application
    deciding_rule  the id of the rule that decided the outcome
    findings       array of {rule, severity}, in table order
    error          why the line could not be judged (then revision/outcome are null)
"""

from __future__ import annotations

import argparse
import itertools
import json
import shlex
import time
from collections.abc import Iterable, Iterator
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import ArrayType, LongType, StringType, StructField, StructType

FINDING = StructType([StructField("rule", StringType()), StructField("severity", StringType())])
SCHEMA = StructType(
    [
        StructField("exchange_id", StringType(), False),
        StructField("record", LongType(), False),
        StructField("tool", StringType()),
        StructField("revision", StringType()),
        StructField("outcome", StringType()),
        StructField("layer", StringType()),
        StructField("deciding_rule", StringType()),
        StructField("findings", ArrayType(FINDING), False),
        StructField("error", StringType()),
    ]
)

BOM = "\ufeff"


def rows_of(doc: dict[str, Any], record: int) -> Iterator[tuple]:
    """The Parquet rows of one judged line: one per verdict, or one error row."""
    if "error" in doc:
        yield (str(record), record, None, None, None, None, None, [], doc["error"])
        return
    exchange_id = doc.get("exchange") or str(record)
    for v in doc["verdicts"]:
        decided = next((c["id"] for c in v["cites"] if c["role"] == "decided"), None)
        findings = [(f["rule"], f["severity"]) for f in v["findings"]]
        yield (
            exchange_id,
            record,
            v["facts"].get("tool"),
            v["protocol"],
            v["outcome"],
            v["layer"],
            decided,
            findings,
            None,
        )


def judge_partition(
    records: Iterable[tuple[str, int]], protocol: str | None, batch: int
) -> Iterator[tuple]:
    """Judges `(line, index)` pairs in batches with `judge_many` (one call per batch: the
    GIL-free Rust engine, no per-line call overhead). Blank lines are skipped, as
    `classify --jsonl` skips them."""
    import mcp_verdict  # imported on the worker

    it = iter(records)
    while True:
        chunk = [
            (line.removeprefix(BOM) if index == 0 else line, index)
            for line, index in itertools.islice(it, batch)
        ]
        if not chunk:
            return
        chunk = [(line, index) for line, index in chunk if line.strip()]
        docs = mcp_verdict.judge_many([line for line, _ in chunk], protocol, errors="record")
        for (_, index), doc in zip(chunk, docs):
            yield from rows_of(doc, index + 1)


def pipe_partition(pairs: Iterable[tuple[tuple[str, int], str]]) -> Iterator[tuple]:
    """Rows from `(input record, classify --jsonl output line)` pairs."""
    for (_, index), out in pairs:
        doc = json.loads(out)
        doc.pop("line", None)
        yield from rows_of(doc, index + 1)


_SHIPPED: set[int] = set()


def ship_this_module(spark: SparkSession) -> None:
    """Makes this file importable on the workers (the functions handed to Spark live here)."""
    if id(spark.sparkContext) not in _SHIPPED and __name__ != "__main__":
        spark.sparkContext.addPyFile(__file__)
        _SHIPPED.add(id(spark.sparkContext))


def judge_captures(
    spark: SparkSession,
    captures: str,
    protocol: str | None = None,
    batch: int = 512,
    partitions: int | None = None,
    via: str = "binding",
    binary: str = "mcp-verdict",
) -> DataFrame:
    """The verdicts of every line of `captures`, as a DataFrame with `SCHEMA` (lazy: nothing
    runs until it is written or counted)."""
    sc = spark.sparkContext
    ship_this_module(spark)
    lines = sc.textFile(captures, minPartitions=partitions or sc.defaultParallelism)
    records = lines.zipWithIndex()
    if via == "binding":
        rows = records.mapPartitions(lambda part: judge_partition(part, protocol, batch))
    elif via == "pipe":
        # One output line per non-blank input line, in order: zip pairs them back up.
        nonblank = records.filter(lambda r: r[0].strip() != "").map(
            lambda r: (r[0].removeprefix(BOM) if r[1] == 0 else r[0], r[1])
        )
        cmd = [binary, "classify", "--jsonl", "-"]
        if protocol:
            cmd += ["--protocol", protocol]
        # Exit status 1 means "some verdict has an error finding": not a failure here.
        outputs = nonblank.map(lambda r: r[0]).pipe(shlex.join(cmd), checkCode=False)
        rows = nonblank.zip(outputs).mapPartitions(pipe_partition)
    else:
        raise ValueError(f"via is 'binding' or 'pipe', not {via!r}")
    # The rows are built to SCHEMA above; checking each one again in Python costs time.
    return spark.createDataFrame(rows, SCHEMA, verifySchema=False)


def summary(verdicts: DataFrame) -> tuple[DataFrame, DataFrame]:
    """Outcomes per tool and revision (one column per outcome), and per revision."""
    judged = verdicts.where(F.col("error").isNull())
    per_tool = (
        judged.fillna({"tool": "(none)"})
        .groupBy("tool", "revision")
        .pivot("outcome")
        .count()
        .fillna(0)
        .orderBy("tool", "revision")
    )
    per_revision = (
        verdicts.fillna({"revision": "(not judged)", "outcome": "(error record)"})
        .groupBy("revision", "outcome")
        .count()
        .orderBy("revision", F.desc("count"))
    )
    return per_tool, per_revision


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("captures", help="JSON Lines captures: a file, directory or glob on any Spark file system")
    ap.add_argument("output", help="where to write the verdicts (Parquet)")
    ap.add_argument("--protocol", help="2025-11-25, 2026-07-28 or all (default: what each exchange names)")
    ap.add_argument("--batch", type=int, default=512, help="exchanges per judge_many call")
    ap.add_argument("--partitions", type=int, help="minimum input partitions")
    ap.add_argument("--via", choices=["binding", "pipe"], default="binding")
    ap.add_argument("--binary", default="mcp-verdict", help="with --via pipe: the mcp-verdict binary on the workers")
    a = ap.parse_args(argv)

    spark = SparkSession.builder.appName("mcp-verdict judge captures").getOrCreate()
    start = time.perf_counter()
    verdicts = judge_captures(spark, a.captures, a.protocol, a.batch, a.partitions, a.via, a.binary)
    verdicts.write.mode("overwrite").parquet(a.output)
    took = time.perf_counter() - start
    written = spark.read.parquet(a.output)
    per_tool, per_revision = summary(written)
    records = written.select("record").distinct().count()
    print(f"{records} exchanges judged in {took:.1f} s -> {a.output}")
    per_tool.show(n=10_000, truncate=False)
    per_revision.show(n=10_000, truncate=False)
    spark.stop()


if __name__ == "__main__":
    main()
