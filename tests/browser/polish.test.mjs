// What a new user noticed: a declined or withdrawn draw offer is worded for the other side; the
// claim button waits for a repetition; a finished game offers its record (and PGN) for download
// and clears a left-over message; the waiting line counts "1 seat" in the singular; the room
// links to its rules, whose page has a key to the pictures; the home page's player-count select
// keeps its padding (the room's `#players` list rule does not reach it); and an invite link that
// leads nowhere shows no game panel, its connection badge labelled.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { allowErrors, launchBrowser, newPage, screenshot } from './lib/browser.mjs';
import {
  createRoom, eventually, playMove, roomState, twoPlayers, waitForMessage, waitForRoom, waitForVersion,
} from './lib/pages.mjs';
import { startServer } from './lib/server.mjs';

let server;
let browser;

before(async () => {
  server = await startServer('polish');
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

test('a declined draw and a withdrawn one are told to the other player; the end offers the game for download', async (t) => {
  const { first: dara, second: sok } = await twoPlayers(t, browser, server, { game: 'ouk-chatrang' });
  // Move 1: no repetition is possible yet, no claim button.
  await waitForRoom(dara, { toMove: '0' });
  assert.equal(await dara.locator('#claim-draw').isVisible(), false);

  // Dara offers, Sok declines: Dara reads who declined.
  await dara.click('#offer-draw');
  await sok.locator('#decline-draw').waitFor();
  await sok.click('#decline-draw');
  assert.match(await waitForMessage(dara, /declined the draw/), /Sok.*declined the draw\./);
  await sok.locator('#decline-draw').waitFor({ state: 'hidden' });
  assert.equal((await sok.textContent('#message')).trim(), '');

  // After a move each, Dara offers again and withdraws it: Sok reads that.
  await playMove(dara, ['e3', 'e4']);
  await waitForVersion(sok, (await roomState(dara)).version);
  const version = await playMove(sok, ['d6', 'd5']);
  await waitForVersion(dara, version);
  assert.equal(await sok.locator('#claim-draw').isVisible(), false);
  await dara.click('#offer-draw');
  await sok.locator('#accept-draw').waitFor();
  // Sok's page may see the offer before Dara's own page does (the room sends to its readers in
  // no fixed order): Dara's button reads "withdraw" once hers has.
  const label = () => dara.locator('#decline-draw').innerText();
  assert.match(await eventually(label, (text) => /withdraw/i.test(text)), /withdraw/i);
  await dara.click('#decline-draw');
  assert.match(await waitForMessage(sok, /withdrew/), /Dara.*withdrew the offer\./);

  // Sok resigns: the left-over message goes, the game can be downloaded.
  await sok.click('#resign');
  for (const page of [dara, sok]) {
    await waitForRoom(page, { status: 'finished' });
    await page.locator('#download').waitFor();
    assert.equal((await page.textContent('#message')).trim(), '');
    assert.match(await page.textContent('#download'), /Download the game/);
  }
  const record = await sok.locator('#download-record').evaluate((a) => a.href);
  const pgn = await sok.locator('#download-pgn').evaluate((a) => a.href);
  assert.match(record, /\/api\/games\/[^/]+\/record$/);
  assert.match(pgn, /\/api\/games\/[^/]+\/pgn$/);
  const recordText = await (await fetch(record)).text();
  assert.match(recordText, /e3e4/);
  const pgnResponse = await fetch(pgn);
  assert.equal(pgnResponse.status, 200);
  await screenshot(sok, 'ouk-chatrang-finished-phone');
});

test('a declined rematch is told to the player who offered it', async (t) => {
  const { first: dara, second: sok } = await twoPlayers(t, browser, server, { game: 'khan' });
  await dara.click('#resign');
  for (const page of [dara, sok]) await waitForRoom(page, { status: 'finished' });
  // Khan has no PGN: only the record.
  await sok.locator('#download-record').waitFor();
  assert.equal(await sok.locator('#download-pgn').isVisible(), false);
  await dara.click('#rematch');
  await sok.locator('#decline-rematch').waitFor();
  await sok.click('#decline-rematch');
  assert.match(await waitForMessage(dara, /declined the rematch/), /Sok.*declined the rematch\./);
});

test('the waiting line, the rules link and the rules pages\' key to the pictures', async (t) => {
  const page = await newPage(t, browser, { viewport: 'phone' });
  await createRoom(page, server, { game: 'ouk-chatrang', name: 'Dara' });
  assert.equal((await page.textContent('#turn')).trim(), 'Waiting for players: 1 seat free.');
  // The header keeps the game's whole name on a phone.
  const name = await page.locator('#game-name').evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth, text: el.textContent }));
  assert.equal(name.text, 'Ouk Chatrang');
  assert.ok(name.scroll <= name.client, `the game's name fits: ${JSON.stringify(name)}`);
  const link = page.locator('#rules-link');
  assert.equal(await link.isVisible(), true);
  assert.match(await link.evaluate((a) => a.href), /\/rules\/ouk-chatrang$/);
  await link.click();
  await page.waitForURL(/\/rules\/ouk-chatrang$/);
  await page.locator('#rules-key li[data-piece] svg').first().waitFor();
  assert.deepEqual(
    await page.locator('#rules-key li[data-piece]').evaluateAll((els) => els.map((el) => el.dataset.piece)),
    ['k', 'm', 's', 'n', 'r', 'p'],
  );
  assert.match(await page.textContent('#rules-key'), /Neang/);
  assert.ok(await page.locator('#rules-key li[data-piece="k"] svg path').count() > 0, 'the King is drawn');
  await screenshot(page, 'rules-ouk-chatrang-key-phone');

  await page.goto(`${server.url}/rules/khan-tsin`);
  await page.locator('#rules-key li[data-piece="khan"]').waitFor();
  assert.equal(await page.locator('#rules-key li[data-square-type]').count(), 3);
  assert.match(await page.textContent('#rules-key'), /Triple square/);
  assert.match(await page.textContent('#rules-key'), /crown/);
  await screenshot(page, 'rules-khan-tsin-key-phone');
  // The Khan rules have no pictures to explain: no key.
  await page.goto(`${server.url}/rules/khan`);
  await page.locator('#rules-body section').first().waitFor();
  assert.equal(await page.locator('#rules-key').isVisible(), false);
});

test('the home page\'s player-count select keeps its padding', async (t) => {
  const page = await newPage(t, browser);
  await page.goto(`${server.url}/`);
  await page.locator('#game').selectOption('khan-tsin');
  await page.locator('#players').waitFor();
  const padding = await page.locator('#players').evaluate((el) => {
    const style = getComputedStyle(el);
    return { left: parseFloat(style.paddingLeft), right: parseFloat(style.paddingRight), display: style.display };
  });
  assert.ok(padding.left > 0 && padding.right > 0, `padding ${JSON.stringify(padding)}`);
  assert.notEqual(padding.display, 'flex');
});

test('an invite link that leads nowhere shows no game panel, and a labelled badge', async (t) => {
  const page = await newPage(t, browser);
  allowErrors(page, /status of 404/);
  await page.goto(`${server.url}/r/NOSUCHROOM`);
  await page.locator('#notice').waitFor();
  assert.equal(await page.locator('#side').isVisible(), false);
  assert.equal(await page.getByText('Moves', { exact: true }).isVisible(), false);
  assert.notEqual((await page.textContent('#connection')).trim(), '');
});
