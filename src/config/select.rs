//! Rule selectors (`all`, a rule id, or an id prefix such as `transport.sse`) and how the
//! layers of settings decide one rule: within a layer the most specific selector wins (`ignore`
//! on a tie), and a later layer wins over an earlier one, as ruff resolves `select` and
//! `ignore`.

use crate::judge::Change;
use crate::rules::RuleTable;
use crate::vocab::suggest::did_you_mean;
use crate::vocab::{Outcome, Severity};

use super::{ConfigError, Flags, Origin, RuleLayer, Settings};

/// A rule id, an id prefix (whole dotted segments), or `all`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selector(String);

impl Selector {
    /// A selector, if it names `all` or at least one rule of the table; else what is wrong.
    pub fn parse(text: &str, table: &RuleTable) -> Result<Selector, String> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("all") {
            return Ok(Selector(String::new()));
        }
        let s = Selector(text.to_owned());
        if table.rules().iter().any(|r| s.matches(&r.id)) {
            return Ok(s);
        }
        let mut names: Vec<&str> = vec!["all"];
        for r in table.rules() {
            let id = r.id.as_str();
            names.push(id);
            names.extend(id.match_indices('.').map(|(at, _)| &id[..at]));
        }
        names.sort_unstable();
        names.dedup();
        Err(format!(
            "no rule id or id prefix `{text}`{}; `mcp-verdict rules` lists the rules",
            did_you_mean(text, names)
        ))
    }

    /// Whether the selector takes in the rule `id`.
    pub fn matches(&self, id: &str) -> bool {
        self.0.is_empty()
            || id == self.0
            || (id.starts_with(self.0.as_str()) && id.as_bytes().get(self.0.len()) == Some(&b'.'))
    }

    /// How specific it is: `all` least, a longer prefix more.
    fn specificity(&self) -> usize {
        if self.0.is_empty() {
            0
        } else {
            self.0.len() + 1
        }
    }

    /// The selector as written (`all` for every rule).
    pub fn as_str(&self) -> &str {
        if self.0.is_empty() { "all" } else { &self.0 }
    }
}

/// What the settings say of one rule.
#[derive(Clone, Debug)]
pub(super) struct Decision {
    pub reported: bool,
    pub reported_by: Origin,
    pub severity: Option<(Severity, Origin)>,
}

impl Decision {
    /// The change the decision makes to a finding of this severity, and the setting behind it.
    pub fn change(&self, severity: Severity) -> Option<(Change, &Origin)> {
        if !self.reported {
            return Some((Change::Ignored, &self.reported_by));
        }
        match &self.severity {
            Some((to, by)) if *to != severity => Some((
                Change::Severity {
                    from: severity,
                    to: *to,
                },
                by,
            )),
            _ => None,
        }
    }
}

/// The decision for a rule, computed once per rule for a verdict.
pub(super) fn decide_cached<'t>(
    cache: &mut Vec<(&'t str, Decision)>,
    id: &'t str,
    layers: &[&RuleLayer],
) -> Decision {
    if let Some((_, d)) = cache.iter().find(|(r, _)| *r == id) {
        return d.clone();
    }
    let d = decide(id, layers);
    cache.push((id, d.clone()));
    d
}

/// Decides a rule: each layer in turn may report it or not, and set its severity.
pub(super) fn decide(id: &str, layers: &[&RuleLayer]) -> Decision {
    let mut d = Decision {
        reported: true,
        reported_by: Origin::Default,
        severity: None,
    };
    for layer in layers {
        let best = |list: &[Selector]| {
            list.iter()
                .filter(|s| s.matches(id))
                .map(Selector::specificity)
                .max()
        };
        let ignored = best(&layer.ignore);
        let selected = layer.select.as_deref().and_then(best);
        match (selected, ignored) {
            (_, Some(i)) if selected.is_none_or(|s| i >= s) => {
                d.reported = false;
                d.reported_by = layer.ignore_origin.clone().unwrap_or(Origin::Default);
            }
            (Some(_), _) => {
                d.reported = true;
                d.reported_by = layer.select_origin.clone().unwrap_or(Origin::Default);
            }
            (None, None) if layer.select.is_some() => {
                d.reported = false;
                d.reported_by = layer.select_origin.clone().unwrap_or(Origin::Default);
            }
            _ => {}
        }
        if let Some((_, sev)) = layer
            .severity
            .iter()
            .filter(|(s, _)| s.matches(id))
            .max_by_key(|(s, _)| s.specificity())
        {
            d.severity = Some((
                *sev,
                layer.severity_origin.clone().unwrap_or(Origin::Default),
            ));
        }
    }
    d
}

/// A severity name: `error`, `warning` or `info`.
pub(super) fn severity(name: &str) -> Result<Severity, String> {
    name.trim().parse::<Severity>().map_err(|_| {
        format!(
            "unknown severity `{name}`{}; use error, warning or info",
            did_you_mean(name, ["error", "warning", "info"])
        )
    })
}

/// An outcome name (`DELIVERY_UNKNOWN`).
pub(super) fn outcome(name: &str) -> Result<Outcome, String> {
    use strum::IntoEnumIterator as _;
    let name = name.trim();
    name.parse::<Outcome>().map_err(|_| {
        let names: Vec<&'static str> = Outcome::iter().map(<&'static str>::from).collect();
        format!(
            "unknown outcome `{name}`{}; outcomes are {}",
            did_you_mean(name, names.iter().copied()),
            names.join(", ")
        )
    })
}

