//! `khanate-load`: puts a Khanate server under a measured load, next to a bare WebSocket echo
//! server as the baseline. See `docs/performance.md` for what it measures and the figures.
//!
//! It starts the server itself (`--server-bin`, the `khanate` binary beside this one by default)
//! or loads one already running here (`--url http://127.0.0.1:PORT`), opens `--rooms` rooms of
//! `--game` with one WebSocket per seat, plays random legal moves from the server's lists at
//! `--rate` moves per second in all, adds `--spectators` (following the rooms) and `--idle`
//! connections (spectators of rooms waiting for players, which hear nothing), and after
//! `--warmup` seconds measures for `--duration` seconds. The report (JSON, or Markdown with
//! `--format markdown`) goes to standard output. It only ever talks to 127.0.0.1.

mod conn;
mod echo;
mod pg;
mod player;
mod procfs;
mod stats;
mod target;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::{Parser, Subcommand, ValueEnum};
use serde::Serialize;
use serde_json::json;
use tokio::sync::{Semaphore, mpsc, watch};

use stats::{Recorder, Summary, round};
use target::Target;

#[derive(Parser, Debug)]
#[command(
    name = "khanate-load",
    version,
    about = "Measured load on a Khanate server (and a bare WebSocket echo baseline)"
)]
struct Args {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    load: Load,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Runs the baseline echo server (started by the tool itself for `--echo-baseline`).
    EchoServer,
}

#[derive(clap::Args, Debug, Clone, Serialize)]
struct Load {
    /// The `khanate` binary to start (default: the one beside this tool).
    #[arg(long)]
    server_bin: Option<PathBuf>,
    /// Load a server already running on this machine instead of starting one.
    #[arg(long)]
    url: Option<String>,
    /// With `--url`: the server's process id, for its CPU and memory.
    #[arg(long)]
    server_pid: Option<u32>,
    /// With `--url` of a proxy in front of several nodes (`docs/deploy/nginx-cluster.conf`): the
    /// nodes' process ids, comma-separated, for each one's CPU and memory.
    #[arg(
        long,
        value_delimiter = ',',
        conflicts_with = "server_pid",
        requires = "url"
    )]
    node_pids: Vec<u32>,
    /// The database the started server uses; with a PostgreSQL URL the tool also counts the rows
    /// written and times a commit.
    #[arg(long, env = "DATABASE_URL", hide_env_values = true)]
    #[serde(skip)]
    database_url: Option<String>,
    /// The game the rooms play.
    #[arg(long, value_enum, default_value = "ouk-chatrang")]
    game: Game,
    /// Seats per room (Khan-Tsin: 2 or 3).
    #[arg(long, default_value_t = 2)]
    players: u8,
    /// Rooms playing at once, 1 to 5000.
    #[arg(long, default_value_t = 100)]
    rooms: u64,
    /// Moves per second in all rooms together (each room moves every rooms/rate seconds).
    #[arg(long, default_value_t = 1000.0)]
    rate: f64,
    /// Spectators following the rooms (spread evenly over them).
    #[arg(long, default_value_t = 0)]
    spectators: u64,
    /// Idle connections: spectators of rooms waiting for players, which hear nothing.
    #[arg(long, default_value_t = 0)]
    idle: u64,
    /// Seconds of load before measuring.
    #[arg(long, default_value_t = 5.0)]
    warmup: f64,
    /// Seconds measured, at most 3600.
    #[arg(long, default_value_t = 60.0)]
    duration: f64,
    /// Measure the echo baseline first, with the same connections and rate.
    #[arg(long)]
    echo_baseline: bool,
    /// Seed of the random move choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Report format.
    #[arg(long, value_enum, default_value = "json")]
    #[serde(skip)]
    format: Format,
}

