//! `morris serve`: a thin command line over `morris-server`.

use std::net::SocketAddr;
use std::process::ExitCode;

use clap::Args;
use morris_server::Config;

use crate::args::ServedArgs;

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
}

/// Runs `morris serve`.
pub fn run(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let config = Config { bind: args.bind, ..args.served.config()? };
    morris_server::serve(config)?;
    Ok(ExitCode::SUCCESS)
}
