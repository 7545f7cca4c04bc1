//! A text content block mirrors `structuredContent` when it reads as the same JSON. The check
//! compares the text on a tape (`wire::tape::text_equals`); these properties hold it to what
//! comparing `serde_json`'s parse of the text with the value says, on generated values written
//! in the ways a server may write them: compact, pretty, members in another order, numbers
//! respelt, strings escaped, or another value altogether.

use mcp_verdict::wire::tape::text_equals;
use proptest::prelude::*;
use serde_json::Value;

use crate::engine_props::json_value;

/// `v` written with every object's members in reverse order.
fn reversed(v: &Value) -> String {
    match v {
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(reversed).collect();
            format!("[{}]", items.join(","))
        }
        Value::Object(members) => {
            let members: Vec<String> = members
                .iter()
                .rev()
                .map(|(k, v)| format!("{}:{}", Value::String(k.clone()), reversed(v)))
                .collect();
            format!("{{{}}}", members.join(" , "))
        }
        other => other.to_string(),
    }
}

/// What `serde_json` says: the text parses, and its parse equals `v`.
fn serde_says(text: &str, v: &Value) -> bool {
    serde_json::from_str::<Value>(text).is_ok_and(|parsed| parsed == *v)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn a_text_mirrors_a_value_as_serde_json_compares_them(
        v in json_value(),
        other in json_value(),
        how in 0usize..7,
    ) {
        let compact = v.to_string();
        let text = match how {
            0 => compact.clone(),
            1 => serde_json::to_string_pretty(&v).unwrap(),
            2 => reversed(&v),
            // Exponents spelt as a server might (`E`, no sign), which serde_json reads as `e+`.
            3 => compact.replace("e+", "E").replace("e-", "E-"),
            4 => compact.replace('m', "\\u006d").replace('/', "\\/"),
            5 => other.to_string(),
            // An `id` member put first: a repeated member when the object has one (serde_json
            // keeps the last; the tape leaves such text to serde_json), an extra one otherwise.
            _ => compact.replacen('{', "{\"id\":[],", 1),
        };
        prop_assert_eq!(text_equals(&text, &v), serde_says(&text, &v), "{} against {}", text, v);
        // Never vacuous: a text mirrors its own parse, however it is written (every text but
        // a repeated member in an empty object is JSON).
        match serde_json::from_str::<Value>(&text) {
            Ok(parsed) => prop_assert!(text_equals(&text, &parsed), "{} against its own parse", text),
            Err(_) => prop_assert!(how == 6 && !text_equals(&text, &v)),
        }
    }
}
