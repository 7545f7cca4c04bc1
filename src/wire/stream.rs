//! An SSE response stream read into messages, event by event as they are dispatched.

use serde_json::Value;

use crate::wire::message::{Accepted, MessageKind, MessageReader, StreamMessage};
use crate::wire::surrogate::LoneSurrogate;

/// An SSE response stream, read once.
#[derive(Clone, Debug)]
pub struct Stream {
    /// The skipped (priming) blocks, tail and counters. Its `events` are empty: each event is
    /// read into [`Stream::messages`] as it is dispatched and not kept, so that a long stream
    /// is never held as all of its events (what the checks read of the events is
    /// [`Stream::first_event_start`], [`Stream::event_ids`] and [`Stream::final_data`]).
    pub parsed: crate::wire::sse::Parsed,
    /// Byte offset in the body of the first dispatched event's first line.
    pub first_event_start: Option<usize>,
    /// The events that set a non-empty event id: (byte offset of the event's first line,
    /// index of the event, the id), in stream order.
    pub event_ids: Vec<(usize, usize, String)>,
    /// The data of the final message's event: its raw text (checked for repeated keys).
    pub final_data: Option<String>,
    /// One entry per dispatched event, in order.
    pub messages: Vec<StreamMessage>,
    /// Index (into `messages`) of the message judged as the response to the request: the first
    /// response whose id matches the request's (the first response at all when the request id
    /// is unknown); failing that, the stream's last message when it stands where the response
    /// belongs (see [`Stream::final_matches`]).
    pub final_index: Option<usize>,
    /// Whether the final message is a response with the request's id. When it is not, the final
    /// message is the stream's last one, nothing was left undispatched after it, and it is what
    /// the same bytes would be as a JSON body: a response with another id or none (`id: null`),
    /// or JSON that is not a request or notification (a batch array, a primitive, an object
    /// without `method`). The checks of the response then judge it as they judge that body.
    pub final_matches: bool,
    /// The first lone surrogate escape of an event's data (its offset in the body, and the
    /// event), with the count over every event: such data is read with U+FFFD in their place.
    pub lone_surrogate: Option<(LoneSurrogate, Option<usize>)>,
}

impl Stream {
    /// The final response message.
    pub fn final_message(&self) -> Option<&StreamMessage> {
        self.messages.get(self.final_index?)
    }

    /// Messages before the final response (all of them when there is none).
    pub fn before_final(&self) -> &[StreamMessage] {
        &self.messages[..self.final_index.unwrap_or(self.messages.len())]
    }

    /// Messages after the final response.
    pub fn after_final(&self) -> &[StreamMessage] {
        match self.final_index {
            Some(i) => &self.messages[i + 1..],
            None => &[],
        }
    }
}

pub(crate) fn read_stream(
    bytes: &[u8],
    request_id: Option<&Value>,
    accepted: Option<Accepted<'_>>,
) -> (Stream, usize) {
    let mut reader = StreamReader {
        reader: MessageReader {
            request_id,
            accepted,
            deepest: 0,
            lone_surrogate: None,
        },
        messages: Vec::new(),
        final_index: None,
        first_event_start: None,
        event_ids: Vec::new(),
        final_data: None,
        last_data: None,
    };
    // Each event is read as it is dispatched, then let go: a long stream is never held as its
    // body, all of its events and all of its messages at once.
    let parsed = crate::wire::sse::parse_each(bytes, |ev| reader.take(ev));
    let StreamReader {
        reader:
            MessageReader {
                deepest,
                lone_surrogate,
                ..
            },
        mut messages,
        mut final_index,
        first_event_start,
        event_ids,
        mut final_data,
        last_data,
        ..
    } = reader;
    let final_matches = final_index.is_some();
    if final_index.is_none() && parsed.tail.is_none() {
        // The same bytes as a JSON body would be judged as the response: so is the message that
        // ends the stream where the response belongs.
        final_index = messages
            .last()
            .filter(|m| matches!(m.kind, MessageKind::Response | MessageKind::Other))
            .map(|_| messages.len() - 1);
        if final_index.is_some() {
            final_data = last_data;
        }
    }
    messages.shrink_to_fit();
    let stream = Stream {
        parsed,
        first_event_start,
        event_ids,
        final_data,
        messages,
        final_index,
        final_matches,
        lone_surrogate,
    };
    (stream, deepest)
}

/// Reads a stream's events into messages as they are dispatched.
struct StreamReader<'r> {
    reader: MessageReader<'r>,
    messages: Vec<StreamMessage>,
    final_index: Option<usize>,
    first_event_start: Option<usize>,
    event_ids: Vec<(usize, usize, String)>,
    /// The data of the event of the response with the request's id.
    final_data: Option<String>,
    /// The data of the last event read (the response by default when no id matches).
    last_data: Option<String>,
}

impl StreamReader<'_> {
    /// Reads the next event; keeps its data only while it may be the response's.
    fn take(&mut self, ev: crate::wire::sse::Event) {
        self.first_event_start.get_or_insert(ev.start);
        if ev.id_field && !ev.last_event_id.is_empty() {
            self.event_ids
                .push((ev.start, ev.index, ev.last_event_id.clone()));
        }
        let at = self.messages.len();
        let data = match ev.invalid_utf8_at() {
            Some(offset) => Err(offset),
            None => Ok(ev.data.as_str()),
        };
        let (message, matches) = self.reader.read(ev.index, data, |o| ev.input_offset(o));
        self.messages.push(message);
        if self.final_index.is_none() && matches {
            self.final_index = Some(at);
        }
        if self.final_index == Some(at) {
            self.final_data = Some(ev.data);
            self.last_data = None;
        } else {
            self.last_data = Some(ev.data);
        }
    }
}
