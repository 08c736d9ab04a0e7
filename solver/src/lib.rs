//! Retrograde analysis of the morris family (docs/design.md, "Solving"): fills
//! the tables of a rule set pair of sectors by pair, in an order where every
//! capture lands in a pair already solved, with exact DTM across sectors, in
//! parallel with rayon, reporting progress to a [`Progress`] (the library
//! draws nothing), skipping tables already on disk. The sliding phase first; then the placement phase, sector by
//! sector in one pass each, or under the Lasker rule (where a player with
//! stones in hand may move) pair by pair by retrograde analysis.
#![warn(missing_docs)]

pub mod estimate;
mod gather;
pub mod jobs;
pub mod lock;
mod pair;
pub mod placement;
pub mod progress;
pub mod reach;
mod solve;
pub mod unit;

pub use progress::{NoProgress, Progress};
pub use solve::{
    sliding_pairs, solve_all, solve_all_finishing, solve_all_with, solve_only, solve_sliding, solve_sliding_finishing,
    solve_sliding_with, Finished, PairTiming, SectorReport, SolveError, SolveEvent, SolveOptions, SolveReport,
};
