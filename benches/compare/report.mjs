// Turns the rows of benches/compare/run.sh (results.jsonl: one line per side, row and round)
// into the Markdown report: medians over rounds, ratios, and the machine it ran on.
//
//   node benches/compare/report.mjs RESULTS EXCHANGES INSTANCES   (machine facts from MACHINE_* env)

import { readFileSync } from 'node:fs';

const [resultsFile, exchangesFile, instancesFile] = process.argv.slice(2);
const readJsonl = f => readFileSync(f, 'utf8').split('\n').filter(Boolean).map(l => JSON.parse(l));
const rows = readJsonl(resultsFile);
const exchanges = readJsonl(exchangesFile);
const instances = readJsonl(instancesFile);
const env = process.env;

// (side, name) -> { rates: [...], result }
const by = new Map();
for (const r of rows) {
  const k = `${r.side}\u0000${r.name}`;
  const e = by.get(k) ?? { rates: [], result: r.result };
  e.rates.push(...r.rates);
  by.set(k, e);
}
const median = xs => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
function get(side, name) {
  const e = by.get(`${side}\u0000${name}`);
  if (!e) return null;
  const med = median(e.rates);
  return {
    rate: med,
    ns: 1e9 / med,
    spread: (Math.max(...e.rates) - Math.min(...e.rates)) / med,
    n: e.rates.length,
    result: e.result,
  };
}
const fmtRate = x => (x >= 1e6 ? `${(x / 1e6).toFixed(2)} M` : x >= 1e3 ? `${(x / 1e3).toFixed(1)} k` : x.toFixed(0));
const fmtNs = x => (x >= 1e4 ? `${(x / 1e3).toFixed(1)} µs` : x >= 1e3 ? `${(x / 1e3).toFixed(2)} µs` : `${x.toFixed(0)} ns`);
const fmtRatio = x => (x >= 10 ? `${x.toFixed(0)}×` : `${x.toFixed(2)}×`);
const pct = x => `±${((x * 100) / 2).toFixed(0)}%`;
const cell = m => (m ? `${fmtRate(m.rate)}/s | ${fmtNs(m.ns)} | ${pct(m.spread)}` : 'n/a | n/a | n/a');

const out = [];
const p = s => out.push(s);
const nEx = exchanges.length;
const nSeed = exchanges.filter(e => e.name.startsWith('seed:')).length;
const nInst = instances.length;

p(`### mcp-verdict vs. the seed classifier and ajv`);
p('');
p(`Observed ${env.MACHINE_DATE ?? '?'} on ${env.MACHINE_CPU ?? '?'} (${env.MACHINE_CORES ?? '?'} cores), ` +
  `load average ${env.MACHINE_LOAD ?? '?'}; Node ${env.MACHINE_NODE ?? '?'}, ${env.MACHINE_RUSTC ?? '?'}, ajv ${env.MACHINE_AJV ?? '?'}. ` +
  `Each figure is the median of ${env.COMPARE_RUNS ?? '?'} rounds of at least ${env.COMPARE_MIN_MS ?? '?'} ms; ` +
  `± is half the min–max spread of the rounds. Reproduce: \`benches/compare/run.sh\`.`);
p('');

