//! What keeps a hostile server from turning the client into its tool: every URL a server hands
//! the flow (a metadata location, an endpoint, a redirect) is checked before it is fetched.
//!
//! - Authorization server endpoints use `https` (2026-07-28 security considerations,
//!   "Communication Security"); plain `http` is accepted for loopback hosts only, as a server
//!   under test on this machine uses.
//! - An address class is never more internal than the MCP server's own: a server on a public
//!   address may not send the client to loopback, private (RFC 1918, unique local) or
//!   link-local addresses (cloud metadata services live there); a loopback server (a test
//!   server, the conformance suite) may name loopback and public addresses. Host names are
//!   resolved and every address they resolve to is checked.

use std::net::{IpAddr, ToSocketAddrs};

use crate::wire::auth::split_url;

/// How internal an address is, least first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Reach {
    /// A public address.
    Public,
    /// A private network (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7).
    Private,
    /// This machine (127/8, ::1, `localhost`).
    Loopback,
    /// Link-local (169.254/16, fe80::/10) or unspecified: never a place to send a request to.
    LinkLocal,
}

impl Reach {
    /// The class of one address.
    pub fn of_ip(ip: IpAddr) -> Reach {
        let ip = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
            v4 => v4,
        };
        match ip {
            IpAddr::V4(v4) => {
                let o = v4.octets();
                if v4.is_loopback() {
                    Reach::Loopback
                } else if v4.is_link_local() || v4.is_unspecified() || v4.is_broadcast() {
                    Reach::LinkLocal
                } else if v4.is_private() || (o[0] == 100 && (o[1] & 0xc0) == 64) {
                    Reach::Private
                } else {
                    Reach::Public
                }
            }
            IpAddr::V6(v6) => {
                let first = v6.segments()[0];
                if v6.is_loopback() {
                    Reach::Loopback
                } else if v6.is_unspecified() || (first & 0xffc0) == 0xfe80 {
                    Reach::LinkLocal
                } else if (first & 0xfe00) == 0xfc00 {
                    Reach::Private
                } else {
                    Reach::Public
                }
            }
        }
    }

    /// The most internal class the host of `url` resolves to.
    pub fn of_url(url: &str) -> Result<Reach, String> {
        let host = host_of(url).ok_or_else(|| format!("`{url}` is not an absolute http(s) URL"))?;
        if host.eq_ignore_ascii_case("localhost")
            || host.to_ascii_lowercase().ends_with(".localhost")
        {
            return Ok(Reach::Loopback);
        }
        if let Ok(ip) = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<IpAddr>()
        {
            return Ok(Reach::of_ip(ip));
        }
        let addrs = (host.as_str(), 443)
            .to_socket_addrs()
            .map_err(|e| format!("cannot resolve `{host}`: {e}"))?;
        addrs
            .map(|a| Reach::of_ip(a.ip()))
            .max()
            .ok_or_else(|| format!("`{host}` resolves to no address"))
    }
}

/// The host of an absolute URL (brackets kept for IPv6 literals).
pub fn host_of(url: &str) -> Option<String> {
    let parts = split_url(url)?;
    let authority = parts.origin.split_once("://")?.1;
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, hp)| hp);
    let host = if host_port.starts_with('[') {
        host_port.split_once(']').map(|(h, _)| format!("{h}]"))?
    } else {
        host_port.split(':').next()?.to_string()
    };
    (!host.is_empty()).then_some(host)
}

/// Checks URLs a server hands the flow against the reach of the MCP server itself.
#[derive(Clone, Copy, Debug)]
pub struct Guard {
    /// The MCP server's own class.
    server: Reach,
}

impl Guard {
    /// A guard for the MCP server at `endpoint`.
    pub fn for_server(endpoint: &str) -> Result<Guard, String> {
        Ok(Guard {
            server: Reach::of_url(endpoint)?,
        })
    }

    /// A guard as if the server were at a given class (tests).
    pub fn at(server: Reach) -> Guard {
        Guard { server }
    }

    /// Whether the flow may send a request to `url`, which `what` names (for the refusal).
    pub fn check(&self, url: &str, what: &str) -> Result<(), String> {
        let scheme = url.split_once("://").map(|(s, _)| s.to_ascii_lowercase());
        let reach = Reach::of_url(url).map_err(|e| format!("{what}: {e}"))?;
        match scheme.as_deref() {
            Some("https") => {}
            Some("http") if reach == Reach::Loopback => {}
            Some("http") => {
                return Err(format!(
                    "{what} `{url}` is plain http on a host that is not this machine; authorization endpoints must use https"
                ));
            }
            _ => return Err(format!("{what} `{url}` is not an http(s) URL")),
        }
        let allowed = match self.server {
            Reach::Public => reach == Reach::Public,
            Reach::Private => matches!(reach, Reach::Public | Reach::Private),
            Reach::Loopback => reach != Reach::LinkLocal,
            Reach::LinkLocal => true,
        };
        if allowed {
            Ok(())
        } else {
            Err(format!(
                "{what} `{url}` points at a {} address while the MCP server is on a {} one: refused, so that a server cannot send this client into a network it should not reach",
                reach.label(),
                self.server.label()
            ))
        }
    }
}

impl Reach {
    fn label(self) -> &'static str {
        match self {
            Reach::Public => "public",
            Reach::Private => "private",
            Reach::Loopback => "loopback",
            Reach::LinkLocal => "link-local",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_classed() {
        for (ip, reach) in [
            ("127.0.0.1", Reach::Loopback),
            ("::1", Reach::Loopback),
            ("10.1.2.3", Reach::Private),
            ("172.20.0.1", Reach::Private),
            ("192.168.1.1", Reach::Private),
            ("100.64.0.1", Reach::Private),
            ("fd00::1", Reach::Private),
            ("169.254.169.254", Reach::LinkLocal),
            ("fe80::1", Reach::LinkLocal),
            ("0.0.0.0", Reach::LinkLocal),
            ("::ffff:169.254.169.254", Reach::LinkLocal),
            ("93.184.216.34", Reach::Public),
            ("2606:4700::1111", Reach::Public),
        ] {
            assert_eq!(Reach::of_ip(ip.parse().unwrap()), reach, "{ip}");
        }
    }

    #[test]
    fn a_public_server_cannot_send_the_client_inward() {
        let g = Guard::at(Reach::Public);
        assert!(g.check("https://93.184.216.34/token", "x").is_ok());
        for url in [
            "https://127.0.0.1/token",
            "https://10.0.0.5/.well-known/oauth-authorization-server",
            "https://169.254.169.254/latest/meta-data",
            "https://[fe80::1]/x",
            "https://localhost:8443/x",
        ] {
            let e = g.check(url, "the token endpoint").unwrap_err();
            assert!(e.contains("refused"), "{e}");
        }
        assert!(
            g.check("http://93.184.216.34/token", "x")
                .unwrap_err()
                .contains("https")
        );
        assert!(g.check("ftp://93.184.216.34/x", "x").is_err());
    }

    #[test]
    fn a_loopback_server_may_name_loopback_but_not_link_local() {
        let g = Guard::at(Reach::Loopback);
        assert!(g.check("http://localhost:3000/token", "x").is_ok());
        assert!(g.check("http://127.0.0.1:3000/token", "x").is_ok());
        assert!(g.check("https://169.254.169.254/x", "x").is_err());
    }
}
