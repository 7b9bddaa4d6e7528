// A browser notification when it becomes your turn while the page is in the background (another
// tab, a minimised window), live or correspondence. Off until the player turns it on with the
// `#notify` switch, which is when the browser's permission is asked for (never before); the
// choice is remembered in localStorage["khanate.notify"] ("on" or "off"). A browser without the
// Notification API hides the switch; one whose permission was refused keeps it off and says so
// in the switch's title.
//
//   const notify = createNotifier();  // wires #notify (a toggle button: aria-pressed) if the page has one
//   notify.turn(title, body, tag)     // shows a notification if on, permitted and the page hidden
//   notify.on                         // whether it is on

import { t } from './i18n.js';

const KEY = 'khanate.notify';

function stored() {
  try {
    return localStorage.getItem(KEY) === 'on';
  } catch {
    return false;
  }
}

/** @param {boolean} on */
function remember(on) {
  try {
    localStorage.setItem(KEY, on ? 'on' : 'off');
  } catch {
    // Storage refused (private mode): the switch still works for this page.
  }
}

const supported = () => typeof Notification !== 'undefined';

/**
 * @typedef {object} Notifier
 * @property {boolean} on
 * @property {(title: string, body: string, tag: string) => void} turn
 */

/** @returns {Notifier} */
export function createNotifier() {
  /** @type {HTMLButtonElement | null} */
  const button = document.querySelector('#notify');
  /** @type {Notifier} */
  const notify = {
    on: supported() && stored() && Notification.permission === 'granted',
    turn(title, body, tag) {
      if (!notify.on || !supported() || Notification.permission !== 'granted') return;
      if (document.visibilityState !== 'hidden') return;
      const shown = new Notification(title, { body, tag });
      shown.onclick = () => {
        window.focus();
        shown.close();
      };
    },
  };
  function show(refused = false) {
    if (!button) return;
    button.hidden = !supported();
    button.setAttribute('aria-pressed', String(notify.on));
    button.setAttribute('title', t(refused ? 'room.notify_refused' : 'room.notify'));
  }
  button?.addEventListener('click', async () => {
    if (notify.on) {
      notify.on = false;
      remember(false);
      show();
      return;
    }
    const permission = Notification.permission === 'granted'
      ? 'granted'
      : await Notification.requestPermission();
    notify.on = permission === 'granted';
    remember(notify.on);
    show(!notify.on);
  });
  show();
  return notify;
}
