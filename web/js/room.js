// The room page, at r/{invite_code}: the board, the players, the move list, the game's state and
// the controls. This browser is a spectator (no seat held), a player (one seat) or a local
// pass-and-play table (every seat held here, moves built for whichever seat is on move).
//
// One RoomSocket per held seat (one without a token for a spectator). What the frames say is
// kept by room-state.js (a reducer with no DOM); this file draws it and sends the commands; the
// chat is room-chat.js's.
//
// After the game the players may agree to a rematch: the server makes the next room and each
// player's token works there too, so on the `rematch` event the page keeps each held seat's token
// for the new room (at its new seat) and goes there; spectators follow.

import { joinRoom, roomSummary, roomUrl, homeUrl, gameUrl } from './api.js';
import { RoomSocket } from './socket.js';
import { forgetSeat, heldSeats, keepSeat, lastName, rememberName } from './seats.js';
import { t, addStrings, setUpLanguage, onLanguageChange, colorName, errorText } from './i18n.js';
import { gameInfo, loadBoardModule } from './games.js';
import {
  abandonClaim, applyFrame, clockLeft, clockText, createRoomState, legalFor, repetitionPossible,
} from './room-state.js';
import { createChat } from './room-chat.js';
import { renderMoves } from './room-moves.js';
import { nameOfSeat, renderPlayers } from './room-players.js';
import { createReplay } from './replay.js';
import { createSounds } from './sounds.js';

const $ = (selector) => document.querySelector(selector);
const SUMMARY_RETRY_MS = 3_000;

const inviteCode = decodeURIComponent(location.pathname.split('/').filter(Boolean).pop() ?? '');

// What the room is, as the frames told it (see room-state.js).
const state = createRoomState();
// seat -> RoomSocket; a spectator's socket is under `null`.
const sockets = new Map();
let role = 'spectator';
let board = null;
let lastView = null;
let orientation = 0;
let moveInFlight = false;
// A move sent while the connection was down, until the server answers it.
let pendingMove = null;
const replay = createReplay({
  plies: () => state.moves.length,
  onChange: () => render(),
});
const sound = createSounds();
// The board module (its exports: Ouk Chatrang's drawPiece draws the captured material).
let boardModule = null;
// Khan-Tsin votes sent from here: `${seat}@${ply}` (the server forgets them when the turn moves).
const votes = new Set();
const chat = createChat({
  state,
  role: () => role,
  socketFor: (seat) => sockets.get(seat) ?? null,
  command: (seat, type, d) => command(seat, type, d),
  rejectText: (problem, context) => rejectText(problem, context),
});

const now = () => ({ wall: Date.now(), mono: performance.now() });

// A seat named in the page's language (see room-players.js).
const seatName = (seat) => nameOfSeat(state, seat);

// A message of the room state in words (its seats named), or ''.
function messageText(message) {
  if (message === null) return '';
  if (typeof message === 'string') return message;
  const params = { ...message.params };
  for (const [key, seat] of Object.entries(message.seats ?? {})) params[key] = seatName(seat);
  return t(message.key, params);
}

// The seat this browser acts for with resign / offer / claim: its own, or at a local table the
// one on move.
function actingSeat() {
  if (role === 'player') return [...sockets.keys()][0];
  if (role === 'local' && sockets.has(state.toMove)) return state.toMove;
  return null;
}

// ---- frames

function receive(seat, frame) {
  const before = { version: state.version, plies: state.moves.length };
  const effect = applyFrame(state, seat, frame, now());
  if (state.moves.length > before.plies && before.version !== null && frame.t === 'moved') {
    // A live game returns to the present on a move.
    replay.show(null);
    if (!sockets.has(frame.d?.seat)) sound.play(moveSound(frame.d));
  }
  if (effect.chat) chat.render();
  if (frame.t === 'chat' || frame.t === 'chat_history') return;
  if (effect.rematch) followRematch(effect.rematch === 'live');
  render();
}

// Shows the claim buttons once the grace period is over, a countdown before (every 100 ms).
function tickClaim() {
  const claim = abandonClaim(state, performance.now());
  const three = state.seats.length > 2;
  const voted = claim && three && votes.has(`${claim.away}@${state.moves.length}`);
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
  const claim = abandonClaim(state, performance.now());
  if (!claim || claim.wait > 0) return;
  const three = state.seats.length > 2;
  const ok = await command(claim.claimer, 'claim_victory', {}, 'claim');
  if (ok && three) {
    votes.add(`${claim.away}@${state.moves.length}`);
    render();
  }
}

