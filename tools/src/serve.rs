//! `morris serve`, `morris review` and `morris bench-serve`: thin command
//! lines over `morris-server`.

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context};
use clap::Args;
use morris_db::Position;
use morris_server::bench::{self, BenchOptions};
use morris_server::review::{render_text, review_record};
use morris_server::{Config, DirArg, Source};

use crate::query::{TablesArg, TablesDir};

/// The databases to serve, shared by `serve` and `bench-serve`.
#[derive(Args)]
pub struct ServedArgs {
    /// A directory of our tables, `DIR` or `RULES=DIR` (the rule set is read
    /// from the file names when not given); repeat for several rule sets.
    #[arg(long, value_name = "[RULES=]DIR")]
    db: Vec<DirArg>,
    /// A directory of Malom's files (`std_*` for nine, `mora_*` for
    /// morabaraba, `lask_*` for lasker), `DIR` or `RULES=DIR`; draws show
    /// Malom's rank.
    #[arg(long, value_name = "[RULES=]DIR")]
    malom: Vec<DirArg>,
    /// The most table look-ups at once (default: twice the cores).
    #[arg(long, value_name = "N")]
    max_in_flight: Option<usize>,
}

impl ServedArgs {
    fn config(&self) -> anyhow::Result<Config> {
        if self.db.is_empty() && self.malom.is_empty() {
            bail!("give a database: --db DIR (or --malom DIR)");
        }
        let mut config = Config { dbs: self.db.clone(), malom: self.malom.clone(), ..Config::default() };
        if let Some(n) = self.max_in_flight {
            config.max_in_flight = n.max(1);
        }
        Ok(config)
    }
}

/// Arguments of `morris serve`.
#[derive(Args)]
pub struct ServeArgs {
    #[command(flatten)]
    served: ServedArgs,
    /// The address to listen on; loopback unless told otherwise.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    bind: SocketAddr,
}

/// Runs `morris serve`.
pub fn serve(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let config = Config { bind: args.bind, ..args.served.config()? };
    morris_server::serve(config)?;
    Ok(ExitCode::SUCCESS)
}

/// Arguments of `morris review`.
#[derive(Args)]
pub struct ReviewArgs {
    #[command(flatten)]
    tables: TablesArg,
    /// The game record (`-` for standard input), as `morris replay` reads
    /// it: our notation (`1. d6 d2 2. f4 b4 ...`) or a PGN as Sanmill
    /// exports it (its `[FEN]` tag is the start).
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Start from this position instead of the start (or the record's
    /// `[FEN]` tag).
    #[arg(long, value_name = "POSITION", allow_hyphen_values = true)]
    from: Option<String>,
    /// `text` (one line per move, then a summary per player) or `json`.
    #[arg(long, value_name = "FORMAT", default_value = "text", value_parser = ["text", "json"])]
    format: String,
}

/// Runs `morris review`.
pub fn review(args: ReviewArgs) -> anyhow::Result<ExitCode> {
    let rules = args.tables.rule_set()?;
    let text = if args.file.as_os_str() == "-" {
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s).context("cannot read the record from standard input")?;
        s
    } else {
        std::fs::read_to_string(&args.file).with_context(|| format!("cannot read {}", args.file.display()))?
    };
    let start = match &args.from {
        None => None,
        Some(t) => Some(Position::read_for(t, &rules).with_context(|| format!("cannot read position `{t}`"))?.0),
    };
    let source = match args.tables.dir()? {
        TablesDir::Malom(dir) => Source::open_malom(dir, rules)?,
        TablesDir::Ours(dir) => Source::open_ours(dir, rules)?,
    };
    let review = review_record(source, start, &text)?;
    let mut out = std::io::stdout().lock();
    if args.format == "json" {
        serde_json::to_writer_pretty(&mut out, &review)?;
        writeln!(out)?;
    } else {
        write!(out, "{}", render_text(&review))?;
    }
    if let Some(e) = &review.error {
        out.flush()?;
        bail!("{e}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Arguments of `morris bench-serve`.
#[derive(Args)]
pub struct BenchServeArgs {
    #[command(flatten)]
    served: ServedArgs,
    /// Concurrent clients (threads, one kept-alive connection each).
    #[arg(long, value_name = "N", default_value_t = 64)]
    clients: usize,
    /// Seconds of load.
    #[arg(long, value_name = "T", default_value_t = 20.0)]
    seconds: f64,
    /// At most this many stones on the board in the random positions.
    #[arg(long, value_name = "N", default_value_t = 10)]
    max_stones: u32,
    /// Random positions per rule set.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    positions: usize,
    /// Seed of the random positions.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Runs `morris bench-serve`.
pub fn bench_serve(args: BenchServeArgs) -> anyhow::Result<ExitCode> {
    if !(args.seconds > 0.0 && args.seconds <= 3600.0) || args.clients == 0 || args.clients > 1024 {
        bail!("--seconds must be in (0, 3600] and --clients in 1..=1024");
    }
    let config = args.served.config()?;
    let options = BenchOptions {
        clients: args.clients,
        duration: Duration::from_secs_f64(args.seconds),
        max_stones: args.max_stones,
        positions: args.positions.max(1),
        seed: args.seed,
    };
    let r = bench::run(&config, &options)?;
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{} clients, {:.1} s: {} requests, {:.0} requests/s, {} errors",
        args.clients,
        r.elapsed.as_secs_f64(),
        r.requests,
        r.rate(),
        r.errors
    )?;
    writeln!(
        out,
        "latency: p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        ms(r.p50),
        ms(r.p90),
        ms(r.p99),
        ms(r.max)
    )?;
    writeln!(
        out,
        "resident memory (server and clients): {} MiB at the start of the load, {} MiB peak, {} MiB at the end",
        r.rss_kib.0 / 1024,
        r.rss_kib.1 / 1024,
        r.rss_kib.2 / 1024
    )?;
    if let Some(e) = r.first_error {
        writeln!(out, "first error: {e}")?;
    }
    Ok(if r.errors == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
