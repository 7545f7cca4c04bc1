//! The stdio proxy's stderr, which the server's relayed stderr and the proxy's own lines share
//! (the stderr sink writes through it; the relay feeds it the server's bytes).

use std::io::Write;
use std::sync::{Arc, Mutex};

use super::lock;

/// The proxy's stderr, shared by the server's relayed stderr and the proxy's own lines: a
/// line of the proxy waits while the server is in the middle of one of its lines, so that it
/// never splits it.
pub(crate) struct SharedStderr {
    state: Mutex<StderrState>,
}

struct StderrState {
    /// The server's stderr ended its last write in the middle of a line.
    mid_line: bool,
    waiting: Vec<String>,
}

impl SharedStderr {
    pub(super) fn new() -> Arc<SharedStderr> {
        Arc::new(SharedStderr {
            state: Mutex::new(StderrState {
                mid_line: false,
                waiting: Vec::new(),
            }),
        })
    }

    /// Relays bytes the server wrote on its stderr, then the proxy's lines that waited for
    /// the end of its line.
    pub(super) fn server(&self, bytes: &[u8]) {
        let mut st = lock(&self.state);
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(bytes);
        if let Some(last) = bytes.last() {
            st.mid_line = *last != b'\n';
        }
        if !st.mid_line {
            for l in st.waiting.drain(..) {
                let _ = writeln!(err, "{l}");
            }
        }
        let _ = err.flush();
    }

    /// The server's stderr ended: a line it left unfinished gets its newline, so that the
    /// proxy's lines (its summary at least) that follow start on their own.
    pub(super) fn server_ended(&self) {
        let mut st = lock(&self.state);
        let mut err = std::io::stderr().lock();
        if st.mid_line {
            let _ = writeln!(err);
        }
        st.mid_line = false;
        for l in st.waiting.drain(..) {
            let _ = writeln!(err, "{l}");
        }
        let _ = err.flush();
    }

    /// Writes one line of the proxy's (without its newline), or keeps it until the server's
    /// line under way ends.
    pub(crate) fn line(&self, line: &str) {
        let mut st = lock(&self.state);
        if st.mid_line {
            st.waiting.push(line.to_string());
            return;
        }
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "{line}");
        let _ = err.flush();
    }

    /// Writes text of the proxy's made of whole lines (the summary).
    pub(super) fn text(&self, text: &str) {
        for l in text.lines() {
            self.line(l);
        }
    }
}
