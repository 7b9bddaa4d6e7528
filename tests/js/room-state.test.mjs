// The room-state reducer (web/js/room/state.js) over the server's frames, without a browser:
// run by `node --test tests/js` (tests/web_client.rs `the_client_modules_pass_their_node_tests`).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  abandonClaim, applyFrame, clockLeft, clockText, createRoomState, legalFor, repetitionPossible,
} from '../../web/js/room/state.js';

const START = 'rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1';
const AFTER_E4 = 'rnsmksnr/8/pppppppp/8/4P3/PPPP1PPP/8/RNSKMSNR b DEde - 0 1';
const AT = '2026-11-29T17:02:16.000Z';
// The browser's clocks at the frames' receipt: the wall clock 50 ms after the server's `at`.
const NOW = { wall: Date.parse(AT) + 50, mono: 1_000 };

function seats() {
  return [
    { seat: 0, color: 'white', name: 'Dara', taken: true, connected: true, left: false },
    { seat: 1, color: 'black', name: 'Sok', taken: true, connected: true, left: false },
  ];
}

function snapshot(v, extra = {}) {
  return {
    t: 'snapshot',
    v,
    d: {
      room_id: 'r1', game: 'ouk-chatrang', status: 'playing', seats: seats(), start_position: START,
      position: START, to_move: 0, moves: [], display_moves: [], offers: [], spectator_chat: true,
      legal_moves: ['e3e4', 'g1e2'], ...extra,
    },
  };
}

function moved(v, extra = {}) {
  return {
    t: 'moved',
    v,
    d: { seat: 0, move: 'e3e4', display: 'e4', position: AFTER_E4, to_move: 1, ...extra },
  };
}

test('a snapshot sets the room and the legal moves of the held seat on move', () => {
  const state = createRoomState({ held: [0] });
  applyFrame(state, 0, snapshot(3, { created_by: 1, spectators: 2 }), NOW);
  assert.equal(state.version, 3);
  assert.equal(state.status, 'playing');
  assert.equal(state.toMove, 0);
  assert.equal(state.createdBy, 1);
  assert.equal(state.spectators, 2);
  assert.deepEqual(state.positions, [START]);
  assert.deepEqual(legalFor(state, 0), { position: START, moves: ['e3e4', 'g1e2'], complete: true });
  assert.equal(legalFor(state, 1), null);
});

test('a moved event appends the move, its mover, captures, material and position; old versions do nothing', () => {
  const state = createRoomState({ held: [1] });
  applyFrame(state, 1, snapshot(3), NOW);
  const material = [{ captured: '' }, { captured: 'p' }];
  applyFrame(state, 1, moved(4, { captured: ['d5'], material, check: 1, legal_moves: ['g8e7'] }), NOW);
  assert.deepEqual(state.moves, ['e3e4']);
  assert.deepEqual(state.displayMoves, ['e4']);
  assert.deepEqual(state.movers, [0]);
  assert.deepEqual(state.captured, [['d5']]);
  assert.deepEqual(state.positions, [START, AFTER_E4]);
  assert.deepEqual(state.material, material);
  assert.equal(state.check, 1);
  assert.equal(state.version, 4);
  assert.deepEqual(legalFor(state, 1)?.moves, ['g8e7']);
  // The same event again (another socket of a pass-and-play table brings it): applied once.
  applyFrame(state, 1, moved(4), NOW);
  applyFrame(state, 1, moved(3), NOW);
  assert.deepEqual(state.moves, ['e3e4']);
});

test('a snapshot\'s history gives each ply its mover, captures and position', () => {
  const state = createRoomState({ held: [] });
  const history = [{ seat: 0, captured: [], position: AFTER_E4 }];
  applyFrame(state, null, snapshot(4, { moves: ['e3e4'], display_moves: ['e4'], position: AFTER_E4, to_move: 1, history }), NOW);
  assert.deepEqual(state.movers, [0]);
  assert.deepEqual(state.captured, [[]]);
  assert.deepEqual(state.positions, [START, AFTER_E4]);
  // Without it (an older server), the earlier positions are unknown but the present is not.
  const old = createRoomState({ held: [] });
  applyFrame(old, null, snapshot(5, {
    moves: ['e3e4', 'd6d5'], display_moves: ['e4', 'd5'], position: AFTER_E4, to_move: 0,
  }), NOW);
  assert.deepEqual(old.positions, [START, null, AFTER_E4]);
  assert.deepEqual(old.movers, [null, null]);
});

