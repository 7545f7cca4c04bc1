//! Running the `mcp-verdict` binary.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// The binary, run from the crate root.
pub fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_mcp-verdict"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

/// Runs `cmd` to its end and captures stdout and stderr. Stdin is `stdin` when given (written
/// from another thread, so that a child filling its stdout pipe first cannot deadlock the
/// test), else empty.
pub fn run(cmd: &mut Command, stdin: Option<&[u8]>) -> Output {
    let mut child = cmd
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let writer = stdin.map(|input| {
        let mut pipe = child.stdin.take().unwrap();
        let input = input.to_vec();
        std::thread::spawn(move || pipe.write_all(&input))
    });
    let out = child.wait_with_output().unwrap();
    if let Some(w) = writer {
        w.join().unwrap().expect("stdin written");
    }
    out
}
