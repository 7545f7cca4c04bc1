//! The server process of a stdio run: launched without a shell unless asked, its stdout and
//! stderr read on threads of their own (so that neither pipe fills while the probe waits on
//! the other), and ended as the stdio transport's Shutdown section says: close its stdin,
//! wait, then SIGTERM, then SIGKILL. It is always reaped, also when the probe unwinds.
//!
//! Written by hand over `std::process`: the probe needs the escalation and its report (which
//! step ended the server), which no process crate does in this shape; `rustix` sends the
//! SIGTERM std has no call for.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::{Duration, Instant};

/// How long the server gets to exit after its stdin is closed, and again after SIGTERM.
pub(crate) const GRACE: Duration = Duration::from_secs(2);

/// The server command of a stdio run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StdioCommand {
    /// The program and its arguments; with `shell`, one shell command line.
    pub command: Vec<String>,
    /// Run `command` (joined with spaces) through `sh -c`.
    pub shell: bool,
    /// Environment variables set for the server, besides the probe's own.
    pub env: Vec<(String, String)>,
    /// The server's working directory (default: the probe's).
    pub cwd: Option<PathBuf>,
    /// How long the server gets to exit once its stdin is closed, and again after SIGTERM
    /// (default 2 s, as long as the SDK clients wait).
    pub grace: Duration,
}

impl StdioCommand {
    /// A command run as given: `command[0]` with the rest as its arguments.
    pub fn new(command: Vec<String>) -> StdioCommand {
        StdioCommand {
            command,
            shell: false,
            env: Vec::new(),
            cwd: None,
            grace: GRACE,
        }
    }

    /// The command as shown in reports: its words joined by spaces.
    pub fn display(&self) -> String {
        self.command.join(" ")
    }

    fn build(&self) -> Result<Command, String> {
        let mut cmd = if self.shell {
            let mut c = Command::new("sh");
            c.arg("-c").arg(self.command.join(" "));
            c
        } else {
            let (program, args) = self
                .command
                .split_first()
                .ok_or_else(|| "no server command given (probe -- COMMAND ARGS...)".to_string())?;
            let mut c = Command::new(program);
            c.args(args);
            c
        };
        cmd.envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(dir) = &self.cwd {
            cmd.current_dir(dir);
        }
        #[cfg(unix)]
        {
            // Its own process group, so that a signal reaches what the command started too
            // (`npx` runs the server as a child of its own).
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        Ok(cmd)
    }
}

/// Something the server's streams produced.
pub(crate) enum Event {
    Stdout(Vec<u8>),
    Stderr(Vec<u8>),
    /// The server closed its stdout.
    StdoutEnd,
}

/// How the server process ended at the end of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Ending {
    /// It had exited already.
    Exited(Option<ExitStatus>),
    /// It exited once its stdin was closed.
    ClosedStdin(Option<ExitStatus>),
    /// It needed SIGTERM.
    Terminated(Option<ExitStatus>),
    /// It needed SIGKILL.
    Killed(Option<ExitStatus>),
}

/// A running server.
pub(crate) struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    events: Receiver<Event>,
    grace: Duration,
    pub(crate) started: Instant,
}

fn pump(
    mut from: impl Read,
    to: mpsc::Sender<Event>,
    wrap: fn(Vec<u8>) -> Event,
    end: Option<Event>,
) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match from.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                if to.send(wrap(buf[..n].to_vec())).is_err() {
                    return;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    if let Some(e) = end {
        let _ = to.send(e);
    }
}

impl Server {
    /// Launches the server.
    pub(crate) fn spawn(command: &StdioCommand) -> Result<Server, String> {
        let mut child = command.build()?.spawn().map_err(|e| {
            format!(
                "cannot start `{}`: {e}{}",
                command.display(),
                if command.shell {
                    ""
                } else {
                    " (the command runs without a shell; pass --shell for one)"
                }
            )
        })?;
        let (tx, events) = mpsc::channel();
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = child.stderr.take().expect("piped stderr");
        let tx2 = tx.clone();
        let spawned = thread::Builder::new()
            .name("mcp-probe-stdout".into())
            .spawn(move || pump(stdout, tx, Event::Stdout, Some(Event::StdoutEnd)))
            .and_then(|_| {
                thread::Builder::new()
                    .name("mcp-probe-stderr".into())
                    .spawn(move || pump(stderr, tx2, Event::Stderr, None))
            });
        let stdin = child.stdin.take();
        let mut server = Server {
            child,
            stdin,
            events,
            grace: command.grace,
            started: Instant::now(),
        };
        if let Err(e) = spawned {
            server.end();
            return Err(format!("cannot start the threads reading the server: {e}"));
        }
        Ok(server)
    }

    /// Writes `bytes` to the server's stdin.
    pub(crate) fn write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        match &mut self.stdin {
            Some(s) => s.write_all(bytes).and_then(|()| s.flush()),
            None => Err(std::io::ErrorKind::BrokenPipe.into()),
        }
    }

    /// The next event, waiting up to `wait`; `None` when nothing came (or no event can come
    /// any more).
    pub(crate) fn next(&self, wait: Duration) -> Option<Event> {
        self.events.recv_timeout(wait).ok()
    }

    /// Every event already there, without waiting.
    pub(crate) fn pending(&self) -> Vec<Event> {
        self.events.try_iter().collect()
    }

    /// How the process exited, when it has (waiting up to `wait` for it).
    pub(crate) fn exit_status(&mut self, wait: Duration) -> Option<ExitStatus> {
        let until = Instant::now() + wait;
        loop {
            match self.child.try_wait() {
                Ok(Some(s)) => return Some(s),
                Ok(None) if Instant::now() < until => thread::sleep(Duration::from_millis(10)),
                _ => return None,
            }
        }
    }

    /// Ends the server: closes its stdin and waits its grace ([`GRACE`] unless the command
    /// says otherwise), then SIGTERM and the grace again, then SIGKILL; reaps it and says which
    /// step ended it.
    pub(crate) fn end(&mut self) -> Ending {
        if let Ok(Some(s)) = self.child.try_wait() {
            self.stdin = None;
            return Ending::Exited(Some(s));
        }
        self.stdin = None;
        if let Some(s) = self.exit_status(self.grace) {
            return Ending::ClosedStdin(Some(s));
        }
        #[cfg(unix)]
        {
            self.signal(rustix::process::Signal::TERM);
            if let Some(s) = self.exit_status(self.grace) {
                return Ending::Terminated(Some(s));
            }
            self.signal(rustix::process::Signal::KILL);
        }
        let _ = self.child.kill();
        let status = self.child.wait().ok();
        Ending::Killed(status)
    }

    /// Sends `sig` to the server's process group (and to the server itself, should it have
    /// left the group).
    #[cfg(unix)]
    fn signal(&self, sig: rustix::process::Signal) {
        let pid = rustix::process::Pid::from_child(&self.child);
        let _ = rustix::process::kill_process_group(pid, sig);
        let _ = rustix::process::kill_process(pid, sig);
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if !matches!(self.child.try_wait(), Ok(Some(_))) {
            #[cfg(unix)]
            self.signal(rustix::process::Signal::KILL);
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// The exit status in the exchange file's terms.
pub(crate) fn recorded_exit(s: ExitStatus) -> crate::wire::stdio::ExitStatus {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = s.signal() {
            return crate::wire::stdio::ExitStatus::signal(sig);
        }
    }
    crate::wire::stdio::ExitStatus::code(s.code().unwrap_or(-1))
}
