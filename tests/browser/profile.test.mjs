// A player's page, /@/{name}, in the browser: three accounts play three games to their ends (one
// in a private room); Dara's page lists them newest first with the right results, links each
// opponent to their own page, filters by game and by opponent and shows head to head with the
// exact counts; a third user sees neither the private game nor its count; once an opponent
// deletes their account, Dara's page and the game's page show "deleted player", unlinked.
// Every place that names an account links to its page (the room's player bars, /g/{id}, My
// games, the header). The home page asks nothing of My games for a browser with neither seat
// token nor session, and a logged-in one without tokens still sees its games. On a phone and on a
// desktop nothing is wider than the window. "Older games" pages with `before`.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { allowErrors, launchBrowser, newPage, screenshot } from './lib/browser.mjs';
import { createRoom, joinRoom, playMove, setLanguage, waitForRoom } from './lib/pages.mjs';
import { startServer } from './lib/server.mjs';

let server;
let browser;

before(async () => {
  server = await startServer('profile');
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

/** Registers `name` on /login in `page` (its browser then holds the session cookie). */
async function register(page, name) {
  await page.goto(`${server.url}/login`);
  await page.fill('#register-name', name);
  await page.fill('#register-password', `${name} plays well`);
  await page.click('#register-submit');
  await page.waitForURL(/\/account$/);
}

/**
 * A game `creator` makes (createRoom's options) and `joiner` joins; `white` and `black` are the
 * pages of its seats; `moves` are played by white first, then `resigner` resigns. Resolves
 * with the room id once both pages show it finished.
 */
async function playGame(creator, joiner, options, { white, moves = [], resigner }) {
  const invite = await createRoom(creator, server, { seat: 'white', ...options });
  await joinRoom(joiner, invite);
  for (const page of [creator, joiner]) await waitForRoom(page, { status: 'playing' });
  for (const move of moves) await playMove(white, move);
  await resigner.click('#resign');
  for (const page of [creator, joiner]) await waitForRoom(page, { status: 'finished' });
  const link = creator.locator('#game-page-link');
  await link.waitFor();
  return (await link.getAttribute('href')).split('/').at(-1);
}

/** The profile page of `name` (with `query`) in `page`, once it has loaded its games. */
async function openProfile(page, name, query = '') {
  await page.goto(`${server.url}/@/${name}${query}`);
  await page.waitForSelector('#profile[data-ready="true"]');
}

/** The listed games as [room id, outcome]. */
async function listed(page) {
  return page.$$eval('#games li', (items) => items.map((li) => [li.dataset.room, li.dataset.outcome]));
}

/** The results table as {game: [played, won, drawn, lost]}. */
async function tallies(page) {
  return page.$$eval('#tallies tbody tr', (rows) => Object.fromEntries(rows.map((row) =>
    [row.dataset.game, [...row.querySelectorAll('td')].map((cell) => Number(cell.textContent))])));
}

/** The head-to-head counts shown. */
async function headToHead(page) {
  return page.$eval('#h2h .h2h-counts', (el) => ({ ...el.dataset }));
}

/** Whether anything on the page is wider than its window. */
async function overflows(page) {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const wide = [...document.querySelectorAll('body *')]
      .filter((el) => el.getBoundingClientRect().right > width + 0.5 && el.getClientRects().length > 0)
      .map((el) => `${el.tagName}#${el.id}.${el.className}`);
    return { scroll: document.documentElement.scrollWidth > width, wide };
  });
}

