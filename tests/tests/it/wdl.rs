//! The compact WDL export (`morris_db::wdl`) and its reader
//! (`morris_probe::wdl::WdlDatabase`): every canonical position of a solved
//! database reads back as the win, draw or loss of its DTM value, in at most
//! 2 bits per position; damaged, misplaced and foreign files give typed
//! errors naming the file; no reader panics on arbitrary bytes; two threads
//! get the same answers as one; the compressed forms (zstd blocks, groups)
//! read back as the plain one. Also `morris_probe::Prober`, the per-thread
//! handle of the DTM database, against `Database::value`, and a
//! `Tablebase`'s batches against its single probes.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use morris_db::store::TableFile;
use morris_db::table::{table_path, HEADER_SIZE};
use morris_db::wdl::{
    export_table, export_table_compressed, export_table_compressed_with, export_table_grouped, payload_size, wdl_path,
    Wdl, WdlCoding, WdlFields, WdlHeader, WdlTable, ENCODING_WDL_GROUPS_V1, ENCODING_WDL_GROUPS_V2, WDL_MAGIC,
};
use morris_db::{Color, Position, RuleSet, Sector, Setup, Table, TableError};
use morris_probe::wdl::WdlDatabase;
use morris_probe::{Database, MissingHint, ProbeError, ProbeOptions, Tablebase};
use proptest::prelude::*;

use crate::common::{copy_of, damaged, nine, probe_slots, run_damage_cases, solved};

const SECTORS: [(u8, u8); 3] = [(3, 3), (3, 4), (4, 3)];

/// A solved database (`nine` up to 7 stones) and its WDL export, made once.
struct Fixture {
    dtm: &'static Path,
    wdl: tempfile::TempDir,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let dtm = solved();
        let wdl = tempfile::tempdir().unwrap();
        for (w, b) in SECTORS {
            let s = Sector::sliding(w, b);
            let t = Table::open(dtm, &nine(), s, slots(s)).unwrap();
            t.verify_checksum().unwrap();
            export_table(&t, &wdl_path(wdl.path(), &nine(), s)).unwrap();
        }
        Fixture { dtm, wdl }
    })
}

fn slots(s: Sector) -> u64 {
    nine().indexer().sector(s).len()
}

fn copy_of_wdl() -> tempfile::TempDir {
    copy_of(fixture().wdl.path())
}

fn wdl_file(dir: &Path, w: u8, b: u8) -> PathBuf {
    wdl_path(dir, &nine(), Sector::sliding(w, b))
}

/// Every `step`-th canonical position of each sector, both colours to move.
fn positions(step: usize) -> Vec<Position> {
    let mut out = Vec::new();
    for (w, b) in SECTORS {
        let index = nine().indexer().sector(Sector::sliding(w, b));
        for slot in (0..index.len()).step_by(step) {
            if let Some((us, them)) = index.position(slot) {
                let color = if slot % 2 == 0 { Color::White } else { Color::Black };
                out.push(Position::from_sector(Sector::sliding(w, b), color, us, them));
            }
        }
    }
    out
}

fn a_position() -> Position {
    Position::parse("W:a4,a1,d3 B:a7,d1,c4 w", &nine()).unwrap()
}

#[test]
fn every_position_reads_back_as_its_dtm_value() {
    let f = fixture();
    for (w, b) in SECTORS {
        let s = Sector::sliding(w, b);
        let dtm = Table::open(f.dtm, &nine(), s, slots(s)).unwrap();
        let wdl = WdlTable::open(f.wdl.path(), &nine(), s, slots(s)).unwrap();
        wdl.verify_checksum().unwrap();
        let h = wdl.header();
        let d = dtm.header();
        assert_eq!((h.wins, h.losses, h.draws), (d.wins, d.losses, d.draws));
        assert_eq!(h.own.source_checksum, d.payload_checksum);
        for slot in 0..slots(s) {
            if let Some(v) = dtm.value(slot) {
                assert_eq!(wdl.wdl(slot), Some(Wdl::from(v)), "{s} slot {slot}");
            }
        }
        assert_eq!(wdl.wdl(slots(s)), None);
    }
}

