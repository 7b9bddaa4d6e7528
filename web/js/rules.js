// The rules page, at rules/{game}: a summary of the rules the server enforces (docs/rules/*.md),
// one section per topic, each section's points one line of its translation.

import { t, setUpLanguage, onLanguageChange } from './i18n.js';

const SECTIONS = {
  'ouk-chatrang': ['board', 'moves', 'first', 'end', 'counting'],
  khan: ['board', 'soldiers', 'khans', 'capture', 'end'],
  'khan-tsin': ['track', 'placement', 'moves', 'end'],
};

const game = location.pathname.split('/').filter(Boolean).pop();

function render() {
  const sections = SECTIONS[game];
  for (const link of document.querySelectorAll('#rules nav a')) {
    if (link.dataset.game === game) link.setAttribute('aria-current', 'page');
  }
  if (!sections) {
    document.querySelector('#rules-title').textContent = t('rules.unknown');
    return;
  }
  document.title = `${t(`game.${game}`)} · ${t('rules.title')}`;
  document.querySelector('#rules-title').textContent = t(`game.${game}`);
  document.querySelector('#rules-intro').textContent = t(`rules.${game}.intro`);
  document.querySelector('#rules-body').replaceChildren(
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
}

setUpLanguage();
onLanguageChange(render);
render();
