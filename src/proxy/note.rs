//! What the relay tells the judging thread: each message's head, a bounded copy of its body,
//! and how it ended. The relay never waits on the judge: it sends and goes on; a body longer
//! than the copy bound is copied up to the bound and the rest relayed uncopied.

use std::sync::mpsc::Sender;
use std::time::Instant;

use super::framing::Head;
use crate::wire::exchange::BodyEnd;

/// One thing the relay saw, for transaction `tx` (one request and its answer).
#[derive(Debug)]
pub(crate) enum Note {
    /// A request head (when it was complete).
    Request { tx: u64, at: Instant, head: Head },
    /// A response head to transaction `tx` (interim 1xx answers are not told).
    Response { tx: u64, head: Head },
    /// Body bytes (chunk framing removed) of the request (`response` false) or the answer.
    Body {
        tx: u64,
        response: bool,
        bytes: Vec<u8>,
    },
    /// The request (`response` false) or the answer ended; `over` when its body was longer
    /// than the copy bound (the copy holds its first bytes only).
    End {
        tx: u64,
        response: bool,
        at: Instant,
        end: BodyEnd,
        over: bool,
    },
    /// The connection closed before any answer to `tx`.
    Unanswered { tx: u64, why: String },
    /// Something on a connection the judge cannot use (an upstream that could not be
    /// reached, framing that could not be read); told once on stderr.
    Trouble { why: String },
    /// The proxy is stopping: judge what is under way and finish.
    Stop,
}

/// The copy of one message's body, bounded.
pub(crate) struct Copy {
    tx: u64,
    response: bool,
    copied: usize,
    bound: usize,
    over: bool,
}

impl Copy {
    pub(crate) fn new(tx: u64, response: bool, bound: usize) -> Copy {
        Copy {
            tx,
            response,
            copied: 0,
            bound,
            over: false,
        }
    }

    /// Copies what fits under the bound.
    pub(crate) fn push(&mut self, notes: &Sender<Note>, bytes: &[u8]) {
        let room = self.bound - self.copied;
        if bytes.len() > room {
            self.over = true;
        }
        let take = bytes.len().min(room);
        if take > 0 {
            self.copied += take;
            let _ = notes.send(Note::Body {
                tx: self.tx,
                response: self.response,
                bytes: bytes[..take].to_vec(),
            });
        }
    }

    /// Tells the end of the message.
    pub(crate) fn end(self, notes: &Sender<Note>, end: BodyEnd) {
        let _ = notes.send(Note::End {
            tx: self.tx,
            response: self.response,
            at: Instant::now(),
            end,
            over: self.over,
        });
    }
}
