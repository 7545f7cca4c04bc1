// A small MCP server built on the official TypeScript SDK v2 (@modelcontextprotocol/server
// + @modelcontextprotocol/node), serving 2026-07-28 and, with legacy: 'stateless', 2025-era
// requests on one endpoint. Used by tests/interop_*.rs.
//
//   node ts-v2-server.mjs [PORT]     (0 or absent: a free port)
//
// Binds 127.0.0.1 only and prints `listening http://127.0.0.1:PORT/mcp` on stdout once ready.
import http from 'node:http';
import { McpServer, createMcpHandler, inputRequired, acceptedContent } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import * as z from 'zod/v4';

const port = Number(process.argv[2] ?? 0);
const readOnly = { readOnlyHint: true, idempotentHint: true, openWorldHint: false };

const factory = () => {
  const s = new McpServer({ name: 'ts-v2-peer', version: '0.0.1' });
  s.registerTool(
    'add',
    { description: 'Adds a and b.', inputSchema: z.object({ a: z.number(), b: z.number() }), annotations: readOnly },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  s.registerTool(
    'echo',
    { description: 'Returns text unchanged.', inputSchema: z.object({ text: z.string() }), annotations: readOnly },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  s.registerTool(
    'fail',
    { description: 'Always reports a tool execution error.', inputSchema: z.object({}), annotations: readOnly },
    async () => ({ content: [{ type: 'text', text: 'this tool always fails' }], isError: true }),
  );
  const confirmation = z.object({ confirm: z.boolean() });
  s.registerTool(
    'confirm',
    { description: 'Asks for a confirmation (multi round-trip) before it answers.', inputSchema: z.object({ action: z.string() }) },
    async ({ action }, ctx) => {
      const ok = acceptedContent(ctx.mcpReq.inputResponses, 'confirm', confirmation);
      if (ok?.confirm !== true) {
        return inputRequired({
          inputRequests: { confirm: inputRequired.elicit({ message: `Do ${action}?`, requestedSchema: confirmation }) },
        });
      }
      return { content: [{ type: 'text', text: `confirmed: ${action}` }] };
    },
  );
  return s;
};

const server = http.createServer(toNodeHandler(createMcpHandler(factory, { legacy: 'stateless' })));
server.listen(port, '127.0.0.1', () => {
  console.log(`listening http://127.0.0.1:${server.address().port}/mcp`);
});
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => server.close(() => process.exit(0)));
