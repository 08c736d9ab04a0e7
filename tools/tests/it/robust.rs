//! What input can do to the `morris` binary: every option of every
//! subcommand with extreme and nonsense values (taken from the binary's own
//! help, so new options are covered without editing this file), sectors
//! that cannot exist, a closed pipe, OS errors, damaged and stale tables,
//! and the small words of the output (`value`'s consent to a long solve is in
//! value.rs).
//!
//! Outside facts used as expected values: the 24-point board of `nine` has
//! 24 points and `six`'s board 16; Three Men's Morris has three kinds of
//! first move up to symmetry (a corner, an edge point, the centre), and its
//! start is a win for White only by opening in the centre, a draw by a
//! corner and a loss by an edge point (docs/results.md, from the
//! published solution); a placement that makes a line ends Three Men's
//! Morris in one ply.

use std::fs;
use std::os::fd::OwnedFd;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::common;
use crate::common::{contains_all, morris_bin, s, three, Run, Runner};

// ---------------------------------------------------------------------------
// Running the binary

/// Runs `morris args` with standard input empty in `cwd` (where relative
/// paths such as `--db abc` land), killed after `limit`: it must end by
/// itself, not panic, and say why when it fails.
fn run_in(args: &[&str], limit: Duration, cwd: Option<&Path>) -> Run {
    let mut runner = Runner::default().limit(limit);
    if let Some(dir) = cwd {
        runner = runner.cwd(dir);
    }
    let r = runner.run(args);
    let context = || format!("morris {args:?}:\nexit {:?}\nstdout:\n{}\nstderr:\n{}", r.code, r.stdout, r.stderr);
    let code = r.code.unwrap_or_else(|| panic!("killed (signal or timeout): {}", context()));
    if code != 0 {
        assert!(r.stderr.contains("error"), "failed without an error message: {}", context());
    }
    r
}

fn run(args: &[&str]) -> Run {
    run_in(args, Duration::from_secs(120), None)
}

fn ok(args: &[&str]) -> String {
    common::ok_run(args, run(args))
}

fn fails(args: &[&str]) -> String {
    common::fails_run(args, run(args)).stderr
}

/// A fresh copy of [`three`] in `into`.
fn copy_three(into: &Path) {
    common::copy_into(three(), into);
}

/// Flips a payload byte of `file`: the checksum no longer matches.
fn damage(file: &Path) {
    let mut bytes = fs::read(file).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x5a;
    fs::write(file, bytes).unwrap();
}

// ---------------------------------------------------------------------------
// Every option of every subcommand

/// An option of a subcommand, read from its `-h`.
#[derive(Debug, Clone)]
struct Opt {
    long: String,
    takes_value: bool,
}

/// The subcommands listed by `morris -h` under its task headings (every
/// indented line of a section other than `Options:`), but `help`.
fn subcommands() -> Vec<String> {
    let help = ok(&["-h"]);
    let mut section = "";
    let mut names = Vec::new();
    for line in help.lines() {
        if !line.starts_with(' ') && line.ends_with(':') {
            section = line;
        } else if section != "Options:" && !section.is_empty() && line.starts_with("  ") {
            if let Some(name) = line.split_whitespace().next().filter(|n| *n != "help") {
                names.push(name.to_string());
            }
        }
    }
    assert!(names.len() >= 20, "`morris -h` lists {} subcommands:\n{help}", names.len());
    names
}

