// Takebacks on the room page (docs/protocol.md "Takeback"): who here may ask for one, and
// asking. The server judges every request (one offer at a time, its cooldown, rated games); the
// page only offers the button when it makes sense. What a `taken_back` does to the room state is
// the reducer's (state.js).
//
//   takebackSeat(state, role, held)   // the held seat that would ask, or null
//   await offerTakeback(ctrl)         // asks; at a local table the other seats accept at once

/** @typedef {import('./state.js').RoomState} RoomState */
/** @typedef {import('./ctrl.js').RoomCtrl} RoomCtrl */
/** @typedef {import('./ctrl.js').Role} Role */

/**
 * The seat held here that would ask for a takeback now, or null: a game being played, no offer
 * open, and a move of that seat in the line of play. A player asks for its own seat; a local
 * table (every seat held here) for the seat that made the last move, as an undo.
 * @param {RoomState} state
 * @param {Role} role
 * @param {number[]} held  the seats held here
 * @returns {number | null}
 */
export function takebackSeat(state, role, held) {
  if (state.status !== 'playing' || state.offers.length > 0) return null;
  const seat = role === 'player' ? held[0] : role === 'local' ? state.movers.at(-1) : undefined;
  if (seat === undefined || seat === null || !held.includes(seat) || state.seats[seat]?.left) return null;
  return state.movers.includes(seat) ? seat : null;
}

/**
 * Asks for a takeback for the seat of `takebackSeat`. At a local table this browser holds the
 * other seats too: they accept at once, so the button is an undo there.
 * @param {RoomCtrl} ctrl
 */
export async function offerTakeback(ctrl) {
  const seat = takebackSeat(ctrl.state, ctrl.role, ctrl.heldSeats());
  if (seat === null) return;
  ctrl.state.message = null;
  if (!(await ctrl.command(seat, 'offer_takeback', {}, 'takeback')) || ctrl.role !== 'local') return;
  for (const other of ctrl.heldSeats().filter((s) => s !== seat && !ctrl.state.seats[s]?.left)) {
    const offer = ctrl.state.offers.find((o) => o.kind === 'takeback');
    if (!offer || offer.accepted.includes(other)) continue;
    if (!(await ctrl.command(other, 'accept', { offer: offer.id }, 'takeback'))) return;
  }
}
