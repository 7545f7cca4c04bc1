// The seed classifier as a whole process over a JSON Lines file of exchanges (the format
// `mcp-verdict classify --jsonl` reads): each line parsed, classified, and one JSON line written
// per exchange, as `classify --jsonl --compact` does. Timed by run.sh against mcp-verdict.
//
//   node benches/compare/stream.mjs SEED_MODULE FILE > OUT

import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const [seedFile, file] = process.argv.slice(2);
if (!seedFile || !file) {
  console.error('usage: node stream.mjs SEED_MODULE FILE');
  process.exit(2);
}
const { classifyToolCall } = await import(pathToFileURL(resolve(seedFile)).href);
const out = [];
let n = 0;
const flush = () => {
  if (out.length) process.stdout.write(out.join(''));
  out.length = 0;
};
for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
  if (!line) continue;
  n += 1;
  let record;
  try {
    const e = JSON.parse(line);
    const r = classifyToolCall({ status: e.response.status, body: e.response.body, expectedId: e.request.body.id });
    record = { line: n, outcome: r.outcome, layer: r.layer };
  } catch (err) {
    record = { line: n, error: String(err) };
  }
  out.push(JSON.stringify(record) + '\n');
  if (out.length >= 1024) flush();
}
flush();
