//! The project's versioned JSON Schemas (`schemas/<revision>/mcp-tools-call.schema.json`),
//! compiled once per revision and shared by every judgement, with a specialised validity check
//! ([`FastValidator`]) and the shaping of validator errors into findings ([`shape_errors`]).
//!
//! Formats are asserted: `byte` (base64, RFC 4648 standard alphabet) is checked by decoding,
//! `uri` by the validator's own URI check. Without format assertion they would be annotations
//! only (JSON Schema 2020-12), and an image whose `data` is not base64 would pass.

mod errors;
mod fast;
mod formats;
pub mod output;

use std::collections::BTreeMap;
use std::sync::{LazyLock, OnceLock};

use serde_json::Value;

use crate::vocab::Protocol;
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
    map: jsonschema::ValidatorMap,
    root: Value,
    /// The specialised validity check of each definition, compiled on first use (`None` when
    /// the definition uses a keyword outside its subset).
    fast: BTreeMap<String, OnceLock<Option<FastValidator>>>,
}

impl std::fmt::Debug for RevisionSchemas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RevisionSchemas").finish_non_exhaustive()
    }
}

impl RevisionSchemas {
    /// The validator of `#/$defs/<name>`.
    pub fn def(&self, name: &str) -> Option<&jsonschema::Validator> {
        let mut key = String::with_capacity(8 + name.len());
        key.push_str("#/$defs/");
        key.push_str(name);
        self.map.get(&key)
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

static COMPILED: LazyLock<BTreeMap<Protocol, RevisionSchemas>> = LazyLock::new(|| {
    Protocol::all()
        .map(|p| {
            let root: Value = serde_json::from_str(source(p))
                .unwrap_or_else(|e| panic!("schemas/{p}: shipped schema is not JSON: {e}"));
            let map = options()
                .build_map(&root)
                .unwrap_or_else(|e| panic!("schemas/{p}: shipped schema does not compile: {e}"));
            let fast = root
                .get("$defs")
                .and_then(Value::as_object)
                .into_iter()
                .flat_map(|d| d.keys())
                .map(|k| (k.clone(), OnceLock::new()))
                .collect();
            (p, RevisionSchemas { map, root, fast })
        })
        .collect()
});

/// The compiled schemas of a revision.
pub fn for_revision(protocol: Protocol) -> &'static RevisionSchemas {
    &COMPILED[&protocol]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_revision_compiles() {
        for p in Protocol::all() {
            assert!(for_revision(p).def("CallToolResult").is_some(), "{p}");
        }
    }
}
