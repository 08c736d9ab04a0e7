//! Issue 39, "one way of reading input everywhere", tried as a new user
//! would: the rule set told from `--db`'s tables when `--rules` is absent,
//! errors that quote at most about 80 characters of an input, misnamed
//! tables and repeated sectors in `verify`, an unwritable directory named
//! up front by `solve`, move hints on the rule set's own board, a warning
//! for more threads than cores, and line editing in `play`.

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::common::{contains_all, copy_of, fails, ok, ok_in, run, s, three, Runner};

/// A copy of the `three` tables and the `nine` tables up to 7 stones in
/// one directory: two rule sets.
fn two_rule_sets() -> tempfile::TempDir {
    let dir = copy_of(three());
    crate::common::copy_into(crate::common::db7(), dir.path());
    dir
}

// ---------------------------------------------------------------------------
// 1. The rule set of `--db`

/// Every subcommand that reads `--db` takes the rule set of its tables when
/// `--rules` is absent, and says the same as with `--rules`.
#[test]
fn readers_take_the_rule_set_of_the_tables() {
    let db = s(three());
    let start = "W: B: w 3 3";
    for (sub, extra) in [
        ("probe", vec![start]),
        ("analyze", vec![start]),
        ("bestmove", vec![start]),
        ("line", vec![start]),
        ("prove", vec!["-q", "--threads", "1"]),
    ] {
        let without = ok(&[&[sub, "--db", db][..], &extra].concat());
        let with = ok(&[&[sub, "--rules", "three", "--db", db][..], &extra].concat());
        let first = |t: &str| t.lines().next().unwrap_or("").to_string();
        assert_eq!(first(&without), first(&with), "{sub} without --rules");
    }
    contains_all(&ok(&["verify", "--db", db, "-q"]), &["7 of 7 tables OK"], "verify");
    contains_all(&ok_in(&["play", "--db", db], "value\nquit\n"), &["rule set three", "value: Win(9)"], "play");
    let out = tempfile::tempdir().unwrap();
    ok(&["export-wdl", "--db", db, "--out", s(out.path())]);
    assert!(fs::read_dir(out.path()).unwrap().any(|e| e.unwrap().file_name().to_string_lossy().starts_with("three_")));
    let copy = copy_of(three());
    ok(&["compress", "--db", s(copy.path())]);
    assert!(copy.path().join("three_3_3_0_0.mtz").exists());
    contains_all(&ok(&["value", "--db", db, "--no-solve"]), &["rule set three"], "value");
    // `review` reads the record on the 9-point board.
    let record = copy.path().join("game.txt");
    fs::write(&record, "1. b2 a1\n").unwrap();
    ok(&["review", "--db", db, s(&record)]);
}

/// A directory with tables of two rule sets: every reader asks for
/// `--rules` and names both; `--rules` then picks one.
#[test]
fn several_rule_sets_need_rules() {
    let dir = two_rule_sets();
    let db = s(dir.path());
    for args in [
        vec!["probe", "--db", db, "W: B: w 3 3"],
        vec!["verify", "--db", db],
        vec!["prove", "--db", db],
        vec!["compress", "--db", db],
        vec!["solve", "--db", db, "--max-stones", "6"],
    ] {
        let err = fails(&args);
        contains_all(&err, &["several rule sets", "nine", "three", "--rules"], args[0]);
    }
    assert!(!ok(&["probe", "--rules", "three", "--db", db, "W:b2 B:a1 w 2 2"]).trim().is_empty());
    ok(&["probe", "--rules", "nine", "--db", db, "W:a4,a1,d3 B:a7,d1,c4 w"]);
}

/// No table: readers refuse (naming the directory); `solve` starts `nine`.
#[test]
fn no_table_is_an_error_for_readers_and_nine_for_solve() {
    let dir = tempfile::tempdir().unwrap();
    let db = s(dir.path());
    for args in [vec!["probe", "--db", db, "W: B: w 3 3"], vec!["verify", "--db", db], vec!["prove", "--db", db]] {
        contains_all(&fails(&args), &[db, "holds no table"], args[0]);
    }
    contains_all(&ok(&["solve", "--db", db, "--max-stones", "6", "-q"]), &["rule set nine"], "solve");
    assert!(dir.path().join("nine_3_3_0_0.mtb").exists());
}

