// Steps on the home and room pages, through the DOM of docs/web-client.md ("The room page DOM",
// "The board contract"). Every step waits for the page to show its effect, never a fixed time.
//
// Home page:
//   const invite = await createRoom(page, server, { game: 'khan-tsin', players: 3, seat: 'blue',
//                                                   visibility: 'public', layout, name: 'Dara' });
//       // fills the home page's form and creates the room; resolves on the room page with the
//       // creator in its seat, returning the invite link (http://127.0.0.1:PORT/r/CODE). Every
//       // option may be left out (the page's defaults). `local: true` makes a pass-and-play room
//       // (every seat held by this browser; #room[data-role=local]); `computer: 3` plays against
//       // the computer at that level (every other seat a bot); `startPosition` (a FEN or
//       // position text) is typed into the form's "Advanced" part; `spectatorChat: false`
//       // unticks "spectators may chat"; `clock` picks a #clock option ('180+2', or 'custom'
//       // with `clockMinutes` and `clockIncrement`); `rated: true` ticks "Rated" (logged in).
//   await setLanguage(page, 'ko');                     // the #lang switch, then <html lang=ko>
//
// Room page:
//   await joinRoom(page, invite, { name: 'Sok' });     // open the invite, take a seat
//   await openRoom(page, invite);                      // open it without taking a seat (spectator)
//   await clickSquare(page, 'e3');                     // click the board's [data-square="e3"]
//   await startMove(page, 'e3');                       // click the square a move starts from (a
//       // piece, a stack, a placement square) until the board marks it `selected` or that click
//       // alone made the move: the legal moves can reach the page a moment after the position
//   await clickButton(page, '[data-count="2"]');       // a choice button inside the board
//   const v = await playMove(page, ['e3', 'e4']);     // startMove, click the rest in turn, wait
//       // until the room's version goes past the one before the first click (the move is
//       // acknowledged, or at least its `moved` arrived); returns the new version.
//   await waitForVersion(page, 7);                     // until #room[data-version] >= 7
//   await waitForRoom(page, { status: 'playing', toMove: '1', role: 'player' });
//   await waitForConnection(page, 'online');           // #connection[data-state=online]
//   await roomState(page)    // { version, status, toMove, role, connection }
//   await moveList(page)     // the text of every #moves li, in order
//   await resultText(page)   // the text of #result
//   await waitForMessage(page, /declined/)  // until #message matches; returns its text
//   await squaresWith(page, 'target')  // the data-square of every square with that class
//   await seatsByName(server, invite)  // { Dara: 0, Sok: 1 }: who holds which seat (REST)
//
// Chat:
//   await sendChat(page, 'good luck');   // types into #chat-input and presses Enter
//   await chatTexts(page)                // the text of every #chat li's .chat-text, in order
//   await waitForChat(page, 'good luck'); // until some #chat li's text is exactly that
//
// Two players:
//   const { first, second, invite } = await twoPlayers(t, browser, server, { game: 'khan', startPosition });
//       // Dara creates the room on a desktop page (createRoom's options; seat 0, the first
//       // colour, unless `seat` says otherwise), Sok joins it by the invite link on a phone-sized
//       // page; resolves once both pages show the game started.
//   await pieceOn(page, 'e6')            // 1 when a square board shows a piece there, else 0
//
// Rooms made through the REST API (what the home page cannot make: a two-second clock):
//   const created = await apiPost(server, '/api/rooms', { game: 'khan', clock: {...} });
//   const page = await openSeat(t, browser, server, created, created.seat, created.seat_token,
//                               { creator: true, viewport: 'phone' });
//       // opens the room holding `seat` with `token`, stored as seats.js keeps it
//
// Anything else:
//   const list = await eventually(() => moveList(spectator), (l) => l.length === 5);
//       // polls until the check holds (or 15 s), returns the last value: assert on it

import { setTimeout as sleep } from 'node:timers/promises';
import { newPage } from './browser.mjs';