// --- headline ------------------------------------------------------------------------------
const seedAll = get('seed', 'all');
const seedSeed = get('seed', 'seed-cases');
const ajvAll = get('ajv', 'all');
const ajvParse = get('ajv+parse', 'all');
const ratio = (a, b) => (a && b ? fmtRatio(a.rate / b.rate) : 'n/a');
p('| peer | what it does per exchange / instance | throughput | per op | ± | mcp-verdict speedup |');
p('|---|---|---:|---:|---:|---:|');
p(`| **Exchanges** (${nEx} types, equal mix) | | | | | |`);
p(`| seed \`classifyToolCall\` (Node) | \`JSON.parse\` of the body + envelope and result shape checks; returns layer and outcome | ${cell(seedAll)} | 1× (baseline) |`);
const vAll = get('verdict', 'all');
p(`| mcp-verdict \`judge\`, 2026-07-28 (Rust, release) | parse the body + every active rule of the revision (transport, framing, envelope, result, content, MRTR, schema validation of the result), verdict with deciding rule, cites, findings, retry context | ${cell(vAll)} | ${ratio(vAll, seedAll)} |`);
const vBoth = get('verdict-both', 'all');
p(`| mcp-verdict \`judge\`, both revisions | the same, one parse, two verdicts (2025-11-25 and 2026-07-28) | ${cell(vBoth)} | ${ratio(vBoth, seedAll)} |`);
const vJson = get('verdict+json', 'all');
p(`| mcp-verdict \`judge\` + JSON output | what \`classify --jsonl\` does per exchange: judge, then the verdict record (cites, findings, retry advice) serialized | ${cell(vJson)} | ${ratio(vJson, seedAll)} |`);
const jp = get('node-parse-only', 'all');
const sp = get('serde-parse-only', 'all');
p(`| *reference:* \`JSON.parse\` alone (Node) | the body parse, nothing else: the floor under the seed classifier | ${cell(jp)} | — |`);
p(`| *reference:* \`serde_json::from_slice\` alone (Rust) | the body parse into a \`Value\`, nothing else: the floor under \`judge\` | ${cell(sp)} | — |`);
p(`| *reference:* bare SIMD tape parse (Rust, \`simd-json\`) | \`simd_json::fill_tape\` of a copy of the body, buffers reused: the physical floor under any parser | ${cell(get('simd-tape', 'all'))} | — |`);
p(`| **The seed's ${nSeed} cases only** | | | | | |`);
p(`| seed \`classifyToolCall\` | as above | ${cell(seedSeed)} | 1× |`);
const vSeed = get('verdict', 'seed-cases');
p(`| mcp-verdict \`judge\`, 2026-07-28 | as above | ${cell(vSeed)} | ${ratio(vSeed, seedSeed)} |`);
p(`| **CallToolResult instances** (${nInst}, equal mix) | | | | | |`);
p(`| ajv \`validate\` (Node), official schema | \`Ajv2020\`, \`#/$defs/CallToolResult\` of the official 2026-07-28 \`schema.json\`, compiled once, \`strict: false\`, formats off; instance pre-parsed | ${cell(ajvAll)} | 1× (baseline) |`);
const sAll = get('verdict-schema', 'all');
p(`| mcp-verdict schema path | \`CallToolResult\` decided as \`judge\` decides it (project's 2026-07-28 schema, \`byte\` and \`uri\` formats asserted): the specialised check, then the \`jsonschema\` validator if that says no; instance pre-parsed | ${cell(sAll)} | ${ratio(sAll, ajvAll)} |`);
const oAll = get('jsonschema-official', 'all');
p(`| jsonschema crate, official schema | the official \`schema.json\` as ajv gets it, compiled by the crate mcp-verdict uses, formats off, \`is_valid\`; pre-parsed | ${cell(oAll)} | ${ratio(oAll, ajvAll)} |`);
p(`| ajv \`JSON.parse\` + \`validate\` | as ajv above, parsing the instance text each time | ${cell(ajvParse)} | 1× (baseline) |`);
const spAll = get('verdict-schema+parse', 'all');
p(`| mcp-verdict parse + schema path | \`serde_json\` parse of the instance text + the schema path above | ${cell(spAll)} | ${ratio(spAll, ajvParse)} |`);
p('');
const schemaVsAjv = sAll && ajvAll ? sAll.rate / ajvAll.rate : NaN;

