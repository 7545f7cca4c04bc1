//! The project's versioned JSON Schemas (`schemas/<revision>/mcp-tools-call.schema.json`),
//! compiled once per revision and shared by every judgement, with a specialised validity check
//! ([`FastValidator`]) and the shaping of validator errors into findings ([`shape_errors`]).
//!
//! Formats are asserted: `byte` (base64, RFC 4648 standard alphabet) is checked by decoding,
//! `uri` by the validator's own URI check. Without format assertion they would be annotations
//! only (JSON Schema 2020-12), and an image whose `data` is not base64 would pass.

pub mod dialect;
mod errors;
mod fast;
mod formats;
pub mod output;

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde_json::{Map, Value};

use crate::vocab::Protocol;
use crate::wire::analysis::Candidate;
pub use errors::{SchemaError, shape_errors};
pub use fast::FastValidator;
pub use formats::{is_base64, options};

/// The schema document of a revision, as shipped.
pub fn source(protocol: Protocol) -> &'static str {
    match protocol {
        Protocol::V2025_11_25 => {
            include_str!("../../schemas/2025-11-25/mcp-tools-call.schema.json")
        }
        Protocol::V2026_07_28 => {
            include_str!("../../schemas/2026-07-28/mcp-tools-call.schema.json")
        }
    }
}

/// Compiled validators of one revision, keyed by definition name.
pub struct RevisionSchemas {
    protocol: Protocol,
    /// The full validator of each definition, compiled on the first question only it answers
    /// (an error to report, a definition without a specialised check), and then alone: most
    /// exchanges are decided valid by the specialised checks, and compiling every definition
    /// of both revisions took a one-exchange run about three quarters of its instructions.
    full: BTreeMap<String, OnceLock<Option<jsonschema::Validator>>>,
    root: Value,
    /// The specialised validity check of each definition, compiled on first use (`None` when
    /// the definition uses a keyword outside its subset).
    fast: BTreeMap<String, OnceLock<Option<FastValidator>>>,
    /// The JSON-RPC messages the schema defines, by method.
    messages: BTreeMap<String, MessageDef>,
}

/// A JSON-RPC message the revision's schema defines: a definition with a `jsonrpc` member and
/// a constant `method` (the schema holds those a server may send where a client awaits a
/// tools/call response).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MessageDef {
    /// The definition's name (`#/$defs/<name>`).
    pub def: String,
    /// Whether it is a request (it requires an `id`), not a notification.
    pub request: bool,
}

/// The message definitions of a schema document, by method.
fn message_defs(root: &Value) -> BTreeMap<String, MessageDef> {
    let defs = root.get("$defs").and_then(Value::as_object);
    defs.into_iter()
        .flatten()
        .filter_map(|(name, d)| {
            let props = d.get("properties")?;
            props.get("jsonrpc")?;
            let method = props.get("method")?.get("const")?.as_str()?;
            let request = d
                .get("required")
                .and_then(Value::as_array)
                .is_some_and(|r| r.iter().any(|k| k == "id"));
            Some((
                method.to_string(),
                MessageDef {
                    def: name.clone(),
                    request,
                },
            ))
        })
        .collect()
}

impl std::fmt::Debug for RevisionSchemas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RevisionSchemas").finish_non_exhaustive()
    }
}

impl RevisionSchemas {
    /// The validator of `#/$defs/<name>`.
    pub fn def(&self, name: &str) -> Option<&jsonschema::Validator> {
        self.full
            .get(name)?
            .get_or_init(|| Some(self.compile(name)))
            .as_ref()
    }

    /// The validator of `#/$defs/<name>`: the document with a `$ref` to the definition at its
    /// root, so that what the definition refers to is compiled and nothing else.
    fn compile(&self, name: &str) -> jsonschema::Validator {
        let mut doc = Map::new();
        if let Some(dialect) = self.root.get("$schema") {
            doc.insert("$schema".into(), dialect.clone());
        }
        doc.insert("$ref".into(), Value::String(format!("#/$defs/{name}")));
        if let Some(defs) = self.root.get("$defs") {
            doc.insert("$defs".into(), defs.clone());
        }
        options().build(&Value::Object(doc)).unwrap_or_else(|e| {
            panic!(
                "schemas/{}: shipped schema's {name} does not compile: {e}",
                self.protocol
            )
        })
    }

    /// The JSON-RPC message the schema defines for `method`, if any.
    pub fn message(&self, method: &str) -> Option<&MessageDef> {
        self.messages.get(method)
    }

    /// Whether `message`, sent with `method`, validates against the definition the schema has
    /// for that method: the specialised check decides "valid" alone, the full validator every
    /// "no". True when the schema defines no such method (nothing to validate it against).
    pub fn accepts(&self, method: &str, message: &Value) -> bool {
        let Some(def) = self.message(method) else {
            return true;
        };
        if self.fast(&def.def).is_some_and(|f| f.is_valid(message)) {
            return true;
        }
        self.def(&def.def).is_none_or(|v| v.is_valid(message))
    }

