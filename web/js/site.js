// The site channel of a logged-in page (docs/protocol.md, "Site channel `GET /ws/site`"): the
// challenges open for the user, shown in `#challenges` (received ones with Accept and Decline,
// made ones with Cancel), and a game that begins for the user (an accepted challenge, a pairing)
// opens its room. The socket pings as a room's does (heartbeat.js) and reconnects after a close, a
// silence, a handshake not answered in time or a welcome not sent in time (heartbeat.js
// openDeadline and welcomeDeadline: longer for each socket in a row that was not welcomed); its welcome
// lists what is open again, and a challenge this user made (one `open` had, or one this page
// made: madeChallenge) that is missing from it closed meanwhile: if it was accepted (its
// game_start reached no page), the room opens all the same (GET api/challenges/{id}).

import { ApiError, challengeStatus, roomUrl, send } from './api.js';
import { colorName, t, errorText } from './i18n.js';
import { keepSeat } from './seats.js';
import { $ } from './dom.js';
import { Heartbeat, openDeadline, welcomeDeadline } from './heartbeat.js';

/** @typedef {{ id: string, from: string, to: string, game: string, seats: number, clock: { initial_s?: number, increment_s?: number, days_per_move?: number } | null, rated: boolean, color: string, expires_at: string }} Challenge */

const RECONNECT_MS = 2_000;
// Sockets in a row that ended without a welcome: each makes the next one's open deadline longer
// (heartbeat.js openDeadline), for a link too slow to open one within the first.
let failures = 0;

/** @type {Map<string, Challenge>} */
const open = new Map();
// The ids of the challenges this page made (POST api/challenges answered them; see
// madeChallenge) until it knows they closed: one made while the channel was away came as no
// frame, so `open` never had it.
/** @type {Set<string>} */
const made = new Set();
let me = '';

/**
 * A challenge this page made (`id` from POST api/challenges' answer): if a later welcome does not
 * list it, the page asks what became of it as for the ones `open` had, and opens its room if it
 * was accepted (so one made and accepted while the channel was away is not lost).
 * @param {string} id
 */
export function madeChallenge(id) {
  made.add(id);
}

/** @param {Challenge} challenge */
function clockText(challenge) {
  const clock = challenge.clock;
  if (!clock) return t('challenge.no_clock');
  if (clock.days_per_move) return t('quick.days', { days: clock.days_per_move });
  return `${(clock.initial_s ?? 0) / 60}+${clock.increment_s ?? 0}`;
}

/**
 * @param {string} id
 * @param {'accept' | 'decline' | 'cancel'} action
 */
async function act(id, action) {
  $('#challenges-error').textContent = '';
  try {
    if (action === 'accept') {
      const response = await fetch(`api/challenges/${encodeURIComponent(id)}/accept`, { method: 'POST' });
      const data = await response.json().catch(() => null);
      if (!response.ok) throw new ApiError(response.status, data?.error?.code ?? 'unavailable', data?.error?.message ?? '');
      keepSeat(data.invite_code, data.room_id, data.seat, data.seat_token);
      location.href = roomUrl(data.invite_code);
      return;
    }
    await send('POST', `api/challenges/${encodeURIComponent(id)}/${action}`);
  } catch (problem) {
    $('#challenges-error').textContent = errorText(/** @type {ApiError} */ (problem));
  }
}

/** @param {Challenge} challenge */
function entry(challenge) {
  const li = document.createElement('li');
  li.dataset.challenge = challenge.id;
  const incoming = challenge.to === me;
  const mode = t(challenge.rated ? 'challenge.rated' : 'challenge.casual');
  const color = challenge.color === 'random' ? t('challenge.random') : colorName(challenge.game, challenge.color);
  const text = document.createElement('span');
  text.textContent = t(incoming ? 'challenge.from' : 'challenge.to', {
    name: incoming ? challenge.from : challenge.to,
    game: t(`game.${challenge.game}`),
    clock: clockText(challenge),
    mode,
    color,
  });
  li.append(text);
  /** @type {[string, 'accept' | 'decline' | 'cancel'][]} */
  const actions = incoming ? [['challenge.accept', 'accept'], ['challenge.decline', 'decline']] : [['challenge.cancel', 'cancel']];
  for (const [label, action] of actions) {
    const button = document.createElement('button');
    button.type = 'button';
    button.dataset.action = action;
    button.textContent = t(label);
    button.addEventListener('click', () => act(challenge.id, action));
    li.append(button);
  }
  return li;
}

