//! One named input: a file, or standard input for `-`.

use std::fmt;
use std::io::Read;
use std::path::Path;

/// The bytes of a named input and the label reports show for it.
#[derive(Debug)]
pub struct Source {
    /// The path as given (`-` for stdin).
    pub label: String,
    /// Every byte read.
    pub bytes: Vec<u8>,
}

/// Why a named input could not be read.
#[derive(Debug)]
pub struct ReadError {
    /// The path as given (`-` for stdin).
    pub label: String,
    /// What the system said.
    pub error: std::io::Error,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.label == "-" {
            write!(f, "cannot read stdin: {}", self.error)
        } else {
            write!(f, "cannot read {}: {}", self.label, self.error)
        }
    }
}

impl std::error::Error for ReadError {}

/// Whether a path names standard input.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Reads a file, or stdin for `-`, whole.
pub fn read(path: &Path) -> Result<Source, ReadError> {
    let label = path.display().to_string();
    let result = if is_stdin(path) {
        let mut buf = Vec::new();
        std::io::stdin().read_to_end(&mut buf).map(|_| buf)
    } else {
        std::fs::read(path)
    };
    match result {
        Ok(bytes) => Ok(Source { label, bytes }),
        Err(error) => Err(ReadError { label, error }),
    }
}
