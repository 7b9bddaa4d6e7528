// The Khan-Tsin board's drawing: the 36-square dragon track as a ring (the dragon biting its
// tail, square 0 behind its head, squares counted clockwise as the rules count "+"), every stack
// as a tower of pawns whose top pawn is a large disc carrying the stack's height, and the centre:
// the phase, who is to move (or the result), the pawns left to place, and the choices the move in
// progress needs. It draws a Scene (khan-tsin-model.js computed it) and keeps no state; what a
// click does is khan-tsin.js's, given as Actions.

import { COLORS, PER_COLOR, SQUARES, chosenCount, winner } from './khan-tsin-model.js';

/** @typedef {import('../protocol.js').Color} Color */
/** @typedef {import('./board.js').Translate} Translate */
/** @typedef {import('./khan-tsin-model.js').Position} Position */
/** @typedef {import('./khan-tsin-model.js').Move} Move */
/** @typedef {import('./khan-tsin-model.js').Pick} Pick */
/** @typedef {import('./khan-tsin-model.js').Choices} Choices */

/**
 * Everything one drawing shows.
 * @typedef {object} Scene
 * @property {Position} pos
 * @property {Move[]} moves  the moves that may be built now (none: nothing is clickable)
 * @property {Pick | null} pick
 * @property {Choices} choices
 * @property {Set<number>} last  the last move's squares
 * @property {Set<number>} premove  a premove's squares
 * @property {boolean} pending  the last move is sent and not yet answered
 * @property {boolean} premoving  `moves` are premoves (another seat is on move): no stack is
 *   marked movable, the targets are drawn in the premove's colour
 * @property {boolean} flipped  the ring turned half round (square 0 at the bottom)
 * @property {{ winner: Color | null, reason: string } | null} outcome  the game's result
 */

/**
 * What a click on the board does.
 * @typedef {object} Actions
 * @property {(square: number) => void} square
 * @property {(move: string) => void} send
 * @property {(count: number) => void} count
 * @property {(node: SVGElement, action: () => void) => void} activate  makes `node` a button
 */

const SVG = 'http://www.w3.org/2000/svg';
// 37 slots around the circle: 36 squares and one left to the dragon's head, so that the
// point where the track wraps (35 -> 0) is where the head meets the tail.
const SLOT = 360 / (SQUARES + 1);
const R_IN = 280;
const R_OUT = 470;
const R_PIPS = 297;
const R_CAP = 440;
const CAP = 25;
const BAND = 12;
const R_NUMBER = 494;
const R_CENTER = 262;

/** @type {Record<string, string>} */
export const PAWN_FILL = { white: '#f6f2e7', green: '#3f8f52', blue: '#2d5cab' };
/** @type {Record<string, string>} */
const PAWN_TEXT = { white: '#2b2a26', green: '#ffffff', blue: '#ffffff' };
/** @type {Record<number, string>} */
export const TILE_FILL = { 1: '#f3e8cb', 2: '#e6cd93', 3: '#d2a75a' };
/** @type {Record<number, string>} */
const TYPE_KEY = { 1: 'khan-tsin.single', 2: 'khan-tsin.double', 3: 'khan-tsin.triple' };

export const STYLE = `
.khan-tsin-board { width: 100%; height: 100%; display: block; user-select: none; -webkit-user-select: none; }
.khan-tsin-board text { font-family: system-ui, sans-serif; pointer-events: none; }
.khan-tsin-board [role="button"] { cursor: pointer; }
.khan-tsin-board [role="button"]:focus { outline: none; }
.khan-tsin-board [role="button"]:focus-visible .kt-tile,
.khan-tsin-board [role="button"]:focus-visible .kt-button { stroke: #1d4ed8; stroke-width: 5; }
.khan-tsin-board .kt-mark { fill: none; pointer-events: none; }
.khan-tsin-board .movable .kt-tile { stroke: #7c3aed; stroke-width: 3; }
.khan-tsin-board .movable:hover .kt-tile, .khan-tsin-board .target:hover .kt-tile { filter: brightness(1.08); }
.khan-tsin-board .last .kt-tile { fill: #f7e37a; }
.khan-tsin-board .premove .kt-tile { fill: #9db8ee; }
.khan-tsin-board .selected .kt-tile { stroke: #d9480f; stroke-width: 7; }
.khan-tsin-board .target .kt-tile { stroke: #1a7f37; stroke-width: 6; }
.khan-tsin-board.premoving .target .kt-tile { stroke: #2856c8; }
.khan-tsin-board .kt-button { fill: #fffaf0; stroke: #7a2e1f; stroke-width: 3; }
.khan-tsin-board [role="button"]:hover .kt-button { fill: #ffe8c2; }
.khan-tsin-board .chosen .kt-button { fill: #f2c94c; stroke-width: 5; }
`;

