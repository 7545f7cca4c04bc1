//! One cell of the client matrix: what the client concluded (from its driver's line) beside
//! the verdict on what `serve` sent it (from `serve`'s diagnostic records), and whether the
//! two agree.
//!
//! What a conforming client concludes follows from the verdict's outcome: a final result is
//! returned (`TOOL_SUCCESS`, and `TOOL_ERROR` with `isError: true` for the model to read), a
//! JSON-RPC error is raised with its code, every other failure is raised without a result, an
//! unfinished call (`INPUT_REQUIRED`) is followed up, and no outcome is a hang. A call the
//! client sends again is compared with the retry advice of the verdict on the answer before it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::views::diag::{DiagRecord, StreamEnd};

/// Whether the client concluded what the verdict says a conforming client concludes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Agreement {
    /// The client concluded what the verdict says, and retried (or not) as advised.
    Agrees,
    /// The client concluded something else, or retried against the advice.
    Differs,
    /// The driver does not speak the revision: nothing was run.
    Skipped,
    /// The driver did not run to a conclusion (it crashed, printed no line, or overran its
    /// own timeout): nothing is known about the client.
    Failed,
}

/// What the client concluded, in words, with its kind.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Conclusion {
    /// `returned`, `threw`, `hung` or `driver-failed`.
    pub kind: String,
    /// A few words: `returned isError: true`, `threw McpError -32602`, `hung 10 s`...
    pub summary: String,
}

/// The verdict on what `serve` sent for the call the client made.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerVerdict {
    /// Outcome of the verdict on the last `tools/call` answer (`null` when no `tools/call`
    /// reached the server).
    pub outcome: Option<String>,
    /// The rule the outcome rests on.
    pub rule: Option<String>,
    /// The retry advice's action for that answer (`do_not_retry`, `retry_after`...).
    pub action: Option<String>,
    /// Ids of the rules the verdict's error findings cite.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub error_findings: Vec<String>,
    /// A few words: `JSONRPC_ERROR -32602`, `HTTP_ERROR 503`, `no tools/call (initialize got 503)`.
    pub summary: String,
}

/// One POST `serve` saw during the run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PostSeen {
    /// JSON-RPC method (`null` when there was none).
    pub method: Option<String>,
    /// HTTP statuses sent.
    pub statuses: Vec<u16>,
    /// The verdict's outcome (`tools/call` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
    /// The retry advice's action (`tools/call` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
}

/// The comparison of one cell.
#[derive(Clone, Debug, PartialEq)]
pub struct Compared {
    /// Agreement.
    pub agreement: Agreement,
    /// What the client concluded.
    pub concluded: Conclusion,
    /// The verdict on what it was sent.
    pub verdict: ServerVerdict,
    /// The difference in one line (`None` when the two agree).
    pub difference: Option<String>,
    /// The rule a difference rests on (for the report's footnote).
    pub rule: Option<String>,
}

/// Reads a driver's line: what the client concluded.
pub fn conclusion(driver: &Value) -> Conclusion {
    let kind = driver
        .get("outcome")
        .and_then(Value::as_str)
        .unwrap_or("driver-failed");
    let err = driver.get("error").unwrap_or(&Value::Null);
    let summary = match kind {
        "returned" => {
            let r = driver.get("result").unwrap_or(&Value::Null);
            if r.get("isError").and_then(Value::as_bool) == Some(true) {
                "returned isError: true".to_string()
            } else if let Some(rt) = r
                .get("resultType")
                .and_then(Value::as_str)
                .filter(|t| *t != "complete")
            {
                format!("returned resultType {rt}")
            } else {
                "returned a result".to_string()
            }
        }
        "threw" => {
            let ty = err.get("type").and_then(Value::as_str).unwrap_or("error");
            let mut s = format!("threw {ty}");
            match err.get("code") {
                Some(Value::Number(n)) => s.push_str(&format!(" {n}")),
                Some(Value::String(c)) => s.push_str(&format!(" {c}")),
                _ => {}
            }
            if let Some(stage) = err
                .get("stage")
                .and_then(Value::as_str)
                .filter(|s| *s != "call")
            {
                s.push_str(&format!(" at {stage}"));
            }
            s
        }
        "hung" => {
            let secs = driver
                .get("elapsedMs")
                .and_then(Value::as_u64)
                .map(|ms| format!("{} s", (ms + 500) / 1000))
                .unwrap_or_else(|| "until its timeout".into());
            format!("hung {secs}")
        }
        _ => {
            let why = err
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("no conclusion");
            format!("driver failed: {}", first_line(why, 240))
        }
    };
    let kind = match kind {
        "returned" | "threw" | "hung" => kind,
        _ => "driver-failed",
    };
    Conclusion {
        kind: kind.to_string(),
        summary,
    }
}

