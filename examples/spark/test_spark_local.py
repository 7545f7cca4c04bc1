"""The Spark job in local mode against `mcp-verdict classify --jsonl` on the same captures:
the same verdict for every line (outcome, deciding rule, finding rules), hence the same outcome
counts. One run, one input: the wall times of the Spark job, the command line and the Python
binding (one call per exchange and in batches) are printed side by side, with exchanges per
second per core as ratios to the command line. MCP_VERDICT_SPARK_N sets the number of lines
(default 100,000)."""

from __future__ import annotations

import os
import pathlib

import pytest

import scale

N = int(os.environ.get("MCP_VERDICT_SPARK_N", "100000"))


@pytest.fixture(scope="module")
def captures(tmp_path_factory) -> pathlib.Path:
    path = tmp_path_factory.mktemp("captures") / "captures.jsonl"
    scale.write_captures(path, N)
    return path


@pytest.fixture(scope="module")
def cli(captures) -> scale.Run:
    return scale.run_cli(captures)


@pytest.fixture(scope="module")
def spark():
    session = scale.spark_session(os.cpu_count() or 1)
    yield session
    session.stop()


@pytest.fixture(scope="module")
def parquet(tmp_path_factory) -> pathlib.Path:
    return tmp_path_factory.mktemp("job") / "verdicts.parquet"


@pytest.fixture(scope="module")
def job(spark, captures, parquet) -> scale.Run:
    """The Spark job (judge_many in mapPartitions), run once on the captures."""
    return scale.run_spark(spark, captures, parquet)


def test_the_captures_exercise_the_judge(cli):
    counts = cli.counts()
    assert len(cli.verdicts) >= N * 0.9
    assert len({outcome for _, outcome in counts}) >= 8, counts
    assert counts[("-", "error record")] > 0


def test_spark_job_gives_the_verdicts_of_classify_jsonl(job, cli):
    assert job.counts() == cli.counts()
    assert job.verdicts == cli.verdicts
    assert job.errors == cli.errors


def test_exchange_ids_and_summary(spark, job, parquet):
    from pyspark.sql import functions as F

    import judge_captures

    df = spark.read.parquet(str(parquet))
    # Named exchanges keep their name; unnamed ones are their record number.
    ids = df.select("exchange_id", "record").distinct().collect()
    assert all(i == f"gw-{r - 1:07d}" or i == str(r) for i, r in ids)
    assert len({i for i, _ in ids}) == len({r for _, r in ids})
    per_tool, per_revision = judge_captures.summary(df)
    judged = df.where(F.col("error").isNull()).count()
    outcome_columns = [c for c in per_tool.columns if c not in ("tool", "revision")]
    assert sum(sum(row[c] for c in outcome_columns) for row in per_tool.collect()) == judged
    assert sum(row["count"] for row in per_revision.collect()) == df.count()


def test_the_pipe_alternative_gives_the_same_verdicts(spark, tmp_path):
    """`rdd.pipe` through `classify --jsonl` pairs up with its input by position (one line
    out per non-blank line in, in order); a smaller input keeps it short."""
    small = tmp_path / "small.jsonl"
    scale.write_captures(small, 20_000)
    piped = scale.run_spark(spark, small, tmp_path / "piped.parquet", via="pipe")
    reference = scale.run_cli(small)
    assert piped.verdicts == reference.verdicts
    assert piped.errors == reference.errors


def test_throughput_side_by_side(captures, cli, job, capsys):
    """The binding on the same captures, one call per exchange and in batches: the same
    verdicts; then the four wall times of this run, side by side."""
    single = scale.run_binding_single(captures)
    batch = scale.run_binding_batch(captures)
    for r in (single, batch):
        assert r.counts() == cli.counts(), r.name
        assert r.verdicts == cli.verdicts, r.name
    with capsys.disabled():
        print()
        print(scale.report(len(scale.read_lines(captures)), [single, batch, job, cli], cli))
