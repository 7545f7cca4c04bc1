#!/usr/bin/env python3
"""Driver for the Python SDK (`mcp` on PyPI): ClientSession over Streamable HTTP, or over stdio
when the target is a server command (a JSON array: program, then arguments; stdio_client
launches it, its stderr discarded).

    python python-sdk.py URL|'["COMMAND",...]' TOOL ARGS_JSON [--protocol REVISION] [--timeout SECONDS]

Revisions: 2025-11-25 and 2026-07-28. --protocol 2025-11-25 runs ClientSession.initialize()
(the legacy handshake at the SDK's newest handshake revision, 2025-11-25); --protocol
2026-07-28 runs ClientSession.discover() (server/discover, then per-request _meta).
The session answers elicitation by accepting (every requested field filled) and roots/list
with no roots. Under 2026-07-28 an input_required result is fulfilled the same way and the
call retried once with the echoed requestState (ClientSession leaves that to its caller).
Prints exactly one JSON line; never runs past --timeout (default 10 s).
"""

import argparse
import json
import os
import sys
import time
from importlib.metadata import version

import anyio

START = time.monotonic()


def truncate(s, n=200):
    return s[:n] + "..." if isinstance(s, str) and len(s) > n else s


def summarize_result(r):
    d = r.model_dump(by_alias=True, mode="json", exclude_none=True) if hasattr(r, "model_dump") else r
    out = {"isError": d.get("isError")}
    content = d.get("content")
    if isinstance(content, list):
        out["content"] = [
            {"type": "text", "text": truncate(c.get("text"))} if isinstance(c, dict) and c.get("type") == "text"
            else {"type": c.get("type") if isinstance(c, dict) else type(c).__name__}
            for c in content[:5]
        ]
    else:
        out["content"] = truncate(json.dumps(content))
    for k in ("structuredContent", "resultType"):
        if k in d:
            out[k] = d[k]
    if type(r).__name__ != "CallToolResult":
        out["pythonType"] = type(r).__name__
    return out


def summarize_error(e, stage):
    # anyio task groups wrap the real error; report the first leaf.
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    err = {"type": type(e).__name__, "stage": stage}
    code = getattr(e, "code", None)
    if code is None and getattr(e, "error", None) is not None:
        code = getattr(e.error, "code", None)
    if code is not None:
        err["code"] = code
    err["message"] = truncate(str(e) or repr(e), 400)
    return err


def accept_form(schema):
    content = {}
    for k, s in ((schema or {}).get("properties") or {}).items():
        t = s.get("type")
        content[k] = True if t == "boolean" else 1 if t in ("number", "integer") else (s.get("enum") or ["yes"])[0]
    return content


def emit(state, outcome, result=None, error=None):
    line = {
        "client": "python-sdk",
        "version": version("mcp"),
        "protocol": state.get("protocol"),
        "outcome": outcome,
        "result": result,
        "error": error,
        "elapsedMs": int((time.monotonic() - START) * 1000),
    }
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()
    # Leave at once: a hung transport task must not keep the process alive.
    os._exit(0)


async def drive(opts, state):
    from mcp import types
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
    from mcp.client.streamable_http import streamable_http_client

    async def on_elicit(context, params):
        schema = getattr(params, "requested_schema", None)
        return types.ElicitResult(action="accept", content=accept_form(schema))

    async def on_roots(context):
        return types.ListRootsResult(roots=[])

    async def on_progress(progress, total, message):
        pass

    modern = opts.protocol == "2026-07-28"
    state["stage"] = "connect"
    if opts.url.startswith("["):
        command = json.loads(opts.url)
        connect = stdio_client(
            StdioServerParameters(command=command[0], args=command[1:]),
            errlog=open(os.devnull, "w"),  # noqa: SIM115 - lives as long as the driver
        )
    else:
        connect = streamable_http_client(opts.url)
    async with connect as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write, elicitation_callback=on_elicit, list_roots_callback=on_roots) as session:
            if modern:
                await session.discover()
            else:
                await session.initialize()
            state["protocol"] = session.protocol_version
            state["stage"] = "call"
            result = await session.call_tool(
                opts.tool, opts.args, read_timeout_seconds=opts.timeout + 5,
                progress_callback=on_progress, allow_input_required=True,
            )
            if type(result).__name__ == "InputRequiredResult":
                responses = {}
                for key, req in (result.input_requests or {}).items():
                    if getattr(req, "method", None) == "elicitation/create":
                        responses[key] = types.ElicitResult(
                            action="accept", content=accept_form(getattr(req.params, "requested_schema", None)))
                    elif getattr(req, "method", None) == "roots/list":
                        responses[key] = types.ListRootsResult(roots=[])
                state["stage"] = "input_required retry"
                result = await session.call_tool(
                    opts.tool, opts.args, read_timeout_seconds=opts.timeout + 5,
                    input_responses=responses, request_state=result.request_state, allow_input_required=True,
                )
            return result


def main():
    p = argparse.ArgumentParser()
    p.add_argument("url")
    p.add_argument("tool")
    p.add_argument("args")
    p.add_argument("--protocol", default="2025-11-25")
    p.add_argument("--timeout", type=float, default=10.0)
    opts = p.parse_args()
    opts.args = json.loads(opts.args)
    state = {"protocol": None, "stage": "setup"}
    if opts.protocol not in ("2025-11-25", "2026-07-28"):
        emit(state, "threw", error={"type": "UnsupportedRevision", "stage": "setup", "message": opts.protocol})

    async def guarded():
        with anyio.move_on_after(opts.timeout) as scope:
            try:
                result = await drive(opts, state)
            except BaseException as e:  # noqa: BLE001 - every failure is data here
                if isinstance(e, anyio.get_cancelled_exc_class()) and scope.cancel_called:
                    raise
                emit(state, "threw", error=summarize_error(e, state["stage"]))
            emit(state, "returned", result=summarize_result(result))
        emit(state, "hung", error={"type": "Timeout", "message": f"no conclusion within {opts.timeout:g} s"})

    # A hard backstop in case cancellation itself is swallowed by the transport.
    import threading
    t = threading.Timer(opts.timeout + 2, lambda: emit(state, "hung", error={
        "type": "Timeout", "message": f"no conclusion within {opts.timeout:g} s (cancellation did not finish)"}))
    t.daemon = True
    t.start()
    anyio.run(guarded)


if __name__ == "__main__":
    main()