test('a player\'s page: results, games, filters, head to head, private games, a deleted opponent', async (t) => {
  const dara = await newPage(t, browser);
  const sok = await newPage(t, browser, { viewport: 'phone' });
  const vann = await newPage(t, browser);
  await register(dara, 'Dara');
  await register(sok, 'Sok');
  await register(vann, 'Vann');

  const g1 = await playGame(dara, sok, { game: 'ouk-chatrang', visibility: 'public' },
    { white: dara, moves: [['e3', 'e4']], resigner: sok });
  const g2 = await playGame(dara, sok, { game: 'khan', visibility: 'private' }, { white: dara, resigner: dara });
  // The room's player bars link each account to its page.
  assert.ok((await dara.locator('#players li[data-seat="1"] .who a').getAttribute('href')).endsWith('/@/Sok'));
  const g3 = await playGame(vann, dara, { game: 'khan', visibility: 'public' }, { white: vann, resigner: vann });

  // Dara's own page: every game, newest first, with the right results.
  await openProfile(dara, 'dara');
  assert.equal(await dara.textContent('#player-name'), 'Dara');
  assert.match(await dara.textContent('#member-since'), /^Member since /);
  assert.deepEqual(await tallies(dara), { khan: [2, 1, 0, 1], 'ouk-chatrang': [1, 1, 0, 0] });
  assert.deepEqual(await listed(dara), [[g3, 'win'], [g2, 'loss'], [g1, 'win']]);
  const first = dara.locator(`#games li[data-room="${g1}"]`);
  assert.match(await first.innerText(), /Ouk Chatrang\s+Won: resignation/);
  assert.match(await first.innerText(), /against Sok/);
  assert.ok((await first.locator('.game-link').getAttribute('href')).endsWith(`/g/${g1}`));
  await screenshot(dara, 'profile/desktop-en');
  assert.deepEqual(await overflows(dara), { scroll: false, wide: [] });

  // The game filter, then the opponent filter with head to head.
  await dara.selectOption('#filter-game', 'khan');
  await dara.waitForSelector('#profile[data-ready="true"]');
  assert.deepEqual(await listed(dara), [[g3, 'win'], [g2, 'loss']]);
  assert.match(dara.url(), /\?game=khan$/);
  await dara.selectOption('#filter-game', '');
  await dara.waitForSelector('#profile[data-ready="true"]');
  await dara.fill('#filter-vs', 'sok');
  await dara.click('#filter-apply');
  await dara.waitForSelector('#profile[data-ready="true"] #h2h:not([hidden])');
  assert.deepEqual(await listed(dara), [[g2, 'loss'], [g1, 'win']]);
  assert.deepEqual(await headToHead(dara), { games: '2', wins: '1', draws: '0', losses: '1' });
  assert.ok((await dara.locator('#h2h a').getAttribute('href')).endsWith('/@/Sok'));

  // The opponent's link leads to the opponent's page.
  await openProfile(dara, 'dara');
  await dara.click(`#games li[data-room="${g1}"] .opponents a`);
  await dara.waitForURL(/\/@\/Sok$/);
  await dara.waitForSelector('#profile[data-ready="true"]');
  assert.equal(await dara.textContent('#player-name'), 'Sok');
  assert.deepEqual(await listed(dara), [[g2, 'win'], [g1, 'loss']]);

  // A third user sees neither the private game nor its count, nor in head to head.
  await openProfile(vann, 'Dara', '?vs=Sok');
  assert.deepEqual(await listed(vann), [[g1, 'win']]);
  assert.deepEqual(await headToHead(vann), { games: '1', wins: '1', draws: '0', losses: '0' });
  assert.deepEqual(await tallies(vann), { khan: [1, 1, 0, 0], 'ouk-chatrang': [1, 1, 0, 0] });
  // Filtered to Khan against Sok, only the private game matches: the empty list says why.
  await openProfile(vann, 'Dara', '?game=khan&vs=Sok');
  assert.deepEqual(await listed(vann), []);
  assert.match(await vann.locator('#games-empty').innerText(), /private games are listed only to their own players/);

  // Sok's phone: the same page fits the window.
  await openProfile(sok, 'Dara');
  await screenshot(sok, 'profile/phone-en');
  assert.deepEqual(await overflows(sok), { scroll: false, wide: [] });
  await setLanguage(sok, 'ko');
  assert.equal(await sok.textContent('#tallies thead th'), '게임');
  assert.match(await sok.locator(`#games li[data-room="${g1}"] .outcome`).innerText(), /^승리/);
  await screenshot(sok, 'profile/phone-ko');
  assert.deepEqual(await overflows(sok), { scroll: false, wide: [] });

  // The game's page and My games link the accounts too; the header names the account.
  await dara.goto(`${server.url}/g/${g1}`);
  await dara.waitForSelector('#room[data-ready="true"]');
  assert.ok((await dara.locator('#players li[data-seat="1"] .who a').getAttribute('href')).endsWith('/@/Sok'));
  await dara.goto(`${server.url}/`);
  await dara.waitForSelector('#account-link[data-checked]');
  assert.ok((await dara.locator('#account-link').getAttribute('href')).endsWith('/@/Dara'));
  await dara.waitForSelector(`#my-games-done li[data-room="${g1}"]`);
  assert.ok((await dara.locator(`#my-games-done li[data-room="${g1}"] a.player-link`).getAttribute('href')).endsWith('/@/Sok'));
  await dara.waitForSelector(`#recent-games li[data-room="${g1}"]`);
  assert.ok((await dara.locator(`#recent-games li[data-room="${g1}"] a.player-link`).last().getAttribute('href')).endsWith('/@/Sok'));

  // Vann deletes the account: Dara's page and the game's page show a deleted player, unlinked.
  await vann.goto(`${server.url}/account`);
  await vann.waitForSelector('#account-name:not(:empty)');
  await vann.fill('#delete-password', 'Vann plays well');
  await vann.click('#delete-account');
  await vann.waitForURL(`${server.url}/`);
  await openProfile(dara, 'dara');
  const third = dara.locator(`#games li[data-room="${g3}"] .opponents`);
  assert.equal(await third.innerText(), 'against deleted player');
  assert.equal(await third.locator('a').count(), 0);
  await dara.goto(`${server.url}/g/${g3}`);
  await dara.waitForSelector('#room[data-ready="true"]');
  assert.equal(await dara.locator('#players li[data-seat="0"] .who').innerText(), 'White (deleted player)');
  assert.equal(await dara.locator('#players li[data-seat="0"] .who a').count(), 0);
  await dara.goto(`${server.url}/`);
  const recent = dara.locator(`#recent-games li[data-room="${g3}"]`);
  await recent.waitFor();
  assert.match(await recent.innerText(), /^Khan: White \(deleted player\) – Black \(Dara\)/);
  await openProfile(dara, 'vann');
  assert.equal(await dara.textContent('#player-name'), 'deleted player');
  assert.equal(await dara.locator('#deleted-note').isVisible(), true);
  assert.equal(await dara.locator('#games-card').isVisible(), false);
});

