//! Rules (`[[rule]]`): each resolved per revision, checked against the checks the code
//! implements, grouped for shared schema validation, and put in table order.

use std::collections::{BTreeMap, HashMap};

use toml::Spanned;

use super::bands::precedence;
use super::doc::{CiteDoc, Ctx, OverrideDoc, RuleDoc, line_col, names};
use super::{Docs, LoadError, RuleSource};
use crate::rules::{
    Active, Band, CheckSig, Cite, DefaultEffect, Params, Precedence, RevisionProfile, Rule,
    SchemaGroup,
};
use crate::vocab::{Actor, Layer, Level, Outcome, Protocol, Severity};

/// What the rule loop produces.
pub(super) struct Loaded {
    pub rules: Vec<Rule>,
    pub active: BTreeMap<Protocol, Vec<Active>>,
    pub groups: BTreeMap<Protocol, Vec<SchemaGroup>>,
}

pub(super) fn load_rules(
    docs: &Docs<'_>,
    stems: &[String],
    checks: &[CheckSig],
    profiles: &BTreeMap<Protocol, RevisionProfile>,
    bands: &[Band],
) -> Result<Loaded, LoadError> {
    // Table order: by layer (transport first), then file, then position in the file, the same
    // whether the table is built in or loaded from a directory.
    let mut ordered: Vec<(usize, &RuleDoc)> = docs
        .iter()
        .enumerate()
        .flat_map(|(i, (_, _, d))| d.rule.iter().map(move |r| (i, r)))
        .collect();
    ordered.sort_by_key(|(_, r)| {
        r.layer
            .get_ref()
            .parse::<Layer>()
            .map_or(usize::MAX, |l| l as usize)
    });
    let mut rules: Vec<Rule> = Vec::new();
    let mut seen: HashMap<String, RuleSource> = HashMap::new();
    let mut active: BTreeMap<Protocol, Vec<Active>> = BTreeMap::new();
    let mut groups: BTreeMap<Protocol, Vec<SchemaGroup>> = BTreeMap::new();

    for (doc_index, r) in ordered {
        let (file, text, _) = &docs[doc_index];
        let cx = Ctx { file, text };
        {
            let id = r.id.get_ref().clone();
            let (line, _) = line_col(text, r.id.span().start);
            let source = RuleSource {
                file: file.to_string(),
                line,
            };
            if !valid_id(&id) {
                return Err(cx.at(
                    r.id.span(),
                    format!(
                        "rule id `{id}` must be lowercase dot-separated words (letters, digits, `-`), e.g. `jsonrpc.response.id-match`"
                    ),
                ));
            }
            if let Some(prev) = seen.get(&id) {
                return Err(cx.at(
                    r.id.span(),
                    format!(
                        "duplicate rule id `{id}` (first defined at {prev}); ids must be unique"
                    ),
                ));
            }
            seen.insert(id.clone(), source.clone());
            check_home(&cx, r, &stems[doc_index], stems)?;

            let check = checks
                .iter()
                .find(|c| c.name == r.check.get_ref())
                .ok_or_else(|| {
                    let mut known: Vec<&str> = checks.iter().map(|c| c.name).collect();
                    known.sort_unstable();
                    cx.at(
                        r.check.span(),
                        format!(
                            "unknown check `{}`; known checks: {}",
                            r.check.get_ref(),
                            known.join(", ")
                        ),
                    )
                })?;
            let actor: Actor = cx.parse(&r.actor, "actor", &names::<Actor>())?;
            let layer: Layer = cx.parse(&r.layer, "layer", &names::<Layer>())?;
            let mut revisions = Vec::new();
            for rev in &r.revisions {
                let p = Protocol::parse(rev.get_ref()).ok_or_else(|| {
                    cx.at(
                        rev.span(),
                        format!(
                            "unknown revision `{}`; this build knows {}",
                            rev.get_ref(),
                            Protocol::names()
                        ),
                    )
                })?;
                revisions.push(p);
            }
            if revisions.is_empty() {
                return Err(cx.at(r.id.span(), format!("rule `{id}` lists no revisions")));
            }
            let base = Variant {
                level: cx.parse(&r.level, "level", &names::<Level>())?,
                outcome: r
                    .outcome
                    .as_ref()
                    .map(|o| cx.parse(o, "outcome", &names::<Outcome>()))
                    .transpose()?,
                precedence: r
                    .precedence
                    .as_ref()
                    .map(|p| precedence(&cx, p, bands))
                    .transpose()?,
                severity: r
                    .severity
                    .as_ref()
                    .map(|s| cx.parse(s, "severity", &names::<Severity>()))
                    .transpose()?,
                cite_doc: clone_cite(&r.cite),
                params: r.params.clone(),
            };
            let overrides = r.revision.as_ref();
            if let Some(ov) = overrides {
                for key in ov.get_ref().keys() {
                    match Protocol::parse(key) {
                        Some(p) if revisions.contains(&p) => {}
                        Some(p) => {
                            return Err(cx.at(
                                ov.span(),
                                format!(
                                    "rule `{id}` overrides revision `{p}` but does not list it in `revisions`"
                                ),
                            ));
                        }
                        None => {
                            return Err(cx.at(
                                ov.span(),
                                format!(
                                    "rule `{id}`: unknown revision `{key}` in [rule.revision]; this build knows {}",
                                    Protocol::names()
                                ),
                            ));
                        }
                    }
                }
            }
            let default = r
                .default
                .as_ref()
                .map(|d| -> Result<DefaultEffect, LoadError> {
                    let value = serde_json::to_value(&d.value).map_err(|e| {
                        cx.at(r.id.span(), format!("rule `{id}`: default value: {e}"))
                    })?;
                    Ok(DefaultEffect {
                        field: d.field.clone(),
                        value,
                    })
                })
                .transpose()?;

            let rule_index = rules.len();
            for &p in &revisions {
                let ov = overrides.and_then(|o| o.get_ref().get(p.as_str()));
                let v = resolve(&cx, &base, ov, bands)?;
                if v.outcome.is_none() && v.severity.is_none() && default.is_none() {
                    return Err(cx.at(
                        r.id.span(),
                        format!(
                            "rule `{id}` has no effect under {p}: give `outcome` (with `precedence`), `severity`, or `default`"
                        ),
                    ));
                }
                if v.outcome.is_some() && v.precedence.is_none() {
                    return Err(cx.at(
                        r.id.span(),
                        format!("rule `{id}` decides an outcome under {p} but has no `precedence`"),
                    ));
                }
                let cite = build_cite(&cx, &v.cite_doc, &profiles[&p], p)?;
                let params = build_params(&cx, &id, check, v.params.as_ref(), r.id.span())?;
                let list = active.entry(p).or_default();
                let index = list.len();
                if let Some(schema) = params.schema_route() {
                    let gs = groups.entry(p).or_default();
                    let gi = match gs.iter().position(|g| {
                        g.def == schema.def && g.target == schema.target && g.code == schema.code
                    }) {
                        Some(i) => i,
                        None => {
                            gs.push(SchemaGroup {
                                def: schema.def.clone(),
                                target: schema.target,
                                code: schema.code,
                                members: Vec::new(),
                            });
                            gs.len() - 1
                        }
                    };
                    gs[gi]
                        .members
                        .push((index, schema.patterns.clone(), schema.keywords.clone()));
                }
                if let (Some(_), Some(place)) = (v.outcome, v.precedence)
                    && let Some(other) = list.iter().find(|a| a.precedence == Some(place))
                {
                    return Err(cx.at(
                            r.id.span(),
                            format!(
                                "rule `{id}` has the same precedence under {p} as `{}` ({} {}); give it another rank so that which one decides is written down",
                                rules[other.rule].id, bands[place.band].name, place.rank
                            ),
                        ));
                }
                list.push(Active {
                    rule: rule_index,
                    protocol: p,
                    level: v.level,
                    outcome: v.outcome,
                    precedence: v.outcome.and(v.precedence),
                    severity: v.severity,
                    default: default.clone(),
                    cite,
                    params,
                    json: std::sync::OnceLock::new(),
                });
            }
            rules.push(Rule {
                id,
                title: r.title.trim().to_string(),
                summary: r.summary.trim().to_string(),
                why: r.why.trim().to_string(),
                example: r.example.as_ref().map(|e| e.trim().to_string()),
                actor,
                layer,
                check: check.name,
                revisions,
                source,
            });
        }
    }

    // Assign each schema-checked active entry its group index.
    for (p, list) in &mut active {
        for (gi, g) in groups.get(p).into_iter().flatten().enumerate() {
            for (idx, _, _) in &g.members {
                list[*idx].params.set_group(gi, *idx);
            }
        }
    }

    Ok(Loaded {
        rules,
        active,
        groups,
    })
}

