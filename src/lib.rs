//! # mcp-verdict
//!
//! Judges responses to MCP `tools/call` requests, per protocol revision, and says which layer
//! failed, what a client should conclude, and which spec rule decided it. The answers a client
//! discovers tools from (`tools/list`, `server/discover`, `initialize`) are judged too: their
//! outcome is `NOT_A_TOOL_CALL`, with findings citing the rules they break.
//!
//! A tool call can come back HTTP 200 and still have failed: the body may be a JSON-RPC
//! error, a result with `isError: true`, an `input_required` interim result, an SSE stream that
//! broke before its final message, or not MCP at all. The engine reads the exchange once and
//! lets a declarative rule table (`rules/**/*.toml`) and the project's versioned JSON Schemas
//! (`schemas/<revision>/`) decide the verdict; every verdict cites the rules that applied.
//!
//! ```
//! use mcp_verdict::{judge, Exchange, Headers, Options, Outcome, Protocol};
//! use serde_json::json;
//!
//! let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
//!                      "params": {"name": "echo", "arguments": {}}});
//! let body = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"failed"}],"isError":true}}"#;
//! let ex = Exchange::builder(200, Headers::new([("Content-Type", "application/json")]), body.to_vec())
//!     .request(request)
//!     .build();
//! let protocols = [Protocol::V2025_11_25];
//! let judgement = judge(&ex, &Options { protocols: Some(&protocols), ..Options::default() }).unwrap();
//! assert_eq!(judgement.verdicts[0].outcome, Outcome::ToolError);
//! ```
//!
//! ## Layers
//!
//! Modules import only those listed before them:
//!
//! | module | what it holds |
//! |---|---|
//! | [`vocab`] | outcomes, layers, severities, levels, revisions, `_meta` keys, header names, error codes, exit statuses |
//! | [`wire`] | the exchange and its file format, the transport bindings (HTTP bodies and SSE, stdio lines: [`wire::stdio`]), the body read once ([`wire::analysis`]), retry hints, web origins |
//! | [`schema`] | the compiled schemas of each revision, the fast validity check, error shaping |
//! | [`rules`] | the rule table as data: rules, precedence bands, revision profiles, advice entries |
//! | `check_api`, `checks` | what a check sees and says, and the checks themselves (crate-private) |
//! | [`judge`](mod@judge) | the [`Engine`] (a table bound to its checks), [`judge()`](fn@judge), verdicts and facts |
//! | [`advice`] | retry advice from the table's advice entries |
//! | [`views`] | the serialisable verdict (`classify --format json`), diagnostic records |
//! | [`inputs`] | files and stdin, HAR captures, JSON Lines, corpora |
//! | [`run`] | the judging loops: one file, a HAR capture, a stream, a corpus against expectations |
//! | `oauth` | the OAuth 2.1 client of the authorization pages: discovery, registration, tokens |
//! | `serve`, `probe` | the fault-injecting server and the probing client |
//! | [`outputs`] | every output format, each a function of a prepared view |
//! | `proxy` | the judging proxy between a real client and a real server |
//! | `commands` | the command line |
//!
//! ## Features
//!
//! With `default-features = false` the library compiles the judge, the schemas, the rule
//! table and the exchange, HAR and JSON Lines readers only. `reports` adds the corpus check
//! and its report formats, `serve` the server, `probe` the client (`tls` for https), `clients`
//! the client matrix (real MCP clients under `serve`'s scenarios), `proxy` the
//! judging proxy, and `cli` (the default) all of them and the command line.

pub mod advice;
pub(crate) mod check_api;
pub(crate) mod checks;
#[cfg(feature = "clients")]
pub mod clients;
#[cfg(feature = "cli")]
pub mod commands;
pub mod config;
#[doc(hidden)]
pub mod fuzzing;
pub mod inputs;
pub mod judge;
#[cfg(feature = "oauth")]
pub mod oauth;
pub mod outputs;
#[cfg(feature = "probe")]
pub mod probe;
#[cfg(feature = "proxy")]
pub mod proxy;
pub mod rules;
pub mod run;
pub mod schema;
#[cfg(feature = "serve")]
pub mod serve;
pub mod views;
pub mod vocab;
pub mod wire;

/// The Rust blocks of README.md and docs/*.md, run as doc tests (see build.rs).
#[cfg(doctest)]
pub mod doc_pages {
    include!(concat!(env!("OUT_DIR"), "/doc_pages.rs"));
}

pub use advice::{RetryAdvice, RetryPolicy, advise};
pub use judge::{Engine, JudgeError, Judgement, Options, Verdict, judge, judge_capped};
pub use rules::RuleTable;
pub use views::{JudgementOut, VerdictOut};
pub use vocab::{Actor, Layer, Level, Outcome, Protocol, Severity};
pub use wire::exchange::{
    BodyEnd, Exchange, ExchangeBuilder, ExchangeError, ExchangeFile, Headers, TransportName,
};
pub use wire::stdio::{ExitStatus, StdioEnd};