/// An explicit `--rules` wins over the tables: asked for `nine` in a
/// directory of `three`, the missing `nine` table is named.
#[test]
fn explicit_rules_win() {
    let err = fails(&["probe", "--rules", "nine", "--db", s(three()), "W:a4,a1,d3 B:a7,d1,c4 w"]);
    contains_all(&err, &["nine_3_3_0_0.mtb"], "explicit --rules");
    // And `solve` adds to a directory of another rule set only when asked.
    let copy = copy_of(three());
    ok(&["solve", "--rules", "nine", "--db", s(copy.path()), "--max-stones", "6", "-q"]);
    assert!(copy.path().join("nine_3_3_0_0.mtb").exists());
}

/// A custom rule set is told from its file names too (its preset and the
/// fingerprint in its name give the overrides back).
#[test]
fn a_custom_rule_set_is_told_from_its_file_names() {
    let dir = tempfile::tempdir().unwrap();
    let db = s(dir.path());
    ok(&["solve", "--rules", "six", "--stones", "4", "--max-stones", "7", "--db", db, "-q"]);
    let out = ok(&["verify", "--db", db, "-q"]);
    contains_all(&out, &["3 of 3 tables OK"], "verify of a custom rule set");
    // The same answer as with the options spelt out.
    let pos = "W:b4,d6,f4 B:b6,f6,d2 w";
    let told = ok(&["probe", "--db", db, pos]);
    assert_eq!(told, ok(&["probe", "--rules", "six", "--stones", "4", "--db", db, pos]));
    ok(&["bench-probe", "--db", db, "--positions", "100", "--runs", "1", "--threads", "1"]);
    // `solve` continues the same custom rule set without its options.
    contains_all(&ok(&["solve", "--db", db, "--max-stones", "7", "-q"]), &["six-", "kept 3"], "solve");
}

/// `plan --slurm` writes the rule set it found into the jobs' command.
#[test]
fn plan_writes_the_rule_set_it_found() {
    let dir = copy_of(three());
    let script = dir.path().join("jobs.sh");
    ok(&["plan", "--db", s(dir.path()), "--slurm", s(&script)]);
    let text = fs::read_to_string(&script).unwrap();
    assert!(text.contains("RULES=('--rules' 'three')"), "{text}");
}

/// `plan` warns of the units this solver cannot solve, and writes no job
/// script for them. Sesotho Morabaraba's sector 8-9 (8 stones against 9
/// on 25 points) holds at least C(25,8) C(17,9) / 8 = 3,286,636,031
/// canonical positions (8 symmetries), so more slots than the pair
/// solver's 2^31 = 2,147,483,648; 3-3 holds at most C(25,3) C(22,3) =
/// 3,326,400 positions, far below.
#[test]
fn plan_names_the_units_the_solver_cannot_solve() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["plan", "--rules", "sesotho", "--max-stones", "17", "--db", s(dir.path())];
    let r = run(&args);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    contains_all(&r.stderr, &["warning", "8-9: sector 8-9 has", "2^31"], "plan --rules sesotho");
    assert!(!r.stderr.contains("3-3:"), "{}", r.stderr);
    let script = dir.path().join("jobs.sh");
    let mut with_script = args.to_vec();
    with_script.extend(["--slurm", s(&script)]);
    let err = fails(&with_script);
    contains_all(&err, &["8-9", "no job script written"], "plan --slurm --rules sesotho");
    assert!(!script.exists());
}

/// `compare` refuses directories of different rule sets.
#[test]
fn compare_checks_both_directories_agree() {
    let malom = tempfile::tempdir().unwrap();
    fs::write(malom.path().join("std_3_3_0_0.sec2"), b"").unwrap();
    let err = fails(&["compare", "--db", s(three()), "--malom", s(malom.path())]);
    contains_all(&err, &["different rule sets", "three", "nine"], "compare");
}

// ---------------------------------------------------------------------------
// 2. Long inputs are quoted short

