//! Property tests: the parsers never panic, the fast generator agrees with a naive one on random
//! positions, and over random playouts every listed move plays and unlisted ones are refused.

use proptest::prelude::*;

use super::attacks;
use super::board::{Role, Square, squares};
use super::position::{king_leap_targets, neang_home, neang_leap_target};
use super::{Game, Move, Position};
use crate::rules::{RuleErrorCode, Rules};

/// Legal moves the slow way: every move a piece's pattern allows, kept when the mover's King is
/// not attacked after playing it (and the King leap only out of check).
fn naive_legal(pos: &Position) -> Vec<String> {
    let us = pos.side;
    let board = &pos.board;
    let occ = board.occupied();
    let ours = board.by_color(us);
    let theirs = board.by_color(!us);
    let mut moves = Vec::new();
    for from in squares(ours) {
        let Some(piece) = board.piece_at(from) else {
            continue;
        };
        let mut reach = match piece.role {
            Role::King => attacks::king(from),
            Role::Neang => attacks::neang(from),
            Role::Khon => attacks::khon(us, from),
            Role::Knight => attacks::knight(from),
            Role::Rook => attacks::rook(from, occ),
            Role::Pawn => {
                (attacks::pawn_push(us, from) & !occ) | (attacks::pawn_captures(us, from) & theirs)
            }
        } & !ours;
        if piece.role == Role::King && pos.rights.king_leap(us) && !pos.is_check() {
            reach |= king_leap_targets(us) & !occ;
        }
        if piece.role == Role::Neang && pos.rights.neang_leap(us) && from == neang_home(us) {
            reach |= neang_leap_target(us).bit() & !occ;
        }
        for to in squares(reach) {
            let promotion = piece.role == Role::Pawn && to.rank() == us.promotion_rank();
            let mv = Move::new(from, to, promotion);
            let after = pos.play_unchecked(mv);
            let king = after.board.king(us);
            if after.attackers(king, after.board.occupied(), !us) == 0 {
                moves.push(mv.to_string());
            }
        }
    }
    moves.sort();
    moves
}

/// A FEN from a random placement: two Kings, other pieces (pawns only where pawns may stand),
/// side to move and whichever rights the placement allows.
fn random_fen(kings: (u8, u8), others: &[(u8, usize)], black: bool, rights: u8) -> String {
    let mut cells = ['.'; 64];
    cells[usize::from(kings.0 & 63)] = 'K';
    if cells[usize::from(kings.1 & 63)] == '.' {
        cells[usize::from(kings.1 & 63)] = 'k';
    }
    for &(sq, kind) in others {
        let sq = usize::from(sq & 63);
        let c = ['P', 'N', 'S', 'M', 'R', 'p', 'n', 's', 'm', 'r'][kind % 10];
        let rank = sq / 8;
        let pawn_ok = match c {
            'P' => rank < 5,
            'p' => rank > 2,
            _ => true,
        };
        if cells[sq] == '.' && pawn_ok {
            cells[sq] = c;
        }
    }
    let mut fen = String::new();
    for rank in (0..8).rev() {
        let mut empty = 0;
        for file in 0..8 {
            match cells[rank * 8 + file] {
                '.' => empty += 1,
                c => {
                    if empty > 0 {
                        fen.push_str(&empty.to_string());
                        empty = 0;
                    }
                    fen.push(c);
                }
            }
        }
        if empty > 0 {
            fen.push_str(&empty.to_string());
        }
        if rank > 0 {
            fen.push('/');
        }
    }
    let mut letters = String::new();
    for (bit, letter, square, piece) in [
        (1, 'D', 3, 'K'),
        (2, 'E', 4, 'M'),
        (4, 'd', 59, 'm'),
        (8, 'e', 60, 'k'),
    ] {
        if rights & bit != 0 && cells[square] == piece {
            letters.push(letter);
        }
    }
    if letters.is_empty() {
        letters.push('-');
    }
    format!("{fen} {} {letters} - 0 1", if black { 'b' } else { 'w' })
}

