//! HTTP/1.1 message framing watched on a live connection: where each message's head ends,
//! where its body ends (`Content-Length`, chunked coding, or the connection's close, RFC 9112
//! §6.3) and the body's payload with the chunk framing taken off, for the copy that is judged.
//!
//! `httparse` reads the heads and the chunk-size lines; the state machine around it is written
//! here because no crate frames a byte stream that must pass through unchanged: the relay
//! forwards every byte as it came (chunk sizes, extensions and trailers included), and the
//! framer only watches. What it cannot read (a head over [`MAX_HEAD`] bytes or
//! [`MAX_HEADERS`] fields, a malformed head or chunk line, a transfer coding other than
//! chunked on a request) turns it [`State::Opaque`]: the rest of the connection is forwarded
//! as it is and nothing more of it is judged.

use std::ops::Range;

/// The longest head the framer reads (bytes); a longer one makes the connection opaque.
pub(crate) const MAX_HEAD: usize = 64 * 1024;
/// The most header fields the framer reads in one head.
pub(crate) const MAX_HEADERS: usize = 128;
/// The longest chunk-size or trailer line the framer reads.
const MAX_LINE: usize = 8 * 1024;

/// A message head as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Head {
    /// The request method (requests).
    pub method: String,
    /// The request target (requests).
    pub target: String,
    /// The status code (responses).
    pub status: u16,
    /// The header fields in order, values decoded lossily.
    pub headers: Vec<(String, String)>,
    /// Where the `Host` field's value lies in the head's bytes (requests).
    pub host_value: Option<Range<usize>>,
}

impl Head {
    /// The first value of a header field (name compared without case).
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// What the framer tells the relay, in the order of the bytes, except that what it finds in
/// a piece of a body (payload, the message's end) is told before the piece is forwarded: the
/// judging thread hears of a request's whole body before the server can have answered it.
pub(crate) trait Watch {
    /// Bytes to forward as they are (everything but a request head, which goes to
    /// [`Watch::head`] with its bytes).
    fn forward(&mut self, bytes: &[u8]);
    /// A complete head and its bytes (the relay forwards them, rewritten or not).
    fn head(&mut self, head: Head, raw: &[u8]);
    /// Payload bytes of the current message's body (chunk framing removed).
    fn payload(&mut self, bytes: &[u8]);
    /// The current message ended where its framing says.
    fn end(&mut self);
    /// The framer stopped reading: the rest of the connection is forwarded unread.
    fn opaque(&mut self, why: String);
    /// What the request was that a response head with this status answers (asked before
    /// [`Watch::head`] of a response; interim 1xx answers included).
    fn answering(&mut self, _status: u16) -> Answering {
        Answering::default()
    }
}

/// Which side of the exchange the framer reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Request,
    Response,
}

/// Where the framer is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum State {
    /// Reading a head.
    Head,
    /// Reading a body of this many bytes still to come.
    Length(u64),
    /// Reading a chunked body.
    Chunked(Chunk),
    /// Reading a body that ends when the connection closes.
    UntilClose,
    /// Everything from here is forwarded unread (an upgrade, or framing it could not read).
    Opaque,
}

/// Where a chunked body is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Chunk {
    /// A chunk-size line (bytes of it so far in `line`).
    Size,
    /// Chunk data, this many bytes still to come.
    Data(u64),
    /// The line break after chunk data.
    DataEnd,
    /// Trailer lines after the last chunk.
    Trailer,
}

/// The incremental framer of one direction of one connection.
pub(crate) struct Framer {
    side: Side,
    state: State,
    /// The head (or chunk line) read so far.
    buf: Vec<u8>,
    /// Whether the current trailer line has content (a blank one ends the body).
    line_has_content: bool,
}

/// How a response's body is framed, which depends on the request it answers.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Answering {
    /// The request was `HEAD` (its response has no body).
    pub head: bool,
    /// The request was `CONNECT` (a 2xx answer turns the connection into a tunnel).
    pub connect: bool,
}