struct Variant {
    level: Level,
    outcome: Option<Outcome>,
    precedence: Option<Precedence>,
    severity: Option<Severity>,
    cite_doc: Spanned<CiteDoc>,
    params: Option<Spanned<toml::Table>>,
}

fn clone_cite(c: &Spanned<CiteDoc>) -> Spanned<CiteDoc> {
    let d = c.get_ref();
    Spanned::new(
        c.span(),
        CiteDoc {
            page: d.page.clone(),
            anchor: d.anchor.clone(),
            url: d.url.clone(),
            section: d.section.clone(),
            quote: d.quote.clone(),
        },
    )
}

fn resolve(
    cx: &Ctx<'_>,
    base: &Variant,
    ov: Option<&OverrideDoc>,
    bands: &[Band],
) -> Result<Variant, LoadError> {
    let Some(o) = ov else {
        return Ok(Variant {
            level: base.level,
            outcome: base.outcome,
            precedence: base.precedence,
            severity: base.severity,
            cite_doc: clone_cite(&base.cite_doc),
            params: base.params.clone(),
        });
    };
    Ok(Variant {
        level: match &o.level {
            Some(l) => cx.parse(l, "level", &names::<Level>())?,
            None => base.level,
        },
        outcome: match &o.outcome {
            Some(x) => Some(cx.parse(x, "outcome", &names::<Outcome>())?),
            None => base.outcome,
        },
        precedence: match &o.precedence {
            Some(p) => Some(precedence(cx, p, bands)?),
            None => base.precedence,
        },
        severity: match &o.severity {
            Some(s) => Some(cx.parse(s, "severity", &names::<Severity>())?),
            None => base.severity,
        },
        cite_doc: clone_cite(o.cite.as_ref().unwrap_or(&base.cite_doc)),
        params: o.params.clone().or_else(|| base.params.clone()),
    })
}

