//! One `tools/call` and its follow-ups: the request (with `_meta.progressToken` and, under
//! 2026-07-28, the `Mcp-Param-*` headers), the exchange as received (secret header values
//! redacted) and its judgement, the `input_required` follow-up rounds and the answers to
//! server requests on a 2025-11-25 call's stream, both taken from `--answers` (which also
//! decides the client capabilities declared).

use serde_json::{Map, Value, json};

use super::answers::answer_for;
use super::http::Received;
use super::plan::{self, PlannedCall};
use super::report::CallExchange;
use super::runner::Runner;
use super::{CLIENT_NAME, headers};
use crate::judge::{Options, judge};
use crate::views::diag::REDACTED;
use crate::vocab::protocol::meta::PROGRESS_TOKEN;
use crate::vocab::{Outcome, Protocol};
use crate::wire::exchange::{Exchange, Headers, RecordedRequest};

/// The revisions a call's exchange is judged under: the run's own only.
fn single(p: Protocol) -> &'static [Protocol] {
    match p {
        Protocol::V2025_11_25 => &[Protocol::V2025_11_25],
        Protocol::V2026_07_28 => &[Protocol::V2026_07_28],
    }
}

impl Runner<'_> {
    pub(super) fn calls(&mut self) {
        for call in plan::planned_calls(self.cfg, &self.run.tools) {
            self.call(&call);
            if self.run.unreachable.is_some() {
                return;
            }
        }
    }

    fn call(&mut self, call: &PlannedCall) {
        let label = call.label();
        let tool_def = self
            .run
            .tools
            .iter()
            .find(|t| t.get("name").and_then(Value::as_str) == Some(call.name.as_str()))
            .cloned();
        let mut params = Map::new();
        params.insert("name".into(), json!(call.name));
        if let Some(a) = &call.arguments {
            params.insert("arguments".into(), a.clone());
        }
        let mut call_statuses: Vec<u16> = Vec::new();
        let mut call_posts = 0u32;
        let mut round = 1u32;
        loop {
            let id = self.id();
            let mut p = params.clone();
            let mut meta = match self.p {
                Protocol::V2026_07_28 => self.meta(),
                Protocol::V2025_11_25 => json!({}),
            };
            // Ask for progress, so that servers may stream notifications/progress.
            meta[PROGRESS_TOKEN] = json!(format!("{CLIENT_NAME}-{id}"));
            p.insert("_meta".into(), meta);
            let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": p});
            let mut headers = self.headers("tools/call", Some(&call.name));
            if self.p == Protocol::V2026_07_28 {
                headers.extend(headers::param_headers(
                    tool_def.as_ref().and_then(|t| t.get("inputSchema")),
                    call.arguments.as_ref(),
                ));
            }
            let before = self.run.post_count();
            let mut answered = Vec::new();
            let res = self.send(&body, &headers, Some(&call.name), &mut answered);
            call_posts += self.run.post_count() - before;
            for s in
                &self.run.steps[self.run.steps.len() - (self.run.post_count() - before) as usize..]
            {
                if let Some(st) = s.status {
                    call_statuses.push(st);
                }
            }
            let r = match res {
                Ok(r) => r,
                Err(e) => {
                    self.run.failures.push((label.clone(), e.to_string()));
                    return;
                }
            };
            let exchange = self.exchange_of(&label, round, &headers, &body, &r, tool_def.clone());
            let judgement = judge(
                &exchange,
                &Options {
                    protocols: Some(single(self.p)),
                    ..Options::default()
                },
            )
            .expect("the revision is given explicitly");
            let outcome = judgement.verdicts[0].outcome;
            let mut x = CallExchange {
                label: label.clone(),
                call: call.clone(),
                round,
                exchange,
                judgement,
                steps_so_far: self.run.steps.len(),
                call_posts,
                call_statuses: call_statuses.clone(),
                end_note: r.end_note.clone(),
                server_requests: answered,
                follow_up: None,
                unanswered: super::runner::unanswered(&r),
            };
            let next = if self.p == Protocol::V2026_07_28 && outcome == Outcome::InputRequired {
                match self.follow_up(&r, round) {
                    Ok(extra) => Some(extra),
                    Err(why) => {
                        x.follow_up = Some(why);
                        None
                    }
                }
            } else {
                None
            };
            self.run.exchanges.push(x);
            let Some(extra) = next else { return };
            params.remove("inputResponses");
            params.remove("requestState");
            params.extend(extra);
            round += 1;
        }
    }

    /// The members a follow-up request adds (`inputResponses`, `requestState`), or why none
    /// is sent.
    fn follow_up(&self, r: &Received, round: u32) -> Result<Map<String, Value>, String> {
        let result = r
            .final_message
            .as_ref()
            .and_then(|m| m.get("result"))
            .ok_or_else(|| "the input_required result could not be read".to_string())?;
        if round >= self.cfg.max_rounds {
            return Err(format!(
                "not followed up: --max-rounds {} reached",
                self.cfg.max_rounds
            ));
        }
        let requests = result.get("inputRequests").and_then(Value::as_object);
        let state = result.get("requestState");
        let mut extra = Map::new();
        if let Some(reqs) = requests {
            let mut responses = Map::new();
            let mut missing = Vec::new();
            for (key, req) in reqs {
                let method = req.get("method").and_then(Value::as_str);
                match answer_for(&self.cfg.answers, key, method) {
                    Some(a) => {
                        responses.insert(key.clone(), a.clone());
                    }
                    None => missing.push(format!("`{key}` ({})", method.unwrap_or("?"))),
                }
            }
            if !missing.is_empty() {
                return Err(format!(
                    "not followed up: no answer for input request {} (pass --answers FILE mapping the key or method to a response)",
                    missing.join(", ")
                ));
            }
            extra.insert("inputResponses".into(), Value::Object(responses));
        }
        match state {
            Some(s) => {
                extra.insert("requestState".into(), s.clone());
            }
            None if requests.is_none() => {
                return Err(
                    "not followed up: the result has neither inputRequests nor requestState".into(),
                );
            }
            None => {}
        }
        Ok(extra)
    }

    fn exchange_of(
        &self,
        label: &str,
        round: u32,
        sent: &[(String, String)],
        body: &Value,
        r: &Received,
        tool: Option<Value>,
    ) -> Exchange {
        let name = if round > 1 {
            format!("probe {} {label} round {round}", self.p)
        } else {
            format!("probe {} {label}", self.p)
        };
        Exchange {
            name: Some(name),
            request: RecordedRequest {
                method: Some("POST".into()),
                url: Some(self.url.to_string()),
                headers: Headers::new(redact_headers(
                    sent.iter().map(|(n, v)| (n.as_str(), v.as_str())),
                )),
                body: Some(body.clone()),
            },
            status: r.status,
            response_headers: Headers::new(redact_headers(r.headers.iter())),
            body: r.body.clone(),
            end: r.end,
            tool,
            initialize: self.negotiated.clone(),
            protocol: Some(vec![self.p]),
        }
    }
}

