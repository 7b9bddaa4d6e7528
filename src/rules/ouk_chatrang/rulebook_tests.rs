//! One or more tests per rule of `docs/rules/ouk-chatrang.md` (O-1..O-24), and its test
//! vectors (rights and counting). Perft rows are in `perft.rs`.

use super::{Color, CountingKind, Game, Position};
use crate::rules::{Applied, EndReason, Outcome, RuleErrorCode, Rules};

const START: &str = "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1";

fn game(fen: &str) -> Game {
    Game::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// Plays space-separated UCI moves; returns what the last one reported.
fn play(game: &mut Game, moves: &str) -> Applied {
    let mut last = None;
    for mv in moves.split_whitespace() {
        last = Some(game.play(mv).unwrap_or_else(|e| panic!("{mv}: {e}")));
    }
    last.expect("at least one move")
}

/// The legal moves of a position by the rules of movement alone (O-6..O-14), whether or not
/// the game would already be over there.
fn legal(fen: &str) -> Vec<String> {
    Position::from_fen(fen)
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
        .legal_uci()
}

fn has(fen: &str, mv: &str) -> bool {
    legal(fen).iter().any(|m| m == mv)
}

/// FEN field `i` (0-based) of the game's position.
fn field(game: &Game, i: usize) -> String {
    game.position()
        .split(' ')
        .nth(i)
        .unwrap_or_default()
        .to_string()
}

/// FEN fields 4–5: the counting limit and ply, or `-` and the halfmove clock.
fn counting_fields(game: &Game) -> String {
    format!("{} {}", field(game, 3), field(game, 4))
}

fn moves_from(fen: &str, from: &str) -> Vec<String> {
    legal(fen)
        .into_iter()
        .filter(|m| m.starts_with(from))
        .collect()
}

// ---- Board, pieces, setup (O-1..O-5) ----

#[test]
fn o1_board_is_8x8_and_white_moves_first() {
    let g = Game::new();
    assert_eq!(g.to_move(), Some(0));
    assert_eq!(g.current().side_to_move(), Color::White);
    assert!(Position::from_fen("8/8/8/8/8/8/8/8/8 w - - 0 1").is_err());
    assert!(Position::from_fen("9/8/8/8/8/8/8/8 w - - 0 1").is_err());
}

#[test]
fn o2_fen_letters_name_the_pieces() {
    let pos = Position::from_fen("k7/p7/1s6/2m5/3n4/4r3/8/7K w - - 0 1").unwrap();
    let roles: Vec<char> = ["a8", "a7", "b6", "c5", "d4", "e3", "h1"]
        .iter()
        .map(|s| pos.board().piece_at(s.parse().unwrap()).unwrap().char())
        .collect();
    assert_eq!(roles, ['k', 'p', 's', 'm', 'n', 'r', 'K']);
    assert!(Position::from_fen("k7/8/8/8/8/8/8/6QK w - - 0 1").is_err());
}

#[test]
fn o3_start_position_matches_the_rulebook() {
    assert_eq!(Game::new().position(), START);
    let pos = Position::start();
    let at = |s: &str| pos.board().piece_at(s.parse().unwrap()).map(|p| p.char());
    assert_eq!(at("d1"), Some('K'));
    assert_eq!(at("e1"), Some('M'));
    assert_eq!(at("d8"), Some('m'));
    assert_eq!(at("e8"), Some('k'));
    assert_eq!(at("c1"), Some('S'));
    assert_eq!(at("a3"), Some('P'));
    assert_eq!(at("h6"), Some('p'));
}

#[test]
fn o4_rights_letters_belong_to_the_home_squares() {
    assert_eq!(field(&Game::new(), 2), "DEde");
    // A right whose piece is not at home is refused.
    let err = Position::from_fen("4k3/8/8/8/8/8/8/4K3 w D - 0 1").unwrap_err();
    assert_eq!(err.code, RuleErrorCode::BadPosition);
    assert!(err.message.contains("right D"), "{}", err.message);
    let err = Position::from_fen("3mk3/8/8/8/8/8/8/3K4 w e - 0 1");
    assert!(err.is_ok(), "the Black King on e8 may hold e");
    assert!(Position::from_fen("3km3/8/8/8/8/8/8/3K4 w d - 0 1").is_err());
}

#[test]
fn o5_counting_fields_replace_the_halfmove_clock_and_promoted_marks_are_plain_on_output() {
    let g = game("3k4/2m5/5M~2/4M3/3KS3/8/8/8 w - 126 36 1");
    assert_eq!(g.position(), "3k4/2m5/5M2/4M3/3KS3/8/8/8 w - 126 36 1");
    assert_eq!(counting_fields(&g), "126 36");
    let mut g = Game::new();
    play(&mut g, "b1d2 b8d7");
    assert_eq!(counting_fields(&g), "- 2");
    assert_eq!(field(&g, 5), "2");
}

// ---- Movement (O-6..O-11) ----

#[test]
fn o6_king_rook_and_knight_move_as_in_chess_without_castling() {
    let fen = "4k3/8/8/8/3R4/8/8/K6N w - - 0 1";
    assert_eq!(moves_from(fen, "d4").len(), 14);
    assert_eq!(moves_from(fen, "h1"), ["h1f2", "h1g3"]);
    assert_eq!(moves_from(fen, "a1"), ["a1a2", "a1b1", "a1b2"]);
    // No castling: the King never moves two squares along his rank.
    assert!(!has(START, "d1b1") && !has(START, "d1f1"));
}

#[test]
fn o7_khon_moves_one_step_diagonally_or_straight_forward() {
    let white = "4k3/8/8/8/4S3/8/8/K7 w - - 0 1";
    assert_eq!(
        moves_from(white, "e4"),
        ["e4d3", "e4d5", "e4e5", "e4f3", "e4f5"]
    );
    let black = "k7/8/8/4s3/8/8/8/K7 b - - 0 1";
    assert_eq!(
        moves_from(black, "e5"),
        ["e5d4", "e5d6", "e5e4", "e5f4", "e5f6"]
    );
}

#[test]
fn o8_neang_moves_one_step_diagonally() {
    let fen = "4k3/8/8/8/4M3/8/8/K7 w - - 0 1";
    assert_eq!(moves_from(fen, "e4"), ["e4d3", "e4d5", "e4f3", "e4f5"]);
}

#[test]
fn o9_pawn_steps_one_forward_and_captures_diagonally_forward_only() {
    // No double step from the start rank.
    assert_eq!(moves_from(START, "e3"), ["e3e4"]);
    // Blocked straight ahead; captures forward only, never backward.
    let fen = "4k3/8/8/3n1n2/4p3/3PnP2/8/K7 w - - 0 1";
    assert_eq!(moves_from(fen, "d3"), ["d3d4", "d3e4"]);
    let blocked = "4k3/8/8/8/4n3/4P3/8/K7 w - - 0 1";
    assert!(moves_from(blocked, "e3").is_empty());
    // No en passant: after a pawn steps beside another, no diagonal capture behind it exists.
    let mut g = game("4k3/8/3p4/4P3/8/8/8/K7 b - - 0 1");
    play(&mut g, "d6d5");
    assert!(!g.legal_moves().iter().any(|m| m == "e5d6"));
}

#[test]
fn o10_promotion_is_forced_on_sixth_rank() {
    let fen = "4k2r/8/8/4P3/8/8/8/KRR5 w - - 0 1";
    assert_eq!(moves_from(fen, "e5"), ["e5e6m"]);
    let mut g = game(fen);
    // Written without its suffix, the move still promotes.
    let applied = g.play("e5e6").unwrap();
    assert_eq!(applied.notation, "e5e6m");
    assert_eq!(applied.display, "e6=M");
    assert_eq!(g.position(), "4k2r/8/4M3/8/8/8/8/KRR5 b - 126 0 1");
    // Black promotes on rank 3.
    assert_eq!(
        moves_from("4k3/8/8/8/3p4/8/8/K7 b - - 0 1", "d4"),
        ["d4d3m"]
    );
    // A suffix on a move that is no promotion is refused.
    let err = game(START).play("e3e4m").unwrap_err();
    assert_eq!(err.code, RuleErrorCode::IllegalMove);
}

#[test]
fn o10_promoted_neang_has_no_leap_right() {
    let err = Position::from_fen("4k3/8/8/8/8/8/8/3KM~3 w E - 0 1").unwrap_err();
    assert!(err.message.contains("right E"), "{}", err.message);
    // A promoted Neang back on e1 steps like any Neang and never leaps.
    assert_eq!(
        moves_from("4k3/8/8/8/8/8/8/3KM3 w - - 0 1", "e1"),
        ["e1d2", "e1f2"]
    );
}

#[test]
fn o11_moves_that_leave_the_king_in_check_are_illegal() {
    // The knight on e2 is pinned by the rook on e7.
    let fen = "4k3/4r3/8/8/8/8/4N3/R3K2R w - - 0 1";
    assert!(moves_from(fen, "e2").is_empty());
    let mut g = game(fen);
    let err = g.play("e2c3").unwrap_err();
    assert_eq!(err.code, RuleErrorCode::IllegalMove);
    assert!(err.message.contains("check"), "{}", err.message);
    assert_eq!(g.position(), fen, "a refused move changes nothing");
    // A pinned rook may slide along the pin, up to taking the pinner.
    let fen = "4k3/4r3/8/8/8/8/4R3/4K3 w - - 0 1";
    assert_eq!(
        moves_from(fen, "e2"),
        ["e2e3", "e2e4", "e2e5", "e2e6", "e2e7"]
    );
}

#[test]
fn only_legal_move_is_e8d7() {
    assert_eq!(
        legal("rnsmks1r/4n3/pppNpppp/3p4/8/PPPPPPPP/8/R1SKMSNR b DEde - 1 3"),
        ["e8d7"]
    );
}

// ---- Special first moves (O-12..O-14) ----

#[test]
fn o12_king_leaps_a_knight_move_onto_the_next_rank() {
    assert!(has(START, "d1b2") && has(START, "d1f2"));
    assert!(!has(START, "d1c3") && !has(START, "d1e3"));
    let mut g = Game::new();
    play(&mut g, "e3e4");
    let black = g.legal_moves();
    assert!(black.contains(&"e8c7".to_string()) && black.contains(&"e8g7".to_string()));
}

#[test]
fn king_leap_forbidden_while_in_check() {
    let fen = "4k3/8/8/8/8/8/8/3K3r w D - 0 1";
    assert_eq!(legal(fen), ["d1c2", "d1d2", "d1e2"]);
    let err = game(fen).play("d1b2").unwrap_err();
    assert_eq!(err.code, RuleErrorCode::IllegalMove);
    assert!(err.message.contains("in check"), "{}", err.message);
}

#[test]
fn king_leap_needs_an_empty_unattacked_square() {
    // f2 is attacked by the rook on f8.
    let fen = "4kr2/8/8/8/8/8/8/3K4 w D - 0 1";
    assert!(has(fen, "d1b2") && !has(fen, "d1f2"));
    // The leap cannot capture the Khon on b2.
    let fen = "4k3/8/8/8/8/8/1s6/3K4 w D - 0 1";
    assert!(!has(fen, "d1b2") && has(fen, "d1f2"));
    let err = game(fen).play("d1b2").unwrap_err();
    assert!(err.message.contains("cannot capture"), "{}", err.message);
}

#[test]
fn o13_neang_leap_jumps_over_the_middle_square() {
    let fen = "4k3/8/8/8/8/8/4N3/3KM3 w E - 0 1";
    assert_eq!(moves_from(fen, "e1"), ["e1d2", "e1e3", "e1f2"]);
    let mut g = game("rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1");
    let applied = play(&mut g, "e3e4 d6d5 e1e3");
    assert_eq!(applied.display, "Me3");
    assert_eq!(field(&g, 2), "Dde");
    play(&mut g, "d8d6");
    assert_eq!(field(&g, 2), "De");
}

#[test]
fn neang_leap_cannot_capture() {
    let fen = "4k3/8/8/8/8/4s3/8/3KM3 w E - 0 1";
    assert_eq!(moves_from(fen, "e1"), ["e1d2", "e1f2"]);
    let err = game(fen).play("e1e3").unwrap_err();
    assert!(err.message.contains("cannot capture"), "{}", err.message);
}

#[test]
fn neang_leap_may_answer_a_check() {
    let fen = "4k3/8/8/8/8/r6K/8/4M3 w E - 0 1";
    assert_eq!(moves_from(fen, "e1"), ["e1e3"]);
}

#[test]
fn o14_rights_are_lost_when_the_piece_first_moves() {
    let mut g = Game::new();
    play(&mut g, "d1b2");
    assert_eq!(field(&g, 2), "Ede");
    let mut g = Game::new();
    play(&mut g, "d1d2");
    assert_eq!(field(&g, 2), "Ede");
    let mut g = Game::new();
    play(&mut g, "e1f2");
    assert_eq!(field(&g, 2), "Dde");
}

#[test]
fn o14_right_is_lost_when_the_piece_is_captured_at_home() {
    let mut g = game("4k3/8/8/8/8/8/8/3KM2r b E - 0 1");
    play(&mut g, "h1e1");
    assert_eq!(field(&g, 2), "-");
}

#[test]
fn rook_move_on_kings_file_removes_leap_right_even_when_blocked() {
    let mut g = game("1nsmksnr/r7/pppppppp/8/8/PPPPPPPP/2SN4/R2KMSNR b DEde - 3 2");
    play(&mut g, "a7d7");
    assert_eq!(
        g.position(),
        "1nsmksnr/3r4/pppppppp/8/8/PPPPPPPP/2SN4/R2KMSNR w Ede - 4 3"
    );
}

#[test]
fn rook_move_on_kings_file_or_rank_removes_leap_right() {
    let mut g = game("rnsmk1nr/4s3/pppppppp/8/8/PPPPPPPP/R7/1NSKMSNR w DEde - 2 2");
    play(&mut g, "a2e2");
    assert_eq!(
        g.position(),
        "rnsmk1nr/4s3/pppppppp/8/8/PPPPPPPP/4R3/1NSKMSNR b DEd - 3 2"
    );
    let mut g = game("rnsmksnr/8/1ppppppp/8/8/1PPPPPPP/8/RNSKMSNR w DEde - 0 1");
    play(&mut g, "a1a8");
    assert_eq!(
        g.position(),
        "Rnsmksnr/8/1ppppppp/8/8/1PPPPPPP/8/1NSKMSNR b DEd - 0 1"
    );
}

#[test]
fn check_by_another_piece_keeps_the_leap_right() {
    let mut g = game("4k3/8/8/8/n7/8/8/3K3R b D - 0 1");
    let applied = play(&mut g, "a4b2");
    assert_eq!(applied.display, "Nb2+");
    assert_eq!(field(&g, 2), "D");
}

#[test]
fn rook_line_opened_by_another_piece_keeps_the_leap_right() {
    let mut g = game("3rk3/8/8/8/3n4/8/8/3K4 b D - 0 1");
    play(&mut g, "d4f5");
    assert!(g.current().is_check());
    assert_eq!(field(&g, 2), "D");
}

// ---- End of game (O-15..O-17) ----

#[test]
fn o15_checkmate_wins() {
    let mut g = game("6k1/8/6K1/8/8/8/8/R7 w - - 0 1");
    let applied = play(&mut g, "a1a8");
    assert_eq!(applied.display, "Ra8#");
    assert_eq!(applied.outcome, Some(Outcome::win(0, EndReason::Checkmate)));
    assert_eq!(g.to_move(), None);
    assert!(g.legal_moves().is_empty());
    assert_eq!(g.play("g8h8").unwrap_err().code, RuleErrorCode::GameOver);
    assert_eq!(g.outcome(), Some(Outcome::win(0, EndReason::Checkmate)));
}

#[test]
fn o15_stalemate_is_a_draw() {
    let mut g = game("k7/2K5/8/M7/8/8/8/7R w - - 0 1");
    let applied = play(&mut g, "a5b6");
    assert_eq!(applied.outcome, Some(Outcome::draw(EndReason::Stalemate)));
    assert_eq!(g.outcome(), Some(Outcome::draw(EndReason::Stalemate)));
}

#[test]
fn o15_there_is_no_fifty_move_rule() {
    let mut g = Game::new();
    for _ in 0..30 {
        play(&mut g, "b1d2 b8d7 d2b1 d7b8");
    }
    assert_eq!(g.outcome(), None);
    assert_eq!(counting_fields(&g), "- 120");
}

#[test]
fn o16_threefold_repetition_is_claimed_by_the_side_to_move() {
    let mut g = Game::new();
    play(&mut g, "b1d2 b8d7 d2b1 d7b8");
    assert_eq!(g.repetitions(), 2);
    let err = g.claim_draw(0, EndReason::Repetition).unwrap_err();
    assert_eq!(err.code, RuleErrorCode::CannotClaim);
    assert!(err.message.contains("2 times"), "{}", err.message);
    play(&mut g, "b1d2 b8d7 d2b1 d7b8");
    assert_eq!(g.repetitions(), 3);
    // Not by the player who is not to move, and not for another reason.
    assert_eq!(
        g.claim_draw(1, EndReason::Repetition).unwrap_err().code,
        RuleErrorCode::CannotClaim
    );
    assert_eq!(
        g.claim_draw(0, EndReason::Agreement).unwrap_err().code,
        RuleErrorCode::CannotClaim
    );
    assert_eq!(g.outcome(), None);
    assert_eq!(
        g.claim_draw(0, EndReason::Repetition),
        Ok(Outcome::draw(EndReason::Repetition))
    );
    assert_eq!(g.outcome(), Some(Outcome::draw(EndReason::Repetition)));
    assert_eq!(
        g.claim_draw(0, EndReason::Repetition).unwrap_err().code,
        RuleErrorCode::GameOver
    );
}

#[test]
fn repetition_counts_the_rights() {
    let mut g = Game::new();
    // The King steps out and back: the same board as at the start, but without his leap right.
    play(&mut g, "d1c2 b8d7 c2d1 d7b8");
    assert_eq!(
        g.position(),
        "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w Ede - 4 3"
    );
    assert_eq!(g.repetitions(), 1);
    play(&mut g, "b1d2 b8d7 d2b1 d7b8 b1d2 b8d7 d2b1 d7b8");
    assert_eq!(g.repetitions(), 3);
    assert!(g.claim_draw(0, EndReason::Repetition).is_ok());
}

#[test]
fn o17_insufficient_material_is_an_automatic_draw() {
    let mut g = game("4k3/8/8/8/8/8/5r2/3KM3 w - - 0 1");
    let applied = play(&mut g, "e1f2");
    assert_eq!(
        applied.outcome,
        Some(Outcome::draw(EndReason::InsufficientMaterial))
    );
    // A loaded position that is already bare is over at once.
    assert_eq!(
        game("4k3/8/8/8/8/8/8/3K4 w - - 0 1").outcome(),
        Some(Outcome::draw(EndReason::InsufficientMaterial))
    );
    // Knight against Neang plays on.
    assert_eq!(game("4k3/4m3/8/8/8/8/8/3KN3 w - - 0 1").outcome(), None);
}

// ---- Counting (O-18..O-24) ----

#[test]
fn o18_board_honour_starts_even_with_pawns() {
    let mut g = game("4k3/8/4p3/8/8/8/1n6/RR2K1N1 w - - 0 1");
    assert_eq!(g.counting(), None);
    play(&mut g, "b1b2");
    assert_eq!(counting_fields(&g), "126 0");
    let counting = g.counting().unwrap();
    assert_eq!(counting.kind, CountingKind::Board);
    assert_eq!(counting.count, 0);
    assert_eq!(counting.limit, 64);
    assert_eq!(counting.escaping, Color::Black);
    assert_eq!(counting.started_ply, 1);
    // The escaping side's first move makes the count 1; the chaser's reply leaves it.
    play(&mut g, "e8d8");
    assert_eq!(g.counting().unwrap().count, 1);
    play(&mut g, "a1a2");
    assert_eq!(g.counting().unwrap().count, 1);
    assert_eq!(counting_fields(&g), "126 2");
}

#[test]
fn board_honour_starts_when_board_honour_vector() {
    let mut g = game("3k4/2m5/8/4MP2/3KS3/8/8/8 w - - 0 1");
    play(&mut g, "f5f6m");
    assert_eq!(counting_fields(&g), "126 0");
}

#[test]
fn o19_piece_honour_starts_at_n_for_a_bare_king() {
    let mut g = game("8/8/4k3/8/8/2R1K3/8/8 w - - 0 1");
    play(&mut g, "c3c4");
    assert_eq!(counting_fields(&g), "30 6");
    let counting = g.counting().unwrap();
    assert_eq!(counting.kind, CountingKind::Piece);
    assert_eq!((counting.count, counting.limit), (3, 16));
    // The escaping side's first counted move is N + 1.
    play(&mut g, "e6d6");
    assert_eq!(g.counting().unwrap().count, 4);
}

/// L of a piece's honour for a bare Black King against `white` on a1, b1 (White King e1).
fn piece_honour_limit(white: &str) -> u32 {
    let g = game(&format!("7k/8/8/8/8/8/8/{white}2K3 b - - 0 1"));
    let counting = g.counting().expect("a bare King to move starts a count");
    assert_eq!(counting.kind, CountingKind::Piece);
    assert_eq!(counting.count, 4);
    counting.limit
}

#[test]
fn piece_honour_limit_two_rooks_is_8() {
    assert_eq!(piece_honour_limit("RR"), 8);
}

#[test]
fn piece_honour_limit_one_rook_is_16() {
    assert_eq!(piece_honour_limit("RS"), 16);
}

#[test]
fn piece_honour_limit_two_khons_is_22() {
    assert_eq!(piece_honour_limit("SS"), 22);
}

#[test]
fn piece_honour_limit_two_knights_is_32() {
    assert_eq!(piece_honour_limit("NN"), 32);
}

#[test]
fn piece_honour_limit_one_khon_is_44() {
    assert_eq!(piece_honour_limit("SN"), 44);
}

#[test]
fn piece_honour_limit_otherwise_is_64() {
    assert_eq!(piece_honour_limit("MN"), 64);
}

#[test]
fn piece_honour_vector_promotion_of_the_last_pawn() {
    let mut g = game("8/3k4/8/2K1S1P1/8/8/8/8 w - - 0 1");
    play(&mut g, "g5g6m");
    assert_eq!(counting_fields(&g), "86 8");
    assert_eq!(g.position(), "8/3k4/6M1/2K1S3/8/8/8/8 b - 86 8 1");
}

#[test]
fn o20_piece_honour_drawn_at_once_when_n_reaches_limit() {
    // After the capture: a bare King against K, 2 rooks, 2 Neangs, 2 knights: N = 8 = L.
    let mut g = game("7k/8/8/8/8/1n1MMNN1/8/RR2K3 w - - 0 1");
    let applied = play(&mut g, "b1b3");
    assert_eq!(applied.outcome, Some(Outcome::draw(EndReason::Counting)));
    assert_eq!(g.position(), "7k/8/8/8/8/1R1MMNN1/8/R3K3 b - 14 16 1");
}

#[test]
fn o20_count_reaching_the_limit_draws() {
    let mut g = game("k7/r7/8/8/8/8/6PP/7K b - 126 126 70");
    let applied = play(&mut g, "a8b8");
    assert_eq!(applied.outcome, Some(Outcome::draw(EndReason::Counting)));
    assert_eq!(g.counting().unwrap().count, 64);
    assert_eq!(g.outcome(), Some(Outcome::draw(EndReason::Counting)));
}

#[test]
fn o21_count_goes_on_one_ply_at_a_time() {
    let mut g = game("3k4/2m5/5M~2/4M3/3KS3/8/8/8 w - 126 36 1");
    play(&mut g, "d4d5");
    assert_eq!(counting_fields(&g), "126 37");
}

#[test]
fn o21b_capture_leaving_a_bare_king_restarts_as_piece_honour() {
    let mut g = game("8/2K3k1/5m2/4S1S1/8/8/8/8 w - 128 97 1");
    play(&mut g, "e5f6");
    assert_eq!(counting_fields(&g), "42 8");
    let counting = g.counting().unwrap();
    assert_eq!(
        (counting.kind, counting.limit, counting.count),
        (CountingKind::Piece, 22, 4)
    );
}

#[test]
fn o21c_bare_king_taking_the_last_pawn_counts_that_capture() {
    let mut g = game("8/8/4k3/5P2/8/2RMK3/8/8 b - 126 42 50");
    play(&mut g, "e6f5");
    assert_eq!(counting_fields(&g), "30 7");
    let counting = g.counting().unwrap();
    assert_eq!(
        (counting.kind, counting.count, counting.limit),
        (CountingKind::Piece, 4, 16)
    );
    assert_eq!(counting.escaping, Color::Black);
}

/// From a board's honour for Black started at the game's first position, Black and White shuffle
/// their Kings for `cycles` × 4 plies, Black steps once more, then White's Khon takes the last
/// Black Neang: a piece's honour (2 Khons, L 22, N 4) would leave 18 moves.
fn board_honour_then_capture(cycles: usize) -> Game {
    let mut g = game("8/2K3k1/5m2/4S1S1/8/8/8/8 b - - 0 1");
    assert_eq!(counting_fields(&g), "126 0");
    for _ in 0..cycles {
        play(&mut g, "g7h7 c7b7 h7g7 b7c7");
    }
    play(&mut g, "g7h7 e5f6");
    g
}

#[test]
fn keeps_board_honour_when_fewer_moves_left() {
    // 47 Black moves made: board's honour has 64 − 47 = 17 < 18 moves left, so it stays.
    let g = board_honour_then_capture(23);
    assert_eq!(counting_fields(&g), "126 94");
    let counting = g.counting().unwrap();
    assert_eq!(
        (counting.kind, counting.count, counting.started_ply),
        (CountingKind::Board, 47, 0)
    );
}

#[test]
fn piece_honour_replaces_board_honour_with_more_moves_left() {
    // 46 Black moves made: 64 − 46 = 18 is not fewer than 18, so piece's honour takes over.
    let g = board_honour_then_capture(22);
    assert_eq!(counting_fields(&g), "42 8");
    let counting = g.counting().unwrap();
    assert_eq!(counting.kind, CountingKind::Piece);
    assert_eq!(counting.started_ply, 90);
}

#[test]
fn o21d_piece_honour_limit_never_changes() {
    // Two rooks give L 8; the bare King takes one, and L stays 8.
    let mut g = game("7k/6R1/8/8/8/8/8/R3K3 b - - 0 1");
    assert_eq!(counting_fields(&g), "14 8");
    play(&mut g, "h8g7");
    assert_eq!(counting_fields(&g), "14 9");
    assert_eq!(g.counting().unwrap().limit, 8);
}

#[test]
fn o22_checkmate_still_wins_while_counting() {
    // Black, the escaping side, mates with the move that would reach the limit.
    let mut g = game("k7/r7/8/8/8/8/6PP/7K b - 126 126 70");
    let applied = play(&mut g, "a7a1");
    assert_eq!(applied.display, "Ra1#");
    assert_eq!(applied.outcome, Some(Outcome::win(1, EndReason::Checkmate)));
    // The chasing side mating inside the count wins too.
    let mut g = game("6k1/8/6K1/8/8/8/8/R7 w - 30 29 1");
    let applied = play(&mut g, "a1a8");
    assert_eq!(applied.outcome, Some(Outcome::win(0, EndReason::Checkmate)));
}

#[test]
fn o23_count_shown_is_half_the_counting_ply_rounded_up() {
    let g = game("3k4/2m5/5M2/4M3/3KS3/8/8/8 w - 126 37 1");
    let counting = g.counting().unwrap();
    assert_eq!((counting.count, counting.limit), (19, 64));
    let g = game("3k4/2m5/5M2/4M3/3KS3/8/8/8 b - 126 36 1");
    assert_eq!(g.counting().unwrap().count, 18);
}

#[test]
fn o24_counting_state_is_sent_as_the_protocol_object() {
    let mut g = game("8/8/4k3/8/8/2R1K3/8/8 w - - 0 1");
    play(&mut g, "c3c4");
    let json = serde_json::to_value(g.counting().unwrap()).unwrap();
    assert_eq!(
        json,
        serde_json::json!({
            "kind": "piece",
            "count": 3,
            "limit": 16,
            "escaping": "black",
            "started_ply": 1
        })
    );
    let board = serde_json::to_value(CountingKind::Board).unwrap();
    assert_eq!(board, serde_json::json!("board"));
}

#[test]
fn counting_read_from_a_fen_knows_its_escaping_side() {
    // Counting ply odd with White to move: Black is counted for.
    let g = game("8/8/8/4n1p1/6m1/1m2k3/8/4K1r1 w - 126 38 63");
    let counting = g.counting().unwrap();
    assert_eq!(counting.escaping, Color::White);
    assert_eq!(counting.kind, CountingKind::Board);
    let g = game("8/2K3k1/5m2/4S1S1/8/8/8/8 w - 128 97 1");
    assert_eq!(g.counting().unwrap().escaping, Color::Black);
}

// ---- The Rules interface ----

#[test]
fn legal_moves_are_sorted_uci() {
    let moves = Game::new().legal_moves();
    assert_eq!(moves.len(), 25);
    let mut sorted = moves.clone();
    sorted.sort();
    assert_eq!(moves, sorted);
}

#[test]
fn bad_notation_and_illegal_moves_change_nothing() {
    let mut g = Game::new();
    for (mv, code) in [
        ("hello", RuleErrorCode::BadNotation),
        ("e9e4", RuleErrorCode::BadNotation),
        ("e3e5", RuleErrorCode::IllegalMove),
        ("e6e5", RuleErrorCode::IllegalMove),
        ("a4a5", RuleErrorCode::IllegalMove),
        ("d1c1", RuleErrorCode::IllegalMove),
    ] {
        let err = g.play(mv).unwrap_err();
        assert_eq!(err.code, code, "{mv}: {}", err.message);
        assert!(!err.message.is_empty());
    }
    assert_eq!(g.position(), START);
    assert_eq!(g.ply(), 0);
    let err = g.play("e3e5").unwrap_err();
    assert!(err.message.contains("pawn"), "{}", err.message);
}

#[test]
fn any_game_plays_ouk_chatrang() {
    use crate::rules::{AnyGame, GameKind, GameOptions};
    let mut g = AnyGame::new(GameKind::OukChatrang, &GameOptions::default()).unwrap();
    assert_eq!(g.color(0), "white");
    assert_eq!(g.color(1), "black");
    let applied = g.play("d1b2").unwrap();
    assert_eq!(applied.display, "Kb2");
    assert_eq!(g.to_move(), Some(1));
    assert!(g.counting().is_none());
    let fen = |text: &str| GameOptions {
        start_position: Some(text.into()),
        ..GameOptions::default()
    };
    let err = AnyGame::new(GameKind::OukChatrang, &fen("not a fen")).unwrap_err();
    assert_eq!(err.code, RuleErrorCode::BadPosition);
    let three = GameOptions {
        players: Some(3),
        ..GameOptions::default()
    };
    assert_eq!(
        AnyGame::new(GameKind::OukChatrang, &three)
            .unwrap_err()
            .code,
        RuleErrorCode::BadOption
    );
    let layout = GameOptions {
        layout: Some("231".repeat(12)),
        ..GameOptions::default()
    };
    assert_eq!(
        AnyGame::new(GameKind::OukChatrang, &layout)
            .unwrap_err()
            .code,
        RuleErrorCode::BadOption
    );
    assert_eq!(g.in_play(), vec![0, 1]);
    let resigned = g.resign(1).unwrap();
    assert_eq!(
        resigned.outcome,
        Some(Outcome::win(0, EndReason::Resignation))
    );
    assert_eq!(g.resign(0).unwrap_err().code, RuleErrorCode::GameOver);
}