impl Framer {
    pub(crate) fn new(side: Side) -> Framer {
        Framer {
            side,
            state: State::Head,
            buf: Vec::new(),
            line_has_content: false,
        }
    }

    #[cfg(test)]
    fn state(&self) -> &State {
        &self.state
    }

    /// Whether the framer is between messages (nothing of the next one read yet).
    #[cfg(test)]
    fn idle(&self) -> bool {
        self.state == State::Head && self.buf.is_empty()
    }

    /// Reads `data`, telling `w` what it finds.
    pub(crate) fn feed(&mut self, mut data: &[u8], w: &mut dyn Watch) {
        while !data.is_empty() {
            let used = match self.state.clone() {
                State::Opaque => {
                    w.forward(data);
                    data.len()
                }
                State::Head => self.head_bytes(data, w),
                State::Length(n) => {
                    let take = (n.min(data.len() as u64)) as usize;
                    w.payload(&data[..take]);
                    let left = n - take as u64;
                    if left == 0 {
                        self.state = State::Head;
                        w.end();
                    } else {
                        self.state = State::Length(left);
                    }
                    w.forward(&data[..take]);
                    take
                }
                State::UntilClose => {
                    w.payload(data);
                    w.forward(data);
                    data.len()
                }
                State::Chunked(c) => self.chunk_bytes(c, data, w),
            };
            data = &data[used..];
        }
    }

    /// The connection closed: whether the message under way ended complete (a body that
    /// runs to the close), `None` when no message was under way.
    pub(crate) fn close(&mut self, w: &mut dyn Watch) -> Option<bool> {
        let r = match self.state {
            State::Head if self.buf.is_empty() => None,
            State::UntilClose => {
                w.end();
                Some(true)
            }
            State::Opaque => None,
            _ => Some(false),
        };
        self.state = State::Opaque;
        r
    }

    fn head_bytes(&mut self, data: &[u8], w: &mut dyn Watch) -> usize {
        // Search for the blank line from a little before the new bytes, so that a CRLFCRLF
        // split across reads is found.
        let from = self.buf.len().saturating_sub(3);
        let room = MAX_HEAD + 1 - self.buf.len().min(MAX_HEAD);
        let take = data.len().min(room);
        self.buf.extend_from_slice(&data[..take]);
        let Some(end) = head_end(&self.buf, from) else {
            if self.buf.len() > MAX_HEAD {
                let raw = std::mem::take(&mut self.buf);
                self.go_opaque(w, &raw, format!("a head longer than {MAX_HEAD} bytes"));
            }
            return take;
        };
        // The bytes past the head go back to the loop.
        let extra = self.buf.len() - end;
        self.buf.truncate(end);
        let used = take - extra;
        let raw = std::mem::take(&mut self.buf);
        match self.side {
            Side::Request => self.request_head(raw, w),
            Side::Response => self.response_head(raw, w),
        }
        used
    }

    fn go_opaque(&mut self, w: &mut dyn Watch, raw: &[u8], why: String) {
        self.state = State::Opaque;
        self.buf.clear();
        w.forward(raw);
        w.opaque(why);
    }

    fn request_head(&mut self, raw: Vec<u8>, w: &mut dyn Watch) {
        let mut fields = [httparse::EMPTY_HEADER; MAX_HEADERS];
        let mut req = httparse::Request::new(&mut fields);
        let parsed = req.parse(&raw);
        let head = match parsed {
            Ok(httparse::Status::Complete(_)) => Head {
                method: req.method.unwrap_or_default().to_string(),
                target: req.path.unwrap_or_default().to_string(),
                status: 0,
                host_value: req
                    .headers
                    .iter()
                    .find(|h| h.name.eq_ignore_ascii_case("host"))
                    .map(|h| offset_in(&raw, h.value)),
                headers: fields_of(req.headers),
            },
            Ok(httparse::Status::Partial) => unreachable!("the head is complete"),
            Err(e) => {
                return self.go_opaque(
                    w,
                    &raw,
                    format!("a request head httparse cannot read ({e})"),
                );
            }
        };
        let body = match body_framing(&head) {
            Ok(Some(State::UntilClose)) | Err(_) => {
                // A request body is never delimited by the close (RFC 9112 §6.3, item 3:
                // a request with a transfer coding other than chunked is refused).
                return self.go_opaque(w, &raw, "a request body with a transfer coding other than chunked, or differing Content-Length values".into());
            }
            Ok(Some(s)) => s,
            Ok(None) => State::Length(0),
        };
        w.head(head, &raw);
        self.start_body(body, w);
    }

