// The home page's "My games" (docs/web-client.md "My games"): from the seat tokens this browser
// holds, the games in progress ("your turn" first, each linking to its room) and the finished
// ones (linking to their pages), fetched with POST api/my-games, the tokens in the body and never
// in the URL; a forged token shows nothing; a browser holding no seat shows no card.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launchBrowser, newPage } from './lib/browser.mjs';
import { createRoom, joinRoom, playMove, waitForRoom } from './lib/pages.mjs';
import { startServer } from './lib/server.mjs';

let server;
let browser;

before(async () => {
  server = await startServer('my-games');
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

/** A room Dara creates as White and Sok joins: its id, as Dara's browser keeps it. */
async function game(dara, sok) {
  const invite = await createRoom(dara, server, { game: 'ouk-chatrang', seat: 'white', name: 'Dara' });
  await joinRoom(sok, invite, { name: 'Sok' });
  for (const page of [dara, sok]) await waitForRoom(page, { status: 'playing' });
  const code = invite.split('/').at(-1).toLowerCase();
  return dara.evaluate((key) => JSON.parse(localStorage.getItem(key)).room_id, `khanate.room.${code}`);
}

/** The room ids and state words of a My games list. */
async function listed(page, list) {
  return page.$$eval(`${list} li`, (items) =>
    items.map((li) => [li.dataset.room, li.querySelector('.my-game-state').textContent.trim(), li.querySelector('a').getAttribute('href')]));
}

test('my games: in progress with my turn first, then the finished, from the seats this browser holds', async (t) => {
  const dara = await newPage(t, browser);
  const sok = await newPage(t, browser);
  const theirTurn = await game(dara, sok);
  await playMove(dara, ['e3', 'e4']);
  const yourTurn = await game(dara, sok);
  const lost = await game(dara, sok);
  await dara.click('#resign');
  await waitForRoom(dara, { status: 'finished' });
  assert.ok(theirTurn && yourTurn && lost);
  // A forged seat of a real room is kept too: the server must leave it out.
  await dara.evaluate((roomId) => localStorage.setItem('khanate.room.zzzzzzzz',
    JSON.stringify({ room_id: roomId, local: false, seats: { 1: '0'.repeat(32) } })), theirTurn);

  const requests = [];
  dara.on('request', (request) => {
    if (request.url().includes('api/my-games')) requests.push({ url: request.url(), method: request.method(), body: request.postData() ?? '' });
  });
  await dara.goto(`${server.url}/`);
  await dara.waitForSelector('#my-games-card:not([hidden]) #my-games-on li');
  await dara.waitForSelector('#my-games-done li');
  const on = await listed(dara, '#my-games-on');
  assert.deepEqual(on.map(([id, state]) => [id, state]), [[yourTurn, 'your turn'], [theirTurn, 'their turn']]);
  assert.match(on[0][2], /\/r\/[a-z0-9]{8}$/);
  const done = await listed(dara, '#my-games-done');
  assert.deepEqual(done.map(([id, state]) => [id, state]), [[lost, 'you lost']]);
  assert.ok(done[0][2].endsWith(`/g/${lost}`));
  assert.match(await dara.locator(`#my-games-on li[data-room="${yourTurn}"]`).innerText(), /Ouk Chatrang: against Sok/);

  // The tokens went in a POST body, never in the URL.
  assert.equal(requests.length, 1);
  assert.equal(requests[0].method, 'POST');
  const sent = JSON.parse(requests[0].body).seats;
  assert.equal(sent.length, 4);
  for (const { seat_token: token } of sent) assert.ok(!requests[0].url.includes(token));

  // Sok's browser sees the same games from the other side.
  await sok.goto(`${server.url}/`);
  await sok.waitForSelector('#my-games-done li');
  const sokOn = await listed(sok, '#my-games-on');
  assert.deepEqual(sokOn.map(([id, state]) => [id, state]), [[theirTurn, 'your turn'], [yourTurn, 'their turn']]);
  assert.deepEqual((await listed(sok, '#my-games-done')).map(([, state]) => state), ['you won']);
});

test('a browser that holds no seat and no session asks nothing and shows no My games card', async (t) => {
  const page = await newPage(t, browser);
  const asked = [];
  page.on('request', (request) => {
    if (request.url().includes('api/my-games')) asked.push(request.url());
  });
  await page.goto(`${server.url}/`);
  await page.waitForSelector('#lobby-card');
  // The page is settled once it knows whether it is logged in (the header says "Log in").
  await page.waitForSelector('#account-link[data-checked]');
  assert.equal(await page.locator('#my-games-card').isHidden(), true);
  assert.deepEqual(asked, [], 'no look-up for a browser that holds nothing');
});
