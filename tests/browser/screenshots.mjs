// Makes the screenshots in docs/screenshots/: each game on a phone and a desktop, in English and
// Korean, played a little on the real server in headless Chromium. Run by scripts/screenshots
// (after `cargo build`): `node screenshots.mjs [OUT_DIR]` here, OUT_DIR by default
// <repo>/docs/screenshots. Files: <game>-<phone|desktop>-<en|ko>.png, and <game>.png (the desktop
// in English, which the README shows).

import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { launchBrowser, viewports } from './lib/browser.mjs';
import { clickSquare, createRoom, joinRoom, playMove, startMove, waitForRoom, waitForVersion } from './lib/pages.mjs';
import { repoRoot, startServer } from './lib/server.mjs';

const out = process.argv[2] || join(repoRoot, 'docs', 'screenshots');
mkdirSync(out, { recursive: true });

// Khan near its end (tests/browser/khan.test.mjs): Black's Khan h8 is in the middle of a jump
// chain when the picture is taken.
const KHAN_START = '9k/10/6Sk2/4K5/4s5/10/3S6/10/1S6S1/K9 w';

// Each scene: plays a game with the pictured page `me` (its viewport and language) and an
// opponent's page; resolves once `me` shows what the picture is of.
const scenes = {
  async 'ouk-chatrang'(me, others, server) {
    const invite = await createRoom(me, server, { game: 'ouk-chatrang', seat: 'white', name: 'Dara', clock: '600+5' });
    await joinRoom(others[0], invite, { name: 'Sok' });
    await waitForRoom(me, { status: 'playing' });
    const moves = [[me, ['e3', 'e4']], [others[0], ['d6', 'd5']], [me, ['e4', 'd5']], [others[0], ['g8', 'e7']], [me, ['g1', 'e2']]];
    for (const [page, squares] of moves) {
      const v = await playMove(page, squares);
      await waitForVersion(me, v);
    }
  },
  async khan(me, others, server) {
    const invite = await createRoom(others[0], server, { game: 'khan', seat: 'white', name: 'Dara', startPosition: KHAN_START });
    await joinRoom(me, invite, { name: 'Sok' });
    await waitForRoom(me, { status: 'playing' });
    const v = await playMove(others[0], ['i2', 'i3']);
    await waitForVersion(me, v);
    await waitForRoom(me, { toMove: '1' });
    await startMove(me, 'h8');
    await clickSquare(me, 'f8');
  },
  async 'khan-tsin'(me, others, server) {
    const invite = await createRoom(me, server, { game: 'khan-tsin', players: 3, seat: 'white', name: 'Dara' });
    await joinRoom(others[0], invite, { name: 'Sok' });
    await joinRoom(others[1], invite, { name: 'Chan' });
    await waitForRoom(me, { status: 'playing' });
    // Four placements, each on the first square the board offers (its legal placements).
    const pages = [me, ...others];
    for (let turn = 0; turn < 4; turn += 1) {
      // The page on move: the one whose own seat (drawn nearest) is the seat on move.
      const toMove = await me.getAttribute('#room', 'data-to-move');
      let page = null;
      for (const p of pages) if (await p.getAttribute('#players li.near', 'data-seat') === toMove) page = p;
      const before = Number(await page.getAttribute('#room', 'data-version'));
      const square = await page.locator('#board [data-square].target').first().getAttribute('data-square');
      await startMove(page, square);
      if (await page.locator('#board [data-place="p"]').count()) await page.click('#board [data-place="p"]');
      await waitForVersion(me, before + 1);
    }
  },
};

const server = await startServer('screenshots');
const browser = await launchBrowser();
try {
  for (const [game, scene] of Object.entries(scenes)) {
    for (const viewport of ['phone', 'desktop']) {
      for (const lang of ['en', 'ko']) {
        const contexts = [];
        const open = async (view, locale) => {
          const context = await browser.newContext({ ...viewports[view], locale });
          context.setDefaultTimeout(15_000);
          contexts.push(context);
          return context.newPage();
        };
        const me = await open(viewport, lang === 'ko' ? 'ko-KR' : 'en-US');
        const others = [await open('desktop', 'en-US'), await open('desktop', 'en-US')];
        await scene(me, others, server);
        // Let the clocks and the last redraw settle into the picture.
        await me.waitForTimeout(300);
        const file = join(out, `${game}-${viewport}-${lang}.png`);
        await me.screenshot({ path: file });
        if (viewport === 'desktop' && lang === 'en') copyFileSync(file, join(out, `${game}.png`));
        console.log(file);
        for (const context of contexts) await context.close();
      }
    }
  }
} finally {
  await browser.close();
  await server.stop();
}
