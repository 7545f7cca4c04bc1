#!/usr/bin/env bash
# Installs the tools that read mcp-verdict's reports, for tests/it/report_consumers.rs, exactly
# as pinned in package-lock.json, into tests/reporters/node_modules (git-ignored): Microsoft's
# SARIF Multitool (its Linux build ships inside the npm package). Needs Node >= 20 and npm.
#   bash tests/reporters/install.sh
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v npm >/dev/null 2>&1; then
  echo "tests/reporters/install.sh: npm is needed (Node >= 20)" >&2
  exit 1
fi
npm ci --no-audit --no-fund --loglevel=error
# The package's postinstall step only marks the binary executable; npm may skip install scripts.
tool=node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool
if [ -f "$tool" ]; then
  chmod u+x "$tool"
  echo "tests/reporters: SARIF Multitool $(node -p "require('./node_modules/@microsoft/sarif-multitool/package.json').version")"
fi
