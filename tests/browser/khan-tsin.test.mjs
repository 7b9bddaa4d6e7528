// Khan-Tsin in the browser: two players in two browser contexts (white on a desktop, green on a
// phone) create and join a room by its invite link and play by clicking the dragon track: the end of a
// placement phase (pawn or Khan-pawn, the neutral pawns filling the track) and the end of a game
// (how many pawns, which way, the Khan-pawn's winning 9-stack); a move that counts round the
// circle past its start (fewer stacks than its distance); and three players, one of whom resigns
// while another is on move.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from './lib/server.mjs';
import { launchBrowser, newPage, screenshot } from './lib/browser.mjs';
import {
  clickSquare, clickButton, playMove, waitForRoom, waitForVersion, roomState, moveList, resultText,
  squaresWith, seatsByName, eventually, twoPlayers, createRoom, joinRoom, startMove, setLanguage,
} from './lib/pages.mjs';

const LAYOUT = '231231231231231231231231231231231231';

// White has placed 10 pawns (Khan-pawn still in hand), green 11: white's next placement may be
// a pawn or the Khan-pawn (single squares, T-5), its last one must be the Khan-pawn.
const PLACEMENT_END = `w/w/w/w/w/w/w/w/-/w/w/-/g/g/g/g/g/g/g/g/-/g/G/-/-/-/-/-/-/-/-/-/-/-/-/- ${LAYOUT} wg w`;

// A partial position in the movement phase (rules "Notation", field `m`): white's Khan-pawn on
// the single square 2 is one step from [b,g,b,g,b,g,w] on 3. White first brings one more white
// pawn there from 0 (double: 2 steps; 1 or 2 pawns may move, the other way round), green
// answers far away, and the Khan-pawn lands on the 8-stack: height 9, Khan on top (T-13).
const NEAR_THE_END = `gw/-/W/bgbgbgw/-/-/-/-/-/-/-/-/-/-/-/-/-/-/b/-/g/-/b/-/-/-/-/-/-/-/-/-/-/-/b/- ${LAYOUT} wg w m`;

// Three stacks only: white's lone pawn on the triple square 1 moves 3, but only 2 other squares
// are occupied, so the count goes on round the circle (T-9 as the server applies it to partial
// positions): clockwise the others are [10, 20], the third count lands on 10 again; the other
// way [20, 10], on 20 (`khanate play khan-tsin --position ... 1:1+`: white lands on 10; `1:1-`
// on 20).
const FEW_STACKS = `-/w/-/-/-/-/-/-/-/-/g/-/-/-/-/-/-/-/-/-/g/-/-/-/-/-/-/-/-/-/-/-/-/-/-/- ${LAYOUT} wg w m`;

let server;
let browser;

