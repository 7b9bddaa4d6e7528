//! Perft: the number of move sequences of a given length, the test of the move generator, counted
//! as the rules file's vectors count them.
//!
//! Children are distinct canonical move strings (one move per destination, T-9). A player with
//! no legal move has the single child `pass` (T-12), so a skip is a ply here, as in the CLI's
//! move list. A position where nobody can move (T-14) or reached by a winning move (T-13) has no
//! children. Repetition (T-15) needs a game's history and is not applied inside the count, as
//! chess perft ignores repetition; a game already over has no children at all.

use super::game::Game;
use super::notation::Move;
use super::position::Position;

/// The number of move sequences of `depth` plies from the game's current position (1 for
/// depth 0); 0 for a positive depth once the game is over.
pub fn perft(game: &Game, depth: u32) -> u64 {
    if crate::rules::Rules::outcome(game).is_some() {
        return u64::from(depth == 0);
    }
    walk(game.current(), depth, &mut Vec::new())
}

/// Perft split by first move: each legal move (canonical, as [`Rules::legal_moves`] lists them,
/// `pass` included) with the number of sequences it starts, sorted by move text. `depth` counts
/// the first move.
///
/// [`Rules::legal_moves`]: crate::rules::Rules::legal_moves
pub fn perft_divide(game: &Game, depth: u32) -> Vec<(String, u64)> {
    if crate::rules::Rules::outcome(game).is_some() || depth == 0 {
        return Vec::new();
    }
    let pos = game.current();
    let mut moves = pos.legal_moves();
    if moves.is_empty() {
        moves.push(Move::Pass);
    }
    let mut buffer = Vec::new();
    let mut rows: Vec<(String, u64)> = moves
        .into_iter()
        .map(|mv| {
            let played = pos.play_unchecked(mv);
            let nodes = if played.won {
                u64::from(depth == 1)
            } else {
                walk(&played.position, depth - 1, &mut buffer)
            };
            (mv.to_string(), nodes)
        })
        .collect();
    rows.sort_unstable();
    rows
}

/// Counts from `pos`, with one move buffer for the whole walk: each level appends its moves and
/// truncates them again.
fn walk(pos: &Position, depth: u32, buffer: &mut Vec<Move>) -> u64 {
    if depth == 0 {
        return 1;
    }
    let start = buffer.len();
    pos.moves_of(pos.side_to_move(), buffer);
    let end = buffer.len();
    if start == end {
        // T-14: nobody can move, the game is over; T-12: otherwise the one child is `pass`.
        if !pos.anyone_can_move() {
            return 0;
        }
        return walk(&pos.play_unchecked(Move::Pass).position, depth - 1, buffer);
    }
    let mut nodes = 0;
    if depth == 1 {
        nodes = (end - start) as u64;
    } else {
        for i in start..end {
            let played = pos.play_unchecked(buffer[i]);
            // A winning move ends the game (T-13): its position has no children.
            if !played.won {
                nodes += walk(&played.position, depth - 1, buffer);
            }
        }
    }
    buffer.truncate(start);
    nodes
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rules file's perft vectors, depths 1–3.
    const THREE: &str = "w/w/w/g/g/w/w/b/g/g/g/w/w/B/w/b/b/b/g/W/g/b/G/b/g/w/g/w/b/b/b/g/g/b/w/b \
                         231231231231231231231231231231231231 wgb w";
    const TWO: &str = "g/b/b/w/b/b/w/G/b/w/w/g/g/w/w/b/b/b/w/W/w/b/b/g/b/g/g/g/w/g/g/g/w/b/g/w \
                       231231231231231231231231231231231231 wg w";

    fn check_row(game: &Game, expected: &[u64]) {
        for (depth, &nodes) in (1..).zip(expected) {
            assert_eq!(perft(game, depth), nodes, "depth {depth}");
            let divided: u64 = perft_divide(game, depth).iter().map(|(_, n)| n).sum();
            assert_eq!(divided, nodes, "divide, depth {depth}");
        }
    }

    #[test]
    fn perft_three_players_after_random_placements() {
        check_row(&Game::from_text(THREE).unwrap(), &[21, 409, 7389]);
    }

    #[test]
    fn perft_two_players_after_random_placements() {
        check_row(&Game::from_text(TWO).unwrap(), &[21, 490, 10725]);
    }

    #[test]
    fn perft_empty_three_player_board_in_the_placement_phase() {
        let game = Game::from_options(&crate::rules::GameOptions {
            players: Some(3),
            ..Default::default()
        })
        .unwrap();
        check_row(&game, &[24, 528, 10560]);
    }

    #[test]
    fn perft_depth_zero_is_one_and_divide_is_sorted() {
        let game = Game::from_text(TWO).unwrap();
        assert_eq!(perft(&game, 0), 1);
        let rows = perft_divide(&game, 2);
        assert_eq!(rows.len(), 21);
        assert!(rows.windows(2).all(|w| w[0].0 < w[1].0));
    }
}
