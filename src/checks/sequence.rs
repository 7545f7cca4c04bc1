//! The messages the server sent around its response, whichever binding carried them: the
//! events of an SSE response stream, or the lines a stdio server wrote. The checks of what the
//! messages say (schemas, progress, server requests) read them here, once for both bindings.

use super::stream::stream;
use crate::check_api::Cx;
use crate::wire::analysis::StreamMessage;

/// The messages around the response.
pub(super) struct Sequence<'a> {
    /// The messages, in order.
    pub messages: &'a [StreamMessage],
    /// Index of the response (or of the message in its place).
    pub final_index: Option<usize>,
    /// Whether the channel is shared by every request (stdio) rather than this request's own
    /// (an SSE response stream): a message that does not name this request may then belong to
    /// another one.
    pub shared: bool,
}

impl Sequence<'_> {
    /// Where a message is, for people: `event 3` on a stream, `stdout line 4` over stdio.
    pub fn at(&self, m: &StreamMessage) -> String {
        if self.shared {
            format!("stdout line {}", m.event + 1)
        } else {
            format!("event {}", m.event)
        }
    }

    /// The messages with their index, each with whether it follows the response.
    pub fn iter(&self) -> impl Iterator<Item = (bool, &StreamMessage)> + '_ {
        let fi = self.final_index;
        self.messages
            .iter()
            .enumerate()
            .map(move |(i, m)| (fi.is_some_and(|f| i > f), m))
    }
}

/// The messages of a 2xx SSE answer to a request, or of a stdio answer to a request.
pub(super) fn sequence<'a>(cx: &'a Cx<'_>) -> Option<Sequence<'a>> {
    if let Some(s) = stream(cx) {
        return Some(Sequence {
            messages: &s.messages,
            final_index: s.final_index,
            shared: false,
        });
    }
    let r = cx.an.stdio().filter(|_| cx.an.req.expects_response())?;
    Some(Sequence {
        messages: &r.messages,
        final_index: r.final_index,
        shared: true,
    })
}
