//! `morris bench-serve`: a bounded load test of the server on loopback.
//!
//! Starts the server in this process on `127.0.0.1` (a port the system
//! picks), then runs N client threads for T seconds, each asking
//! `GET /api/{rules}?position=...` for random sliding positions of the rule
//! sets served (each side 3 stones or more, at most `max_stones` in all),
//! one request after the other on a kept-alive connection. Reports requests
//! per second, latency percentiles, errors (any answer but 200 OK, or a
//! failed connection) and the process's resident memory over the run.
//!
//! With `idle` connections, each sends one request (`GET /healthz`) and
//! then holds its kept-alive connection silent through the load, as idle
//! browsers do; the report says how many the server kept open to the end
//! and how much resident memory they took. The server runs under
//! `config.limits` (its connection cap and timeouts).
//!
//! With `stop_under_load`, the server is stopped at the end of the load
//! while the clients are still sending (as SIGTERM stops `morris serve`):
//! the report says how long the stop took and how the requests in flight
//! at that moment ended.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use morris_db::{Bitboard, Color, RuleSet, Setup};

use crate::served::{Catalog, Config};

/// What to run.
#[derive(Debug, Clone)]
pub struct BenchOptions {
    /// Client threads.
    pub clients: usize,
    /// How long they send requests.
    pub duration: Duration,
    /// At most this many stones on the board in a random position.
    pub max_stones: u32,
    /// Random positions drawn per rule set (each client cycles through them
    /// from its own offset).
    pub positions: usize,
    /// Seed of the random positions.
    pub seed: u64,
    /// Idle connections held open through the load (see the module docs).
    pub idle: usize,
    /// Stop the server at the end of the load while the clients still send
    /// (see the module docs).
    pub stop_under_load: bool,
}

/// How a stop under load went ([`BenchOptions::stop_under_load`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StopReport {
    /// From the stop to the server's end: no connection accepted any more,
    /// every request in flight answered or cut off.
    pub took: Duration,
    /// Requests the clients had sent and not yet had answered when the
    /// stop began.
    pub in_flight: u64,
    /// Of them, the requests the server had begun to answer (its
    /// `morris_requests_in_flight`).
    pub begun: u64,
    /// Of `in_flight`, those answered (any status, whole). The rest found
    /// their kept-alive connection closed before the server had read them,
    /// which HTTP/1.1 allows (RFC 9112, section 9.3.1: clients retry such
    /// requests); a graceful stop answers at least `begun`.
    pub answered: u64,
    /// Connections the server cut off at its shutdown timeout.
    pub cut_off: usize,
}

/// What a run measured.
#[derive(Debug, Clone)]
pub struct BenchReport {
    /// Requests answered (any status).
    pub requests: u64,
    /// Answers other than 200 OK, and failed requests.
    pub errors: u64,
    /// The wall time of the run.
    pub elapsed: Duration,
    /// Latency percentiles: 50, 90, 99, 100 (the slowest).
    pub p50: Duration,
    /// 90th percentile.
    pub p90: Duration,
    /// 99th percentile.
    pub p99: Duration,
    /// The slowest request.
    pub max: Duration,
    /// Resident memory of the process (server and clients), KiB: at the
    /// start of the load, the highest seen, and at its end.
    pub rss_kib: (u64, u64, u64),
    /// The first error seen, if any.
    pub first_error: Option<String>,
    /// Idle connections: opened (their one request answered 200 OK), and
    /// of them still open at the end of the load.
    pub idle: (usize, usize),
    /// Resident memory of the process, KiB, before the idle connections
    /// were opened and once they were (the server's and the client's
    /// sides, the latter a few hundred bytes each).
    pub idle_rss_kib: (u64, u64),
    /// The stop under load, when asked for.
    pub stop: Option<StopReport>,
}

impl BenchReport {
    /// Requests per second.
    pub fn rate(&self) -> f64 {
        self.requests as f64 / self.elapsed.as_secs_f64()
    }
}