#[test]
fn at_most_two_bits_per_position() {
    let f = fixture();
    let (mut bytes, mut positions) = (0u64, 0u64);
    for (w, b) in SECTORS {
        let s = Sector::sliding(w, b);
        let size = fs::metadata(wdl_file(f.wdl.path(), w, b)).unwrap().len();
        assert_eq!(size, HEADER_SIZE as u64 + payload_size(slots(s)).unwrap());
        bytes += size - HEADER_SIZE as u64;
        positions += Table::open(f.dtm, &nine(), s, slots(s)).unwrap().header().canonical_positions;
    }
    let bits = 8.0 * bytes as f64 / positions as f64;
    // 1.6 bits per slot; 3-3's index has 1.24 slots per position.
    assert!(bits <= 2.0, "{bits:.3} bits per position");
}

#[test]
fn the_database_agrees_with_the_dtm_database() {
    let f = fixture();
    let dtm = Database::open(f.dtm, nine()).unwrap();
    let wdl = WdlDatabase::open(f.wdl.path(), nine()).unwrap();
    for p in positions(97) {
        assert_eq!(wdl.wdl(&p).unwrap(), Wdl::from(dtm.value(&p).unwrap()), "{}", p.to_text(nine().board()));
    }
    for p in positions(4099) {
        let a: Vec<_> = dtm.analyze(&p).unwrap().into_iter().map(|(m, v)| (m, Wdl::from(v))).collect();
        let mut b = wdl.analyze(&p).unwrap();
        // Same moves, same values; both best first.
        assert!(b.windows(2).all(|w| w[0].1 >= w[1].1));
        let mut a2 = a.clone();
        let key = |x: &(morris_db::Move, Wdl)| x.0.notation(nine().board());
        a2.sort_by_key(key);
        b.sort_by_key(key);
        assert_eq!(a2, b);
    }
    assert_eq!(wdl.wdl(&a_position()).unwrap(), Wdl::Draw);
    // A side to move down to 2 stones has lost; an opponent down to 2 is
    // not a position of a game.
    let two = Position::parse("W:a4,a1 B:a7,d1,c4 w", &nine()).unwrap();
    assert_eq!(wdl.wdl(&two).unwrap(), Wdl::Loss);
    let after = Position::parse("W:a4,a1,d3 B:a7,d1 w", &nine()).unwrap();
    assert!(matches!(wdl.wdl(&after), Err(ProbeError::Unreachable { .. })));
}

#[test]
fn two_threads_answer_as_one() {
    let dir = copy_of_wdl();
    let wdl = WdlDatabase::open(dir.path(), nine()).unwrap();
    let ps = positions(31);
    let one: Vec<Wdl> = ps.iter().map(|p| wdl.wdl(p).unwrap()).collect();
    let (a, b) = ps.split_at(ps.len() / 2);
    let two: Vec<Wdl> = std::thread::scope(|s| {
        let h1 = s.spawn(|| a.iter().map(|p| wdl.wdl(p).unwrap()).collect::<Vec<_>>());
        let h2 = s.spawn(|| b.iter().map(|p| wdl.wdl(p).unwrap()).collect::<Vec<_>>());
        let mut v = h1.join().unwrap();
        v.extend(h2.join().unwrap());
        v
    });
    assert_eq!(one, two);
}

#[test]
fn exporting_again_gives_the_same_bytes() {
    let f = fixture();
    let dir = tempfile::tempdir().unwrap();
    let s = Sector::sliding(3, 4);
    let t = Table::open(f.dtm, &nine(), s, slots(s)).unwrap();
    let path = wdl_path(dir.path(), &nine(), s);
    export_table(&t, &path).unwrap();
    assert_eq!(fs::read(&path).unwrap(), fs::read(wdl_file(f.wdl.path(), 3, 4)).unwrap());
    let leftovers: Vec<_> = fs::read_dir(dir.path()).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(leftovers.len(), 1, "no temporary file stays behind: {leftovers:?}");
}

/// Exports `t` to `path` in a compressed form: zstd blocks (level 9) or
/// groups.
fn export_packed(coding: WdlCoding, t: &Table, path: &Path) {
    match coding {
        WdlCoding::Zstd => export_table_compressed(t, path, 9).map(drop),
        WdlCoding::Groups => export_table_grouped(t, path).map(drop),
        WdlCoding::Plain | WdlCoding::Derived => unreachable!("not a compressed form"),
    }
    .unwrap()
}

