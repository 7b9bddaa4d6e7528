// Turn notifications (docs/web-client.md "Turn notifications"): the room page's #notify switch
// asks for the browser's permission only when the player turns it on, and is remembered; when it
// becomes the player's turn while the page is hidden, one Notification says so; not while the
// page is visible, not once the switch is off. Headless Chromium shows no notification anyone
// could see, so the page's Notification is wrapped to record each one (and each permission
// request) before the real constructor runs; the permission is granted by playwright
// (`context.grantPermissions`), and the page is hidden by overriding `document.visibilityState`,
// as another tab in front would (a second tab does not hide the first in headless Chromium).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launchBrowser, newPage } from './lib/browser.mjs';
import { createRoom, joinRoom, playMove, waitForRoom } from './lib/pages.mjs';
import { startServer } from './lib/server.mjs';

let server;
let browser;

before(async () => {
  server = await startServer('notifications');
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

// Runs in the page before its scripts: records notifications and permission requests, and lets
// the test hide the page (`window.__hidden`).
function spy() {
  const Real = window.Notification;
  window.__notes = [];
  window.__asked = 0;
  window.__hidden = false;
  class Recorded extends Real {
    constructor(title, options) {
      super(title, options);
      window.__notes.push({ title, body: options?.body, tag: options?.tag });
    }
  }
  Recorded.requestPermission = (...args) => {
    window.__asked += 1;
    return Real.requestPermission(...args);
  };
  window.Notification = Recorded;
  Object.defineProperty(Document.prototype, 'visibilityState', {
    configurable: true, get: () => (window.__hidden ? 'hidden' : 'visible'),
  });
}

const notes = (page) => page.evaluate(() => window.__notes);
const hide = (page, hidden) => page.evaluate((h) => { window.__hidden = h; }, hidden);

test('a hidden page is notified when it becomes the player\'s turn, once turned on', async (t) => {
  const dara = await newPage(t, browser);
  await dara.context().grantPermissions(['notifications'], { origin: server.url });
  await dara.context().addInitScript(spy);
  const sok = await newPage(t, browser);
  const invite = await createRoom(dara, server, { game: 'ouk-chatrang', seat: 'white', name: 'Dara' });
  await joinRoom(sok, invite, { name: 'Sok' });
  for (const page of [dara, sok]) await waitForRoom(page, { status: 'playing' });

  // Off by default, and nothing asked of the browser yet.
  assert.equal(await dara.getAttribute('#notify', 'aria-pressed'), 'false');
  assert.equal(await dara.evaluate(() => window.__asked), 0);
  await playMove(dara, ['e3', 'e4']);
  await hide(dara, true);
  await playMove(sok, ['d6', 'd5']);
  await waitForRoom(dara, { toMove: '0' });
  assert.deepEqual(await notes(dara), [], 'switched off: no notification');

  await dara.click('#notify');
  await dara.waitForSelector('#notify[aria-pressed="true"]');
  assert.equal(await dara.evaluate(() => window.__asked), 0, 'already granted: nothing to ask');
  await hide(dara, false);
  await playMove(dara, ['d3', 'd4']);
  await hide(dara, true);
  await playMove(sok, ['c6', 'c5']);
  await waitForRoom(dara, { toMove: '0' });
  const shown = await notes(dara);
  assert.equal(shown.length, 1, JSON.stringify(shown));
  assert.equal(shown[0].title, 'Your move.');
  assert.match(shown[0].body, /c5$/);
  assert.equal(shown[0].tag, `khanate-${invite.split('/').at(-1)}`);

  // Visible: the player sees the board, no notification.
  await hide(dara, false);
  await playMove(dara, ['e4', 'd5']);
  await playMove(sok, ['c5', 'd4']);
  await waitForRoom(dara, { toMove: '0' });
  assert.equal((await notes(dara)).length, 1);

  // Remembered across a reload; turned off, hidden again: nothing.
  await dara.reload();
  await waitForRoom(dara, { status: 'playing' });
  await dara.waitForSelector('#notify[aria-pressed="true"]');
  await dara.click('#notify');
  await dara.waitForSelector('#notify[aria-pressed="false"]');
  await playMove(dara, ['b1', 'd2']);
  await hide(dara, true);
  await playMove(sok, ['b8', 'd7']);
  await waitForRoom(dara, { toMove: '0' });
  assert.deepEqual(await notes(dara), []);
});

test('turning it on without a granted permission asks the browser, and it stays off until granted', async (t) => {
  const page = await newPage(t, browser);
  await page.context().addInitScript(spy);
  await createRoom(page, server, { game: 'ouk-chatrang', seat: 'white', name: 'Dara' });
  await waitForRoom(page, { role: 'player' });
  assert.equal(await page.evaluate(() => window.__asked), 0);
  await page.click('#notify');
  await page.waitForFunction(() => window.__asked === 1);
  // Headless Chromium has nobody to answer the request (it stays pending, or is denied): the
  // switch stays off, and nothing is remembered as on.
  assert.equal(await page.getAttribute('#notify', 'aria-pressed'), 'false');
  assert.notEqual(await page.evaluate(() => localStorage.getItem('khanate.notify')), 'on');
});