async function claimAbandonedDraw() {
  const claim = abandonClaim(state, performance.now());
  if (claim && claim.wait === 0) command(claim.claimer, 'claim_draw', { reason: 'abandoned' }, 'claim');
}

// The sound of a move that came in: check, a capture (squares emptied, or `x` in Ouk Chatrang's
// SAN), or a plain move.
function moveSound(d) {
  if (d.check !== undefined && d.check !== null) return 'check';
  if ((d.captured ?? []).length > 0 || /x/.test(d.display ?? '')) return 'capture';
  return 'move';
}

// The turn (ply) whose low-time warning sounded: once a turn, for a seat held here.
let lowWarned = null;

// Redraws the clocks' times (every 100 ms while one runs, and after each render).
function tickClocks() {
  if (!state.clock) return;
  const mono = performance.now();
  const running = state.clock.running;
  if (state.status === 'playing' && sockets.has(running) && role !== 'spectator'
    && clockLeft(state, running, mono) < 10_000 && lowWarned !== state.moves.length) {
    lowWarned = state.moves.length;
    sound.play('low');
  }
  for (const el of document.querySelectorAll('.clock[data-seat]')) {
    const seat = Number(el.dataset.seat);
    const left = clockLeft(state, seat, mono);
    const text = clockText(left);
    if (el.textContent !== text) el.textContent = text;
    el.classList.toggle('running', state.status === 'playing' && state.clock.running === seat);
    el.classList.toggle('low', left < 10_000);
  }
}

// The rematch was made: every seat held here keeps its token for the new room, at its new seat
// (the same token works there). `live`: it happened while this page was showing the room (the
// event, or a snapshot after a reconnect), so the page goes to the new room, a spectator's too;
// a page opened later (the old link, the back button) shows a link to it instead.
function followRematch(live) {
  const info = state.rematch;
  for (const [seat, socket] of sockets) {
    if (seat === null || !socket.token) continue;
    const moved = info.seats.find((s) => s.seat === seat);
    if (!moved) continue;
    keepSeat(info.invite_code, info.room_id, moved.new_seat, socket.token, {
      local: role === 'local',
      creator: seat === state.createdBy,
    });
  }
  if (live) location.assign(roomUrl(info.invite_code));
}

// ---- drawing

function render() {
  const main = $('#room');
  if (state.version !== null) main.dataset.version = state.version;
  main.dataset.status = state.status;
  main.dataset.toMove = state.toMove ?? '';
  main.dataset.role = role;
  renderBoard();
  renderPlayers(state, { orientation, boardModule });
  tickClocks();
  renderStatus();
  renderControls();
  renderMoves(state);
  renderInvite();
  renderDownload();
  renderReplay();
  renderPending();
  renderSpectators();
  renderTitle();
  chat.renderControls();
}

// The tab's title: "Your move" first when this browser holds the seat on move.
function renderTitle() {
  if (!state.game) return;
  const mine = state.status === 'playing' && role !== 'spectator' && sockets.has(state.toMove);
  const title = `${t(`game.${state.game}`)} · ${t('app.name')}`;
  document.title = mine ? `${t('room.title_your_move')} · ${title}` : title;
}

// The replay buttons (once there is a move) and where the replay stands: "3 / 10".
function renderReplay() {
  const box = $('#replay');
  const plies = state.moves.length;
  box.hidden = plies === 0;
  $('#room').dataset.viewPly = replay.ply ?? '';
  if (box.hidden) return;
  const shown = replay.ply ?? plies;
  $('#replay-ply').textContent = t('replay.ply', { ply: shown, plies });
  $('#replay-first').disabled = shown === 0;
  $('#replay-back').disabled = shown === 0;
  $('#replay-forward').disabled = replay.ply === null;
  $('#replay-last').disabled = replay.ply === null;
  for (const li of document.querySelectorAll('#moves li')) {
    const current = Number(li.dataset.ply) === shown;
    li.classList.toggle('shown', current && replay.ply !== null);
    if (current && replay.ply !== null) li.setAttribute('aria-current', 'step');
    else li.removeAttribute('aria-current');
  }
}

