// The room page, at r/{invite_code}: the board, the players, the move list, the game's state and
// the controls. This browser is a spectator (no seat held), a player (one seat) or a local
// pass-and-play table (every seat held here, moves built for whichever seat is on move).
//
// One RoomSocket per held seat (one without a token for a spectator). Every socket receives the
// same versioned events; the room's state applies each version once, whichever socket brings it
// first. Legal moves come only to the seat on move, so they are kept per seat with the position
// they belong to, and offered to the board only while that position is the current one.
//
// After the game the players may agree to a rematch: the server makes the next room and each
// player's token works there too, so on the `rematch` event the page keeps each held seat's token
// for the new room (at its new seat) and goes there; spectators follow. Chat (not at a
// pass-and-play table) comes in unversioned frames: players write and read the players' channel,
// spectators write their own channel and read both.

import { joinRoom, roomSummary, roomUrl, homeUrl } from './api.js';
import { RoomSocket } from './socket.js';
import { forgetSeat, heldSeats, keepSeat, lastName, rememberName } from './seats.js';
import { t, addStrings, setUpLanguage, onLanguageChange, colorName, errorText } from './i18n.js';

const $ = (selector) => document.querySelector(selector);
const SUMMARY_RETRY_MS = 3_000;

const inviteCode = decodeURIComponent(location.pathname.split('/').filter(Boolean).pop() ?? '');

// What the room is, as the events told it.
const room = {
  id: null,
  game: null,
  version: null,
  status: 'waiting',
  seats: [],
  startPosition: null,
  position: null,
  toMove: null,
  moves: [],
  displayMoves: [],
  offers: [],
  counting: null,
  result: null,
  spectatorChat: true,
  // The rematch made after this game ({room_id, invite_code, seats}), once every seat agreed.
  rematch: null,
  // A timed room's clocks (null when untimed): {initialS, incrementS, remaining: [ms per seat],
  // running: seat | null, since: performance.now() from which `running` counts down}.
  clock: null,
};
// The smallest `Date.now() - at` seen on this page (ms): the browser's clock offset from the
// server's plus the quickest delivery, see setClock.
let clockOffset = Infinity;
// The chat messages this browser reads, oldest first ({channel, seat, name, text, at}).
let chat = [];
// The creator's seat when this browser holds it (it may turn spectator chat off), else null.
let creatorSeat = null;
// A spectator-chat switch sent and not yet answered: the checkbox keeps what the user chose.
let switchInFlight = false;
// seat -> {position, moves, complete}: the last legal moves the server sent to that (held) seat;
// `complete` is false when the server left some out (`legal_moves_complete: false`, Khan).
const legal = new Map();
// position -> position: where a `left` event that did not pass the turn took the position (the
// colour dropped from its third field). The seat on move keeps its legal moves then, and the
// server does not send them again: moves known for the position before count for the one after.
const carried = new Map();
// seat -> RoomSocket; a spectator's socket is under `null`.
const sockets = new Map();
let role = 'spectator';
let board = null;
let lastView = null;
let orientation = 0;
let moveInFlight = false;
// A passing word under the status (a refused command, a skipped turn): {key, params} or text.
let message = null;
// The board module (its exports: Khan-Tsin's parsePosition names who played each move).
let boardModule = null;
// Offer ids this page declined or withdrew itself: their `offer_declined` needs no word.
const ownDeclines = new Set();
// Ouk Chatrang's claim button: how often each position (the FEN's board, side to move and rights)
// has stood in this game as far as this page knows. `complete`: the page saw every position since
// the start (a first snapshot before any move, then every `moved`); after a snapshot that came
// with moves it did not see, it is false and the button shows from the 8th ply on instead.
const seen = { complete: false, counts: new Map() };
// Khan-Tsin: the colour that played each ply, when a `moved` event said so (its seat).
const moveColors = [];
// Abandonment (timed rooms): seat -> the browser's performance.now() from which the others may
// claim against that seat while it is away and on move (from `presence.claimable_at`, server
// time, turned into this browser's time with clockOffset). Dropped when the seat comes back.
const claimable = new Map();
// Khan-Tsin votes sent from here: `${seat}@${ply}` (the server forgets them when the turn moves).
const votes = new Set();

// A seat's colour with its player's name; a computer player is named by its level in the page's
// language (the server names it in English).
function seatName(seat) {
  const info = room.seats[seat];
  if (!info) return '';
  const color = colorName(room.game, info.color);
  const name = info.bot ? t('room.bot_name', { level: info.bot }) : info.name;
  return name ? t('room.player_named', { color, name }) : color;
}

// The seat this browser acts for with resign / offer / claim: its own, or at a local table the
// one on move.
function actingSeat() {
  if (role === 'player') return [...sockets.keys()][0];
  if (role === 'local' && sockets.has(room.toMove)) return room.toMove;
  return null;
}

// The socket whose chat frames this page takes (at a local table every seat's socket brings them).
function chatSeat() {
  return [...sockets.keys()][0] ?? null;
}

// ---- state from the server's frames

