// The Ouk Chatrang board: an 8x8 Cambodian board, pieces drawn as SVG shapes (no font needed),
// a move built by clicking (or dragging) a piece then one of its highlighted destinations.
// Positions are FENs (docs/rules/ouk-chatrang.md O-2..O-5), moves UCI (`e3e4`, `g5g6m`).

import { createGrid, parseSquare, svgEl } from './grid.js';

/** @typedef {import('./board.js').BoardView} BoardView */
/** @typedef {import('./board.js').BoardOptions} BoardOptions */
/** @typedef {import('./board.js').Board} Board */
/** @typedef {import('./grid.js').Piece} Piece */
/** @typedef {import('../protocol.js').Color} Color */

export const strings = {
  en: {
    'ouk-chatrang.board': 'Ouk Chatrang board',
    'ouk-chatrang.white': 'White',
    'ouk-chatrang.black': 'Black',
    'ouk-chatrang.k': 'King',
    'ouk-chatrang.m': 'Neang (Met)',
    'ouk-chatrang.s': 'Khon',
    'ouk-chatrang.n': 'Ses (Horse)',
    'ouk-chatrang.r': 'Touk (Boat)',
    'ouk-chatrang.p': 'Trey (Fish)',
    'ouk-chatrang.piece': '{color} {piece}',
    'ouk-chatrang.square_empty': '{square}',
    'ouk-chatrang.square_piece': '{square}: {piece}',
  },
  ko: {
    'ouk-chatrang.board': '옥 차트랑 판',
    'ouk-chatrang.white': '백',
    'ouk-chatrang.black': '흑',
    'ouk-chatrang.k': '왕',
    'ouk-chatrang.m': '니앙(멧)',
    'ouk-chatrang.s': '콘',
    'ouk-chatrang.n': '세스(말)',
    'ouk-chatrang.r': '뚝(배)',
    'ouk-chatrang.p': '뜨레이(물고기)',
    'ouk-chatrang.piece': '{color} {piece}',
    'ouk-chatrang.square_empty': '{square}',
    'ouk-chatrang.square_piece': '{square}: {piece}',
  },
};

/** @type {import('./grid.js').GridTheme} */
const THEME = {
  // One colour with lines, as Cambodian boards are drawn.
  light: '#e9c98f',
  dark: '#e9c98f',
  checkered: false,
  lines: true,
  line: '#6b4a26',
  frame: '#7a5230',
  coord: '#f6e6c4',
  last: 'rgba(255, 214, 64, 0.45)',
  selected: 'rgba(46, 139, 87, 0.45)',
  target: 'rgba(30, 110, 60, 0.7)',
  path: '#1e6e3c',
  lastLine: '#c9a227',
};

/** @type {Record<string, { fill: string, stroke: string, detail: string }>} */
const SIDES = {
  white: { fill: '#fbf4e2', stroke: '#2a1c10', detail: '#2a1c10' },
  black: { fill: '#2a231f', stroke: '#0c0907', detail: '#e8d6ae' },
};

// Each piece in a 100x100 square: filled outline paths, detail strokes inside them in the contrast
// colour, spires outside them in the outline colour (seen against the board).
/** @type {Record<string, { body: string[], detail: string[], spire?: string[], dot?: number[] }>} */
const SHAPES = {
  // King: a crown with three points and a spire topped by a cross.
  k: {
    body: ['M28 80 C30 66 34 58 38 52 L31 34 L42 42 L50 27 L58 42 L69 34 L62 52 C66 58 70 66 72 80 Z'],
    detail: ['M37 60 H63'],
    spire: ['M50 27 V13', 'M44 18 H56'],
  },
  // Neang: a lotus bud, smaller than the King.
  m: {
    body: ['M33 80 C35 68 39 60 43 55 C35 50 35 39 44 35 C47 33 49 30 50 24 C51 30 53 33 56 35 C65 39 65 50 57 55 C61 60 65 68 67 80 Z'],
    detail: ['M40 64 H60'],
    dot: [50, 45, 4],
  },
  // Khon: a tiered pagoda.
  s: {
    body: ['M27 80 L34 63 H66 L73 80 Z', 'M36 63 L41 48 H59 L64 63 Z', 'M43 48 L47 35 H53 L57 48 Z'],
    detail: ['M40 71 H60', 'M45 56 H55'],
    spire: ['M50 35 V21'],
  },
  // Ses: a horse's head.
  n: {
    body: ['M33 80 C33 68 38 60 45 53 C39 55 33 57 28 54 C24 51 25 45 29 42 L42 31 C44 26 47 22 52 19 L54 25 C63 27 71 36 73 50 C75 62 73 72 71 80 Z'],
    detail: ['M60 34 C64 44 66 56 64 68'],
    dot: [47, 33, 3],
  },
  // Touk: a boat under sail.
  r: {
    body: ['M20 66 H80 C76 76 68 81 59 81 H41 C32 81 24 76 20 66 Z', 'M53 22 L73 60 H53 Z', 'M47 30 L31 60 H47 Z'],
    detail: [],
    spire: ['M50 66 V18'],
  },
  // Trey: a fish.
  p: {
    body: ['M23 60 C31 45 51 43 63 53 L78 43 L75 60 L78 77 L63 67 C51 77 31 75 23 60 Z'],
    detail: ['M50 50 C53 56 53 64 50 70'],
    dot: [34, 57, 3.5],
  },
};

