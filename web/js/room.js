// The room page, at r/{invite_code}: the board, the players, the move list, the game's state and
// the controls. This browser is a spectator (no seat held), a player (one seat) or a local
// pass-and-play table (every seat held here, moves built for whichever seat is on move).
//
// One RoomSocket per held seat (one without a token for a spectator). Every socket receives the
// same versioned events; the room's state applies each version once, whichever socket brings it
// first. Legal moves come only to the seat on move, so they are kept per seat with the position
// they belong to, and offered to the board only while that position is the current one.

import { createRoom, joinRoom, roomSummary, roomUrl, homeUrl } from './api.js';
import { RoomSocket } from './socket.js';
import { forgetSeat, heldSeats, keepSeat, lastName, rememberName, takeEverySeat } from './seats.js';
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
};
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

function seatName(seat) {
  const info = room.seats[seat];
  if (!info) return '';
  const color = colorName(room.game, info.color);
  return info.name ? t('room.player_named', { color, name: info.name }) : color;
}

// The seat this browser acts for with resign / offer / claim: its own, or at a local table the
// one on move.
function actingSeat() {
  if (role === 'player') return [...sockets.keys()][0];
  if (role === 'local' && sockets.has(room.toMove)) return room.toMove;
  return null;
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
    case 'presence':
      if (room.seats[d.seat]) room.seats[d.seat].connected = d.connected;
      render();
      return;
    case 'snapshot':
      if (room.version !== null && frame.v < room.version) return;
      applySnapshot(frame.v, d);
      break;
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
  }
  render();
}

function applySnapshot(version, d) {
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
  });
}

function applyEvent(type, d) {
  switch (type) {
    case 'seat_taken':
      Object.assign(room.seats[d.seat], { taken: true, name: d.name, color: d.color });
      break;
    case 'game_started':
      Object.assign(room, { status: 'playing', position: d.position, toMove: d.to_move });
      break;
    case 'moved':
      room.moves.push(d.move);
      room.displayMoves.push(d.display);
      Object.assign(room, { position: d.position, toMove: d.to_move, counting: d.counting ?? null });
      message = null;
      break;
    case 'offer':
      room.offers.push({ id: d.id, kind: d.kind, by: d.by, accepted: [...(d.accepted ?? [])] });
      break;
    case 'offer_declined':
      room.offers = room.offers.filter((o) => o.id !== d.id);
      break;
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
      message = { key: 'room.left', params: { player: seatName(d.seat) } };
      break;
    }
    case 'game_over':
      Object.assign(room, { status: 'finished', result: d.result, toMove: null, offers: [] });
      break;
  }
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
  renderStatus();
  renderControls();
  renderMoves();
  renderInvite();
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
      const swatch = document.createElement('span');
      swatch.className = `swatch ${info.color}`;
      const name = document.createElement('span');
      name.className = 'who';
      name.textContent = info.taken ? seatName(info.seat) : t('room.free_seat', { color: colorName(room.game, info.color) });
      const notes = document.createElement('span');
      notes.className = 'notes';
      const words = [];
      if (sockets.has(info.seat)) words.push(t('room.you'));
      if (info.left) words.push(t('room.has_left'));
      else if (info.taken) words.push(t(info.connected ? 'room.online' : 'room.away'));
      notes.textContent = words.join(' · ');
      const dot = document.createElement('span');
      dot.className = `dot ${info.connected ? 'on' : 'off'}`;
      li.append(swatch, name, dot, notes);
      return li;
    }),
  );
}

