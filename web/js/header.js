// The header bar's account links, on every page that has them (home, player's page, leaderboard,
// rules, login, account; not the room and game pages, whose header holds the game):
// "Log in" until the page knows who is logged in; then the username, linked to the player's page,
// with "Account" (the settings) beside it. `data-checked` on #account-link says the page knows
// (the tests wait for it).
//
//   const me = await showAccount();   // the logged-in account, or null (also when unreachable)
//   showAccount(session);   // a page that asks GET api/session itself hands its answer over

import { account } from './api.js';
import { $ } from './dom.js';
import { profileUrl } from './who.js';

/**
 * @param {Promise<import('./api.js').Account | null>} [session]  GET api/session's answer, when the
 *   page asked already (asked here otherwise)
 * @returns {Promise<import('./api.js').Account | null>}
 */
export async function showAccount(session = account()) {
  const me = await session.catch(() => null);
  const link = $('#account-link');
  if (me) {
    link.removeAttribute('data-i18n');
    link.textContent = me.name;
    link.setAttribute('href', profileUrl(me.name));
    $('#settings-link').hidden = false;
  }
  link.dataset.checked = 'true';
  return me;
}
