//! `serve`: an MCP Streamable HTTP server on loopback that behaves well by
//! default and injects one named fault [`Scenario`] at a time.
//!
//! Both protocol revisions are served on one endpoint and chosen per request:
//! a request whose `params._meta` carries `io.modelcontextprotocol/protocolVersion`
//! (or, without a session, an `MCP-Protocol-Version: 2026-07-28` header) is
//! served statelessly as 2026-07-28; `initialize` and `MCP-Session-Id` traffic
//! is served as 2025-11-25.
//!
//! # Behaviour worth knowing
//!
//! - **HTTP**: one thread per connection, at most
//!   [`ServeConfig::max_connections`] at once (a connection past the cap is answered `503`
//!   with `Retry-After: 1` and closed), HTTP/1.1 keep-alive and pipelining,
//!   `Expect: 100-continue`; chunked *request* bodies get `411`, differing `Content-Length`
//!   values `400`, a request head over 64 KiB (65,536 bytes) or 96 fields `431`, a body
//!   over 4 MiB `413`. After a rejection the server stops writing and reads (and discards)
//!   what the client still sends, up to 16 MiB or 5 seconds, so that the client reads the
//!   answer rather than a reset.
//! - **Bounded memory**: the diagnostic records [`ServerHandle::records`] returns are the
//!   last [`ServeConfig::keep_records`] (every record still goes to the log file); a
//!   2025-11-25 session idle for [`ServeConfig::session_ttl`] expires, and past
//!   [`ServeConfig::max_sessions`] the least recently used one is dropped (a request naming
//!   either gets `404`, as for any unknown session). Responses are
//!   written as raw bytes: `Content-Length` bodies, or chunked SSE with one event
//!   per chunk and a flush per event. A present `Origin` that is not a loopback
//!   origin (or one of [`ServeConfig::allowed_origins`]) gets `403` with a JSON-RPC
//!   error without `id`. GET gets `405`; DELETE terminates a 2025-11-25 session
//!   (`404` if unknown, `405` without `MCP-Session-Id`).
//! - **2026-07-28 validation order** (the spec leaves it open; this is the order
//!   the official conformance suite expects): required `_meta` fields (`400` +
//!   `-32602`), standard headers `MCP-Protocol-Version` / `Mcp-Method` /
//!   `Mcp-Name` against the body (`400` + `-32020`, so a header version that
//!   contradicts `_meta` is a mismatch even when `_meta` names an unsupported
//!   version), protocol version (`400` + `-32022`), method (`404` + `-32601`;
//!   `initialize` under 2026-07-28 too), then client capabilities (`400` +
//!   `-32021`).
//!   Other JSON-RPC errors (unknown tool, malformed `tools/call` params, a
//!   rejected `requestState`) go out with HTTP 200.
//! - **Confirmation** (`confirm_action`, and every tool under the
//!   `input_required` scenario): 2026-07-28 uses MRTR; the `requestState` is a
//!   base64url JSON payload (tool, digest of the arguments, id of the request
//!   that received it, 10-minute expiry) sealed with a keyed SipHash tag under a
//!   per-process random key. A retry must echo it, answer `inputResponses.confirm`
//!   and use a new id; a tampered, foreign, expired or reused-id state is rejected
//!   with a JSON-RPC error, a missing answer is asked for again. 2025-11-25 sends an
//!   `elicitation/create` request on the `tools/call` SSE stream and finishes the
//!   stream once the client POSTs its JSON-RPC response (or after the stall cap);
//!   URL-mode `-32042` is not used because a confirmation is not a URL interaction.
//!   Without the elicitation capability, 2026-07-28 answers `-32021` and
//!   2025-11-25 a tool result with `isError: true`.
//! - **Faults** replace the response to a `tools/call` that names a known tool
//!   and would otherwise be answered with a result; protocol errors (unknown tool,
//!   bad headers, bad state) go out unchanged. `http_status_sequence` and
//!   `rate_limited` act on every POST instead.
//! - **Conformance tool set** (`--scenario baseline:tools=conformance`): besides the five
//!   baseline tools, the fixtures the official MCP conformance suite calls (tools named
//!   `test_*` and `json_schema_2020_12_tool`, prompts, `test://` resources and a template,
//!   `completion/complete`; `logging/setLevel` and `resources/subscribe` under 2025-11-25;
//!   caching hints on 2026-07-28 list and read results). Plain `baseline` offers none of them
//!   and declares only the tools capability.
//! - **`Mcp-Param-{Name}`** (2026-07-28): a `tools/call` whose tool annotates a parameter with
//!   `x-mcp-header` has that header checked against the argument (`400` + `-32020`).
//! - **SSE**: 2025-11-25 streams start with a priming event (`id:` + empty
//!   `data:`), except in the stream-fault scenarios (`sse_close_early`,
//!   `sse_reset`, `sse_stall`, `sse_malformed_event`), where no event id is sent
//!   so that nothing invites a resumption the server does not offer. Progress
//!   notifications carry the request's `_meta.progressToken`; when it has none,
//!   the SSE scenarios use `mcp-verdict-progress-<request id>`.
//!
//! # Layout
//!
//! This file is the public face. What to answer is the dialogue's: `dispatch` checks the
//! JSON-RPC envelope of a message (`incoming`: its body and what the binding carries beside
//! it) and picks the revision; `v2026_07_28` and `v2025_11_25` hold the two dialogues;
//! `tools_call` and `input_required` answer `tools/call`; `faults` injects the scenario in
//! force; `conformance` answers for the conformance tool set (`suite_tools`). Handlers plan a
//! whole reply (`reply`); how it is written is the binding's: `http` (a listener, one thread
//! per connection, a reply executed as a `Content-Length` body or an SSE stream, byte by
//! byte), which also rebuilds each `tools/call` exchange as the client saw it for `judged`.
//! `config` is what a server is told, `shared` what its threads share (records included),
//! `scenario` and `scenario_table` describe the scenarios, `state` keeps sessions and seals
//! `requestState`, `tools` are the baseline tools.
//!
//! ```no_run
//! use mcp_verdict::serve::{self, ServeConfig};
//! let handle = serve::start(ServeConfig {
//!     scenario: "sse_reset".parse().unwrap(),
//!     ..ServeConfig::default()
//! })
//! .unwrap();
//! println!("{}", handle.url());
//! // ... drive a client against it ...
//! let records = handle.records();
//! handle.shutdown();
//! # let _ = records;
//! ```

pub mod auth;
mod call;
mod config;
mod conformance;
mod dispatch;
mod exchange;
mod faults;
pub(crate) mod http;
mod incoming;
mod input_required;
mod judged;
mod reply;
mod scenario;
mod scenario_table;
mod shared;
mod state;
mod stdio;
mod suite_tools;
mod tools;
mod tools_call;
mod v2025_11_25;
mod v2026_07_28;

pub use config::{
    DEFAULT_KEEP_RECORDS, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_TTL,
    ResponseMode, ServeConfig,
};
pub use http::{ServerHandle, start};
pub use scenario::{Lenient, Scenario, ScenarioParseError, StdioFault};
pub use scenario_table::{SCENARIOS, ScenarioInfo, Transport, render_list, render_list_short};
pub use stdio::{DRAIN, MAX_LINE, StdioServed, serve_stdio};
