// The Khan-Tsin board's model: the position text read into stacks, where a stack move lands
// (T-9), the move in progress and what the legal moves allow from it, and the moves a player may
// set ahead. No DOM: khan-tsin-draw.js draws what this computes, khan-tsin.js takes the input.

/** @typedef {import('../protocol.js').Color} Color */

export const SQUARES = 36;
export const PER_COLOR = 12;
/** @type {Color[]} */
export const COLORS = ['white', 'green', 'blue'];

/** @type {Record<string, Color>} */
const COLOR_OF_LETTER = { w: 'white', g: 'green', b: 'blue' };

/** @typedef {{ color: Color, khan: boolean }} Pawn */

/**
 * A position: stacks bottom to top, the layout (square types 1, 2, 3), the colours playing in
 * turn order, the colour to move, whether the game is placing pawns, and per colour the pawns
 * placed and whether its Khan-pawn is down.
 * @typedef {object} Position
 * @property {Pawn[][]} stacks
 * @property {number[]} types
 * @property {Color[]} playing
 * @property {Color | undefined} toMove
 * @property {boolean} placing
 * @property {Record<string, number>} placed
 * @property {Record<string, boolean>} khanDown
 */

/**
 * A move string in parts: a placement, a stack move, or a pass (`text` is the move string).
 * @typedef {{ text: string, pass?: boolean, piece?: 'p' | 'K', square?: number, from?: number, count?: number, direction?: '+' | '-' }} Move
 */

/**
 * The move in progress: the square clicked (a placement square or the stack to move) and, for a
 * stack, the number of pawns chosen.
 * @typedef {{ square: number, count?: number | null }} Pick
 */

/**
 * What the legal moves allow from the current pick: the squares to highlight as targets (each
 * with the move it sends), the stacks that can move, and the choices still needed.
 * @typedef {object} Choices
 * @property {Map<number, string>} targets
 * @property {Set<number>} movable
 * @property {Move[]} places  pawn or Khan-pawn on the picked square
 * @property {number[]} counts  how many pawns the picked stack may move
 * @property {{ direction: string, square: number | null, text: string }[]} directions
 */

/**
 * The position text (rules "Notation"): stacks bottom to top, the layout, the colours playing in
 * turn order, the colour to move, and whether the game is placing pawns.
 * @param {string} text
 * @returns {Position}
 */
export function parsePosition(text) {
  const [board, layout, played, toMove, flag] = text.trim().split(/\s+/);
  const stacks = board.split('/').map((s) => (s === '-' ? [] : [...s].map((c) => ({
    color: COLOR_OF_LETTER[c.toLowerCase()],
    khan: c !== c.toLowerCase(),
  }))));
  const types = [...layout].map(Number);
  const playing = [...played].map((c) => COLOR_OF_LETTER[c]);
  /** @type {Record<string, number>} */
  const placed = { white: 0, green: 0, blue: 0 };
  /** @type {Record<string, boolean>} */
  const khanDown = { white: false, green: false, blue: false };
  for (const stack of stacks) {
    for (const pawn of stack) {
      placed[pawn.color] += 1;
      if (pawn.khan) khanDown[pawn.color] = true;
    }
  }
  const placing = flag !== 'm' && playing.some((c) => placed[c] < PER_COLOR);
  return { stacks, types, playing, toMove: COLOR_OF_LETTER[toMove], placing, placed, khanDown };
}

/**
 * T-9, as the server reckons it (`Board::landing` in src/rules/khan_tsin/track.rs): the other
 * occupied squares in the direction of travel, never `from` itself, and the n-th of them, n
 * being the starting square's type; with fewer than n of them (partial positions only) the count
 * goes on round the circle: index (n - 1) modulo their number. Null when no other square is
 * occupied. The squares other than `from` are occupied alike before and after a move, so this
 * also finds where the last move landed from the position after it.
 * @param {Position} pos
 * @param {number} from
 * @param {string} direction  `+` or `-`
 * @returns {number | null}
 */
export function landing(pos, from, direction) {
  const distance = Math.max(pos.types[from], 1);
  const others = [];
  for (let steps = 1; steps < SQUARES; steps += 1) {
    const square = direction === '+' ? (from + steps) % SQUARES : (from - steps + SQUARES) % SQUARES;
    if (pos.stacks[square].length > 0) others.push(square);
  }
  return others.length === 0 ? null : others[(distance - 1) % others.length];
}

/**
 * A move string as parts: a placement {square, piece}, a stack move {from, count, direction},
 * or {pass: true}; null for anything else.
 * @param {string} move
 * @returns {Move | null}
 */
export function parseMove(move) {
  if (move === 'pass') return { text: move, pass: true };
  const placement = /^([pK])(\d+)$/.exec(move);
  if (placement) return { text: move, piece: placement[1] === 'K' ? 'K' : 'p', square: Number(placement[2]) };
  const stackMove = /^(\d+):(\d+)([+-])$/.exec(move);
  if (stackMove) {
    return {
      text: move, from: Number(stackMove[1]), count: Number(stackMove[2]), direction: stackMove[3] === '+' ? '+' : '-',
    };
  }
  return null;
}

/**
 * The moves of a legal-move list this board can build (a pass, a placement, a stack move).
 * @param {string[]} legal
 * @returns {Move[]}
 */
