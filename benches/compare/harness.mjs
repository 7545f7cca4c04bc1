// The Node side of the comparison: the seed's classifyToolCall and ajv, timed on the same
// inputs as benches/compare.rs, with the same loop (see README.md, "Method").
//
//   node benches/compare/harness.mjs --data DIR --seed FILE --schema FILE [--runs N] [--min-ms MS] [--out FILE]
//
// Prints (or appends to --out) one JSON line per measured row:
//   {"side", "name", "rates": [per-run ops/s], "result"}

import { appendFileSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';

function arg(name, dflt) {
  const i = process.argv.indexOf(name);
  if (i >= 0 && i + 1 < process.argv.length) return process.argv[i + 1];
  if (dflt === undefined) {
    console.error(`harness: missing ${name}`);
    process.exit(2);
  }
  return dflt;
}
const dataDir = arg('--data');
const seedFile = arg('--seed');
const schemaFile = arg('--schema');
const RUNS = Number(arg('--runs', '5'));
const MIN_MS = Number(arg('--min-ms', '1000'));
const WARM_MS = Number(arg('--warm-ms', '200'));
const outFile = arg('--out', '');

const readJsonl = f => readFileSync(f, 'utf8').split('\n').filter(Boolean).map(l => JSON.parse(l));
const exchanges = readJsonl(join(dataDir, 'exchanges.jsonl'));
const instances = readJsonl(join(dataDir, 'instances.jsonl'));

const { classifyToolCall } = await import(pathToFileURL(resolve(seedFile)).href);

// The loop, identical in shape to the Rust side: whole passes over `items` in batches of at
// least 64 calls, the clock read once per batch, until MIN_MS has passed; one warm-up of
// WARM_MS first. Returns ops/s per run.
let sink = 0;
const now = () => Number(process.hrtime.bigint()) / 1e6;
function measure(items, f) {
  const passes = Math.max(1, Math.ceil(64 / items.length));
  const batch = () => {
    for (let p = 0; p < passes; p++) for (let i = 0; i < items.length; i++) sink ^= f(items[i]);
    return passes * items.length;
  };
  const timed = ms => {
    let n = 0;
    const t0 = now();
    let el;
    do { n += batch(); el = now() - t0; } while (el < ms);
    return (n * 1000) / el;
  };
  timed(WARM_MS);
  return Array.from({ length: RUNS }, () => timed(MIN_MS));
}

function emit(row) {
  const line = JSON.stringify(row);
  if (outFile) appendFileSync(outFile, line + '\n');
  else console.log(line);
}

// --- the seed classifier: JSON.parse of the body text + its narrow shape checks ----------------
// Inputs are pre-built argument objects (status, body text, expected id), as mcp-verdict's side
// pre-loads `Exchange`s; the body is parsed inside classifyToolCall on every call.
const seedInputs = exchanges.map(e => ({
  name: e.name,
  input: { status: e.response.status, body: e.response.body, expectedId: e.request.body.id },
}));
const classify = x => classifyToolCall(x).outcome.length;
for (const { name, input } of seedInputs) {
  emit({ side: 'seed', name, rates: measure([input], classify), result: classifyToolCall(input).outcome });
}
emit({ side: 'seed', name: 'all', rates: measure(seedInputs.map(s => s.input), classify), result: null });
const seedOnly = seedInputs.filter(s => s.name.startsWith('seed:')).map(s => s.input);
emit({ side: 'seed', name: 'seed-cases', rates: measure(seedOnly, classify), result: null });

// Reference, not a peer: JSON.parse of the body alone, the floor of any classifier that reads it.
const parseOnly = x => { try { return JSON.parse(x.body) === null ? 1 : 0; } catch { return 2; } };
emit({ side: 'node-parse-only', name: 'all', rates: measure(seedInputs.map(s => s.input), parseOnly), result: null });

// --- ajv: the official 2026-07-28 schema, #/$defs/CallToolResult, compiled once ----------------
const schema = JSON.parse(readFileSync(schemaFile, 'utf8'));
const ajv = new Ajv2020({ strict: false, validateFormats: false });
ajv.addSchema(schema, 'mcp-2026-07-28');
const validate = ajv.getSchema('mcp-2026-07-28#/$defs/CallToolResult');
if (!validate) {
  console.error(`harness: ${schemaFile} has no #/$defs/CallToolResult`);
  process.exit(2);
}
const parsed = instances.map(i => JSON.parse(i.text));
const texts = instances.map(i => i.text);
const v = x => (validate(x) ? 1 : 0);
const pv = t => (validate(JSON.parse(t)) ? 1 : 0);
instances.forEach((inst, k) => {
  emit({ side: 'ajv', name: inst.name, rates: measure([parsed[k]], v), result: validate(parsed[k]) ? 'valid' : 'invalid' });
});
emit({ side: 'ajv', name: 'all', rates: measure(parsed, v), result: null });
emit({ side: 'ajv+parse', name: 'all', rates: measure(texts, pv), result: null });

if (sink === 0.5) console.error('unreachable'); // keeps `sink` observable
