// The rules page, at rules/{game}: a summary of the rules the server enforces (docs/rules/*.md),
// one section per topic, each section's points one line of its translation.

import { t, addStrings, setUpLanguage, onLanguageChange } from './i18n.js';
import { gameInfo, loadBoardModule } from './games.js';

const SVG = 'http://www.w3.org/2000/svg';

const game = location.pathname.split('/').filter(Boolean).pop();
// The game's board module, once loaded: the key to the pictures draws with its functions.
let board = null;

function svg(viewBox, label) {
  const node = document.createElementNS(SVG, 'svg');
  node.setAttribute('viewBox', viewBox);
  node.setAttribute('role', 'img');
  node.setAttribute('aria-label', label);
  return node;
}

function svgChild(parent, name, attrs) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  parent.append(node);
  return node;
}

function keyItem(picture, label) {
  const item = document.createElement('li');
  const words = document.createElement('span');
  words.textContent = label;
  item.append(picture, words);
  return item;
}

// The key to the pictures (`#rules-key`): Ouk Chatrang's pieces as the board draws them (White
// and Black), Khan-Tsin's square types (shade and dots) and pawns (a stack's top disc, the crown
// of a Khan-pawn). Other games have none.
function keyItems() {
  if (game === 'ouk-chatrang' && board?.drawPiece) {
    return ['k', 'm', 's', 'n', 'r', 'p'].map((kind) => {
      const label = t(`ouk-chatrang.${kind}`);
      const picture = svg('0 0 200 100', label);
      picture.classList.add('wide');
      for (const [color, x] of [['white', 0], ['black', 100]]) {
        const g = svgChild(picture, 'g', { transform: `translate(${x} 0)` });
        board.drawPiece(g, { kind, color });
      }
      const item = keyItem(picture, label);
      item.dataset.piece = kind;
      return item;
    });
  }
  if (game === 'khan-tsin' && board?.crown) {
    const items = [1, 2, 3].map((type) => {
      const label = t(`rules.khan-tsin.key.${type}`);
      const picture = svg('0 0 60 60', label);
      svgChild(picture, 'rect', { x: 4, y: 4, width: 52, height: 52, rx: 6, fill: board.TILE_FILL[type], stroke: '#4a160d', 'stroke-width': 1.5 });
      for (let i = 0; i < type; i += 1) {
        svgChild(picture, 'circle', { cx: 30 + (i - (type - 1) / 2) * 13, cy: 14, r: 4.5, fill: '#4a160d' });
      }
      const item = keyItem(picture, label);
      item.dataset.squareType = type;
      return item;
    });
    const pawn = svg('0 0 60 60', t('rules.khan-tsin.key.pawn'));
    svgChild(pawn, 'circle', { cx: 30, cy: 30, r: 25, fill: board.PAWN_FILL.green, stroke: '#2b2a26', 'stroke-width': 2 });
    const height = svgChild(pawn, 'text', { x: 30, y: 31, 'text-anchor': 'middle', 'dominant-baseline': 'central', 'font-size': 26, 'font-weight': 700, fill: '#fff' });
    height.textContent = '2';
    const khan = svg('0 0 60 60', t('rules.khan-tsin.key.khan'));
    svgChild(khan, 'circle', { cx: 30, cy: 30, r: 29, fill: '#f2c94c', stroke: '#6b4b0a', 'stroke-width': 2 });
    svgChild(khan, 'circle', { cx: 30, cy: 30, r: 22, fill: board.PAWN_FILL.white, stroke: '#2b2a26', 'stroke-width': 2 });
    board.crown(khan, 30, 20, 16, '#f2c94c');
    const size = svgChild(khan, 'text', { x: 30, y: 38, 'text-anchor': 'middle', 'dominant-baseline': 'central', 'font-size': 20, 'font-weight': 700, fill: '#2b2a26' });
    size.textContent = '1';
    items.push(keyItem(pawn, t('rules.khan-tsin.key.pawn')), keyItem(khan, t('rules.khan-tsin.key.khan')));
    items.at(-1).dataset.piece = 'khan';
    return items;
  }
  return [];
}

function renderKey() {
  const key = document.querySelector('#rules-key');
  const items = keyItems();
  key.hidden = items.length === 0;
  if (key.hidden) return;
  const heading = document.createElement('h2');
  heading.textContent = t('rules.key');
  const list = document.createElement('ul');
  list.append(...items);
  key.replaceChildren(heading, list);
}

function render() {
  const sections = gameInfo(game)?.rulesSections;
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
  renderKey();
}

async function loadBoard() {
  if (!gameInfo(game)?.key) return;
  board = await loadBoardModule(game);
  addStrings(board.strings);
  render();
}

setUpLanguage();
onLanguageChange(render);
render();
loadBoard();
