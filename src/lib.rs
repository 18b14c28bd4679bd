//! The Warren server: configuration, start-up, storage, the session engine and the web layer.
//! The binary (`main.rs`) is a thin CLI over [`startup`]; tests start the same [`startup::Application`].

// Deeply nested page views exceed the default limit on some compilers (nightly, for fuzzing).
#![recursion_limit = "256"]

pub mod cli;
pub mod config;
pub mod drafting;
pub mod embed;
pub mod engine;
pub mod eval;
pub mod fitting;
pub mod llm;
pub mod schedule;
pub mod startup;
pub mod store;
pub mod telemetry;
pub mod text;
pub mod transfer;
pub mod voice;
pub mod web;
