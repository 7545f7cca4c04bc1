//! Mutations of JSON instances: paths to every value, one-step edits chosen by numbers (so a
//! proptest case determines them), and the replacement values and tags they draw from.

use serde_json::{Value, json};

/// Replacement values for mutations: wrong types, edge numbers, near-miss shapes.
pub fn value_pool() -> Vec<Value> {
    vec![
        Value::Null,
        json!(true),
        json!(false),
        json!(0),
        json!(1),
        json!(-1),
        json!(1.5),
        json!(2.0),
        json!(-32602),
        json!(-32602.0),
        json!(-32020),
        json!(-32042),
        json!(""),
        json!("x"),
        json!("2.0"),
        json!("complete"),
        json!("input_required"),
        json!("https://example.com/p"),
        json!([]),
        json!({}),
        json!([1, "a", null]),
        json!([{"type": "text", "text": "t"}]),
        json!({"type": "text", "text": "t"}),
        json!({"type": "text"}),
        json!({"type": "image", "data": "AA==", "mimeType": "image/png"}),
        json!({"type": "resource", "resource": {"uri": "u", "blob": "AA=="}}),
        json!({"type": "tool_result", "toolUseId": "1", "content": []}),
        json!({"resultType": "complete"}),
        json!({"resultType": "input_required", "requestState": "s"}),
        json!({"code": -32603, "message": "m"}),
        json!({"method": "roots/list"}),
        json!({"method": "elicitation/create", "params": {"mode": "url", "message": "m", "url": "u"}}),
        json!({"name": "n", "version": "1"}),
        json!({"requestedSchema": {"type": "object", "properties": {}}, "message": "m"}),
        json!({"a": 1.5}),
        json!({"a": null}),
        json!({"a": {"b": [1, true, "s"]}}),
    ]
}

/// Strings that flip discriminators (`type`, `resultType`, `method`, `mode`, `jsonrpc`).
pub const TAGS: &[&str] = &[
    "text",
    "image",
    "audio",
    "resource_link",
    "resource",
    "tool_use",
    "tool_result",
    "video",
    "complete",
    "input_required",
    "banana",
    "sampling/createMessage",
    "roots/list",
    "elicitation/create",
    "ping",
    "tasks/get",
    "tools/call",
    "notifications/progress",
    "url",
    "form",
    "2.0",
    "1.0",
    "object",
    "string",
    "array",
    "number",
    "integer",
    "boolean",
    "working",
    "user",
    "",
];

/// Member names to add: unknown ones and ones with meaning somewhere in the schemas.
const KEYS: &[&str] = &[
    "extra",
    "type",
    "resultType",
    "content",
    "structuredContent",
    "isError",
    "_meta",
    "code",
    "message",
    "data",
    "id",
    "jsonrpc",
    "result",
    "error",
    "method",
    "params",
    "inputRequests",
    "requestState",
    "mode",
    "url",
    "elicitationId",
    "io.modelcontextprotocol/serverInfo",
    "io.modelcontextprotocol/subscriptionId",
    "text",
    "blob",
    "uri",
    "name",
    "annotations",
    "resource",
    "requiredCapabilities",
    "task",
    "ttl",
    "properties",
    "outputSchema",
];

pub const DISCRIMINATOR_KEYS: &[&str] = &["type", "resultType", "method", "mode", "jsonrpc"];

#[derive(Clone, Debug)]
pub enum Seg {
    Key(String),
    Idx(usize),
}

pub fn paths(v: &Value, prefix: &mut Vec<Seg>, out: &mut Vec<Vec<Seg>>) {
    out.push(prefix.clone());
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                prefix.push(Seg::Key(k.clone()));
                paths(x, prefix, out);
                prefix.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                prefix.push(Seg::Idx(i));
                paths(x, prefix, out);
                prefix.pop();
            }
        }
        _ => {}
    }
}

pub fn at_mut<'a>(v: &'a mut Value, path: &[Seg]) -> &'a mut Value {
    path.iter().fold(v, |cur, seg| match seg {
        Seg::Key(k) => cur.get_mut(k.as_str()).expect("path key"),
        Seg::Idx(i) => cur.get_mut(*i).expect("path index"),
    })
}

