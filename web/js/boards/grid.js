// What the two square boards (Ouk Chatrang 8x8, Khan 10x10) share: one SVG of squares, each a
// `<g data-square>` holding its colour, its highlights, its piece and its coordinate, so a click
// anywhere on a square (piece included) reaches that square; the highlight classes of the board
// contract (selected, target, last, check, captured); orientation; click and drag with pointer
// events; and the keyboard: the squares are one tab stop (a roving tabindex), the arrow keys move
// between them as the board is drawn, Enter or Space is a click on the focused square.
// The game modules keep the move in progress and call `render` with what to draw.

const SVG_NS = 'http://www.w3.org/2000/svg';

/** @typedef {import('../protocol.js').Color} Color */
/** @typedef {{ kind: string, color: Color }} Piece */

/**
 * A square board's colours (each game its own; the page's board theme overrides them through
 * the classes of the shapes they fill: `sq-light`, `sq-dark`, `board-frame`, `coord`, `grid-line`,
 * `hl-last`, `hl-selected`, `hl-target`, `hl-premove`; see css/khanate.css "Board themes").
 * @typedef {object} GridTheme
 * @property {string} light
 * @property {string} dark
 * @property {boolean} checkered
 * @property {boolean} lines
 * @property {string} [line]
 * @property {string} frame
 * @property {string} coord
 * @property {string} last
 * @property {string} selected
 * @property {string} target
 * @property {string} path
 * @property {string} lastLine
 */

/**
 * What one render draws.
 * @typedef {object} GridState
 * @property {Map<string, Piece>} pieces
 * @property {boolean} flipped
 * @property {string[]} selected
 * @property {string[]} targets
 * @property {string[]} last
 * @property {string[]} check
 * @property {string[]} captured  squares the last move emptied (a red cross, drawn over the piece)
 * @property {string[]} [premove]  the squares of a premove set (class `premove`)
 * @property {boolean} [pending]  `last` is a move sent and not yet answered (class `pending`)
 * @property {boolean} [premoving]  the targets are a premove's (drawn in the premove's colour)
 * @property {Map<string, string>} [tint]  square -> fill (e.g. goal rows)
 * @property {{ squares: string[], kind: 'path' | 'last' | 'premove' }[]} [lines]
 * @property {{ square: string, label: string } | null} [finish]  the badge that ends a Khan jump chain
 */

/**
 * @typedef {object} GridOptions
 * @property {number} files
 * @property {number} ranks
 * @property {GridTheme} theme
 * @property {(g: SVGElement, piece: Piece) => void} drawPiece  draws into a 100x100 box (g is at the square)
 * @property {(square: string, piece: Piece | null) => string} squareTitle  the square's accessible name
 * @property {() => string} boardLabel  the SVG's accessible name (asked at every render)
 * @property {(square: string | null) => void} onSquare  a click on a square, or null elsewhere (cancel)
 * @property {(square: string) => boolean} canDrag
 * @property {(square: string) => void} onDragStart
 * @property {(from: string, to: string | null) => void} onDrop  to: null off the board
 */

/**
 * @typedef {object} Grid
 * @property {SVGSVGElement} svg
 * @property {(state: GridState) => void} render
 * @property {() => void} destroy
 */

// Board units: one square is 100 wide; the frame around the squares holds the coordinates.
const SQ = 100;
const FRAME = 38;
const DRAG_THRESHOLD_PX = 5;
// A premove's squares: a cool blue, apart from the warm yellow of the last move (as lichess).
const PREMOVE_FILL = 'rgba(40, 90, 200, 0.45)';
const PREMOVE_LINE = '#2856c8';

/**
 * An SVG element with attributes, appended to `parent` when given.
 * @template {keyof SVGElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, string | number>} [attrs]
 * @param {Element | null} [parent]
 * @returns {SVGElementTagNameMap[K]}
 */
export function svgEl(tag, attrs = {}, parent = null) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (parent) parent.appendChild(el);
  return el;
}

/** @param {number} file */
function fileLetter(file) {
  return String.fromCharCode(97 + file);
}

/**
 * @param {number} file
 * @param {number} rank
 */
function squareName(file, rank) {
  return fileLetter(file) + (rank + 1);
}

