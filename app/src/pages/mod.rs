pub mod account;
pub mod auth;
pub mod dashboard;
pub mod history;
pub mod import;
pub mod live;
pub mod not_found;
pub mod sets;
