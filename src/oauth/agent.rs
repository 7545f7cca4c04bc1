//! The user-agent step of the authorization code grant: the authorization URL is visited and
//! the redirect back to the client's redirect URI is caught, either by following the
//! authorization endpoint's redirects without a browser (for servers that authorize without a
//! person, as test servers do) or by opening the system browser and listening on a loopback
//! redirect URI (RFC 8252 §7.3) for the callback.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::time::{Duration, Instant};

use super::OAuthError;
use super::http::{HttpRequest, StepKind};
use super::{OAuthClient, UserAgent};
use crate::vocab::auth::header;

/// How many redirects the follower takes before giving up.
const MAX_REDIRECTS: usize = 10;

/// The query parameters of the redirect back to the client.
pub type Callback = Vec<(String, String)>;

/// A bound loopback listener for the browser's redirect.
pub struct Listener {
    socket: TcpListener,
    /// `http://127.0.0.1:PORT/callback`.
    pub redirect_uri: String,
}

impl Listener {
    /// Binds `127.0.0.1` on a free port.
    pub fn bind() -> Result<Listener, OAuthError> {
        let socket = TcpListener::bind("127.0.0.1:0")
            .map_err(|e| OAuthError::Http(format!("cannot listen for the redirect: {e}")))?;
        let port = socket
            .local_addr()
            .map_err(|e| OAuthError::Http(e.to_string()))?
            .port();
        Ok(Listener {
            socket,
            redirect_uri: format!("http://127.0.0.1:{port}/callback"),
        })
    }

    /// Waits for the browser's GET of the redirect URI and answers it with a short page.
    fn wait(&self, timeout: Duration) -> Result<Callback, OAuthError> {
        let deadline = Instant::now() + timeout;
        self.socket
            .set_nonblocking(true)
            .map_err(|e| OAuthError::Http(e.to_string()))?;
        loop {
            match self.socket.accept() {
                Ok((stream, _)) => {
                    stream
                        .set_nonblocking(false)
                        .and_then(|()| stream.set_read_timeout(Some(Duration::from_secs(10))))
                        .map_err(|e| OAuthError::Http(e.to_string()))?;
                    let mut line = String::new();
                    let mut reader = BufReader::new(&stream);
                    if reader.read_line(&mut line).is_err() {
                        continue;
                    }
                    let target = line.split(' ').nth(1).unwrap_or("");
                    let Some(query) = target
                        .strip_prefix("/callback")
                        .filter(|r| r.is_empty() || r.starts_with('?'))
                    else {
                        let _ = (&stream).write_all(
                            b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                        );
                        continue;
                    };
                    let page = "<!doctype html><title>mcp-verdict</title><p>Authorization received; you can close this tab.</p>";
                    let _ = (&stream).write_all(
                        format!(
                            "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
                            page.len()
                        )
                        .as_bytes(),
                    );
                    return Ok(url::form_urlencoded::parse(
                        query.trim_start_matches('?').as_bytes(),
                    )
                    .into_owned()
                    .collect());
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    if Instant::now() >= deadline {
                        return Err(OAuthError::Unsupported(format!(
                            "no redirect arrived at {} within {}s",
                            self.redirect_uri,
                            timeout.as_secs()
                        )));
                    }
                    std::thread::sleep(Duration::from_millis(50));
                }
                Err(e) => return Err(OAuthError::Http(e.to_string())),
            }
        }
    }
}

/// Opens a URL in the system browser.
fn open_browser(url: &str) -> std::io::Result<()> {
    let mut cmd = if cfg!(target_os = "macos") {
        std::process::Command::new("open")
    } else if cfg!(windows) {
        let mut c = std::process::Command::new("cmd");
        c.args(["/C", "start", ""]);
        c
    } else {
        std::process::Command::new("xdg-open")
    };
    cmd.arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map(drop)
}

/// Whether `url` is the redirect URI (scheme, host, port and path; the query is the answer).
fn is_redirect(url: &url::Url, redirect_uri: &url::Url) -> bool {
    url.scheme() == redirect_uri.scheme()
        && url.host_str() == redirect_uri.host_str()
        && url.port_or_known_default() == redirect_uri.port_or_known_default()
        && url.path() == redirect_uri.path()
}

impl OAuthClient {
    /// Visits the authorization URL and returns the redirect's query parameters.
    pub(super) fn visit(
        &mut self,
        authorization_url: &str,
        redirect_uri: &str,
        listener: Option<&Listener>,
    ) -> Result<Callback, OAuthError> {
        match (self.config.user_agent, listener) {
            (UserAgent::Browser, Some(l)) => {
                eprintln!(
                    "opening the browser to authorize (or visit the URL yourself): {authorization_url}"
                );
                if let Err(e) = open_browser(authorization_url) {
                    eprintln!("could not open a browser ({e}); visit the URL above");
                }
                l.wait(self.config.browser_timeout)
            }
            _ => self.follow(authorization_url, redirect_uri),
        }
    }

    /// Follows the authorization endpoint's redirects (same origin only) until one points at
    /// the redirect URI.
    fn follow(&mut self, start: &str, redirect_uri: &str) -> Result<Callback, OAuthError> {
        let target = url::Url::parse(redirect_uri)
            .map_err(|e| OAuthError::Invalid(format!("redirect URI `{redirect_uri}`: {e}")))?;
        let first = url::Url::parse(start)
            .map_err(|e| OAuthError::Invalid(format!("authorization URL: {e}")))?;
        let mut current = first.clone();
        for _ in 0..MAX_REDIRECTS {
            if is_redirect(&current, &target) {
                return Ok(current.query_pairs().into_owned().collect());
            }
            if current.origin() != first.origin() {
                return Err(OAuthError::Refused(format!(
                    "the authorization endpoint redirected to another host ({}); only its own pages and the redirect URI are followed without a browser",
                    current.origin().ascii_serialization()
                )));
            }
            self.guard
                .check(current.as_str(), "the authorization endpoint")
                .map_err(OAuthError::Refused)?;
            let request = HttpRequest {
                method: "GET",
                url: current.to_string(),
                headers: vec![("Accept".into(), "text/html".into())],
                body: None,
                max_body: super::MAX_DOCUMENT,
            };
            let response = self.send(StepKind::Authorization, &request)?;
            let location = response
                .headers
                .get(header::LOCATION)
                .filter(|_| (300..400).contains(&response.status))
                .map(str::to_string);
            let Some(location) = location else {
                self.log(
                    StepKind::Authorization,
                    &request,
                    Ok(&response),
                    "no redirect",
                );
                return Err(OAuthError::Unsupported(format!(
                    "the authorization endpoint answered HTTP {} without redirecting: it wants a person; authorize with a browser instead",
                    response.status
                )));
            };
            self.log(
                StepKind::Authorization,
                &request,
                Ok(&response),
                "redirected",
            );
            current = current
                .join(&location)
                .map_err(|e| OAuthError::Invalid(format!("redirect `{location}`: {e}")))?;
        }
        Err(OAuthError::Refused(format!(
            "more than {MAX_REDIRECTS} redirects from the authorization endpoint"
        )))
    }
}
