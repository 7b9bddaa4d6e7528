//! Perft: the number of move sequences of a given length, the standard test of a move generator.
//!
//! Counted as Fairy-Stockfish's `go perft` counts (variant `cambodian`): legal moves only,
//! promotion forced, and one level before the leaves each node's moves are counted without being
//! played ("bulk counting"). Works on [`Position`] alone — no history, counting or notation.

use super::movegen;
use super::moves::Move;
use super::position::Position;

/// The number of legal move sequences of `depth` plies from `pos` (1 for depth 0).
pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => movegen::count(pos),
        _ => {
            // One move buffer for the whole walk: each level appends its moves and truncates them
            // again, so no level allocates.
            let mut buffer = Vec::with_capacity(64 * depth as usize);
            walk(pos, depth, &mut buffer)
        }
    }
}

fn walk(pos: &Position, depth: u32, buffer: &mut Vec<Move>) -> u64 {
    if depth == 1 {
        return movegen::count(pos);
    }
    let start = buffer.len();
    movegen::generate(pos, buffer);
    let end = buffer.len();
    let mut nodes = 0;
    for i in start..end {
        let child = pos.play_unchecked(buffer[i]);
        nodes += walk(&child, depth - 1, buffer);
    }
    buffer.truncate(start);
    nodes
}

/// Perft split by first move: each legal move in UCI with the count of sequences it starts,
/// sorted by the UCI text. `depth` counts the first move (depth 1 gives each move 1).
pub fn perft_divide(pos: &Position, depth: u32) -> Vec<(String, u64)> {
    let mut rows: Vec<(String, u64)> = pos
        .legal_moves()
        .into_iter()
        .map(|mv| {
            let child = pos.play_unchecked(mv);
            (mv.to_string(), perft(&child, depth.saturating_sub(1)))
        })
        .collect();
    rows.sort_unstable();
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn perft_fen(fen: &str, depth: u32) -> u64 {
        perft(&Position::from_fen(fen).unwrap(), depth)
    }

    const START: &str = "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1";
    const IN_CHECK: &str = "r1s1ks1r/3nm3/pppNpppp/3n4/5P2/PPPPPNPP/8/R1SKMS1R b DEe - 0 5";
    const ONLY_KING_MOVE: &str = "rnsmks1r/4n3/pppNpppp/3p4/8/PPPPPPPP/8/R1SKMSNR b DEde - 1 3";
    const AFTER_E4_D5: &str = "rnsmksnr/8/ppp1pppp/3p4/4P3/PPPP1PPP/8/RNSKMSNR w DEde - 0 2";
    const ROOK_ON_E2: &str = "rnsmk1nr/4s3/pppppppp/8/8/PPPPPPPP/4R3/1NSKMSNR b DEd - 3 2";
    const ROOK_ON_D7: &str = "1nsmksnr/3r4/pppppppp/8/8/PPPPPPPP/2SN4/R2KMSNR w Ede - 4 3";
    const ROOK_ON_A8: &str = "Rnsmksnr/8/1ppppppp/8/8/1PPPPPPP/8/1NSKMSNR b DEd - 0 1";

    fn check_row(fen: &str, expected: &[u64]) {
        for (depth, &nodes) in (1..).zip(expected) {
            assert_eq!(perft_fen(fen, depth), nodes, "{fen} depth {depth}");
        }
    }

    #[test]
    fn perft_start_to_depth_4() {
        check_row(START, &[25, 625, 15031, 361719]);
    }

    #[test]
    fn perft_in_check_to_depth_4() {
        check_row(IN_CHECK, &[2, 72, 2052, 65858]);
    }

    #[test]
    fn perft_only_king_move_to_depth_4() {
        check_row(ONLY_KING_MOVE, &[1, 33, 671, 20997]);
    }

    #[test]
    fn perft_after_e4_d5_to_depth_4() {
        check_row(AFTER_E4_D5, &[27, 728, 19138, 501927]);
    }

    #[test]
    fn perft_rook_on_e2_to_depth_4() {
        check_row(ROOK_ON_E2, &[19, 532, 10338, 270993]);
    }

    #[test]
    fn perft_rook_on_d7_to_depth_4() {
        check_row(ROOK_ON_D7, &[23, 644, 15014, 392200]);
    }

    #[test]
    fn perft_rook_on_a8_to_depth_4() {
        check_row(ROOK_ON_A8, &[22, 701, 14887, 463348]);
    }

    #[test]
    fn perft_makruk_comparison_without_rights() {
        // The same board with no special first moves is Makruk's start position.
        check_row(
            "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1",
            &[23, 529, 12012, 273026],
        );
    }

    #[test]
    #[ignore = "slow in debug builds: cargo test --release -- --ignored perft_start"]
    fn perft_start_depth_5() {
        assert_eq!(perft_fen(START, 5), 8_597_966);
    }

    #[test]
    #[ignore = "slow: cargo test --release -- --ignored perft_start"]
    fn perft_start_depth_6() {
        assert_eq!(perft_fen(START, 6), 204_583_970);
    }

    #[test]
    fn divide_sums_to_perft_and_is_sorted() {
        let pos = Position::start();
        let rows = perft_divide(&pos, 3);
        assert_eq!(rows.len(), 25);
        assert_eq!(rows.iter().map(|(_, n)| n).sum::<u64>(), 15031);
        assert!(rows.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(rows.iter().any(|(m, _)| m == "d1b2"));
        assert!(rows.iter().any(|(m, _)| m == "d1f2"));
        // The Neang leap e1e3 is blocked: e3 holds a pawn and the leap cannot capture.
        assert!(!rows.iter().any(|(m, _)| m == "e1e3"));
    }
}