/// A subcommand's options and whether its positional argument is required
/// (`None`: it takes none), read from its `-h`.
fn options_of(sub: &str) -> (Vec<Opt>, Option<(String, bool)>) {
    let help = ok(&[sub, "-h"]);
    let mut opts = Vec::new();
    let mut positional = None;
    let mut section = "";
    for line in help.lines() {
        if !line.starts_with(' ') && line.ends_with(':') {
            section = line;
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        match section {
            "Arguments:" if !words.is_empty() => {
                let w = words[0];
                let name = w.trim_matches(|c| matches!(c, '<' | '>' | '[' | ']' | '.')).to_string();
                positional = Some((name, w.starts_with('<')));
            }
            "Options:" => {
                let Some(i) = words.iter().position(|w| w.starts_with("--")) else { continue };
                let long = words[i].trim_end_matches(',').to_string();
                if long == "--help" || long == "--version" {
                    continue;
                }
                let takes_value = words.get(i + 1).is_some_and(|w| w.starts_with('<') || w.starts_with('['));
                opts.push(Opt { long, takes_value });
            }
            _ => {}
        }
    }
    (opts, positional)
}

/// A value for an option that makes the run cheap, by option name and the
/// directory of the run; `None` for options the baseline leaves out.
fn baseline_value(long: &str, db: &Path, work: &Path) -> Option<String> {
    Some(match long {
        "--rules" => "three".into(),
        "--db" => s(db).into(),
        "--malom" => s(db).into(),
        "--out" => s(&work.join("out")).into(),
        "--depth" => "1".into(),
        "--positions" => "1000".into(),
        "--runs" => "1".into(),
        "--table-mib" => "16".into(),
        "--max-stones" => "6".into(),
        "--sector" => "3-3".into(),
        _ => return None,
    })
}

/// A valid argument for a positional of this name.
fn baseline_positional(name: &str) -> &'static str {
    match name {
        "FILE" => "-",
        _ => "W:a1,b1 B:a3,b3 w 1 1",
    }
}

#[test]
fn every_option_of_every_subcommand_survives_extreme_and_nonsense_values() {
    let work = tempfile::tempdir().unwrap();
    let a_file = work.path().join("a-file");
    fs::write(&a_file, "not a directory\n").unwrap();
    let missing = work.path().join("missing").join("dir");
    let nonsense: Vec<String> = vec![
        "0".into(),
        "-1".into(),
        "18446744073709551616".into(),
        "4294967297".into(),
        "abc".into(),
        "".into(),
        "13-13".into(),
        "3-3-9-0".into(),
        s(&missing).into(),
        s(&a_file).into(),
    ];
    let subs = subcommands();
    assert!(subs.len() >= 15 && subs.contains(&"verify".to_string()), "{subs:?}");
    let mut runs = 0;
    for sub in &subs {
        let (opts, positional) = options_of(sub);
        assert!(!opts.is_empty(), "{sub}: no options read from its help");
        // Each case: (option changed, its value or None for a flag).
        let mut cases: Vec<(Option<&Opt>, Option<&str>)> = vec![(None, None)];
        for o in &opts {
            if o.takes_value {
                cases.extend(nonsense.iter().map(|v| (Some(o), Some(v.as_str()))));
            } else {
                cases.push((Some(o), None));
            }
        }
        let mut positional_cases: Vec<Option<&str>> = Vec::new();
        if positional.is_some() {
            positional_cases.extend(nonsense.iter().map(|v| Some(v.as_str())));
        }
        let all = cases
            .iter()
            .map(|&(o, v)| (o, v, None))
            .chain(positional_cases.iter().map(|&p| (None, None, p)))
            .collect::<Vec<_>>();
        for (i, (changed, value, pos_value)) in all.into_iter().enumerate() {
            let dir = work.path().join(format!("{sub}-{i}"));
            let db = dir.join("db");
            copy_three(&db);
            let mut args: Vec<String> = vec![sub.clone()];
            for o in &opts {
                if changed.is_some_and(|c| c.long == o.long) {
                    continue;
                }
                if let Some(v) = o.takes_value.then(|| baseline_value(&o.long, &db, &dir)).flatten() {
                    args.extend([o.long.clone(), v]);
                }
            }
            if let Some(o) = changed {
                args.push(o.long.clone());
                if let Some(v) = value {
                    args.push(v.to_string());
                }
            }
            if let Some((name, required)) = &positional {
                match pos_value {
                    Some(v) => args.extend(["--".to_string(), v.to_string()]),
                    None if *required => args.extend(["--".to_string(), baseline_positional(name).to_string()]),
                    None => {}
                }
            }
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            // Every run ends by itself, quickly, and never panics; nonsense
            // values that are relative paths stay in the run's directory.
            run_in(&args, Duration::from_secs(60), Some(&dir));
            runs += 1;
            let _ = fs::remove_dir_all(&dir);
        }
    }
    assert!(runs > 500, "only {runs} runs");
}

