//! What the commands show on the terminal: output streams that survive a
//! closed pipe ([`output`]), progress bars ([`bars`]), a solve's events as
//! notes ([`events`]), a table's verification ([`verified`]), and the small formatting helpers every command uses.

pub mod bars;
pub mod events;
pub mod help;
pub mod output;
pub mod verified;

/// `n` and a noun in the number `n` asks for: `1 table`, `2 tables`,
/// `1 ply`, `0 plies`.
pub fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// An error and its causes, `: `-separated, each cause once: a cause whose
/// text already ends the message (an error that shows its source in its own
/// text and also returns it as its source) is not repeated.
pub fn message(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let part = cause.to_string();
        if text.ends_with(&part) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&part);
    }
    text
}

/// The command to run about a missing table (the libraries say what is
/// missing, not which command makes it).
pub fn advice(e: &anyhow::Error) -> Option<String> {
    use morris_probe::{MissingHint, ProbeError};
    let Some(missing @ ProbeError::MissingTable { hint, .. }) = e.chain().find_map(|c| c.downcast_ref::<ProbeError>())
    else {
        return None;
    };
    let dir = missing.missing_dir()?.display();
    Some(match hint {
        MissingHint::OtherRuleSets(_) => "is `--rules` right?".to_string(),
        MissingHint::Unsolved { rules, placement: false } => {
            format!("solve it with `morris solve --rules {rules} --db {dir}`")
        }
        MissingHint::Unsolved { rules, placement: true } => {
            format!("solve the placement tables with `morris solve --rules {rules} --phase all --db {dir}`")
        }
        MissingHint::NotExported { rules } => {
            format!("export it from a solved database with `morris export-wdl --rules {rules} --db DIR --out {dir}`")
        }
        MissingHint::NotInMalom { .. } | MissingHint::InMalomFull { .. } => return None,
    })
}

/// The process's peak resident memory, from /proc (Linux only), as
/// `222.2 MiB`; `unknown` where /proc does not say.
pub fn peak_memory() -> String {
    let read = || -> Option<String> {
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
        let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(format!("{:.1} MiB", kib / 1024.0))
    };
    read().unwrap_or_else(|| "unknown".to_string())
}

/// Bytes as `1.23 GiB`.
pub fn gib(bytes: u64) -> String {
    format!("{:.2} GiB", bytes as f64 / (1u64 << 30) as f64)
}

/// Prints what a solve will take (`plan`) against what this machine has
/// free, on one line; refuses (unless `force`) when the memory or disk it
/// needs exceeds what is free.
///
/// # Errors
/// When it does not fit, naming the figures; when `out` fails.
pub fn report_plan(
    plan: &morris_solver::estimate::Plan,
    rules: &morris_db::RuleSet,
    dir: &std::path::Path,
    force: bool,
    out: &mut impl std::io::Write,
) -> anyhow::Result<()> {
    use morris_solver::estimate::{Plan, MEASURED_CORES};
    let free = Plan::free(dir);
    writeln!(
        out,
        "{} of {} to solve, {} slots: estimated {:.0} s on {MEASURED_CORES} cores, peak memory {} ({} working, {} of tables read), disk {}{} (free: memory {}, disk {})",
        plural(plan.missing() as u64, "table", "tables"),
        rules.name(),
        plan.slots(),
        plan.seconds(),
        gib(plan.memory()),
        gib(plan.memory_parts().0),
        gib(plan.memory_parts().1),
        gib(plan.disk_peak()),
        if plan.finished() == morris_solver::Finished::Compress {
            format!(
                " at the peak with --compress, {}{} at the end",
                if plan.disk_final() < 0 { "-" } else { "+" },
                gib(plan.disk_final().unsigned_abs())
            )
        } else {
            String::new()
        },
        free.memory.map_or("unknown".into(), gib),
        free.disk.map_or("unknown".into(), gib),
    )?;
    out.flush()?;
    if !plan.fits(&free) && !force {
        anyhow::bail!("this solve does not fit this machine (figures above); --yes (or --force) to try anyway");
    }
    Ok(())
}

/// An input as an error message quotes it (at most
/// [`morris_db::QUOTE_CHARS`] characters of it): the one helper of the
/// libraries and the command line.
pub use morris_db::quoted;

/// Prints a command's error on standard error: `error: ` and its causes,
/// then, where a table is missing, a `hint: ` naming the command that
/// makes it.
pub fn report_error(e: &anyhow::Error) {
    output::errln!("error: {}", message(e));
    if let Some(advice) = advice(e) {
        output::errln!("hint: {advice}");
    }
}

/// Writes `text` to `file` under a temporary name (`FILE.tmp`), made
/// executable (mode 755) when `executable`, then renamed into place, so a
/// file a command writes is never left half written.
///
/// # Errors
/// When the temporary file cannot be written or made executable, or the
/// rename fails; each names the file.
pub fn write_atomically(file: &std::path::Path, text: &str, executable: bool) -> anyhow::Result<()> {
    use anyhow::Context as _;
    let mut tmp = file.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    std::fs::write(&tmp, text).with_context(|| format!("cannot write {}", tmp.display()))?;
    #[cfg(unix)]
    if executable {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755))
            .with_context(|| format!("cannot make {} executable", tmp.display()))?;
    }
    #[cfg(not(unix))]
    let _ = executable;
    std::fs::rename(&tmp, file).with_context(|| format!("cannot write {}", file.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An error that shows its source in its own text and also returns it
    /// as its source: the kind that printed "Permission denied (os error
    /// 13): Permission denied (os error 13)".
    #[derive(Debug)]
    struct ShowsItsSource(std::io::Error);

    impl std::fmt::Display for ShowsItsSource {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "table.mtb: {}", self.0)
        }
    }

    impl std::error::Error for ShowsItsSource {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn each_cause_is_said_once() {
        let io = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        let said = io.to_string();
        let e = anyhow::Error::new(ShowsItsSource(io)).context("cannot open the database");
        assert_eq!(message(&e), format!("cannot open the database: table.mtb: {said}"));
    }

    #[test]
    fn causes_that_add_something_are_kept() {
        let e = anyhow::anyhow!("no such file").context("cannot read d").context("verify");
        assert_eq!(message(&e), "verify: cannot read d: no such file");
    }

    #[test]
    fn table_errors_say_the_os_error_once() {
        let e = morris_db::TableError::Io {
            path: "t.mtb".into(),
            error: std::io::Error::from(std::io::ErrorKind::PermissionDenied),
        };
        let text = format!("{:#}", anyhow::Error::new(e));
        assert_eq!(text.matches("ermission denied").count(), 1, "{text}");
    }

    #[test]
    fn plural_forms() {
        assert_eq!(plural(1, "table", "tables"), "1 table");
        assert_eq!(plural(0, "ply", "plies"), "0 plies");
        assert_eq!(plural(2, "ply", "plies"), "2 plies");
    }
}
