// Under the board: the replay's buttons and where it stands ("Move 3 / 10"), with the move shown
// marked in the move list, and the note of a move waiting for the connection.

import { t } from '../../i18n.js';
import { $, $$, $button } from '../../dom.js';
import { moveText } from './moves.js';

/** @typedef {import('../ctrl.js').RoomCtrl} RoomCtrl */

/** @param {RoomCtrl} ctrl */
export function renderReplay(ctrl) {
  const box = $('#replay');
  const plies = ctrl.state.moves.length;
  const ply = ctrl.replay.ply;
  box.hidden = plies === 0;
  $('#room').dataset.viewPly = ply === null ? '' : String(ply);
  if (box.hidden) return;
  const shown = ply ?? plies;
  $('#replay-ply').textContent = t('replay.ply', { ply: shown, plies });
  $button('#replay-first').disabled = shown === 0;
  $button('#replay-back').disabled = shown === 0;
  $button('#replay-forward').disabled = ply === null;
  $button('#replay-last').disabled = ply === null;
  for (const li of $$('#moves li')) {
    const current = Number(li.dataset.ply) === shown && ply !== null;
    li.classList.toggle('shown', current);
    if (current) li.setAttribute('aria-current', 'step');
    else li.removeAttribute('aria-current');
  }
}

/**
 * A move sent while the connection is down: said as the move list will say it, over the board.
 * @param {RoomCtrl} ctrl
 */
export function renderPending(ctrl) {
  const { state, pendingMove } = ctrl;
  const note = $('#pending');
  note.hidden = !pendingMove;
  const color = state.toMove === null ? null : state.seats[state.toMove]?.color ?? null;
  const words = pendingMove
    ? moveText({ game: state.game, moves: [pendingMove] }, ctrl.pendingDisplay, 0, color, ctrl.boardModule)
    : '';
  note.textContent = pendingMove ? t('room.pending', { move: words }) : '';
}
