// Correspondence (docs/protocol.md "Correspondence", docs/web-client.md "Clocks"): the home page's
// clock choice offers days per move; a room made with it shows each seat's time in days and
// hours on both players' pages, the running one counting down and the mover's back to its full
// days after its move.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launchBrowser, screenshot } from './lib/browser.mjs';
import { clockTexts as clocks, eventually, playMove, twoPlayers, waitForRoom } from './lib/pages.mjs';
import { startServer } from './lib/server.mjs';

let server;
let browser;

before(async () => {
  server = await startServer('correspondence');
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

test('the home page offers every days-per-move choice, and nothing else of the kind', async (t) => {
  const page = await browser.newPage();
  t.after(() => page.close());
  await page.goto(`${server.url}/`);
  const days = await page.$$eval('#clock option', (options) =>
    options.filter((o) => o.value.startsWith('days:')).map((o) => [o.value, o.textContent]));
  assert.deepEqual(days.map(([value]) => value), ['days:1', 'days:2', 'days:3', 'days:5', 'days:7', 'days:14']);
  assert.equal(days[1][1], 'Correspondence: 2 days per move');
});

test('a 2-days-per-move room shows days and hours, and a move gives its mover the full days again', async (t) => {
  const { first: dara, second: sok } = await twoPlayers(t, browser, server, {
    game: 'ouk-chatrang', clock: 'days:2',
  });
  for (const page of [dara, sok]) {
    // White's two days have started to run down: a few seconds gone, under 2 d 0 h.
    const shown = await eventually(() => clocks(page), (c) => c.join() === '1 d 23 h,2 d 0 h');
    assert.deepEqual(shown, ['1 d 23 h', '2 d 0 h']);
  }
  await waitForRoom(dara, { toMove: '0' });
  await playMove(dara, ['e3', 'e4']);
  for (const page of [dara, sok]) {
    await waitForRoom(page, { toMove: '1' });
    const shown = await eventually(() => clocks(page), (c) => c.join() === '2 d 0 h,1 d 23 h');
    assert.deepEqual(shown, ['2 d 0 h', '1 d 23 h']);
    const running = await page.$$eval('#players .clock.running', (els) => els.map((el) => el.dataset.seat));
    assert.deepEqual(running, ['1']);
  }
  await screenshot(sok, 'correspondence-running');
});
