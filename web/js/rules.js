// The rules page, at rules/{game}: a summary of the rules the server enforces (docs/rules/*.md),
// one section per topic (games.js `rulesSections`), each section's points one line of its
// translation, and the key to the pictures the board module draws (its `rulesKey`).

import { t, addStrings, setUpLanguage, onLanguageChange } from './i18n.js';
import { GAMES, gameInfo, loadBoardModule } from './games.js';
import { showAccount } from './header.js';

/** @typedef {import('./boards/board.js').BoardModule} BoardModule */

const game = location.pathname.split('/').filter(Boolean).pop() ?? '';
// The game's board module, once loaded: the key to the pictures draws with its functions.
/** @type {BoardModule | null} */
let board = null;

// The links to every game's rules, the one shown marked.
function renderNav() {
  const nav = /** @type {HTMLElement} */ (document.querySelector('#rules nav'));
  nav.replaceChildren(...GAMES.map((info) => {
    const link = document.createElement('a');
    link.href = `rules/${info.id}`;
    link.dataset.game = info.id;
    link.textContent = t(`game.${info.id}`);
    if (info.id === game) link.setAttribute('aria-current', 'page');
    return link;
  }));
}

function renderKey() {
  const key = /** @type {HTMLElement} */ (document.querySelector('#rules-key'));
  const items = board?.rulesKey?.(t) ?? [];
  key.hidden = items.length === 0;
  if (key.hidden) return;
  const heading = document.createElement('h2');
  heading.textContent = t('rules.key');
  const list = document.createElement('ul');
  list.append(...items.map(({ picture, label, data }) => {
    const item = document.createElement('li');
    const words = document.createElement('span');
    words.textContent = label;
    item.append(picture, words);
    Object.assign(item.dataset, data);
    return item;
  }));
  key.replaceChildren(heading, list);
}

/**
 * @param {string} selector
 * @param {string} text
 */
function setText(selector, text) {
  const el = document.querySelector(selector);
  if (el) el.textContent = text;
}

function render() {
  renderNav();
  const sections = gameInfo(game)?.rulesSections;
  if (!sections) {
    setText('#rules-title', t('rules.unknown'));
    return;
  }
  document.title = `${t(`game.${game}`)} · ${t('rules.title')}`;
  setText('#rules-title', t(`game.${game}`));
  setText('#rules-intro', t(`rules.${game}.intro`));
  document.querySelector('#rules-body')?.replaceChildren(
    ...sections.map((section) => {
      const el = document.createElement('section');
      const heading = document.createElement('h2');
      heading.textContent = t(`rules.${game}.${section}`);
      const list = document.createElement('ul');
      for (const point of t(`rules.${game}.${section}.points`).split('\n')) {
        const item = document.createElement('li');
        item.textContent = point;
        list.append(item);
      }
      el.append(heading, list);
      return el;
    }),
  );
  renderKey();
}

async function loadBoard() {
  if (!gameInfo(game)?.key) return;
  board = await loadBoardModule(game);
  addStrings(board.strings);
  render();
}

setUpLanguage();
showAccount();
onLanguageChange(render);
render();
loadBoard();
