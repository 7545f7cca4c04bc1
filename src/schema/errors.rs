//! Validator errors shaped for people: one error per problem, at the most useful pointer, in
//! words that name the allowed values of a union.

use serde_json::Value;

/// One schema error, shaped for a finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaError {
    /// Pointer relative to the validated instance; for `required`, the missing member's pointer.
    pub pointer: String,
    /// The failing keyword.
    pub keyword: String,
    /// What is wrong, for people.
    pub message: String,
}

/// Every error of `instance` against `validator`, shaped (unions reported by their closest branch, see `flatten_error`).
pub fn shape_errors(validator: &jsonschema::Validator, instance: &Value) -> Vec<SchemaError> {
    let mut out = Vec::new();
    for e in validator.iter_errors(instance) {
        flatten_error(&e, &mut out);
    }
    out
}

/// Turns a validator error into shaped errors.
///
/// `anyOf`/`oneOf` failures are made specific, the way people expect from a union such as
/// `ContentBlock = TextContent | ImageContent | ...`:
/// - when every branch fails on the same constant (a discriminator like `type` or `method`),
///   one error there names the allowed values (`"video" is not one of "text", "image", ...`);
/// - otherwise the errors of the branch that came closest are reported: a branch whose
///   discriminator matched first, then the fewest missing members, then the fewest errors, then
///   the deepest location (`{"blob": "@@@"}` failing TextResourceContents | BlobResourceContents
///   is reported as a bad blob, not as a missing text).
fn flatten_error(e: &jsonschema::ValidationError<'_>, out: &mut Vec<SchemaError>) {
    use jsonschema::error::ValidationErrorKind as K;
    let branches = match e.kind() {
        K::AnyOf { context } | K::OneOfNotValid { context } => Some(context),
        _ => None,
    };
    if let Some(branches) = branches {
        let consts: Vec<Option<(&str, &Value)>> = branches
            .iter()
            .map(|b| {
                b.iter().find_map(|x| match x.kind() {
                    K::Constant { expected_value } => {
                        Some((x.instance_path().as_str(), expected_value.as_ref()))
                    }
                    _ => None,
                })
            })
            .collect();
        let first = consts.first().copied().flatten();
        if let Some((at, _)) = first
            && !branches.is_empty()
            && consts.iter().all(|c| c.is_some_and(|(p, _)| p == at))
        {
            let allowed: Vec<String> = consts
                .iter()
                .flatten()
                .map(|(_, v)| v.to_string())
                .collect();
            let found = e
                .instance()
                .pointer(at.strip_prefix(e.instance_path().as_str()).unwrap_or(""))
                .map_or_else(|| "the value".to_string(), Value::to_string);
            out.push(SchemaError {
                pointer: at.to_string(),
                keyword: "enum".to_string(),
                message: format!("{found} is not one of {}", allowed.join(", ")),
            });
            return;
        }
        let best = branches
            .iter()
            .zip(&consts)
            .filter(|(b, _)| !b.is_empty())
            .min_by_key(|(b, c)| {
                let missing = b
                    .iter()
                    .filter(|x| matches!(x.kind(), K::Required { .. }))
                    .count();
                let depth = b
                    .iter()
                    .map(|x| x.instance_path().as_str().matches('/').count())
                    .max()
                    .unwrap_or(0);
                (c.is_some(), missing, b.len(), std::cmp::Reverse(depth))
            });
        if let Some((best, _)) = best {
            for sub in best {
                flatten_error(sub, out);
            }
            return;
        }
    }
    let mut pointer = e.instance_path().to_string();
    if let K::Required { property } = e.kind() {
        pointer.push('/');
        let name = property.as_str().map_or_else(
            || property.to_string(),
            |s| crate::vocab::pointer::escape(s).into_owned(),
        );
        pointer.push_str(&name);
    }
    let keyword = e.kind().keyword().to_string();
    let message = match e.kind() {
        K::Format { format } => format_message(e.instance(), format),
        _ => e.to_string(),
    };
    out.push(SchemaError {
        pointer,
        keyword,
        message,
    });
}

fn format_message(instance: &Value, format: &str) -> String {
    let shown = match instance.as_str() {
        Some(s) if s.chars().count() > 40 => {
            format!("\"{}…\"", s.chars().take(40).collect::<String>())
        }
        _ => instance.to_string(),
    };
    match format {
        "byte" => format!("{shown} is not valid base64 (RFC 4648 standard alphabet)"),
        "uri" => format!("{shown} is not a valid URI"),
        other => format!("{shown} is not a valid \"{other}\""),
    }
}
