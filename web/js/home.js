// The home page: create a room (online, against the computer, or pass-and-play), the lobby of
// public rooms waiting for players, links to the rules.

import { createRoom, joinRoom, lobby, roomUrl } from './api.js';
import { lobbyMeta, refreshRecent } from './recent.js';
import { t, setUpLanguage, onLanguageChange, colorName, errorText } from './i18n.js';
import { keepSeat, lastName, rememberName, takeEverySeat } from './seats.js';
import { gameInfo } from './games.js';

const $ = (selector) => document.querySelector(selector);
const LOBBY_REFRESH_MS = 10_000;
const TSIN_COLORS = ['white', 'green', 'blue'];
// Khan-Tsin position text names the colours played by these letters (its third field).
const TSIN_LETTERS = { w: 'white', g: 'green', b: 'blue' };
const DEFAULT_LAYOUT = '231'.repeat(12);

// The colours a Khan-Tsin room as set up in the form is played with.
function tsinColors() {
  return $('#players').value === '3' ? TSIN_COLORS : $('#colors').value.split(',');
}

// Who the creator plays against: 'people', 'computer' or 'local' (pass-and-play).
function opponent() {
  return document.querySelector('input[name="opponent"]:checked').value;
}

function seatColors() {
  const game = $('#game').value;
  return gameInfo(game)?.colors ?? tsinColors();
}

// Shows the fields of the chosen game and offers its seats.
function refreshForm() {
  const game = $('#game').value;
  const tsin = game === 'khan-tsin';
  for (const el of document.querySelectorAll('.tsin-only')) el.hidden = !tsin;
  for (const el of document.querySelectorAll('.two-players')) el.hidden = !tsin || $('#players').value !== '2';
  const against = opponent();
  // A pass-and-play table has no chat; it and a game against the computer invite nobody, so
  // they are private.
  $('#spectator-chat-option').closest('label').hidden = against === 'local';
  $('#visibility-field').hidden = against !== 'people';
  for (const el of document.querySelectorAll('.computer-only')) el.hidden = against !== 'computer';
  for (const el of document.querySelectorAll('.local-only')) el.hidden = against !== 'local';
  document.querySelector('.clock-custom').hidden = $('#clock').value !== 'custom';
  $('#game-blurb').textContent = t(`game.${game}.blurb`);
  const seat = $('#seat');
  const previous = seat.value;
  seat.replaceChildren(new Option(t('home.seat_random'), 'random'));
  for (const color of seatColors()) seat.add(new Option(colorName(game, color), color));
  seat.value = [...seat.options].some((o) => o.value === previous) ? previous : 'random';
}

// Twelve of each square type, shuffled (Fisher-Yates).
function randomLayout() {
  const digits = [...'1'.repeat(12), ...'2'.repeat(12), ...'3'.repeat(12)];
  for (let i = digits.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [digits[i], digits[j]] = [digits[j], digits[i]];
  }
  return digits.join('');
}

function validLayout(layout) {
  return /^[123]{36}$/.test(layout) && ['1', '2', '3'].every((d) => layout.split(d).length - 1 === 12);
}

// The time control chosen: null (no clock) or {initial_s, increment_s} (Fischer: minutes each,
// seconds added after every move), from a preset `initial+increment` or the custom fields.
function clockRequest() {
  const choice = $('#clock').value;
  if (!choice) return null;
  if (choice === 'custom') {
    const minutes = Number($('#clock-minutes').value);
    const increment = Number($('#clock-increment').value);
    if (!Number.isInteger(minutes) || minutes < 1 || minutes > 180
      || !Number.isInteger(increment) || increment < 0 || increment > 180) {
      throw new Error('home.bad_clock');
    }
    return { initial_s: minutes * 60, increment_s: increment };
  }
  const [initial, increment] = choice.split('+').map(Number);
  return { initial_s: initial, increment_s: increment };
}

// The colours of the requested room's seats, in seat order: a Khan-Tsin start position names
// the colours played itself.
function requestColors(body) {
  if (gameInfo(body.game)?.colors) return gameInfo(body.game).colors;
  const start = body.options.start_position;
  if (!start) return body.options.colors;
  return [...(start.split(/\s+/)[2] ?? '')].map((letter) => TSIN_LETTERS[letter]);
}