test('a moved event without the server facts leaves them unknown, and check clears', () => {
  const state = createRoomState({ held: [] });
  applyFrame(state, null, snapshot(3, { check: 0 }), NOW);
  assert.equal(state.check, 0);
  applyFrame(state, null, moved(4), NOW);
  assert.deepEqual(state.captured, [null]);
  assert.equal(state.check, null);
  assert.equal(state.material, null);
});

test('clocks count down from the frame\'s instant, only the running seat', () => {
  const state = createRoomState({ held: [0] });
  const clock = { initial_s: 300, increment_s: 3, remaining_ms: [299_544, 287_310], running: 1, at: AT };
  applyFrame(state, 0, snapshot(3, { clock }), NOW);
  assert.equal(clockLeft(state, 1, NOW.mono), 287_310);
  assert.equal(clockLeft(state, 1, NOW.mono + 1_500), 285_810);
  assert.equal(clockLeft(state, 0, NOW.mono + 1_500), 299_544);
  // A replayed frame 4 s older than the quickest one is counted from its own instant.
  const old = { remaining_ms: [299_000, 280_000], running: 1, at: '2026-11-29T17:02:12.000Z' };
  applyFrame(state, 0, moved(4, { clock: old, seat: 0, to_move: 1 }), NOW);
  assert.equal(clockLeft(state, 1, NOW.mono), 276_000);
  assert.equal(state.clock.initialS, 300);
  // Never below zero.
  assert.equal(clockLeft(state, 1, NOW.mono + 400_000), 0);
});

test('a running clock counts the frame\'s way here: half the round trip of the socket that brought it', () => {
  const state = createRoomState({ held: [0] });
  const clock = { initial_s: 300, increment_s: 3, remaining_ms: [299_544, 287_310], running: 1, at: AT };
  // 600 ms round trip: the clock started on the server 300 ms before the frame arrived.
  applyFrame(state, 0, snapshot(3, { clock }), { ...NOW, lag: 600 });
  assert.equal(clockLeft(state, 1, NOW.mono), 287_010);
  assert.equal(clockLeft(state, 1, NOW.mono + 1_000), 286_010);
  // The seat not running shows its time as sent.
  assert.equal(clockLeft(state, 0, NOW.mono + 1_000), 299_544);
  // Our own turn, 200 ms later by the same socket (now 640 ms round trip): counted from 320 ms
  // before the frame arrived, and from its real instant (80 ms older than the quickest).
  const mine = { remaining_ms: [299_544, 286_000], running: 0, at: '2026-11-29T17:02:17.120Z' };
  const later = { wall: Date.parse('2026-11-29T17:02:17.120Z') + 130, mono: 2_000, lag: 640 };
  applyFrame(state, 0, moved(4, { clock: mine, seat: 1, to_move: 0 }), later);
  assert.equal(clockLeft(state, 0, 2_000), 299_544 - 80 - 320);
  assert.equal(clockLeft(state, 1, 2_000), 286_000);
  // Before the first pong (no round trip yet) nothing is counted beyond the frame's age.
  const fresh = createRoomState({ held: [0] });
  applyFrame(fresh, 0, snapshot(3, { clock }), { ...NOW, lag: null });
  assert.equal(clockLeft(fresh, 1, NOW.mono), 287_310);
});

test('clock texts: m:ss, h:mm:ss from an hour, tenths under 10 s', () => {
  assert.equal(clockText(287_310), '4:47');
  assert.equal(clockText(3_725_000), '1:02:05');
  assert.equal(clockText(9_420), '0:09.4');
  assert.equal(clockText(0), '0:00.0');
});

