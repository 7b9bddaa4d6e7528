// Headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core) for the browser tests.
//
//   const browser = await launchBrowser();             // once per test file, in `before`
//   const page = await newPage(t, browser, { viewport: 'phone', locale: 'ko-KR' });
//       // a page in a context of its own (its own localStorage, so its own seat tokens);
//       // viewport 'desktop' (1366x900, the default) or 'phone' (390x844, touch), locale
//       // 'en-US' by default (the pages take their language from the browser). When test `t`
//       // ends the test fails if the page logged a console error or threw (see allowErrors), a
//       // screenshot of each of its pages goes to <artifacts>/end/<test>-<n>.png and the
//       // context is closed.
//       // Dialogs (confirm() before resigning, say) are accepted.
//   const other = await newTab(page);                  // another page in the same context
//   allowErrors(page, /ERR_CONNECTION_REFUSED/);        // console errors this page may log
//   await screenshot(page, 'khan-desktop');            // <artifacts>/khan-desktop.png
//   await browser.close();                             // in `after`
//
// <artifacts> is env KHANATE_ARTIFACTS, by default <repo>/target/browser-artifacts.
// Chromium: env KHANATE_CHROMIUM, by default /usr/bin/chromium.

import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { artifactsDir } from './server.mjs';

const executablePath = process.env.KHANATE_CHROMIUM || '/usr/bin/chromium';

export const viewports = {
  desktop: { viewport: { width: 1366, height: 900 } },
  phone: { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
};

// How long a step waits for the page before the test fails: long enough for a loaded machine,
// short enough that a broken page fails the test quickly.
const STEP_TIMEOUT_MS = 15_000;

export async function launchBrowser() {
  if (!existsSync(executablePath)) {
    throw new Error(
      `Chromium is not installed at ${executablePath}: the browser tests need it ` +
        '(Debian/Ubuntu: apt-get install chromium), or set KHANATE_CHROMIUM to a Chromium binary',
    );
  }
  return chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

export async function newPage(t, browser, { viewport = 'desktop', locale = 'en-US' } = {}) {
  if (!viewports[viewport]) throw new Error(`unknown viewport ${viewport}`);
  const context = await browser.newContext({ ...viewports[viewport], locale });
  context.setDefaultTimeout(STEP_TIMEOUT_MS);
  const pages = [];
  context.on('page', (page) => pages.push(watch(page)));
  t.after(async () => {
    const failures = [];
    for (const { page, errors, allowed } of pages) {
      // A picture of how every page ended, to look at when a test fails.
      const shot = (endShots.get(t) ?? 0) + 1;
      endShots.set(t, shot);
      if (!page.isClosed()) await screenshot(page, join('end', `${slug(t.name)}-${shot}`)).catch(() => {});
      const unexpected = errors.filter((error) => !allowed.some((pattern) => pattern.test(error)));
      if (unexpected.length > 0) failures.push(`page ${page.url()} logged errors:\n${unexpected.join('\n')}`);
    }
    await context.close();
    if (failures.length > 0) {
      const error = new Error(failures.join('\n'));
      error.stack = `Error: ${error.message}`; // where this hook threw says nothing about the page
      throw error;
    }
  });
  return context.newPage();
}

// Another page in the context of `page` (same localStorage): a second tab of the same browser.
export function newTab(page) {
  return page.context().newPage();
}

const watched = new WeakMap();
// How many end-of-test screenshots each test took, to number them.
const endShots = new WeakMap();

// Collects the page's console errors and uncaught exceptions, for the check at the test's end.
function watch(page) {
  const state = { page, errors: [], allowed: [] };
  watched.set(page, state);
  page.on('console', (message) => {
    if (message.type() === 'error') {
      const { url } = message.location();
      state.errors.push(`console error: ${message.text()}${url ? ` (${url})` : ''}`);
    }
  });
  page.on('pageerror', (error) => state.errors.push(`uncaught: ${error.stack || error.message}`));
  page.on('dialog', (dialog) => dialog.accept());
  return state;
}

// Console errors matching `pattern` do not fail the test (e.g. the browser's own "WebSocket
// connection failed" lines while the server is down).
export function allowErrors(page, pattern) {
  watched.get(page).allowed.push(pattern);
}

export async function screenshot(page, name) {
  const path = join(artifactsDir, `${name}.png`);
  mkdirSync(join(path, '..'), { recursive: true });
  await page.screenshot({ path });
  return path;
}

function slug(text) {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}
