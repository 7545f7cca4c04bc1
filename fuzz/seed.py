#!/usr/bin/env python3
"""Builds the seed corpora of the fuzz targets from the project's test data.

Run from anywhere: `python3 fuzz/seed.py`. Writes fuzz/corpus/<target>/<sha1> (existing files
are kept, so seeding an existing corpus only adds). Sources: the exchange files under
tests/fixtures and tests/data, the JSON instances of tests/vectors, and a few hand-written
inputs for what the fixtures do not hold (HTTP request framing, SSE line endings, HAR
variants).
"""

import base64
import hashlib
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "fuzz" / "corpus"


def put(target, data):
    if isinstance(data, str):
        data = data.encode("utf-8")
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(data).hexdigest()).write_bytes(data)


def exchange_files():
    for base in ("tests/fixtures", "tests/data"):
        for p in sorted((ROOT / base).rglob("*.json")):
            raw = p.read_bytes()
            try:
                doc = json.loads(raw)
            except ValueError:
                yield raw, None
                continue
            if isinstance(doc, dict) and "response" in doc:
                yield raw, doc


def header_value(v):
    return v if isinstance(v, list) else [v]


def response_body(doc):
    r = doc.get("response", {})
    if "body" in r:
        return r["body"].encode("utf-8")
    if "body_base64" in r:
        return base64.b64decode(r["body_base64"])
    if "body_json" in r:
        return json.dumps(r["body_json"], separators=(",", ":")).encode("utf-8")
    return b""


def content_type(doc):
    for k, v in doc.get("response", {}).get("headers", {}).items():
        if k.lower() == "content-type":
            return header_value(v)[0]
    return ""


def request_body(doc):
    b = doc.get("request", {}).get("body")
    if b is None:
        return b""
    if isinstance(b, str):
        return b.encode("utf-8")
    return json.dumps(b, separators=(",", ":")).encode("utf-8")


def har_entry(doc, error=None, base64_body=False):
    req = doc.get("request", {})
    resp = doc.get("response", {})
    body = response_body(doc)
    content = {"size": len(body), "mimeType": content_type(doc)}
    if base64_body:
        content["text"] = base64.b64encode(body).decode("ascii")
        content["encoding"] = "base64"
    else:
        content["text"] = body.decode("utf-8", "replace")
    entry = {
        "startedDateTime": "2026-05-12T09:14:03.120Z",
        "time": 12.5,
        "request": {
            "method": req.get("method", "POST"),
            "url": req.get("url", "http://127.0.0.1:8931/mcp"),
            "httpVersion": "HTTP/1.1",
            "headers": [
                {"name": k, "value": v}
                for k, vs in req.get("headers", {}).items()
                for v in header_value(vs)
            ],
            "queryString": [],
            "cookies": [],
            "headersSize": -1,
            "bodySize": len(request_body(doc)),
            "postData": {"mimeType": "application/json", "text": request_body(doc).decode("utf-8")},
        },
        "response": {
            "status": resp.get("status", 200),
            "statusText": "",
            "httpVersion": "HTTP/1.1",
            "headers": [
                {"name": k, "value": v}
                for k, vs in resp.get("headers", {}).items()
                for v in header_value(vs)
            ],
            "cookies": [],
            "content": content,
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": -1,
        },
        "cache": {},
        "timings": {"send": 0.1, "wait": 10.0, "receive": 2.4},
    }
    end = resp.get("end")
    if error is None and end == "reset":
        error = "net::ERR_CONNECTION_RESET"
    elif error is None and end == "timeout":
        error = "timed out"
    if error is not None:
        entry["response"]["_error"] = error
    return entry


def har_of(entries, creator="seed"):
    return json.dumps(
        {"log": {"version": "1.2", "creator": {"name": creator, "version": "1"}, "entries": entries}},
        indent=1,
    )


def http_request(doc):
    req = doc.get("request", {})
    body = request_body(doc)
    lines = [f"{req.get('method', 'POST')} /mcp HTTP/1.1", "Host: 127.0.0.1:8931"]
    for k, vs in req.get("headers", {}).items():
        for v in header_value(vs):
            lines.append(f"{k}: {v}")
    lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8") + body


