//! Damaged, misplaced and foreign table files are refused with the matching
//! typed error (`morris_db::TableError`, `morris_probe::ProbeError`), and
//! nothing that reads a table panics, whatever the file holds.
//!
//! Every test works on copies of one solved database (`nine`, sliding
//! sectors with at most 7 stones) in a fresh temporary directory.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use morris_db::table::{table_path, DtmFields, HEADER_SIZE, MAGIC};
use morris_db::{Color, Position, RuleSet, Sector, Table, TableError, TableHeader, Value};
use morris_probe::{Database, ProbeError, ProbeOptions};
use proptest::prelude::*;

use crate::common::{copy_of_db, damaged, nine, probe_slots, run_damage_cases, slots, solve, solved};

fn path_of(dir: &Path, w: u8, b: u8) -> PathBuf {
    table_path(dir, &nine(), Sector::sliding(w, b))
}

/// A drawn 3-3 position (docs/testing.md, "The oracle").
fn drawn_3_3() -> Position {
    Position::parse("W:a4,a1,d3 B:a7,d1,c4 w", &nine()).unwrap()
}

/// A 4-3 position (White to move with 4 stones against 3).
fn some_4_3() -> Position {
    Position::parse("W:a4,a1,d3,g7 B:a7,d1,c4 w", &nine()).unwrap()
}

/// Probes `pos` in `dir` with a fresh database, so the table is opened anew.
fn probe(dir: &Path, pos: &Position) -> Result<Value, ProbeError> {
    Database::open(dir, nine()).unwrap().value(pos)
}

/// The field of a `TableError::Corrupt`, or a panic describing the error.
fn corrupt_field(e: &TableError) -> &'static str {
    match e {
        TableError::Corrupt { field, .. } => field,
        other => panic!("expected a corrupt-table error, got: {other:?}"),
    }
}

fn probe_corrupt_field(e: &ProbeError) -> &'static str {
    match e {
        ProbeError::Table(t) => corrupt_field(t),
        // A format version this library does not read is its own kind.
        ProbeError::Version { .. } => "version",
        other => panic!("expected a table error, got: {other:?}"),
    }
}

/// Checks that an error message names the file.
fn names_file(message: &str, path: &Path) {
    let name = path.file_name().unwrap().to_string_lossy();
    assert!(message.contains(&*name), "`{message}` does not name {name}");
}

/// The header decoded from `bytes`, changed by `edit` and encoded again:
/// valid header bytes with a matching header checksum (as a careless tool
/// might write them), so that the checks behind the checksum are reached.
fn reseal(bytes: &[u8], edit: impl FnOnce(&mut TableHeader)) -> Vec<u8> {
    let mut h = TableHeader::decode(bytes, Path::new("x")).expect("a valid header");
    edit(&mut h);
    h.encode().to_vec()
}

#[test]
fn intact_tables_open_and_verify() {
    let rules = nine();
    for (w, b) in [(3, 3), (3, 4), (4, 3)] {
        let t = Table::open(solved(), &rules, Sector::sliding(w, b), slots(w, b)).unwrap();
        t.verify_checksum().unwrap();
        let h = t.header();
        assert_eq!(h.sector, Sector::sliding(w, b));
        assert_eq!(h.rules_name, "nine");
        assert_eq!(h.entry_count, slots(w, b));
        let bytes = fs::read(t.path()).unwrap();
        assert_eq!(bytes.len() as u64, HEADER_SIZE as u64 + 2 * h.entry_count);
        assert_eq!(&bytes[..8], &MAGIC);
        assert_eq!(TableHeader::decode(&bytes, t.path()).unwrap(), *h);
        assert_eq!(h.encode().as_slice(), &bytes[..HEADER_SIZE]);
    }
    assert_eq!(probe(solved(), &drawn_3_3()).unwrap(), Value::Draw);
}

