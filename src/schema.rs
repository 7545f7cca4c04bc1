//! The project's versioned JSON Schemas (`schemas/<revision>/mcp-tools-call.schema.json`),
//! compiled once per revision and shared by every judgement.
//!
//! Formats are asserted: `byte` (base64, RFC 4648 standard alphabet) is checked by decoding,
//! `uri` by the validator's own URI check. Without format assertion they would be annotations
//! only (JSON Schema 2020-12), and an image whose `data` is not base64 would pass.

use std::collections::BTreeMap;
use std::sync::{LazyLock, OnceLock};

use serde_json::Value;

use crate::fast_schema::FastValidator;
use crate::vocab::Protocol;

/// The schema document of a revision, as shipped.
pub fn source(protocol: Protocol) -> &'static str {
    match protocol {
        Protocol::V2025_11_25 => {
            include_str!("../schemas/2025-11-25/mcp-tools-call.schema.json")
        }
        Protocol::V2026_07_28 => {
            include_str!("../schemas/2026-07-28/mcp-tools-call.schema.json")
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

    /// The specialised validity check of `#/$defs/<name>` ([`crate::fast_schema`]), when the
    /// definition keeps to its keyword subset.
    pub fn fast(&self, name: &str) -> Option<&FastValidator> {
        self.fast
            .get(name)?
            .get_or_init(|| FastValidator::compile(&self.root, name).ok())
            .as_ref()
    }
}

/// The validation options every shipped schema is compiled with: JSON Schema 2020-12 with
/// formats asserted, `byte` checked as base64.
pub fn options() -> jsonschema::ValidationOptions<'static> {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .with_format("byte", is_base64)
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

/// Whether `s` is base64 (RFC 4648 §4, standard alphabet, with its padding or none at all,
/// canonical trailing bits), decided by the SIMD decoder's validation pass: the same acceptance as decoding it, at
/// memory speed, without allocating (image and audio payloads are often hundreds of KB).
pub fn is_base64(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len().is_multiple_of(4) {
        base64_simd::STANDARD.check(b).is_ok()
    } else {
        base64_simd::STANDARD_NO_PAD.check(b).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine as _;

    #[test]
    fn base64_is_decoded() {
        assert!(is_base64(""));
        assert!(is_base64("aGVsbG8="));
        assert!(is_base64("aGVsbG8"));
        assert!(!is_base64("!!notbase64"));
        assert!(!is_base64("aGVsb G8="));
        assert!(!is_base64("a"));
        assert!(!is_base64("aGVsbG8=aGVsbG8="));
        let big = base64::engine::general_purpose::STANDARD.encode(vec![7u8; 100_000]);
        assert!(is_base64(&big));
        let mut broken = big.clone();
        broken.replace_range(5000..5001, "*");
        assert!(!is_base64(&broken));
        assert!(!is_base64("aGVsbG9="), "non-canonical trailing bits");
    }

    proptest::proptest! {
        /// The fast check accepts exactly what the reference decoder (the base64 crate, with
        /// RFC 4648 padding, or with none) decodes.
        #[test]
        fn agrees_with_the_reference_decoder(s in "[A-Za-z0-9+/=]{0,24}|[ -~]{0,12}") {
            use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD};
            let reference = STANDARD.decode(&s).is_ok() || STANDARD_NO_PAD.decode(&s).is_ok();
            proptest::prop_assert_eq!(is_base64(&s), reference, "{:?}", s);
        }

        #[test]
        fn encoded_bytes_pass_with_or_without_padding(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200), strip in proptest::prelude::any::<bool>()) {
            let mut s = base64::engine::general_purpose::STANDARD.encode(&bytes);
            if strip {
                s = s.trim_end_matches('=').to_string();
            }
            proptest::prop_assert!(is_base64(&s), "{:?}", s);
        }
    }

    #[test]
    fn every_revision_compiles() {
        for p in Protocol::all() {
            assert!(for_revision(p).def("CallToolResult").is_some(), "{p}");
        }
    }
}
