//! A game in progress: the position plus the history the rules need — the count (O-18..O-24),
//! the positions seen (O-16) — and how the game ended (O-15, O-17, O-20, O-22).

use super::board::{Bitboard, Color, Role};
use super::counting::{self, Count, CountStep, Counting};
use super::material;
use super::moves::Move;
use super::position::{Position, Rights};
use super::san;
use crate::rules::{
    Applied, EndReason, Extra, Material, Outcome, Resigned, RuleError, RuleErrorCode, Rules, Seat,
    SeatMaterial, resign_two_player, seat_key,
};

/// What makes two positions "the same" for repetition (O-16, **Decision**): the board, the side
/// to move and the special first-move rights; not the clocks or the count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RepetitionKey {
    by_color: [Bitboard; 2],
    by_role: [Bitboard; 6],
    side: Color,
    rights: Rights,
}

impl RepetitionKey {
    fn of(pos: &Position) -> RepetitionKey {
        let (by_color, by_role) = pos.board.bitboards();
        RepetitionKey {
            by_color,
            by_role,
            side: pos.side,
            rights: pos.rights,
        }
    }
}

/// A game of Ouk Chatrang: seat 0 plays White, seat 1 Black. Implements [`Rules`]: moves are UCI,
/// positions Fairy-Stockfish `cambodian` FEN, display notation SAN.
///
/// After every ply the game applies the counting rules (O-21) and checks, in this order:
/// checkmate (O-15; it wins even while counting, O-22), stalemate (draw), insufficient material
/// (O-17, automatic draw), an exhausted count (O-20, draw). Threefold repetition (O-16) is never
/// automatic: the player to move may claim it with [`Rules::claim_draw`].
#[derive(Clone, Debug)]
pub struct Game {
    position: Position,
    count: Option<Count>,
    /// Moves played in this game.
    ply: u32,
    /// One key per position of this game, the start included.
    seen: Vec<RepetitionKey>,
    /// Per side (by seat), how many enemy pieces of each role (by [`Role::index`]) it captured.
    taken: [[u8; 6]; 2],
    outcome: Option<Outcome>,
}

/// The order captured pieces are listed in (see [`SeatMaterial::Captured`]): most valuable first.
const CAPTURE_ORDER: [Role; 5] = [
    Role::Rook,
    Role::Knight,
    Role::Khon,
    Role::Neang,
    Role::Pawn,
];

impl Game {
    /// A game from the start position (O-3).
    pub fn new() -> Game {
        Game::from_position(Position::start())
    }

    /// A game from a FEN (see [`Position::from_fen`]).
    ///
    /// A count in the FEN's fields 4–5 goes on; its escaping side and kind are read off the
    /// position (see [`Game::counting`]) and its `started_ply` is 0. Since a FEN does not say
    /// where a board's honour began, such a count is not kept over a new piece's honour by
    /// O-21(e) (as in Fairy-Stockfish without its `countStarted` hint); counts that start during
    /// the game are. When the FEN shows no count
    /// but the side to move qualifies for one (O-21 a), the count starts here, at ply 0, so the
    /// written FEN then shows it. A position that is already over (mate, stalemate, insufficient
    /// material, exhausted count) gives a game that is over.
    ///
    /// Errors: `BadPosition` when the FEN cannot be read or describes an impossible position.
    pub fn from_fen(fen: &str) -> Result<Game, RuleError> {
        Ok(Game::from_position(Position::from_fen(fen)?))
    }

    fn from_position(position: Position) -> Game {
        let count = match position.counting {
            Some(fields) => Some(Count::from_fen_fields(&position, fields)),
            None => counting::start(&position, 0),
        };
        let position = position.with_counting(count.map(|c| c.fields()));
        let mut game = Game {
            position,
            count,
            ply: 0,
            seen: vec![RepetitionKey::of(&position)],
            taken: [[0; 6]; 2],
            outcome: None,
        };
        game.outcome = game.judge();
        game
    }

    /// The current position.
    pub fn current(&self) -> &Position {
        &self.position
    }

