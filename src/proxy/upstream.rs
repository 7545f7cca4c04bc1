//! The upstream: its URL read once, and connections to it, plain or TLS, as a reading half and
//! a writing half that two relay threads use at once.
//!
//! Over TLS both halves share one rustls connection behind a lock: the reading half reads the
//! socket without holding the lock and takes it only to decrypt what arrived, the writing half
//! takes it to encrypt and send. (`rustls::StreamOwned` holds the socket and the state as one
//! and cannot be read and written from two threads; an async runtime would be the other way,
//! for a relay whose threads only ever block on one socket each.)

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream, ToSocketAddrs};
use std::time::Duration;

/// How long connecting to the upstream (and a TLS handshake) may take.
pub(crate) const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The upstream server, read from `--upstream`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upstream {
    /// The URL as given.
    pub url: String,
    /// Whether it is `https://`.
    pub tls: bool,
    /// The host name or address (brackets removed from an IPv6 address).
    pub host: String,
    /// The port (the scheme's default when the URL names none).
    pub port: u16,
    /// `host[:port]` as a `Host` field carries it (the port left out when it is the scheme's
    /// default).
    pub authority: String,
    /// The path (with query) of the MCP endpoint, `/` when the URL has none.
    pub path: String,
}

impl Upstream {
    /// Reads an `http://` or `https://` URL; the error says what is wrong and how to write it.
    pub fn parse(url: &str) -> Result<Upstream, String> {
        let (tls, rest) = if let Some(r) = url.strip_prefix("http://") {
            (false, r)
        } else if let Some(r) = url.strip_prefix("https://") {
            (true, r)
        } else {
            return Err(format!(
                "`{url}` is not an http:// or https:// URL (write it as http://HOST:PORT/PATH)"
            ));
        };
        let (authority, path) = match rest.find(['/', '?']) {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        if authority.contains('@') {
            return Err(format!(
                "`{url}` carries credentials in its authority; pass them as the client would (an Authorization header), the proxy forwards them untouched"
            ));
        }
        let default_port = if tls { 443 } else { 80 };
        let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
            let (h, after) = v6
                .split_once(']')
                .ok_or_else(|| format!("`{url}`: an IPv6 address without its closing `]`"))?;
            let port = match after.strip_prefix(':') {
                Some(p) => parse_port(url, p)?,
                None if after.is_empty() => default_port,
                None => return Err(format!("`{url}`: unexpected `{after}` after the address")),
            };
            (h.to_string(), port)
        } else {
            match authority.rsplit_once(':') {
                Some((h, p)) => (h.to_string(), parse_port(url, p)?),
                None => (authority.to_string(), default_port),
            }
        };
        if host.is_empty() {
            return Err(format!("`{url}` names no host"));
        }
        // The authority as written, without a default port written out.
        let authority = match authority.rsplit_once(':') {
            Some((h, p)) if !authority.ends_with(']') && p == default_port.to_string() => h,
            _ => authority,
        };
        Ok(Upstream {
            url: url.to_string(),
            tls,
            host,
            port,
            authority: authority.to_string(),
            path: path.to_string(),
        })
    }

    fn addrs(&self) -> io::Result<Vec<SocketAddr>> {
        Ok((self.host.as_str(), self.port).to_socket_addrs()?.collect())
    }
}

fn parse_port(url: &str, p: &str) -> Result<u16, String> {
    p.parse::<u16>()
        .map_err(|_| format!("`{url}`: the port `{p}` is not a number from 0 to 65535"))
}

/// TLS settings for `https://` upstreams.
#[derive(Clone)]
pub(crate) struct TlsSettings {
    #[cfg(feature = "tls")]
    config: std::sync::Arc<rustls::ClientConfig>,
}

