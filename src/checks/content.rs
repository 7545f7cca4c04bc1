//! Content block checks beyond the schema: base64 payloads written without their padding.

use crate::check_api::{Cx, Eval, Hit, Params};
use crate::schema::is_base64;
use crate::wire::jsonref::JsonRef;

crate::check_api::declare_checks! {
    "base64_padded" => base64_padded, [], [], RESULT,
        "an image or audio block's `data`, or an embedded resource's `blob`, is base64 without the `=` padding its length needs";
}

/// How many `=` a base64 text lacks: its length is not a multiple of four, and with its
/// padding added it would decode (text that does not decode at all is the schema's concern).
fn missing_padding(s: &str) -> Option<usize> {
    let short = (4 - s.len() % 4) % 4;
    (short > 0 && is_base64(s)).then_some(short)
}

fn base64_padded(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some(content) = cx.complete_result().and_then(|r| r.get("content")) else {
        return Eval::NotApplicable;
    };
    let mut hits = Vec::new();
    let mut look = |value: Option<JsonRef<'_>>, at: String| {
        if let Some(n) = value.and_then(JsonRef::as_str).and_then(missing_padding) {
            hits.push(Hit::new(
                at,
                format!(
                    "base64 of {} characters without its padding: {n} `=` missing at its end",
                    value.and_then(JsonRef::as_str).map_or(0, str::len)
                ),
            ));
        }
    };
    for (i, block) in content.items().enumerate() {
        match block.get("type").and_then(JsonRef::as_str) {
            Some("image" | "audio") => look(block.get("data"), format!("/result/content/{i}/data")),
            Some("resource") => look(
                block.get("resource").and_then(|r| r.get("blob")),
                format!("/result/content/{i}/resource/blob"),
            ),
            _ => {}
        }
    }
    Eval::from_hits(hits)
}

#[cfg(test)]
mod tests {
    use super::missing_padding;

    #[test]
    fn padding_is_counted_only_for_base64() {
        assert_eq!(missing_padding("aGVsbG8="), None);
        assert_eq!(missing_padding("aGVsbG8"), Some(1));
        assert_eq!(missing_padding("aGk"), Some(1));
        assert_eq!(missing_padding("YQ"), Some(2));
        assert_eq!(missing_padding(""), None);
        assert_eq!(missing_padding("!!x"), None);
        assert_eq!(missing_padding("a"), None);
    }
}
