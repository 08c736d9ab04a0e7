//! A run of the verifier over many tables with a [`Ledger`]: each table is
//! looked up before it is checked (skipped when a row vouches for its
//! values and its successors' values as they are now), reported as not
//! checked when values could not be re-derived only because a table they
//! need is damaged, and recorded when it passes. Used by `morris verify`
//! and `morris solve --verify`.

use std::collections::{HashMap, HashSet};

use morris_db::{Sector, Table, TableError};

use crate::ledger::{today, verifier_version, Ledger, LedgerError, Row};
use crate::verifier::Stamp;
use crate::{TableReport, Verifier};

/// A table file as the ledger sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableSum {
    /// Its payload was read and matches its header: its values checksum
    /// ([`Table::values_checksum`]) and the header's count of canonical
    /// positions.
    Values {
        /// The values checksum.
        checksum: u64,
        /// Canonical positions (header).
        positions: u64,
    },
    /// There is no table of the sector (neither `.mtb` nor `.mtz`).
    Missing,
    /// The file is there but cannot be used (header, size, payload
    /// checksum, rule set or sector): why, naming the file.
    Damaged(String),
}

/// What a [`Session`] decides for a table before checking it.
#[derive(Debug, Clone)]
pub enum Step {
    /// A ledger row vouches for it: its values, and those of every table
    /// its moves lead to, are those that were verified. Counted as
    /// verified, not checked again.
    Ledger(Row),
    /// To be checked ([`Session::check`]).
    Check,
}

/// What became of one table ([`Session::table`]).
#[derive(Debug, Clone)]
pub enum Outcome {
    /// Verified earlier, as a ledger row says ([`Step::Ledger`]).
    Ledger(Row),
    /// Checked now: passed (and recorded in the ledger) or failed.
    Checked(TableReport),
    /// Not checked: the table is intact, and every fault of its check was
    /// a value that could not be re-derived, among them some because a
    /// table its moves lead to is damaged (the report says which were not
    /// found and how many).
    NotChecked {
        /// The damaged table's sector (the first, when several are).
        dependency: Sector,
        /// What is wrong with it, the first time the session names it and
        /// only when that table is not itself among those the session was
        /// told it checks ([`Session::planned`]), which report it
        /// themselves.
        damage: Option<String>,
        /// The check.
        report: TableReport,
    },
}

/// What a session did so far.
#[derive(Debug, Clone, Default)]
pub struct SessionTally {
    /// Tables a ledger row vouched for.
    pub from_ledger: usize,
    /// Their canonical positions.
    pub positions_from_ledger: u64,
    /// Tables checked now that passed (each recorded in the ledger).
    pub now: usize,
    /// Their canonical positions.
    pub positions_now: u64,
    /// Tables checked now that failed.
    pub failed: usize,
    /// Tables not checked because a table they depend on is damaged
    /// ([`Outcome::NotChecked`]).
    pub not_checked: usize,
}

impl SessionTally {
    /// Tables verified: from the ledger and now.
    pub fn verified(&self) -> usize {
        self.from_ledger + self.now
    }
}

/// Verifies tables one by one against a ledger (see the module's text).
pub struct Session<'a> {
    verifier: &'a Verifier,
    ledger: Ledger,
    recheck: bool,
    planned: HashSet<Sector>,
    sums: HashMap<Sector, (Option<Stamp>, TableSum)>,
    reported: HashSet<Sector>,
    tally: SessionTally,
}

impl std::fmt::Debug for Session<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session").field("ledger", &self.ledger.path()).field("tally", &self.tally).finish()
    }
}

impl<'a> Session<'a> {
    /// A session of `verifier` with `ledger`; with `recheck`, no table is
    /// taken from the ledger (all are checked, and the passes still
    /// recorded).
    pub fn new(verifier: &'a Verifier, ledger: Ledger, recheck: bool) -> Session<'a> {
        Session {
            verifier,
            ledger,
            recheck,
            planned: HashSet::new(),
            sums: HashMap::new(),
            reported: HashSet::new(),
            tally: SessionTally::default(),
        }
    }

    /// Says which sectors the session will check, so that a damaged one
    /// among them is reported by its own check, not where a table that
    /// depends on it is skipped ([`Outcome::NotChecked`]).
    pub fn planned(mut self, sectors: &[Sector]) -> Session<'a> {
        self.planned = sectors.iter().copied().collect();
        self
    }

    /// The ledger.
    pub fn ledger(&self) -> &Ledger {
        &self.ledger
    }

    /// What the session did so far.
    pub fn tally(&self) -> &SessionTally {
        &self.tally
    }

