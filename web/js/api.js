// The REST side of the protocol (docs/protocol.md, "REST"). Every URL is relative to the page's
// <base href>, which the server sets to where it is reached, so a path prefix needs nothing here.

// A REST error: `code` is the server's error code (`room_full`, `seat_taken`, ...), or `network`
// when the server could not be reached at all.
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string} message
   */
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/**
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<any>}
 */
async function request(method, path, body) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    throw new ApiError(0, 'network', error instanceof Error ? error.message : String(error));
  }
  const data = await response.json().catch(() => null);
  if (!response.ok) {
    const error = data?.error ?? {};
    throw new ApiError(response.status, error.code ?? 'unavailable', error.message ?? response.statusText);
  }
  return data;
}

/**
 * POST api/rooms.
 * @param {object} body  docs/protocol.md `POST /api/rooms`
 * @returns {Promise<import('./protocol.js').CreatedRoom>}
 */
export function createRoom(body) {
  return request('POST', 'api/rooms', body);
}

/**
 * POST api/rooms/{code}/join.
 * @param {string} inviteCode
 * @param {{ name?: string, seat?: number, same_player?: string }} [body]
 * @returns {Promise<import('./protocol.js').JoinedRoom>}
 */
export function joinRoom(inviteCode, body = {}) {
  return request('POST', `api/rooms/${encodeURIComponent(inviteCode)}/join`, body);
}

/**
 * GET api/rooms/{room_id or invite_code}: the room's summary.
 * @param {string} reference
 * @returns {Promise<import('./protocol.js').RoomSummary>}
 */
export function roomSummary(reference) {
  return request('GET', `api/rooms/${encodeURIComponent(reference)}`);
}

/**
 * GET api/leaderboard/{game}: every speed's top players of a game key (`khan-tsin-3` too).
 * @param {string} game
 * @returns {Promise<import('./protocol.js').Leaderboard>}
 */
export function leaderboard(game) {
  return request('GET', `api/leaderboard/${encodeURIComponent(game)}`);
}

/**
 * GET api/users/{name}/rating-history.
 * @param {string} name
 * @returns {Promise<import('./protocol.js').RatingHistory>}
 */
export function ratingHistory(name) {
  return request('GET', `api/users/${encodeURIComponent(name)}/rating-history`);
}

/**
 * GET api/rooms: the public rooms waiting for players.
 * @returns {Promise<import('./protocol.js').LobbyRoom[]>}
 */
export async function lobby() {
  return (await request('GET', 'api/rooms')).rooms;
}

/**
 * The WebSocket URL for a room, next to the pages under the same base. The room in the query is
 * only for a proxy that sends every client of one room to the same node
 * (docs/deploy/nginx-cluster.conf); the hello decides. `via` (from 1; 0: none) asks such a proxy
 * for another node than the room's usual one, after that node fell silent or never answered.
 * @param {string} room
 * @param {number} [via]
 */
export function socketUrl(room, via = 0) {
  const url = new URL('ws', document.baseURI);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.searchParams.set('room', room);
  if (via > 0) url.searchParams.set('via', String(via));
  return url.href;
}

/**
 * A room's page (its invite link) as this browser reaches the server.
 * @param {string} inviteCode
 */
export function roomUrl(inviteCode) {
  return new URL(`r/${encodeURIComponent(inviteCode)}`, document.baseURI).href;
}

/** @param {string} game */
export function rulesUrl(game) {
  return new URL(`rules/${game}`, document.baseURI).href;
}

export function homeUrl() {
  return new URL('./', document.baseURI).href;
}

/**
 * Shows `text` in the page's `#notice`, followed by a link home (`homeWords`): a page with
 * nothing to show (no such game, no such player).
 * @param {string} text
 * @param {string} homeWords
 */
export function noticeWithHomeLink(text, homeWords) {
  const notice = document.querySelector('#notice');
  if (!(notice instanceof HTMLElement)) return;
  notice.hidden = false;
  const home = document.createElement('a');
  home.href = homeUrl();
  home.textContent = homeWords;
  notice.replaceChildren(text, ' ', home);
}

/**
 * GET api/games/{room_id}: a finished game's record (docs/protocol.md), with its history.
 * @param {string} roomId
 * @returns {Promise<import('./protocol.js').GameRecord>}
 */
export function gameRecord(roomId) {
  return request('GET', `api/games/${encodeURIComponent(roomId)}`);
}

/**
 * GET api/games?limit=N: the latest finished public games, newest first.
 * @returns {Promise<import('./protocol.js').GameSummary[]>}
 */
export async function recentGames(limit = 10) {
  return (await request('GET', `api/games?limit=${limit}`)).games;
}

/**
 * "My games": the rooms of the seats this browser holds, as each seat sees it (the tokens go in
 * the body, never the URL).
 * @param {{ room_id: string, seat_token: string }[]} seats
 * @returns {Promise<{ in_progress: import('./protocol.js').MyGame[], finished: import('./protocol.js').MyGame[] }>}
 */
export async function myGames(seats) {
  return request('POST', 'api/my-games', { seats });
}

/**
 * A finished game's page.
 * @param {string} roomId
 */
