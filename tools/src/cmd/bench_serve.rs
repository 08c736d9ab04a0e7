//! `morris bench-serve`: load the server on loopback and report requests
//! per second, latency percentiles and memory (`morris_server::bench`).

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::bail;
use clap::Args;
use morris_server::bench::{self, BenchOptions};
use morris_server::Limits;

use crate::args::ServedArgs;

/// Load the server on loopback and report its throughput.
///
/// Load the server on loopback: N concurrent clients for T seconds on
/// random positions; requests per second, latency percentiles, errors,
/// memory.
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
    /// Idle connections held open through the load: each sends one request
    /// and then stays silent, kept alive (as idle browsers do).
    #[arg(long, value_name = "N", default_value_t = 0)]
    idle: usize,
    /// The server's cap on open connections (`serve --max-connections`).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_connections)]
    max_connections: usize,
    /// At the end of the load, stop the server while the clients still send
    /// (as SIGTERM stops `morris serve`) and report how long the stop took
    /// and how the requests in flight ended.
    #[arg(long)]
    stop_under_load: bool,
}

/// Runs `morris bench-serve`.
pub fn run(args: BenchServeArgs) -> anyhow::Result<ExitCode> {
    if !(args.seconds > 0.0 && args.seconds <= 3600.0) || args.clients == 0 || args.clients > 4096 {
        bail!("--seconds must be in (0, 3600] and --clients in 1..=4096");
    }
    if args.idle > 100_000 {
        bail!("--idle must be at most 100000, not {}", args.idle);
    }
    let mut config = args.served.config()?;
    config.limits.max_connections = args.max_connections;
    config.limits.check().map_err(anyhow::Error::msg)?;
    let options = BenchOptions {
        clients: args.clients,
        duration: Duration::from_secs_f64(args.seconds),
        max_stones: args.max_stones,
        positions: args.positions.max(1),
        seed: args.seed,
        idle: args.idle,
        stop_under_load: args.stop_under_load,
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
    if args.idle > 0 {
        let (opened, open) = r.idle;
        let grew = r.idle_rss_kib.1.saturating_sub(r.idle_rss_kib.0);
        writeln!(
            out,
            "idle connections: {opened} of {} opened, {open} still open at the end; resident memory {} MiB -> {} MiB while opening them ({:.1} KiB each)",
            args.idle,
            r.idle_rss_kib.0 / 1024,
            r.idle_rss_kib.1 / 1024,
            if opened > 0 { grew as f64 / opened as f64 } else { 0.0 }
        )?;
    }
    if let Some(s) = r.stop {
        writeln!(
            out,
            "stop under load: {:.1} ms from the stop to the server's end; {} requests in flight, {} of them begun by the server, {} answered (the rest found their connection closed unread); {} connections cut off at the shutdown timeout",
            ms(s.took),
            s.in_flight,
            s.begun,
            s.answered,
            s.cut_off
        )?;
    }
    if let Some(e) = r.first_error {
        writeln!(out, "first error: {e}")?;
    }
    let stop_lost = r.stop.is_some_and(|s| s.answered < s.begun || s.cut_off > 0);
    Ok(if r.errors == 0 && !stop_lost { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
