//! Result checks: tools/call only, `resultType`, `CallToolResult` semantics the schema cannot
//! express, structured content, output schemas, `_meta`.

use serde_json::Value;

use super::framing::kind;
use crate::check_api::{Cx, Eval, Hit, Params, ResultKind};
use crate::vocab::protocol::meta::SERVER_INFO;
use crate::wire::jsonref::JsonRef;

crate::check_api::declare_checks! {
    "request_is_tools_call" => request_is_tools_call, [], [], MESSAGE,
        "the recorded request is not a tools/call request";
    "result_is_object" => result_is_object, [], [], RESULT,
        "`result` is not a JSON object";
    "result_type_absent" => result_type_absent, [], [], RESULT,
        "the result has no `resultType` (under a revision that defines it)";
    "result_type_recognized" => result_type_recognized, [], [], RESULT,
        "`resultType` is not a string this client recognises (core values plus declared extensions)";
    "result_type_is" => result_type_is, ["value"], ["value"], RESULT,
        "`resultType` equals `value` and is recognised";
    "task_result" => task_result, [], [], RESULT,
        "a task-augmented request was answered with a task handle (2025-11-25 `CreateTaskResult`)";
    "task_status_is" => task_status_is, ["value"], ["value"], RESULT,
        "a task handle's `task.status` is not `value` (the status a task begins in)";
    "is_error_absent" => is_error_absent, [], [], RESULT,
        "a final tool result has no `isError` member";
    "is_error_true" => is_error_true, [], [], RESULT,
        "a final tool result has `isError: true`";
    "tool_result_final" => tool_result_final, [], [], RESULT,
        "a final tool result is present and `isError` is not true";
    "structured_content_mirrored" => structured_content_mirrored, [], [], RESULT,
        "`structuredContent` is present and no text block carries the same JSON";
    "output_schema_conforms" => output_schema_conforms, [], [], RESULT,
        "the tool declares an `outputSchema` and the structured result is missing or does not conform";
    "output_schema_usable" => output_schema_usable, ["value", "names"], ["value"], RESULT,
        "the tool's `outputSchema` cannot judge a final result, or a schema member (`names`: `outputSchema` when not given, `inputSchema`) of a tool a `tools/list` result lists cannot be used: `value` names the problem, `dialect` (a `$schema` this judge does not support), `ref` (a `$ref` not resolvable within the schema; nothing is fetched) or `invalid` (not a valid schema in its dialect)";
    "server_info_present" => server_info_present, [], [], RESULT,
        "the result's `_meta` lacks `io.modelcontextprotocol/serverInfo`";
    "task_timestamps" => task_timestamps, [], [], RESULT,
        "a task handle's `createdAt` or `lastUpdatedAt` is a string that is not an ISO 8601 date and time (`2025-11-25T10:30:00Z`)";
    "result_type_absent_modern" => result_type_absent_modern, [], [], RESULT,
        "the result has no `resultType` and the exchange records that the server declared only this revision or later ones (`server.supportedVersions`)";
}

fn request_is_tools_call(cx: &Cx<'_>, _: &Params) -> Eval {
    let req = &cx.an.req;
    if req.is_notification || cx.message().is_none() {
        return Eval::NotApplicable;
    }
    match req.method {
        Some("tools/call") => Eval::Pass,
        Some(m) => Eval::hit(
            "",
            format!(
                "the recorded request is `{m}`, not `tools/call`; there is no tool result to judge"
            ),
        ),
        None => Eval::NotApplicable,
    }
}

fn result_is_object(cx: &Cx<'_>, _: &Params) -> Eval {
    match cx.kind() {
        ResultKind::Absent => Eval::NotApplicable,
        ResultKind::NotObject => {
            let r = cx.result().expect("NotObject has a result");
            Eval::hit(
                "/result",
                format!("`result` is a JSON {}, not an object", kind(&r.to_value())),
            )
        }
        _ => Eval::Pass,
    }
}

fn result_obj<'a>(cx: &Cx<'a>) -> Option<JsonRef<'a>> {
    cx.result().filter(|r| r.is_object())
}

/// Whether the exchange records that the server declared only this revision or later ones
/// (`server.supportedVersions`): its results carry no `resultType` for no earlier revision's
/// sake.
fn server_only_modern(cx: &Cx<'_>) -> bool {
    cx.an
        .ex
        .server
        .as_ref()
        .is_some_and(|s| s.only_from(cx.protocol.as_str()))
}

