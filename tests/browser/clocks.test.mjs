// Clocks (docs/protocol.md "Clocks", docs/web-client.md "Clocks"): a room made with a time control
// from the home page shows one clock per seat on both players' pages, at the initial time; after
// a move the mover's clock stops (with the increment added) and the other one runs down; and a
// seat whose time runs out loses on time, both pages saying so with the final times; in a
// three-player Khan-Tsin game it is out and the game goes on.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launchBrowser, screenshot } from './lib/browser.mjs';
import {
  apiPost, clockMs as ms, clockTexts as clocks, eventually, openSeat as openSeatOf, playMove, resultText, roomState, twoPlayers, waitForRoom,
} from './lib/pages.mjs';
import { startServer } from './lib/server.mjs';

let server;
let browser;

before(async () => {
  server = await startServer('clocks');
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

async function running(page) {
  return page.$$eval('#players .clock.running', (els) => els.map((el) => el.dataset.seat));
}

test('a 1+0 room shows both clocks, the mover\'s stops and the other runs down', async (t) => {
  const { first: dara, second: sok } = await twoPlayers(t, browser, server, { game: 'ouk-chatrang', clock: '60+0' });
  for (const page of [dara, sok]) {
    const shown = await eventually(() => clocks(page), (c) => c.length === 2);
    assert.equal(shown.length, 2);
    // White's clock may already have started: at most a second or two gone.
    assert.ok(ms(shown[0]) <= 60_000 && ms(shown[0]) >= 55_000, shown.join());
    assert.equal(shown[1], '1:00');
    assert.deepEqual(await eventually(() => running(page), (r) => r.join() === '0'), ['0']);
  }
  await waitForRoom(dara, { toMove: '0' });
  await playMove(dara, ['e3', 'e4']);
  for (const page of [dara, sok]) {
    await waitForRoom(page, { toMove: '1' });
    assert.deepEqual(await eventually(() => running(page), (r) => r.join() === '1'), ['1']);
    const before = await clocks(page);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const later = await clocks(page);
    // The mover's clock stands still; the other one went down by about the time waited.
    assert.equal(later[0], before[0]);
    const spent = ms(before[1]) - ms(later[1]);
    assert.ok(spent >= 1_000 && spent <= 2_500, `${before[1]} -> ${later[1]}`);
  }
  await screenshot(sok, 'clocks-running');
});

test('an x+y room adds the increment to the mover\'s clock', async (t) => {
  const { first: dara, second: sok } = await twoPlayers(t, browser, server, {
    game: 'ouk-chatrang', clock: 'custom', clockMinutes: 2, clockIncrement: 5,
  });
  await waitForRoom(dara, { toMove: '0' });
  const start = await eventually(() => clocks(sok), (c) => c.length === 2 && c[1] === '2:00');
  assert.deepEqual(start.length, 2);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const beforeMove = ms((await clocks(dara))[0]);
  await playMove(dara, ['e3', 'e4']);
  for (const page of [dara, sok]) {
    await waitForRoom(page, { toMove: '1' });
    const after = ms((await clocks(page))[0]);
    // The increment (5 s) is in: the mover has at least the time it showed before moving, and no
    // more than that plus the increment and a second.
    assert.ok(after >= beforeMove && after <= beforeMove + 6_000, `${beforeMove} -> ${after}`);
  }
  // The move's increment shows as 2:04 or 2:05 (White spent about a second).
  const white = ms((await clocks(sok))[0]);
  assert.ok(white > 120_000 && white <= 125_000, String(white));
});

const post = (path, body) => apiPost(server, path, body);
const openSeat = (t, created, seat, token, creator) => openSeatOf(t, browser, server, created, seat, token, { creator });

// The home page offers no clock shorter than a minute: the one-second room is made through the
// REST API (two seconds), each seat stored the way seats.js keeps it, then each page opens the room.
test('a seat whose time runs out loses on time, on both pages', async (t) => {
  const created = await post('/api/rooms', {
    game: 'ouk-chatrang', seat: 'white', name: 'Dara', clock: { initial_s: 2, increment_s: 0 },
  });
  const code = created.invite_code;
  // Dara's page is open before the game starts: it sees the clock run out live.
  const dara = await openSeat(t, created, created.seat, created.seat_token, true);
  await waitForRoom(dara, { status: 'waiting' });
  const joined = await post(`/api/rooms/${code}/join`, { name: 'Sok' });
  await waitForRoom(dara, { status: 'playing' });
  assert.deepEqual(await eventually(() => running(dara), (r) => r.join() === '0'), ['0']);
  const sok = await openSeat(t, created, joined.seat, joined.seat_token, false);
  const pages = [dara, sok];
  for (const page of pages) {
    await waitForRoom(page, { status: 'finished', role: 'player' });
    const result = await resultText(page);
    assert.match(result, /time/, result);
    assert.match(result, /^Black \(Sok\) wins/, result);
    const shown = await clocks(page);
    assert.deepEqual(shown.map(ms).map((n) => n === 0), [true, false], shown.join());
    assert.equal(shown[0], '0:00.0');
    assert.deepEqual(await running(page), []);
  }
  await screenshot(pages[1], 'clocks-flag');
});

test('a three-player Khan-Tsin seat whose time runs out is out, the game goes on', async (t) => {
  const created = await post('/api/rooms', {
    game: 'khan-tsin', seats: 3, seat: 'white', name: 'Dara', clock: { initial_s: 3, increment_s: 0 },
  });
  const code = created.invite_code;
  await post(`/api/rooms/${code}/join`, { name: 'Sok', seat: 1 });
  const last = await post(`/api/rooms/${code}/join`, { name: 'Vanna', seat: 2 });
  assert.equal(last.seat, 2);
  const page = await openSeat(t, created, last.seat, last.seat_token, false);
  // Nobody moves: the first seat's time runs out, it is out, and the next seat's clock runs.
  await page.waitForSelector('#players li[data-seat="0"].left');
  assert.equal((await roomState(page)).status, 'playing');
  assert.match(await page.textContent('#players li[data-seat="0"] .notes'), /out of time/);
  assert.equal(await page.textContent('#players .clock[data-seat="0"]'), '0:00.0');
  // Then the second one's: the last player wins on time.
  await waitForRoom(page, { status: 'finished' });
  assert.match(await resultText(page), /^Blue \(Vanna\) wins: time ran out/);
  const shown = await clocks(page);
  assert.deepEqual(shown.map((c) => ms(c) === 0), [true, true, false], shown.join());
  await screenshot(page, 'clocks-khan-tsin-flag');
});