    fn response_head(&mut self, raw: Vec<u8>, w: &mut dyn Watch) {
        let mut fields = [httparse::EMPTY_HEADER; MAX_HEADERS];
        let mut res = httparse::Response::new(&mut fields);
        let head = match res.parse(&raw) {
            Ok(httparse::Status::Complete(_)) => Head {
                method: String::new(),
                target: String::new(),
                status: res.code.unwrap_or_default(),
                host_value: None,
                headers: fields_of(res.headers),
            },
            Ok(httparse::Status::Partial) => unreachable!("the head is complete"),
            Err(e) => {
                return self.go_opaque(
                    w,
                    &raw,
                    format!("a response head httparse cannot read ({e})"),
                );
            }
        };
        // The response's bytes were forwarded as they arrived; the head is only told.
        let status = head.status;
        let req = w.answering(status);
        w.head(head.clone(), &raw);
        // RFC 9112 §6.3: in this order.
        let body = if status == 101 || (req.connect && (200..300).contains(&status)) {
            self.state = State::Opaque;
            w.opaque("the connection was upgraded (or tunnelled); what follows is not HTTP".into());
            return;
        } else if req.head || (100..200).contains(&status) || status == 204 || status == 304 {
            State::Length(0)
        } else {
            match body_framing(&head) {
                Ok(Some(s)) => s,
                Ok(None) => State::UntilClose,
                Err(why) => {
                    self.state = State::Opaque;
                    w.opaque(why);
                    return;
                }
            }
        };
        if (100..200).contains(&status) {
            // An interim answer: the final one to the same request follows.
            self.state = State::Head;
            return;
        }
        self.start_body(body, w);
    }

    fn start_body(&mut self, body: State, w: &mut dyn Watch) {
        self.state = body;
        if self.state == State::Length(0) {
            self.state = State::Head;
            w.end();
        }
    }

    fn chunk_bytes(&mut self, c: Chunk, data: &[u8], w: &mut dyn Watch) -> usize {
        match c {
            Chunk::Data(n) => {
                let take = (n.min(data.len() as u64)) as usize;
                w.payload(&data[..take]);
                w.forward(&data[..take]);
                let left = n - take as u64;
                self.state = State::Chunked(if left == 0 {
                    Chunk::DataEnd
                } else {
                    Chunk::Data(left)
                });
                take
            }
            Chunk::Size | Chunk::DataEnd | Chunk::Trailer => {
                // A line: up to and including its LF.
                let (take, complete) = match data.iter().position(|&b| b == b'\n') {
                    Some(i) => (i + 1, true),
                    None => (data.len(), false),
                };
                self.buf.extend_from_slice(&data[..take]);
                if !complete {
                    if self.buf.len() > MAX_LINE {
                        self.buf.clear();
                        self.state = State::Opaque;
                        w.opaque(format!("a chunk line longer than {MAX_LINE} bytes"));
                    }
                } else {
                    let line = std::mem::take(&mut self.buf);
                    self.chunk_line(c, &line, w);
                }
                w.forward(&data[..take]);
                take
            }
        }
    }

