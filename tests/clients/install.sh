#!/usr/bin/env bash
# Installs the real MCP clients that `mcp-verdict clients` drives (drivers.toml) against serve's fault
# scenarios, exactly as pinned: the Node ones from package-lock.json into
# tests/clients/node_modules, the Python SDK from requirements.txt (with hashes) into
# tests/clients/.venv. Both folders are git-ignored. Needs Node >= 20, npm and Python >= 3.10.
#   bash tests/clients/install.sh
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "tests/clients/install.sh: node and npm are needed (Node >= 20)" >&2
  exit 1
fi
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 20 ]; then
  echo "tests/clients/install.sh: Node >= 20 is needed, found $(node --version)" >&2
  exit 1
fi
npm ci --no-audit --no-fund --loglevel=error
python=${PYTHON:-python3}
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
  echo "tests/clients/install.sh: Python >= 3.10 is needed ($python)" >&2
  exit 1
fi
[ -x .venv/bin/python ] || "$python" -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check --require-hashes --no-deps -r requirements.txt
echo "tests/clients: installed" \
  "$(node -p 'const l=require("./package-lock.json").packages; ["@modelcontextprotocol/client","@modelcontextprotocol/sdk","@modelcontextprotocol/inspector-cli"].map(n=>n+"@"+l["node_modules/"+n].version).join(" ")')" \
  "mcp==$(.venv/bin/python -c 'from importlib.metadata import version; print(version("mcp"))')"
