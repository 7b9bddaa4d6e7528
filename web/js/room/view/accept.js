// The accept buttons of the open offers (`#accept-draw`, `#accept-takeback`, `#accept-rematch`):
// each names the offer it shows in `data-offer`, and the click accepts that offer and no other
// (the `accept` command carries its id; the server refuses an id that is no longer open). A
// button that starts showing another offer is disabled for ACCEPT_GUARD_MS, so a click meant for
// the offer before (withdrawn and replaced under the pointer) accepts nothing.
//
//   showAccept(button, open)   // after each render: shown for an offer this page can answer
//   acceptedOffer(button)      // on click: the offer id to accept, or null

/** @typedef {import('../ctrl.js').OpenOffer} OpenOffer */

/** How long an accept button stays disabled after a new offer appears in it, in milliseconds. */
export const ACCEPT_GUARD_MS = 500;

/**
 * Shows `button` for `open` when a seat held here can answer it; a new offer disables it for
 * ACCEPT_GUARD_MS.
 * @param {HTMLButtonElement} button
 * @param {OpenOffer | null} open
 */
export function showAccept(button, open) {
  const offer = open && open.answerer !== null ? String(open.offer.id) : null;
  button.hidden = offer === null;
  if (offer === null) {
    delete button.dataset.offer;
    return;
  }
  if (button.dataset.offer === offer) return;
  button.dataset.offer = offer;
  button.disabled = true;
  setTimeout(() => {
    if (button.dataset.offer === offer) button.disabled = false;
  }, ACCEPT_GUARD_MS);
}

/**
 * The id of the offer a click on `button` accepts: the one it shows, or null while it is hidden
 * or disabled.
 * @param {HTMLButtonElement} button
 * @returns {number | null}
 */
export function acceptedOffer(button) {
  if (button.hidden || button.disabled || button.dataset.offer === undefined) return null;
  return Number(button.dataset.offer);
}
