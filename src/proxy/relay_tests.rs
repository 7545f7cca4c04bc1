//! Tests of the relay (src/proxy/relay.rs): the order in which a setup answer is told and written.

use super::*;
use std::sync::mpsc::{self, Receiver};

fn ctx(notes: Sender<Note>) -> Ctx {
    Ctx {
        upstream: Upstream::parse("http://127.0.0.1:9/mcp").unwrap(),
        tls: None,
        notes,
        max_copy: 1 << 20,
        next_tx: AtomicU64::new(0),
        next_conn: AtomicU64::new(0),
        busy: AtomicUsize::new(0),
    }
}

/// A client connection that notes, at each write, whether the judge had been told that
/// the answer ended.
struct Client<'a> {
    notes: &'a Receiver<Note>,
    told: Vec<Note>,
    ended_before_write: Vec<bool>,
}

impl Write for Client<'_> {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.told.extend(self.notes.try_iter());
        let ended = self
            .told
            .iter()
            .any(|n| matches!(n, Note::End { response: true, .. }));
        self.ended_before_write.push(ended);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The upstream side of a request, swallowed.
struct Nowhere;

impl Write for Nowhere {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl UpWrite for Nowhere {
    fn finish(&mut self) {}
    fn abort(&mut self) {}
}

/// Relays a request with `body`, then its JSON answer in one read: whether the judge had
/// heard the answer's end when its bytes were written to the client.
fn told_before_written(body: &str) -> bool {
    let (tx, rx) = mpsc::channel();
    let ctx = ctx(tx);
    let waiting: Waiting = Arc::default();
    let mut req = RequestWatch {
        up: Box::new(Nowhere),
        failed: false,
        ctx: &ctx,
        conn: 1,
        waiting: &waiting,
        copy: None,
        sniff: None,
    };
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    Framer::new(Side::Request).feed(request.as_bytes(), &mut req);
    let mut w = AnswerWatch {
        ctx: &ctx,
        conn: 1,
        waiting: &waiting,
        tx: None,
        copy: None,
        setup: false,
    };
    let mut client = Client {
        notes: &rx,
        told: Vec::new(),
        ended_before_write: Vec::new(),
    };
    let result = r#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
    let answer = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{result}",
        result.len()
    );
    relay_read(
        answer.as_bytes(),
        &mut client,
        &mut Framer::new(Side::Response),
        &mut w,
    )
    .unwrap();
    client.told.extend(rx.try_iter());
    assert!(
        client
            .told
            .iter()
            .any(|n| matches!(n, Note::End { response: true, .. })),
        "the answer's end is told"
    );
    assert_eq!(client.ended_before_write.len(), 1);
    client.ended_before_write[0]
}

#[test]
fn a_setup_answer_is_told_before_the_client_has_it_and_a_call_after() {
    for m in ["initialize", "server/discover", "tools/list"] {
        let body = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{m}","params":{{}}}}"#);
        assert!(told_before_written(&body), "{m}");
    }
    // Escaped the same method is the same.
    assert!(told_before_written(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools\/list"}"#
    ));
    for body in [
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        "not json",
    ] {
        assert!(!told_before_written(body), "{body}");
    }
}
