// What a player reaches for next on the game screen (issue 25): premoves on the square boards
// and on Khan-Tsin's track (set, played on the opponent's move, cancelled, dropped when no longer
// legal; and the time from the opponent's `moved` to the premove's `ack`, printed for
// docs/performance.md, never asserted), turning the board round (a button and `f`, remembered per
// room, for players and spectators), and the board themes (remembered).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launchBrowser, newPage, screenshot } from './lib/browser.mjs';
import {
  clickSquare, createRoom, eventually, joinRoom, moveList, openRoom, playMove, roomState, squaresWith, startMove,
  waitForRoom, waitForVersion,
} from './lib/pages.mjs';
import { startServer } from './lib/server.mjs';

let server;
let browser;

before(async () => {
  server = await startServer('board-tools');
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

// Installed in a page before its scripts run: every frame the page's WebSockets send and receive,
// with the monotonic time it went out or arrived (before the page's own handler sees it).
function recordFrames() {
  window.frames_ = [];
  const Native = window.WebSocket;
  const send = Native.prototype.send;
  Native.prototype.send = function sendRecorded(data) {
    const frame = JSON.parse(data);
    window.frames_.push({ dir: 'out', t: frame.t, cid: frame.cid ?? null, d: frame.d ?? null, at: performance.now() });
    return send.call(this, data);
  };
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (event) => {
        const frame = JSON.parse(event.data);
        window.frames_.push({ dir: 'in', t: frame.t, cid: frame.d?.cid ?? null, seat: frame.d?.seat ?? null, at: performance.now() });
        // When the page's main thread is free again after a `moved` (its handler and redraw
        // done): an `ack` arriving earlier waits until then to be seen.
        if (frame.t === 'moved') setTimeout(() => window.frames_.push({ dir: 'idle', t: 'idle', at: performance.now() }), 0);
      });
    }
  };
}

const frames = (page) => page.evaluate(() => window.frames_);
const premoveOf = (page) => page.locator('#board').getAttribute('data-premove');

// White on a desktop creates the room; Black joins on a phone; both record their frames.
async function players(t, options) {
  const white = await newPage(t, browser);
  const black = await newPage(t, browser, { viewport: 'phone' });
  for (const page of [white, black]) await page.addInitScript(recordFrames);
  const invite = await createRoom(white, server, { seat: 'white', name: 'Dara', ...options });
  await joinRoom(black, invite, { name: 'Sok' });
  for (const page of [white, black]) await waitForRoom(page, { status: 'playing' });
  return { white, black, invite };
}

// Sets a premove by clicking its squares on a board whose seat is not on move.
async function setPremove(page, squares, move) {
  for (const square of squares) await clickSquare(page, square);
  await page.waitForSelector(`#board[data-premove="${move}"]`);
}

