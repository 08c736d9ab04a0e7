//! `morris solve --only UNIT` and the locks on a database directory: one
//! unit at a time gives the same tables as a whole solve; a unit refuses
//! missing or damaged inputs, skips itself when solved, and cleans only its
//! own temporary files; a whole solve runs alone, one-unit solves of
//! different units side by side, and two of one unit never at once.

use std::fs::{self, File, OpenOptions};
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::{morris, tables};
use fs4::fs_std::FileExt;
use morris_db::RuleSet;
use morris_solver::unit::units;

fn run(args: &[&str], db: &Path) -> Output {
    morris().args(args).arg("--db").arg(db).arg("-q").output().unwrap()
}

fn ok(args: &[&str], db: &Path) -> String {
    let out = run(args, db);
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "morris {args:?} failed: {text}");
    text
}

fn fails(args: &[&str], db: &Path) -> String {
    let out = run(args, db);
    let text = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "morris {args:?} should fail: {}", String::from_utf8_lossy(&out.stdout));
    assert!(!text.contains("panicked"), "{text}");
    text
}

fn six() -> RuleSet {
    RuleSet::preset("six").unwrap()
}

fn table(dir: &Path, name: &str) -> PathBuf {
    dir.join(name)
}

/// Flips one byte of a table's payload (after the 128-byte header).
fn damage(path: &Path) {
    let mut bytes = fs::read(path).unwrap();
    bytes[200] ^= 0x5a;
    fs::write(path, bytes).unwrap();
}

fn lock_file(path: &Path) -> File {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    OpenOptions::new().create(true).truncate(false).read(true).write(true).open(path).unwrap()
}

#[test]
fn one_unit_at_a_time_gives_the_tables_of_a_whole_solve() {
    let whole = tempfile::tempdir().unwrap();
    ok(&["solve", "--rules", "six", "--phase", "all"], whole.path());
    let expected = tables(whole.path());
    assert_eq!(expected.len(), 131, "six: 16 sliding and 115 placement tables (results/six-*.csv)");

    let units_dir = tempfile::tempdir().unwrap();
    for unit in units(&six(), u32::MAX, true) {
        // Either sector of a pair names it.
        let name = unit.sectors.last().unwrap().to_string();
        ok(&["solve", "--rules", "six", "--only", &name], units_dir.path());
    }
    assert_eq!(tables(units_dir.path()), expected);
    // Released locks leave no file behind.
    let names: Vec<String> = fs::read_dir(units_dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), expected.len(), "{:?}", names.iter().filter(|n| !n.ends_with(".mtb")).collect::<Vec<_>>());
}

#[test]
fn a_unit_refuses_missing_or_damaged_inputs_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let e = fails(&["solve", "--rules", "six", "--only", "3-4"], dir.path());
    assert!(e.contains("unit 3-4 cannot start") && e.contains("3-3") && e.contains("solve unit 3-3 first"), "{e}");
    assert!(tables(dir.path()).is_empty());

    ok(&["solve", "--rules", "six", "--only", "3-3"], dir.path());
    damage(&table(dir.path(), "six_3_3_0_0.mtb"));
    let e = fails(&["solve", "--rules", "six", "--only", "4-3"], dir.path());
    assert!(e.contains("unit 3-4 cannot start") && e.contains("damaged"), "{e}");
    assert_eq!(tables(dir.path()).len(), 1);

    // A placement sector checks the tables its placements lead to.
    let e = fails(&["solve", "--rules", "six", "--only", "2-3-1-0"], dir.path());
    assert!(e.contains("unit 2-3-1-0 cannot start") && e.contains("damaged"), "{e}");

    let e = fails(&["solve", "--rules", "six", "--only", "7-7"], dir.path());
    assert!(e.contains("no unit `7-7` in rule set six"), "{e}");
    let e = fails(&["solve", "--rules", "six", "--only", "three"], dir.path());
    assert!(e.contains("no unit `three`"), "{e}");
}

