//! Instances synthesized from a JSON Schema document (the official MCP schemas): valid in
//! most cases, with most optional members filled in.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use super::rng::Rng;

fn deep_merge(into: &mut Value, from: Value) {
    match (into, from) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                match a.get_mut(&k) {
                    Some(slot) => deep_merge(slot, v),
                    None => {
                        a.insert(k, v);
                    }
                }
            }
        }
        (slot, v) => *slot = v,
    }
}

/// Builds an instance that the official `schema` probably accepts, filling most optional
/// members, choosing union branches and enum values with `rng`. Only the keywords the
/// official MCP schemas use are understood.
pub fn synth(root: &Value, schema: &Value, depth: usize, rng: &mut Rng) -> Value {
    let Value::Object(s) = schema else {
        return json!({"any": 1});
    };
    if depth > 12 {
        return json!({});
    }
    if let Some(Value::String(r)) = s.get("$ref") {
        let target = root
            .pointer(r.trim_start_matches('#'))
            .unwrap_or_else(|| panic!("official $ref {r} unresolved"));
        return synth(root, target, depth + 1, rng);
    }
    if let Some(Value::Array(parts)) = s.get("allOf") {
        let mut acc = Value::Null;
        for part in parts {
            let v = synth(root, part, depth + 1, rng);
            if acc.is_null() {
                acc = v;
            } else {
                deep_merge(&mut acc, v);
            }
        }
        return acc;
    }
    if let Some(Value::Array(branches)) = s.get("anyOf") {
        let pick = rng.below(branches.len());
        return synth(root, &branches[pick], depth + 1, rng);
    }
    if let Some(c) = s.get("const") {
        return c.clone();
    }
    if let Some(Value::Array(values)) = s.get("enum") {
        return values[rng.below(values.len())].clone();
    }
    let ty = match s.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts[rng.below(ts.len())]
            .as_str()
            .unwrap_or("string")
            .to_owned(),
        _ if s.contains_key("properties") || s.contains_key("additionalProperties") => {
            "object".into()
        }
        _ => {
            let pool = [
                json!("free"),
                json!(7),
                json!({"k": [1, "v"]}),
                json!([true]),
            ];
            return pool[rng.below(pool.len())].clone();
        }
    };
    match ty.as_str() {
        "object" => {
            let mut out = Map::new();
            let required: BTreeSet<&str> = s
                .get("required")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if let Some(Value::Object(props)) = s.get("properties") {
                for (name, sub) in props {
                    let keep = required.contains(name.as_str())
                        || (depth < 7 && (rng.full || rng.below(5) != 0));
                    if keep {
                        out.insert(name.clone(), synth(root, sub, depth + 1, rng));
                    }
                }
            }
            match s.get("additionalProperties") {
                Some(ap @ Value::Object(m)) if !m.is_empty() && depth < 6 => {
                    out.insert("extraKey".into(), synth(root, ap, depth + 1, rng));
                }
                Some(Value::Bool(false)) => {}
                _ if rng.below(3) == 0 => {
                    out.insert("x-unlisted".into(), json!("u"));
                }
                _ => {}
            }
            Value::Object(out)
        }
        "array" => {
            let n = if depth > 7 { 0 } else { 1 + rng.below(2) };
            let items = s.get("items").cloned().unwrap_or(json!({}));
            Value::Array(
                (0..n)
                    .map(|_| synth(root, &items, depth + 1, rng))
                    .collect(),
            )
        }
        "string" => match s.get("format").and_then(Value::as_str) {
            Some("uri") => json!("https://example.com/r"),
            Some("byte") => json!("aGVsbG8="),
            _ => json!("text"),
        },
        "integer" => json!(3),
        "number" => {
            if s.contains_key("maximum") {
                json!(0.5)
            } else {
                json!(2.5)
            }
        }
        "boolean" => json!(rng.below(2) == 0),
        "null" => Value::Null,
        other => panic!("unexpected type {other}"),
    }
}