test('an unknown name gets a real 404 with the page saying so', async (t) => {
  const page = await newPage(t, browser);
  allowErrors(page, /404/);
  const answer = await page.goto(`${server.url}/@/nobody-here`);
  assert.equal(answer.status(), 404);
  await page.waitForSelector('#profile[data-ready="true"] #notice:not([hidden])');
  assert.match(await page.textContent('#notice'), /No player has this name/);
});

test('"Older games" asks for the next page with the cursor and adds it', async (t) => {
  const page = await newPage(t, browser, { viewport: 'phone' });
  await register(page, 'Pager');
  const game = (n) => ({
    room_id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`, game: 'khan', visibility: 'public', seat: 0,
    players: [{ seat: 0, color: 'white', name: 'Pager', user: 'Pager' }, { seat: 1, color: 'black', name: 'guest' }],
    result: { winner: 0, reason: 'resignation' }, outcome: 'win', clock: { days_per_move: 3 }, moves: 1,
    started_at: '2026-12-01T10:00:00Z', finished_at: '2026-12-01T10:00:00Z',
  });
  const asked = [];
  await page.route((url) => url.pathname.endsWith('/api/users/Pager/games'), (route) => {
    const url = new URL(route.request().url());
    asked.push(url.search);
    const older = url.searchParams.get('before');
    const body = older
      ? { games: [game(51)], next: null }
      : { games: Array.from({ length: 50 }, (_, i) => game(i + 1)), next: game(50).room_id };
    route.fulfill({ json: body });
  });
  await openProfile(page, 'Pager');
  assert.equal((await listed(page)).length, 50);
  await page.click('#older');
  await page.waitForFunction(() => document.querySelectorAll('#games li').length === 51);
  assert.deepEqual(asked, ['', `?before=${game(50).room_id}`]);
  assert.equal(await page.locator('#older').isHidden(), true);
  assert.match(await page.locator('#games li').last().innerText(), /against guest/);
  assert.equal(await page.locator('#games li').last().locator('.opponents a').count(), 0);
});

test('the home page asks for My games only with a seat token or a session', async (t) => {
  const page = await newPage(t, browser);
  const asked = [];
  page.on('request', (request) => {
    if (request.url().includes('api/my-games')) asked.push(request.postData());
  });
  await page.goto(`${server.url}/`);
  await page.waitForSelector('#account-link[data-checked]');
  assert.deepEqual(asked, [], 'neither token nor session: no look-up');
  assert.equal(await page.locator('#my-games-card').isHidden(), true);

  // Logged in without a single seat token: the account's games still show.
  await register(page, 'Noto');
  const other = await newPage(t, browser);
  await register(other, 'Kosal');
  const room = await playGame(other, page, { game: 'khan', visibility: 'private' }, { white: other, resigner: other });
  await page.evaluate(() => {
    for (const key of Object.keys(localStorage)) if (key.startsWith('khanate.room.')) localStorage.removeItem(key);
  });
  await page.goto(`${server.url}/`);
  await page.waitForSelector(`#my-games-card:not([hidden]) #my-games-done li[data-room="${room}"]`);
  assert.deepEqual(asked.map((body) => JSON.parse(body ?? '{}').seats), [[]]);
});
