#!/usr/bin/env node
// Driver for the MCP Inspector's CLI mode (@modelcontextprotocol/inspector-cli, the package
// behind `npx @modelcontextprotocol/inspector --cli`), run as a child process:
//   mcp-inspector-cli URL --transport http --method tools/call --tool-name TOOL --tool-arg k=v...
//   mcp-inspector-cli COMMAND ARG... --method tools/call ...    (stdio: the CLI launches it)
//   node inspector-cli.mjs URL|'["COMMAND",...]' TOOL ARGS_JSON [--protocol REVISION] [--timeout SECONDS]
// Revisions: 2025-11-25 only. The CLI is built on the v1 TypeScript SDK Client (it offers
// that SDK's newest revision in initialize and has no option to choose another), declares no
// client capabilities (so no elicitation or roots), and prints the CallToolResult as JSON on
// success (exit 0) or one "Failed to ..." line on stderr (exit 1). --protocol 2026-07-28
// prints outcome "threw" with error type UnsupportedRevision without contacting the server.
// The CLI reports no negotiated revision, so "protocol" is null. Each argument value is passed
// as k=JSON, which the CLI parses back as JSON.
// The child runs with its working directory in node_modules: the CLI looks up its own
// package.json as "../package.json" relative to the working directory before importing it.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { packageVersion, parseArgs, run, summarizeResult } from './common.mjs';

const opts = parseArgs(process.argv.slice(2));
const cliPath = fileURLToPath(new URL('./node_modules/@modelcontextprotocol/inspector-cli/build/index.js', import.meta.url));
const cwd = fileURLToPath(new URL('./node_modules/', import.meta.url));

await run('inspector-cli', packageVersion('@modelcontextprotocol/inspector-cli'), opts, async (state) => {
  if (opts.protocol !== '2025-11-25') {
    return { outcome: 'threw', error: { type: 'UnsupportedRevision', stage: 'setup', message: `the inspector CLI speaks 2025-11-25, not ${opts.protocol}` } };
  }
  if (!existsSync(cliPath)) {
    // Not a conclusion of the client: the driver cannot run it.
    const script = fileURLToPath(new URL('./install.sh', import.meta.url));
    return { outcome: 'driver-failed', error: { type: 'NotInstalled', stage: 'setup', message: `\`@modelcontextprotocol/inspector-cli\` is not installed; install the drivers with \`bash ${script}\`` } };
  }
  // A stdio server's command words go where the URL goes; the CLI passes the options it does
  // not know (the server's own) on to the command.
  const target = opts.command ? opts.command : [opts.url, '--transport', 'http'];
  const argv = [cliPath, ...target, '--method', 'tools/call', '--tool-name', opts.tool];
  const pairs = Object.entries(opts.args).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  if (pairs.length) argv.push('--tool-arg', ...pairs);
  state.stage = 'call';
  const child = spawn(process.execPath, argv, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  // On the driver's timeout the child is killed with the driver (run() exits the process).
  process.on('exit', () => child.kill('SIGKILL'));
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { err += d; });
  const code = await new Promise((resolve) => child.on('close', (c, sig) => resolve(c ?? sig)));
  if (code === 0) {
    try {
      return { outcome: 'returned', result: summarizeResult(JSON.parse(out)) };
    } catch {
      return { outcome: 'threw', error: { type: 'UnparsableOutput', stage: 'call', message: out.slice(0, 400) } };
    }
  }
  const lines = err.split('\n').map((l) => l.trim()).filter((l) => l && !/deprecated|Upgrade:|security fixes|^⚠/.test(l));
  const message = (lines.find((l) => l.startsWith('Failed')) ?? lines.at(-1) ?? `exit ${code}`).slice(0, 400);
  const m = /MCP error (-?\d+)/.exec(message);
  return {
    outcome: 'threw',
    error: { type: 'CliExit', stage: /^Failed to (connect|create transport)/.test(message) ? 'connect' : 'call', ...(m ? { code: Number(m[1]) } : {}), exitCode: code, message },
  };
});
