"""A server author's test: call each tool of the server over Streamable HTTP, under each
protocol revision, and let mcp-verdict judge every recorded exchange: the outcome a client
would conclude, and no broken MUST (no error-severity finding)."""

from __future__ import annotations

import copy
import json
import re

import pytest

import mcp_verdict
from recorder import Recorder

REVISIONS = ["2025-11-25", "2026-07-28"]


def judged(exchange, outcome):
    """Judges an exchange; fails with the findings and the exchange (to save as a fixture and
    replay with `mcp-verdict classify FILE`) unless the outcome is `outcome` and no rule with
    error severity was broken."""
    doc = mcp_verdict.judge(exchange)
    (verdict,) = doc["verdicts"]
    errors = mcp_verdict.error_findings(doc)
    context = json.dumps({"verdict": verdict["summary"], "errors": errors, "exchange": exchange}, indent=2)
    assert verdict["outcome"] == outcome, context
    assert not errors, context
    return verdict


@pytest.fixture(params=REVISIONS)
def client(request, server_url):
    return Recorder(server_url, request.param)


def test_add(client):
    ex = client.call_tool("add", {"a": 2, "b": 40})
    v = judged(ex, "TOOL_SUCCESS")
    assert v["protocol"] == client.protocol
    assert v["cites"][0]["role"] == "decided"


def test_structured_output_matches_the_output_schema(client):
    assert "outputSchema" in client.tools["forecast"]
    ex = client.call_tool("forecast", {"city": "Lisbon"})
    v = judged(ex, "TOOL_SUCCESS")
    # The recorded tool definition lets the judge check structuredContent against it.
    assert "tools.output-schema.conform" not in {f["rule"] for f in v["findings"]}
    # The same answer with a celsius that is not a number breaks the schema.
    broken = copy.deepcopy(ex)
    body = broken["response"]["body"]
    broken["response"]["body"] = re.sub(r'"celsius":\s*23.5', '"celsius":"warm"', body)
    assert broken["response"]["body"] != body
    doc = mcp_verdict.judge(broken)
    assert "tools.output-schema.conform" in {f["rule"] for f in doc["verdicts"][0]["findings"]}


def test_an_anticipated_failure_is_a_tool_error(client):
    v = judged(client.call_tool("forecast", {"city": "Atlantis"}), "TOOL_ERROR")
    assert v["facts"]["is_error"] is True


def test_progress_on_a_stream(client):
    ex = client.call_tool("countdown", {"start": 3}, progress=True)
    v = judged(ex, "TOOL_SUCCESS")
    stream = v["facts"].get("stream")
    if stream is not None:  # the SDK answers on SSE when it has something to send first
        assert stream["final_response"]
        assert stream["notifications"].get("notifications/progress") == 3


def test_unknown_tool(client):
    ex = client.call_tool("no_such_tool", {})
    doc = mcp_verdict.judge(ex)
    (v,) = doc["verdicts"]
    # Either answer is allowed for an unknown tool; what matters is that it is well-formed.
    assert v["outcome"] in ("TOOL_ERROR", "JSONRPC_ERROR", "HTTP_ERROR"), v["summary"]
    assert not mcp_verdict.error_findings(doc), json.dumps([doc, ex], indent=2)


def test_every_recorded_exchange_in_one_batch(client):
    """Everything this client exchanged, the handshake and tools/list included, judged in one
    `judge_many` call: each tools/call gets a tool verdict without error findings; the other
    exchanges are told apart as not being tool calls."""
    client.call_tool("add", {"a": 1, "b": 1})
    client.call_tool("forecast", {"city": "Oslo"})
    docs = mcp_verdict.judge_many(client.exchanges)
    assert len(docs) == len(client.exchanges)
    outcomes = []
    for doc, ex in zip(docs, client.exchanges):
        (v,) = doc["verdicts"]
        if ex["request"]["body"].get("method") == "tools/call":
            assert not mcp_verdict.error_findings(doc), json.dumps([doc, ex], indent=2)
        else:
            assert v["outcome"] in ("NOT_A_TOOL_CALL", "NOTIFICATION_ACCEPTED"), v["summary"]
        outcomes.append(v["outcome"])
    assert outcomes[-2:] == ["TOOL_SUCCESS", "TOOL_SUCCESS"]