export async function createRoom(page, server, options = {}) {
  await page.goto(`${server.url}/`);
  const {
    game = 'ouk-chatrang', seat, visibility, players, layout, name, local, computer, startPosition,
    spectatorChat, clock, clockMinutes, clockIncrement, rated,
  } = options;
  await setField(page, '#game', game);
  if (seat !== undefined) await setField(page, '#seat', seat);
  if (visibility !== undefined) await setField(page, '#visibility', visibility);
  if (players !== undefined) await setField(page, '#players', String(players));
  if (layout !== undefined) await setField(page, '#layout', layout);
  if (name !== undefined) await setField(page, '#name', name);
  if (spectatorChat !== undefined) await setField(page, '#spectator-chat-option', spectatorChat);
  if (rated) {
    // Offered once the page knows it is logged in.
    await page.waitForSelector('#rated-field:not([hidden])');
    await setField(page, '#rated-option', true);
  }
  if (local) await setField(page, '#local', true);
  if (computer !== undefined) {
    await setField(page, '#computer', true);
    await setField(page, '#bot-level', computer);
  }
  if (clock !== undefined) await setField(page, '#clock', clock);
  if (clockMinutes !== undefined) await setField(page, '#clock-minutes', clockMinutes);
  if (clockIncrement !== undefined) await setField(page, '#clock-increment', clockIncrement);
  if (startPosition !== undefined) {
    await page.click('#advanced summary');
    await setField(page, '#start-position', startPosition);
  }
  await page.click('#create');
  await page.waitForURL(/\/r\/[^/]+$/);
  await page.waitForSelector(`#room[data-role="${local ? 'local' : 'player'}"][data-version]`);
  return page.url();
}

// Sets a form control whatever its kind: a select's option, a checkbox or radio button (a radio
// button can only be chosen), or a text field.
async function setField(page, selector, value) {
  const control = page.locator(selector);
  const kind = await control.evaluate((el) => (el.tagName === 'SELECT' ? 'select' : el.type));
  if (kind === 'select') await control.selectOption(String(value));
  else if (kind === 'checkbox' || kind === 'radio') await control.setChecked(Boolean(value));
  else await control.fill(String(value));
}

export async function setLanguage(page, lang) {
  await setField(page, '#lang', lang);
  await page.waitForSelector(`html[lang="${lang}"]`);
}

export async function joinRoom(page, invite, { name } = {}) {
  await openRoom(page, invite);
  if (name !== undefined) await page.fill('#name', name);
  await page.click('#take-seat');
  await page.waitForSelector('#room[data-role="player"]');
}

export async function openRoom(page, invite) {
  await page.goto(invite);
  await page.waitForSelector('#room[data-version]');
}

export async function clickSquare(page, square) {
  await page.click(`#board [data-square="${square}"]`);
}

export async function startMove(page, square) {
  const before = (await roomState(page)).version;
  const deadline = Date.now() + 15_000;
  for (;;) {
    await clickSquare(page, square);
    const started = await page
      .waitForFunction(
        ([sq, v]) =>
          document.querySelector(`#board [data-square="${sq}"]`)?.classList.contains('selected') ||
          Number(document.querySelector('#room').dataset.version) > v,
        [square, before],
        { timeout: 1_000 },
      )
      .then(() => true, () => false);
    if (started) return;
    if (Date.now() > deadline) throw new Error(`a click on ${square} does not start a move: the board never selected it`);
  }
}

export async function clickButton(page, selector) {
  await page.click(`#board ${selector}`);
}

export async function playMove(page, squares) {
  const before = (await roomState(page)).version;
  await startMove(page, squares[0]);
  for (const square of squares.slice(1)) await clickSquare(page, square);
  return waitForVersion(page, before + 1);
}

export async function waitForVersion(page, version) {
  await page.waitForFunction(
    (v) => Number(document.querySelector('#room')?.dataset.version) >= v,
    version,
  );
  return (await roomState(page)).version;
}

// Waits until #room carries every given attribute value (status, toMove, role).
export async function waitForRoom(page, wanted) {
  const attributes = Object.entries(wanted)
    .map(([key, value]) => `[data-${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}="${value}"]`)
    .join('');
  await page.waitForSelector(`#room${attributes}`);
}

