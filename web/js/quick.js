// Quick pairing on the home page (docs/protocol.md, "Quick pairing and challenges"): one button
// per pool the server lists (GET api/pairing/pools); a click joins it (POST api/pairing, held
// until paired) and opens the room it answers with; "Cancel" aborts the request, which takes the
// player out of the pool (the server drops a request whose client went away).

import { ApiError, roomUrl } from './api.js';
import { t, errorText } from './i18n.js';
import { keepSeat } from './seats.js';
import { $, $button, $input } from './dom.js';

/** @typedef {{ id: string, game: string, seats: number, clock: import('./protocol.js').ClockSettings, waiting: { casual: number, rated: number } }} Pool */

/** @type {AbortController | null} */
let waiting = null;

/** @param {Pool} pool */
function poolLabel(pool) {
  const clock = /** @type {{ initial_s?: number, increment_s?: number, days_per_move?: number }} */ (pool.clock);
  const time = clock.days_per_move
    ? t('quick.days', { days: clock.days_per_move })
    : `${(clock.initial_s ?? 0) / 60}+${clock.increment_s ?? 0}`;
  const players = pool.seats > 2 ? ` · ${t('quick.players', { players: pool.seats })}` : '';
  return `${t(`game.${pool.game}`)} ${time}${players}`;
}

/** @param {boolean} on */
function showWaiting(on) {
  $('#quick-status').textContent = on ? t('quick.waiting') : '';
  $button('#quick-cancel').hidden = !on;
  for (const button of document.querySelectorAll('#quick-pools button')) {
    /** @type {HTMLButtonElement} */ (button).disabled = on;
  }
}

/** @param {Pool} pool */
async function join(pool) {
  $('#quick-error').textContent = '';
  waiting = new AbortController();
  showWaiting(true);
  const body = { game: pool.game, seats: pool.seats, clock: pool.clock, rated: $input('#quick-rated').checked };
  try {
    const response = await fetch('api/pairing', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: waiting.signal,
    });
    if (response.status === 204) {
      $('#quick-error').textContent = t('quick.nobody');
      return;
    }
    const data = await response.json().catch(() => null);
    if (!response.ok) {
      const error = data?.error ?? {};
      throw new ApiError(response.status, error.code ?? 'unavailable', error.message ?? response.statusText);
    }
    keepSeat(data.invite_code, data.room_id, data.seat, data.seat_token);
    location.href = roomUrl(data.invite_code);
  } catch (problem) {
    if (!(problem instanceof DOMException && problem.name === 'AbortError')) {
      $('#quick-error').textContent = problem instanceof ApiError ? errorText(problem) : t('quick.nobody');
    }
  } finally {
    waiting = null;
    showWaiting(false);
  }
}

/** Lists the pools as buttons. */
export async function setUpQuickPairing() {
  $button('#quick-cancel').addEventListener('click', () => waiting?.abort());
  let pools;
  try {
    const response = await fetch('api/pairing/pools');
    pools = /** @type {{ pools: Pool[] }} */ (await response.json()).pools;
  } catch {
    return;
  }
  $('#quick-pools').replaceChildren(...pools.map((pool) => {
    const button = document.createElement('button');
    button.type = 'button';
    button.dataset.pool = pool.id;
    button.textContent = poolLabel(pool);
    button.addEventListener('click', () => join(pool));
    return button;
  }));
  $('#quick-card').dataset.ready = 'true';
}
