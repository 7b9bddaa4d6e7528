// The home page's recently finished public games (GET api/games), each linking to its page
// /g/{room_id}; and the words of a lobby room's creator and clock. Kept apart from home.js, which
// owns the form and the lobby.

import { gameUrl, recentGames } from './api.js';
import { t, colorName, errorText, onLanguageChange } from './i18n.js';

import { $ } from './dom.js';
import { playerName, withPlayer } from './who.js';

/** @typedef {import('./protocol.js').GameSummary} GameSummary */

/**
 * "White (Dara) – Black (Sok)" for a finished game's players, each account's name linked to its
 * page (who.js).
 * @param {GameSummary} game
 * @returns {Node[]}
 */
function playersNodes(game) {
  return game.players.flatMap((p, i) => {
    const color = colorName(game.game, p.color);
    const named = playerName(p) ? withPlayer('room.player_named', { color }, p) : [document.createTextNode(color)];
    return [...(i > 0 ? [document.createTextNode(' – ')] : []), ...named];
  });
}

/** @param {GameSummary} game */
function resultText(game) {
  const { winner, reason } = game.result;
  const why = t(`reason.${reason}`);
  if (winner === null) return t('room.draw', { reason: why });
  const player = game.players.find((p) => p.seat === winner);
  const color = player ? colorName(game.game, player.color) : '';
  const name = player ? playerName(player) : '';
  return t('room.winner', { player: name ? t('room.player_named', { color, name }) : color, reason: why });
}

/** @param {GameSummary} game */
function entry(game) {
  const li = document.createElement('li');
  li.dataset.room = game.room_id;
  const link = document.createElement('a');
  link.className = 'game-link';
  link.href = gameUrl(game.room_id);
  link.textContent = t(`game.${game.game}`);
  const result = document.createElement('span');
  result.className = 'hint';
  result.textContent = ` ${resultText(game)} ${t('home.recent_moves', { count: game.moves })}`;
  li.append(link, ': ', ...playersNodes(game), result);
  return li;
}

/** @type {GameSummary[]} */
let games = [];

function render() {
  $('#recent-games').replaceChildren(...games.map(entry));
  $('#recent-empty').hidden = games.length > 0;
}

export async function refreshRecent() {
  $('#recent-error').textContent = '';
  try {
    games = await recentGames(10);
  } catch (problem) {
    $('#recent-error').textContent = errorText(/** @type {import('./api.js').ApiError} */ (problem));
    return;
  }
  render();
}

/**
 * A lobby room's creator and clock, e.g. "by Dara · 5 min + 3 s".
 * @param {import('./protocol.js').LobbyRoom} room
 */
export function lobbyMeta(room) {
  const parts = [];
  if (room.creator_name) parts.push(t('home.lobby_by', { name: room.creator_name }));
  parts.push(!room.clock ? t('home.lobby_untimed')
    : room.clock.days_per_move ? t('home.lobby_days', { days: room.clock.days_per_move })
    : t('home.lobby_clock', { minutes: (room.clock.initial_s ?? 0) / 60, increment: room.clock.increment_s ?? 0 }));
  const meta = document.createElement('span');
  meta.className = 'hint lobby-meta';
  meta.textContent = parts.join(' · ');
  return meta;
}

onLanguageChange(render);
