//! The integration tests, in one binary: each test binary links the whole server, so one
//! binary instead of one per file saves most of a test build's time.

// Tests pick out the frames they look for; the product's own matches stay exhaustive.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::wildcard_enum_match_arm)]

mod common;

mod account;
mod accounts;
mod anki;
mod authoring;
mod backup;
mod contracts;
mod drafting;
mod engine;
mod eval;
mod explorer;
mod history;
mod import;
mod injection;
mod instances;
mod ladder;
mod network_session;
mod outage;
mod providers;
mod proxy;
mod review;
mod schedule;
mod security;
mod session_socket;
mod speculation;
mod startup;
mod study;
mod synthesis;
mod tree;
mod usage;
mod voice;
