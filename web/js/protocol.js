// The wire contract of docs/protocol.md as types, for the type checker (tsc --checkJs, see
// tests/browser/tsconfig.json): the server's frames, the commands the client sends, and the REST
// answers the pages read. No code runs here; a module imports a type with
//
//   /** @typedef {import('./protocol.js').Moved} Moved */
//
// Field names and optionality follow docs/protocol.md, whose examples tests/protocol_doc.rs checks
// against the server's own types: a field the doc calls absent in some frames is optional here.

/**
 * A game's id as the server names it (`ouk-chatrang`, `khan`, `khan-tsin`); games.js lists the
 * games this client knows, so a fourth game needs no change here.
 * @typedef {string} GameId
 */
/** @typedef {'white' | 'black' | 'green' | 'blue'} Color */
/** @typedef {'waiting' | 'playing' | 'finished'} RoomStatus */
/** @typedef {'draw' | 'rematch' | 'takeback'} OfferKind */

/**
 * A seat as summaries and snapshots give it.
 * @typedef {object} Seat
 * @property {number} seat
 * @property {Color} color
 * @property {string | null} [name]
 * @property {boolean} taken
 * @property {boolean} [connected]
 * @property {boolean} [left]
 * @property {number} [bot]  the level (1 to 5) of a computer player holding the seat
 * @property {string} [user]  the username of the seat's account
 * @property {boolean} [deleted]  that account was deleted
 */

/**
 * Legal moves: a list of move strings, except in Khan, a tree of squares ("Legal moves in Khan").
 * @typedef {string[] | KhanTree} LegalMoves
 */
/** @typedef {{ [square: string]: KhanTree }} KhanTree */

/**
 * A clock as events carry it: each seat's remaining ms at the server's instant `at` (RFC 3339).
 * @typedef {object} ClockFrame
 * @property {number[]} remaining_ms
 * @property {number | null} running
 * @property {string} at
 * @property {number} [initial_s]    snapshots and game records only
 * @property {number} [increment_s]  snapshots and game records only
 */

/**
 * Per seat (by seat number as a string): Khan `{soldiers, khans}`, Ouk Chatrang `{captured}`
 * (lower-case FEN letters of the enemy pieces taken).
 * @typedef {{ [seat: string]: { soldiers?: number, khans?: number, captured?: string } }} Material
 */

/**
 * Ouk Chatrang's count while it runs (O-18..O-24).
 * @typedef {object} Counting
 * @property {'board' | 'piece'} kind
 * @property {number} count
 * @property {number} limit
 * @property {Color} escaping
 * @property {number} [started_ply]
 */

/** @typedef {{ winner: number | null, reason: string }} GameResult */

/**
 * An offer; a takeback's `plies` says how many plies it takes back.
 * @typedef {{ id: number, kind: OfferKind, by: number, accepted?: number[], plies?: number }} OfferFrame
 */

/**
 * @typedef {object} ChatMessage
 * @property {'players' | 'spectators'} channel
 * @property {number | null} [seat]
 * @property {string | null} [name]
 * @property {string} text
 * @property {string} [at]
 */

/** @typedef {{ seat: number, captured?: string[], position?: string, material?: Material, check?: number }} HistoryEntry */

/**
 * @typedef {object} RematchInfo
 * @property {string} room_id
 * @property {string} invite_code
 * @property {{ seat: number, new_seat: number, new_color: Color }[]} seats
 */

// ---- server frames (`{t, v?, d}`)

/** @typedef {{ room_id: string, seat: number | null, role: string, game: GameId, version: number }} Welcome */

/**
 * A seat's rating change in a rated game: whole points, `diff` = `after - before`.
 * @typedef {{ seat: number, before: number, after: number, diff: number }} RatingChange
 */