#[test]
fn truncated_table_is_refused() {
    let rules = nine();
    let sector = Sector::sliding(3, 3);
    let dir = copy_of_db();
    let path = path_of(dir.path(), 3, 3);
    let good = fs::read(&path).unwrap();
    for len in [good.len() - 1, good.len() - 2, good.len() / 2, HEADER_SIZE + 1, HEADER_SIZE, HEADER_SIZE - 1, 50, 8, 0]
    {
        fs::write(&path, &good[..len]).unwrap();
        let e = Table::open(dir.path(), &rules, sector, slots(3, 3)).unwrap_err();
        assert_eq!(corrupt_field(&e), "file size", "cut to {len}: {e}");
        names_file(&e.to_string(), &path);
        let e = Table::open_unchecked(&path).unwrap_err();
        assert_eq!(corrupt_field(&e), "file size", "cut to {len}: {e}");
        let e = probe(dir.path(), &drawn_3_3()).unwrap_err();
        assert_eq!(probe_corrupt_field(&e), "file size", "cut to {len}: {e}");
        names_file(&e.to_string(), &path);
    }
}

#[test]
fn extended_table_is_refused() {
    let rules = nine();
    let dir = copy_of_db();
    let path = path_of(dir.path(), 3, 3);
    let good = fs::read(&path).unwrap();
    for extra in [&[0u8][..], &[0xFF, 0xFF], &[1, 2, 3, 4, 5]] {
        let mut longer = good.clone();
        longer.extend_from_slice(extra);
        fs::write(&path, &longer).unwrap();
        let e = Table::open(dir.path(), &rules, Sector::sliding(3, 3), slots(3, 3)).unwrap_err();
        assert_eq!(corrupt_field(&e), "file size", "{e}");
        names_file(&e.to_string(), &path);
        let e = probe(dir.path(), &drawn_3_3()).unwrap_err();
        assert_eq!(probe_corrupt_field(&e), "file size", "{e}");
    }
}

#[test]
fn every_flipped_header_bit_is_refused() {
    let rules = nine();
    let dir = copy_of_db();
    let path = path_of(dir.path(), 3, 3);
    let good = fs::read(&path).unwrap();
    for byte in 0..HEADER_SIZE {
        // The magic and the version are checked before the header's
        // checksum; every other field is covered by it.
        let expected = match byte {
            0..=7 => "magic",
            8..=11 => "version",
            _ => "header checksum",
        };
        for bit in 0..8 {
            let mut header = good[..HEADER_SIZE].to_vec();
            header[byte] ^= 1 << bit;
            let e = TableHeader::decode(&header, &path).unwrap_err();
            assert_eq!(corrupt_field(&e), expected, "byte {byte} bit {bit}: {e}");
        }
        // Through the file, for two bits of each byte.
        for bit in [0, 5] {
            let mut bad = good.clone();
            bad[byte] ^= 1 << bit;
            fs::write(&path, &bad).unwrap();
            let e = Table::open(dir.path(), &rules, Sector::sliding(3, 3), slots(3, 3)).unwrap_err();
            assert_eq!(corrupt_field(&e), expected, "byte {byte} bit {bit}: {e}");
            names_file(&e.to_string(), &path);
            let e = Table::open_unchecked(&path).unwrap_err();
            assert_eq!(corrupt_field(&e), expected, "byte {byte} bit {bit}: {e}");
            if bit == 0 {
                let e = probe(dir.path(), &drawn_3_3()).unwrap_err();
                assert_eq!(probe_corrupt_field(&e), expected, "byte {byte}: {e}");
            }
        }
    }
}

