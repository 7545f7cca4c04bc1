//! One client connection relayed to one upstream connection, byte for byte, in both
//! directions at once (a thread each way). Requests are forwarded as read, their heads with
//! `Host` set to the upstream's authority (the only byte the relay changes); answers are
//! written to the client as each read returns, before the framer looks at them, so an SSE event
//! reaches the client when it reaches the proxy and chunk framing goes through as it was.
//! The framer on each side tells the judging thread what it saw ([`Note`]); nothing waits on it.
//! A setup answer (`initialize`, `server/discover`, `tools/list`) is the exception: each read
//! of it is told before it is written, so that the judge has the session's revision and tool
//! definitions before the client can send a call that needs them (`relay_read`).
//!
//! Connections map one to one: a client's keep-alive connection is one upstream connection,
//! so `Connection`, `Keep-Alive` and pipelining mean upstream what they meant to the proxy.
//! An upstream that closes is closed to the client; one that resets (or fails) is reset to
//! the client; a client that goes away is gone upstream too.

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::framing::{Answering, Framer, Head, Side, Watch};
use super::note::{Copy, Note};
use super::upstream::{self, TlsSettings, UpWrite, Upstream};
use crate::wire::exchange::BodyEnd;

/// Bytes read at once from either side.
const READ_BUF: usize = 16 * 1024;

/// What every connection shares.
pub(crate) struct Ctx {
    pub upstream: Upstream,
    pub tls: Option<TlsSettings>,
    pub notes: Sender<Note>,
    /// The copy bound of one message body.
    pub max_copy: usize,
    pub next_tx: AtomicU64,
    pub next_conn: AtomicU64,
    /// Reads being relayed and told right now (the proxy waits for none before it stops
    /// judging, so that what a client has read is judged).
    pub busy: AtomicUsize,
}

/// Counts a read in [`Ctx::busy`] until dropped.
struct Busy<'a>(&'a AtomicUsize);

impl<'a> Busy<'a> {
    fn new(n: &'a AtomicUsize) -> Busy<'a> {
        n.fetch_add(1, Ordering::SeqCst);
        Busy(n)
    }
}

impl Drop for Busy<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The longest request body read for its JSON-RPC method (the setup requests are small; a
/// longer body is taken for a call).
const SNIFF_MAX: usize = 64 * 1024;

/// A request sent upstream whose answer has not begun.
#[derive(Debug, Clone, Copy)]
struct Pending {
    tx: u64,
    answering: Answering,
    /// A setup request (`initialize`, `server/discover`, `tools/list`): its answer is told to
    /// the judge before it is written to the client.
    setup: bool,
}

/// Requests sent upstream whose answers have not begun, oldest first.
type Waiting = Arc<Mutex<VecDeque<Pending>>>;

fn lock(w: &Waiting) -> std::sync::MutexGuard<'_, VecDeque<Pending>> {
    w.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether a request body is a setup request, whose answer a client sets itself up from.
fn is_setup(body: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Method<'a> {
        #[serde(borrow)]
        method: Option<std::borrow::Cow<'a, str>>,
    }
    serde_json::from_slice::<Method<'_>>(body).is_ok_and(|m| {
        matches!(
            m.method.as_deref(),
            Some("initialize" | "server/discover" | "tools/list")
        )
    })
}

/// Relays one client connection until either side ends it.
pub(crate) fn connection(client: TcpStream, ctx: Arc<Ctx>) {
    let conn = ctx.next_conn.fetch_add(1, Ordering::Relaxed) + 1;
    let _ = client.set_nodelay(true);
    let up = match upstream::connect(&ctx.upstream, ctx.tls.as_ref()) {
        Ok(c) => c,
        Err(e) => return refuse(client, &ctx, conn, &e.to_string()),
    };
    let waiting: Waiting = Arc::default();
    let Ok(client_w) = client.try_clone() else {
        return;
    };
    let answers = {
        let ctx = ctx.clone();
        let waiting = waiting.clone();
        std::thread::Builder::new()
            .name(format!("proxy-answers-{conn}"))
            .spawn(move || answers(up.reader, client_w, &waiting, &ctx, conn))
    };
    requests(client, up.writer, &waiting, &ctx, conn);
    if let Ok(h) = answers {
        let _ = h.join();
    }
}

/// Client to upstream.
fn requests(
    mut client: TcpStream,
    writer: Box<dyn UpWrite>,
    waiting: &Waiting,
    ctx: &Ctx,
    conn: u64,
) {
    let mut w = RequestWatch {
        up: writer,
        failed: false,
        ctx,
        conn,
        waiting,
        copy: None,
        sniff: None,
    };
    let mut framer = Framer::new(Side::Request);
    let mut buf = vec![0u8; READ_BUF];
    loop {
        match client.read(&mut buf) {
            Ok(0) => {
                // The client is done sending: so is the proxy, upstream.
                framer.close(&mut w);
                w.up.finish();
                return;
            }
            Ok(n) => {
                let _busy = Busy::new(&ctx.busy);
                framer.feed(&buf[..n], &mut w);
                if w.failed {
                    // The upstream took no more: the answers side reports how it ended.
                    let _ = client.shutdown(Shutdown::Read);
                    return;
                }
            }
            Err(_) => {
                w.up.abort();
                return;
            }
        }
    }
}

