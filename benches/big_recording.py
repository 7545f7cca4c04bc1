#!/usr/bin/env python3
"""Writes large exchange files for measuring `check` and `classify` on hostile recordings.

Kinds:
  progress N   an SSE body with N `notifications/progress` events that carry a progressToken the
               request never set (one `transport.sse.progress` finding each), then the result
  blocks N     a JSON body whose result holds N invalid content blocks (no `type`)
  size MB      an SSE body of about MB megabytes: progress events with the request's token,
               padded with a message, then the result (a long, conforming recording)

Usage:
  python3 benches/big_recording.py progress 20000 > progress-20k.json
  python3 benches/big_recording.py size 200 > big-200mb.json

Then, for example:
  /usr/bin/time -v target/release/mcp-verdict check progress-20k.json --format json --output /dev/null
"""
import json, sys

REQUEST = {
    "method": "POST",
    "url": "http://127.0.0.1:8931/mcp",
    "headers": {"MCP-Protocol-Version": "2025-11-25", "Content-Type": "application/json"},
    "body": {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
             "params": {"name": "count", "arguments": {}}},
}
RESULT = {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "done"}]}}


def event(msg):
    return "event: message\ndata: " + json.dumps(msg, separators=(",", ":")) + "\n\n"


def sse_exchange(events, token=False):
    request = json.loads(json.dumps(REQUEST))
    if token:
        request["body"]["params"]["_meta"] = {"progressToken": "t"}
    return {
        "name": "long stream",
        "protocol": "2025-11-25",
        "request": request,
        "response": {
            "status": 200,
            "headers": {"Content-Type": "text/event-stream"},
            "body": "".join(events) + event(RESULT),
        },
    }


def progress(n, pad=0):
    msg = "x" * pad
    for i in range(n):
        params = {"progressToken": "t", "progress": i + 1}
        if pad:
            params["message"] = msg
        yield event({"jsonrpc": "2.0", "method": "notifications/progress", "params": params})


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("progress", "blocks", "size"):
        sys.exit(__doc__)
    kind, n = sys.argv[1], int(sys.argv[2])
    if kind == "progress":
        doc = sse_exchange(progress(n))
    elif kind == "blocks":
        doc = {
            "name": "many invalid blocks",
            "protocol": "2025-11-25",
            "request": REQUEST,
            "response": {
                "status": 200,
                "headers": {"Content-Type": "application/json"},
                "body_json": {"jsonrpc": "2.0", "id": 1,
                              "result": {"content": [{"text": "no type"}] * n}},
            },
        }
    else:
        # ~1 KiB per event (escaped inside the body literal).
        doc = sse_exchange(progress(n * 1024, pad=900), token=True)
    json.dump(doc, sys.stdout, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