/// A 120 KB argument: the error names the problem in under 400 bytes (the
/// unknown rule set's message lists the 19 presets, 240 of them).
#[test]
fn long_inputs_are_quoted_short() {
    let big = "x".repeat(120_000);
    let db = s(three());
    let big_fen = format!("{big}/");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["probe", "--rules", "three", "--db", db, &big], "malformed position"),
        (vec!["show", &big], "malformed position"),
        (vec!["show", "--fen", &big_fen], "malformed FEN"),
        (vec!["show", "--rules", &big, "W: B: w"], "unknown rule set"),
        (vec!["verify", "--rules", "three", "--db", db, "--sectors", &big], "is not a sector"),
        (vec!["solve", "--rules", "three", "--db", db, "--only", &big], "no unit"),
    ];
    for (args, problem) in &cases {
        let r = run(args);
        assert!(matches!(r.code, Some(c) if c != 0), "{}: {:?}", args[0], r.code);
        assert!(r.stderr.len() < 400, "{} {}: {} bytes: {}", args[0], problem, r.stderr.len(), r.stderr);
        contains_all(&r.stderr, &[problem, " characters)"], args[0]);
    }
    let points = format!("W:{big} B: w");
    let r = run(&["probe", "--rules", "three", "--db", db, &points]);
    assert!(r.stderr.len() < 300 && r.stderr.contains("unknown point"), "{}", r.stderr);
    // A move in `play` and in a record.
    let r = Runner::default().stdin(&format!("{big}\nquit\n")).run(&["play", "--rules", "three", "--db", db]);
    assert!(r.stdout.len() < 1500 && r.stdout.contains("cannot read move"), "{} bytes", r.stdout.len());
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("game.txt");
    fs::write(&record, format!("1. {big}\n")).unwrap();
    let r = run(&["replay", "--rules", "three", s(&record)]);
    assert!(r.stderr.len() < 400 && r.stderr.contains("cannot read move"), "{}", r.stderr);
}

// ---------------------------------------------------------------------------
// 3. verify and solve

/// A table whose name names a sector its rule set cannot have is reported
/// by `verify` as by `stats`, with a non-zero exit.
#[test]
fn verify_reports_a_misnamed_table_as_stats_does() {
    let dir = copy_of(three());
    let db = s(dir.path());
    fs::copy(dir.path().join("three_3_3_0_0.mtb"), dir.path().join("three_4_4_0_0.mtb")).unwrap();
    let stats = fails(&["stats", "--db", db]);
    contains_all(&stats, &["three_4_4_0_0.mtb", "the file name's sector"], "stats");
    let args = ["verify", "--rules", "three", "--db", db, "-q"];
    let r = crate::common::fails_run(&args, run(&args));
    contains_all(&r.stderr, &["three_4_4_0_0.mtb", "the file name's sector", "misnamed"], "verify");
    contains_all(&r.stdout, &["7 of 7 tables OK"], "verify still checks the rest");
}

#[test]
fn verify_checks_a_repeated_sector_once() {
    let out = ok(&["verify", "--rules", "three", "--db", s(three()), "--sectors", "3-3,3-3", "-q"]);
    assert_eq!(out.matches("3-3 ").count(), 1, "{out}");
    contains_all(&out, &["1 of 1 table OK"], "verify --sectors 3-3,3-3");
}

/// `solve` into a directory where no file can be made says so before any
/// work. A directory of mode 555 stops everyone but root; `/proc/self`
/// (no new files, whoever asks) stops root too, so the test is real on
/// both.
#[test]
fn solve_into_an_unwritable_directory_says_so_up_front() {
    let mut dirs: Vec<String> = Vec::new();
    let locked = tempfile::tempdir().unwrap();
    let ro = locked.path().join("ro");
    fs::create_dir(&ro).unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&ro, fs::Permissions::from_mode(0o555)).unwrap();
    }
    if fs::File::create(ro.join("probe")).is_ok() {
        fs::remove_file(ro.join("probe")).unwrap();
        println!("note: mode 555 does not stop this user (root); testing /proc/self only");
    } else {
        dirs.push(s(&ro).to_string());
    }
    if Path::new("/proc/self").is_dir() {
        dirs.push("/proc/self".to_string());
    }
    assert!(!dirs.is_empty(), "no unwritable directory to test with");
    for dir in &dirs {
        let started = Instant::now();
        let err = fails(&["solve", "--rules", "nine", "--db", dir, "--max-stones", "6", "-q"]);
        contains_all(&err, &[&format!("cannot write to {dir}")], "solve");
        assert!(started.elapsed() < Duration::from_secs(30));
    }
}