// How many watch (the server's `spectators` count; unknown from an older server).
function renderSpectators() {
  const el = $('#spectators');
  const count = state.spectators;
  el.hidden = !count;
  el.dataset.count = count ?? '';
  el.textContent = count ? t(count === 1 ? 'room.spectators_one' : 'room.spectators', { count }) : '';
}

function renderPending() {
  const note = $('#pending');
  note.hidden = !pendingMove;
  note.textContent = pendingMove ? t('room.pending', { move: pendingMove }) : '';
  $('#notation-key').hidden = state.game !== 'ouk-chatrang';
}

function renderDownload() {
  const box = $('#download');
  const started = state.seats.length > 0 && state.seats.every((s) => s.taken);
  box.hidden = !(state.status === 'finished' && started && state.id);
  if (box.hidden) return;
  const record = $('#download-record');
  record.href = `api/games/${encodeURIComponent(state.id)}/record`;
  record.setAttribute('download', `${state.game}-${state.id}.txt`);
  const pgn = $('#download-pgn');
  pgn.hidden = !gameInfo(state.game)?.pgn;
  pgn.href = `api/games/${encodeURIComponent(state.id)}/pgn`;
  pgn.setAttribute('download', `${state.game}-${state.id}.pgn`);
  // The finished game's own page (web/js/game.js): replay, result, final clocks.
  $('#game-page-link').href = gameUrl(state.id);
}

// The board shows the present, or in a replay the position after ply `replay.ply` (no legal
// moves then); a move waiting for the connection (`pendingMove`) is marked as the last move.
function renderBoard() {
  if (!board || state.position === null) return;
  if (role === 'player') orientation = [...sockets.keys()][0];
  else if (role === 'local' && state.toMove !== null) orientation = state.toMove;
  else if (role === 'spectator') orientation = 0;
  const ply = replay.ply;
  const shown = ply === null ? state.moves.length : ply;
  const position = ply === null ? state.position : state.positions[ply];
  if (!position) return;
  const known = moveInFlight || ply !== null ? null : legalFor(state, state.toMove);
  const view = {
    position,
    legal: known?.moves ?? null,
    complete: known?.complete ?? true,
    lastMove: (ply === null ? pendingMove : null) ?? state.moves[shown - 1] ?? null,
    orientation,
    colors: state.seats.map((s) => s.color),
    check: inCheck(shown),
    captured: state.captured[shown - 1] ?? [],
  };
  const host = $('#board');
  host.dataset.position = position;
  host.dataset.ply = shown;
  host.toggleAttribute('data-replay', ply !== null);
  if (pendingMove) host.dataset.pending = pendingMove;
  else delete host.dataset.pending;
  const changed = !lastView || Object.keys(view).some((key) => !['colors', 'captured'].includes(key) && view[key] !== lastView[key])
    || view.colors.join() !== lastView.colors.join() || view.captured.join() !== lastView.captured.join();
  if (!changed) return;
  lastView = view;
  board.update(view);
}

// Whether the side to move is in check after ply `ply`: the server's `check` for the present;
// for an earlier position (or without it) Ouk Chatrang's display marks a checking move with `+`,
// a mating one with `#`.
function inCheck(ply = state.moves.length) {
  if (ply === state.moves.length && state.check !== null) return true;
  const last = state.displayMoves[ply - 1] ?? '';
  const live = state.status === 'playing' || ply < state.moves.length;
  return state.game === 'ouk-chatrang' && (last.endsWith('#') || (live && last.endsWith('+')));
}

function renderStatus() {
  const turn = $('#turn');
  if (state.status === 'waiting') {
    const free = state.seats.filter((s) => !s.taken).length;
    turn.textContent = t(free === 1 ? 'room.waiting_one' : 'room.waiting', { count: free });
  } else if (state.status === 'playing' && state.toMove !== null) {
    const player = seatName(state.toMove);
    if (role === 'player' && sockets.has(state.toMove)) turn.textContent = t('room.your_turn');
    else turn.textContent = t('room.to_move', { player });
  } else {
    turn.textContent = '';
  }

  const check = $('#check');
  check.hidden = state.status !== 'playing' || !inCheck();
  check.textContent = check.hidden ? '' : t('room.check', { player: seatName(state.toMove) });

  const counting = $('#counting');
  counting.hidden = !state.counting;
  counting.textContent = state.counting
    ? t('room.counting', {
        kind: t(`counting.${state.counting.kind}`),
        count: state.counting.count,
        limit: state.counting.limit,
        side: colorName(state.game, state.counting.escaping),
      })
    : '';

  const result = $('#result');
  result.hidden = !state.result;
  result.textContent = state.result ? resultText(state.result) : '';

  $('#message').textContent = messageText(state.message);
  renderOffers();
}

