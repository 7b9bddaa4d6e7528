// The Khan-Tsin board (BoardModule, see board.js): the dragon track of khan-tsin-draw.js over
// the model of khan-tsin-model.js, and the input: a move built from the server's legal-move list
// one click (or Enter) at a time: a placement square (then pawn or Khan-pawn when both are
// legal), or a stack, how many pawns, and where they land.

import { choices, describeMove, moveSquares, parsePosition, play, premoves, readMoves } from './khan-tsin-model.js';
import { PAWN_FILL, TILE_FILL, crown, drawTrack, el } from './khan-tsin-draw.js';

/** @typedef {import('./board.js').BoardView} BoardView */
/** @typedef {import('./board.js').BoardOptions} BoardOptions */
/** @typedef {import('./board.js').Board} Board */
/** @typedef {import('./board.js').Translate} Translate */
/** @typedef {import('./board.js').KeyItem} KeyItem */
/** @typedef {import('./khan-tsin-model.js').Pick} Pick */

export { describeMove, premoves };

/** @type {Record<string, Record<string, string>>} */
export const strings = {
  en: {
    'khan-tsin.board': 'Khan-Tsin track',
    'khan-tsin.white': 'White',
    'khan-tsin.green': 'Green',
    'khan-tsin.blue': 'Blue',
    'khan-tsin.placement': 'Placement',
    'khan-tsin.movement': 'Movement',
    'khan-tsin.to_move': '{color} to move',
    'khan-tsin.wins': '{color} wins',
    'khan-tsin.draw': 'Draw',
    'khan-tsin.game_over': 'Game over',
    'khan-tsin.to_place': '{count} to place',
    'khan-tsin.khan_in_hand': 'Khan-pawn in hand',
    'khan-tsin.neutral': 'neutral',
    'khan-tsin.neutral_left': '{count} neutral, placed last',
    'khan-tsin.place_pawn': 'Pawn',
    'khan-tsin.place_khan': 'Khan-pawn',
    'khan-tsin.choose_square': 'Choose a square to place on',
    'khan-tsin.choose_piece': 'Pawn or Khan-pawn?',
    'khan-tsin.choose_stack': 'Choose a stack to move',
    'khan-tsin.choose_count': 'How many pawns?',
    'khan-tsin.choose_landing': 'Choose where they land',
    'khan-tsin.clockwise': '↻ to {square}',
    'khan-tsin.counterclockwise': '↺ to {square}',
    'khan-tsin.no_move': 'No legal move',
    'khan-tsin.pass': 'Pass',
    'khan-tsin.single': 'single square (moves 1)',
    'khan-tsin.double': 'double square (moves 2)',
    'khan-tsin.triple': 'triple square (moves 3)',
    'khan-tsin.square': 'Square {square}, {type}',
    'khan-tsin.empty': 'empty',
    'khan-tsin.stack': 'height {height}, bottom to top: {pawns}',
    'khan-tsin.pawn': '{color} pawn',
    'khan-tsin.khan': '{color} Khan-pawn',
  },
  ko: {
    'khan-tsin.board': '칸친 판',
    'khan-tsin.white': '흰색',
    'khan-tsin.green': '초록',
    'khan-tsin.blue': '파랑',
    'khan-tsin.placement': '배치 단계',
    'khan-tsin.movement': '이동 단계',
    'khan-tsin.to_move': '{color} 차례',
    'khan-tsin.wins': '{color} 승리',
    'khan-tsin.draw': '무승부',
    'khan-tsin.game_over': '대국 종료',
    'khan-tsin.to_place': '놓을 말 {count}개',
    'khan-tsin.khan_in_hand': '칸 말을 아직 놓지 않음',
    'khan-tsin.neutral': '중립',
    'khan-tsin.neutral_left': '중립 {count}개, 마지막에 자동 배치',
    'khan-tsin.place_pawn': '말',
    'khan-tsin.place_khan': '칸 말',
    'khan-tsin.choose_square': '말을 놓을 자리를 고르세요',
    'khan-tsin.choose_piece': '말인가요, 칸 말인가요?',
    'khan-tsin.choose_stack': '옮길 더미를 고르세요',
    'khan-tsin.choose_count': '말 몇 개를 옮길까요?',
    'khan-tsin.choose_landing': '도착할 자리를 고르세요',
    'khan-tsin.clockwise': '↻ {square}번으로',
    'khan-tsin.counterclockwise': '↺ {square}번으로',
    'khan-tsin.no_move': '둘 수 있는 수가 없습니다',
    'khan-tsin.pass': '넘기기',
    'khan-tsin.single': '단일 자리 (1칸 이동)',
    'khan-tsin.double': '이중 자리 (2칸 이동)',
    'khan-tsin.triple': '삼중 자리 (3칸 이동)',
    'khan-tsin.square': '{square}번 자리, {type}',
    'khan-tsin.empty': '비어 있음',
    'khan-tsin.stack': '높이 {height}, 아래부터 위로: {pawns}',
    'khan-tsin.pawn': '{color} 말',
    'khan-tsin.khan': '{color} 칸 말',
  },
};

