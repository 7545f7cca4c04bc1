//! JSON examples in markdown pages (the spec's docs).

/// Removes `//` line comments that sit outside JSON strings (the spec pages annotate a few
/// examples that way).
pub fn strip_line_comments(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    for line in src.lines() {
        let mut in_str = false;
        let mut escaped = false;
        let mut cut = line.len();
        let bytes = line.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            if in_str {
                if escaped {
                    escaped = false;
                } else if b == b'\\' {
                    escaped = true;
                } else if b == b'"' {
                    in_str = false;
                }
            } else if b == b'"' {
                in_str = true;
            } else if b == b'/' && bytes.get(i + 1) == Some(&b'/') {
                cut = i;
                break;
            }
        }
        out.push_str(&line[..cut]);
        out.push('\n');
    }
    out
}

/// The ```json fenced blocks of a spec page, raw.
pub fn json_blocks(page: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in page.lines() {
        let trimmed = line.trim();
        match current.as_mut() {
            None if trimmed == "```json" => current = Some(String::new()),
            None => {}
            Some(_) if trimmed == "```" => blocks.push(current.take().unwrap()),
            Some(buf) => {
                buf.push_str(line);
                buf.push('\n');
            }
        }
    }
    blocks
}