// --- targets ---------------------------------------------------------------------------------
// Throughput ratios (higher is better) against the seed; time ratios (lower is better) against
// the parse floors, each read from the same run's medians.
const seed1k = get('seed', 'success_1kb');
const v1k = get('verdict', 'success_1kb');
const sp1k = get('serde-parse-only', 'success_1kb');
const tapeAll = get('simd-tape', 'all');
const tapeSeed = get('simd-tape', 'seed-cases');
const tape1k = get('simd-tape', 'success_1kb');
const spSeed = get('serde-parse-only', 'seed-cases');
const faster = (a, b) => (a && b ? a.rate / b.rate : NaN); // a's throughput over b's
const slower = (a, b) => (a && b ? b.rate / a.rate : NaN); // a's time over b's
const verdict = (x, ok) => (Number.isNaN(x) ? 'not measured' : ok ? 'met' : '**MISSED**');
p('Targets (library `judge` under 2026-07-28, from this run\'s medians):');
p('');
p('| measure | ratio | target |');
p('|---|---:|---|');
const t = (what, x, goal, ok) => p(`| ${what} | ${Number.isNaN(x) ? 'n/a' : `${x.toFixed(2)}×`} | ${ok ? `${goal}: ${verdict(x, ok(x))}` : 'printed, no target'} |`);
t(`\`judge\` throughput / the seed classifier's, ${nEx}-type mix`, faster(vAll, seedAll), '≥ 2×', x => x >= 2);
t(`\`judge\` throughput / the seed classifier's, the seed's ${nSeed} cases`, faster(vSeed, seedSeed), '', null);
t('`judge` throughput / the seed classifier\'s, ~1 KB success', faster(v1k, seed1k), '≥ 1×', x => x >= 1);
t('`judge` time / `serde_json::from_slice::<Value>` time, ~1 KB success', slower(v1k, sp1k), '≤ 1.0×', x => x <= 1);
t(`\`judge\` time / \`Value\` parse time, ${nEx}-type mix`, slower(vAll, sp), '', null);
t(`\`judge\` time / bare SIMD tape parse time, ${nEx}-type mix`, slower(vAll, tapeAll), 'aim ≤ 4×', x => x <= 4);
t('`judge` time / bare SIMD tape parse time, ~1 KB success', slower(v1k, tape1k), 'aim ≤ 4×', x => x <= 4);
t(`\`Value\` parse time / tape parse time, ${nEx}-type mix`, slower(sp, tapeAll), '', null);
t(`\`Value\` parse time / tape parse time, the seed's ${nSeed} cases`, slower(spSeed, tapeSeed), '', null);
t('`Value` parse time / tape parse time, ~1 KB success', slower(sp1k, tape1k), '', null);
t('mcp-verdict schema path / ajv, pre-parsed instances', schemaVsAjv, '> 1×', x => x > 1);
p('');

// --- the validating read ---------------------------------------------------------------------
// The tape read (`mcp_verdict::wire::tape`) with the success path's schema work on it, beside
// the same work on a parsed `Value`, and what `judge` spends after that work (its checks,
// verdict and citations): the part a cheaper read cannot remove.
p('The validating read, and what `judge` spends beside it (time ratios, lower is faster):');
p('');
p('| measure | 17-type mix | seed cases | ~1 KB success |');
p('|---|---:|---:|---:|');
const rows3 = ['all', 'seed-cases', 'success_1kb'];
const r3 = (what, f) => p(`| ${what} | ${rows3.map(r => { const x = f(r); return Number.isNaN(x) ? 'n/a' : `${x.toFixed(2)}×`; }).join(' | ')} |`);
const ns = (side, r) => get(side, r)?.ns ?? NaN;
const vNs = r => ns('verdict', r === 'all' ? 'all' : r);
r3('tape read / `Value` parse', r => ns('tape-read', r) / ns('serde-parse-only', r));
r3('tape read / bare SIMD tape parse', r => ns('tape-read', r) / ns('simd-tape', r));
r3('tape read + `CallToolResult` check on the tape / `Value` parse', r => ns('tape-validate', r) / ns('serde-parse-only', r));
r3('`Value` parse + the same check on the `Value` / `Value` parse', r => ns('value-validate', r) / ns('serde-parse-only', r));
r3('`judge` / `Value` parse + check (the rest of `judge` is what exceeds 1×)', r => vNs(r) / ns('value-validate', r));
r3('`judge` − (`Value` parse + check), over the seed classifier\'s whole time', r => (vNs(r) - ns('value-validate', r)) / ns('seed', r));
p('');

