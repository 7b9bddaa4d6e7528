//! A game in progress: the position, the positions seen (K-17), and how the game ended
//! (K-14..K-17), behind the [`Rules`] trait the server uses.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, DefaultHasher};

use serde_json::Value;

use super::board::{Color, Role, squares};
use super::listing::Listing;
use super::movegen::has_legal_move;
use super::moves;
use super::position::Position;
use crate::rules::{
    Applied, EndReason, Material, Outcome, Resigned, RuleError, RuleErrorCode, Rules, Seat,
    SeatMaterial, resign_two_player, seat_key,
};

/// Position counts, hashed with fixed keys: the rules module has no randomness, not even in a
/// hash map's seed.
type Seen = HashMap<Position, u32, BuildHasherDefault<DefaultHasher>>;

/// A game of Khan: seat 0 plays White (moves first, K-2), seat 1 Black. Implements [`Rules`]:
/// moves are square paths (`e2-e3`, `h7-i1`, `f3-h5-f7`), positions the Khan position text.
///
/// After every turn the game checks, in this order (K-17): a win by K-14 (a Soldier on its goal
/// row) or K-15 (the last enemy Soldier captured); then K-17 (the turn completed the third
/// occurrence of a position, board and side to move: the player who made it loses); then K-16
/// (the player now on move has no legal move: a draw). Repetition is automatic, so there is no
/// draw to claim.
#[derive(Clone, Debug)]
pub struct Game {
    position: Position,
    /// How often each position has occurred in this game, the start included (K-17).
    seen: Seen,
    /// Turns played in this game.
    ply: u32,
    outcome: Option<Outcome>,
}

impl Game {
    /// A game from the start position (K-3).
    pub fn new() -> Game {
        Game::from_position(Position::start())
    }

    /// A game from a position text (see [`Position::from_text`]). A position where a side has
    /// already won (K-14, K-15) or the side to move has no legal move (K-16) gives a game that is
    /// over. Errors: `BadPosition`, saying what is wrong with the text.
    pub fn from_text(text: &str) -> Result<Game, RuleError> {
        Ok(Game::from_position(Position::from_text(text)?))
    }

    /// A game from a position, which counts as its first occurrence (K-17).
    pub fn from_position(position: Position) -> Game {
        let mut game = Game {
            position,
            seen: Seen::from_iter([(position, 1)]),
            ply: 0,
            outcome: None,
        };
        game.outcome = match position.winner() {
            Some((color, reason)) => Some(Outcome::win(color.seat(), reason)),
            None if !has_legal_move(&position) => Some(Outcome::draw(EndReason::NoMoves)),
            None => None,
        };
        game
    }

    /// The current position.
    pub fn current(&self) -> &Position {
        &self.position
    }

    /// The number of turns played in this game.
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// How often the current position (board and side to move) has occurred in this game, this
    /// time included (K-17).
    pub fn repetitions(&self) -> u32 {
        self.seen.get(&self.position).copied().unwrap_or(0)
    }

    /// The legal moves as listed to the seat on move: all of them unless the position has more
    /// than [`MAX_LISTED`](super::MAX_LISTED) move strings (see [`Listing`]); nothing once the
    /// game is over.
    pub fn listing(&self) -> Listing {
        match self.outcome {
            Some(_) => Listing::default(),
            None => Listing::of(&self.position),
        }
    }

    /// How the game stands after `mover` completed a turn: K-14/K-15, then K-17, then K-16.
    fn judge(&self, mover: Color) -> Option<Outcome> {
        let pos = &self.position;
        if let Some((winner, reason)) = pos.winner() {
            return Some(Outcome::win(winner.seat(), reason));
        }
        if self.repetitions() >= 3 {
            return Some(Outcome::win((!mover).seat(), EndReason::Repetition));
        }
        if !has_legal_move(pos) {
            return Some(Outcome::draw(EndReason::NoMoves));
        }
        None
    }

    fn game_over() -> RuleError {
        RuleError::new(RuleErrorCode::GameOver, "the game is over")
    }
}

