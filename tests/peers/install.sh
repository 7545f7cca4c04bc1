#!/usr/bin/env bash
# Installs the real MCP servers that tests/it/interop_peers.rs probes on loopback and
# tests/it/interop_stdio.rs launches over stdio, exactly as pinned in package-lock.json, into
# tests/peers/node_modules (git-ignored). Needs Node >= 20 and npm.
#   bash tests/peers/install.sh
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "tests/peers/install.sh: node and npm are needed (Node >= 20)" >&2
  exit 1
fi
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 20 ]; then
  echo "tests/peers/install.sh: Node >= 20 is needed, found $(node --version)" >&2
  exit 1
fi
npm ci --no-audit --no-fund --loglevel=error
echo "tests/peers: installed $(ls node_modules/@modelcontextprotocol | tr '\n' ' ')"
