//! The server as an operator leaves it running in public: connection cap,
//! header, idle and body timeouts, load shedding, graceful shutdown, every
//! error as JSON, CORS, ETag, compression, security headers, `/healthz`,
//! `/metrics`, and a position some of whose moves lead to a missing table.
//! Requests are written by hand on raw sockets, so that each test controls
//! exactly what the client sends and when.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use morris_db::{Position, RuleSet, Value};
use morris_probe::Database;
use morris_server::{Catalog, Config, DirArg, Limits, Metrics, Running};

/// `six` solved whole, and a copy without the sliding table 3-4 (where a
/// capture from 4-4 leads).
struct Dbs {
    _tmp: tempfile::TempDir,
    six: PathBuf,
    six_without_3_4: PathBuf,
}

fn dbs() -> &'static Dbs {
    static DBS: OnceLock<Dbs> = OnceLock::new();
    DBS.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        let six = tmp.path().join("six");
        morris_solver::solve_all(&RuleSet::preset("six").unwrap(), &six, false).unwrap();
        let partial = tmp.path().join("six-partial");
        std::fs::create_dir(&partial).unwrap();
        for entry in std::fs::read_dir(&six).unwrap() {
            let entry = entry.unwrap();
            if entry.file_name() != "six_3_4_0_0.mtb" {
                std::fs::copy(entry.path(), partial.join(entry.file_name())).unwrap();
            }
        }
        Dbs { _tmp: tmp, six, six_without_3_4: partial }
    })
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap())
}

/// A server over `dir` (rule set six) under `limits`, `max_in_flight`
/// look-ups at once.
fn start(dir: &Path, limits: Limits, max_in_flight: usize) -> (Running, Arc<Metrics>) {
    let config = Config {
        dbs: vec![DirArg { rules: Some("six".into()), dir: dir.to_path_buf() }],
        max_in_flight,
        ..Config::default()
    };
    let catalog = Catalog::open(&config).unwrap();
    let metrics = Arc::new(Metrics::default());
    let running = runtime()
        .block_on(morris_server::start_with(catalog, SocketAddr::from(([127, 0, 0, 1], 0)), limits, metrics.clone()))
        .unwrap();
    (running, metrics)
}

/// A shared server over all of six with the default limits.
fn server() -> SocketAddr {
    static ADDR: OnceLock<SocketAddr> = OnceLock::new();
    *ADDR.get_or_init(|| {
        let (running, _) = start(&dbs().six, Limits::default(), 4);
        let addr = running.addr;
        std::mem::forget(running);
        addr
    })
}

/// An answer read off the wire.
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
}

