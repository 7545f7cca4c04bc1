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
# An answers file for the scenarios whose server asks the client for input (elicitation).
answers=$(mktemp)
trap 'rm -f "$answers"' EXIT
# Authorization, for the scenarios whose server is protected: the probe follows the
# authorization endpoint's redirects itself (no browser), names the Client ID Metadata Document
# URL the suite's authorization server expects of a client that has one, and takes the
# credentials a scenario hands its client (MCP_CONFORMANCE_CONTEXT: a pre-registered client id
# and secret, the issuer they belong to) as a user would pass them.
context() {
  [ -n "${MCP_CONFORMANCE_CONTEXT:-}" ] || return 0
  node -e 'const v = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT)[process.argv[1]]; if (typeof v === "string") process.stdout.write(v)' "$1"
}
auth=(--authorize follow --client-metadata-url https://conformance-test.local/client-metadata.json)
client_id=$(context client_id)
[ -n "$client_id" ] && auth+=(--client-id "$client_id")
client_issuer=$(context issuer)
[ -n "$client_issuer" ] && auth+=(--client-issuer "$client_issuer")
MCP_VERDICT_CLIENT_SECRET=$(context client_secret)
export MCP_VERDICT_CLIENT_SECRET
case "${MCP_CONFORMANCE_SCENARIO:-}" in
  auth/client-credentials-basic)
    auth+=(--grant client-credentials) ;;
esac
case "${MCP_CONFORMANCE_SCENARIO:-}" in
  tools_call)
    args=(--no-auto-calls --tool add_numbers --args '{"a":5,"b":3}') ;;
  elicitation-sep1034-client-defaults)
    # Accept with no content of its own: the probe fills in the schema's defaults.
    printf '%s\n' '{"elicitation/create":{"action":"accept","content":{}}}' >"$answers"
    args=(--no-auto-calls --answers "$answers" --tool test_client_elicitation_defaults) ;;
  sep-2322-client-request-state)
    printf '%s\n' '{"elicitation/create":{"action":"accept","content":{"confirmed":true}}}' >"$answers"
    args=(--no-auto-calls --answers "$answers" --tool test_mrtr_echo_state --tool test_mrtr_no_state
      --tool test_mrtr_unrelated --tool test_mrtr_no_result_type) ;;
  http-custom-headers)
    args=(--no-auto-calls
      --tool test_custom_headers --args '{"region":"us-west1","priority":42,"verbose":false,"debug":true,"empty_val":"","method_val":"test-method","float_val":3.14159,"non_ascii_val":"Hello, 世界","whitespace_val":" padded ","leading_space_val":" us-west1","trailing_space_val":"us-west1 ","internal_space_val":"us west 1","control_char_val":"line1\nline2","crlf_val":"line1\r\nline2","tab_val":"\tindented","query":"SELECT * FROM users"}'
      --tool test_custom_headers_null --args '{"region":"us-east1","priority":1,"verbose":null,"query":"SELECT 1"}') ;;
  http-invalid-tool-headers)
    args=(--no-auto-calls --tool valid_tool) ;;
  *) ;;
esac
# Not exec: the answers file is removed when the probe ends.
"${MCP_VERDICT_BIN:?MCP_VERDICT_BIN names the mcp-verdict binary}" probe --color never \
  --protocol "$revision" "${auth[@]}" "${args[@]}" "$url"
