// Stepping through a game: which ply is shown (null: the present), and the positions of plies the
// page never saw. A snapshot brings only the current position, but every `moved` event carries
// the position after it, and the server replays a room's events to a hello with `last_v` 0 (up
// to 240 of them, else it answers with a snapshot): so a short-lived spectator connection
// fetches them. The finished-game page uses it too.
//
//   const history = await fetchHistory(roomId);
//       // {positions: [after ply 0 (the start), after ply 1, ...], movers: [seat per ply],
//       //  captured: [squares per ply or null]}, or null when the server answered with a
//       //  snapshot (too many events) or the connection failed
//   const replay = createReplay({ plies: () => n, onChange: (ply) => {} });
//   replay.first(); replay.back(); replay.forward(); replay.last(); replay.show(ply);
//   replay.ply   // the ply shown, or null for the present (the last ply of a live game)

import { socketUrl } from './api.js';

// The longest a history fetch may take before it is given up (ms).
const FETCH_TIMEOUT_MS = 10_000;

export function fetchHistory(roomId) {
  return new Promise((resolve) => {
    const positions = [];
    const movers = [];
    const captured = [];
    let ply = 0;
    let target = null;
    let ws;
    const done = (value) => {
      clearTimeout(timer);
      if (ws && ws.readyState <= 1) ws.close(1000);
      resolve(value);
    };
    const timer = setTimeout(() => done(null), FETCH_TIMEOUT_MS);
    try {
      ws = new WebSocket(socketUrl(roomId));
    } catch {
      done(null);
      return;
    }
    ws.onopen = () => ws.send(JSON.stringify({ t: 'hello', d: { protocol: 1, room: roomId, last_v: 0 } }));
    ws.onerror = () => done(null);
    ws.onclose = () => done(null);
    ws.onmessage = (message) => {
      const frame = JSON.parse(message.data);
      const d = frame.d ?? {};
      if (frame.t === 'welcome') {
        target = d.version;
        if (target === 0) done({ positions, movers, captured });
        return;
      }
      if (frame.t === 'snapshot') {
        done(null);
        return;
      }
      if (frame.t === 'game_started' || frame.t === 'left') positions[ply] = d.position;
      if (frame.t === 'moved') {
        movers[ply] = d.seat ?? null;
        captured[ply] = d.captured ?? null;
        ply += 1;
        positions[ply] = d.position;
      }
      if (frame.v !== undefined && frame.v >= target) done({ positions, movers, captured });
    };
  });
}

export function createReplay({ plies, onChange }) {
  const replay = {
    ply: null,
    show(ply) {
      const last = plies();
      const next = ply === null || ply >= last ? null : Math.max(0, ply);
      if (next === replay.ply) return;
      replay.ply = next;
      onChange(next);
    },
    first: () => replay.show(0),
    back: () => replay.show((replay.ply ?? plies()) - 1),
    forward: () => (replay.ply === null ? undefined : replay.show(replay.ply + 1)),
    last: () => replay.show(null),
  };
  return replay;
}
