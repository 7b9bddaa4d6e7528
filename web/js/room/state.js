// The room's state as the server's frames tell it, kept apart from any drawing: a reducer over
// frames (no DOM, no timers, no clock of its own: the time comes in as an argument), so it is
// tested with `node --test` (tests/js/room-state.test.mjs) without a browser.
//
//   const state = createRoomState({ held: [0], creator: 0 });
//   const effect = applyFrame(state, 0, frame, { wall: Date.now(), mono: performance.now(), lag: socket.lagMs });
//       // seat: the held seat whose socket brought the frame (null: a spectator's socket);
//       // effect: { chat: true when the chat changed, rematch: 'live' | 'late' | null }
//   clockLeft(state, seat, monoNow), repetitionPossible(state), legalFor(state, seat), abandonClaim(state, monoNow)
//
// Every socket of a page (one per held seat) brings the same versioned events: each version is
// applied once, whichever socket brings it first. Legal moves come only to the seat on move, so
// they are kept per seat with the position they belong to. A `message` is {key, params, seats}:
// `seats` maps a parameter to a seat, which the view names (it knows the language).

/** @typedef {import('../protocol.js').ServerFrame} ServerFrame */
/** @typedef {import('../protocol.js').ServerFrames} ServerFrames */
/** @typedef {import('../protocol.js').Seat} Seat */
/** @typedef {import('../protocol.js').LegalMoves} LegalMoves */
/** @typedef {import('../protocol.js').ClockFrame} ClockFrame */
/** @typedef {import('../protocol.js').ChatMessage} ChatMessage */
/** @typedef {import('../protocol.js').OfferKind} OfferKind */

/**
 * The browser's two clocks at an instant: the wall clock (`Date.now()`) and the monotonic one
 * (`performance.now()`), in ms; and `lag`, the round trip (ms) of the socket that brought the
 * frame as its pings measure it (null or absent: not measured yet).
 * @typedef {{ wall: number, mono: number, lag?: number | null }} Now
 */

/**
 * Words for the page to show: a string key, its parameters, and the parameters that name a seat
 * (the view names them in the page's language).
 * @typedef {{ key: string, params?: Record<string, string | number>, seats?: Record<string, number> }} Message
 */

/**
 * An open offer; a takeback's says how many plies it takes back.
 * @typedef {{ id: number, kind: OfferKind, by: number, accepted: number[], plies?: number }} Offer
 */

/** @typedef {Seat & { timedOut?: boolean }} SeatState */

/**
 * A timed room's clocks: `remaining` ms per seat, `running` the seat counting down from the
 * monotonic instant `since`.
 * @typedef {{ initialS: number | null, incrementS: number | null, remaining: number[], running: number | null, since: number }} ClockState
 */

/** @typedef {{ position: string | null, moves: LegalMoves, complete: boolean }} KnownLegal */

/**
 * The room as the frames told it (see the top of this file).
 * @typedef {object} RoomState
 * @property {string | null} id
 * @property {string | null} game
 * @property {number | null} version
 * @property {import('../protocol.js').RoomStatus} status
 * @property {SeatState[]} seats
 * @property {string | null} startPosition
 * @property {string | null} position
 * @property {number | null} toMove
 * @property {string[]} moves
 * @property {string[]} displayMoves
 * @property {(number | null)[]} movers   per ply, the seat that played it (null where unknown)
 * @property {(string[] | null)[]} captured  per ply, the squares it captured on (null: unknown)
 * @property {(string | null)[]} positions  per ply, the position after it; [0] the start
 * @property {(import('../protocol.js').Material | null)[]} materials  per ply, the material
 *   after it (null: unknown); [0] at the start
 * @property {Offer[]} offers
 * @property {import('../protocol.js').Counting | null} counting
 * @property {import('../protocol.js').GameResult | null} result
 * @property {boolean} spectatorChat
 * @property {number | null} createdBy  the seat that created the room
 * @property {number | null} spectators
 * @property {import('../protocol.js').Material | null} material  per seat, now
 * @property {number | null} check  the seat in check now, or null
 * @property {import('../protocol.js').RematchInfo | null} rematch
 * @property {boolean} rated  the room is rated (its snapshot says)
 * @property {import('../protocol.js').RatingChange[] | null} ratings  a rated game's changes, once it is over
 * @property {ClockState | null} clock
 * @property {number} clockOffset  the smallest `wall - Date.parse(at)` seen (ms)
 * @property {ChatMessage[]} chat
 * @property {Set<number>} held  the seats this browser holds
 * @property {Map<number, KnownLegal>} legal  the last legal moves sent to each held seat
 * @property {Map<string, string>} carried  where a `left` that did not pass the turn took a position
 * @property {Map<number, number>} claimable  seat -> monotonic ms from which it may be claimed against
 * @property {Map<number, number>} lag  seat -> its connection's round trip in ms as the server estimates it (`lag`)
 * @property {Set<number>} ownDeclines  offers this page declined or withdrew itself
 * @property {{ complete: boolean, counts: Map<string, number> }} seen  how often each position stood
 * @property {Message | string | null} message
 */

