//! Diagnostic records shared by `serve` (the fault-injecting test server) and
//! `probe` (the client-side exerciser).
//!
//! One [`DiagRecord`] describes one HTTP exchange (or, for the probe, one logical
//! call with its retries) and serialises as a single JSON line, so a run leaves a
//! `.jsonl` trail that can be grepped, diffed and fed back into `mcp-verdict`.
//! Everything that may carry a secret (error messages, error data, client
//! names) goes through [`sanitize`] / [`sanitize_value`] first.

use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::redact::is_secret_key;
use crate::wire::exchange::BodyEnd;

/// Which tool wrote a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// The `serve` command (server side of the exchange).
    Serve,
    /// The `probe` command (client side of the exchange).
    Probe,
}

/// How the HTTP response body (or SSE stream) ended, as a diagnostic record tells it: the
/// exchange's [`BodyEnd`] refined by what the writer or reader saw (a clean close before the
/// final response, a deliberate stall). [`StreamEnd::of`] and [`StreamEnd::body_end`] are the
/// one mapping between the two.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StreamEnd {
    /// The body was delivered in full (Content-Length reached, or the chunked
    /// stream was terminated after its final event).
    Complete,
    /// The connection or stream was closed cleanly before the final response.
    Eof,
    /// The connection was reset (TCP RST).
    Reset,
    /// The reader gave up waiting (client-side timeout, or the server waited
    /// in vain for something the client should have sent).
    Timeout,
    /// The writer deliberately stopped sending without closing (stalled stream).
    Stall,
}

impl StreamEnd {
    /// How a recorded body ended, as a record states it: the exchange's [`BodyEnd`], with a
    /// clean close of a stream that had not delivered its response told apart as [`Eof`].
    ///
    /// [`Eof`]: StreamEnd::Eof
    pub fn of(end: BodyEnd, stream_without_response: bool) -> StreamEnd {
        match end {
            BodyEnd::Reset => StreamEnd::Reset,
            BodyEnd::Timeout => StreamEnd::Timeout,
            BodyEnd::Complete if stream_without_response => StreamEnd::Eof,
            BodyEnd::Complete => StreamEnd::Complete,
        }
    }

    /// The exchange file's [`BodyEnd`] for this end: a clean close is a complete body, a
    /// stall ends with the reader giving up.
    pub fn body_end(self) -> BodyEnd {
        match self {
            StreamEnd::Complete | StreamEnd::Eof => BodyEnd::Complete,
            StreamEnd::Reset => BodyEnd::Reset,
            StreamEnd::Timeout | StreamEnd::Stall => BodyEnd::Timeout,
        }
    }
}

/// Who caused a repeated request, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RetryOrigin {
    /// Not a retry (or unknown to the writer).
    #[default]
    None,
    /// The MCP SDK / transport retried on its own.
    Sdk,
    /// Application (business) code re-sent the call.
    Business,
    /// A person re-ran the call by hand.
    Manual,
}

/// JSON-RPC facts of the exchange.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JsonRpcFacts {
    /// The request id (`null` for notifications, responses and unparsable bodies).
    pub id: Option<Value>,
    /// `error.code` of the JSON-RPC error response, if one was sent/received.
    pub error_code: Option<i64>,
    /// `error.message`, sanitised and bounded (see [`sanitize`]).
    pub error_message: Option<String>,
}

/// One diagnostic record: one JSON line per exchange.
///
/// Field names are the wire contract (camelCase); do not rename them casually,
/// other tools read these lines.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiagRecord {
    /// When the exchange finished, RFC 3339 UTC with milliseconds
    /// (e.g. `2026-08-01T12:00:00.123Z`).
    pub ts: String,
    /// Which tool wrote the record.
    pub side: Side,
    /// `name@version` of the client, from `_meta` `io.modelcontextprotocol/clientInfo`
    /// (2026-07-28) or `initialize` `clientInfo` (2025-11-25); sanitised.
    pub client: Option<String>,
    /// Protocol revision in force for the exchange (requested or negotiated).
    pub protocol_version: Option<String>,
    /// Scenario in force, as given on the command line (`name[:params]`).
    pub scenario: Option<String>,
    /// JSON-RPC method of the request (`null` when there was none, e.g. GET).
    pub method: Option<String>,
    /// Ordinal of this POST among all POSTs the server has seen (1-based);
    /// for the probe, the number of POSTs it sent for this call.
    pub post_count: u64,
    /// HTTP statuses seen for this exchange, in order (the probe lists one per
    /// attempt; the server lists the one it sent).
    pub http_statuses: Vec<u16>,
    /// `Content-Type` of the response, if the response had one.
    pub content_type: Option<String>,
    /// Number of complete SSE events delivered (`null` when the body was not SSE).
    pub sse_event_count: Option<u64>,
    /// Whether the final JSON-RPC response for the request was delivered in full.
    pub final_response: bool,
    /// How the body/stream ended.
    pub stream_end: StreamEnd,
    /// JSON-RPC id / error facts.
    pub jsonrpc: JsonRpcFacts,
    /// `result.resultType` of the response, when a result carried one.
    pub result_type: Option<String>,
    /// Verdict outcome name: the probe's verdict on what it received; `serve`'s verdict on
    /// what it sent in answer to a `tools/call` (`null` for other methods).
    pub outcome: Option<String>,
    /// Id of the rule the outcome rests on (`null` when no rule decided it, or no verdict).
    #[serde(default)]
    pub rule: Option<String>,
    /// Ids of the rules the verdict's error findings cite (MUST-level or schema violations),
    /// each once; left out when there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub error_findings: Vec<String>,
    /// Free-form retry advice (filled later; `null` when none).
    pub retry_advice: Option<Value>,
    /// Who caused a repeated request.
    pub retry_origin: RetryOrigin,
}

