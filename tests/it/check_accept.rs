//! `mcp-verdict check --accept`: the failing `expect` entries rewritten to the current verdicts,
//! every other byte of the file kept, the diff shown, and a file git could not restore left
//! alone unless `--accept-dirty`. Each test works in a git repository of its own.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::cli::{bin, run};
use crate::support::temp::temp_dir;

const MISMATCH: &str = "tests/data/check/corpus/fail/mismatch.json";
const PASSING: &str = "tests/data/check/corpus/ok/tool-error-both.json";

/// A new directory holding a git repository (git looks no further up than its parent).
fn repo() -> PathBuf {
    let d = temp_dir("accept");
    git(&d, &["init", "-q"]);
    d
}

fn git(dir: &Path, args: &[&str]) {
    let o = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .env("GIT_CEILING_DIRECTORIES", dir.parent().unwrap())
        .output()
        .expect("git runs");
    assert!(o.status.success(), "git {args:?}: {o:?}");
}

fn commit_all(dir: &Path) {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "fixtures"]);
}

fn check_in(dir: &Path, args: &[&str]) -> Output {
    let mut c = bin();
    c.current_dir(dir)
        .arg("check")
        .args(args)
        .env("NO_COLOR", "1")
        .env("GIT_CEILING_DIRECTORIES", dir.parent().unwrap());
    run(&mut c, None)
}

fn text(o: &[u8]) -> String {
    String::from_utf8(o.to_vec()).unwrap()
}

