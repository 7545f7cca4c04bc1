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

/// A fenced code block of a Markdown page.
pub struct Fence {
    /// The 1-based line of its opening fence.
    pub line: usize,
    /// Its info string (what follows the opening backticks), trimmed.
    pub info: String,
    /// Its text, each line ending in a newline.
    pub body: String,
}

/// The fenced blocks of a page, in order; an unclosed block at the end is dropped.
pub fn fences(page: &str) -> Vec<Fence> {
    let mut blocks = Vec::new();
    let mut current: Option<Fence> = None;
    for (i, line) in page.lines().enumerate() {
        let trimmed = line.trim();
        match current.as_mut() {
            None => {
                if let Some(info) = trimmed.strip_prefix("```") {
                    current = Some(Fence {
                        line: i + 1,
                        info: info.trim().to_owned(),
                        body: String::new(),
                    });
                }
            }
            Some(_) if trimmed == "```" => blocks.push(current.take().unwrap()),
            Some(fence) => {
                fence.body.push_str(line);
                fence.body.push('\n');
            }
        }
    }
    blocks
}

/// The ```json fenced blocks of a spec page, raw.
pub fn json_blocks(page: &str) -> Vec<String> {
    fences(page)
        .into_iter()
        .filter(|f| f.info == "json")
        .map(|f| f.body)
        .collect()
}