#[test]
fn resealed_header_fields_are_still_checked() {
    // A header edited and given a matching checksum (as a careless tool
    // might write it) is still refused for what the edit broke.
    let rules = nine();
    let sector = Sector::sliding(3, 3);
    let dir = copy_of_db();
    let path = path_of(dir.path(), 3, 3);
    let good = fs::read(&path).unwrap();
    let with_header = |header: Vec<u8>| {
        let mut bytes = good.clone();
        bytes[..HEADER_SIZE].copy_from_slice(&header);
        fs::write(&path, &bytes).unwrap();
    };

    // The statistics do not add up.
    with_header(reseal(&good, |h| h.wins += 1));
    let e = Table::open(dir.path(), &rules, sector, slots(3, 3)).unwrap_err();
    assert_eq!(corrupt_field(&e), "statistics", "{e}");

    // Counts that overflow when added.
    with_header(reseal(&good, |h| {
        h.wins = u64::MAX;
        h.losses = 2;
    }));
    let e = Table::open(dir.path(), &rules, sector, slots(3, 3)).unwrap_err();
    assert_eq!(corrupt_field(&e), "statistics", "{e}");

    // An entry count that does not match the file size, or overflows.
    for count in [slots(3, 3) + 1, slots(3, 3) - 1, u64::MAX, u64::MAX / 2 + 1] {
        with_header(reseal(&good, |h| h.entry_count = count));
        let e = Table::open(dir.path(), &rules, sector, slots(3, 3)).unwrap_err();
        assert_eq!(corrupt_field(&e), "file size", "count {count}: {e}");
        let e = probe(dir.path(), &drawn_3_3()).unwrap_err();
        assert_eq!(probe_corrupt_field(&e), "file size", "count {count}: {e}");
    }

    // A payload checksum that does not match the payload.
    with_header(reseal(&good, |h| h.payload_checksum ^= 1));
    let t = Table::open(dir.path(), &rules, sector, slots(3, 3)).unwrap();
    let e = t.verify_checksum().unwrap_err();
    assert_eq!(corrupt_field(&e), "payload checksum", "{e}");
    drop(t);
    let e = probe(dir.path(), &drawn_3_3()).unwrap_err();
    assert_eq!(probe_corrupt_field(&e), "payload checksum", "{e}");

    // A header for fewer slots than the sector has, with a file to match.
    let mut short = reseal(&good, |h| {
        h.entry_count = 100;
        h.canonical_positions = 0;
        h.wins = 0;
        h.losses = 0;
        h.draws = 0;
    });
    short.extend_from_slice(&good[HEADER_SIZE..HEADER_SIZE + 200]);
    fs::write(&path, &short).unwrap();
    Table::open_unchecked(&path).unwrap();
    let e = Table::open(dir.path(), &rules, sector, slots(3, 3)).unwrap_err();
    assert_eq!(corrupt_field(&e), "entry count", "{e}");
    let e = probe(dir.path(), &drawn_3_3()).unwrap_err();
    assert_eq!(probe_corrupt_field(&e), "entry count", "{e}");
}

#[test]
fn flipped_payload_bit_fails_the_checksum() {
    let rules = nine();
    let sector = Sector::sliding(3, 3);
    let dir = copy_of_db();
    let path = path_of(dir.path(), 3, 3);
    let good = fs::read(&path).unwrap();
    for (offset, bit) in [(HEADER_SIZE, 0), (HEADER_SIZE + 1, 7), (good.len() / 2, 3), (good.len() - 1, 5)] {
        let mut bad = good.clone();
        bad[offset] ^= 1 << bit;
        fs::write(&path, &bad).unwrap();
        // The header is intact: the table opens; the full check finds it.
        let t = Table::open(dir.path(), &rules, sector, slots(3, 3)).unwrap();
        let e = t.verify_checksum().unwrap_err();
        assert_eq!(corrupt_field(&e), "payload checksum", "offset {offset}: {e}");
        names_file(&e.to_string(), &path);
        drop(t);
        // The probe checks checksums on first use by default.
        let e = probe(dir.path(), &drawn_3_3()).unwrap_err();
        assert_eq!(probe_corrupt_field(&e), "payload checksum", "offset {offset}: {e}");
        names_file(&e.to_string(), &path);
        // Other sectors' tables are unaffected.
        assert!(probe(dir.path(), &some_4_3()).is_ok());
    }
}