/// The first line of `s`, cut at a word to at most `max` characters (with `…`).
fn first_line(s: &str, max: usize) -> String {
    let line = s.lines().next().unwrap_or("");
    if line.chars().count() <= max {
        return line.to_string();
    }
    let mut cut: String = line.chars().take(max).collect();
    if let Some(space) = cut.rfind(' ') {
        cut.truncate(space);
    }
    cut.push('…');
    cut
}

/// The POST records among `records`, in the order the POSTs arrived (their count). `serve`
/// keeps a record once the answer is judged, after it is written, so a client's next call can
/// be recorded before the answer that led to it: the order kept is not the order sent.
fn in_post_order(records: &[DiagRecord]) -> Vec<&DiagRecord> {
    let mut posts: Vec<&DiagRecord> = records.iter().filter(|r| r.post_count > 0).collect();
    posts.sort_by_key(|r| r.post_count);
    posts
}

/// The POSTs `serve` recorded, in the order they arrived.
pub fn posts(records: &[DiagRecord]) -> Vec<PostSeen> {
    in_post_order(records)
        .into_iter()
        .map(|r| PostSeen {
            method: r.method.clone(),
            statuses: r.http_statuses.clone(),
            outcome: r.outcome.clone(),
            action: action_of(r).map(str::to_string),
        })
        .collect()
}

fn action_of(r: &DiagRecord) -> Option<&str> {
    r.retry_advice.as_ref()?.get("action")?.as_str()
}

fn replay_advised(r: &DiagRecord) -> bool {
    r.retry_advice
        .as_ref()
        .and_then(|a| a.get("replay"))
        .and_then(Value::as_bool)
        == Some(true)
}

/// Actions after which sending the call again is what the advice asks for (a follow-up, a
/// new request, a retry in a new session or with another version...).
const RESEND_ACTIONS: &[&str] = &[
    "follow_up",
    "retry",
    "retry_after",
    "reissue_with_new_id",
    "resume_stream",
    "refresh_tools_then_retry",
    "change_version_then_retry",
    "declare_capability_then_retry",
    "fall_back_to_legacy",
    "start_new_session",
    "authenticate",
];

/// A verdict on one answer in words: outcome, and the status or error code that decided it.
fn verdict_words(r: &DiagRecord) -> String {
    let outcome = r.outcome.as_deref().unwrap_or("no verdict");
    match outcome {
        "HTTP_ERROR" => match r.http_statuses.last() {
            Some(s) => format!("{outcome} {s}"),
            None => outcome.to_string(),
        },
        "JSONRPC_ERROR" => match r.jsonrpc.error_code {
            Some(c) => format!("{outcome} {c}"),
            None => outcome.to_string(),
        },
        _ => outcome.to_string(),
    }
}

fn action_words(r: &DiagRecord) -> String {
    match action_of(r) {
        Some(a) if a != "none" => format!(" ({})", a.replace('_', " ")),
        _ => String::new(),
    }
}

/// The POSTs other than `tools/call` that got a non-2xx status, in words (`; tools/list got
/// 503`): a client may fail a call because of one. `posts` are in the order they arrived.
fn other_failures(posts: &[&DiagRecord]) -> String {
    posts
        .iter()
        .filter(|r| r.method.as_deref() != Some("tools/call") && failed_post(r))
        .map(|r| format!("; {}", got(r)))
        .collect()
}

/// Whether a record is a POST that got a non-2xx status.
fn failed_post(r: &DiagRecord) -> bool {
    r.post_count > 0 && r.http_statuses.iter().any(|s| !(200..300).contains(s))
}

