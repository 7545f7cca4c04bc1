//! Named checks. Each check inspects the analysed exchange under one revision and says whether
//! the condition it looks for is present (`Trigger`), absent (`Pass`) or cannot be judged
//! (`NotApplicable`). What a trigger *means* (an outcome, a finding, a default) is decided by
//! the rule table, never here. Each module declares its own checks (`CHECKS`).

mod auth;
mod auth_documents;
mod content;
mod dialect;
mod discovery;
mod envelope;
mod framing;
mod icons;
mod meta;
mod mrtr;
pub(crate) mod param_headers;
mod request;
mod result;
mod schema;
mod sequence;
mod session;
mod stdio;
mod stream;
mod stream_messages;
mod transport;

use crate::check_api::CheckDef;

pub(crate) use meta::meta_keys_valid;

/// The checks of every module.
pub(crate) static ALL: &[&[CheckDef]] = &[
    transport::CHECKS,
    framing::CHECKS,
    envelope::CHECKS,
    schema::CHECKS,
    result::CHECKS,
    content::CHECKS,
    dialect::CHECKS,
    mrtr::CHECKS,
    stream::CHECKS,
    stream_messages::CHECKS,
    request::CHECKS,
    icons::CHECKS,
    meta::CHECKS,
    session::CHECKS,
    discovery::CHECKS,
    auth::CHECKS,
    stdio::CHECKS,
    auth_documents::CHECKS,
    param_headers::CHECKS,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_params_declared() {
        let all = || ALL.iter().flat_map(|m| m.iter());
        let mut names: Vec<&str> = all().map(|c| c.sig.name).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(before, names.len(), "duplicate check names");
        for c in all() {
            for r in c.sig.required {
                assert!(
                    c.sig.params.contains(r),
                    "{}: required `{r}` not accepted",
                    c.sig.name
                );
            }
        }
    }
}