function receive(seat, frame) {
  const d = frame.d ?? {};
  if (seat !== null && d.legal_moves !== undefined) {
    legal.set(seat, {
      position: carried.get(d.position) ?? d.position,
      moves: d.legal_moves,
      complete: d.legal_moves_complete !== false,
    });
  }
  switch (frame.t) {
    case 'welcome':
      return;
    case 'chat':
      if (seat !== chatSeat()) return;
      chat.push(d);
      renderChat();
      return;
    case 'chat_history':
      if (seat !== chatSeat()) return;
      chat = [...(d.messages ?? [])];
      renderChat();
      return;
    case 'presence':
      if (room.seats[d.seat]) room.seats[d.seat].connected = d.connected;
      if (d.connected || !d.claimable_at) claimable.delete(d.seat);
      else claimable.set(d.seat, serverTimeHere(d.claimable_at));
      render();
      return;
    case 'snapshot': {
      if (seat === chatSeat()) {
        chat = [...(d.chat ?? [])];
        renderChat();
      }
      if (room.version !== null && frame.v < room.version) return;
      const live = room.version !== null;
      const hadRematch = room.rematch !== null;
      applySnapshot(frame.v, d);
      for (const s of d.seats ?? []) if (s.connected) claimable.delete(s.seat);
      if (room.rematch && !hadRematch) followRematch(live);
      break;
    }
    default:
      if (frame.v === undefined || room.version === null) return;
      if (frame.v <= room.version) {
        // At a local table every seat's socket brings each event; the one on move may bring its
        // legal moves after another socket has already applied the event.
        if (d.legal_moves !== undefined) render();
        return;
      }
      applyEvent(frame.t, d);
      room.version = frame.v;
      if (frame.t === 'rematch') followRematch(true);
  }
  render();
}

function applySnapshot(version, d) {
  const sameHistory = seen.complete && room.version === version && room.moves.length === d.moves.length;
  if (!sameHistory) {
    seen.complete = d.moves.length === 0;
    seen.counts = new Map([[positionKey(d.position), 1]]);
    moveColors.length = 0;
  }
  Object.assign(room, {
    version,
    status: d.status,
    seats: d.seats,
    startPosition: d.start_position,
    position: d.position,
    toMove: d.to_move,
    moves: [...d.moves],
    displayMoves: [...d.display_moves],
    offers: d.offers.map((o) => ({ ...o, accepted: [...(o.accepted ?? [])] })),
    counting: d.counting ?? null,
    result: d.result ?? null,
    spectatorChat: d.spectator_chat !== false,
    rematch: d.rematch ?? null,
  });
  room.clock = null;
  if (d.clock) setClock(d.clock, { initialS: d.clock.initial_s, incrementS: d.clock.increment_s });
}

// Takes a clock from the server ({remaining_ms, running, at}): each seat's time at the server's
// instant `at`. The offset between the browser's clock and the server's is estimated at receipt,
// offset = Date.now() - Date.parse(at) (the skew plus the delivery time), and the smallest offset
// seen on this page is kept: for a fresh frame that is counting from its receipt; a frame that is
// older than it looks (events replayed after a reconnect) is counted from its real `at`. From
// then on the running clock follows performance.now(), which a change of the computer's clock
// does not move.
function setClock(clock, settings = {}) {
  const offset = Date.now() - Date.parse(clock.at);
  if (Number.isFinite(offset)) clockOffset = Math.min(clockOffset, offset);
  const age = Number.isFinite(offset) ? Math.max(0, offset - clockOffset) : 0;
  room.clock = {
    initialS: settings.initialS ?? room.clock?.initialS ?? null,
    incrementS: settings.incrementS ?? room.clock?.incrementS ?? null,
    remaining: [...clock.remaining_ms],
    running: clock.running ?? null,
    since: performance.now() - age,
  };
}

// A server instant (RFC 3339) as this browser's performance.now(), by the offset of setClock.
function serverTimeHere(at) {
  const offset = Number.isFinite(clockOffset) ? clockOffset : 0;
  return performance.now() + (Date.parse(at) + offset - Date.now());
}

// The abandonment claim open to this browser: the away seat on move, the seat here that claims
// (another one still in the game), and ms until the claim is possible (0 once it is); else null.
function abandonClaim() {
  if (room.status !== 'playing' || room.toMove === null) return null;
  const away = room.toMove;
  const from = claimable.get(away);
  if (from === undefined || room.seats[away]?.connected || room.seats[away]?.left) return null;
  const claimer = [...sockets.keys()].find((s) => s !== null && s !== away && room.seats[s] && !room.seats[s].left);
  if (claimer === undefined) return null;
  return { away, claimer, wait: Math.max(0, from - performance.now()) };
}

// Shows the claim buttons once the grace period is over, a countdown before (every 100 ms).
function tickClaim() {
  const claim = abandonClaim();
  const three = room.seats.length > 2;
  const voted = claim && three && votes.has(`${claim.away}@${room.moves.length}`);
  const ready = Boolean(claim && claim.wait === 0 && !voted);
  $('#claim-victory').hidden = !ready;
  $('#claim-abandoned-draw').hidden = !(ready && !three);
  const note = $('#claim-wait');
  let text = '';
  if (claim && voted) text = t('room.abandon_voted', { player: seatName(claim.away) });
  else if (claim && claim.wait > 0) {
    text = t('room.abandon_wait', { player: seatName(claim.away), seconds: Math.ceil(claim.wait / 1000) });
  } else if (claim) text = t('room.abandon_ready', { player: seatName(claim.away) });
  note.hidden = !text;
  if (note.textContent !== text) note.textContent = text;
  if (ready) {
    const label = three ? t('room.vote_remove', { player: seatName(claim.away) }) : t('room.claim_victory');
    if ($('#claim-victory').textContent !== label) $('#claim-victory').textContent = label;
  }
}

async function claimVictory() {
  const claim = abandonClaim();
  if (!claim || claim.wait > 0) return;
  const three = room.seats.length > 2;
  const ok = await command(claim.claimer, 'claim_victory', {}, 'claim');
  if (ok && three) {
    votes.add(`${claim.away}@${room.moves.length}`);
    render();
  }
}

async function claimAbandonedDraw() {
  const claim = abandonClaim();
  if (claim && claim.wait === 0) command(claim.claimer, 'claim_draw', { reason: 'abandoned' }, 'claim');
}

// A seat's time left now, in ms (never below 0).
function clockLeft(seat) {
  const clock = room.clock;
  const left = clock.remaining[seat] ?? 0;
  if (clock.running !== seat || room.status !== 'playing') return Math.max(0, left);
  return Math.max(0, left - (performance.now() - clock.since));
}

