// The board of the room page: what the board module draws (BoardView, boards/board.js), from the
// controller: the present or, in a replay, an earlier position; the legal moves of the seat this
// browser builds for, or while another seat is on move the premoves of its own; a move pending
// while the connection is down; the board turned round; the result. And `#board`'s attributes
// the tests read (docs/web-client.md "Replay").

import { legalFor } from '../state.js';
import { $ } from '../../dom.js';

/** @typedef {import('../ctrl.js').RoomCtrl} RoomCtrl */
/** @typedef {import('../../boards/board.js').BoardView} BoardView */

/**
 * Whether the side to move is in check after ply `ply`: the server's `check` for the present;
 * for an earlier position (or without it) a game whose display is SAN marks a checking move with
 * `+`, a mating one with `#` (games.js `sanChecks`).
 * @param {RoomCtrl} ctrl
 * @param {number} [ply]
 */
export function inCheck(ctrl, ply = ctrl.state.moves.length) {
  const { state } = ctrl;
  if (ply === state.moves.length && state.check !== null) return true;
  const last = state.displayMoves[ply - 1] ?? '';
  const live = state.status === 'playing' || ply < state.moves.length;
  return Boolean(ctrl.info?.sanChecks) && (last.endsWith('#') || (live && last.endsWith('+')));
}

/**
 * The view of the board now (null: nothing to draw yet).
 * @param {RoomCtrl} ctrl
 * @returns {BoardView | null}
 */
function boardView(ctrl) {
  const { state } = ctrl;
  const ply = ctrl.replay.ply;
  const shown = ply === null ? state.moves.length : ply;
  const position = ply === null ? state.position : state.positions[ply];
  if (!position) return null;
  const premoveSeat = ctrl.premoveSeat();
  const color = premoveSeat === null ? null : state.seats[premoveSeat]?.color;
  const known = ctrl.moveInFlight || ply !== null ? null : legalFor(state, state.toMove);
  const pending = ply === null ? ctrl.pendingMove : null;
  const result = state.result;
  return {
    position,
    legal: color && ctrl.boardModule?.premoves && !ctrl.moveInFlight
      ? ctrl.boardModule.premoves(position, color)
      : known?.moves ?? null,
    complete: known?.complete ?? true,
    lastMove: pending ?? state.moves[shown - 1] ?? null,
    pending: pending !== null,
    premoving: Boolean(color),
    premove: ply === null ? ctrl.premove : null,
    orientation: ctrl.orientation(),
    flipped: ctrl.flipped,
    colors: state.seats.map((s) => s.color),
    check: inCheck(ctrl, shown),
    captured: state.captured[shown - 1] ?? [],
    outcome: result && ply === null
      ? { winner: result.winner === null ? null : state.seats[result.winner]?.color ?? null, reason: result.reason }
      : null,
  };
}

/**
 * Creates the board's view: `render()` redraws the board when what it shows changed.
 * @param {RoomCtrl} ctrl
 */
export function createBoardView(ctrl) {
  /** @type {string | null} */
  let last = null;
  return {
    render() {
      const view = boardView(ctrl);
      if (!ctrl.board || !view) return;
      const host = $('#board');
      host.dataset.position = view.position;
      host.dataset.ply = String(ctrl.replay.ply ?? ctrl.state.moves.length);
      host.toggleAttribute('data-replay', ctrl.replay.ply !== null);
      host.toggleAttribute('data-flipped', ctrl.flipped);
      if (ctrl.pendingMove) host.dataset.pending = ctrl.pendingMove;
      else delete host.dataset.pending;
      if (ctrl.premove && view.premove) host.dataset.premove = ctrl.premove;
      else delete host.dataset.premove;
      const signature = JSON.stringify(view);
      if (signature === last) return;
      last = signature;
      ctrl.board.update(view);
    },
    // The language changed: the board's words are drawn again.
    forget() {
      last = null;
    },
  };
}