/// The squares that held a piece of `mover`'s enemy before the move and hold none after: only the
/// mover's pieces move, so these are exactly its captures (K-11's pushed-into enemy, K-13).
fn captured_squares(before: &Position, after: &Position, mover: Color) -> Vec<String> {
    let lost = before.board().by_color(!mover) & !after.board().by_color(!mover);
    squares(lost).map(|sq| sq.to_string()).collect()
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

    /// `white` for seat 0, `black` for seat 1 (K-2).
    fn color(&self, seat: Seat) -> &'static str {
        Color::from_seat(seat).as_str()
    }

    fn to_move(&self) -> Option<Seat> {
        match self.outcome {
            Some(_) => None,
            None => Some(self.position.side.seat()),
        }
    }

    fn in_play(&self) -> Vec<Seat> {
        vec![0, 1]
    }

    /// Every legal move string, sorted: Soldier moves as `from-to` (K-9), Khan steps and pushes
    /// as `from-to`, and every prefix of every jump chain (K-12). On a position with more than
    /// [`MAX_LISTED`](super::MAX_LISTED) move strings, jump chains only up to the landing count
    /// that fits (see [`Listing`]).
    fn legal_moves(&self) -> Vec<String> {
        self.listing().strings()
    }

    /// The move tree of `docs/protocol.md`, "Legal moves in Khan": `{from: {next: {...}}}`, every
    /// node a legal move end; flattened, exactly [`Rules::legal_moves`]. An empty object once the
    /// game is over.
    fn legal_moves_json(&self) -> Value {
        self.listing().tree()
    }

    /// False when the position has more than [`MAX_LISTED`](super::MAX_LISTED) move strings and
    /// jump chains are listed only up to some number of landings (`listing`).
    fn legal_moves_complete(&self) -> bool {
        self.listing().max_landings().is_none()
    }

    /// Plays a move given as its squares joined by `-`. A Soldier's whole support path is
    /// accepted and recorded as `from-to` (K-9); other moves are recorded as given.
    fn play(&mut self, mv: &str) -> Result<Applied, RuleError> {
        if self.outcome.is_some() {
            return Err(Game::game_over());
        }
        let mover = self.position.side;
        let played = moves::play(&self.position, mv)?;
        let captured = captured_squares(&self.position, &played.position, mover);
        self.position = played.position;
        self.ply = self.ply.saturating_add(1);
        *self.seen.entry(played.position).or_insert(0) += 1;
        self.outcome = self.judge(mover);
        Ok(Applied {
            display: played.notation.clone(),
            notation: played.notation,
            skipped: Vec::new(),
            captured,
            outcome: self.outcome,
        })
    }

    /// `{"soldiers", "khans"}` on the board for each seat.
    fn material(&self) -> Option<Material> {
        let board = self.position.board();
        let of = |color: Color| SeatMaterial::Pieces {
            soldiers: board.count(color, Role::Soldier),
            khans: board.count(color, Role::Khan),
        };
        Some(Material::from([
            (seat_key(Color::White.seat()), of(Color::White)),
            (seat_key(Color::Black.seat()), of(Color::Black)),
        ]))
    }

    fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    fn resign(&mut self, seat: Seat) -> Result<Resigned, RuleError> {
        resign_two_player(&mut self.outcome, seat)
    }

    /// Always refused: in Khan a third repetition ends the game by itself (K-17), and there is no
    /// other draw to claim.
    fn claim_draw(&mut self, _by: Seat, reason: EndReason) -> Result<Outcome, RuleError> {
        if self.outcome.is_some() {
            return Err(Game::game_over());
        }
        Err(RuleError::new(
            RuleErrorCode::CannotClaim,
            format!(
                "Khan has no draw to claim ({reason}): a third repetition ends the game by itself, and the player who makes it loses (K-17)"
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    //! The order of the end tests after a turn (K-17: K-14/K-15, then K-17, then K-16). In play
    //! the rules never meet head-on (a won position or one without moves ends the game the first
    //! time it occurs), so these tests pretend the position reached has been seen twice before.

    use super::*;

    fn with_history(text: &str, mv: &str) -> Game {
        let mut game = Game::from_text(text).unwrap();
        let after = moves::play(&game.position, mv).unwrap().position;
        game.seen.insert(after, 2);
        game
    }

    #[test]
    fn a_custodian_capture_names_the_emptied_square_and_the_material_drops() {
        // c2-c3 lands beside d3, with White's Khan e3 beyond it (K-13).
        let mut game = Game::from_text("10/s9/9k/10/10/10/10/3sK5/2K7/S9 w").unwrap();
        let black = |soldiers| SeatMaterial::Pieces { soldiers, khans: 1 };
        assert_eq!(game.material().unwrap()["1"], black(2));
        let applied = game.play("c2-c3").unwrap();
        assert_eq!(applied.captured, ["d3"]);
        assert_eq!(
            game.material(),
            Some(Material::from([
                (
                    "0".into(),
                    SeatMaterial::Pieces {
                        soldiers: 1,
                        khans: 2
                    }
                ),
                ("1".into(), black(1)),
            ]))
        );
        assert!(game.play("j8-j7").unwrap().captured.is_empty());
    }

    #[test]
    fn a_push_into_an_enemy_names_its_square() {
        // a1-a2 pushes the Soldier a2 onto a3, taking Black's Soldier there (K-11).
        let mut game = Game::from_text("10/10/9k/s9/10/10/10/s9/S9/K9 w").unwrap();
        assert_eq!(game.play("a1-a2").unwrap().captured, ["a3"]);
        assert_eq!(game.check(), None);
    }

    #[test]
    fn a_win_is_judged_before_a_third_repetition() {
        let mut game = with_history("s9/5S4/10/10/10/10/10/10/10/10 w", "f9-f10");
        let applied = game.play("f9-f10").unwrap();
        assert_eq!(applied.outcome, Some(Outcome::win(0, EndReason::GoalRow)));
    }

    #[test]
    fn a_third_repetition_is_judged_before_no_legal_move() {
        // Black's c1-b1 leaves White's only piece, a1, without a move (K-16).
        let mut game = with_history("10/10/10/10/10/10/10/10/ss8/S1k7 b", "c1-b1");
        let applied = game.play("c1-b1").unwrap();
        assert_eq!(
            applied.outcome,
            Some(Outcome::win(0, EndReason::Repetition))
        );
        let mut fresh = Game::from_text("10/10/10/10/10/10/10/10/ss8/S1k7 b").unwrap();
        let applied = fresh.play("c1-b1").unwrap();
        assert_eq!(applied.outcome, Some(Outcome::draw(EndReason::NoMoves)));
    }
}
