// The finished-game page /g/{room_id}: a game played in two browsers to its end links to its
// page, which shows the result and the players' final clocks, replays from the start to the end
// with the buttons and the arrow keys (every position shown equals the server's record), marks
// the check on the last move, and speaks Korean; the home page lists it among the recently
// finished games, and a waiting room with its creator and clock; a page for no finished game
// says so.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from './lib/server.mjs';
import { allowErrors, launchBrowser, newPage, screenshot } from './lib/browser.mjs';
import { playMove, waitForRoom, twoPlayers, squaresWith, eventually, setLanguage } from './lib/pages.mjs';

// White's rook takes Black's on a7, Black's King steps aside, the rook checks from a8.
const START = '4k3/r7/8/8/8/8/8/R2K4 w - - 0 1';

let server;
let browser;
// The room of the game the first test finished.
let finishedRoom = null;

before(async () => {
  server = await startServer('game-page');
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

// The occupied squares of a FEN's board, sorted.
function occupied(fen) {
  const squares = [];
  fen.split(' ')[0].split('/').forEach((row, i) => {
    let file = 0;
    for (const c of row) {
      if (/\d/.test(c)) file += Number(c);
      else squares.push(`${'abcdefgh'[file++]}${8 - i}`);
    }
  });
  return squares.sort();
}

async function shownPieces(page) {
  const squares = await page.locator('#board [data-square]:has(.piece)').evaluateAll(
    (els) => els.map((el) => el.dataset.square),
  );
  return squares.sort();
}

async function showsPly(page, ply) {
  await page.waitForSelector(`#room[data-ply="${ply}"]`);
}

test('a finished game\'s page shows its result and replays to the end', async (t) => {
  const { first: dara, second: sok } = await twoPlayers(t, browser, server, {
    game: 'ouk-chatrang', startPosition: START, clock: '300+3', visibility: 'public',
  });
  let v = await playMove(dara, ['a1', 'a7']);
  await waitForRoom(sok, { toMove: '1' });
  v = await playMove(sok, ['e8', 'f8']);
  await waitForRoom(dara, { toMove: '0' });
  await playMove(dara, ['a7', 'a8']);
  await waitForRoom(sok, { toMove: '1' });
  await sok.click('#resign');
  await waitForRoom(dara, { status: 'finished' });

  // The room's finished state links to the game's page.
  const link = dara.locator('#game-page-link');
  await link.waitFor();
  const roomId = (await link.getAttribute('href')).split('/').at(-1);
  const record = await (await fetch(`${server.url}/api/games/${roomId}`)).json();
  assert.equal(record.history.length, 3);

  const page = await newPage(t, browser);
  await page.goto(`${server.url}/g/${roomId}`);
  await page.waitForSelector('#room[data-ready="true"]');
  assert.match(await page.locator('#result').innerText(), /White \(Dara\) wins: resignation/);
  const players = await page.locator('#players li').allInnerTexts();
  assert.equal(players.length, 2);
  assert.match(players[0], /Dara/);
  assert.match(players[0], /\d:\d\d/, 'the final time is shown');
  assert.match(await page.locator('#time-control').innerText(), /5 min \+ 3 s/);
  assert.equal(await page.locator('#download-pgn').getAttribute('href'), `api/games/${roomId}/pgn`);

  // It opens at the end: the final position, with the check on Black's King.
  await showsPly(page, 3);
  assert.deepEqual(await shownPieces(page), occupied(record.final_position));
  assert.deepEqual(await squaresWith(page, 'check'), ['f8']);

  // Back to the start with Home, then forward move by move with the arrow key and the button.
  await page.keyboard.press('Home');
  await showsPly(page, 0);
  assert.deepEqual(await shownPieces(page), occupied(record.start_position));
  await page.keyboard.press('ArrowRight');
  await showsPly(page, 1);
  assert.deepEqual(await shownPieces(page), occupied(record.history[0].position));
  await page.click('#forward');
  await showsPly(page, 2);
  assert.deepEqual(await shownPieces(page), occupied(record.history[1].position));
  await page.keyboard.press('ArrowLeft');
  await showsPly(page, 1);
  await page.click('#last');
  await showsPly(page, 3);
  assert.deepEqual(await shownPieces(page), occupied(record.final_position));
  assert.equal(await page.locator('#forward').isDisabled(), true);
  await screenshot(page, 'game-page-en');

  // A click on a move of the list shows it.
  await page.locator('#moves li[data-ply="1"] button').click();
  await showsPly(page, 1);
  assert.equal(await page.locator('#moves li.current').getAttribute('data-ply'), '1');

  await setLanguage(page, 'ko');
  const korean = await eventually(() => page.locator('#result').innerText(), (text) => /[\uac00-\ud7a3]/.test(text));
  assert.match(korean, /Dara/);
  await screenshot(page, 'game-page-ko');
  finishedRoom = roomId;
});

test('the home page lists recently finished games, and a waiting room\'s creator and clock', async (t) => {
  assert.ok(finishedRoom, 'the game of the first test');
  const created = await fetch(`${server.url}/api/rooms`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ game: 'khan', name: 'Ana', visibility: 'public', clock: { initial_s: 600, increment_s: 5 } }),
  });
  assert.equal(created.status, 201);
  const page = await newPage(t, browser, { viewport: 'phone' });
  await page.goto(`${server.url}/`);
  const waiting = page.locator('#lobby li .lobby-meta');
  await waiting.waitFor();
  assert.equal(await waiting.innerText(), 'by Ana · 10 min + 5 s');
  const finished = page.locator(`#recent-games li[data-room="${finishedRoom}"] a.game-link`);
  await finished.waitFor();
  assert.equal(await finished.innerText(), 'Ouk Chatrang');
  const entry = page.locator(`#recent-games li[data-room="${finishedRoom}"]`);
  assert.match(await entry.innerText(), /^Ouk Chatrang: White \(Dara\) – Black \(Sok\)/);
  await screenshot(page, 'home-recent-games');
  await finished.click();
  await page.waitForURL(new RegExp(`/g/${finishedRoom}$`));
  await page.waitForSelector('#room[data-ready="true"]');
});