    /// The number of moves played in this game (its ply).
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// The counting state (O-24), `Some` while a count runs (also after a game that ended while
    /// counting). For a count read from a FEN the escaping side is the side to move when the
    /// counting ply is even, the kind is piece's honour when that side has only its King and no
    /// pawn is left (else board's honour), and `started_ply` is 0.
    pub fn counting(&self) -> Option<Counting> {
        self.count.map(|c| c.public())
    }

    /// The running count as an engine steps it (see [`CountStep`]), `None` when no count runs.
    pub fn count_step(&self) -> Option<CountStep> {
        self.count.map(CountStep)
    }

    /// How often the current position (board, side to move, rights) has occurred in this game,
    /// this time included (O-16).
    pub fn repetitions(&self) -> usize {
        let now = RepetitionKey::of(&self.position);
        self.seen.iter().filter(|&&key| key == now).count()
    }

    /// How the game stands after a ply: mate or stalemate first, then O-17, then O-20.
    fn judge(&self) -> Option<Outcome> {
        let pos = &self.position;
        if !pos.has_legal_move() {
            return Some(if pos.is_check() {
                Outcome::win((!pos.side).seat(), EndReason::Checkmate)
            } else {
                Outcome::draw(EndReason::Stalemate)
            });
        }
        if material::is_insufficient(&pos.board) {
            return Some(Outcome::draw(EndReason::InsufficientMaterial));
        }
        if self.count.is_some_and(|c| c.is_exhausted()) {
            return Some(Outcome::draw(EndReason::Counting));
        }
        None
    }

    fn game_over(&self) -> RuleError {
        RuleError::new(RuleErrorCode::GameOver, "the game is over")
    }

    fn apply(&mut self, mv: Move, legal: &[Move]) -> Applied {
        let display = san::san(&self.position, mv, legal);
        let before = self.position;
        let victim = before
            .board
            .piece_at(mv.to())
            .filter(|piece| piece.color != before.side);
        if let Some(victim) = victim {
            let tally = &mut self.taken[usize::from(before.side.seat())][victim.role.index()];
            *tally = tally.saturating_add(1);
        }
        let after = before.play_unchecked(mv);
        self.ply = self.ply.saturating_add(1);
        self.count = counting::after_ply(self.count, &before, mv, &after, self.ply);
        self.position = after.with_counting(self.count.map(|c| c.fields()));
        self.seen.push(RepetitionKey::of(&self.position));
        self.outcome = self.judge();
        Applied {
            skipped: Vec::new(),
            captured: victim.map(|_| mv.to().to_string()).into_iter().collect(),
            notation: mv.to_string(),
            display,
            outcome: self.outcome,
        }
    }
}

impl Default for Game {
    fn default() -> Self {
        Game::new()
    }
}

impl Rules for Game {
    fn position(&self) -> String {
        self.position.to_string()
    }

    fn players(&self) -> u8 {
        2
    }