struct RequestWatch<'a> {
    up: Box<dyn UpWrite>,
    failed: bool,
    ctx: &'a Ctx,
    conn: u64,
    waiting: &'a Waiting,
    copy: Option<Copy>,
    /// The body of the request under way, for its method (`None` past [`SNIFF_MAX`]).
    sniff: Option<(u64, Vec<u8>)>,
}

impl RequestWatch<'_> {
    fn write(&mut self, bytes: &[u8]) {
        if !self.failed && self.up.write_all(bytes).is_err() {
            self.failed = true;
        }
    }
}

impl Watch for RequestWatch<'_> {
    fn forward(&mut self, bytes: &[u8]) {
        self.write(bytes);
    }

    fn head(&mut self, head: Head, raw: &[u8]) {
        let tx = self.ctx.next_tx.fetch_add(1, Ordering::Relaxed) + 1;
        let answering = Answering {
            head: head.method.eq_ignore_ascii_case("HEAD"),
            connect: head.method.eq_ignore_ascii_case("CONNECT"),
        };
        // Queued before the bytes go, so that the answer never arrives before its request
        // is known.
        lock(self.waiting).push_back(Pending {
            tx,
            answering,
            setup: false,
        });
        self.sniff = Some((tx, Vec::new()));
        let host = head.host_value.clone();
        let _ = self.ctx.notes.send(Note::Request {
            tx,
            at: Instant::now(),
            head,
        });
        self.copy = Some(Copy::new(tx, false, self.ctx.max_copy));
        match host {
            Some(r) => {
                let authority = self.ctx.upstream.authority.clone();
                self.write(&raw[..r.start]);
                self.write(authority.as_bytes());
                self.write(&raw[r.end..]);
            }
            None => self.write(raw),
        }
    }

    fn payload(&mut self, bytes: &[u8]) {
        if let Some(c) = &mut self.copy {
            c.push(&self.ctx.notes, bytes);
        }
        if let Some((_, body)) = &mut self.sniff {
            if body.len() + bytes.len() > SNIFF_MAX {
                self.sniff = None;
            } else {
                body.extend_from_slice(bytes);
            }
        }
    }

    fn end(&mut self) {
        if let Some(c) = self.copy.take() {
            c.end(&self.ctx.notes, BodyEnd::Complete);
        }
        // Told before the request's last bytes go upstream (the framer tells a body's end
        // before forwarding it), so before its answer can begin.
        if let Some((tx, body)) = self.sniff.take()
            && is_setup(&body)
            && let Some(p) = lock(self.waiting).iter_mut().find(|p| p.tx == tx)
        {
            p.setup = true;
        }
    }

    fn opaque(&mut self, why: String) {
        let _ = self.ctx.notes.send(Note::Trouble {
            why: format!(
                "connection {}: the rest of what the client sends is relayed unread: {why}",
                self.conn
            ),
        });
    }
}

/// Upstream to client.
fn answers(
    mut reader: Box<dyn Read + Send>,
    mut client: TcpStream,
    waiting: &Waiting,
    ctx: &Ctx,
    conn: u64,
) {
    let mut w = AnswerWatch {
        ctx,
        conn,
        waiting,
        tx: None,
        copy: None,
        setup: false,
    };
    let mut framer = Framer::new(Side::Response);
    let mut buf = vec![0u8; READ_BUF];
    let reset = loop {
        match reader.read(&mut buf) {
            Ok(0) => break false,
            Ok(n) => {
                let _busy = Busy::new(&ctx.busy);
                if relay_read(&buf[..n], &mut client, &mut framer, &mut w).is_err() {
                    // The client went away: so does the upstream connection.
                    drop(reader);
                    let _ = client.shutdown(Shutdown::Both);
                    end_unfinished(
                        &mut framer,
                        &mut w,
                        waiting,
                        BodyEnd::Reset,
                        "the client closed the connection",
                    );
                    return;
                }
            }
            Err(_) => break true,
        }
    };
    // The upstream closed (or reset): the client's connection ends the same way.
    let end = if reset {
        BodyEnd::Reset
    } else {
        BodyEnd::Complete
    };
    let why = if reset {
        "the upstream reset the connection"
    } else {
        "the upstream closed the connection"
    };
    // Told before the client sees the close (which ends a body that runs to it).
    end_unfinished(&mut framer, &mut w, waiting, end, why);
    if reset {
        // Closed with a zero linger, so the client reads a reset as it would from the server.
        let _ = socket2::SockRef::from(&client).set_linger(Some(Duration::ZERO));
        let _ = client.shutdown(Shutdown::Read);
    } else {
        let _ = client.shutdown(Shutdown::Both);
    }
}

