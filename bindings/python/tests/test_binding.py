"""The Python binding against the command line: the same documents, the same rule table, and
errors raised as exceptions with their position.

Needs the `mcp-verdict` binary: MCP_VERDICT_BIN, else target/release or target/debug."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import threading
import time

import pytest

import mcp_verdict

ROOT = pathlib.Path(__file__).resolve().parents[3]
FIXTURES = sorted((ROOT / "tests" / "fixtures").rglob("*.json"))


def cli() -> pathlib.Path:
    given = os.environ.get("MCP_VERDICT_BIN")
    if given:
        return pathlib.Path(given)
    for profile in ("release", "debug"):
        p = ROOT / "target" / profile / "mcp-verdict"
        if p.exists():
            return p
    raise RuntimeError("no mcp-verdict binary: build it (cargo build) or set MCP_VERDICT_BIN")


def run_cli(*args: str | os.PathLike[str]) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, NO_COLOR="1")
    return subprocess.run([cli(), *map(str, args)], capture_output=True, text=True, env=env)


SUCCESS = {
    "protocol": "2026-07-28",
    "request": {
        "body": {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {}},
        }
    },
    "response": {
        "status": 200,
        "headers": {"Content-Type": "application/json"},
        "body": '{"jsonrpc":"2.0","id":1,"result":{"content":[],"resultType":"complete"}}',
    },
}


def test_the_fixture_corpus_is_there():
    assert len(FIXTURES) > 100


def test_every_fixture_gets_the_document_classify_prints():
    """`judge` returns exactly what `classify --format json --protocol all` prints, for every
    shipped fixture, from bytes, from str and from a dict."""
    for path in FIXTURES:
        label = str(path.relative_to(ROOT))
        p = subprocess.run(
            [cli(), "classify", label, "--format", "json", "--protocol", "all"],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        assert p.returncode in (0, 1), (label, p.stderr)
        expected = json.loads(p.stdout)
        data = path.read_bytes()
        assert mcp_verdict.judge(data, "all", name=label) == expected, label
        assert mcp_verdict.judge(data.decode(), "all", name=label) == expected, label
        assert mcp_verdict.judge(json.loads(data), "all", name=label) == expected, label
        # classify exits 1 exactly when some verdict has an error finding.
        assert (p.returncode == 1) == bool(mcp_verdict.error_findings(expected)), label


def test_revision_from_the_exchange_as_classify_chooses_it():
    for path in FIXTURES:
        label = str(path.relative_to(ROOT))
        p = subprocess.run(
            [cli(), "classify", label, "--format", "json"], capture_output=True, text=True, cwd=ROOT
        )
        if p.returncode == 2:
            with pytest.raises(mcp_verdict.RevisionError):
                mcp_verdict.judge(path.read_bytes())
        else:
            assert mcp_verdict.judge(path.read_bytes(), name=label) == json.loads(p.stdout), label


def test_judge_many_equals_judge_one_by_one():
    items = [path.read_bytes() for path in FIXTURES]
    assert mcp_verdict.judge_many(items, "all") == [mcp_verdict.judge(x, "all") for x in items]
    assert mcp_verdict.judge_many(iter(items[:3]), ["2026-07-28"]) == [
        mcp_verdict.judge(x, "2026-07-28") for x in items[:3]
    ]
    assert mcp_verdict.judge_many([]) == []


def test_judge_many_agrees_with_classify_jsonl():
    """The same lines through `classify --jsonl` and `judge_many(errors="record")`: the same
    documents (without the line number) and an error record in the same places."""
    lines = [json.dumps(json.loads(p.read_bytes()), separators=(",", ":")) for p in FIXTURES]
    lines[5] = '{"response": {"status": "200"}}'
    lines[9] = "not json"
    src = "\n".join(lines) + "\n"
    p = subprocess.run(
        [cli(), "classify", "--jsonl", "-"], input=src, capture_output=True, text=True
    )
    assert p.returncode == 1, p.stderr
    records = [json.loads(x) for x in p.stdout.splitlines()]
    ours = mcp_verdict.judge_many(lines, errors="record")
    assert len(records) == len(ours) == len(lines)
    for n, (theirs, mine) in enumerate(zip(records, ours), start=1):
        assert theirs.pop("line") == n
        if "error" in theirs:
            assert "error" in mine, n
        else:
            assert mine == theirs, n
    assert ours[5]["type"] == "ExchangeError" and ours[5]["path"] == "response.status"
    assert ours[9]["line"] == 1 and ours[9]["column"] == 2


def test_not_json_raises_with_line_and_column():
    text = '{\n  "response": {\n    "status": 200,\n    oops\n  }\n}\n'
    with pytest.raises(mcp_verdict.ExchangeError) as e:
        mcp_verdict.judge(text, "all")
    assert (e.value.line, e.value.column) == (4, 5)
    assert e.value.index is None
    assert "line 4, column 5" in str(e.value)
    assert isinstance(e.value, ValueError) and isinstance(e.value, mcp_verdict.VerdictError)


def test_a_wrong_field_raises_with_its_path():
    text = '{"response": {"status": 200, "headers": {"Content-Type": 7}}}'
    with pytest.raises(mcp_verdict.ExchangeError) as e:
        mcp_verdict.judge(text.encode(), "all")
    assert e.value.path == "response.headers.Content-Type"
    # The position of the wrong value itself.
    assert (e.value.line, e.value.column) == (1, text.index("7") + 1)

    with pytest.raises(mcp_verdict.ExchangeError) as e:
        mcp_verdict.judge({"response": {"status": 200, "bodyy": ""}}, "all")
    assert e.value.path == "response.bodyy" or "bodyy" in e.value.message
    assert e.value.line is None

    with pytest.raises(mcp_verdict.ExchangeError) as e:
        mcp_verdict.judge({"response": {"status": 200, "body": "", "body_json": {}}}, "all")
    assert "only one of" in e.value.message


def test_no_revision_raises_revision_error():
    ex = dict(SUCCESS)
    del ex["protocol"]
    with pytest.raises(mcp_verdict.RevisionError) as e:
        mcp_verdict.judge(ex)
    assert "MCP-Protocol-Version" in e.value.reason
    assert e.value.reason in e.value.message
    # The same exchange judges once the revision is given.
    assert mcp_verdict.judge(ex, "2026-07-28")["verdicts"][0]["outcome"] == "TOOL_SUCCESS"


def test_batch_errors_raise_with_index_or_become_records():
    bad = dict(SUCCESS)
    del bad["protocol"]
    batch = [SUCCESS, SUCCESS, bad, b"[", SUCCESS]
    with pytest.raises(mcp_verdict.RevisionError) as e:
        mcp_verdict.judge_many(batch)
    assert e.value.index == 2
    out = mcp_verdict.judge_many(batch, errors="record")
    assert [("error" in d) for d in out] == [False, False, True, True, False]
    assert out[2]["type"] == "RevisionError" and "reason" in out[2]
    assert out[3]["type"] == "ExchangeError" and out[3]["line"] == 1
    assert out[4] == mcp_verdict.judge(SUCCESS)


def test_bad_arguments():
    with pytest.raises(TypeError):
        mcp_verdict.judge(42)
    with pytest.raises(ValueError, match="unknown protocol revision"):
        mcp_verdict.judge(SUCCESS, "2024-11-05")
    with pytest.raises(ValueError):
        mcp_verdict.judge(SUCCESS, [])
    with pytest.raises(ValueError):
        mcp_verdict.judge_many([SUCCESS], errors="ignore")
    both = mcp_verdict.judge(SUCCESS, ["2026-07-28", "2025-11-25"])
    assert [v["protocol"] for v in both["verdicts"]] == list(mcp_verdict.PROTOCOLS)


def test_rules_are_the_table_rules_prints():
    p = run_cli("rules", "--format", "json")
    assert p.returncode == 0, p.stderr
    assert mcp_verdict.rules() == json.loads(p.stdout)
    for rev in mcp_verdict.PROTOCOLS:
        p = run_cli("rules", "--format", "json", "--protocol", rev)
        assert mcp_verdict.rules(rev) == json.loads(p.stdout)
    rule = mcp_verdict.rules()[0]["id"]
    assert mcp_verdict.explain(rule) == run_cli("rules", rule).stdout
    with pytest.raises(KeyError):
        mcp_verdict.explain("no.such.rule")


def test_verdicts_cite_rules_of_the_table():
    ids = {r["id"] for r in mcp_verdict.rules()}
    for path in FIXTURES:
        for v in mcp_verdict.judge(path.read_bytes(), "all")["verdicts"]:
            assert {c["id"] for c in v["cites"]} <= ids
            assert {f["rule"] for f in v["findings"]} <= ids


def big_stream_exchange(events: int) -> bytes:
    """An SSE answer with many progress notifications before the result: slow to judge, small
    to return."""
    note = (
        'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress",'
        '"params":{"progressToken":"t","progress":%d}}\n\n'
    )
    body = "".join(note % i for i in range(events))
    body += (
        'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"content":'
        '[{"type":"text","text":"done"}],"resultType":"complete"}}\n\n'
    )
    ex = {
        "protocol": "2026-07-28",
        "request": {
            "body": {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "slow", "arguments": {}, "_meta": {"progressToken": "t"}},
            }
        },
        "response": {
            "status": 200,
            "headers": {"Content-Type": "text/event-stream"},
            "body": body,
        },
    }
    return json.dumps(ex).encode()


def test_the_gil_is_released_while_judging():
    """While one thread judges a long stream, another Python thread keeps running: the longest
    pause it sees is a small part of the judging time (holding the GIL would freeze it for all
    of it)."""
    events = 20_000
    data = big_stream_exchange(events)
    while True:
        start = time.perf_counter()
        doc = mcp_verdict.judge(data)
        took = time.perf_counter() - start
        if took >= 0.2 or events >= 2_000_000:
            break
        events *= 2
        data = big_stream_exchange(events)
    assert doc["verdicts"][0]["outcome"] == "TOOL_SUCCESS"

    stop = threading.Event()
    gaps: list[float] = []

    def spin() -> None:
        last = time.perf_counter()
        while not stop.is_set():
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    t = threading.Thread(target=spin)
    t.start()
    time.sleep(0.05)
    start = time.perf_counter()
    mcp_verdict.judge(data)
    took = time.perf_counter() - start
    stop.set()
    t.join()
    assert max(gaps) < took / 2, (max(gaps), took)


def test_typed_outcomes_and_layers_are_the_published_ones():
    """types.py spells out the outcome and layer names; they must be the schema's."""
    from typing import get_args

    from mcp_verdict import types

    schema = json.loads((ROOT / "schemas" / "classify-output.schema.json").read_text())
    defs = schema["$defs"]

    def names(d):
        return sorted(x["const"] for x in d["oneOf"]) if "oneOf" in d else sorted(d["enum"])

    assert sorted(get_args(types.Outcome)) == names(defs["Outcome"])
    assert sorted(get_args(types.Layer)) == names(defs["Layer"])


def test_numbers_arrive_exactly():
    """Ids beyond 64 bits arrive as Python ints with every digit (the verdict's numbers keep
    their text; a detour through a double would round 2**64 + 1 to 2**64)."""
    big = 2**64 + 1
    exchange = (
        '{"protocol": "2025-11-25", "request": {"body": {"jsonrpc": "2.0", "id": %d, '
        '"method": "tools/call", "params": {"name": "t", "arguments": {}}}}, '
        '"response": {"status": 200, "headers": {"Content-Type": "application/json"}, '
        '"body": "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":%d,\\"result\\":{\\"content\\":[]}}"}}'
        % (big, big - 1)
    )
    out = mcp_verdict.judge(exchange.encode())
    facts = out["verdicts"][0]["facts"]
    assert facts["request_id"] == big and isinstance(facts["request_id"], int)
    assert facts["response_id"] == big - 1
    assert out["verdicts"][0]["outcome"] == "INVALID_ENVELOPE"
