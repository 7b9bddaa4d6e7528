// The game screen (issue 18): the page never scrolls by itself while a game is played, the board
// stays wholly in view on a phone and a desktop, the clocks come back from the server after it was
// killed and restarted, a long Khan jump chain stays inside its cell of the move list; the replay
// shows the server's earlier positions; the keyboard plays; the clocks sit above and below the
// board; a move made offline is pending until the server has it; the sound switch is remembered.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { allowErrors, launchBrowser, newPage, screenshot } from './lib/browser.mjs';
import {
  clickSquare, createRoom, eventually, moveList, pieceOn, playMove, roomState, setLanguage, squaresWith, startMove,
  twoPlayers, waitForConnection, waitForRoom, waitForVersion,
} from './lib/pages.mjs';
import { sleep, startServer } from './lib/server.mjs';

let server;
let browser;

before(async () => {
  server = await startServer('game-screen');
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

// Where the page stands: its own scroll, the side panel's, and whether the board and the clocks
// lie wholly inside the window.
async function layout(page) {
  return page.evaluate(() => {
    const inView = (el) => {
      if (!el) return null;
      const r = el.getBoundingClientRect();
      return r.width > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight + 0.5 && r.right <= innerWidth + 0.5;
    };
    const clocks = [...document.querySelectorAll('.clock[data-seat]')];
    return {
      pageScroll: Math.round(scrollY),
      sideScroll: Math.round(document.querySelector('#side').scrollTop),
      board: inView(document.querySelector('#board svg')),
      clocks: clocks.length === 0 ? null : clocks.every(inView),
      moves: document.querySelectorAll('#moves li').length,
    };
  });
}

test('thirty moves move neither the page nor the board, on a desktop and a phone', async (t) => {
  // Knights out and back (Ouk Chatrang's start: no pawn stands on e2 or e7).
  const { first: white, second: black } = await twoPlayers(t, browser, server, { game: 'ouk-chatrang' });
  const shuffle = [['g1', 'e2'], ['g8', 'e7'], ['e2', 'g1'], ['e7', 'g8']];
  let version = (await roomState(white)).version;
  for (let ply = 0; ply < 30; ply += 1) {
    const mover = ply % 2 === 0 ? white : black;
    await waitForRoom(mover, { toMove: String(ply % 2) });
    version = await playMove(mover, shuffle[ply % 4]);
    for (const [name, page] of [['desktop', white], ['phone', black]]) {
      await waitForVersion(page, version);
      const seen = await layout(page);
      assert.deepEqual(
        { pageScroll: seen.pageScroll, sideScroll: seen.sideScroll, board: seen.board, moves: seen.moves },
        { pageScroll: 0, sideScroll: 0, board: true, moves: ply + 1 },
        `${name} after move ${ply + 1}`,
      );
    }
  }
  // The move list scrolled inside its own box: its last move is in view within it.
  for (const page of [white, black]) {
    const last = await page.evaluate(() => {
      const list = document.querySelector('#moves').getBoundingClientRect();
      const li = document.querySelector('#moves li:last-child').getBoundingClientRect();
      return li.top >= list.top - 0.5 && li.bottom <= list.bottom + 0.5;
    });
    assert.equal(last, true, 'the last move is scrolled into the move list');
  }
  // Move numbers from 10 up stand in the same column as 1 to 9: the moves' text starts alike.
  for (const page of [white, black]) {
    const starts = await page.evaluate(() => [17, 19].map((ply) => {
      const range = document.createRange();
      range.selectNodeContents(document.querySelector(`#moves li[data-ply="${ply}"]`));
      return Math.round(range.getBoundingClientRect().left);
    }));
    assert.equal(starts[0], starts[1], 'moves 9 and 10 start at the same x');
  }
  // A key to the letters of the move list, in the page's language.
  assert.equal(await black.isVisible('#notation-key'), true);
  await black.click('#notation-key summary');
  assert.match(await black.textContent('#notation-key p'), /^K King, M Neang/);
  await setLanguage(black, 'ko');
  assert.match(await black.textContent('#notation-key p'), /^K 왕, M 니앙/);
  await screenshot(white, 'game-screen-30-desktop');
  await screenshot(black, 'game-screen-30-phone');
});

// Each seat's time left now (ms) by the server: a snapshot from a fresh spectator's WebSocket
// opened from `page`, counted on to this instant. And what `page` shows at that instant.
async function serverAndShownClocks(page, roomId) {
  return page.evaluate(async (room) => {
    const url = new URL('ws', document.baseURI);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    const snapshot = await new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.onopen = () => ws.send(JSON.stringify({ t: 'hello', d: { protocol: 1, room } }));
      ws.onmessage = (message) => {
        const frame = JSON.parse(message.data);
        if (frame.t === 'snapshot') {
          ws.close();
          resolve(frame.d);
        }
      };
      ws.onerror = () => reject(new Error('the spectator socket failed'));
    });
    const { remaining_ms: remaining, running, at } = snapshot.clock;
    const server = remaining.map((ms, seat) => (seat === running ? ms - (Date.now() - Date.parse(at)) : ms));
    const toMs = (text) => {
      const [main, tenths = '0'] = text.split('.');
      return main.split(':').map(Number).reduce((acc, n) => acc * 60 + n, 0) * 1000 + Number(tenths) * 100;
    };
    const shown = [...document.querySelectorAll('.clock[data-seat]')]
      .sort((a, b) => a.dataset.seat - b.dataset.seat)
      .map((el) => toMs(el.textContent));
    return { server, shown };
  }, roomId);
}

