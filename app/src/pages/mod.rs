pub mod dashboard;
pub mod history;
pub mod not_found;
pub mod sets;
