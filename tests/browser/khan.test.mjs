// Khan in two browsers: White creates a room from a position near the end, Black joins by the
// invite link on a phone-sized page; Black stops a jump chain half way with the "stop here"
// badge, and White's jump chain takes Black's last Soldier by custodian capture and wins.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from './lib/server.mjs';
import { launchBrowser, screenshot } from './lib/browser.mjs';
import {
  clickSquare, clickButton, playMove, waitForRoom, waitForVersion, moveList, resultText,
  squaresWith, eventually, twoPlayers, pieceOn,
} from './lib/pages.mjs';

// White: Khans a1, e7; Soldiers b2, d4, g8, i2. Black: Khans h8, j10; its one Soldier e6.
// i2-i3, then Black's Khan h8 jumps g8 to f8 and stops (it could go on to d6), then White's Khan
// a1 jumps b2 to c3 and d4 to e5, where e6 lies between it and the Khan e7: Black's last Soldier
// is taken (`khanate play khan --position ... i2-i3 h8-f8 a1-c3-e5`: "1-0 no_soldiers").
const START = '9k/10/6Sk2/4K5/4s5/10/3S6/10/1S6S1/K9 w';

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
