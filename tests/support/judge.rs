//! Judging an exchange the way most tests do: the built-in rule table, the revisions given.

use mcp_verdict::{Engine, Exchange, Judgement, Options, Protocol};

/// Judges `ex` under `protocols` with the built-in rule table.
pub fn judge_under<'p>(ex: &Exchange, protocols: &'p [Protocol]) -> Judgement<'p> {
    mcp_verdict::judge(
        ex,
        &Options {
            protocols: Some(protocols),
            engine: Engine::builtin(),
        },
    )
    .unwrap()
}