/**
 * @template {keyof SVGElementTagNameMap} K
 * @param {K} name
 * @param {Record<string, string | number>} [attrs]
 * @param {Element | null} [parent]
 * @returns {SVGElementTagNameMap[K]}
 */
export function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (parent) parent.appendChild(node);
  return node;
}

/**
 * @param {Element} parent
 * @param {number} x
 * @param {number} y
 * @param {string} content
 * @param {Record<string, string | number>} [attrs]
 */
function text(parent, x, y, content, attrs = {}) {
  const node = el('text', { x, y, 'text-anchor': 'middle', 'dominant-baseline': 'central', ...attrs }, parent);
  node.textContent = content;
  return node;
}

/**
 * Polar to SVG coordinates: angle in degrees clockwise from the top.
 * @param {number} r
 * @param {number} degrees
 * @returns {[number, number]}
 */
function polar(r, degrees) {
  const a = (degrees * Math.PI) / 180;
  return [r * Math.sin(a), -r * Math.cos(a)];
}

/**
 * A text's width when the browser cannot measure it (the board drawn while hidden): Hangul
 * and other wide characters take about a full em, Latin letters a little over half.
 * @param {string} content
 * @param {number} size
 */
function textWidth(content, size) {
  return [...content].reduce((sum, c) => sum + ((c.codePointAt(0) ?? 0) >= 0x1100 ? 1 : 0.62), 0) * size;
}

/**
 * The crown that marks a face-up Khan-pawn, centred on (x, y) (also drawn by the rules page).
 * @param {Element} parent
 * @param {number} x
 * @param {number} y
 * @param {number} size
 * @param {string} fill
 */
export function crown(parent, x, y, size, fill) {
  const s = size / 2;
  el('path', {
    d: `M${x - s} ${y + s * 0.6}L${x - s} ${y - s * 0.5}L${x - s / 2} ${y}L${x} ${y - s * 0.8}`
      + `L${x + s / 2} ${y}L${x + s} ${y - s * 0.5}L${x + s} ${y + s * 0.6}Z`,
    fill,
    stroke: '#6b4b0a',
    'stroke-width': 1.5,
    'stroke-linejoin': 'round',
  }, parent);
}

/**
 * Draws `scene` into `svg`, from scratch.
 * @param {SVGSVGElement} svg
 * @param {Scene} scene
 * @param {Translate} t
 * @param {Actions} actions
 */