/// The compressed exports (`export-wdl --compress zstd` and `--compress`)
/// of the fixture's sectors, made once each.
fn compressed(coding: WdlCoding) -> &'static Path {
    static Z: OnceLock<tempfile::TempDir> = OnceLock::new();
    static G: OnceLock<tempfile::TempDir> = OnceLock::new();
    let cell = if coding == WdlCoding::Zstd { &Z } else { &G };
    cell.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        for (w, b) in SECTORS {
            let s = Sector::sliding(w, b);
            let t = Table::open(fixture().dtm, &nine(), s, slots(s)).unwrap();
            export_packed(coding, &t, &wdl_path(dir.path(), &nine(), s));
        }
        dir
    })
    .path()
}

const PACKED: [WdlCoding; 2] = [WdlCoding::Zstd, WdlCoding::Groups];

#[test]
fn compressed_files_read_back_as_the_plain_ones_in_fewer_bytes() {
    let f = fixture();
    for coding in PACKED {
        let (mut plain_bytes, mut packed_bytes) = (0, 0);
        for (w, b) in SECTORS {
            let s = Sector::sliding(w, b);
            let dtm = Table::open(f.dtm, &nine(), s, slots(s)).unwrap();
            let plain = WdlTable::open(f.wdl.path(), &nine(), s, slots(s)).unwrap();
            let packed = WdlTable::open(compressed(coding), &nine(), s, slots(s)).unwrap();
            packed.verify_checksum().unwrap();
            assert_eq!((packed.coding(), plain.coding()), (coding, WdlCoding::Plain));
            assert!(packed.is_compressed() && !plain.is_compressed());
            let (hp, hz) = (plain.header(), packed.header());
            assert_eq!((hz.wins, hz.losses, hz.draws, hz.own), (hp.wins, hp.losses, hp.draws, hp.own));
            // Backwards, so that look-ups cross blocks and groups. Padding
            // reads as a draw in zstd blocks, as some value in groups.
            let n = slots(s);
            for slot in (0..=n).rev() {
                if coding == WdlCoding::Groups && slot < n && dtm.value(slot).is_none() {
                    assert!(packed.wdl(slot).is_some(), "{s} slot {slot}");
                } else {
                    assert_eq!(packed.wdl(slot), plain.wdl(slot), "{coding:?} {s} slot {slot}");
                }
            }
            plain_bytes += plain.file_size();
            packed_bytes += packed.file_size();
        }
        assert!(packed_bytes < plain_bytes, "{coding:?}: {packed_bytes} bytes against {plain_bytes}");
        let plain = WdlDatabase::open(f.wdl.path(), nine()).unwrap();
        let packed = WdlDatabase::open(compressed(coding), nine()).unwrap();
        for p in positions(89) {
            assert_eq!(packed.wdl(&p).unwrap(), plain.wdl(&p).unwrap(), "{}", p.to_text(nine().board()));
        }
        // The same bytes again, and no temporary file behind.
        let dir = tempfile::tempdir().unwrap();
        let s = Sector::sliding(3, 4);
        let t = Table::open(f.dtm, &nine(), s, slots(s)).unwrap();
        let path = wdl_path(dir.path(), &nine(), s);
        export_packed(coding, &t, &path);
        assert_eq!(fs::read(&path).unwrap(), fs::read(wdl_file(compressed(coding), 3, 4)).unwrap());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}

#[test]
fn zstd_files_in_larger_blocks_read_back_as_the_plain_ones() {
    let f = fixture();
    let dir = tempfile::tempdir().unwrap();
    for block_bytes in [4096, 16384] {
        for (w, b) in SECTORS {
            let s = Sector::sliding(w, b);
            let dtm = Table::open(f.dtm, &nine(), s, slots(s)).unwrap();
            let path = wdl_path(dir.path(), &nine(), s);
            export_table_compressed_with(&dtm, &path, 3, block_bytes).unwrap();
            let packed = WdlTable::open(dir.path(), &nine(), s, slots(s)).unwrap();
            let plain = WdlTable::open(f.wdl.path(), &nine(), s, slots(s)).unwrap();
            packed.verify_checksum().unwrap();
            assert_eq!((packed.coding(), packed.block_bytes()), (WdlCoding::Zstd, Some(block_bytes)));
            assert_eq!(plain.block_bytes(), None);
            for slot in (0..=slots(s)).rev() {
                assert_eq!(packed.wdl(slot), plain.wdl(slot), "{block_bytes} {s} slot {slot}");
            }
        }
    }
    // A size the format does not have: refused, nothing written.
    let s = Sector::sliding(3, 4);
    let dtm = Table::open(f.dtm, &nine(), s, slots(s)).unwrap();
    let path = dir.path().join("odd.mwdl");
    let err = export_table_compressed_with(&dtm, &path, 3, 2048).unwrap_err();
    assert!(err.to_string().contains("2048"), "{err}");
    assert!(!path.exists());
}

#[test]
fn damaged_compressed_files_are_refused_or_fail_the_checksum_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    let path = wdl_file(dir.path(), 3, 4);
    let open = |bytes: &[u8]| {
        fs::write(&path, bytes).unwrap();
        WdlTable::open_unchecked(&path)
    };
    for coding in PACKED {
        let good = fs::read(wdl_file(compressed(coding), 3, 4)).unwrap();
        // A block offset out of order (zstd), the run words cut short or
        // one of them damaged (groups): refused at open.
        if coding == WdlCoding::Zstd {
            let err = open(&good[..good.len() - 1]).unwrap_err();
            assert!(err.to_string().contains("file size"), "{err}");
            let mut bad = good.clone();
            bad[HEADER_SIZE + 32 + 8 + 7] = 0xff;
            let err = open(&bad).unwrap_err();
            assert!(err.to_string().contains("block offsets"), "{err}");
        } else {
            let err = open(&good[..HEADER_SIZE + 8]).unwrap_err();
            assert!(err.to_string().contains("file size"), "{err}");
            // The second run's word with its top byte set: a uniform run
            // with bits other than its value.
            let mut bad = good.clone();
            bad[HEADER_SIZE + 8 + 7] = 0xff;
            let err = open(&bad).unwrap_err();
            assert!(err.to_string().contains("run words"), "{err}");
        }
        // Any byte of the payload changed, or the file cut short: the
        // checksum says so, and every look-up gives a value or None.
        let mut cases: Vec<Vec<u8>> = (HEADER_SIZE..good.len())
            .step_by(37)
            .map(|at| {
                let mut bad = good.clone();
                bad[at] ^= 0x5a;
                bad
            })
            .collect();
        cases.push(good[..good.len() - 1].to_vec());
        for (i, bad) in cases.iter().enumerate() {
            let Ok(t) = open(bad) else { continue };
            assert!(t.verify_checksum().is_err(), "{coding:?} case {i}");
            for slot in (0..t.header().entry_count).step_by(251) {
                // The reads of a batch, one step at a time, agree.
                let staged = t.wdl_after(slot, t.step(slot, t.head(slot)));
                assert_eq!(staged, t.wdl(slot), "{coding:?} case {i} slot {slot}");
            }
        }
    }
}

