//! The vocabulary every other layer speaks: outcomes, layers, severities, levels, actors,
//! protocol revisions and the constants of the protocol (`_meta` keys, header names, error
//! codes), HTTP reason phrases, JSON Pointer tokens and exit statuses. Nothing here imports
//! another module of this crate.

mod advice;
pub mod auth;
pub mod exit;
pub mod http;
mod model;
pub mod pointer;
pub mod protocol;
pub mod suggest;

pub use advice::RetryAction;
pub use model::{Actor, Layer, Level, Outcome, Severity};
pub use protocol::Protocol;