#[test]
fn damaged_payload_without_checksums_never_panics() {
    // With checksums off, a payload full of nonsense gives wrong values or
    // errors, never a panic.
    let dir = copy_of_db();
    let path = path_of(dir.path(), 3, 3);
    let mut bytes = fs::read(&path).unwrap();
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    for b in bytes[HEADER_SIZE..].iter_mut() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        *b = state as u8;
    }
    // Make the padding entry 0xFFFF and huge distances common.
    for i in (HEADER_SIZE..bytes.len()).step_by(14) {
        bytes[i] = 0xFF;
        bytes[i + 1] = 0xFF;
    }
    fs::write(&path, &bytes).unwrap();
    let db = Database::open_with(dir.path(), nine(), ProbeOptions { verify_checksums: false }).unwrap();
    let index = nine().indexer().sector(Sector::sliding(3, 3));
    let mut errors = 0;
    for slot in (0..index.len()).step_by(7) {
        let Some((us, them)) = index.position(slot) else {
            continue;
        };
        let pos = Position::from_sector(Sector::sliding(3, 3), Color::White, us, them);
        if db.value(&pos).is_err() {
            errors += 1;
        }
        if slot % 49 == 0 {
            let _ = db.analyze(&pos);
        }
    }
    assert!(errors > 0, "padding entries at canonical slots must be errors");
    let checked = Database::open(dir.path(), nine()).unwrap();
    let e = checked.value(&drawn_3_3()).unwrap_err();
    assert_eq!(probe_corrupt_field(&e), "payload checksum", "{e}");
}

#[test]
fn table_of_another_sector_is_refused() {
    // 3-4's table copied over 4-3's: the header says 3-4.
    let rules = nine();
    let dir = copy_of_db();
    let target = path_of(dir.path(), 4, 3);
    fs::copy(path_of(dir.path(), 3, 4), &target).unwrap();
    let e = Table::open(dir.path(), &rules, Sector::sliding(4, 3), slots(4, 3)).unwrap_err();
    match &e {
        TableError::SectorMismatch { path, found, expected } => {
            assert_eq!(path, &target);
            assert_eq!(*found, Sector::sliding(3, 4));
            assert_eq!(*expected, Sector::sliding(4, 3));
        }
        other => panic!("expected a sector mismatch, got {other:?}"),
    }
    let msg = e.to_string();
    assert!(msg.contains("3-4") && msg.contains("4-3"), "{msg}");
    names_file(&msg, &target);
    match probe(dir.path(), &some_4_3()).unwrap_err() {
        ProbeError::Table(TableError::SectorMismatch { found, expected, .. }) => {
            assert_eq!(found, Sector::sliding(3, 4));
            assert_eq!(expected, Sector::sliding(4, 3));
        }
        other => panic!("expected a sector mismatch, got {other:?}"),
    }
    // 3-3 positions are still answered.
    assert_eq!(probe(dir.path(), &drawn_3_3()).unwrap(), Value::Draw);
    // And the other way round: 4-3's table over 3-4's.
    let dir = copy_of_db();
    fs::copy(path_of(dir.path(), 4, 3), path_of(dir.path(), 3, 4)).unwrap();
    let e = Table::open(dir.path(), &rules, Sector::sliding(3, 4), slots(3, 4)).unwrap_err();
    assert!(matches!(e, TableError::SectorMismatch { found, .. } if found == Sector::sliding(4, 3)), "{e:?}");
}

#[test]
fn table_of_another_rule_set_is_refused() {
    let other = solve("nine-noflying", 6);
    let foreign = other.path().join("nine-noflying_3_3_0_0.mtb");
    assert!(foreign.is_file());
    let dir = copy_of_db();
    let target = path_of(dir.path(), 3, 3);
    fs::copy(&foreign, &target).unwrap();
    let rules = nine();
    let e = Table::open(dir.path(), &rules, Sector::sliding(3, 3), slots(3, 3)).unwrap_err();
    match &e {
        TableError::RuleSetMismatch { path, found, expected, found_fingerprint, expected_fingerprint } => {
            assert_eq!(path, &target);
            assert_eq!(found, "nine-noflying");
            assert_eq!(expected, "nine");
            assert_ne!(found_fingerprint, expected_fingerprint);
            assert_eq!(*expected_fingerprint, rules.fingerprint());
        }
        other => panic!("expected a rule-set mismatch, got {other:?}"),
    }
    let msg = e.to_string();
    assert!(msg.contains("`nine-noflying`") && msg.contains("`nine`"), "{msg}");
    match probe(dir.path(), &drawn_3_3()).unwrap_err() {
        ProbeError::Table(TableError::RuleSetMismatch { found, expected, .. }) => {
            assert_eq!((found.as_str(), expected.as_str()), ("nine-noflying", "nine"))
        }
        other => panic!("expected a rule-set mismatch, got {other:?}"),
    }
    // The foreign table is fine in itself.
    let t = Table::open_unchecked(&target).unwrap();
    t.verify_checksum().unwrap();
    // Opened for its own rule set, a database of `nine` tables has no table.
    let noflying = RuleSet::preset("nine-noflying").unwrap();
    let db = Database::open(solved(), noflying).unwrap();
    match db.value(&drawn_3_3()).unwrap_err() {
        ref e @ ProbeError::MissingTable { sector, .. } => {
            assert_eq!(sector, Sector::sliding(3, 3));
            assert_eq!(e.missing_file().unwrap(), "nine-noflying_3_3_0_0.mtb");
        }
        other => panic!("expected a missing table, got {other:?}"),
    }
}

