//! The Streamable HTTP binding: a listener on loopback, one thread per connection (see
//! `connection`), requests parsed and answers written byte by byte (`wire`), a planned reply
//! executed on the socket as a `Content-Length` body or an SSE stream (`execute`). What to
//! answer is the dialogue's (`dispatch` and below); this module decides how it is written.

mod connection;
mod execute;
mod wire;

use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::Duration;

pub(crate) use wire::{Parse, parse_request};

use super::config::ServeConfig;
use super::scenario_table::Transport;
use super::shared::Shared;
use crate::views::diag::DiagRecord;

/// A running server. Dropping it shuts the server down.
pub struct ServerHandle {
    shared: Arc<Shared>,
    addr: SocketAddr,
    accept: Option<JoinHandle<()>>,
    conns: Arc<Mutex<Vec<JoinHandle<()>>>>,
}

impl ServerHandle {
    /// The bound address (with the real port when 0 was asked for).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The endpoint URL, e.g. `http://127.0.0.1:41234/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}{}", self.addr, self.shared.config.path)
    }

    /// POSTs received on the endpoint so far (every POST counts).
    pub fn post_count(&self) -> u64 {
        self.shared.post_count.load(Ordering::SeqCst)
    }

    /// Orders created by the side-effecting `create_order` tool so far.
    pub fn orders_created(&self) -> u64 {
        self.shared.orders.load(Ordering::SeqCst)
    }

    /// Diagnostic records of the exchanges finished so far, the last
    /// [`ServeConfig::keep_records`] of them, oldest first.
    ///
    /// A record is added once the server has finished writing the response,
    /// which can be a moment after the client has read it; use
    /// [`ServerHandle::wait_for_records`] to wait for it.
    pub fn records(&self) -> Vec<DiagRecord> {
        self.shared.records()
    }

    /// Exchanges recorded since the start (records dropped from memory included).
    pub fn records_total(&self) -> usize {
        self.shared.records.lock().expect("records lock").total
    }

    /// Waits until at least `n` exchanges have been recorded (or `timeout` passes) and
    /// returns the records kept at that point (see [`ServerHandle::records`]).
    pub fn wait_for_records(&self, n: usize, timeout: Duration) -> Vec<DiagRecord> {
        let guard = self.shared.records.lock().expect("records lock");
        let (guard, _) = self
            .shared
            .records_changed
            .wait_timeout_while(guard, timeout, |r| r.total < n)
            .expect("records lock");
        guard.recent.iter().cloned().collect()
    }

    /// 2025-11-25 sessions held now (expired ones are dropped as requests arrive).
    pub fn session_count(&self) -> usize {
        self.shared.sessions.lock().expect("sessions lock").len()
    }

    /// Connections being served now.
    pub fn active_connections(&self) -> usize {
        self.shared.active.load(Ordering::SeqCst)
    }

    /// The configuration in force.
    pub fn config(&self) -> &ServeConfig {
        &self.shared.config
    }

    /// Stops accepting, ends every connection and joins all threads.
    pub fn shutdown(mut self) {
        self.stop();
    }

    /// Shuts the server down (every connection finished) and returns the records kept, the
    /// last exchanges included.
    pub fn shutdown_with_records(mut self) -> Vec<DiagRecord> {
        self.stop();
        self.records()
    }

    fn stop(&mut self) {
        if self.accept.is_none() {
            return;
        }
        self.shared.shutdown.store(true, Ordering::SeqCst);
        // Wake the blocking accept() with a throwaway connection.
        let wake = match self.addr.ip() {
            IpAddr::V4(ip) if ip.is_unspecified() => {
                SocketAddr::new(Ipv4Addr::LOCALHOST.into(), self.addr.port())
            }
            IpAddr::V6(ip) if ip.is_unspecified() => {
                SocketAddr::new(Ipv6Addr::LOCALHOST.into(), self.addr.port())
            }
            _ => self.addr,
        };
        let _ = TcpStream::connect_timeout(&wake, Duration::from_secs(1));
        if let Some(h) = self.accept.take() {
            let _ = h.join();
        }
        let handles: Vec<JoinHandle<()>> =
            std::mem::take(&mut *self.conns.lock().expect("conns lock"));
        for h in handles {
            let _ = h.join();
        }
    }
}

impl Drop for ServerHandle {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Binds the listener and starts serving in background threads.
pub fn start(config: ServeConfig) -> io::Result<ServerHandle> {
    if !config.scenario.offered_over(Transport::Http) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "scenario {} is offered over stdio only: run serve --stdio (serve --list says which scenarios each transport offers)",
                config.scenario
            ),
        ));
    }
    let listener = TcpListener::bind(SocketAddr::new(config.host, config.port))?;
    let addr = listener.local_addr()?;
    let shared = Arc::new(Shared::new(config)?);
    let conns: Arc<Mutex<Vec<JoinHandle<()>>>> = Arc::new(Mutex::new(Vec::new()));
    let accept = {
        let shared = Arc::clone(&shared);
        let conns = Arc::clone(&conns);
        thread::Builder::new()
            .name("mcp-serve-accept".into())
            .spawn(move || connection::accept_loop(listener, shared, conns))?
    };
    Ok(ServerHandle {
        shared,
        addr,
        accept: Some(accept),
        conns,
    })
}
