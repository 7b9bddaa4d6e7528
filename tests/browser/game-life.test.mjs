// A game's life around its moves: aborting before everyone has moved (and the creator cancelling a
// room still waiting), the server's rematch (offered, accepted in the other browser, both players
// and a spectator carried to the new room with the colours swapped, a reload there keeping the
// seat; three players needing both others' acceptance and rotating; a pass-and-play table moving
// all its seats),
// and chat (players both ways, the spectators' own channel the players never see, text shown as
// text, the history after a reload, the rate limit, the creator's spectator-chat switch).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launchBrowser, newPage, screenshot } from './lib/browser.mjs';
import {
  chatTexts, createRoom, eventually, moveList, openRoom, playMove, resultText, roomState,
  seatsByName, sendChat, twoPlayers, waitForChat, waitForRoom, waitForVersion,
} from './lib/pages.mjs';
import { startServer } from './lib/server.mjs';

let server;
let browser;

before(async () => {
  server = await startServer('game-life');
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

function codeOf(url) {
  return new URL(url).pathname.split('/').pop();
}

test('a player aborts before moving: both pages show the game called off', async (t) => {
  const { first: white, second: black } = await twoPlayers(t, browser, server, { game: 'ouk-chatrang' });
  await white.locator('#abort').waitFor();
  await black.locator('#abort').waitFor();
  const version = await playMove(white, ['e3', 'e4']);
  await waitForVersion(black, version);
  // White has moved, Black has not: the game may still be called off, by either.
  await black.click('#abort');
  for (const page of [white, black]) {
    await waitForRoom(page, { status: 'finished' });
    const text = await resultText(page);
    assert.match(text, /called off/i);
    assert.doesNotMatch(text, /draw|wins/i);
    assert.equal(await page.locator('#abort').isVisible(), false);
  }
  await screenshot(black, 'aborted-phone');
});

test('the abort button goes once both players have moved', async (t) => {
  const { first: white, second: black } = await twoPlayers(t, browser, server, { game: 'khan' });
  const moved = await playMove(white, ['a3', 'a4']);
  await waitForVersion(black, moved);
  assert.equal(await black.locator('#abort').isVisible(), true);
  const both = await playMove(black, ['a8', 'a7']);
  await waitForVersion(white, both);
  for (const page of [white, black]) {
    await page.locator('#abort').waitFor({ state: 'hidden' });
    assert.equal(await page.locator('#resign').isVisible(), true);
  }
});

test('the creator cancels a room still waiting for players', async (t) => {
  const page = await newPage(t, browser);
  await createRoom(page, server, { game: 'khan', name: 'Dara' });
  await waitForRoom(page, { status: 'waiting' });
  const abort = page.locator('#abort');
  await abort.waitFor();
  assert.match(await abort.innerText(), /cancel the room/i);
  await abort.click();
  await waitForRoom(page, { status: 'finished' });
  assert.match(await resultText(page), /room closed before the game began/i);
  assert.equal(await page.locator('#rematch').isVisible(), false, 'no rematch of a game never played');
});

test('a three-player rematch needs both others, shows who accepted, and rotates the seats', async (t) => {
  const pages = [];
  const creator = await newPage(t, browser);
  const invite = await createRoom(creator, server, { game: 'khan-tsin', players: 3, name: 'Dara', seat: 'white' });
  pages.push(creator);
  for (const name of ['Sok', 'Chan']) {
    const page = await newPage(t, browser);
    await openRoom(page, invite);
    await page.fill('#name', name);
    await page.click('#take-seat');
    await waitForRoom(page, { role: 'player' });
    pages.push(page);
  }
  for (const page of pages) await waitForRoom(page, { status: 'playing' });
  const before = await seatsByName(server, invite);
  const bySeat = Object.fromEntries(Object.entries(before).map(([name, seat]) => [seat, name]));
  const page = (name) => pages[['Dara', 'Sok', 'Chan'].indexOf(name)];
  // Nobody has placed a pawn: the game is called off, and a rematch may follow.
  await page(bySeat[0]).click('#abort');
  for (const p of pages) await waitForRoom(p, { status: 'finished' });
  await page(bySeat[0]).click('#rematch');
  await page(bySeat[1]).locator('#accept-rematch').waitFor();
  await page(bySeat[1]).click('#accept-rematch');
  // One acceptance of two: the offer stays open and says who accepted.
  const offers = page(bySeat[2]).locator('#offers');
  assert.match(await eventually(() => offers.innerText(), (text) => /accepted by/i.test(text)), new RegExp(`accepted by .*${bySeat[1]}`, 'i'));
  await page(bySeat[1]).locator('#accept-rematch').waitFor({ state: 'hidden' });
  assert.equal(codeOf(page(bySeat[1]).url()), codeOf(invite));
  await page(bySeat[2]).click('#accept-rematch');
  for (const p of pages) {
    await p.waitForURL((url) => codeOf(url.href) !== codeOf(invite));
    await waitForRoom(p, { role: 'player', status: 'playing' });
  }
  const after = await seatsByName(server, pages[0].url());
  assert.deepEqual(after, { [bySeat[0]]: 1, [bySeat[1]]: 2, [bySeat[2]]: 0 });
  assert.equal(pages[1].url(), pages[0].url());
  assert.equal(pages[2].url(), pages[0].url());
});

test('a rematch offered and accepted takes both players and a spectator to the new room, colours swapped', async (t) => {
  const { first: dara, second: sok, invite } = await twoPlayers(t, browser, server, { game: 'ouk-chatrang' });
  const spectator = await newPage(t, browser);
  await openRoom(spectator, invite);
  await waitForRoom(spectator, { role: 'spectator', status: 'playing' });
  assert.equal(await dara.locator('#rematch').isVisible(), false, 'no rematch during the game');

  await dara.click('#resign');
  for (const page of [dara, sok, spectator]) await waitForRoom(page, { status: 'finished' });
  assert.equal(await spectator.locator('#rematch').isVisible(), false, 'spectators cannot offer one');
  await dara.click('#rematch');
  // Sok sees the offer with its answers; Dara may withdraw it.
  await sok.locator('#accept-rematch').waitFor();
  assert.match(await sok.locator('#offers').innerText(), /offers a rematch/i);
  assert.equal(await sok.locator('#decline-rematch').isVisible(), true);
  await dara.locator('#decline-rematch').waitFor();
  assert.match(await dara.locator('#decline-rematch').innerText(), /withdraw/i);
  assert.equal(await dara.locator('#accept-rematch').isVisible(), false);
  assert.equal(await dara.locator('#rematch').isVisible(), false);

  await sok.click('#accept-rematch');
  const oldCode = codeOf(invite);
  for (const page of [dara, sok, spectator]) {
    await page.waitForURL((url) => /\/r\/[^/]+$/.test(url.pathname) && codeOf(url.href) !== oldCode);
  }
  const rematch = dara.url();
  assert.equal(sok.url(), rematch);
  assert.equal(spectator.url(), rematch);
  for (const page of [dara, sok]) await waitForRoom(page, { role: 'player', status: 'playing', toMove: '0' });
  await waitForRoom(spectator, { role: 'spectator', status: 'playing' });
  // Dara was White: now Black, and Sok White.
  assert.deepEqual(await seatsByName(server, rematch), { Sok: 0, Dara: 1 });
  assert.match(await dara.locator('#players li[data-seat="1"]').innerText(), /you/);
  assert.match(await sok.locator('#players li[data-seat="0"]').innerText(), /you/);
  // Dara created the first room, so the new one too: the spectator-chat switch is Dara's.
  await dara.locator('#spectator-chat').waitFor();
  assert.equal(await sok.locator('#spectator-chat').isVisible(), false);

  // Both play there.
  let version = await playMove(sok, ['e3', 'e4']);
  await waitForVersion(dara, version);
  version = await playMove(dara, ['d6', 'd5']);
  await waitForVersion(sok, version);
  assert.equal((await eventually(() => moveList(spectator), (list) => list.length === 2)).length, 2);

  // A reload in the new room keeps the seat.
  await dara.reload();
  await waitForRoom(dara, { role: 'player', version, toMove: '0' });
  version = await playMove(sok, ['e4', 'd5']);
  await waitForVersion(dara, version);
  version = await playMove(dara, ['e6', 'e5']);
  await waitForVersion(sok, version);
  assert.equal((await moveList(sok)).length, 4);
  await screenshot(dara, 'rematch-desktop');
  await screenshot(sok, 'rematch-phone');

  // The old room's page, opened again, links to the rematch instead of moving on by itself.
  await spectator.goto(invite);
  await waitForRoom(spectator, { status: 'finished' });
  const link = spectator.locator('#rematch-link');
  await link.waitFor();
  assert.equal(await link.getAttribute('href'), rematch);
  assert.equal(codeOf(spectator.url()), oldCode);
});

test('a pass-and-play table moves every seat to the rematch, and has no chat', async (t) => {
  const page = await newPage(t, browser);
  const invite = await createRoom(page, server, { game: 'khan', local: true });
  await waitForRoom(page, { role: 'local', status: 'playing' });
  assert.equal(await page.locator('#chat-box').isVisible(), false);
  await playMove(page, ['a3', 'a4']);
  await page.click('#resign');
  await waitForRoom(page, { status: 'finished' });
  await page.click('#rematch');
  await page.waitForURL((url) => codeOf(url.href) !== codeOf(invite));
  await waitForRoom(page, { role: 'local', status: 'playing', toMove: '0' });
  assert.equal(await page.locator('#chat-box').isVisible(), false);
  await playMove(page, ['a3', 'a4']);
  await playMove(page, ['a8', 'a7']);
  assert.equal((await moveList(page)).length, 2);
});

test('players chat both ways; the spectators\' channel reaches spectators only', async (t) => {
  const { first: dara, second: sok, invite } = await twoPlayers(t, browser, server, { game: 'khan' });
  const watchers = [];
  for (const name of ['Vanna', 'Chan']) {
    const page = await newPage(t, browser);
    // A spectator is named in the chat by the name last typed in this browser.
    await page.goto(`${server.url}/`);
    await page.evaluate((n) => localStorage.setItem('khanate.name', n), name);
    await openRoom(page, invite);
    await waitForRoom(page, { role: 'spectator' });
    watchers.push(page);
  }
  const [vanna, chan] = watchers;
  for (const page of [dara, sok, vanna]) await page.locator('#chat-input').waitFor();
  assert.equal(await dara.getAttribute('#chat-input', 'maxlength'), '300');

  await sendChat(dara, 'good luck');
  await waitForChat(sok, 'good luck');
  await sok.fill('#chat-input', 'you too');
  await sok.click('#chat-send');
  // The room sends the message to every reader in one pass, in no fixed order: wait for both.
  await waitForChat(dara, 'you too');
  await waitForChat(sok, 'you too');
  assert.deepEqual(await chatTexts(dara), ['good luck', 'you too']);
  assert.deepEqual(await chatTexts(sok), ['good luck', 'you too']);
  assert.equal(await dara.inputValue('#chat-input'), '', 'the input empties once sent');
  const line = dara.locator('#chat li').first();
  assert.match(await line.locator('.chat-name').innerText(), /Dara/);
  // Spectators read the players, labelled as such.
  await waitForChat(vanna, 'you too');
  assert.match(await vanna.locator('#chat li[data-channel="players"]').first().innerText(), /players/i);

  await sendChat(vanna, 'what a game');
  await waitForChat(chan, 'what a game');
  assert.match(await chan.locator('#chat li[data-channel="spectators"]').innerText(), /Vanna/);
  // A players' message sent after it arrives after it: by then the players would have it too.
  await sendChat(sok, 'your move');
  for (const page of [dara, sok]) {
    await waitForChat(page, 'your move');
    assert.deepEqual(await chatTexts(page), ['good luck', 'you too', 'your move']);
  }
  await waitForChat(vanna, 'your move');
  assert.deepEqual(await chatTexts(vanna), ['good luck', 'you too', 'what a game', 'your move']);

  // The history comes back after a reload.
  await sok.reload();
  await waitForRoom(sok, { role: 'player' });
  assert.deepEqual(
    await eventually(() => chatTexts(sok), (list) => list.length === 3),
    ['good luck', 'you too', 'your move'],
  );
  await screenshot(vanna, 'chat-spectator');
  await screenshot(sok, 'chat-phone');
});

test('chat shows markup as text, and says so when messages come too fast', async (t) => {
  const { first: dara, second: sok } = await twoPlayers(t, browser, server, { game: 'ouk-chatrang' });
  let dialogs = 0;
  for (const page of [dara, sok]) page.on('dialog', () => { dialogs += 1; });
  const markup = '<b>x</b><img src=x onerror=alert(1)>';
  await sendChat(dara, markup);
  for (const page of [dara, sok]) {
    await waitForChat(page, markup);
    assert.equal(await page.locator('#chat b, #chat img').count(), 0, 'no element made of the text');
    assert.equal(await page.locator('#chat li .chat-text').last().innerText(), markup);
  }
  assert.equal(dialogs, 0);

  // Five messages in ten seconds, then the server refuses: the page says why and keeps the text.
  for (let i = 2; i <= 5; i++) {
    await sendChat(dara, `message ${i}`);
    await waitForChat(dara, `message ${i}`);
  }
  await sendChat(dara, 'one too many');
  const error = dara.locator('#chat-error');
  await eventually(() => error.innerText(), (text) => text !== '');
  assert.match(await error.innerText(), /too many messages/i);
  assert.equal(await dara.inputValue('#chat-input'), 'one too many');
  assert.ok(!(await chatTexts(sok)).includes('one too many'));
});

test('the creator turns spectator chat off: a spectator cannot write, and is refused if it tries', async (t) => {
  const { first: dara, second: sok, invite } = await twoPlayers(t, browser, server, { game: 'khan' });
  const vanna = await newPage(t, browser);
  await openRoom(vanna, invite);
  await waitForRoom(vanna, { role: 'spectator' });
  // Only the creator has the switch.
  const toggle = dara.locator('#spectator-chat');
  await toggle.waitFor();
  assert.equal(await toggle.isChecked(), true);
  assert.equal(await sok.locator('#spectator-chat').isVisible(), false);
  assert.equal(await vanna.locator('#spectator-chat').isVisible(), false);
  await sendChat(vanna, 'hello watchers');
  await waitForChat(vanna, 'hello watchers');

  const before = (await roomState(dara)).version;
  await toggle.setChecked(false);
  await waitForVersion(vanna, before + 1);
  await vanna.waitForSelector('#chat-input:disabled');
  assert.equal(await vanna.locator('#chat-send').isDisabled(), true);
  assert.match(await vanna.locator('#chat-note').innerText(), /turned spectator chat off/i);
  // What was written stays.
  assert.deepEqual(await chatTexts(vanna), ['hello watchers']);
  // Players chat on.
  await sendChat(sok, 'still here');
  await waitForChat(dara, 'still here');

  // A page that sends anyway (its input forced open) is refused by the server.
  await vanna.evaluate(() => {
    for (const id of ['#chat-input', '#chat-send']) document.querySelector(id).disabled = false;
  });
  await sendChat(vanna, 'let me in');
  const error = vanna.locator('#chat-error');
  await eventually(() => error.innerText(), (text) => text !== '');
  assert.match(await error.innerText(), /spectator chat is turned off/i);

  // On again.
  await toggle.setChecked(true);
  await vanna.waitForSelector('#chat-input:enabled');
  await sendChat(vanna, 'back again');
  await waitForChat(vanna, 'back again');
});

test('a room created with spectator chat off starts with the spectators\' input disabled', async (t) => {
  const dara = await newPage(t, browser);
  const invite = await createRoom(dara, server, { game: 'ouk-chatrang', name: 'Dara', spectatorChat: false });
  await dara.locator('#spectator-chat').waitFor();
  assert.equal(await dara.locator('#spectator-chat').isChecked(), false);
  const vanna = await newPage(t, browser);
  await openRoom(vanna, invite);
  await vanna.waitForSelector('#chat-input:disabled');
  // The creator may still chat, and the spectator reads it.
  await sendChat(dara, 'anyone there?');
  await waitForChat(vanna, 'anyone there?');
});

test('presence: a player who leaves the page shows as away, and online again on return', async (t) => {
  const { first: white, second: black, invite } = await twoPlayers(t, browser, server, { game: 'khan' });
  const blackSeat = '#players li[data-seat="1"]';
  await eventually(() => white.textContent(blackSeat), (text) => /online/.test(text ?? ''));
  await black.goto('about:blank');
  const away = await eventually(() => white.textContent(blackSeat), (text) => /away/.test(text ?? ''));
  assert.match(away, /away/);
  await openRoom(black, invite);
  const back = await eventually(() => white.textContent(blackSeat), (text) => /online/.test(text ?? ''));
  assert.match(back, /online/);
  assert.equal((await roomState(black)).role, 'player');
});
