// The real Khanate server binary, run as a child process for the browser tests.
//
//   const server = await startServer('lifecycle');
//   const short = await startServer('expiry', { env: { KHANATE_WAITING_ROOM_TTL_S: '2' } });
//       // env: more environment for the server (its settings, see `khanate --help`)
//   server.url          // 'http://127.0.0.1:PORT' (no trailing slash)
//   server.port
//   await server.kill();     // SIGKILL, as a crash: no graceful shutdown
//   await server.restart();  // start again on the same port and database (after kill or while running)
//   await server.stop();     // SIGKILL and wait: nothing is left running (call it in `after`)
//
// Binary: env KHANATE_BIN (tests/web_client.rs sets it to cargo's own build), else
// <repo>/target/debug/khanate (run `cargo build` first when running the tests by hand).
// Database: env KHANATE_TEST_DATABASE_URL (a fresh PostgreSQL database tests/web_client.rs creates
// for each test file and drops afterwards), else a fresh SQLite file in a temp dir per startServer
// (deleted by stop).
// restart() keeps the database, so the restarted server finds its rooms again.
// Rate limits are raised far above what a test does. The server's log goes to
// <artifacts>/logs/<name>.server.log (one file across restarts, rewritten by the next startServer).

import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const artifactsDir =
  process.env.KHANATE_ARTIFACTS || join(repoRoot, 'target', 'browser-artifacts');

const binary = process.env.KHANATE_BIN || join(repoRoot, 'target', 'debug', 'khanate');
const START_TIMEOUT_MS = 30_000;

// Every child still running, killed if the test process exits without stopping them.
const running = new Set();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export async function startServer(name = 'server', { env = {} } = {}) {
  if (!existsSync(binary)) {
    throw new Error(`the server binary ${binary} does not exist: run \`cargo build\` first, or set KHANATE_BIN`);
  }
  const sqliteDir = process.env.KHANATE_TEST_DATABASE_URL ? null : mkdtempSync(join(tmpdir(), 'khanate-browser-'));
  const databaseUrl = process.env.KHANATE_TEST_DATABASE_URL || `sqlite://${join(sqliteDir, 'khanate.db')}`;
  mkdirSync(join(artifactsDir, 'logs'), { recursive: true });
  const log = createWriteStream(join(artifactsDir, 'logs', `${name}.server.log`));

  let child = null;
  let port = 0;

  async function start() {
    // A port just freed by a killed server can take a moment to be bindable again.
    for (let attempt = 1; ; attempt++) {
      child = spawnServer(port, databaseUrl, log, env);
      running.add(child);
      try {
        port = await listeningPort(child, port);
        await waitReady(child, `http://127.0.0.1:${port}`);
        return;
      } catch (error) {
        await killChild(child);
        if (port === 0 || attempt === 10) throw error;
        await sleep(200 * attempt);
      }
    }
  }

  async function killChild(target) {
    running.delete(target);
    if (target.exitCode === null && target.signalCode === null) {
      const exited = new Promise((done) => target.once('exit', done));
      target.kill('SIGKILL');
      await exited;
    }
  }

  await start();
  return {
    get url() {
      return `http://127.0.0.1:${port}`;
    },
    get port() {
      return port;
    },
    databaseUrl,
    async kill() {
      await killChild(child);
    },
    async restart() {
      await killChild(child);
      await start();
    },
    async stop() {
      await killChild(child);
      log.end();
      if (sqliteDir) rmSync(sqliteDir, { recursive: true, force: true });
    },
  };
}

// Spawns `khanate serve` on 127.0.0.1:port (0: a free one); its standard error goes to `log`.
function spawnServer(port, databaseUrl, log, env) {
  const args = [
    'serve',
    '--bind', `127.0.0.1:${port}`,
    '--database-url', databaseUrl,
    '--rooms-per-minute', '10000',
    '--commands-per-second', '1000',
    '--connections-per-ip', '1000',
  ];
  const child = spawn(binary, args, {
    env: { ...process.env, RUST_LOG: process.env.RUST_LOG || 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderrText = '';
  child.stderr.on('data', (chunk) => {
    log.write(chunk);
    child.stderrText += chunk;
  });
  return child;
}

// The port from the server's first stdout line, "khanate listening on http://127.0.0.1:PORT".
function listeningPort(child, port) {
  return new Promise((resolvePort, reject) => {
    const timer = setTimeout(() => fail('did not print its listening line in time'), START_TIMEOUT_MS);
    function fail(why) {
      clearTimeout(timer);
      reject(new Error(`khanate serve on port ${port} ${why}\n${child.stderrText.trim()}`));
    }
    createInterface({ input: child.stdout }).once('line', (line) => {
      clearTimeout(timer);
      const match = /^khanate listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(line);
      if (match) resolvePort(Number(match[1]));
      else fail(`printed ${JSON.stringify(line)}`);
    });
    child.once('error', (error) => fail(`could not be started: ${error.message}`));
    child.once('exit', (code, signal) => fail(`exited (${signal || code})`));
  });
}

// Polls /readyz until it answers 200 (the database answers and the rooms are restored).
async function waitReady(child, url) {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`khanate serve at ${url} exited before it was ready`);
    }
    try {
      const response = await fetch(`${url}/readyz`);
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await sleep(100);
  }
  throw new Error(`khanate serve at ${url} was not ready within ${START_TIMEOUT_MS / 1000} s`);
}

export function sleep(ms) {
  return new Promise((done) => setTimeout(done, ms));
}
