// The catalogue of the games this client knows: the one place a game is described. Every page
// (home, room, rules, finished game) reads a game's facts here and none asks "is this Khan-Tsin?"
// by its id, so a fourth game is one board module (boards/<id>.js, see boards/board.js), one
// entry below and its strings (`game.<id>`, `game.<id>.blurb`, `rules.<id>.*` in lang/*.js).

/** @typedef {import('./protocol.js').GameId} GameId */
/** @typedef {import('./protocol.js').Color} Color */
/** @typedef {import('./boards/board.js').BoardModule} BoardModule */

/**
 * @typedef {object} GameInfo
 * @property {GameId} id  the server's game id (`POST /api/rooms` `game`), also the board module's
 *   name (`boards/<id>.js`) and the prefix of its strings (`game.<id>`)
 * @property {Color[] | null} colors  the seats' colours in seat order for a fixed line-up; null:
 *   chosen per room among `palette`
 * @property {Color[]} palette  every colour a room of this game may be played with, lightest
 *   (seat 0) first
 * @property {Record<string, Color> | null} colorLetters  for colours chosen per room: the letters
 *   by which a start position's third field names the colours played (Khan-Tsin `wgb`)
 * @property {number[]} players  how many players a room may have (the home page's `#players`)
 * @property {boolean} layout  rooms take a track layout (`options.layout`, the home page's `#layout`)
 * @property {boolean} ownColorNames  the colours are named as this game's own (`color.<id>.<color>`:
 *   Khan-Tsin's pawns are green and blue), not as the sides White and Black (`color.<color>`)
 * @property {boolean} pairs  the move list is two columns, one row per move number (two players)
 * @property {boolean} movesInWords  the server's `display` is English notation that the move
 *   list says in words in the page's language, with the colour that played (room/view/moves.js)
 * @property {boolean} sanChecks  the display marks a checking move with `+` and a mate with `#`
 *   (SAN): the page marks the King of an earlier position from it
 * @property {boolean} notationKey  the room page shows a key to the move list's letters
 *   (`#notation-key`, `notation.<id>`)
 * @property {'pieces-left' | 'captured' | null} material  what `material` says per seat: Khan
 *   the Soldiers and Khans left (`{soldiers, khans}`), Ouk Chatrang the enemy pieces taken
 *   (`{captured: "rnp"}`, drawn small with the board's `drawPiece`)
 * @property {Record<string, number> | null} pieceValues  the points of each captured piece
 *   letter, for the material difference (+N) beside the captured pieces
 * @property {boolean} pgn  finished games also download as PGN (`api/games/{room_id}/pgn`)
 * @property {boolean} repetitionClaim  the seat on move may claim a draw by threefold repetition
 * @property {string[]} rulesSections  the rules page's sections, in order (`rules.<id>.<section>.*`)
 * @property {boolean} key  the rules page shows a key to the pictures (the board module's `rulesKey`)
 */

/** @type {GameInfo[]} */
export const GAMES = [
  {
    id: 'ouk-chatrang',
    colors: ['white', 'black'],
    palette: ['white', 'black'],
    colorLetters: null,
    players: [2],
    layout: false,
    ownColorNames: false,
    pairs: true,
    movesInWords: false,
    sanChecks: true,
    notationKey: true,
    material: 'captured',
    // Makruk players' usual count: Touk (boat) 5, Ses (horse) 3, Khon 2.5 and Neang 1.5 rounded to
    // whole points (3 and 2), Trey 1; the King is never taken.
    pieceValues: { r: 5, n: 3, s: 3, m: 2, p: 1 },
    pgn: true,
    repetitionClaim: true,
    rulesSections: ['board', 'moves', 'first', 'end', 'counting'],
    key: true,
  },
  {
    id: 'khan',
    colors: ['white', 'black'],
    palette: ['white', 'black'],
    colorLetters: null,
    players: [2],
    layout: false,
    ownColorNames: false,
    pairs: true,
    movesInWords: false,
    sanChecks: false,
    notationKey: false,
    material: 'pieces-left',
    pieceValues: null,
    pgn: false,
    repetitionClaim: false,
    rulesSections: ['board', 'soldiers', 'khans', 'capture', 'end'],
    key: false,
  },
  {
    id: 'khan-tsin',
    colors: null,
    palette: ['white', 'green', 'blue'],
    colorLetters: { w: 'white', g: 'green', b: 'blue' },
    players: [2, 3],
    layout: true,
    ownColorNames: true,
    pairs: false,
    movesInWords: true,
    sanChecks: false,
    notationKey: false,
    material: null,
    pieceValues: null,
    pgn: false,
    repetitionClaim: false,
    rulesSections: ['track', 'placement', 'moves', 'end'],
    key: true,
  },
];

/**
 * The entry of game `id`, or null for a game this client does not know.
 * @param {string | null | undefined} id
 * @returns {GameInfo | null}
 */
export function gameInfo(id) {
  return GAMES.find((game) => game.id === id) ?? null;
}

/**
 * The board module of game `id` (its `createBoard`, `strings` and helpers), loaded once.
 * @param {string} id
 * @returns {Promise<BoardModule>}
 */
export function loadBoardModule(id) {
  if (!gameInfo(id)) return Promise.reject(new Error(`unknown game ${id}`));
  return import(`./boards/${id}.js`);
}