/// A POST and what it got, in words: `tools/list got 503`.
fn got(r: &DiagRecord) -> String {
    let statuses: Vec<String> = r.http_statuses.iter().map(u16::to_string).collect();
    format!(
        "{} got {}",
        r.method.as_deref().unwrap_or("a POST"),
        statuses.join(",")
    )
}

/// Milliseconds of the day of an RFC 3339 UTC timestamp with milliseconds
/// (`...THH:MM:SS.mmmZ`), for the gap between two records.
fn ms_of_day(ts: &str) -> Option<i64> {
    let t = ts.split('T').nth(1)?.trim_end_matches('Z');
    let mut parts = t.split(':');
    let h: i64 = parts.next()?.parse().ok()?;
    let m: i64 = parts.next()?.parse().ok()?;
    let s: f64 = parts.next()?.parse().ok()?;
    Some((h * 3600 + m * 60) * 1000 + (s * 1000.0).round() as i64)
}

/// Compares a driver's line with the records `serve` kept while the client ran.
pub fn compare(driver: &Value, records: &[DiagRecord]) -> Compared {
    let concluded = conclusion(driver);
    let posts = in_post_order(records);
    let calls: Vec<&DiagRecord> = posts
        .iter()
        .copied()
        .filter(|r| r.method.as_deref() == Some("tools/call"))
        .collect();
    let verdict = match calls.last() {
        Some(last) => ServerVerdict {
            outcome: last.outcome.clone(),
            rule: last.rule.clone(),
            action: action_of(last).map(str::to_string),
            error_findings: last.error_findings.clone(),
            summary: format!(
                "{}{}{}{}",
                verdict_words(last),
                action_words(last),
                match last.error_findings.first() {
                    Some(id) => format!(" with error finding {id}"),
                    None => String::new(),
                },
                other_failures(&posts)
            ),
        },
        None => {
            let why = match posts.iter().find(|r| failed_post(r)) {
                Some(r) => format!(" ({})", got(r)),
                None => String::new(),
            };
            ServerVerdict {
                outcome: None,
                rule: None,
                action: None,
                error_findings: Vec::new(),
                summary: format!("no tools/call reached the server{why}"),
            }
        }
    };
    if concluded.kind == "driver-failed" {
        return Compared {
            agreement: Agreement::Failed,
            concluded,
            verdict,
            difference: None,
            rule: None,
        };
    }
    let differ = |difference: String, rule: Option<String>, concluded, verdict| Compared {
        agreement: Agreement::Differs,
        concluded,
        verdict,
        difference: Some(difference),
        rule,
    };
    // A call sent again is held against the advice on the answer before it.
    for pair in calls.windows(2) {
        let (before, after) = (pair[0], pair[1]);
        let action = action_of(before).unwrap_or("");
        let advised = replay_advised(before) || RESEND_ACTIONS.contains(&action);
        if !advised {
            let d = format!(
                "replayed the call after {} vs {}: do not replay",
                verdict_words(before),
                action.replace('_', " ")
            );
            return differ(d, before.rule.clone(), concluded, verdict);
        }
        let wait = before
            .retry_advice
            .as_ref()
            .and_then(|a| a.get("waitMs").or_else(|| a.get("wait_ms")))
            .and_then(Value::as_i64);
        if let (Some(wait), Some(t0), Some(t1)) =
            (wait, ms_of_day(&before.ts), ms_of_day(&after.ts))
        {
            let gap = (t1 - t0).rem_euclid(86_400_000);
            // The record of the answer is written as it goes out; allow scheduling slack.
            if gap + 100 < wait {
                let d = format!(
                    "replayed the call {:.1} s after {} vs Retry-After {:.1} s",
                    gap as f64 / 1000.0,
                    verdict_words(before),
                    wait as f64 / 1000.0
                );
                return differ(d, before.rule.clone(), concluded, verdict);
            }
        }
    }
    let Some(last) = calls.last() else {
        // No call reached the server: a client that concluded anything but a failure is
        // wrong, and one that hung never concluded.
        return match concluded.kind.as_str() {
            "threw" => Compared {
                agreement: Agreement::Agrees,
                concluded,
                verdict,
                difference: None,
                rule: None,
            },
            _ => {
                let d = format!("{} vs {}", concluded.summary, verdict.summary);
                differ(d, None, concluded, verdict)
            }
        };
    };
    let outcome = last.outcome.as_deref().unwrap_or("");
    let result = driver.get("result").unwrap_or(&Value::Null);
    let returned_error = result.get("isError").and_then(Value::as_bool) == Some(true);
    let client_code = driver.get("error").and_then(|e| e.get("code"));
    let ok = match (concluded.kind.as_str(), outcome) {
        // A server that stalled until the client left never finished: waiting until a
        // timeout is all a client can do.
        ("hung", _) => last.stream_end == StreamEnd::Stall,
        ("returned", "TOOL_SUCCESS" | "TASK_CREATED") => !returned_error,
        ("returned", "TOOL_ERROR") => returned_error,
        ("returned", _) => false,
        ("threw", "TOOL_SUCCESS" | "TOOL_ERROR" | "TASK_CREATED" | "INPUT_REQUIRED") => false,
        ("threw", "JSONRPC_ERROR") => match (client_code, last.jsonrpc.error_code) {
            (Some(Value::Number(n)), Some(code)) => n.as_i64() == Some(code),
            _ => false,
        },
        ("threw", _) => true,
        _ => false,
    };
    if ok {
        return Compared {
            agreement: Agreement::Agrees,
            concluded,
            verdict,
            difference: None,
            rule: None,
        };
    }
    let mut d = format!("{} vs {}", concluded.summary, verdict.summary);
    if outcome == "JSONRPC_ERROR" && concluded.kind == "threw" {
        d.push_str(": the error code did not reach the caller");
    }
    // A client that refused an answer the verdict accepts with an error finding refused it
    // for what the finding says: the footnote cites that rule.
    let rule = match (concluded.kind.as_str(), outcome) {
        ("threw", "TOOL_SUCCESS" | "TOOL_ERROR") if !last.error_findings.is_empty() => {
            last.error_findings.first().cloned()
        }
        _ => last.rule.clone(),
    };
    differ(d, rule, concluded, verdict)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::views::diag::Side;
    use serde_json::json;

    fn call(outcome: &str, status: u16, action: &str, replay: bool, ts: &str) -> DiagRecord {
        let mut r = DiagRecord::new(Side::Serve);
        r.method = Some("tools/call".into());
        r.post_count = 1;
        r.http_statuses = vec![status];
        r.outcome = Some(outcome.into());
        r.rule = Some("some.rule".into());
        r.retry_advice = Some(json!({"action": action, "replay": replay}));
        r.ts = ts.into();
        r
    }

    #[test]
    fn a_json_rpc_error_raised_with_its_code_agrees() {
        let mut r = call("JSONRPC_ERROR", 200, "do_not_retry", false, "");
        r.jsonrpc.error_code = Some(-32602);
        let c = compare(
            &json!({"outcome": "threw", "error": {"type": "McpError", "code": -32602, "stage": "call"}}),
            &[r.clone()],
        );
        assert_eq!(c.agreement, Agreement::Agrees, "{c:?}");
        let c = compare(
            &json!({"outcome": "threw", "error": {"type": "Error", "stage": "call"}}),
            &[r],
        );
        assert_eq!(c.agreement, Agreement::Differs);
        assert_eq!(
            c.difference.as_deref(),
            Some(
                "threw Error vs JSONRPC_ERROR -32602 (do not retry): the error code did not reach the caller"
            )
        );
    }

    #[test]
    fn a_followed_up_call_is_judged_by_its_last_post_whatever_order_it_was_recorded_in() {
        // The follow-up's answer is recorded first: the first answer's judgement ended later.
        let mut first = call("INPUT_REQUIRED", 200, "follow_up", false, "");
        first.post_count = 3;
        let mut second = call("TOOL_SUCCESS", 200, "do_not_retry", false, "");
        second.post_count = 4;
        let mut list = DiagRecord::new(Side::Serve);
        list.method = Some("tools/list".into());
        list.post_count = 2;
        list.http_statuses = vec![503];
        let records = [second, list, first];
        let c = compare(
            &json!({"outcome": "returned", "result": {"isError": false}}),
            &records,
        );
        assert_eq!(c.agreement, Agreement::Agrees, "{c:?}");
        assert_eq!(c.verdict.outcome.as_deref(), Some("TOOL_SUCCESS"));
        let seen: Vec<_> = posts(&records)
            .into_iter()
            .map(|p| (p.method.unwrap(), p.outcome))
            .collect();
        assert_eq!(
            seen,
            [
                ("tools/list".to_string(), None),
                ("tools/call".to_string(), Some("INPUT_REQUIRED".to_string())),
                ("tools/call".to_string(), Some("TOOL_SUCCESS".to_string())),
            ]
        );
    }

    #[test]
    fn a_hang_differs_from_every_verdict() {
        let r = call(
            "DELIVERY_UNKNOWN",
            200,
            "reissue_with_new_id",
            false,
            "2026-01-01T00:00:00.000Z",
        );
        let c = compare(&json!({"outcome": "hung", "elapsedMs": 10_020}), &[r]);
        assert_eq!(c.agreement, Agreement::Differs);
        assert_eq!(
            c.difference.as_deref(),
            Some("hung 10 s vs DELIVERY_UNKNOWN (reissue with new id)")
        );
        assert_eq!(c.rule.as_deref(), Some("some.rule"));
    }

    #[test]
    fn a_hang_on_a_stalled_stream_is_all_a_client_can_do() {
        let mut r = call(
            "DELIVERY_UNKNOWN",
            200,
            "reissue_with_new_id",
            false,
            "2026-01-01T00:00:00.000Z",
        );
        r.stream_end = StreamEnd::Stall;
        let c = compare(&json!({"outcome": "hung", "elapsedMs": 10_020}), &[r]);
        assert_eq!(c.agreement, Agreement::Agrees, "{c:?}");
    }

    #[test]
    fn a_replay_against_the_advice_differs_and_one_as_advised_agrees() {
        let first = call(
            "HTTP_ERROR",
            503,
            "do_not_retry",
            false,
            "2026-01-01T00:00:00.000Z",
        );
        let second = call(
            "TOOL_SUCCESS",
            200,
            "none",
            false,
            "2026-01-01T00:00:00.300Z",
        );
        let ok = json!({"outcome": "returned", "result": {"isError": false}});
        let c = compare(&ok, &[first.clone(), second.clone()]);
        assert_eq!(c.agreement, Agreement::Differs);
        assert_eq!(
            c.difference.as_deref(),
            Some("replayed the call after HTTP_ERROR 503 vs do not retry: do not replay")
        );
        let mut waited = first;
        waited.retry_advice =
            Some(json!({"action": "retry_after", "replay": true, "waitMs": 1000}));
        let c = compare(&ok, &[waited.clone(), second.clone()]);
        assert_eq!(c.agreement, Agreement::Differs, "too early: {c:?}");
        assert!(c.difference.unwrap().contains("vs Retry-After 1.0 s"));
        let mut later = second;
        later.ts = "2026-01-01T00:00:01.200Z".into();
        let c = compare(&ok, &[waited, later]);
        assert_eq!(c.agreement, Agreement::Agrees, "{c:?}");
    }

    #[test]
    fn a_failure_before_any_call_is_named() {
        let mut init = DiagRecord::new(Side::Serve);
        init.method = Some("initialize".into());
        init.post_count = 1;
        init.http_statuses = vec![503];
        let c = compare(
            &json!({"outcome": "threw", "error": {"type": "Error", "stage": "connect"}}),
            &[init],
        );
        assert_eq!(c.agreement, Agreement::Agrees);
        assert_eq!(
            c.verdict.summary,
            "no tools/call reached the server (initialize got 503)"
        );
        assert_eq!(c.concluded.summary, "threw Error at connect");
    }

    #[test]
    fn a_driver_without_a_conclusion_is_a_failed_cell() {
        let c = compare(
            &json!({"outcome": "driver-failed", "error": {"message": "no output\nmore"}}),
            &[],
        );
        assert_eq!(c.agreement, Agreement::Failed);
        assert_eq!(c.concluded.summary, "driver failed: no output");
    }
}