proptest! {
    // About a third of random placements leave the side not to move in check, which no FEN may.
    #![proptest_config(ProptestConfig {
        max_global_rejects: 1 << 20,
        ..ProptestConfig::with_cases(256)
    })]

    #[test]
    fn random_text_never_panics_the_parsers(text in "\\PC{0,80}") {
        let _ = Position::from_fen(&text);
        let _ = Game::from_fen(&text);
        if let Err(err) = text.parse::<Move>() {
            prop_assert_eq!(err.code, RuleErrorCode::BadNotation);
        }
        let mut game = Game::new();
        match game.play(&text) {
            Ok(applied) => prop_assert!(Game::new().legal_moves().contains(&applied.notation)),
            Err(err) => prop_assert!(
                matches!(err.code, RuleErrorCode::BadNotation | RuleErrorCode::IllegalMove),
                "{}", err
            ),
        }
    }

    #[test]
    fn fen_like_text_never_panics_and_what_reads_writes_back(
        kings in (0u8..64, 0u8..64),
        others in prop::collection::vec((0u8..64, 0usize..10), 0..24),
        black in any::<bool>(),
        rights in 0u8..16,
        at in any::<prop::sample::Index>(),
        cut in 0usize..3,
        edit in "[rnsmkpRNSMKP1-9/~ wbxDEde0-]{0,2}",
    ) {
        // A random position's FEN with `cut` characters at `at` replaced by `edit`: a near miss
        // the reader must refuse without panicking, or a FEN it reads, which must write back.
        // (Random text of FEN characters, as this test once read, is almost never a position, so
        // the round trip below never ran.)
        let fen = random_fen(kings, &others, black, rights);
        let at = at.index(fen.len() + 1);
        let end = (at + cut).min(fen.len());
        let text = format!("{}{edit}{}", &fen[..at], &fen[end..]);
        if let Ok(pos) = Position::from_fen(&text) {
            let fen = pos.to_string();
            prop_assert_eq!(Position::from_fen(&fen), Ok(pos));
            let _ = pos.legal_moves();
        }
    }

    #[test]
    fn generator_agrees_with_a_naive_one_on_random_positions(
        kings in (0u8..64, 0u8..64),
        others in prop::collection::vec((0u8..64, 0usize..10), 0..24),
        at_home in any::<bool>(),
        black in any::<bool>(),
        rights in 0u8..16,
    ) {
        // Half the positions keep Kings and Neangs at home, so the leaps and their rights show up.
        let (kings, others) = if at_home {
            let mut with_neangs = vec![(4, 3), (59, 8)];
            with_neangs.extend(others);
            ((3, 60), with_neangs)
        } else {
            (kings, others)
        };
        let fen = random_fen(kings, &others, black, rights);
        let pos = Position::from_fen(&fen);
        prop_assume!(pos.is_ok());
        let Ok(pos) = pos else { unreachable!() };
        prop_assert_eq!(pos.legal_uci(), naive_legal(&pos), "{}", fen);
        prop_assert_eq!(super::perft(&pos, 1), naive_legal(&pos).len() as u64);
    }

    #[test]
    fn every_listed_move_plays_and_unlisted_ones_are_refused(
        choices in prop::collection::vec(any::<u32>(), 1..160)
    ) {
        let mut game = Game::new();
        for choice in choices {
            let legal = game.legal_moves();
            if legal.is_empty() {
                prop_assert!(game.outcome().is_some());
                break;
            }
            prop_assert_eq!(&legal, &naive_legal(game.current()));
            // A few moves that are not listed: each is refused and changes nothing.
            for k in 0..4 {
                let bits = choice.rotate_left(7 * k);
                let from = Square::from_index(bits & 63);
                let to = Square::from_index((bits >> 6) & 63);
                if from == to {
                    continue;
                }
                let mv = Move::new(from, to, bits & (1 << 12) != 0).to_string();
                let promoted = format!("{mv}m");
                if legal.contains(&mv) || legal.contains(&promoted) {
                    continue;
                }
                let mut copy = game.clone();
                let err = copy.play(&mv).expect_err("an unlisted move");
                prop_assert_eq!(err.code, RuleErrorCode::IllegalMove, "{}: {}", mv, err);
                prop_assert_eq!(copy.position(), game.position());
            }
            let mv = &legal[choice as usize % legal.len()];
            let applied = game.play(mv);
            prop_assert!(applied.is_ok(), "{}: {:?}", mv, applied);
            // The position written reads back to the same game state.
            let fen = game.position();
            let again = Game::from_fen(&fen);
            prop_assert!(again.is_ok(), "{}", fen);
            if let Ok(again) = again {
                prop_assert_eq!(again.position(), fen);
                // A count read back keeps its numbers and escaping side; its start ply is 0 there
                // (and its kind is inferred, see `Game::counting`).
                let numbers = |g: &Game| g.counting().map(|c| (c.count, c.limit, c.escaping));
                prop_assert_eq!(numbers(&again), numbers(&game));
            }
        }
    }
}
