// The Khan-Tsin board: the 36-square dragon track drawn as a ring (the dragon biting its tail,
// square 0 behind its head, squares counted clockwise as the rules count "+"), every stack as
// a tower of pawns whose top pawn is a large disc carrying the stack's height, and the move
// built from the server's legal-move list: a placement square (then pawn or Khan-pawn when
// both are legal), or a stack, how many pawns, and where they land.

const SVG = 'http://www.w3.org/2000/svg';
const SQUARES = 36;
const PER_COLOR = 12;
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

const COLOR_OF_LETTER = { w: 'white', g: 'green', b: 'blue' };
export const PAWN_FILL = { white: '#f6f2e7', green: '#3f8f52', blue: '#2d5cab' };
const PAWN_TEXT = { white: '#2b2a26', green: '#ffffff', blue: '#ffffff' };
export const TILE_FILL = { 1: '#f3e8cb', 2: '#e6cd93', 3: '#d2a75a' };
const TYPE_KEY = { 1: 'khan-tsin.single', 2: 'khan-tsin.double', 3: 'khan-tsin.triple' };

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

// The position text: stacks bottom to top as {color, khan}, the layout, the colours playing in
// turn order, the colour to move, and whether the game is placing pawns (rules "Notation").
export function parsePosition(text) {
  const [board, layout, played, toMove, flag] = text.trim().split(/\s+/);
  const stacks = board.split('/').map((s) => (s === '-' ? [] : [...s].map((c) => ({
    color: COLOR_OF_LETTER[c.toLowerCase()],
    khan: c !== c.toLowerCase(),
  }))));
  const types = [...layout].map(Number);
  const playing = [...played].map((c) => COLOR_OF_LETTER[c]);
  const placed = { white: 0, green: 0, blue: 0 };
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

// T-9, as the server reckons it (`Board::landing` in src/rules/khan_tsin/track.rs): the other
// occupied squares in the direction of travel, never `from` itself, and the n-th of them, n
// being the starting square's type; with fewer than n of them (partial positions only) the count
// goes on round the circle: index (n - 1) modulo their number. Null when no other square is
// occupied. The squares other than `from` are occupied alike before and after a move, so this
// also finds where the last move landed from the position after it.
export function landing(pos, from, direction) {
  const distance = Math.max(pos.types[from], 1);
  const others = [];
  for (let steps = 1; steps < SQUARES; steps += 1) {
    const square = direction === '+' ? (from + steps) % SQUARES : (from - steps + SQUARES) % SQUARES;
    if (pos.stacks[square].length > 0) others.push(square);
  }
  return others.length === 0 ? null : others[(distance - 1) % others.length];
}

// A move string as parts: a placement {square, piece}, a stack move {from, count, direction},
// or {pass: true}.
function parseMove(move) {
  if (move === 'pass') return { pass: true };
  const placement = /^([pK])(\d+)$/.exec(move);
  if (placement) return { piece: placement[1], square: Number(placement[2]) };
  const stackMove = /^(\d+):(\d+)([+-])$/.exec(move);
  if (stackMove) {
    return { from: Number(stackMove[1]), count: Number(stackMove[2]), direction: stackMove[3] };
  }
  return null;
}

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

function text(parent, x, y, content, attrs = {}) {
  const node = el('text', { x, y, 'text-anchor': 'middle', 'dominant-baseline': 'central', ...attrs }, parent);
  node.textContent = content;
  return node;
}

// Polar to SVG coordinates: angle in degrees clockwise from the top.
function polar(r, degrees) {
  const a = (degrees * Math.PI) / 180;
  return [r * Math.sin(a), -r * Math.cos(a)];
}

// A text's width when the browser cannot measure it (the board drawn while hidden): Hangul
// and other wide characters take about a full em, Latin letters a little over half.
function textWidth(content, size) {
  return [...content].reduce((sum, c) => sum + (c.codePointAt(0) >= 0x1100 ? 1 : 0.62), 0) * size;
}

function squareAngle(square) {
  return (square + 1) * SLOT;
}

function sectorPath(square) {
  const mid = squareAngle(square);
  const half = SLOT / 2 - 0.45;
  const [x1, y1] = polar(R_OUT, mid - half);
  const [x2, y2] = polar(R_OUT, mid + half);
  const [x3, y3] = polar(R_IN, mid + half);
  const [x4, y4] = polar(R_IN, mid - half);
  return `M${x1} ${y1}A${R_OUT} ${R_OUT} 0 0 1 ${x2} ${y2}L${x3} ${y3}A${R_IN} ${R_IN} 0 0 0 ${x4} ${y4}Z`;
}

// The crown that marks a face-up Khan-pawn, centred on (x, y) (also drawn by the rules page).
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

const STYLE = `
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
.khan-tsin-board .selected .kt-tile { stroke: #d9480f; stroke-width: 7; }
.khan-tsin-board .target .kt-tile { stroke: #1a7f37; stroke-width: 6; }
.khan-tsin-board .kt-button { fill: #fffaf0; stroke: #7a2e1f; stroke-width: 3; }
.khan-tsin-board [role="button"]:hover .kt-button { fill: #ffe8c2; }
.khan-tsin-board .chosen .kt-button { fill: #f2c94c; stroke-width: 5; }
`;

export function createBoard(host, { t, onMove }) {
  const svg = el('svg', {
    viewBox: '-520 -520 1040 1040',
    class: 'khan-tsin-board',
    role: 'group',
    'aria-label': t('khan-tsin.board'),
  });
  host.appendChild(svg);
  // Squares and buttons stop their clicks; any other click on the board cancels the move in
  // progress.
  svg.addEventListener('click', () => {
    if (pick) {
      pick = null;
      draw();
    }
  });

  let view = null;
  let pos = null;
  let moves = [];
  let key = '';
  // The move in progress: the square clicked (a placement square or the stack to move) and,
  // for a stack, the number of pawns chosen.
  let pick = null;

  function colorName(color) {
    return t(`khan-tsin.${color}`);
  }

  function send(move) {
    pick = null;
    draw();
    onMove(move);
  }

  // What the legal moves allow from the current pick: the squares to highlight as targets,
  // each with the move it sends, and the choices (buttons) still needed.
  function options() {
    const targets = new Map();
    const result = { targets, movable: new Set(), places: [], counts: [], directions: [] };
    if (!moves.length || moves[0].pass) return result;
    if (pos.placing) {
      for (const m of moves) {
        if (m.square === undefined) continue;
        if (pick === null) targets.set(m.square, m.text);
        else if (m.square === pick.square) result.places.push(m);
      }
      result.places.sort((a, b) => (a.piece === 'p' ? -1 : 1) - (b.piece === 'p' ? -1 : 1));
      return result;
    }
    for (const m of moves) if (m.from !== undefined) result.movable.add(m.from);
    if (pick === null) return result;
    const fromHere = moves.filter((m) => m.from === pick.square);
    result.counts = [...new Set(fromHere.map((m) => m.count))].sort((a, b) => a - b);
    const count = chosenCount(result);
    if (count === null) return result;
    for (const m of fromHere) {
      if (m.count !== count) continue;
      const square = landing(pos, m.from, m.direction);
      targets.set(square, m.text);
      result.directions.push({ direction: m.direction, square, text: m.text });
    }
    return result;
  }

  // The number of pawns to move: the one chosen, or the only one the stack allows.
  function chosenCount(opts) {
    return pick.count ?? (opts.counts.length === 1 ? opts.counts[0] : null);
  }

  function onSquare(square, opts) {
    if (pos.placing) {
      if (pick && pick.square === square) pick = null;
      else if (opts.targets.has(square) || pick) {
        const here = moves.filter((m) => m.square === square);
        if (here.length === 1) return send(here[0].text);
        pick = here.length ? { square } : null;
      }
      return draw();
    }
    if (opts.targets.has(square)) return send(opts.targets.get(square));
    if (pick && pick.square === square) pick = null;
    else if (opts.movable.has(square)) pick = { square, count: null };
    else pick = null;
    return draw();
  }

  function button(parent, x, y, width, label, data, action) {
    const g = el('g', { role: 'button', tabindex: 0, ...data }, parent);
    el('rect', { class: 'kt-button', x: x - width / 2, y: y - 36, width, height: 72, rx: 16 }, g);
    text(g, x, y, label, { 'font-size': 28, 'font-weight': 600, fill: '#3b1d12' });
    activate(g, action);
    return g;
  }

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

  function buttonRow(parent, y, items) {
    const gap = 14;
    const total = items.reduce((sum, item) => sum + item.width, 0) + gap * (items.length - 1);
    let x = -total / 2;
    for (const item of items) {
      button(parent, x + item.width / 2, y, item.width, item.label, item.data, item.action);
      x += item.width + gap;
    }
  }

  function lastSquares() {
    const last = view.lastMove ? parseMove(view.lastMove) : null;
    if (!last || last.pass) return new Set();
    if (last.square !== undefined) return new Set([last.square]);
    return new Set([last.from, landing(pos, last.from, last.direction)]);
  }

  function drawDragon(layer) {
    // The body: a dark band under the tiles, all round the circle.
    el('circle', { r: (R_IN + R_OUT) / 2, fill: 'none', stroke: '#7a2e1f', 'stroke-width': R_OUT - R_IN + 16 }, layer);
    // In the gap at the top the head (square 0's end, looking back along the track) bites
    // the tail (square 35's end).
    const g = el('g', { transform: `translate(0 ${-(R_IN + R_OUT) / 2})` }, layer);
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

  function stackTitle(square) {
    const type = t(TYPE_KEY[pos.types[square]]);
    const stack = pos.stacks[square];
    const where = t('khan-tsin.square', { square, type });
    if (!stack.length) return `${where}: ${t('khan-tsin.empty')}`;
    const pawns = stack.map((p) => t(p.khan ? 'khan-tsin.khan' : 'khan-tsin.pawn', { color: colorName(p.color) }));
    return `${where}: ${t('khan-tsin.stack', { height: stack.length, pawns: pawns.join(', ') })}`;
  }

  function drawSquare(layer, square, classes, clickable, opts) {
    const g = el('g', { 'data-square': square, class: classes.join(' ') }, layer);
    el('title', {}, g).textContent = stackTitle(square);
    const type = pos.types[square];
    el('path', { class: 'kt-tile', d: sectorPath(square), fill: TILE_FILL[type], stroke: '#4a160d', 'stroke-width': 1.5 }, g);

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
      g.setAttribute('tabindex', 0);
      activate(g, () => onSquare(square, opts));
    }
  }

  // A 9-stack topped by a face-up Khan-pawn has ended the game (T-13): its colour won, nobody
  // is to move any more.
  function winner() {
    const won = pos.stacks.find((stack) => stack.length === 9 && stack[8].khan);
    return won ? won[8].color : null;
  }

  function drawCenter(layer, opts) {
    el('circle', { r: R_CENTER, fill: '#fbf5e6', stroke: '#7a2e1f', 'stroke-width': 4 }, layer);
    text(layer, 0, -185, t(pos.placing ? 'khan-tsin.placement' : 'khan-tsin.movement'), {
      'font-size': 30, 'font-weight': 700, fill: '#7a2e1f',
    });
    const won = winner();
    const color = won ?? pos.toMove;
    if (color) {
      // The colour's disc just left of the words, the pair centred.
      const words = text(layer, 16, -130, t(won ? 'khan-tsin.wins' : 'khan-tsin.to_move', { color: colorName(color) }), {
        'font-size': 32, 'font-weight': 600, fill: '#2b2a26',
      });
      const width = words.getComputedTextLength() || textWidth(words.textContent, 32);
      const x = -width / 2 - 8;
      if (won) el('circle', { cx: x, cy: -130, r: 20, fill: '#f2c94c', stroke: '#6b4b0a', 'stroke-width': 2 }, layer);
      el('circle', { cx: x, cy: -130, r: 16, fill: PAWN_FILL[color], stroke: '#2b2a26', 'stroke-width': 2 }, layer);
      if (won) crown(layer, x, -131, 14, '#f2c94c');
    }
    if (pos.placing) drawPlacement(layer);
    else drawColors(layer);
    drawChoices(layer, opts);
  }

  // Pawns left to place for each colour playing, and whether its Khan-pawn is still in hand;
  // then the neutral pawns (and those of a player who left), placed last by themselves.
  function drawPlacement(layer) {
    const others = ['white', 'green', 'blue'].filter((c) => !pos.playing.includes(c) && pos.placed[c] < PER_COLOR);
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

  // The colours in turn order, and the neutral one in a two-player game.
  function drawColors(layer) {
    const all = ['white', 'green', 'blue'];
    const shown = all.filter((c) => pos.playing.includes(c) || pos.stacks.some((s) => s.some((p) => p.color === c)));
    const width = 150;
    shown.forEach((color, i) => {
      const x = (i - (shown.length - 1) / 2) * width;
      const playing = pos.playing.includes(color);
      el('circle', { cx: x, cy: -85, r: 14, fill: PAWN_FILL[color], stroke: '#2b2a26', 'stroke-width': 2 }, layer);
      text(layer, x, -55, playing ? colorName(color) : `${colorName(color)} (${t('khan-tsin.neutral')})`, {
        'font-size': playing ? 22 : 18, fill: '#2b2a26', 'font-weight': color === (winner() ?? pos.toMove) ? 700 : 400,
      });
    });
  }

  // The prompt for the next step of the move and the buttons of the choices it needs.
  function drawChoices(layer, opts) {
    if (!moves.length) return;
    const top = pos.placing ? 65 : 5;
    const prompt = (key) => text(layer, 0, top, t(key), { 'font-size': 26, fill: '#5b4636' });
    if (moves[0].pass) {
      prompt('khan-tsin.no_move');
      buttonRow(layer, top + 65, [{ width: 200, label: t('khan-tsin.pass'), data: { 'data-pass': '' }, action: () => send('pass') }]);
      return;
    }
    if (pos.placing) {
      if (!pick) return prompt('khan-tsin.choose_square');
      prompt('khan-tsin.choose_piece');
      buttonRow(layer, top + 65, opts.places.map((m) => ({
        width: 190,
        label: t(m.piece === 'K' ? 'khan-tsin.place_khan' : 'khan-tsin.place_pawn'),
        data: { 'data-place': m.piece },
        action: () => send(m.text),
      })));
      return;
    }
    if (!pick) return prompt('khan-tsin.choose_stack');
    const count = chosenCount(opts);
    prompt(count === null ? 'khan-tsin.choose_count' : 'khan-tsin.choose_landing');
    if (opts.counts.length > 1) {
      buttonRow(layer, top + 65, opts.counts.map((n) => ({
        width: 80,
        label: String(n),
        data: n === count ? { 'data-count': n, class: 'chosen' } : { 'data-count': n },
        action: () => { pick.count = n; draw(); },
      })));
    }
    // Direction buttons help where the landing squares are small to tap (phones); they are
    // only needed when the two directions land on different squares.
    if (opts.directions.length === 2) {
      buttonRow(layer, top + (opts.counts.length > 1 ? 150 : 65), opts.directions.map((d) => ({
        width: 170,
        label: t(d.direction === '+' ? 'khan-tsin.clockwise' : 'khan-tsin.counterclockwise', { square: d.square }),
        data: { 'data-direction': d.direction },
        action: () => send(d.text),
      })));
    }
  }

  function draw() {
    // Set again at every redraw: the language may have changed since.
    svg.setAttribute('aria-label', t('khan-tsin.board'));
    svg.replaceChildren();
    el('style', {}, svg).textContent = STYLE;
    if (!pos) return;
    // The phase as an attribute too, for tests and styles that cannot read the words.
    svg.setAttribute('data-phase', pos.placing ? 'placement' : 'movement');
    const opts = options();
    drawDragon(svg);
    const last = lastSquares();
    const clickable = moves.length > 0 && !moves[0].pass;
    const layer = el('g', {}, svg);
    for (let square = 0; square < SQUARES; square += 1) {
      const classes = [];
      if (last.has(square)) classes.push('last');
      if (opts.movable.has(square)) classes.push('movable');
      if (pick && pick.square === square) classes.push('selected');
      if (opts.targets.has(square)) classes.push('target');
      drawSquare(layer, square, classes, clickable, opts);
    }
    drawCenter(el('g', {}, svg), opts);
  }

  return {
    update(next) {
      const nextKey = `${next.position}|${JSON.stringify(next.legal)}`;
      if (nextKey !== key) pick = null;
      key = nextKey;
      view = next;
      pos = parsePosition(next.position);
      moves = (next.legal || []).map((m) => ({ text: m, ...parseMove(m) })).filter((m) => m.pass || m.square !== undefined || m.from !== undefined);
      draw();
    },
    destroy() {
      svg.remove();
    },
  };
}
