// Takebacks on the room page (docs/protocol.md "Takeback", docs/web-client.md): the "Takeback"
// button for a player with a move of its own, the request shown to the other player with accept
// and decline (declined first, then accepted, the board and the move list going back on
// `taken_back` on both pages, a desktop and a phone, and `/g/{id}` showing the line of play), the
// computer accepting in a practice game (twice in a row: an undo), the button as an undo at a
// pass-and-play table, an accept button bound to the offer it shows (a click as a new offer
// appears accepts nothing), and Khan-Tsin's takeback declined and accepted.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launchBrowser, newPage, screenshot } from './lib/browser.mjs';
import {
  clickSquare, createRoom, eventually, moveList, pieceOn, playMove, roomState, squaresWith, twoPlayers,
  waitForMessage, waitForRoom, waitForVersion,
} from './lib/pages.mjs';
import { startServer } from './lib/server.mjs';

let server;
let browser;

before(async () => {
  server = await startServer('takeback');
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

test('a takeback declined, then one accepted: both boards go back, the mover plays again', async (t) => {
  const { first: dara, second: sok } = await twoPlayers(t, browser, server, { game: 'ouk-chatrang' });
  // Nobody has moved: nothing to take back.
  assert.equal(await dara.locator('#offer-takeback').isVisible(), false);
  let version = await playMove(dara, ['e3', 'e4']);
  await waitForVersion(sok, version);
  await dara.locator('#offer-takeback').waitFor();
  assert.equal(await sok.locator('#offer-takeback').isVisible(), false, 'Sok has made no move');

  // Dara asks; Sok sees the request with its two answers, Dara may withdraw it.
  await dara.click('#offer-takeback');
  await sok.locator('#accept-takeback').waitFor();
  assert.match(await sok.textContent('#offers'), /Dara.*asks to take back their last move\./);
  assert.equal(await sok.innerText('#decline-takeback'), 'Decline the takeback');
  await dara.locator('#decline-takeback').waitFor();
  assert.match(
    await eventually(() => dara.locator('#decline-takeback').innerText(), (text) => /withdraw/i.test(text)),
    /Withdraw the takeback request/,
  );
  for (const page of [dara, sok]) {
    assert.equal(await page.locator('#offer-takeback').isVisible(), false, 'one offer at a time');
    assert.equal(await page.locator('#offer-draw').isVisible(), false, 'one offer at a time');
  }
  await screenshot(sok, 'takeback-request-phone');

  // Declined: Dara reads who declined, nothing moves back.
  await sok.click('#decline-takeback');
  assert.match(await waitForMessage(dara, /declined the takeback/), /Sok.*declined the takeback\./);
  await sok.locator('#accept-takeback').waitFor({ state: 'hidden' });
  assert.equal(await pieceOn(sok, 'e4'), 1);
  assert.equal((await moveList(sok)).length, 1);

  // Sok answers d5 and asks to take it back; Dara accepts.
  version = await playMove(sok, ['d6', 'd5']);
  await waitForVersion(dara, version);
  await sok.locator('#offer-takeback').waitFor();
  await sok.click('#offer-takeback');
  await dara.locator('#accept-takeback').waitFor();
  assert.match(await dara.textContent('#offers'), /Sok.*asks to take back their last move\./);
  await screenshot(dara, 'takeback-request-desktop');
  await dara.click('#accept-takeback');
  for (const page of [dara, sok]) {
    await waitForRoom(page, { toMove: '1' });
    await waitForMessage(page, /took back their last move/);
    assert.equal(await pieceOn(page, 'd5'), 0, 'the pawn is back');
    assert.equal(await pieceOn(page, 'd6'), 1);
    assert.equal(await pieceOn(page, 'e4'), 1, 'White\'s move stands');
    assert.deepEqual((await moveList(page)).length, 1);
    assert.equal(await page.textContent('#offers'), '');
    await page.locator('#accept-takeback').waitFor({ state: 'hidden' });
    await page.locator('#decline-takeback').waitFor({ state: 'hidden' });
  }
  assert.match(await dara.textContent('#message'), /Sok.*took back their last move\./);
  await screenshot(sok, 'takeback-done-phone');

  // Sok plays another move in its place; the line goes on.
  version = await playMove(sok, ['c6', 'c5']);
  await waitForVersion(dara, version);
  assert.equal(await pieceOn(dara, 'c5'), 1);
  assert.equal((await moveList(dara)).length, 2);

  // The game's own page shows the line of play: e4 c5, without the d5 taken back.
  await sok.click('#resign');
  const link = dara.locator('#game-page-link');
  await link.waitFor();
  const roomId = (await link.getAttribute('href')).split('/').at(-1);
  const page = await newPage(t, browser, { viewport: 'phone' });
  await page.goto(`${server.url}/g/${roomId}`);
  await page.waitForSelector('#room[data-ready="true"]');
  const moves = await page.locator('#moves li').allInnerTexts();
  assert.equal(moves.length, 2, moves.join(' | '));
  assert.match(moves.join(' '), /e4[\s\S]*c5/);
  assert.doesNotMatch(moves.join(' '), /d5/);
});

test('against the computer a takeback is accepted at once (phone)', async (t) => {
  const page = await newPage(t, browser, { viewport: 'phone' });
  await createRoom(page, server, { game: 'ouk-chatrang', seat: 'white', computer: 1, name: 'Dara' });
  const before = (await roomState(page)).version;
  await playMove(page, ['e3', 'e4']);
  // The computer's reply.
  await waitForVersion(page, before + 2);
  await waitForRoom(page, { toMove: '0' });
  await page.click('#offer-takeback');
  // The request and its acceptance in one answer: both plies go, White is on move.
  await waitForVersion(page, before + 4);
  await waitForRoom(page, { toMove: '0' });
  assert.deepEqual(await eventually(() => moveList(page), (list) => list.length === 0), []);
  assert.equal(await pieceOn(page, 'e3'), 1);
  assert.equal(await pieceOn(page, 'e4'), 0);
  await waitForMessage(page, /took back the last 2 moves/);
  // The computer plays on after White's next move.
  await playMove(page, ['d3', 'd4']);
  await waitForVersion(page, before + 6);
  assert.equal((await moveList(page)).length, 2);
  // An undo, move after move: asked again at once, the move before goes too.
  await playMove(page, ['c3', 'c4']);
  await waitForVersion(page, before + 8);
  await waitForRoom(page, { toMove: '0' });
  await page.click('#offer-takeback');
  await waitForVersion(page, before + 10);
  await eventually(() => moveList(page), (list) => list.length === 2);
  await page.locator('#offer-takeback').waitFor();
  await page.click('#offer-takeback');
  await waitForVersion(page, before + 12);
  assert.deepEqual(await eventually(() => moveList(page), (list) => list.length === 0), []);
  assert.equal(await pieceOn(page, 'd3'), 1);
});

test('an accept button names its offer and a click as a new offer appears accepts nothing', async (t) => {
  const { first: dara, second: sok } = await twoPlayers(t, browser, server, { game: 'ouk-chatrang' });
  const version = await playMove(dara, ['e3', 'e4']);
  await waitForVersion(sok, version);
  // Sok's click lands the instant an offer appears under the pointer (where the one before was).
  await sok.evaluate(() => {
    const button = /** @type {HTMLButtonElement} */ (document.querySelector('#accept-draw'));
    window.clicks = 0;
    new MutationObserver(() => {
      if (!button.hidden && window.clicks === 0) {
        window.clicks += 1;
        button.click();
      }
    }).observe(button, { attributes: true });
  });
  await dara.click('#offer-draw');
  await eventually(() => sok.evaluate(() => window.clicks), (n) => n === 1);
  const button = sok.locator('#accept-draw');
  await sok.locator('#accept-draw:enabled').waitFor();
  assert.equal(await button.getAttribute('data-offer'), '1');
  assert.equal((await roomState(sok)).status, 'playing', 'the early click accepted nothing');
  assert.match(await sok.textContent('#offers'), /Dara/);
  // A click once it is enabled accepts the offer it names.
  await button.click();
  for (const page of [dara, sok]) await waitForRoom(page, { status: 'finished' });
});

test('at a pass-and-play table the button undoes the last move', async (t) => {
  const page = await newPage(t, browser);
  // The page takes the other seat as the same player (its takebacks are then undos).
  const joins = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && request.url().endsWith('/join')) joins.push(request.postDataJSON());
  });
  await createRoom(page, server, { game: 'khan', local: true });
  assert.equal(joins.length, 1);
  assert.equal(joins[0].seat, 1);
  assert.match(joins[0].same_player, /^[0-9a-f]{32}$/);
  await waitForRoom(page, { status: 'playing', toMove: '0' });
  const state = await roomState(page);
  const list = await page.evaluate(() => document.querySelector('#moves').textContent);
  assert.equal(list.trim(), '');
  // White moves a Soldier of its front row one step.
  await playMove(page, ['c3', 'c4']);
  await waitForRoom(page, { toMove: '1' });
  await page.click('#offer-takeback');
  await waitForVersion(page, state.version + 3);
  await waitForRoom(page, { toMove: '0' });
  assert.deepEqual(await moveList(page), []);
  assert.equal(await pieceOn(page, 'c3'), 1);
  assert.equal(await pieceOn(page, 'c4'), 0);
});