/// `count` random sliding positions of `rules` with both sides at 3 stones
/// or more and at most `max_stones` on the board, in our notation.
pub fn random_positions(rules: &RuleSet, max_stones: u32, count: usize, seed: u64) -> Vec<String> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let board = rules.board();
    let n = board.len() as u32;
    let max_each = u32::from(rules.stones());
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let w = rng.u32(3..=max_each);
        let b = rng.u32(3..=max_each);
        if w + b > max_stones.min(n) {
            continue;
        }
        let mut free: Vec<u8> = (0..n as u8).collect();
        rng.shuffle(&mut free);
        let set = |pts: &[u8]| pts.iter().fold(0 as Bitboard, |s, &p| s | 1 << p);
        let white = set(&free[..w as usize]);
        let black = set(&free[w as usize..(w + b) as usize]);
        let side = if rng.bool() { Color::White } else { Color::Black };
        let pos = Setup { white, black, side_to_move: side, white_in_hand: 0, black_in_hand: 0 };
        out.push(pos.to_text(board));
    }
    out
}

/// Resident memory of this process in KiB (Linux; 0 elsewhere).
pub fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        })
        .unwrap_or(0)
}

/// Serves `config`'s databases in this process and loads the server with
/// `options` (see the module docs).
///
/// # Errors
/// When the databases cannot be opened or the server cannot start.
pub fn run(config: &Config, options: &BenchOptions) -> anyhow::Result<BenchReport> {
    let catalog = Catalog::open(config)?;
    let mut targets: Vec<(String, Vec<String>)> = Vec::new();
    for s in catalog.all() {
        let rules = s.rules();
        let positions = random_positions(rules, options.max_stones, options.positions, options.seed);
        targets.push((rules.name().to_string(), positions));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(config.max_in_flight.max(1))
        .build()?;
    let metrics = Arc::new(crate::Metrics::default());
    let running = runtime.block_on(crate::start_with(
        catalog,
        SocketAddr::from(([127, 0, 0, 1], 0)),
        config.limits.clone(),
        metrics.clone(),
    ))?;
    let addr = running.addr;
    let rss_before_idle = rss_kib();
    let idle: Vec<TcpStream> = (0..options.idle).filter_map(|_| open_idle(addr)).collect();
    let idle_opened = idle.len();
    let rss_after_idle = rss_kib();
    let urls: Vec<String> = targets
        .iter()
        .flat_map(|(rules, positions)| {
            positions.iter().map(move |p| format!("http://{addr}/api/{rules}?position={}", p.replace(' ', "_")))
        })
        .collect();
    let rss_start = rss_kib();
    let start = Instant::now();
    let deadline = start + options.duration;
    // Nanoseconds from `start` to the stop, 0 before it; the clients send
    // until `done` (at the deadline, or once a stop under load ended).
    let stop_at = AtomicU64::new(0);
    let done = AtomicBool::new(false);
    let in_flight_at_stop = AtomicU64::new(0);
    let answered_after_stop = AtomicU64::new(0);
    let mut running = Some(running);
    let mut stop = None;
    let (lat, errors, first_error, rss_peak) = std::thread::scope(|scope| {
        let (stop_at, done) = (&stop_at, &done);
        let (in_flight_at_stop, answered_after_stop) = (&in_flight_at_stop, &answered_after_stop);
        let handles: Vec<_> = (0..options.clients)
            .map(|c| {
                let urls = &urls;
                scope.spawn(move || {
                    let agent: ureq::Agent = ureq::Agent::config_builder()
                        .http_status_as_error(false)
                        .timeout_global(Some(Duration::from_secs(30)))
                        .build()
                        .into();
                    let mut lat = Vec::new();
                    let mut errors = 0u64;
                    let mut first_error = None;
                    let mut i = c * 7919;
                    while !done.load(Ordering::Relaxed) {
                        let url = &urls[i % urls.len()];
                        i += 1;
                        let t = Instant::now();
                        let sent = t.duration_since(start).as_nanos() as u64;
                        if stop_at.load(Ordering::SeqCst) != 0 {
                            // The server is stopping: what is sent now is
                            // refused, and not part of the load's figures.
                            break;
                        }
                        let answer = fetch(&agent, url);
                        let stopped = stop_at.load(Ordering::SeqCst);
                        if stopped != 0 && sent < stopped {
                            in_flight_at_stop.fetch_add(1, Ordering::SeqCst);
                            answered_after_stop.fetch_add(u64::from(answer.is_ok()), Ordering::SeqCst);
                            break;
                        }
                        let ok = match answer {
                            Ok((200, _)) => true,
                            Ok((status, body)) => {
                                first_error.get_or_insert(format!("{status}: {body}"));
                                false
                            }
                            Err(e) => {
                                first_error.get_or_insert(e);
                                false
                            }
                        };
                        lat.push(t.elapsed());
                        errors += u64::from(!ok);
                    }
                    (lat, errors, first_error)
                })
            })
            .collect();
        let mut peak = rss_kib();
        while Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(200).min(deadline.saturating_duration_since(Instant::now())));
            peak = peak.max(rss_kib());
        }
        if options.stop_under_load {
            if let Some(r) = running.take() {
                let t = Instant::now();
                stop_at.store((t.duration_since(start).as_nanos() as u64).max(1), Ordering::SeqCst);
                let begun = metrics.in_flight.get().max(0) as u64;
                let stopped = runtime.block_on(r.stop());
                stop = Some((t.elapsed(), begun, stopped));
            }
        }
        done.store(true, Ordering::Relaxed);
        let mut all = Vec::new();
        let mut errors = 0;
        let mut first = None;
        for h in handles {
            let (l, e, f) = h.join().expect("a client thread panicked");
            all.extend(l);
            errors += e;
            first = first.or(f);
        }
        (all, errors, first, peak)
    });
    let elapsed = match stop {
        Some(_) => Duration::from_nanos(stop_at.load(Ordering::SeqCst)),
        None => start.elapsed(),
    };
    let rss_end = rss_kib();
    let idle_open = idle.iter().filter(|s| still_open(s)).count();
    drop(idle);
    let stop = match stop {
        Some((took, begun, stopped)) => {
            let stopped = stopped?;
            Some(StopReport {
                took,
                begun,
                in_flight: in_flight_at_stop.load(Ordering::SeqCst),
                answered: answered_after_stop.load(Ordering::SeqCst),
                cut_off: stopped.cut_off,
            })
        }
        None => {
            if let Some(r) = running.take() {
                runtime.block_on(r.stop())?;
            }
            None
        }
    };
    let mut lat = lat;
    lat.sort_unstable();
    let pct = |p: f64| -> Duration {
        if lat.is_empty() {
            return Duration::ZERO;
        }
        lat[((lat.len() as f64 * p).ceil() as usize).clamp(1, lat.len()) - 1]
    };
    Ok(BenchReport {
        requests: lat.len() as u64,
        errors,
        elapsed,
        p50: pct(0.50),
        p90: pct(0.90),
        p99: pct(0.99),
        max: lat.last().copied().unwrap_or_default(),
        rss_kib: (rss_start, rss_peak.max(rss_end), rss_end),
        first_error,
        idle: (idle_opened, idle_open),
        idle_rss_kib: (rss_before_idle, rss_after_idle),
        stop,
    })
}

