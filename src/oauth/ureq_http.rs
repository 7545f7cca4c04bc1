//! [`Http`] over a `ureq` agent: no redirect followed, statuses returned as they are, bodies
//! read up to the request's limit (one byte more is an error naming the limit).

use std::io::Read;
use std::time::Duration;

use super::http::{Http, HttpError, HttpRequest, HttpResponse};
use crate::wire::exchange::Headers;

/// A blocking HTTP client for the flow.
pub struct UreqHttp {
    agent: ureq::Agent,
}

impl UreqHttp {
    /// An agent with the given connect and total timeouts; proxies from the environment,
    /// except for loopback hosts.
    pub fn new(user_agent: &str, connect: Duration, total: Duration) -> UreqHttp {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .user_agent(user_agent)
            .timeout_connect(Some(connect))
            .timeout_global(Some(total))
            // A connection per request, as the probe's own client: a server that closes after
            // answering must not turn the next request into a reset.
            .max_idle_connections(0)
            .max_idle_connections_per_host(0)
            .build()
            .new_agent();
        UreqHttp { agent }
    }
}

impl Http for UreqHttp {
    fn send(&self, r: &HttpRequest) -> Result<HttpResponse, HttpError> {
        let mut req = ureq::http::Request::builder()
            .method(r.method)
            .uri(r.url.as_str());
        for (n, v) in &r.headers {
            req = req.header(n.as_str(), v.as_str());
        }
        let fail = |e: &dyn std::fmt::Display| HttpError(e.to_string());
        let result = match &r.body {
            Some(b) => self.agent.run(req.body(b.clone()).map_err(|e| fail(&e))?),
            None => self.agent.run(req.body(()).map_err(|e| fail(&e))?),
        };
        let response = result.map_err(|e| fail(&e))?;
        let (parts, body) = response.into_parts();
        let mut headers = Headers::default();
        for (n, v) in &parts.headers {
            headers.push(n.as_str(), String::from_utf8_lossy(v.as_bytes()));
        }
        let mut bytes = Vec::new();
        body.into_reader()
            .take(r.max_body as u64 + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| fail(&e))?;
        if bytes.len() > r.max_body {
            return Err(HttpError(format!(
                "the answer is larger than {} bytes: refused",
                r.max_body
            )));
        }
        Ok(HttpResponse {
            status: parts.status.as_u16(),
            headers,
            body: bytes,
        })
    }
}