// Khan-Tsin's placement: the seat on move on `page` puts a pawn on the first square offered.
async function place(page) {
  await page.waitForSelector('#board [data-square].target');
  const [square] = await squaresWith(page, 'target');
  const before = (await roomState(page)).version;
  await clickSquare(page, square);
  const pawn = page.locator('#board [data-place="p"]');
  if (await pawn.count()) await pawn.click();
  await waitForVersion(page, before + 1);
  return square;
}

test('Khan-Tsin: a takeback declined, then one accepted (desktop and phone)', async (t) => {
  const { first: dara, second: sok } = await twoPlayers(t, browser, server, { game: 'khan-tsin' });
  for (const page of [dara, sok]) await waitForRoom(page, { status: 'playing', toMove: '0' });
  await place(dara);
  await waitForRoom(sok, { toMove: '1' });
  await place(sok);
  await waitForRoom(dara, { toMove: '0' });
  // Sok asks to take back its placement; Dara declines: nothing changes.
  await sok.locator('#offer-takeback').waitFor();
  await sok.click('#offer-takeback');
  await dara.locator('#accept-takeback').waitFor();
  assert.match(await dara.textContent('#offers'), /Sok.*asks to take back their last move\./);
  await dara.click('#decline-takeback');
  assert.match(await waitForMessage(sok, /declined the takeback/), /Dara.*declined the takeback\./);
  assert.equal((await moveList(sok)).length, 2);
  // Dara places again and asks to take that back; Sok accepts: Dara is on move again.
  const square = await place(dara);
  await waitForRoom(sok, { toMove: '1' });
  assert.equal((await moveList(sok)).length, 3);
  await dara.locator('#offer-takeback').waitFor();
  await dara.click('#offer-takeback');
  await sok.locator('#accept-takeback:enabled').waitFor();
  await sok.click('#accept-takeback');
  for (const page of [dara, sok]) {
    await waitForRoom(page, { toMove: '0' });
    await waitForMessage(page, /took back their last move/);
    assert.equal((await eventually(() => moveList(page), (list) => list.length === 2)).length, 2);
    await page.locator('#accept-takeback').waitFor({ state: 'hidden' });
  }
  // The square is free again: Dara may place there once more.
  await dara.waitForSelector(`#board [data-square="${square}"].target`);
});
