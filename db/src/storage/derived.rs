//! Single-sided tables: a sector whose DTM values are not stored but
//! derived, when probed, by one ply of search: the value of a position is
//! the best of its moves' values, each read from the table its move leads
//! to. Syzygy's DTZ tables store one side to move the same way. A sector
//! may be derived when none of the sectors its moves lead to is derived
//! and it is not among them ([`choose`]), so a derived value never needs
//! another one.
//!
//! The file of a derived sector is a *stub* (`.mtd`): the 128-byte header
//! of [`crate::table`] with the entry encoding [`ENCODING_DTM_DERIVED`]
//! (9), the counts and longest distances of the table it replaces, and an
//! 8-byte payload, that table's values checksum
//! ([`Table::values_checksum`], the key of the ledger of verified tables),
//! little-endian. The header's payload checksum covers those 8 bytes. Only
//! the probe reads stubs; every other reader of DTM tables refuses one
//! with its reason (the DTM format lists encoding 9 as refused).

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::rules::RuleSet;
use crate::sector::Sector;
use crate::storage::header::{check_file_size, Format, Header, MappedFile, OwnFields};
use crate::store::{may_exist, FileKind, Store};
use crate::table::{write_checked, DtmFields, Table, TableError, HEADER_SIZE, MAGIC};

pub use crate::storage::header::ENCODING_DTM_DERIVED;
pub use crate::store::DERIVED_EXTENSION;

/// A stub's own header fields: those of the DTM table it replaces
/// (longest win and loss, plies).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DerivedFields(pub DtmFields);

impl OwnFields for DerivedFields {
    const FORMAT: Format = Format {
        magic: MAGIC,
        version: crate::table::FORMAT_VERSION,
        encodings: &[ENCODING_DTM_DERIVED],
        retired: &[],
        version_name: "format version",
        version_remedy: "make the stub again from its table or use a matching release",
        wrong_magic: |_| "not a morris table (magic is not MORRISTB)",
        noun: "single-sided stub",
    };

    type Layout = ();

    fn layout(header: &Header<DerivedFields>, map: &[u8], path: &Path) -> Result<(), TableError> {
        check_file_size(header, map.len(), Some(8), path)
    }

    fn locate(dir: &Path, rules: &RuleSet, sector: Sector) -> (Option<PathBuf>, PathBuf) {
        let path = Store::new(dir).path(rules.name(), sector, FileKind::Derived);
        (may_exist(&path).then(|| path.clone()), path)
    }

    fn to_bytes(&self) -> [u8; 8] {
        self.0.to_bytes()
    }

    fn from_bytes(bytes: [u8; 8]) -> DerivedFields {
        DerivedFields(DtmFields::from_bytes(bytes))
    }
}

/// An open stub (`.mtd`): the header of the table it replaced.
pub type Stub = MappedFile<DerivedFields>;

impl Stub {
    /// The values checksum of the table the stub replaced
    /// ([`Table::values_checksum`]).
    pub fn source_checksum(&self) -> u64 {
        let b = &self.bytes()[HEADER_SIZE..HEADER_SIZE + 8];
        u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
    }
}

/// Writes the stub of `table`'s sector beside it (`.mtd`, atomically; the
/// table itself is left for the caller to remove) and returns its path.
///
/// # Errors
/// [`TableError::Corrupt`] when the table's payload does not match its
/// checksum or a block does not decompress (its values checksum is read
/// in full); [`TableError::Io`] when the stub cannot be written.
pub fn write_stub(dir: &Path, rules: &RuleSet, table: &Table) -> Result<PathBuf, TableError> {
    let values = table.values_checksum()?.to_le_bytes();
    let h = table.header();
    let header = Header {
        rules_fingerprint: h.rules_fingerprint,
        rules_name: h.rules_name.clone(),
        sector: h.sector,
        encoding: ENCODING_DTM_DERIVED,
        entry_count: h.entry_count,
        canonical_positions: h.canonical_positions,
        wins: h.wins,
        losses: h.losses,
        draws: h.draws,
        own: DerivedFields(h.own),
        payload_checksum: xxhash_rust::xxh3::xxh3_64(&values),
    };
    let path = Store::new(dir).path(rules.name(), h.sector, FileKind::Derived);
    write_checked(
        &path,
        |w| {
            w.write_all(&header.encode())?;
            w.write_all(&values)
        },
        |tmp| {
            let stub = Stub::open_unchecked(tmp)?;
            stub.verify_checksum()?;
            stub.check(rules, h.sector, h.entry_count)
        },
    )?;
    Ok(path)
}

/// Which of `sectors` (each with its table's size in bytes; the tables
/// of a database) to derive: the largest first, each where it is not
/// among the sectors its own moves lead to
/// ([`RuleSet::successor_sectors`]), each of those is in `sectors` or
/// holds no position, none of those is derived, and it is not among those
/// of a derived sector. Deterministic: ties go to the sector listed first
/// (a resumed run lists the sectors already derived first, with size
/// `u64::MAX`, so it chooses them again). Empty for rule sets where a line
/// wins (their positions are decided by more than one ply of moves).
pub fn choose(rules: &RuleSet, sectors: &[(Sector, u64)]) -> Vec<Sector> {
    if rules.line_wins() {
        return Vec::new();
    }
    let present = |s: &Sector| sectors.iter().any(|(t, _)| t == s) || rules.indexer().sector(*s).is_empty();
    let mut order: Vec<usize> = (0..sectors.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(sectors[i].1));
    let mut derived: Vec<Sector> = Vec::new();
    for i in order {
        let s = sectors[i].0;
        let successors = rules.successor_sectors(s);
        let needed_by_derived = derived.iter().any(|&d| rules.successor_sectors(d).contains(&s));
        if successors.contains(&s)
            || !successors.iter().all(present)
            || successors.iter().any(|c| derived.contains(c))
            || needed_by_derived
        {
            continue;
        }
        derived.push(s);
    }
    crate::store::sort_sectors(&mut derived);
    derived
}
