// The login page: register or log in (the server sets the session cookie), and give the account
// the games this browser played anonymously (their seat tokens; the server checks each).

import { attachSeats, signIn } from './api.js';
import { errorText, setUpLanguage, t } from './i18n.js';
import { allSeatTokens } from './seats.js';
import { $, $input } from './dom.js';
import { showAccount } from './header.js';

setUpLanguage();
showAccount();
const tokens = allSeatTokens();
$('#attach-row').hidden = tokens.length === 0;
$('#attach-count').textContent =
  tokens.length === 1 ? t('login.attach_one') : t('login.attach', { count: String(tokens.length) });

/**
 * @param {'register' | 'login'} action
 * @param {SubmitEvent} event
 */
async function submit(action, event) {
  event.preventDefault();
  const name = $input(`#${action}-name`).value;
  const password = $input(`#${action}-password`).value;
  const notice = $('#notice');
  notice.hidden = true;
  try {
    await signIn(action, name, password);
    if (tokens.length > 0 && $input('#attach').checked) await attachSeats(tokens);
    location.assign('account');
  } catch (problem) {
    notice.textContent = errorText(/** @type {import('./api.js').ApiError} */ (problem));
    notice.hidden = false;
  }
}

$('#register-form').addEventListener('submit', (e) => submit('register', /** @type {SubmitEvent} */ (e)));
$('#login-form').addEventListener('submit', (e) => submit('login', /** @type {SubmitEvent} */ (e)));