test('premove: set while the opponent is on move, played when its move arrives, cancelled, dropped when illegal', async (t) => {
  const { white, black } = await players(t, { game: 'ouk-chatrang' });

  // Set: drawn apart, nothing sent.
  await clickSquare(black, 'd6');
  assert.equal(await black.locator('#board svg.premoving').count(), 1);
  await clickSquare(black, 'd5');
  await black.waitForSelector('#board[data-premove="d6d5"]');
  assert.deepEqual((await squaresWith(black, 'premove')).sort(), ['d5', 'd6']);
  assert.deepEqual((await frames(black)).filter((f) => f.dir === 'out' && f.t === 'move'), []);
  await screenshot(black, 'board-tools-premove-phone');

  // Played on arrival.
  await playMove(white, ['e3', 'e4']);
  for (const page of [white, black]) assert.deepEqual(await eventually(() => moveList(page), (l) => l.length === 2), ['e4', 'd5']);
  assert.equal(await premoveOf(black), null);

  // Cancelled by a click elsewhere, and by Escape.
  await setPremove(black, ['g8', 'e7'], 'g8e7');
  await black.click('#turn');
  assert.equal(await premoveOf(black), null);
  await setPremove(black, ['g8', 'e7'], 'g8e7');
  await black.keyboard.press('Escape');
  assert.equal(await premoveOf(black), null);

  // Dropped when the opponent's move made it illegal: d5xe4, but White takes on d5 first.
  await setPremove(black, ['d5', 'e4'], 'd5e4');
  const version = await playMove(white, ['e4', 'd5']);
  await waitForVersion(black, version);
  await waitForRoom(black, { toMove: '1' });
  assert.equal(await premoveOf(black), null);
  assert.equal(await black.textContent('#message'), 'Your premove was not legal any more: it was dropped.');
  assert.deepEqual(await moveList(black), ['e4', 'd5', 'exd5']);
  assert.deepEqual((await frames(black)).filter((f) => f.dir === 'out' && f.t === 'move').map((f) => f.d.move), ['d6d5']);

  // The time from White's `moved` to the `ack` of Black's premove, over ten premoves: printed
  // for docs/performance.md (a measurement, not a check: the machine may be loaded).
  await playMove(black, ['g8', 'e7']);
  const shuffle = { white: [['g1', 'e2'], ['e2', 'g1']], black: [['e7', 'g8'], ['g8', 'e7']] };
  const measured = [];
  for (let i = 0; i < 10; i += 1) {
    await waitForRoom(black, { toMove: '0' });
    const [from, to] = shuffle.black[i % 2];
    await setPremove(black, [from, to], `${from}${to}`);
    const before = (await frames(black)).length;
    // White's move, then Black's premove: two versions on (the premove may be in before
    // playMove has read White's).
    const start = (await roomState(white)).version;
    await playMove(white, shuffle.white[i % 2]);
    await waitForVersion(white, start + 2);
    // The ack may reach Black's page after White's page has Black's move.
    const acked = (list) => {
      const sent = list.find((f) => f.dir === 'out' && f.t === 'move');
      return list.some((f) => f.dir === 'in' && f.t === 'ack' && f.cid === sent?.cid);
    };
    const seen = await eventually(async () => (await frames(black)).slice(before), acked);
    const moved = seen.find((f) => f.dir === 'in' && f.t === 'moved' && f.seat === 0);
    const sent = seen.find((f) => f.dir === 'out' && f.t === 'move');
    const ack = seen.find((f) => f.dir === 'in' && f.t === 'ack' && f.cid === sent?.cid);
    assert.ok(moved && sent && ack, JSON.stringify(seen));
    assert.equal(sent.d.move, `${from}${to}`);
    // For comparison, the server's answer to White's own move, clicked: its send to its ack.
    const whites = await frames(white);
    const whiteMove = whites.filter((f) => f.dir === 'out' && f.t === 'move').at(-1);
    const whiteAck = whites.find((f) => f.dir === 'in' && f.t === 'ack' && f.cid === whiteMove?.cid);
    const idle = seen.find((f) => f.dir === 'idle' && f.at >= moved.at);
    measured.push({
      sent: sent.at - moved.at, acked: ack.at - moved.at, busy: idle ? idle.at - moved.at : NaN,
      plain: whiteAck ? whiteAck.at - whiteMove.at : NaN,
    });
  }
  const sorted = (key) => measured.map((m) => m[key]).sort((a, b) => a - b);
  const median = (values) => values[Math.floor(values.length / 2)];
  console.log(`premove latency (moved -> ack), ${measured.length} premoves: median ${median(sorted('acked')).toFixed(1)} ms, `
    + `max ${sorted('acked').at(-1).toFixed(1)} ms; moved -> sent: median ${median(sorted('sent')).toFixed(1)} ms, `
    + `max ${sorted('sent').at(-1).toFixed(1)} ms; the page busy after moved: median ${median(sorted('busy')).toFixed(1)} ms; `
    + `a clicked move's send -> ack: median ${median(sorted('plain')).toFixed(1)} ms`);
  assert.equal((await moveList(white)).length, 24);
});

test('premove on the Khan board and on Khan-Tsin\'s track', async (t) => {
  const khan = await players(t, { game: 'khan' });
  await setPremove(khan.black, ['a8', 'a7'], 'a8-a7');
  await playMove(khan.white, ['a3', 'a4']);
  assert.deepEqual(await eventually(() => moveList(khan.black), (l) => l.length === 2), ['a3-a4', 'a8-a7']);

  const tsin = await players(t, { game: 'khan-tsin' });
  // Green places ahead on the first square offered to White that White does not take.
  await waitForRoom(tsin.white, { toMove: '0' });
  const offered = await squaresWith(tsin.white, 'target');
  await clickSquare(tsin.black, offered[1]);
  await tsin.black.click('#board [data-place="p"]');
  await tsin.black.waitForSelector(`#board[data-premove="p${offered[1]}"]`);
  await clickSquare(tsin.white, offered[0]);
  const place = tsin.white.locator('#board [data-place="p"]');
  if (await place.count()) await place.click();
  assert.deepEqual(await eventually(() => moveList(tsin.black), (l) => l.length === 2),
    [`White pawn on ${offered[0]}`, `Green pawn on ${offered[1]}`]);
});

// Where the board draws two squares: [y of the first, y of the second].
const rowsOf = (page, a, b) => page.evaluate(([first, second]) => [first, second].map((square) => {
  const r = document.querySelector(`#board [data-square="${square}"]`).getBoundingClientRect();
  return r.top + r.height / 2;
}), [a, b]);

