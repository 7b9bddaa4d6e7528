// Abandonment (docs/protocol.md "Abandonment", docs/web-client.md "Abandonment"): in a timed room,
// when the player on move leaves the page, the opponent's page counts down the grace period
// (1+0: max(1 s, min(60 s / 10, 120 s)) = 6 s with KHANATE_ABANDON_GRACE_S=1), then shows
// #claim-victory and #claim-abandoned-draw; claiming the win ends the game by abandonment. When
// the player comes back before the claim, the buttons go away.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launchBrowser, screenshot } from './lib/browser.mjs';
import { resultText, twoPlayers, waitForRoom } from './lib/pages.mjs';
import { startServer } from './lib/server.mjs';

let server;
let browser;

before(async () => {
  server = await startServer('abandonment', { env: { KHANATE_ABANDON_GRACE_S: '1' } });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

test('the player on move leaves: after the grace period the opponent claims the win', async (t) => {
  const { first: dara, second: sok } = await twoPlayers(t, browser, server, { game: 'ouk-chatrang', clock: '60+0' });
  await waitForRoom(dara, { toMove: '0' });
  await waitForRoom(sok, { toMove: '0' });
  assert.equal(await sok.locator('#claim-victory').isVisible(), false);
  await dara.goto('about:blank');
  // A countdown first, no button before the grace period is over.
  await sok.locator('#claim-wait').waitFor({ state: 'visible', timeout: 5_000 });
  assert.equal(await sok.locator('#claim-victory').isVisible(), false);
  await sok.locator('#claim-victory').waitFor({ state: 'visible', timeout: 10_000 });
  assert.equal(await sok.locator('#claim-abandoned-draw').isVisible(), true);
  assert.equal(await sok.locator('#claim-victory').textContent(), 'Claim the win');
  await screenshot(sok, 'abandonment-claim');
  await sok.locator('#claim-victory').click();
  await waitForRoom(sok, { status: 'finished' });
  const result = await resultText(sok);
  assert.match(result, /Sok/);
  assert.match(result, /stayed away/);
  for (const id of ['#claim-victory', '#claim-abandoned-draw', '#claim-wait']) {
    assert.equal(await sok.locator(id).isVisible(), false, id);
  }
});

test('the buttons go away when the absent player comes back', async (t) => {
  const { first: dara, second: sok, invite } = await twoPlayers(t, browser, server, {
    game: 'ouk-chatrang', clock: '60+0',
  });
  await waitForRoom(sok, { toMove: '0' });
  await dara.goto('about:blank');
  await sok.locator('#claim-victory').waitFor({ state: 'visible', timeout: 12_000 });
  await dara.goto(invite);
  await waitForRoom(dara, { status: 'playing', role: 'player' });
  await sok.locator('#claim-victory').waitFor({ state: 'hidden', timeout: 10_000 });
  assert.equal(await sok.locator('#claim-abandoned-draw').isVisible(), false);
  assert.equal(await sok.locator('#claim-wait').isVisible(), false);
});
