// The game screen, second pass (issue 25), on a 390x844 phone and a 1366x900 desktop: the
// players' bars never wider than a phone however much was taken, the header on one line in every
// state, Khan-Tsin's centre telling the result, a move made offline drawn as made in the game's
// notation and in view, and the finished-game page's move numbers, capture marks and material.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { allowErrors, launchBrowser, newPage, screenshot } from './lib/browser.mjs';
import {
  apiPost, clickButton, clickSquare, createRoom, moveList, openSeat, pieceOn, playMove, roomState, setLanguage,
  squaresWith, startMove, twoPlayers, waitForConnection, waitForRoom, waitForVersion,
} from './lib/pages.mjs';
import { startServer } from './lib/server.mjs';

let server;
let browser;

before(async () => {
  server = await startServer('screen');
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

const PHONE_WIDTH = 390;

// How the page lies in its window: the document's width, and each player's bar, clock and name.
async function bars(page) {
  return page.evaluate(() => {
    const box = (el) => {
      const r = el.getBoundingClientRect();
      return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
    };
    return {
      documentWidth: document.documentElement.scrollWidth,
      innerWidth,
      innerHeight,
      seats: [...document.querySelectorAll('#players li')].map((li) => ({
        seat: li.dataset.seat,
        bar: box(li),
        clock: box(li.querySelector('.clock')),
        who: li.querySelector('.who').getBoundingClientRect().width,
        pictures: li.querySelectorAll('.material svg').length,
        diff: li.querySelector('.material-diff')?.textContent ?? null,
      })),
    };
  });
}

// Each side's Touks eat down a file of the other's pieces: White's from a1 and b1 up the a and b
// files, Black's from h8 and g8 down the h and g files; neither King is ever in check.
const FEAST = '4k1rr/rn4MS/sm4NR/mr4RM/ns4SN/rn4MS/ms4NR/RR1K4 w - - 0 1';
const FEAST_MOVES = [
  ...[2, 3, 4, 5, 6, 7].flatMap((rank) => [[`a${rank - 1}`, `a${rank}`], [`h${10 - rank}`, `h${9 - rank}`]]),
  ...[2, 3, 4, 5, 6, 7].flatMap((rank) => [[`b${rank - 1}`, `b${rank}`], [`g${10 - rank}`, `g${9 - rank}`]]),
];
// The points each capture is worth (games.js: Touk 5, Ses 3, Khon 3, Neang 2).
const VALUE = { r: 5, n: 3, s: 3, m: 2 };

test('phone: twelve captures a side never widen the page; the clocks stay in view, the material condenses to +N', async (t) => {
  const { first: white, second: black } = await twoPlayers(t, browser, server, {
    game: 'ouk-chatrang', startPosition: FEAST, clock: '600+5',
  });
  const fen = FEAST.split(' ')[0].split('/');
  const pieceAt = (square) => {
    const row = fen[8 - Number(square.slice(1))].replace(/\d/g, (n) => '.'.repeat(Number(n)));
    return row[square.charCodeAt(0) - 97].toLowerCase();
  };
  const points = [0, 0];
  let version = (await roomState(white)).version;
  for (const [ply, [from, to]] of FEAST_MOVES.entries()) {
    const mover = ply % 2 === 0 ? white : black;
    version = await playMove(mover, [from, to]);
    points[ply % 2] += VALUE[pieceAt(to)];
    for (const [name, page] of [['phone', black], ['desktop', white]]) {
      await waitForVersion(page, version);
      const seen = await bars(page);
      const where = `${name}, after move ${ply + 1}`;
      if (name === 'phone') assert.ok(seen.documentWidth <= PHONE_WIDTH, `${where}: the page is ${seen.documentWidth} px wide`);
      for (const s of seen.seats) {
        assert.ok(s.bar.left >= 0 && s.bar.right <= seen.innerWidth + 0.5, `${where}: seat ${s.seat}'s bar ${JSON.stringify(s.bar)}`);
        assert.ok(s.clock.left >= 0 && s.clock.right <= seen.innerWidth + 0.5 && s.clock.bottom <= seen.innerHeight + 0.5,
          `${where}: seat ${s.seat}'s clock ${JSON.stringify(s.clock)}`);
        assert.ok(s.who >= 40, `${where}: seat ${s.seat}'s name is ${s.who} px wide`);
      }
      // The side ahead shows by how much; the other shows nothing.
      const ahead = points[0] - points[1];
      assert.deepEqual(seen.seats.map((s) => s.diff), [ahead > 0 ? `+${ahead}` : null, ahead < 0 ? `+${-ahead}` : null], where);
    }
  }
  // Twelve pieces of four kinds: four pictures a side, each with its count.
  const seen = await bars(black);
  assert.deepEqual(seen.seats.map((s) => s.pictures), [4, 4]);
  assert.deepEqual(await black.locator('#players li[data-seat="0"] .material .count').allTextContents(), ['3', '3', '3', '3']);
  await screenshot(black, 'screen-feast-phone');
  await screenshot(white, 'screen-feast-desktop');
});

// The header's height and whether each of its parts is whole and on one line.
async function header(page) {
  return page.evaluate(() => {
    const bar = document.querySelector('header.bar');
    const name = document.querySelector('#game-name');
    const lines = (el) => {
      const range = document.createRange();
      range.selectNodeContents(el);
      return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
    };
    const inside = (el) => {
      const r = el.getBoundingClientRect();
      return r.left >= 0 && r.right <= innerWidth + 0.5 && r.width > 0;
    };
    return {
      height: bar.getBoundingClientRect().height,
      nameLines: lines(name),
      nameWhole: name.scrollWidth <= name.clientWidth + 0.5,
      partsInside: [...bar.children].filter((el) => !el.hidden && getComputedStyle(el).display !== 'none').every(inside),
      connection: document.querySelector('#connection').dataset.state,
    };
  });
}

test('the header: one line for every game, online and offline, in English and Korean, on a phone (and a desktop)', async (t) => {
  const pages = [];
  // Each game on a phone, and the longest name on a desktop too.
  for (const [game, viewport] of [['ouk-chatrang', 'phone'], ['khan', 'phone'], ['khan-tsin', 'phone'], ['ouk-chatrang', 'desktop']]) {
    const page = await newPage(t, browser, { viewport });
    allowErrors(page, /net::ERR_CONNECTION_REFUSED|WebSocket connection to .* failed/);
    await createRoom(page, server, { game, local: true });
    pages.push(page);
  }
  const check = async (state) => {
    for (const page of pages) {
      for (const lang of ['en', 'ko']) {
        await setLanguage(page, lang);
        const seen = await header(page);
        const where = `${await page.textContent('#game-name')}, ${state}, ${lang}`;
        assert.equal(seen.connection, state, where);
        assert.ok(seen.height <= 49, `${where}: the header is ${seen.height} px high`);
        assert.deepEqual([seen.nameLines, seen.nameWhole, seen.partsInside], [1, true, true], where);
      }
    }
  };
  await check('online');
  await server.kill();
  for (const page of pages) await waitForConnection(page, 'offline');
  await check('offline');
  await screenshot(pages[0], 'screen-header-offline-phone');
  await server.restart();
  for (const page of pages) await waitForConnection(page, 'online', { timeout: 30_000 });
});

// The words in the centre of the Khan-Tsin board.
const centre = (page) => page.locator('#board svg > g:last-of-type text').allTextContents();

test('Khan-Tsin: after a resignation (desktop) and a flag (phone) the centre of the board tells the result', async (t) => {
  const { first: white, second: green } = await twoPlayers(t, browser, server, { game: 'khan-tsin' });
  await white.click('#resign');
  for (const page of [white, green]) {
    await waitForRoom(page, { status: 'finished' });
    const words = await centre(page);
    assert.ok(words.includes('Green wins'), words.join(' | '));
    assert.ok(words.includes('resignation'), words.join(' | '));
    assert.ok(!words.some((w) => /to move|Movement|Placement/.test(w)), words.join(' | '));
  }
  await screenshot(white, 'screen-khan-tsin-resigned-desktop');

  // A two-second clock runs out for White, who never moves.
  const created = await apiPost(server, '/api/rooms', {
    game: 'khan-tsin', seat: 'white', name: 'Dara', clock: { initial_s: 2, increment_s: 0 },
  });
  const joined = await apiPost(server, `/api/rooms/${created.invite_code}/join`, { name: 'Sok' });
  const phone = await openSeat(t, browser, server, created, joined.seat, joined.seat_token, { viewport: 'phone' });
  await waitForRoom(phone, { status: 'finished' });
  await setLanguage(phone, 'ko');
  const words = await centre(phone);
  assert.ok(words.includes('초록 승리'), words.join(' | '));
  assert.ok(!words.some((w) => /차례|배치 단계|이동 단계/.test(w)), words.join(' | '));
  await screenshot(phone, 'screen-khan-tsin-flag-phone');
});

// Whether `selector` lies wholly inside the window.
const inView = (page, selector) => page.locator(selector).evaluate((el) => {
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight + 0.5 && r.right <= innerWidth + 0.5;
});

test('a move made offline is drawn as made, in the game\'s own notation, wholly in view (desktop and phone)', async (t) => {
  const { first: white, second: black } = await twoPlayers(t, browser, server, { game: 'ouk-chatrang' });
  const phone = await newPage(t, browser, { viewport: 'phone' });
  await createRoom(phone, server, { game: 'khan-tsin', local: true });
  for (const page of [white, black, phone]) allowErrors(page, /net::ERR_CONNECTION_REFUSED|WebSocket connection to .* failed/);
  await server.kill();
  await waitForConnection(white, 'offline');
  await waitForConnection(phone, 'offline');

  await startMove(white, 'e3');
  await clickSquare(white, 'e4');
  await white.waitForSelector('#board[data-pending="e3e4"]');
  assert.deepEqual([await pieceOn(white, 'e3'), await pieceOn(white, 'e4')], [0, 1], 'the Trey stands on e4');
  assert.equal(await white.locator('#board svg.pending').count(), 1);
  assert.equal((await white.textContent('#pending')).trim(), 'Your move e4 is waiting for the connection…');
  assert.equal(await inView(white, '#pending'), true, 'the note is wholly in view');

  // A pawn on the first square offered (the Khan-pawn is in hand too: the board asks which).
  const [square] = await squaresWith(phone, 'target');
  await clickSquare(phone, square);
  await clickButton(phone, '[data-place="p"]');
  await phone.waitForSelector(`#board[data-pending="p${square}"]`);
  assert.match(await phone.textContent(`#board [data-square="${square}"] title`), /height 1, bottom to top: White pawn$/);
  assert.equal(await phone.locator('#board svg.pending').count(), 1);
  assert.equal((await phone.textContent('#pending')).trim(), `Your move White pawn on ${square} is waiting for the connection…`);
  assert.equal(await inView(phone, '#pending'), true, 'the note is wholly in view');
  await screenshot(white, 'screen-pending-desktop');
  await screenshot(phone, 'screen-pending-phone');

  await server.restart();
  await white.waitForSelector('#board:not([data-pending])', { timeout: 30_000 });
  await phone.waitForSelector('#board:not([data-pending])', { timeout: 30_000 });
  assert.deepEqual(await moveList(white), ['e4']);
  assert.equal(await white.isVisible('#pending'), false);
});

// White's Khan c2 pushes its Soldier c3 into Black's last Soldier on c4: captured, and the game won.
const PUSH = '9k/10/10/10/10/10/2s7/2S7/2K7/S9 w';

test('the finished-game page: move numbers level with their moves, a push capture\'s cross over the pushed piece, the material of the move shown', async (t) => {
  // Khan: one push that takes Black's last Soldier.
  const { first: white } = await twoPlayers(t, browser, server, { game: 'khan', startPosition: PUSH });
  await playMove(white, ['c2', 'c3']);
  await waitForRoom(white, { status: 'finished' });
  const khanPage = await white.getAttribute('#game-page-link', 'href');

  // Ouk Chatrang: a capture on the third move, then Black resigns.
  const { first: dara, second: sok } = await twoPlayers(t, browser, server, { game: 'ouk-chatrang' });
  let version = await playMove(dara, ['e3', 'e4']);
  await waitForVersion(sok, version);
  version = await playMove(sok, ['d6', 'd5']);
  await waitForVersion(dara, version);
  version = await playMove(dara, ['e4', 'd5']);
  await waitForVersion(sok, version);
  version = await playMove(sok, ['g8', 'e7']);
  await waitForVersion(dara, version);
  // The room's replay shows each position's material too.
  await dara.click('#moves li[data-ply="2"]');
  await dara.waitForSelector('#board[data-ply="2"]');
  assert.equal(await dara.locator('#players li[data-seat="0"] .material svg').count(), 0, 'nothing taken yet at move 2');
  await dara.click('#moves li[data-ply="3"]');
  await dara.waitForSelector('#board[data-ply="3"]');
  assert.equal(await dara.locator('#players li[data-seat="0"] .material svg').count(), 1);
  await sok.click('#resign');
  await waitForRoom(dara, { status: 'finished' });
  const oukPage = await dara.getAttribute('#game-page-link', 'href');

  for (const viewport of ['desktop', 'phone']) {
    const page = await newPage(t, browser, { viewport });
    await page.goto(new URL(khanPage, server.url).href);
    await page.waitForSelector('#room[data-ready="true"]');
    const order = await page.locator('#board [data-square="c4"]').evaluate((square) => {
      const piece = square.querySelector('.piece');
      const mark = square.querySelector('.capture-mark');
      return Boolean(piece && mark && (piece.compareDocumentPosition(mark) & Node.DOCUMENT_POSITION_FOLLOWING));
    });
    assert.equal(order, true, `${viewport}: the cross on c4 is drawn over the Soldier pushed there`);

    await page.goto(new URL(oukPage, server.url).href);
    await page.waitForSelector('#room[data-ready="true"]');
    const rows = await page.locator('#moves li[data-seat="0"]').evaluateAll((items) => items.map((li) => {
      const number = li.querySelector('.move-number').getBoundingClientRect();
      const range = document.createRange();
      range.selectNodeContents(li.querySelector('button'));
      const move = range.getBoundingClientRect();
      return { number: Math.round(number.bottom - move.bottom), text: li.textContent };
    }));
    assert.deepEqual(rows.map((r) => r.number), [0, 0], `${viewport}: ${JSON.stringify(rows)}`);
    const pictures = async () => page.locator('#players li[data-seat="0"] .material svg').count();
    assert.equal(await pictures(), 1, `${viewport}: at the end White has taken one piece`);
    await page.click('#moves li[data-ply="2"] button');
    assert.equal(await pictures(), 0, `${viewport}: at move 2 nothing was taken yet`);
    await page.click('#moves li[data-ply="3"] button');
    assert.equal(await pictures(), 1, `${viewport}: at move 3 the Trey was`);
    await screenshot(page, `screen-game-page-${viewport}`);
  }
});