impl DiagRecord {
    /// A record stamped with the current time and every optional field empty.
    pub fn new(side: Side) -> Self {
        Self {
            ts: now_rfc3339(),
            side,
            client: None,
            protocol_version: None,
            scenario: None,
            method: None,
            post_count: 0,
            http_statuses: Vec::new(),
            content_type: None,
            sse_event_count: None,
            final_response: false,
            stream_end: StreamEnd::Complete,
            jsonrpc: JsonRpcFacts::default(),
            result_type: None,
            outcome: None,
            rule: None,
            error_findings: Vec::new(),
            retry_advice: None,
            retry_origin: RetryOrigin::None,
        }
    }

    /// The record as one line of JSON (no trailing newline).
    pub fn to_json_line(&self) -> String {
        // Serialising plain data with string keys cannot fail.
        serde_json::to_string(self).unwrap_or_else(|_| String::from("{}"))
    }
}

/// The diagnostic record of one judged exchange (side `probe`, one POST): client and method
/// from the recorded request, statuses, media type and stream facts from the response, and
/// the verdict's outcome and retry advice (default policy). Error messages are sanitised.
pub fn record(
    ex: &crate::wire::exchange::Exchange,
    verdict: &crate::judge::Verdict<'_>,
    side: Side,
) -> DiagRecord {
    let f = &verdict.facts;
    let mut r = DiagRecord::new(side);
    let info = ex
        .request
        .body
        .as_ref()
        .and_then(|b| b.pointer("/params/_meta/io.modelcontextprotocol~1clientInfo"));
    r.client = info.and_then(|i| {
        let name = i.get("name")?.as_str()?;
        let version = i.get("version").and_then(Value::as_str).unwrap_or("?");
        Some(sanitize(&format!("{name}@{version}")))
    });
    r.protocol_version = Some(verdict.protocol.to_string());
    r.method = f.request_method.as_deref().map(str::to_string);
    r.post_count = 1;
    r.http_statuses = vec![f.http_status];
    r.content_type = ex.response_headers.get("content-type").map(sanitize);
    r.sse_event_count = f.stream.as_ref().map(|s| s.events as u64);
    r.final_response = match &f.stream {
        Some(s) => s.messages.final_response,
        None => (200..300).contains(&f.http_status) && f.response_id.is_some(),
    };
    r.stream_end = StreamEnd::of(ex.end, f.stream.is_some() && !r.final_response);
    r.jsonrpc.id = f.request_id.clone();
    if let Some(e) = &f.error {
        r.jsonrpc.error_code = e.code;
        r.jsonrpc.error_message = e.message.as_deref().map(sanitize);
    }
    r.result_type = f
        .result_type
        .as_ref()
        .and_then(Value::as_str)
        .map(str::to_string);
    r.outcome = Some(verdict.outcome.to_string());
    r.rule = verdict.deciding_rule().map(|rule| rule.id.clone());
    r.error_findings = error_findings(verdict);
    r.retry_advice = serde_json::to_value(crate::advice::advise(
        verdict,
        &crate::advice::RetryPolicy::default(),
    ))
    .ok();
    r.retry_origin = RetryOrigin::None;
    r
}

/// Ids of the rules a verdict's error findings cite, each once, in finding order.
pub fn error_findings(verdict: &crate::judge::Verdict<'_>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for f in &verdict.findings {
        if f.severity == crate::vocab::Severity::Error && !out.contains(&f.rule.id) {
            out.push(f.rule.id.clone());
        }
    }
    out
}

/// The current time as RFC 3339 UTC with millisecond precision.
pub fn now_rfc3339() -> String {
    let dur = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    format_rfc3339_millis(dur.as_secs() as i64, dur.subsec_millis())
}

