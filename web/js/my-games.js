// The home page's "My games" (#my-games-card): the games of the seats this browser holds
// (seats.js), from POST api/my-games: those in progress, "your turn" first, each linking to its
// room (a correspondence game with the time left for the seat on move), and the recently
// finished ones, each linking to its page /g/{room_id}. A logged-in player's games come from the
// account as well (the server adds them, by the session cookie): the same list. Hidden while the
// browser holds no seat and the answer has no game.

import { gameUrl, myGames, roomUrl } from './api.js';
import { t, errorText, onLanguageChange } from './i18n.js';
import { everyHeldSeat } from './seats.js';
import { timeLeftText } from './room/view/clock.js';
import { $ } from './dom.js';
import { against } from './who.js';

/** @typedef {import('./protocol.js').MyGame} MyGame */

/** @type {{ in_progress: MyGame[], finished: MyGame[] }} */
let games = { in_progress: [], finished: [] };


/** @param {MyGame} game */
function state(game) {
  if (game.status === 'waiting') return t('home.my_waiting');
  if (game.status === 'finished') {
    const winner = game.result?.winner ?? null;
    if (winner === null) return t('home.my_draw');
    return t(winner === game.seat ? 'home.my_won' : 'home.my_lost');
  }
  const turn = t(game.your_turn ? 'home.my_your_turn' : 'home.my_their_turn');
  if (!game.deadline) return turn;
  const left = Math.max(0, Date.parse(game.deadline) - Date.now());
  return `${turn} · ${t('home.my_time_left', { time: timeLeftText(left) })}`;
}

/** @param {MyGame} game */
function entry(game) {
  const li = document.createElement('li');
  li.dataset.room = game.room_id;
  if (game.your_turn) li.classList.add('your-turn');
  const link = document.createElement('a');
  link.href = game.status === 'finished' ? gameUrl(game.room_id) : roomUrl(game.invite_code);
  link.textContent = t(`game.${game.game}`);
  li.append(link);
  const others = game.players.filter((p) => p.seat !== game.seat);
  // The game links to its room or page, each opponent's name to its own page.
  if (others.length > 0) li.append(': ', ...against(others, t('home.my_anonymous')));
  const note = document.createElement('span');
  note.className = 'hint my-game-state';
  note.textContent = ` ${state(game)}`;
  li.append(note);
  return li;
}

function render() {
  $('#my-games-on').replaceChildren(...games.in_progress.map(entry));
  $('#my-games-done').replaceChildren(...games.finished.map(entry));
  $('#my-games-on-empty').hidden = games.in_progress.length > 0;
  $('#my-games-done-title').hidden = games.finished.length === 0;
}

export async function refreshMyGames() {
  const seats = everyHeldSeat();
  $('#my-games-error').textContent = '';
  try {
    // The newest seats are the last kept; the server takes at most 100.
    games = await myGames(seats.slice(-100));
  } catch (problem) {
    $('#my-games-card').hidden = seats.length === 0;
    $('#my-games-error').textContent = errorText(/** @type {import('./api.js').ApiError} */ (problem));
    return;
  }
  $('#my-games-card').hidden = seats.length === 0 && games.in_progress.length + games.finished.length === 0;
  render();
}

onLanguageChange(render);
