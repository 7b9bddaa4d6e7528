// The players' bars of the room page (`ol#players`, docs/web-client.md "The room page DOM"): per
// seat its colour, name, presence, notes, what it has (material) and, in a timed room, its clock
// (`.clock[data-seat]`, whose time clock.js writes). The seats drawn nearest get `near`: the
// page's CSS puts them under the board and the others above (the other way round once the viewer
// turned the board).
//
//   renderPlayers(state, { orientation, flipped, boardModule, material })
//       // material: what each seat has in the position shown (state.material now, a replayed
//       // ply's own from the history), null where unknown
//   nameOfSeat(state, seat)   // "Black (Sok)", "Black (Computer · level 3)", or the colour alone

import { t, colorName } from '../../i18n.js';
import { gameInfo } from '../../games.js';
import { playerName, withPlayer } from '../../who.js';

/** @typedef {import('../state.js').RoomState} RoomState */
/** @typedef {import('../../boards/board.js').BoardModule} BoardModule */

/**
 * A seat's colour with its player's name; a computer player is named by its level in the page's
 * language (the server names it in English).
 * @param {RoomState} state
 * @param {number} seat
 */
export function nameOfSeat(state, seat) {
  const info = state.seats[seat];
  if (!info) return '';
  const color = colorName(state.game, info.color);
  const name = info.bot ? t('room.bot_name', { level: info.bot }) : playerName(info);
  return name ? t('room.player_named', { color, name }) : color;
}

/**
 * @param {RoomState} state
 * @param {{ orientation: number, flipped: boolean, boardModule: BoardModule | null, material: import('../../protocol.js').Material | null }} options
 */
export function renderPlayers(state, { orientation, flipped, boardModule, material }) {
  const list = document.querySelector('#players');
  list?.replaceChildren(
    ...state.seats.map((info) => {
      const li = document.createElement('li');
      li.dataset.seat = String(info.seat);
      li.dataset.color = info.color;
      li.classList.toggle('on-move', state.toMove === info.seat);
      li.classList.toggle('left', Boolean(info.left));
      if (info.bot) li.dataset.bot = String(info.bot);
      const swatch = document.createElement('span');
      swatch.className = `swatch ${info.color}`;
      const name = document.createElement('span');
      name.className = 'who';
      name.textContent = info.taken ? nameOfSeat(state, info.seat) : t('room.free_seat', { color: colorName(state.game, info.color) });
      // An account's username links to its page; a deleted account's shows as such.
      if (info.taken && !info.bot && (info.user || info.deleted)) {
        name.replaceChildren(...withPlayer('room.player_named', { color: colorName(state.game, info.color) }, info));
      }
      const notes = document.createElement('span');
      notes.className = 'notes';
      /** @type {[string, string][]} each note's kind (a class) and words */
      const words = [];
      if (state.held.has(info.seat)) words.push(['you', t('room.you')]);
      if (info.left) words.push(['out', t(info.timedOut || (state.clock && state.clock.remaining[info.seat] === 0) ? 'room.out_of_time' : 'room.has_left')]);
      // A computer player is always there: only people are online or away (a phone leaves
      // those words to the dot).
      else if (info.taken && !info.bot) words.push(['presence', t(info.connected ? 'room.online' : 'room.away')]);
      notes.replaceChildren(...words.map(([kind, text], i) => {
        const note = document.createElement('span');
        note.className = `note ${kind}`;
        note.textContent = i === 0 ? text : ` · ${text}`;
        return note;
      }));
      const dot = document.createElement('span');
      dot.className = `dot ${info.connected ? 'on' : 'off'}`;
      li.classList.toggle('near', (info.seat === orientation) !== flipped);
      li.append(swatch, name, dot);
      if (info.taken && !info.bot && !info.left) li.append(signalBars(info.connected, state.lag.get(info.seat)));
      li.append(notes, materialOf(state, material, info.seat, boardModule));
      if (state.clock) {
        const clock = document.createElement('span');
        clock.className = 'clock';
        clock.dataset.seat = String(info.seat);
        clock.setAttribute('role', 'timer');
        clock.setAttribute('aria-label', t('room.clock_label', { player: info.taken ? nameOfSeat(state, info.seat) : colorName(state.game, info.color) }));
        li.append(clock);
      }
      return li;
    }),
  );
}

