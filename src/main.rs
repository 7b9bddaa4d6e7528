//! The `khanate` binary: `serve` (the default), `migrate`, `user` (accounts, for operators), and
//! the rules tools `perft`, `moves` and `play`.

use std::io::IsTerminal;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Parser, Subcommand};
use khanate::accounts::operators::{self, UserCommand};
use khanate::cli;
use khanate::config::{Config, LogFormat, mask_url};
use khanate::rules::GameKind;
use khanate::store::Store;
use tracing_subscriber::EnvFilter;

/// Khanate: online rooms for Ouk Chatrang (Cambodian chess), Khan and Khan-Tsin.
#[derive(Parser)]
#[command(name = "khanate", version, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    serve: Config,
}

#[derive(Subcommand)]
enum Command {
    /// Run the server (what `khanate` alone does).
    Serve(Box<Config>),
    /// Apply the database migrations and exit (`serve` also applies them at start-up).
    Migrate {
        #[arg(long, env = "DATABASE_URL", default_value = "sqlite://khanate.db")]
        database_url: String,
    },
    /// Accounts, for operators: list, show, disable, enable, reset-password.
    User {
        /// The database of the accounts; given before or after the action (`khanate user list
        /// --database-url URL` works too).
        #[arg(
            long,
            env = "DATABASE_URL",
            default_value = "sqlite://khanate.db",
            global = true
        )]
        database_url: String,
        #[command(subcommand)]
        action: UserAction,
    },
    /// Count the leaf nodes of the legal-move tree to DEPTH.
    Perft {
        #[command(flatten)]
        game: GameArgs,
        /// Print the count under each root move too.
        #[arg(long)]
        divide: bool,
        /// Khan: count distinct positions after each whole turn ("turn perft").
        #[arg(long)]
        positions: bool,
        depth: u32,
    },
    /// List the legal moves, one a line, sorted.
    Moves {
        #[command(flatten)]
        game: GameArgs,
    },
    /// Play moves and print the resulting position and the status.
    Play {
        #[command(flatten)]
        game: GameArgs,
        moves: Vec<String>,
    },
}

#[derive(Subcommand)]
enum UserAction {
    /// Every account: name, created, status.
    List,
    /// One account: id, created, status, how many sessions and API tokens.
    Show { name: String },
    /// Refuse the account's logins and end its sessions.
    Disable { name: String },
    /// Let a disabled account log in again.
    Enable { name: String },
    /// Give the account a new random password, printed once; every session ends and every API
    /// token is revoked.
    ResetPassword { name: String },
}

impl From<UserAction> for UserCommand {
    fn from(action: UserAction) -> Self {
        match action {
            UserAction::List => UserCommand::List,
            UserAction::Show { name } => UserCommand::Show(name),
            UserAction::Disable { name } => UserCommand::Disable(name),
            UserAction::Enable { name } => UserCommand::Enable(name),
            UserAction::ResetPassword { name } => UserCommand::ResetPassword(name),
        }
    }
}

#[derive(Args)]
struct GameArgs {
    /// `ouk-chatrang`, `khan` or `khan-tsin`.
    game: String,
    /// Start from this position (the game's position text; for Ouk Chatrang a FEN). Taken as
    /// written even when it begins with `-` (a Khan-Tsin board whose first square is empty).
    #[arg(long, visible_alias = "fen", allow_hyphen_values = true)]
    position: Option<String>,
    /// Khan-Tsin: 2 or 3 players (default 2; a --position says it already).
    #[arg(long)]
    players: Option<u8>,
}

impl GameArgs {
    fn setup(&self) -> anyhow::Result<cli::Setup<'_>> {
        Ok(cli::Setup {
            kind: self.game.parse::<GameKind>()?,
            position: self.position.as_deref(),
            players: self.players,
        })
    }
}

fn init_tracing(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new("info,sqlx::postgres::notice=warn"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal());
    match format {
        LogFormat::Text => builder.init(),
        LogFormat::Json => builder.json().init(),
    }
}

async fn serve(config: Config) -> anyhow::Result<()> {
    init_tracing(config.log_format);
    tracing::info!(%config, "starting");
    let running = khanate::server::start(config).await?;
    // Tests and scripts read this line to learn the port.
    println!("khanate listening on http://{}", running.addr);
    shutdown_signal().await;
    tracing::info!("shutting down");
    running.shutdown().await?;
    tracing::info!("stopped: every client was told, every commit finished");
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = term => {}
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    let runtime = || tokio::runtime::Runtime::new().context("starting the tokio runtime");
    match cli.command {
        None => runtime()?.block_on(serve(cli.serve)),
        Some(Command::Serve(config)) => runtime()?.block_on(serve(*config)),
        Some(Command::Migrate { database_url }) => runtime()?.block_on(async {
            init_tracing(LogFormat::Text);
            Store::connect(&database_url).await?;
            println!("migrations applied to {}", mask_url(&database_url));
            Ok(())
        }),
        Some(Command::User {
            database_url,
            action,
        }) => runtime()?.block_on(async {
            if let Some(file) = Store::absent_sqlite_file(&database_url) {
                anyhow::bail!(
                    "no database at {}: `khanate user` works on the server's database; run it \
                     where the server keeps its database or name it with --database-url \
                     (DATABASE_URL)",
                    file.display()
                );
            }
            let store = Store::connect(&database_url).await?;
            let text = operators::run(&store, action.into()).await;
            store.close().await;
            println!("{}", text?);
            Ok(())
        }),
        Some(Command::Perft {
            game,
            divide,
            positions,
            depth,
        }) => {
            println!("{}", cli::perft(game.setup()?, depth, divide, positions)?);
            Ok(())
        }
        Some(Command::Moves { game }) => {
            let (text, warning) = cli::moves(game.setup()?)?;
            if let Some(warning) = warning {
                eprintln!("khanate: {warning}");
            }
            if !text.is_empty() {
                println!("{text}");
            }
            Ok(())
        }
        Some(Command::Play { game, moves }) => {
            println!("{}", cli::play(game.setup()?, &moves)?);
            Ok(())
        }
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("khanate: {e:#}");
            ExitCode::FAILURE
        }
    }
}