function renderStatus() {
  const turn = $('#turn');
  if (room.status === 'waiting') {
    turn.textContent = t('room.waiting', { count: room.seats.filter((s) => !s.taken).length });
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

function renderOffers() {
  const box = $('#offers');
  const open = drawOffer();
  if (!open) {
    box.textContent = '';
    return;
  }
  const accepted = open.offer.accepted.map(seatName).join(', ');
  box.textContent = t('room.draw_offered', { player: seatName(open.offer.by) })
    + (accepted ? ` ${t('room.draw_accepted_by', { players: accepted })}` : '');
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
  show('#claim-draw', acting && room.game === 'ouk-chatrang' && sockets.has(room.toMove));
  show('#rematch', room.status === 'finished' && role !== 'spectator');
  $('#rematch').title = role === 'player' ? t('room.rematch_note') : '';

  const free = room.seats.filter((s) => !s.taken);
  const joinBox = $('#join-box');
  joinBox.hidden = !(role === 'spectator' && room.status === 'waiting' && free.length > 0);
  if (!joinBox.hidden) {
    const choice = $('#seat-choice');
    const wanted = free.map((s) => String(s.seat));
    // Rebuilt only when the free seats or the language changed, not to close it under the user.
    const signature = `${wanted.join()} ${document.documentElement.lang}`;
    if (choice.dataset.signature !== signature) {
      const previous = choice.value;
      choice.replaceChildren(new Option(t('home.seat_random'), ''));
      for (const s of free) choice.add(new Option(colorName(room.game, s.color), String(s.seat)));
      choice.value = wanted.includes(previous) ? previous : '';
      choice.dataset.signature = signature;
    }
    choice.hidden = free.length < 2;
  }
}

// The seat that played the first move of a square-board game: its position text's second field
// is the side to move (`w` or `b`).
function firstMover() {
  return room.startPosition?.split(' ')[1] === 'b' ? 1 : 0;
}

// A move as the move list shows it. The server's `display` is English in Khan-Tsin (`17:2- to
// 10`, `pass`): there the list shows the move and its landing square without words
// (`17:2- → 10`), and a pass in the page's language. The other games' displays are notation.
function moveText(display, ply) {
  if (room.game !== 'khan-tsin') return display;
  if (display === 'pass') return t('khan-tsin.pass');
  const shift = /^(\d+:\d+[+-]) to (\d+)$/.exec(display);
  if (!shift) return display;
  const move = /^\d+:\d+[+-]$/.test(room.moves[ply] ?? '') ? room.moves[ply] : shift[1];
  return `${move} → ${shift[2]}`;
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
  list.replaceChildren(
    ...room.displayMoves.map((display, ply) => {
      const li = document.createElement('li');
      li.textContent = moveText(display, ply);
      li.dataset.ply = ply + 1;
      if (pairs) li.dataset.seat = (ply + firstMover()) % 2;
      return li;
    }),
  );
  list.lastElementChild?.scrollIntoView({ block: 'nearest' });
}

function renderInvite() {
  const waiting = room.status === 'waiting' && room.seats.some((s) => !s.taken);
  $('#invite-box').hidden = !(waiting && role !== 'local');
  $('#invite-link').value = roomUrl(inviteCode);
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
  const entries = seats.size === 0 ? [[null, null]] : [...seats];
  for (const [seat, token] of entries) {
    const socket = new RoomSocket({
      room: room.id,
      token,
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

// Sends a command for a seat held here and shows a refusal in words.
async function command(seat, type, d = {}) {
  const socket = sockets.get(seat);
  if (!socket) return;
  try {
    await socket.send(type, d);
  } catch (problem) {
    message = rejectText(problem);
    render();
  }
}

function rejectText(problem) {
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

// A new room with the same game and start, each player moved one seat on (two players swap
// colours; in Khan-Tsin the colours rotate). The server has no rematch of its own yet, so the
// opponent gets the new room's link; a local table takes every seat again.
async function rematch() {
  const button = $('#rematch');
  button.disabled = true;
  const local = role === 'local';
  const mine = local ? 0 : [...sockets.keys()][0];
  const body = {
    game: room.game,
    seat: (mine + 1) % room.seats.length,
    visibility: 'private',
    options: { start_position: room.startPosition },
  };
  const name = local ? null : room.seats[mine]?.name;
  if (name) body.name = name;
  try {
    const created = await createRoom(body);
    keepSeat(created.invite_code, created.room_id, created.seat, created.seat_token, { local });
    if (local) await takeEverySeat(created.invite_code);
    location.href = roomUrl(created.invite_code) + (local ? '' : '#rematch');
  } catch (problem) {
    message = errorText(problem);
    button.disabled = false;
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
      $('#connection').textContent = '';
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
  $('#offer-draw').addEventListener('click', acting('offer_draw'));
  $('#claim-draw').addEventListener('click', acting('claim_draw', { reason: 'repetition' }));
  $('#accept-draw').addEventListener('click', () => {
    const open = drawOffer();
    if (open?.answerer !== null) command(open.answerer, 'accept', { offer: open.offer.id });
  });
  $('#decline-draw').addEventListener('click', () => {
    const open = drawOffer();
    if (!open) return;
    const seat = open.answerer ?? open.offer.by;
    command(seat, 'decline', { offer: open.offer.id });
  });
  $('#rematch').addEventListener('click', rematch);
  $('#take-seat').addEventListener('click', takeSeat);
  $('#copy-invite').addEventListener('click', copyInvite);
  $('#name').value = lastName();
  onLanguageChange(() => {
    if (room.game) {
      $('#game-name').textContent = t(`game.${room.game}`);
      document.title = `${t(`game.${room.game}`)} · ${t('app.name')}`;
    }
    renderConnection();
    lastView = null;
    render();
  });
  $('#rematch-note').hidden = location.hash !== '#rematch';
}

setUpLanguage();
wire();
start();