/**
 * What a frame changed beyond the state: the chat, or a rematch made ('live': while this page
 * showed the room; 'late': found in the first snapshot).
 * @typedef {{ chat: boolean, rematch: 'live' | 'late' | null }} Effect
 */

/**
 * An Ouk Chatrang FEN's board, side to move and rights: what makes a position repeat.
 * @param {string | null} position
 */
export function positionKey(position) {
  return (position ?? '').trim().split(/\s+/).slice(0, 3).join(' ');
}

/**
 * @param {{ held?: number[], creator?: number | null, id?: string | null, game?: string | null }} [options]
 * @returns {RoomState}
 */
export function createRoomState({ held = [], creator = null, id = null, game = null } = {}) {
  return {
    id,
    game,
    version: null,
    status: 'waiting',
    seats: [],
    startPosition: null,
    position: null,
    toMove: null,
    moves: [],
    displayMoves: [],
    // Per ply: the seat that played it (null where no frame said), the squares it captured (null
    // where unknown), and the position after it (null where unknown); from `moved` events and
    // the snapshot's `history`. positions[0] is the start position.
    movers: [],
    captured: [],
    positions: [],
    materials: [],
    offers: [],
    counting: null,
    result: null,
    spectatorChat: true,
    // The seat that created the room: the snapshot's `created_by`, else what this browser kept.
    createdBy: creator,
    spectators: null,
    // Per seat the pieces left or taken (`material` of the last `moved` or the snapshot), and the
    // seat whose King is in check (Ouk Chatrang), or null.
    material: null,
    check: null,
    rematch: null,
    rated: false,
    ratings: null,
    // A timed room's clocks (null when untimed): {initialS, incrementS, remaining: [ms per seat],
    // running: seat | null, since: the monotonic ms from which `running` counts down}.
    clock: null,
    // The smallest `wall - Date.parse(at)` seen (ms): the browser's offset from the server's
    // clock plus the quickest delivery.
    clockOffset: Infinity,
    chat: [],
    held: new Set(held),
    // seat -> {position, moves, complete}: the last legal moves sent to that held seat.
    legal: new Map(),
    // position -> position: where a `left` that did not pass the turn took the position.
    carried: new Map(),
    // seat -> monotonic ms from which the others may claim against that away seat.
    claimable: new Map(),
    // seat -> the server's estimate of its connection's round trip (ms), from `lag` frames.
    lag: new Map(),
    // Offer ids this page declined or withdrew itself: their `offer_declined` needs no word.
    ownDeclines: new Set(),
    // How often each position stood, and whether the page saw every one since the start.
    seen: { complete: false, counts: new Map() },
    message: null,
  };
}

/**
 * Applies one frame (see the top of this file). Unversioned frames (chat, presence, spectators)
 * are applied as they come; a versioned event only when it is the next version.
 * @param {RoomState} state
 * @param {number | null} seat  the held seat whose socket brought the frame (null: a spectator's)
 * @param {ServerFrame} frame
 * @param {Now} now
 * @returns {Effect}
 */