/// Applies one mutation chosen by `kind`, `where_` and `what` (all reduced modulo the
/// available choices) and describes it.
pub fn mutate(v: &mut Value, kind: u8, where_: usize, what: usize, pool: &[Value]) -> String {
    let mut all = Vec::new();
    paths(v, &mut Vec::new(), &mut all);
    let pick = |filter: &dyn Fn(&Value, &[Seg]) -> bool, v: &Value| -> Option<Vec<Seg>> {
        let cands: Vec<&Vec<Seg>> = all
            .iter()
            .filter(|p| {
                let mut cur = v;
                for seg in p.iter() {
                    cur = match seg {
                        Seg::Key(k) => &cur[k.as_str()],
                        Seg::Idx(i) => &cur[*i],
                    };
                }
                filter(cur, p)
            })
            .collect();
        (!cands.is_empty()).then(|| cands[where_ % cands.len()].clone())
    };
    let show = |p: &[Seg]| -> String {
        p.iter()
            .map(|s| match s {
                Seg::Key(k) => format!("/{k}"),
                Seg::Idx(i) => format!("/{i}"),
            })
            .collect()
    };
    match kind % 7 {
        // Drop a member.
        0 => match pick(&|x, _| x.as_object().is_some_and(|m| !m.is_empty()), v) {
            Some(p) => {
                let obj = at_mut(v, &p).as_object_mut().unwrap();
                let key = obj.keys().nth(what % obj.len()).unwrap().clone();
                obj.remove(&key);
                format!("drop {}/{key}", show(&p))
            }
            None => "drop (none)".into(),
        },
        // Replace a value (changes its type or value).
        1 => {
            let p = pick(&|_, _| true, v).unwrap();
            *at_mut(v, &p) = pool[what % pool.len()].clone();
            format!("replace {} with {}", show(&p), pool[what % pool.len()])
        }
        // Add a member (unknown or meaningful).
        2 => match pick(&|x, _| x.is_object(), v) {
            Some(p) => {
                let key = KEYS[what % KEYS.len()];
                let val = pool[(what / KEYS.len()) % pool.len()].clone();
                let shown = val.to_string();
                at_mut(v, &p)
                    .as_object_mut()
                    .unwrap()
                    .insert(key.into(), val);
                format!("add {}/{key} = {shown}", show(&p))
            }
            None => "add (none)".into(),
        },
        // Change a discriminator string (type/resultType/method/mode/jsonrpc), or any string.
        3 => {
            let disc = pick(
                &|x, p| {
                    x.is_string()
                        && matches!(p.last(), Some(Seg::Key(k)) if DISCRIMINATOR_KEYS.contains(&k.as_str()))
                },
                v,
            );
            match disc.or_else(|| pick(&|x, _| x.is_string(), v)) {
                Some(p) => {
                    let tag = TAGS[what % TAGS.len()];
                    *at_mut(v, &p) = json!(tag);
                    format!("retag {} = {tag:?}", show(&p))
                }
                None => "retag (none)".into(),
            }
        }
        // Nest a value into an array or an object.
        4 => {
            let p = pick(&|_, _| true, v).unwrap();
            let slot = at_mut(v, &p);
            let inner = slot.take();
            if what.is_multiple_of(2) {
                *slot = json!([inner]);
                format!("wrap {} in array", show(&p))
            } else {
                *slot = json!({ "value": inner });
                format!("wrap {} in object", show(&p))
            }
        }
        // Edit an array: empty it, duplicate an element, or append a pool value.
        5 => match pick(&|x, _| x.is_array(), v) {
            Some(p) => {
                let arr = at_mut(v, &p).as_array_mut().unwrap();
                match what % 3 {
                    0 => {
                        arr.clear();
                        format!("empty {}", show(&p))
                    }
                    1 if !arr.is_empty() => {
                        let dup = arr[what % arr.len()].clone();
                        arr.push(dup);
                        format!("duplicate an element of {}", show(&p))
                    }
                    _ => {
                        arr.push(pool[what % pool.len()].clone());
                        format!("append {} to {}", pool[what % pool.len()], show(&p))
                    }
                }
            }
            None => "array edit (none)".into(),
        },
        // Nudge a number: non-integer, float spelling, negative, out of 0..1.
        _ => match pick(&|x, _| x.is_number(), v) {
            Some(p) => {
                let slot = at_mut(v, &p);
                let n = slot.as_f64().unwrap_or(0.0);
                let new = match what % 4 {
                    0 => json!(n + 0.5),
                    1 => json!(n.trunc()),
                    2 => json!(-n - 1.0),
                    _ => json!(n + 1.0),
                };
                let shown = new.to_string();
                *slot = new;
                format!("number {} = {shown}", show(&p))
            }
            None => "number (none)".into(),
        },
    }
}

/// The JSON Pointer of a path.
pub fn pointer_of(path: &[Seg]) -> String {
    path.iter()
        .map(|s| match s {
            Seg::Key(k) => format!("/{}", k.replace('~', "~0").replace('/', "~1")),
            Seg::Idx(i) => format!("/{i}"),
        })
        .collect()
}

/// Values that stand for "a member of another JSON type".
pub fn type_representatives() -> Vec<Value> {
    vec![
        Value::Null,
        json!(true),
        json!(0),
        json!(-2),
        json!(1.5),
        json!("x"),
        json!([]),
        json!({}),
    ]
}