// ---------------------------------------------------------------------------
// Numbers and sectors out of range

#[test]
fn a_sector_that_cannot_exist_is_an_error_naming_it_and_the_board() {
    let db = three();
    let err = fails(&["verify", "--rules", "nine", "--db", s(db), "--sectors", "13-13"]);
    contains_all(&err, &["sector 13-13", "rule set `nine`", "24-point board"], "verify nine 13-13");
    // Without --rules, the rule set of the tables (issue 39).
    let err = fails(&["verify", "--db", s(db), "--sectors", "13-13"]);
    contains_all(&err, &["sector 13-13", "rule set `three`", "9-point board"], "verify three 13-13");
    let err = fails(&["verify", "--rules", "six", "--db", s(db), "--sectors", "9-9"]);
    contains_all(&err, &["sector 9-9", "rule set `six`", "16-point board"], "verify six 9-9");
    let err = fails(&["verify", "--rules", "nine", "--db", s(db), "--sectors", "3-3-9-0"]);
    contains_all(&err, &["sector 3-3-9-0", "12 stones", "each 9"], "verify nine 3-3-9-0");
    let err = fails(&["compare", "--rules", "nine", "--db", s(db), "--malom", s(db), "--sectors", "13-13"]);
    contains_all(&err, &["sector 13-13", "24-point board"], "compare nine 13-13");
}

#[test]
fn a_table_file_of_a_sector_that_cannot_exist_is_passed_over_or_refused() {
    let work = tempfile::tempdir().unwrap();
    let db = work.path().join("db");
    copy_three(&db);
    fs::write(db.join("nine_13_13_0_0.mtb"), b"x").unwrap();
    fs::copy(three().join("three_3_3_0_0.mtb"), db.join("three_9_9_0_0.mtb")).unwrap();
    for sub in [&["verify", "-q"][..], &["stats"], &["compress"], &["bench-probe", "--positions", "10", "--runs", "1"]]
    {
        for rules in ["three", "nine"] {
            let mut args = sub.to_vec();
            args.extend(["--db", s(&db)]);
            if sub[0] != "stats" {
                args.extend(["--rules", rules]);
            }
            run(&args);
        }
    }
}

#[test]
fn numeric_options_are_range_checked_with_a_message() {
    let db = three();
    for (args, says) in [
        (&["prove", "--rules", "three", "--table-mib", "100000000"][..], "--table-mib"),
        (&["prove", "--rules", "three", "--table-mib", "0"], "--table-mib"),
        (&["perft", "--rules", "three", "--depth", "99999999999"], "--depth"),
        (&["bench", "--rules", "three", "--runs", "0"], "--runs"),
        (&["solve", "--rules", "three", "--max-stones", "1000"], "--max-stones"),
        (&["verify", "--rules", "three", "--threads", "100000"], "--threads"),
        (&["solve", "--rules", "three", "--threads", "-1"], "--threads"),
        (&["bench-probe", "--rules", "three", "--positions", "-5"], "--positions"),
        (&["line", "--rules", "three", "--plies", "-3"], "--plies"),
    ] {
        let mut args = args.to_vec();
        if args[0] != "bench" && args[0] != "perft" {
            args.extend(["--db", s(db)]);
        }
        let r = run(&args);
        assert_eq!(r.code, Some(2), "{args:?}: {r:?}");
        contains_all(&r.stderr, &["error: invalid value", says], &format!("{args:?}"));
    }
    // In range but more than this machine has: an error, not an abort.
    let err = fails(&["prove", "--rules", "three", "--db", s(db), "--table-mib", "16000000", "-q"]);
    contains_all(&err, &["--table-mib 16000000", "memory"], "a table larger than memory");
}