function resultText({ winner, reason }) {
  // No result at all, neither a draw nor a win: a room that closed before every seat was taken
  // (nobody joined in time), or a game called off before every player had moved.
  if (reason === 'aborted') return t(state.seats.every((s) => s.taken) ? 'room.aborted_game' : 'room.aborted');
  const why = t(`reason.${reason}`);
  if (winner === null) return t('room.draw', { reason: why });
  return t('room.winner', { player: seatName(winner), reason: why });
}

// The open draw offer, the seat here that can answer it, and whether it is our own.
function drawOffer() {
  const offer = state.offers.find((o) => o.kind === 'draw');
  if (!offer) return null;
  const answerer = [...sockets.keys()].find(
    (seat) => seat !== null && seat !== offer.by && !offer.accepted.includes(seat) && !state.seats[seat]?.left,
  );
  return { offer, answerer: answerer ?? null, ours: sockets.has(offer.by) };
}

// The open rematch offer, the seat here that can accept it, and whether it is our own. Every
// other seat must accept, a player who left a three-player game too (everyone sits in the next).
function rematchOffer() {
  const offer = state.offers.find((o) => o.kind === 'rematch');
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
  const playing = state.status === 'playing';
  const seat = actingSeat();
  const acting = playing && seat !== null && !state.seats[seat]?.left;
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
  show('#claim-draw', acting && gameInfo(state.game)?.repetitionClaim && sockets.has(state.toMove) && repetitionPossible(state));
  // Abort: while not every player still in the game has moved (the server judges; a refusal says
  // why), or, for the creator, a room still waiting for players.
  const inGame = state.seats.filter((s) => !s.left).length;
  const waitingCreator = state.status === 'waiting' && role === 'player' && seat === state.createdBy;
  show('#abort', (acting && state.moves.length < inGame) || waitingCreator);
  $('#abort').textContent = t(waitingCreator ? 'room.cancel_room' : 'room.abort');

  // Rematch: after a game that started, until it is made; an open offer is answered instead.
  const rematch = state.status === 'finished' && !state.rematch ? rematchOffer() : null;
  const started = state.seats.length > 0 && state.seats.every((s) => s.taken);
  show('#rematch', state.status === 'finished' && role !== 'spectator' && started && !state.rematch && !rematch);
  show('#accept-rematch', Boolean(rematch && rematch.answerer !== null));
  const withdrawRematch = Boolean(rematch && rematch.answerer === null && rematch.ours);
  show('#decline-rematch', Boolean(rematch && (rematch.answerer !== null || withdrawRematch)));
  $('#decline-rematch').textContent = t(withdrawRematch ? 'room.withdraw_rematch' : 'room.decline_rematch');
  $('#rematch-box').hidden = !state.rematch;
  if (state.rematch) {
    const link = $('#rematch-link');
    link.href = roomUrl(state.rematch.invite_code);
    link.textContent = t(role === 'spectator' ? 'room.rematch_watch' : 'room.rematch_go');
  }

  const free = state.seats.filter((s) => !s.taken);
  const joinBox = $('#join-box');
  joinBox.hidden = !(role === 'spectator' && state.status === 'waiting' && free.length > 0);
  if (!joinBox.hidden) offerSeats($('#seat-choice'), free, t('home.seat_random'));
}

