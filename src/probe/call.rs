//! One `tools/call` and its follow-ups: the request (with `_meta.progressToken`), the exchange
//! as received and its judgement (the exchange kept with secret header values redacted), the
//! `input_required` follow-up rounds and the answers to server requests on a 2025-11-25
//! call's stream, both taken from `--answers` (which also decides the client capabilities
//! declared).

use serde_json::{Map, Value, json};

use super::answers::answer_for;
use super::config::CLIENT_NAME;
use super::plan::{self, PlannedCall};
use super::report::{CallExchange, SetupExchange};
use super::runner::Runner;
use super::transport::Inbound;
use crate::judge::{Options, judge};
use crate::views::redact;
use crate::vocab::protocol::meta::PROGRESS_TOKEN;
use crate::vocab::{Outcome, Protocol};
use crate::wire::exchange::Exchange;

impl Runner<'_> {
    pub(super) fn calls(&mut self) {
        let rejected = |t: &Value| {
            let name = t.get("name").and_then(Value::as_str).unwrap_or("?");
            self.run.rejected_tools.iter().any(|(n, _)| n == name)
        };
        let usable: Vec<Value> = self
            .run
            .tools
            .iter()
            .filter(|t| !rejected(t))
            .cloned()
            .collect();
        for call in plan::planned_calls(self.cfg, &usable) {
            if let Some((_, why)) = self
                .run
                .rejected_tools
                .iter()
                .find(|(n, _)| *n == call.name)
            {
                let why = format!("not called: the tool definition was rejected ({why})");
                self.run.failures.push((call.label(), why));
                continue;
            }
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
            self.drain_listener();
            let first = self.run.steps.len();
            let mut answered = Vec::new();
            let res = self.send(&body, tool_def.as_ref(), &mut answered);
            for s in &self.run.steps[first..] {
                if s.post.is_some() {
                    call_posts += 1;
                    if let Some(st) = s.status {
                        call_statuses.push(st);
                    }
                }
            }
            let r = match res {
                Ok(r) => r,
                Err(e) => {
                    self.run.failures.push((label.clone(), e.to_string()));
                    return;
                }
            };
            let mut exchange = self.exchange_of(&label, round, &r, tool_def.clone());
            let judgement = judge(
                &exchange,
                &Options {
                    protocols: Some(self.p.only()),
                    ..Options::default()
                },
            )
            .expect("the revision is given explicitly");
            // Judged as received; kept (and so recorded and shown) with secrets redacted.
            redact::exchange_headers(&mut exchange);
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
                unanswered: r.unanswered.clone(),
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
    fn follow_up(&self, r: &Inbound, round: u32) -> Result<Map<String, Value>, String> {
        let result = r
            .response
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
                        responses.insert(
                            key.clone(),
                            super::answers::with_defaults(a, method, req.get("params")),
                        );
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

    /// Judges a setup request and its answer (`initialize`, `server/discover`, `tools/list`)
    /// under the run's revision and keeps it, secrets redacted, in the run's discovery list.
    pub(super) fn judge_setup(&mut self, label: &str, r: &Inbound) {
        let mut exchange = self.exchange_of(label, 1, r, None);
        let Ok(judgement) = judge(
            &exchange,
            &Options {
                protocols: Some(self.p.only()),
                ..Options::default()
            },
        ) else {
            return;
        };
        redact::exchange_headers(&mut exchange);
        self.run.discovery.push(SetupExchange {
            label: label.to_string(),
            exchange,
            judgement,
        });
    }

    /// The exchange as it went over the wire, with what the run knows beside it: its name,
    /// the tool's definition and what `initialize` negotiated.
    fn exchange_of(&self, label: &str, round: u32, r: &Inbound, tool: Option<Value>) -> Exchange {
        let name = if round > 1 {
            format!("probe {} {label} round {round}", self.p)
        } else {
            format!("probe {} {label}", self.p)
        };
        Exchange {
            name: Some(name),
            tool,
            initialize: self.negotiated.clone(),
            server: self.declared.clone(),
            ..r.exchange.clone()
        }
    }
}
