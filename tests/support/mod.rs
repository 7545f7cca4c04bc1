//! Helpers shared by the integration tests, one module per purpose.

pub mod browser;
pub mod cli;
pub mod corpus;
pub mod http;
pub mod judge;
pub mod markdown;
pub mod mutate;
pub mod peers;
pub mod recording;
pub mod reference;
pub mod rng;
pub mod serve;
pub mod spec_page;
pub mod stdio;
pub mod synth;
pub mod temp;
pub mod tools;
pub mod twins;
