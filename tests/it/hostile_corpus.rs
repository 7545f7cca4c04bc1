//! Hostile inputs to `check` and `classify`: many findings (linear locating, a cap that keeps
//! the count), directory walks with loops and FIFOs, a HAR with nothing to judge.

use std::path::Path;
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

use mcp_verdict::run::check::{CheckOptions, check_bytes, locate};

use crate::support::cli::{bin, run};
use crate::support::recording::progress_without_token;
use crate::support::temp::temp_dir;

const PROGRESS: &str = "transport.sse.progress";

/// Locating work (bytes scanned) and the finding count of one `check` of `n` events.
fn locate_work(n: usize, cap: usize) -> (u64, usize, usize) {
    let text = progress_without_token(n);
    let options = CheckOptions {
        max_findings_per_rule: cap,
        ..CheckOptions::default()
    };
    let before = locate::work();
    let r = check_bytes("progress.json", text.as_bytes(), &options);
    let work = locate::work() - before;
    let res = &r.results[0];
    let shown = res
        .findings
        .iter()
        .filter(|f| f.finding.rule == PROGRESS)
        .count();
    let omitted = res
        .omitted
        .iter()
        .filter(|o| o.rule == PROGRESS)
        .map(|o| o.count)
        .sum();
    (work, shown, omitted)
}

#[test]
fn locating_findings_grows_linearly_with_events() {
    // Every finding located (no cap): ten times the events, about ten times the work.
    let (small, shown_small, _) = locate_work(1_000, 0);
    let (large, shown_large, _) = locate_work(10_000, 0);
    assert_eq!(shown_small, 1_000);
    assert_eq!(shown_large, 10_000);
    let ratio = large as f64 / small as f64;
    eprintln!("locating work, 10,000 events / 1,000: {ratio:.2}x ({large} / {small} bytes)");
    assert!(
        ratio < 12.0,
        "locating 10,000 events took {ratio:.1}x the work of 1,000 ({large} vs {small} bytes scanned)"
    );
    // Every finding is placed in the file, on a distinct column of the one-line body.
    let text = progress_without_token(1_000);
    let r = check_bytes("p.json", text.as_bytes(), &CheckOptions::default());
    let f: Vec<_> = r.results[0]
        .findings
        .iter()
        .filter(|x| x.finding.rule == PROGRESS)
        .collect();
    assert_eq!(f.len(), 100);
    assert!(
        f.iter()
            .all(|x| x.location.is_some() && x.excerpt.is_some())
    );
    let at: Vec<(usize, usize)> = f
        .iter()
        .filter_map(|x| x.location.map(|l| (l.line, l.column)))
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{at:?}");
}

#[test]
fn the_cap_keeps_the_first_findings_and_counts_the_rest() {
    let (_, shown, omitted) = locate_work(1_000, 100);
    assert_eq!((shown, omitted), (100, 900));
    let (_, shown, omitted) = locate_work(1_000, 0);
    assert_eq!((shown, omitted), (1_000, 0));
    // The cap changes no status or outcome.
    let text = progress_without_token(300);
    let capped = check_bytes("p.json", text.as_bytes(), &CheckOptions::default());
    let all = check_bytes(
        "p.json",
        text.as_bytes(),
        &CheckOptions {
            max_findings_per_rule: 0,
            ..CheckOptions::default()
        },
    );
    let (a, b) = (&capped.results[0], &all.results[0]);
    assert_eq!(
        (a.status, a.outcome, &a.failures, &a.cited),
        (b.status, b.outcome, &b.failures, &b.cited)
    );
}