/// Whether a header carries a secret: `Authorization`, `Proxy-Authorization`, `Cookie`,
/// `Set-Cookie`, `*-Api-Key`, anything with `token`, `secret` or `session-id` in its name.
fn is_secret_header(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n == "authorization"
        || n == "proxy-authorization"
        || n == "cookie"
        || n == "set-cookie"
        || n == "api-key"
        || n.ends_with("-api-key")
        || n.contains("token")
        || n.contains("secret")
        || n.contains("session-id")
}

/// Header fields with secret values replaced by `[REDACTED]`.
fn redact_headers<'a, I>(headers: I) -> Vec<(String, String)>
where
    I: IntoIterator<Item = (&'a str, &'a str)>,
{
    headers
        .into_iter()
        .map(|(n, v)| {
            let v = if is_secret_header(n) {
                REDACTED.to_string()
            } else {
                v.to_string()
            };
            (n.to_string(), v)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_headers_are_redacted() {
        let h = redact_headers([
            ("Authorization", "Bearer abc"),
            ("X-Api-Key", "k"),
            ("X-Auth-Token", "t"),
            ("Mcp-Session-Id", "s"),
            ("Set-Cookie", "a=b"),
            ("Accept", "application/json"),
        ]);
        let values: Vec<&str> = h.iter().map(|(_, v)| v.as_str()).collect();
        assert_eq!(
            values,
            [
                REDACTED,
                REDACTED,
                REDACTED,
                REDACTED,
                REDACTED,
                "application/json"
            ]
        );
    }
}