/// The error of probing `a_position()` (sector 3-3) in `dir`, checksums on.
fn probe_error(dir: &Path) -> ProbeError {
    WdlDatabase::open(dir, nine()).unwrap().wdl(&a_position()).expect_err("a damaged file must be refused")
}

fn corrupt_field(e: &ProbeError) -> &'static str {
    match e {
        ProbeError::Table(TableError::Corrupt { field, .. }) => field,
        // A format version this library does not read is its own kind.
        ProbeError::Version { .. } => "version",
        other => panic!("expected a corrupt-file error, got {other:?}"),
    }
}

fn names(e: &ProbeError, file: &str) {
    assert!(e.to_string().contains(file), "`{e}` does not name {file}");
}

#[test]
fn a_missing_file_is_named_with_a_hint() {
    let dir = copy_of_wdl();
    fs::remove_file(wdl_file(dir.path(), 3, 3)).unwrap();
    let e = probe_error(dir.path());
    assert!(matches!(e, ProbeError::MissingTable { sector, .. } if sector == Sector::sliding(3, 3)), "{e:?}");
    names(&e, "nine_3_3_0_0.mwdl");
    // The library says what is missing; the command line names the command.
    assert!(matches!(&e, ProbeError::MissingTable { hint: MissingHint::NotExported { .. }, .. }), "{e:?}");
    assert!(e.to_string().contains("exported from a solved database"), "{e}");
}