/**
 * Draws a piece in a 100x100 box: the board's squares, the captured material of the players'
 * bars, and the rules page's key to the pieces (rules.js).
 * @param {SVGElement} parent
 * @param {Piece} piece
 */
export function drawPiece(parent, piece) {
  const side = SIDES[piece.color];
  const shape = SHAPES[piece.kind];
  // The shapes leave a margin: drawn 10 % larger about the square's centre.
  const g = svgEl('g', { transform: 'translate(50 50) scale(1.1) translate(-50 -52)' }, parent);
  svgEl('ellipse', { cx: 50, cy: 84, rx: 27, ry: 5, fill: 'rgba(0,0,0,0.22)' }, g);
  for (const d of shape.body) {
    svgEl('path', { d, fill: side.fill, stroke: side.stroke, 'stroke-width': 3.5, 'stroke-linejoin': 'round' }, g);
  }
  for (const d of shape.detail) {
    svgEl('path', { d, fill: 'none', stroke: side.detail, 'stroke-width': 3.5, 'stroke-linecap': 'round' }, g);
  }
  for (const d of shape.spire || []) {
    svgEl('path', { d, fill: 'none', stroke: side.stroke, 'stroke-width': 4.5, 'stroke-linecap': 'round' }, g);
  }
  if (shape.dot) {
    const [cx, cy, r] = shape.dot;
    svgEl('circle', { cx, cy, r, fill: side.detail }, g);
  }
}

/**
 * The FEN's board and side to move. A `~` after a Neang marks a promoted pawn (input only; the
 * server writes plain `M`): it is drawn as the Neang it is.
 * @param {string} fen
 * @returns {{ pieces: Map<string, Piece>, toMove: Color }}
 */
function parseFen(fen) {
  const [placement, side] = fen.trim().split(/\s+/);
  /** @type {Map<string, Piece>} */
  const pieces = new Map();
  placement.split('/').forEach((row, i) => {
    const rank = 8 - i;
    let file = 0;
    for (const c of row) {
      if (c === '~') continue;
      if (/\d/.test(c)) { file += Number(c); continue; }
      const square = String.fromCharCode(97 + file) + rank;
      pieces.set(square, { kind: c.toLowerCase(), color: c === c.toUpperCase() ? 'white' : 'black' });
      file += 1;
    }
  });
  return { pieces, toMove: side === 'b' ? 'black' : 'white' };
}

/**
 * The pieces after `uci` is played on `pieces` by shape alone: the mover goes to its square (a
 * Trey reaching its 6th rank as the Neang it becomes, O-10), whatever stood there is taken.
 * @param {Map<string, Piece>} pieces
 * @param {string} uci
 */
function played(pieces, uci) {
  const after = new Map(pieces);
  const from = uci.slice(0, 2);
  const to = uci.slice(2, 4);
  const piece = after.get(from);
  if (!piece) return after;
  after.delete(from);
  const promotes = piece.kind === 'p' && (uci.length > 4 || to[1] === (piece.color === 'white' ? '6' : '3'));
  after.set(to, promotes ? { kind: 'm', color: piece.color } : piece);
  return after;
}

/**
 * Whether `uci` is a King's or a Neang's first-move leap (O-12, O-13), which SAN never weighs
 * against an ordinary move.
 * @param {Piece} piece
 * @param {string} uci
 */
function isLeap(piece, uci) {
  const from = parseSquare(uci.slice(0, 2));
  const to = parseSquare(uci.slice(2, 4));
  if (!from || !to || (piece.kind !== 'k' && piece.kind !== 'm')) return false;
  if (uci.slice(0, 2) !== HOME[piece.color][piece.kind === 'k' ? 'k' : 'm']) return false;
  const df = Math.abs(to.file - from.file);
  const dr = Math.abs(to.rank - from.rank);
  return piece.kind === 'k' ? df * dr === 2 : df === 0 && dr === 2;
}

