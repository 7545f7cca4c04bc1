//! Advice entries (`[[advice]]`) and this project's policies (`[[policy]]`) that they cite.

use std::collections::BTreeMap;

use super::doc::{Ctx, OneOrMany, line_col, names};
use super::rule::valid_id;
use super::{Docs, LoadError};
use crate::rules::{AdviceEntry, Policy, Replay, RevisionProfile, Rule};
use crate::vocab::{Outcome, Protocol, RetryAction};

pub(super) fn load_advice(
    docs: &Docs<'_>,
    rules: &[Rule],
    profiles: &BTreeMap<Protocol, RevisionProfile>,
) -> Result<(Vec<AdviceEntry>, Vec<Policy>), LoadError> {
    let mut policies: Vec<Policy> = Vec::new();
    for (file, text, doc) in docs {
        let cx = Ctx { file, text };
        for d in &doc.policy {
            let id = d.id.get_ref();
            if !id.starts_with("policy.") || !valid_id(id) {
                return Err(cx.at(
                    d.id.span(),
                    format!("policy id `{id}` must start with `policy.` and be lowercase dot-separated words"),
                ));
            }
            if policies.iter().any(|p| &p.id == id) {
                return Err(cx.at(d.id.span(), format!("policy `{id}` is defined twice")));
            }
            let urls = match (&d.page, &d.url) {
                (Some(page), None) => profiles
                    .iter()
                    .map(|(p, prof)| {
                        let mut url = format!("{}/{}", prof.docs, page.trim_matches('/'));
                        if let Some(a) = &d.anchor {
                            url.push('#');
                            url.push_str(a);
                        }
                        (*p, url)
                    })
                    .collect(),
                (None, Some(url)) => Protocol::all().map(|p| (p, url.clone())).collect(),
                _ => {
                    return Err(cx.at(
                        d.id.span(),
                        format!("policy `{id}` needs exactly one of `page` (an MCP spec page, with optional `anchor`) or `url`"),
                    ));
                }
            };
            policies.push(Policy {
                id: id.clone(),
                title: d.title.trim().to_string(),
                urls,
            });
        }
    }
    let mut advice = Vec::new();
    for (file, text, doc) in docs {
        let cx = Ctx { file, text };
        for d in &doc.advice {
            let (line, _) = line_col(text, d.outcome.span().start);
            let source = format!("{file}:{line}");
            let mut outcomes = Vec::new();
            let given = match d.outcome.get_ref() {
                OneOrMany::One(o) => vec![o.as_str()],
                OneOrMany::Many(v) => v.iter().map(String::as_str).collect(),
            };
            for o in given {
                outcomes.push(o.parse::<Outcome>().map_err(|_| {
                    cx.at(
                        d.outcome.span(),
                        format!(
                            "unknown outcome `{o}`; expected one of {}",
                            names::<Outcome>()
                        ),
                    )
                })?);
            }
            let mut revisions = Vec::new();
            for r in &d.revisions {
                revisions.push(Protocol::parse(r.get_ref()).ok_or_else(|| {
                    cx.at(
                        r.span(),
                        format!(
                            "unknown revision `{}`; this build knows {}",
                            r.get_ref(),
                            Protocol::names()
                        ),
                    )
                })?);
            }
            if let Some(r) = &d.rule
                && !rules.iter().any(|x| &x.id == r.get_ref())
            {
                return Err(cx.at(
                    r.span(),
                    format!(
                        "advice refers to rule `{}`, which is not in the table",
                        r.get_ref()
                    ),
                ));
            }
            let replay = match &d.replay {
                Some(r) => r.get_ref().parse::<Replay>().map_err(|_| {
                    cx.at(
                        r.span(),
                        format!(
                            "unknown replay `{}`; expected one of `never`, `backoff`, `reissue`, `retry_after`",
                            r.get_ref()
                        ),
                    )
                })?,
                None => Replay::Never,
            };
            let action = match (&d.action, replay) {
                (Some(a), Replay::Never) => cx.parse(a, "action", &names::<RetryAction>())?,
                (None, Replay::Never) => {
                    return Err(cx.at(
                        d.outcome.span(),
                        "advice needs an `action` (or a `replay` mode, which chooses its own)",
                    ));
                }
                (Some(a), _) => {
                    return Err(cx.at(
                        a.span(),
                        "an advice entry with a `replay` mode chooses its own action; remove `action`",
                    ));
                }
                (None, _) => RetryAction::DoNotRetry,
            };
            let mut cites = Vec::new();
            for c in &d.cite {
                let id = c.get_ref();
                let known = if id.starts_with("policy.") {
                    policies.iter().any(|p| &p.id == id)
                } else {
                    rules.iter().any(|r| &r.id == id)
                };
                if !known {
                    return Err(cx.at(
                        c.span(),
                        format!("advice cites `{id}`, which is neither a rule of the table nor a [[policy]]"),
                    ));
                }
                cites.push(id.clone());
            }
            advice.push(AdviceEntry {
                outcomes,
                codes: d.code.clone().map(OneOrMany::into_vec).unwrap_or_default(),
                statuses: d
                    .status
                    .clone()
                    .map(OneOrMany::into_vec)
                    .unwrap_or_default(),
                rule: d.rule.as_ref().map(|r| r.get_ref().clone()),
                revisions,
                event_id: d.event_id,
                action,
                replay,
                detail: d.detail.trim().to_string(),
                new_request_id: d.new_request_id,
                cites,
                source,
            });
        }
    }
    if !advice.is_empty() {
        for o in <Outcome as strum::IntoEnumIterator>::iter() {
            if !advice
                .iter()
                .any(|a| a.is_fallback() && a.outcomes.contains(&o))
            {
                return Err(LoadError {
                    file: docs
                        .first()
                        .map_or_else(|| "rules".into(), |d| d.0.to_string()),
                    line: None,
                    column: None,
                    message: format!(
                        "no [[advice]] entry without conditions covers {o}; add one so that every verdict gets advice"
                    ),
                });
            }
        }
    }
    Ok((advice, policies))
}
