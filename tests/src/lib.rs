//! End-to-end tests of the workspace, and a deliberately simple reference
//! solver (module `reference`) that the real solver is checked against.

pub mod reference;

pub use reference::{ref_children, solve_nine_small, RefValue, REF_POINTS};