// The occupied squares of a Khan position text (ranks 10 to 1, files a to j), sorted.
function khanOccupied(text) {
  const squares = [];
  text.split(' ')[0].split('/').forEach((row, i) => {
    let file = 0;
    for (const [token] of row.matchAll(/\d+|[a-zA-Z]/g)) {
      if (/\d/.test(token)) file += Number(token);
      else squares.push(`${'abcdefghij'[file++]}${10 - i}`);
    }
  });
  return squares.sort();
}

test('a Khan game\'s page replays its custodian capture', async (t) => {
  // White's Khan c2 steps to c3, beside Black's Soldier d3 with White's Khan e3 beyond it.
  const start = '10/s9/9k/10/10/10/10/3sK5/2K7/S9 w';
  const { first: ana, second: bo } = await twoPlayers(t, browser, server, { game: 'khan', startPosition: start });
  await playMove(ana, ['c2', 'c3']);
  await waitForRoom(bo, { toMove: '1' });
  await bo.click('#resign');
  await waitForRoom(ana, { status: 'finished' });
  const roomId = (await ana.locator('#game-page-link').getAttribute('href')).split('/').at(-1);
  const record = await (await fetch(`${server.url}/api/games/${roomId}`)).json();
  assert.deepEqual(record.history[0].captured, ['d3']);

  const page = await newPage(t, browser, { viewport: 'phone' });
  await page.goto(`${server.url}/g/${roomId}`);
  await page.waitForSelector('#room[data-ready="true"]');
  await showsPly(page, 1);
  assert.deepEqual(await shownPieces(page), khanOccupied(record.final_position));
  assert.ok(!(await shownPieces(page)).includes('d3'), 'the captured Soldier is gone');
  await page.click('#back');
  await showsPly(page, 0);
  assert.deepEqual(await shownPieces(page), khanOccupied(start));
  await screenshot(page, 'game-page-khan-phone');
});

test('the page of no finished game says so', async (t) => {
  const page = await newPage(t, browser, { viewport: 'phone' });
  allowErrors(page, /status of 404/);
  const response = await page.goto(`${server.url}/g/00000000-0000-0000-0000-000000000000`);
  assert.equal(response.status(), 404);
  await page.locator('#notice').waitFor();
  assert.match(await page.locator('#notice').innerText(), /no finished game/i);
});