export function gameUrl(roomId) {
  return new URL(`g/${encodeURIComponent(roomId)}`, document.baseURI).href;
}

/**
 * The logged-in account (docs/protocol.md, "Accounts").
 * @typedef {{ id: string, name: string, created_at: string }} Account
 */

/**
 * POST api/account/register or api/account/login: the browser gets the session cookie.
 * @param {'register' | 'login'} action
 * @param {string} name
 * @param {string} password
 * @returns {Promise<Account>}
 */
export function signIn(action, name, password) {
  return request('POST', `api/account/${action}`, { name, password });
}

/**
 * GET api/session: the logged-in account, or null when this browser is not logged in.
 * @returns {Promise<Account | null>}
 */
export async function account() {
  /** @type {{ account: Account | null }} */
  const answer = await request('GET', 'api/session');
  return answer.account;
}

/**
 * GET api/challenges/{id}: one of the user's challenges, whatever became of it, with the room
 * once accepted.
 * @param {string} id
 * @returns {Promise<{ id: string, status: 'open' | 'expired' | 'accepted' | 'declined' | 'cancelled', room_id?: string, invite_code?: string }>}
 */
export function challengeStatus(id) {
  return request('GET', `api/challenges/${encodeURIComponent(id)}`);
}

/**
 * POST api/account/attach: gives the account the seats of these tokens.
 * @param {string[]} seatTokens
 * @returns {Promise<{ attached: { index: number, room_id: string }[], refused: { index: number, reason: string }[] }>}
 */
export function attachSeats(seatTokens) {
  return request('POST', 'api/account/attach', { seat_tokens: seatTokens });
}

/**
 * GET api/account/sessions.
 * @returns {Promise<{ sessions: { id: string, created_at: string, last_used_at: string, user_agent: string | null, current: boolean }[] }>}
 */
export function sessions() {
  return request('GET', 'api/account/sessions');
}

/**
 * An API token as listed (docs/protocol.md, "Accounts").
 * @typedef {{ id: string, description: string, scopes: string[], created_at: string, last_used_at: string | null, token?: string }} ApiToken
 */

/**
 * GET api/account/tokens.
 * @returns {Promise<{ tokens: ApiToken[] }>}
 */
export function apiTokens() {
  return request('GET', 'api/account/tokens');
}

/**
 * POST api/account/tokens: the new token, with `token` shown this once.
 * @param {string} description
 * @param {string[]} scopes
 * @returns {Promise<ApiToken>}
 */
export function createApiToken(description, scopes) {
  return request('POST', 'api/account/tokens', { description, scopes });
}

/**
 * A request whose success has no body (204): DELETE api/account/tokens/{id}, POST
 * api/account/password, DELETE api/account.
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 */
export async function send(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).catch((error) => {
    throw new ApiError(0, 'network', error instanceof Error ? error.message : String(error));
  });
  if (response.ok) return;
  const data = await response.json().catch(() => null);
  throw new ApiError(response.status, data?.error?.code ?? 'unavailable', data?.error?.message ?? response.statusText);
}

/**
 * POST api/account/logout or api/account/logout-everywhere (the answer has no body).
 * @param {'logout' | 'logout-everywhere'} action
 */
export async function signOut(action) {
  const response = await fetch(`api/account/${action}`, { method: 'POST' });
  if (!response.ok && response.status !== 401) throw new ApiError(response.status, 'unavailable', response.statusText);
}

/**
 * A player's profile (docs/protocol.md, "Players").
 * @typedef {{ name: string, member_since: string, deleted: boolean, games: { game: string, played: number, wins: number, draws: number, losses: number }[], ratings: import('./protocol.js').Ratings }} Profile
 */

/**
 * GET api/users/{name}.
 * @param {string} name
 * @returns {Promise<Profile>}
 */
export function userProfile(name) {
  return request('GET', `api/users/${encodeURIComponent(name)}`);
}

/**
 * One game of a player's list: the record's players and result, and the player's own seat,
 * outcome and the room's clock settings.
 * @typedef {import('./protocol.js').GameSummary & { seat: number, outcome: 'win' | 'draw' | 'loss', visibility: string, clock: import('./protocol.js').ClockSettings | null, started_at: string | null }} PlayedGame
 */

/**
 * GET api/users/{name}/games: a page of the player's finished games, newest first; `next` is the
 * `before` of the next page.
 * @param {string} name
 * @param {{ game?: string, vs?: string, before?: string }} filters
 * @returns {Promise<{ games: PlayedGame[], next: string | null }>}
 */
export function userGames(name, filters) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(filters)) if (value) query.set(key, value);
  return request('GET', `api/users/${encodeURIComponent(name)}/games?${query}`);
}

/**
 * GET api/users/{name}/vs/{other}: head to head, from the first player's view.
 * @param {string} name
 * @param {string} other
 * @returns {Promise<{ user: string, opponent: string, games: number, wins: number, draws: number, losses: number }>}
 */
export function headToHead(name, other) {
  return request('GET', `api/users/${encodeURIComponent(name)}/vs/${encodeURIComponent(other)}`);
}