    fn chunk_line(&mut self, c: Chunk, line: &[u8], w: &mut dyn Watch) {
        let blank = line == b"\r\n" || line == b"\n";
        match c {
            Chunk::Size => match httparse::parse_chunk_size(line) {
                Ok(httparse::Status::Complete((_, 0))) => {
                    self.state = State::Chunked(Chunk::Trailer);
                    self.line_has_content = false;
                }
                Ok(httparse::Status::Complete((_, n))) => {
                    self.state = State::Chunked(Chunk::Data(n));
                }
                _ => {
                    self.state = State::Opaque;
                    w.opaque("a chunk-size line that cannot be read".into());
                }
            },
            Chunk::DataEnd if blank => self.state = State::Chunked(Chunk::Size),
            Chunk::DataEnd => {
                self.state = State::Opaque;
                w.opaque("chunk data not followed by a line break".into());
            }
            Chunk::Trailer if blank => {
                self.state = State::Head;
                w.end();
            }
            Chunk::Trailer => {}
            Chunk::Data(_) => unreachable!("data is not a line"),
        }
    }
}

/// The end of a head (just past its blank line) in `buf`, searching from `from`.
fn head_end(buf: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while i < buf.len() {
        if buf[i] == b'\n' {
            if buf[..i].ends_with(b"\n") {
                return Some(i + 1);
            }
            if buf[..i].ends_with(b"\n\r") {
                return Some(i + 1);
            }
        }
        i += 1;
    }
    None
}

/// Where `inner` (a slice of `outer`) lies in `outer`.
fn offset_in(outer: &[u8], inner: &[u8]) -> Range<usize> {
    let start = inner.as_ptr() as usize - outer.as_ptr() as usize;
    start..start + inner.len()
}

fn fields_of(headers: &[httparse::Header<'_>]) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|h| {
            (
                h.name.to_string(),
                String::from_utf8_lossy(h.value).into_owned(),
            )
        })
        .collect()
}

