#!/usr/bin/env node
// Driver for the TypeScript SDK v2 client (@modelcontextprotocol/client) over Streamable HTTP,
// or over stdio when the target is a server command (StdioClientTransport launches it).
//   node ts-v2.mjs URL|'["COMMAND",...]' TOOL ARGS_JSON [--protocol REVISION] [--timeout SECONDS]
// Revisions: 2025-11-25 and 2026-07-28. --protocol 2025-11-25 uses the client's default
// (legacy) version negotiation with supportedProtocolVersions ['2025-11-25'] (initialize
// handshake); --protocol 2026-07-28 pins the modern era with versionNegotiation
// { mode: { pin: '2026-07-28' } } (server/discover, per-request _meta, no session).
// The client declares form elicitation and accepts every request (input_required flows), and
// asks for progress so the call carries _meta.progressToken.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { acceptForm, packageVersion, parseArgs, run, summarizeResult } from './common.mjs';

const opts = parseArgs(process.argv.slice(2));
const MODERN = '2026-07-28';

await run('ts-sdk-v2', packageVersion('@modelcontextprotocol/client'), opts, async (state) => {
  const modern = opts.protocol === MODERN;
  const client = new Client(
    { name: 'mcp-verdict-driver-ts-v2', version: '0.0.0' },
    {
      capabilities: { elicitation: { form: {} }, roots: {} },
      ...(modern
        ? { versionNegotiation: { mode: { pin: MODERN } } }
        : { supportedProtocolVersions: [opts.protocol] }),
    },
  );
  client.setRequestHandler('elicitation/create', async (req) => acceptForm(req.params?.requestedSchema));
  client.setRequestHandler('roots/list', async () => ({ roots: [] }));
  const transport = opts.command
    ? new StdioClientTransport({ command: opts.command[0], args: opts.command.slice(1), stderr: 'ignore' })
    : new StreamableHTTPClientTransport(new URL(opts.url));
  state.stage = 'connect';
  await client.connect(transport);
  state.protocol = client.getNegotiatedProtocolVersion() ?? null;
  state.stage = 'call';
  const result = await client.callTool(
    { name: opts.tool, arguments: opts.args },
    { timeout: (opts.timeout + 5) * 1000, onprogress: () => {} },
  );
  return { outcome: 'returned', result: summarizeResult(result) };
});
