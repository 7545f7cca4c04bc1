//! # mcp-verdict
//!
//! Judges responses to MCP `tools/call` requests, per protocol revision, and says which layer
//! failed, what a client should conclude, and which spec rule decided it.
//!
//! A tool call can come back HTTP 200 and still have failed: the body may be a JSON-RPC
//! error, a result with `isError: true`, an `input_required` interim result, an SSE stream that
//! broke before its final message, or not MCP at all. The engine reads the exchange once and
//! lets a declarative rule table (`rules/*.toml`) and the project's versioned JSON Schemas
//! (`schemas/<revision>/`) decide the verdict; every verdict cites the rules that applied.
//!
//! ```
//! use mcp_verdict::{judge, Exchange, Headers, Options, Outcome, Protocol};
//! use serde_json::json;
//!
//! let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
//!                      "params": {"name": "echo", "arguments": {}}});
//! let body = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"failed"}],"isError":true}}"#;
//! let ex = Exchange::new(Some(request), 200,
//!                        Headers::new([("Content-Type", "application/json")]), body.to_vec());
//! let protocols = [Protocol::V2025_11_25];
//! let judgement = judge(&ex, &Options { protocols: Some(&protocols), ..Options::default() }).unwrap();
//! assert_eq!(judgement.verdicts[0].outcome, Outcome::ToolError);
//! ```

pub mod advice;
pub mod check_api;
pub mod checks;
pub mod commands;
pub mod inputs;
pub mod judge;
pub mod outputs;
pub mod probe;
pub mod rules;
pub mod run;
pub mod schema;
pub mod serve;
pub mod views;
pub mod vocab;
pub mod wire;

pub use judge::{Engine, JudgeError, Judgement, Options, Verdict, judge};
pub use rules::RuleTable;
pub use vocab::{Actor, Layer, Level, Outcome, Protocol, Severity};
pub use wire::exchange::{BodyEnd, Exchange, ExchangeError, ExchangeFile, Headers};
