//! Reading `rules/*.toml` into a [`RuleTable`], rejecting anything ambiguous with the file,
//! line and column and what to do about it.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use super::{
    Active, AdviceEntry, Band, CheckSig, Cite, DefaultEffect, Params, Policy, Precedence, Replay,
    RevisionProfile, Rule, RuleTable, SchemaGroup,
};
use crate::vocab::{Actor, Layer, Level, Outcome, Protocol, RetryAction, Severity};

/// The rule files compiled into the binary, in load order.
pub(super) fn embedded_sources() -> Vec<(String, String)> {
    macro_rules! embed {
        ($($name:literal),* $(,)?) => {
            vec![$( (concat!("rules/", $name).to_string(),
                     include_str!(concat!("../../rules/", $name)).to_string()) ),*]
        };
    }
    embed!(
        "revisions.toml",
        "bands.toml",
        "advice.toml",
        "transport.toml",
        "framing.toml",
        "envelope.toml",
        "errors.toml",
        "result.toml",
        "content.toml",
        "mrtr.toml",
        "stream.toml",
        "request.toml",
    )
}

/// Every `*.toml` file in a directory, sorted by name, as `(path, text)` pairs.
pub(super) fn dir_sources(dir: &Path) -> Result<Vec<(String, String)>, LoadError> {
    let mut sources = Vec::new();
    let entries = std::fs::read_dir(dir).map_err(|e| LoadError::io(dir, &e))?;
    let mut paths: Vec<_> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    for p in paths {
        let text = std::fs::read_to_string(&p).map_err(|e| LoadError::io(&p, &e))?;
        sources.push((p.display().to_string(), text));
    }
    Ok(sources)
}

/// Where a rule was defined.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleSource {
    /// The file name as given to the loader.
    pub file: String,
    /// 1-based line of the rule's `id`.
    pub line: usize,
}