/// Formats seconds since the Unix epoch (UTC) plus milliseconds as RFC 3339.
pub fn format_rfc3339_millis(secs: i64, millis: u32) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

/// Days since 1970-01-01 to a proleptic Gregorian (year, month, day).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Default bound applied by [`sanitize`], in characters.
pub const SANITIZE_MAX_CHARS: usize = 512;

pub use super::redact::REDACTED;

/// Redacts secrets in `text` under the policy in force ([`super::redact`]) and bounds it to
/// [`SANITIZE_MAX_CHARS`] characters. Text longer than the bound is cut on a character
/// boundary and ends with `…[truncated N chars]`, where N counts the characters removed.
pub fn sanitize(text: &str) -> String {
    sanitize_with_limit(text, SANITIZE_MAX_CHARS)
}

/// [`sanitize`] with an explicit bound in characters.
pub fn sanitize_with_limit(text: &str, max_chars: usize) -> String {
    truncate_chars(super::redact::text(text).into_owned(), max_chars)
}

fn truncate_chars(s: String, max_chars: usize) -> String {
    let total = s.chars().count();
    if total <= max_chars {
        return s;
    }
    let cut = s
        .char_indices()
        .nth(max_chars)
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    format!("{}…[truncated {} chars]", &s[..cut], total - max_chars)
}

/// Sanitises a JSON value (e.g. JSON-RPC `error.data`): every string goes
/// through [`sanitize`], values under secret-looking keys (`password`,
/// `token`, `authorization`, `cookie`, `apiKey`, …) become `"[REDACTED]"`
/// (unless the policy in force is off),
/// and arrays/objects deeper than 8 levels or longer than 64 members are cut.
pub fn sanitize_value(value: &Value) -> Value {
    sanitize_value_depth(value, 0)
}