test('after a server kill and restart the clocks shown are the server\'s', async (t) => {
  const { first: white, second: black, invite } = await twoPlayers(t, browser, server, {
    game: 'ouk-chatrang', clock: '600+5',
  });
  for (const page of [white, black]) allowErrors(page, /net::ERR_CONNECTION_REFUSED|WebSocket connection to .* failed/);
  const version = await playMove(white, ['e3', 'e4']);
  await waitForVersion(black, version);
  await waitForConnection(white, 'online');
  await waitForConnection(black, 'online');
  const code = new URL(invite).pathname.split('/').pop();
  const { room_id: roomId } = await (await fetch(`${server.url}/api/rooms/${code}`)).json();

  // Down for a few seconds: the server charges that time to nobody.
  await server.kill();
  await waitForConnection(white, 'offline');
  await sleep(4_000);
  await server.restart();
  for (const page of [white, black]) {
    await waitForConnection(page, 'online', { timeout: 30_000 });
    // The clocks may take one frame more than the connection to come back.
    const { server: truth, shown } = await eventually(
      () => serverAndShownClocks(page, roomId),
      (c) => c.shown.every((ms, seat) => Math.abs(ms - c.server[seat]) <= 1_000),
      { timeout: 5_000 },
    );
    assert.equal(shown.length, 2);
    for (const seat of [0, 1]) {
      assert.ok(Math.abs(shown[seat] - truth[seat]) <= 1_000, `seat ${seat}: shown ${shown[seat]} ms, the server's ${Math.round(truth[seat])} ms`);
    }
  }
});

// White's Khan a2 under a row of its own Soldiers a3..i3 zig-zags over them along the whole row.
const ROW = '9k/s9/10/10/10/10/10/SSSSSSSSS1/K9/10 w';
const CHAIN = ['a2', 'a4', 'c2', 'c4', 'e2', 'e4', 'g2', 'g4', 'i2', 'i4'];

for (const viewport of ['phone', 'desktop']) {
  test(`a long Khan jump chain stays in its own cell of the move list (${viewport})`, async (t) => {
    const page = await newPage(t, browser, { viewport });
    await createRoom(page, server, { game: 'khan', local: true, startPosition: ROW });
    await waitForRoom(page, { status: 'playing', toMove: '0' });
    const before = (await roomState(page)).version;
    await startMove(page, CHAIN[0]);
    for (const square of CHAIN.slice(1)) await clickSquare(page, square);
    // The chain could go on from i4: stop it there.
    if ((await roomState(page)).version === before) {
      const finish = page.locator('#board [data-finish]');
      if (await finish.count()) await finish.click();
    }
    await waitForVersion(page, before + 1);
    await waitForRoom(page, { toMove: '1' });
    await playMove(page, ['a9', 'a8']);
    const cells = await page.$$eval('#moves li', (els) => els.map((el) => {
      const r = el.getBoundingClientRect();
      return { text: el.textContent, left: r.left, right: r.right, overflow: el.scrollWidth > el.clientWidth + 0.5 };
    }));
    assert.equal(cells.length, 2);
    assert.equal(cells[0].text.replace(/^\d+\.\s*/, ''), CHAIN.join('-'));
    assert.deepEqual(cells.map((c) => c.overflow), [false, false]);
    assert.ok(cells[0].right <= cells[1].left, `White's move (to ${cells[0].right}) ends before Black's starts (${cells[1].left})`);
    await screenshot(page, `game-screen-khan-chain-${viewport}`);
  });
}

