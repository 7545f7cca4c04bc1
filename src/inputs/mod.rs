//! Inputs: where exchanges come from. Each source yields exchanges to judge or says, as a
//! value, why one cannot be read; nothing a user gave is dropped silently.

#[cfg(feature = "reports")]
pub mod corpus;
pub mod file;
pub mod har;
pub mod jsonl;
pub mod transcript;
