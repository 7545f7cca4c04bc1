// Writes the comparison's inputs, deterministically (no clock, no randomness):
//
//   OUT_DIR/exchanges.jsonl  one exchange per line in mcp-verdict's exchange file format
//                            (request as sent under 2026-07-28, response status, headers and
//                            body text exactly as the seed classifier receives it)
//   OUT_DIR/instances.jsonl  {"name", "text"}: the CallToolResult instances (the `result`
//                            member of the exchanges that carry a final tool result), as JSON text
//
//   node benches/compare/gen-data.mjs OUT_DIR
//
// The first eleven exchanges are the seed document's eleven cases (its response bodies, serialized
// as its loopback test server does with JSON.stringify); the rest are realistic variants. Every
// body is JSON (no SSE), so the seed classifier can handle all of them. `seed` in `description`
// is the outcome the seed's own test expects; the harnesses check what they get against nothing
// but print it, so disagreements are visible in the report.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const outDir = process.argv[2];
if (!outDir) {
  console.error('usage: gen-data.mjs OUT_DIR');
  process.exit(2);
}

const REV = '2026-07-28';

// A conformant 2026-07-28 tools/call request for `tool` with JSON-RPC id `id`.
function request(id, tool, args) {
  return {
    url: 'http://127.0.0.1:3001/mcp',
    headers: {
      'MCP-Protocol-Version': REV,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'Mcp-Method': 'tools/call',
      'Mcp-Name': tool,
    },
    body: {
      jsonrpc: '2.0', id, method: 'tools/call',
      params: {
        name: tool, arguments: args,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': REV,
          'io.modelcontextprotocol/clientInfo': { name: 'compare-client', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {}, url: {} } },
        },
      },
    },
  };
}

// --- the seed's eleven cases (bodies as in its test table) ---------------------------------
const good = { jsonrpc: '2.0', id: 1, result: {
  resultType: 'complete', content: [{ type: 'text', text: 'ok' }], isError: false,
} };
const rpcError = { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'synthetic invalid params' } };
const toolError = { jsonrpc: '2.0', id: 1, result: {
  resultType: 'complete', content: [{ type: 'text', text: 'failed' }], isError: true,
} };

const seedCases = [
  ['seed:baseline', 200, good, 'TOOL_SUCCESS'],
  ['seed:http_503', 503, { note: 'synthetic outage' }, 'HTTP_ERROR'],
  ['seed:jsonrpc_error', 200, rpcError, 'JSONRPC_ERROR'],
  ['seed:tool_isError', 200, toolError, 'TOOL_ERROR'],
  ['seed:http_500_success_body', 500, good, 'HTTP_ERROR'],
  ['seed:malformed_json', 200, '{unclosed', 'MALFORMED_JSON'],
  ['seed:result_and_error', 200, { ...good, error: rpcError.error }, 'INVALID_ENVELOPE'],
  ['seed:wrong_response_id', 200, { ...good, id: 99 }, 'INVALID_ENVELOPE'],
  ['seed:input_required', 200, { jsonrpc: '2.0', id: 1, result: {
    resultType: 'input_required', inputRequests: { approval: {
      method: 'elicitation/create', params: { mode: 'form', message: 'synthetic input' },
    } },
  } }, 'INPUT_REQUIRED'],
  ['seed:legacy_no_resultType', 200, { jsonrpc: '2.0', id: 1,
    result: { content: [{ type: 'text', text: 'legacy ok' }], isError: false } }, 'TOOL_SUCCESS'],
  ['seed:invalid_content', 200, { jsonrpc: '2.0', id: 1, result: {
    resultType: 'complete', content: 'not-an-array', isError: false,
  } }, 'INVALID_TOOL_RESULT'],
];

// --- realistic variants --------------------------------------------------------------------
const serverMeta = { 'io.modelcontextprotocol/serverInfo': { name: 'weather-server', version: '3.2.1' } };
const weather = 'Current weather in Lisbon: 21°C, clear sky, wind 12 km/h from the north-west, humidity 58%. ' +
  'The forecast for the next hours stays dry with temperatures between 18 and 23°C.';
// Deterministic "binary" payloads, base64-encoded.
const bytes = (n, seed) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + seed * 17) & 0xff));
const png = bytes(360, 1).toString('base64');
const wav = bytes(240, 2).toString('base64');
const pdf = bytes(300, 3).toString('base64');
const logLines = Array.from({ length: 112 }, (_, i) =>
  `2026-07-28T10:${String(i % 60).padStart(2, '0')}:00Z INFO request ${1000 + i} served in ${(i * 7) % 97} ms (cache ${i % 3 ? 'hit' : 'miss'})`,
).join('\n');

const invoiceErrors = { errors: [
  { field: 'amount', code: 'not_positive', got: -3 },
  { field: 'currency', code: 'not_iso4217', got: 'EURO' },
] };