fn result_type_absent(cx: &Cx<'_>, _: &Params) -> Eval {
    // A server known to speak no earlier revision gets no backward-compatible reading.
    if cx.profile.result_types.is_none() || server_only_modern(cx) {
        return Eval::NotApplicable;
    }
    match result_obj(cx) {
        Some(_) if cx.result_members().result_type.is_none() => Eval::hit(
            "/result/resultType",
            "the result has no `resultType`; it is read as \"complete\"",
        ),
        Some(_) => Eval::Pass,
        None => Eval::NotApplicable,
    }
}

fn result_type_absent_modern(cx: &Cx<'_>, _: &Params) -> Eval {
    if cx.profile.result_types.is_none() || !server_only_modern(cx) {
        return Eval::NotApplicable;
    }
    match result_obj(cx) {
        Some(_) if cx.result_members().result_type.is_none() => {
            let declared = cx
                .an
                .ex
                .server
                .as_ref()
                .map(|s| s.supported_versions.join(", "))
                .unwrap_or_default();
            Eval::hit(
                "/result/resultType",
                format!(
                    "the result has no `resultType`, and the server declared only {declared} (server/discover): the backward-compatible reading is for servers of earlier revisions, so the result is not a final result"
                ),
            )
        }
        Some(_) => Eval::Pass,
        None => Eval::NotApplicable,
    }
}

fn result_type_recognized(cx: &Cx<'_>, _: &Params) -> Eval {
    if cx.profile.result_types.is_none() {
        return Eval::NotApplicable;
    }
    if result_obj(cx).is_none() {
        return Eval::NotApplicable;
    }
    if *cx.kind() != ResultKind::Unrecognized {
        return Eval::Pass;
    }
    let known = cx.recognized_result_types().join(", ");
    let v = cx
        .result_members()
        .result_type
        .expect("Unrecognized implies present");
    let Some(s) = v.as_str() else {
        return Eval::hit(
            "/result/resultType",
            format!(
                "`resultType` is a JSON {}, not a string",
                kind(&v.to_value())
            ),
        );
    };
    let hint = cx
        .profile
        .extension_result_types
        .iter()
        .find(|(_, vals)| vals.iter().any(|x| x == s))
        .map(|(ext, _)| {
            format!(
                "; \"{s}\" belongs to the extension `{ext}`, which the request did not declare in clientCapabilities.extensions"
            )
        })
        .unwrap_or_default();
    Eval::hit(
        "/result/resultType",
        format!("`resultType` \"{s}\" is not recognised (recognised: {known}){hint}"),
    )
}

fn result_type_is(cx: &Cx<'_>, p: &Params) -> Eval {
    let Some(want) = p.value.as_deref() else {
        return Eval::NotApplicable;
    };
    if result_obj(cx).is_none() || cx.profile.result_types.is_none() {
        return Eval::NotApplicable;
    }
    let hit = match cx.kind() {
        ResultKind::InputRequired => want == "input_required",
        ResultKind::Task => want == "task",
        ResultKind::Extension(v) => v == want,
        ResultKind::Complete => want == "complete",
        _ => false,
    };
    if hit { Eval::triggered() } else { Eval::Pass }
}

fn task_result(cx: &Cx<'_>, _: &Params) -> Eval {
    if cx.an.req.task.is_none() || result_obj(cx).is_none() {
        return Eval::NotApplicable;
    }
    if *cx.kind() == ResultKind::Task {
        Eval::triggered()
    } else {
        Eval::Pass
    }
}

/// Whether `s` is an ISO 8601 calendar date and time in the extended format:
/// `YYYY-MM-DDTHH:MM[:SS[.fraction]]` with an optional `Z` or `+HH:MM` / `-HH:MM` / `+HH` /
/// `+HHMM` offset (`T` may not be left out, as ISO 8601 allows only by agreement).
pub(crate) fn iso8601_date_time(s: &str) -> bool {
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>, max: u32| {
        b.get(r.clone()).is_some_and(|d| {
            d.iter().all(u8::is_ascii_digit)
                && d.iter().fold(0u32, |n, c| n * 10 + u32::from(c - b'0')) <= max
        })
    };
    let positive =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().any(|&c| c != b'0'));
    if !(num(0..4, 9999)
        && b.get(4) == Some(&b'-')
        && num(5..7, 12)
        && positive(5..7)
        && b.get(7) == Some(&b'-')
        && num(8..10, 31)
        && positive(8..10)
        && b.get(10) == Some(&b'T')
        && num(11..13, 24)
        && b.get(13) == Some(&b':')
        && num(14..16, 59))
    {
        return false;
    }
    let mut i = 16;
    if b.get(i) == Some(&b':') {
        // 60: a leap second.
        if !num(i + 1..i + 3, 60) {
            return false;
        }
        i += 3;
        if matches!(b.get(i), Some(b'.' | b',')) {
            let start = i + 1;
            i = start;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            if i == start {
                return false;
            }
        }
    }
    match &b[i..] {
        [] | [b'Z'] => true,
        [b'+' | b'-', rest @ ..] => match rest.len() {
            2 => num(i + 1..i + 3, 23),
            4 => num(i + 1..i + 3, 23) && num(i + 3..i + 5, 59),
            5 => num(i + 1..i + 3, 23) && rest[2] == b':' && num(i + 4..i + 6, 59),
            _ => false,
        },
        _ => false,
    }
}

