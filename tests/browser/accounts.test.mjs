// Accounts in the browser: register on /login, create a room; a second browser (its own
// cookies and storage) logs in and is welcomed into the seat without its token; "log out
// everywhere" ends both sessions; the login page counts the games it offers to attach, "the game"
// for one.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { allowErrors, launchBrowser, newPage } from './lib/browser.mjs';
import { createRoom } from './lib/pages.mjs';
import { startServer } from './lib/server.mjs';

let server;
let browser;

before(async () => {
  server = await startServer('accounts');
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

/** Fills and sends the login page's `action` form (register or login), landing on /account. */
async function signIn(page, action, name, password) {
  await page.goto(`${server.url}/login`);
  await page.fill(`#${action}-name`, name);
  await page.fill(`#${action}-password`, password);
  await page.click(`#${action}-submit`);
  await page.waitForURL(/\/account$/);
  // The account's name as registered, whatever the case typed at login.
  await page.waitForFunction((n) => document.querySelector('#account-name').textContent.toLowerCase() === n, name.toLowerCase());
}

/** The account `GET api/session` names with the page's cookies (null: not logged in). */
function sessionAccount(page) {
  return page.evaluate(async () => (await (await fetch('api/session')).json()).account);
}

test('a second browser logs in and resumes the seat without its token; log out everywhere ends both', async (t) => {
  const desk = await newPage(t, browser);
  await signIn(desk, 'register', 'Dara', 'correct horse battery');
  const invite = await createRoom(desk, server, { game: 'ouk-chatrang', seat: 'white' });
  await desk.goto(`${server.url}/`);
  await desk.waitForFunction(() => document.querySelector('#account-link').textContent === 'Dara');

  const phone = await newPage(t, browser, { viewport: 'phone' });
  await signIn(phone, 'login', 'dara', 'correct horse battery');
  assert.equal(await phone.locator('#sessions li').count(), 2);
  await phone.goto(invite);
  await phone.waitForSelector('#room[data-role="player"][data-version]');
  const tokens = await phone.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('khanate.room.')));
  assert.deepEqual(tokens, [], 'the phone holds no seat token');
  const summary = await (await fetch(`${server.url}/api/rooms/${invite.split('/r/')[1]}`)).json();
  assert.equal(summary.seats[0].name, 'Dara');

  assert.equal((await sessionAccount(desk)).name, 'Dara');
  await phone.goto(`${server.url}/account`);
  await phone.click('#logout-everywhere');
  await phone.waitForURL(`${server.url}/`);
  assert.equal(await sessionAccount(phone), null);
  assert.equal(await sessionAccount(desk), null, 'the first browser is logged out too');
});

test('the account page makes and revokes a token, changes the password and deletes the account', async (t) => {
  const page = await newPage(t, browser);
  await signIn(page, 'register', 'Sok', 'first passphrase');
  // Loading the page asks who is logged in once: the header and the page share the answer.
  const sessionRequests = [];
  const seen = (request) => {
    if (new URL(request.url()).pathname.endsWith('/api/session')) sessionRequests.push(request.url());
  };
  page.on('request', seen);
  await page.reload();
  await page.waitForFunction(() => document.querySelector('#account-name').textContent === 'Sok');
  await page.waitForFunction(() => document.querySelector('#account-link').dataset.checked === 'true');
  page.off('request', seen);
  assert.equal(sessionRequests.length, 1, `GET api/session: ${sessionRequests}`);
  await page.fill('#token-description', 'my bot');
  await page.check('#scope-play');
  await page.click('#token-create');
  await page.waitForSelector('#new-token:not([hidden])');
  assert.match(await page.textContent('#new-token-value'), /^khn_[0-9a-f]{64}$/);
  assert.match(await page.textContent('#tokens li'), /my bot \(read, play\)/);
  await page.click('#tokens li .revoke');
  await page.waitForFunction(() => document.querySelectorAll('#tokens li').length === 0);

  await page.fill('#old-password', 'first passphrase');
  await page.fill('#new-password', 'second passphrase');
  await page.click('#password-change');
  await page.waitForSelector('#password-done:not([hidden])');

  await page.fill('#delete-password', 'second passphrase');
  await page.click('#delete-account');
  await page.waitForURL(`${server.url}/`);
  assert.equal(await sessionAccount(page), null);
  await page.goto(`${server.url}/login`);
  await page.fill('#login-name', 'Sok');
  await page.fill('#login-password', 'second passphrase');
  allowErrors(page, /401/);
  await page.click('#login-submit');
  await page.waitForSelector('#notice:not([hidden])');
  assert.match(await page.textContent('#notice'), /wrong username or password/i);
});

test('the login page offers "the game" for one seat token and "the 2 games" for two', async (t) => {
  const page = await newPage(t, browser);
  await createRoom(page, server, { game: 'ouk-chatrang', seat: 'white' });
  await page.goto(`${server.url}/login`);
  assert.equal(await page.textContent('#attach-count'), 'Add the game this browser played to the account');
  await createRoom(page, server, { game: 'ouk-chatrang', seat: 'black' });
  await page.goto(`${server.url}/login`);
  assert.equal(await page.textContent('#attach-count'), 'Add the 2 games this browser played to the account');
});