#[test]
fn a_truncated_or_extended_file_is_refused() {
    let damages: [fn(&mut Vec<u8>); 3] = [|b| b.truncate(b.len() - 1), |b| b.push(0), |b| b.truncate(100)];
    for damage in damages {
        let dir = copy_of_wdl();
        let path = wdl_file(dir.path(), 3, 3);
        let mut bytes = fs::read(&path).unwrap();
        damage(&mut bytes);
        fs::write(&path, &bytes).unwrap();
        let e = probe_error(dir.path());
        assert_eq!(corrupt_field(&e), "file size");
        names(&e, "nine_3_3_0_0.mwdl");
    }
}

#[test]
fn every_flipped_header_bit_is_refused() {
    let good = fs::read(wdl_file(fixture().wdl.path(), 3, 3)).unwrap();
    let dir = copy_of_wdl();
    let path = wdl_file(dir.path(), 3, 3);
    for bit in 0..HEADER_SIZE * 8 {
        let mut bytes = good.clone();
        bytes[bit / 8] ^= 1 << (bit % 8);
        fs::write(&path, &bytes).unwrap();
        let e = probe_error(dir.path());
        let field = corrupt_field(&e);
        assert!(["magic", "version", "header checksum"].contains(&field), "bit {bit}: {e}");
        names(&e, "nine_3_3_0_0.mwdl");
    }
}

#[test]
fn a_flipped_payload_bit_fails_the_checksum() {
    let good = fs::read(wdl_file(fixture().wdl.path(), 3, 3)).unwrap();
    let dir = copy_of_wdl();
    let path = wdl_file(dir.path(), 3, 3);
    for offset in [HEADER_SIZE, HEADER_SIZE + 1000, good.len() - 1] {
        let mut bytes = good.clone();
        bytes[offset] ^= 0x10;
        fs::write(&path, &bytes).unwrap();
        let e = probe_error(dir.path());
        assert_eq!(corrupt_field(&e), "payload checksum", "{e}");
    }
}

#[test]
fn files_of_another_sector_or_rule_set_or_format_are_refused() {
    // Another sector renamed into place.
    let dir = copy_of_wdl();
    fs::copy(wdl_file(dir.path(), 4, 3), wdl_file(dir.path(), 3, 3)).unwrap();
    let e = probe_error(dir.path());
    assert!(
        matches!(
            &e,
            ProbeError::Table(TableError::SectorMismatch { .. }) | ProbeError::Table(TableError::Corrupt { .. })
        ),
        "{e:?}"
    );
    names(&e, "nine_3_3_0_0.mwdl");

    // Another rule set: the header's fingerprint is not ours.
    let dir = copy_of_wdl();
    let path = wdl_file(dir.path(), 3, 3);
    let bytes = fs::read(&path).unwrap();
    let mut h = WdlHeader::decode(&bytes, &path).unwrap();
    h.rules_fingerprint = RuleSet::preset("nine-noflying").unwrap().fingerprint();
    h.rules_name = "nine-noflying".into();
    let mut resealed = h.encode().to_vec();
    resealed.extend_from_slice(&bytes[HEADER_SIZE..]);
    fs::write(&path, &resealed).unwrap();
    let e = probe_error(dir.path());
    assert!(matches!(e, ProbeError::Table(TableError::RuleSetMismatch { .. })), "{e:?}");
    names(&e, "nine_3_3_0_0.mwdl");

    // A DTM table renamed to a WDL name: the magic says what it is.
    let dir = copy_of_wdl();
    fs::copy(table_path(fixture().dtm, &nine(), Sector::sliding(3, 3)), wdl_file(dir.path(), 3, 3)).unwrap();
    let e = probe_error(dir.path());
    assert_eq!(corrupt_field(&e), "magic");
    assert!(e.to_string().contains("DTM table"), "{e}");
}