// ---------------------------------------------------------------------------
// 4. Moves on the three-point board

#[test]
fn move_hints_name_points_of_the_board() {
    let out = ok_in(&["play", "--rules", "three", "--db", s(three())], "d6\nhelp\nquit\n");
    contains_all(&out, &["cannot read move `d6`", "`a1`", "`a1-b1`"], "play");
    assert!(!out.contains("d6-d5"), "{out}");
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("game.txt");
    fs::write(&record, "1. d6\n").unwrap();
    let err = fails(&["replay", "--rules", "three", s(&record)]);
    contains_all(&err, &["cannot read move `d6`", "`a1`"], "replay");
    assert!(!err.contains("d6-d5"), "{err}");
    // A malformed position's example is on the board too.
    let err = fails(&["analyze", "--rules", "three", "--db", s(three()), "W:a1 B:a2"]);
    assert!(!err.contains("a4,a1,d3"), "{err}");
    contains_all(&err, &["e.g. `W:a1,c1 B:b1,a2 w 1 1`"], "analyze");
    // The 24-point board keeps its examples.
    let err = Runner::default().stdin("zz\n").run(&[
        "play",
        "--db",
        s(crate::common::db7()),
        "--from",
        "W:a4,a1,d3 B:a7,d1,c4 w",
    ]);
    contains_all(&err.stdout, &["`d6-d5xb4`"], "nine");
}

// ---------------------------------------------------------------------------
// 5. More threads than cores

#[test]
fn more_threads_than_cores_warn_once() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let many = (cores + 1).to_string();
    let r = run(&["verify", "--rules", "three", "--db", s(three()), "--threads", &many, "-q"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(r.stderr.matches("warning").count(), 1, "{}", r.stderr);
    contains_all(&r.stderr, &[&format!("--threads {many}"), &format!("{cores} core")], "warning");
    let r = run(&["verify", "--rules", "three", "--db", s(three()), "--threads", &cores.to_string(), "-q"]);
    assert!(!r.stderr.contains("warning"), "{}", r.stderr);
}

// ---------------------------------------------------------------------------
// 6. Line editing in `play`

/// At a terminal (`script` gives `play` one), the up arrow brings back the
/// last line: `value` typed once is asked twice. From a pipe the same bytes
/// are a bad move (the play tests feed moves through a pipe).
#[test]
fn play_edits_lines_at_a_terminal() {
    use std::io::{Read, Write};
    use std::process::{Command, Stdio};
    if Command::new("script").arg("--version").output().is_err() {
        println!("note: no `script` (util-linux) to give `play` a terminal; line editing not tested");
        return;
    }
    let cmd = format!("{} play --rules three --db {}", crate::common::morris_bin().display(), s(three()));
    let mut child = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<Vec<u8>>();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = stdout.read(&mut buf) {
            if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    let mut seen = String::new();
    let wait_for = |what: &str, times: usize, seen: &mut String| {
        let deadline = Instant::now() + Duration::from_secs(30);
        while seen.matches(what).count() < times && Instant::now() < deadline {
            if let Ok(chunk) = rx.recv_timeout(Duration::from_millis(100)) {
                seen.push_str(&String::from_utf8_lossy(&chunk));
            }
        }
        seen.matches(what).count() >= times
    };
    let steps: [(&[u8], &str, usize); 3] =
        [(b"", "to move> ", 1), (b"value\r", "value: Win(9)", 1), (b"\x1b[A\r", "value: Win(9)", 2)];
    let mut passed = true;
    for (keys, expect, times) in steps {
        stdin.write_all(keys).unwrap();
        stdin.flush().unwrap();
        if !wait_for(expect, times, &mut seen) {
            passed = false;
            break;
        }
    }
    let _ = stdin.write_all(b"quit\r");
    let _ = stdin.flush();
    drop(stdin);
    let deadline = Instant::now() + Duration::from_secs(10);
    while child.try_wait().unwrap().is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(passed, "the up arrow did not bring `value` back:\n{seen}");
    assert!(!seen.contains("cannot read move"), "{seen}");
}
