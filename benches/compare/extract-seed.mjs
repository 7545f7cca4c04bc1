// Extracts the seed document's `classifyToolCall` (and the `has` helper it calls) into a
// temporary module outside git, at run time. Nothing of the seed's code is kept in the project.
//
//   node benches/compare/extract-seed.mjs SEED_DIR OUT_FILE
//
// SEED_DIR holds the seed document(s) (`*.txt`); exactly one of them must contain
// `export function classifyToolCall`. The cut is a brace match that skips string literals and
// comments, so it does not depend on line layout. Fails loudly (exit 2) when the seed is missing
// or the cut does not yield a function that classifies the seed's own baseline case.

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

function fail(message) {
  console.error(`extract-seed: ${message}`);
  process.exit(2);
}

const [seedDir, outFile] = process.argv.slice(2);
if (!seedDir || !outFile) fail('usage: extract-seed.mjs SEED_DIR OUT_FILE');
if (!existsSync(seedDir)) {
  fail(`seed directory ${resolve(seedDir)} does not exist; the comparison needs the seed document ` +
    '(shared/seed/ beside the repository, or set MCP_SEED_DIR)');
}
const docs = readdirSync(seedDir).filter(f => f.endsWith('.txt')).sort();
const START = 'export function classifyToolCall';
const holders = docs
  .map(f => ({ file: join(seedDir, f), text: readFileSync(join(seedDir, f), 'utf8') }))
  .filter(d => d.text.includes(START));
if (holders.length === 0) {
  fail(`no *.txt in ${resolve(seedDir)} contains "${START}" (found: ${docs.join(', ') || 'none'})`);
}
if (holders.length > 1) {
  fail(`more than one seed document contains "${START}": ${holders.map(h => h.file).join(', ')}`);
}
const { file, text } = holders[0];

// Index of the brace that closes the block opened at `open` (text[open] === '{'), skipping
// '...', "...", `...` literals (without nested template expressions), // and /* */ comments.
function matchBrace(src, open) {
  let depth = 0;
  for (let i = open; i < src.length; i++) {
    const c = src[i];
    if (c === '"' || c === "'" || c === '`') {
      for (i++; i < src.length && src[i] !== c; i++) if (src[i] === '\\') i++;
      continue;
    }
    if (c === '/' && src[i + 1] === '/') { i = src.indexOf('\n', i); if (i < 0) return -1; continue; }
    if (c === '/' && src[i + 1] === '*') { i = src.indexOf('*/', i + 2); if (i < 0) return -1; i++; continue; }
    if (c === '{') depth++;
    if (c === '}' && --depth === 0) return i;
  }
  return -1;
}

const start = text.indexOf(START);
if (text.indexOf(START, start + 1) >= 0) fail(`"${START}" occurs more than once in ${file}`);
// The body opens at the first '{' after the parameter list's closing ')'.
const paramsOpen = text.indexOf('(', start);
let depth = 0;
let paramsClose = -1;
for (let i = paramsOpen; i < text.length; i++) {
  if (text[i] === '(') depth++;
  if (text[i] === ')' && --depth === 0) { paramsClose = i; break; }
}
if (paramsClose < 0) fail(`cannot find the end of classifyToolCall's parameter list in ${file}`);
const bodyOpen = text.indexOf('{', paramsClose);
const bodyClose = bodyOpen < 0 ? -1 : matchBrace(text, bodyOpen);
if (bodyClose < 0) fail(`cannot find the closing brace of classifyToolCall in ${file}`);
const fnSource = text.slice(start, bodyClose + 1);

// The helper: `const has = (...) => ...;` on one statement, ending at the first ';' at line end.
const hasMatch = text.match(/^const has = \([^)]*\) =>[^\n]*;$/m);
if (!hasMatch) fail(`cannot find the "const has = (value, key) => ...;" helper in ${file}`);

// Anything else the function would need would show up as a ReferenceError below.
const sha = createHash('sha256').update(hasMatch[0] + '\n' + fnSource).digest('hex');
const out = [
  `// Extracted at run time by benches/compare/extract-seed.mjs from ${resolve(file)}.`,
  '// Not part of mcp-verdict; never committed. sha256 of the two cut pieces below:',
  `// ${sha}`,
  hasMatch[0],
  '',
  fnSource,
  '',
].join('\n');
mkdirSync(dirname(resolve(outFile)), { recursive: true });
writeFileSync(outFile, out);

// Smoke test: the seed's baseline case must come out as the seed says.
let mod;
try {
  mod = await import(pathToFileURL(resolve(outFile)).href + `?t=${Date.now()}`);
} catch (e) {
  fail(`the extracted code does not load (${e.message}); see ${resolve(outFile)}`);
}
if (typeof mod.classifyToolCall !== 'function') fail('the extracted module exports no classifyToolCall');
const probe = mod.classifyToolCall({
  status: 200,
  body: '{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"ok"}],"isError":false}}',
});
if (probe?.outcome !== 'TOOL_SUCCESS') {
  fail(`the extracted classifyToolCall returned ${JSON.stringify(probe)} for the baseline case, not TOOL_SUCCESS`);
}
console.error(`extract-seed: classifyToolCall (${fnSource.split('\n').length} lines) + has from ${file} -> ${outFile} (sha256 ${sha.slice(0, 16)}…)`);
