//! The evaluation plan of a rule table: each active rule bound to the check it names, what
//! the check needs to apply, and, per set of parts an exchange has, the steps that can apply.
//! Built once per table; judging an exchange only walks it.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use crate::check_api::{CheckDef, Cx, Eval, Needs, SchemaSlot, Setting, target_needs};
use crate::rules::{Params, RuleTable};
use crate::vocab::Protocol;

/// One step of a revision's plan: the check to run for the active rule at the same index, and
/// what the exchange must have for it to apply. Packed small so that one pass over the plan
/// stays in cache (an active rule with its parameters and citation is large).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Step {
    pub run: fn(&Cx<'_>, &Params) -> Eval,
    pub needs: Needs,
}

/// A revision's plan.
#[derive(Debug)]
pub(crate) struct RevisionPlan {
    /// Parallel to the table's active rules of the revision.
    pub steps: Vec<Step>,
    /// Per set of parts an exchange has ([`Needs`] bits), the indexes of the steps that can
    /// apply; every other step could only say "not applicable" and is not run. Filled the
    /// first time an exchange with that set is judged (few of the sets ever occur).
    runnable: Box<[OnceLock<Box<[u16]>>]>,
    /// One compiled-validator slot per schema group of the revision.
    pub slots: Vec<SchemaSlot>,
}

impl RevisionPlan {
    /// The indexes of the steps that can apply to an exchange that has `have`.
    pub fn runnable(&self, have: Needs) -> &[u16] {
        let Some(slot) = self.runnable.get(usize::from(have.bits())) else {
            return &[];
        };
        slot.get_or_init(|| {
            self.steps
                .iter()
                .enumerate()
                .filter(|(_, s)| s.needs.met_by(have))
                .map(|(i, _)| u16::try_from(i).expect("fewer than 65536 rules"))
                .collect()
        })
    }
}

/// Every check the code implements, in the order the modules declare them.
pub(crate) fn registry() -> impl Iterator<Item = &'static CheckDef> {
    crate::checks::ALL.iter().flat_map(|m| m.iter())
}

/// Binds every active rule of every revision to its check.
pub(crate) fn plans(table: &RuleTable) -> BTreeMap<Protocol, RevisionPlan> {
    Protocol::all()
        .map(|p| {
            let steps: Vec<Step> = table
                .active(p)
                .iter()
                .map(|a| {
                    let name = table.rule_of(a).check;
                    let check = registry()
                        .find(|c| c.sig.name == name)
                        .expect("the table was loaded against the same checks");
                    let needs = a
                        .params
                        .at
                        .map_or(check.needs, |t| check.needs.union(target_needs(t)));
                    Step {
                        run: check.run,
                        needs,
                    }
                })
                .collect();
            let runnable = (0..Needs::SETS).map(|_| OnceLock::new()).collect();
            let slots = table
                .groups(p)
                .iter()
                .map(|_| SchemaSlot::default())
                .collect();
            (
                p,
                RevisionPlan {
                    steps,
                    runnable,
                    slots,
                },
            )
        })
        .collect()
}

impl RevisionPlan {
    /// The setting a revision's checks see.
    pub fn setting<'a>(&'a self, table: &'a RuleTable, protocol: Protocol) -> Setting<'a> {
        Setting {
            protocol,
            profile: table.profile(protocol),
            groups: table.groups(protocol),
            slots: &self.slots,
        }
    }
}