#[derive(Clone, Copy, Debug, ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
enum Game {
    OukChatrang,
    Khan,
    KhanTsin,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Format {
    Json,
    Markdown,
}

/// Most connections the tool opens: both ends share the machine's file descriptors.
const MAX_CONNECTIONS: u64 = 20_000;
/// Rooms and connections set up at once.
const SETUP_CONCURRENCY: usize = 64;
/// How long setting up the rooms and connections may take.
const SETUP_TIMEOUT: Duration = Duration::from_secs(300);

/// The whole report.
#[derive(Serialize)]
struct Report {
    load: Load,
    /// The baseline: the same connections and rate against the echo server.
    echo: Option<Phase>,
    khanate: Phase,
    /// Khanate's figures over the baseline's, when both ran.
    ratios: Option<serde_json::Value>,
}

/// The figures of one server under the load.
#[derive(Serialize)]
struct Phase {
    /// Seconds taken to set up rooms and connections.
    setup_s: f64,
    /// Seconds measured.
    window_s: f64,
    #[serde(flatten)]
    summary: Summary,
    cpu: procfs::CpuUse,
    /// The server's resident memory, MiB: the peak over the run (`VmHWM`) and at its end.
    server_rss_peak_mib: Option<f64>,
    server_rss_end_mib: Option<f64>,
    /// Each node's (`--node-pids`) resident memory peak, MiB.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    node_rss_peak_mib: Vec<Option<f64>>,
    /// Rows the server wrote to PostgreSQL during the measured window.
    rows_written: Option<pg::RowsWritten>,
    /// The median of 200 one-row durable commits measured before the load, ms.
    postgres_commit_ms: Option<f64>,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let runtime = tokio::runtime::Runtime::new()?;
    if let Some(Command::EchoServer) = args.command {
        return runtime.block_on(echo::serve());
    }
    let load = args.load;
    check(&load)?;
    let report = runtime.block_on(run(&load))?;
    match load.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&report)?),
        Format::Markdown => print!("{}", markdown(&report)),
    }
    Ok(())
}

/// Refuses loads the tool should not make.
fn check(load: &Load) -> anyhow::Result<()> {
    if !(1..=5000).contains(&load.rooms) {
        bail!("--rooms must be 1 to 5000");
    }
    let connections = load.rooms * u64::from(load.players) + load.spectators + load.idle;
    if connections > MAX_CONNECTIONS {
        bail!("{connections} connections asked for; at most {MAX_CONNECTIONS}");
    }
    if !(f64::MIN_POSITIVE..=100_000.0).contains(&load.rate) {
        bail!("--rate must be above 0 and at most 100000");
    }
    if !(f64::MIN_POSITIVE..=3600.0).contains(&load.duration)
        || !(0.0..=600.0).contains(&load.warmup)
    {
        bail!("--duration must be above 0 and at most 3600, --warmup 0 to 600");
    }
    if !(2..=3).contains(&load.players)
        || (load.players == 3 && !matches!(load.game, Game::KhanTsin))
    {
        bail!("--players is 2, or 3 for khan-tsin");
    }
    Ok(())
}

async fn run(load: &Load) -> anyhow::Result<Report> {
    if load.url.is_none() && load.database_url.is_none() {
        bail!("give --database-url (or DATABASE_URL) for the server to start");
    }
    let echo = if load.echo_baseline {
        let target = Target::echo()?;
        Some(measure(load, &target, None, true).await?)
    } else {
        None
    };
    let target = match &load.url {
        Some(url) => Target::running(url, load.server_pid)?,
        None => {
            let binary = match &load.server_bin {
                Some(path) => path.clone(),
                None => std::env::current_exe()?.with_file_name("khanate"),
            };
            let url = load
                .database_url
                .as_deref()
                .context("give --database-url (or DATABASE_URL) for the server to start")?;
            Target::khanate(&binary, url)?
        }
    };
    let postgres = load
        .database_url
        .as_deref()
        .filter(|u| u.starts_with("postgres"));
    let khanate = measure(load, &target, postgres, false).await?;
    let ratios = echo.as_ref().map(|echo| {
        let over = |a: f64, b: f64| if b > 0.0 { Some(round(a / b, 2)) } else { None };
        json!({
            "moves_per_s": over(khanate.summary.moves_per_s, echo.summary.moves_per_s),
            "ack_p50": over(khanate.summary.ack_ms.p50, echo.summary.ack_ms.p50),
            "ack_p99": over(khanate.summary.ack_ms.p99, echo.summary.ack_ms.p99),
            "light_load_budget_ms": khanate.postgres_commit_ms
                .map(|commit| round(3.0 * echo.summary.ack_ms.p50 + commit, 3)),
        })
    });
    Ok(Report {
        load: load.clone(),
        echo,
        khanate,
        ratios,
    })
}

