//! JSON Lines input: one exchange per line, read with a cap on the bytes kept per line, so an
//! endless or huge line is never held whole.

use std::io::{self, BufRead};

/// Reads one line into `buf` (without its line break), keeping at most `cap` bytes. Returns
/// `None` at end of input, else the line's full length (which exceeds `cap` when it was cut).
pub fn read_line_capped<R: BufRead>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    cap: usize,
) -> io::Result<Option<usize>> {
    buf.clear();
    let mut len = 0usize;
    let mut any = false;
    loop {
        let chunk = match reader.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            break;
        }
        any = true;
        let (take, found) = match memchr::memchr(b'\n', chunk) {
            Some(i) => (i, true),
            None => (chunk.len(), false),
        };
        if len <= cap {
            let room = cap + 1 - len;
            buf.extend_from_slice(&chunk[..take.min(room)]);
        }
        len += take;
        reader.consume(if found { take + 1 } else { take });
        if found {
            break;
        }
    }
    if !any {
        return Ok(None);
    }
    if buf.last() == Some(&b'\r') && len <= cap + 1 {
        buf.pop();
        len -= 1;
    }
    Ok(Some(len))
}

/// Whether a line holds only white space (skipped, counted).
pub fn is_blank(b: &[u8]) -> bool {
    b.iter().all(u8::is_ascii_whitespace)
}

pub use crate::wire::utf8::BOM;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capped_lines() {
        let mut r = io::BufReader::with_capacity(4, &b"abc\r\n\nlong line here\nend"[..]);
        let mut buf = Vec::new();
        assert_eq!(read_line_capped(&mut r, &mut buf, 8).unwrap(), Some(3));
        assert_eq!(buf, b"abc");
        assert_eq!(read_line_capped(&mut r, &mut buf, 8).unwrap(), Some(0));
        assert_eq!(read_line_capped(&mut r, &mut buf, 8).unwrap(), Some(14));
        assert!(buf.len() <= 9);
        assert_eq!(read_line_capped(&mut r, &mut buf, 8).unwrap(), Some(3));
        assert_eq!(buf, b"end");
        assert_eq!(read_line_capped(&mut r, &mut buf, 8).unwrap(), None);
    }
}
