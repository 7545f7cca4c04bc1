//! mcp-verdict: judge MCP `tools/call` responses per protocol revision.

pub mod diag;
pub mod serve;