#[test]
fn every_format_says_how_many_findings_were_not_shown() {
    let dir = temp_dir("cap-formats");
    let file = dir.join("progress.json");
    std::fs::write(&file, progress_without_token(150)).unwrap();
    let said = "50 more findings of transport.sse.progress not shown";
    for format in [
        "text", "json", "ndjson", "markdown", "junit", "sarif", "html", "github", "gitlab",
    ] {
        let out = run(
            bin()
                .args(["check", "--format", format, "--root"])
                .arg(&dir)
                .arg(&file),
            None,
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{format}");
        assert!(stdout.contains(said), "{format}: {stdout:.2000}");
    }
    for format in ["text", "json"] {
        let out = run(
            bin().args(["classify", "--format", format]).arg(&file),
            None,
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{format}");
        assert!(stdout.contains(said), "classify {format}: {stdout:.2000}");
    }
    // 0 lists every finding; another cap another count.
    let out = run(
        bin()
            .args(["check", "--format", "json", "--max-findings-per-rule", "0"])
            .arg(&file),
        None,
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = &v["files"][0]["results"][0];
    let progress = |r: &serde_json::Value| {
        r["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["rule"] == PROGRESS)
            .count()
    };
    assert_eq!(progress(r), 150);
    assert!(r.get("omitted").is_none());
    let out = run(
        bin()
            .args([
                "classify",
                "--format",
                "json",
                "--max-findings-per-rule",
                "10",
            ])
            .arg(&file),
        None,
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["verdicts"][0]["omitted"][0]["count"], 140);
    assert_eq!(progress(&v["verdicts"][0]), 10);
}

/// Runs `f` on another thread and fails (instead of hanging) when it takes longer than a
/// minute.
fn watchdog<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|_| panic!("{what} did not finish within a minute"))
}

fn exchange() -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples/exchanges/legacy-result-without-result-type.json"),
    )
    .unwrap()
}

#[cfg(unix)]
#[test]
fn the_walk_visits_each_directory_once_and_never_opens_a_fifo() {
    use std::os::unix::fs::symlink;
    let top = temp_dir("walk");
    let root = top.join("corpus");
    let sub = root.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(root.join("a.json"), exchange()).unwrap();
    std::fs::write(sub.join("b.json"), exchange()).unwrap();
    std::fs::write(top.join("outside.json"), exchange()).unwrap();
    // Two links to `.`, a link back up out of the corpus, a link to a sibling.
    symlink(".", root.join("self1")).unwrap();
    symlink(".", root.join("self2")).unwrap();
    symlink("../..", sub.join("up")).unwrap();
    symlink("sub", root.join("again")).unwrap();
    let status = Command::new("mkfifo")
        .arg(root.join("pipe.json"))
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
    let root2 = root.clone();
    let out = watchdog("check DIR", move || {
        run(
            bin()
                .args(["check", "--format", "json", "--root"])
                .arg(&root2)
                .arg(&root2),
            None,
        )
    });
    let stderr = String::from_utf8_lossy(&out.stderr);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let files: Vec<&str> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["file"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["a.json", "sub/b.json"], "{stderr}");
    for link in ["self1", "self2"] {
        let notes = stderr
            .lines()
            .filter(|l| l.contains(&format!("{link}: a symbolic link loop")))
            .count();
        assert_eq!(notes, 1, "{link}: {stderr}");
    }
    assert_eq!(
        stderr
            .lines()
            .filter(|l| l.contains("up: a symbolic link to") && l.contains("outside"))
            .count(),
        1,
        "{stderr}"
    );
    assert_eq!(
        stderr
            .lines()
            .filter(|l| l.contains("pipe.json: a FIFO, not a regular file; skipped"))
            .count(),
        1,
        "{stderr}"
    );
    // Following links outside the roots still visits each directory once.
    let root3 = root.clone();
    let out = watchdog("check --follow-symlinks DIR", move || {
        run(
            bin()
                .args(["check", "--format", "json", "--follow-symlinks", "--root"])
                .arg(&root3)
                .arg(&root3),
            None,
        )
    });
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let files: Vec<String> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["file"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(files.len(), 3, "{files:?}");
    assert!(
        files.iter().any(|f| f.ends_with("outside.json")),
        "{files:?}"
    );
}

#[test]
fn a_har_with_nothing_to_judge_has_its_own_exit_status() {
    let dir = temp_dir("har-nothing");
    let har = dir.join("empty.har");
    std::fs::write(
        &har,
        r#"{"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": []}}"#,
    )
    .unwrap();
    let out = run(bin().args(["classify", "--har"]).arg(&har), None);
    assert_eq!(out.status.code(), Some(4));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("nothing judged"), "{stderr}");
}
