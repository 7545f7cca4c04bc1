#!/usr/bin/env bash
# `mcp-verdict probe` as the client under test, as tests/conformance/run.sh hands it to the
# official conformance suite. The suite runs this with the URL of its test server as the last
# argument, the scenario's name in MCP_CONFORMANCE_SCENARIO and the revision to speak in
# MCP_CONFORMANCE_PROTOCOL_VERSION. The probe is a general client and knows no scenario: the
# few scenarios that ask the client to call a given tool with given arguments get them here,
# as the command-line flags any user would pass.
set -euo pipefail
if [ "$#" -lt 1 ]; then
  echo "tests/conformance/client.sh: expects the server URL as its last argument" >&2
  exit 2
fi
url=${!#}
revision=${MCP_CONFORMANCE_PROTOCOL_VERSION:-2025-11-25}
args=()
case "${MCP_CONFORMANCE_SCENARIO:-}" in
  *) ;;
esac
exec "${MCP_VERDICT_BIN:?MCP_VERDICT_BIN names the mcp-verdict binary}" probe --color never \
  --protocol "$revision" "${args[@]}" "$url"
