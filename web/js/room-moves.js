// The room page's move list (`#moves`, docs/web-client.md "The room page DOM"): one `li` per
// ply, in two columns for two players (a row per move number) or one a line in Khan-Tsin, whose
// moves it says in words with the colour that played them. Rebuilt only when the moves or the
// language changed.
//
//   renderMoves(state)   // state: room-state.js's (each ply's mover from `moved` and the snapshot's `history`)

import { t, colorName } from './i18n.js';
import { gameInfo } from './games.js';

// The seat that played the first move of a square-board game: its position text's second field
// is the side to move (`w` or `b`).
function firstMover(state) {
  return state.startPosition?.split(' ')[1] === 'b' ? 1 : 0;
}

// A move as the move list shows it. The other games' displays are notation. The server's
// `display` is English in Khan-Tsin (`p1`, `K10`, `17:2- to 10`, `pass`): there the list says it in
// words in the page's language with the colour that played it (`color`, or null when unknown):
// "White pawn on 1", "Green Khan-pawn on 10", "Blue moves 2 from square 17 anticlockwise to 10",
// "White passes". `state` needs only `game` and `moves` (the canonical moves by ply): the
// finished-game page passes its record.
export function moveText(state, display, ply, color) {
  if (state.game !== 'khan-tsin') return display;
  const name = color ? colorName(state.game, color) : '';
  const key = (base) => (color ? `room.kt.${base}` : `room.kt.${base}_nocolor`);
  if (display === 'pass') return t(key('pass'), { color: name });
  const placed = /^([pK])(\d+)$/.exec(state.moves[ply] ?? display);
  if (placed) return t(key(placed[1] === 'K' ? 'placed_khan' : 'placed_pawn'), { color: name, square: placed[2] });
  const shift = /^(\d+:\d+[+-]) to (\d+)$/.exec(display);
  if (!shift) return display;
  const move = /^\d+:\d+[+-]$/.test(state.moves[ply] ?? '') ? state.moves[ply] : shift[1];
  const [, from, count, sign] = /^(\d+):(\d+)([+-])$/.exec(move);
  const direction = t(sign === '+' ? 'room.kt.clockwise' : 'room.kt.anticlockwise');
  return t(key('moved'), { color: name, from, count, direction, square: shift[2] });
}

export function renderMoves(state) {
  const list = document.querySelector('#moves');
  const pairs = gameInfo(state.game)?.pairs ?? false;
  list.classList.toggle('pairs', pairs);
  const lang = document.documentElement.lang;
  if (list.children.length === state.displayMoves.length && list.dataset.room === state.id
    && list.dataset.lang === lang) return;
  list.dataset.room = state.id;
  list.dataset.lang = lang;
  const colors = state.game === 'khan-tsin' ? state.movers.map((seat) => state.seats[seat]?.color ?? null) : [];
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
      li.append(moveText(state, display, ply, color));
      li.dataset.move = state.moves[ply] ?? '';
      li.dataset.ply = ply + 1;
      if (pairs) li.dataset.seat = state.movers[ply] ?? (ply + firstMover(state)) % 2;
      return li;
    }),
  );
  // The list scrolls inside its own box; the page itself never moves (scrollIntoView would scroll
  // every scrollable ancestor, the window too, taking the board off a phone's screen).
  list.scrollTop = list.scrollHeight;
}