fn sanitize_value_depth(value: &Value, depth: usize) -> Value {
    const MAX_DEPTH: usize = 8;
    const MAX_MEMBERS: usize = 64;
    match value {
        Value::String(s) => Value::String(sanitize(s)),
        Value::Array(items) => {
            if depth >= MAX_DEPTH {
                return Value::String("…[nested array omitted]".into());
            }
            let mut out: Vec<Value> = items
                .iter()
                .take(MAX_MEMBERS)
                .map(|v| sanitize_value_depth(v, depth + 1))
                .collect();
            if items.len() > MAX_MEMBERS {
                out.push(Value::String(format!(
                    "…[{} more items]",
                    items.len() - MAX_MEMBERS
                )));
            }
            Value::Array(out)
        }
        Value::Object(map) => {
            if depth >= MAX_DEPTH {
                return Value::String("…[nested object omitted]".into());
            }
            let mut out = serde_json::Map::new();
            for (k, v) in map.iter().take(MAX_MEMBERS) {
                let key = sanitize_with_limit(k, 128);
                let val = if super::redact::enabled() && is_secret_key(k) && !v.is_null() {
                    Value::String(REDACTED.into())
                } else {
                    sanitize_value_depth(v, depth + 1)
                };
                out.insert(key, val);
            }
            if map.len() > MAX_MEMBERS {
                out.insert(
                    "…".into(),
                    Value::String(format!("[{} more members]", map.len() - MAX_MEMBERS)),
                );
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_ends_map_to_body_ends_and_back() {
        for end in [BodyEnd::Complete, BodyEnd::Reset, BodyEnd::Timeout] {
            assert_eq!(StreamEnd::of(end, false).body_end(), end);
            assert_eq!(StreamEnd::of(end, true).body_end(), end);
        }
        assert_eq!(StreamEnd::of(BodyEnd::Complete, true), StreamEnd::Eof);
        assert_eq!(StreamEnd::Stall.body_end(), BodyEnd::Timeout);
    }
    use serde_json::json;

    #[test]
    fn rfc3339_formatting() {
        assert_eq!(format_rfc3339_millis(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            format_rfc3339_millis(951_782_400, 7),
            "2000-02-29T00:00:00.007Z"
        );
        assert_eq!(
            format_rfc3339_millis(1_785_585_599, 999),
            "2026-08-01T11:59:59.999Z"
        );
        let now = now_rfc3339();
        assert_eq!(now.len(), 24, "{now}");
        assert!(now.ends_with('Z'));
    }

    #[test]
    fn record_serialises_with_contract_field_names() {
        let mut r = DiagRecord::new(Side::Serve);
        r.client = Some("probe@1.0".into());
        r.http_statuses = vec![503, 200];
        r.jsonrpc.id = Some(json!(1));
        r.jsonrpc.error_code = Some(-32602);
        r.stream_end = StreamEnd::Stall;
        r.retry_origin = RetryOrigin::Sdk;
        let v: Value = serde_json::from_str(&r.to_json_line()).unwrap();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        for k in [
            "ts",
            "side",
            "client",
            "protocolVersion",
            "scenario",
            "method",
            "postCount",
            "httpStatuses",
            "contentType",
            "sseEventCount",
            "finalResponse",
            "streamEnd",
            "jsonrpc",
            "resultType",
            "outcome",
            "retryAdvice",
            "retryOrigin",
        ] {
            assert!(keys.contains(&k), "missing {k} in {v}");
        }
        assert_eq!(v["side"], "serve");
        assert_eq!(v["streamEnd"], "stall");
        assert_eq!(v["retryOrigin"], "sdk");
        assert_eq!(v["jsonrpc"]["errorCode"], -32602);
        assert_eq!(v["outcome"], Value::Null);
        let back: DiagRecord = serde_json::from_value(v).unwrap();
        assert_eq!(back, r);
        assert!(!r.to_json_line().contains('\n'));
    }

    #[test]
    fn redacts_headers_and_schemes() {
        let s = sanitize("Authorization: Bearer abcdef123456\nCookie: sid=xyz; a=b\nok");
        assert_eq!(s, "Authorization: [REDACTED]\nCookie: [REDACTED]\nok");
        let s = sanitize("upstream said: Bearer eyJhbGciOi.abc.def rejected");
        assert!(!s.contains("eyJhbGciOi"), "{s}");
        assert!(s.contains("Bearer [REDACTED]"), "{s}");
        let s = sanitize("set-cookie=session=abc123; x-api-key: KEY-123-456");
        assert!(!s.contains("abc123") && !s.contains("KEY-123"), "{s}");
        let s = sanitize("basic dXNlcjpwYXNzd29yZA== was refused");
        assert_eq!(s, "basic [REDACTED] was refused");
    }

    /// `sanitize` is the process's redaction policy (whose token shapes, pairs and URLs
    /// `views::redact` tests) followed by the bound in characters; the bound applies after
    /// redaction, so a cut never leaves half a secret.
    #[test]
    fn sanitize_is_the_policy_then_the_bound() {
        for c in [
            "key sk-proj-ABCDEFGHIJKLMNOPQRSTUV used",
            "login failed: password=hunter2&user=bob",
            "fetch https://bob:pa55@example.com/x failed",
            "nothing secret here",
        ] {
            assert_eq!(sanitize(c), crate::views::redact::text(c), "{c}");
        }
        let long = format!("token=abcdefghijklmnopqrstuvwxyz {}", "x".repeat(40));
        let cut = sanitize_with_limit(&long, 20);
        assert_eq!(cut, "token=[REDACTED] xxx…[truncated 37 chars]");
    }

    #[test]
    fn leaves_ordinary_text_alone() {
        let plain = "Unknown tool: get_weather (tokens used: 12); basic validation failed";
        assert_eq!(sanitize(plain), plain);
        assert_eq!(sanitize("sk-short"), "sk-short");
    }

    #[test]
    fn bounds_length_on_char_boundaries() {
        let long = "é".repeat(600);
        let s = sanitize(&long);
        assert!(s.starts_with(&"é".repeat(512)));
        assert!(
            s.ends_with("…[truncated 88 chars]"),
            "{}",
            &s[s.len() - 40..]
        );
        assert_eq!(sanitize_with_limit("abcdef", 3), "abc…[truncated 3 chars]");
        assert_eq!(sanitize_with_limit("abc", 3), "abc");
    }

    #[test]
    fn sanitizes_json_values() {
        let v = json!({
            "headers": {"Authorization": "Bearer abcdefghijkl", "Accept": "*/*"},
            "detail": "retry with sk-proj-ABCDEFGHIJKLMNOPQRSTUV",
            "accessToken": "xyz",
            "list": [1, "password=abc", null],
            "nothing": null
        });
        let s = sanitize_value(&v);
        assert_eq!(s["headers"]["Authorization"], REDACTED);
        assert_eq!(s["headers"]["Accept"], "*/*");
        assert_eq!(s["accessToken"], REDACTED);
        assert_eq!(s["detail"], "retry with [REDACTED]");
        assert_eq!(s["list"], json!([1, "password=[REDACTED]", null]));
        assert_eq!(s["nothing"], Value::Null);

        let mut deep = json!("leaf");
        for _ in 0..20 {
            deep = json!([deep]);
        }
        let cut = sanitize_value(&deep).to_string();
        assert!(cut.contains("nested array omitted"), "{cut}");
        let many = Value::Array((0..100).map(Value::from).collect());
        let cut = sanitize_value(&many);
        assert_eq!(cut.as_array().unwrap().len(), 65);
    }
}