function render() {
  const list = document.querySelector('#challenges');
  if (!list) return;
  list.replaceChildren(...[...open.values()].map(entry));
  $('#challenges-card').hidden = open.size === 0;
}

/**
 * Opens the room of the user's challenge `id` if it was accepted.
 * @param {string} id
 */
async function openIfAccepted(id) {
  const challenge = await challengeStatus(id).catch((problem) => {
    // Gone for good (forgotten a day after it closed): never asked after again. Any other
    // failure (the network, a node away) is asked again at the next welcome.
    if (problem instanceof ApiError && problem.status === 404) made.delete(id);
    return null;
  });
  if (!challenge || challenge.status === 'open') return;
  made.delete(id);
  if (challenge.status === 'accepted' && challenge.invite_code) location.href = roomUrl(challenge.invite_code);
}

/** @param {{ t: string, d: any }} frame */
function received(frame) {
  const d = frame.d;
  if (frame.t === 'welcome') {
    /** @type {Challenge[]} */
    const now = d.challenges;
    const mine = new Set([...made, ...[...open.values()].filter((c) => c.from === d.user).map((c) => c.id)]);
    const closed = [...mine].filter((id) => !now.some((n) => n.id === id));
    me = d.user;
    open.clear();
    for (const challenge of now) open.set(challenge.id, challenge);
    document.body.dataset.site = 'open';
    for (const id of closed) openIfAccepted(id);
  } else if (frame.t === 'challenge') {
    open.set(d.id, d);
  } else if (frame.t === 'challenge_gone') {
    open.delete(d.id);
    // Accepted: its game_start follows, or if that is lost, the next welcome's check finds it.
    if (d.reason !== 'accepted') made.delete(d.id);
  } else if (frame.t === 'game_start') {
    location.href = roomUrl(d.invite_code);
    return;
  } else {
    return;
  }
  render();
}

/** Opens the site channel (for a logged-in page only) and keeps it open. */
export function openSiteChannel() {
  const url = new URL('ws/site', document.baseURI);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  const socket = new WebSocket(url.href);
  /** @type {Heartbeat | null} */
  let heartbeat = null;
  let ended = false;
  let welcomed = false;
  // The socket must open within the deadline, and then be welcomed within welcomeDeadline (the
  // server sends the welcome first, and answers pings only after it); the heartbeat starts at
  // the welcome, as a room socket's does.
  const deadline = openDeadline(failures);
  // This socket is done (closed, silent, not opened or not welcomed in time): another in
  // RECONNECT_MS, once.
  const end = () => {
    if (ended) return;
    ended = true;
    if (!welcomed) failures += 1;
    clearTimeout(waiting);
    heartbeat?.stop();
    delete document.body.dataset.site;
    socket.close();
    setTimeout(openSiteChannel, RECONNECT_MS);
  };
  let waiting = setTimeout(() => {
    if (socket.readyState === WebSocket.CONNECTING) end();
  }, deadline);
  socket.addEventListener('open', () => {
    clearTimeout(waiting);
    waiting = setTimeout(() => {
      if (!welcomed) end();
    }, welcomeDeadline(failures));
  });
  socket.addEventListener('message', (message) => {
    const frame = JSON.parse(String(message.data));
    heartbeat?.heard(frame.t);
    if (frame.t === 'welcome' && !welcomed) {
      clearTimeout(waiting);
      welcomed = true;
      failures = 0;
      heartbeat = new Heartbeat(socket, end);
    }
    received(frame);
  });
  socket.addEventListener('close', end);
}
