"""A small MCP server written with the `mcp` SDK (PyPI), served over Streamable HTTP: the
server under test in this example."""

from __future__ import annotations

from pydantic import BaseModel

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("weather", version="1.0.0")

FORECASTS = {"Lisbon": (23.5, "sunny"), "Oslo": (4.0, "snow")}


class Forecast(BaseModel):
    city: str
    celsius: float
    sky: str


@server.tool()
def add(a: int, b: int) -> int:
    """Adds two integers."""
    return a + b


@server.tool()
def forecast(city: str) -> Forecast:
    """Tomorrow's forecast for a city (structured output)."""
    if city not in FORECASTS:
        # A failure the model should read: a tool result with isError, not a protocol error.
        raise ToolError(f"no forecast for {city}")
    celsius, sky = FORECASTS[city]
    return Forecast(city=city, celsius=celsius, sky=sky)


@server.tool()
async def countdown(start: int, ctx: Context) -> str:
    """Counts down, reporting progress on the way (the answer comes on an SSE stream when the
    client asked for progress)."""
    for i in range(start):
        await ctx.report_progress(i + 1, start, f"{start - i - 1} left")
    return "liftoff"


def app():
    """The ASGI app (Starlette), Streamable HTTP at /mcp."""
    return server.streamable_http_app()