/// Sets up the load on `target`, warms up, measures, and stops it.
async fn measure(
    load: &Load,
    target: &Target,
    postgres: Option<&str>,
    echo: bool,
) -> anyhow::Result<Phase> {
    let recorder = Arc::new(Recorder::default());
    let (stop_tx, stop) = watch::channel(false);
    let interval = Duration::from_secs_f64(load.rooms as f64 / load.rate);
    let plan = Arc::new(player::Plan {
        addr: target.addr,
        http: reqwest::Client::new(),
        game: load
            .game
            .to_possible_value()
            .expect("a name")
            .get_name()
            .to_owned(),
        players: load.players,
        interval,
        recorder: recorder.clone(),
        seed: load.seed,
    });
    let mut database = match postgres {
        Some(url) => Some(pg::Database::connect(url).await?),
        None => None,
    };
    let postgres_commit_ms = match &mut database {
        Some(db) => Some(db.commit_ms(200).await?),
        None => None,
    };

    let setup = Instant::now();
    let gate = Arc::new(Semaphore::new(SETUP_CONCURRENCY));
    let (ready_tx, mut ready) = mpsc::unbounded_channel();
    let mut tasks = Vec::new();
    for index in 0..load.rooms {
        let permit = gate.clone().acquire_owned().await?;
        let (plan, stop, ready_tx) = (plan.clone(), stop.clone(), ready_tx.clone());
        let seed = load.seed.wrapping_add(index);
        let recorder = recorder.clone();
        let addr = target.addr;
        let (to, mut first) = mpsc::unbounded_channel();
        tasks.push(tokio::spawn(async move {
            if echo {
                echo::client(addr, interval, seed, recorder, stop, to).await;
            } else {
                player::play_rooms(plan, index, stop, to).await;
            }
        }));
        tokio::spawn(async move {
            let code = first.recv().await;
            drop(permit);
            let _ = ready_tx.send(code);
        });
    }
    let mut codes = Vec::new();
    while (codes.len() as u64) < load.rooms {
        match tokio::time::timeout(SETUP_TIMEOUT, ready.recv()).await {
            Ok(Some(Some(code))) => codes.push(code),
            Ok(Some(None)) => bail!(
                "a room could not be set up: {:?}",
                recorder.summary(1.0).errors
            ),
            _ => bail!("setting up the rooms took over {SETUP_TIMEOUT:?}"),
        }
    }
    if !echo {
        let watched = spectators(load, &plan, &codes, &gate, &stop, &mut tasks).await?;
        if watched < load.spectators + load.idle {
            bail!("only {watched} of the spectator and idle connections opened");
        }
    }
    let setup_s = setup.elapsed().as_secs_f64();

    tokio::time::sleep(Duration::from_secs_f64(load.warmup)).await;
    let rows_start = match &mut database {
        Some(db) => Some(db.rows().await?),
        None => None,
    };
    let nodes: &[u32] = if echo { &[] } else { &load.node_pids };
    let cpu_start = procfs::CpuReading::now(target.pid, nodes);
    let window = Instant::now();
    recorder.start_measuring();
    tokio::time::sleep(Duration::from_secs_f64(load.duration)).await;
    recorder.stop_measuring();
    let window_s = window.elapsed().as_secs_f64();
    let cpu = cpu_start.until(&procfs::CpuReading::now(target.pid, nodes), window_s);
    let server_rss_peak_mib = target.pid.and_then(|pid| procfs::memory_mib(pid, "VmHWM"));
    let server_rss_end_mib = target.pid.and_then(|pid| procfs::memory_mib(pid, "VmRSS"));
    let node_rss_peak_mib = nodes
        .iter()
        .map(|pid| procfs::memory_mib(*pid, "VmHWM").map(|m| round(m, 1)))
        .collect();
    stop_tx.send(true)?;
    for task in tasks {
        let _ = tokio::time::timeout(Duration::from_secs(10), task).await;
    }
    // Counted once the load has stopped (so: the window and the moves still in flight at its
    // end), after pg_stat_database's update, which each backend makes at most once a second.
    let rows_written = match (&mut database, rows_start) {
        (Some(db), Some(start)) => {
            tokio::time::sleep(Duration::from_millis(1500)).await;
            Some(start.until(&db.rows().await?))
        }
        _ => None,
    };
    Ok(Phase {
        setup_s: round(setup_s, 2),
        window_s: round(window_s, 2),
        summary: recorder.summary(window_s),
        cpu,
        server_rss_peak_mib: server_rss_peak_mib.map(|m| round(m, 1)),
        server_rss_end_mib: server_rss_end_mib.map(|m| round(m, 1)),
        node_rss_peak_mib,
        rows_written,
        postgres_commit_ms,
    })
}