export function applyFrame(state, seat, frame, now) {
  const d = frame.d ?? {};
  /** @type {Effect} */
  const effect = { chat: false, rematch: null };
  if (seat !== null && d.legal_moves !== undefined) {
    state.legal.set(seat, {
      position: state.carried.get(d.position) ?? d.position,
      moves: d.legal_moves,
      complete: d.legal_moves_complete !== false,
    });
  }
  const chatSeat = [...state.held][0] ?? null;
  switch (frame.t) {
    case 'welcome':
      return effect;
    case 'chat':
      if (seat === chatSeat) {
        state.chat.push(d);
        effect.chat = true;
      }
      return effect;
    case 'chat_history':
      if (seat === chatSeat) {
        state.chat = [...(d.messages ?? [])];
        effect.chat = true;
      }
      return effect;
    case 'spectators':
      state.spectators = d.count ?? null;
      return effect;
    case 'lag':
      state.lag.set(d.seat, d.lag_ms);
      return effect;
    case 'presence':
      if (state.seats[d.seat]) state.seats[d.seat].connected = d.connected;
      if (d.connected || !d.claimable_at) state.claimable.delete(d.seat);
      else state.claimable.set(d.seat, serverTimeHere(state, d.claimable_at, now));
      return effect;
    case 'snapshot': {
      if (frame.v === undefined) return effect;
      if (seat === chatSeat) {
        state.chat = [...(d.chat ?? [])];
        effect.chat = true;
      }
      if (state.version !== null && frame.v < state.version) return effect;
      const live = state.version !== null;
      const hadRematch = state.rematch !== null;
      applySnapshot(state, frame.v, d, now);
      for (const s of d.seats ?? []) if (s.connected) state.claimable.delete(s.seat);
      if (state.rematch && !hadRematch) effect.rematch = live ? 'live' : 'late';
      return effect;
    }
    default:
      if (frame.v === undefined || state.version === null || frame.v <= state.version) return effect;
      applyEvent(state, frame.t, d, now);
      state.version = frame.v;
      if (frame.t === 'rematch') effect.rematch = 'live';
      return effect;
  }
}

/**
 * @param {RoomState} state
 * @param {number} version
 * @param {ServerFrames['snapshot']} d
 * @param {Now} now
 */
function applySnapshot(state, version, d, now) {
  const sameHistory = state.seen.complete && state.version === version && state.moves.length === d.moves.length;
  if (!sameHistory) {
    state.seen.complete = d.moves.length === 0;
    state.seen.counts = new Map([[positionKey(d.position), 1]]);
  }
  const history = Array.isArray(d.history) ? d.history : [];
  const known = sameHistory ? state.positions : [];
  Object.assign(state, {
    version,
    status: d.status,
    seats: d.seats,
    startPosition: d.start_position,
    position: d.position,
    toMove: d.to_move,
    moves: [...d.moves],
    displayMoves: [...d.display_moves],
    movers: d.moves.map((_, ply) => history[ply]?.seat ?? (sameHistory ? state.movers[ply] : null) ?? null),
    captured: d.moves.map((_, ply) => history[ply]?.captured ?? (sameHistory ? state.captured[ply] : null) ?? null),
    positions: [d.start_position, ...d.moves.map((_, ply) => history[ply]?.position ?? known[ply + 1] ?? null)],
    materials: [null, ...d.moves.map((_, ply) => history[ply]?.material ?? (sameHistory ? state.materials[ply + 1] : null) ?? null)],
    offers: d.offers.map((o) => ({ ...o, accepted: [...(o.accepted ?? [])] })),
    counting: d.counting ?? null,
    result: d.result ?? null,
    spectatorChat: d.spectator_chat !== false,
    rematch: d.rematch ?? null,
    rated: d.rated === true,
    ratings: d.ratings ?? null,
    material: d.material ?? null,
    check: d.check ?? null,
  });
  state.positions[d.moves.length] = d.position;
  state.materials[d.moves.length] = d.material ?? state.materials[d.moves.length] ?? null;
  if (d.created_by !== undefined && d.created_by !== null) state.createdBy = d.created_by;
  if (d.spectators !== undefined) state.spectators = d.spectators;
  state.clock = null;
  if (d.clock) setClock(state, d.clock, now, { initialS: d.clock.initial_s, incrementS: d.clock.increment_s });
}