export function readMoves(legal) {
  return legal.map(parseMove).filter((m) => m !== null);
}

/**
 * The number of pawns to move: the one chosen, or the only one the stack allows.
 * @param {Pick} pick
 * @param {Choices} choices
 */
export function chosenCount(pick, choices) {
  return pick.count ?? (choices.counts.length === 1 ? choices.counts[0] : null);
}

/**
 * What the legal moves allow from the current pick (see Choices).
 * @param {Position} pos
 * @param {Move[]} moves
 * @param {Pick | null} pick
 * @returns {Choices}
 */
export function choices(pos, moves, pick) {
  /** @type {Choices} */
  const result = { targets: new Map(), movable: new Set(), places: [], counts: [], directions: [] };
  if (!moves.length || moves[0].pass) return result;
  if (pos.placing) {
    for (const m of moves) {
      if (m.square === undefined) continue;
      if (pick === null) result.targets.set(m.square, m.text);
      else if (m.square === pick.square) result.places.push(m);
    }
    result.places.sort((a, b) => (a.piece === 'p' ? -1 : 1) - (b.piece === 'p' ? -1 : 1));
    return result;
  }
  for (const m of moves) if (m.from !== undefined) result.movable.add(m.from);
  if (pick === null) return result;
  const fromHere = moves.filter((m) => m.from === pick.square);
  result.counts = [...new Set(fromHere.map((m) => m.count ?? 0))].sort((a, b) => a - b);
  const count = chosenCount(pick, result);
  if (count === null) return result;
  for (const m of fromHere) {
    if (m.count !== count || m.from === undefined || m.direction === undefined) continue;
    const square = landing(pos, m.from, m.direction);
    if (square !== null) result.targets.set(square, m.text);
    result.directions.push({ direction: m.direction, square, text: m.text });
  }
  return result;
}

/**
 * The squares a move touched, in the position after it: a placement's square, a stack move's
 * start and landing (see `landing`).
 * @param {Position} pos
 * @param {string | null | undefined} move
 * @returns {Set<number>}
 */
export function moveSquares(pos, move) {
  const m = move ? parseMove(move) : null;
  if (!m || m.pass) return new Set();
  if (m.square !== undefined) return new Set([m.square]);
  if (m.from === undefined || m.direction === undefined) return new Set();
  const to = landing(pos, m.from, m.direction);
  return new Set(to === null ? [m.from] : [m.from, to]);
}

/**
 * The position after `move` is played by `color` on `pos`, as far as drawing goes: a placement's
 * pawn on its square, a stack move's top pawns on their landing (T-9). The turn and the phase are
 * the server's to say: they stay as they were.
 * @param {Position} pos
 * @param {string} move
 * @param {Color} color
 * @returns {Position}
 */
export function play(pos, move, color) {
  const m = parseMove(move);
  const stacks = pos.stacks.map((stack) => [...stack]);
  if (m?.square !== undefined) stacks[m.square].push({ color, khan: m.piece === 'K' });
  if (m?.from !== undefined && m.direction !== undefined && m.count !== undefined) {
    const to = landing(pos, m.from, m.direction);
    if (to !== null) stacks[to].push(...stacks[m.from].splice(-m.count));
  }
  return { ...pos, stacks };
}

/**
 * A move as the server's `moved.display` writes it: a stack move with its landing
 * (`17:2- to 10`), anything else as written.
 * @param {string} position
 * @param {string} move
 * @returns {string}
 */
export function describeMove(position, move) {
  const m = parseMove(move);
  if (m?.from === undefined || m.direction === undefined) return move;
  const to = landing(parsePosition(position), m.from, m.direction);
  return to === null ? move : `${move} to ${to}`;
}

/**
 * A 9-stack topped by a face-up Khan-pawn has ended the game (T-13): its colour won.
 * @param {Position} pos
 * @returns {Color | null}
 */
export function winner(pos) {
  const won = pos.stacks.find((stack) => stack.length === 9 && stack[8].khan);
  return won ? won[8].color : null;
}

/**
 * The moves `color` may set ahead (BoardModule.premoves): while placing, a pawn (or its
 * Khan-pawn, while in hand) on every empty square (T-5); while moving, every number of pawns
 * from every stack it tops, both ways round (T-8, T-9), written with `+` where both ways land on
 * the same square now, as the server writes it. Each is checked against the server's legal moves
 * when the turn comes.
 * @param {string} position
 * @param {Color} color
 * @returns {string[]}
 */
export function premoves(position, color) {
  const pos = parsePosition(position);
  /** @type {string[]} */
  const moves = [];
  if (pos.placing) {
    if (pos.placed[color] >= PER_COLOR) return moves;
    pos.stacks.forEach((stack, square) => {
      if (stack.length > 0) return;
      moves.push(`p${square}`);
      if (!pos.khanDown[color]) moves.push(`K${square}`);
    });
    return moves;
  }
  pos.stacks.forEach((stack, from) => {
    if (stack.at(-1)?.color !== color) return;
    const same = landing(pos, from, '+') === landing(pos, from, '-');
    for (let count = 1; count <= stack.length; count += 1) {
      moves.push(`${from}:${count}+`);
      if (!same) moves.push(`${from}:${count}-`);
    }
  });
  return moves;
}
