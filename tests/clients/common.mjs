// Shared by the Node drivers: argument parsing, the hard timeout, and the one JSON line each
// driver prints.
//   driver TARGET TOOL ARGS_JSON [--protocol REVISION] [--timeout SECONDS]
// TARGET is the server's URL (Streamable HTTP) or, for a stdio server, its command as a JSON
// array of strings (the program, then its arguments), which the client launches.
import { readFileSync } from 'node:fs';

export function parseArgs(argv) {
  const pos = [];
  const opts = { protocol: '2025-11-25', timeout: 10 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--protocol') opts.protocol = argv[++i];
    else if (a === '--timeout') opts.timeout = Number(argv[++i]);
    else pos.push(a);
  }
  if (pos.length !== 3 || !(opts.timeout > 0)) {
    process.stderr.write('usage: driver URL|\'["COMMAND", "ARG"...]\' TOOL ARGS_JSON [--protocol REVISION] [--timeout SECONDS]\n');
    process.exit(2);
  }
  const command = pos[0].startsWith('[') ? JSON.parse(pos[0]) : null;
  return { url: command ? null : pos[0], command, tool: pos[1], args: JSON.parse(pos[2]), ...opts };
}

/** The exact installed version of a package, read from its package.json in node_modules. */
export function packageVersion(name) {
  try {
    return JSON.parse(readFileSync(new URL(`./node_modules/${name}/package.json`, import.meta.url), 'utf8')).version;
  } catch {
    return null;
  }
}

function truncate(s, n = 200) {
  return typeof s === 'string' && s.length > n ? `${s.slice(0, n)}...` : s;
}

/** The parts of a CallToolResult the matrix compares, content items shortened. */
export function summarizeResult(r) {
  if (r === null || typeof r !== 'object') return { raw: truncate(JSON.stringify(r)) };
  const out = { isError: r.isError ?? null };
  if (Array.isArray(r.content)) {
    out.content = r.content.slice(0, 5).map((c) =>
      c && typeof c === 'object' && c.type === 'text' ? { type: 'text', text: truncate(c.text) } : { type: c?.type ?? typeof c },
    );
  } else {
    out.content = truncate(JSON.stringify(r.content));
  }
  if (r.structuredContent !== undefined) out.structuredContent = r.structuredContent;
  if (r.resultType !== undefined) out.resultType = r.resultType;
  if (r.toolResult !== undefined) out.toolResult = truncate(JSON.stringify(r.toolResult));
  return out;
}

export function summarizeError(e, stage) {
  const err = { type: e?.constructor?.name ?? typeof e, stage };
  if (e && typeof e === 'object' && e.code !== undefined) err.code = e.code;
  err.message = truncate(String(e?.message ?? e), 400);
  return err;
}

/** Accepts a form elicitation by filling every requested field: booleans true, strings "yes", numbers 1. */
export function acceptForm(requestedSchema) {
  const content = {};
  for (const [k, s] of Object.entries(requestedSchema?.properties ?? {})) {
    if (s.type === 'boolean') content[k] = true;
    else if (s.type === 'number' || s.type === 'integer') content[k] = 1;
    else if (Array.isArray(s.enum) && s.enum.length) content[k] = s.enum[0];
    else content[k] = 'yes';
  }
  return { action: 'accept', content };
}

/**
 * Runs `body(report)` under a hard timeout. `body` fills in `report` and returns
 * {outcome, result, error}. Exactly one JSON line is printed, then the process exits.
 */
export async function run(client, version, opts, body) {
  const start = Date.now();
  const state = { protocol: null, stage: 'setup' };
  let printed = false;
  const print = (o) => {
    if (printed) return;
    printed = true;
    const line = {
      client, version, protocol: state.protocol,
      outcome: o.outcome, result: o.result ?? null, error: o.error ?? null,
      elapsedMs: Date.now() - start,
    };
    process.stdout.write(`${JSON.stringify(line)}\n`, () => process.exit(0));
  };
  const timer = setTimeout(() => print({ outcome: 'hung', error: { type: 'Timeout', message: `no conclusion within ${opts.timeout} s` } }), opts.timeout * 1000);
  timer.unref?.();
  // Keep the process alive until the timer fires even if the client drops every handle.
  const keepAlive = setInterval(() => {}, 1000);
  process.on('unhandledRejection', () => {});
  process.on('uncaughtException', (e) => print({ outcome: 'threw', error: summarizeError(e, state.stage ?? 'call') }));
  try {
    print(await body(state));
  } catch (e) {
    print({ outcome: 'threw', error: summarizeError(e, state.stage ?? 'call') });
  } finally {
    clearInterval(keepAlive);
  }
}