// The position after every ply as the server's own `moved` events give it (a fresh spectator's
// WebSocket opened from `page`, resumed from version 0 so that the server replays them all).
async function serverPositions(page, roomId) {
  return page.evaluate(async (room) => {
    const url = new URL('ws', document.baseURI);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    return new Promise((resolve, reject) => {
      const positions = [];
      let version = null;
      const ws = new WebSocket(url);
      ws.onopen = () => ws.send(JSON.stringify({ t: 'hello', d: { protocol: 1, room, last_v: 0 } }));
      ws.onmessage = (message) => {
        const frame = JSON.parse(message.data);
        if (frame.t === 'welcome') version = frame.d.version;
        if (frame.t === 'game_started') positions[0] = frame.d.position;
        if (frame.t === 'moved') positions.push(frame.d.position);
        if (frame.t === 'snapshot') reject(new Error('the server answered with a snapshot'));
        if (frame.v !== undefined && frame.v >= version) {
          ws.close();
          resolve(positions);
        }
      };
    });
  }, roomId);
}

async function roomIdOf(invite) {
  const code = new URL(invite).pathname.split('/').pop();
  return (await (await fetch(`${server.url}/api/rooms/${code}`)).json()).room_id;
}

const shownBoard = (page) => page.evaluate(() => {
  const { ply, position } = document.querySelector('#board').dataset;
  return { ply: Number(ply), position, viewPly: document.querySelector('#room').dataset.viewPly };
});

test('replay: the buttons and the arrow keys show earlier positions, equal to the server\'s; a move returns to the present', async (t) => {
  const { first: white, second: black, invite } = await twoPlayers(t, browser, server, { game: 'ouk-chatrang' });
  let version = await playMove(white, ['e3', 'e4']);
  await waitForVersion(black, version);
  version = await playMove(black, ['d6', 'd5']);
  await waitForVersion(white, version);
  version = await playMove(white, ['e4', 'd5']);
  await waitForVersion(black, version);
  const positions = await serverPositions(white, await roomIdOf(invite));
  assert.equal(positions.length, 4);

  // A reload: the page knows only the snapshot's position, and fetches the others to replay.
  await white.reload();
  await white.waitForSelector('#room[data-version]');
  await white.keyboard.press('ArrowLeft');
  await white.waitForSelector('#board[data-ply="2"]');
  assert.deepEqual(await shownBoard(white), { ply: 2, position: positions[2], viewPly: '2' });
  assert.equal(await pieceOn(white, 'e4'), 1, 'the Trey is back on e4');
  await white.click('#replay-back');
  await white.waitForSelector('#board[data-ply="1"]');
  assert.deepEqual(await shownBoard(white), { ply: 1, position: positions[1], viewPly: '1' });
  assert.equal(await pieceOn(white, 'd5'), 0);
  await white.keyboard.press('Home');
  assert.deepEqual(await shownBoard(white), { ply: 0, position: positions[0], viewPly: '0' });
  await white.click('#replay-forward');
  assert.equal((await shownBoard(white)).ply, 1);
  assert.equal(await white.textContent('#replay-ply'), 'Move 1 / 3');
  await screenshot(white, 'game-screen-replay-desktop');

  // Black clicks a move in its list, then White's page is taken back to the present by a move.
  await black.click('#moves li[data-ply="2"]');
  await black.waitForSelector('#board[data-ply="2"]');
  assert.equal((await shownBoard(black)).position, positions[2]);
  await black.click('#replay-last');
  version = await playMove(black, ['g8', 'e7']);
  await waitForVersion(white, version);
  assert.deepEqual(await shownBoard(white), { ply: 4, position: (await serverPositions(white, await roomIdOf(invite)))[4], viewPly: '' });
});

test('keyboard play: the squares are named, the arrows move between them, Enter makes a move', async (t) => {
  const page = await newPage(t, browser);
  await createRoom(page, server, { game: 'ouk-chatrang', local: true });
  await waitForRoom(page, { status: 'playing', toMove: '0' });
  assert.equal(await page.getAttribute('#board [data-square="e3"]', 'aria-label'), 'e3: White Trey (Fish)');
  // The board is one tab stop: its square e1 first (the middle of White's first rank).
  assert.deepEqual(await page.locator('#board [data-square][tabindex="0"]').evaluateAll((els) => els.map((el) => el.dataset.square)), ['e1']);
  await page.locator('#board [tabindex="0"]').focus();
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.square), 'e3');
  await page.keyboard.press('Enter');
  assert.deepEqual(await squaresWith(page, 'selected'), ['e3']);
  await page.keyboard.press('ArrowUp');
  const before = (await roomState(page)).version;
  await page.keyboard.press('Enter');
  await waitForVersion(page, before + 1);
  assert.deepEqual(await moveList(page), ['e4']);
  assert.equal(await pieceOn(page, 'e4'), 1);
});

