//! The summary the proxy prints when it stops: calls per outcome, per tool, the error
//! findings by rule (calls and setup answers), and what was not judged.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

use super::judged::{Judged, Kind, Unjudged};
use super::sinks::Sink;
use crate::outputs::safe;
use crate::views::redact;

/// Counts of what the proxy judged.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// `tools/call` exchanges judged.
    pub calls: usize,
    /// Setup answers judged.
    pub setup: usize,
    /// Calls per outcome.
    pub outcomes: BTreeMap<String, usize>,
    /// Per tool, calls per outcome.
    pub tools: BTreeMap<String, BTreeMap<String, usize>>,
    /// Exchanges (calls and setup answers) with an error finding of each rule.
    pub error_rules: BTreeMap<String, usize>,
    /// Answers not judged, with why (the first of each reason kept).
    pub unjudged: usize,
    /// The reasons answers were not judged, with how often.
    pub unjudged_why: BTreeMap<String, usize>,
}

impl Summary {
    fn judged(&mut self, j: &Judged) {
        let v = &j.judgement.verdicts[0];
        for rule in crate::views::diag::error_findings(v) {
            *self.error_rules.entry(rule).or_default() += 1;
        }
        if j.kind == Kind::Setup {
            self.setup += 1;
            return;
        }
        self.calls += 1;
        let outcome = v.outcome.to_string();
        *self.outcomes.entry(outcome.clone()).or_default() += 1;
        let tool = j.tool.clone().unwrap_or_else(|| "(no name)".into());
        *self
            .tools
            .entry(tool)
            .or_default()
            .entry(outcome)
            .or_default() += 1;
    }

    fn unjudged(&mut self, u: &Unjudged) {
        self.unjudged += 1;
        *self.unjudged_why.entry(u.why.clone()).or_default() += 1;
    }

    /// Whether an exchange had an error finding.
    pub fn has_errors(&self) -> bool {
        !self.error_rules.is_empty()
    }

    /// The summary for people.
    pub fn render(&self) -> String {
        let mut o = String::new();
        let _ = writeln!(
            o,
            "mcp-verdict proxy: {} tools/call judged, {} setup answers judged, {} not judged",
            self.calls, self.setup, self.unjudged
        );
        let line = |o: &mut String, head: &str, m: &BTreeMap<String, usize>| {
            if m.is_empty() {
                return;
            }
            let items: Vec<String> = m
                .iter()
                .map(|(k, n)| format!("{} {n}", safe::text(&redact::text(k))))
                .collect();
            let _ = writeln!(o, "  {head}: {}", items.join(", "));
        };
        line(&mut o, "outcomes", &self.outcomes);
        for (tool, m) in &self.tools {
            line(
                &mut o,
                &format!("tool {}", safe::text(&redact::text(tool))),
                m,
            );
        }
        line(&mut o, "error findings by rule", &self.error_rules);
        line(&mut o, "not judged", &self.unjudged_why);
        o
    }
}

/// The summary kept up to date as a sink, readable from another thread.
#[derive(Clone, Default)]
pub(crate) struct Tally(pub Arc<Mutex<Summary>>);

impl Tally {
    pub(crate) fn get(&self) -> Summary {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl Sink for Tally {
    fn judged(&mut self, j: &Judged) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).judged(j);
    }

    fn unjudged(&mut self, u: &Unjudged) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).unjudged(u);
    }
}
