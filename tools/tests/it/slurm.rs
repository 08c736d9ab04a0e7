//! `morris plan --slurm` on a real Slurm: the submitted jobs write tables
//! byte for byte those of a local `morris solve`, and after a cancelled job
//! and a killed one, running the script again finishes the solve with the
//! same tables and no temporary files.
//!
//! These tests need a Slurm controller with a node that runs jobs on this
//! machine (the jobs write into a temporary directory here): start one with
//! `tools/slurm/start-local-slurm.sh` (as root), then
//! `cargo test -p morris-tools --test slurm -- --ignored`. `.ci/run` does
//! both. Without Slurm they are reported as ignored.

use crate::common::{morris, tables, temporaries};
use std::fs;
use std::path::Path;
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

const NEEDS_SLURM: &str = "needs Slurm: run tools/slurm/start-local-slurm.sh, then this test with --ignored";

/// The tests share one small node: one at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn check_slurm() {
    let sinfo = Command::new("sinfo").args(["-h", "-o", "%t"]).output();
    let up = sinfo.as_ref().is_ok_and(|o| {
        o.status.success() && String::from_utf8_lossy(&o.stdout).lines().any(|l| ["idle", "mix", "alloc"].contains(&l))
    });
    assert!(up, "no Slurm node answers ({sinfo:?}); {NEEDS_SLURM}");
}

/// Solves locally, as the reference.
fn solve_locally(rules: &[&str], dir: &Path) {
    let out = morris().arg("solve").args(rules).arg("-q").arg("--db").arg(dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// Writes the submission script for `rules` and database `dir` to `script`.
fn plan(rules: &[&str], dir: &Path, script: &Path) {
    let out = morris()
        .arg("plan")
        .args(rules)
        .arg("--db")
        .arg(dir)
        .arg("--slurm")
        .arg(script)
        .arg("--morris")
        .arg(env!("CARGO_BIN_EXE_morris"))
        // No job may ask for more cores than the node has.
        .arg("--max-cpus")
        .arg(std::thread::available_parallelism().map_or(1, |n| n.get()).to_string())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("critical path") && text.contains("wrote"), "{text}");
}

/// Runs the submission script; returns what it said.
fn submit(script: &Path) -> String {
    let out = Command::new("bash").arg(script).output().unwrap();
    let text = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{script:?} failed: {text}{}", String::from_utf8_lossy(&out.stdout));
    text
}

/// The jobs working in `dir` still queued or running: (id, name, state).
fn jobs(dir: &Path) -> Vec<(String, String, String)> {
    let out = Command::new("squeue").args(["--noheader", "--format=%i|%j|%T|%Z"]).output().unwrap();
    assert!(out.status.success(), "squeue failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split('|').collect();
            (f.len() == 4 && Path::new(f[3]) == dir).then(|| (f[0].to_string(), f[1].to_string(), f[2].to_string()))
        })
        .collect()
}

/// Waits until no job of `dir` is queued or running.
fn wait_for_jobs(dir: &Path, limit: Duration) {
    let start = Instant::now();
    while !jobs(dir).is_empty() {
        assert!(start.elapsed() < limit, "jobs still queued after {limit:?}: {:?}", jobs(dir));
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// Plans `rules`, submits, waits, and compares with a local solve.
fn through_slurm_matches_local(rules: &[&str], expected_tables: usize) {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    check_slurm();
    let local = tempfile::tempdir().unwrap();
    solve_locally(rules, local.path());
    let expected = tables(local.path());
    assert_eq!(expected.len(), expected_tables);

    let work = tempfile::tempdir().unwrap();
    let db = work.path().join("db");
    let script = work.path().join("submit.sh");
    plan(rules, &db, &script);
    let said = submit(&script);
    assert!(said.contains(&format!("submitted {}", expected_units(rules))), "{said}");
    wait_for_jobs(&db, Duration::from_secs(900));
    let got = tables(&db);
    let missing: Vec<&String> = expected.keys().filter(|t| !got.contains_key(*t)).collect();
    assert!(missing.is_empty(), "not written through Slurm: {missing:?}; the jobs said: {}", job_logs(&db));
    for (name, bytes) in &expected {
        assert!(got[name] == *bytes, "{name} through Slurm differs from a local solve");
    }
    assert_eq!(got.len(), expected.len());
    assert!(temporaries(&db).is_empty());
    // Every job wrote its log.
    assert_eq!(fs::read_dir(db.join("slurm-logs")).unwrap().count(), expected_units(rules));
    // Running the script again submits nothing.
    let said = submit(&script);
    assert!(said.contains("submitted 0 jobs"), "{said}");
}

/// What the jobs of `db` wrote to their logs, the empty logs left out (a
/// job that succeeds says nothing: it runs with `--quiet`).
fn job_logs(db: &Path) -> String {
    let Ok(entries) = fs::read_dir(db.join("slurm-logs")) else { return "(no slurm-logs)".into() };
    let mut said: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let text = fs::read_to_string(e.path()).ok()?;
            (!text.trim().is_empty()).then(|| format!("{}: {}", e.file_name().to_string_lossy(), text.trim()))
        })
        .collect();
    said.sort();
    said.join("\n")
}

