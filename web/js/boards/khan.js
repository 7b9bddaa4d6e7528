// The Khan board: 10x10, Soldiers and Khans of both sides (docs/rules/khan.md). The server's legal
// moves come as a tree (docs/protocol.md "Legal moves in Khan"): a piece's square, then its next
// squares, recursively for a Khan's jump chain. A move is built by walking down the tree one click
// (or drag) at a time; a node without children is sent at once, and a jump chain may stop at any
// node reached with the "stop here" badge on the Khan or a second click on it.
//
// A tree the server cut short (`view.complete` false: more than 10 000 moves) holds jump chains
// only up to some number of landings, the same for all, and longer chains are legal too. A jump
// leaf at that depth is then not sent at once: the badge offers to stop there, and the player
// must, since this board only offers landings the tree shows and cannot extend a chain past them.

import { createGrid, parseSquare, svgEl } from './grid.js';

/** @typedef {import('./board.js').BoardView} BoardView */
/** @typedef {import('./board.js').BoardOptions} BoardOptions */
/** @typedef {import('./board.js').Board} Board */
/** @typedef {import('./grid.js').Piece} Piece */
/** @typedef {import('../protocol.js').Color} Color */
/** @typedef {import('../protocol.js').KhanTree} KhanTree */

export const strings = {
  en: {
    'khan.board': 'Khan board',
    'khan.white': 'White',
    'khan.black': 'Black',
    'khan.s': 'Soldier',
    'khan.k': 'Khan',
    'khan.piece': '{color} {piece}',
    'khan.square_empty': '{square}',
    'khan.square_piece': '{square}: {piece}',
    'khan.finish': 'Stop at {square}',
  },
  ko: {
    'khan.board': '칸 판',
    'khan.white': '백',
    'khan.black': '흑',
    'khan.s': '병사',
    'khan.k': '칸',
    'khan.piece': '{color} {piece}',
    'khan.square_empty': '{square}',
    'khan.square_piece': '{square}: {piece}',
    'khan.finish': '{square}에서 멈추기',
  },
};

/** @type {import('./grid.js').GridTheme} */
const THEME = {
  light: '#e6dcc0',
  dark: '#c9b68c',
  checkered: true,
  lines: false,
  frame: '#4d5a3a',
  coord: '#eef0dc',
  last: 'rgba(255, 214, 64, 0.5)',
  selected: 'rgba(46, 139, 87, 0.5)',
  target: 'rgba(30, 110, 60, 0.75)',
  path: '#1e6e3c',
  lastLine: '#b8860b',
};

// Goal rows (K-4), tinted in the colour of the side that wins by reaching them.
/** @type {Record<string, string>} */
const GOAL_TINT = { white: 'rgba(255, 255, 255, 0.45)', black: 'rgba(40, 30, 20, 0.2)' };

/** @type {Record<string, { fill: string, stroke: string, detail: string }>} */
const SIDES = {
  white: { fill: '#fbf4e2', stroke: '#2a1c10', detail: '#2a1c10' },
  black: { fill: '#2a231f', stroke: '#0c0907', detail: '#e8d6ae' },
};

/**
 * A Soldier is a plain disc; a Khan a larger disc wearing a crown.
 * @param {SVGElement} g
 * @param {Piece} piece
 */
function drawPiece(g, piece) {
  const side = SIDES[piece.color];
  if (piece.kind === 's') {
    svgEl('circle', { cx: 50, cy: 53, r: 29, fill: 'rgba(0,0,0,0.22)' }, g);
    svgEl('circle', { cx: 50, cy: 50, r: 29, fill: side.fill, stroke: side.stroke, 'stroke-width': 3.5 }, g);
    svgEl('circle', { cx: 50, cy: 50, r: 18, fill: 'none', stroke: side.detail, 'stroke-width': 3 }, g);
    return;
  }
  svgEl('circle', { cx: 50, cy: 54, r: 40, fill: 'rgba(0,0,0,0.25)' }, g);
  svgEl('circle', { cx: 50, cy: 50, r: 40, fill: side.fill, stroke: side.stroke, 'stroke-width': 4 }, g);
  svgEl('circle', { cx: 50, cy: 50, r: 32, fill: 'none', stroke: side.detail, 'stroke-width': 2.5 }, g);
  svgEl('path', {
    d: 'M30 64 L27 36 L40 48 L50 30 L60 48 L73 36 L70 64 Z',
    fill: side.detail, 'stroke-linejoin': 'round',
  }, g);
}

/**
 * `ssssssssss/k1k1kk1k1k/.../SSSSSSSSSS w`: ranks 10 down to 1, a number for a run of empty squares.
 * @param {string} text
 * @returns {{ pieces: Map<string, Piece>, toMove: Color }}
 */
