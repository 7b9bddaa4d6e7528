// The room page's move list (`#moves`, docs/web-client.md "The room page DOM"): one `li` per
// ply, in two columns for two players (a row per move number, games.js `pairs`) or one a line,
// where a game whose moves are said in words (games.js `movesInWords`, Khan-Tsin) shows the
// colour that played each. Rebuilt only when the moves or the language changed.
//
//   renderMoves(state, boardModule)   // state: state.js's (each ply's mover from `moved` and the snapshot's `history`)

import { t, colorName } from '../../i18n.js';
import { gameInfo } from '../../games.js';

/** @typedef {import('../state.js').RoomState} RoomState */
/** @typedef {import('../../boards/board.js').BoardModule} BoardModule */
/** @typedef {import('../../protocol.js').Color} Color */

/**
 * The seat that played the first move of a two-player game: its position text's second field
 * is the side to move (`w` or `b`).
 * @param {RoomState} state
 */
function firstMover(state) {
  return state.startPosition?.split(' ')[1] === 'b' ? 1 : 0;
}

/**
 * A move as the move list shows it: the server's `display`, or in a game whose display is
 * English words the board module's words for it in the page's language, with the colour that
 * played it (`color`, null when unknown). `state` needs only `game` and `moves` (the canonical
 * moves by ply): the finished-game page passes its record.
 * @param {{ game: string | null, moves: string[] }} state
 * @param {string} display
 * @param {number} ply  0-based
 * @param {Color | null} color
 * @param {BoardModule | null} boardModule
 */
export function moveText(state, display, ply, color, boardModule) {
  if (!gameInfo(state.game)?.movesInWords || !boardModule?.moveWords) return display;
  return boardModule.moveWords(t, state.moves[ply] ?? display, display, color ? colorName(state.game, color) : null);
}

/**
 * @param {RoomState} state
 * @param {BoardModule | null} boardModule
 */
export function renderMoves(state, boardModule) {
  const list = /** @type {HTMLElement} */ (document.querySelector('#moves'));
  const info = gameInfo(state.game);
  const pairs = info?.pairs ?? false;
  list.classList.toggle('pairs', pairs);
  const lang = document.documentElement.lang;
  if (list.children.length === state.displayMoves.length && list.dataset.room === state.id
    && list.dataset.lang === lang && list.dataset.words === String(Boolean(boardModule))) return;
  list.dataset.room = state.id ?? '';
  list.dataset.lang = lang;
  list.dataset.words = String(Boolean(boardModule));
  const colors = info?.movesInWords ? state.movers.map((seat) => (seat === null ? null : state.seats[seat]?.color ?? null)) : [];
  list.replaceChildren(
    ...state.displayMoves.map((display, ply) => {
      const li = document.createElement('li');
      const color = colors[ply] ?? null;
      if (color) {
        const swatch = document.createElement('span');
        swatch.className = `swatch ${color}`;
        swatch.setAttribute('aria-hidden', 'true');
        li.append(swatch);
        li.dataset.color = color;
      }
      li.append(moveText(state, display, ply, color, boardModule));
      li.dataset.move = state.moves[ply] ?? '';
      li.dataset.ply = String(ply + 1);
      if (pairs) li.dataset.seat = String(state.movers[ply] ?? (ply + firstMover(state)) % 2);
      return li;
    }),
  );
  // The list scrolls inside its own box; the page itself never moves (scrollIntoView would scroll
  // every scrollable ancestor, the window too, taking the board off a phone's screen).
  list.scrollTop = list.scrollHeight;
}
