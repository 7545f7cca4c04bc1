//! `proxy`: a judging proxy between a real MCP client and a real MCP server. It relays the
//! traffic unchanged and judges every `tools/call` (and every setup answer: `initialize`,
//! `server/discover`, `tools/list`) as its answer completes, the way `probe` judges what it
//! records, with the revision the session negotiated and the tool's definition from the
//! `tools/list` it saw.
//!
//! **Streamable HTTP** ([`start`]): a reverse proxy on loopback for one upstream
//! (`http://` or `https://`). Every request (POST, GET, DELETE, and anything else) is forwarded
//! on an upstream connection of its own client connection (`relay`), byte for byte but for
//! the `Host` field, which names the upstream; answers are written back as they arrive, so an
//! SSE event is forwarded when it is read, chunk framing included. Session ids,
//! `Last-Event-ID`, `Authorization` and every other field go through untouched; the proxy adds
//! no field (no `Via`, no `Forwarded`). The proxy never retries, alters or drops a message,
//! and judging never holds the relay back: the relay hands a copy of each body, bounded by
//! [`ProxyConfig::max_copy`] per message, to the judging thread (`live`) and goes on.
//!
//! **stdio** ([`stdio::run`]): `proxy -- COMMAND ARGS...`, launched by a client as its server
//! command, launches the server and relays its three streams; each `tools/call` is judged as
//! `classify --transcript` judges a transcript, and each setup answer as `probe` records one
//! over stdio.
//!
//! Each judged exchange goes to the sinks (`sinks`): a line on stderr (tool, outcome,
//! deciding rule, latency), the `classify --jsonl` record in `--log`, an exchange file in
//! `--record` that `classify` and `check` judge again the same way, the live page of `--ui`
//! (`ui`, `page`), and the [`Summary`] printed on exit.
//!
//! Layout: `upstream` reads the URL and connects (rustls for https), `framing` watches
//! HTTP/1.1 messages go by, `relay` moves the bytes, `note` is what the relay tells the
//! judge, `live` assembles and judges, `sessions` is what the traffic established, `judged`
//! the results, `sinks` and `summary` where they go.
//!
//! ```no_run
//! use mcp_verdict::proxy::{self, ProxyConfig};
//! let handle = proxy::start(ProxyConfig::new("http://127.0.0.1:3000/mcp")).unwrap();
//! println!("point the client at {}", handle.url());
//! // ... the client talks to the server through the proxy ...
//! let summary = handle.stop();
//! print!("{}", summary.render());
//! ```

mod framing;
mod judged;
mod live;
mod note;
mod page;
mod relay;
mod sessions;
mod shared_stderr;
mod sinks;
pub mod stdio;
mod stdio_live;
mod stdio_setup;
mod summary;
mod ui;
mod upstream;

pub use judged::{Judged, Kind, Unjudged};
pub use summary::Summary;
pub use upstream::Upstream;

use std::collections::HashMap;
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crate::outputs::Style;
use note::Note;
use sinks::Sink;
use summary::Tally;

/// Default [`ProxyConfig::max_copy`]: 16 MiB.
pub const DEFAULT_MAX_COPY: usize = 16 << 20;

/// How to run the proxy.
#[derive(Debug, Clone)]
pub struct ProxyConfig {
    /// The upstream MCP endpoint, `http://` or `https://`.
    pub upstream: String,
    /// The address to listen on (default `127.0.0.1:0`: loopback, a free port).
    pub listen: SocketAddr,
    /// PEM certificates trusted for an https upstream besides the webpki roots.
    pub ca_file: Option<PathBuf>,
    /// The most bytes of one message body copied for judging; the rest is relayed uncopied
    /// and the verdict says it was not judged in full.
    pub max_copy: usize,
    /// Write the `classify --jsonl` record of each exchange to this file.
    pub log: Option<PathBuf>,
    /// Write an exchange file per judged exchange into this folder.
    pub record: Option<PathBuf>,
    /// Print a line per judged exchange on stderr.
    pub echo_stderr: bool,
    /// How those lines are styled.
    pub style: Style,
    /// Serve the live page on this address (loopback: nothing on it asks who is looking).
    pub ui: Option<SocketAddr>,
}

impl ProxyConfig {
    /// A proxy for `upstream` on a free loopback port, judging quietly.
    pub fn new(upstream: &str) -> ProxyConfig {
        ProxyConfig {
            upstream: upstream.to_string(),
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            ca_file: None,
            max_copy: DEFAULT_MAX_COPY,
            log: None,
            record: None,
            echo_stderr: false,
            style: Style::default(),
            ui: None,
        }
    }
}

/// Why the proxy could not start.
#[derive(Debug, thiserror::Error)]
pub enum ProxyError {
    /// The configuration cannot work (bad URL, an unreadable CA file, https without TLS).
    #[error("{0}")]
    Config(String),
    /// The listening address could not be bound (or a thread not started).
    #[error("{what}: {source}")]
    Listen {
        /// What was being done.
        what: String,
        /// Why it failed.
        source: std::io::Error,
    },
    /// The log or the record folder could not be created.
    #[error("{what}: {source}")]
    Output {
        /// What was being done.
        what: String,
        /// Why it failed.
        source: std::io::Error,
    },
}

/// A running proxy.
pub struct ProxyHandle {
    addr: SocketAddr,
    path: String,
    notes: Sender<Note>,
    judge: Option<JoinHandle<()>>,
    tally: Tally,
    stopping: Arc<AtomicBool>,
    clients: Arc<Mutex<HashMap<u64, TcpStream>>>,
    ctx: Arc<relay::Ctx>,
    ui: Option<SocketAddr>,
}

