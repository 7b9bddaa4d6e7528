// Ratings on the pages (docs/ratings.md): a rated game's changes in words ("Dara 1500 → 1508
// +8"), an account's ratings by game and speed, and its rating history as a plot, one line per
// speed over time, drawn here as inline SVG (no chart library, nothing from another site).

import { t } from './i18n.js';

/** @typedef {import('./protocol.js').RatingChange} RatingChange */
/** @typedef {import('./protocol.js').Ratings} Ratings */
/** @typedef {import('./protocol.js').RatingHistory} RatingHistory */

/** The speeds, fastest first: the order of every list and of the plot's lines. */
export const SPEEDS = /** @type {const} */ (['blitz', 'rapid', 'classical', 'correspondence']);

const SVG = 'http://www.w3.org/2000/svg';

/**
 * A change as shown: "+8", "-8", "±0".
 * @param {number} diff
 */
export function diffText(diff) {
  if (diff > 0) return `+${diff}`;
  return diff < 0 ? `-${-diff}` : '±0';
}

/**
 * A rated game's changes, one item a seat: "White (Dara) 1500 → 1508 +8", the change marked up
 * or down for the eye.
 * @param {RatingChange[]} changes
 * @param {(seat: number) => string} nameOf
 * @returns {HTMLLIElement[]}
 */
export function changeItems(changes, nameOf) {
  return changes.map((change) => {
    const li = document.createElement('li');
    li.dataset.seat = String(change.seat);
    const diff = document.createElement('span');
    diff.className = `rating-diff ${change.diff > 0 ? 'up' : change.diff < 0 ? 'down' : 'same'}`;
    diff.textContent = diffText(change.diff);
    li.append(t('ratings.change', { player: nameOf(change.seat), before: change.before, after: change.after }), ' ', diff);
    return li;
  });
}

/**
 * A game key of the profile's `ratings` in words: the game's name, three-player Khan-Tsin's too.
 * @param {string} key
 */
export function gameKeyName(key) {
  return key.endsWith('-3') ? t('ratings.three_players', { game: t(`game.${key.slice(0, -2)}`) }) : t(`game.${key}`);
}

/**
 * A rating as shown: "1508", or "1508?" while provisional.
 * @param {{ rating: number, provisional: boolean }} rating
 */
export function ratingText({ rating, provisional }) {
  return provisional ? `${rating}?` : String(rating);
}

/**
 * An account's ratings and history: for each game it has a rating in, its speeds (rating and
 * games) and the plot of its history.
 * @param {HTMLElement} host
 * @param {Ratings} ratings
 * @param {RatingHistory} history
 */
export function renderRatings(host, ratings, history) {
  const games = Object.keys(ratings).sort();
  host.replaceChildren(...games.map((game) => {
    const section = document.createElement('section');
    section.className = 'rating-game';
    section.dataset.game = game;
    const title = document.createElement('h3');
    const board = document.createElement('a');
    board.href = `leaderboard/${encodeURIComponent(game)}`;
    board.textContent = gameKeyName(game);
    title.append(board);
    const list = document.createElement('ul');
    list.className = 'rating-list';
    for (const speed of SPEEDS) {
      const rating = ratings[game][speed];
      if (!rating) continue;
      const li = document.createElement('li');
      li.dataset.speed = speed;
      const value = document.createElement('strong');
      value.textContent = ratingText(rating);
      if (rating.provisional) value.title = t('ratings.provisional');
      li.append(`${t(`speed.${speed}`)} `, value, ` ${t(rating.games === 1 ? 'ratings.one_game' : 'ratings.games', { count: rating.games })}`);
      list.append(li);
    }
    section.append(title, list, historyPlot(history[game] ?? {}));
    return section;
  }));
}

/**
 * One game's rating history as an SVG plot: time across, rating up, a line (and a dot a game) per
 * speed, its axes labelled with the first and last dates and the lowest and highest ratings.
 * @param {Partial<Record<string, { at: string, rating: number }[]>>} speeds
 * @returns {SVGSVGElement}
 */
export function historyPlot(speeds) {
  const [width, height, left, right, top, bottom] = [600, 220, 48, 12, 12, 28];
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('class', 'rating-plot');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', t('ratings.history'));
  const lines = SPEEDS.flatMap((speed) => {
    const points = (speeds[speed] ?? []).map((p) => ({ x: Date.parse(p.at), y: p.rating, at: p.at }));
    return points.length ? [{ speed, points }] : [];
  });
  const all = lines.flatMap((line) => line.points);
  if (all.length === 0) return svg;
  const xs = all.map((p) => p.x);
  const ys = all.map((p) => p.y);
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  const [y0, y1] = [Math.min(...ys) - 20, Math.max(...ys) + 20];
  /** @param {number} x */
  const px = (x) => left + (x1 === x0 ? (width - left - right) / 2 : ((x - x0) / (x1 - x0)) * (width - left - right));
  /** @param {number} y */
  const py = (y) => top + ((y1 - y) / (y1 - y0)) * (height - top - bottom);
  /**
   * @param {string} name
   * @param {Record<string, string | number>} attributes
   * @param {string} [text]
   */
  const add = (name, attributes, text) => {
    const el = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attributes)) el.setAttribute(key, String(value));
    if (text !== undefined) el.textContent = text;
    svg.append(el);
    return el;
  };
  add('line', { class: 'axis', x1: left, y1: height - bottom, x2: width - right, y2: height - bottom });
  add('line', { class: 'axis', x1: left, y1: top, x2: left, y2: height - bottom });
  add('text', { class: 'tick', x: left - 4, y: py(y1 - 20), 'text-anchor': 'end' }, String(y1 - 20));
  add('text', { class: 'tick', x: left - 4, y: py(y0 + 20), 'text-anchor': 'end' }, String(y0 + 20));
  const day = (/** @type {number} */ x) => new Date(x).toISOString().slice(0, 10);
  add('text', { class: 'tick', x: left, y: height - 8 }, day(x0));
  if (x1 !== x0) add('text', { class: 'tick', x: width - right, y: height - 8, 'text-anchor': 'end' }, day(x1));
  for (const { speed, points } of lines) {
    add('polyline', {
      class: `line speed-${speed}`,
      'data-speed': speed,
      points: points.map((p) => `${px(p.x).toFixed(1)},${py(p.y).toFixed(1)}`).join(' '),
    });
    for (const p of points) {
      const dot = add('circle', { class: `dot speed-${speed}`, cx: px(p.x).toFixed(1), cy: py(p.y).toFixed(1), r: 3 });
      const title = document.createElementNS(SVG, 'title');
      title.textContent = `${t(`speed.${speed}`)} ${p.y} · ${day(p.x)}`;
      dot.append(title);
    }
  }
  // The legend: each speed's name in its line's colour, along the top.
  lines.forEach(({ speed }, i) => {
    add('text', { class: `legend speed-${speed}`, x: left + 8 + i * 120, y: top + 10 }, t(`speed.${speed}`));
  });
  return svg;
}
