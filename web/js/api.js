// The REST side of the protocol (docs/protocol.md, "REST"). Every URL is relative to the page's
// <base href>, which the server sets to where it is reached, so a path prefix needs nothing here.

// A REST error: `code` is the server's error code (`room_full`, `seat_taken`, ...), or `network`
// when the server could not be reached at all.
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

async function request(method, path, body) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    throw new ApiError(0, 'network', error.message);
  }
  const data = await response.json().catch(() => null);
  if (!response.ok) {
    const error = data?.error ?? {};
    throw new ApiError(response.status, error.code ?? 'unavailable', error.message ?? response.statusText);
  }
  return data;
}

// POST api/rooms: {room_id, invite_code, invite_url, seat, color, seat_token}.
export function createRoom(body) {
  return request('POST', 'api/rooms', body);
}

// POST api/rooms/{code}/join: {room_id, seat, color, seat_token}.
export function joinRoom(inviteCode, body = {}) {
  return request('POST', `api/rooms/${encodeURIComponent(inviteCode)}/join`, body);
}

// GET api/rooms/{room_id or invite_code}: the room's summary.
export function roomSummary(reference) {
  return request('GET', `api/rooms/${encodeURIComponent(reference)}`);
}

// GET api/rooms: the public rooms waiting for players.
export async function lobby() {
  return (await request('GET', 'api/rooms')).rooms;
}

// The WebSocket endpoint, next to the pages under the same base.
// The WebSocket URL for a room. The room in the query is only for a proxy that sends every
// client of one room to the same node (docs/deploy/nginx-cluster.conf); the hello decides.
export function socketUrl(room) {
  const url = new URL('ws', document.baseURI);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.searchParams.set('room', room);
  return url.href;
}

// A room's page (its invite link) as this browser reaches the server.
export function roomUrl(inviteCode) {
  return new URL(`r/${encodeURIComponent(inviteCode)}`, document.baseURI).href;
}

export function rulesUrl(game) {
  return new URL(`rules/${game}`, document.baseURI).href;
}

export function homeUrl() {
  return new URL('./', document.baseURI).href;
}

// GET api/games/{room_id}: a finished game's record (docs/protocol.md), with its history.
export function gameRecord(roomId) {
  return request('GET', `api/games/${encodeURIComponent(roomId)}`);
}

// GET api/games?limit=N: the latest finished public games, newest first.
export async function recentGames(limit = 10) {
  return (await request('GET', `api/games?limit=${limit}`)).games;
}

// A finished game's page.
export function gameUrl(roomId) {
  return new URL(`g/${encodeURIComponent(roomId)}`, document.baseURI).href;
}
