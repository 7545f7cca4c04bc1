//! JSON Pointer (RFC 6901) tokens and their display as JSONPath-like strings.

use std::borrow::Cow;

/// Escapes one reference token: `~` becomes `~0` and `/` becomes `~1`.
pub fn escape(token: &str) -> Cow<'_, str> {
    if token.contains(['~', '/']) {
        Cow::Owned(token.replace('~', "~0").replace('/', "~1"))
    } else {
        Cow::Borrowed(token)
    }
}

/// Unescapes one reference token: `~1` becomes `/` and `~0` becomes `~`.
pub fn unescape(token: &str) -> Cow<'_, str> {
    if token.contains('~') {
        Cow::Owned(token.replace("~1", "/").replace("~0", "~"))
    } else {
        Cow::Borrowed(token)
    }
}

/// Converts a JSON Pointer to a JSONPath-like display form: `/result/content/0` →
/// `$.result.content[0]`.
pub fn json_path(pointer: &str) -> String {
    let mut out = String::from("$");
    for seg in pointer.split('/').skip(1) {
        let seg = unescape(seg);
        if !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()) {
            out.push('[');
            out.push_str(&seg);
            out.push(']');
        } else if !seg.is_empty()
            && seg
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
        {
            out.push('.');
            out.push_str(&seg);
        } else {
            out.push_str("['");
            out.push_str(&seg.replace('\\', "\\\\").replace('\'', "\\'"));
            out.push_str("']");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths() {
        assert_eq!(json_path(""), "$");
        assert_eq!(
            json_path("/result/content/0/type"),
            "$.result.content[0].type"
        );
        assert_eq!(
            json_path("/result/_meta/io.modelcontextprotocol~1serverInfo"),
            "$.result._meta['io.modelcontextprotocol/serverInfo']"
        );
    }

    #[test]
    fn tokens_round_trip() {
        for t in ["plain", "a/b", "x~y", "~1", "/~0/"] {
            assert_eq!(unescape(&escape(t)), t);
        }
        assert_eq!(escape("io.x/y~z"), "io.x~1y~0z");
    }
}