#[test]
fn missing_tables_are_named() {
    let dir = copy_of_db();
    fs::remove_file(path_of(dir.path(), 3, 3)).unwrap();
    match probe(dir.path(), &drawn_3_3()).unwrap_err() {
        ref e @ ProbeError::MissingTable { sector, .. } => {
            assert_eq!(sector, Sector::sliding(3, 3));
            assert_eq!(e.missing_file().unwrap(), "nine_3_3_0_0.mtb");
        }
        other => panic!("expected a missing table, got {other:?}"),
    }
    let e = Table::open(dir.path(), &nine(), Sector::sliding(3, 3), slots(3, 3)).unwrap_err();
    assert!(matches!(e, TableError::Missing { .. }), "{e:?}");
    // A 5-5 position in a database solved up to 7 stones.
    let pos = Position::parse("W:a1,a4,a7,d7,g7 B:b2,b4,b6,d6,f6 w", &nine()).unwrap();
    let e = probe(dir.path(), &pos).unwrap_err();
    match &e {
        ProbeError::MissingTable { sector, .. } => assert_eq!(*sector, Sector::sliding(5, 5)),
        other => panic!("expected a missing table, got {other:?}"),
    }
    assert!(e.to_string().contains("5-5"), "{e}");
    // A directory that is not there.
    let gone = dir.path().join("no-such-db");
    assert!(matches!(Database::open(&gone, nine()), Err(ProbeError::NoDatabase { .. })));
}

#[test]
fn a_directory_in_place_of_a_table_is_an_error() {
    let dir = copy_of_db();
    let path = path_of(dir.path(), 3, 3);
    fs::remove_file(&path).unwrap();
    fs::create_dir(&path).unwrap();
    assert!(Table::open_unchecked(&path).is_err());
    assert!(probe(dir.path(), &drawn_3_3()).is_err());
}

// Slots past the end, however large, have no value (no overflow, no panic).
#[test]
fn slots_past_the_end_have_no_value() {
    // `Table::entry` and `Table::value` promise `None` past the end.
    let t = Table::open(solved(), &nine(), Sector::sliding(3, 3), slots(3, 3)).unwrap();
    let len = t.header().entry_count;
    assert!(t.value(len - 1).is_some() || t.is_padding(len - 1));
    for slot in [len, len + 1, u64::from(u32::MAX), u64::MAX / 2, u64::MAX - 1, u64::MAX] {
        assert_eq!(t.entry(slot), None, "slot {slot}");
        assert_eq!(t.value(slot), None, "slot {slot}");
        assert!(!t.is_padding(slot), "slot {slot}");
    }
}

/// The first bytes of the real 3-3 table (header and the start of the payload).
fn real_prefix() -> &'static [u8] {
    static PREFIX: OnceLock<Vec<u8>> = OnceLock::new();
    PREFIX.get_or_init(|| {
        let bytes = fs::read(path_of(solved(), 3, 3)).unwrap();
        bytes[..256].to_vec()
    })
}

