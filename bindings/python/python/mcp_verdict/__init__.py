"""Judge MCP ``tools/call`` responses per protocol revision, citing the spec rule behind every
verdict.

The engine is the Rust library of ``mcp-verdict``; this package calls it in process. An
exchange is given in the exchange file format (the fixture format of ``mcp-verdict``) as a
dict, ``bytes`` or ``str``; a verdict comes back as the document ``mcp-verdict classify
--format json`` prints.

>>> import mcp_verdict
>>> doc = mcp_verdict.judge({
...     "protocol": "2026-07-28",
...     "request": {"body": {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
...                          "params": {"name": "echo", "arguments": {}}}},
...     "response": {"status": 200, "headers": {"Content-Type": "application/json"},
...                  "body": '{"jsonrpc":"2.0","id":1,"result":{"content":[],"resultType":"complete"}}'},
... })
>>> doc["verdicts"][0]["outcome"]
'TOOL_SUCCESS'
"""

from ._mcp_verdict import (
    PROTOCOLS,
    ExchangeError,
    RevisionError,
    VerdictError,
    __version__,
    explain,
    judge,
    judge_many,
    rules,
)
from .types import Cite, Difference, Finding, Judgement, Verdict


def error_findings(doc: Judgement) -> list[Finding]:
    """The error-severity findings of every verdict in a ``judge`` document (the findings that
    make ``mcp-verdict classify`` exit 1)."""
    return [f for v in doc["verdicts"] for f in v["findings"] if f["severity"] == "error"]


__all__ = [
    "PROTOCOLS",
    "Cite",
    "Difference",
    "ExchangeError",
    "Finding",
    "Judgement",
    "RevisionError",
    "Verdict",
    "VerdictError",
    "__version__",
    "error_findings",
    "explain",
    "judge",
    "judge_many",
    "rules",
]