/**
 * The rules page's key to the pictures: the three square types (shade and dots), a stack's top
 * pawn with the height, and a face-up Khan-pawn's gold ring and crown.
 * @param {Translate} t
 * @returns {KeyItem[]}
 */
export function rulesKey(t) {
  /**
   * @param {string} label
   * @param {Record<string, string>} data
   * @param {(svg: SVGSVGElement) => void} paint
   * @returns {KeyItem}
   */
  const item = (label, data, paint) => {
    const picture = el('svg', { viewBox: '0 0 60 60', role: 'img', 'aria-label': label });
    paint(picture);
    return { picture, label, data };
  };
  /** @type {KeyItem[]} */
  const items = [1, 2, 3].map((type) => item(t(`rules.khan-tsin.key.${type}`), { squareType: String(type) }, (svg) => {
    el('rect', { x: 4, y: 4, width: 52, height: 52, rx: 6, fill: TILE_FILL[type], stroke: '#4a160d', 'stroke-width': 1.5 }, svg);
    for (let i = 0; i < type; i += 1) el('circle', { cx: 30 + (i - (type - 1) / 2) * 13, cy: 14, r: 4.5, fill: '#4a160d' }, svg);
  }));
  items.push(item(t('rules.khan-tsin.key.pawn'), {}, (svg) => {
    el('circle', { cx: 30, cy: 30, r: 25, fill: PAWN_FILL.green, stroke: '#2b2a26', 'stroke-width': 2 }, svg);
    el('text', { x: 30, y: 31, 'text-anchor': 'middle', 'dominant-baseline': 'central', 'font-size': 26, 'font-weight': 700, fill: '#fff' }, svg).textContent = '2';
  }));
  items.push(item(t('rules.khan-tsin.key.khan'), { piece: 'khan' }, (svg) => {
    el('circle', { cx: 30, cy: 30, r: 29, fill: '#f2c94c', stroke: '#6b4b0a', 'stroke-width': 2 }, svg);
    el('circle', { cx: 30, cy: 30, r: 22, fill: PAWN_FILL.white, stroke: '#2b2a26', 'stroke-width': 2 }, svg);
    crown(svg, 30, 20, 16, '#f2c94c');
    el('text', { x: 30, y: 38, 'text-anchor': 'middle', 'dominant-baseline': 'central', 'font-size': 20, 'font-weight': 700, fill: '#2b2a26' }, svg).textContent = '1';
  }));
  return items;
}

/**
 * @param {HTMLElement} host
 * @param {BoardOptions} options
 * @returns {Board}
 */
