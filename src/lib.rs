pub mod rules;
pub mod store;
