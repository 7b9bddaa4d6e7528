// Playing against the computer: from the home page (Ouk Chatrang at level 1, where the bot answers
// a move clicked on the board; three-player Khan-Tsin against two bots), and a computer player
// added to a free seat from the room page of a waiting room (a refusal first, then the game
// starting; in a three-player room, one seat of the two free). Bot seats show as the computer with its level, in the page's language.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from './lib/server.mjs';
import { launchBrowser, newPage, screenshot } from './lib/browser.mjs';
import {
  createRoom, eventually, moveList, openRoom, playMove, roomState, setLanguage, waitForRoom,
} from './lib/pages.mjs';

let server;
let browser;

before(async () => {
  server = await startServer('bots');
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

async function summary(invite) {
  const code = new URL(invite).pathname.split('/').pop();
  const response = await fetch(`${server.url}/api/rooms/${code}`);
  assert.equal(response.status, 200);
  return response.json();
}

// Each `#players li`'s seat, bot level ('' for a person) and text.
async function players(page) {
  return page.locator('#players li').evaluateAll((items) =>
    items.map((li) => ({
      seat: Number(li.dataset.seat),
      bot: li.dataset.bot ?? '',
      who: li.querySelector('.who').textContent,
      notes: li.querySelector('.notes').textContent,
    })),
  );
}

test('Ouk Chatrang against the computer at level 1: it starts at once and the bot answers', async (t) => {
  const page = await newPage(t, browser);
  await page.goto(`${server.url}/`);
  // The level and its hint show only once the computer is chosen; the room is private then.
  assert.equal(await page.locator('#bot-level').isVisible(), false);
  await page.check('#computer');
  assert.equal(await page.locator('#bot-level').isVisible(), true);
  assert.equal(await page.locator('#visibility').isVisible(), false);
  assert.deepEqual(
    await page.locator('#bot-level option').allTextContents(),
    ['1 · Beginner (random moves)', '2 · Easy', '3 · Medium', '4 · Hard', '5 · Strongest'],
  );
  await screenshot(page, 'bots-home-desktop');

  const invite = await createRoom(page, server, { game: 'ouk-chatrang', seat: 'white', computer: 1, name: 'Dara' });
  await waitForRoom(page, { status: 'playing', toMove: '0', role: 'player' });
  assert.deepEqual(await players(page), [
    { seat: 0, bot: '', who: 'White (Dara)', notes: 'you · online' },
    { seat: 1, bot: '1', who: 'Black (Computer · level 1)', notes: '' },
  ]);
  assert.equal(await page.locator('#invite-box').isVisible(), false, 'nobody to invite');
  // Private, against the computer alone: nobody can watch, so no switch for spectators' chat.
  assert.equal(await page.locator('#spectator-chat-switch').isVisible(), false);
  assert.equal((await page.textContent('#turn')).trim(), 'Your move.');
  const room = await summary(invite);
  assert.equal(room.seats[1].bot, 1);
  const lobby = await (await fetch(`${server.url}/api/rooms`)).json();
  assert.equal(lobby.rooms.length, 0, 'a game against the computer is not listed');

  await playMove(page, ['e3', 'e4']);
  const moves = await eventually(() => moveList(page), (list) => list.length === 2);
  assert.equal(moves.length, 2, `the bot answered: ${moves}`);
  assert.match(moves[0], /e4/);
  await waitForRoom(page, { status: 'playing', toMove: '0' });
  assert.equal((await page.textContent('#turn')).trim(), 'Your move.');
  await screenshot(page, 'bots-ouk-chatrang-desktop');

  await setLanguage(page, 'ko');
  assert.equal(await page.locator('#players li[data-seat="1"] .who').textContent(), '흑 (컴퓨터 · 1단계)');
  await screenshot(page, 'bots-ouk-chatrang-ko');
});

test('three-player Khan-Tsin against two computers starts at once, both bot seats with their level', async (t) => {
  const page = await newPage(t, browser, { viewport: 'phone' });
  await page.goto(`${server.url}/`);
  await page.locator('#game').selectOption('khan-tsin');
  await page.check('#computer');
  await screenshot(page, 'bots-home-phone');
  const invite = await createRoom(page, server, { game: 'khan-tsin', players: 3, computer: 2, name: 'Dara' });
  await waitForRoom(page, { status: 'playing', role: 'player' });
  const room = await summary(invite);
  const mine = room.seats.find((s) => s.name === 'Dara').seat;
  assert.deepEqual(
    room.seats.map((s) => s.bot ?? null),
    [0, 1, 2].map((seat) => (seat === mine ? null : 2)),
  );
  const colors = { 0: 'White', 1: 'Green', 2: 'Blue' };
  assert.deepEqual(
    await players(page),
    [0, 1, 2].map((seat) => (seat === mine
      ? { seat, bot: '', who: `${colors[seat]} (Dara)`, notes: 'you · online' }
      : { seat, bot: '2', who: `${colors[seat]} (Computer · level 2)`, notes: '' })),
  );
  // The bots before this seat in turn (white, green, blue) place a pawn each, then it is ours.
  await waitForRoom(page, { toMove: String(mine) });
  assert.equal((await moveList(page)).length, mine);
  assert.equal((await page.textContent('#turn')).trim(), 'Your move.');
  await screenshot(page, 'bots-khan-tsin-phone');
});

test('the creator of a waiting room adds a computer player from the room page', async (t) => {
  const page = await newPage(t, browser);
  const invite = await createRoom(page, server, { game: 'khan', seat: 'white', name: 'Dara' });
  await waitForRoom(page, { status: 'waiting' });
  await page.locator('#add-bot-box').waitFor();
  // One free seat: nothing to choose but the level.
  assert.equal(await page.locator('#add-bot-seat').isVisible(), false);
  assert.equal(await page.locator('#add-bot-seat').inputValue(), '1');
  const spectator = await newPage(t, browser, { viewport: 'phone' });
  await openRoom(spectator, invite);
  assert.equal(await spectator.locator('#invite-box').isVisible(), true);
  assert.equal(await spectator.locator('#add-bot-box').isVisible(), false, 'only a seated player adds one');
  await screenshot(page, 'bots-add-desktop');

  // A seat taken meanwhile (here the creator's own, offered as if the page had not heard yet):
  // the server refuses and the page says why.
  await page.locator('#add-bot-seat').evaluate((select) => {
    select.add(new Option('White', '0'));
    select.value = '0';
  });
  await page.click('#add-bot');
  await eventually(() => page.textContent('#message'), (text) => text !== '');
  assert.equal(
    (await page.textContent('#message')).trim(),
    'The computer cannot take that seat now: it was taken, or the game has begun.',
  );
  await waitForRoom(page, { status: 'waiting' });

  // The seat list as the page had it: the one free seat, hidden.
  await page.locator('#add-bot-seat').evaluate((select) => {
    select.querySelector('option[value="0"]').remove();
    select.value = '1';
  });
  await page.locator('#add-bot-level').selectOption('4');
  await page.click('#add-bot');
  for (const p of [page, spectator]) await waitForRoom(p, { status: 'playing', toMove: '0' });
  assert.equal((await page.textContent('#message')).trim(), '');
  assert.equal(await page.locator('#invite-box').isVisible(), false);
  assert.equal(await page.locator('#players li[data-seat="1"]').getAttribute('data-bot'), '4');
  for (const p of [page, spectator]) {
    assert.equal(await p.locator('#players li[data-seat="1"] .who').textContent(), 'Black (Computer · level 4)');
  }
  assert.equal((await summary(invite)).seats[1].bot, 4);

  await playMove(page, ['a3', 'a4']);
  const moves = await eventually(() => moveList(spectator), (list) => list.length === 2);
  assert.equal(moves.length, 2, `the bot answered: ${moves}`);
  await waitForRoom(page, { toMove: '0' });
  assert.equal((await roomState(page)).status, 'playing');
  await screenshot(spectator, 'bots-added-phone');
});

test('in a waiting three-player room the player picks which free seat the computer takes', async (t) => {
  const page = await newPage(t, browser, { viewport: 'phone' });
  const invite = await createRoom(page, server, { game: 'khan-tsin', players: 3, seat: 'white', name: 'Dara' });
  await waitForRoom(page, { status: 'waiting' });
  const seat = page.locator('#add-bot-seat');
  await seat.waitFor();
  assert.deepEqual(await seat.locator('option').allTextContents(), ['Green', 'Blue']);
  await screenshot(page, 'bots-add-three-phone');
  await seat.selectOption('2');
  await page.locator('#add-bot-level').selectOption('1');
  await page.click('#add-bot');
  await page.locator('#players li[data-seat="2"][data-bot="1"]').waitFor();
  assert.equal(await page.locator('#players li[data-seat="2"] .who').textContent(), 'Blue (Computer · level 1)');
  assert.equal((await page.textContent('#turn')).trim(), 'Waiting for players: 1 seat free.');
  // Green is the only free seat left: no choice to show.
  await seat.waitFor({ state: 'hidden' });
  assert.equal(await seat.inputValue(), '1');
  assert.equal((await roomState(page)).status, 'waiting');
  assert.equal((await summary(invite)).seats[1].taken, false);
});
