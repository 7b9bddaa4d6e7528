// Pages behind slow and dead links (docs/protocol.md "Heartbeat" and "Clocks", docs/web-client.md
// "Clocks" and "Players"): one player's page reaches the server through a latency proxy
// (lib/latency.mjs, 400 ms each way), the other's directly. The far page counts the frame's way
// here into the running clock, so both pages show the server's clock; each page shows each
// player's connection as signal bars, good, slow or lost.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { allowErrors, launchBrowser } from './lib/browser.mjs';
import { startLatencyProxy } from './lib/latency.mjs';
import { apiPost, clockMs as ms, clockTexts, eventually, openSeat, waitForRoom } from './lib/pages.mjs';
import { startServer } from './lib/server.mjs';

const ONE_WAY_MS = 400;

let server;
let browser;

before(async () => {
  server = await startServer('network');
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

// A two-player room of `clock` whose white seat, Dara, plays from a page behind a link
// ONE_WAY_MS away, and whose black seat, Sok, joins (starting the game) and plays from a page
// reaching the server directly, once Dara's page has measured its round trip (its pings).
async function farAndNear(t, clock) {
  const link = await startLatencyProxy(server.port, { oneWayMs: ONE_WAY_MS });
  t.after(() => link.close());
  const created = await apiPost(server, '/api/rooms', { game: 'ouk-chatrang', seat: 'white', name: 'Dara', clock });
  const far = await openSeat(t, browser, { url: link.url }, created, 0, created.seat_token, { creator: true });
  // A few pings of a second each: the page's round trip is known.
  await sleep(3_000);
  const joined = await apiPost(server, `/api/rooms/${created.invite_code}/join`, { name: 'Sok' });
  const near = await openSeat(t, browser, server, created, 1, joined.seat_token);
  for (const page of [far, near]) await waitForRoom(page, { status: 'playing', toMove: '0' });
  return { link, far, near };
}

test('a page 400 ms away shows the running clock as the server counts it', async (t) => {
  // 9 s: the clocks show tenths.
  const { far, near } = await farAndNear(t, { initial_s: 9, increment_s: 0 });
  // White's clock runs: read on both pages at the same instant, the near one (a few ms from the
  // server) showing the server's clock.
  const differences = [];
  for (let sample = 0; sample < 5; sample++) {
    const [seen, server] = await Promise.all([clockTexts(far), clockTexts(near)]);
    differences.push(ms(seen[0]) - ms(server[0]));
    await sleep(300);
  }
  differences.sort((a, b) => a - b);
  // Each text is cut to tenths (up to 100 ms each) and the round trip is an estimate: within
  // 250 ms. Counted from the frame's arrival instead, the far page would be ONE_WAY_MS high.
  const median = differences[2];
  t.diagnostic(`the far page's clock minus the server's: ${differences.join(', ')} ms`);
  assert.ok(Math.abs(median) <= 250, `the far page's clock minus the server's: ${differences.join(', ')} ms`);
});

test('signal bars: good near, slow far, lost when the far link dies', async (t) => {
  const { link, far, near } = await farAndNear(t, { initial_s: 300, increment_s: 3 });
  const signal = (page, seat) => page.$eval(`#players li[data-seat="${seat}"] .signal`, (el) => el.dataset.signal);
  // The server measures Dara's round trip at about 800 ms (slow), Sok's at a few ms (good).
  assert.equal(await eventually(() => signal(near, 0), (s) => s === 'slow'), 'slow');
  assert.equal(await signal(near, 1), 'good');
  assert.equal(await eventually(() => signal(far, 1), (s) => s === 'good'), 'good');
  assert.equal(await eventually(() => signal(far, 0), (s) => s === 'slow'), 'slow');
  // Dara's link swallows everything from now on: the server hears nothing for its silence limit
  // (8 s), closes the connection, and Sok's page shows Dara lost within 10 s.
  allowErrors(far, /WebSocket|ERR_|net::/);
  link.blackHole();
  const dead = Date.now();
  assert.equal(
    await eventually(() => signal(near, 0), (s) => s === 'lost', { timeout: 12_000 }),
    'lost',
  );
  const waited = Date.now() - dead;
  assert.ok(waited <= 10_000, `shown lost after ${waited} ms`);
  assert.equal(await signal(near, 1), 'good');
});