fn fixture(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

/// The mismatch fixture with its expectation as the verdict has it.
fn mismatch_accepted() -> String {
    fixture(MISMATCH).replace(
        r#"      "outcome": "TOOL_SUCCESS",
      "rules": ["tools.result.is-error"],
      "absent": ["content.block.fields"]"#,
        r#"      "outcome": "INVALID_TOOL_RESULT",
      "rules": ["content.block.fields"],
      "absent": []"#,
    )
}

#[test]
fn rewrites_the_failing_entry_only_and_shows_the_diff() {
    let d = repo();
    std::fs::write(d.join("mismatch.json"), fixture(MISMATCH)).unwrap();
    std::fs::write(d.join("passing.json"), fixture(PASSING)).unwrap();
    commit_all(&d);
    assert_eq!(check_in(&d, &["."]).status.code(), Some(1));

    let o = check_in(&d, &[".", "--accept"]);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    let new = std::fs::read_to_string(d.join("mismatch.json")).unwrap();
    assert_ne!(new, fixture(MISMATCH));
    assert_eq!(new, mismatch_accepted());
    assert_eq!(
        std::fs::read_to_string(d.join("passing.json")).unwrap(),
        fixture(PASSING),
        "a passing file is not touched"
    );
    for line in [
        "--- a/mismatch.json",
        "+++ b/mismatch.json",
        "-      \"outcome\": \"TOOL_SUCCESS\",",
        "+      \"outcome\": \"INVALID_TOOL_RESULT\",",
        "-      \"absent\": [\"content.block.fields\"]",
        "+      \"absent\": []",
    ] {
        assert!(out.lines().any(|l| l == line), "{line:?} not in\n{out}");
    }
    assert!(!out.contains("passing.json"), "{out}");
    assert!(err.contains("--accept: 1 file rewritten"), "{err}");
    // The report is of the files as they are now.
    assert!(out.contains("check passed"), "{out}");

    // Once accepted, a second run has nothing to do.
    let again = check_in(&d, &[".", "--accept"]);
    assert_eq!(again.status.code(), Some(0));
    assert!(text(&again.stderr).contains("0 files rewritten"));
    assert!(!text(&again.stdout).contains("+++"));
}

#[test]
fn a_file_git_could_not_restore_is_left_alone() {
    let d = repo();
    let edited = fixture(MISMATCH).replace("deliberately", "Deliberately");
    std::fs::write(d.join("committed.json"), fixture(MISMATCH)).unwrap();
    commit_all(&d);
    std::fs::write(d.join("committed.json"), &edited).unwrap();
    std::fs::write(d.join("untracked.json"), fixture(MISMATCH)).unwrap();

    let o = check_in(&d, &[".", "--accept"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(
        std::fs::read_to_string(d.join("committed.json")).unwrap(),
        edited
    );
    assert_eq!(
        std::fs::read_to_string(d.join("untracked.json")).unwrap(),
        fixture(MISMATCH)
    );
    assert!(
        err.contains("committed.json: not accepted: it has uncommitted changes; commit it first, or pass --accept-dirty"),
        "{err}"
    );
    assert!(
        err.contains("untracked.json: not accepted: it is not committed (untracked)"),
        "{err}"
    );
    assert!(err.contains("2 files left alone"), "{err}");

    let o = check_in(&d, &[".", "--accept", "--accept-dirty"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(
        std::fs::read_to_string(d.join("untracked.json")).unwrap(),
        mismatch_accepted()
    );
    assert_eq!(
        std::fs::read_to_string(d.join("committed.json")).unwrap(),
        mismatch_accepted().replace("deliberately", "Deliberately")
    );
}

#[test]
fn outside_a_repository_nothing_is_written_without_accept_dirty() {
    let d = temp_dir("accept-norepo");
    std::fs::write(d.join("m.json"), fixture(MISMATCH)).unwrap();
    let o = check_in(&d, &["m.json", "--accept"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains("it is not in a git repository"),
        "{}",
        text(&o.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(d.join("m.json")).unwrap(),
        fixture(MISMATCH)
    );
}

/// The `isError` exchange of [`PASSING`] under both revisions, with one `all` entry.
fn both_with_all(expect: &str) -> String {
    let base = fixture(PASSING);
    let at = base.find("  \"expect\"").unwrap();
    format!("{}  \"expect\": {expect}\n}}\n", &base[..at])
}

#[test]
fn a_revision_that_differs_from_all_gets_its_own_entry() {
    let d = repo();
    // 2025-11-25 meets it; 2026-07-28 finds base.result-type.required.
    let old = both_with_all(
        r#"{"all": {"outcome": "TOOL_ERROR", "rules": ["tools.result.is-error"], "absent": ["base.result-type.required"]}}"#,
    );
    std::fs::write(d.join("both.json"), &old).unwrap();
    commit_all(&d);
    let o = check_in(&d, &["both.json", "--accept"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let new = std::fs::read_to_string(d.join("both.json")).unwrap();
    assert_eq!(
        new,
        both_with_all(
            r#"{"all": {"outcome": "TOOL_ERROR", "rules": ["tools.result.is-error"], "absent": ["base.result-type.required"]}, "2026-07-28": {"outcome": "TOOL_ERROR", "rules": ["tools.result.is-error", "base.result-type.required"], "absent": []}}"#
        )
    );
}

#[test]
fn all_takes_the_oldest_revisions_verdict() {
    let d = repo();
    // Both fail on the outcome; 2026-07-28 also finds the rule listed as absent.
    let old = both_with_all(
        "{\n    \"all\": {\n      \"outcome\": \"TOOL_SUCCESS\",\n      \"absent\": [\"base.result-type.required\"]\n    }\n  }",
    );
    std::fs::write(d.join("both.json"), &old).unwrap();
    commit_all(&d);
    let o = check_in(&d, &["both.json", "--accept"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let new = std::fs::read_to_string(d.join("both.json")).unwrap();
    assert_eq!(
        new,
        both_with_all(
            "{\n    \"all\": {\n      \"outcome\": \"TOOL_ERROR\",\n      \"absent\": [\"base.result-type.required\"]\n    },\n    \"2026-07-28\": {\n      \"outcome\": \"TOOL_ERROR\",\n      \"rules\": [\"base.result-type.required\"],\n      \"absent\": []\n    }\n  }"
        )
    );
}

#[test]
fn strict_adds_unlisted_findings_to_rules() {
    let d = repo();
    // The fixture passes, but not under --strict: 2026-07-28 finds a rule it does not list.
    std::fs::write(d.join("f.json"), fixture(PASSING)).unwrap();
    commit_all(&d);
    assert_eq!(check_in(&d, &["f.json"]).status.code(), Some(0));
    assert_eq!(check_in(&d, &["f.json", "--strict"]).status.code(), Some(1));
    let o = check_in(&d, &["f.json", "--strict", "--accept"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let listed = r#""rules": ["tools.result.is-error", "base.result-type.required"]}"#;
    assert_eq!(
        std::fs::read_to_string(d.join("f.json")).unwrap(),
        fixture(PASSING).replace(
            listed,
            r#""rules": ["tools.result.is-error", "base.result-type.required", "transport.http.400-missing-meta"]}"#
        )
    );
    assert_eq!(check_in(&d, &["f.json", "--strict"]).status.code(), Some(0));
}

#[test]
fn crlf_and_a_byte_order_mark_are_kept() {
    let d = repo();
    let old = format!("\u{feff}{}", fixture(MISMATCH).replace('\n', "\r\n"));
    std::fs::write(d.join("m.json"), &old).unwrap();
    commit_all(&d);
    let o = check_in(&d, &["m.json", "--accept"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(
        std::fs::read_to_string(d.join("m.json")).unwrap(),
        format!("\u{feff}{}", mismatch_accepted().replace('\n', "\r\n"))
    );
}

#[test]
fn usage_errors() {
    let d = repo();
    std::fs::write(d.join("m.json"), fixture(MISMATCH)).unwrap();
    commit_all(&d);
    for (args, says) in [
        (&["-", "--accept"][..], "give their paths, not `-`"),
        (
            &["m.json", "--accept", "--protocol", "all"][..],
            "leave out --protocol",
        ),
        (&["m.json", "--accept-dirty"][..], "--accept"),
        (
            &["m.json", "--accept", "--write-baseline", "b.json"][..],
            "cannot be used with",
        ),
    ] {
        let o = check_in(&d, args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(
            text(&o.stderr).contains(says),
            "{args:?}: {}",
            text(&o.stderr)
        );
    }
    assert_eq!(
        std::fs::read_to_string(d.join("m.json")).unwrap(),
        fixture(MISMATCH)
    );
}
