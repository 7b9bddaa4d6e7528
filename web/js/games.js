// The catalogue of the games this client knows: every page (home, room, rules, finished game)
// reads a game's facts here, so a fourth game is one board module plus one entry.
//
//   id             the server's game id (`POST /api/rooms` `game`), also the board module's name
//                  (`boards/<id>.js`) and the prefix of its strings (`game.<id>`)
//   colors         the seats' colours in seat order for a fixed line-up (null: chosen per room,
//                  Khan-Tsin's 2 or 3 of white, green and blue)
//   pairs          the move list is two columns, one row per move number (two players)
//   pgn            finished games also download as PGN (`api/games/{room_id}/pgn`)
//   repetitionClaim  the seat on move may claim a draw by threefold repetition
//   rulesSections  the rules page's sections, in order (`rules.<id>.<section>.*` strings)
//   key            the rules page shows a key to the pictures drawn by the board module

export const GAMES = [
  {
    id: 'ouk-chatrang',
    colors: ['white', 'black'],
    pairs: true,
    pgn: true,
    repetitionClaim: true,
    rulesSections: ['board', 'moves', 'first', 'end', 'counting'],
    key: true,
  },
  {
    id: 'khan',
    colors: ['white', 'black'],
    pairs: true,
    pgn: false,
    repetitionClaim: false,
    rulesSections: ['board', 'soldiers', 'khans', 'capture', 'end'],
    key: false,
  },
  {
    id: 'khan-tsin',
    colors: null,
    pairs: false,
    pgn: false,
    repetitionClaim: false,
    rulesSections: ['track', 'placement', 'moves', 'end'],
    key: true,
  },
];

// The entry of game `id`, or null for a game this client does not know.
export function gameInfo(id) {
  return GAMES.find((game) => game.id === id) ?? null;
}

// The board module of game `id` (its `createBoard`, `strings` and helpers), loaded once.
export function loadBoardModule(id) {
  if (!gameInfo(id)) return Promise.reject(new Error(`unknown game ${id}`));
  return import(`./boards/${id}.js`);
}