#[test]
fn a_directory_in_place_of_a_file_is_an_error() {
    let dir = copy_of_wdl();
    let path = wdl_file(dir.path(), 3, 3);
    fs::remove_file(&path).unwrap();
    fs::create_dir(&path).unwrap();
    let e = probe_error(dir.path());
    assert!(matches!(e, ProbeError::Table(_)), "{e:?}");
    names(&e, "nine_3_3_0_0.mwdl");
}

fn real_prefix() -> &'static [u8] {
    static P: OnceLock<Vec<u8>> = OnceLock::new();
    P.get_or_init(|| fs::read(wdl_file(fixture().wdl.path(), 3, 3)).unwrap()[..HEADER_SIZE + 64].to_vec())
}

/// A grouped file of the codings before uniform runs (encoding 5) and
/// before enumerative codes (encoding 6) is refused at open, with what to
/// do: export it again.
#[test]
fn retired_grouped_codings_are_refused_with_a_remedy() {
    for retired in [ENCODING_WDL_GROUPS_V1, ENCODING_WDL_GROUPS_V2] {
        let mut h = WdlHeader::decode(real_prefix(), Path::new("real.mwdl")).unwrap();
        h.encoding = retired;
        let err = WdlHeader::decode(&h.encode(), Path::new("old.mwdl")).unwrap_err().to_string();
        assert!(err.contains("entry encoding") && err.contains("export them again"), "{err}");
    }
}

/// Every reader, on a file holding `bytes`: none may panic.
fn read_everything(bytes: &[u8]) {
    let dir = tempfile::tempdir().unwrap();
    let path = wdl_file(dir.path(), 3, 3);
    fs::write(&path, bytes).unwrap();
    let _ = WdlHeader::decode(bytes, &path);
    if let Ok(t) = WdlTable::open_unchecked(&path) {
        let _ = t.verify_checksum();
        let n = t.header().entry_count;
        for slot in [0, 1, 4, 5, n / 2, n.saturating_sub(1), n, n.saturating_add(1), u64::MAX] {
            // The reads of a batch, one step at a time, agree.
            assert_eq!(t.wdl_after(slot, t.step(slot, t.head(slot))), t.wdl(slot), "slot {slot}");
        }
    }
    for verify_checksums in [true, false] {
        let db = WdlDatabase::open_with(dir.path(), nine(), ProbeOptions { verify_checksums }).unwrap();
        let _ = db.wdl(&a_position());
        let _ = db.analyze(&a_position());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn decode_never_panics_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        let _ = WdlHeader::decode(&bytes, Path::new("arbitrary.mwdl"));
        read_everything(&bytes);
    }

    #[test]
    fn decode_never_panics_past_the_magic(rest in proptest::collection::vec(any::<u8>(), 0..300)) {
        let mut bytes = WDL_MAGIC.to_vec();
        bytes.extend_from_slice(&1u32.to_le_bytes());
        bytes.extend_from_slice(&rest);
        read_everything(&bytes);
    }

    #[test]
    fn mutated_real_files_never_panic(
        mutations in proptest::collection::vec((0usize..HEADER_SIZE + 64, any::<u8>()), 1..8),
        cut in prop_oneof![Just(None), (0usize..300).prop_map(Some)],
    ) {
        let mut bytes = real_prefix().to_vec();
        for (i, v) in mutations {
            bytes[i] = v;
        }
        if let Some(c) = cut {
            bytes.truncate(c);
        }
        read_everything(&bytes);
    }

    #[test]
    fn resealed_real_headers_never_panic(
        fields in proptest::collection::vec((0usize..11, any::<u64>()), 1..4),
        tail in 0usize..200,
        fill in any::<u8>(),
    ) {
        // Header fields changed behind a correct header checksum (the
        // encoding among them), and an arbitrary payload length and content.
        let mut h = WdlHeader::decode(real_prefix(), Path::new("real.mwdl")).unwrap();
        for (field, v) in fields {
            match field {
                0 => h.entry_count = v,
                1 => h.entry_count = v % 1000,
                2 => h.canonical_positions = v,
                3 => h.wins = v,
                4 => h.draws = v,
                5 => h.payload_checksum = v,
                6 => h.sector.w = v as u8,
                7 => h.rules_fingerprint = v,
                8 => h.rules_name = format!("{v:x}"),
                // Plain, zstd blocks, the retired groups or groups, over
                // any payload.
                9 => h.encoding = 3 + (v % 4) as u32,
                _ => {
                    // Consistent counts and a size that matches: it opens.
                    h.entry_count = 5 * tail as u64;
                    h.canonical_positions = (v % 100).min(h.entry_count);
                    h.wins = h.canonical_positions;
                    h.losses = 0;
                    h.draws = 0;
                }
            }
        }
        let mut bytes = h.encode().to_vec();
        bytes.resize(HEADER_SIZE + tail, fill);
        read_everything(&bytes);
    }
}

