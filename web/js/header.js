// The header bar's account links, on every page that has them (home, player's page, leaderboard,
// rules, login, account; not the room and game pages, whose header holds the game):
// "Log in" until the page knows who is logged in; then the username, linked to the player's page,
// with "Account" (the settings) beside it. `data-checked` on #account-link says the page knows
// (the tests wait for it).
//
//   const me = await showAccount();   // the logged-in account, or null (also when unreachable)

import { account } from './api.js';
import { $ } from './dom.js';
import { profileUrl } from './who.js';

/** @returns {Promise<import('./api.js').Account | null>} */
export async function showAccount() {
  const me = await account().catch(() => null);
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