#[test]
fn threads_zero_means_one_per_core_everywhere() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let want = if cores == 1 { "1 thread".to_string() } else { format!("{cores} threads") };
    let db = three();
    let out = ok(&["prove", "--rules", "three", "--db", s(db), "--threads", "0", "--table-mib", "16", "-q"]);
    assert!(out.contains(&want), "prove --threads 0: {out}");
    let out = ok(&["verify", "--rules", "three", "--db", s(db), "--threads", "0", "-q"]);
    assert!(out.contains(&want), "verify --threads 0: {out}");
    let work = tempfile::tempdir().unwrap();
    let out = ok(&["solve", "--rules", "three", "--db", s(&work.path().join("d")), "--threads", "0", "-q"]);
    assert!(out.contains(&want), "solve --threads 0: {out}");
}

// ---------------------------------------------------------------------------
// Pipes and OS errors

/// A pipe whose reader has already gone: every write to it fails with
/// EPIPE. (Made from the standard input of a child that has exited.)
fn closed_pipe() -> OwnedFd {
    let mut child = Command::new("true").stdin(Stdio::piped()).spawn().expect("running true");
    let stdin = child.stdin.take().unwrap();
    child.wait().unwrap();
    OwnedFd::from(stdin)
}

/// Runs `morris` with standard output (and with `both` standard error too)
/// on a closed pipe; returns the exit code and standard error.
fn run_into_closed_pipe(args: &[&str], both: bool) -> (Option<i32>, String) {
    let pipe = closed_pipe();
    let mut cmd = Command::new(morris_bin());
    cmd.args(args).stdin(Stdio::null()).stdout(Stdio::from(pipe.try_clone().unwrap()));
    let err_file = tempfile::NamedTempFile::new().unwrap();
    if both {
        cmd.stderr(Stdio::from(pipe));
    } else {
        cmd.stderr(Stdio::from(err_file.reopen().unwrap()));
    }
    let status = cmd.status().expect("running morris");
    (status.code(), fs::read_to_string(err_file.path()).unwrap())
}

#[test]
fn a_closed_pipe_ends_the_output_but_never_changes_the_exit_code() {
    let work = tempfile::tempdir().unwrap();
    let db = work.path().join("db");
    copy_three(&db);
    // A good database: the output ends, the run still succeeds.
    let (code, _) = run_into_closed_pipe(&["stats", "--db", s(&db)], true);
    assert_eq!(code, Some(0), "stats of a good database into a closed pipe");
    let (code, _) = run_into_closed_pipe(&["verify", "--rules", "three", "--db", s(&db), "-q"], false);
    assert_eq!(code, Some(0), "verify of a good database into a closed pipe");
    // A damaged table: the failure survives the closed pipe
    // (`morris stats --db D 2>&1 | head -1` once exited 101, `verify | head -1` 0).
    damage(&db.join("three_3_3_0_0.mtb"));
    let (code, _) = run_into_closed_pipe(&["stats", "--db", s(&db)], true);
    assert_eq!(code, Some(1), "stats of a damaged database, 2>&1 into a closed pipe");
    let (code, err) = run_into_closed_pipe(&["verify", "--rules", "three", "--db", s(&db), "-q"], false);
    assert_eq!(code, Some(1), "verify of a damaged database into a closed pipe: {err}");
    assert!(err.contains("failed verification"), "{err}");
}

#[test]
fn os_errors_are_said_once() {
    let work = tempfile::tempdir().unwrap();
    let file = work.path().join("a-file");
    fs::write(&file, "x").unwrap();
    for args in [
        &["solve", "--rules", "three", "--db", s(&file.join("sub"))][..],
        &["export-wdl", "--rules", "three", "--db", s(three()), "--out", s(&file)],
    ] {
        let err = fails(args);
        assert_eq!(err.matches("os error").count(), 1, "{args:?}: {err}");
    }
    // A file where the database directory should be: said in words.
    let err = fails(&["solve", "--rules", "three", "--db", s(&file)]);
    contains_all(&err, &["a-file", "not a directory"], "solve into a file");
}

