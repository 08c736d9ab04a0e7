//! How a table's verification is shown (`morris verify`, `morris solve
//! --verify`): `OK` now or from the ledger, `FAILED` with its faults, or
//! `not checked (depends on X ...)`.

use std::io::Write;

use morris_db::Sector;
use morris_verify::{Outcome, TableReport};

/// Prints what became of one table: `OK` (now, or from the ledger),
/// `FAILED` with its faults, or `not checked (depends on X ...)`.
pub fn write_outcome(out: &mut impl Write, sector: Sector, outcome: &Outcome) -> std::io::Result<()> {
    let name = sector.to_string();
    match outcome {
        Outcome::Ledger(row) => writeln!(
            out,
            "{name:<9} OK      {}, from the ledger (verified {} by verifier {}; the table and its successors unchanged)",
            crate::ui::plural(row.positions, "position", "positions"),
            row.date,
            row.verifier
        ),
        Outcome::NotChecked { dependency, damage, report } => {
            writeln!(
                out,
                "{name:<9} not checked (depends on {dependency}, which is damaged): {} of its values could not be re-derived",
                report.successor_faults
            )?;
            if let Some(damage) = damage {
                writeln!(out, "    {dependency}: {damage}")?;
            }
            Ok(())
        }
        Outcome::Checked(report) => write_report(out, report),
    }
}

/// Prints a table's check: `OK` with its positions and rate, or `FAILED`
/// with the faults shown.
pub fn write_report(out: &mut impl Write, report: &TableReport) -> std::io::Result<()> {
    let name = report.sector.to_string();
    if report.is_ok() {
        let rate = report.positions as f64 / report.seconds.max(1e-9);
        return writeln!(
            out,
            "{name:<9} OK      {} re-derived in {:.2} s ({:.2} M positions/s)",
            crate::ui::plural(report.positions, "position", "positions"),
            report.seconds,
            rate / 1e6
        );
    }
    writeln!(
        out,
        "{name:<9} FAILED  {} fault{} in {}",
        report.fault_count,
        if report.fault_count == 1 { "" } else { "s" },
        report.path.display()
    )?;
    for f in &report.faults {
        writeln!(out, "    {f}")?;
    }
    if report.fault_count > report.faults.len() as u64 {
        writeln!(out, "    ... and {} more", report.fault_count - report.faults.len() as u64)?;
    }
    Ok(())
}
