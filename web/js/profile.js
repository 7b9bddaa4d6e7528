// A player's page, /@/{username} (docs/protocol.md, "Players"): the name as registered, since
// when, the results per game (GET api/users/{name}), and the finished games newest first, 50 a
// page with "Older games" (`before`), filtered by game and by opponent (`?game=&vs=` in the
// page's own address too, so a filtered list can be linked). With an opponent chosen the page
// also shows head to head (GET api/users/{name}/vs/{other}). Each opponent links to their own
// page; a deleted account shows as a deleted player, unlinked. What the server answers is what
// the viewer may see (a private game only to its own players), so this page counts nothing itself.
// Between the results and the games, the player's ratings by game and speed (each with its
// games, "?" while provisional) and their history as a plot (GET api/users/{name}/rating-history).

import { ApiError, gameUrl, headToHead, noticeWithHomeLink, ratingHistory, userGames, userProfile } from './api.js';
import { madeChallenge, openSiteChannel } from './site.js';
import { GAMES } from './games.js';
import { colorName, errorText, language, onLanguageChange, setUpLanguage, t } from './i18n.js';
import { against, profileUrl, withPlayer } from './who.js';
import { showAccount } from './header.js';
import { $, $button, $input, $select } from './dom.js';
import { renderRatings } from './ratings.js';

/** @typedef {import('./api.js').Profile} Profile */
/** @typedef {import('./api.js').PlayedGame} PlayedGame */

const name = decodeURIComponent(location.pathname.split('/').filter(Boolean).at(-1) ?? '');

/** @type {Profile | null} */
let profile = null;
/** @type {import('./protocol.js').RatingHistory} */
let ratingPoints = {};
/** @type {PlayedGame[]} */
let games = [];
/** @type {string | null} */
let next = null;
/** @type {{ user: string, opponent: string, games: number, wins: number, draws: number, losses: number } | null} */
let versus = null;
// Counts the loads, so that the answer of one the filters have since replaced is dropped.
let loads = 0;

/** The filters the page's address names. */
function filters() {
  const query = new URLSearchParams(location.search);
  return { game: query.get('game') ?? '', vs: query.get('vs') ?? '' };
}

/** @param {string} iso */
function day(iso) {
  return new Date(iso).toLocaleDateString(language(), { year: 'numeric', month: 'short', day: 'numeric' });
}

/** @param {PlayedGame['clock']} clock */
function timeControl(clock) {
  if (!clock) return t('profile.untimed');
  if (clock.days_per_move) return t('game_page.time_control_days', { days: clock.days_per_move });
  return t('game_page.time_control', { minutes: (clock.initial_s ?? 0) / 60, increment: clock.increment_s ?? 0 });
}

/** @param {PlayedGame} game */
function entry(game) {
  const li = document.createElement('li');
  li.dataset.room = game.room_id;
  li.dataset.outcome = game.outcome;
  li.dataset.game = game.game;
  const head = document.createElement('div');
  head.className = 'game-line';
  const link = document.createElement('a');
  link.className = 'game-link';
  link.href = gameUrl(game.room_id);
  link.textContent = t(`game.${game.game}`);
  const outcome = document.createElement('span');
  outcome.className = `outcome ${game.outcome}`;
  outcome.textContent = t('profile.result', { outcome: t(`profile.outcome.${game.outcome}`), reason: t(`reason.${game.result.reason}`) });
  head.append(link, ' ', outcome);
  const opponents = document.createElement('div');
  opponents.className = 'opponents';
  opponents.append(...against(game.players.filter((p) => p.seat !== game.seat), t('home.my_anonymous')));
  const meta = document.createElement('div');
  meta.className = 'hint game-meta';
  meta.textContent = `${timeControl(game.clock)} · ${day(game.finished_at)}`;
  li.append(head, opponents, meta);
  return li;
}