#[test]
fn a_directory_in_place_of_a_table_is_named_as_such() {
    let work = tempfile::tempdir().unwrap();
    let db = work.path().join("db");
    copy_three(&db);
    let table = db.join("three_0_0_3_3.mtb");
    fs::remove_file(&table).unwrap();
    fs::create_dir(&table).unwrap();
    for sub in ["probe", "analyze", "bestmove"] {
        let err = fails(&[sub, "--rules", "three", "--db", s(&db), "W: B: w 3 3"]);
        contains_all(&err, &["three_0_0_3_3.mtb", "is a directory"], sub);
        assert!(!err.contains("os error 19") && !err.contains("No such device"), "{sub}: {err}");
    }
    let r = run(&["verify", "--rules", "three", "--db", s(&db), "-q"]);
    assert_eq!(r.code, Some(1));
    contains_all(&r.stdout, &["three_0_0_3_3.mtb: is a directory"], "verify");
}

// ---------------------------------------------------------------------------
// Solving: damaged tables, stale twins, timings, consent

#[test]
fn solve_says_which_damaged_table_it_solves_again() {
    let work = tempfile::tempdir().unwrap();
    let db = work.path().join("db");
    copy_three(&db);
    let table = db.join("three_3_3_0_0.mtb");
    let good = fs::read(&table).unwrap();
    damage(&table);
    let r = run(&["solve", "--rules", "three", "--phase", "all", "--db", s(&db), "-q"]);
    assert_eq!(r.code, Some(0), "{r:?}");
    contains_all(&r.stderr, &["sector 3-3", "three_3_3_0_0.mtb", "payload checksum", "solving it again"], "solve");
    assert!(r.stdout.contains("solved 1 table ("), "{}", r.stdout);
    assert_eq!(fs::read(&table).unwrap(), good, "the re-solved table is the original");
    // Nothing damaged: nothing said.
    let r = run(&["solve", "--rules", "three", "--phase", "all", "--db", s(&db), "-q"]);
    assert!(r.stderr.is_empty(), "{}", r.stderr);
}

#[test]
fn solve_leaves_no_stale_compressed_twin() {
    let work = tempfile::tempdir().unwrap();
    let db = work.path().join("db");
    copy_three(&db);
    ok(&["compress", "--rules", "three", "--db", s(&db)]);
    let packed = db.join("three_3_3_0_0.mtz");
    assert!(packed.exists());
    // The original is damaged: solve replaces it, and its twin goes.
    damage(&db.join("three_3_3_0_0.mtb"));
    ok(&["solve", "--rules", "three", "--phase", "all", "--db", s(&db), "-q"]);
    assert!(!packed.exists(), "a stale .mtz stays beside the re-solved .mtb");
    // Only the compressed form, damaged: solve writes the .mtb, the .mtz goes.
    let packed = db.join("three_2_2_1_1.mtz");
    fs::remove_file(db.join("three_2_2_1_1.mtb")).unwrap();
    damage(&packed);
    ok(&["solve", "--rules", "three", "--phase", "all", "--db", s(&db), "-q"]);
    assert!(!packed.exists() && db.join("three_2_2_1_1.mtb").exists());
    ok(&["verify", "--rules", "three", "--db", s(&db), "-q"]);
    ok(&["stats", "--db", s(&db)]);
}

#[test]
fn solve_verbose_prints_each_pair_as_it_finishes() {
    let work = tempfile::tempdir().unwrap();
    let out = ok(&["solve", "--rules", "six", "--db", s(&work.path().join("d")), "--max-stones", "7", "-q", "-v"]);
    let first_pair = out.find("pair 3-3").unwrap_or_else(|| panic!("no pair line:\n{out}"));
    let summary = out.find("rule set six: solved").expect("a summary");
    assert!(first_pair < summary, "pair timings come after the summary:\n{out}");
    assert!(out.contains("pair 3-4/4-3"), "{out}");
}

