// The pages' words: every code and reason the server may send (docs/protocol.md) and every code
// the page's socket may surface has a text in English and in Korean, both languages have the same
// keys, every key the scripts and pages ask for literally exists; and a room that expired waiting
// for its players says so, not that the game was drawn.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, startServer } from './lib/server.mjs';
import { launchBrowser, newPage, screenshot } from './lib/browser.mjs';
import { createRoom, resultText, setLanguage, waitForRoom } from './lib/pages.mjs';

const web = join(repoRoot, 'web');
const protocol = readFileSync(join(repoRoot, 'docs', 'protocol.md'), 'utf8');

// The `snake_case` words in backticks of `text` between `from` and `to`.
function codes(from, to, text = protocol) {
  const start = text.indexOf(from);
  assert.notEqual(start, -1, `docs/protocol.md has ${JSON.stringify(from)}`);
  const end = text.indexOf(to, start + from.length);
  assert.notEqual(end, -1, `docs/protocol.md has ${JSON.stringify(to)} after ${JSON.stringify(from)}`);
  return [...text.slice(start + from.length, end).matchAll(/`([a-z_]+)`/g)].map((m) => m[1]);
}

const rejectCodes = codes('Reject codes (`reject.d.code`):', 'Hello error codes');
const helloCodes = codes('Hello error codes (`error.d.code`):', 'A reject of a frame');
const restCodes = codes('REST error codes:', '- Heartbeat (see');
// The game_over reasons' table, and `aborted` (a waiting room that expired).
const reasons = [
  ...codes('| game | reason words |', '```json server'),
  // (not the site channel's: its `challenge_gone` reasons say what became of a challenge)
  ...[...protocol.replace(/### Site channel[\s\S]*?(?=\n### )/, '').matchAll(/"reason": "([a-z_]+)"/g)].map((m) => m[1]),
];
// The codes the page's socket gives up with (and rejects unanswered commands with).
const gaveUp = [...readFileSync(join(web, 'js', 'socket.js'), 'utf8').matchAll(/\[\d+, '([a-z_]+)'\]/g)].map((m) => m[1]);

let en;
let ko;
let boards;

before(async () => {
  en = (await import(join(web, 'js', 'lang', 'en.js'))).default;
  ko = (await import(join(web, 'js', 'lang', 'ko.js'))).default;
  boards = [];
  for (const file of readdirSync(join(web, 'js', 'boards'))) {
    const module = await import(join(web, 'js', 'boards', file));
    if (module.strings) boards.push({ file, strings: module.strings });
  }
});

function missing(table, keys) {
  return keys.filter((key) => typeof table[key] !== 'string' || table[key] === '');
}

test('every code and reason the server or the socket may bring has English and Korean words', () => {
  assert.ok(rejectCodes.includes('stale_version') && rejectCodes.includes('unavailable'), rejectCodes.join());
  assert.ok(helloCodes.includes('bad_hello') && helloCodes.includes('room_crowded'), helloCodes.join());
  assert.ok(restCodes.includes('room_full'), restCodes.join());
  assert.ok(reasons.includes('checkmate') && reasons.includes('khan_tsin') && reasons.includes('aborted'), reasons.join());
  assert.ok(gaveUp.includes('bad_hello'), gaveUp.join());

  const wanted = [
    ...[...new Set([...rejectCodes, ...helloCodes, ...gaveUp])].map((code) => `reject.${code}`),
    ...restCodes.map((code) => `error.${code}`),
    ...reasons.map((reason) => `reason.${reason}`),
    ...gaveUp.map((code) => `connection.gave_up.${code}`),
    'connection.gave_up.other',
    'room.aborted',
    'room.aborted_game',
  ];
  assert.deepEqual(missing(en, wanted), [], 'English');
  assert.deepEqual(missing(ko, wanted), [], 'Korean');
});

test('English and Korean have the same keys, the pages\' and each board\'s', () => {
  assert.deepEqual(Object.keys(ko).sort(), Object.keys(en).sort());
  for (const { file, strings } of boards) {
    assert.deepEqual(Object.keys(strings.ko).sort(), Object.keys(strings.en).sort(), file);
  }
});

test('every key the scripts and pages name literally exists', () => {
  const known = new Set(Object.keys(en));
  for (const { strings } of boards) for (const key of Object.keys(strings.en)) known.add(key);
  const used = new Map();
  const scripts = readdirSync(join(web, 'js'), { recursive: true })
    .filter((f) => f.endsWith('.js') && !f.startsWith('lang'))
    .map((f) => join(web, 'js', f));
  for (const file of scripts) {
    for (const m of readFileSync(file, 'utf8').matchAll(/\bt\('([\w.-]+)'/g)) used.set(m[1], file);
  }
  for (const file of readdirSync(web).filter((f) => f.endsWith('.html'))) {
    for (const m of readFileSync(join(web, file), 'utf8').matchAll(/data-i18n(?:-[\w-]+)?="([\w.-]+)"/g)) {
      used.set(m[1], file);
    }
  }
  assert.ok(used.has('room.resign_confirm') && used.has('khan-tsin.board'));
  const unknown = [...used].filter(([key]) => !known.has(key)).map(([key, file]) => `${key} (${file})`);
  assert.deepEqual(unknown, []);
});

let server;
let browser;

test('a room that expired waiting for its players says so, in either language, and no draw', async (t) => {
  server = await startServer('texts', { env: { KHANATE_WAITING_ROOM_TTL_S: '2' } });
  browser = await launchBrowser();
  const page = await newPage(t, browser);
  await createRoom(page, server, { game: 'ouk-chatrang', name: 'Dara' });
  // Nobody joins: two seconds on, the room ends as `aborted`.
  await waitForRoom(page, { status: 'finished' });
  const english = await resultText(page);
  assert.match(english, /room closed before the game began/i);
  assert.doesNotMatch(english, /draw/i);
  await setLanguage(page, 'ko');
  const korean = await resultText(page);
  assert.match(korean, /[\uac00-\ud7a3]/);
  assert.doesNotMatch(korean, /무승부/);
  await screenshot(page, 'room-expired-ko');
});

after(async () => {
  await browser?.close();
  await server?.stop();
});
