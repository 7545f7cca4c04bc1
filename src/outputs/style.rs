//! Terminal styling, on only when asked for.

use crate::judge::Verdict;
use crate::vocab::Severity;

/// When to colour output (`--color`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum ColorChoice {
    /// When the stream is a terminal, unless `NO_COLOR` is set (non-empty); `CLICOLOR_FORCE`
    /// (non-empty, not `0`) colours a stream that is not a terminal.
    #[default]
    Auto,
    /// Always, whatever the stream and the environment.
    Always,
    /// Never.
    Never,
}

impl ColorChoice {
    /// Whether to colour a stream, `is_terminal` telling whether it is a terminal.
    pub fn colors(self, is_terminal: bool) -> bool {
        let set = |var: &str| std::env::var_os(var).is_some_and(|v| !v.is_empty() && v != "0");
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
                !no_color && (is_terminal || set("CLICOLOR_FORCE"))
            }
        }
    }
}

/// ANSI styling, on only when asked for.
#[derive(Clone, Copy, Debug, Default)]
pub struct Style {
    /// Whether to emit ANSI escape codes.
    pub color: bool,
}

impl Style {
    /// Colour when stdout is a terminal and `NO_COLOR` is unset or empty.
    pub fn detect_stdout() -> Style {
        Style::stdout(ColorChoice::Auto)
    }

    /// The styling of stdout under a `--color` choice.
    pub fn stdout(choice: ColorChoice) -> Style {
        use std::io::IsTerminal;
        Style {
            color: choice.colors(std::io::stdout().is_terminal()),
        }
    }

    fn paint(&self, code: &str, s: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }

    /// Bold text.
    pub fn bold(&self, s: &str) -> String {
        self.paint("1", s)
    }

    /// Dimmed text.
    pub fn dim(&self, s: &str) -> String {
        self.paint("2", s)
    }

    /// A line a diff removes (red).
    pub fn removed(&self, s: &str) -> String {
        self.paint("31", s)
    }

    /// A line a diff adds (green).
    pub fn added(&self, s: &str) -> String {
        self.paint("32", s)
    }

    /// A severity, coloured.
    pub fn severity(&self, s: Severity) -> String {
        let text = format!("{:<7}", s.as_ref());
        match s {
            Severity::Error => self.paint("31", &text),
            Severity::Warning => self.paint("33", &text),
            Severity::Info => self.paint("36", &text),
        }
    }

    /// An outcome name, coloured by how good it is for the caller or by the verdict's worst
    /// finding, whichever is worse: a `TOOL_SUCCESS` that carries an error finding is red.
    pub fn outcome(&self, v: &Verdict<'_>) -> String {
        use crate::vocab::Outcome::*;
        // Green, cyan, yellow, red: worse to the right.
        const CODES: [&str; 4] = ["32", "36", "33", "31"];
        let by_outcome = match v.outcome {
            ToolSuccess | NotificationAccepted => 0,
            InputRequired | TaskCreated => 1,
            ToolError | JsonrpcError => 2,
            _ => 3,
        };
        let by_findings = match v.worst() {
            Some(Severity::Error) => 3,
            Some(Severity::Warning) => 2,
            _ => 0,
        };
        let code = CODES[by_outcome.max(by_findings)];
        self.paint(&format!("1;{code}"), v.outcome.as_str())
    }

    /// Text coloured by the worst finding it sums up: red for errors, yellow for warnings,
    /// green for none.
    pub fn by_worst(&self, worst: Option<Severity>, s: &str) -> String {
        let code = match worst {
            Some(Severity::Error) => "1;31",
            Some(Severity::Warning) => "1;33",
            _ => "1;32",
        };
        self.paint(code, s)
    }
}
