// The home page: quick pairing, a logged-in player's challenges (the site channel), create a room
// (online, against the computer, or pass-and-play), the lobby of public rooms waiting for
// players, links to the rules.

import { createRoom, joinRoom, lobby, roomUrl } from './api.js';
import { lobbyMeta, refreshRecent } from './recent.js';
import { refreshMyGames } from './my-games.js';
import { t, setUpLanguage, onLanguageChange, colorName, errorText } from './i18n.js';
import { everyHeldSeat, keepSeat, lastName, rememberName, takeEverySeat } from './seats.js';
import { showAccount } from './header.js';
import { setUpQuickPairing } from './quick.js';
import { openSiteChannel } from './site.js';
import { GAMES, gameInfo } from './games.js';
import { $, $$, $button, $input, $select } from './dom.js';

/** @typedef {import('./protocol.js').Color} Color */

const LOBBY_REFRESH_MS = 10_000;
const DEFAULT_LAYOUT = '231'.repeat(12);

/** The chosen game's catalogue entry. */
function chosenGame() {
  return gameInfo($select('#game').value) ?? GAMES[0];
}

/**
 * The colours a room of a game whose colours are chosen per room is played with, as the form
 * says: every colour of its palette for the most players, else the pair chosen in `#colors`.
 * @returns {Color[]}
 */
function chosenColors() {
  const info = chosenGame();
  if (Number($select('#players').value) >= info.palette.length) return info.palette;
  return /** @type {Color[]} */ ($select('#colors').value.split(','));
}

/**
 * Who the creator plays against: 'people', 'computer' or 'local' (pass-and-play).
 * @returns {string}
 */
function opponent() {
  return $input('input[name="opponent"]:checked').value;
}

function seatColors() {
  return chosenGame().colors ?? chosenColors();
}

// The games as the catalogue lists them: the form's choice and the links to their rules.
function listGames() {
  const select = $select('#game');
  const chosen = select.value;
  select.replaceChildren(...GAMES.map((info) => new Option(t(`game.${info.id}`), info.id)));
  select.value = gameInfo(chosen) ? chosen : GAMES[0].id;
  $('#rules-links').replaceChildren(...GAMES.map((info) => {
    const li = document.createElement('li');
    const link = document.createElement('a');
    link.href = `rules/${info.id}`;
    link.textContent = t(`game.${info.id}`);
    li.append(link);
    return li;
  }));
}

/** Whether this browser is logged in (a rated game needs it). */
let loggedIn = false;

// Shows the fields of the chosen game and offers its seats.
function refreshForm() {
  const info = chosenGame();
  const game = info.id;
  const players = $select('#players');
  const wanted = info.players.map(String);
  if ([...players.options].map((o) => o.value).join() !== wanted.join()) {
    const previous = players.value;
    players.replaceChildren(...wanted.map((n) => new Option(n, n)));
    players.value = wanted.includes(previous) ? previous : wanted[0];
  }
  for (const el of $$('.choose-players')) el.hidden = info.players.length < 2;
  for (const el of $$('.choose-colors')) {
    el.hidden = info.colors !== null || Number(players.value) >= info.palette.length;
  }
  for (const el of $$('.choose-layout')) el.hidden = !info.layout;
  const against = opponent();
  // A pass-and-play table has no chat; it and a game against the computer invite nobody, so
  // they are private.
  const chatOption = $input('#spectator-chat-option').closest('label');
  if (chatOption) chatOption.hidden = against === 'local';
  $('#visibility-field').hidden = against !== 'people';
  // Rated games are between logged-in people.
  $('#rated-field').hidden = against !== 'people' || !loggedIn;
  for (const el of $$('.computer-only')) el.hidden = against !== 'computer';
  for (const el of $$('.local-only')) el.hidden = against !== 'local';
  $('.clock-custom').hidden = $select('#clock').value !== 'custom';
  $('#game-blurb').textContent = t(`game.${game}.blurb`);
  const seat = $select('#seat');
  const previous = seat.value;
  seat.replaceChildren(new Option(t('home.seat_random'), 'random'));
  for (const color of seatColors()) seat.add(new Option(colorName(game, color), color));
  seat.value = [...seat.options].some((o) => o.value === previous) ? previous : 'random';
}