/// Opens a file holding `bytes` through every reader; none may panic.
fn open_everything(dir: &Path, bytes: &[u8]) {
    let path = path_of(dir, 3, 3);
    fs::write(&path, bytes).unwrap();
    let _ = TableHeader::decode(bytes, &path);
    if let Ok(t) = Table::open_unchecked(&path) {
        let _ = t.verify_checksum();
        let _ = t.check(&nine(), Sector::sliding(3, 3), slots(3, 3));
        // Slots past the end, but not so far that `Table::entry`'s offset
        // overflows (that bug has its own test, below).
        let n = t.header().entry_count;
        for slot in [0, 1, n / 2, n.saturating_sub(1), n, n + 1] {
            let _ = t.value(slot);
            let _ = t.is_padding(slot);
        }
    }
    let _ = Table::open(dir, &nine(), Sector::sliding(3, 3), slots(3, 3));
    let db = Database::open_with(dir, nine(), ProbeOptions { verify_checksums: false }).unwrap();
    let _ = db.value(&drawn_3_3());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn decode_never_panics_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        let _ = TableHeader::decode(&bytes, Path::new("arbitrary.mtb"));
    }

    #[test]
    fn decode_never_panics_past_the_magic(
        rest in proptest::collection::vec(any::<u8>(), 0..300),
        version in prop_oneof![Just(1u32), any::<u32>()],
    ) {
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&version.to_le_bytes());
        bytes.extend_from_slice(&rest);
        let _ = TableHeader::decode(&bytes, Path::new("arbitrary.mtb"));
    }

    #[test]
    fn encoded_headers_decode_to_themselves_or_an_error(
        counts in (any::<u64>(), any::<u64>(), any::<u64>(), any::<u64>()),
        small in (0u64..1000, 0u64..1000, 0u64..1000),
        consistent in any::<bool>(),
        distances in (any::<u32>(), any::<u32>()),
        sums in (any::<u64>(), any::<u64>()),
        sector in any::<[u8; 4]>(),
        name in prop_oneof![
            Just("nine".to_string()),
            "[a-z-]{0,16}",
            ".{0,20}",
        ],
    ) {
        // Arbitrary field values through `encode` (which seals the header
        // with its checksum): `decode` gives the same header back or an
        // error, never a panic.
        let (entry_count, wins, losses, draws) = if consistent {
            let (w, l, d) = small;
            (w + l + d + counts.0 % 10, w, l, d)
        } else {
            counts
        };
        let h = TableHeader {
            rules_fingerprint: sums.0,
            rules_name: name,
            sector: Sector { w: sector[0], b: sector[1], wh: sector[2], bh: sector[3] },
            entry_count,
            canonical_positions: wins.wrapping_add(losses).wrapping_add(draws),
            wins,
            losses,
            draws,
            own: DtmFields { max_win: distances.0, max_loss: distances.1 },
            encoding: morris_db::table::ENCODING_DTM16,
            payload_checksum: sums.1,
        };
        let bytes = h.encode();
        match TableHeader::decode(&bytes, Path::new("encoded.mtb")) {
            Ok(back) => {
                let stored = h.rules_name.len() <= 16 && !h.rules_name.contains('\0');
                if stored {
                    prop_assert_eq!(back, h);
                } else {
                    prop_assert_eq!(&back.rules_name, &h.rules_name.split('\0').next().unwrap()[..back.rules_name.len()]);
                }
            }
            Err(e) => {
                let field = corrupt_field(&e);
                prop_assert!(
                    field == "statistics" || field == "rule-set name",
                    "unexpected error {}", e
                );
                if consistent && h.rules_name.len() <= 16 {
                    prop_assert_eq!(field, "rule-set name");
                }
            }
        }
    }

    #[test]
    fn mutated_real_tables_never_panic(
        mutations in proptest::collection::vec((0usize..256, any::<u8>()), 1..8),
        cut in prop_oneof![Just(None), (0usize..300).prop_map(Some)],
    ) {
        let dir = tempfile::tempdir().unwrap();
        let mut bytes = real_prefix().to_vec();
        for (i, v) in mutations {
            bytes[i] = v;
        }
        if let Some(c) = cut {
            bytes.truncate(c);
        }
        let _ = TableHeader::decode(&bytes, Path::new("mutated.mtb"));
        open_everything(dir.path(), &bytes);
    }

    #[test]
    fn resealed_real_headers_never_panic(
        fields in proptest::collection::vec((0usize..15, any::<u64>()), 1..4),
        tail in 0usize..200,
    ) {
        // Change header fields of the real table, keep a correct header
        // checksum, and give the file an arbitrary length.
        let mut header = TableHeader::decode(real_prefix(), Path::new("real.mtb")).unwrap();
        for (field, v) in fields {
            match field {
                0 => header.entry_count = v,
                1 => header.entry_count = v % 512,
                2 => header.canonical_positions = v,
                3 => header.wins = v,
                4 => header.losses = v,
                5 => header.draws = v,
                6 => header.own.max_win = v as u32,
                7 => header.own.max_loss = v as u32,
                8 => header.payload_checksum = v,
                9 => header.rules_fingerprint = v,
                10 => header.sector.w = v as u8,
                11 => header.sector.b = v as u8,
                12 => header.rules_name = format!("{v:x}"),
                13 => header.rules_name = "nine-noflying".to_string(),
                _ => {
                    // Consistent statistics and a file size that matches
                    // the entry count: the table opens.
                    header.entry_count = tail as u64 / 2;
                    header.canonical_positions = (v % 100).min(header.entry_count);
                    header.wins = header.canonical_positions;
                    header.losses = 0;
                    header.draws = 0;
                }
            }
        }
        let mut bytes = header.encode().to_vec();
        bytes.extend_from_slice(&real_prefix()[HEADER_SIZE..]);
        bytes.resize(HEADER_SIZE + tail, 0x5A);
        if tail % 2 == 1 && header.entry_count == tail as u64 / 2 {
            bytes.pop();
        }
        let dir = tempfile::tempdir().unwrap();
        open_everything(dir.path(), &bytes);
    }
}

