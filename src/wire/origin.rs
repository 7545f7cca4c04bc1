//! Web origins (RFC 6454): the `Origin` header a request carries and the origin of the endpoint
//! URL it was sent to, compared as scheme, host and port, or by host alone.
//!
//! An exchange records both without a field of its own: the `Origin` request header, and
//! `request.url`, whose scheme, host and port are the endpoint's origin.

use std::fmt;

/// A tuple origin: scheme, host and port, with the scheme's default port filled in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebOrigin {
    scheme: String,
    host: String,
    port: Option<u16>,
}

impl WebOrigin {
    /// The origin of a URL (`scheme://[userinfo@]host[:port][/path][?query][#fragment]`);
    /// `None` when it is not an absolute URL with a host.
    pub fn of_url(url: &str) -> Option<WebOrigin> {
        let (scheme, rest) = url.trim().split_once("://")?;
        let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
        let host_port = authority.rsplit_once('@').map_or(authority, |(_, hp)| hp);
        WebOrigin::from_parts(scheme, host_port)
    }

    /// Parses an `Origin` header value (`scheme://host[:port]`, RFC 6454 §7). `None` for
    /// `null` (an opaque origin) and for anything that is not a serialised origin.
    pub fn of_header(value: &str) -> Option<WebOrigin> {
        let (scheme, host_port) = value.trim().split_once("://")?;
        if host_port.contains(['/', '?', '#', '@']) {
            return None;
        }
        WebOrigin::from_parts(scheme, host_port)
    }

    fn from_parts(scheme: &str, host_port: &str) -> Option<WebOrigin> {
        let valid_scheme = scheme
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
        if !valid_scheme {
            return None;
        }
        let scheme = scheme.to_ascii_lowercase();
        // An IPv6 literal is bracketed; its colons are not a port separator.
        let (host, port) = if let Some(rest) = host_port.strip_prefix('[') {
            let (inside, after) = rest.split_once(']')?;
            let port = match after {
                "" => None,
                p => Some(p.strip_prefix(':')?),
            };
            (format!("[{}]", inside.to_ascii_lowercase()), port)
        } else {
            match host_port.rsplit_once(':') {
                Some((h, p)) => (h.to_ascii_lowercase(), Some(p)),
                None => (host_port.to_ascii_lowercase(), None),
            }
        };
        if host.is_empty() || host.contains(char::is_whitespace) {
            return None;
        }
        let port = match port {
            None | Some("") => default_port(&scheme),
            Some(p) => Some(p.parse::<u16>().ok()?),
        };
        Some(WebOrigin { scheme, host, port })
    }
}

impl WebOrigin {
    /// Whether two origins name the same host, whatever their schemes and ports: the same name,
    /// or both the local machine (`localhost`, a name under `.localhost`, `127.0.0.0/8`,
    /// `[::1]`). DNS rebinding reaches a server through a foreign host name resolving to its
    /// address; a page on another port of the same host (a local tool's web client) is not that.
    pub fn same_host(&self, other: &WebOrigin) -> bool {
        self.host == other.host || (self.is_loopback() && other.is_loopback())
    }

    fn is_loopback(&self) -> bool {
        let h = self.host.as_str();
        h == "localhost"
            || h.ends_with(".localhost")
            || h == "[::1]"
            || h.parse::<std::net::Ipv4Addr>()
                .is_ok_and(|ip| ip.is_loopback())
    }
}

fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" | "ws" => Some(80),
        "https" | "wss" => Some(443),
        _ => None,
    }
}

impl fmt::Display for WebOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}://{}", self.scheme, self.host)?;
        match self.port {
            Some(p) if Some(p) != default_port(&self.scheme) => write!(f, ":{p}"),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::WebOrigin;

    #[test]
    fn urls_and_headers_compare_by_scheme_host_and_port() {
        let endpoint = WebOrigin::of_url("http://127.0.0.1:8931/mcp?x=1").unwrap();
        assert_eq!(
            WebOrigin::of_header("http://127.0.0.1:8931"),
            Some(endpoint.clone())
        );
        assert_ne!(
            WebOrigin::of_header("http://localhost:8931"),
            Some(endpoint.clone())
        );
        assert_ne!(
            WebOrigin::of_header("https://127.0.0.1:8931"),
            Some(endpoint)
        );
        // Default ports and case do not matter.
        assert_eq!(
            WebOrigin::of_url("HTTPS://Example.COM/mcp"),
            WebOrigin::of_header("https://example.com:443")
        );
        assert_eq!(
            WebOrigin::of_url("http://user:pw@[::1]:80/mcp"),
            WebOrigin::of_header("http://[::1]")
        );
        assert_eq!(
            WebOrigin::of_url("http://[::1]:3000/").unwrap().to_string(),
            "http://[::1]:3000"
        );
    }

    #[test]
    fn same_host_ignores_scheme_and_port_and_joins_loopback_names() {
        let endpoint = WebOrigin::of_url("http://localhost:3001/mcp").unwrap();
        for same in [
            "http://localhost:6274",
            "https://LOCALHOST",
            "http://127.0.0.1:6274",
            "http://127.8.0.1",
            "http://[::1]:6274",
            "http://app.localhost:5173",
        ] {
            assert!(
                WebOrigin::of_header(same).unwrap().same_host(&endpoint),
                "{same}"
            );
        }
        for foreign in [
            "http://evil.example:3001",
            "http://localhost.evil.example",
            "http://10.0.0.1",
        ] {
            assert!(
                !WebOrigin::of_header(foreign).unwrap().same_host(&endpoint),
                "{foreign}"
            );
        }
        let remote = WebOrigin::of_url("https://mcp.example.com/mcp").unwrap();
        assert!(
            WebOrigin::of_header("http://mcp.example.com:8080")
                .unwrap()
                .same_host(&remote)
        );
        assert!(
            !WebOrigin::of_header("https://example.com")
                .unwrap()
                .same_host(&remote)
        );
    }

    #[test]
    fn opaque_and_malformed_origins_are_none() {
        for bad in [
            "null",
            "",
            "example.com",
            "http://",
            "http://a.example/path",
            "http://a.example:port",
            "http://a.example:99999",
            "1http://a.example",
            "http://[::1",
        ] {
            assert_eq!(WebOrigin::of_header(bad), None, "{bad}");
        }
        assert_eq!(WebOrigin::of_url("/mcp"), None);
    }
}