/**
 * The SAN the server writes for `uci` (src/rules/ouk_chatrang/san.rs, as Fairy-Stockfish writes
 * it), but for its check marks: piece letters K, M, S, N, R, a pawn capture naming its file, `x`,
 * `=M`, a piece named by file, else rank, else square when another of its kind could go there
 * with an ordinary move (BoardModule.describeMove).
 * @param {string} position
 * @param {string} uci
 * @param {import('../protocol.js').LegalMoves} legal
 * @returns {string}
 */
export function describeMove(position, uci, legal) {
  const { pieces } = parseFen(position);
  const fromName = uci.slice(0, 2);
  const to = uci.slice(2, 4);
  const piece = pieces.get(fromName);
  const from = parseSquare(fromName);
  if (!piece || !from) return uci;
  const capture = pieces.has(to);
  let text = '';
  if (piece.kind === 'p') {
    if (capture) text += fromName[0];
  } else {
    text += piece.kind.toUpperCase();
    if (!isLeap(piece, uci)) {
      const rivals = (Array.isArray(legal) ? legal : [])
        .filter((m) => m.slice(2, 4) === to && m.slice(0, 2) !== fromName)
        .filter((m) => pieces.get(m.slice(0, 2))?.kind === piece.kind && !isLeap(piece, m))
        .map((m) => parseSquare(m.slice(0, 2)))
        .filter((s) => s !== null);
      if (rivals.length > 0) {
        if (rivals.every((s) => s.file !== from.file)) text += fromName[0];
        else if (rivals.every((s) => s.rank !== from.rank)) text += fromName.slice(1);
        else text += fromName;
      }
    }
  }
  if (capture) text += 'x';
  text += to;
  const promotes = piece.kind === 'p' && (uci.length > 4 || to[1] === (piece.color === 'white' ? '6' : '3'));
  if (promotes) text += '=M';
  return text;
}

const KNIGHT = [[1, 2], [2, 1], [2, -1], [1, -2], [-1, -2], [-2, -1], [-2, 1], [-1, 2]];
const DIAGONAL = [[1, 1], [1, -1], [-1, 1], [-1, -1]];
const AROUND = [...DIAGONAL, [0, 1], [0, -1], [1, 0], [-1, 0]];
// The home squares of the King's and the Neang's first-move leaps (O-12, O-13).
/** @type {Record<string, { k: string, m: string }>} */
const HOME = { white: { k: 'd1', m: 'e1' }, black: { k: 'e8', m: 'd8' } };

/**
 * The moves `color` may set ahead (BoardModule.premoves): each piece's reach by its shape alone
 * (O-6..O-13) on an empty board, whatever stands in the way or may be captured by then, as
 * chessground's premove.ts; a Trey reaching its 6th rank promotes (`g5g6m`, O-10).
 * @param {string} position
 * @param {Color} color
 * @returns {string[]}
 */
export function premoves(position, color) {
  const { pieces } = parseFen(position);
  const forward = color === 'white' ? 1 : -1;
  /** @type {string[]} */
  const moves = [];
  for (const [from, piece] of pieces) {
    if (piece.color !== color) continue;
    const at = parseSquare(from);
    if (!at) continue;
    /** @type {number[][]} */
    let steps = [];
    let slides = false;
    if (piece.kind === 'r') { steps = [[0, 1], [0, -1], [1, 0], [-1, 0]]; slides = true; }
    if (piece.kind === 'n') steps = KNIGHT;
    if (piece.kind === 'k') steps = from === HOME[color].k ? [...AROUND, ...KNIGHT] : AROUND;
    if (piece.kind === 'm') steps = from === HOME[color].m ? [...DIAGONAL, [0, 2 * forward]] : DIAGONAL;
    if (piece.kind === 's') steps = [...DIAGONAL, [0, forward]];
    if (piece.kind === 'p') steps = [[0, forward], [1, forward], [-1, forward]];
    for (const [df, dr] of steps) {
      for (let n = 1; n <= (slides ? 7 : 1); n++) {
        const file = at.file + df * n;
        const rank = at.rank + dr * n;
        if (file < 0 || file > 7 || rank < 0 || rank > 7) break;
        const to = String.fromCharCode(97 + file) + (rank + 1);
        const promotes = piece.kind === 'p' && rank + 1 === (color === 'white' ? 6 : 3);
        moves.push(`${from}${to}${promotes ? 'm' : ''}`);
      }
    }
  }
  return moves;
}