/**
 * @typedef {object} Snapshot
 * @property {string} room_id
 * @property {GameId} game
 * @property {RoomStatus} status
 * @property {boolean} [rated]
 * @property {Seat[]} seats
 * @property {string} start_position
 * @property {string} position
 * @property {number | null} to_move
 * @property {string[]} moves
 * @property {string[]} display_moves
 * @property {HistoryEntry[]} [history]
 * @property {Material} [material]
 * @property {number} [check]
 * @property {number | null} [created_by]
 * @property {number} [spectators]
 * @property {LegalMoves} [legal_moves]
 * @property {boolean} [legal_moves_complete]
 * @property {OfferFrame[]} offers
 * @property {boolean} [spectator_chat]
 * @property {Counting} [counting]
 * @property {GameResult} [result]
 * @property {RatingChange[]} [ratings]
 * @property {RematchInfo} [rematch]
 * @property {ChatMessage[]} [chat]
 * @property {ClockFrame} [clock]
 */

/** @typedef {{ seat: number, color: Color, name: string | null, bot?: number, same_player_as?: number, user?: string }} SeatTaken */
/** @typedef {{ seat: number, user: string, deleted?: boolean }} SeatAccount */

/**
 * @typedef {object} GameStarted
 * @property {string} position
 * @property {number | null} to_move
 * @property {LegalMoves} [legal_moves]
 * @property {boolean} [legal_moves_complete]
 * @property {ClockFrame} [clock]
 */

/**
 * @typedef {object} Moved
 * @property {number} seat
 * @property {string} move
 * @property {string} display
 * @property {string} position
 * @property {number | null} to_move
 * @property {string[]} [captured]
 * @property {Material} [material]
 * @property {number} [check]
 * @property {Counting} [counting]
 * @property {LegalMoves} [legal_moves]
 * @property {boolean} [legal_moves_complete]
 * @property {ClockFrame} [clock]
 */

/**
 * @typedef {object} Left
 * @property {number} seat
 * @property {'resignation' | 'timeout' | 'abandoned' | string} reason
 * @property {number | null} to_move
 * @property {string} position
 * @property {LegalMoves} [legal_moves]
 * @property {boolean} [legal_moves_complete]
 * @property {ClockFrame} [clock]
 */

/**
 * A takeback accepted: the last `plies` moves are gone (docs/protocol.md "Takeback").
 * @typedef {object} TakenBack
 * @property {number} plies
 * @property {string} position
 * @property {number | null} to_move
 * @property {Material} [material]
 * @property {number} [check]
 * @property {Counting} [counting]
 * @property {LegalMoves} [legal_moves]
 * @property {boolean} [legal_moves_complete]
 * @property {ClockFrame} [clock]
 */

/** @typedef {{ result: GameResult, clock?: ClockFrame, ratings?: RatingChange[] }} GameOver */
/** @typedef {{ id: number, by?: number | null }} OfferDeclined */
/** @typedef {{ id: number, by: number }} OfferAccepted */
/** @typedef {{ seat: number }} Skipped */
/** @typedef {{ enabled: boolean }} SpectatorChat */
/** @typedef {{ messages: ChatMessage[] }} ChatHistory */
/** @typedef {{ count: number }} Spectators */
/** @typedef {{ seat: number, connected: boolean, claimable_at?: string }} Presence */
/** @typedef {{ cid: string, v?: number }} Ack */
/** @typedef {{ cid: string | null, code: string, message: string, v?: number }} Reject */
/** @typedef {{ code: string, message: string }} HelloError */

/**
 * Every frame the server sends, by its `t`: the socket handlers are a map over these.
 * @typedef {object} ServerFrames
 * @property {Welcome} welcome
 * @property {Snapshot} snapshot
 * @property {SeatTaken} seat_taken
 * @property {SeatAccount} seat_account
 * @property {GameStarted} game_started
 * @property {Moved} moved
 * @property {OfferFrame} offer
 * @property {OfferDeclined} offer_declined
 * @property {OfferAccepted} offer_accepted
 * @property {RematchInfo} rematch
 * @property {SpectatorChat} spectator_chat
 * @property {Skipped} skipped
 * @property {Left} left
 * @property {TakenBack} taken_back
 * @property {GameOver} game_over
 * @property {ChatMessage} chat
 * @property {ChatHistory} chat_history
 * @property {Spectators} spectators
 * @property {Presence} presence
 * @property {{ seat: number, lag_ms: number }} lag
 * @property {Ack} ack
 * @property {Reject} reject
 * @property {HelloError} error
 * @property {{}} pong
 */