// --- whole processes -------------------------------------------------------------------------
const pSeed = get('process-seed', 'stream');
if (pSeed) {
  const lines = Number(env.COMPARE_STREAM_LINES ?? 0).toLocaleString('en-US');
  const pFull = get('process-full', 'stream');
  const pCompact = get('process-compact', 'stream');
  const pCompact1 = get('process-compact-1', 'stream');
  const rateCell = m => (m ? `${fmtRate(m.rate)} lines/s | ${pct(m.spread)}` : 'n/a | n/a');
  p(`Whole processes over one JSON Lines file (the ${nEx} exchanges cycled to ${lines} lines, 2026-07-28), ` +
    'each writing one line per exchange to /dev/null; wall time, median of the rounds:');
  p('');
  // The issue's row: each process's lines per second over the seed classifier's in-process
  // throughput on the same exchanges (the equal mix above, JSON body parse included), so the
  // whole of mcp-verdict's process (reading, decoding each line, judging, the record, writing)
  // stands against the seed's classification alone. The seed process's own rate is printed
  // beside it.
  p('| process | throughput | ± | / the seed classifier in-process | / the seed process | target (against the seed in-process) |');
  p('|---|---:|---:|---:|---:|---|');
  const x2 = x => (Number.isNaN(x) ? 'n/a' : `${x.toFixed(2)}×`);
  p(`| the seed classifier in one Node process (\`stream.mjs\`: parse each line, classify, write \`{line, outcome, layer}\`) | ${rateCell(pSeed)} | ${x2(faster(pSeed, seedAll))} | 1× | |`);
  const row = (what, m, goal, ok) => {
    const x = faster(m, seedAll);
    p(`| ${what} | ${rateCell(m)} | ${x2(x)} | ${x2(faster(m, pSeed))} | ${ok ? `${goal}: ${verdict(x, ok(x))}` : ''} |`);
  };
  row(`\`classify --jsonl --compact\` (${env.MACHINE_CORES ?? '?'} workers)`, pCompact, '≥ 1×', x => x >= 1);
  row(`\`classify --jsonl\` (full record, ${env.MACHINE_CORES ?? '?'} workers)`, pFull, '≥ 0.5×', x => x >= 0.5);
  row('`classify --jsonl --compact --jobs 1`', pCompact1, '', null);
  row('`classify --jsonl --jobs 1` (full record)', get('process-full-1', 'stream'), '', null);
  p('');
  const scale = faster(pCompact, pCompact1);
  const scaleFull = faster(pFull, get('process-full-1', 'stream'));
  p(`All workers / one worker on the same input (${env.MACHINE_CORES ?? '?'} cores): \`--compact\` ${x2(scale)}, ` +
    `target ≥ 1.7× with two: ${verdict(scale, scale >= 1.7)}; full record ${x2(scaleFull)}.`);
  p('');
}

// --- per exchange ----------------------------------------------------------------------------
p('Per exchange type (2026-07-28):');
p('');
p('| exchange | status | body bytes | seed outcome | seed | mcp-verdict outcome | mcp-verdict | speedup |');
p('|---|---:|---:|---|---:|---|---:|---:|');
for (const e of exchanges) {
  const s = get('seed', e.name);
  const v = get('verdict', e.name);
  const differs = s && v && s.result !== v.result ? ' ≠' : '';
  p(`| ${e.name} | ${e.response.status} | ${Buffer.byteLength(e.response.body)} | ${s?.result ?? '?'} | ` +
    `${s ? fmtNs(s.ns) : 'n/a'} | ${v?.result ?? '?'}${differs} | ${v ? fmtNs(v.ns) : 'n/a'} | ${ratio(v, s)} |`);
}
p('');

// --- per instance ------------------------------------------------------------------------------
p('Per CallToolResult instance (pre-parsed):');
p('');
p('| instance | bytes | ajv | ajv time | mcp-verdict schema | time | jsonschema, official | time | speedup vs ajv |');
p('|---|---:|---|---:|---|---:|---|---:|---:|');
for (const i of instances) {
  const a = get('ajv', i.name);
  const s = get('verdict-schema', i.name);
  const o = get('jsonschema-official', i.name);
  p(`| ${i.name} | ${Buffer.byteLength(i.text)} | ${a?.result ?? '?'} | ${a ? fmtNs(a.ns) : 'n/a'} | ` +
    `${s?.result ?? '?'} | ${s ? fmtNs(s.ns) : 'n/a'} | ${o?.result ?? '?'} | ${o ? fmtNs(o.ns) : 'n/a'} | ${ratio(s, a)} |`);
}
p('');
const disagree = instances.filter(i => {
  const rs = ['ajv', 'verdict-schema', 'jsonschema-official'].map(side => get(side, i.name)?.result);
  return new Set(rs).size > 1;
});
if (disagree.length) {
  p(`Validators disagree on: ${disagree.map(i => i.name).join(', ')}.`);
  p('');
}
console.log(out.join('\n'));
