// The account page: who is logged in, their sessions, logging out here or everywhere, and the
// export of everything the server keeps (docs/protocol.md, "Accounts").

import { account, sessions, signOut } from './api.js';
import { errorText, setUpLanguage, t } from './i18n.js';
import { $, $button } from './dom.js';

setUpLanguage();

async function show() {
  const me = await account();
  if (!me) {
    location.assign('login');
    return;
  }
  $('#account-name').textContent = me.name;
  const list = $('#sessions');
  list.replaceChildren();
  for (const s of (await sessions()).sessions) {
    const item = document.createElement('li');
    item.textContent = `${s.user_agent ?? '?'} · ${new Date(s.last_used_at).toLocaleString()}`;
    if (s.current) item.append(` (${t('account.this_browser')})`);
    list.append(item);
  }
}

/** @param {'logout' | 'logout-everywhere'} action */
async function leave(action) {
  try {
    await signOut(action);
    location.assign('./');
  } catch (problem) {
    $('#notice').textContent = errorText(/** @type {import('./api.js').ApiError} */ (problem));
    $('#notice').hidden = false;
  }
}

$button('#logout').addEventListener('click', () => leave('logout'));
$button('#logout-everywhere').addEventListener('click', () => leave('logout-everywhere'));
show().catch((problem) => {
  $('#notice').textContent = errorText(problem);
  $('#notice').hidden = false;
});