impl TlsSettings {
    /// The webpki roots, and the certificates of `extra_ca` (PEM) when given.
    #[cfg(feature = "tls")]
    pub(crate) fn new(extra_ca: Option<&std::path::Path>) -> Result<TlsSettings, String> {
        use rustls::pki_types::CertificateDer;
        use rustls::pki_types::pem::PemObject;
        let mut roots = rustls::RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        };
        if let Some(path) = extra_ca {
            let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(path)
                .and_then(|it| it.collect::<Result<_, _>>())
                .map_err(|e| format!("cannot read certificates from {}: {e}", path.display()))?;
            if certs.is_empty() {
                return Err(format!(
                    "{} holds no PEM certificate (-----BEGIN CERTIFICATE-----)",
                    path.display()
                ));
            }
            for c in certs {
                roots
                    .add(c)
                    .map_err(|e| format!("a certificate in {}: {e}", path.display()))?;
            }
        }
        let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?
            .with_root_certificates(roots)
            .with_no_client_auth();
        // The relay speaks HTTP/1.1 on both sides.
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(TlsSettings {
            config: std::sync::Arc::new(config),
        })
    }

    #[cfg(not(feature = "tls"))]
    pub(crate) fn new(_extra_ca: Option<&std::path::Path>) -> Result<TlsSettings, String> {
        Err("this build has no TLS support (rebuild with `--features tls`)".into())
    }
}

/// An open connection to the upstream, as its two halves.
pub(crate) struct Connection {
    pub reader: Box<dyn Read + Send>,
    pub writer: Box<dyn UpWrite>,
}

/// The writing half: writes, and ends the connection.
pub(crate) trait UpWrite: Write + Send {
    /// Half-closes: no more bytes will be written.
    fn finish(&mut self);
    /// Closes both ways at once.
    fn abort(&mut self);
}

struct PlainWriter(TcpStream);

impl Write for PlainWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl UpWrite for PlainWriter {
    fn finish(&mut self) {
        let _ = self.0.shutdown(Shutdown::Write);
    }
    fn abort(&mut self) {
        let _ = self.0.shutdown(Shutdown::Both);
    }
}

/// Connects to the upstream (and shakes hands over TLS).
pub(crate) fn connect(up: &Upstream, tls: Option<&TlsSettings>) -> io::Result<Connection> {
    let mut last = io::Error::new(io::ErrorKind::NotFound, "the host name resolved to nothing");
    let mut sock = None;
    for addr in up.addrs()? {
        match TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT) {
            Ok(s) => {
                sock = Some(s);
                break;
            }
            Err(e) => last = e,
        }
    }
    let sock = sock.ok_or(last)?;
    sock.set_nodelay(true)?;
    if !up.tls {
        return Ok(Connection {
            reader: Box::new(sock.try_clone()?),
            writer: Box::new(PlainWriter(sock)),
        });
    }
    match tls {
        Some(t) => tls_connect(up, t, sock),
        None => Err(io::Error::other(
            "an https:// upstream needs TLS settings".to_string(),
        )),
    }
}

#[cfg(not(feature = "tls"))]
fn tls_connect(_: &Upstream, _: &TlsSettings, _: TcpStream) -> io::Result<Connection> {
    Err(io::Error::other("this build has no TLS support"))
}

#[cfg(feature = "tls")]
fn tls_connect(up: &Upstream, t: &TlsSettings, mut sock: TcpStream) -> io::Result<Connection> {
    use std::sync::{Arc, Mutex};
    let name = rustls::pki_types::ServerName::try_from(up.host.clone())
        .map_err(|e| io::Error::other(format!("`{}` is no TLS server name: {e}", up.host)))?;
    let mut conn =
        rustls::ClientConnection::new(t.config.clone(), name).map_err(io::Error::other)?;
    sock.set_read_timeout(Some(CONNECT_TIMEOUT))?;
    while conn.is_handshaking() {
        conn.complete_io(&mut sock)?;
    }
    sock.set_read_timeout(None)?;
    let shared = Arc::new(TlsShared {
        sock: sock.try_clone()?,
        conn: Mutex::new(conn),
    });
    Ok(Connection {
        reader: Box::new(TlsReader {
            shared: shared.clone(),
            sock,
            pending: Vec::new(),
            eof: false,
        }),
        writer: Box::new(TlsWriter { shared }),
    })
}