function renderProfile() {
  if (!profile) return;
  document.title = `${profile.deleted ? t('player.deleted') : profile.name} · ${t('app.name')}`;
  $('#player-name').textContent = profile.deleted ? t('player.deleted') : profile.name;
  $('#member-since').textContent = t('profile.member_since', { date: day(profile.member_since) });
  $('#member-since').hidden = profile.deleted;
  $('#deleted-note').hidden = !profile.deleted;
  // A deleted account's page says no more than that: its games are its opponents' to show.
  $('#tallies-box').hidden = profile.deleted;
  $('#games-card').hidden = profile.deleted;
  $('#no-games').hidden = profile.games.length > 0;
  $('#tallies').hidden = profile.games.length === 0;
  $('#tallies tbody').replaceChildren(...profile.games.map((tally) => {
    const row = document.createElement('tr');
    row.dataset.game = tally.game;
    const cells = [t(`game.${tally.game}`), tally.played, tally.wins, tally.draws, tally.losses];
    row.append(...cells.map((value, i) => {
      const cell = document.createElement(i === 0 ? 'th' : 'td');
      if (i === 0) cell.setAttribute('scope', 'row');
      cell.textContent = String(value);
      return cell;
    }));
    return row;
  }));
  const select = $select('#filter-game');
  const chosen = filters().game;
  select.replaceChildren(new Option(t('profile.all_games'), ''), ...GAMES.map((info) => new Option(t(`game.${info.id}`), info.id)));
  select.value = chosen;
  renderRatingSection();
}

// A deleted account's page shows no ratings, as it shows no results.
function renderRatingSection() {
  if (!profile) return;
  const ratings = profile.ratings ?? {};
  const any = Object.keys(ratings).length > 0;
  $('#ratings').hidden = profile.deleted;
  $('#no-ratings').hidden = any;
  renderRatings($('#rating-games'), ratings, ratingPoints);
}

function renderGames() {
  $('#games').replaceChildren(...games.map(entry));
  $('#games-empty').hidden = games.length > 0;
  $button('#older').hidden = next === null;
  const box = $('#h2h');
  box.hidden = versus === null;
  if (versus) {
    const counts = document.createElement('span');
    counts.className = 'h2h-counts';
    counts.textContent = t(versus.games === 1 ? 'profile.h2h_counts_one' : 'profile.h2h_counts', { games: versus.games, wins: versus.wins, draws: versus.draws, losses: versus.losses });
    counts.dataset.games = String(versus.games);
    counts.dataset.wins = String(versus.wins);
    counts.dataset.draws = String(versus.draws);
    counts.dataset.losses = String(versus.losses);
    const opponent = games.flatMap((g) => g.players).find((p) => p.user?.toLowerCase() === versus?.opponent.toLowerCase());
    box.replaceChildren(...withPlayer('profile.h2h', {}, opponent ?? { user: versus.opponent }), ' ', counts);
  }
  $button('#filter-clear').hidden = !filters().game && !filters().vs;
}

/**
 * Loads the first page for the address's filters (or, with `before`, the next page).
 * @param {string | null} [before]
 */
async function loadGames(before = null) {
  const { game, vs } = filters();
  const load = ++loads;
  $('#games-error').textContent = '';
  try {
    const [page, h2h] = await Promise.all([
      userGames(name, { game, vs, before: before ?? '' }),
      vs && !before ? headToHead(name, vs) : Promise.resolve(versus),
    ]);
    if (load !== loads) return;
    games = before ? [...games, ...page.games] : page.games;
    next = page.next;
    versus = vs ? h2h : null;
  } catch (problem) {
    if (load !== loads) return;
    const error = /** @type {import('./api.js').ApiError} */ (problem);
    if (!before) {
      games = [];
      next = null;
      versus = null;
    }
    $('#games-error').textContent = error.status === 404 && vs ? t('profile.no_such_opponent', { name: vs }) : errorText(error);
  }
  renderGames();
  $('#profile').dataset.ready = 'true';
}