function parsePosition(text) {
  const [placement, side] = text.trim().split(/\s+/);
  /** @type {Map<string, Piece>} */
  const pieces = new Map();
  placement.split('/').forEach((row, i) => {
    const rank = 10 - i;
    let file = 0;
    for (const token of row.match(/\d+|[a-zA-Z]/g) || []) {
      if (/\d/.test(token)) { file += Number(token); continue; }
      const square = String.fromCharCode(97 + file) + rank;
      pieces.set(square, { kind: token.toLowerCase(), color: token === token.toUpperCase() ? 'white' : 'black' });
      file += 1;
    }
  });
  return { pieces, toMove: side === 'b' ? 'black' : 'white' };
}

/**
 * The number of squares on the longest path from the top of a legal-move tree.
 * @param {KhanTree} tree
 * @returns {number}
 */
function depth(tree) {
  let most = 0;
  for (const next of Object.values(tree)) most = Math.max(most, 1 + depth(next));
  return most;
}

/** @returns {Map<string, string>} */
function goalTints() {
  const tint = new Map();
  for (let f = 0; f < 10; f++) {
    const file = String.fromCharCode(97 + f);
    tint.set(`${file}10`, GOAL_TINT.white);
    tint.set(`${file}1`, GOAL_TINT.black);
  }
  return tint;
}

/**
 * @param {number} file
 * @param {number} rank  0-based
 */
const squareAt = (file, rank) => (file >= 0 && file < 10 && rank >= 0 && rank < 10
  ? String.fromCharCode(97 + file) + (rank + 1) : null);

/**
 * The squares around `square` (K-6: any of 8 directions), `distance` away in a line.
 * @param {string} square
 * @param {number} [distance]
 * @returns {string[]}
 */
function around(square, distance = 1) {
  const at = parseSquare(square);
  if (!at) return [];
  /** @type {string[]} */
  const squares = [];
  for (const df of [-1, 0, 1]) {
    for (const dr of [-1, 0, 1]) {
      const to = df || dr ? squareAt(at.file + df * distance, at.rank + dr * distance) : null;
      if (to) squares.push(to);
    }
  }
  return squares;
}

/**
 * The pieces after the move `path` (its squares) is played on `pieces` by shape alone: the
 * piece goes to the last square; a Khan's step onto its own Soldier pushes the phalanx one square
 * on (K-11), the last Soldier taking what stands beyond. Custodian captures (K-13) are the
 * server's: nothing else is taken off.
 * @param {Map<string, Piece>} pieces
 * @param {string[]} path
 */
function played(pieces, path) {
  const after = new Map(pieces);
  const mover = after.get(path[0]);
  const from = parseSquare(path[0]);
  const to = parseSquare(path[path.length - 1]);
  if (!mover || !from || !to) return after;
  const target = after.get(path[path.length - 1]);
  const df = to.file - from.file;
  const dr = to.rank - from.rank;
  if (mover.kind === 'k' && path.length === 2 && Math.max(Math.abs(df), Math.abs(dr)) === 1
    && target?.kind === 's' && target.color === mover.color) {
    const phalanx = [];
    for (let n = 1; ; n++) {
      const square = squareAt(from.file + df * n, from.rank + dr * n);
      if (!square || after.get(square)?.kind !== 's' || after.get(square)?.color !== mover.color) break;
      phalanx.push(square);
    }
    const last = parseSquare(phalanx[phalanx.length - 1]);
    const beyond = last ? squareAt(last.file + df, last.rank + dr) : null;
    if (beyond) after.set(beyond, { kind: 's', color: mover.color });
  }
  after.delete(path[0]);
  after.set(path[path.length - 1], mover);
  return after;
}

/**
 * The moves `color` may set ahead (BoardModule.premoves), as a tree like the server's: a Soldier
 * to any square around it (K-6) or around a friendly Khan it could be supported by, one Khan to
 * the next (K-7, K-8); a Khan to any square around it (a step or a push, K-10, K-11) or two
 * squares away in a line (the first landing of a jump, K-12). By shape alone, whatever stands
 * there by then; a premove holds one landing of a jump chain.
 * @param {string} position
 * @param {Color} color
 * @returns {KhanTree}
 */
export function premoves(position, color) {
  const { pieces } = parsePosition(position);
  const khans = [...pieces].filter(([, p]) => p.color === color && p.kind === 'k').map(([square]) => square);
  /** @type {KhanTree} */
  const tree = {};
  for (const [from, piece] of pieces) {
    if (piece.color !== color) continue;
    const reach = new Set(around(from));
    if (piece.kind === 'k') {
      for (const to of around(from, 2)) reach.add(to);
    } else {
      // Support chains: a Khan next to a square the Soldier can reach lends it every square
      // around that Khan.
      const used = new Set();
      for (let grew = true; grew;) {
        grew = false;
        for (const khan of khans) {
          if (used.has(khan) || !around(khan).some((square) => reach.has(square) || square === from)) continue;
          used.add(khan);
          grew = true;
          for (const square of around(khan)) reach.add(square);
        }
      }
    }
    reach.delete(from);
    tree[from] = Object.fromEntries([...reach].map((to) => [to, {}]));
  }
  return tree;
}