/**
 * `e3` -> {file: 4, rank: 2}; `j10` -> {file: 9, rank: 9}; null when it is not a square name.
 * @param {string | null} name
 * @returns {{ file: number, rank: number } | null}
 */
export function parseSquare(name) {
  const m = /^([a-z])(\d{1,2})$/.exec(name || '');
  return m ? { file: m[1].charCodeAt(0) - 97, rank: Number(m[2]) - 1 } : null;
}

// The grid a square board draws on (see GridOptions and GridState above).
/**
 * @param {HTMLElement} host
 * @param {GridOptions} options
 * @returns {Grid}
 */
export function createGrid(host, options) {
  const { files, ranks, theme } = options;
  const width = files * SQ + 2 * FRAME;
  const height = ranks * SQ + 2 * FRAME;

  const svg = svgEl('svg', {
    viewBox: `0 0 ${width} ${height}`,
    role: 'group',
    'aria-label': options.boardLabel(),
    class: 'board-svg',
  });
  // The host is sized by the page's CSS; the SVG fills it and keeps its proportions.
  // touch-action none: a finger dragging a piece must not scroll the page.
  svg.style.cssText = 'display:block;width:100%;height:100%;touch-action:none;user-select:none;-webkit-user-select:none';
  const boardLayer = svgEl('g', {}, svg);
  const dragLayer = svgEl('g', { 'pointer-events': 'none' }, svg);
  host.appendChild(svg);

  let flipped = false;
  /** @type {GridState | null} */
  let lastState = null;
  /** @type {{ square: string, x: number, y: number, pointerId: number, dragging: boolean } | null} */
  let press = null;
  // The square that takes the keyboard's focus (the one tab stop of the board).
  /** @type {string | null} */
  let focusSquare = null;
  // A browser may fire a click right after a drop; it is no click of its own. Cleared by the
  // next press, so a real click soon after a drop (the opponent answered fast) still counts.
  let clickAfterDrop = false;

  /**
   * @param {number} file
   * @param {number} rank
   */
  function origin(file, rank) {
    const col = flipped ? files - 1 - file : file;
    const row = flipped ? rank : ranks - 1 - rank;
    return { x: FRAME + col * SQ, y: FRAME + row * SQ };
  }

  /** @param {string} square */
  function centre(square) {
    const s = parseSquare(square) ?? { file: 0, rank: 0 };
    const o = origin(s.file, s.rank);
    return { x: o.x + SQ / 2, y: o.y + SQ / 2 };
  }

  /**
   * @param {number} clientX
   * @param {number} clientY
   */
  function svgPoint(clientX, clientY) {
    const ctm = svg.getScreenCTM();
    if (!ctm) return null;
    const p = new DOMPoint(clientX, clientY).matrixTransform(ctm.inverse());
    return { x: p.x, y: p.y };
  }

  /**
   * @param {number} clientX
   * @param {number} clientY
   */
  function squareAt(clientX, clientY) {
    const p = svgPoint(clientX, clientY);
    if (!p) return null;
    const col = Math.floor((p.x - FRAME) / SQ);
    const row = Math.floor((p.y - FRAME) / SQ);
    if (col < 0 || col >= files || row < 0 || row >= ranks) return null;
    const file = flipped ? files - 1 - col : col;
    const rank = flipped ? row : ranks - 1 - row;
    return squareName(file, rank);
  }

  /** @param {GridState} state */
  function render(state) {
    lastState = state;
    // Redrawing replaces the squares: the focus goes back to the same square afterwards.
    const hadFocus = svg.contains(document.activeElement);
    if (!focusSquare) focusSquare = (state.selected || [])[0] || squareName(Math.floor(files / 2), flipped ? ranks - 1 : 0);
    svg.setAttribute('aria-label', options.boardLabel());
    flipped = !!state.flipped;
    boardLayer.replaceChildren();
    const sets = {
      selected: new Set(state.selected || []),
      target: new Set(state.targets || []),
      last: new Set(state.last || []),
      check: new Set(state.check || []),
      captured: new Set(state.captured || []),
      premove: new Set(state.premove || []),
    };
    svg.classList.toggle('pending', Boolean(state.pending));
    svg.classList.toggle('premoving', Boolean(state.premoving));
    const targetColour = state.premoving ? PREMOVE_LINE : theme.target;

    svgEl('rect', { x: 0, y: 0, width, height, rx: 14, fill: theme.frame, class: 'board-frame' }, boardLayer);
    const bottomRank = flipped ? ranks - 1 : 0;
    const leftFile = flipped ? files - 1 : 0;

    for (let rank = 0; rank < ranks; rank++) {
      for (let file = 0; file < files; file++) {
        const name = squareName(file, rank);
        const piece = state.pieces.get(name) || null;
        const { x, y } = origin(file, rank);
        const classes = ['square'];
        for (const [cls, set] of Object.entries(sets)) if (set.has(name)) classes.push(cls);
        const g = svgEl('g', {
          'data-square': name,
          class: classes.join(' '),
          transform: `translate(${x} ${y})`,
          role: 'button',
          tabindex: name === focusSquare ? 0 : -1,
          'aria-label': options.squareTitle(name, piece),
        }, boardLayer);
        if (sets.target.has(name) || options.canDrag(name)) g.style.cursor = 'pointer';
        const light = !theme.checkered || (file + rank) % 2 === 1;
        svgEl('rect', { width: SQ, height: SQ, fill: light ? theme.light : theme.dark, class: light ? 'sq-light' : 'sq-dark' }, g);
        const tint = state.tint && state.tint.get(name);
        if (tint) svgEl('rect', { width: SQ, height: SQ, fill: tint }, g);
        if (sets.last.has(name)) svgEl('rect', { width: SQ, height: SQ, fill: theme.last, class: 'hl-last' }, g);
        if (sets.premove.has(name)) svgEl('rect', { width: SQ, height: SQ, fill: PREMOVE_FILL, class: 'hl-premove' }, g);
        if (sets.selected.has(name)) svgEl('rect', { width: SQ, height: SQ, fill: theme.selected, class: 'hl-selected' }, g);
        if (sets.check.has(name)) {
          svgEl('circle', { cx: SQ / 2, cy: SQ / 2, r: SQ * 0.48, fill: 'url(#check-glow)' }, g);
        }
        svgEl('title', {}, g).textContent = options.squareTitle(name, piece);
        if (piece) {
          const pg = svgEl('g', { class: 'piece' }, g);
          if (press && press.dragging && press.square === name) pg.setAttribute('opacity', '0.3');
          options.drawPiece(pg, piece);
        }
        if (sets.captured.has(name)) captureMark(g, Boolean(piece));
        if (sets.target.has(name)) {
          if (piece) {
            svgEl('circle', { cx: SQ / 2, cy: SQ / 2, r: SQ * 0.45, fill: 'none', stroke: targetColour, 'stroke-width': 7, class: 'hl-target ring' }, g);
          } else {
            svgEl('circle', { cx: SQ / 2, cy: SQ / 2, r: SQ * 0.16, fill: targetColour, class: 'hl-target dot' }, g);
          }
        }
        if (state.finish && state.finish.square === name) finishBadge(g, state.finish.label);
        if (rank === bottomRank) coordinate(g, fileLetter(file), SQ / 2, SQ + FRAME * 0.72);
        if (file === leftFile) coordinate(g, String(rank + 1), -FRAME / 2, SQ / 2 + 8);
      }
    }
    if (theme.lines) drawGridLines();
    for (const line of state.lines || []) drawLine(line);
    defs();
    if (hadFocus) /** @type {SVGElement | null} */ (boardLayer.querySelector(`[data-square="${focusSquare}"]`))?.focus();
  }

  // The arrow keys move the focus one square on the board as drawn (flipped or not); Enter and
  // Space click the focused square. Escape cancels the move in progress.
  /** @type {Record<string, [number, number]>} */
  const STEPS = { ArrowUp: [0, 1], ArrowDown: [0, -1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };
  /** @param {KeyboardEvent} e */
  function onKeyDown(e) {
    const square = squareOf(e.target);
    const s = parseSquare(square);
    if (!square || !s) return;
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      focusSquare = square;
      options.onSquare(square);
      return;
    }
    if (e.key === 'Escape') {
      options.onSquare(null);
      return;
    }
    const step = STEPS[e.key];
    if (!step) return;
    e.preventDefault();
    e.stopPropagation();
    const sign = flipped ? -1 : 1;
    const file = Math.min(files - 1, Math.max(0, s.file + step[0] * sign));
    const rank = Math.min(ranks - 1, Math.max(0, s.rank + step[1] * sign));
    const next = squareName(file, rank);
    boardLayer.querySelector(`[data-square="${focusSquare}"]`)?.setAttribute('tabindex', '-1');
    focusSquare = next;
    const el = /** @type {SVGElement | null} */ (boardLayer.querySelector(`[data-square="${next}"]`));
    el?.setAttribute('tabindex', '0');
    el?.focus();
  }

  /**
   * Captured on by the last move: a red cross, above whatever stands there now. An emptied square
   * (a custodian capture) gets a large one; a square the capturer holds (Ouk Chatrang), or a push
   * drove its Soldier onto (Khan), a small one in its corner, over the piece but not hiding it.
   * @param {SVGElement} g
   * @param {boolean} occupied
   */
  function captureMark(g, occupied) {
    const mark = svgEl('g', { class: 'capture-mark', 'pointer-events': 'none' }, g);
    if (occupied) {
      svgEl('circle', { cx: 20, cy: 20, r: 15, fill: '#fff', stroke: '#c0271b', 'stroke-width': 3 }, mark);
      svgEl('path', { d: 'M13 13 L27 27 M27 13 L13 27', stroke: '#c0271b', 'stroke-width': 5, 'stroke-linecap': 'round' }, mark);
      return;
    }
    svgEl('path', { d: 'M30 30 L70 70 M70 30 L30 70', stroke: '#c0271b', 'stroke-width': 9, 'stroke-linecap': 'round', opacity: 0.8 }, mark);
  }

  // Ouk Chatrang's board is one colour, its squares marked by lines, as Cambodian boards are.
  function drawGridLines() {
    const d = [];
    for (let i = 0; i <= files; i++) d.push(`M${FRAME + i * SQ} ${FRAME}v${ranks * SQ}`);
    for (let i = 0; i <= ranks; i++) d.push(`M${FRAME} ${FRAME + i * SQ}h${files * SQ}`);
    svgEl('path', { d: d.join(''), stroke: theme.line ?? theme.dark, class: 'grid-line', 'stroke-width': 2.5, fill: 'none', 'pointer-events': 'none' }, boardLayer);
  }

  // Khan's "stop the jump chain here": a check mark on the square the Khan has reached, inside
  // that square so that it covers no other square; a click on it is a click on the square.
  /**
   * @param {SVGElement} g
   * @param {string} label
   */
  function finishBadge(g, label) {
    const b = svgEl('g', { 'data-finish': '', role: 'button', 'aria-label': label, style: 'cursor:pointer' }, g);
    svgEl('title', {}, b).textContent = label;
    svgEl('circle', { cx: 78, cy: 22, r: 19, fill: theme.path, stroke: '#fff', 'stroke-width': 3 }, b);
    svgEl('path', {
      d: 'M69 22 L76 29 L88 15', fill: 'none', stroke: '#fff', 'stroke-width': 5,
      'stroke-linecap': 'round', 'stroke-linejoin': 'round',
    }, b);
  }

  /**
   * @param {SVGElement} g
   * @param {string} text
   * @param {number} x
   * @param {number} y
   */
  function coordinate(g, text, x, y) {
    const el = svgEl('text', {
      x, y,
      'text-anchor': 'middle',
      'font-size': 22,
      'font-family': 'system-ui, sans-serif',
      'font-weight': 600,
      fill: theme.coord,
      class: 'coord',
      'pointer-events': 'none',
      'aria-hidden': 'true',
    }, g);
    el.textContent = text;
  }

  /**
   * A jump chain built so far, a premove's, or the last move's path: a line through the squares'
   * centres.
   * @param {{ squares: string[], kind: 'path' | 'last' | 'premove' }} line
   */
  function drawLine({ squares, kind }) {
    if (squares.length < 2) return;
    const points = squares.map(centre).map((p) => `${p.x},${p.y}`).join(' ');
    const colour = { path: theme.path, last: theme.lastLine, premove: PREMOVE_LINE }[kind];
    const g = svgEl('g', { 'pointer-events': 'none', class: `line-${kind}` }, boardLayer);
    // The last move is a hint, drawn lighter than the chain being built.
    svgEl('polyline', {
      points, fill: 'none', stroke: colour, 'stroke-width': kind === 'path' ? 10 : 7,
      'stroke-linecap': 'round', 'stroke-linejoin': 'round', opacity: kind === 'path' ? 0.75 : 0.55,
    }, g);
    if (kind === 'path') {
      const start = centre(squares[0]);
      svgEl('circle', { cx: start.x, cy: start.y, r: 16, fill: 'none', stroke: colour, 'stroke-width': 6 }, g);
    }
    for (const sq of squares.slice(1)) {
      const p = centre(sq);
      svgEl('circle', { cx: p.x, cy: p.y, r: 9, fill: colour, opacity: 0.9 }, g);
    }
  }

  function defs() {
    const d = svgEl('defs', {}, boardLayer);
    const grad = svgEl('radialGradient', { id: 'check-glow' }, d);
    svgEl('stop', { offset: '0%', 'stop-color': '#ff2020', 'stop-opacity': 0.95 }, grad);
    svgEl('stop', { offset: '60%', 'stop-color': '#e01010', 'stop-opacity': 0.55 }, grad);
    svgEl('stop', { offset: '100%', 'stop-color': '#e01010', 'stop-opacity': 0 }, grad);
  }

  /** @param {EventTarget | null} target */
  function squareOf(target) {
    const el = target instanceof Element ? target.closest('[data-square]') : null;
    return el && svg.contains(el) ? el.getAttribute('data-square') : null;
  }

  /** @param {PointerEvent} e */
  function onPointerDown(e) {
    if (e.button !== 0) return;
    clickAfterDrop = false;
    const square = squareOf(e.target);
    if (!square || !options.canDrag(square)) return;
    press = { square, x: e.clientX, y: e.clientY, pointerId: e.pointerId, dragging: false };
  }

  /** @param {PointerEvent} e */
  function onPointerMove(e) {
    if (!press || e.pointerId !== press.pointerId) return;
    if (!press.dragging) {
      if (Math.hypot(e.clientX - press.x, e.clientY - press.y) < DRAG_THRESHOLD_PX) return;
      press.dragging = true;
      svg.setPointerCapture(e.pointerId);
      options.onDragStart(press.square);
      if (lastState) render(lastState);
      const piece = lastState && lastState.pieces.get(press.square);
      if (!piece) { press = null; return; }
      const ghost = svgEl('g', {}, dragLayer);
      options.drawPiece(ghost, piece);
    }
    const p = svgPoint(e.clientX, e.clientY);
    const ghost = /** @type {SVGElement | null} */ (dragLayer.firstChild);
    if (p && ghost) ghost.setAttribute('transform', `translate(${p.x - SQ / 2} ${p.y - SQ / 2}) scale(1.1)`);
  }

  /** @param {PointerEvent} e */
  function onPointerUp(e) {
    if (!press || e.pointerId !== press.pointerId) return;
    const { square, dragging } = press;
    press = null;
    if (!dragging) return; // a plain click: the click event handles it
    dragLayer.replaceChildren();
    clickAfterDrop = true;
    if (lastState) render(lastState); // the piece left behind is no longer faded
    options.onDrop(square, squareAt(e.clientX, e.clientY));
  }

  function onPointerCancel() {
    if (!press) return;
    const wasDragging = press.dragging;
    press = null;
    dragLayer.replaceChildren();
    if (wasDragging && lastState) render(lastState);
  }

  /** @param {MouseEvent} e */
  function onClick(e) {
    if (clickAfterDrop) {
      clickAfterDrop = false;
      return;
    }
    options.onSquare(squareOf(e.target));
  }

  // A click outside the board host cancels the move in progress too. The path, not the target:
  // a click on the board redraws it, which takes the target out of the document.
  /** @param {MouseEvent} e */
  function onDocumentClick(e) {
    if (!e.composedPath().includes(host)) options.onSquare(null);
  }

  svg.addEventListener('pointerdown', onPointerDown);
  svg.addEventListener('pointermove', onPointerMove);
  svg.addEventListener('pointerup', onPointerUp);
  svg.addEventListener('pointercancel', onPointerCancel);
  svg.addEventListener('click', onClick);
  svg.addEventListener('keydown', onKeyDown);
  document.addEventListener('click', onDocumentClick);

  return {
    svg,
    render,
    destroy() {
      document.removeEventListener('click', onDocumentClick);
      svg.remove();
    },
  };
}