/// Opens the spectators (over the playing rooms, round robin) and the idle connections (over
/// rooms created for them that wait for players, at most 100 to a room), and returns how many
/// said hello.
async fn spectators(
    load: &Load,
    plan: &Arc<player::Plan>,
    codes: &[String],
    gate: &Arc<Semaphore>,
    stop: &watch::Receiver<bool>,
    tasks: &mut Vec<tokio::task::JoinHandle<()>>,
) -> anyhow::Result<u64> {
    let mut rooms: Vec<String> = Vec::new();
    for i in 0..load.spectators {
        rooms.push(codes[(i % codes.len() as u64) as usize].clone());
    }
    let mut waiting = String::new();
    for i in 0..load.idle {
        if i % 100 == 0 {
            waiting = player::waiting_room(plan).await?;
        }
        rooms.push(waiting.clone());
    }
    let opened = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let mut openings = Vec::new();
    for code in rooms {
        let permit = gate.clone().acquire_owned().await?;
        let (addr, recorder, stop) = (plan.addr, plan.recorder.clone(), stop.clone());
        let (to, mut said_hello) = mpsc::unbounded_channel();
        tasks.push(tokio::spawn(player::spectate(
            addr, code, recorder, stop, to,
        )));
        let opened = opened.clone();
        openings.push(tokio::spawn(async move {
            if said_hello.recv().await.is_some() {
                opened.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
            drop(permit);
        }));
    }
    for opening in openings {
        let _ = tokio::time::timeout(SETUP_TIMEOUT, opening).await;
    }
    Ok(opened.load(std::sync::atomic::Ordering::SeqCst))
}

/// One row of the Markdown comparison: its label and how a phase's value is written.
type ReportRow = (&'static str, Box<dyn Fn(&Phase) -> String>);

/// The report as Markdown: the load, then one column per server.
fn markdown(report: &Report) -> String {
    let l = &report.load;
    let mut out = format!(
        "Load: {} rooms of {} ({} players), {} moves/s asked, {} spectators, {} idle connections, \
         {} s measured after {} s of warm-up.\n\n",
        l.rooms,
        l.game.to_possible_value().expect("a name").get_name(),
        l.players,
        l.rate,
        l.spectators,
        l.idle,
        l.duration,
        l.warmup
    );
    let phases: Vec<(&str, &Phase)> = report
        .echo
        .iter()
        .map(|p| ("echo baseline", p))
        .chain([("khanate", &report.khanate)])
        .collect();
    let header: Vec<&str> = phases.iter().map(|(name, _)| *name).collect();
    out += &format!(
        "| | {} |\n|---|{}\n",
        header.join(" | "),
        "---|".repeat(phases.len())
    );
    let opt = |x: Option<f64>| x.map_or("–".to_owned(), |x| x.to_string());
    let counts = |map: &std::collections::BTreeMap<String, u64>| {
        let each: Vec<String> = map.iter().map(|(what, n)| format!("{what}: {n}")).collect();
        if each.is_empty() {
            "none".to_owned()
        } else {
            each.join(", ")
        }
    };
    let rows: Vec<ReportRow> = vec![
        ("moves/s", Box::new(|p| p.summary.moves_per_s.to_string())),
        ("moves acked", Box::new(|p| p.summary.moves.to_string())),
        (
            "ack p50 / p95 / p99 / max, ms",
            Box::new(|p| {
                let a = &p.summary.ack_ms;
                format!("{} / {} / {} / {}", a.p50, a.p95, a.p99, a.max)
            }),
        ),
        (
            "broadcast p50 / p99, ms",
            Box::new(|p| {
                let b = &p.summary.broadcast_ms;
                if b.count == 0 {
                    "–".to_owned()
                } else {
                    format!("{} / {}", b.p50, b.p99)
                }
            }),
        ),
        ("rejects", Box::new(move |p| counts(&p.summary.rejects))),
        ("errors", Box::new(move |p| counts(&p.summary.errors))),
        (
            "games finished",
            Box::new(|p| p.summary.games_finished.to_string()),
        ),
        (
            "reconnects (1012)",
            Box::new(|p| p.summary.reconnects.to_string()),
        ),
        (
            "frames to spectators",
            Box::new(|p| p.summary.frames_to_spectators.to_string()),
        ),
        (
            "connections (peak)",
            Box::new(|p| p.summary.connections_peak.to_string()),
        ),
        (
            "server CPU, cores",
            Box::new(move |p| opt(p.cpu.server_cores)),
        ),
        (
            "each node's CPU, cores",
            Box::new(move |p| {
                let cells: Vec<String> = p.cpu.node_cores.iter().map(|c| opt(*c)).collect();
                if cells.is_empty() {
                    "–".to_owned()
                } else {
                    cells.join(" + ")
                }
            }),
        ),
        (
            "PostgreSQL CPU, cores",
            Box::new(move |p| opt(p.postgres_commit_ms.map(|_| p.cpu.postgres_cores))),
        ),
        (
            "load generator CPU, cores",
            Box::new(move |p| opt(p.cpu.load_generator_cores)),
        ),
        (
            "machine busy",
            Box::new(|p| format!("{:.0} %", p.cpu.machine_busy * 100.0)),
        ),
        (
            "server RSS peak / end, MiB",
            Box::new(move |p| {
                format!(
                    "{} / {}",
                    opt(p.server_rss_peak_mib),
                    opt(p.server_rss_end_mib)
                )
            }),
        ),
        (
            "each node's RSS peak, MiB",
            Box::new(move |p| {
                let cells: Vec<String> = p.node_rss_peak_mib.iter().map(|m| opt(*m)).collect();
                if cells.is_empty() {
                    "–".to_owned()
                } else {
                    cells.join(" + ")
                }
            }),
        ),
        (
            "rows written (moves, events, all)",
            Box::new(|p| match &p.rows_written {
                Some(r) => format!("{}, {}, {}", r.moves, r.room_events, r.all_tables),
                None => "–".to_owned(),
            }),
        ),
        (
            "one PostgreSQL commit, ms",
            Box::new(move |p| opt(p.postgres_commit_ms)),
        ),
    ];
    for (name, value) in rows {
        let cells: Vec<String> = phases.iter().map(|(_, p)| value(p)).collect();
        out += &format!("| {name} | {} |\n", cells.join(" | "));
    }
    if let Some(ratios) = &report.ratios {
        out += &format!("\nRatios to the echo baseline: {ratios}\n");
    }
    out
}
