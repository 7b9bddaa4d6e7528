// Khan in two browsers: White creates a room from a position near the end, Black joins by the
// invite link on a phone-sized page; Black stops a jump chain half way with the "stop here"
// badge, and White's jump chain takes Black's last Soldier by custodian capture and wins. Then a
// position with so many jump chains that the server lists only the shorter ones
// (`legal_moves_complete: false`): a chain as long as the longest listed is not sent by itself.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from './lib/server.mjs';
import { launchBrowser, screenshot } from './lib/browser.mjs';
import {
  clickSquare, clickButton, playMove, waitForRoom, waitForVersion, moveList, resultText,
  squaresWith, eventually, twoPlayers, pieceOn, roomState, startMove,
} from './lib/pages.mjs';

// White: Khans a1, e7; Soldiers b2, d4, g8, i2. Black: Khans h8, j10; its one Soldier e6.
// i2-i3, then Black's Khan h8 jumps g8 to f8 and stops (it could go on to d6), then White's Khan
// a1 jumps b2 to c3 and d4 to e5, where e6 lies between it and the Khan e7: Black's last Soldier
// is taken (`khanate play khan --position ... i2-i3 h8-f8 a1-c3-e5`: "1-0 no_soldiers").
const START = '9k/10/6Sk2/4K5/4s5/10/3S6/10/1S6S1/K9 w';

// White's Khan a1 in the corner of a 7x7 box whose every square with an odd file or rank (a2,
// b1, b2, ...) holds a piece (White's 20 Soldiers below, 13 Black ones above): it may jump from
// any square of files a, c, e, g and ranks 1, 3, 5, 7 to any neighbouring one of them, and
// chains of such jumps number in the millions. The server lists chains of up to 6 landings
// (`khanate moves khan --position ...` says it left longer ones out); a1-c1-e1-g1-g3-e3-c3 is
// one of the longest listed, and longer ones are legal too (`khanate play khan --position ...
// a1-c1-e1-g1-g3-e3-c3-a3`).
const CROWDED = '9k/10/10/1s1s1s4/sssssss3/1s1s1s4/SSSSSSS3/1S1S1S4/SSSSSSS3/KS1S1S4 w';

let server;
let browser;

before(async () => {
  server = await startServer('khan');
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

const sorted = (list) => [...list].sort();

test('Khan: a jump chain stopped half way, then a custodian capture of the last Soldier', async (t) => {
  const { first: white, second: black } = await twoPlayers(t, browser, server, { game: 'khan', startPosition: START });

  // A Soldier's destinations are leaves of the legal-move tree: one click sends the move.
  await clickSquare(white, 'i2');
  assert.deepEqual(await squaresWith(white, 'selected'), ['i2']);
  assert.ok((await squaresWith(white, 'target')).includes('i3'));
  let version = await playMove(white, ['i3']);

  await waitForVersion(black, version);
  assert.equal(await pieceOn(black, 'i3'), 1);
  assert.deepEqual(sorted(await squaresWith(black, 'last')), ['i2', 'i3']);
  await waitForRoom(black, { toMove: '1' });

  // Black's Khan h8 jumps over g8 to f8: the chain could go on (d6), so nothing is sent yet;
  // the Khan stands on f8, the next landing is marked, and "stop here" ends the move at f8.
  await clickSquare(black, 'h8');
  assert.ok((await squaresWith(black, 'target')).includes('f8'));
  await clickSquare(black, 'f8');
  assert.deepEqual(await squaresWith(black, 'selected'), ['f8']);
  assert.deepEqual(await squaresWith(black, 'target'), ['d6']);
  assert.equal(await pieceOn(black, 'f8'), 1);
  assert.equal(await pieceOn(black, 'h8'), 0);
  await screenshot(black, 'khan-phone-chain');
  await clickButton(black, '[data-finish]');
  version = await waitForVersion(black, version + 1);
  assert.deepEqual(await squaresWith(black, 'target'), []);

  await waitForVersion(white, version);
  assert.equal(await pieceOn(white, 'f8'), 1);
  assert.equal(await pieceOn(white, 'h8'), 0);
  await waitForRoom(white, { toMove: '0' });

  // White's Khan a1: c3 continues (to e5), e5 ends the chain at once (the game is won there).
  await clickSquare(white, 'a1');
  await clickSquare(white, 'c3');
  assert.deepEqual(await squaresWith(white, 'target'), ['e5']);
  await screenshot(white, 'khan-desktop-chain');
  await clickSquare(white, 'e5');

  for (const page of [white, black]) {
    await waitForRoom(page, { status: 'finished' });
    assert.match(await resultText(page), /soldier/i);
    const moves = await eventually(() => moveList(page), (list) => list.length === 3);
    assert.deepEqual(moves, ['i2-i3', 'h8-f8', 'a1-c3-e5']);
    assert.equal(await pieceOn(page, 'e6'), 0, 'the last Black Soldier is taken');
    assert.equal(await pieceOn(page, 'e5'), 1);
    assert.deepEqual(sorted(await squaresWith(page, 'last')), ['a1', 'c3', 'e5']);
  }
  await screenshot(white, 'khan-desktop-won');
  await screenshot(black, 'khan-phone-won');
});

test('Khan: a cut legal-move tree does not send a chain as long as the longest listed by itself', async (t) => {
  const { first: white, second: black } = await twoPlayers(t, browser, server, { game: 'khan', startPosition: CROWDED });
  await waitForRoom(white, { toMove: '0' });
  const version = (await roomState(white)).version;
  await startMove(white, 'a1');
  for (const square of ['c1', 'e1', 'g1', 'g3', 'e3']) {
    await clickSquare(white, square);
    assert.deepEqual(await squaresWith(white, 'selected'), [square]);
  }
  // The sixth landing is a leaf of the tree, but the tree was cut there: nothing is sent, the
  // chain may stop here.
  await clickSquare(white, 'c3');
  assert.deepEqual(await squaresWith(white, 'selected'), ['c3']);
  assert.deepEqual(await squaresWith(white, 'target'), []);
  assert.equal(await white.locator('#board [data-square="c3"] [data-finish]').count(), 1);
  assert.equal((await roomState(white)).version, version);
  await screenshot(white, 'khan-desktop-cut-tree');
  await clickButton(white, '[data-finish]');
  await waitForVersion(white, version + 1);
  for (const page of [white, black]) {
    assert.deepEqual(await eventually(() => moveList(page), (l) => l.length === 1), ['a1-c1-e1-g1-g3-e3-c3']);
    assert.equal(await pieceOn(page, 'c3'), 1);
    assert.equal(await pieceOn(page, 'a1'), 0);
  }

  // A complete tree (Black's, now): a Soldier's step is a leaf, sent at once.
  await waitForRoom(black, { toMove: '1' });
  await playMove(black, ['b7', 'b8']);
  await waitForRoom(white, { toMove: '0' });
});