test('flip: the button and `f` turn the board and the bars round, remembered per room, for players and spectators', async (t) => {
  const { white, invite } = await players(t, { game: 'ouk-chatrang' });
  let [a1, a8] = await rowsOf(white, 'a1', 'a8');
  assert.ok(a1 > a8, 'White sees its first rank at the bottom');
  await white.keyboard.press('f');
  await white.waitForSelector('#board[data-flipped]');
  [a1, a8] = await rowsOf(white, 'a1', 'a8');
  assert.ok(a1 < a8, 'turned round, the first rank is at the top');
  assert.equal(await white.locator('#players li.near').getAttribute('data-seat'), '1', 'Black\'s bar is the near one');
  await white.reload();
  await white.waitForSelector('#board[data-flipped] [data-square]');
  [a1, a8] = await rowsOf(white, 'a1', 'a8');
  assert.ok(a1 < a8, 'still turned round after a reload');
  await white.click('#flip');
  await white.waitForSelector('#board:not([data-flipped])');
  assert.equal(await white.getAttribute('#flip', 'aria-pressed'), 'false');

  const spectator = await newPage(t, browser, { viewport: 'phone' });
  await openRoom(spectator, invite);
  await spectator.click('#flip');
  await spectator.waitForSelector('#board[data-flipped]');
  [a1, a8] = await rowsOf(spectator, 'a1', 'a8');
  assert.ok(a1 < a8);
  await spectator.reload();
  await spectator.waitForSelector('#board[data-flipped] [data-square]');
  assert.equal(await spectator.getAttribute('#flip', 'aria-pressed'), 'true');
  await screenshot(spectator, 'board-tools-flipped-phone');

  // Khan-Tsin's ring turns half round: square 0 comes to the bottom.
  const tsin = await newPage(t, browser);
  await createRoom(tsin, server, { game: 'khan-tsin', local: true });
  const zeroBelowCentre = () => tsin.evaluate(() => {
    const ring = document.querySelector('#board svg').getBoundingClientRect();
    const zero = document.querySelector('#board [data-square="0"] .kt-tile').getBoundingClientRect();
    return zero.top + zero.height / 2 > ring.top + ring.height / 2;
  });
  assert.equal(await zeroBelowCentre(), false);
  await tsin.keyboard.press('f');
  await tsin.waitForSelector('#board[data-flipped]');
  assert.equal(await zeroBelowCentre(), true);
});

// The colour a shape is filled or stroked with, as the page draws it.
const paint = (page, selector, property) => page.locator(selector).first().evaluate((el, p) => getComputedStyle(el)[p], property);

// WCAG's contrast ratio of two `rgb(r, g, b)` colours.
function contrast(one, two) {
  const luminance = (css) => {
    const [r, g, b] = css.match(/\d+(\.\d+)?/g).slice(0, 3).map(Number).map((c) => {
      const s = c / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [hi, lo] = [luminance(one), luminance(two)].sort((a, b) => b - a);
  return (hi + 0.05) / (lo + 0.05);
}

test('board themes: three colour schemes and a high-contrast one, remembered', async (t) => {
  const page = await newPage(t, browser);
  await createRoom(page, server, { game: 'khan', local: true });
  assert.deepEqual(await page.locator('#board-theme option').evaluateAll((os) => os.map((o) => o.value)),
    ['wood', 'green', 'blue', 'contrast']);
  const wood = await paint(page, '#board .sq-dark', 'fill');
  await page.selectOption('#board-theme', 'green');
  await page.waitForSelector('html[data-board-theme="green"]');
  assert.equal(await paint(page, '#board .sq-dark', 'fill'), 'rgb(118, 150, 86)');
  await page.selectOption('#board-theme', 'blue');
  assert.equal(await paint(page, '#board .sq-dark', 'fill'), 'rgb(140, 162, 173)');
  assert.notEqual(wood, 'rgb(140, 162, 173)');
  await page.reload();
  await page.waitForSelector('#board [data-square]');
  assert.equal(await page.inputValue('#board-theme'), 'blue');
  assert.equal(await paint(page, '#board .sq-dark', 'fill'), 'rgb(140, 162, 173)');

  // High contrast on Ouk Chatrang's one-coloured board: its lines against its squares, 7:1 at least.
  await createRoom(page, server, { game: 'ouk-chatrang', local: true });
  await page.selectOption('#board-theme', 'contrast');
  const ratio = contrast(await paint(page, '#board .sq-light', 'fill'), await paint(page, '#board .grid-line', 'stroke'));
  assert.ok(ratio >= 7, `contrast ${ratio.toFixed(1)}:1`);
  await startMove(page, 'e3');
  assert.equal(await paint(page, '#board .hl-selected', 'fill'), 'rgba(0, 120, 255, 0.6)');
  await screenshot(page, 'board-tools-contrast-desktop');
  assert.equal((await roomState(page)).status, 'playing');
});
