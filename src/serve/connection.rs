//! Connections: the accept loop, one thread per connection reading requests (keep-alive,
//! pipelining), routing each by path, `Origin` and HTTP method, and one diagnostic record per
//! exchange.

use std::io::Write;
use std::net::{IpAddr, TcpListener, TcpStream};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use super::dispatch;
use super::exchange::Exchange;
use super::execute::{After, execute};
use super::http::{self, ReadResult, Request};
use super::reply::{error_msg, json_reply, method_not_allowed};
use super::{ServeConfig, Shared, v2025_11_25};
use crate::views::diag::{DiagRecord, Side};
use crate::vocab::http::TEXT_PLAIN;
use crate::vocab::protocol::code;

/// Accepts connections until the server stops, one thread each.
pub(crate) fn accept_loop(
    listener: TcpListener,
    shared: Arc<Shared>,
    conns: Arc<Mutex<Vec<JoinHandle<()>>>>,
) {
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
        let shared2 = Arc::clone(&shared);
        let spawned = thread::Builder::new()
            .name("mcp-serve-conn".into())
            .spawn(move || serve_connection(shared2, stream));
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
                "POST" => dispatch::handle_post(shared, &req, post_no),
                "DELETE" => v2025_11_25::delete(shared, &req),
                _ => (method_not_allowed(), Exchange::default()),
            }
        };
    let mut record = DiagRecord::new(Side::Serve);
    record.client = exchange.client;
    record.protocol_version = exchange.protocol_version;
    record.scenario = Some(config.scenario.to_string());
    record.method = exchange.method;
    record.post_count = post_no;
    record.jsonrpc.id = exchange.id;
    let after = execute(shared, stream, reply, chunked, &mut record);
    record.ts = crate::views::diag::now_rfc3339();
    push_record(shared, record);
    after
}

/// Logs the record (file, stderr summary) and keeps it for [`super::ServerHandle::records`].
fn push_record(shared: &Shared, record: DiagRecord) {
    if let Some(log) = &shared.log {
        let mut f = log.lock().expect("log lock");
        let _ = writeln!(f, "{}", record.to_json_line());
        let _ = f.flush();
    }
    if shared.config.echo_stderr {
        let statuses: Vec<String> = record.http_statuses.iter().map(u16::to_string).collect();
        eprintln!(
            "POST#{} {} {} -> {} {} end={:?}{}",
            record.post_count,
            record.protocol_version.as_deref().unwrap_or("?"),
            record.method.as_deref().unwrap_or("-"),
            statuses.join(","),
            record.content_type.as_deref().unwrap_or("(no body)"),
            record.stream_end,
            record
                .jsonrpc
                .error_code
                .map(|c| format!(" error={c}"))
                .unwrap_or_default()
        );
    }
    shared.records.lock().expect("records lock").push(record);
    shared.records_changed.notify_all();
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
