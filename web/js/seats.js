// The seats this browser holds, kept in localStorage so that a reload (or a later visit) returns
// to them. One entry per room, under its invite code (lower case, as codes are case-insensitive):
//   {room_id, local, seats: {"0": token, ...}, creator}
// `local` marks a pass-and-play room: this browser took every seat and plays them all. `creator`
// (when present) is the seat this browser created the room with (`POST /api/rooms`), or its seat in
// a rematch of a room it created: the room's creator, who may turn spectator chat off.

import { joinRoom, roomSummary } from './api.js';

const PREFIX = 'khanate.room.';
const NAME_KEY = 'khanate.name';

/**
 * What localStorage keeps per room.
 * @typedef {{ room_id: string, local?: boolean, seats: Record<string, string>, creator?: number }} SeatEntry
 */

/** @param {string} inviteCode */
function key(inviteCode) {
  return PREFIX + inviteCode.toLowerCase();
}

/**
 * @param {string} inviteCode
 * @returns {SeatEntry | null}
 */
function read(inviteCode) {
  try {
    return JSON.parse(localStorage.getItem(key(inviteCode)) ?? 'null');
  } catch {
    return null;
  }
}

/**
 * @param {string} inviteCode
 * @param {SeatEntry} entry
 */
function write(inviteCode, entry) {
  localStorage.setItem(key(inviteCode), JSON.stringify(entry));
}

// {roomId, local, creator, seats: Map seat -> token} for this room (no seats when none is held;
// creator: the creator's seat when this browser holds it, else null).
/**
 * @param {string} inviteCode
 * @returns {{ roomId: string | null, local: boolean, creator: number | null, seats: Map<number, string> }}
 */
export function heldSeats(inviteCode) {
  const entry = read(inviteCode);
  return {
    roomId: entry?.room_id ?? null,
    local: Boolean(entry?.local),
    creator: typeof entry?.creator === 'number' && Number.isInteger(entry.creator) ? entry.creator : null,
    seats: new Map(Object.entries(entry?.seats ?? {}).map(([seat, token]) => [Number(seat), token])),
  };
}

// Remembers the token of a seat just taken; `local` when it belongs to a pass-and-play room,
// `creator` when this seat created the room.
/**
 * @param {string} inviteCode
 * @param {string} roomId
 * @param {number} seat
 * @param {string} token
 * @param {{ local?: boolean, creator?: boolean }} [options]
 */
export function keepSeat(inviteCode, roomId, seat, token, { local = false, creator = false } = {}) {
  const entry = read(inviteCode) ?? { room_id: roomId, local, seats: {} };
  entry.room_id = roomId;
  entry.local = entry.local || local;
  entry.seats[seat] = token;
  if (creator) entry.creator = seat;
  write(inviteCode, entry);
}

/**
 * Forgets a seat whose token the server no longer knows (close 4003).
 * @param {string} inviteCode
 * @param {number} seat
 */
export function forgetSeat(inviteCode, seat) {
  const entry = read(inviteCode);
  if (!entry) return;
  delete entry.seats[seat];
  if (entry.creator === seat) delete entry.creator;
  if (Object.keys(entry.seats).length === 0) localStorage.removeItem(key(inviteCode));
  else write(inviteCode, entry);
}

// Every seat this browser holds in a game against others (pass-and-play tables left out: they are
// this browser's own), for the home page's "My games" (POST api/my-games).
/** @returns {{ room_id: string, seat_token: string }[]} */
export function everyHeldSeat() {
  const held = [];
  for (let i = 0; i < localStorage.length; i++) {
    const name = localStorage.key(i);
    if (!name?.startsWith(PREFIX)) continue;
    const entry = read(name.slice(PREFIX.length));
    if (!entry || entry.local || typeof entry.room_id !== 'string') continue;
    for (const token of Object.values(entry.seats ?? {})) held.push({ room_id: entry.room_id, seat_token: token });
  }
  return held;
}

// The name last typed, offered again in the next form.
export function lastName() {
  return localStorage.getItem(NAME_KEY) ?? '';
}

/** @param {string | undefined} name */
export function rememberName(name) {
  if (name) localStorage.setItem(NAME_KEY, name);
}

/**
 * Pass-and-play: this browser takes every seat still free in a room it holds a seat of, each as
 * the same player (`same_player`: the token of a seat it holds), so that the server knows its
 * takebacks are undos (docs/protocol.md "Takeback").
 * @param {string} inviteCode
 */
export async function takeEverySeat(inviteCode) {
  const summary = await roomSummary(inviteCode);
  const held = Object.values(read(inviteCode)?.seats ?? {});
  for (const seat of summary.seats.filter((s) => !s.taken)) {
    const joined = await joinRoom(inviteCode, { seat: seat.seat, ...(held[0] ? { same_player: held[0] } : {}) });
    keepSeat(inviteCode, joined.room_id, joined.seat, joined.seat_token, { local: true });
  }
}

/** Every seat token this browser holds, of every room (to attach them to an account). */
export function allSeatTokens() {
  /** @type {string[]} */
  const tokens = [];
  for (let i = 0; i < localStorage.length; i++) {
    const name = localStorage.key(i);
    if (!name?.startsWith(PREFIX)) continue;
    const entry = read(name.slice(PREFIX.length));
    if (entry) tokens.push(...Object.values(entry.seats));
  }
  return tokens;
}
