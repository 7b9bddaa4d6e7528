// The takeback's buttons and words on the room page (docs/web-client.md "The room page DOM"):
// `#offer-takeback` while this browser may ask for one, `#accept-takeback` and `#decline-takeback`
// (withdraw, for the asker) while one is open, and the open request in words for `#offers`.

import { t } from '../../i18n.js';
import { $, $button } from '../../dom.js';
import { takebackSeat } from '../takeback.js';
import { showAccept } from './accept.js';

/** @typedef {import('../ctrl.js').RoomCtrl} RoomCtrl */

/** @param {RoomCtrl} ctrl */
export function renderTakeback(ctrl) {
  const { state } = ctrl;
  const open = state.status === 'playing' ? ctrl.openOffer('takeback') : null;
  $('#offer-takeback').hidden = takebackSeat(state, ctrl.role, ctrl.heldSeats()) === null;
  showAccept($button('#accept-takeback'), open);
  const withdraw = Boolean(open && open.answerer === null && open.ours);
  const decline = $('#decline-takeback');
  decline.hidden = !(open && (open.answerer !== null || withdraw));
  const label = t(withdraw ? 'room.withdraw_takeback' : 'room.decline_takeback');
  if (decline.textContent !== label) decline.textContent = label;
}

/**
 * The open takeback request in words ("Dara asks to take back their last move."), with who has
 * accepted it; '' when none is open.
 * @param {RoomCtrl} ctrl
 */
export function takebackOfferText(ctrl) {
  const open = ctrl.state.status === 'playing' ? ctrl.openOffer('takeback') : null;
  if (!open) return '';
  const { offer } = open;
  const plies = offer.plies ?? 1;
  const key = plies > 1 ? 'room.takeback_offered_plies' : 'room.takeback_offered';
  const accepted = offer.accepted.map((seat) => ctrl.seatName(seat)).join(', ');
  return t(key, { player: ctrl.seatName(offer.by), count: plies })
    + (accepted ? ` ${t('room.draw_accepted_by', { players: accepted })}` : '');
}