/**
 * @param {HTMLElement} host
 * @param {BoardOptions} options
 * @returns {Board}
 */
export function createBoard(host, { t, onMove, onCancel = () => {} }) {
  /** @type {BoardView | null} */
  let view = null;
  let board = parsePosition('10/10/10/10/10/10/10/10/10/10 w');
  /** @type {KhanTree} */
  let tree = {};
  let complete = true;
  // The most squares of any path in the tree (the landings of the longest listed chain, plus one).
  let deepest = 0;
  /** @type {string[]} the move in progress: the piece's square, then the landings so far */
  let path = [];
  /** @type {KhanTree | null} the tree node at the end of `path`: its keys are the next squares */
  let node = null;
  let key = '';
  const tints = goalTints();

  /** @param {Piece} p */
  const pieceName = (p) => t('khan.piece', { color: t(`khan.${p.color}`), piece: t(`khan.${p.kind}`) });
  const current = () => path[path.length - 1];
  const inChain = () => path.length >= 2;

  const grid = createGrid(host, {
    files: 10,
    ranks: 10,
    theme: THEME,
    boardLabel: () => t('khan.board'),
    drawPiece,
    squareTitle: (square, piece) => (piece
      ? t('khan.square_piece', { square, piece: pieceName(piece) })
      : t('khan.square_empty', { square })),
    onSquare: click,
    canDrag: (square) => (inChain() ? square === current() : square in tree),
    onDragStart: (square) => { if (square !== current()) select(square); },
    onDrop: (from, to) => { if (to && node && to in node) advance(to); },
  });

  /** @param {string | null} square */
  function select(square) {
    path = square && square in tree ? [square] : [];
    node = square && path.length ? tree[square] : null;
    draw();
  }

  function send() {
    const move = path.join('-');
    select(null);
    onMove(move);
  }

  /** @param {string} square */
  function advance(square) {
    if (!node) return;
    path.push(square);
    node = node[square];
    if (Object.keys(node).length === 0 && !mayGoOn()) send();
    else draw();
  }

  // Whether the chain built so far may have continuations the tree left out: the tree was cut
  // (see the top of this file), the move is a Khan's jump chain and it is as long as the longest
  // chain listed. A jump moves two squares in a line; a Khan's step or push, one.
  function mayGoOn() {
    if (complete || path.length < deepest) return false;
    const [from, to] = path.map(parseSquare);
    if (!from || !to) return false;
    const jump = path.length > 2 || Math.max(Math.abs(from.file - to.file), Math.abs(from.rank - to.rank)) === 2;
    return jump && board.pieces.get(path[0])?.kind === 'k';
  }

  /** @param {string | null} square */
  function click(square) {
    if (!view) return;
    if (node && square && square in node) advance(square);
    else if (inChain() && square === current()) send();
    // Another piece, or the Khan's start square during a chain (start again); a second click on
    // a piece just selected cancels.
    else if (square && square in tree && !(path.length === 1 && square === path[0])) select(square);
    else if (path.length > 0) select(null);
    else onCancel();
  }

  function draw() {
    if (!view) return;
    // While a jump chain is built the Khan is drawn where it has landed.
    let pieces = view.pending && view.lastMove ? played(board.pieces, view.lastMove.split('-')) : board.pieces;
    const khan = inChain() ? board.pieces.get(path[0]) : undefined;
    if (khan) {
      pieces = new Map(board.pieces);
      pieces.delete(path[0]);
      pieces.set(current(), khan);
    }
    const lastSquares = view.lastMove ? view.lastMove.split('-') : [];
    const premoveSquares = view.premove ? view.premove.split('-') : [];
    /** @type {{ squares: string[], kind: 'path' | 'last' | 'premove' }[]} */
    const lines = [];
    if (lastSquares.length >= 2) lines.push({ squares: lastSquares, kind: 'last' });
    if (premoveSquares.length >= 2) lines.push({ squares: premoveSquares, kind: 'premove' });
    if (inChain()) lines.push({ squares: path, kind: 'path' });
    const colors = view.colors || ['white', 'black'];
    grid.render({
      pieces,
      flipped: (colors[view.orientation || 0] === 'black') !== Boolean(view.flipped),
      selected: path.length ? [current()] : [],
      targets: node ? Object.keys(node) : [],
      last: lastSquares,
      pending: Boolean(view.pending),
      premoving: Boolean(view.premoving),
      premove: premoveSquares,
      check: [],
      captured: view.captured || [],
      tint: tints,
      lines,
      finish: inChain() ? { square: current(), label: t('khan.finish', { square: current() }) } : null,
    });
  }

  return {
    update(v) {
      const newKey = JSON.stringify([v.position, v.legal]);
      view = v;
      board = parsePosition(v.position);
      tree = v.legal && !Array.isArray(v.legal) ? v.legal : {};
      complete = v.complete !== false;
      deepest = depth(tree);
      if (newKey !== key) { path = []; node = null; }
      key = newKey;
      draw();
    },
    destroy() {
      grid.destroy();
    },
  };
}