test('a declined offer names who declined it when the server says so', () => {
  const state = createRoomState({ held: [0] });
  applyFrame(state, 0, snapshot(3), NOW);
  applyFrame(state, 0, { t: 'offer', v: 4, d: { id: 7, kind: 'draw', by: 0 } }, NOW);
  assert.equal(state.offers.length, 1);
  applyFrame(state, 0, { t: 'offer_declined', v: 5, d: { id: 7, by: 1 } }, NOW);
  assert.deepEqual(state.offers, []);
  assert.deepEqual(state.message, { key: 'room.draw_declined_by', params: {}, seats: { player: 1 } });
  // Without `by`, the offerer's page names the one other player; withdrawn by its maker says so.
  applyFrame(state, 0, { t: 'offer', v: 6, d: { id: 8, kind: 'draw', by: 1 } }, NOW);
  applyFrame(state, 0, { t: 'offer_declined', v: 7, d: { id: 8, by: 1 } }, NOW);
  assert.deepEqual(state.message, { key: 'room.draw_withdrawn', params: {}, seats: { player: 1 } });
  applyFrame(state, 0, { t: 'offer', v: 8, d: { id: 9, kind: 'draw', by: 0 } }, NOW);
  applyFrame(state, 0, { t: 'offer_declined', v: 9, d: { id: 9 } }, NOW);
  assert.deepEqual(state.message, { key: 'room.draw_declined_by', params: {}, seats: { player: 1 } });
});

test('presence away with claimable_at opens an abandonment claim after the grace period', () => {
  const state = createRoomState({ held: [1] });
  applyFrame(state, 1, snapshot(3), NOW);
  const claimableAt = '2026-11-29T17:02:26.000Z';
  applyFrame(state, 1, { t: 'presence', d: { seat: 0, connected: false, claimable_at: claimableAt } }, NOW);
  assert.equal(state.seats[0].connected, false);
  // 10 s after `at`, less the 50 ms the browser is ahead.
  assert.deepEqual(abandonClaim(state, NOW.mono), { away: 0, claimer: 1, wait: 9_950 });
  assert.deepEqual(abandonClaim(state, NOW.mono + 20_000), { away: 0, claimer: 1, wait: 0 });
  applyFrame(state, 1, { t: 'presence', d: { seat: 0, connected: true } }, NOW);
  assert.equal(abandonClaim(state, NOW.mono + 20_000), null);
});

// Knights out and back: the positions of White's Ne2, Black's Ne7, White's Ng1 (Black's Ng8 is
// the start again).
const OUT = 'rnsmksnr/8/pppppppp/8/8/PPPPPPPP/4N3/RNSKMS1R b DEde - 1 1';
const OUT_BLACK = 'rnsmk1nr/4n3/pppppppp/8/8/PPPPPPPP/4N3/RNSKMS1R w DEde - 2 2';
const BACK = 'rnsmksnr/8/pppppppp/8/8/PPPPPPPP/4N3/RNSKMS1R b DEde - 3 2';

// A room at version 3 in which the knights go out and back twice: the start position stands a
// third time. `play(position, seat)` applies the next `moved`, `next()` gives the next version.
function repeated() {
  const state = createRoomState({ held: [0] });
  applyFrame(state, 0, snapshot(3), NOW);
  let v = 3;
  const next = () => ++v;
  const play = (position, seat) => applyFrame(state, 0, moved(next(), { position, seat, to_move: 1 - seat }), NOW);
  for (let round = 0; round < 2; round += 1) {
    play(OUT, 0);
    play(OUT_BLACK, 1);
    play(BACK, 0);
    play(START, 1);
    if (round === 0) assert.equal(repetitionPossible(state), false, 'the start position stood twice');
  }
  return { state, play, next };
}

test('the repetition claim shows once a position stood three times', () => {
  const { state, play } = repeated();
  assert.equal(repetitionPossible(state), true, 'the start position stood three times');
  play(AFTER_E4, 0);
  assert.equal(repetitionPossible(state), false, 'a position that stood once');
});