export function drawTrack(svg, scene, t, actions) {
  const { pos, choices: opts, pick } = scene;
  // The ring's turn: square 0 at the top, or at the bottom once flipped.
  const turn = scene.flipped ? 180 : 0;
  /** @param {number} square */
  const squareAngle = (square) => (square + 1) * SLOT + turn;
  /** @param {Color} color */
  const colorName = (color) => t(`khan-tsin.${color}`);

  /** @param {number} square */
  function sectorPath(square) {
    const mid = squareAngle(square);
    const half = SLOT / 2 - 0.45;
    const [x1, y1] = polar(R_OUT, mid - half);
    const [x2, y2] = polar(R_OUT, mid + half);
    const [x3, y3] = polar(R_IN, mid + half);
    const [x4, y4] = polar(R_IN, mid - half);
    return `M${x1} ${y1}A${R_OUT} ${R_OUT} 0 0 1 ${x2} ${y2}L${x3} ${y3}A${R_IN} ${R_IN} 0 0 0 ${x4} ${y4}Z`;
  }

  /**
   * @param {Element} parent
   * @param {number} x
   * @param {number} y
   * @param {number} width
   * @param {string} label
   * @param {Record<string, string | number>} data
   * @param {() => void} action
   */
  function button(parent, x, y, width, label, data, action) {
    const g = el('g', { role: 'button', tabindex: 0, ...data }, parent);
    el('rect', { class: 'kt-button', x: x - width / 2, y: y - 36, width, height: 72, rx: 16 }, g);
    text(g, x, y, label, { 'font-size': 28, 'font-weight': 600, fill: '#3b1d12' });
    actions.activate(g, action);
    return g;
  }

  /**
   * @param {Element} parent
   * @param {number} y
   * @param {{ width: number, label: string, data: Record<string, string | number>, action: () => void }[]} items
   */
  function buttonRow(parent, y, items) {
    const gap = 14;
    const total = items.reduce((sum, item) => sum + item.width, 0) + gap * (items.length - 1);
    let x = -total / 2;
    for (const item of items) {
      button(parent, x + item.width / 2, y, item.width, item.label, item.data, item.action);
      x += item.width + gap;
    }
  }

  /** @param {Element} layer */
  function drawDragon(layer) {
    // The body: a dark band under the tiles, all round the circle.
    el('circle', { r: (R_IN + R_OUT) / 2, fill: 'none', stroke: '#7a2e1f', 'stroke-width': R_OUT - R_IN + 16 }, layer);
    // In the gap at the top (the bottom, flipped) the head (square 0's end, looking back along
    // the track) bites the tail (square 35's end).
    const g = el('g', { transform: `rotate(${turn}) translate(0 ${-(R_IN + R_OUT) / 2})` }, layer);
    el('path', { d: 'M-40 -30 L4 0 L-40 30 Z', fill: '#5c2016' }, g);
    el('path', {
      d: 'M34 -78 C20 -92 0 -92 -6 -78 L-34 -26 C-20 -22 -6 -14 2 -4 L-30 22 C-22 40 -8 52 6 56 L34 80 Z',
      fill: '#b8432f', stroke: '#3d120b', 'stroke-width': 3.5, 'stroke-linejoin': 'round',
    }, g);
    el('path', { d: 'M12 -84 L30 -128 L26 -80 Z', fill: '#f2c94c', stroke: '#3d120b', 'stroke-width': 3, 'stroke-linejoin': 'round' }, g);
    el('circle', { cx: 8, cy: -52, r: 7, fill: '#f2c94c', stroke: '#3d120b', 'stroke-width': 2.5 }, g);
    el('circle', { cx: 6, cy: -52, r: 2.5, fill: '#1b0b07' }, g);
    el('path', { d: 'M-24 -30 L-20 -20 L-16 -32 M-22 20 L-17 12 L-14 24', fill: 'none', stroke: '#fffaf0', 'stroke-width': 3 }, g);
  }

  /** @param {number} square */
  function stackTitle(square) {
    const type = t(TYPE_KEY[pos.types[square]]);
    const stack = pos.stacks[square];
    const where = t('khan-tsin.square', { square, type });
    if (!stack.length) return `${where}: ${t('khan-tsin.empty')}`;
    const pawns = stack.map((p) => t(p.khan ? 'khan-tsin.khan' : 'khan-tsin.pawn', { color: colorName(p.color) }));
    return `${where}: ${t('khan-tsin.stack', { height: stack.length, pawns: pawns.join(', ') })}`;
  }

  /**
   * @param {Element} layer
   * @param {number} square
   * @param {string[]} classes
   * @param {boolean} clickable
   */
  function drawSquare(layer, square, classes, clickable) {
    const g = el('g', { 'data-square': square, class: classes.join(' ') }, layer);
    el('title', {}, g).textContent = stackTitle(square);
    const type = pos.types[square];
    el('path', { class: `kt-tile kt-type-${type}`, d: sectorPath(square), fill: TILE_FILL[type], stroke: '#4a160d', 'stroke-width': 1.5 }, g);

    const angle = squareAngle(square);
    const local = el('g', { transform: `rotate(${angle})` }, g);
    // The square's type as 1, 2 or 3 pips by the inner edge.
    for (let i = 0; i < type; i += 1) {
      el('circle', { cx: (i - (type - 1) / 2) * 13, cy: -R_PIPS, r: 4.5, fill: '#4a160d' }, local);
    }

    const stack = pos.stacks[square];
    if (stack.length) {
      // The pawns under the top one hang from the top disc towards the centre, the bottom
      // pawn innermost, so a stack reads outwards from bottom to top.
      const under = stack.slice(0, -1).reverse();
      under.forEach((pawn, i) => {
        const r = R_CAP - CAP - 3 - (i + 1) * BAND;
        el('rect', {
          x: -21, y: -(r + BAND - 2), width: 42, height: BAND - 2, rx: 3,
          fill: PAWN_FILL[pawn.color], stroke: '#2b2a26', 'stroke-width': 1.2,
        }, local);
      });
      const top = stack[stack.length - 1];
      const [cx, cy] = polar(R_CAP, angle);
      if (top.khan) {
        el('circle', { cx, cy, r: CAP + 4, fill: '#f2c94c', stroke: '#6b4b0a', 'stroke-width': 2 }, g);
      }
      el('circle', {
        cx, cy, r: CAP - (top.khan ? 3 : 0), fill: PAWN_FILL[top.color], stroke: '#2b2a26', 'stroke-width': 2,
      }, g);
      if (top.khan) {
        crown(g, cx, cy - 10, 16, '#f2c94c');
        text(g, cx, cy + 8, String(stack.length), { 'font-size': 20, 'font-weight': 700, fill: PAWN_TEXT[top.color] });
      } else {
        text(g, cx, cy + 1, String(stack.length), { 'font-size': 26, 'font-weight': 700, fill: PAWN_TEXT[top.color] });
      }
    }
    const [nx, ny] = polar(R_NUMBER, angle);
    text(g, nx, ny, String(square), { 'font-size': 19, fill: '#5b4636', 'font-weight': classes.length ? 700 : 400 });

    if (clickable) {
      g.setAttribute('role', 'button');
      g.setAttribute('tabindex', '0');
      actions.activate(g, () => actions.square(square));
    }
  }

  /**
   * The colour's disc just left of the words, the pair centred on (0, y).
   * @param {Element} layer
   * @param {number} y
   * @param {string} words
   * @param {Color | null} color
   * @param {boolean} crowned
   */
  function headline(layer, y, words, color, crowned) {
    const node = text(layer, color ? 16 : 0, y, words, { 'font-size': 32, 'font-weight': 600, fill: '#2b2a26' });
    if (!color) return;
    const width = node.getComputedTextLength() || textWidth(words, 32);
    const x = -width / 2 - 8;
    if (crowned) el('circle', { cx: x, cy: y, r: 20, fill: '#f2c94c', stroke: '#6b4b0a', 'stroke-width': 2 }, layer);
    el('circle', { cx: x, cy: y, r: 16, fill: PAWN_FILL[color], stroke: '#2b2a26', 'stroke-width': 2 }, layer);
    if (crowned) crown(layer, x, y - 1, 14, '#f2c94c');
  }

  /** @param {Element} layer */
  function drawCenter(layer) {
    el('circle', { r: R_CENTER, fill: '#fbf5e6', stroke: '#7a2e1f', 'stroke-width': 4 }, layer);
    const over = scene.outcome;
    const won = over ? over.winner : winner(pos);
    // After the game (the server's result: a 9-stack, time, resignation, a draw) the centre says
    // how it ended; before, the phase and whose move it is.
    const title = over ? t('khan-tsin.game_over') : t(pos.placing ? 'khan-tsin.placement' : 'khan-tsin.movement');
    text(layer, 0, -185, title, { 'font-size': 30, 'font-weight': 700, fill: '#7a2e1f' });
    if (over && won === null) headline(layer, -130, t('khan-tsin.draw'), null, false);
    else if (won) headline(layer, -130, t('khan-tsin.wins', { color: colorName(won) }), won, true);
    else if (pos.toMove) headline(layer, -130, t('khan-tsin.to_move', { color: colorName(pos.toMove) }), pos.toMove, false);
    if (over) {
      text(layer, 0, -85, t(`reason.${over.reason}`), { 'font-size': 24, fill: '#5b4636', class: 'kt-reason' });
      drawColors(layer, -20);
      return;
    }
    if (pos.placing) drawPlacement(layer);
    else drawColors(layer, -85);
    drawChoices(layer);
  }

  // Pawns left to place for each colour playing, and whether its Khan-pawn is still in hand;
  // then the neutral pawns (and those of a player who left), placed last by themselves.
  /** @param {Element} layer */
  function drawPlacement(layer) {
    const others = COLORS.filter((c) => !pos.playing.includes(c) && pos.placed[c] < PER_COLOR);
    [...pos.playing, ...others].forEach((color, i) => {
      const y = -80 + i * 45;
      const playing = pos.playing.includes(color);
      const left = PER_COLOR - pos.placed[color];
      el('circle', { cx: -170, cy: y, r: 14, fill: PAWN_FILL[color], stroke: '#2b2a26', 'stroke-width': 2 }, layer);
      text(layer, -145, y, t(playing ? 'khan-tsin.to_place' : 'khan-tsin.neutral_left', { count: left }), {
        'font-size': playing ? 24 : 20, 'text-anchor': 'start', fill: '#2b2a26',
        'font-weight': color === pos.toMove ? 700 : 400,
      });
      if (playing && !pos.khanDown[color]) {
        const g = el('g', {}, layer);
        el('title', {}, g).textContent = t('khan-tsin.khan_in_hand');
        el('circle', { cx: 150, cy: y, r: 17, fill: '#f2c94c', stroke: '#6b4b0a', 'stroke-width': 2 }, g);
        el('circle', { cx: 150, cy: y, r: 12, fill: PAWN_FILL[color], stroke: '#2b2a26', 'stroke-width': 1.5 }, g);
        crown(g, 150, y, 12, '#f2c94c');
      }
    });
  }

  /**
   * The colours in turn order, and the neutral one in a two-player game.
   * @param {Element} layer
   * @param {number} y
   */
  function drawColors(layer, y) {
    const shown = COLORS.filter((c) => pos.playing.includes(c) || pos.stacks.some((s) => s.some((p) => p.color === c)));
    const width = 150;
    const bold = scene.outcome ? scene.outcome.winner : winner(pos) ?? pos.toMove;
    shown.forEach((color, i) => {
      const x = (i - (shown.length - 1) / 2) * width;
      const playing = pos.playing.includes(color);
      el('circle', { cx: x, cy: y, r: 14, fill: PAWN_FILL[color], stroke: '#2b2a26', 'stroke-width': 2 }, layer);
      text(layer, x, y + 30, playing ? colorName(color) : `${colorName(color)} (${t('khan-tsin.neutral')})`, {
        'font-size': playing ? 22 : 18, fill: '#2b2a26', 'font-weight': color === bold ? 700 : 400,
      });
    });
  }

  // The prompt for the next step of the move and the buttons of the choices it needs.
  /** @param {Element} layer */
  function drawChoices(layer) {
    const { moves } = scene;
    if (!moves.length) return;
    const top = pos.placing ? 65 : 5;
    /** @param {string} key */
    const prompt = (key) => text(layer, 0, top, t(key), { 'font-size': 26, fill: '#5b4636' });
    if (moves[0].pass) {
      prompt('khan-tsin.no_move');
      buttonRow(layer, top + 65, [{ width: 200, label: t('khan-tsin.pass'), data: { 'data-pass': '' }, action: () => actions.send('pass') }]);
      return;
    }
    if (pos.placing) {
      if (!pick) {
        prompt('khan-tsin.choose_square');
        return;
      }
      prompt('khan-tsin.choose_piece');
      buttonRow(layer, top + 65, opts.places.map((m) => ({
        width: 190,
        label: t(m.piece === 'K' ? 'khan-tsin.place_khan' : 'khan-tsin.place_pawn'),
        data: { 'data-place': m.piece ?? 'p' },
        action: () => actions.send(m.text),
      })));
      return;
    }
    if (!pick) {
      prompt('khan-tsin.choose_stack');
      return;
    }
    const count = chosenCount(pick, opts);
    prompt(count === null ? 'khan-tsin.choose_count' : 'khan-tsin.choose_landing');
    if (opts.counts.length > 1) {
      buttonRow(layer, top + 65, opts.counts.map((n) => ({
        width: 80,
        label: String(n),
        data: n === count ? { 'data-count': n, class: 'chosen' } : { 'data-count': n, class: '' },
        action: () => actions.count(n),
      })));
    }
    // Direction buttons help where the landing squares are small to tap (phones); they are
    // only needed when the two directions land on different squares.
    if (opts.directions.length === 2) {
      buttonRow(layer, top + (opts.counts.length > 1 ? 150 : 65), opts.directions.map((d) => ({
        width: 170,
        label: t(d.direction === '+' ? 'khan-tsin.clockwise' : 'khan-tsin.counterclockwise', { square: d.square ?? '' }),
        data: { 'data-direction': d.direction },
        action: () => actions.send(d.text),
      })));
    }
  }

  // Set again at every redraw: the language may have changed since.
  svg.setAttribute('aria-label', t('khan-tsin.board'));
  svg.replaceChildren();
  el('style', {}, svg).textContent = STYLE;
  // The phase as an attribute too, for tests and styles that cannot read the words.
  svg.setAttribute('data-phase', pos.placing ? 'placement' : 'movement');
  svg.classList.toggle('pending', scene.pending);
  svg.classList.toggle('premoving', scene.premoving);
  drawDragon(svg);
  const clickable = scene.moves.length > 0 && !scene.moves[0].pass;
  const layer = el('g', {}, svg);
  for (let square = 0; square < SQUARES; square += 1) {
    const classes = [];
    if (scene.last.has(square)) classes.push('last');
    if (scene.premove.has(square)) classes.push('premove');
    if (opts.movable.has(square) && !scene.premoving) classes.push('movable');
    if (pick && pick.square === square) classes.push('selected');
    if (opts.targets.has(square)) classes.push('target');
    drawSquare(layer, square, classes, clickable);
  }
  drawCenter(el('g', {}, svg));
}