/// The whole real 3-3 table.
fn real_table() -> &'static [u8] {
    static TABLE: OnceLock<Vec<u8>> = OnceLock::new();
    TABLE.get_or_init(|| fs::read(path_of(solved(), 3, 3)).unwrap())
}

/// The real 3-3 table damaged (bytes of the payload and header changed,
/// checksums mostly recomputed, the length sometimes changed): opening it,
/// reading its slots and probing the positions at the damaged slots (and a
/// spread of others, with and without checksums) give answers or errors,
/// never a panic. The damage must reach past the first checks: most damaged
/// files still open, and probes through them answer.
#[test]
fn damaged_real_tables_never_panic_and_reach_the_payload() {
    let rules = nine();
    let index = rules.indexer().sector(Sector::sliding(3, 3));
    let payload_slots = (real_table().len() - HEADER_SIZE) / 2;
    run_damage_cases("damaged tables", |d| {
        let bytes = damaged::<DtmFields>(d, real_table());
        let dir = tempfile::tempdir().unwrap();
        let path = path_of(dir.path(), 3, 3);
        fs::write(&path, &bytes).unwrap();
        let _ = TableHeader::decode(&bytes, &path);
        let probed: Vec<u64> = d
            .payload
            .iter()
            .map(|(i, _)| (i.index(payload_slots * 2) / 2) as u64)
            .chain((0..index.len()).step_by(20_011))
            .collect();
        let table = Table::open(dir.path(), &rules, Sector::sliding(3, 3), slots(3, 3));
        if let Ok(t) = &table {
            let _ = t.verify_checksum();
            for &slot in &probed {
                let _ = (t.value(slot), t.is_padding(slot));
            }
        }
        let mut answered = 0;
        for verify_checksums in [true, false] {
            let db = Database::open_with(dir.path(), rules.clone(), ProbeOptions { verify_checksums }).unwrap();
            answered += probe_slots(&index, &probed, |pos, analyze| {
                let answer = db.value(pos).is_ok();
                if analyze {
                    let _ = db.analyze(pos);
                }
                answer && verify_checksums
            });
        }
        (table.is_ok(), answered)
    });
}
