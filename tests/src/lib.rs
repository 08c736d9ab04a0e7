//! End-to-end tests of the workspace, and a deliberately simple reference
//! solver (module `reference`) that the real solver is checked against, and
//! one for complete games of small rule sets (module `reference_game`);
//! damaged table files for the no-panic property tests (module `damage`).

pub mod damage;
pub mod reference;
pub mod reference_game;

pub use reference::{ref_children, solve_nine_small, RefValue, REF_POINTS};
