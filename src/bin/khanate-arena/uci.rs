//! A Universal Chess Interface engine (Fairy-Stockfish) driven over its standard input and
//! output, as an opponent for the Ouk Chatrang levels.
//!
//! Every read has a timeout, so an engine that hangs or dies fails the run with an error instead
//! of hanging the tool.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow, bail};

/// How long the engine may take to answer one command (a search at a small depth takes
/// milliseconds; this only catches a hung engine).
const READ_TIMEOUT: Duration = Duration::from_secs(30);

/// A running engine process set to one variant.
pub struct Engine {
    name: String,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Engine {
    /// Starts the engine at `path`, checks that it offers `variant` among its `UCI_Variant`
    /// choices and selects it.
    pub fn start(path: &Path, variant: &str) -> anyhow::Result<Engine> {
        let mut child = Command::new(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .with_context(|| format!("starting the UCI engine {}", path.display()))?;
        let stdin = child.stdin.take().context("the engine's standard input")?;
        let stdout = child
            .stdout
            .take()
            .context("the engine's standard output")?;
        let (tx, lines) = channel();
        // A reader thread turns the blocking pipe into a channel that can be read with a timeout;
        // it ends when the engine closes its output.
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut engine = Engine {
            name: path.display().to_string(),
            child,
            stdin,
            lines,
        };
        engine.send("uci")?;
        let hello = engine.read_until(|line| line == "uciok")?;
        let offered = hello
            .iter()
            .find_map(|line| variant_choices(line))
            .ok_or_else(|| anyhow!("{} has no UCI_Variant option", engine.name))?;
        if !offered.iter().any(|v| v == variant) {
            bail!(
                "{} does not offer the variant {variant:?} (its UCI_Variant choices: {})",
                engine.name,
                offered.join(" ")
            );
        }
        engine.send(&format!("setoption name UCI_Variant value {variant}"))?;
        engine.ready()?;
        Ok(engine)
    }

    /// Tells the engine a new game starts.
    pub fn new_game(&mut self) -> anyhow::Result<()> {
        self.send("ucinewgame")?;
        self.ready()
    }

    /// Sets the position to `moves` after `fen`; returns the position the engine then holds, as
    /// its `d` command prints it (`Fen: ...`), so the caller can check that the engine read every
    /// move: an engine silently stops reading a `position` command at the first move it does not
    /// understand.
    pub fn set_position(&mut self, fen: &str, moves: &[String]) -> anyhow::Result<String> {
        let mut position = format!("position fen {fen}");
        if !moves.is_empty() {
            position.push_str(" moves ");
            position.push_str(&moves.join(" "));
        }
        self.send(&position)?;
        self.send("d")?;
        self.send("isready")?;
        let shown = self.read_until(|line| line == "readyok")?;
        let fen = shown
            .iter()
            .find_map(|line| line.strip_prefix("Fen: "))
            .ok_or_else(|| anyhow!("{} printed no `Fen:` line for `d`", self.name))?;
        Ok(fen.to_string())
    }

    /// The engine's move in the position set, searching to `depth` (among `only` when given,
    /// with `searchmoves`); `None` for `bestmove (none)`.
    pub fn best_move(
        &mut self,
        depth: u32,
        only: Option<&[String]>,
    ) -> anyhow::Result<Option<String>> {
        let mut go = format!("go depth {depth}");
        if let Some(only) = only {
            go.push_str(" searchmoves ");
            go.push_str(&only.join(" "));
        }
        self.send(&go)?;
        let answer = self.read_until(|line| line.starts_with("bestmove"))?;
        let last = answer.last().map(String::as_str).unwrap_or_default();
        parse_bestmove(last).ok_or_else(|| anyhow!("unreadable answer {last:?}"))
    }

    fn ready(&mut self) -> anyhow::Result<()> {
        self.send("isready")?;
        self.read_until(|line| line == "readyok").map(drop)
    }

    fn send(&mut self, command: &str) -> anyhow::Result<()> {
        writeln!(self.stdin, "{command}")
            .and_then(|()| self.stdin.flush())
            .with_context(|| format!("sending {command:?} to {}", self.name))
    }

    /// The lines the engine prints up to and including the first that `done` accepts.
    fn read_until(&mut self, done: impl Fn(&str) -> bool) -> anyhow::Result<Vec<String>> {
        let deadline = Instant::now() + READ_TIMEOUT;
        let mut lines = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let line = line.trim_end().to_string();
                    let end = done(&line);
                    lines.push(line);
                    if end {
                        return Ok(lines);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    bail!("{} did not answer within {READ_TIMEOUT:?}", self.name)
                }
                Err(RecvTimeoutError::Disconnected) => bail!("{} exited", self.name),
            }
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        // Ask politely, then make sure: the process is ours and must not outlive the tool.
        let _ = self.send("quit");
        let until = Instant::now() + Duration::from_millis(500);
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The move of a `bestmove` line: `Some(Some(mv))` for `bestmove e3e4 [ponder e6e5]`,
/// `Some(None)` for `bestmove (none)` (no legal move), `None` for anything else.
fn parse_bestmove(line: &str) -> Option<Option<String>> {
    let mut words = line.split_whitespace();
    if words.next()? != "bestmove" {
        return None;
    }
    match words.next()? {
        "(none)" | "0000" => Some(None),
        mv => Some(Some(mv.to_string())),
    }
}

/// The choices of an `option name UCI_Variant type combo default X var A var B ...` line.
fn variant_choices(line: &str) -> Option<Vec<String>> {
    let rest = line.strip_prefix("option name UCI_Variant ")?;
    let words: Vec<&str> = rest.split_whitespace().collect();
    Some(
        words
            .windows(2)
            .filter(|pair| pair[0] == "var")
            .map(|pair| pair[1].to_string())
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bestmove_lines() {
        assert_eq!(
            parse_bestmove("bestmove e3e4 ponder e6e5"),
            Some(Some("e3e4".to_string()))
        );
        assert_eq!(
            parse_bestmove("bestmove g5g6m"),
            Some(Some("g5g6m".to_string()))
        );
        assert_eq!(parse_bestmove("bestmove (none)"), Some(None));
        assert_eq!(parse_bestmove("bestmove"), None);
        assert_eq!(parse_bestmove("info depth 1 score cp 20"), None);
        assert_eq!(parse_bestmove(""), None);
    }

    #[test]
    fn variant_choices_of_the_option_line() {
        let line = "option name UCI_Variant type combo default chess var 3check var cambodian \
                    var makruk";
        assert_eq!(
            variant_choices(line).unwrap(),
            ["3check", "cambodian", "makruk"]
        );
        assert_eq!(
            variant_choices("option name Hash type spin default 16"),
            None
        );
    }
}