impl fmt::Display for RuleSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// Why a rule table could not be loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    /// The file.
    pub file: String,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// 1-based column, when known.
    pub column: Option<usize>,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl LoadError {
    fn io(path: &Path, e: &std::io::Error) -> LoadError {
        LoadError {
            file: path.display().to_string(),
            line: None,
            column: None,
            message: format!("cannot read: {e}"),
        }
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
            if let Some(c) = self.column {
                write!(f, ":{c}")?;
            }
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for LoadError {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileDoc {
    #[serde(default)]
    revision: Vec<RevisionDoc>,
    #[serde(default)]
    band: Vec<BandDoc>,
    #[serde(default)]
    advice: Vec<AdviceDoc>,
    #[serde(default)]
    policy: Vec<PolicyDoc>,
    #[serde(default)]
    rule: Vec<RuleDoc>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BandDoc {
    name: Spanned<String>,
    about: String,
}

/// `precedence = { band = "envelope", rank = 3 }`; a bare number is the old form, rejected
/// with a message that says how to write it now.
#[derive(Deserialize)]
#[serde(untagged)]
enum PrecedenceDoc {
    Band { band: String, rank: u32 },
    Number(i64),
}

/// One value or a list of them.
#[derive(Clone, Deserialize)]
#[serde(untagged)]
enum OneOrMany<T> {
    One(T),
    Many(Vec<T>),
}

impl<T> OneOrMany<T> {
    fn into_vec(self) -> Vec<T> {
        match self {
            OneOrMany::One(t) => vec![t],
            OneOrMany::Many(v) => v,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AdviceDoc {
    outcome: Spanned<OneOrMany<String>>,
    #[serde(default)]
    code: Option<OneOrMany<i64>>,
    #[serde(default)]
    status: Option<OneOrMany<u16>>,
    #[serde(default)]
    rule: Option<Spanned<String>>,
    #[serde(default)]
    revisions: Vec<Spanned<String>>,
    #[serde(default)]
    event_id: Option<bool>,
    #[serde(default)]
    action: Option<Spanned<String>>,
    #[serde(default)]
    replay: Option<Spanned<String>>,
    detail: String,
    #[serde(default)]
    new_request_id: bool,
    #[serde(default)]
    cite: Vec<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PolicyDoc {
    id: Spanned<String>,
    title: String,
    #[serde(default)]
    page: Option<String>,
    #[serde(default)]
    anchor: Option<String>,
    #[serde(default)]
    url: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RevisionDoc {
    name: Spanned<String>,
    docs: String,
    #[serde(default)]
    result_types: Option<Vec<String>>,
    #[serde(default)]
    extension_result_types: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    error_codes: Vec<CodeDoc>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CodeDoc {
    code: i64,
    name: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CiteDoc {
    #[serde(default)]
    page: Option<String>,
    #[serde(default)]
    anchor: Option<String>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    section: Option<String>,
    quote: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DefaultDoc {
    field: String,
    value: toml::Value,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleDoc {
    id: Spanned<String>,
    title: String,
    summary: String,
    why: String,
    #[serde(default)]
    example: Option<String>,
    revisions: Vec<Spanned<String>>,
    level: Spanned<String>,
    actor: Spanned<String>,
    layer: Spanned<String>,
    check: Spanned<String>,
    #[serde(default)]
    outcome: Option<Spanned<String>>,
    #[serde(default)]
    precedence: Option<Spanned<PrecedenceDoc>>,
    #[serde(default)]
    severity: Option<Spanned<String>>,
    #[serde(default)]
    default: Option<DefaultDoc>,
    cite: Spanned<CiteDoc>,
    #[serde(default)]
    params: Option<Spanned<toml::Table>>,
    #[serde(default)]
    revision: Option<Spanned<BTreeMap<String, OverrideDoc>>>,
}

/// Per-revision differences: each field given replaces the rule's own.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OverrideDoc {
    #[serde(default)]
    level: Option<Spanned<String>>,
    #[serde(default)]
    outcome: Option<Spanned<String>>,
    #[serde(default)]
    precedence: Option<Spanned<PrecedenceDoc>>,
    #[serde(default)]
    severity: Option<Spanned<String>>,
    #[serde(default)]
    cite: Option<Spanned<CiteDoc>>,
    #[serde(default)]
    params: Option<Spanned<toml::Table>>,
}

struct Ctx<'a> {
    file: &'a str,
    text: &'a str,
}

impl Ctx<'_> {
    fn at(&self, span: std::ops::Range<usize>, message: impl Into<String>) -> LoadError {
        let (line, column) = line_col(self.text, span.start);
        LoadError {
            file: self.file.to_string(),
            line: Some(line),
            column: Some(column),
            message: message.into(),
        }
    }

    fn parse<T: std::str::FromStr>(
        &self,
        s: &Spanned<String>,
        what: &str,
        allowed: &str,
    ) -> Result<T, LoadError> {
        s.get_ref().parse().map_err(|_| {
            self.at(
                s.span(),
                format!(
                    "unknown {what} `{}`; expected one of {allowed}",
                    s.get_ref()
                ),
            )
        })
    }
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

fn names<T: strum::IntoEnumIterator + AsRef<str>>() -> String {
    T::iter()
        .map(|v| format!("`{}`", v.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}

struct Variant {
    level: Level,
    outcome: Option<Outcome>,
    precedence: Option<Precedence>,
    severity: Option<Severity>,
    cite_doc: Spanned<CiteDoc>,
    params: Option<Spanned<toml::Table>>,
}

pub(super) fn load(
    sources: &[(String, String)],
    checks: &[CheckSig],
) -> Result<RuleTable, LoadError> {
    let mut docs = Vec::new();
    for (file, text) in sources {
        let doc: FileDoc = toml::from_str(text).map_err(|e| {
            let (line, column) = e
                .span()
                .map(|s| line_col(text, s.start))
                .map_or((None, None), |(l, c)| (Some(l), Some(c)));
            LoadError {
                file: file.clone(),
                line,
                column,
                message: e.message().trim().to_string(),
            }
        })?;
        docs.push((file.as_str(), text.as_str(), doc));
    }

    let mut profiles: BTreeMap<Protocol, RevisionProfile> = BTreeMap::new();
    for (file, text, doc) in &docs {
        let cx = Ctx { file, text };
        for r in &doc.revision {
            let p = Protocol::parse(r.name.get_ref()).ok_or_else(|| {
                cx.at(
                    r.name.span(),
                    format!(
                        "unknown revision `{}`; this build knows {}",
                        r.name.get_ref(),
                        Protocol::names()
                    ),
                )
            })?;
            if profiles.contains_key(&p) {
                return Err(cx.at(
                    r.name.span(),
                    format!("revision `{p}` has two [[revision]] profiles; keep one"),
                ));
            }
            profiles.insert(
                p,
                RevisionProfile {
                    docs: r.docs.trim_end_matches('/').to_string(),
                    result_types: r.result_types.clone(),
                    extension_result_types: r.extension_result_types.clone(),
                    error_codes: r
                        .error_codes
                        .iter()
                        .map(|c| (c.code, c.name.clone()))
                        .collect(),
                },
            );
        }
    }
    for p in Protocol::all() {
        if !profiles.contains_key(&p) {
            return Err(LoadError {
                file: sources
                    .first()
                    .map_or_else(|| "rules".into(), |s| s.0.clone()),
                line: None,
                column: None,
                message: format!(
                    "no [[revision]] profile for `{p}`; add one (see rules/revisions.toml)"
                ),
            });
        }
    }

    let bands = load_bands(&docs)?;

    let mut rules: Vec<Rule> = Vec::new();
    let mut seen: HashMap<String, RuleSource> = HashMap::new();
    let mut active: BTreeMap<Protocol, Vec<Active>> = BTreeMap::new();
    let mut groups: BTreeMap<Protocol, Vec<SchemaGroup>> = BTreeMap::new();

    for (file, text, doc) in &docs {
        let cx = Ctx { file, text };
        for r in &doc.rule {
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
                    .map(|p| precedence(&cx, p, &bands))
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
                let v = resolve(&cx, &base, ov, &bands)?;
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

    let (advice, policies) = load_advice(&docs, &rules, &profiles)?;
    Ok(RuleTable {
        rules,
        active,
        profiles,
        groups,
        bands,
        advice,
        policies,
    })
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

type Docs<'a> = [(&'a str, &'a str, FileDoc)];

fn load_bands(docs: &Docs<'_>) -> Result<Vec<Band>, LoadError> {
    let mut bands: Vec<Band> = Vec::new();
    for (file, text, doc) in docs {
        let cx = Ctx { file, text };
        for b in &doc.band {
            let name = b.name.get_ref().trim();
            if bands.iter().any(|x| x.name == name) {
                return Err(cx.at(
                    b.name.span(),
                    format!("band `{name}` is defined twice; keep one"),
                ));
            }
            bands.push(Band {
                name: name.to_string(),
                about: b.about.trim().to_string(),
            });
        }
    }
    Ok(bands)
}

fn band_names(bands: &[Band]) -> String {
    bands
        .iter()
        .map(|b| format!("`{}`", b.name))
        .collect::<Vec<_>>()
        .join(", ")
}

fn precedence(
    cx: &Ctx<'_>,
    p: &Spanned<PrecedenceDoc>,
    bands: &[Band],
) -> Result<Precedence, LoadError> {
    match p.get_ref() {
        PrecedenceDoc::Band { band, rank } => {
            let index = bands.iter().position(|b| &b.name == band).ok_or_else(|| {
                cx.at(
                    p.span(),
                    format!(
                        "unknown precedence band `{band}`; the bands are, first to decide first: {} (see rules/bands.toml)",
                        band_names(bands)
                    ),
                )
            })?;
            Ok(Precedence {
                band: index,
                rank: *rank,
            })
        }
        PrecedenceDoc::Number(n) => Err(cx.at(
            p.span(),
            format!(
                "precedence is a band and a rank within it, e.g. precedence = {{ band = \"envelope\", rank = 3 }}, not a number ({n}); the bands are, first to decide first: {}",
                band_names(bands)
            ),
        )),
    }
}

fn load_advice(
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

fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.split('.').all(|part| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        })
}
