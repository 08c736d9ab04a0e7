//! A solve's events ([`morris_solver::SolveEvent`]) as notes on the
//! terminal, for `solve` and `value`.

use std::io::Write;

use morris_solver::SolveEvent;

/// Says what a solve does as it happens: a damaged table that is solved
/// again (always, on standard error), and with `verbose` each pair's
/// timing when it is done (on standard output).
pub fn report_event(event: &SolveEvent, verbose: bool) {
    match event {
        SolveEvent::Damaged { sector, error } => {
            crate::ui::output::errln!("note: the table of sector {sector} cannot be used ({error}); solving it again")
        }
        SolveEvent::Solved(p) if verbose => {
            let mut out = crate::ui::output::stdout();
            // Standard output failing (other than a closed pipe) is not a
            // reason to stop a solve: the tables are what it makes.
            let _ = writeln!(
                out,
                "pair {:<9} initialise {:>8.3} s, iterate {:>8.3} s, {}, store {:.3} s",
                p.name,
                p.initialise_seconds,
                p.iterate_seconds,
                crate::ui::plural(p.plies as u64, "ply", "plies"),
                p.store_seconds
            )
            .and_then(|()| out.flush());
        }
        SolveEvent::Compressed { sector, before, after, seconds } if verbose => {
            let mut out = crate::ui::output::stdout();
            let _ = writeln!(out, "compressed {sector}: {before} bytes to {after} in {seconds:.3} s")
                .and_then(|()| out.flush());
        }
        SolveEvent::Expanded { sector } => {
            crate::ui::output::errln!("note: the table of sector {sector} is there only compressed; writing its .mtb form for the solver to read")
        }
        SolveEvent::ReadCompressed { sector } => {
            crate::ui::output::errln!("note: the table of sector {sector} is there only compressed (.mtz): this unit reads it block by block, many times slower than from .mtb; `morris solve` without --only writes the .mtb form first")
        }
        SolveEvent::Solved(_) | SolveEvent::Compressed { .. } => {}
    }
}