/**
 * @param {HTMLElement} host
 * @param {BoardOptions} options
 * @returns {Board}
 */
export function createBoard(host, { t, onMove, onCancel = () => {} }) {
  /** @type {BoardView | null} */
  let view = null;
  let board = parseFen('8/8/8/8/8/8/8/8 w');
  /** @type {Map<string, Map<string, string>>} from square -> (to square -> UCI as listed) */
  let byFrom = new Map();
  /** @type {string | null} */
  let selected = null;
  let key = '';

  /** @param {Piece} p */
  const pieceName = (p) => t('ouk-chatrang.piece', {
    color: t(`ouk-chatrang.${p.color}`),
    piece: t(`ouk-chatrang.${p.kind}`),
  });
  /** @param {string} from */
  const targetsOf = (from) => byFrom.get(from) ?? new Map();

  const grid = createGrid(host, {
    files: 8,
    ranks: 8,
    theme: THEME,
    boardLabel: () => t('ouk-chatrang.board'),
    drawPiece,
    squareTitle: (square, piece) => (piece
      ? t('ouk-chatrang.square_piece', { square, piece: pieceName(piece) })
      : t('ouk-chatrang.square_empty', { square })),
    onSquare: click,
    canDrag: (square) => byFrom.has(square),
    onDragStart: (square) => { if (selected !== square) select(square); },
    onDrop: (from, to) => {
      if (to && selected === from && targetsOf(from).has(to)) send(from, to);
    },
  });

  /** @param {string | null} square */
  function select(square) {
    selected = square !== null && byFrom.has(square) ? square : null;
    draw();
  }

  /**
   * @param {string} from
   * @param {string} to
   */
  function send(from, to) {
    const uci = targetsOf(from).get(to);
    selected = null;
    draw();
    if (uci) onMove(uci);
  }

  /** @param {string | null} square */
  function click(square) {
    if (!view) return;
    if (selected && square && targetsOf(selected).has(square)) { send(selected, square); return; }
    if (square && square !== selected && byFrom.has(square)) { select(square); return; }
    if (selected) select(null);
    else onCancel();
  }

  function draw() {
    if (!view) return;
    /** @param {string | null | undefined} move */
    const squaresOf = (move) => (move ? [move.slice(0, 2), move.slice(2, 4)] : []);
    /** @type {string[]} */
    const check = [];
    if (view.check) {
      for (const [square, p] of board.pieces) if (p.kind === 'k' && p.color === board.toMove) check.push(square);
    }
    const colors = view.colors || ['white', 'black'];
    grid.render({
      pieces: view.pending && view.lastMove ? played(board.pieces, view.lastMove) : board.pieces,
      flipped: (colors[view.orientation || 0] === 'black') !== Boolean(view.flipped),
      selected: selected ? [selected] : [],
      targets: selected ? [...targetsOf(selected).keys()] : [],
      last: squaresOf(view.lastMove),
      pending: Boolean(view.pending),
      premoving: Boolean(view.premoving),
      premove: squaresOf(view.premove),
      check,
      captured: view.captured || [],
    });
  }

  return {
    update(v) {
      const newKey = JSON.stringify([v.position, v.legal]);
      if (newKey !== key) selected = null;
      key = newKey;
      view = v;
      board = parseFen(v.position);
      byFrom = new Map();
      for (const uci of Array.isArray(v.legal) ? v.legal : []) {
        const from = uci.slice(0, 2);
        const targets = byFrom.get(from) ?? new Map();
        targets.set(uci.slice(2, 4), uci);
        byFrom.set(from, targets);
      }
      draw();
    },
    destroy() {
      grid.destroy();
    },
  };
}

/**
 * The rules page's key to the pictures: each piece in White and Black, as the board draws it.
 * @param {import('./board.js').Translate} t
 * @returns {import('./board.js').KeyItem[]}
 */
export function rulesKey(t) {
  return ['k', 'm', 's', 'n', 'r', 'p'].map((kind) => {
    const label = t(`ouk-chatrang.${kind}`);
    const picture = svgEl('svg', { viewBox: '0 0 200 100', role: 'img', 'aria-label': label, class: 'wide' });
    for (const [color, x] of /** @type {[Color, number][]} */ ([['white', 0], ['black', 100]])) {
      drawPiece(svgEl('g', { transform: `translate(${x} 0)` }, picture), { kind, color });
    }
    return { picture, label, data: { piece: kind } };
  });
}
