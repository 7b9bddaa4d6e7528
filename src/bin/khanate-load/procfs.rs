//! CPU time and memory of processes, read from Linux's `/proc` (`proc(5)`).

use std::fs;

use serde::Serialize;

/// Clock ticks per second of `/proc/*/stat` times (`sysconf(_SC_CLK_TCK)`), 100 on every Linux
/// this runs on.
const TICKS_PER_S: f64 = 100.0;

/// CPU seconds (user + system) a process has used, or `None` when it is gone.
pub fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: count from after it.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / TICKS_PER_S)
}

/// A `/proc/PID/status` memory line (`VmRSS`, `VmHWM`) in MiB.
pub fn memory_mib(pid: u32, field: &str) -> Option<f64> {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// CPU seconds used by every process named `postgres` (the server and all its backends alive
/// now: a backend that exited during the run takes its time with it).
pub fn postgres_cpu_seconds() -> f64 {
    let Ok(entries) = fs::read_dir("/proc") else {
        return 0.0;
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c.trim() == "postgres")
        })
        .filter_map(cpu_seconds)
        .sum()
}

/// The machine's CPU time: (busy, total) seconds summed over all cores, from `/proc/stat`.
pub fn machine_cpu() -> (f64, f64) {
    let Ok(stat) = fs::read_to_string("/proc/stat") else {
        return (0.0, 0.0);
    };
    let Some(line) = stat.lines().find(|l| l.starts_with("cpu ")) else {
        return (0.0, 0.0);
    };
    let ticks: Vec<f64> = line
        .split_whitespace()
        .skip(1)
        .filter_map(|f| f.parse().ok())
        .collect();
    let total: f64 = ticks.iter().take(8).sum();
    // idle and iowait are the 4th and 5th numbers.
    let idle = ticks.get(3).unwrap_or(&0.0) + ticks.get(4).unwrap_or(&0.0);
    ((total - idle) / TICKS_PER_S, total / TICKS_PER_S)
}

/// CPU use over a run: a reading at its start, compared at its end.
#[derive(Clone)]
pub struct CpuReading {
    server: Option<f64>,
    /// Each node of a cluster under load, in the order given.
    nodes: Vec<Option<f64>>,
    postgres: f64,
    me: Option<f64>,
    machine: (f64, f64),
}

/// CPU used during a window, in cores (1.0 = one core busy all the time).
#[derive(Clone, Debug, Serialize)]
pub struct CpuUse {
    /// The server; for a cluster (`--node-pids`), all its nodes together.
    pub server_cores: Option<f64>,
    /// Each node of a cluster, in the order of `--node-pids` (`null`: the process is gone).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub node_cores: Vec<Option<f64>>,
    pub postgres_cores: f64,
    pub load_generator_cores: Option<f64>,
    /// The whole machine, busy time over all cores' time (0–1).
    pub machine_busy: f64,
}

impl CpuReading {
    /// Reads the CPU time of `server` (if known), of each of `nodes`, of PostgreSQL, of this
    /// process and of the machine.
    pub fn now(server: Option<u32>, nodes: &[u32]) -> CpuReading {
        CpuReading {
            server: server.and_then(cpu_seconds),
            nodes: nodes.iter().map(|pid| cpu_seconds(*pid)).collect(),
            postgres: postgres_cpu_seconds(),
            me: cpu_seconds(std::process::id()),
            machine: machine_cpu(),
        }
    }

    /// Use from `self` to `end` over `seconds` of wall time.
    pub fn until(&self, end: &CpuReading, seconds: f64) -> CpuUse {
        let per_s =
            |a: Option<f64>, b: Option<f64>| Some(super::stats::round((b? - a?) / seconds, 2));
        let busy = end.machine.0 - self.machine.0;
        let total = end.machine.1 - self.machine.1;
        let node_cores: Vec<Option<f64>> = self
            .nodes
            .iter()
            .zip(&end.nodes)
            .map(|(a, b)| per_s(*a, *b))
            .collect();
        let all_nodes = || {
            if node_cores.is_empty() {
                return None;
            }
            let sum = node_cores.iter().copied().sum::<Option<f64>>()?;
            Some(super::stats::round(sum, 2))
        };
        CpuUse {
            server_cores: per_s(self.server, end.server).or_else(all_nodes),
            postgres_cores: super::stats::round(
                (end.postgres - self.postgres).max(0.0) / seconds,
                2,
            ),
            load_generator_cores: per_s(self.me, end.me),
            node_cores,
            machine_busy: if total > 0.0 {
                super::stats::round(busy / total, 2)
            } else {
                0.0
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_its_own_process() {
        let pid = std::process::id();
        assert!(cpu_seconds(pid).is_some());
        assert!(memory_mib(pid, "VmRSS").is_some_and(|m| m > 0.0));
        assert!(cpu_seconds(u32::MAX).is_none());
    }
}