def main():
    docs = []
    for raw, doc in exchange_files():
        put("exchange_file", raw)
        if doc is None:
            continue
        docs.append(doc)
        put("jsonl_line", json.dumps(doc, separators=(",", ":")))
        put("har", har_of([har_entry(doc)]))
        body = response_body(doc)
        sse = content_type(doc).startswith("text/event-stream")
        if sse:
            put("sse", body)
            # Each event's data, as the tape reads a stream message.
            for block in body.decode("utf-8", "replace").replace("\r\n", "\n").split("\n\n"):
                data = [l[5:].lstrip(" ") for l in block.split("\n") if l.startswith("data:")]
                if data:
                    put("tape", "\n".join(data))
        else:
            put("tape", body)
        sel = 1 if sse else 0
        for target in ("judge_2025", "judge_2026"):
            put(target, bytes([sel]) + body)
        if doc.get("tool") is not None:
            for target in ("judge_2025", "judge_2026"):
                put(target, bytes([sel | 0x80]) + body)
        put("serve_request", http_request(doc))

    # JSON Lines: several exchanges, blank lines, CRLF, a BOM, a line that is not JSON.
    lines = [json.dumps(d, separators=(",", ":")) for d in docs[:6]]
    put("jsonl_line", "\n".join(lines) + "\n")
    put("jsonl_line", "\ufeff" + lines[0] + "\r\n\r\n   \n" + lines[1] + "\r\n")
    put("jsonl_line", '{"response": {"status": 200}}\nnot json\n[1,2]\n{"response":')

    # HAR: several entries, base64 bodies, errors, a tools/list before the call.
    put("har", har_of([har_entry(d) for d in docs[:8]], creator="Firefox"))
    put("har", har_of([har_entry(d, base64_body=True) for d in docs[8:12]], creator="mitmproxy"))
    put("har", har_of([har_entry(docs[0], error="net::ERR_ABORTED")], creator="WebInspector"))
    tools_list = {
        "request": {
            "method": "POST",
            "url": "http://127.0.0.1:8931/mcp",
            "headers": [{"name": "MCP-Protocol-Version", "value": "2025-11-25"}],
            "postData": {"mimeType": "application/json", "text": '{"jsonrpc":"2.0","id":0,"method":"tools/list"}'},
        },
        "response": {
            "status": 200,
            "headers": [{"name": "Content-Type", "value": "application/json"}],
            "content": {
                "mimeType": "application/json",
                "text": '{"jsonrpc":"2.0","id":0,"result":{"tools":[{"name":"get_weather","inputSchema":{"type":"object"},"outputSchema":{"type":"object"}}]}}',
            },
        },
    }
    put("har", har_of([tools_list] + [har_entry(d) for d in docs[12:16]]))

    # The JSON instances of the schema vectors, as response bodies.
    for p in sorted((ROOT / "tests" / "vectors").glob("*.json")):
        for row in json.loads(p.read_bytes()).get("vectors", []):
            if "instance" in row:
                body = json.dumps(row["instance"], separators=(",", ":")).encode("utf-8")
                target = "judge_2026" if row.get("rev") == "2026-07-28" else "judge_2025"
                put(target, b"\x00" + body)
                put(target, b"\x01event: message\ndata: " + body + b"\n\n")

    # SSE line endings, BOM, comments, retry and id fields, an unterminated tail.
    put("sse", b"\xef\xbb\xbf: comment\r\nid: 1\r\ndata:\r\n\r\nid: 2\rretry: 1000\rdata: {}\r\r")
    put("sse", b"event: message\ndata: {\"a\":\ndata: 1}\n\nid: x\x00y\ndata: tail")
    put("sse", b"retry: 99999999999999999999999\nfoo: bar\ndata\n\ndata: \xff\xfe\n\n")

    # JSON string literals: escapes, surrogate pairs, and what must be refused.
    for literal in [
        rb'"plain"', rb'"line\nnext \"q\" \\ \/ \b\f\r\t"', rb'"caf\u00e9 \ud83d\ude00"',
        '"raw \u00e9 \U0001F600"'.encode("utf-8"), rb'"lone \ud83d"', rb'"\ude00"', rb'"\x"',
        rb'"\u12"', b'"raw\ncontrol"', rb'event: message\ndata: {\"jsonrpc\":\"2.0\"}',
    ]:
        put("json_string", literal)

    # JSON the tape must refuse or read as serde_json does: grammar edges, repeated members,
    # escapes, the nesting limit.
    for doc in [
        b"-0", b"1E400", b"01", b"1.", b"[1,]", b'{"a":1,"a":2}', b'"\\ud83d\\ude00"',
        b'"lone \\ud83d"', b"[" * 127 + b"]" * 127, b"[" * 128 + b"]" * 128,
        b' {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"x"}]}} ',
    ]:
        put("tape", doc)

    # HTTP framing the fixtures do not show.
    head = b"POST /mcp?x=1 HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\n"
    body = b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
    cl = b"Content-Length: %d\r\n" % len(body)
    put("serve_request", head + cl + b"\r\n" + body + head + cl + b"\r\n" + body)
    put("serve_request", head + b"Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
    put("serve_request", head + b"Content-Length: 5, 6\r\n\r\nhello!")
    put("serve_request", head + b"Content-Length: 5\r\nContent-Length: 5\r\n\r\nhello")
    put("serve_request", head + b"Expect: 100-continue\r\n" + cl + b"\r\n")
    put("serve_request", b"GET /mcp HTTP/1.0\r\nConnection: keep-alive\r\nAccept: text/event-stream\r\n\r\n")
    put("serve_request", b"DELETE /mcp HTTP/1.1\r\nMcp-Session-Id: abc\r\nConnection: close\r\n\r\n")


if __name__ == "__main__":
    main()
