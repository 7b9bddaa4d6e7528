// Under the board: the replay's buttons and where it stands ("Move 3 / 10"), with the move shown
// marked in the move list, and the note of a move waiting for the connection.

import { t } from '../../i18n.js';
import { $, $$, $button } from '../../dom.js';

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

/** @param {RoomCtrl} ctrl */
export function renderPending(ctrl) {
  const note = $('#pending');
  note.hidden = !ctrl.pendingMove;
  note.textContent = ctrl.pendingMove ? t('room.pending', { move: ctrl.pendingMove }) : '';
  $('#notation-key').hidden = !ctrl.info?.notationKey;
}
