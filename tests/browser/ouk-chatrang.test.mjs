// Ouk Chatrang in two browsers: White creates a room from a position three moves from mate, Black
// joins by the invite link on a phone-sized page, and they play to checkmate by clicking (and one
// drag), each board following the other's moves.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from './lib/server.mjs';
import { launchBrowser, screenshot } from './lib/browser.mjs';
import {
  clickSquare, playMove, waitForRoom, waitForVersion, moveList, resultText, squaresWith,
  eventually, twoPlayers, pieceOn,
} from './lib/pages.mjs';

// White: King f6, Touks (rooks) a1 and b2; Black: King h8. 1. Ra8+ Kh7 2. Rb7+ Kh6 3. Rh8#, each
// Black move forced (`khanate play ouk-chatrang --position ... a1a8 h8h7 b2b7 h7h6 a8h8`:
// "1-0 checkmate").
const START = '7k/8/5K2/8/8/8/1R6/R7 w - - 0 1';

let server;
let browser;

before(async () => {
  server = await startServer('ouk-chatrang');
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

const sorted = (list) => [...list].sort();

test('Ouk Chatrang: two players play to checkmate by clicking', async (t) => {
  const { first: white, second: black } = await twoPlayers(t, browser, server, { game: 'ouk-chatrang', startPosition: START });

  // A click on a piece shows its destinations from the server's legal moves; a second click on
  // it cancels; Black, not on move, may set a premove: its destinations are drawn apart, and a
  // second click cancels it too.
  await clickSquare(white, 'b2');
  assert.deepEqual(await squaresWith(white, 'selected'), ['b2']);
  assert.deepEqual(
    sorted(await squaresWith(white, 'target')),
    sorted(['a2', 'c2', 'd2', 'e2', 'f2', 'g2', 'h2', 'b1', 'b3', 'b4', 'b5', 'b6', 'b7', 'b8']),
  );
  await clickSquare(white, 'b2');
  assert.deepEqual(await squaresWith(white, 'selected'), []);
  assert.deepEqual(await squaresWith(white, 'target'), []);
  await clickSquare(black, 'h8');
  assert.deepEqual(await squaresWith(black, 'selected'), ['h8']);
  assert.equal(await black.locator('#board svg.premoving').count(), 1);
  await clickSquare(black, 'h8');
  assert.deepEqual(await squaresWith(black, 'selected'), []);

  await clickSquare(white, 'a1');
  await screenshot(white, 'ouk-chatrang-desktop-selected');
  let version = await playMove(white, ['a8']);

  // Black's board follows: the Touk on a8, the last move marked, Black's King in check; Black
  // drags its King out of check.
  await waitForVersion(black, version);
  await waitForRoom(black, { toMove: '1' });
  assert.equal(await pieceOn(black, 'a8'), 1);
  assert.equal(await pieceOn(black, 'a1'), 0);
  assert.deepEqual(sorted(await squaresWith(black, 'last')), ['a1', 'a8']);
  assert.deepEqual(await squaresWith(black, 'check'), ['h8']);
  await black.dragAndDrop('#board [data-square="h8"]', '#board [data-square="h7"]');
  version = await waitForVersion(black, version + 1);

  await waitForVersion(white, version);
  await waitForRoom(white, { toMove: '0' });
  assert.equal(await pieceOn(white, 'h7'), 1);
  assert.deepEqual(sorted(await squaresWith(white, 'last')), ['h7', 'h8']);
  assert.deepEqual(await squaresWith(white, 'check'), []);
  version = await playMove(white, ['b2', 'b7']);

  await waitForVersion(black, version);
  await waitForRoom(black, { toMove: '1' });
  assert.deepEqual(await squaresWith(black, 'check'), ['h7']);
  await clickSquare(black, 'h7');
  assert.deepEqual(await squaresWith(black, 'target'), ['h6']);
  await screenshot(black, 'ouk-chatrang-phone-check');
  version = await playMove(black, ['h6']);

  await waitForVersion(white, version);
  await waitForRoom(white, { toMove: '0' });
  await playMove(white, ['a8', 'h8']);

  for (const page of [white, black]) {
    await waitForRoom(page, { status: 'finished' });
    assert.match(await resultText(page), /checkmate/i);
    const moves = await eventually(() => moveList(page), (list) => list.length === 5);
    assert.equal(moves.length, 5);
    assert.match(moves[0], /a8\+/);
    assert.match(moves[4], /h8#/);
    assert.equal(await pieceOn(page, 'h8'), 1);
    assert.deepEqual(sorted(await squaresWith(page, 'last')), ['a8', 'h8']);
    // The game is over: no piece can be selected.
    await clickSquare(page, 'f6');
    assert.deepEqual(await squaresWith(page, 'selected'), []);
  }
  await screenshot(white, 'ouk-chatrang-desktop-mate');
  await screenshot(black, 'ouk-chatrang-phone-mate');
});

// Piece's honour counting (O-21): a lone Black King against King and one Touk. Loaded with Black
// to move, the count starts at the number of pieces, 3, against a limit of 16 for one Touk; each
// pair of moves adds one (`khanate play ouk-chatrang --position '8/8/4k3/8/2R5/4K3/8/8 b - - 0 1'
// e6d6 e3d3` ends `... b - 30 8 2`: 4 of 16).
test('Ouk Chatrang: the counting state is shown as count / limit with the escaping side', async (t) => {
  const { first: white, second: black } = await twoPlayers(t, browser, server, {
    game: 'ouk-chatrang', startPosition: '8/8/4k3/8/2R5/4K3/8/8 b - - 0 1',
  });
  for (const page of [white, black]) {
    const text = await eventually(() => page.textContent('#counting'), (s) => /3 \/ 16/.test(s ?? ''));
    assert.match(text, /Piece's honour: 3 \/ 16, Black .*escaping/);
  }
  let version = await playMove(black, ['e6', 'd6']);
  await waitForVersion(white, version);
  version = await playMove(white, ['e3', 'd3']);
  for (const page of [white, black]) {
    await waitForVersion(page, version);
    assert.match(await page.textContent('#counting'), /Piece's honour: 4 \/ 16, Black .*escaping/);
  }
  await screenshot(white, 'ouk-chatrang-desktop-counting');
});
