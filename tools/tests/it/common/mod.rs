//! What the tests of the `morris` binary share: running it (with standard
//! input, a time limit, a working directory), checking that it ended by
//! itself without a panic, temporary paths, the small databases several
//! test files solve, and snapshots of a database directory.
//!
//! Each test file is its own crate and uses only some of these, hence the
//! `dead_code` allowance.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

/// The `morris` executable Cargo built for these tests.
pub fn morris_bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_morris"))
}

/// A `Command` for `morris`, for tests that start it themselves (to kill
/// it, or to read its output while it runs).
pub fn morris() -> Command {
    Command::new(morris_bin())
}

/// What a run of `morris` did.
#[derive(Debug)]
pub struct Run {
    /// The exit code (`None`: ended by a signal, or killed at the limit).
    pub code: Option<i32>,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

/// How to run `morris`: standard input, time limit, working directory.
pub struct Runner<'a> {
    stdin: &'a str,
    limit: Duration,
    cwd: Option<&'a Path>,
}

impl Default for Runner<'_> {
    fn default() -> Self {
        Runner { stdin: "", limit: Duration::from_secs(300), cwd: None }
    }
}

impl<'a> Runner<'a> {
    /// With `stdin` as standard input (a pipe: not a terminal).
    pub fn stdin(mut self, stdin: &'a str) -> Self {
        self.stdin = stdin;
        self
    }

    /// Killed after `limit` (then [`Run::code`] is `None`).
    pub fn limit(mut self, limit: Duration) -> Self {
        self.limit = limit;
        self
    }

    /// In the working directory `cwd` (where relative paths land).
    pub fn cwd(mut self, cwd: &'a Path) -> Self {
        self.cwd = Some(cwd);
        self
    }

    /// Runs `morris args`; fails the test if it panicked or aborted.
    pub fn run(self, args: &[&str]) -> Run {
        let mut cmd = assert_cmd::Command::new(morris_bin());
        if let Some(dir) = self.cwd {
            cmd.current_dir(dir);
        }
        let out = cmd.args(args).write_stdin(self.stdin).timeout(self.limit).output().expect("running morris");
        let run = Run {
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        };
        assert_no_panic(args, &run);
        run
    }
}

/// A run did not panic (exit 101, or the panic message) or abort (exit
/// 134). A run killed at its time limit passes here: [`ok`] and [`fails`]
/// check the exit code.
pub fn assert_no_panic(args: &[&str], r: &Run) {
    let context = || format!("morris {args:?}:\nexit {:?}\nstdout:\n{}\nstderr:\n{}", r.code, r.stdout, r.stderr);
    assert!(!matches!(r.code, Some(101 | 134)), "panicked or aborted: {}", context());
    assert!(!r.stderr.contains("panicked") && !r.stderr.contains("RUST_BACKTRACE"), "panicked: {}", context());
}

/// Runs `morris args` with empty standard input, for at most 5 minutes.
pub fn run(args: &[&str]) -> Run {
    Runner::default().run(args)
}

/// Runs `morris` and expects success; returns its standard output.
pub fn ok(args: &[&str]) -> String {
    ok_run(args, run(args))
}

/// Runs `morris` with `stdin` and expects success; returns standard output.
pub fn ok_in(args: &[&str], stdin: &str) -> String {
    ok_run(args, Runner::default().stdin(stdin).run(args))
}

/// `r` (a run of `morris args`) succeeded; its standard output.
pub fn ok_run(args: &[&str], r: Run) -> String {
    assert_eq!(r.code, Some(0), "morris {args:?} failed:\nstdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
    r.stdout
}

/// Runs `morris` and expects a clean failure: a non-zero exit code (not a
/// signal) and a message on standard error. Returns standard error.
pub fn fails(args: &[&str]) -> String {
    fails_run(args, run(args)).stderr
}

/// `r` (a run of `morris args`) failed cleanly, with a message; the run.
pub fn fails_run(args: &[&str], r: Run) -> Run {
    assert!(
        matches!(r.code, Some(c) if c != 0),
        "morris {args:?} should fail but exited with {:?}:\nstdout:\n{}\nstderr:\n{}",
        r.code,
        r.stdout,
        r.stderr
    );
    assert!(!r.stderr.trim().is_empty(), "morris {args:?} failed without a message");
    r
}

/// Expects `text` to contain every one of `parts`.
pub fn contains_all(text: &str, parts: &[&str], context: &str) {
    for p in parts {
        assert!(text.contains(p), "{context}: `{p}` is not in:\n{text}");
    }
}

/// A path as an argument.
pub fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 temporary path")
}

/// A database solved once per test binary by `morris solve` with `args`
/// (`--db` added), in `slot`.
fn solved_once<'a>(slot: &'a OnceLock<(tempfile::TempDir, PathBuf)>, name: &str, args: &[&str]) -> &'a Path {
    &slot
        .get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            let db = dir.path().join(name);
            let mut all = vec!["solve"];
            all.extend_from_slice(args);
            all.extend_from_slice(&["--db", s(&db), "-q"]);
            ok(&all);
            (dir, db)
        })
        .1
}

/// `nine` up to 7 stones (3-3, 3-4, 4-3), solved once by `morris solve`,
/// shared read-only.
pub fn db7() -> &'static Path {
    static DB: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    solved_once(&DB, "nine", &["--rules", "nine", "--max-stones", "7"])
}

/// `three`, solved completely (7 small tables), shared read-only.
pub fn three() -> &'static Path {
    static DB: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    solved_once(&DB, "three", &["--rules", "three", "--phase", "all"])
}

/// A fresh copy of the files of `dir` in a new temporary directory, for a
/// test that changes them.
pub fn copy_of(dir: &Path) -> tempfile::TempDir {
    let copy = tempfile::tempdir().unwrap();
    copy_into(dir, copy.path());
    copy
}

/// The files of `dir` copied into `into` (created if missing).
pub fn copy_into(dir: &Path, into: &Path) {
    fs::create_dir_all(into).unwrap();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        fs::copy(&path, into.join(path.file_name().unwrap())).unwrap();
    }
}

/// Every `.mtb` table in `dir` with its bytes, by name (temporary files,
/// which a running solve renames, are not read).
pub fn tables(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mtb"))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), fs::read(&p).unwrap()))
        .collect()
}

/// The names of the temporary files (`*.tmp`) in `dir`.
pub fn temporaries(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect()
}

/// Every file in `dir` with its bytes, by name (empty when `dir` is
/// missing).
pub fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let Ok(entries) = fs::read_dir(dir) else { return BTreeMap::new() };
    entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), fs::read(&p).unwrap()))
        .collect()
}