fn task_timestamps(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some(task) = cx.result_if(&ResultKind::Task).and_then(|r| r.get("task")) else {
        return Eval::NotApplicable;
    };
    let mut hits = Vec::new();
    let mut any = false;
    for field in ["createdAt", "lastUpdatedAt"] {
        // A missing or non-string timestamp is a schema error, judged by the task's shape.
        let Some(v) = task.get(field).and_then(JsonRef::as_str) else {
            continue;
        };
        any = true;
        if !iso8601_date_time(v) {
            hits.push(Hit::new(
                format!("/result/task/{field}"),
                format!(
                    "the task's {field} is \"{}\", not an ISO 8601 date and time (e.g. 2025-11-25T10:30:00Z)",
                    crate::wire::excerpt(v.as_bytes(), 40)
                ),
            ));
        }
    }
    if !any {
        return Eval::NotApplicable;
    }
    Eval::from_hits(hits)
}

fn task_status_is(cx: &Cx<'_>, p: &Params) -> Eval {
    let (Some(want), Some(task)) = (p.value.as_deref(), cx.result_if(&ResultKind::Task)) else {
        return Eval::NotApplicable;
    };
    // A missing or non-string status is a schema error, judged by the task result's shape.
    match task
        .get("task")
        .and_then(|t| t.get("status"))
        .and_then(JsonRef::as_str)
    {
        Some(s) if s == want => Eval::Pass,
        Some(s) => Eval::hit(
            "/result/task/status",
            format!("the task was created with status \"{s}\"; a task begins as \"{want}\""),
        ),
        None => Eval::NotApplicable,
    }
}

fn is_error_absent(cx: &Cx<'_>, _: &Params) -> Eval {
    match cx.complete_result() {
        Some(_) if cx.result_members().is_error.is_none() => Eval::triggered(),
        Some(_) => Eval::Pass,
        None => Eval::NotApplicable,
    }
}

fn is_error_true(cx: &Cx<'_>, _: &Params) -> Eval {
    match cx.complete_result() {
        Some(_) if cx.result_members().is_error.is_some_and(JsonRef::is_true) => Eval::triggered(),
        Some(_) => Eval::Pass,
        None => Eval::NotApplicable,
    }
}

fn tool_result_final(cx: &Cx<'_>, _: &Params) -> Eval {
    match cx.complete_result() {
        Some(_) if cx.result_members().is_error.is_some_and(JsonRef::is_true) => Eval::Pass,
        Some(_) => Eval::triggered(),
        None => Eval::NotApplicable,
    }
}

fn structured_content_mirrored(cx: &Cx<'_>, _: &Params) -> Eval {
    if cx.complete_result().is_none() {
        return Eval::NotApplicable;
    }
    let rm = cx.result_members();
    let Some(sc) = rm.structured_content else {
        return Eval::NotApplicable;
    };
    if !rm.content.is_some_and(JsonRef::is_array) {
        return Eval::NotApplicable;
    }
    // Only a text whose first character could start the same JSON value is read and compared.
    let want = if sc.is_object() {
        Some(b'{')
    } else if sc.is_array() {
        Some(b'[')
    } else if sc.is_string() {
        Some(b'"')
    } else {
        None
    };
    let mirrored = cx.content_blocks().iter().any(|b| {
        b.kind.and_then(JsonRef::as_str) == Some("text")
            && b.text.and_then(JsonRef::as_str).is_some_and(|t| {
                let first = t.bytes().find(|c| !c.is_ascii_whitespace());
                (want.is_none() || first == want) && text_equals(t, sc)
            })
    });
    if mirrored {
        Eval::Pass
    } else {
        Eval::hit(
            "/result/structuredContent",
            "`structuredContent` is not mirrored as serialized JSON in any text content block",
        )
    }
}

