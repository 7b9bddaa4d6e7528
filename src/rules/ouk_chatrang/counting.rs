//! Counting (O-18..O-24): the escaping side's count towards a draw, started and restarted
//! automatically after every ply.
//!
//! The numbers are kept as Fairy-Stockfish keeps and writes them (FEN fields 4–5): the counting
//! ply rises by one with every ply while a count runs, and the limit is in plies, `2L − 2`. A
//! count is drawn when the counting ply exceeds the limit (O-20), which is exactly "c ≥ L" for the
//! count c = ⌊(counting ply + 1) / 2⌋ shown to players (O-23):
//!
//! - board's honour starts with the escaping side to move at counting ply 0, so its first move
//!   makes the count 1 (O-18);
//! - piece's honour starts at counting ply 2N with the escaping side to move (count N, so its first
//!   move is N + 1), or at 2N − 1 right after a bare King took the last pawn (count N, "counting
//!   that capture move", O-21 c) (O-19).
//!
//! So the escaping side is to move exactly when the counting ply is even.

use serde::{Deserialize, Serialize};

use super::board::{Board, Color, Role};
use super::moves::Move;
use super::position::{CountingFields, Position};

/// Which count runs (O-18, O-19). On the wire `"board"` / `"piece"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CountingKind {
    /// Board's honour (O-18): the escaping side has at most 3 pieces; L = 64.
    Board,
    /// Piece's honour (O-19): the escaping side has only its King and no pawn is left; L by the
    /// chasing side's material.
    Piece,
}

/// The key of Ouk Chatrang's [`Extra`](crate::rules::Extra): the [`Counting`] while a count runs.
pub const COUNTING_KEY: &str = "counting";

/// The counting state while a count runs, as the protocol sends it (O-24):
/// `{"kind": "board"|"piece", "count", "limit", "escaping": "white"|"black", "started_ply"}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Counting {
    /// Board's or piece's honour.
    pub kind: CountingKind,
    /// The count shown to players (O-23): ⌊(counting ply + 1) / 2⌋, the escaping side's moves so
    /// far (a piece's honour count starts at N).
    pub count: u32,
    /// The limit L, in the escaping side's moves: the game is drawn when `count` reaches it (O-20).
    pub limit: u32,
    /// The side counted for, which must survive until the limit.
    pub escaping: Color,
    /// The game ply (moves played in this `Game`) after which this count started; 0 for a count
    /// the game was loaded with, or that started in its first position.
    pub started_ply: u32,
}

/// L for board's honour (O-18).
const BOARD_HONOUR_LIMIT: u32 = 64;

/// The running count with what the rules need to restart it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Count {
    pub(crate) kind: CountingKind,
    pub(crate) escaping: Color,
    /// FEN field 4: the limit in plies, `2L − 2`.
    pub(crate) limit_plies: u32,
    /// FEN field 5: the counting ply.
    pub(crate) ply: u32,
    pub(crate) started_ply: u32,
    /// False for a count read from a FEN. A FEN writes the same two numbers for both kinds of
    /// count and not where a board's honour began, so, as Fairy-Stockfish does without its
    /// `countStarted` hint, such a count is never kept over a piece's honour by O-21(e).
    pub(crate) started_in_game: bool,
}

impl Count {
    fn new(kind: CountingKind, escaping: Color, limit: u32, ply: u32, started_ply: u32) -> Count {
        Count {
            kind,
            escaping,
            limit_plies: 2 * limit - 2,
            ply,
            started_ply,
            started_in_game: true,
        }
    }

    /// The count a FEN's counting fields describe. The escaping side is the side to move when the
    /// counting ply is even (see the module documentation); the kind is piece's honour when that
    /// side has only its King and no pawn is left, else board's honour.
    pub(crate) fn from_fen_fields(pos: &Position, fields: CountingFields) -> Count {
        let escaping = if fields.ply.is_multiple_of(2) {
            pos.side
        } else {
            !pos.side
        };
        let board = &pos.board;
        let kind = if board.count(escaping) == 1 && board.by_role(Role::Pawn) == 0 {
            CountingKind::Piece
        } else {
            CountingKind::Board
        };
        Count {
            kind,
            escaping,
            limit_plies: fields.limit,
            ply: fields.ply,
            started_ply: 0,
            started_in_game: false,
        }
    }

    /// The FEN fields 4–5.
    pub(crate) fn fields(&self) -> CountingFields {
        CountingFields {
            limit: self.limit_plies,
            ply: self.ply,
        }
    }

    /// The count shown to players (O-23).
    pub(crate) fn shown(&self) -> u32 {
        self.ply.saturating_add(1) / 2
    }

    /// L, in the escaping side's moves.
    pub(crate) fn limit(&self) -> u32 {
        self.limit_plies.saturating_add(2) / 2
    }

    /// O-20: the count has reached its limit (the caller checks that it is not checkmate).
    pub(crate) fn is_exhausted(&self) -> bool {
        self.ply > self.limit_plies
    }

    /// The escaping side's moves left before the draw.
    fn moves_left(&self) -> i64 {
        i64::from(self.limit()) - i64::from(self.shown())
    }

    pub(crate) fn public(&self) -> Counting {
        Counting {
            kind: self.kind,
            count: self.shown(),
            limit: self.limit(),
            escaping: self.escaping,
            started_ply: self.started_ply,
        }
    }
}

