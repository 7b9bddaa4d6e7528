// The account page: who is logged in, their sessions, logging out here or everywhere, and the
// export of everything the server keeps (docs/protocol.md, "Accounts").

import { account, apiTokens, createApiToken, send, sessions, signOut } from './api.js';
import { errorText, setUpLanguage, t } from './i18n.js';
import { $, $button, $input } from './dom.js';
import { showAccount } from './header.js';

setUpLanguage();
// One GET api/session for the header and the page.
const session = account();
showAccount(session);

/** @param {Promise<import('./api.js').Account | null>} [asked]  GET api/session's answer (asked anew by default) */
async function show(asked = account()) {
  const me = await asked;
  if (!me) {
    location.assign('login');
    return;
  }
  const list = $('#sessions');
  list.replaceChildren();
  for (const s of (await sessions()).sessions) {
    const item = document.createElement('li');
    item.textContent = `${s.user_agent ?? '?'} · ${new Date(s.last_used_at).toLocaleString()}`;
    if (s.current) item.append(` (${t('account.this_browser')})`);
    list.append(item);
  }
  await showTokens();
  // Last: the page is ready when it names the account (the tests wait for it).
  $('#account-name').textContent = me.name;
}

async function showTokens() {
  const list = $('#tokens');
  list.replaceChildren();
  for (const token of (await apiTokens()).tokens) {
    const item = document.createElement('li');
    item.dataset.id = token.id;
    item.textContent = `${token.description} (${token.scopes.join(', ')}) `;
    const revoke = document.createElement('button');
    revoke.type = 'button';
    revoke.className = 'revoke';
    revoke.textContent = t('account.token_revoke');
    revoke.addEventListener('click', () => act(async () => {
      await send('DELETE', `api/account/tokens/${token.id}`);
      await showTokens();
    }));
    item.append(revoke);
    list.append(item);
  }
}

/** Runs `work`, showing a refusal in words. @param {() => Promise<void>} work */
async function act(work) {
  $('#notice').hidden = true;
  try {
    await work();
  } catch (problem) {
    $('#notice').textContent = errorText(/** @type {import('./api.js').ApiError} */ (problem));
    $('#notice').hidden = false;
  }
}

/**
 * @param {string} selector
 * @param {() => Promise<void>} work
 */
function onSubmit(selector, work) {
  $(selector).addEventListener('submit', (event) => {
    event.preventDefault();
    act(work);
  });
}

onSubmit('#token-form', async () => {
  const scopes = ['read', 'play'].filter((scope) => $input(`#scope-${scope}`).checked);
  const made = await createApiToken($input('#token-description').value, scopes);
  $('#new-token-value').textContent = made.token ?? '';
  $('#new-token').hidden = false;
  await showTokens();
});
onSubmit('#password-form', async () => {
  await send('POST', 'api/account/password', { old: $input('#old-password').value, new: $input('#new-password').value });
  $('#password-done').hidden = false;
  await show();
});
onSubmit('#delete-form', async () => {
  await send('DELETE', 'api/account', { password: $input('#delete-password').value });
  location.assign('./');
});

/** @param {'logout' | 'logout-everywhere'} action */
function leave(action) {
  return act(async () => {
    await signOut(action);
    location.assign('./');
  });
}

$button('#logout').addEventListener('click', () => leave('logout'));
$button('#logout-everywhere').addEventListener('click', () => leave('logout-everywhere'));
show(session).catch((problem) => {
  $('#notice').textContent = errorText(problem);
  $('#notice').hidden = false;
});
