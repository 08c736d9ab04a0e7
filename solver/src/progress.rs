//! What a solve reports while it runs. The library draws nothing: a caller
//! passes a [`Progress`] to [`crate::solve_sliding_with`] or
//! [`crate::solve_all_with`], and the command line turns its calls into
//! progress bars (as it does with the prover's counters) and says what
//! happened ([`SolveEvent`]). A closure `|event: &SolveEvent| ...` is a
//! `Progress` that hears the events only.

use morris_db::Sector;

use crate::SolveEvent;

/// Receives a solve's progress. Every method does nothing by default; all
/// are called from the thread that called the solve.
pub trait Progress: Sync {
    /// A stage starts: `units` units of work named `what` (`pairs`,
    /// `placement sectors`, `Lasker placement pairs`) of rule set `rules`.
    fn begin(&self, rules: &str, what: &str, units: u64) {
        let _ = (rules, what, units);
    }

    /// What is being done now, e.g. `pair 3-4: ply 5, 120 positions
    /// resolved at this ply`.
    fn message(&self, text: &str) {
        let _ = text;
    }

    /// One unit is done (solved, or kept from disk).
    fn advance(&self) {}

    /// The stage ended.
    fn finish(&self) {}

    /// Something the caller may want to say at once: a damaged table found
    /// (it is solved again), a pair solved.
    fn event(&self, event: &SolveEvent) {
        let _ = event;
    }

    /// The tables of unit `unit` (its `sectors`) are all on disk, solved
    /// now or kept from an earlier run, and the run has not yet gone on to
    /// the next unit nor compressed any table: the moment to check them
    /// while the tables they read are still in the page cache (`morris
    /// solve --verify`). An `Err(reason)` stops the solve with
    /// [`crate::SolveError::Stopped`]; the tables written stay.
    fn unit_done(&self, unit: &str, sectors: &[Sector]) -> Result<(), String> {
        let _ = (unit, sectors);
        Ok(())
    }
}

impl<F: Fn(&SolveEvent) + Sync> Progress for F {
    fn event(&self, event: &SolveEvent) {
        self(event)
    }
}

/// Reports nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl Progress for NoProgress {}