impl ProxyHandle {
    /// The address the proxy listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The URL a client uses: the proxy's address with the upstream's path.
    pub fn url(&self) -> String {
        format!("http://{}{}", self.addr, self.path)
    }

    /// The live page's URL, when it is served.
    pub fn ui_url(&self) -> Option<String> {
        self.ui.map(|a| format!("http://{a}/"))
    }

    /// The summary so far.
    pub fn summary(&self) -> Summary {
        self.tally.get()
    }

    /// Stops: no new connection is accepted, the open ones are closed, what is under way is
    /// judged as it stands; returns the summary.
    pub fn stop(mut self) -> Summary {
        self.stop_inner();
        self.tally.get()
    }

    fn stop_inner(&mut self) {
        if self.stopping.swap(true, Ordering::SeqCst) {
            return;
        }
        // Wake the accept loop.
        let _ = TcpStream::connect(self.addr);
        // What a client has read is told before the judge stops (a read is relayed and told
        // in well under this).
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
        while self.ctx.busy.load(Ordering::SeqCst) > 0 && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let _ = self.notes.send(Note::Stop);
        if let Some(j) = self.judge.take() {
            let _ = j.join();
        }
        for (_, c) in lock(&self.clients).drain() {
            let _ = c.shutdown(Shutdown::Both);
        }
    }
}

impl Drop for ProxyHandle {
    fn drop(&mut self) {
        self.stop_inner();
    }
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Starts the HTTP proxy: binds, starts the judging thread and accepts connections.
pub fn start(config: ProxyConfig) -> Result<ProxyHandle, ProxyError> {
    let up = Upstream::parse(&config.upstream).map_err(ProxyError::Config)?;
    let tls = if up.tls {
        Some(upstream::TlsSettings::new(config.ca_file.as_deref()).map_err(ProxyError::Config)?)
    } else {
        None
    };
    let tally = Tally::default();
    let mut sinks: Vec<Box<dyn Sink>> = vec![Box::new(tally.clone())];
    if config.echo_stderr {
        sinks.push(Box::new(sinks::StderrLines {
            style: config.style,
            shared: None,
        }));
    }
    if let Some(p) = &config.log {
        sinks.push(Box::new(sinks::Log::create(p).map_err(|source| {
            ProxyError::Output {
                what: format!("cannot create the log {}", p.display()),
                source,
            }
        })?));
    }
    if let Some(d) = &config.record {
        sinks.push(Box::new(sinks::Records::create(d, &up.url).map_err(
            |source| ProxyError::Output {
                what: format!("cannot create the record folder {}", d.display()),
                source,
            },
        )?));
    }
    let ui = match config.ui {
        Some(addr) => {
            let feed = Arc::new(ui::Feed::default());
            sinks.push(Box::new(ui::FeedSink(feed.clone())));
            Some(
                ui::start(addr, feed, up.url.clone()).map_err(|source| ProxyError::Listen {
                    what: format!("cannot serve the live page on {addr}"),
                    source,
                })?,
            )
        }
        None => None,
    };
    let listener = TcpListener::bind(config.listen).map_err(|source| ProxyError::Listen {
        what: format!("cannot listen on {}", config.listen),
        source,
    })?;
    let addr = listener.local_addr().map_err(|source| ProxyError::Listen {
        what: "cannot read the listening address".into(),
        source,
    })?;
    let (tx, rx) = mpsc::channel();
    let live = live::Live::new(up.clone(), sinks);
    let judge = std::thread::Builder::new()
        .name("proxy-judge".into())
        .spawn(move || live.run(rx))
        .map_err(|source| ProxyError::Listen {
            what: "cannot start the judging thread".into(),
            source,
        })?;
    let ctx = Arc::new(relay::Ctx {
        upstream: up.clone(),
        tls,
        notes: tx.clone(),
        max_copy: config.max_copy.max(1),
        next_tx: AtomicU64::new(0),
        next_conn: AtomicU64::new(0),
        busy: AtomicUsize::new(0),
    });
    let stopping = Arc::new(AtomicBool::new(false));
    let clients: Arc<Mutex<HashMap<u64, TcpStream>>> = Arc::default();
    {
        let stopping = stopping.clone();
        let clients = clients.clone();
        let ctx = ctx.clone();
        std::thread::Builder::new()
            .name("proxy-accept".into())
            .spawn(move || accept(listener, ctx, stopping, clients))
            .map_err(|source| ProxyError::Listen {
                what: "cannot start the accepting thread".into(),
                source,
            })?;
    }
    Ok(ProxyHandle {
        addr,
        path: up.path.clone(),
        notes: tx,
        judge: Some(judge),
        tally,
        stopping,
        clients,
        ctx,
        ui,
    })
}

fn accept(
    listener: TcpListener,
    ctx: Arc<relay::Ctx>,
    stopping: Arc<AtomicBool>,
    clients: Arc<Mutex<HashMap<u64, TcpStream>>>,
) {
    let mut n = 0u64;
    for stream in listener.incoming() {
        if stopping.load(Ordering::SeqCst) {
            return;
        }
        let Ok(stream) = stream else { continue };
        n += 1;
        let key = n;
        if let Ok(c) = stream.try_clone() {
            lock(&clients).insert(key, c);
        }
        let ctx = ctx.clone();
        let clients = clients.clone();
        let _ = std::thread::Builder::new()
            .name(format!("proxy-conn-{key}"))
            .spawn(move || {
                relay::connection(stream, ctx);
                lock(&clients).remove(&key);
            });
    }
}
