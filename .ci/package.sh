#!/usr/bin/env bash
# Packs a release build of the command line into an archive for one target:
#   bash .ci/package.sh TARGET [BINARY]
# BINARY defaults to target/TARGET/release/mcp-verdict[.exe]. The archive, with the licences
# and the README beside the binary, goes to target/dist/ as mcp-verdict-VERSION-TARGET.tar.gz
# (.zip for Windows), with a .sha256 file beside it; its path is printed last.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: package.sh TARGET [BINARY]}
exe=""
case "$target" in *windows*) exe=".exe" ;; esac
bin=${2:-target/$target/release/mcp-verdict$exe}
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
name="mcp-verdict-$version-$target"
stage="target/dist/$name"
rm -rf "$stage"
mkdir -p "$stage"
cp "$bin" "$stage/mcp-verdict$exe"
cp README.md LICENSE-MIT LICENSE-APACHE "$stage/"
cd target/dist
if [ -n "$exe" ]; then
  archive="$name.zip"
  rm -f "$archive"
  if command -v 7z >/dev/null 2>&1; then 7z a -tzip -bd "$archive" "$name" >/dev/null; else zip -qr "$archive" "$name"; fi
else
  archive="$name.tar.gz"
  tar -czf "$archive" "$name"
fi
if command -v sha256sum >/dev/null 2>&1; then sha256sum "$archive" > "$archive.sha256"; else shasum -a 256 "$archive" > "$archive.sha256"; fi
rm -rf "$name"
echo "target/dist/$archive"