// Against the computer: the creator takes the chosen colour's seat (or one drawn here, since the
// bots' seats depend on it) and a bot of the chosen level every other seat. A colour the room
// does not seat is left to the server, which refuses it as it would without bots.
function seatBots(body) {
  const colors = requestColors(body);
  const mine = body.seat === 'random' ? Math.floor(Math.random() * colors.length) : colors.indexOf(body.seat);
  const level = Number($('#bot-level').value);
  body.bots = colors.flatMap((_, seat) => (seat === mine ? [] : [{ seat, level }]));
  if (mine >= 0) body.seat = mine;
}

// The create request the form describes, or throws an Error whose message is a string key.
function createRequest() {
  const game = $('#game').value;
  const against = opponent();
  const local = against === 'local';
  const name = $('#name').value.trim();
  const startPosition = $('#start-position').value.trim();
  const body = {
    game,
    visibility: against === 'people' ? $('#visibility').value : 'private',
    seat: local ? 0 : $('#seat').value,
    options: {},
  };
  if (name) body.name = name;
  const clock = clockRequest();
  if (clock) body.clock = clock;
  // Spectators may chat unless the creator says otherwise (a pass-and-play table has no chat).
  if (!local) body.options.spectator_chat = $('#spectator-chat-option').checked;
  if (startPosition) {
    // A start position fixes the players, colours and layout itself.
    body.options.start_position = startPosition;
  } else if (game === 'khan-tsin') {
    body.seats = Number($('#players').value);
    body.options.colors = tsinColors();
    const layout = $('#layout').value.trim();
    if (layout) {
      if (!validLayout(layout)) throw new Error('home.bad_layout');
      body.options.layout = layout;
    }
  }
  if (against === 'computer') seatBots(body);
  return body;
}

async function create(event) {
  event.preventDefault();
  const error = $('#create-error');
  error.textContent = '';
  let body;
  try {
    body = createRequest();
  } catch (problem) {
    error.textContent = t(problem.message);
    return;
  }
  const local = opponent() === 'local';
  rememberName(body.name);
  $('#create').disabled = true;
  try {
    const created = await createRoom(body);
    const code = created.invite_code;
    keepSeat(code, created.room_id, created.seat, created.seat_token, { local, creator: true });
    if (local) await takeEverySeat(code);
    location.href = roomUrl(code);
  } catch (problem) {
    error.textContent = errorText(problem);
    $('#create').disabled = false;
  }
}

async function refreshLobby() {
  const list = $('#lobby');
  $('#lobby-error').textContent = '';
  let rooms;
  try {
    rooms = await lobby();
  } catch (problem) {
    $('#lobby-error').textContent = errorText(problem);
    return;
  }
  list.replaceChildren(...rooms.map(lobbyEntry));
  $('#lobby-empty').hidden = rooms.length > 0;
}

function lobbyEntry(room) {
  const li = document.createElement('li');
  const link = document.createElement('a');
  link.href = roomUrl(room.invite_code);
  link.textContent = t(`game.${room.game}`);
  const seats = document.createElement('span');
  seats.className = 'hint';
  seats.textContent = t('home.lobby_seats', { taken: room.taken, seats: room.seats });
  const join = document.createElement('button');
  join.type = 'button';
  join.dataset.join = room.invite_code;
  join.textContent = t('home.join');
  join.addEventListener('click', () => joinFromLobby(room.invite_code, join));
  li.append(link, seats, lobbyMeta(room), join);
  return li;
}

async function joinFromLobby(code, button) {
  button.disabled = true;
  const name = $('#name').value.trim();
  rememberName(name);
  try {
    const joined = await joinRoom(code, name ? { name } : {});
    keepSeat(code, joined.room_id, joined.seat, joined.seat_token);
    location.href = roomUrl(code);
  } catch (problem) {
    $('#lobby-error').textContent = errorText(problem);
    refreshLobby();
  }
}

setUpLanguage();
$('#name').value = lastName();
refreshForm();
for (const id of ['#game', '#players', '#colors', '#opponents', '#clock']) $(id).addEventListener('change', refreshForm);
$('#random-layout').addEventListener('click', () => {
  $('#layout').value = randomLayout();
});
$('#layout').placeholder = DEFAULT_LAYOUT;
$('#create-form').addEventListener('submit', create);
$('#refresh-lobby').addEventListener('click', refreshLobby);
$('#refresh-recent').addEventListener('click', refreshRecent);
refreshRecent();
onLanguageChange(() => {
  refreshForm();
  refreshLobby();
});
refreshLobby();
setInterval(refreshLobby, LOBBY_REFRESH_MS);