// ---------------------------------------------------------------------------
// play

#[test]
fn play_refuses_a_database_without_the_tables_of_the_game_before_the_first_move() {
    let work = tempfile::tempdir().unwrap();
    let db = work.path().join("sliding");
    ok(&["solve", "--rules", "three", "--db", s(&db), "-q"]);
    let r = run(&["play", "--rules", "three", "--db", s(&db)]);
    assert_eq!(r.code, Some(1), "{r:?}");
    assert!(!r.stdout.contains("to move>"), "play prompted before failing:\n{}", r.stdout);
    contains_all(&r.stderr, &["--phase all", "placement"], "play without placement tables");
    // A sliding position is covered by the sliding tables.
    let mut child = assert_cmd::Command::new(morris_bin());
    child.args(["play", "--rules", "three", "--db", s(&db), "--from", "W:a1,b1,c2 B:a3,b3,c1 w"]);
    let out = child.write_stdin("quit\n").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let help = ok(&["play", "--help"]);
    assert!(!help.contains("only the sliding phase"), "{help}");
}

// ---------------------------------------------------------------------------
// Words

#[test]
fn first_moves_up_to_symmetry_are_the_same_in_value_and_prove() {
    let db = three();
    let value = ok(&["value", "--rules", "three", "--db", s(db), "--no-solve"]);
    let moves = |text: &str| -> Vec<String> {
        let mut v: Vec<String> = text
            .lines()
            .filter(|l| l.starts_with("  "))
            .filter_map(|l| l.split_whitespace().next().map(str::to_string))
            .collect();
        v.sort();
        v
    };
    // A corner, an edge point and the centre: one move each.
    assert_eq!(moves(&value), ["a1", "a2", "b2"], "{value}");
    contains_all(&value, &["b2       Win(9)", "a1       Draw", "a2       Loss(8)"], "value three");
    let prove = ok(&["prove", "--rules", "three", "--db", s(db), "--divide", "--table-mib", "16", "-q"]);
    assert_eq!(moves(&prove), ["a1", "a2", "b2"], "{prove}");
    contains_all(&prove, &["b2       Win", "a1       Draw", "a2       Loss", ": Win (by search)"], "prove three");
    let dtm = ok(&["prove", "--rules", "three", "--db", s(db), "--divide", "--dtm", "-q"]);
    assert_eq!(moves(&dtm), ["a1", "a2", "b2"], "{dtm}");
}

#[test]
fn counts_of_one_are_singular() {
    let db = three();
    // White places c1 and makes a line: over in one ply.
    let out = ok(&["line", "--rules", "three", "--db", s(db), "W:a1,b1 B:a3,b3 w 1 1"]);
    assert!(out.contains("in 1 ply") && !out.contains("1 plies"), "{out}");
    let work = tempfile::tempdir().unwrap();
    let out = ok(&["solve", "--rules", "three", "--db", s(&work.path().join("d")), "--max-stones", "6", "-q"]);
    assert!(out.contains("solved 1 table (") && !out.contains("1 tables"), "{out}");
    let out = ok(&["verify", "--rules", "three", "--db", s(&work.path().join("d")), "--threads", "1", "-q"]);
    assert!(out.contains("1 of 1 table OK") && out.contains("1 thread)"), "{out}");
    let mut play = assert_cmd::Command::new(morris_bin());
    play.args(["play", "--rules", "three", "--db", s(db), "--from", "W:a1,b1 B:a3,b3 w 1 1"]);
    let out = play.write_stdin("c1\n").output().unwrap();
    let out = String::from_utf8_lossy(&out.stdout);
    assert!(out.contains("after 1 ply") && !out.contains("1 plies"), "{out}");
}
