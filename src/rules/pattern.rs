//! JSON Pointer patterns used to route schema errors to the rules that claim them.
//!
//! Syntax: a JSON Pointer whose segments may be `*` (any one segment) or, as the last segment,
//! `**` (the location itself and everything below it). `**` alone matches every location.
//! Literal segments are compared in escaped form (`~1` for `/`, `~0` for `~`).

use std::fmt;

/// A compiled pointer pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PointerPattern {
    source: String,
    segments: Vec<Seg>,
    tail: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Seg {
    Any,
    Lit(String),
}

impl PointerPattern {
    /// Compiles a pattern; the error says what is wrong.
    pub fn parse(source: &str) -> Result<PointerPattern, String> {
        if source == "**" {
            return Ok(PointerPattern {
                source: source.into(),
                segments: Vec::new(),
                tail: true,
            });
        }
        if !source.is_empty() && !source.starts_with('/') {
            return Err(format!(
                "pointer pattern `{source}` must be empty, `**`, or start with `/`"
            ));
        }
        let parts: Vec<&str> = if source.is_empty() {
            Vec::new()
        } else {
            source[1..].split('/').collect()
        };
        let mut segments = Vec::new();
        let mut tail = false;
        for (i, p) in parts.iter().enumerate() {
            match *p {
                "**" if i + 1 == parts.len() => tail = true,
                "**" => {
                    return Err(format!(
                        "pointer pattern `{source}`: `**` may only be the last segment"
                    ));
                }
                "*" => segments.push(Seg::Any),
                lit => segments.push(Seg::Lit(lit.to_string())),
            }
        }
        Ok(PointerPattern {
            source: source.into(),
            segments,
            tail,
        })
    }

    /// Whether a JSON Pointer matches.
    pub fn matches(&self, pointer: &str) -> bool {
        let mut parts = pointer
            .strip_prefix('/')
            .into_iter()
            .flat_map(|r| r.split('/'));
        for seg in &self.segments {
            match parts.next() {
                None => return false,
                Some(p) => {
                    if let Seg::Lit(l) = seg
                        && l != p
                    {
                        return false;
                    }
                }
            }
        }
        self.tail || parts.next().is_none()
    }

    /// Number of literal segments (more is more specific).
    pub fn literal_segments(&self) -> usize {
        self.segments
            .iter()
            .filter(|s| matches!(s, Seg::Lit(_)))
            .count()
    }

    /// Number of fixed segments, literal or wildcard.
    pub fn segments(&self) -> usize {
        self.segments.len() * 2 + usize::from(!self.tail)
    }
}

impl fmt::Display for PointerPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

#[cfg(test)]
mod tests {
    use super::PointerPattern as P;

    #[test]
    fn matching() {
        let all = P::parse("**").unwrap();
        assert!(all.matches("") && all.matches("/a/b"));
        let exact = P::parse("/content").unwrap();
        assert!(exact.matches("/content") && !exact.matches("/content/0") && !exact.matches(""));
        let one = P::parse("/content/*/data").unwrap();
        assert!(one.matches("/content/3/data") && !one.matches("/content/3/text"));
        let below = P::parse("/content/**").unwrap();
        assert!(below.matches("/content") && below.matches("/content/1/x"));
        assert!(!below.matches("/contents"));
        let root = P::parse("").unwrap();
        assert!(root.matches("") && !root.matches("/a"));
        assert!(P::parse("content").is_err());
        assert!(P::parse("/a/**/b").is_err());
    }

    #[test]
    fn specificity() {
        let a = P::parse("/content/*/data").unwrap();
        let b = P::parse("/content/**").unwrap();
        assert!((a.literal_segments(), a.segments()) > (b.literal_segments(), b.segments()));
        let exact = P::parse("/content").unwrap();
        assert!(exact.segments() > b.segments());
    }
}