/// Units of the plan (sliding pairs, placement sectors): what `morris plan`
/// prints first.
fn expected_units(rules: &[&str]) -> usize {
    let out = morris().arg("plan").args(rules).arg("--db").arg("/nonexistent").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let units = text.split(": ").nth(1).and_then(|t| t.split(' ').next()).and_then(|n| n.parse().ok());
    units.unwrap_or_else(|| panic!("no unit count in {text}"))
}

#[test]
#[ignore = "needs Slurm: run tools/slurm/start-local-slurm.sh, then this test with --ignored"]
fn six_whole_game_through_slurm_matches_a_local_solve() {
    // 16 sliding and 115 placement tables (results/six-sliding.csv and six-placement.csv).
    through_slurm_matches_local(&["--rules", "six", "--phase", "all"], 131);
}

#[test]
#[ignore = "needs Slurm: run tools/slurm/start-local-slurm.sh, then this test with --ignored"]
fn nine_up_to_ten_stones_through_slurm_matches_a_local_solve() {
    // Sliding sectors with 6 to 10 stones: 3-3, 3-4, 4-3, 3-5, 4-4, 5-3,
    // 3-6, 6-3, 4-5, 5-4, 3-7, 7-3, 4-6, 6-4, 5-5.
    through_slurm_matches_local(&["--rules", "nine", "--max-stones", "10"], 15);
}

/// Kills a running `morris solve --only` of `dir` (SIGKILL, by its process
/// id); returns its unit, or `None` when none runs now.
fn kill_a_running_unit(dir: &Path, among: &[&str], except: &str) -> Option<String> {
    for entry in fs::read_dir("/proc").ok()? {
        let Ok(entry) = entry else { continue };
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Ok(cmdline) = fs::read(entry.path().join("cmdline")) else { continue };
        let words: Vec<String> = cmdline.split(|&b| b == 0).map(|w| String::from_utf8_lossy(w).into_owned()).collect();
        let db = words.iter().position(|w| w == "--db").and_then(|i| words.get(i + 1));
        let unit = words.iter().position(|w| w == "--only").and_then(|i| words.get(i + 1));
        if let (Some(db), Some(unit)) = (db, unit) {
            if Path::new(db) == dir && among.contains(&unit.as_str()) && unit != except {
                let killed = Command::new("kill").args(["-KILL", &pid.to_string()]).status().ok()?;
                if killed.success() {
                    return Some(unit.clone());
                }
            }
        }
    }
    None
}

#[test]
#[ignore = "needs Slurm: run tools/slurm/start-local-slurm.sh, then this test with --ignored"]
fn a_cancelled_job_and_a_killed_one_are_finished_by_running_the_script_again() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    check_slurm();
    let rules = ["--rules", "nine", "--max-stones", "9"];
    let local = tempfile::tempdir().unwrap();
    solve_locally(&rules, local.path());
    let expected = tables(local.path());

    let work = tempfile::tempdir().unwrap();
    let db = work.path().join("db");
    let script = work.path().join("submit.sh");
    plan(&rules, &db, &script);
    submit(&script);

    // Cancel a job seen running, then kill the process of another, both
    // among the last units (9 stones: neither reads the other's tables), so
    // that the earlier ones are solved and the two leave work for the
    // second submission.
    let late = ["3-6", "4-5"];
    let start = Instant::now();
    let mut cancelled: Option<String> = None;
    let mut killed: Option<String> = None;
    while cancelled.is_none() || killed.is_none() {
        assert!(start.elapsed() < Duration::from_secs(600), "never saw two jobs running");
        let queue = jobs(&db);
        if queue.is_empty() {
            break;
        }
        if cancelled.is_none() {
            let running = queue
                .iter()
                .find(|(_, name, state)| state == "RUNNING" && late.contains(&name.trim_start_matches("morris-nine-")));
            if let Some((id, name, _)) = running {
                let status = Command::new("scancel").arg(id).status().unwrap();
                assert!(status.success());
                cancelled = Some(name.trim_start_matches("morris-nine-").to_string());
            }
        } else {
            killed = kill_a_running_unit(&db, &late, cancelled.as_deref().unwrap_or(""));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    wait_for_jobs(&db, Duration::from_secs(600));
    let (cancelled, killed) = (cancelled.expect("a job was cancelled"), killed.expect("a job's process was killed"));
    let partial = tables(&db);
    assert!(partial.len() < expected.len(), "units {cancelled} and {killed} should be missing");
    for (name, bytes) in &partial {
        assert_eq!(Some(bytes), expected.get(name), "{name}");
    }

    let said = submit(&script);
    assert!(!said.contains("submitted 0 jobs"), "{said}");
    wait_for_jobs(&db, Duration::from_secs(900));
    assert_eq!(tables(&db), expected, "after the second submission");
    assert!(temporaries(&db).is_empty(), "{:?}", temporaries(&db));
    // Nothing runs twice: the script finds nothing more to do.
    assert!(submit(&script).contains("submitted 0 jobs"));
}
