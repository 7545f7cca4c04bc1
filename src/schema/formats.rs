//! The formats every shipped schema asserts: `byte` (base64, RFC 4648 standard alphabet) is
//! checked by decoding, `uri` by the validator's own URI check. Without format assertion they
//! would be annotations only (JSON Schema 2020-12), and an image whose `data` is not base64
//! would pass.

/// The validation options every shipped schema is compiled with: JSON Schema 2020-12 with
/// formats asserted, `byte` checked as base64.
pub fn options() -> jsonschema::ValidationOptions<'static> {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .with_format("byte", is_base64)
}

/// Whether `s` is base64 (RFC 4648 §4, standard alphabet, with its padding or none at all,
/// canonical trailing bits; padding left off is judged by a check of its own, so a format
/// error means text that does not decode), decided by the SIMD decoder's validation pass: the same acceptance as decoding it, at
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
}
