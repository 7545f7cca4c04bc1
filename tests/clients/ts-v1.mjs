#!/usr/bin/env node
// Driver for the TypeScript SDK v1 Client (@modelcontextprotocol/sdk) over Streamable HTTP, or
// over stdio when the target is a server command (StdioClientTransport launches it).
//   node ts-v1.mjs URL|'["COMMAND",...]' TOOL ARGS_JSON [--protocol REVISION] [--timeout SECONDS]
// Revisions: 2025-11-25 only (its newest; it also accepts 2025-06-18 and older). v1 cannot
// speak 2026-07-28, so --protocol 2026-07-28 prints outcome "threw" with error type
// UnsupportedRevision without contacting the server (`mcp-verdict clients` skips that cell, see drivers.toml). The revision
// is offered in initialize (LATEST_PROTOCOL_VERSION); the server's answer is reported.
// The client declares elicitation and roots, accepts every elicitation, and asks for progress.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { acceptForm, packageVersion, parseArgs, run, summarizeResult } from './common.mjs';

const opts = parseArgs(process.argv.slice(2));

await run('ts-sdk-v1', packageVersion('@modelcontextprotocol/sdk'), opts, async (state) => {
  if (opts.protocol !== '2025-11-25') {
    return { outcome: 'threw', error: { type: 'UnsupportedRevision', stage: 'setup', message: `the v1 Client speaks 2025-11-25, not ${opts.protocol}` } };
  }
  const client = new Client(
    { name: 'mcp-verdict-driver-ts-v1', version: '0.0.0' },
    { capabilities: { elicitation: { form: {} }, roots: {} } },
  );
  client.setRequestHandler(ElicitRequestSchema, async (req) => acceptForm(req.params?.requestedSchema));
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [] }));
  const transport = opts.command
    ? new StdioClientTransport({ command: opts.command[0], args: opts.command.slice(1), stderr: 'ignore' })
    : new StreamableHTTPClientTransport(new URL(opts.url));
  // The Client hands the revision the server answered in initialize to its transport's
  // setProtocolVersion; the stdio transport has none, so it is given one that keeps it.
  if (!transport.setProtocolVersion) {
    transport.setProtocolVersion = (version) => { transport.protocolVersion = version; };
  }
  state.stage = 'connect';
  await client.connect(transport);
  state.protocol = transport.protocolVersion ?? null;
  state.stage = 'call';
  const result = await client.callTool({ name: opts.tool, arguments: opts.args }, undefined, {
    timeout: (opts.timeout + 5) * 1000,
    onprogress: () => {},
  });
  return { outcome: 'returned', result: summarizeResult(result) };
});