#[test]
fn a_prober_answers_as_the_database() {
    let f = fixture();
    let db = Database::open(f.dtm, nine()).unwrap();
    let mut extra: Vec<Position> = [
        "W:a4,a1 B:a7,d1,c4 w",          // side to move down to 2: Loss(0)
        "W:a4,a1,d3 B:a7,d1 w",          // opponent down to 2: unreachable
        "W:a4,a1,d3,d2,d5 B:a7,d1,c4 w", // 5-3: missing table
        "W:a4,a1,d3 B:a7,d1,c4 w 1 1",   // stones in hand: missing table
    ]
    .iter()
    .map(|t| Position::parse(t, &nine()).unwrap())
    .collect();
    extra.extend(positions(61));
    std::thread::scope(|s| {
        for half in extra.chunks(extra.len() / 2 + 1) {
            let db = &db;
            s.spawn(move || {
                let mut prober = db.prober();
                for p in half {
                    assert_eq!(
                        format!("{:?}", prober.value(p)),
                        format!("{:?}", db.value(p)),
                        "{}",
                        p.to_text(nine().board())
                    );
                    // Twice: the second answer comes from the prober's cache.
                    assert_eq!(format!("{:?}", prober.value(p)), format!("{:?}", db.value(p)));
                }
                // In batches: the errors and unusual cases among them.
                let batched = db.prober().values(half);
                for (p, got) in half.iter().zip(batched) {
                    assert_eq!(format!("{got:?}"), format!("{:?}", db.value(p)), "{}", p.to_text(nine().board()));
                }
            });
        }
    });
}

/// A tablebase of two sources, the WDL file of 3-3 alone and then every DTM
/// table: positions read in a batch get the answers of one probe each,
/// from the source that has their table (WDL for 3-3, DTM for 3-4 and
/// 4-3), the first source's missing-table error where none has it, and
/// the errors and decided cases of single probes.
#[test]
fn a_tablebase_answers_a_batch_as_one_probe_each() {
    let f = fixture();
    let wdl = tempfile::tempdir().unwrap();
    fs::copy(wdl_file(f.wdl.path(), 3, 3), wdl_file(wdl.path(), 3, 3)).unwrap();
    let mut tb = Tablebase::open(wdl.path(), Some("nine")).unwrap();
    tb.add_directory(f.dtm).unwrap();
    let mut batch: Vec<Position> = [
        "W:a4,a1 B:a7,d1,c4 w",          // side to move down to 2: a loss
        "W:a4,a1,d3 B:a7,d1 w",          // opponent down to 2: unreachable
        "W:a4,a1,d3,d2,d5 B:a7,d1,c4 w", // 5-3: in no source
    ]
    .iter()
    .map(|t| Position::parse(t, &nine()).unwrap())
    .collect();
    batch.extend(positions(29));
    let dtm = Database::open(f.dtm, nine()).unwrap();
    let (mut from_wdl, mut from_dtm, mut missing) = (0, 0, 0);
    for (p, got) in batch.iter().zip(tb.wdl_many(&batch)) {
        assert_eq!(format!("{got:?}"), format!("{:?}", tb.wdl(p)), "{}", p.to_text(nine().board()));
        match got {
            Ok(w) => {
                assert_eq!(w, Wdl::from(dtm.value(p).unwrap()));
                if p.sector() == Sector::sliding(3, 3) {
                    from_wdl += 1;
                } else {
                    from_dtm += 1;
                }
            }
            Err(ProbeError::MissingTable { path, .. }) => {
                // The first source's file is named.
                assert!(path.starts_with(wdl.path()), "{}", path.display());
                missing += 1;
            }
            Err(_) => {}
        }
    }
    assert!(from_wdl > 100 && from_dtm > 100 && missing == 1, "{from_wdl} {from_dtm} {missing}");
}