test('timed game: both clocks in view beside the board, the player\'s own below it; the tab says "Your move"', async (t) => {
  const { first: white, second: black } = await twoPlayers(t, browser, server, { game: 'khan', clock: '300+3' });
  for (const [page, own] of [[white, '0'], [black, '1']]) {
    assert.equal((await layout(page)).clocks, true);
    const order = await page.evaluate(() => {
      const board = document.querySelector('#board').getBoundingClientRect();
      return [...document.querySelectorAll('#players li')].map((li) => ({
        seat: li.dataset.seat,
        below: li.getBoundingClientRect().top >= board.bottom - 1,
        above: li.getBoundingClientRect().bottom <= board.top + 1,
      }));
    });
    for (const li of order) {
      assert.deepEqual([li.below, li.above], li.seat === own ? [true, false] : [false, true], `seat ${li.seat} on seat ${own}'s page`);
    }
  }
  await waitForRoom(white, { toMove: '0' });
  assert.match(await white.title(), /^Your move · Khan/);
  assert.doesNotMatch(await black.title(), /Your move/);
  await setLanguage(black, 'ko');
  await playMove(white, ['a3', 'a4']);
  await eventually(() => black.title(), (title) => title.startsWith('내 차례'));
  assert.match(await black.title(), /^내 차례 · /);
  assert.doesNotMatch(await white.title(), /Your move/);
});

test('a move made while the connection is down is pending on the board until the server has it', async (t) => {
  const { first: white, second: black } = await twoPlayers(t, browser, server, { game: 'ouk-chatrang' });
  for (const page of [white, black]) allowErrors(page, /net::ERR_CONNECTION_REFUSED|WebSocket connection to .* failed/);
  await waitForConnection(white, 'online');
  await server.kill();
  await waitForConnection(white, 'offline');
  await startMove(white, 'e3');
  await clickSquare(white, 'e4');
  await white.waitForSelector('#board[data-pending="e3e4"]');
  assert.equal(await white.isVisible('#pending'), true);
  assert.equal((await white.textContent('#pending')).trim(), 'Your move e4 is waiting for the connection…');
  // Nothing else can be moved meanwhile.
  await clickSquare(white, 'g1');
  assert.deepEqual(await squaresWith(white, 'selected'), []);
  await screenshot(white, 'game-screen-pending-desktop');
  await server.restart();
  await eventually(() => moveList(black), (moves) => moves.length === 1, { timeout: 30_000 });
  assert.deepEqual(await moveList(black), ['e4']);
  await white.waitForSelector('#board:not([data-pending])', { timeout: 30_000 });
  assert.equal(await white.isVisible('#pending'), false);
  assert.deepEqual(await moveList(white), ['e4']);
});

test('on a phone the "Take the seat" form keeps its name field wide enough to type in', async (t) => {
  const creator = await newPage(t, browser);
  // Two free seats: the seat choice shows beside the name field and the button.
  const invite = await createRoom(creator, server, { game: 'khan-tsin', players: 3 });
  const phone = await newPage(t, browser, { viewport: 'phone' });
  await phone.goto(invite);
  await phone.waitForSelector('#join-box:not([hidden]) #seat-choice:not([hidden])');
  const width = await phone.locator('#name').evaluate((el) => el.getBoundingClientRect().width);
  assert.ok(width >= 160, `the name field is ${width}px wide`);
  // Khan-Tsin has no letters to explain.
  assert.equal(await phone.isVisible('#notation-key'), false);
});

test('sounds are off at first; the switch is remembered', async (t) => {
  const page = await newPage(t, browser);
  await createRoom(page, server, { game: 'khan', local: true });
  assert.equal(await page.getAttribute('#sound', 'aria-pressed'), 'false');
  await page.click('#sound');
  assert.equal(await page.getAttribute('#sound', 'aria-pressed'), 'true');
  await page.reload();
  await page.waitForSelector('#room[data-version]');
  assert.equal(await page.getAttribute('#sound', 'aria-pressed'), 'true');
  assert.equal(await page.evaluate(() => localStorage.getItem('khanate.sound')), 'on');
});