/// Adds the command line's rule settings and values to the settings.
pub(super) fn apply_flags(
    flags: &Flags,
    s: &mut Settings,
    table: &RuleTable,
) -> Result<(), ConfigError> {
    let parse_all = |flag: &'static str, list: &[String]| -> Result<Vec<Selector>, ConfigError> {
        list.iter()
            .flat_map(|l| l.split(','))
            .filter(|t| !t.trim().is_empty())
            .map(|t| Selector::parse(t, table).map_err(|m| ConfigError::flag(flag, m)))
            .collect()
    };
    let layer = &mut s.flag_rules;
    if let Some(list) = &flags.select {
        layer.select = Some(parse_all("--select", list)?);
        layer.select_origin = Some(Origin::Flag("--select"));
    }
    if !flags.ignore.is_empty() {
        layer.ignore = parse_all("--ignore", &flags.ignore)?;
        layer.ignore_origin = Some(Origin::Flag("--ignore"));
    }
    for item in flags.severity.iter().flat_map(|l| l.split(',')) {
        let Some((rule, level)) = item.split_once('=') else {
            return Err(ConfigError::flag(
                "--severity",
                format!("`{item}` is not RULE=LEVEL (e.g. transport.sse.progress=warning)"),
            ));
        };
        let sel = Selector::parse(rule, table).map_err(|m| ConfigError::flag("--severity", m))?;
        let sev = severity(level).map_err(|m| ConfigError::flag("--severity", m))?;
        layer.severity.push((sel, sev));
        layer.severity_origin = Some(Origin::Flag("--severity"));
    }
    if let Some(p) = &flags.protocol {
        s.protocol = Some(super::Setting {
            value: p.clone(),
            origin: Origin::Flag("--protocol"),
        });
    }
    if !flags.fail_on_outcome.is_empty() {
        let mut list = Vec::new();
        for name in flags.fail_on_outcome.iter().flat_map(|l| l.split(',')) {
            list.push(outcome(name).map_err(|m| ConfigError::flag("--fail-on-outcome", m))?);
        }
        s.fail_on_outcome = super::Setting {
            value: list,
            origin: Origin::Flag("--fail-on-outcome"),
        };
    }
    if let Some(f) = flags.fail_on {
        s.fail_on = super::Setting {
            value: f,
            origin: Origin::Flag("--fail-on"),
        };
    }
    if let Some(n) = flags.max_findings_per_rule {
        s.max_findings_per_rule = super::Setting {
            value: n,
            origin: Origin::Flag("--max-findings-per-rule"),
        };
    }
    if flags.strict {
        s.strict = super::Setting {
            value: true,
            origin: Origin::Flag("--strict"),
        };
    }
    if let Some(r) = &flags.root {
        s.root = Some(super::Setting {
            value: r.clone(),
            origin: Origin::Flag("--root"),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sel(s: &str) -> Selector {
        Selector(if s == "all" { String::new() } else { s.into() })
    }

    fn layer(select: Option<&[&str]>, ignore: &[&str]) -> RuleLayer {
        RuleLayer {
            select: select.map(|l| l.iter().map(|s| sel(s)).collect()),
            ignore: ignore.iter().map(|s| sel(s)).collect(),
            select_origin: Some(Origin::Flag("--select")),
            ignore_origin: Some(Origin::Flag("--ignore")),
            ..RuleLayer::default()
        }
    }

    #[test]
    fn prefixes_match_whole_segments() {
        assert!(sel("transport.sse").matches("transport.sse.progress"));
        assert!(sel("transport.sse.progress").matches("transport.sse.progress"));
        assert!(!sel("transport.ss").matches("transport.sse.progress"));
        assert!(sel("all").matches("anything"));
    }

    #[test]
    fn the_most_specific_selector_wins_and_later_layers_win() {
        let l = layer(Some(&["transport.sse.progress"]), &["transport"]);
        assert!(decide("transport.sse.progress", &[&l]).reported);
        assert!(!decide("transport.http.x", &[&l]).reported);
        // Not selected by a layer that selects: not reported.
        assert!(!decide("tools.result.complete", &[&l]).reported);
        // A tie goes to ignore.
        let tie = layer(Some(&["transport"]), &["transport"]);
        assert!(!decide("transport.sse.progress", &[&tie]).reported);
        // A later layer that only ignores leaves other rules as the earlier layer decided.
        let later = layer(None, &["tools"]);
        let d = decide("transport.sse.progress", &[&l, &later]);
        assert!(d.reported);
        let d = decide("tools.result.complete", &[&layer(None, &[]), &later]);
        assert!(!d.reported);
        assert_eq!(d.reported_by, Origin::Flag("--ignore"));
    }

    #[test]
    fn severities_take_the_most_specific_entry_of_the_last_layer_that_has_one() {
        let a = RuleLayer {
            severity: vec![
                (sel("transport"), Severity::Info),
                (sel("transport.sse.progress"), Severity::Error),
            ],
            severity_origin: Some(Origin::File("mcp-verdict.toml".into())),
            ..RuleLayer::default()
        };
        let d = decide("transport.sse.progress", &[&a]);
        assert_eq!(d.severity.as_ref().unwrap().0, Severity::Error);
        assert_eq!(
            d.change(Severity::Warning),
            Some((
                Change::Severity {
                    from: Severity::Warning,
                    to: Severity::Error
                },
                &Origin::File("mcp-verdict.toml".into())
            ))
        );
        assert_eq!(d.change(Severity::Error), None);
        let b = RuleLayer {
            severity: vec![(sel("transport"), Severity::Warning)],
            severity_origin: Some(Origin::Flag("--severity")),
            ..RuleLayer::default()
        };
        let d = decide("transport.sse.progress", &[&a, &b]);
        assert_eq!(d.severity.unwrap().0, Severity::Warning);
    }
}