#[test]
fn whole_games_with_placement_and_lines_export_and_read_back() {
    for preset in ["three", "six"] {
        let rules = RuleSet::preset(preset).unwrap();
        let dir = tempfile::tempdir().unwrap();
        morris_solver::solve_all(&rules, dir.path(), false).unwrap();
        let mut sectors = Vec::new();
        for entry in fs::read_dir(dir.path()).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            if let Some(s) = TableFile::parse(&name).filter(|f| f.kind.is_dtm()).map(|f| f.sector) {
                let len = rules.indexer().sector(s).len();
                let t = Table::open(dir.path(), &rules, s, len).unwrap();
                export_table(&t, &wdl_path(dir.path(), &rules, s)).unwrap();
                sectors.push(s);
            }
        }
        let dtm = Database::open(dir.path(), rules.clone()).unwrap();
        let wdl = WdlDatabase::open(dir.path(), rules.clone()).unwrap();
        let mut prober = wdl.prober();
        let mut checked = 0;
        for s in sectors {
            let index = rules.indexer().sector(s);
            let step = (index.len() / 500).max(1);
            for slot in (0..index.len()).step_by(step as usize) {
                // Canonical positions, and (for lines) unreachable ones.
                let Some((us, them)) = index.position(slot) else { continue };
                // The side to move the hands give (Black with one more in
                // the mover's hand), so that every slot is a position.
                let side = if s.wh == s.bh + 1 { Color::Black } else { Color::White };
                let p = Setup::from_relative(us, them, side, s.wh, s.bh).validate(&rules).unwrap();
                let want = dtm.value(&p).map(Wdl::from).map_err(|e| e.to_string());
                let got = wdl.wdl(&p).map_err(|e| e.to_string());
                assert_eq!(got, want, "{preset} {}", p.to_text(rules.board()));
                assert_eq!(prober.wdl(&p).map_err(|e| e.to_string()), want);
                checked += 1;
            }
        }
        assert!(checked > 500, "{preset}: {checked}");
    }
}

/// The real 3-3 WDL file damaged (bytes of the payload and header changed,
/// checksums mostly recomputed, the length sometimes changed): opening it,
/// reading its slots and probing the positions at the damaged slots (and a
/// spread of others, with and without checksums) give answers or errors,
/// never a panic. The damage must reach past the first checks: most damaged
/// files still open, and probes through them answer.
#[test]
fn damaged_real_files_never_panic_and_reach_the_payload() {
    let rules = nine();
    let sector = Sector::sliding(3, 3);
    let index = rules.indexer().sector(Sector::sliding(3, 3));
    let real = fs::read(wdl_file(fixture().wdl.path(), 3, 3)).unwrap();
    let payload_bytes = real.len() - HEADER_SIZE;
    run_damage_cases("damaged WDL files", |d| {
        let bytes = damaged::<WdlFields>(d, &real);
        let dir = tempfile::tempdir().unwrap();
        let path = wdl_file(dir.path(), 3, 3);
        fs::write(&path, &bytes).unwrap();
        let probed: Vec<u64> = d
            .payload
            .iter()
            .map(|(i, _)| (i.index(payload_bytes) * 5) as u64)
            .chain((0..index.len()).step_by(20_011))
            .collect();
        let file = WdlTable::open(dir.path(), &rules, sector, slots(sector));
        if let Ok(t) = &file {
            let _ = t.verify_checksum();
            for &slot in &probed {
                let _ = t.wdl(slot);
            }
        }
        let mut answered = 0;
        for verify_checksums in [true, false] {
            let db = WdlDatabase::open_with(dir.path(), rules.clone(), ProbeOptions { verify_checksums }).unwrap();
            answered += probe_slots(&index, &probed, |pos, analyze| {
                let answer = db.wdl(pos).is_ok();
                if analyze {
                    let _ = db.analyze(pos);
                }
                answer && verify_checksums
            });
        }
        (file.is_ok(), answered)
    });
}