#[test]
fn a_solved_unit_is_skipped_and_a_damaged_one_solved_again() {
    let dir = tempfile::tempdir().unwrap();
    ok(&["solve", "--rules", "six", "--only", "3-3"], dir.path());
    let path = table(dir.path(), "six_3_3_0_0.mtb");
    let good = fs::read(&path).unwrap();
    let modified = fs::metadata(&path).unwrap().modified().unwrap();
    let out = ok(&["solve", "--rules", "six", "--only", "3-3"], dir.path());
    assert!(out.contains("nothing to do"), "{out}");
    assert_eq!(fs::metadata(&path).unwrap().modified().unwrap(), modified, "a solved unit is not rewritten");

    damage(&path);
    let out = ok(&["solve", "--rules", "six", "--only", "3-3"], dir.path());
    assert!(out.contains("sector 3-3 cannot be used") && out.contains("solving it again"), "{out}");
    assert_eq!(fs::read(&path).unwrap(), good);
}

#[test]
fn a_unit_reading_a_compressed_input_says_so_and_solves_the_same_tables() {
    let whole = tempfile::tempdir().unwrap();
    ok(&["solve", "--rules", "six", "--max-stones", "7"], whole.path());
    let dir = tempfile::tempdir().unwrap();
    ok(&["solve", "--rules", "six", "--only", "3-3"], dir.path());
    let compressed = morris()
        .args(["compress", "--rules", "six", "--remove-originals", "--db"])
        .arg(dir.path())
        .output()
        .unwrap()
        .status
        .success();
    assert!(compressed && !table(dir.path(), "six_3_3_0_0.mtb").exists());
    let out = ok(&["solve", "--rules", "six", "--only", "3-4"], dir.path());
    assert!(out.contains("sector 3-3 is there only compressed (.mtz)") && out.contains("without --only"), "{out}");
    assert!(!table(dir.path(), "six_3_3_0_0.mtb").exists(), "an --only job writes no other unit's .mtb");
    let expected = tables(whole.path());
    for name in ["six_3_4_0_0.mtb", "six_4_3_0_0.mtb"] {
        assert_eq!(fs::read(table(dir.path(), name)).unwrap(), expected[name], "{name}");
    }
    // Its own tables there, the next run says nothing about its inputs.
    let out = ok(&["solve", "--rules", "six", "--only", "3-4"], dir.path());
    assert!(out.contains("nothing to do") && !out.contains("only compressed"), "{out}");
}

#[test]
fn a_unit_removes_only_its_own_temporary_files() {
    let dir = tempfile::tempdir().unwrap();
    ok(&["solve", "--rules", "six", "--only", "3-3"], dir.path());
    let own = dir.path().join("six_3_4_0_0.mtb.tmp");
    let other = dir.path().join("six_4_4_0_0.mtb.tmp");
    fs::write(&own, b"left by a killed job").unwrap();
    fs::write(&other, b"being written by another job").unwrap();
    ok(&["solve", "--rules", "six", "--only", "3-4"], dir.path());
    assert!(!own.exists(), "the unit's own temporary file is removed");
    assert!(other.exists(), "another unit's temporary file is left alone");
}

#[test]
fn a_whole_solve_is_refused_while_another_solve_holds_the_directory() {
    let dir = tempfile::tempdir().unwrap();
    let lock = lock_file(&dir.path().join(".morris.lock"));

    // Another whole solve (exclusive).
    assert!(FileExt::try_lock_exclusive(&lock).unwrap());
    let e = fails(&["solve", "--rules", "six"], dir.path());
    assert!(e.contains(".morris.lock is locked") && e.contains("another `morris solve`"), "{e}");
    let e = fails(&["solve", "--rules", "six", "--phase", "all"], dir.path());
    assert!(e.contains("is locked"), "{e}");
    let e = fails(&["solve", "--rules", "six", "--only", "3-3"], dir.path());
    assert!(e.contains("a whole `morris solve` is using this directory"), "{e}");
    assert!(tables(dir.path()).is_empty(), "nothing written while refused");

    // One-unit solves (shared).
    FileExt::unlock(&lock).unwrap();
    assert!(FileExt::try_lock_shared(&lock).unwrap());
    let e = fails(&["solve", "--rules", "six"], dir.path());
    assert!(e.contains("is locked"), "{e}");
    ok(&["solve", "--rules", "six", "--only", "3-3"], dir.path());
    FileExt::unlock(&lock).unwrap();
    ok(&["solve", "--rules", "six", "--max-stones", "7"], dir.path());
}

