"""Calls tools on a Streamable HTTP MCP server and records each exchange in the exchange file
format of `mcp-verdict` (request and response as they went over the wire), ready for
`mcp_verdict.judge`, or to save as a fixture for `mcp-verdict classify FILE`.

Two revisions, as a client speaks them:
- 2025-11-25: `initialize`, `notifications/initialized`, then `tools/call` in the session
  (`MCP-Session-Id`), with the `MCP-Protocol-Version` header;
- 2026-07-28: one self-contained POST per call, the revision and client capabilities in
  `params._meta`, `Mcp-Method` and `Mcp-Name` headers.

Only the standard library: the bytes recorded are the bytes received.
"""

from __future__ import annotations

import base64
import http.client
import itertools
import json
import socket
import urllib.parse
from typing import Any

ACCEPT = "application/json, text/event-stream"
CLIENT_INFO = {"name": "pytest-recorder", "version": "1.0.0"}


class Recorder:
    """A client of one MCP endpoint that keeps every exchange it makes in `exchanges`."""

    def __init__(self, url: str, protocol: str, timeout: float = 10.0):
        self.url = url
        self.protocol = protocol
        self.timeout = timeout
        self.exchanges: list[dict[str, Any]] = []
        self.session: str | None = None
        self.tools: dict[str, dict[str, Any]] = {}
        self._ids = itertools.count(1)
        if protocol == "2025-11-25":
            self._initialize()
        self.tools = {t["name"]: t for t in self.list_tools()}

    # -- one exchange --------------------------------------------------------------------

    def post(self, message: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        """POSTs one JSON-RPC message and returns the exchange, as recorded."""
        u = urllib.parse.urlsplit(self.url)
        body = json.dumps(message, separators=(",", ":")).encode()
        sent = {"Content-Type": "application/json", "Accept": ACCEPT, **headers}
        if self.session:
            sent["MCP-Session-Id"] = self.session
        conn = http.client.HTTPConnection(u.hostname, u.port, timeout=self.timeout)
        end = "complete"
        try:
            conn.request("POST", u.path or "/", body=body, headers=sent)
            resp = conn.getresponse()
            try:
                data = resp.read()
            except http.client.IncompleteRead as e:
                data, end = e.partial, "reset"
            except (socket.timeout, TimeoutError):
                data, end = b"", "timeout"
            received: dict[str, Any] = {}
            for name, value in resp.getheaders():
                prev = received.get(name)
                received[name] = value if prev is None else [*([prev] if isinstance(prev, str) else prev), value]
            status = resp.status
        finally:
            conn.close()
        response: dict[str, Any] = {"status": status, "headers": received, "end": end}
        try:
            response["body"] = data.decode("utf-8")
        except UnicodeDecodeError:
            response["body_base64"] = base64.b64encode(data).decode()
        exchange = {
            "protocol": self.protocol,
            "request": {"method": "POST", "url": self.url, "headers": sent, "body": message},
            "response": response,
        }
        self.exchanges.append(exchange)
        return exchange

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Sends a request and returns its exchange."""
        message = {"jsonrpc": "2.0", "id": next(self._ids), "method": method, "params": params}
        headers = {}
        if self.protocol == "2026-07-28":
            params["_meta"] = {
                **params.get("_meta", {}),
                "io.modelcontextprotocol/protocolVersion": self.protocol,
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
            }
            headers["Mcp-Method"] = method
            if "name" in params:
                headers["Mcp-Name"] = params["name"]
        if self.session or self.protocol == "2026-07-28":
            headers["MCP-Protocol-Version"] = self.protocol
        return self.post(message, headers)

    # -- what a test calls ---------------------------------------------------------------

    def call_tool(self, name: str, arguments: dict[str, Any], progress: bool = False) -> dict[str, Any]:
        """Calls a tool; returns the exchange with the tool's definition (from tools/list)
        attached, so that `judge` checks the result against its output schema."""
        params: dict[str, Any] = {"name": name, "arguments": arguments}
        if progress:
            params["_meta"] = {"progressToken": f"p{next(self._ids)}"}
        exchange = self.request("tools/call", params)
        if name in self.tools:
            exchange["tool"] = self.tools[name]
        return exchange

    def list_tools(self) -> list[dict[str, Any]]:
        exchange = self.request("tools/list", {})
        return result_of(exchange)["tools"]

    def _initialize(self) -> None:
        exchange = self.request(
            "initialize",
            {"protocolVersion": self.protocol, "capabilities": {}, "clientInfo": CLIENT_INFO},
        )
        result = result_of(exchange)
        assert result["protocolVersion"] == self.protocol, result
        headers = {k.lower(): v for k, v in exchange["response"]["headers"].items()}
        self.session = headers.get("mcp-session-id")
        self.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, {"MCP-Protocol-Version": self.protocol})


def result_of(exchange: dict[str, Any]) -> dict[str, Any]:
    """The JSON-RPC result of a recorded exchange (JSON body or the last SSE message)."""
    r = exchange["response"]
    assert r["status"] == 200, r
    body = r.get("body", "")
    ctype = next((v for k, v in r["headers"].items() if k.lower() == "content-type"), "")
    if ctype.startswith("text/event-stream"):
        datas = [
            "\n".join(line[5:].lstrip(" ") for line in block.splitlines() if line.startswith("data:"))
            for block in body.replace("\r\n", "\n").split("\n\n")
        ]
        messages = [json.loads(d) for d in datas if d.strip()]
        message = next(m for m in reversed(messages) if "id" in m and ("result" in m or "error" in m))
    else:
        message = json.loads(body)
    assert "result" in message, message
    return message["result"]