function renderInvite() {
  const free = state.status === 'waiting' ? state.seats.filter((s) => !s.taken) : [];
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
    for (const s of free) select.add(new Option(colorName(state.game, s.color), String(s.seat)));
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
  const held = heldSeats(inviteCode);
  const seats = held.roomId === null || held.roomId === state.id ? held.seats : new Map();
  role = seats.size === 0 ? 'spectator' : seats.size === 1 ? 'player' : 'local';
  state.held = new Set(seats.keys());
  state.legal.clear();
  state.carried.clear();
  // Until a snapshot says who created the room, this browser's own note of it counts.
  if (seats.has(held.creator)) state.createdBy = held.creator;
  const entries = seats.size === 0 ? [[null, null]] : [...seats];
  for (const [seat, token] of entries) {
    const socket = new RoomSocket({
      room: state.id,
      // The page and its REST calls name the invite code: a proxy hashing by room keeps them
      // and the sockets on one node (docs/deploy/nginx-cluster.conf).
      route: inviteCode,
      token,
      // A spectator is named in the spectators' chat by the name last typed in this browser.
      name: token ? null : lastName() || null,
      // A timed game resumes from a snapshot: its clock is the server's now (the server gives
      // back the time it was down; replayed events would only repeat the clocks of before).
      resumeFromSnapshot: () => state.clock !== null && state.status === 'playing',
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
    state.message = { key: 'room.seat_lost' };
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
    state.message = errorText(problem);
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
    state.message = rejectText(problem, context);
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

// A move goes out at once, or, while the connection is down, when it is back (the socket keeps
// it with its cid); until the server answers it is pending: marked on the board, and nothing
// else can be moved.
async function sendMove(move) {
  const seat = state.toMove;
  if (!sockets.has(seat) || moveInFlight) return;
  moveInFlight = true;
  pendingMove = sockets.get(seat).state === 'online' ? null : move;
  state.message = null;
  sound.play('move');
  render();
  try {
    await command(seat, 'move', { move, v: state.version });
  } finally {
    moveInFlight = false;
    pendingMove = null;
    render();
  }
}

// Gives the chosen free seat to a computer player of the chosen level: the server answers with
// `seat_taken` (and `game_started` when it was the last free seat), or refuses `cannot_add_bot`
// when the seat was taken meanwhile or the game began.
async function addBot() {
  const button = $('#add-bot');
  button.disabled = true;
  state.message = null;
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
  state.message = null;
  if (!(await command(seats[0], 'offer_rematch', {}, 'rematch')) || role !== 'local') return;
  for (const seat of seats.slice(1)) {
    const offer = state.offers.find((o) => o.kind === 'rematch');
    if (!offer || offer.accepted.includes(seat)) continue;
    if (!(await command(seat, 'accept', { offer: offer.id }, 'rematch'))) return;
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
  const module = await loadBoardModule(game);
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
  state.id = summary.room_id;
  state.game = summary.game;
  state.seats = summary.seats;
  state.status = summary.status;
  $('#game-name').textContent = t(`game.${state.game}`);
  renderTitle();
  document.body.dataset.game = state.game;
  $('#rules-link').href = `rules/${encodeURIComponent(state.game)}`;
  $('#rules-link').hidden = false;
  await loadBoard(state.game);
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
    state.ownDeclines.add(open.offer.id);
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
    state.ownDeclines.add(open.offer.id);
    command(open.answerer ?? open.offer.by, 'decline', { offer: open.offer.id }, 'rematch');
  });
  $('#take-seat').addEventListener('click', takeSeat);
  $('#copy-invite').addEventListener('click', copyInvite);
  $('#add-bot').addEventListener('click', addBot);
  $('#name').value = lastName();
  $('#replay-first').addEventListener('click', replay.first);
  $('#replay-back').addEventListener('click', replay.back);
  $('#replay-forward').addEventListener('click', replay.forward);
  $('#replay-last').addEventListener('click', replay.last);
  $('#moves').addEventListener('click', (event) => {
    const li = event.target.closest('#moves li');
    if (li) replay.show(Number(li.dataset.ply));
  });
  // The arrow keys step through the game, Home and End go to its start and its present, unless
  // the focus is in a field or on the board (where the arrows move between squares).
  document.addEventListener('keydown', (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey || event.target.closest?.('input, select, textarea, #board')) return;
    const step = { ArrowLeft: replay.back, ArrowRight: replay.forward, Home: replay.first, End: replay.last }[event.key];
    if (!step || state.moves.length === 0) return;
    event.preventDefault();
    step();
  });
  // The running clock counts down between the server's frames (tickClocks does nothing untimed).
  setInterval(() => {
    tickClocks();
    tickClaim();
  }, 100);
  onLanguageChange(() => {
    if (state.game) {
      $('#game-name').textContent = t(`game.${state.game}`);
      renderTitle();
    }
    renderConnection();
    lastView = null;
    render();
    chat.render();
  });
}

setUpLanguage();
wire();
start();