/// Relays one read of the upstream to the client and tells the judge what is in it. An
/// answer is written before the framer looks at it, so that judging never holds the client
/// back, except a setup answer's (`initialize`, `server/discover`, `tools/list`): the judge
/// is told of it first, so that whatever the client sends once it has read the answer (a
/// `tools/call` of a tool it lists, on any connection) reaches the judge after it.
fn relay_read(
    bytes: &[u8],
    client: &mut impl Write,
    framer: &mut Framer,
    w: &mut AnswerWatch<'_>,
) -> std::io::Result<()> {
    let setup_first = w.setup_under_way();
    if setup_first {
        framer.feed(bytes, w);
    }
    client.write_all(bytes)?;
    if !setup_first {
        framer.feed(bytes, w);
    }
    Ok(())
}

/// Ends the answer under way (complete when its body runs to the close) and tells the
/// requests that got no answer.
fn end_unfinished(
    framer: &mut Framer,
    w: &mut AnswerWatch<'_>,
    waiting: &Waiting,
    end: BodyEnd,
    why: &str,
) {
    match framer.close(w) {
        Some(true) | None => {}
        Some(false) => {
            let cut = if end == BodyEnd::Complete {
                BodyEnd::Reset
            } else {
                end
            };
            if let Some(c) = w.copy.take() {
                c.end(&w.ctx.notes, cut);
            }
        }
    }
    for Pending { tx, .. } in lock(waiting).drain(..) {
        let _ = w.ctx.notes.send(Note::Unanswered {
            tx,
            why: why.to_string(),
        });
    }
}

struct AnswerWatch<'a> {
    ctx: &'a Ctx,
    conn: u64,
    waiting: &'a Waiting,
    /// The transaction the head being told answers.
    tx: Option<u64>,
    copy: Option<Copy>,
    /// The answer under way answers a setup request.
    setup: bool,
}

impl AnswerWatch<'_> {
    /// Whether the answer under way, or the next to begin, answers a setup request.
    fn setup_under_way(&self) -> bool {
        self.setup || lock(self.waiting).front().is_some_and(|p| p.setup)
    }
}

impl Watch for AnswerWatch<'_> {
    fn forward(&mut self, _: &[u8]) {
        // Forwarded already, as read.
    }

    fn answering(&mut self, status: u16) -> Answering {
        let mut q = lock(self.waiting);
        let front = q.front().copied();
        if status >= 200 {
            q.pop_front();
        }
        self.tx = front.map(|p| p.tx);
        self.setup = front.is_some_and(|p| p.setup);
        front.map(|p| p.answering).unwrap_or_default()
    }

    fn head(&mut self, head: Head, _: &[u8]) {
        if (100..200).contains(&head.status) {
            return;
        }
        let Some(tx) = self.tx.take() else {
            let _ = self.ctx.notes.send(Note::Trouble {
                why: format!(
                    "connection {}: the upstream sent an answer (HTTP {}) to no request",
                    self.conn, head.status
                ),
            });
            return;
        };
        let _ = self.ctx.notes.send(Note::Response { tx, head });
        self.copy = Some(Copy::new(tx, true, self.ctx.max_copy));
    }

    fn payload(&mut self, bytes: &[u8]) {
        if let Some(c) = &mut self.copy {
            c.push(&self.ctx.notes, bytes);
        }
    }

    fn end(&mut self) {
        if let Some(c) = self.copy.take() {
            c.end(&self.ctx.notes, BodyEnd::Complete);
        }
        self.setup = false;
    }

    fn opaque(&mut self, why: String) {
        let _ = self.ctx.notes.send(Note::Trouble {
            why: format!(
                "connection {}: the rest of what the upstream sends is relayed unread: {why}",
                self.conn
            ),
        });
    }
}

/// The upstream could not be reached: the client's first request is answered `502 Bad
/// Gateway`, saying why, and the connection closed.
fn refuse(mut client: TcpStream, ctx: &Ctx, conn: u64, why: &str) {
    let why = format!(
        "connection {conn}: cannot reach the upstream {}: {why}",
        ctx.upstream.url
    );
    let _ = ctx.notes.send(Note::Trouble { why: why.clone() });
    // Read the request head (briefly), so that the client reads the answer, not a reset.
    let _ = client.set_read_timeout(Some(Duration::from_secs(5)));
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 64 * 1024 {
        match client.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    let body = format!("mcp-verdict proxy: {why}\n");
    let _ = write!(
        client,
        "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = client.shutdown(Shutdown::Write);
}

#[cfg(test)]
#[path = "relay_tests.rs"]
mod tests;