const variants = [
  ['success_1kb', 42, 'get_weather', { location: 'Lisbon' }, 200, { jsonrpc: '2.0', id: 42, result: {
    resultType: 'complete',
    content: [
      { type: 'text', text: weather },
      { type: 'text', text: weather, annotations: { audience: ['user'], priority: 0.5 } },
      { type: 'text', text: '{"temperature":21,"conditions":"clear sky","humidity":58}' },
      { type: 'resource_link', uri: 'https://weather.example.com/lisbon', name: 'lisbon-forecast',
        mimeType: 'text/html', description: 'Full forecast page' },
    ],
    structuredContent: { temperature: 21, conditions: 'clear sky', humidity: 58 },
    isError: false,
    _meta: serverMeta,
  } }, 'TOOL_SUCCESS'],
  ['success_multiblock', 43, 'render_report', { report: 'q3' }, 200, { jsonrpc: '2.0', id: 43, result: {
    resultType: 'complete',
    content: [
      { type: 'text', text: 'Q3 report rendered: 3 charts, 1 audio summary, 2 attachments.' },
      { type: 'image', data: png, mimeType: 'image/png', annotations: { audience: ['user'] } },
      { type: 'audio', data: wav, mimeType: 'audio/wav' },
      { type: 'resource_link', uri: 'file:///reports/q3.html', name: 'q3.html', mimeType: 'text/html' },
      { type: 'resource', resource: { uri: 'file:///reports/q3.csv', mimeType: 'text/csv',
        text: 'region,revenue\nnorth,1200\nsouth,980\neast,1430\nwest,1105\n' } },
      { type: 'resource', resource: { uri: 'file:///reports/q3.pdf', mimeType: 'application/pdf', blob: pdf } },
    ],
    isError: false,
    _meta: serverMeta,
  } }, 'TOOL_SUCCESS'],
  ['success_8kb', 44, 'read_log', { path: '/var/log/app.log', lines: 112 }, 200, { jsonrpc: '2.0', id: 44, result: {
    resultType: 'complete',
    content: [{ type: 'text', text: logLines }],
    _meta: serverMeta,
  } }, 'TOOL_SUCCESS'],
  ['tool_error_1kb', 45, 'create_invoice', { amount: -3, currency: 'EURO' }, 200, { jsonrpc: '2.0', id: 45, result: {
    resultType: 'complete',
    content: [{ type: 'text', text: 'Invoice not created: 2 validation errors. amount must be a positive number ' +
      'with at most two decimals (got -3); currency must be an ISO 4217 code such as EUR, USD or GBP (got "EURO"). ' +
      'Fix the arguments and call create_invoice again; no invoice was stored and no customer was notified. ' +
      'See https://billing.example.com/docs/invoices#validation for the full list of constraints, including ' +
      'per-currency rounding rules, customer limits and the accepted due-date range (1 to 120 days).' },
      { type: 'text', text: JSON.stringify(invoiceErrors) }],
    structuredContent: invoiceErrors,
    isError: true,
    _meta: serverMeta,
  } }, 'TOOL_ERROR'],
  ['input_required_form', 47, 'delete_branch', { branch: 'release-2026' }, 200, { jsonrpc: '2.0', id: 47, result: {
    resultType: 'input_required',
    inputRequests: { confirm: { method: 'elicitation/create', params: {
      mode: 'form', message: 'Delete branch release-2026? This cannot be undone.',
      requestedSchema: { type: 'object', properties: {
        confirm: { type: 'boolean', title: 'Delete', description: 'Tick to delete the branch' },
      }, required: ['confirm'] },
    } } },
    requestState: 'eyJicmFuY2giOiJyZWxlYXNlLTIwMjYiLCJzdGVwIjoxfQ',
    _meta: serverMeta,
  } }, 'INPUT_REQUIRED'],
  ['jsonrpc_error_data', 46, 'get_forcast', {}, 200, { jsonrpc: '2.0', id: 46, error: {
    code: -32602, message: 'Unknown tool: get_forcast',
    data: { requested: 'get_forcast', available: ['get_forecast', 'get_weather', 'read_log'] },
  } }, 'JSONRPC_ERROR'],
];

// --- write ---------------------------------------------------------------------------------
const exchanges = [];
const instances = [];
const addInstance = (name, body) => {
  const r = typeof body === 'object' && body.result;
  // Final tool results only (resultType complete or absent), not input_required.
  if (r && typeof r === 'object' && (r.resultType === undefined || r.resultType === 'complete')) {
    instances.push({ name, text: JSON.stringify(r) });
  }
};
for (const [name, status, body, seedOutcome] of seedCases) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  exchanges.push({
    name, description: `seed case; seed expects ${seedOutcome}`, protocol: REV,
    request: request(1, 'synthetic', {}),
    response: { status, headers: { 'Content-Type': 'application/json' }, body: text },
  });
}
for (const [name, id, tool, args, status, body, seedOutcome] of variants) {
  exchanges.push({
    name, description: `variant; seed would say ${seedOutcome}`, protocol: REV,
    request: request(id, tool, args),
    response: { status, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) },
  });
}
// Distinct CallToolResult instances (the seed cases repeat `good`'s result in three bodies).
addInstance('seed:baseline', good);
addInstance('seed:tool_isError', toolError);
addInstance('seed:legacy_no_resultType', seedCases[9][2]);
addInstance('seed:invalid_content', seedCases[10][2]);
for (const [name, , , , , body] of variants) addInstance(name, body);

mkdirSync(outDir, { recursive: true });
const jsonl = rows => rows.map(r => JSON.stringify(r)).join('\n') + '\n';
writeFileSync(join(outDir, 'exchanges.jsonl'), jsonl(exchanges));
writeFileSync(join(outDir, 'instances.jsonl'), jsonl(instances));
const sizes = exchanges.map(e => Buffer.byteLength(e.response.body));
console.error(`gen-data: ${exchanges.length} exchanges (bodies ${Math.min(...sizes)}-${Math.max(...sizes)} bytes), ` +
  `${instances.length} CallToolResult instances -> ${outDir}`);
