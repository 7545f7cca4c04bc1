//! Connections: the accept loop, one thread per connection (up to the cap; past it `503`)
//! reading requests (keep-alive, pipelining), routing each by path, `Origin` and HTTP method,
//! and one diagnostic record per exchange.

use std::io::Read;
use std::net::{IpAddr, TcpListener, TcpStream};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use serde_json::Value;

use super::execute::{After, Sent, execute};
use super::wire::{self as http, ReadResult, Request};
use crate::serve::auth::{self, AuthFault, Site};
use crate::serve::config::ServeConfig;
use crate::serve::exchange::Exchange;
use crate::serve::incoming::Incoming;
use crate::serve::reply::{error_msg, json_reply, method_not_allowed};
use crate::serve::scenario::Scenario;
use crate::serve::shared::Shared;
use crate::serve::{dispatch, judged, v2025_11_25};
use crate::views::diag::{DiagRecord, Side, sanitize};
use crate::vocab::http::TEXT_PLAIN;
use crate::vocab::protocol::{code, header};
use crate::wire::exchange::{self as recorded, Headers};

/// Connections past the cap waiting for their `503` to be read, at most.
const REFUSED_QUEUE: usize = 64;

/// Counts a connection as served until dropped.
struct Slot(Arc<Shared>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.active.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Accepts connections until the server stops, one thread each up to
/// [`ServeConfig::max_connections`]; past it, a `503` with `Retry-After`.
pub(crate) fn accept_loop(
    listener: TcpListener,
    shared: Arc<Shared>,
    conns: Arc<Mutex<Vec<JoinHandle<()>>>>,
) {
    // One thread ends refused connections gracefully (see `refuse`).
    let (refused, refused_rx) = mpsc::sync_channel::<TcpStream>(REFUSED_QUEUE);
    {
        let shared = Arc::clone(&shared);
        let spawned = thread::Builder::new()
            .name("mcp-serve-refuse".into())
            .spawn(move || {
                for stream in refused_rx {
                    http::drain_and_close(stream, &shared.shutdown);
                }
            });
        if let Ok(h) = spawned {
            conns.lock().expect("conns lock").push(h);
        }
    }
    for conn in listener.incoming() {
        if shared.shutdown.load(Ordering::SeqCst) {
            break;
        }
        let stream = match conn {
            Ok(s) => s,
            Err(_) => {
                thread::sleep(Duration::from_millis(10));
                continue;
            }
        };
        if shared.active.fetch_add(1, Ordering::SeqCst) >= shared.config.max_connections {
            shared.active.fetch_sub(1, Ordering::SeqCst);
            refuse(&shared, stream, &refused);
            continue;
        }
        let slot = Slot(Arc::clone(&shared));
        let shared2 = Arc::clone(&shared);
        let spawned = thread::Builder::new()
            .name("mcp-serve-conn".into())
            .spawn(move || {
                let _slot = slot;
                serve_connection(shared2, stream)
            });
        if let Ok(h) = spawned {
            let mut list = conns.lock().expect("conns lock");
            // Reap finished threads so a long run does not accumulate handles.
            let (done, live): (Vec<_>, Vec<_>) = list.drain(..).partition(|h| h.is_finished());
            for h in done {
                let _ = h.join();
            }
            *list = live;
            list.push(h);
        }
    }
}

/// Answers a connection past the cap with `503` and `Retry-After: 1`, without blocking the
/// accept loop: what the client already sent is read, the answer written, and the connection
/// handed to the refusing thread, which reads what still comes until the client closes (a
/// close with unread bytes would reset the connection, and a reset can discard the answer).
/// When that thread has too many waiting, the connection is closed at once.
fn refuse(shared: &Shared, mut stream: TcpStream, refused: &SyncSender<TcpStream>) {
    let _ = stream.set_nonblocking(true);
    let mut scratch = [0u8; 16 * 1024];
    for _ in 0..64 {
        if !matches!(stream.read(&mut scratch), Ok(n) if n > 0) {
            break;
        }
    }
    let body = format!(
        "Service Unavailable: {} connections are open, the most this server serves at once (--max-connections); retry shortly\n",
        shared.config.max_connections
    );
    let _ = http::write_full(
        &mut stream,
        503,
        Some(TEXT_PLAIN),
        &[("Retry-After".into(), "1".into())],
        body.as_bytes(),
        true,
    );
    let _ = stream.set_nonblocking(false);
    match refused.try_send(stream) {
        Ok(()) => {}
        Err(TrySendError::Full(s) | TrySendError::Disconnected(s)) => {
            let _ = s.shutdown(std::net::Shutdown::Write);
        }
    }
}

/// Serves one connection: requests in order until it closes, idles out or must end.
fn serve_connection(shared: Arc<Shared>, mut stream: TcpStream) {
    let _ = stream.set_nodelay(true);
    let _ = stream.set_read_timeout(Some(http::POLL));
    let _ = stream.set_write_timeout(Some(Duration::from_secs(10)));
    let mut buf = Vec::new();
    loop {
        let _ = stream.set_read_timeout(Some(http::POLL));
        let req = match http::read_request(
            &mut stream,
            &mut buf,
            &shared.shutdown,
            shared.config.idle_timeout,
        ) {
            Ok(ReadResult::Request(r)) => r,
            Ok(ReadResult::Closed) | Err(_) => return,
            Ok(ReadResult::Reject(status, why)) => {
                let _ = http::write_full(
                    &mut stream,
                    status,
                    Some(TEXT_PLAIN),
                    &[],
                    format!("{why}\n").as_bytes(),
                    true,
                );
                http::drain_and_close(stream, &shared.shutdown);
                return;
            }
        };
        let keep_alive = req.wants_keep_alive();
        match handle_request(&shared, &mut stream, req) {
            After::KeepOpen if keep_alive && !shared.shutdown.load(Ordering::SeqCst) => continue,
            After::Reset => {
                http::reset(stream);
                return;
            }
            _ => return,
        }
    }
}

/// Whether an `Origin` value is acceptable: loopback hosts, or configured.
fn origin_allowed(config: &ServeConfig, origin: &str) -> bool {
    if config.allowed_origins.iter().any(|o| o == origin) {
        return true;
    }
    let Some((_, rest)) = origin.split_once("://") else {
        return false;
    };
    let host_port = rest.split('/').next().unwrap_or("");
    let host = if let Some(v6) = host_port.strip_prefix('[') {
        v6.split(']').next().unwrap_or("")
    } else {
        host_port.split(':').next().unwrap_or("")
    };
    if host.eq_ignore_ascii_case("localhost") {
        return true;
    }
    host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Routes one request, executes the planned reply and records the exchange.
fn handle_request(shared: &Arc<Shared>, stream: &mut TcpStream, req: Request) -> After {
    let config = &shared.config;
    let chunked = req.minor_version >= 1;
    if let Scenario::Auth(fault) = config.scenario
        && let Some(after) = authorization(shared, stream, &req, fault)
    {
        return after;
    }
    if req.path != config.path {
        let body = format!("Not Found: the MCP endpoint is {}\n", config.path);
        return match http::write_full(stream, 404, Some(TEXT_PLAIN), &[], body.as_bytes(), false) {
            Ok(()) => After::KeepOpen,
            Err(_) => After::Close,
        };
    }
    let post_no = if req.method == "POST" {
        shared.post_count.fetch_add(1, Ordering::SeqCst) + 1
    } else {
        0
    };
    let incoming = Incoming {
        body: &req.body,
        fields: Some(&req.headers),
        session: req.header(header::SESSION_ID),
    };
    let (reply, exchange) =
        if let Some(origin) = req.header("origin").filter(|o| !origin_allowed(config, o)) {
            let msg = error_msg(
                None,
                code::INVALID_REQUEST,
                &format!("Forbidden: Origin '{origin}' is not allowed"),
                None,
            );
            (json_reply(403, msg, Vec::new()), Exchange::default())
        } else {
            match req.method.as_str() {
                "POST" => dispatch::handle_post(shared, &incoming, post_no),
                "DELETE" => v2025_11_25::delete(shared, &incoming),
                _ => (method_not_allowed(), Exchange::default()),
            }
        };
    let mut record = DiagRecord::new(Side::Serve);
    record.client = exchange.client;
    // What the client sent is recorded and logged redacted (and bounded), like its client name.
    record.protocol_version = exchange.protocol_version.as_deref().map(sanitize);
    record.scenario = Some(config.scenario.to_string());
    record.method = exchange.method.as_deref().map(sanitize);
    record.post_count = post_no;
    record.jsonrpc.id = exchange.id.map(|id| match id {
        serde_json::Value::String(_) => crate::views::redact::value(&id),
        other => other,
    });
    // A tools/call answer is judged as sent (see `judged`).
    let mut sent =
        (post_no > 0 && record.method.as_deref() == Some("tools/call")).then(Sent::default);
    let after = execute(shared, stream, reply, chunked, &mut record, &mut sent);
    if let Some(sent) = sent
        && let Some(protocol) = judged::protocol_of(&record)
        && let Some(ex) = sent_exchange(shared, &req, sent)
    {
        judged::note_verdict(protocol, ex, &mut record);
    }
    record.ts = crate::views::diag::now_rfc3339();
    shared.push_record(record, &req.method);
    after
}

/// The authorization layer of the `auth` scenario: its own paths (metadata, authorization
/// server), and the endpoint's refusals of requests without a valid token (counted and
/// recorded like any POST). `None` lets the request through to the MCP endpoint.
fn authorization(
    shared: &Arc<Shared>,
    stream: &mut TcpStream,
    req: &Request,
    fault: Option<AuthFault>,
) -> Option<After> {
    let config = &shared.config;
    let origin = match req.header("host") {
        Some(h) => format!("http://{h}"),
        None => format!("http://{}", stream.local_addr().ok()?),
    };
    let site = Site {
        origin,
        path: &config.path,
        fault,
    };
    let write = |stream: &mut TcpStream, a: auth::Answer| {
        let ct = a
            .headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("content-type"))
            .map(|(_, v)| v.clone());
        let extra: Vec<(String, String)> = a
            .headers
            .into_iter()
            .filter(|(n, _)| !n.eq_ignore_ascii_case("content-type"))
            .collect();
        match http::write_full(stream, a.status, ct.as_deref(), &extra, &a.body, false) {
            Ok(()) => After::KeepOpen,
            Err(_) => After::Close,
        }
    };
    if let Some(a) = shared.auth.route(
        &site,
        &req.method,
        &req.path,
        &req.query,
        &req.headers,
        &req.body,
    ) {
        return Some(write(stream, a));
    }
    if req.path != config.path {
        return None;
    }
    let message = serde_json::from_slice::<Value>(&req.body).ok();
    let method = message
        .as_ref()
        .and_then(|m| m.get("method"))
        .and_then(Value::as_str);
    let refusal = shared
        .auth
        .gate(&site, req.header("authorization"), &req.query, method)?;
    let mut record = DiagRecord::new(Side::Serve);
    record.scenario = Some(config.scenario.to_string());
    record.method = method.map(sanitize);
    if req.method == "POST" {
        record.post_count = shared.post_count.fetch_add(1, Ordering::SeqCst) + 1;
    }
    record.http_statuses.push(refusal.status);
    let after = write(stream, refusal);
    record.ts = crate::views::diag::now_rfc3339();
    shared.push_record(record, &req.method);
    Some(after)
}

/// The exchange as the client saw it: the request as received and what went out for it;
/// none when the copy of the body was cut at its cap (a part is not the whole exchange).
fn sent_exchange(shared: &Shared, req: &Request, sent: Sent) -> Option<recorded::Exchange> {
    if sent.cut {
        return None;
    }
    let body: Option<Value> = serde_json::from_slice(&req.body).ok();
    let tool = judged::tool_of(shared, body.as_ref());
    let request_headers = Headers::new(req.headers.iter().filter_map(|(n, v)| {
        std::str::from_utf8(v)
            .ok()
            .map(|v| (n.clone(), v.trim().to_string()))
    }));
    let mut builder =
        recorded::Exchange::builder(sent.status, Headers::new(sent.headers), sent.body)
            .request_headers(request_headers)
            .request_line("POST", shared.config.path.clone())
            .end(sent.end);
    if let Some(body) = body {
        builder = builder.request(body);
    }
    if let Some(tool) = tool {
        builder = builder.tool(tool);
    }
    Some(builder.build())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins() {
        let c = ServeConfig {
            allowed_origins: vec!["https://app.example".into()],
            ..ServeConfig::default()
        };
        for ok in [
            "http://localhost:3000",
            "http://127.0.0.1",
            "http://[::1]:8080",
            "https://LOCALHOST",
            "https://app.example",
            "http://127.5.6.7:1",
        ] {
            assert!(origin_allowed(&c, ok), "{ok}");
        }
        for bad in [
            "null",
            "http://evil.example",
            "http://localhost.evil.example",
            "http://127.0.0.1.evil.example",
            "https://app.example:444",
        ] {
            assert!(!origin_allowed(&c, bad), "{bad}");
        }
    }
}