fn build_cite(
    cx: &Ctx<'_>,
    c: &Spanned<CiteDoc>,
    profile: &RevisionProfile,
    p: Protocol,
) -> Result<Cite, LoadError> {
    let d = c.get_ref();
    let quote = d.quote.trim().to_string();
    if quote.is_empty() {
        return Err(cx.at(
            c.span(),
            "cite.quote is empty; quote the sentence the rule encodes",
        ));
    }
    match (&d.page, &d.url) {
        (Some(page), None) => {
            let page = page.trim_matches('/');
            let mut url = format!("{}/{page}", profile.docs);
            let mut section = format!("{p} {page}");
            if let Some(a) = &d.anchor {
                url.push('#');
                url.push_str(a);
                section.push('#');
                section.push_str(a);
            }
            Ok(Cite {
                url,
                section,
                quote,
            })
        }
        (None, Some(url)) => Ok(Cite {
            url: url.clone(),
            section: d.section.clone().unwrap_or_else(|| url.clone()),
            quote,
        }),
        _ => Err(cx.at(
            c.span(),
            "cite needs exactly one of `page` (an MCP spec page, with optional `anchor`) or `url` (another source, with `section`)",
        )),
    }
}

fn build_params(
    cx: &Ctx<'_>,
    id: &str,
    check: &CheckSig,
    table: Option<&Spanned<toml::Table>>,
    id_span: std::ops::Range<usize>,
) -> Result<Params, LoadError> {
    let span = table.map_or(id_span, |t| t.span());
    let value = toml::Value::Table(table.map(|t| t.get_ref().clone()).unwrap_or_default());
    let given: Vec<String> = table
        .map(|t| t.get_ref().keys().cloned().collect())
        .unwrap_or_default();
    for g in &given {
        if !check.params.contains(&g.as_str()) {
            return Err(cx.at(
                span.clone(),
                format!(
                    "rule `{id}`: check `{}` takes no parameter `{g}` (it takes: {})",
                    check.name,
                    if check.params.is_empty() {
                        "none".to_string()
                    } else {
                        check.params.join(", ")
                    }
                ),
            ));
        }
    }
    for req in check.required {
        if !given.iter().any(|g| g == req) {
            return Err(cx.at(
                span.clone(),
                format!(
                    "rule `{id}`: check `{}` needs parameter `{req}`",
                    check.name
                ),
            ));
        }
    }
    let mut params: Params = value.try_into().map_err(|e: toml::de::Error| {
        cx.at(
            span.clone(),
            format!("rule `{id}`: params: {}", e.message().trim()),
        )
    })?;
    params
        .compile()
        .map_err(|e| cx.at(span, format!("rule `{id}`: params: {e}")))?;
    Ok(params)
}

pub(super) fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.split('.').all(|part| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        })
}

/// A rule lives in the file named by the longest of the table's file names that prefixes its
/// id (on a `.` boundary): `transport.sse.progress` in `transport/sse.toml` when that file
/// exists, else in `transport.toml`.
fn check_home(cx: &Ctx<'_>, r: &RuleDoc, stem: &str, stems: &[String]) -> Result<(), LoadError> {
    let id = r.id.get_ref();
    let prefixes =
        |s: &str| id == s || id.strip_prefix(s).is_some_and(|rest| rest.starts_with('.'));
    let best = stems.iter().filter(|s| prefixes(s)).max_by_key(|s| s.len());
    match best {
        Some(b) if b == stem => Ok(()),
        Some(b) => Err(cx.at(
            r.id.span(),
            format!(
                "rule `{id}` belongs in `{}.toml`: a rule lives in the file named by the longest prefix of its id",
                b.replace('.', "/")
            ),
        )),
        None => {
            let first = id.split('.').next().unwrap_or(id);
            Err(cx.at(
                r.id.span(),
                format!(
                    "rule `{id}` belongs in a file named by a prefix of its id, e.g. `{first}.toml`; rule files are named by the rules they hold"
                ),
            ))
        }
    }
}