/**
 * A frame as it arrives: `t` names its type, `v` is the room's version for versioned events.
 * `d` is typed loosely here (the frame's own type, `ServerFrames[t]`, is what a handler takes).
 * @typedef {object} ServerFrame
 * @property {string} t
 * @property {number} [v]
 * @property {any} [d]
 */

// ---- REST answers

/** @typedef {{ room_id: string, invite_code: string, invite_url: string, seat: number, color: Color, seat_token: string }} CreatedRoom */
/** @typedef {{ room_id: string, seat: number, color: Color, seat_token: string }} JoinedRoom */

/**
 * `GET /api/rooms/{code}`.
 * @typedef {object} RoomSummary
 * @property {string} room_id
 * @property {GameId} game
 * @property {RoomStatus} status
 * @property {string} visibility
 * @property {boolean} rated
 * @property {Seat[]} seats
 * @property {number} version
 * @property {string} invite_code
 * @property {string} created_at
 */

/**
 * A room's time control: Fischer `{initial_s, increment_s}`, or correspondence
 * `{days_per_move}` (a snapshot's clock then has both, `initial_s` being those days in seconds).
 * @typedef {{ initial_s?: number, increment_s?: number, days_per_move?: number }} ClockSettings
 */

/**
 * A lobby entry (`GET /api/rooms`).
 * @typedef {object} LobbyRoom
 * @property {string} room_id
 * @property {string} invite_code
 * @property {string} invite_url
 * @property {GameId} game
 * @property {number} seats
 * @property {number} taken
 * @property {string} created_at
 * @property {string | null} [creator_name]
 * @property {ClockSettings | null} [clock]
 */

/** @typedef {{ seat: number, color: Color, name: string | null, left_after?: number | null, user?: string, deleted?: boolean }} RecordPlayer */

/**
 * A room of a seat this browser holds (`POST /api/my-games`).
 * @typedef {object} MyGame
 * @property {string} room_id
 * @property {string} invite_code
 * @property {GameId} game
 * @property {RoomStatus} status
 * @property {number} seat
 * @property {{ seat: number, name: string | null, user?: string, deleted?: boolean }[]} players
 * @property {number | null} to_move
 * @property {boolean} your_turn
 * @property {GameResult | null} result
 * @property {ClockSettings | null} clock
 * @property {string | null} deadline
 * @property {string} updated_at
 */

/**
 * A finished game in the list (`GET /api/games`).
 * @typedef {object} GameSummary
 * @property {string} room_id
 * @property {GameId} game
 * @property {RecordPlayer[]} players
 * @property {GameResult} result
 * @property {number} moves
 * @property {string} finished_at
 */

/**
 * A finished game's record (`GET /api/games/{room_id}`).
 * @typedef {object} GameRecord
 * @property {string} room_id
 * @property {GameId} game
 * @property {RecordPlayer[]} players
 * @property {GameResult} result
 * @property {string[]} moves
 * @property {string[]} display_moves
 * @property {string} start_position
 * @property {string} final_position
 * @property {string} [started_at]
 * @property {string} [finished_at]
 * @property {HistoryEntry[]} history
 * @property {ClockFrame & ClockSettings} [clock]
 * @property {Counting} [counting]
 * @property {{ ply: number, counting?: Counting }[]} [extra_history]
 * @property {ChatMessage[]} [chat]
 * @property {RatingChange[]} [ratings]
 */

/**
 * One rating of an account (its profile's `ratings`): Glicko-2's `rd` and `volatility`, or for
 * three-player Khan-Tsin Weng-Lin's `mu` and `sigma`.
 * @typedef {object} Rating
 * @property {number} rating
 * @property {number} games
 * @property {boolean} provisional
 * @property {number} [rd]
 * @property {number} [volatility]
 * @property {number} [mu]
 * @property {number} [sigma]
 */

/** @typedef {Record<string, Partial<Record<string, Rating>>>} Ratings  game key -> speed -> rating */

/** @typedef {Record<string, Partial<Record<string, { at: string, rating: number }[]>>>} RatingHistory */

/**
 * A leaderboard's player (`GET /api/leaderboard/{game}`).
 * @typedef {{ rank: number, name: string, rating: number, deviation: number, games: number, rated_at: string }} Leader
 */

/** @typedef {{ game: string, speeds: Partial<Record<string, Leader[]>> }} Leaderboard */

export {};