/// A running count as an engine steps it along the moves it reads ahead: an opaque copy of the
/// game's count (see [`Game::count_step`](super::Game::count_step)) that [`CountStep::after`]
/// advances by the same rules (O-21) `Game` applies after each ply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CountStep(pub(super) Count);

impl CountStep {
    /// The count after `mv`, a legal move of `before`, is played (`after` is
    /// `before.play_unchecked(mv)`): O-21 (a)..(e), as `Game` does it.
    pub fn after(
        running: Option<CountStep>,
        before: &Position,
        mv: Move,
        after: &Position,
    ) -> Option<CountStep> {
        after_ply(running.map(|c| c.0), before, mv, after, 0).map(CountStep)
    }

    /// Whether the count has reached its limit (O-20): drawn unless the side to move is mated.
    pub fn is_exhausted(self) -> bool {
        self.0.is_exhausted()
    }

    /// The side counted for, which must survive until the limit.
    pub fn escaping(self) -> Color {
        self.0.escaping
    }

    /// The escaping side's moves left before the count reaches its limit (O-20, O-23).
    pub fn moves_left(self) -> i64 {
        self.0.moves_left()
    }

    /// The counting ply (FEN field 5): two steps with the same ply and limit behave alike.
    pub fn ply(self) -> u32 {
        self.0.ply
    }
}

/// L for piece's honour (O-19), set by the chasing side's material, first match.
pub(crate) fn piece_honour_limit(board: &Board, chasing: Color) -> u32 {
    let rooks = board.pieces(chasing, Role::Rook).count_ones();
    let khons = board.pieces(chasing, Role::Khon).count_ones();
    let knights = board.pieces(chasing, Role::Knight).count_ones();
    if rooks >= 2 {
        8
    } else if rooks == 1 {
        16
    } else if khons >= 2 {
        22
    } else if knights >= 2 {
        32
    } else if khons == 1 {
        44
    } else {
        64
    }
}

/// O-21(a): the count the side to move starts in `pos`, if it qualifies — at most 3 pieces with
/// its King against at least 2 (O-18): piece's honour when it has only its King and no pawn is
/// left (O-19), otherwise board's honour, pawns or not. `game_ply` is the ply of `pos`.
pub(crate) fn start(pos: &Position, game_ply: u32) -> Option<Count> {
    let board = &pos.board;
    let escaping = pos.side;
    let mine = board.count(escaping);
    if mine > 3 || board.count(!escaping) < 2 {
        return None;
    }
    Some(if mine == 1 && board.by_role(Role::Pawn) == 0 {
        piece_honour(board, escaping, 0, game_ply)
    } else {
        Count::new(
            CountingKind::Board,
            escaping,
            BOARD_HONOUR_LIMIT,
            0,
            game_ply,
        )
    })
}

/// A piece's honour for `escaping`: count N (all pieces, both Kings), less `behind` plies when
/// the count's first move has already been made (O-21 c).
fn piece_honour(board: &Board, escaping: Color, behind: u32, game_ply: u32) -> Count {
    let n = board.occupied().count_ones();
    let limit = piece_honour_limit(board, !escaping);
    Count::new(
        CountingKind::Piece,
        escaping,
        limit,
        2 * n - behind,
        game_ply,
    )
}

/// The count after the ply `mv`, played from `before` to `after`; `game_ply` is the number of
/// moves played once `mv` is (the ply of `after`).
pub(crate) fn after_ply(
    running: Option<Count>,
    before: &Position,
    mv: Move,
    after: &Position,
    game_ply: u32,
) -> Option<Count> {
    let mover = before.side;
    let to_move = after.side;
    let board = &after.board;
    let captured = before.board.piece_at(mv.to()).map(|p| p.role);
    let no_pawns = board.by_role(Role::Pawn) == 0;

    // O-21(d): a running count goes on, one ply further.
    let mut count = running.map(|c| Count {
        ply: c.ply.saturating_add(1),
        ..c
    });

    // O-21(c): a bare King took the last pawn, against at least 2 pieces.
    if captured == Some(Role::Pawn)
        && board.count(mover) == 1
        && no_pawns
        && board.count(to_move) >= 2
    {
        count = Some(replace(count, piece_honour(board, mover, 1, game_ply)));
    }

    match count {
        // O-21(a): no count yet, and the side to move qualifies.
        None => start(after, game_ply),
        // O-21(b): a capture or promotion left the side to move a bare King with no pawn left,
        // against at least 2 pieces. Once its piece's honour runs, its L stays (O-21 d).
        Some(c)
            if (captured.is_some() || mv.is_promotion())
                && board.count(to_move) == 1
                && no_pawns
                && board.count(mover) >= 2
                && !(c.kind == CountingKind::Piece && c.escaping == to_move) =>
        {
            Some(replace(count, piece_honour(board, to_move, 0, game_ply)))
        }
        Some(c) => Some(c),
    }
}

/// O-21(e): a piece's honour replaces the running count, unless that is the same side's board's
/// honour with strictly fewer escaping moves left (64 − c_board < L − N).
fn replace(running: Option<Count>, piece: Count) -> Count {
    match running {
        Some(board)
            if board.kind == CountingKind::Board
                && board.started_in_game
                && board.escaping == piece.escaping
                && board.moves_left() < piece.moves_left() =>
        {
            board
        }
        _ => piece,
    }
}
