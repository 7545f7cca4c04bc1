//! JSON numbers read exactly.
//!
//! The crate reads JSON with `serde_json`'s `arbitrary_precision`: every number keeps the text
//! it was written with, so an id or a code beyond 64 bits is neither rounded to a double nor
//! printed in another form, and a number beyond a double (`1e400`, which RFC 8259 section 6
//! allows: "This specification allows implementations to set limits on the range and
//! precision of numbers accepted") is read instead of refused. This module compares and
//! classifies such numbers by their decimal value, never through a float. No crate does this
//! for `serde_json::Number` without pulling in a big-number library, and the comparison needs
//! only the digits.

use serde_json::{Number, Value};

/// A number's decimal value in one canonical form: its sign, its significant digits (no
/// leading or trailing zeros) and the power of ten of the last of them. Zero has no digits
/// and no sign, so `0`, `-0`, `0.0` and `0e5` are one value.
#[derive(Debug, PartialEq, Eq)]
struct Decimal {
    negative: bool,
    digits: Vec<u8>,
    exponent: i128,
}

impl Decimal {
    /// Reads a JSON number's text (RFC 8259 grammar). `None` for text that is not one, or for
    /// an exponent too long to hold (more than 30 digits), which is then compared as written.
    fn parse(text: &str) -> Option<Decimal> {
        let bytes = text.as_bytes();
        let (negative, rest) = match bytes.first()? {
            b'-' => (true, &bytes[1..]),
            _ => (false, bytes),
        };
        let mantissa_end = rest
            .iter()
            .position(|b| matches!(b, b'e' | b'E'))
            .unwrap_or(rest.len());
        let (mantissa, exp_part) = rest.split_at(mantissa_end);
        let (int, frac) = match mantissa.iter().position(|&b| b == b'.') {
            Some(dot) => (&mantissa[..dot], &mantissa[dot + 1..]),
            None => (mantissa, &[][..]),
        };
        if int.is_empty() || !int.iter().chain(frac).all(u8::is_ascii_digit) {
            return None;
        }
        let mut exponent: i128 = 0;
        if let Some((_, e)) = exp_part.split_first() {
            let (neg, digits) = match e.first() {
                Some(b'-') => (true, &e[1..]),
                Some(b'+') => (false, &e[1..]),
                _ => (false, e),
            };
            if digits.is_empty() || digits.len() > 30 || !digits.iter().all(u8::is_ascii_digit) {
                return None;
            }
            let value = std::str::from_utf8(digits).ok()?.parse::<i128>().ok()?;
            exponent = if neg { -value } else { value };
        }
        // The digits of the mantissa without its point; the point's place moves the exponent.
        let mut digits: Vec<u8> = int.iter().chain(frac).copied().collect();
        exponent -= frac.len() as i128;
        let leading = digits.iter().take_while(|&&d| d == b'0').count();
        digits.drain(..leading);
        while digits.last() == Some(&b'0') {
            digits.pop();
            exponent += 1;
        }
        if digits.is_empty() {
            return Some(Decimal {
                negative: false,
                digits,
                exponent: 0,
            });
        }
        Some(Decimal {
            negative,
            digits,
            exponent,
        })
    }

    fn is_integer(&self) -> bool {
        self.exponent >= 0
    }
}

/// The text a number was written with (`arbitrary_precision` keeps it).
pub fn text(n: &Number) -> &str {
    n.as_str()
}

/// Whether two JSON numbers have the same value, exactly: `18446744073709551616` and
/// `18446744073709551617` differ (a double holds neither), `1` and `1.0` are equal.
pub fn numbers_equal(a: &Number, b: &Number) -> bool {
    if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
        return x == y;
    }
    if let (Some(x), Some(y)) = (a.as_u64(), b.as_u64()) {
        return x == y;
    }
    match (Decimal::parse(text(a)), Decimal::parse(text(b))) {
        (Some(x), Some(y)) => x == y,
        _ => text(a) == text(b),
    }
}

/// Whether a JSON number is an integer as JSON Schema's `integer` counts one (`5`, `5.0`,
/// `5e2`, and integers of any size), decided on its digits.
pub fn is_integer(n: &Number) -> bool {
    n.is_i64() || n.is_u64() || Decimal::parse(text(n)).is_some_and(|d| d.is_integer())
}

/// Whether a value is a JSON number that is an integer (see [`is_integer`]).
pub fn is_integer_value(v: &Value) -> bool {
    matches!(v, Value::Number(n) if is_integer(n))
}

/// Whether two JSON-RPC ids are the same id: numbers by exact value, anything else by
/// equality.
pub fn ids_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => numbers_equal(x, y),
        _ => a == b,
    }
}

/// Reads an integer from a JSON number written either way (`-32602` or `-32602.0`), as JSON
/// Schema's `integer` does,
/// decided on the number's digits: `-32602.0000000000000001` is no integer, although a double
/// rounds it to one.
pub fn as_integer(v: &Value) -> Option<i64> {
    let n = v.as_number()?;
    if let Some(i) = n.as_i64() {
        return Some(i);
    }
    if !is_integer(n) {
        return None;
    }
    // Within 2^53 a double holds every integer exactly.
    let f = n.as_f64()?;
    (f.abs() < 9.0e15).then_some(f as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(text: &str) -> Number {
        serde_json::from_str(text).expect("a JSON number")
    }

    #[test]
    fn compares_beyond_64_bits_exactly() {
        assert!(!numbers_equal(
            &n("18446744073709551616"),
            &n("18446744073709551617")
        ));
        assert!(numbers_equal(
            &n("18446744073709551616"),
            &n("18446744073709551616")
        ));
        assert!(!numbers_equal(
            &n("-9223372036854775809"),
            &n("-9223372036854775808")
        ));
        assert!(numbers_equal(&n("1e400"), &n("10e399")));
        assert!(!numbers_equal(&n("1e400"), &n("1e401")));
    }

    #[test]
    fn equal_values_written_differently() {
        for (a, b) in [
            ("1", "1.0"),
            ("100", "1e2"),
            ("100", "1E+2"),
            ("0.5", "5e-1"),
            ("0", "-0"),
            ("0", "0.000e9"),
            ("-12.50", "-1.25e1"),
        ] {
            assert!(numbers_equal(&n(a), &n(b)), "{a} == {b}");
        }
        for (a, b) in [("1", "-1"), ("1.5", "15"), ("0.1", "0.01"), ("1", "2")] {
            assert!(!numbers_equal(&n(a), &n(b)), "{a} != {b}");
        }
    }

    #[test]
    fn integers_by_their_digits() {
        for t in [
            "0",
            "-7",
            "5.0",
            "5e2",
            "1.5e1",
            "18446744073709551616",
            "1e400",
        ] {
            assert!(is_integer(&n(t)), "{t} is an integer");
        }
        for t in ["0.5", "1.25e1", "1e-1", "18446744073709551616.5"] {
            assert!(!is_integer(&n(t)), "{t} is not an integer");
        }
    }

    /// Digits are kept as written; `serde_json` writes an exponent with its sign (`1e400` is
    /// printed `1e+400`, the same value).
    #[test]
    fn numbers_keep_their_text() {
        let digits = "1".repeat(100);
        let v: Value = serde_json::from_str(&format!("[{digits}, 1e400, 2.50]")).unwrap();
        assert_eq!(
            serde_json::to_string(&v).unwrap(),
            format!("[{digits},1e+400,2.50]")
        );
    }
}
