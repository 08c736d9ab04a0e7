//! The integration tests of the server: the JSON API and the web board.
//!
//! One test binary for the crate (each file a module), so the suite links
//! once per crate instead of once per file; run one file's tests with
//! `cargo test -p CRATE --test it FILE::`.

mod api;
mod browser;
mod hardening;