    /// [`Self::accepts`] for a message read onto a tape, on the specialised check alone:
    /// `true` is final, `false` only "not decided here" (ask [`Self::accepts`] with the
    /// parsed message). Debug builds hold every `true` against the full validator.
    pub fn accepts_tape(&self, method: &str, message: crate::wire::tape::Node<'_, '_>) -> bool {
        let Some(def) = self.message(method) else {
            return true;
        };
        let valid = self
            .fast(&def.def)
            .is_some_and(|f| f.is_valid_tape(message));
        debug_assert!(
            !valid
                || self
                    .def(&def.def)
                    .is_none_or(|v| v.is_valid(&message.to_value())),
            "the fast check accepted on a tape what jsonschema refuses: {}",
            message.to_value()
        );
        valid
    }

    /// [`Self::accepts_tape`] or [`Self::accepts`], as the notification was put.
    pub fn accepts_candidate(&self, method: &str, message: Candidate<'_, '_>) -> bool {
        match message {
            Candidate::Tape(t) => self.accepts_tape(method, t),
            Candidate::Value(v) => self.accepts(method, v),
        }
    }

    /// Whether the schema defines any request a server may send (revisions that moved server
    /// requests into results define none).
    pub fn defines_server_requests(&self) -> bool {
        self.messages.values().any(|m| m.request)
    }

    /// The specialised validity check of `#/$defs/<name>` ([`FastValidator`]), when the
    /// definition keeps to its keyword subset.
    pub fn fast(&self, name: &str) -> Option<&FastValidator> {
        self.fast
            .get(name)?
            .get_or_init(|| FastValidator::compile(&self.root, name).ok())
            .as_ref()
    }
}

/// Each revision's schemas, built on first use of that revision: a run that judges under one
/// revision never builds the other's.
static COMPILED: [OnceLock<RevisionSchemas>; 2] = [OnceLock::new(), OnceLock::new()];

/// Reads a revision's shipped schema document; its validators are compiled when first asked
/// for ([`RevisionSchemas::def`], [`RevisionSchemas::fast`]).
fn load(p: Protocol) -> RevisionSchemas {
    let root: Value = serde_json::from_str(source(p))
        .unwrap_or_else(|e| panic!("schemas/{p}: shipped schema is not JSON: {e}"));
    let fast: BTreeMap<String, OnceLock<Option<FastValidator>>> = root
        .get("$defs")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|d| d.keys())
        .map(|k| (k.clone(), OnceLock::new()))
        .collect();
    let messages = message_defs(&root);
    RevisionSchemas {
        protocol: p,
        full: fast.keys().map(|k| (k.clone(), OnceLock::new())).collect(),
        root,
        fast,
        messages,
    }
}

/// The compiled schemas of a revision.
pub fn for_revision(protocol: Protocol) -> &'static RevisionSchemas {
    let slot = match protocol {
        Protocol::V2025_11_25 => &COMPILED[0],
        Protocol::V2026_07_28 => &COMPILED[1],
    };
    slot.get_or_init(|| load(protocol))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_definition_of_every_revision_compiles() {
        // Definitions are compiled on first need, so a shipped one that does not compile
        // would otherwise show only when an exchange first needs it.
        for p in Protocol::all() {
            let rev = for_revision(p);
            assert!(rev.full.len() > 50, "{p}: {} definitions", rev.full.len());
            for name in rev.full.keys() {
                assert!(rev.def(name).is_some(), "{p}: {name}");
            }
        }
    }

    #[test]
    fn message_definitions_by_method() {
        let legacy = for_revision(Protocol::V2025_11_25);
        let modern = for_revision(Protocol::V2026_07_28);
        let progress = legacy.message("notifications/progress").unwrap();
        assert_eq!(progress.def, "ProgressNotification");
        assert!(!progress.request);
        assert!(legacy.message("elicitation/create").unwrap().request);
        assert!(legacy.defines_server_requests());
        // 2026-07-28 embeds server requests in results: none is a JSON-RPC message of its own.
        assert!(modern.message("elicitation/create").is_none());
        assert!(!modern.defines_server_requests());
        for rev in [legacy, modern] {
            for m in ["notifications/progress", "notifications/message"] {
                let def = &rev.message(m).unwrap().def;
                assert!(
                    rev.fast(def).is_some(),
                    "{def} has no fast check: {:?}",
                    FastValidator::compile(&rev.root, def).err()
                );
            }
            assert!(rev.message("tools/call").is_none());
            for m in rev.messages.values() {
                assert!(rev.def(&m.def).is_some(), "{}", m.def);
            }
        }
    }
}
