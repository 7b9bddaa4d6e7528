// The game's facts the server tells (docs/protocol.md "Material, captures and check") on the game
// screen: a Khan custodian capture marked on the square it emptied and the pieces each side has
// left, Ouk Chatrang's captured material in the capturer's bar, and how many spectators watch.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launchBrowser, newPage, screenshot } from './lib/browser.mjs';
import { openRoom, playMove, squaresWith, twoPlayers, waitForVersion } from './lib/pages.mjs';
import { startServer } from './lib/server.mjs';

let server;
let browser;

before(async () => {
  server = await startServer('game-facts');
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

// White's Khan c2 steps to c3: Black's Soldier d3 stands between it and White's Khan e3, and is
// taken (the protocol's example).
const CUSTODY = '10/s9/9k/10/10/10/10/3sK5/2K7/S9 w';

const material = (page, seat) => page.textContent(`#players li[data-seat="${seat}"] .material`);

test('Khan: the custodian capture is marked on its square, and each side\'s pieces are counted', async (t) => {
  const { first: white, second: black } = await twoPlayers(t, browser, server, { game: 'khan', startPosition: CUSTODY });
  assert.equal(await material(white, 0), 'Soldiers 1 · Khans 2');
  assert.equal(await material(white, 1), 'Soldiers 2 · Khans 1');
  const version = await playMove(white, ['c2', 'c3']);
  for (const page of [white, black]) {
    await waitForVersion(page, version);
    assert.deepEqual(await squaresWith(page, 'captured'), ['d3']);
    assert.equal(await material(page, 1), 'Soldiers 1 · Khans 1');
    assert.equal(await material(page, 0), 'Soldiers 1 · Khans 2');
  }
  await screenshot(black, 'game-facts-khan-capture-phone');
});

test('Ouk Chatrang: the pieces a side took show in its bar; the players see how many watch', async (t) => {
  const { first: white, second: black, invite } = await twoPlayers(t, browser, server, { game: 'ouk-chatrang' });
  assert.equal(await white.isVisible('#spectators'), false);
  const spectator = await newPage(t, browser);
  await openRoom(spectator, invite);
  await white.waitForSelector('#spectators[data-count="1"]');
  assert.equal(await white.textContent('#spectators'), '1 spectator watching');
  let version = await playMove(white, ['e3', 'e4']);
  await waitForVersion(black, version);
  version = await playMove(black, ['d6', 'd5']);
  await waitForVersion(white, version);
  version = await playMove(white, ['e4', 'd5']);
  for (const page of [white, black, spectator]) {
    await waitForVersion(page, version);
    const bar = page.locator('#players li[data-seat="0"] .material');
    assert.equal(await bar.getAttribute('data-material'), '{"captured":"p"}');
    assert.equal(await bar.getAttribute('aria-label'), 'Took: Trey (Fish)');
    assert.equal(await bar.locator('svg').count(), 1);
    assert.equal(await page.locator('#players li[data-seat="1"] .material svg').count(), 0);
  }
  await spectator.close();
  await white.waitForSelector('#spectators[hidden]', { state: 'attached' });
});
