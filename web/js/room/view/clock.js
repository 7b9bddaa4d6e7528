// A timed room's clocks in the players' bars (`.clock[data-seat]`, made by players.js): each
// seat's time as the room state counts it down, redrawn every 100 ms and after each frame; the
// running one highlighted, any under 10 s in red, a correspondence game's days and hours
// (docs/web-client.md "Clocks").

import { clockLeft, clockText } from '../state.js';
import { t } from '../../i18n.js';
import { $$ } from '../../dom.js';

/** @typedef {import('../state.js').RoomState} RoomState */

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * A time left as a clock shows it: days and hours from a day (a correspondence game's), else
 * `clock` (the room page's and the game page's own m:ss forms).
 * @param {number} ms
 * @param {(ms: number) => string} [clock]
 */
export function timeLeftText(ms, clock = clockText) {
  if (ms < DAY_MS) return clock(ms);
  return t('room.clock_days', { days: Math.floor(ms / DAY_MS), hours: Math.floor((ms % DAY_MS) / HOUR_MS) });
}

/** @param {RoomState} state */
export function tickClocks(state) {
  if (!state.clock) return;
  const mono = performance.now();
  for (const el of $$('.clock[data-seat]')) {
    const seat = Number(el.dataset.seat);
    const left = clockLeft(state, seat, mono);
    const text = timeLeftText(left);
    if (el.textContent !== text) el.textContent = text;
    el.classList.toggle('running', state.status === 'playing' && state.clock.running === seat);
    el.classList.toggle('low', left < 10_000);
  }
}