/// Reads one answer (headers, then a body of its `content-length`, or to
/// the end) from `s`.
fn read_answer(s: &mut TcpStream) -> Answer {
    let mut bytes = Vec::new();
    let mut buf = [0u8; 8192];
    let head_end = loop {
        if let Some(i) = bytes.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = s.read(&mut buf).expect("read");
        assert!(n > 0, "connection closed before an answer: {}", String::from_utf8_lossy(&bytes));
        bytes.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&bytes[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let status: u16 = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let mut body = bytes[head_end..].to_vec();
    if headers.iter().any(|(n, v)| n == "transfer-encoding" && v.contains("chunked")) {
        let _ = s.read_to_end(&mut body);
        return Answer { status, headers, body: dechunk(&body) };
    }
    let length = headers.iter().find(|(n, _)| n == "content-length").map(|(_, v)| v.parse::<usize>().unwrap());
    match length {
        Some(len) => {
            while body.len() < len {
                let n = s.read(&mut buf).expect("read body");
                assert!(n > 0, "body cut short");
                body.extend_from_slice(&buf[..n]);
            }
        }
        None if status != 304 && status != 204 => {
            let _ = s.read_to_end(&mut body);
        }
        None => {}
    }
    Answer { status, headers, body }
}

/// The body of a chunked answer: each chunk's size line (hex) dropped.
fn dechunk(mut raw: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    loop {
        let line_end = raw.windows(2).position(|w| w == b"\r\n").expect("a chunk size line");
        let size_text = String::from_utf8_lossy(&raw[..line_end]);
        let size = usize::from_str_radix(size_text.split(';').next().unwrap().trim(), 16).expect("a hex chunk size");
        raw = &raw[line_end + 2..];
        if size == 0 {
            return body;
        }
        body.extend_from_slice(&raw[..size]);
        raw = &raw[size + 2..];
    }
}

/// Sends `request` (a whole HTTP/1.1 request) on a new connection and
/// reads the answer.
fn send(addr: SocketAddr, request: &str) -> Answer {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    read_answer(&mut s)
}

fn get(addr: SocketAddr, path: &str, extra_headers: &str) -> Answer {
    send(addr, &format!("GET {path} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n{extra_headers}\r\n"))
}

/// Six's start position, URL-encoded.
const START: &str = "/api/six?position=W:_B:_w_6_6";

#[test]
fn errors_are_json_whatever_the_layer() {
    let addr = server();
    let a = send(addr, "DELETE /api/six HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n");
    assert_eq!(a.status, 405);
    assert_eq!(a.json()["error"], "method_not_allowed");
    let body = "x".repeat(morris_server::MAX_BODY + 1);
    let a = send(
        addr,
        &format!(
            "POST /api/six/review HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        ),
    );
    assert_eq!(a.status, 413);
    assert_eq!(a.json()["error"], "too_long");
    let a = get(addr, "/nothing/here", "");
    assert_eq!((a.status, a.json()["error"].as_str()), (404, Some("not_found")));
}

#[test]
fn a_bad_record_to_review_is_400() {
    let addr = server();
    for record in ["1. b4 b4", "this is not a game", "1. d7-d6xq9"] {
        let a = send(
            addr,
            &format!(
                "POST /api/six/review HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{record}",
                record.len()
            ),
        );
        assert_eq!(a.status, 400, "{record}: {}", String::from_utf8_lossy(&a.body));
        assert_eq!(a.json()["error"], "bad_record", "{record}");
    }
    let record = "1. b4 d2";
    let a = send(
        addr,
        &format!(
            "POST /api/six/review HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{record}",
            record.len()
        ),
    );
    assert_eq!(a.status, 200, "{}", String::from_utf8_lossy(&a.body));
}

#[test]
fn etag_and_cache_control_and_304() {
    let addr = server();
    let a = get(addr, START, "");
    assert_eq!(a.status, 200);
    let tag = a.header("etag").expect("an ETag").to_string();
    assert!(a.header("cache-control").unwrap().contains("max-age"), "{:?}", a.headers);
    let again = get(addr, START, "");
    assert_eq!(again.header("etag"), Some(tag.as_str()), "the same answer has the same tag");
    let other = get(addr, "/api/six?position=W:b4_B:_b_5_6", "");
    assert_ne!(other.header("etag"), Some(tag.as_str()));
    let cached = get(addr, START, &format!("if-none-match: {tag}\r\n"));
    assert_eq!(cached.status, 304);
    assert!(cached.body.is_empty());
    let stale = get(addr, START, "if-none-match: \"0000000000000000\"\r\n");
    assert_eq!(stale.status, 200);
}

#[test]
fn gzip_when_asked_and_not_otherwise() {
    let addr = server();
    let plain = get(addr, START, "");
    assert_eq!(plain.header("content-encoding"), None);
    let zipped = get(addr, START, "accept-encoding: gzip\r\n");
    assert_eq!(zipped.status, 200);
    assert_eq!(zipped.header("content-encoding"), Some("gzip"));
    assert_eq!(&zipped.body[..2], &[0x1f, 0x8b], "a gzip stream starts with its magic");
    assert!(zipped.body.len() < plain.body.len());
}

#[test]
fn cors_and_security_headers() {
    let addr = server();
    let a = get(addr, START, "origin: https://example.org\r\n");
    assert_eq!(a.header("access-control-allow-origin"), Some("*"));
    assert_eq!(a.header("x-content-type-options"), Some("nosniff"));
    let preflight = send(
        addr,
        "OPTIONS /api/six HTTP/1.1\r\nhost: x\r\nconnection: close\r\norigin: https://example.org\r\n\
         access-control-request-method: GET\r\n\r\n",
    );
    assert!(preflight.status == 200 || preflight.status == 204, "{}", preflight.status);
    assert!(preflight.header("access-control-allow-methods").unwrap_or("").contains("GET"), "{:?}", preflight.headers);
    let page = get(addr, "/", "");
    assert!(page.header("content-security-policy").unwrap().contains("default-src 'self'"));

    // Configured origins: only those.
    let limits = Limits { cors_origins: vec!["https://good.example".into()], ..Limits::default() };
    let (running, _) = start(&dbs().six, limits, 2);
    let good = get(running.addr, START, "origin: https://good.example\r\n");
    assert_eq!(good.header("access-control-allow-origin"), Some("https://good.example"));
    let bad = get(running.addr, START, "origin: https://evil.example\r\n");
    assert_eq!(bad.header("access-control-allow-origin"), None);
    runtime().block_on(running.stop()).unwrap();
}

#[test]
fn healthz_and_metrics() {
    let (running, metrics) = start(&dbs().six, Limits::default(), 2);
    let addr = running.addr;
    assert_eq!(get(addr, "/healthz", "").json()["status"], "ok");
    assert_eq!(get(addr, START, "").status, 200);
    assert_eq!(get(addr, "/api/six?position=junk", "").status, 400);
    let text = String::from_utf8(get(addr, "/metrics", "").body).unwrap();
    assert!(text.contains(r#"morris_requests_total{route="/api/{rules}",status="200"} 1"#), "{text}");
    assert!(text.contains(r#"morris_requests_total{route="/api/{rules}",status="400"} 1"#), "{text}");
    assert!(text.contains("morris_request_duration_seconds_bucket"), "{text}");
    let tables = std::fs::read_dir(&dbs().six).unwrap().count();
    assert!(text.contains(&format!(r#"morris_tables_served{{rules="six"}} {tables}"#)), "{text}");
    assert!(text.contains("morris_connections_open"), "{text}");
    drop(metrics);
    runtime().block_on(running.stop()).unwrap();
}

#[test]
fn a_move_into_a_missing_table_is_unknown_and_the_rest_answers() {
    let (running, _) = start(&dbs().six_without_3_4, Limits::default(), 2);
    // White slides d6-b6 closing b2-b4-b6 and removes a Black stone: the
    // captures lead to 3-4 (Black to move with 3), whose table is gone.
    let text = "W:b2,b4,d6,e4 B:f2,d3,e5,c3 w";
    let rules = RuleSet::preset("six").unwrap();
    let a = get(running.addr, &format!("/api/six?position={}", text.replace(' ', "_")), "");
    assert_eq!(a.status, 200, "{}", String::from_utf8_lossy(&a.body));
    let json = a.json();
    let full = Database::open(&dbs().six, rules.clone()).unwrap();
    let pos = Position::parse(text, &rules).unwrap();
    let expected = full.analyze(&pos).unwrap();
    let moves = json["moves"].as_array().unwrap();
    assert_eq!(moves.len(), expected.len());
    let mut unknown = 0;
    for m in moves {
        let notation = m["notation"].as_str().unwrap();
        let (_, value) = expected.iter().find(|(mv, _)| mv.notation(rules.board()) == notation).unwrap();
        if notation.contains('x') {
            unknown += 1;
            assert_eq!(m["category"], "unknown", "{m}");
            assert_eq!(m["dtm"], serde_json::Value::Null);
        } else {
            let category = match value {
                Value::Win(_) => "win",
                Value::Draw => "draw",
                Value::Loss(_) => "loss",
            };
            assert_eq!(m["category"], category, "{m}");
            assert_eq!(m["dtm"].as_u64().map(|d| d as u16), value.plies(), "{m}");
        }
    }
    assert!(unknown > 0, "the position has captures: {json}");
    let last_known = moves.iter().rposition(|m| m["category"] != "unknown").unwrap();
    assert!(moves[..=last_known].iter().all(|m| m["category"] != "unknown"), "unknown moves come last");
    runtime().block_on(running.stop()).unwrap();
}

#[test]
fn connections_past_the_cap_get_503_with_retry_after() {
    let limits = Limits { max_connections: 2, ..Limits::default() };
    let (running, metrics) = start(&dbs().six, limits, 2);
    let idle: Vec<TcpStream> = (0..2).map(|_| TcpStream::connect(running.addr).unwrap()).collect();
    std::thread::sleep(Duration::from_millis(200));
    let a = get(running.addr, START, "");
    assert_eq!(a.status, 503);
    assert_eq!(a.header("retry-after"), Some("1"));
    assert_eq!(a.json()["error"], "overloaded");
    assert_eq!(metrics.refused_connections.get(), 1);
    drop(idle);
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(get(running.addr, START, "").status, 200, "a slot is free again");
    runtime().block_on(running.stop()).unwrap();
}

/// Reads from `s` until the server closes it; how long that took.
fn until_closed(s: &mut TcpStream) -> Duration {
    let start = Instant::now();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut buf = [0u8; 1024];
    loop {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => return start.elapsed(),
            Ok(_) => {}
        }
    }
}

#[test]
fn slow_and_idle_clients_are_disconnected() {
    let limits =
        Limits { header_timeout: Duration::from_secs(1), idle_timeout: Duration::from_secs(30), ..Limits::default() };
    let (running, _) = start(&dbs().six, limits, 2);
    // Half a request's headers, then nothing.
    let mut slow = TcpStream::connect(running.addr).unwrap();
    slow.write_all(b"GET /api/six?position=W:_B:_w_6_6 HTTP/1.1\r\nhost: x\r\n").unwrap();
    let took = until_closed(&mut slow);
    assert!(took < Duration::from_secs(10), "slow headers held the connection {took:?}");
    runtime().block_on(running.stop()).unwrap();

    let limits =
        Limits { header_timeout: Duration::from_secs(30), idle_timeout: Duration::from_secs(1), ..Limits::default() };
    let (running, _) = start(&dbs().six, limits, 2);
    // A kept-alive connection that answered once, then sits idle.
    let mut idle = TcpStream::connect(running.addr).unwrap();
    idle.write_all(format!("GET {START} HTTP/1.1\r\nhost: x\r\n\r\n").as_bytes()).unwrap();
    assert_eq!(read_answer(&mut idle).status, 200);
    let took = until_closed(&mut idle);
    assert!(took < Duration::from_secs(10), "an idle connection stayed open {took:?}");
    runtime().block_on(running.stop()).unwrap();
}

/// Starts a POST whose body is not all sent: it holds a look-up slot
/// (the handler waits for the body) until the rest comes.
fn half_sent_review(addr: SocketAddr, record: &str) -> TcpStream {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let head = format!(
        "POST /api/six/review HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-length: {}\r\n\r\n",
        record.len()
    );
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(&record.as_bytes()[..2]).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    s
}

#[test]
fn past_the_in_flight_limit_and_its_queue_the_answer_is_503() {
    let limits = Limits { max_queue: 0, ..Limits::default() };
    let (running, _) = start(&dbs().six, limits, 1);
    let record = "1. b4 d2";
    let mut held = half_sent_review(running.addr, record);
    let a = get(running.addr, START, "");
    assert_eq!(a.status, 503, "{}", String::from_utf8_lossy(&a.body));
    assert_eq!(a.header("retry-after"), Some("1"));
    assert_eq!(a.json()["error"], "overloaded");
    held.write_all(&record.as_bytes()[2..]).unwrap();
    assert_eq!(read_answer(&mut held).status, 200);
    assert_eq!(get(running.addr, START, "").status, 200);
    runtime().block_on(running.stop()).unwrap();
}

#[test]
fn a_body_that_never_comes_times_out_as_json() {
    let limits = Limits { body_timeout: Duration::from_secs(1), ..Limits::default() };
    let (running, _) = start(&dbs().six, limits, 2);
    let mut held = half_sent_review(running.addr, "1. b4 d2");
    let start = Instant::now();
    let a = read_answer(&mut held);
    assert!(start.elapsed() < Duration::from_secs(10));
    assert!(a.status >= 400, "{}", a.status);
    assert!(a.json()["error"].is_string());
    runtime().block_on(running.stop()).unwrap();
}

#[test]
fn stop_lets_requests_in_flight_finish_and_closes_idle_connections() {
    let limits = Limits { shutdown_timeout: Duration::from_secs(10), ..Limits::default() };
    let (running, _) = start(&dbs().six, limits, 2);
    let addr = running.addr;
    let record = "1. b4 d2";
    let mut in_flight = half_sent_review(addr, record);
    let _idle = TcpStream::connect(addr).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let stopping = runtime().spawn(running.stop());
    std::thread::sleep(Duration::from_millis(300));
    // No new connection is accepted once stopping.
    assert!(TcpStream::connect(addr).is_err(), "the server still accepts connections while stopping");
    in_flight.write_all(&record.as_bytes()[2..]).unwrap();
    let a = read_answer(&mut in_flight);
    assert_eq!(a.status, 200, "the request in flight was answered");
    let started = Instant::now();
    let stopped = runtime().block_on(stopping).unwrap().unwrap();
    assert_eq!(stopped.cut_off, 0);
    assert!(started.elapsed() < Duration::from_secs(5), "an idle connection held the shutdown");
}

#[test]
fn stop_cuts_off_what_outlasts_the_shutdown_timeout() {
    let limits = Limits { shutdown_timeout: Duration::from_secs(1), ..Limits::default() };
    let (running, _) = start(&dbs().six, limits, 2);
    let _held = half_sent_review(running.addr, "1. b4 d2");
    let started = Instant::now();
    let stopped = runtime().block_on(running.stop()).unwrap();
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    assert_eq!(stopped.cut_off, 1);
}

#[test]
fn limits_out_of_range_are_refused_at_start() {
    let d = dbs();
    for limits in [
        Limits { max_connections: 0, ..Limits::default() },
        Limits { header_timeout: Duration::ZERO, ..Limits::default() },
        Limits { request_timeout: Duration::from_secs(100_000), ..Limits::default() },
        Limits { cors_origins: vec!["example.org".into()], ..Limits::default() },
    ] {
        let config =
            Config { dbs: vec![DirArg { rules: Some("six".into()), dir: d.six.clone() }], ..Config::default() };
        let catalog = Catalog::open(&config).unwrap();
        let r = runtime().block_on(morris_server::start_with(
            catalog,
            SocketAddr::from(([127, 0, 0, 1], 0)),
            limits.clone(),
            Arc::new(Metrics::default()),
        ));
        assert!(r.is_err(), "{limits:?} was accepted");
    }
}

/// A copy of all of six, for a test that changes its files.
fn six_copy() -> tempfile::TempDir {
    let copy = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(&dbs().six).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), copy.path().join(entry.file_name())).unwrap();
    }
    copy
}

/// A sliding position of six in sector 4-4, whose table (about 220 KB)
/// spans many pages.
const POS44: &str = "W:b2,b4,d6,e4 B:f2,d3,e5,c3 w";

fn query(text: &str) -> String {
    format!("/api/six?position={}", text.replace(' ', "_"))
}

/// A table truncated under the running server is answered as a 500
/// `damaged_table` naming the file, on the next request and every one
/// after (never SIGBUS: the process answers on); a position that needs
/// only other tables still answers.
#[test]
fn a_table_truncated_under_the_server_is_a_500_naming_it() {
    let copy = six_copy();
    let (running, _) = start(copy.path(), Limits::default(), 2);
    let a = get(running.addr, &query(POS44), "");
    assert_eq!(a.status, 200, "{}", String::from_utf8_lossy(&a.body));
    let file = copy.path().join("six_4_4_0_0.mtb");
    std::fs::OpenOptions::new().write(true).open(&file).unwrap().set_len(200).unwrap();
    for _ in 0..3 {
        let a = get(running.addr, &query(POS44), "");
        assert_eq!(a.status, 500, "{}", String::from_utf8_lossy(&a.body));
        let json = a.json();
        assert_eq!(json["error"], "damaged_table", "{json}");
        assert_eq!(json["file"], "six_4_4_0_0.mtb", "{json}");
        assert!(json["message"].as_str().unwrap().contains("file size"), "{json}");
    }
    let a = get(running.addr, START, "");
    assert_eq!(a.status, 200, "{}", String::from_utf8_lossy(&a.body));
    assert_eq!(get(running.addr, "/healthz", "").status, 200);
    runtime().block_on(running.stop()).unwrap();
}

/// A table replaced by a rename under the running server (an edited copy
/// whose entry for one position says Loss(4)) is served from then on:
/// within a second the answer is the new file's.
#[test]
fn a_table_replaced_under_the_server_is_served_anew() {
    let copy = six_copy();
    let rules = RuleSet::preset("six").unwrap();
    let pos = Position::parse(POS44, &rules).unwrap();
    let before = Database::open(copy.path(), rules.clone()).unwrap().value(&pos).unwrap();
    let edited = Value::loss(4).unwrap();
    assert_ne!(before, edited);
    let (running, _) = start(copy.path(), Limits::default(), 2);
    let a = get(running.addr, &query(POS44), "");
    assert_eq!(a.json()["dtm"].as_u64().map(|d| d as u16), before.plies());
    let sector = pos.sector();
    let table = morris_db::Table::open(copy.path(), &rules, sector, rules.indexer().sector(sector).len()).unwrap();
    let mut entries = table.entries().unwrap();
    drop(table);
    entries[rules.indexer().slot(pos.us(), pos.them()) as usize] = edited.to_entry();
    let header = morris_db::TableHeader::for_entries(&rules, sector, &entries);
    morris_db::table::write_table(&copy.path().join("six_4_4_0_0.mtb"), &header, &entries).unwrap();
    std::thread::sleep(morris_probe::tables::RECHECK_INTERVAL + Duration::from_millis(100));
    let json = get(running.addr, &query(POS44), "").json();
    assert_eq!((json["category"].as_str(), json["dtm"].as_u64()), (Some("loss"), Some(4)), "{json}");
    runtime().block_on(running.stop()).unwrap();
}

/// A table the server may not read is a 500 `permission_denied` naming
/// it, not a missing table. Root reads it whatever its mode: then the test
/// says so and checks nothing.
#[cfg(unix)]
#[test]
fn a_table_that_may_not_be_read_is_permission_denied() {
    use std::os::unix::fs::PermissionsExt;
    let copy = six_copy();
    let file = copy.path().join("six_4_4_0_0.mtb");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::File::open(&file).is_ok() {
        eprintln!("skipped: this process reads a file of mode 000 (running as root), so permissions cannot be tested");
        return;
    }
    let (running, _) = start(copy.path(), Limits::default(), 2);
    let a = get(running.addr, &query(POS44), "");
    assert_eq!(a.status, 500, "{}", String::from_utf8_lossy(&a.body));
    let json = a.json();
    assert_eq!((json["error"].as_str(), json["file"].as_str()), (Some("permission_denied"), Some("six_4_4_0_0.mtb")));
    assert!(json["message"].as_str().unwrap().contains("permission denied"), "{json}");
    runtime().block_on(running.stop()).unwrap();
}
