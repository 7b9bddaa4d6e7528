// The board contract: what every board module under boards/ exports and what the pages (the room,
// the finished game, the rules) may ask of it, written once as chessground writes its api.ts and
// config.ts. No code runs here; a page imports the types:
//
//   /** @typedef {import('./boards/board.js').BoardModule} BoardModule */
//
// A fourth game is one module that exports `createBoard` and `strings` (and, if it has them,
// `premoves`, `drawPiece`, `rulesKey`) of these types, and one entry in games.js (docs/web-client.md, "The board contract").

/** @typedef {import('../protocol.js').Color} Color */
/** @typedef {import('../protocol.js').LegalMoves} LegalMoves */

/**
 * The translation function of i18n.js: `t('khan.piece', {color, piece})`.
 * @callback Translate
 * @param {string} key
 * @param {Record<string, string | number>} [params]
 * @returns {string}
 */

/**
 * What the board draws: everything, every time (`update` redraws from scratch).
 * @typedef {object} BoardView
 * @property {string} position     the game's position text (`snapshot.position`, `moved.position`)
 * @property {LegalMoves | null} legal  the moves this browser may build now (the server's
 *   `legal_moves` for the seat it builds for; while premoving, the board's own `premoves` of the
 *   seat), or null when it may build none (spectator, not its turn, replay, game over)
 * @property {boolean} complete     false when the server left moves out of `legal` (Khan's
 *   `legal_moves_complete: false`): the board then offers to stop a jump chain at the deepest
 *   listed landing instead of sending it
 * @property {string | null} lastMove  the last move (`moved.move`), highlighted (class `last`)
 * @property {number} orientation   the seat drawn nearest (the viewer's seat; 0 for spectators)
 * @property {boolean} [flipped]    drawn from the other side (the viewer turned the board)
 * @property {Color[]} colors       each seat's colour, by seat
 * @property {boolean} check        Ouk Chatrang: the side to move is in check (its King marked)
 * @property {string[]} captured    squares the last move captured on (class `captured`)
 * @property {boolean} [premoving]  `legal` holds premoves (another seat is on move): the board
 *   marks their destinations apart (class `premoving` on its SVG) and no piece as movable
 * @property {string | null} [premove]  a premove set and waiting (class `premove` on its squares)
 * @property {boolean} [pending]    `lastMove` is a move sent and not yet answered: drawn as made
 *   on `position` (by the pieces' shapes alone: what it captures by custody is not taken off)
 *   and marked (class `pending` on the board's SVG)
 * @property {{ winner: Color | null, reason: string } | null} [outcome]  the game's result once it
 *   is over (the winner's colour, null for a draw; `reason` as `game_over` gives it): a board
 *   that shows whose move it is shows this instead (Khan-Tsin's centre)
 */

/**
 * One entry of the rules page's key to the pictures.
 * @typedef {{ picture: SVGSVGElement, label: string, data: Record<string, string> }} KeyItem
 *   `data` goes to the entry's `li` dataset (`{piece: 'k'}` -> `data-piece="k"`)
 */

/**
 * A board on the page.
 * @typedef {object} Board
 * @property {(view: BoardView) => void} update  redraws; drops a half-built move when the
 *   position or the legal moves changed
 * @property {() => void} destroy  takes the board out of its host and stops listening
 */

/**
 * What the page gives a board.
 * @typedef {object} BoardOptions
 * @property {Translate} t
 * @property {(move: string) => void} onMove  a move built to its end, in the game's notation
 *   (Ouk Chatrang UCI `e3e4`; Khan `c2-a2`; Khan-Tsin `p12`, `K12`, `17:2-`); the board never
 *   sends anything itself
 * @property {() => void} [onCancel]  the player cancelled with nothing half-built (a click on no
 *   move's square, a click off the board, Escape): the page drops a premove set then
 */

/**
 * A board module (`boards/<game id>.js`).
 * @typedef {object} BoardModule
 * @property {(host: HTMLElement, options: BoardOptions) => Board} createBoard
 * @property {Record<string, Record<string, string>>} strings  the board's own words by language
 *   (`{en: {'khan.board': 'Khan board'}, ko: {...}}`, keys prefixed with the game id)
 * @property {(position: string, color: Color) => LegalMoves} [premoves]  the moves `color` may set
 *   ahead while another seat is on move: each piece's reach drawn from its shape alone, as
 *   chessground's premove.ts does (a superset of what may be legal then; the page sends a
 *   premove only if the server's legal moves list it when the turn comes); a board without it
 *   offers no premove
 * @property {(parent: SVGElement, piece: {kind: string, color: Color}) => void} [drawPiece]
 *   draws a piece in a 100x100 box (Ouk Chatrang: the captured material in the players' bars)
 * @property {(t: Translate, move: string, display: string, color: string | null) => string} [moveWords]
 *   a move as the move list says it, for a game whose `display` is English words (games.js
 *   `movesInWords`): `move` the canonical move, `color` the name of the colour that played it
 *   (null when unknown)
 * @property {(position: string, move: string, legal: LegalMoves) => string} [describeMove]  a
 *   move of `legal` as the server's `moved.display` would write it, as far as the position and
 *   the legal moves tell (Ouk Chatrang's SAN, without the check marks only the rules know); a
 *   module without it writes moves as they are sent
 * @property {(t: Translate) => KeyItem[]} [rulesKey]  the rules page's key to the pictures
 *   (games.js `key`)
 */

export {};