export async function waitForConnection(page, state, { timeout } = {}) {
  await page.waitForSelector(`#connection[data-state="${state}"]`, { state: 'attached', timeout });
}

export async function roomState(page) {
  return page.evaluate(() => {
    const room = document.querySelector('#room').dataset;
    return {
      version: Number(room.version),
      status: room.status,
      toMove: room.toMove,
      role: room.role,
      connection: document.querySelector('#connection')?.dataset.state,
    };
  });
}

export async function moveList(page) {
  return page.locator('#moves li').allTextContents().then((items) => items.map((s) => s.trim()));
}

export async function resultText(page) {
  return (await page.textContent('#result')).trim();
}

export async function waitForMessage(page, pattern) {
  await page.waitForFunction(
    ([source, flags]) => new RegExp(source, flags).test(document.querySelector('#message').textContent),
    [pattern.source, pattern.flags],
  );
  return page.textContent('#message');
}

export async function squaresWith(page, className) {
  return page
    .locator(`#board [data-square].${className}`)
    .evaluateAll((els) => els.map((el) => el.getAttribute('data-square')));
}

export async function seatsByName(server, invite) {
  const code = new URL(invite).pathname.split('/').pop();
  const response = await fetch(`${server.url}/api/rooms/${code}`);
  if (!response.ok) throw new Error(`GET /api/rooms/${code}: ${response.status}`);
  const { seats } = await response.json();
  return Object.fromEntries(seats.filter((s) => s.taken).map((s) => [s.name, s.seat]));
}

// Chat (room page): see the top of this file.
export async function sendChat(page, text) {
  await page.fill('#chat-input', text);
  await page.press('#chat-input', 'Enter');
}

export async function chatTexts(page) {
  return page.locator('#chat li .chat-text').allTextContents();
}

export async function waitForChat(page, text) {
  await page.waitForFunction(
    (wanted) => [...document.querySelectorAll('#chat li .chat-text')].some((el) => el.textContent === wanted),
    text,
  );
}

// Polls `read` until `check(value)` holds, for what no selector can say (e.g. "the move list has
// five entries"); returns the last value, which the caller asserts on.
export async function eventually(read, check, { timeout = 15_000 } = {}) {
  const deadline = Date.now() + timeout;
  let value = await read();
  while (!check(value) && Date.now() < deadline) {
    await sleep(100);
    value = await read();
  }
  return value;
}

export async function twoPlayers(t, browser, server, options) {
  const first = await newPage(t, browser);
  const second = await newPage(t, browser, { viewport: 'phone' });
  const invite = await createRoom(first, server, { seat: 'white', name: 'Dara', ...options });
  await joinRoom(second, invite, { name: 'Sok' });
  for (const page of [first, second]) await waitForRoom(page, { status: 'playing' });
  return { first, second, invite };
}

// A clock's text (m:ss, h:mm:ss, 0:09.4) in ms.
export function clockMs(text) {
  const [main, tenths = '0'] = text.split('.');
  const parts = main.split(':').map(Number);
  return parts.reduce((acc, n) => acc * 60 + n, 0) * 1000 + Number(tenths) * 100;
}

// The text of each seat's clock, in seat order.
export async function clockTexts(page) {
  return page.$$eval('#players .clock[data-seat]', (els) =>
    els.sort((a, b) => a.dataset.seat - b.dataset.seat).map((el) => el.textContent));
}

export async function pieceOn(page, square) {
  return page.locator(`#board [data-square="${square}"] .piece`).count();
}

export async function apiPost(server, path, body) {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

export async function openSeat(t, browser, server, created, seat, token, { creator = false, viewport } = {}) {
  const code = created.invite_code;
  const page = await newPage(t, browser, { viewport });
  await page.goto(`${server.url}/`);
  await page.evaluate(({ key, entry }) => localStorage.setItem(key, JSON.stringify(entry)), {
    key: `khanate.room.${code.toLowerCase()}`,
    entry: { room_id: created.room_id, local: false, seats: { [seat]: token }, ...(creator ? { creator: seat } : {}) },
  });
  await page.goto(`${server.url}/r/${code}`);
  await waitForRoom(page, { role: 'player' });
  return page;
}