/**
 * How many points of material `seat` is ahead by: the points of the pieces it took less those
 * the others took (games.js `pieceValues`); 0 for a game without piece values.
 * @param {string | null} game
 * @param {import('../../protocol.js').Material | null} material
 * @param {number} seat
 */
export function materialDifference(game, material, seat) {
  const values = gameInfo(game)?.pieceValues;
  if (!values || !material) return 0;
  /** @param {string | undefined} letters */
  const points = (letters) => [...(letters ?? '').toLowerCase()].reduce((sum, letter) => sum + (values[letter] ?? 0), 0);
  let diff = 0;
  for (const [other, has] of Object.entries(material)) diff += Number(other) === seat ? points(has.captured) : -points(has.captured);
  return diff;
}

/**
 * What a seat has (`.material`): Khan its Soldiers and Khans left (the last Soldier decides the
 * game), Ouk Chatrang the enemy pieces it took, drawn small (games.js `material`). From the
 * server's `material` (the room page's, the finished game's history); empty without. The
 * finished-game page shows it too.
 * @param {{ game: string | null, seats: { seat: number, color: import('../../protocol.js').Color }[] }} state
 * @param {import('../../protocol.js').Material | null} material
 * @param {number} seat
 * @param {BoardModule | null} boardModule
 */
export function materialOf(state, material, seat, boardModule) {
  const el = document.createElement('span');
  el.className = 'material';
  const mine = material?.[seat];
  const kind = gameInfo(state.game)?.material;
  if (!mine) return el;
  el.dataset.material = JSON.stringify(mine);
  if (kind === 'pieces-left') {
    el.textContent = t(`material.${state.game}`, { soldiers: mine.soldiers ?? 0, khans: mine.khans ?? 0 });
  } else if (kind === 'captured' && typeof mine.captured === 'string') {
    const enemy = state.seats.find((s) => s.seat !== seat)?.color ?? 'black';
    const names = [];
    // One picture per kind taken, with how many when more than one: twelve pieces take at most five
    // pictures, and a phone's bar keeps its name and clock in view.
    /** @type {Map<string, number>} */
    const counts = new Map();
    for (const letter of mine.captured.toLowerCase()) {
      names.push(t(`${state.game}.${letter}`));
      counts.set(letter, (counts.get(letter) ?? 0) + 1);
    }
    for (const [letter, count] of counts) {
      const group = document.createElement('span');
      group.className = 'taken';
      group.dataset.piece = letter;
      group.dataset.count = String(count);
      if (boardModule?.drawPiece) {
        const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
        svg.setAttribute('viewBox', '0 0 100 100');
        svg.setAttribute('aria-hidden', 'true');
        boardModule.drawPiece(svg, { kind: letter, color: enemy });
        group.append(svg);
      } else group.append(t(`${state.game}.${letter}`));
      if (count > 1) {
        const times = document.createElement('span');
        times.className = 'count';
        times.textContent = String(count);
        group.append(times);
      }
      el.append(group);
    }
    el.setAttribute('aria-label', names.length ? t('material.captured', { pieces: names.join(', ') }) : '');
    const diff = materialDifference(state.game, material, seat);
    if (diff > 0) {
      const ahead = document.createElement('span');
      ahead.className = 'material-diff';
      ahead.dataset.diff = String(diff);
      ahead.textContent = `+${diff}`;
      ahead.title = t('material.ahead', { points: diff });
      el.append(ahead);
    }
  }
  return el;
}

// The round trip (ms) up to which a connection shows as good, beyond it slow (lichess's signal
// bars).
const GOOD_LAG_MS = 300;

/**
 * A seat's signal bars: `good` (three lit), `slow` (two) or `lost` (none: not connected),
 * from its presence and the round trip the server estimates for it (`lag`; good until known).
 * @param {boolean | undefined} connected
 * @param {number | undefined} lagMs
 */
export function signalBars(connected, lagMs) {
  const level = !connected ? 'lost' : lagMs === undefined || lagMs <= GOOD_LAG_MS ? 'good' : 'slow';
  const bars = document.createElement('span');
  bars.className = `signal ${level}`;
  bars.dataset.signal = level;
  bars.title = lagMs === undefined || !connected ? level : `${level}: ${lagMs} ms`;
  bars.append(...[1, 2, 3].map(() => document.createElement('i')));
  return bars;
}