/// The body framing a head declares: chunked, a length, or none said (`Ok(None)`); an
/// error for one that cannot be read.
fn body_framing(head: &Head) -> Result<Option<State>, String> {
    let codings: Vec<&str> = head
        .headers
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case("transfer-encoding"))
        .flat_map(|(_, v)| v.split(','))
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    if let Some(last) = codings.last() {
        return Ok(Some(if last.eq_ignore_ascii_case("chunked") {
            State::Chunked(Chunk::Size)
        } else {
            State::UntilClose
        }));
    }
    let mut length: Option<u64> = None;
    for (_, v) in head
        .headers
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case("content-length"))
    {
        for part in v.split(',') {
            let n: u64 = part
                .trim()
                .parse()
                .map_err(|_| format!("a Content-Length that is not a number ({v:?})"))?;
            if length.is_some_and(|l| l != n) {
                return Err("differing Content-Length values".into());
            }
            length = Some(n);
        }
    }
    Ok(length.map(State::Length))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Seen {
        forwarded: Vec<u8>,
        heads: Vec<Head>,
        payload: Vec<u8>,
        ends: usize,
        opaque: Vec<String>,
        finals: usize,
        /// The final answer (counted from 1) that answers a HEAD request.
        head_at: Option<usize>,
    }

    impl Watch for Seen {
        fn answering(&mut self, status: u16) -> Answering {
            if status >= 200 {
                self.finals += 1;
            }
            Answering {
                head: self.head_at == Some(self.finals),
                connect: false,
            }
        }
        fn forward(&mut self, bytes: &[u8]) {
            self.forwarded.extend_from_slice(bytes);
        }
        fn head(&mut self, head: Head, raw: &[u8]) {
            self.heads.push(head);
            self.forwarded.extend_from_slice(raw);
        }
        fn payload(&mut self, bytes: &[u8]) {
            self.payload.extend_from_slice(bytes);
        }
        fn end(&mut self) {
            self.ends += 1;
        }
        fn opaque(&mut self, why: String) {
            self.opaque.push(why);
        }
    }

    /// Feeds `input` in pieces of every size from 1 to its length: the same bytes come out,
    /// the same heads, payload and ends, whatever the pieces.
    fn each_split(side: Side, input: &[u8], check: impl Fn(&Seen)) {
        for size in 1..=input.len() {
            let mut f = Framer::new(side);
            let mut seen = Seen::default();
            for piece in input.chunks(size) {
                f.feed(piece, &mut seen);
            }
            assert_eq!(seen.forwarded, input, "piece size {size}");
            check(&seen);
        }
    }

    #[test]
    fn requests_with_length_and_chunked_bodies_pipelined() {
        let input = b"POST /mcp HTTP/1.1\r\nHost: a:1\r\nContent-Length: 5\r\n\r\nhello\
GET /mcp HTTP/1.1\r\nHost: a\r\n\r\n\
POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nT: v\r\n\r\n";
        each_split(Side::Request, input, |s| {
            assert_eq!(s.heads.len(), 3);
            assert_eq!(s.heads[0].method, "POST");
            assert_eq!(s.heads[1].method, "GET");
            assert_eq!(s.heads[2].target, "/x");
            assert_eq!(s.payload, b"helloabcde");
            assert_eq!(s.ends, 3);
            assert!(s.opaque.is_empty());
        });
    }

    #[test]
    fn the_host_value_is_located_in_the_head() {
        let mut f = Framer::new(Side::Request);
        let mut s = Seen::default();
        let input = b"GET / HTTP/1.1\r\nhOsT:  example.org:8\r\n\r\n";
        f.feed(input, &mut s);
        let r = s.heads[0].host_value.clone().unwrap();
        assert_eq!(&input[r], b"example.org:8");
    }

    #[test]
    fn responses_by_status_and_request() {
        // 100 Continue, then 200 with a body; a 204; a HEAD answer with a Content-Length.
        let input = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok\
HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n";
        for size in 1..=input.len() {
            let mut f = Framer::new(Side::Response);
            let mut s = Seen {
                head_at: Some(3),
                ..Seen::default()
            };
            for piece in input.chunks(size) {
                f.feed(piece, &mut s);
            }
            assert_eq!(s.heads.len(), 4);
            assert_eq!(s.payload, b"ok");
            assert_eq!(s.ends, 3, "size {size}");
            assert!(f.idle());
        }
    }

    #[test]
    fn a_body_to_the_close_ends_complete_and_a_cut_one_does_not() {
        let mut f = Framer::new(Side::Response);
        let mut s = Seen::default();
        f.feed(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: 1\n\n",
            &mut s,
        );
        assert_eq!(f.close(&mut s), Some(true));
        assert_eq!(s.payload, b"data: 1\n\n");
        let mut f = Framer::new(Side::Response);
        f.feed(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
            &mut s,
        );
        assert_eq!(f.close(&mut s), Some(false));
        let mut f = Framer::new(Side::Response);
        assert_eq!(f.close(&mut s), None);
    }

    #[test]
    fn what_cannot_be_read_goes_through_opaque() {
        let cases: [&[u8]; 4] = [
            b"POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
            b"POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\nab",
            b"NOT HTTP AT ALL\x00\r\n\r\nrest",
            b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nrest",
        ];
        for input in cases {
            each_split(Side::Request, input, |s| {
                assert_eq!(s.opaque.len(), 1, "{:?}", String::from_utf8_lossy(input));
            });
        }
        let mut big = b"GET / HTTP/1.1\r\nX: ".to_vec();
        big.resize(MAX_HEAD + 10, b'a');
        let mut f = Framer::new(Side::Request);
        let mut s = Seen::default();
        f.feed(&big, &mut s);
        assert_eq!(s.forwarded, big);
        assert_eq!(s.opaque.len(), 1);
    }

    #[test]
    fn an_upgrade_makes_the_rest_opaque() {
        let mut f = Framer::new(Side::Response);
        let mut s = Seen::default();
        f.feed(
            b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n\x00\x01",
            &mut s,
        );
        assert_eq!(*f.state(), State::Opaque);
        assert_eq!(s.heads.len(), 1);
        assert!(s.payload.is_empty());
    }
}