    /// The state of `sector`'s table: read whole (payload checksum, and a
    /// `.mtz` file decompressed) the first time, then kept while the file
    /// is unchanged (same path, size, time and inode).
    pub fn sum(&mut self, sector: Sector) -> TableSum {
        let stamp = self.verifier.stamp(sector);
        if let Some((s, sum)) = self.sums.get(&sector) {
            if *s == stamp {
                return sum.clone();
            }
        }
        let rules = self.verifier.rules();
        let sum = match rules.sector_index(sector) {
            Err(e) => TableSum::Damaged(e.to_string()),
            Ok(index) => match Table::open(self.verifier.dir(), rules, sector, index.len())
                .and_then(|t| Ok((t.values_checksum()?, t.header().canonical_positions)))
            {
                Ok((checksum, positions)) => TableSum::Values { checksum, positions },
                Err(TableError::Missing { .. }) => TableSum::Missing,
                Err(e) => TableSum::Damaged(e.to_string()),
            },
        };
        self.sums.insert(sector, (stamp, sum.clone()));
        sum
    }

    /// The successors of `sector` ([`Verifier::successor_sectors`]) with
    /// their states.
    fn successor_sums(&mut self, sector: Sector) -> Vec<(Sector, TableSum)> {
        self.verifier.successor_sectors(sector).into_iter().map(|s| (s, self.sum(s))).collect()
    }

    /// Decides what to do with `sector`'s table (and counts it when it is
    /// taken from the ledger): [`Step::Ledger`] when a row matches the
    /// table's values checksum and positions and the current checksum of
    /// every successor (a damaged one matches nothing; never with
    /// `recheck`); else [`Step::Check`].
    pub fn step(&mut self, sector: Sector) -> Step {
        let TableSum::Values { checksum, positions } = self.sum(sector) else {
            return Step::Check;
        };
        let successors = self.successor_sums(sector);
        if self.recheck {
            return Step::Check;
        }
        let Some(now) = ledger_successors(&successors) else {
            return Step::Check;
        };
        match self.ledger.find(sector, checksum, positions, &now) {
            Some(row) => {
                self.tally.from_ledger += 1;
                self.tally.positions_from_ledger += row.positions;
                Step::Ledger(row.clone())
            }
            None => Step::Check,
        }
    }

    /// Checks `sector`'s table ([`Verifier::verify`], calling `progress`
    /// with slots done). When it passes, appends its row to the ledger:
    /// the values checksums of the table and of its successors as read
    /// before the check (not recorded when one of them changed during the
    /// check or is damaged). When the table is intact and its only faults
    /// are values that could not be re-derived, among them some because a
    /// damaged table was needed, it was not checked
    /// ([`Outcome::NotChecked`]); otherwise a fault fails it.
    ///
    /// # Errors
    /// [`LedgerError::Io`] when the row cannot be appended (the table's
    /// check is lost with it: it will be checked again).
    pub fn check(&mut self, sector: Sector, progress: &(dyn Fn(u64) + Sync)) -> Result<Outcome, LedgerError> {
        let before = self.sum(sector);
        let successors = self.successor_sums(sector);
        let report = self.verifier.verify(sector, progress);
        if !report.is_ok() {
            let damaged = successors.iter().find_map(|(s, t)| match t {
                TableSum::Damaged(why) if *s != sector && report.unusable.contains(s) => Some((*s, why.clone())),
                _ => None,
            });
            let intact = matches!(before, TableSum::Values { .. });
            if let (Some((dependency, why)), true, true) =
                (damaged, intact, report.fault_count == report.successor_faults)
            {
                let damage = (!self.planned.contains(&dependency) && self.reported.insert(dependency)).then_some(why);
                self.tally.not_checked += 1;
                return Ok(Outcome::NotChecked { dependency, damage, report });
            }
            self.tally.failed += 1;
            self.reported.insert(sector);
            return Ok(Outcome::Checked(report));
        }
        self.tally.now += 1;
        self.tally.positions_now += report.positions;
        let unchanged = self.sum(sector) == before && self.successor_sums(sector) == successors;
        if let (TableSum::Values { checksum, positions }, Some(successors), true) =
            (before, ledger_successors(&successors), unchanged)
        {
            if positions == report.positions {
                let rules = self.verifier.rules();
                self.ledger.append(Row {
                    rules: rules.name().to_string(),
                    fingerprint: rules.fingerprint(),
                    sector,
                    checksum,
                    successors,
                    positions,
                    verifier: verifier_version(),
                    date: today(),
                })?;
            }
        }
        Ok(Outcome::Checked(report))
    }

    /// [`Session::step`], then [`Session::check`] when it says so.
    ///
    /// # Errors
    /// As [`Session::check`].
    pub fn table(&mut self, sector: Sector, progress: &(dyn Fn(u64) + Sync)) -> Result<Outcome, LedgerError> {
        match self.step(sector) {
            Step::Ledger(row) => Ok(Outcome::Ledger(row)),
            Step::Check => self.check(sector, progress),
        }
    }
}

/// The successors as a ledger row holds them; `None` when one is damaged
/// (no row can vouch for a table then).
fn ledger_successors(successors: &[(Sector, TableSum)]) -> Option<Vec<(Sector, Option<u64>)>> {
    successors
        .iter()
        .map(|(s, t)| match t {
            TableSum::Values { checksum, .. } => Some((*s, Some(*checksum))),
            TableSum::Missing => Some((*s, None)),
            TableSum::Damaged(_) => None,
        })
        .collect()
}
