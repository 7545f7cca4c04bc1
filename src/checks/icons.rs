//! Icon checks: icon URIs a client must refuse, wherever the judge sees icons (the tool
//! definition, the result's content blocks and `serverInfo`, the `serverInfo` of a recorded
//! `initialize`).

use crate::check_api::{Cx, Eval, Hit, Params};
use crate::wire::jsonref::JsonRef;

crate::check_api::declare_checks! {
    "icon_scheme" => icon_scheme, ["names", "value"], ["names"], NONE,
        "an icon's `src` uses a scheme outside `names` (e.g. `javascript:`, `file:`), or is a `data:` URI that is not image data; `value` is the result `_meta` key of the server's `Implementation`, under revisions that define one";
}

/// Why an icon `src` is refused, if it is: its scheme is not in `allowed`, or it is a `data:`
/// URI whose media type is not an image.
fn refused(src: &str, allowed: &[String]) -> Option<String> {
    let scheme = src.split_once(':').map(|(s, _)| s).filter(|s| {
        s.bytes().next().is_some_and(|c| c.is_ascii_alphabetic())
            && s.bytes()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.'))
    });
    let Some(scheme) = scheme else {
        return Some("has no scheme (it is not an absolute URI)".to_string());
    };
    if !allowed.iter().any(|a| a.eq_ignore_ascii_case(scheme)) {
        return Some(format!(
            "uses the scheme `{}:`",
            scheme.to_ascii_lowercase()
        ));
    }
    if scheme.eq_ignore_ascii_case("data") {
        // data:[<media type>][;base64],<data>; no media type means text/plain.
        let rest = &src[scheme.len() + 1..];
        let head = rest.split(',').next().unwrap_or("");
        let media = head.split(';').next().unwrap_or("").trim();
        let is_image = media
            .get(..6)
            .is_some_and(|p| p.eq_ignore_ascii_case("image/"));
        if !is_image {
            let media = if media.is_empty() {
                "text/plain"
            } else {
                media
            };
            return Some(format!("is a `data:` URI of `{media}`, not image data"));
        }
    }
    None
}

fn icon_scheme(cx: &Cx<'_>, p: &Params) -> Eval {
    let allowed = &p.names;
    let mut hits = Vec::new();
    // Icons in the response message are located by pointer; icons in the exchange's context
    // (the tool definition, the session's serverInfo) are named in the message.
    let mut scan = |icons: Option<JsonRef<'_>>, at: &dyn Fn(usize) -> (String, String)| {
        for (i, icon) in icons.into_iter().flat_map(JsonRef::items).enumerate() {
            let Some(src) = icon.get("src").and_then(JsonRef::as_str) else {
                continue;
            };
            if let Some(why) = refused(src, allowed) {
                let (pointer, whose) = at(i);
                let shown: String = src.chars().take(60).collect();
                let more = if shown.len() < src.len() { "…" } else { "" };
                hits.push(Hit::new(
                    pointer,
                    format!(
                        "{whose} src \"{shown}{more}\" {why}: clients must reject icon URIs that are not https: or data: image URIs"
                    ),
                ));
            }
        }
    };
    if let Some(tool) = cx.an.ex.tool.as_ref() {
        scan(tool.get("icons").map(JsonRef::from), &|i| {
            (String::new(), format!("the tool definition's icons[{i}]"))
        });
    }
    if let Some(info) = cx
        .an
        .ex
        .initialize
        .as_ref()
        .and_then(|n| n.server_info.as_ref())
    {
        scan(info.get("icons").map(JsonRef::from), &|i| {
            (
                String::new(),
                format!("the serverInfo recorded from initialize: icons[{i}]"),
            )
        });
    }
    let rm = cx.result_members();
    for (b, block) in cx.content_blocks().iter().enumerate() {
        scan(block.icons, &|i| {
            (
                format!("/result/content/{b}/icons/{i}/src"),
                format!("content block {b}: icons[{i}]"),
            )
        });
    }
    if let Some((key, info)) = p
        .value
        .as_deref()
        .and_then(|key| Some((key, rm.meta?.get(key)?)))
    {
        scan(info.get("icons"), &|i| {
            (
                format!(
                    "/result/_meta/{}/icons/{i}/src",
                    crate::vocab::pointer::escape(key)
                ),
                format!("the result's serverInfo: icons[{i}]"),
            )
        });
    }
    Eval::from_hits(hits)
}

#[cfg(test)]
mod tests {
    use super::refused;

    #[test]
    fn schemes() {
        let allowed = ["https".to_string(), "data".to_string()];
        for ok in [
            "https://example.com/i.png",
            "HTTPS://example.com/i.png",
            "data:image/png;base64,iVBORw0KGgo=",
            "data:IMAGE/svg+xml,%3Csvg%3E",
        ] {
            assert_eq!(refused(ok, &allowed), None, "{ok}");
        }
        for (bad, why) in [
            ("javascript:alert(1)", "`javascript:`"),
            ("JavaScript:alert(1)", "`javascript:`"),
            ("file:///etc/passwd", "`file:`"),
            ("http://example.com/i.png", "`http:`"),
            ("ws://example.com/i", "`ws:`"),
            ("data:text/html;base64,PHNjcmlwdD4=", "`text/html`"),
            ("data:,hello", "`text/plain`"),
            ("icon.png", "no scheme"),
            ("", "no scheme"),
        ] {
            let r = refused(bad, &allowed).unwrap_or_default();
            assert!(r.contains(why), "{bad}: {r}");
        }
    }
}