// Takes a clock from the server ({remaining_ms, running, at}): each seat's time at the server's
// instant `at`. The offset between the browser's clock and the server's is estimated at receipt,
// offset = wall - Date.parse(at) (the skew plus the delivery time), and the smallest offset seen
// is kept: a frame that is older than it looks (events replayed after a reconnect) is counted
// from its real `at`. The quickest delivery itself took the frame's way here, which the skew
// hides: the running clock started on the server when the frame left, half the socket's round
// trip (`now.lag`) before it arrived, and it is counted from then (as lichess's clock does), so
// the page shows the server's clock, the one a flag is decided by. From then on the running clock
// follows the monotonic time, which a change of the computer's clock does not move.
/**
 * @param {RoomState} state
 * @param {ClockFrame} clock
 * @param {Now} now
 * @param {{ initialS?: number, incrementS?: number }} [settings]
 */
function setClock(state, clock, now, settings = {}) {
  const offset = now.wall - Date.parse(clock.at);
  if (Number.isFinite(offset)) state.clockOffset = Math.min(state.clockOffset, offset);
  const age = Number.isFinite(offset) ? Math.max(0, offset - state.clockOffset) : 0;
  const transit = now.lag ? now.lag / 2 : 0;
  state.clock = {
    initialS: settings.initialS ?? state.clock?.initialS ?? null,
    incrementS: settings.incrementS ?? state.clock?.incrementS ?? null,
    remaining: [...clock.remaining_ms],
    running: clock.running ?? null,
    since: now.mono - age - transit,
  };
}

/**
 * A server instant (RFC 3339) as monotonic ms, by the offset of setClock.
 * @param {RoomState} state
 * @param {string} at
 * @param {Now} now
 */
function serverTimeHere(state, at, now) {
  const offset = Number.isFinite(state.clockOffset) ? state.clockOffset : 0;
  return now.mono + (Date.parse(at) + offset - now.wall);
}

/**
 * A seat's name in a message is given by seat; the view names it.
 * @param {string} key
 * @param {Record<string, number>} [seats]
 * @param {Record<string, string | number>} [params]
 * @returns {Message}
 */
const named = (key, seats = {}, params = {}) => ({ key, params, seats });

/**
 * @param {RoomState} state
 * @param {string} type
 * @param {any} d  the frame's `d`, of the type `ServerFrames[type]`
 * @param {Now} now
 */
function applyEvent(state, type, d, now) {
  switch (type) {
    case 'seat_taken':
      Object.assign(state.seats[d.seat], { taken: true, name: d.name, color: d.color, bot: d.bot, user: d.user, deleted: false });
      break;
    case 'seat_account':
      if (state.seats[d.seat]) Object.assign(state.seats[d.seat], { user: d.user, deleted: d.deleted === true });
      break;
    case 'game_started':
      Object.assign(state, { status: 'playing', position: d.position, toMove: d.to_move });
      state.positions[state.moves.length] = d.position;
      if (d.clock) setClock(state, d.clock, now);
      break;
    case 'moved': {
      const ply = state.moves.length;
      state.moves.push(d.move);
      state.displayMoves.push(d.display);
      state.movers[ply] = d.seat ?? null;
      state.captured[ply] = d.captured ?? null;
      state.positions[ply + 1] = d.position;
      state.materials[ply + 1] = d.material ?? null;
      const key = positionKey(d.position);
      state.seen.counts.set(key, (state.seen.counts.get(key) ?? 0) + 1);
      takePosition(state, d);
      if (d.clock) setClock(state, d.clock, now);
      state.message = null;
      break;
    }
    case 'offer':
      state.offers.push({ id: d.id, kind: d.kind, by: d.by, accepted: [...(d.accepted ?? [])], plies: d.plies });
      break;
    case 'taken_back':
      takeBack(state, d, now);
      break;
    case 'offer_declined': {
      const offer = state.offers.find((o) => o.id === d.id);
      state.offers = state.offers.filter((o) => o.id !== d.id);
      if (offer) state.message = declinedMessage(state, offer, d.by);
      break;
    }
    case 'offer_accepted':
      state.offers.find((o) => o.id === d.id)?.accepted.push(d.by);
      break;
    case 'skipped':
      state.message = named('room.skipped', { player: d.seat });
      break;
    case 'left': {
      const before = { position: state.position, toMove: state.toMove };
      state.seats[d.seat].left = true;
      Object.assign(state, { position: d.position, toMove: d.to_move });
      state.positions[state.moves.length] = d.position;
      // A player who was not on move resigned: the turn stays, the moves too (the pawns have not
      // moved), but the position text changed and no legal moves come with this event.
      if (d.legal_moves === undefined && d.to_move !== null && d.to_move === before.toMove
        && before.position !== null && before.position !== d.position) {
        carry(state, before.position, d.position);
      }
      if (d.clock) setClock(state, d.clock, now);
      // A three-player Khan-Tsin seat whose time ran out is out of the game like one that resigned.
      if (d.reason === 'timeout') state.seats[d.seat].timedOut = true;
      /** @type {Record<string, string>} */
      const leftKeys = { timeout: 'room.left_timeout', abandoned: 'room.left_abandoned' };
      const leftKey = leftKeys[d.reason] ?? 'room.left';
      state.message = named(leftKey, { player: d.seat });
      break;
    }
    case 'game_over':
      Object.assign(state, { status: 'finished', result: d.result, toMove: null, offers: [], ratings: d.ratings ?? null });
      // The final times; a room that ended before its game started has none.
      if (d.clock) setClock(state, d.clock, now);
      else if (state.clock) state.clock.running = null;
      // A refusal or a skip from the game is stale now: the result speaks.
      state.message = null;
      break;
    case 'spectator_chat':
      state.spectatorChat = d.enabled;
      break;
    case 'rematch':
      state.rematch = d;
      state.offers = state.offers.filter((o) => o.kind !== 'rematch');
      break;
  }
}