#[test]
fn a_second_whole_solve_is_refused_while_the_first_runs() {
    let dir = tempfile::tempdir().unwrap();
    let mut first = morris()
        .args(["solve", "--rules", "nine", "--max-stones", "8", "-q", "--db"])
        .arg(dir.path())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    // Wait until the first solve holds the lock: a `flock` lock on the
    // lock file's inode in /proc/locks (looking, not locking, so as not to
    // disturb the first solve).
    let path = dir.path().join(".morris.lock");
    let start = Instant::now();
    let held = loop {
        if let Ok(meta) = fs::metadata(&path) {
            let inode = format!(":{} ", std::os::unix::fs::MetadataExt::ino(&meta));
            let locks = fs::read_to_string("/proc/locks").unwrap_or_default();
            if locks.lines().any(|l| l.contains("FLOCK") && l.contains(&inode)) {
                break true;
            }
        }
        if start.elapsed() > Duration::from_secs(30) || first.try_wait().unwrap().is_some() {
            break false;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    assert!(held, "the first solve never held the directory's lock");
    let e = fails(&["solve", "--rules", "nine", "--max-stones", "8"], dir.path());
    assert!(e.contains("is locked") && e.contains("another `morris solve`"), "{e}");
    assert!(first.wait().unwrap().success(), "the first solve is not disturbed");
    assert!(!path.exists(), "a released lock file is removed");
}

#[test]
fn units_run_side_by_side_but_one_unit_never_twice_at_once() {
    let dir = tempfile::tempdir().unwrap();
    ok(&["solve", "--rules", "six", "--max-stones", "8"], dir.path());
    let whole = tempfile::tempdir().unwrap();
    ok(&["solve", "--rules", "six", "--max-stones", "9"], whole.path());

    // Another `--only` of unit 3-6 holds the directory shared and its unit.
    let dir_lock = lock_file(&dir.path().join(".morris.lock"));
    let unit_lock = lock_file(&dir.path().join(".morris-locks/six_3-6.lock"));
    assert!(FileExt::try_lock_shared(&dir_lock).unwrap());
    assert!(FileExt::try_lock_exclusive(&unit_lock).unwrap());
    let e = fails(&["solve", "--rules", "six", "--only", "6-3"], dir.path());
    assert!(e.contains("six_3-6.lock is locked") && e.contains("solving unit 3-6"), "{e}");
    ok(&["solve", "--rules", "six", "--only", "4-5"], dir.path());
    FileExt::unlock(&unit_lock).unwrap();
    FileExt::unlock(&dir_lock).unwrap();

    // Two real processes on different units at once: both succeed.
    fs::remove_file(dir.path().join("six_4_5_0_0.mtb")).unwrap();
    fs::remove_file(dir.path().join("six_5_4_0_0.mtb")).unwrap();
    let spawn = |unit: &str| {
        morris()
            .args(["solve", "--rules", "six", "-q", "--only", unit, "--db"])
            .arg(dir.path())
            .stdout(Stdio::null())
            .spawn()
            .unwrap()
    };
    let (mut a, mut b) = (spawn("3-6"), spawn("4-5"));
    assert!(a.wait().unwrap().success() && b.wait().unwrap().success());
    assert_eq!(tables(dir.path()), tables(whole.path()));
}