before(async () => {
  server = await startServer('khan-tsin');
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

// The two players of a new room from `startPosition`, once the game has started: white (seat 0,
// on move) created it on a desktop, green joined by the invite link on a phone.
async function startGame(t, startPosition) {
  // The start position fixes players, colours and layout.
  const { first: white, second: green, invite } = await twoPlayers(t, browser, server, { game: 'khan-tsin', startPosition });
  assert.deepEqual(await seatsByName(server, invite), { Dara: 0, Sok: 1 });
  for (const page of [white, green]) await waitForRoom(page, { status: 'playing', toMove: '0' });
  return { white, green };
}

// Waits until this page's board lets `square` start a move (the move before it has arrived).
async function canStartAt(page, square) {
  await page.waitForSelector(`#board [data-square="${square}"]:is(.target, .movable)`);
}

async function phase(page) {
  return page.getAttribute('#board svg', 'data-phase');
}

test('the end of the placement phase: pawn or Khan-pawn, then the neutral pawns fill the track', async (t) => {
  const { white, green } = await startGame(t, PLACEMENT_END);
  await canStartAt(white, '8');
  assert.equal(await phase(white), 'placement');
  assert.deepEqual(
    (await squaresWith(white, 'target')).map(Number).sort((a, b) => a - b),
    [8, 11, 20, 23, 26, 29, 32, 35],
  );

  // Both a pawn and the Khan-pawn may go on 8: the board asks which.
  const before = (await roomState(white)).version;
  await clickSquare(white, '8');
  assert.deepEqual(await squaresWith(white, 'selected'), ['8']);
  assert.equal(await white.locator('#board [data-place]').count(), 2);
  await clickButton(white, '[data-place="p"]');
  await waitForVersion(green, before + 1);

  // Green's Khan-pawn is down: one click places a pawn.
  await canStartAt(green, '20');
  await playMove(green, ['20']);
  // White's last pawn must be its Khan-pawn: one click, no question.
  await canStartAt(white, '11');
  await playMove(white, ['11']);
  await canStartAt(green, '23');
  await playMove(green, ['23']);

  for (const page of [white, green]) {
    assert.deepEqual(await eventually(() => moveList(page), (l) => l.length === 4), ['White pawn on 8', 'Green pawn on 20', 'White Khan-pawn on 11', 'Green pawn on 23']);
    assert.equal(await eventually(() => phase(page), (p) => p === 'movement'), 'movement');
  }
  // The neutral blue pawns filled the 12 squares left: no square is empty now.
  const titles = await white.locator('#board [data-square] > title').allTextContents();
  assert.deepEqual(titles.filter((title) => title.endsWith(': empty')), []);
  assert.ok(await white.locator('#board [data-square].movable').count() > 0);
});

test('the end of a game: how many pawns, which way, and the Khan-pawn on a 9-stack wins', async (t) => {
  const { white, green } = await startGame(t, NEAR_THE_END);
  await canStartAt(white, '0');
  assert.equal(await phase(white), 'movement');
  assert.deepEqual((await squaresWith(white, 'movable')).sort(), ['0', '2', '3']);
  assert.deepEqual(await squaresWith(green, 'movable'), []);

  // 0 holds [g, w] on a double square: 2 occupied squares either way, 3 or 22 (past 34). One
  // pawn may go either way, two only to 22 (3 would hold 4 green pawns, T-10).
  await clickSquare(white, '0');
  assert.deepEqual(await squaresWith(white, 'selected'), ['0']);
  assert.equal(await white.locator('#board [data-count]').count(), 2);
  assert.deepEqual(await squaresWith(white, 'target'), []);
  await clickButton(white, '[data-count="1"]');
  assert.deepEqual((await squaresWith(white, 'target')).sort(), ['22', '3']);
  // Clicking the selected stack again cancels; choosing again rebuilds the move.
  await clickSquare(white, '0');
  assert.deepEqual(await squaresWith(white, 'selected'), []);
  await clickSquare(white, '0');
  await clickButton(white, '[data-count="2"]');
  assert.deepEqual(await squaresWith(white, 'target'), ['22']);
  await clickButton(white, '[data-count="1"]');
  await screenshot(white, 'khan-tsin-desktop');
  await playMove(white, ['3']);

  for (const page of [white, green]) {
    assert.deepEqual(await eventually(() => moveList(page), (l) => l.length === 1), ['White moves 1 from square 0 clockwise to 3']);
  }
  assert.deepEqual((await eventually(() => squaresWith(green, 'last'), (s) => s.length === 2)).sort(), ['0', '3']);

  // 20 holds a lone green pawn on a single square: no count to choose, two ways to go.
  await canStartAt(green, '20');
  await clickSquare(green, '20');
  assert.equal(await green.locator('#board [data-count]').count(), 0);
  assert.deepEqual((await squaresWith(green, 'target')).sort(), ['18', '22']);
  await screenshot(green, 'khan-tsin-phone');
  const before = (await roomState(green)).version;
  await clickButton(green, '[data-direction="+"]');
  await waitForVersion(white, before + 1);

  // The Khan-pawn on 2 (single square) steps onto 3: [b,g,b,g,b,g,w,w] + Khan = 9, white wins.
  await canStartAt(white, '2');
  await clickSquare(white, '2');
  assert.deepEqual((await squaresWith(white, 'target')).sort(), ['0', '3']);
  await clickSquare(white, '3');

  for (const page of [white, green]) {
    await waitForRoom(page, { status: 'finished' });
    assert.deepEqual(await moveList(page), ['White moves 1 from square 0 clockwise to 3', 'Green moves 1 from square 20 clockwise to 22', 'White moves 1 from square 2 clockwise to 3']);
    // One line per move, each with its colour's swatch.
    assert.deepEqual(await page.locator('#moves li > .swatch').evaluateAll((els) => els.map((el) => el.className)),
      ['swatch white', 'swatch green', 'swatch white']);
    assert.notEqual(await resultText(page), '');
    assert.deepEqual((await squaresWith(page, 'last')).sort(), ['2', '3']);
    assert.equal(await page.locator('#board [data-square].movable, #board [data-square].target').count(), 0);
  }
  // A reload rebuilds the list from the snapshot: the colours come from replaying the moves.
  await white.reload();
  await waitForRoom(white, { status: 'finished' });
  assert.deepEqual(await eventually(() => moveList(white), (l) => l.length === 3),
    ['White moves 1 from square 0 clockwise to 3', 'Green moves 1 from square 20 clockwise to 22', 'White moves 1 from square 2 clockwise to 3']);
  // In Korean too.
  await setLanguage(white, 'ko');
  assert.deepEqual(await moveList(white), ['흰색: 0번에서 1개를 시계 방향으로 3번까지', '초록: 20번에서 1개를 시계 방향으로 22번까지', '흰색: 2번에서 1개를 시계 방향으로 3번까지']);
  await setLanguage(white, 'en');
  const height = await white.locator('#board [data-square="3"] > title').textContent();
  assert.match(height, /height 9/);
  await screenshot(white, 'khan-tsin-desktop-end');
  await screenshot(green, 'khan-tsin-phone-end');
});

test('a move with fewer stacks to count than its distance goes round the circle, as the server counts', async (t) => {
  const { white, green } = await startGame(t, FEW_STACKS);
  await canStartAt(white, '1');
  assert.deepEqual(await squaresWith(white, 'movable'), ['1']);
  await clickSquare(white, '1');
  assert.deepEqual(await squaresWith(white, 'selected'), ['1']);
  assert.deepEqual((await squaresWith(white, 'target')).sort(), ['10', '20']);
  assert.deepEqual(
    await white.locator('#board [data-direction]').allTextContents(),
    ['↻ to 10', '↺ to 20'],
  );
  await playMove(white, ['10']);

  for (const page of [white, green]) {
    // The server's display is `1:1+ to 10`; the list shows it with the colour, in the page's words.
    assert.deepEqual(await eventually(() => moveList(page), (l) => l.length === 1), ['White moves 1 from square 1 clockwise to 10']);
    assert.deepEqual((await eventually(() => squaresWith(page, 'last'), (s) => s.length === 2)).sort(), ['1', '10']);
    const stack = await page.locator('#board [data-square="10"] > title').textContent();
    assert.match(stack, /height 2/);
  }
  // Green's lone pawn on the single square 20 has one other stack to count either way: 10.
  await waitForRoom(green, { toMove: '1' });
  await canStartAt(green, '20');
  await clickSquare(green, '20');
  assert.deepEqual(await squaresWith(green, 'target'), ['10']);

  // Green resigns: the finished game's page says the move in the same words.
  await green.click('#resign');
  await waitForRoom(white, { status: 'finished' });
  const link = white.locator('#game-page-link');
  await link.waitFor();
  const page = await newPage(t, browser);
  await page.goto(`${server.url}/g/${(await link.getAttribute('href')).split('/').at(-1)}`);
  await page.waitForSelector('#room[data-ready="true"]');
  assert.deepEqual(await moveList(page), ['White moves 1 from square 1 clockwise to 10']);
});

test('three players: one resigns (after a confirmation) while another is on move, who still moves', async (t) => {
  const creator = await newPage(t, browser);
  const invite = await createRoom(creator, server, { game: 'khan-tsin', players: 3, seat: 'white', name: 'Dara' });
  const second = await newPage(t, browser);
  await joinRoom(second, invite, { name: 'Sok' });
  const third = await newPage(t, browser, { viewport: 'phone' });
  await joinRoom(third, invite, { name: 'Chan' });
  const seats = await seatsByName(server, invite);
  const bySeat = [];
  for (const [name, page] of [['Dara', creator], ['Sok', second], ['Chan', third]]) bySeat[seats[name]] = page;
  for (const page of bySeat) await waitForRoom(page, { status: 'playing', toMove: '0' });

  // White places a pawn: green (seat 1) is on move with its legal moves.
  let version = (await roomState(bySeat[0])).version;
  await startMove(bySeat[0], '1');
  await clickButton(bySeat[0], '[data-place="p"]');
  version = await waitForVersion(bySeat[0], version + 1);
  for (const page of bySeat) await waitForRoom(page, { toMove: '1' });
  await canStartAt(bySeat[1], '4');

  // Blue (seat 2), not on move, resigns: the page asks first (the test accepts).
  const asked = [];
  bySeat[2].on('dialog', (dialog) => asked.push(`${dialog.type()}: ${dialog.message()}`));
  await bySeat[2].click('#resign');
  for (const page of bySeat) await waitForVersion(page, version + 1);
  assert.equal(asked.length, 1);
  assert.match(asked[0], /^confirm: .*resign/i);
  await bySeat[2].locator('#resign').waitFor({ state: 'hidden' });
  assert.equal(await bySeat[2].locator('#players li[data-seat="2"].left').count(), 1);
  assert.match(await bySeat[1].textContent('#message'), /resigned/);

  // The turn stayed with green, whose moves stand: it places by clicking, as before.
  await waitForRoom(bySeat[1], { toMove: '1' });
  await canStartAt(bySeat[1], '4');
  await startMove(bySeat[1], '4');
  await clickButton(bySeat[1], '[data-place="p"]');
  for (const page of bySeat) {
    assert.deepEqual(await eventually(() => moveList(page), (l) => l.length === 2), ['White pawn on 1', 'Green pawn on 4']);
  }
  // Blue's turns are skipped: white is on move again.
  for (const page of bySeat) await waitForRoom(page, { toMove: '0' });
  await canStartAt(bySeat[0], '7');
});
