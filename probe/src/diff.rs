//! Two databases of ours of one rule set, compared sector by sector: the
//! check that a new solver, or a new table encoding, gives the values of
//! an earlier release position for position (`morris compare --with`).
//! Malom's database is compared by [`crate::malom`] instead.
//!
//! Two tables are compared slot by slot through their raw entries (the
//! `.mtb` entry, whichever form holds it), so a `.mtb` table and a `.mtz`
//! one of any block size or level compare equal when their values do. A
//! single-sided stub (`.mtd`) holds no values, only the values checksum of
//! the table it replaced ([`morris_db::Table::values_checksum`]): a sector
//! with a stub on either side is compared by that checksum.

use std::ops::Range;

use morris_db::table::TableError;
use morris_db::value::PADDING_ENTRY;
use morris_db::{Color, Sector, SectorIndex, Setup, Table, Value};
use rayon::prelude::*;

use crate::{Database, DtmFile, ProbeError};

/// Slots compared as one piece of work: a whole number of blocks of every
/// `.mtz` block size (4096, 16384 and 65536 slots), so each thread
/// decompresses each block it reads once.
const CHUNK: u64 = 1 << 16;

/// A slot whose entries differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// The slot (the same in both tables: both index the sector alike).
    pub slot: u64,
    /// The position, White to move, as the sector's index decodes the slot
    /// (not checked: it is only written out).
    pub position: Setup,
    /// The value in the first database; `None` for a padding slot.
    pub ours: Option<Value>,
    /// The value in the second database; `None` for a padding slot.
    pub theirs: Option<Value>,
}

/// How a sector was compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Basis {
    /// Slot by slot, both being tables.
    Positions,
    /// By values checksum (XXH3-64 of every entry), a stub being on at
    /// least one side: `ours` and `theirs` are the two checksums.
    Checksums {
        /// The first database's values checksum of the sector.
        ours: u64,
        /// The second database's.
        theirs: u64,
    },
}

/// The result of comparing one sector ([`diff_sector`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectorDiff {
    /// The sector.
    pub sector: Sector,
    /// How it was compared.
    pub basis: Basis,
    /// Canonical positions compared: the non-padding slots of the first
    /// database's table, or its header's count when compared by checksum.
    pub compared: u64,
    /// Slots whose entries differ (a value, or padding in one table only);
    /// always 0 when compared by checksum (see [`SectorDiff::agrees`]).
    pub differing: u64,
    /// The first differing slots in slot order (at most the number asked
    /// for).
    pub examples: Vec<Difference>,
}

impl SectorDiff {
    fn empty(sector: Sector) -> SectorDiff {
        SectorDiff { sector, basis: Basis::Positions, compared: 0, differing: 0, examples: Vec::new() }
    }

    fn merge(mut self, other: SectorDiff, keep: usize) -> SectorDiff {
        self.compared += other.compared;
        self.differing += other.differing;
        let room = keep.saturating_sub(self.examples.len());
        self.examples.extend(other.examples.into_iter().take(room));
        self
    }

    /// Whether the two databases hold the same values in this sector: no
    /// differing slot, or equal values checksums.
    pub fn agrees(&self) -> bool {
        match self.basis {
            Basis::Positions => self.differing == 0,
            Basis::Checksums { ours, theirs } => ours == theirs,
        }
    }
}

/// The values checksum of a sector's file: computed from a table's
/// entries, read from a stub.
fn values_checksum(file: &DtmFile) -> Result<u64, ProbeError> {
    match file {
        DtmFile::Stored(table) => Ok(table.values_checksum()?),
        DtmFile::Derived(stub) => {
            stub.verify_checksum()?;
            Ok(stub.source_checksum())
        }
    }
}

/// The entry of `slot` in `table`, or the error naming the damaged block.
fn entry(table: &Table, slot: u64) -> Result<u16, ProbeError> {
    table.entry(slot).ok_or_else(|| {
        ProbeError::Table(TableError::Corrupt {
            path: table.path().to_path_buf(),
            field: "payload",
            detail: format!("slot {slot} cannot be read"),
        })
    })
}

/// Compares `slots` of two tables of `sector` (whose index is `index`),
/// keeping the first `keep` differences.
fn diff_slots(
    ours: &Table,
    theirs: &Table,
    sector: Sector,
    index: &SectorIndex,
    slots: Range<u64>,
    keep: usize,
) -> Result<SectorDiff, ProbeError> {
    let mut out = SectorDiff::empty(sector);
    for slot in slots {
        let (a, b) = (entry(ours, slot)?, entry(theirs, slot)?);
        out.compared += u64::from(a != PADDING_ENTRY);
        if a != b {
            out.differing += 1;
            if out.examples.len() < keep {
                let (us, them) = index.position(slot).unwrap_or_default();
                out.examples.push(Difference {
                    slot,
                    position: Setup::from_relative(us, them, Color::White, sector.wh, sector.bh),
                    ours: Value::from_entry(a),
                    theirs: Value::from_entry(b),
                });
            }
        }
    }
    Ok(out)
}

/// Compares sector `sector` of two databases of the same rule set: slot
/// by slot, in parallel (chunks of 65536 slots), when both hold its
/// table; by values checksum when either holds a stub. `progress` is
/// called with the number of slots of each chunk done (with the sector's
/// slots at once for a comparison by checksum). Keeps the first `keep`
/// differences.
///
/// # Errors
/// The errors of [`Database::table`] on either side (a missing table, one
/// of another rule set or sector, a damaged header); [`ProbeError::Table`]
/// when a payload does not match its checksum (checked before any slot is
/// compared) or a block does not decompress.
pub fn diff_sector(
    ours: &Database,
    theirs: &Database,
    sector: Sector,
    keep: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<SectorDiff, ProbeError> {
    let (a, b) = (ours.table(sector)?, theirs.table(sector)?);
    let (DtmFile::Stored(a_table), DtmFile::Stored(b_table)) = (&*a, &*b) else {
        let basis = Basis::Checksums { ours: values_checksum(&a)?, theirs: values_checksum(&b)? };
        progress(a.header().entry_count);
        return Ok(SectorDiff { basis, compared: a.header().canonical_positions, ..SectorDiff::empty(sector) });
    };
    a_table.verify_checksum()?;
    b_table.verify_checksum()?;
    let index = ours.rules().sector_index(sector).map_err(|e| ProbeError::Unsupported(e.to_string()))?;
    let slots = index.len();
    let parts: Vec<SectorDiff> = (0..slots.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let range = c * CHUNK..((c + 1) * CHUNK).min(slots);
            let n = range.end - range.start;
            let part = diff_slots(a_table, b_table, sector, &index, range, keep);
            progress(n);
            part
        })
        .collect::<Result<_, _>>()?;
    Ok(parts.into_iter().fold(SectorDiff::empty(sector), |acc, p| acc.merge(p, keep)))
}