/** Twelve of each square type, shuffled (Fisher-Yates). */
function randomLayout() {
  const digits = [...'1'.repeat(12), ...'2'.repeat(12), ...'3'.repeat(12)];
  for (let i = digits.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [digits[i], digits[j]] = [digits[j], digits[i]];
  }
  return digits.join('');
}

/** @param {string} layout */
function validLayout(layout) {
  return /^[123]{36}$/.test(layout) && ['1', '2', '3'].every((d) => layout.split(d).length - 1 === 12);
}

// The time control chosen: null (no clock), {initial_s, increment_s} (Fischer: minutes each,
// seconds added after every move), from a preset `initial+increment` or the custom fields, or
// {days_per_move} (correspondence, a preset `days:N`).
/** @returns {import('./protocol.js').ClockSettings | null} */
function clockRequest() {
  const choice = $select('#clock').value;
  if (!choice) return null;
  if (choice.startsWith('days:')) return { days_per_move: Number(choice.slice(5)) };
  if (choice === 'custom') {
    const minutes = Number($input('#clock-minutes').value);
    const increment = Number($input('#clock-increment').value);
    if (!Number.isInteger(minutes) || minutes < 1 || minutes > 180
      || !Number.isInteger(increment) || increment < 0 || increment > 180) {
      throw new Error('home.bad_clock');
    }
    return { initial_s: minutes * 60, increment_s: increment };
  }
  const [initial, increment] = choice.split('+').map(Number);
  return { initial_s: initial, increment_s: increment };
}

/**
 * The room the form asks for (docs/protocol.md `POST /api/rooms`).
 * @typedef {object} CreateBody
 * @property {string} game
 * @property {string} visibility
 * @property {string | number} seat
 * @property {string} [name]
 * @property {number} [seats]
 * @property {import('./protocol.js').ClockSettings} [clock]
 * @property {{ seat: number, level: number }[]} [bots]
 * @property {boolean} [rated]
 * @property {{ spectator_chat?: boolean, start_position?: string, colors?: Color[], layout?: string }} options
 */

/**
 * The colours of the requested room's seats, in seat order: fixed by the game, or chosen in the
 * form, or named by a start position's third field (Khan-Tsin: the colours played, by letter).
 * @param {CreateBody} body
 * @returns {Color[]}
 */
function requestColors(body) {
  const info = gameInfo(body.game);
  if (info?.colors) return info.colors;
  const start = body.options.start_position;
  if (!start) return body.options.colors ?? [];
  const letters = info?.colorLetters ?? {};
  return [...(start.split(/\s+/)[2] ?? '')].map((letter) => letters[letter]);
}

// Against the computer: the creator takes the chosen colour's seat (or one drawn here, since the
// bots' seats depend on it) and a bot of the chosen level every other seat. A colour the room
// does not seat is left to the server, which refuses it as it would without bots.
/** @param {CreateBody} body */
function seatBots(body) {
  const colors = requestColors(body);
  const mine = body.seat === 'random'
    ? Math.floor(Math.random() * colors.length)
    : colors.indexOf(/** @type {Color} */ (body.seat));
  const level = Number($select('#bot-level').value);
  body.bots = colors.flatMap((_, seat) => (seat === mine ? [] : [{ seat, level }]));
  if (mine >= 0) body.seat = mine;
}

/**
 * The create request the form describes, or throws an Error whose message is a string key.
 * @returns {CreateBody}
 */