#[cfg(feature = "tls")]
struct TlsShared {
    sock: TcpStream,
    conn: std::sync::Mutex<rustls::ClientConnection>,
}

#[cfg(feature = "tls")]
impl TlsShared {
    fn lock(&self) -> std::sync::MutexGuard<'_, rustls::ClientConnection> {
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sends what rustls has to send (records, alerts), under the lock.
    fn flush_tls(&self, conn: &mut rustls::ClientConnection) -> io::Result<()> {
        let mut sock = &self.sock;
        while conn.wants_write() {
            conn.write_tls(&mut sock)?;
        }
        Ok(())
    }
}

#[cfg(feature = "tls")]
struct TlsReader {
    shared: std::sync::Arc<TlsShared>,
    sock: TcpStream,
    /// Bytes read off the socket that rustls could not take yet.
    pending: Vec<u8>,
    eof: bool,
}

#[cfg(feature = "tls")]
impl Read for TlsReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            {
                let mut conn = self.shared.lock();
                // Hand rustls what is pending, as much as it takes.
                let mut slice = &self.pending[..];
                while !slice.is_empty() {
                    match conn.read_tls(&mut slice) {
                        Ok(0) => break,
                        Ok(_) => {}
                        Err(_) => break,
                    }
                    conn.process_new_packets().map_err(io::Error::other)?;
                }
                let used = self.pending.len() - slice.len();
                self.pending.drain(..used);
                self.shared.flush_tls(&mut conn)?;
                match conn.reader().read(buf) {
                    Ok(n) => return Ok(n),
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                    Err(e) => return Err(e),
                }
                if self.eof {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "the upstream closed the TLS connection without close_notify",
                    ));
                }
            }
            // Nothing to hand out: read the socket, without the lock.
            let mut raw = [0u8; 16 * 1024];
            let n = self.sock.read(&mut raw)?;
            if n == 0 {
                self.eof = true;
                let mut conn = self.shared.lock();
                let _ = conn.read_tls(&mut &[][..]);
                let _ = conn.process_new_packets();
            }
            self.pending.extend_from_slice(&raw[..n]);
        }
    }
}

#[cfg(feature = "tls")]
struct TlsWriter {
    shared: std::sync::Arc<TlsShared>,
}

#[cfg(feature = "tls")]
impl Write for TlsWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut conn = self.shared.lock();
        conn.writer().write_all(buf)?;
        self.shared.flush_tls(&mut conn)?;
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(feature = "tls")]
impl UpWrite for TlsWriter {
    fn finish(&mut self) {
        let mut conn = self.shared.lock();
        conn.send_close_notify();
        let _ = self.shared.flush_tls(&mut conn);
    }
    fn abort(&mut self) {
        let _ = self.shared.sock.shutdown(Shutdown::Both);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_read_with_their_authority_and_path() {
        let u = Upstream::parse("http://127.0.0.1:3000/mcp").unwrap();
        assert_eq!(
            (
                u.host.as_str(),
                u.port,
                u.authority.as_str(),
                u.path.as_str()
            ),
            ("127.0.0.1", 3000, "127.0.0.1:3000", "/mcp")
        );
        let u = Upstream::parse("https://example.org").unwrap();
        assert_eq!(
            (u.tls, u.port, u.authority.as_str(), u.path.as_str()),
            (true, 443, "example.org", "/")
        );
        let u = Upstream::parse("https://example.org:443/a?b=1").unwrap();
        assert_eq!(
            (u.authority.as_str(), u.path.as_str()),
            ("example.org", "/a?b=1")
        );
        let u = Upstream::parse("http://[::1]:8080/mcp").unwrap();
        assert_eq!(
            (u.host.as_str(), u.authority.as_str()),
            ("::1", "[::1]:8080")
        );
        for bad in [
            "ftp://x",
            "http://:80/",
            "http://h:99999/",
            "http://u:p@h/",
            "http://[::1/",
        ] {
            assert!(Upstream::parse(bad).is_err(), "{bad}");
        }
    }
}