/** @param {{ game: string, vs: string }} wanted */
function filterBy({ game, vs }) {
  const query = new URLSearchParams();
  if (game) query.set('game', game);
  if (vs) query.set('vs', vs);
  const search = query.toString();
  history.replaceState(null, '', `${profileUrl(name)}${search ? `?${search}` : ''}`);
  $('#profile').dataset.ready = 'false';
  loadGames();
}

// "Challenge {name}": a logged-in visitor offers this player a two-player game (game, clock,
// rated or casual, colour); the player sees it on their pages at once (the site channel), and
// once they accept, this page opens the room (game_start on this page's own site channel).
function challengeColors() {
  const game = $select('#challenge-game').value;
  const select = $select('#challenge-color');
  const colors = GAMES.find((info) => info.id === game)?.palette.slice(0, 2) ?? [];
  select.replaceChildren(new Option(t('challenge.random'), 'random'), ...colors.map((color) => new Option(colorName(game, color), color)));
}

function setUpChallenge() {
  $('#challenge-card').hidden = false;
  $('#challenge').textContent = t('challenge.button', { name: profile?.name ?? name });
  const games = $select('#challenge-game');
  games.replaceChildren(...GAMES.map((info) => new Option(t(`game.${info.id}`), info.id)));
  challengeColors();
  games.addEventListener('change', challengeColors);
  $('#challenge-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    $('#challenge-error').textContent = '';
    const choice = $select('#challenge-clock').value;
    const [initial, increment] = choice.split('+').map(Number);
    const clock = choice.startsWith('days:') ? { days_per_move: Number(choice.slice(5)) } : { initial_s: initial, increment_s: increment };
    const body = {
      to: profile?.name ?? name,
      game: games.value,
      clock,
      rated: $input('#challenge-rated').checked,
      color: $select('#challenge-color').value,
    };
    const response = await fetch('api/challenges', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).catch(() => null);
    const data = await response?.json().catch(() => null);
    if (!response?.ok) {
      $('#challenge-error').textContent = errorText(new ApiError(response?.status ?? 0, data?.error?.code ?? 'network', data?.error?.message ?? ''));
      return;
    }
    madeChallenge(data.id);
    $('#challenge-sent').textContent = t('challenge.sent', { name: body.to });
  });
}

/** @param {string} text */
function showNotice(text) {
  noticeWithHomeLink(text, t('room.go_home'));
  $('#profile').dataset.ready = 'true';
}

async function start() {
  setUpLanguage();
  try {
    profile = await userProfile(name);
  } catch (problem) {
    const status = /** @type {import('./api.js').ApiError} */ (problem).status;
    showNotice(t(status === 404 ? 'profile.not_found' : 'profile.unavailable'));
    return;
  }
  $('#player').hidden = false;
  $input('#filter-vs').value = filters().vs;
  renderProfile();
  const me = await showAccount();
  if (me) openSiteChannel();
  if (me && !profile.deleted && me.name.toLowerCase() !== profile.name.toLowerCase()) setUpChallenge();
  if (profile.deleted) {
    $('#profile').dataset.ready = 'true';
    return;
  }
  if (Object.keys(profile.ratings ?? {}).length > 0) {
    // The ratings stand without their plot when the history cannot be had.
    ratingPoints = await ratingHistory(name).catch(() => ({}));
    renderRatingSection();
  }
  $('#filters').addEventListener('submit', (event) => {
    event.preventDefault();
    filterBy({ game: $select('#filter-game').value, vs: $input('#filter-vs').value.trim() });
  });
  $select('#filter-game').addEventListener('change', () => filterBy({ game: $select('#filter-game').value, vs: filters().vs }));
  $button('#filter-clear').addEventListener('click', () => {
    $input('#filter-vs').value = '';
    filterBy({ game: '', vs: '' });
  });
  $button('#older').addEventListener('click', () => {
    if (next) loadGames(next);
  });
  onLanguageChange(() => {
    renderProfile();
    renderGames();
  });
  await loadGames();
}

start();
