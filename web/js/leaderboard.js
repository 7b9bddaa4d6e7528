// A game's leaderboards, /leaderboard/{game} (game: a game's id, or khan-tsin-3 for three-player
// Khan-Tsin): one table a speed of the top players, from GET api/leaderboard/{game}
// (docs/protocol.md "Leaderboards"), each name linked to its profile.

import { leaderboard } from './api.js';
import { GAMES } from './games.js';
import { t, setUpLanguage, onLanguageChange } from './i18n.js';
import { $ } from './dom.js';
import { showAccount } from './header.js';
import { SPEEDS, gameKeyName } from './ratings.js';

/** @typedef {import('./protocol.js').Leaderboard} Leaderboard */

const game = decodeURIComponent(location.pathname.split('/').filter(Boolean).at(-1) ?? '');

/** Every game key that has leaderboards: each game, and three-player Khan-Tsin. */
function gameKeys() {
  return GAMES.flatMap((info) => (info.players.includes(3) ? [info.id, `${info.id}-3`] : [info.id]));
}

/**
 * One speed's table, or a line saying nobody is on it yet.
 * @param {string} speed
 * @param {import('./protocol.js').Leader[]} leaders
 */
function board(speed, leaders) {
  const section = document.createElement('section');
  section.className = 'card leaderboard';
  section.dataset.speed = speed;
  const title = document.createElement('h2');
  title.textContent = t(`speed.${speed}`);
  section.append(title);
  if (leaders.length === 0) {
    const empty = document.createElement('p');
    empty.className = 'hint';
    empty.textContent = t('leaderboard.empty');
    section.append(empty);
    return section;
  }
  const table = document.createElement('table');
  const head = table.createTHead().insertRow();
  for (const key of ['rank', 'player', 'rating', 'games']) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = t(`leaderboard.${key}`);
    head.append(th);
  }
  const body = table.createTBody();
  for (const leader of leaders) {
    const row = body.insertRow();
    const name = document.createElement('a');
    name.href = `@/${encodeURIComponent(leader.name)}`;
    name.textContent = leader.name;
    row.insertCell().textContent = String(leader.rank);
    row.insertCell().append(name);
    row.insertCell().textContent = String(leader.rating);
    row.insertCell().textContent = String(leader.games);
  }
  section.append(table);
  return section;
}

/** @param {Leaderboard | null} answer */
function render(answer) {
  $('#title').textContent = t('leaderboard.title', { game: gameKeyName(game) });
  document.title = `${t('leaderboard.title', { game: gameKeyName(game) })} · ${t('app.name')}`;
  $('#other-games').replaceChildren(...gameKeys().filter((key) => key !== game).map((key) => {
    const link = document.createElement('a');
    link.href = `leaderboard/${encodeURIComponent(key)}`;
    link.textContent = gameKeyName(key);
    return link;
  }));
  if (!answer) return;
  $('#boards').replaceChildren(...SPEEDS.map((speed) => board(speed, answer.speeds[speed] ?? [])));
}

async function start() {
  setUpLanguage();
  showAccount();
  /** @type {Leaderboard | null} */
  let answer = null;
  try {
    answer = await leaderboard(game);
  } catch (problem) {
    const { code } = /** @type {import('./api.js').ApiError} */ (problem);
    const notice = $('#notice');
    notice.hidden = false;
    notice.textContent = t(code === 'unknown_game' ? 'leaderboard.not_found' : 'leaderboard.unavailable');
  }
  render(answer);
  onLanguageChange(() => render(answer));
  $('#leaderboard').dataset.ready = 'true';
}

start();