test('a taken_back drops the plies taken back, their positions seen, the offer; the rest is the server\'s', () => {
  const { state, play, next } = repeated();
  assert.equal(repetitionPossible(state), true, 'the start position stood three times');
  applyFrame(state, 0, { t: 'offer', v: next(), d: { id: 1, kind: 'takeback', by: 0, accepted: [], plies: 2 } }, NOW);
  assert.deepEqual(state.offers, [{ id: 1, kind: 'takeback', by: 0, accepted: [], plies: 2 }]);
  const clock = { remaining_ms: [60_000, 55_000], running: 0, at: AT };
  applyFrame(state, 0, {
    t: 'taken_back', v: next(),
    d: { plies: 2, position: OUT_BLACK, to_move: 0, clock, legal_moves: ['e2g1'] },
  }, NOW);
  assert.equal(state.version, 13);
  assert.equal(state.moves.length, 6);
  assert.deepEqual(state.movers, [0, 1, 0, 1, 0, 1]);
  assert.equal(state.positions.length, 7);
  assert.equal(state.positions[6], OUT_BLACK);
  assert.equal(state.position, OUT_BLACK);
  assert.equal(state.toMove, 0);
  assert.deepEqual(state.offers, []);
  assert.equal(repetitionPossible(state), false, 'the start position stood twice again');
  assert.deepEqual(legalFor(state, 0)?.moves, ['e2g1']);
  assert.deepEqual(state.clock?.remaining, [60_000, 55_000]);
  assert.deepEqual(state.message, { key: 'room.taken_back_by_plies', params: { count: 2 }, seats: { player: 0 } });
  // The next move is ply 7 again.
  play(BACK, 0);
  assert.equal(state.moves.length, 7);
  assert.equal(state.positions[7], BACK);
});

test('a takeback request declined or closed by a move is told in its own words', () => {
  const state = createRoomState({ held: [0] });
  applyFrame(state, 0, snapshot(3), NOW);
  applyFrame(state, 0, { t: 'offer', v: 4, d: { id: 2, kind: 'takeback', by: 0, plies: 1 } }, NOW);
  applyFrame(state, 0, { t: 'offer_declined', v: 5, d: { id: 2, by: 1 } }, NOW);
  assert.deepEqual(state.message, { key: 'room.takeback_declined_by', params: {}, seats: { player: 1 } });
});

test('a rematch event says to follow it; a first snapshot that has one says it came late', () => {
  const state = createRoomState({ held: [0] });
  const rematch = { room_id: 'r2', invite_code: 'abc', seats: [{ seat: 0, new_seat: 1, new_color: 'black' }] };
  assert.equal(applyFrame(state, 0, snapshot(9, { status: 'finished', rematch }), NOW).rematch, 'late');
  const live = createRoomState({ held: [0] });
  applyFrame(live, 0, snapshot(8, { status: 'finished' }), NOW);
  assert.equal(applyFrame(live, 0, { t: 'rematch', v: 9, d: rematch }, NOW).rematch, 'live');
  assert.deepEqual(live.rematch, rematch);
});

test('chat frames count only from the first held seat\'s socket', () => {
  const state = createRoomState({ held: [0, 1] });
  const line = { channel: 'players', seat: 1, name: 'Sok', text: 'hi' };
  assert.equal(applyFrame(state, 1, { t: 'chat', d: line }, NOW).chat, false);
  assert.equal(applyFrame(state, 0, { t: 'chat', d: line }, NOW).chat, true);
  assert.deepEqual(state.chat, [line]);
  applyFrame(state, 0, { t: 'chat_history', d: { messages: [] } }, NOW);
  assert.deepEqual(state.chat, []);
  applyFrame(state, 0, { t: 'spectators', d: { count: 4 } }, NOW);
  assert.equal(state.spectators, 4);
});

test('seat_account gives a seat its account, or marks it deleted', () => {
  const state = createRoomState({ held: [1] });
  applyFrame(state, 1, snapshot(3), NOW);
  applyFrame(state, 1, { t: 'seat_account', v: 4, d: { seat: 0, user: 'Dara' } }, NOW);
  assert.deepEqual([state.seats[0].name, state.seats[0].user, state.seats[0].deleted], ['Dara', 'Dara', false]);
  applyFrame(state, 1, { t: 'seat_account', v: 5, d: { seat: 0, user: 'Dara', deleted: true } }, NOW);
  assert.equal(state.seats[0].deleted, true);
  assert.equal(state.version, 5);
  assert.equal(state.seats[1].user, undefined, 'the other seat is no account');
});
