//! What an operator sets so that the server can be left running in public:
//! timeouts, the connection cap, the queue of look-ups, the grace given to
//! requests in flight at shutdown, CORS origins and the access log
//! ([`Limits`]), each checked at start-up ([`Limits::check`]).

use std::time::Duration;

/// The access log's format: one line per request on standard error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LogFormat {
    /// `GET /api/nine?position=... 200 1.3 ms 2150 B` (no log when `None`
    /// is chosen instead).
    #[default]
    Text,
    /// One JSON object per line: `method`, `uri`, `status`, `ms`, ...
    Json,
}

/// Timeouts and caps of the HTTP server. The defaults suit a public
/// server on a small machine; every figure is checked by [`Limits::check`].
/// `morris serve`'s flags take their defaults from [`Limits::default`].
#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    /// How long requests in flight may run after SIGTERM or SIGINT before
    /// the server exits anyway (default 10 s).
    pub shutdown_timeout: Duration,
    /// How long a client may take to send a request's headers (default
    /// 10 s); a slow client is disconnected.
    pub header_timeout: Duration,
    /// How long a connection may sit idle (no byte from the client) before
    /// it is closed (default 60 s): keep-alive between requests.
    pub idle_timeout: Duration,
    /// How long a write to a client may wait on it (default 30 s): a
    /// client that stops reading is disconnected.
    pub write_timeout: Duration,
    /// How long a client may take to send a request's body (default 10 s).
    pub body_timeout: Duration,
    /// How long one request may take in all (default 30 s); past it the
    /// answer is 503 `timeout`.
    pub request_timeout: Duration,
    /// The most connections open at once (default 512); a connection past
    /// it is answered 503 with `Retry-After` and closed.
    pub max_connections: usize,
    /// The most API requests waiting for a look-up permit beyond those
    /// running (default 64); past it the answer is 503 `overloaded` with
    /// `Retry-After`, not a queue that grows.
    pub max_queue: usize,
    /// Origins allowed by CORS; empty: any origin (`*`), as a public,
    /// read-only tablebase API wants.
    pub cors_origins: Vec<String>,
    /// The access log, `None` for none.
    pub log: Option<LogFormat>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            shutdown_timeout: Duration::from_secs(10),
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            write_timeout: Duration::from_secs(30),
            body_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
            max_connections: 512,
            max_queue: 64,
            cors_origins: Vec::new(),
            log: None,
        }
    }
}

/// The longest any timeout may be set to: a day.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(86_400);

/// The most connections that may be allowed at once.
pub const MAX_CONNECTIONS: usize = 1 << 20;

impl Limits {
    /// Checks every figure: timeouts above zero and at most a day,
    /// `max_connections` from 1 to 2^20, `max_queue` at most 2^20, CORS
    /// origins that are `http(s)://host[:port]`.
    ///
    /// # Errors
    /// The first figure out of range, named as its command-line flag.
    pub fn check(&self) -> Result<(), String> {
        for (flag, d) in [
            ("--shutdown-timeout", self.shutdown_timeout),
            ("--header-timeout", self.header_timeout),
            ("--idle-timeout", self.idle_timeout),
            ("--write-timeout", self.write_timeout),
            ("--body-timeout", self.body_timeout),
            ("--request-timeout", self.request_timeout),
        ] {
            if d.is_zero() || d > MAX_TIMEOUT {
                return Err(format!("{flag} must be above 0 and at most 86400 seconds, not {}", d.as_secs_f64()));
            }
        }
        if self.max_connections == 0 || self.max_connections > MAX_CONNECTIONS {
            return Err(format!("--max-connections must be from 1 to {MAX_CONNECTIONS}, not {}", self.max_connections));
        }
        if self.max_queue > MAX_CONNECTIONS {
            return Err(format!("--max-queue must be at most {MAX_CONNECTIONS}, not {}", self.max_queue));
        }
        for origin in &self.cors_origins {
            let rest = origin.strip_prefix("https://").or_else(|| origin.strip_prefix("http://"));
            let ok = rest.is_some_and(|r| !r.is_empty() && !r.contains('/') && r.is_ascii());
            if !ok {
                return Err(format!(
                    "--cors-origin `{}` is not an origin: write `https://host` or `http://host:port`",
                    origin.chars().take(80).collect::<String>()
                ));
            }
        }
        Ok(())
    }
}
