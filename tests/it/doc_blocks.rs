//! Every fenced block of the README and the user guide (`docs/*.md`) is tested, by its info
//! string (the table in docs/testing.md): `sh` blocks run against this build, `sh ci` blocks
//! are commands `.ci/run` runs, `sh manual` blocks are checked for syntax, every `mcp-verdict`
//! line's flags exist in its `--help`, and data blocks parse. Rust blocks run as doc tests.
//!
//! A new page under `docs/` joins without a change here.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::markdown::{Fence, fences};
use crate::support::temp::temp_dir;
use crate::support::tools::on_path;

/// Longest a runnable block may take (a probe's active checks against `serve` take seconds).
const BLOCK_TIMEOUT: Duration = Duration::from_secs(120);

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and docs/*.md, relative to the repository root, sorted.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![PathBuf::from("README.md")];
    let docs = root().join("docs");
    for e in std::fs::read_dir(&docs).expect("docs/ exists").flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "md") {
            pages.push(p.strip_prefix(root()).unwrap().to_path_buf());
        }
    }
    pages.sort();
    pages
}

/// How a `sh` block is tested.
#[derive(Debug, PartialEq)]
enum Sh {
    Run { status: i32 },
    Ci,
    Manual,
}

/// A block's kind from its info string, or why the info string is not one the table knows.
#[derive(Debug, PartialEq)]
enum Kind {
    Rust,
    Sh(Sh),
    Json,
    Toml,
    Yaml,
    Python,
    Text,
}

fn kind(info: &str) -> Result<Kind, String> {
    let mut words = info.split_whitespace();
    let lang = words.next().unwrap_or("");
    let attrs: Vec<&str> = words.collect();
    let plain = |k: Kind| {
        if attrs.is_empty() {
            Ok(k)
        } else {
            Err(format!(
                "`{lang}` blocks take no attributes, found `{}`",
                attrs.join(" ")
            ))
        }
    };
    match lang {
        "rust" => plain(Kind::Rust),
        "json" => plain(Kind::Json),
        "toml" => plain(Kind::Toml),
        "yaml" => plain(Kind::Yaml),
        "python" => plain(Kind::Python),
        "text" => plain(Kind::Text),
        "sh" => match attrs.as_slice() {
            [] => Ok(Kind::Sh(Sh::Run { status: 0 })),
            ["ci"] => Ok(Kind::Sh(Sh::Ci)),
            ["manual"] => Ok(Kind::Sh(Sh::Manual)),
            [status] if status.starts_with("exit-") => status["exit-".len()..]
                .parse()
                .map(|status| Kind::Sh(Sh::Run { status }))
                .map_err(|_| format!("`{status}` is not `exit-N`")),
            _ => Err(format!("`sh {}`: expected nothing, `ci`, `manual` or `exit-N`", attrs.join(" "))),
        },
        "" => Err("a block needs an info string (rust, sh, json, toml, yaml, python, text): an unmarked block is compiled as Rust by rustdoc".into()),
        other => Err(format!("unknown block language `{other}` (rust, sh, json, toml, yaml, python, text)")),
    }
}

/// The block's command lines: `\`-continued lines joined, comments and blank lines dropped.
fn command_lines(body: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut current = String::new();
    for line in body.lines() {
        let line = line.trim();
        if let Some(head) = line.strip_suffix('\\') {
            current.push_str(head);
            current.push(' ');
            continue;
        }
        current.push_str(line);
        let done = std::mem::take(&mut current);
        let done = done.trim();
        if !done.is_empty() && !done.starts_with('#') {
            lines.push(done.to_owned());
        }
    }
    lines
}

/// Words of a command line outside quotes, up to a comment: enough to find its flags.
fn unquoted_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => word.push('\u{0}'),
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == '#' && word.is_empty() => break,
            None if c.is_whitespace() => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            None => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// `--flag`s an `mcp-verdict` (or `cargo run ... --`) invocation passes that its subcommand's
/// `--help` does not name.
fn unknown_flags(line: &str, help: &mut dyn FnMut(Option<&str>) -> String) -> Vec<String> {
    let words = unquoted_words(line);
    let mut missing = Vec::new();
    let mut i = 0;
    while i < words.len() {
        // After a lone `--` come a stdio server's command and arguments (`probe -- COMMAND`),
        // which may be the tool again.
        let command_position =
            i == 0 || matches!(words[i - 1].as_str(), "|" | "&&" | "||" | ";" | "&" | "--");
        let start = if !command_position {
            None
        } else if words[i] == "mcp-verdict" {
            Some(i + 1)
        } else if words[i] == "cargo" && words.get(i + 1).map(String::as_str) == Some("run") {
            words[i..].iter().position(|w| w == "--").map(|p| i + p + 1)
        } else {
            None
        };
        let Some(start) = start else {
            i += 1;
            continue;
        };
        let end = words[start..]
            .iter()
            .position(|w| {
                matches!(
                    w.as_str(),
                    "|" | "&&" | "||" | ";" | "&" | ">" | ">>" | "--"
                )
            })
            .map_or(words.len(), |p| start + p);
        let args = &words[start..end];
        let sub = args
            .first()
            .filter(|a| !a.starts_with('-'))
            .map(String::as_str);
        let text = help(sub);
        for flag in args.iter().filter(|a| a.starts_with("--") && a.len() > 2) {
            let name = flag.split('=').next().unwrap();
            let known = text.match_indices(name).any(|(at, _)| {
                !text[at + name.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '-')
            });
            if !known {
                missing.push(format!("{} {name}", sub.unwrap_or("mcp-verdict")));
            }
        }
        i = end;
    }
    missing
}

fn help_text(sub: Option<&str>) -> String {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcp-verdict"));
    cmd.args(sub).arg("--help");
    let out = cmd.output().expect("the binary runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The files `.ci/run` is, and the scripts it runs with `bash FILE`.
fn ci_scripts() -> Vec<String> {
    let ci = std::fs::read_to_string(root().join(".ci/run")).expect(".ci/run exists");
    let mut texts = vec![ci.clone()];
    for line in ci.lines() {
        if let Some(script) = line.trim().strip_prefix("bash ") {
            let script = script.split_whitespace().next().unwrap();
            if let Ok(text) = std::fs::read_to_string(root().join(script)) {
                texts.push(text);
            }
        }
    }
    texts
}

/// Whether commands in a fresh network namespace (`unshare -rn`, loopback up) can run here:
/// then a block's fixed ports cannot meet another process's.
fn isolated_network() -> bool {
    Command::new("unshare")
        .args(["-rn", "ip", "link", "set", "lo", "up"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

const PRELUDE: &str = r#"set -e
# `cargo run [...] -- ARGS` in a page is this build's binary.
cargo() {
  if [ "$1" = run ]; then
    while [ "$#" -gt 0 ] && [ "$1" != -- ]; do shift; done
    shift
    mcp-verdict "$@" || return   # so that the failure is reported at the page's line
  else
    echo "a runnable block calls cargo $1: mark it \`sh ci\` or \`sh manual\`" >&2
    return 97
  fi
}
trap 'echo "doc-block-failed-at-line $LINENO" >&2' ERR
"#;

struct Ran {
    status: Option<i32>,
    failed_line: Option<usize>,
    output: String,
}

/// Runs a block with bash from the repository root, in its own process group, killed with its
/// children when it ends or at the timeout.
fn run_block(body: &str, dir: &Path, isolate: bool) -> Ran {
    let script = dir.join("block.sh");
    std::fs::write(&script, format!("{PRELUDE}{body}")).unwrap();
    let prelude_lines = PRELUDE.lines().count();
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_mcp-verdict"))
        .parent()
        .unwrap();
    let path = std::env::join_paths(std::iter::once(bin_dir.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let out_path = dir.join("out.txt");
    let out = std::fs::File::create(&out_path).unwrap();
    let mut cmd = if isolate {
        let mut c = Command::new("unshare");
        c.args(["-rn", "bash", "-c", "ip link set lo up && exec bash \"$0\""]);
        c.arg(&script);
        c
    } else {
        let mut c = Command::new("bash");
        c.arg(&script);
        c
    };
    use std::os::unix::process::CommandExt as _;
    cmd.current_dir(root())
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(out.try_clone().unwrap())
        .stderr(out)
        .process_group(0);
    let mut child = cmd.spawn().expect("bash runs");
    let pgid = child.id();
    let kill_group = || {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{pgid}")])
            .stderr(Stdio::null())
            .status();
    };
    let started = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s.code();
        }
        if started.elapsed() > BLOCK_TIMEOUT {
            kill_group();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    kill_group();
    let output = std::fs::read_to_string(&out_path).unwrap_or_default();
    let failed_line = output
        .lines()
        .filter_map(|l| l.strip_prefix("doc-block-failed-at-line "))
        .filter_map(|n| n.trim().parse::<usize>().ok())
        .next_back()
        .map(|n| n.saturating_sub(prelude_lines));
    Ran {
        status,
        failed_line,
        output,
    }
}

/// The 1-based line of the block's last command (a `\`-continued command ends where it ends).
fn last_command_line(body: &str) -> usize {
    body.lines()
        .enumerate()
        .filter(|(_, l)| {
            let t = l.trim();
            !t.is_empty() && !t.starts_with('#')
        })
        .map(|(i, _)| i + 1)
        .last()
        .unwrap_or(0)
}

fn python3_parses(kind: &str, body: &str) -> Option<Result<(), String>> {
    let python = on_path("python3")?;
    let code = match kind {
        "yaml" => {
            "import sys\ntry:\n import yaml\nexcept ImportError:\n sys.exit(42)\nyaml.safe_load(sys.stdin.read())"
        }
        _ => "import ast, sys\nast.parse(sys.stdin.read())",
    };
    let mut child = Command::new(python)
        .args(["-c", code])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(body.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    match out.status.code() {
        Some(0) => Some(Ok(())),
        Some(42) => None,
        _ => Some(Err(String::from_utf8_lossy(&out.stderr).into_owned())),
    }
}

/// What is wrong with one block, if anything (`skips` collects what this machine cannot test).
fn check_block(page: &Path, fence: &Fence, ctx: &mut Ctx, skips: &mut Vec<String>) -> Vec<String> {
    let at = format!("{}:{}", page.display(), fence.line);
    let kind = match kind(&fence.info) {
        Ok(k) => k,
        Err(e) => return vec![format!("{at}: {e}")],
    };
    let mut problems = Vec::new();
    match kind {
        Kind::Rust | Kind::Text => {}
        Kind::Json => {
            if let Err(e) = serde_json::from_str::<serde_json::Value>(&fence.body) {
                problems.push(format!("{at}: the json block does not parse: {e}"));
            }
        }
        Kind::Toml => {
            if let Err(e) = toml::from_str::<toml::Table>(&fence.body) {
                problems.push(format!("{at}: the toml block does not parse: {e}"));
            }
        }
        Kind::Yaml | Kind::Python => {
            let lang = fence.info.as_str();
            match python3_parses(lang, &fence.body) {
                Some(Ok(())) => {}
                Some(Err(e)) => {
                    problems.push(format!("{at}: the {lang} block does not parse: {e}"))
                }
                None => skips.push(format!(
                    "{at}: no python3 (with PyYAML for yaml) to parse the {lang} block"
                )),
            }
        }
        Kind::Sh(sh) => {
            let syntax = Command::new("bash")
                .args(["-n", "-c", &fence.body])
                .output()
                .expect("bash runs");
            if !syntax.status.success() {
                problems.push(format!(
                    "{at}: bash -n: {}",
                    String::from_utf8_lossy(&syntax.stderr).trim()
                ));
            }
            for line in command_lines(&fence.body) {
                for flag in unknown_flags(&line, &mut |sub| ctx.help(sub)) {
                    problems.push(format!("{at}: `{flag}` is not in its --help: {line}"));
                }
            }
            match sh {
                Sh::Manual => {}
                Sh::Ci => {
                    // `a && b` is run when `.ci/run` (under `set -e`) runs `a` and `b`.
                    for line in command_lines(&fence.body) {
                        for part in line.split(" && ").map(str::trim) {
                            if !ctx.ci.iter().any(|t| t.lines().any(|l| l.trim() == part)) {
                                problems.push(format!(
                                    "{at}: `sh ci`, but no line of .ci/run or a script it runs is `{part}`"
                                ));
                            }
                        }
                    }
                }
                Sh::Run { status } => {
                    let ran = run_block(&fence.body, &ctx.dir, ctx.isolate);
                    let lines: Vec<&str> = ran.output.lines().collect();
                    let tail = lines[lines.len().saturating_sub(15)..]
                        .iter()
                        .map(|l| l.chars().take(300).collect::<String>())
                        .collect::<Vec<_>>()
                        .join("\n");
                    if ran.status != Some(status) {
                        problems.push(format!(
                            "{at}: the block ended with status {:?}, the page says {status}; its output ends:\n{tail}",
                            ran.status
                        ));
                    } else if status != 0 && ran.failed_line != Some(last_command_line(&fence.body))
                    {
                        problems.push(format!(
                            "{at}: status {status} must come from the block's last command, but line {:?} of the block failed; its output ends:\n{tail}",
                            ran.failed_line
                        ));
                    }
                }
            }
        }
    }
    problems
}

struct Ctx {
    ci: Vec<String>,
    dir: PathBuf,
    isolate: bool,
    helps: std::collections::HashMap<Option<String>, String>,
}

impl Ctx {
    fn help(&mut self, sub: Option<&str>) -> String {
        self.helps
            .entry(sub.map(str::to_owned))
            .or_insert_with(|| help_text(sub))
            .clone()
    }
}

#[test]
fn every_block_of_the_readme_and_the_guide_is_tested() {
    let mut ctx = Ctx {
        ci: ci_scripts(),
        dir: temp_dir("doc-blocks"),
        isolate: isolated_network(),
        helps: Default::default(),
    };
    let mut problems = Vec::new();
    let mut skips = Vec::new();
    let mut counted = 0;
    for page in pages() {
        let text = std::fs::read_to_string(root().join(&page)).unwrap();
        for fence in fences(&text) {
            counted += 1;
            problems.extend(check_block(&page, &fence, &mut ctx, &mut skips));
        }
    }
    for s in &skips {
        let _ = writeln!(std::io::stderr(), "SKIP: {s}");
    }
    assert!(counted > 20, "the pages' blocks were found ({counted})");
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn info_strings_are_read_as_the_table_says() {
    assert_eq!(kind("sh"), Ok(Kind::Sh(Sh::Run { status: 0 })));
    assert_eq!(kind("sh exit-1"), Ok(Kind::Sh(Sh::Run { status: 1 })));
    assert_eq!(kind("sh ci"), Ok(Kind::Sh(Sh::Ci)));
    assert_eq!(kind("sh manual"), Ok(Kind::Sh(Sh::Manual)));
    assert!(kind("sh exit-x").is_err());
    assert!(kind("").is_err());
    assert!(kind("bash").is_err());
    assert!(kind("sh later").is_err());
    assert!(kind("json ci").is_err());
}

#[test]
fn flags_are_checked_against_the_subcommand_help() {
    let mut help = |sub: Option<&str>| match sub {
        Some("check") => "  --format <FMT>\n  --output <FILE>\n".to_owned(),
        _ => "  --version\n".to_owned(),
    };
    assert!(
        unknown_flags(
            "mcp-verdict check x --format json --output=r.json",
            &mut help
        )
        .is_empty()
    );
    assert_eq!(
        unknown_flags("mcp-verdict check x --formats json", &mut help),
        ["check --formats"]
    );
    assert_eq!(
        unknown_flags("cargo run -q -- check x --out r", &mut help),
        ["check --out"]
    );
    // Flags inside quotes, after a comment or of another program are not the tool's.
    assert!(unknown_flags("mcp-verdict check '--nope' # --nope", &mut help).is_empty());
    assert!(unknown_flags("mcp-verdict --version | grep --quiet x", &mut help).is_empty());
    assert!(unknown_flags("cargo build --bin mcp-verdict --example x", &mut help).is_empty());
    // After `--` come a stdio server's command and its own flags, which may be the tool's.
    assert!(unknown_flags("mcp-verdict check x -- npx server --nope", &mut help).is_empty());
    assert_eq!(
        unknown_flags("mcp-verdict check x -- mcp-verdict check --nope", &mut help),
        ["check --nope"]
    );
    assert_eq!(
        unknown_flags("true && mcp-verdict --nope", &mut help),
        ["mcp-verdict --nope"]
    );
}

#[test]
fn a_failing_block_is_caught_with_its_line() {
    let dir = temp_dir("doc-blocks-unit");
    let ran = run_block("true\nfalse\ntrue\n", &dir, false);
    assert_eq!(ran.status, Some(1));
    assert_eq!(ran.failed_line, Some(2));
    let ran = run_block(
        "sleep 30 &\nmcp-verdict rules --help >/dev/null\n",
        &dir,
        false,
    );
    assert_eq!(ran.status, Some(0), "{}", ran.output);
}
