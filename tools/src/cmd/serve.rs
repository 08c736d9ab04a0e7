//! `morris serve`: a thin command line over `morris-server`.

use std::net::SocketAddr;
use std::process::ExitCode;

use clap::Args;
use std::time::Duration;

use morris_server::{Config, Limits, LogFormat};

use crate::args::{number, ServedArgs};

/// Serve databases over HTTP: a JSON API and a web board.
///
/// Serve databases over HTTP: a JSON API (every move's value, the
/// principal line, game review) and a web board at `/`.
///
/// Binds to 127.0.0.1:8080 unless `--bind` says otherwise; starts at
/// once whatever the database size (tables are mapped on first use).
#[derive(Args)]
pub struct ServeArgs {
    #[command(flatten)]
    served: ServedArgs,
    /// The address to listen on; loopback unless told otherwise.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    bind: SocketAddr,
    /// Seconds requests in flight get to finish after SIGTERM or SIGINT.
    #[arg(long, value_name = "SECS", default_value_t = Limits::default().shutdown_timeout.as_secs_f64(), value_parser = seconds)]
    shutdown_timeout: f64,
    /// Seconds a client may take to send a request's headers.
    #[arg(long, value_name = "SECS", default_value_t = Limits::default().header_timeout.as_secs_f64(), value_parser = seconds)]
    header_timeout: f64,
    /// Seconds a connection may sit idle before it is closed.
    #[arg(long, value_name = "SECS", default_value_t = Limits::default().idle_timeout.as_secs_f64(), value_parser = seconds)]
    idle_timeout: f64,
    /// Seconds a write may wait on a client that does not read.
    #[arg(long, value_name = "SECS", default_value_t = Limits::default().write_timeout.as_secs_f64(), value_parser = seconds)]
    write_timeout: f64,
    /// Seconds a client may take to send a request's body.
    #[arg(long, value_name = "SECS", default_value_t = Limits::default().body_timeout.as_secs_f64(), value_parser = seconds)]
    body_timeout: f64,
    /// Seconds one request may take in all (then 503 `timeout`).
    #[arg(long, value_name = "SECS", default_value_t = Limits::default().request_timeout.as_secs_f64(), value_parser = seconds)]
    request_timeout: f64,
    /// The most connections open at once; past it, 503 with Retry-After.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_connections, value_parser = number::<usize>(1..=1 << 20))]
    max_connections: usize,
    /// The most requests waiting for a look-up beyond those running; past
    /// it, 503 `overloaded` with Retry-After.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_queue, value_parser = number::<usize>(0..=1 << 20))]
    max_queue: usize,
    /// An origin allowed to call the API from a browser (CORS), e.g.
    /// `https://example.org`; repeat for several. Default: any origin.
    #[arg(long, value_name = "ORIGIN")]
    cors_origin: Vec<String>,
    /// The access log on standard error, one line per request: `text`,
    /// `json` or `none`.
    #[arg(long, value_name = "FORMAT", default_value = "text", value_parser = ["text", "json", "none"])]
    log_format: String,
}

/// A number of seconds above 0 and at most a day.
fn seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && s <= 86_400.0 => Ok(s),
        _ => Err(format!("`{}` is not a number of seconds above 0 and at most 86400", crate::ui::quoted(text))),
    }
}

/// The limits the flags give. Every default of a flag is read from
/// [`Limits::default`] (one source), except the access log's: the library
/// logs nothing unless told, the command logs `text`.
fn limits(args: &ServeArgs) -> Limits {
    let secs = Duration::from_secs_f64;
    Limits {
        shutdown_timeout: secs(args.shutdown_timeout),
        header_timeout: secs(args.header_timeout),
        idle_timeout: secs(args.idle_timeout),
        write_timeout: secs(args.write_timeout),
        body_timeout: secs(args.body_timeout),
        request_timeout: secs(args.request_timeout),
        max_connections: args.max_connections,
        max_queue: args.max_queue,
        cors_origins: args.cors_origin.clone(),
        log: match args.log_format.as_str() {
            "json" => Some(LogFormat::Json),
            "none" => None,
            _ => Some(LogFormat::Text),
        },
    }
}

/// Runs `morris serve`.
pub fn run(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let limits = limits(&args);
    limits.check().map_err(anyhow::Error::msg)?;
    let config = Config { bind: args.bind, limits, ..args.served.config()? };
    morris_server::serve(config)?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Serve {
        #[command(flatten)]
        args: ServeArgs,
    }

    /// With no flags, the command's limits are the library's defaults
    /// (each flag's default is read from `Limits::default`), but for the
    /// access log, which the command writes as text; a flag given changes
    /// its own field only.
    #[test]
    fn flag_defaults_are_the_library_defaults() {
        let parsed = Serve::try_parse_from(["serve"]).unwrap();
        assert_eq!(limits(&parsed.args), Limits { log: Some(LogFormat::Text), ..Limits::default() });
        let parsed = Serve::try_parse_from(["serve", "--idle-timeout", "5", "--log-format", "none"]).unwrap();
        let expected = Limits { idle_timeout: Duration::from_secs(5), log: None, ..Limits::default() };
        assert_eq!(limits(&parsed.args), expected);
    }
}