/// Whether JSON text reads as `v`, as `serde_json` compares its parse with `v`.
fn text_equals(text: &str, v: JsonRef<'_>) -> bool {
    match v {
        JsonRef::Value(v) => crate::wire::tape::text_equals(text, v),
        JsonRef::Tape(n) => crate::wire::tape::text_equals_node(text, n),
    }
}

fn output_schema_conforms(cx: &Cx<'_>, _: &Params) -> Eval {
    if cx.complete_result().is_none() {
        return Eval::NotApplicable;
    }
    let rm = cx.result_members();
    if rm.is_error.is_some_and(JsonRef::is_true) {
        // Whether an error result must carry conforming structured content is unsettled;
        // like the reference SDKs, do not judge it.
        return Eval::NotApplicable;
    }
    if cx.output_schema().is_none() {
        return Eval::NotApplicable;
    }
    if rm.structured_content.is_none() {
        return Eval::hit(
            "/result/structuredContent",
            "the tool declares an outputSchema but the result has no `structuredContent`",
        );
    }
    // A schema that cannot be compiled is reported by `output_schema_usable`, never taken as
    // permissive.
    let Some(Ok(compiled)) = cx.output_schema() else {
        return Eval::NotApplicable;
    };
    // The tool's own schema is checked by `jsonschema`, on the parsed value.
    let Some(sc) = cx.result_value().and_then(|r| r.get("structuredContent")) else {
        return Eval::NotApplicable;
    };
    let validator = &compiled.validator;
    // A schema can fail every level of a deeply nested value, and each message quotes the
    // value: list the first few, each shortened. Past serde_json's depth only the first is
    // looked for (every error carries its path: all of them would take memory quadratic in
    // the depth).
    const MAX_ERRORS: usize = 20;
    const MAX_MESSAGE: usize = 300;
    let hit = |e: &jsonschema::ValidationError<'_>| {
        let mut what = e.to_string();
        if let Some((cut, _)) = what.char_indices().nth(MAX_MESSAGE) {
            what.truncate(cut);
            what.push('…');
        }
        Hit::new(
            format!("/result/structuredContent{}", e.instance_path()),
            format!(
                "does not conform to the tool's outputSchema ({}): {what}",
                compiled.dialect
            ),
        )
    };
    if cx.an.nesting_depth() > crate::wire::deep::SHALLOW {
        return match validator.validate(sc) {
            Ok(()) => Eval::Pass,
            Err(e) => Eval::Trigger(vec![hit(&e)]),
        };
    }
    let mut errors = validator.iter_errors(sc);
    let mut hits: Vec<Hit> = errors.by_ref().take(MAX_ERRORS).map(|e| hit(&e)).collect();
    let more = errors.count();
    if more > 0 {
        hits.push(Hit::new(
            "/result/structuredContent",
            format!("and {more} more place(s) that do not conform to the tool's outputSchema"),
        ));
    }
    Eval::from_hits(hits)
}

/// Which tool schema members a rule judges (`names`; `outputSchema` when not given).
pub(crate) fn judges_member(p: &Params, member: &str) -> bool {
    if p.names.is_empty() {
        member == "outputSchema"
    } else {
        p.names.iter().any(|n| n == member)
    }
}

/// The kind of a schema problem (as the rules' `value` names it) and what it is.
fn schema_problem(problem: &crate::schema::output::OutputSchemaProblem) -> (&'static str, String) {
    use crate::schema::output::{DIALECTS, OutputSchemaProblem as P};
    match problem {
        P::UnknownDialect(uri) => (
            "dialect",
            format!(
                "declares `$schema` \"{uri}\", a dialect this judge does not support ({})",
                DIALECTS.join(", ")
            ),
        ),
        P::UnresolvedRef { external, why } => (
            "ref",
            format!(
                "has a `$ref` that {} ({why})",
                if *external {
                    "points outside the schema document, which is never fetched"
                } else {
                    "points nowhere in the schema document"
                }
            ),
        ),
        P::Invalid(why) => (
            "invalid",
            format!("is not a valid schema in its dialect ({why})"),
        ),
    }
}