// m:ss (h:mm:ss from an hour), with tenths under 10 s: 0:09.4.
function clockText(ms) {
  if (ms < 10_000) return `0:0${Math.floor(ms / 1000)}.${Math.floor((ms % 1000) / 100)}`;
  const total = Math.floor(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const sec = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

// Redraws the clocks' times (every 100 ms while one runs, and after each render).
function tickClocks() {
  if (!room.clock) return;
  for (const el of document.querySelectorAll('#players .clock[data-seat]')) {
    const seat = Number(el.dataset.seat);
    const left = clockLeft(seat);
    const text = clockText(left);
    if (el.textContent !== text) el.textContent = text;
    el.classList.toggle('running', room.status === 'playing' && room.clock.running === seat);
    el.classList.toggle('low', left < 10_000);
  }
}

function applyEvent(type, d) {
  switch (type) {
    case 'seat_taken':
      Object.assign(room.seats[d.seat], { taken: true, name: d.name, color: d.color, bot: d.bot });
      break;
    case 'game_started':
      Object.assign(room, { status: 'playing', position: d.position, toMove: d.to_move });
      if (d.clock) setClock(d.clock);
      break;
    case 'moved':
      if (d.seat !== undefined && room.seats[d.seat]) moveColors[room.moves.length] = room.seats[d.seat].color;
      room.moves.push(d.move);
      seen.counts.set(positionKey(d.position), (seen.counts.get(positionKey(d.position)) ?? 0) + 1);
      room.displayMoves.push(d.display);
      Object.assign(room, { position: d.position, toMove: d.to_move, counting: d.counting ?? null });
      if (d.clock) setClock(d.clock);
      message = null;
      break;
    case 'offer':
      room.offers.push({ id: d.id, kind: d.kind, by: d.by, accepted: [...(d.accepted ?? [])] });
      break;
    case 'offer_declined': {
      const offer = room.offers.find((o) => o.id === d.id);
      room.offers = room.offers.filter((o) => o.id !== d.id);
      if (offer) message = declinedMessage(offer);
      break;
    }
    case 'offer_accepted':
      room.offers.find((o) => o.id === d.id)?.accepted.push(d.by);
      break;
    case 'skipped':
      message = { key: 'room.skipped', params: { player: seatName(d.seat) } };
      break;
    case 'left': {
      const before = { position: room.position, toMove: room.toMove };
      room.seats[d.seat].left = true;
      Object.assign(room, { position: d.position, toMove: d.to_move });
      // A player who was not on move resigned: the turn stays, the moves too (the pawns have not
      // moved), but the position text changed and no legal moves come with this event.
      if (d.legal_moves === undefined && d.to_move !== null && d.to_move === before.toMove
        && before.position !== null && before.position !== d.position) {
        carry(before.position, d.position);
      }
      if (d.clock) setClock(d.clock);
      // A three-player Khan-Tsin seat whose time ran out is out of the game like one that resigned.
      if (d.reason === 'timeout') room.seats[d.seat].timedOut = true;
      const leftKey = { timeout: 'room.left_timeout', abandoned: 'room.left_abandoned' }[d.reason] ?? 'room.left';
      message = { key: leftKey, params: { player: seatName(d.seat) } };
      break;
    }
    case 'game_over':
      Object.assign(room, { status: 'finished', result: d.result, toMove: null, offers: [] });
      // The final times; a room that ended before its game started has none.
      if (d.clock) setClock(d.clock);
      else if (room.clock) room.clock.running = null;
      // A refusal or a skip from the game is stale now: the result speaks.
      message = null;
      break;
    case 'spectator_chat':
      room.spectatorChat = d.enabled;
      break;
    case 'rematch':
      room.rematch = d;
      room.offers = room.offers.filter((o) => o.kind !== 'rematch');
      break;
  }
}

// Words for an offer that closed (`offer_declined` tells only which): the offerer's page names
// the player who declined it (with one other player still in the game; else it says it was
// declined), the other players' pages say the offerer withdrew it (two players: nobody else could
// have), and spectators or a three-player table learn that it is off. A decline sent from this
// page says nothing: the user just did it.
function declinedMessage(offer) {
  if (ownDeclines.has(offer.id)) return null;
  const kind = offer.kind === 'rematch' ? 'rematch' : 'draw';
  const maker = seatName(offer.by);
  const others = room.seats.filter((s) => s.seat !== offer.by && !sockets.has(s.seat)
    && (kind === 'rematch' || !s.left));
  if (sockets.has(offer.by)) {
    return others.length === 1
      ? { key: `room.${kind}_declined_by`, params: { player: seatName(others[0].seat) } }
      : { key: `room.${kind}_declined`, params: {} };
  }
  const mine = [...sockets.keys()].some((seat) => seat !== null);
  if (mine && others.length === 0) return { key: `room.${kind}_withdrawn`, params: { player: maker } };
  return { key: `room.${kind}_closed`, params: { player: maker } };
}

// An Ouk Chatrang FEN's board, side to move and rights: what makes a position repeat.
function positionKey(position) {
  return (position ?? '').trim().split(/\s+/).slice(0, 3).join(' ');
}

// Whether the claim-draw button shows (see `seen`): the position has stood three times, or,
// when the page does not know the whole game, from the 8th ply on (the server judges the claim).
function repetitionPossible() {
  if (seen.complete) return (seen.counts.get(positionKey(room.position)) ?? 0) >= 3;
  return room.moves.length >= 8;
}

// The rematch was made: every seat held here keeps its token for the new room, at its new seat
// (the same token works there). `live`: it happened while this page was showing the room (the
// event, or a snapshot after a reconnect), so the page goes to the new room, a spectator's too;
// a page opened later (the old link, the back button) shows a link to it instead.
function followRematch(live) {
  const info = room.rematch;
  for (const [seat, socket] of sockets) {
    if (seat === null || !socket.token) continue;
    const moved = info.seats.find((s) => s.seat === seat);
    if (!moved) continue;
    keepSeat(info.invite_code, info.room_id, moved.new_seat, socket.token, {
      local: role === 'local',
      creator: seat === creatorSeat,
    });
  }
  if (live) location.assign(roomUrl(info.invite_code));
}

// Legal moves known for position `from` count for position `to` from now on (see `carried`).
function carry(from, to) {
  for (const [old, now] of carried) if (now === from) carried.set(old, to);
  carried.set(from, to);
  for (const known of legal.values()) if (known.position === from) known.position = to;
}

// ---- drawing

function render() {
  const main = $('#room');
  if (room.version !== null) main.dataset.version = room.version;
  main.dataset.status = room.status;
  main.dataset.toMove = room.toMove ?? '';
  main.dataset.role = role;
  renderBoard();
  renderPlayers();
  tickClocks();
  renderStatus();
  renderControls();
  renderMoves();
  renderInvite();
  renderDownload();
  renderChatControls();
}

// After a game that started: its record (any game) and PGN (Ouk Chatrang), from the REST API.
function renderDownload() {
  const box = $('#download');
  const started = room.seats.length > 0 && room.seats.every((s) => s.taken);
  box.hidden = !(room.status === 'finished' && started && room.id);
  if (box.hidden) return;
  const record = $('#download-record');
  record.href = `api/games/${encodeURIComponent(room.id)}/record`;
  record.setAttribute('download', `${room.game}-${room.id}.txt`);
  const pgn = $('#download-pgn');
  pgn.hidden = room.game !== 'ouk-chatrang';
  pgn.href = `api/games/${encodeURIComponent(room.id)}/pgn`;
  pgn.setAttribute('download', `${room.game}-${room.id}.pgn`);
}

// The legal moves of the seat on move when this browser holds it and they are for the current
// position: {moves, complete}, else null.
function legalForBoard() {
  const seat = room.toMove;
  if (room.status !== 'playing' || seat === null || !sockets.has(seat) || moveInFlight) return null;
  const known = legal.get(seat);
  return known && known.position === room.position ? known : null;
}

function renderBoard() {
  if (!board || room.position === null) return;
  if (role === 'player') orientation = [...sockets.keys()][0];
  else if (role === 'local' && room.toMove !== null) orientation = room.toMove;
  else if (role === 'spectator') orientation = 0;
  const known = legalForBoard();
  const view = {
    position: room.position,
    legal: known?.moves ?? null,
    complete: known?.complete ?? true,
    lastMove: room.moves.at(-1) ?? null,
    orientation,
    colors: room.seats.map((s) => s.color),
    check: inCheck(),
  };
  const changed = !lastView || Object.keys(view).some((key) => key !== 'colors' && view[key] !== lastView[key])
    || view.colors.join() !== lastView.colors.join();
  if (!changed) return;
  lastView = view;
  board.update(view);
}

// Ouk Chatrang marks a checking move with `+` in its display (SAN), a mating one with `#`.
function inCheck() {
  const last = room.displayMoves.at(-1) ?? '';
  return room.game === 'ouk-chatrang' && (last.endsWith('#') || (room.status === 'playing' && last.endsWith('+')));
}

function renderPlayers() {
  const list = $('#players');
  list.replaceChildren(
    ...room.seats.map((info) => {
      const li = document.createElement('li');
      li.dataset.seat = info.seat;
      li.dataset.color = info.color;
      li.classList.toggle('on-move', room.toMove === info.seat);
      li.classList.toggle('left', Boolean(info.left));
      if (info.bot) li.dataset.bot = info.bot;
      const swatch = document.createElement('span');
      swatch.className = `swatch ${info.color}`;
      const name = document.createElement('span');
      name.className = 'who';
      name.textContent = info.taken ? seatName(info.seat) : t('room.free_seat', { color: colorName(room.game, info.color) });
      const notes = document.createElement('span');
      notes.className = 'notes';
      const words = [];
      if (sockets.has(info.seat)) words.push(t('room.you'));
      if (info.left) words.push(t(info.timedOut || (room.clock && room.clock.remaining[info.seat] === 0) ? 'room.out_of_time' : 'room.has_left'));
      // A computer player is always there: only people are online or away.
      else if (info.taken && !info.bot) words.push(t(info.connected ? 'room.online' : 'room.away'));
      notes.textContent = words.join(' · ');
      const dot = document.createElement('span');
      dot.className = `dot ${info.connected ? 'on' : 'off'}`;
      li.append(swatch, name, dot, notes);
      if (room.clock) {
        const clock = document.createElement('span');
        clock.className = 'clock';
        clock.dataset.seat = info.seat;
        clock.setAttribute('role', 'timer');
        clock.setAttribute('aria-label', t('room.clock_label', { player: info.taken ? seatName(info.seat) : colorName(room.game, info.color) }));
        li.append(clock);
      }
      return li;
    }),
  );
}

function renderStatus() {
  const turn = $('#turn');
  if (room.status === 'waiting') {
    const free = room.seats.filter((s) => !s.taken).length;
    turn.textContent = t(free === 1 ? 'room.waiting_one' : 'room.waiting', { count: free });
  } else if (room.status === 'playing' && room.toMove !== null) {
    const player = seatName(room.toMove);
    if (role === 'player' && sockets.has(room.toMove)) turn.textContent = t('room.your_turn');
    else turn.textContent = t('room.to_move', { player });
  } else {
    turn.textContent = '';
  }

  const check = $('#check');
  check.hidden = room.status !== 'playing' || !inCheck();
  check.textContent = check.hidden ? '' : t('room.check', { player: seatName(room.toMove) });

  const counting = $('#counting');
  counting.hidden = !room.counting;
  counting.textContent = room.counting
    ? t('room.counting', {
        kind: t(`counting.${room.counting.kind}`),
        count: room.counting.count,
        limit: room.counting.limit,
        side: colorName(room.game, room.counting.escaping),
      })
    : '';

  const result = $('#result');
  result.hidden = !room.result;
  result.textContent = room.result ? resultText(room.result) : '';

  const text = message === null ? '' : typeof message === 'string' ? message : t(message.key, message.params);
  $('#message').textContent = text;
  renderOffers();
}

function resultText({ winner, reason }) {
  // No result at all, neither a draw nor a win: a room that closed before every seat was taken
  // (nobody joined in time), or a game called off before every player had moved.
  if (reason === 'aborted') return t(room.seats.every((s) => s.taken) ? 'room.aborted_game' : 'room.aborted');
  const why = t(`reason.${reason}`);
  if (winner === null) return t('room.draw', { reason: why });
  return t('room.winner', { player: seatName(winner), reason: why });
}

// The open draw offer, the seat here that can answer it, and whether it is our own.
function drawOffer() {
  const offer = room.offers.find((o) => o.kind === 'draw');
  if (!offer) return null;
  const answerer = [...sockets.keys()].find(
    (seat) => seat !== null && seat !== offer.by && !offer.accepted.includes(seat) && !room.seats[seat]?.left,
  );
  return { offer, answerer: answerer ?? null, ours: sockets.has(offer.by) };
}

// The open rematch offer, the seat here that can accept it, and whether it is our own. Every
// other seat must accept, a player who left a three-player game too (everyone sits in the next).
function rematchOffer() {
  const offer = room.offers.find((o) => o.kind === 'rematch');
  if (!offer) return null;
  const answerer = [...sockets.keys()].find(
    (seat) => seat !== null && seat !== offer.by && !offer.accepted.includes(seat),
  );
  return { offer, answerer: answerer ?? null, ours: sockets.has(offer.by) };
}

function renderOffers() {
  const box = $('#offers');
  const texts = [];
  for (const [open, key] of [[drawOffer(), 'room.draw_offered'], [rematchOffer(), 'room.rematch_offered']]) {
    if (!open) continue;
    const accepted = open.offer.accepted.map(seatName).join(', ');
    texts.push(t(key, { player: seatName(open.offer.by) })
      + (accepted ? ` ${t('room.draw_accepted_by', { players: accepted })}` : ''));
  }
  box.textContent = texts.join(' ');
}

function renderControls() {
  const playing = room.status === 'playing';
  const seat = actingSeat();
  const acting = playing && seat !== null && !room.seats[seat]?.left;
  const open = playing ? drawOffer() : null;
  const show = (id, visible) => {
    $(id).hidden = !visible;
  };
  show('#resign', acting);
  show('#offer-draw', acting && !open);
  show('#accept-draw', Boolean(open && open.answerer !== null));
  const decline = $('#decline-draw');
  const canWithdraw = Boolean(open && open.answerer === null && open.ours);
  show('#decline-draw', Boolean(open && (open.answerer !== null || canWithdraw)));
  decline.textContent = t(canWithdraw ? 'room.withdraw_draw' : 'room.decline_draw');
  tickClaim();
  show('#claim-draw', acting && room.game === 'ouk-chatrang' && sockets.has(room.toMove) && repetitionPossible());
  // Abort: while not every player still in the game has moved (the server judges; a refusal says
  // why), or, for the creator, a room still waiting for players.
  const inGame = room.seats.filter((s) => !s.left).length;
  const waitingCreator = room.status === 'waiting' && role === 'player' && seat === creatorSeat;
  show('#abort', (acting && room.moves.length < inGame) || waitingCreator);
  $('#abort').textContent = t(waitingCreator ? 'room.cancel_room' : 'room.abort');

  // Rematch: after a game that started, until it is made; an open offer is answered instead.
  const rematch = room.status === 'finished' && !room.rematch ? rematchOffer() : null;
  const started = room.seats.length > 0 && room.seats.every((s) => s.taken);
  show('#rematch', room.status === 'finished' && role !== 'spectator' && started && !room.rematch && !rematch);
  show('#accept-rematch', Boolean(rematch && rematch.answerer !== null));
  const withdrawRematch = Boolean(rematch && rematch.answerer === null && rematch.ours);
  show('#decline-rematch', Boolean(rematch && (rematch.answerer !== null || withdrawRematch)));
  $('#decline-rematch').textContent = t(withdrawRematch ? 'room.withdraw_rematch' : 'room.decline_rematch');
  $('#rematch-box').hidden = !room.rematch;
  if (room.rematch) {
    const link = $('#rematch-link');
    link.href = roomUrl(room.rematch.invite_code);
    link.textContent = t(role === 'spectator' ? 'room.rematch_watch' : 'room.rematch_go');
  }

  const free = room.seats.filter((s) => !s.taken);
  const joinBox = $('#join-box');
  joinBox.hidden = !(role === 'spectator' && room.status === 'waiting' && free.length > 0);
  if (!joinBox.hidden) offerSeats($('#seat-choice'), free, t('home.seat_random'));
}

// The seat that played the first move of a square-board game: its position text's second field
// is the side to move (`w` or `b`).
function firstMover() {
  return room.startPosition?.split(' ')[1] === 'b' ? 1 : 0;
}

// A move as the move list shows it. The other games' displays are notation. The server's
// `display` is English in Khan-Tsin (`p1`, `K10`, `17:2- to 10`, `pass`): there the list says it in
// the page's language with the colour that played it (`color`, or null when unknown): "White
// pawn on 1", "Green Khan-pawn on 10", "Blue: 17:2- → 10", "White passes".
function moveText(display, ply, color) {
  if (room.game !== 'khan-tsin') return display;
  const name = color ? colorName(room.game, color) : '';
  const key = (base) => (color ? `room.kt.${base}` : `room.kt.${base}_nocolor`);
  if (display === 'pass') return t(key('pass'), { color: name });
  const placed = /^([pK])(\d+)$/.exec(room.moves[ply] ?? display);
  if (placed) return t(key(placed[1] === 'K' ? 'placed_khan' : 'placed_pawn'), { color: name, square: placed[2] });
  const shift = /^(\d+:\d+[+-]) to (\d+)$/.exec(display);
  if (!shift) return display;
  const move = /^\d+:\d+[+-]$/.test(room.moves[ply] ?? '') ? room.moves[ply] : shift[1];
  return t(key('moved'), { color: name, move, square: shift[2] });
}

// Khan-Tsin: the colour that played each ply. A `moved` event names its seat; for the moves a
// snapshot brought the page replays them from the start position: a stack move is played by
// the colour on top of the stack it leaves (only your own top pawn moves), a placement by the
// next colour in turn (white, green, blue, those playing) that has pawns left to place. Null
// where the replay cannot tell (a three-player game whose player resigned during placement may
// be named wrongly: the moves say nothing of it).
function khanTsinColors() {
  const colors = [];
  let pos = null;
  try {
    pos = room.startPosition ? boardModule?.parsePosition?.(room.startPosition) : null;
  } catch {
    pos = null;
  }
  const stacks = pos ? pos.stacks.map((s) => s.map((p) => p.color)) : null;
  const placed = pos ? { ...pos.placed } : null;
  let turn = pos?.toMove ?? null;
  const nextTurn = (after) => {
    const order = pos.playing;
    for (let i = 1; i <= order.length; i += 1) {
      const c = order[(order.indexOf(after) + i) % order.length];
      if (placed[c] < 12) return c;
    }
    return null;
  };
  room.moves.forEach((move, ply) => {
    let color = null;
    const placement = /^([pK])(\d+)$/.exec(move);
    const shift = /^(\d+):(\d+)[+-]$/.exec(move);
    const landing = /to (\d+)$/.exec(room.displayMoves[ply] ?? '');
    if (stacks && placement) {
      color = turn;
      if (moveColors[ply]) color = moveColors[ply];
      if (color) {
        stacks[Number(placement[2])]?.push(color);
        placed[color] += 1;
        turn = pos.playing.includes(color) ? nextTurn(color) : turn;
      }
    } else if (stacks && shift && landing) {
      const from = stacks[Number(shift[1])] ?? [];
      color = from.at(-1) ?? null;
      const moving = from.splice(Math.max(0, from.length - Number(shift[2])));
      stacks[Number(landing[1])]?.push(...moving);
    }
    colors.push(moveColors[ply] ?? color);
  });
  return colors;
}

function renderMoves() {
  const list = $('#moves');
  const pairs = room.game !== 'khan-tsin';
  list.classList.toggle('pairs', pairs);
  const lang = document.documentElement.lang;
  if (list.children.length === room.displayMoves.length && list.dataset.room === room.id
    && list.dataset.lang === lang) return;
  list.dataset.room = room.id;
  list.dataset.lang = lang;
  const colors = room.game === 'khan-tsin' ? khanTsinColors() : [];
  list.replaceChildren(
    ...room.displayMoves.map((display, ply) => {
      const li = document.createElement('li');
      const color = colors[ply] ?? null;
      if (color) {
        const swatch = document.createElement('span');
        swatch.className = `swatch ${color}`;
        swatch.setAttribute('aria-hidden', 'true');
        li.append(swatch);
        li.dataset.color = color;
      }
      li.append(moveText(display, ply, color));
      li.dataset.move = room.moves[ply] ?? '';
      li.dataset.ply = ply + 1;
      if (pairs) li.dataset.seat = (ply + firstMover()) % 2;
      return li;
    }),
  );
  // The list scrolls inside its own box; the page itself never moves (scrollIntoView would scroll
  // every scrollable ancestor, the window too, taking the board off a phone's screen).
  list.scrollTop = list.scrollHeight;
}

function renderInvite() {
  const free = room.status === 'waiting' ? room.seats.filter((s) => !s.taken) : [];
  $('#invite-box').hidden = !(free.length > 0 && role !== 'local');
  $('#invite-link').value = roomUrl(inviteCode);
  // A seated player may give a free seat to the computer instead.
  const addBot = $('#add-bot-box');
  addBot.hidden = !(free.length > 0 && role === 'player');
  if (!addBot.hidden) offerSeats($('#add-bot-seat'), free);
}

// Fills a select with the free seats by colour, after an option for any seat (value '') when
// `any` names it. Rebuilt only when the free seats or the language changed, not to close it under
// the user; hidden when there is nothing to choose.
function offerSeats(select, free, any = null) {
  const wanted = free.map((s) => String(s.seat));
  const signature = `${wanted.join()} ${document.documentElement.lang}`;
  if (select.dataset.signature !== signature) {
    const previous = select.value;
    select.replaceChildren(...(any === null ? [] : [new Option(any, '')]));
    for (const s of free) select.add(new Option(colorName(room.game, s.color), String(s.seat)));
    select.value = wanted.includes(previous) ? previous : select.options[0].value;
    select.dataset.signature = signature;
  }
  select.hidden = free.length < 2;
}

function renderConnection() {
  const all = [...sockets.values()];
  const el = $('#connection');
  const failed = all.find((s) => s.failure);
  let state = 'online';
  if (failed || all.some((s) => s.state === 'offline')) state = 'offline';
  else if (all.length === 0 || all.some((s) => s.state === 'connecting')) state = 'connecting';
  el.dataset.state = state;
  if (failed) {
    const key = `connection.gave_up.${failed.failure.code}`;
    el.textContent = t(key) === key ? t('connection.gave_up.other') : t(key);
  } else if (state === 'offline') el.textContent = t('connection.offline');
  else el.textContent = t(`connection.${state}`);
}

// ---- sockets and seats

function connect() {
  for (const socket of sockets.values()) socket.close();
  sockets.clear();
  legal.clear();
  carried.clear();
  const held = heldSeats(inviteCode);
  const seats = held.roomId === null || held.roomId === room.id ? held.seats : new Map();
  role = seats.size === 0 ? 'spectator' : seats.size === 1 ? 'player' : 'local';
  creatorSeat = seats.has(held.creator) ? held.creator : null;
  const entries = seats.size === 0 ? [[null, null]] : [...seats];
  for (const [seat, token] of entries) {
    const socket = new RoomSocket({
      room: room.id,
      token,
      // A spectator is named in the spectators' chat by the name last typed in this browser.
      name: token ? null : lastName() || null,
      // A timed game resumes from a snapshot: its clock is the server's now (the server gives
      // back the time it was down; replayed events would only repeat the clocks of before).
      resumeFromSnapshot: () => room.clock !== null && room.status === 'playing',
      onFrame: (frame) => receive(seat, frame),
      onState: (s) => socketState(seat, s),
    });
    sockets.set(seat, socket);
  }
  renderConnection();
  render();
}

function socketState(seat, socket) {
  renderConnection();
  if (socket.failure?.code === 'bad_token' && seat !== null) {
    // The server does not know this seat's token (a room recreated, storage from elsewhere):
    // forget it and carry on with what is left, as a spectator at worst.
    forgetSeat(inviteCode, seat);
    message = { key: 'room.seat_lost' };
    connect();
  } else if (socket.failure?.code === 'unknown_room') {
    showNotice(t('room.no_such_room'));
  }
}

async function takeSeat() {
  const name = $('#name').value.trim();
  rememberName(name);
  const seat = $('#seat-choice').value;
  const body = {};
  if (name) body.name = name;
  if (seat !== '') body.seat = Number(seat);
  $('#take-seat').disabled = true;
  try {
    const joined = await joinRoom(inviteCode, body);
    keepSeat(inviteCode, joined.room_id, joined.seat, joined.seat_token);
    connect();
  } catch (problem) {
    message = errorText(problem);
    render();
  } finally {
    $('#take-seat').disabled = false;
  }
}

// Sends a command for a seat held here and shows a refusal in words (`context`: a group of
// words for the refusals of this kind of command, e.g. `rematch.rate_limited`, before the
// general `reject.*`). Resolves with whether the server accepted it.
async function command(seat, type, d = {}, context = null) {
  const socket = sockets.get(seat);
  if (!socket) return false;
  try {
    await socket.send(type, d);
    return true;
  } catch (problem) {
    message = rejectText(problem, context);
    render();
    return false;
  }
}

function rejectText(problem, context = null) {
  if (context) {
    const special = `${context}.${problem.code}`;
    if (t(special) !== special) return t(special);
  }
  const key = `reject.${problem.code}`;
  return t(key) === key ? t('error.other', { message: problem.message }) : t(key);
}

async function sendMove(move) {
  const seat = room.toMove;
  if (!sockets.has(seat) || moveInFlight) return;
  moveInFlight = true;
  message = null;
  render();
  try {
    await command(seat, 'move', { move, v: room.version });
  } finally {
    moveInFlight = false;
    render();
  }
}

// Gives the chosen free seat to a computer player of the chosen level: the server answers with
// `seat_taken` (and `game_started` when it was the last free seat), or refuses `cannot_add_bot`
// when the seat was taken meanwhile or the game began.
async function addBot() {
  const button = $('#add-bot');
  button.disabled = true;
  message = null;
  try {
    await command(actingSeat(), 'add_bot', {
      seat: Number($('#add-bot-seat').value),
      level: Number($('#add-bot-level').value),
    });
  } finally {
    button.disabled = false;
  }
}

// Offers a rematch (the server makes the next room once every other seat accepts). At a local
// table this browser holds every seat: it accepts for the others at once.
async function offerRematch() {
  const seats = [...sockets.keys()].filter((seat) => seat !== null);
  if (seats.length === 0) return;
  message = null;
  if (!(await command(seats[0], 'offer_rematch', {}, 'rematch')) || role !== 'local') return;
  for (const seat of seats.slice(1)) {
    const offer = room.offers.find((o) => o.kind === 'rematch');
    if (!offer || offer.accepted.includes(seat)) continue;
    if (!(await command(seat, 'accept', { offer: offer.id }, 'rematch'))) return;
  }
}

// ---- chat

function chatName(entry) {
  if (entry.seat !== null && entry.seat !== undefined) {
    const color = room.seats[entry.seat]?.color;
    return entry.name || (color ? colorName(room.game, color) : t('chat.player'));
  }
  return entry.name || t('chat.spectator');
}

// The message list, rebuilt from `chat` (text through textContent only: it is what people typed).
function renderChat() {
  const list = $('#chat');
  const labelled = role === 'spectator';
  list.replaceChildren(
    ...chat.map((entry) => {
      const li = document.createElement('li');
      li.dataset.channel = entry.channel;
      if (entry.seat !== null && entry.seat !== undefined) li.dataset.seat = entry.seat;
      if (labelled) {
        const channel = document.createElement('span');
        channel.className = 'chat-channel';
        channel.textContent = t(`chat.channel.${entry.channel}`);
        li.append(channel, ' ');
      }
      const name = document.createElement('span');
      name.className = 'chat-name';
      name.textContent = chatName(entry);
      const text = document.createElement('span');
      text.className = 'chat-text';
      text.textContent = entry.text;
      if (entry.at) li.title = new Date(entry.at).toLocaleString(document.documentElement.lang);
      li.append(name, ' ', text);
      return li;
    }),
  );
  list.scrollTop = list.scrollHeight;
  $('#chat-box').dataset.count = chat.length;
}

function renderChatControls() {
  const box = $('#chat-box');
  box.hidden = role === 'local' || room.version === null;
  if (box.hidden) return;
  const closed = role === 'spectator' && !room.spectatorChat;
  $('#chat-input').disabled = closed;
  $('#chat-send').disabled = closed;
  const note = $('#chat-note');
  const noteKey = closed ? 'chat.spectators_off' : role === 'spectator' ? 'chat.spectator_hint' : null;
  note.hidden = noteKey === null;
  note.textContent = noteKey === null ? '' : t(noteKey);
  const toggle = $('#spectator-chat-switch');
  toggle.hidden = !(role === 'player' && creatorSeat !== null);
  if (!switchInFlight) $('#spectator-chat').checked = room.spectatorChat;
}

async function sendChat(event) {
  event.preventDefault();
  const input = $('#chat-input');
  const text = input.value.trim();
  const seat = chatSeat();
  if (!text || !sockets.has(seat) || role === 'local') return;
  const error = $('#chat-error');
  error.textContent = '';
  input.value = '';
  try {
    await sockets.get(seat).send('chat', { channel: role === 'spectator' ? 'spectators' : 'players', text });
  } catch (problem) {
    if (!input.value) input.value = text;
    error.textContent = rejectText(problem, 'chat');
  }
}

async function switchSpectatorChat() {
  const enabled = $('#spectator-chat').checked;
  switchInFlight = true;
  try {
    await command(creatorSeat, 'set_spectator_chat', { enabled });
  } finally {
    switchInFlight = false;
    render();
  }
}

async function copyInvite() {
  const link = $('#invite-link');
  try {
    await navigator.clipboard.writeText(link.value);
  } catch {
    link.select();
    document.execCommand('copy');
  }
  $('#copy-invite').textContent = t('room.copied');
  setTimeout(() => {
    $('#copy-invite').textContent = t('room.copy');
  }, 2000);
}

function showNotice(text) {
  // No game to show: the board and the side panel (its "Moves" heading too) go.
  $('#board-area').hidden = true;
  $('#side').hidden = true;
  const notice = $('#notice');
  notice.hidden = false;
  notice.replaceChildren(text, ' ');
  const home = document.createElement('a');
  home.href = homeUrl();
  home.textContent = t('room.go_home');
  notice.append(home);
}

async function loadBoard(game) {
  const module = await import(`./boards/${game}.js`);
  boardModule = module;
  addStrings(module.strings);
  board = module.createBoard($('#board'), { t, onMove: sendMove });
}

async function start() {
  let summary;
  try {
    summary = await roomSummary(inviteCode);
  } catch (problem) {
    if (problem.status === 404) {
      $('#connection').dataset.state = 'offline';
      $('#connection').textContent = t('connection.gave_up.unknown_room');
      showNotice(t('room.no_such_room'));
      return;
    }
    // The server is away (restarting, or the network is): try again until it answers.
    $('#connection').dataset.state = 'offline';
    $('#connection').textContent = t('connection.offline');
    setTimeout(start, SUMMARY_RETRY_MS);
    return;
  }
  $('#notice').hidden = true;
  room.id = summary.room_id;
  room.game = summary.game;
  room.seats = summary.seats;
  room.status = summary.status;
  $('#game-name').textContent = t(`game.${room.game}`);
  document.title = `${t(`game.${room.game}`)} · ${t('app.name')}`;
  document.body.dataset.game = room.game;
  $('#rules-link').href = `rules/${encodeURIComponent(room.game)}`;
  $('#rules-link').hidden = false;
  await loadBoard(room.game);
  connect();
}

function wire() {
  const acting = (type, d) => () => command(actingSeat(), type, d);
  // Resigning cannot be taken back: ask first.
  $('#resign').addEventListener('click', () => {
    const seat = actingSeat();
    if (seat !== null && confirm(t('room.resign_confirm'))) command(seat, 'resign');
  });
  $('#offer-draw').addEventListener('click', () => command(actingSeat(), 'offer_draw', {}, 'draw'));
  $('#claim-draw').addEventListener('click', acting('claim_draw', { reason: 'repetition' }));
  $('#claim-victory').addEventListener('click', claimVictory);
  $('#claim-abandoned-draw').addEventListener('click', claimAbandonedDraw);
  $('#accept-draw').addEventListener('click', () => {
    const open = drawOffer();
    if (open?.answerer !== null) command(open.answerer, 'accept', { offer: open.offer.id });
  });
  $('#decline-draw').addEventListener('click', () => {
    const open = drawOffer();
    if (!open) return;
    const seat = open.answerer ?? open.offer.by;
    ownDeclines.add(open.offer.id);
    command(seat, 'decline', { offer: open.offer.id });
  });
  $('#abort').addEventListener('click', () => {
    const seat = actingSeat();
    if (seat !== null && confirm(t('room.abort_confirm'))) command(seat, 'abort');
  });
  $('#rematch').addEventListener('click', offerRematch);
  $('#accept-rematch').addEventListener('click', () => {
    const open = rematchOffer();
    if (open?.answerer !== null) command(open.answerer, 'accept', { offer: open.offer.id }, 'rematch');
  });
  $('#decline-rematch').addEventListener('click', () => {
    const open = rematchOffer();
    if (!open) return;
    ownDeclines.add(open.offer.id);
    command(open.answerer ?? open.offer.by, 'decline', { offer: open.offer.id }, 'rematch');
  });
  $('#chat-form').addEventListener('submit', sendChat);
  $('#spectator-chat').addEventListener('change', switchSpectatorChat);
  $('#take-seat').addEventListener('click', takeSeat);
  $('#copy-invite').addEventListener('click', copyInvite);
  $('#add-bot').addEventListener('click', addBot);
  $('#name').value = lastName();
  // The running clock counts down between the server's frames (tickClocks does nothing untimed).
  setInterval(() => {
    tickClocks();
    tickClaim();
  }, 100);
  onLanguageChange(() => {
    if (room.game) {
      $('#game-name').textContent = t(`game.${room.game}`);
      document.title = `${t(`game.${room.game}`)} · ${t('app.name')}`;
    }
    renderConnection();
    lastView = null;
    render();
    renderChat();
  });
}

setUpLanguage();
wire();
start();