/**
 * The position a `moved` or `taken_back` gives, with what goes with it: the seat on move, the
 * count, the material (kept when the frame has none) and the seat in check.
 * @param {RoomState} state
 * @param {{ position: string, to_move: number | null, counting?: import('../protocol.js').Counting, material?: import('../protocol.js').Material, check?: number }} d
 */
function takePosition(state, d) {
  Object.assign(state, {
    position: d.position,
    toMove: d.to_move,
    counting: d.counting ?? null,
    material: d.material ?? state.material,
    check: d.check ?? null,
  });
}

/**
 * Takes back the last `d.plies` moves (docs/protocol.md "Takeback"): the page's lists lose their
 * last entries and the positions seen are counted without them; the position, seat on move,
 * material, check, count and clocks are the server's; every open offer closes.
 * @param {RoomState} state
 * @param {import('../protocol.js').TakenBack} d
 * @param {Now} now
 */
function takeBack(state, d, now) {
  const keep = Math.max(0, state.moves.length - d.plies);
  const asker = state.offers.find((o) => o.kind === 'takeback')?.by ?? null;
  for (const position of state.positions.slice(keep + 1)) {
    const key = positionKey(position);
    const count = state.seen.counts.get(key) ?? 0;
    if (count > 1) state.seen.counts.set(key, count - 1);
    else state.seen.counts.delete(key);
  }
  for (const list of [state.moves, state.displayMoves, state.movers, state.captured]) list.length = keep;
  state.positions.length = keep + 1;
  state.materials.length = keep + 1;
  state.positions[keep] = d.position;
  state.materials[keep] = d.material ?? state.materials[keep] ?? null;
  takePosition(state, d);
  state.offers = [];
  if (d.clock) setClock(state, d.clock, now);
  const key = `${asker === null ? 'room.taken_back' : 'room.taken_back_by'}${d.plies > 1 ? '_plies' : ''}`;
  state.message = named(key, asker === null ? {} : { player: asker }, { count: d.plies });
}

// Words for an offer that closed. `by`: the seat that declined (`offer_declined.by`), when the
// server says it. Without it the offerer's page names the one other player who could have
// declined it, the other players' pages say the offerer withdrew it (two players: nobody else
// could have), and spectators or a three-player table learn that it is off. A decline sent from
// this page says nothing: the user just did it.
/**
 * @param {RoomState} state
 * @param {Offer} offer
 * @param {number | null | undefined} by
 * @returns {Message | null}
 */
