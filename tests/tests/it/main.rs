//! The workspace's cross-crate tests: the reference solver and published
//! figures against the solver, the prober and the verifier.
//!
//! One test binary for the crate (each file a module), so the suite links
//! once per crate instead of once per file; run one file's tests with
//! `cargo test -p CRATE --test it FILE::`.

mod common;
mod docs_links;
mod full_board;
mod integrity;
mod lasker;
mod malom;
mod oracle_sliding;
mod placement;
mod probe_queries;
mod properties;
mod reach;
mod reference;
mod reference_game;
mod rules_custom;
mod rules_notation;
mod rules_play;
mod search;
mod unreachable_sectors;
mod verify;
mod wdl;