function createRequest() {
  const info = chosenGame();
  const game = info.id;
  const against = opponent();
  const local = against === 'local';
  const name = $input('#name').value.trim();
  const startPosition = $input('#start-position').value.trim();
  /** @type {CreateBody} */
  const body = {
    game,
    visibility: against === 'people' ? $select('#visibility').value : 'private',
    seat: local ? 0 : $select('#seat').value,
    options: {},
  };
  if (name) body.name = name;
  const clock = clockRequest();
  if (clock) body.clock = clock;
  if (against === 'people' && loggedIn && $input('#rated-option').checked) {
    if (!clock) throw new Error('home.rated_needs_clock');
    body.rated = true;
  }
  // Spectators may chat unless the creator says otherwise (a pass-and-play table has no chat).
  if (!local) body.options.spectator_chat = $input('#spectator-chat-option').checked;
  if (startPosition) {
    // A start position fixes the players, colours and layout itself.
    body.options.start_position = startPosition;
  } else if (info.colors === null) {
    body.seats = Number($select('#players').value);
    body.options.colors = chosenColors();
  }
  if (!startPosition && info.layout) {
    const layout = $input('#layout').value.trim();
    if (layout) {
      if (!validLayout(layout)) throw new Error('home.bad_layout');
      body.options.layout = layout;
    }
  }
  if (against === 'computer') seatBots(body);
  return body;
}

/** @param {SubmitEvent} event */
async function create(event) {
  event.preventDefault();
  const error = $('#create-error');
  error.textContent = '';
  let body;
  try {
    body = createRequest();
  } catch (problem) {
    error.textContent = t(problem instanceof Error ? problem.message : String(problem));
    return;
  }
  const local = opponent() === 'local';
  rememberName(body.name);
  $button('#create').disabled = true;
  try {
    const created = await createRoom(body);
    const code = created.invite_code;
    keepSeat(code, created.room_id, created.seat, created.seat_token, { local, creator: true });
    if (local) await takeEverySeat(code);
    location.href = roomUrl(code);
  } catch (problem) {
    error.textContent = errorText(/** @type {import('./api.js').ApiError} */ (problem));
    $button('#create').disabled = false;
  }
}

async function refreshLobby() {
  const list = $('#lobby');
  $('#lobby-error').textContent = '';
  let rooms;
  try {
    rooms = await lobby();
  } catch (problem) {
    $('#lobby-error').textContent = errorText(/** @type {import('./api.js').ApiError} */ (problem));
    return;
  }
  list.replaceChildren(...rooms.map(lobbyEntry));
  $('#lobby-empty').hidden = rooms.length > 0;
}

/** @param {import('./protocol.js').LobbyRoom} room */
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

/**
 * @param {string} code
 * @param {HTMLButtonElement} button
 */
async function joinFromLobby(code, button) {
  button.disabled = true;
  const name = $input('#name').value.trim();
  rememberName(name);
  try {
    const joined = await joinRoom(code, name ? { name } : {});
    keepSeat(code, joined.room_id, joined.seat, joined.seat_token);
    location.href = roomUrl(code);
  } catch (problem) {
    $('#lobby-error').textContent = errorText(/** @type {import('./api.js').ApiError} */ (problem));
    refreshLobby();
  }
}

setUpLanguage();
listGames();
$input('#name').value = lastName();
refreshForm();
for (const id of ['#game', '#players', '#colors', '#opponents', '#clock']) $(id).addEventListener('change', refreshForm);
$('#random-layout').addEventListener('click', () => {
  $input('#layout').value = randomLayout();
});
$input('#layout').placeholder = DEFAULT_LAYOUT;
$('#create-form').addEventListener('submit', create);
$('#refresh-lobby').addEventListener('click', refreshLobby);
$('#refresh-recent').addEventListener('click', refreshRecent);
refreshRecent();
$('#refresh-my-games').addEventListener('click', refreshMyGames);
// My games asks the server only when there is something to ask about: a seat this browser holds
// (now), or the logged-in account's games (once the session is known).
const holdsSeats = everyHeldSeat().length > 0;
if (holdsSeats) refreshMyGames();
onLanguageChange(() => {
  listGames();
  refreshForm();
  refreshLobby();
});
refreshLobby();
setInterval(refreshLobby, LOBBY_REFRESH_MS);
setUpQuickPairing();

// The header names the logged-in account (see header.js). A logged-in player may make a rated
// game.
showAccount().then((me) => {
  if (!me) return;
  loggedIn = true;
  refreshForm();
  if (!holdsSeats) refreshMyGames();
  openSiteChannel();
});
