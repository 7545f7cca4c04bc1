#!/usr/bin/env bash
# Installs the official MCP conformance suite and the Node 22 it needs, exactly as pinned in
# package-lock.json, into tests/conformance/node_modules (git-ignored). Needs the machine's
# Node (>= 20) and npm only to run the install; the suite then runs on the pinned Node 22.
#   bash tests/conformance/install.sh
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v npm >/dev/null 2>&1; then
  echo "tests/conformance/install.sh: npm is needed (Node >= 20)" >&2
  exit 1
fi
npm ci --no-audit --no-fund --loglevel=error
echo "tests/conformance: installed $(node_modules/.bin/node --version) and conformance $(node_modules/.bin/node node_modules/@modelcontextprotocol/conformance/dist/index.js --version)"
