#!/usr/bin/env python3
"""A small MCP server written with the Python SDK (`mcp` on PyPI, pinned in
tests/clients/requirements.txt), served on its stdio transport, for tests/it/interop_stdio.rs.

    python python_stdio_server.py [--banner]

It offers `add` (read-only, structured output) and `shout` (read-only, text). With --banner it
first prints a start-up line on stdout, as servers that log to stdout do: the fault the stdio
rule `transport.stdio.non-mcp-output` names.
"""

import sys

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("mcp-verdict-python-peer")


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def add(a: int, b: int) -> int:
    """Adds two integers."""
    return a + b


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def shout(text: str) -> str:
    """Returns the text in capitals."""
    return text.upper()


if __name__ == "__main__":
    if "--banner" in sys.argv[1:]:
        print("mcp-verdict-python-peer: MCP server running on stdio", flush=True)
    server.run("stdio")
