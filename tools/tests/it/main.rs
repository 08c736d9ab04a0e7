//! The integration tests of the `morris` command line, run as a user runs it.
//!
//! One test binary for the crate (each file a module), so the suite links
//! once per crate instead of once per file; run one file's tests with
//! `cargo test -p CRATE --test it FILE::`.

mod cli;
mod common;
mod input;
mod input_cases;
mod interrupt;
mod ledger;
mod only;
mod play;
mod readme;
mod results;
mod robust;
mod rules_cli;
mod serve;
mod slurm;
mod value;
mod verify;
mod whole_game;