function declinedMessage(state, offer, by) {
  if (state.ownDeclines.has(offer.id)) return null;
  const kind = offer.kind;
  if (by !== undefined && by !== null) {
    if (by === offer.by) return named(`room.${kind}_withdrawn`, { player: offer.by });
    return named(`room.${kind}_declined_by`, { player: by });
  }
  const others = state.seats.filter((s) => s.seat !== offer.by && !state.held.has(s.seat)
    && (kind === 'rematch' || !s.left));
  if (state.held.has(offer.by)) {
    return others.length === 1
      ? named(`room.${kind}_declined_by`, { player: others[0].seat })
      : named(`room.${kind}_declined`);
  }
  if (state.held.size > 0 && others.length === 0) return named(`room.${kind}_withdrawn`, { player: offer.by });
  return named(`room.${kind}_closed`, { player: offer.by });
}

/**
 * Legal moves known for position `from` count for position `to` from now on (see `carried`).
 * @param {RoomState} state
 * @param {string} from
 * @param {string} to
 */
function carry(state, from, to) {
  for (const [old, now] of state.carried) if (now === from) state.carried.set(old, to);
  state.carried.set(from, to);
  for (const known of state.legal.values()) if (known.position === from) known.position = to;
}

// Whether a repetition claim may be possible: the position has stood three times, or, when the
// page does not know the whole game, from the 8th ply on (the server judges the claim).
/** @param {RoomState} state */
export function repetitionPossible(state) {
  if (state.seen.complete) return (state.seen.counts.get(positionKey(state.position)) ?? 0) >= 3;
  return state.moves.length >= 8;
}

/**
 * The legal moves `seat` has for the current position ({moves, complete}), or null.
 * @param {RoomState} state
 * @param {number | null} seat
 * @returns {KnownLegal | null}
 */
export function legalFor(state, seat) {
  if (state.status !== 'playing' || seat === null || seat !== state.toMove || !state.held.has(seat)) return null;
  const known = state.legal.get(seat);
  return known && known.position === state.position ? known : null;
}

/**
 * Whether `move` is one of `legal`: a list of move strings, or Khan's tree, whose paths from the
 * top are the moves, their squares joined by `-` (docs/protocol.md "Legal moves in Khan").
 * @param {LegalMoves} legal
 * @param {string} move
 */
export function legalIncludes(legal, move) {
  if (Array.isArray(legal)) return legal.includes(move);
  if (!move.includes('-')) return false;
  /** @type {import('../protocol.js').KhanTree | undefined} */
  let node = legal;
  for (const square of move.split('-')) {
    node = node?.[square];
    if (node === undefined) return false;
  }
  return true;
}

/**
 * A seat's time left at monotonic instant `mono`, in ms (never below 0).
 * @param {RoomState} state
 * @param {number} seat
 * @param {number} mono
 */
export function clockLeft(state, seat, mono) {
  const clock = state.clock;
  const left = clock?.remaining[seat] ?? 0;
  if (clock?.running !== seat || state.status !== 'playing') return Math.max(0, left);
  return Math.max(0, left - (mono - clock.since));
}

/**
 * m:ss (h:mm:ss from an hour), with tenths under 10 s: 0:09.4.
 * @param {number} ms
 */
export function clockText(ms) {
  if (ms < 10_000) return `0:0${Math.floor(ms / 1000)}.${Math.floor((ms % 1000) / 100)}`;
  const total = Math.floor(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const sec = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

// The abandonment claim open to this browser at monotonic instant `mono`: the away seat on move,
// the held seat that claims (another one still in the game), and ms until the claim is possible
// (0 once it is); else null.
/**
 * @param {RoomState} state
 * @param {number} mono
 * @returns {{ away: number, claimer: number, wait: number } | null}
 */
export function abandonClaim(state, mono) {
  if (state.status !== 'playing' || state.toMove === null) return null;
  const away = state.toMove;
  const from = state.claimable.get(away);
  if (from === undefined || state.seats[away]?.connected || state.seats[away]?.left) return null;
  const claimer = [...state.held].find((s) => s !== away && state.seats[s] && !state.seats[s].left);
  if (claimer === undefined) return null;
  return { away, claimer, wait: Math.max(0, from - mono) };
}