/// `output_schema_usable` on a `tools/list` result: every listed tool's judged members.
fn listed_schemas_usable(cx: &Cx<'_>, p: &Params, tools: &[Value]) -> Eval {
    let mut judged = false;
    let mut hits = Vec::new();
    for s in cx.listed_tool_schemas() {
        if !judges_member(p, s.member) {
            continue;
        }
        judged = true;
        let Err(problem) = &s.compiled else {
            continue;
        };
        let (kind, mut what) = schema_problem(problem);
        if p.value.as_deref() != Some(kind) {
            continue;
        }
        // A listed schema may nest as deep as the body does: keep the message short.
        if let Some((cut, _)) = what.char_indices().nth(300) {
            what.truncate(cut);
            what.push('…');
        }
        let name = tools[s.index]
            .get("name")
            .and_then(Value::as_str)
            .map(|n| {
                let mut shown: String = n.chars().take(60).collect();
                if shown.len() < n.len() {
                    shown.push('…');
                }
                format!("tool \"{shown}\"")
            })
            .unwrap_or_else(|| format!("tool {}", s.index));
        hits.push(Hit::new(
            format!("/result/tools/{}/{}", s.index, s.member),
            format!(
                "the {} of {name} {what}; a client should reject the schema rather than treat it as permissive",
                s.member
            ),
        ));
    }
    if judged {
        Eval::from_hits(hits)
    } else {
        Eval::NotApplicable
    }
}

fn output_schema_usable(cx: &Cx<'_>, p: &Params) -> Eval {
    use crate::schema::output::{DIALECTS, OutputSchemaProblem as P};
    if let Some(tools) = cx.listed_tools() {
        return listed_schemas_usable(cx, p, tools);
    }
    if cx.complete_result().is_none() || !judges_member(p, "outputSchema") {
        return Eval::NotApplicable;
    }
    let Some(compiled) = cx.output_schema() else {
        return Eval::NotApplicable;
    };
    let Err(problem) = compiled else {
        return Eval::Pass;
    };
    let (kind, message) = match problem {
        P::UnknownDialect(uri) => (
            "dialect",
            format!(
                "the tool's outputSchema declares `$schema` \"{uri}\", a dialect this judge does not support ({}); the result is not validated, and a client should reject the schema as unsupported rather than accept any result",
                DIALECTS.join(", ")
            ),
        ),
        P::UnresolvedRef { external, why } => (
            "ref",
            format!(
                "the tool's outputSchema has a `$ref` that {} ({why}); the result is not validated, and a client should reject the schema rather than treat it as permissive",
                if *external {
                    "points outside the schema document, which is never fetched"
                } else {
                    "points nowhere in the schema document"
                }
            ),
        ),
        P::Invalid(why) => (
            "invalid",
            format!(
                "the tool's outputSchema is not a valid schema in its dialect ({why}); the result is not validated"
            ),
        ),
    };
    if p.value.as_deref() == Some(kind) {
        Eval::hit("", message)
    } else {
        Eval::Pass
    }
}

fn server_info_present(cx: &Cx<'_>, _: &Params) -> Eval {
    if result_obj(cx).is_none() {
        return Eval::NotApplicable;
    }
    let has = cx
        .result_members()
        .meta
        .filter(|m| m.is_object())
        .is_some_and(|m| m.get(SERVER_INFO).is_some());
    if has {
        Eval::Pass
    } else {
        Eval::hit(
            "/result/_meta",
            "the result's `_meta` has no `io.modelcontextprotocol/serverInfo`",
        )
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn iso8601_date_times() {
        use super::iso8601_date_time as ok;
        for good in [
            "2025-11-25T10:30:00Z",
            "2025-11-25T10:30:00.123Z",
            "2025-11-25T10:30:00,5+01:00",
            "2025-11-25T10:30Z",
            "2025-11-25T10:30:00-0530",
            "2025-11-25T10:30:00+02",
            "2025-11-25T10:30:00",
            "2016-12-31T23:59:60Z",
        ] {
            assert!(ok(good), "{good}");
        }
        for bad in [
            "",
            "2025-11-25",
            "2025-11-25 10:30:00Z",
            "2025-13-01T00:00:00Z",
            "2025-00-10T00:00:00Z",
            "2025-11-25T10:30:00.Z",
            "2025-11-25T10:30:00+5",
            "1732530600",
            "Tue, 25 Nov 2025 10:30:00 GMT",
            "2025-11-25T10:30:00Zjunk",
        ] {
            assert!(!ok(bad), "{bad}");
        }
    }
}