export function createBoard(host, { t, onMove, onCancel = () => {} }) {
  const svg = el('svg', {
    viewBox: '-520 -520 1040 1040',
    class: 'khan-tsin-board',
    role: 'group',
    'aria-label': t('khan-tsin.board'),
  });
  host.appendChild(svg);
  // Squares and buttons stop their clicks; any other click on the board cancels the move in
  // progress (or, with none, a premove set).
  svg.addEventListener('click', () => cancel());
  svg.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') cancel();
  });
  // A click outside the board too (the path, not the target: a click on the board redraws it,
  // which takes the target out of the document).
  /** @param {MouseEvent} event */
  const onDocumentClick = (event) => {
    if (!event.composedPath().includes(host)) cancel();
  };
  document.addEventListener('click', onDocumentClick);

  /** @type {BoardView | null} */
  let view = null;
  let pos = parsePosition(`${'-/'.repeat(35)}- ${'1'.repeat(36)} wg w`);
  /** @type {import('./khan-tsin-model.js').Move[]} */
  let moves = [];
  let key = '';
  /** @type {Pick | null} */
  let pick = null;

  function cancel() {
    if (!pick) {
      onCancel();
      return;
    }
    pick = null;
    draw();
  }

  /** @param {string} move */
  function send(move) {
    pick = null;
    draw();
    onMove(move);
  }

  /** @param {number} square */
  function onSquare(square) {
    const opts = choices(pos, moves, pick);
    if (pos.placing) {
      if (pick && pick.square === square) pick = null;
      else if (opts.targets.has(square) || pick) {
        const here = moves.filter((m) => m.square === square);
        if (here.length === 1) return send(here[0].text);
        pick = here.length ? { square } : null;
      }
      return draw();
    }
    const target = opts.targets.get(square);
    if (target) return send(target);
    if (pick && pick.square === square) pick = null;
    else if (opts.movable.has(square)) pick = { square, count: null };
    else pick = null;
    return draw();
  }

  /**
   * A square or button: a click, or Enter or Space while focused, runs `action`.
   * @param {SVGElement} node
   * @param {() => void} action
   */
  function activate(node, action) {
    node.addEventListener('click', (event) => {
      event.stopPropagation();
      action();
    });
    node.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        action();
      }
    });
  }

  function draw() {
    if (!view) return;
    // A move sent and not yet answered is drawn as made (by the colour on move).
    const shown = view.pending && view.lastMove && pos.toMove ? play(pos, view.lastMove, pos.toMove) : pos;
    drawTrack(svg, {
      pos: shown,
      moves,
      pick,
      choices: choices(pos, moves, pick),
      last: moveSquares(shown, view.lastMove),
      premove: moveSquares(pos, view.premove),
      pending: Boolean(view.pending),
      premoving: Boolean(view.premoving),
      flipped: Boolean(view.flipped),
      outcome: view.outcome ?? null,
    }, t, {
      square: onSquare,
      send,
      count: (n) => {
        if (!pick) return;
        pick.count = n;
        draw();
      },
      activate,
    });
  }

  return {
    update(next) {
      const nextKey = `${next.position}|${JSON.stringify(next.legal)}`;
      if (nextKey !== key) pick = null;
      key = nextKey;
      view = next;
      pos = parsePosition(next.position);
      moves = Array.isArray(next.legal) ? readMoves(next.legal) : [];
      draw();
    },
    destroy() {
      document.removeEventListener('click', onDocumentClick);
      svg.remove();
    },
  };
}

/**
 * A move in words in the page's language (BoardModule.moveWords): the server's `display` is
 * English (`p1`, `K10`, `17:2- to 10`, `pass`), so the move list says "White pawn on 1", "Green
 * Khan-pawn on 10", "Blue moves 2 from square 17 anticlockwise to 10", "White passes".
 * @param {Translate} t
 * @param {string} move  the canonical move (`moved.move`), or the display where unknown
 * @param {string} display
 * @param {string | null} color  the name of the colour that played it, null when unknown
 * @returns {string}
 */
export function moveWords(t, move, display, color) {
  /** @param {string} base */
  const key = (base) => (color ? `room.kt.${base}` : `room.kt.${base}_nocolor`);
  const name = color ?? '';
  if (display === 'pass') return t(key('pass'), { color: name });
  const placed = /^([pK])(\d+)$/.exec(move);
  if (placed) return t(key(placed[1] === 'K' ? 'placed_khan' : 'placed_pawn'), { color: name, square: placed[2] });
  const shift = /^(\d+:\d+[+-]) to (\d+)$/.exec(display);
  if (!shift) return display;
  const parts = /^(\d+):(\d+)([+-])$/.exec(/^\d+:\d+[+-]$/.test(move) ? move : shift[1]);
  if (!parts) return display;
  const [, from, count, sign] = parts;
  const direction = t(sign === '+' ? 'room.kt.clockwise' : 'room.kt.anticlockwise');
  return t(key('moved'), { color: name, from, count, direction, square: shift[2] });
}