/// `GET url`: the answer's status and body, or why there was no whole
/// answer (the connection failed or closed first).
fn fetch(agent: &ureq::Agent, url: &str) -> Result<(u16, String), String> {
    let mut resp = agent.get(url).call().map_err(|e| e.to_string())?;
    let status = resp.status().as_u16();
    let body = resp.body_mut().read_to_string().map_err(|e| e.to_string())?;
    Ok((status, body))
}

/// A connection to `addr` that has had one request answered 200 OK and
/// stays open (kept alive); `None` when it was refused or failed.
fn open_idle(addr: SocketAddr) -> Option<TcpStream> {
    let mut s = TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    s.write_all(b"GET /healthz HTTP/1.1\r\nhost: bench\r\n\r\n").ok()?;
    // The answer is small: its headers and body come in a read or two.
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while !answered(&got) {
        let n = s.read(&mut buf).ok()?;
        if n == 0 {
            return None;
        }
        got.extend_from_slice(&buf[..n]);
    }
    got.starts_with(b"HTTP/1.1 200").then_some(s)
}

/// Whether `got` holds a whole answer: headers and `content-length` bytes.
fn answered(got: &[u8]) -> bool {
    let Some(end) = got.windows(4).position(|w| w == b"\r\n\r\n") else { return false };
    let head = String::from_utf8_lossy(&got[..end]).to_ascii_lowercase();
    let len = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:").and_then(|v| v.trim().parse::<usize>().ok()))
        .unwrap_or(0);
    got.len() >= end + 4 + len
}

/// Whether the server has kept `s` open: nothing to read and no end.
fn still_open(s: &TcpStream) -> bool {
    if s.set_nonblocking(true).is_err() {
        return false;
    }
    let mut buf = [0u8; 1];
    matches!(s.peek(&mut buf), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock)
}
