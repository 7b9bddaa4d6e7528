// A timed room's clocks in the players' bars (`.clock[data-seat]`, made by players.js): each
// seat's time as the room state counts it down, redrawn every 100 ms and after each frame; the
// running one highlighted, any under 10 s in red (docs/web-client.md "Clocks").

import { clockLeft, clockText } from '../state.js';
import { $$ } from '../../dom.js';

/** @typedef {import('../state.js').RoomState} RoomState */

/** @param {RoomState} state */
export function tickClocks(state) {
  if (!state.clock) return;
  const mono = performance.now();
  for (const el of $$('.clock[data-seat]')) {
    const seat = Number(el.dataset.seat);
    const left = clockLeft(state, seat, mono);
    const text = clockText(left);
    if (el.textContent !== text) el.textContent = text;
    el.classList.toggle('running', state.status === 'playing' && state.clock.running === seat);
    el.classList.toggle('low', left < 10_000);
  }
}