    /// `white` for seat 0, `black` for seat 1.
    fn color(&self, seat: Seat) -> &'static str {
        Color::from_seat(seat).as_str()
    }

    fn in_play(&self) -> Vec<Seat> {
        vec![0, 1]
    }

    fn to_move(&self) -> Option<Seat> {
        match self.outcome {
            Some(_) => None,
            None => Some(self.position.side.seat()),
        }
    }

    fn legal_moves(&self) -> Vec<String> {
        match self.outcome {
            Some(_) => Vec::new(),
            None => self.position.legal_uci(),
        }
    }

    /// `{"counting": {...}}` (see [`Counting`]) while a count runs; empty otherwise.
    fn extra(&self) -> Extra {
        self.counting()
            .and_then(|c| serde_json::to_value(c).ok())
            .map(|c| Extra::with(counting::COUNTING_KEY, c))
            .unwrap_or_default()
    }

    /// `{"captured": letters}` for each seat: the enemy pieces it took in this game.
    fn material(&self) -> Option<Material> {
        let letters = |tally: &[u8; 6]| -> String {
            CAPTURE_ORDER
                .iter()
                .flat_map(|role| std::iter::repeat_n(role.char(), usize::from(tally[role.index()])))
                .collect()
        };
        Some(Material::from_iter([0, 1].map(|seat: Seat| {
            let captured = letters(&self.taken[usize::from(seat)]);
            (seat_key(seat), SeatMaterial::Captured { captured })
        })))
    }

    /// The side to move when its King is attacked (O-15), mated or not.
    fn check(&self) -> Option<Seat> {
        self.position.is_check().then(|| self.position.side.seat())
    }

    /// Plays a UCI move. A promotion may be written without its `m` (promotion is forced, O-10):
    /// `g5g6` plays `g5g6m`, and `notation` gives the canonical `g5g6m`.
    fn play(&mut self, mv: &str) -> Result<Applied, RuleError> {
        if self.outcome.is_some() {
            return Err(self.game_over());
        }
        let legal = self.position.legal_moves();
        let chosen = self.position.resolve_uci(mv, &legal)?;
        Ok(self.apply(chosen, &legal))
    }

    fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    fn resign(&mut self, seat: Seat) -> Result<Resigned, RuleError> {
        resign_two_player(&mut self.outcome, seat)
    }

    /// Whether `seat` has mating material by O-17's definition (the rules file defines when a side
    /// "can ever checkmate" for its automatic draw; the same test decides a flag: a side that could
    /// not mate does not win on time, the game is drawn).
    fn can_win_on_time(&self, seat: Seat) -> bool {
        super::material::can_mate(&self.position.board, Color::from_seat(seat))
    }

    fn claim_draw(&mut self, by: Seat, reason: EndReason) -> Result<Outcome, RuleError> {
        if self.outcome.is_some() {
            return Err(self.game_over());
        }
        let cannot = |why: String| Err(RuleError::new(RuleErrorCode::CannotClaim, why));
        if reason != EndReason::Repetition {
            return cannot(format!(
                "in Ouk Chatrang only a threefold repetition can be claimed (O-16), not {reason}"
            ));
        }
        let side = self.position.side;
        if by != side.seat() {
            return cannot(format!(
                "only the player to move ({side}) may claim a repetition"
            ));
        }
        let times = self.repetitions();
        if times < 3 {
            return cannot(format!(
                "this position has occurred {times} time{}; a claim needs 3 (O-16)",
                if times == 1 { "" } else { "s" }
            ));
        }
        let outcome = Outcome::draw(EndReason::Repetition);
        self.outcome = Some(outcome);
        Ok(outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn captured(game: &Game, seat: Seat) -> String {
        match &game.material().unwrap()[&seat_key(seat)] {
            SeatMaterial::Captured { captured } => captured.clone(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_capture_names_its_square_and_the_takers_material_lists_the_piece() {
        let mut game = Game::new();
        assert!(game.play("e3e4").unwrap().captured.is_empty());
        game.play("d6d5").unwrap();
        assert_eq!(game.play("e4d5").unwrap().captured, ["d5"]);
        assert_eq!(
            (captured(&game, 0), captured(&game, 1)),
            ("p".into(), "".into())
        );
    }

    #[test]
    fn captured_pieces_are_listed_most_valuable_first() {
        let mut game = Game::from_fen("r3k3/8/p7/8/8/8/8/R2K4 w - - 0 1").unwrap();
        for mv in ["a1a6", "e8e7", "a6a8"] {
            game.play(mv).unwrap();
        }
        assert_eq!(captured(&game, 0), "rp");
    }

    #[test]
    fn check_names_the_seat_whose_king_is_attacked() {
        let mut game = Game::from_fen("4k3/8/8/8/8/8/8/R2K4 w - - 0 1").unwrap();
        assert_eq!(game.check(), None);
        game.play("a1a8").unwrap();
        assert_eq!(game.check(), Some(1));
        game.play("e8e7").unwrap();
        assert_eq!(game.check(), None);
    }
}
