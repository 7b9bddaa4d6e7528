// A room's life around the game itself: a reload returns to the seat, a killed and restarted
// server is rejoined by itself, a spectator sees a three-player Khan-Tsin game, one browser plays
// both sides (pass-and-play), the language switch (home page, and a room's board and texts), an
// invite link that leads nowhere, and the heartbeat in a tab whose timers run once a minute.
// Each board is photographed at desktop and phone size (target/browser-artifacts/).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { allowErrors, launchBrowser, newPage, screenshot } from './lib/browser.mjs';
import {
  clickButton, startMove, twoPlayers, createRoom, eventually, joinRoom, moveList, openRoom,
  playMove, resultText, roomState, seatsByName, setLanguage, waitForConnection, waitForRoom,
  waitForVersion,
} from './lib/pages.mjs';
import { startServer } from './lib/server.mjs';

let server;
let browser;

before(async () => {
  server = await startServer('lifecycle');
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

// Every square of the board with its classes and what is drawn on it: equal for two pages that
// show the same position, last move and orientation.
function boardPicture(page) {
  return page
    .locator('#board [data-square]')
    .evaluateAll((squares) => squares.map((el) => `${el.getAttribute('data-square')} ${el.getAttribute('class')} ${el.innerHTML}`));
}

const controls = [
  '#resign', '#offer-draw', '#accept-draw', '#decline-draw', '#claim-draw', '#abort', '#rematch',
  '#accept-rematch', '#decline-rematch',
];

async function visibleControls(page) {
  const shown = [];
  for (const control of controls) if (await page.locator(control).isVisible()) shown.push(control);
  return shown;
}

test('a reload returns to the seat, the position as it was', async (t) => {
  const { first: white, second: black } = await twoPlayers(t, browser, server, { game: 'ouk-chatrang' });
  await playMove(white, ['e3', 'e4']);
  await waitForVersion(black, (await roomState(white)).version);
  const version = await playMove(black, ['d6', 'd5']);
  await waitForVersion(white, version);
  const moves = await moveList(white);
  assert.equal(moves.length, 2);
  const picture = await boardPicture(white);

  await white.reload();
  await waitForRoom(white, { role: 'player', version, toMove: '0' });
  assert.deepEqual(await moveList(white), moves);
  assert.deepEqual(await boardPicture(white), picture);
  assert.ok((await visibleControls(white)).includes('#resign'), 'the player still has the resign button');

  // Still White: the pawn on e4 takes on d5, and Black sees it.
  const after = await playMove(white, ['e4', 'd5']);
  await waitForVersion(black, after);
  assert.equal((await moveList(black)).length, 3);
  await screenshot(white, 'ouk-chatrang-reload-desktop');
  await screenshot(black, 'ouk-chatrang-reload-phone');
});

test('a killed and restarted server is rejoined by itself', async (t) => {
  const { first: white, second: black } = await twoPlayers(t, browser, server, { game: 'khan' });
  for (const page of [white, black]) {
    // The browser's own lines about the refused connections while the server is down.
    allowErrors(page, /net::ERR_CONNECTION_REFUSED|WebSocket connection to .* failed/);
  }
  const version = await playMove(white, ['a3', 'a4']);
  await waitForVersion(black, version);
  await waitForConnection(white, 'online');
  await waitForConnection(black, 'online');

  await server.kill();
  await waitForConnection(white, 'offline');
  await waitForConnection(black, 'offline');
  await server.restart();
  // Reconnection backs off: allow a few attempts.
  await waitForConnection(white, 'online', { timeout: 30_000 });
  await waitForConnection(black, 'online', { timeout: 30_000 });

  const moved = await playMove(black, ['a8', 'a7']);
  await waitForVersion(white, moved);
  assert.equal((await moveList(white)).length, 2);
  assert.deepEqual(await moveList(white), await moveList(black));
  await screenshot(white, 'khan-restart-desktop');
  await screenshot(black, 'khan-restart-phone');
});

test('a spectator sees every move of a three-player Khan-Tsin game', async (t) => {
  const creator = await newPage(t, browser);
  const invite = await createRoom(creator, server, { game: 'khan-tsin', players: 3, name: 'Dara' });
  const second = await newPage(t, browser);
  await joinRoom(second, invite, { name: 'Sok' });
  const third = await newPage(t, browser);
  await joinRoom(third, invite, { name: 'Chan' });
  const spectator = await newPage(t, browser, { viewport: 'phone' });
  await openRoom(spectator, invite);
  await waitForRoom(spectator, { role: 'spectator', status: 'playing' });
  assert.deepEqual(await visibleControls(spectator), []);
  assert.equal(await spectator.locator('#take-seat').isVisible(), false);

  const seats = await seatsByName(server, invite);
  const players = { [seats.Dara]: creator, [seats.Sok]: second, [seats.Chan]: third };
  // Placement begins on the triple squares: 1, 4, 7, ... on the default layout (231 repeated).
  const placed = [];
  const colors = ['White', 'Green', 'Blue'];
  for (const square of [1, 4, 7, 10, 13, 16]) {
    const { toMove, version } = await roomState(spectator);
    const player = players[toMove];
    await startMove(player, String(square));
    await clickButton(player, '[data-place="p"]');
    await waitForVersion(player, version + 1);
    placed.push(`${colors[placed.length % 3]} pawn on ${square}`);
    await waitForVersion(spectator, version + 1);
    assert.deepEqual(await moveList(spectator), placed);
  }
  for (const page of [creator, second, third]) {
    assert.deepEqual(await eventually(() => moveList(page), (list) => list.length === placed.length), placed);
  }
  await screenshot(creator, 'khan-tsin-3p-desktop');
  await screenshot(spectator, 'khan-tsin-3p-spectator-phone');
});

test('one browser plays both sides of an Ouk Chatrang game to a repetition', async (t) => {
  const page = await newPage(t, browser);
  await createRoom(page, server, { game: 'ouk-chatrang', local: true });
  await waitForRoom(page, { role: 'local', status: 'playing' });
  // The Knights go out and back twice: the start position stands for the third time.
  const shuffle = [['b1', 'd2'], ['g8', 'e7'], ['d2', 'b1'], ['e7', 'g8']];
  for (const move of [...shuffle, ...shuffle]) await playMove(page, move);
  assert.equal((await moveList(page)).length, 8);
  await page.click('#claim-draw');
  await waitForRoom(page, { status: 'finished' });
  assert.match(await resultText(page), /repetition/i);
  await screenshot(page, 'ouk-chatrang-local');
});

test('the language switch turns the home page Korean and back', async (t) => {
  const page = await newPage(t, browser);
  await page.goto(`${server.url}/`);
  await page.waitForSelector('html[lang="en"]');
  // The lobby answers after the page is up: its answer (a list, the empty hint or an error) must
  // be on the page before the text is taken, or the two texts differ by it (a run failed so).
  await page.waitForFunction(
    () =>
      !document.querySelector('#lobby-empty').hidden ||
      document.querySelector('#lobby').children.length > 0 ||
      document.querySelector('#lobby-error').textContent !== '',
  );
  const english = await page.locator('body').innerText();
  await setLanguage(page, 'ko');
  const korean = await page.locator('body').innerText();
  assert.match(korean, /[\uac00-\ud7a3]/, 'Hangul on the page');
  assert.notEqual(korean, english);
  await screenshot(page, 'home-ko');
  await setLanguage(page, 'en');
  assert.equal(await page.locator('body').innerText(), english);
});

test('an invite link that leads nowhere says so', async (t) => {
  const page = await newPage(t, browser);
  // The browser reports the room's 404 on its own.
  allowErrors(page, /status of 404/);
  await page.goto(`${server.url}/r/nosuchroom`);
  const message = page.locator('#notice');
  await message.waitFor({ state: 'visible' });
  assert.match(await message.innerText(), /no such room/i);
  assert.equal(await message.locator('a[href]').count(), 1, 'a way back to the home page');
  assert.equal(await page.locator('#board [data-square]').count(), 0);
  await screenshot(page, 'room-not-found');
});

test('the room page follows the language switch: the board\'s label and the players', async (t) => {
  for (const game of ['khan', 'khan-tsin']) {
    const page = await newPage(t, browser);
    await createRoom(page, server, { game, local: true });
    await waitForRoom(page, { role: 'local', status: 'playing' });
    const board = page.locator('#board svg').first();
    const english = await board.getAttribute('aria-label');
    assert.match(english, /^Khan/);
    await setLanguage(page, 'ko');
    const korean = await eventually(() => board.getAttribute('aria-label'), (label) => label !== english);
    assert.match(korean, /[\uac00-\ud7a3]/, `${game}: a Korean label, not ${korean}`);
    assert.match(await page.locator('#players').innerText(), /[\uac00-\ud7a3]/);
    await setLanguage(page, 'en');
    assert.equal(await eventually(() => board.getAttribute('aria-label'), (label) => label === english), english);
  }
});

test('a tab whose timers run once a minute keeps a healthy connection and drops a silent one', async (t) => {
  const page = await newPage(t, browser);
  // Background tabs: Chrome runs their timers about once a minute. The page's clock is ours to
  // jump forward, firing each due timer once, as a throttled tab does.
  await page.clock.install();
  const connections = [];
  await page.routeWebSocket(/\/ws(\?|$)/, (ws) => {
    const server = ws.connectToServer();
    const connection = { muted: false, pongs: 0, url: ws.url() };
    connections.push(connection);
    // The server's frames reach the page unless this connection is muted (a network that died
    // silently: nothing arrives, nothing says so).
    server.onMessage((message) => {
      if (connection.muted) return;
      if (JSON.parse(message).t === 'pong') connection.pongs += 1;
      ws.send(message);
    });
  });
  await createRoom(page, server, { game: 'khan', local: true });
  await waitForRoom(page, { role: 'local', status: 'playing' });
  await waitForConnection(page, 'online');
  // One socket per seat of the local table, each naming the room by its invite code (as the
  // page's URL does) for a proxy that hashes by room.
  assert.equal(connections.length, 2);
  const code = new URL(page.url()).pathname.split('/').pop();
  for (const c of connections) assert.equal(new URL(c.url).searchParams.get('room'), code);

  // A minute passes between ticks: a ping at each, answered in time. The connections stay.
  for (let minute = 1; minute <= 3; minute++) {
    const pongs = connections.map((c) => c.pongs);
    await page.clock.fastForward(60_000);
    assert.ok(await eventually(() => connections.every((c, i) => c.pongs > pongs[i]), Boolean), 'pongs arrive');
    assert.equal(connections.length, 2, `minute ${minute}: no new connection`);
    assert.equal((await roomState(page)).connection, 'online');
  }

  // Nothing arrives any more on the first seat's connection: the tick after its ping went
  // unanswered drops it, and the page connects again.
  connections[0].muted = true;
  const pongs = connections[1].pongs;
  await page.clock.fastForward(60_000);
  assert.ok(await eventually(() => connections[1].pongs > pongs, Boolean), 'the other seat\'s pong arrives');
  await page.clock.fastForward(60_000);
  assert.equal(await eventually(() => connections.length, (n) => n === 3), 3);
  await waitForConnection(page, 'online');
  // The other seat's connection, answered, was kept; the table plays on.
  await playMove(page, ['a3', 'a4']);
  assert.equal(connections.length, 3);
});
