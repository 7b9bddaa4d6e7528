//! One or more tests per rule of the Khan rules file (K-1..K-17), its examples E1–E7 (each built
//! from the diagram it refers to) and its counts from the start position.

use std::collections::HashSet;

use super::movegen::for_each_move;
use super::moves::soldier_reach;
use super::{
    Board, Color, Game, MoveKind, Piece, Position, START_TEXT, Square, flatten_move_tree, perft,
    turn_perft,
};
use crate::rules::{
    AnyGame, Applied, EndReason, GameKind, GameOptions, Outcome, RuleErrorCode, Rules,
};

fn game(text: &str) -> Game {
    Game::from_text(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// A game from a list of pieces, each its letter and square (`Kd7 sb2`), and the side to move.
/// Goes through the position text, so the text's checks apply.
fn setup(pieces: &str, side: char) -> Game {
    let mut board = Board::empty();
    for token in pieces.split_whitespace() {
        let (letter, square) = token.split_at(1);
        let piece = letter.chars().next().and_then(Piece::from_char);
        board.put(sq(square), piece.unwrap_or_else(|| panic!("{token}")));
    }
    let side = if side == 'w' {
        Color::White
    } else {
        Color::Black
    };
    game(&Position::from_parts(board, side).to_string())
}

/// The pieces of a game as `setup` lists them, in square order.
fn pieces(game: &Game) -> Vec<String> {
    let board = game.current().board();
    (0..100)
        .filter_map(Square::from_index)
        .filter_map(|s| board.piece_at(s).map(|p| format!("{}{s}", p.char())))
        .collect()
}

/// Asserts where the pieces stand, in any order.
#[track_caller]
fn assert_pieces(game: &Game, expected: &str) {
    let mut want: Vec<String> = expected.split_whitespace().map(str::to_owned).collect();
    let mut have = pieces(game);
    want.sort();
    have.sort();
    assert_eq!(have, want);
}

fn sq(name: &str) -> Square {
    name.parse().unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Plays space-separated moves; returns what the last one reported.
fn play(game: &mut Game, moves: &str) -> Applied {
    let mut last = None;
    for mv in moves.split_whitespace() {
        last = Some(game.play(mv).unwrap_or_else(|e| panic!("{mv}: {e}")));
    }
    last.expect("at least one move")
}

/// The refusal of `mv`, checking that it changed nothing.
fn refused(game: &Game, mv: &str) -> crate::rules::RuleError {
    let mut copy = game.clone();
    let err = copy.play(mv).expect_err(mv);
    assert_eq!(copy.position(), game.position(), "{mv} changed the game");
    err
}

fn listed(game: &Game, mv: &str) -> bool {
    game.legal_moves().iter().any(|m| m == mv)
}

/// The moves of one kind, as strings.
fn moves_of(position: &Position, kind: MoveKind) -> Vec<String> {
    let mut out = Vec::new();
    for_each_move(position, &mut |k, path, _| {
        if k == kind {
            out.push(super::notation::write_path(path));
        }
    });
    out
}

// ---- The diagrams of the rules file ----

/// Diagram 1. X (Black, towards rank 1): Khans d5, f5; Soldiers d4, e4, b3, d3, b2.
/// Y (White): Khans d7, c4, c2; Soldier d2.
const DIAGRAM_1: &str = "kd5 kf5 sd4 se4 sb3 sd3 sb2 Kd7 Kc4 Kc2 Sd2";

/// Diagram 2. Black (goal rank 1): Khans g6, g4, h2; Soldiers c9, e7, h7. Green = White (goal
/// rank 10): Khans b7, d8, f3; Soldier a6.
const DIAGRAM_2: &str = "kg6 kg4 kh2 sc9 se7 sh7 Kb7 Kd8 Kf3 Sa6";

fn diagram_1(side: char) -> Game {
    setup(DIAGRAM_1, side)
}

fn diagram_2(side: char) -> Game {
    setup(DIAGRAM_2, side)
}

#[test]
fn diagrams_as_position_texts() {
    assert_eq!(
        diagram_1('b').position(),
        "10/10/10/3K6/10/3k1k4/2Kss5/1s1s6/1sKS6/10 b"
    );
    assert_eq!(
        diagram_2('b').position(),
        "10/2s7/3K6/1K2s2s2/S5k3/10/6k3/5K4/7k2/10 b"
    );
    assert_eq!(diagram_1('b').outcome(), None);
    assert_eq!(diagram_2('w').outcome(), None);
}

// ---- Examples E1–E7 ----

#[test]
fn e1_push_south_captures_the_soldier_on_d2_and_wins() {
    let mut g = diagram_1('b');
    let applied = play(&mut g, "d5-d4");
    assert_eq!(applied.notation, "d5-d4");
    // Phalanx d4, d3 moves to d3, d2; d2 captured; the Khan on d4; no custodian capture (c4
    // survives: b4 beyond it is empty).
    assert_pieces(&g, "kd4 kf5 sd3 sd2 se4 sb3 sb2 Kd7 Kc4 Kc2");
    // d2 was Y's only Soldier in the excerpt: X wins at once by K-15.
    assert_eq!(
        applied.outcome,
        Some(Outcome::win(1, EndReason::NoSoldiers))
    );
}

#[test]
fn e2_push_south_west_captures_the_khan_on_c2() {
    let mut g = diagram_1('b');
    let applied = play(&mut g, "f5-e4");
    // Phalanx e4, d3 moves to d3, c2; White's Khan on c2 is captured; the Khan ends on e4.
    assert_pieces(&g, "kd5 ke4 sd4 sd3 sc2 sb3 sb2 Kd7 Kc4 Sd2");
    assert_eq!(applied.outcome, None);
}

#[test]
fn e3_khan_step_captures_the_khan_on_d5_with_partner_c4() {
    let mut g = diagram_1('w');
    play(&mut g, "d7-e6");
    // d5 lies between e6 and the partner c4: captured. f5 survives (g4 is empty).
    assert_pieces(&g, "kf5 sd4 se4 sb3 sd3 sb2 Ke6 Kc4 Kc2 Sd2");
}

#[test]
fn e4_jump_over_b2_captures_b3_and_b2_survives() {
    let mut g = diagram_1('w');
    assert!(listed(&g, "c2-a2"));
    // The only jump on from a2 would land on c2, where the Khan started (K-12).
    assert!(!listed(&g, "c2-a2-c2"));
    play(&mut g, "c2-a2");
    // b3 between a2 and c4: captured. b2 between a2 and the Khan's own previous square c2:
    // survives (K-13).
    assert_pieces(&g, "kd5 kf5 sd4 se4 sd3 sb2 Kd7 Kc4 Ka2 Sd2");
}

#[test]
fn e5_black_wins_in_one_by_a_support_chain() {
    let g = diagram_2('b');
    let reach = soldier_reach(g.current().board(), Color::Black, sq("h7"));
    for s in ["g1", "h1", "i1", "h5", "g3"] {
        assert!(reach & sq(s).bit() != 0, "{s} in Reach(h7)");
    }
    let mut full = g.clone();
    let applied = play(&mut full, "h7-h5-g3-i1");
    assert_eq!(applied.notation, "h7-i1");
    assert_eq!(applied.outcome, Some(Outcome::win(1, EndReason::GoalRow)));
    let mut pair = g.clone();
    assert_eq!(play(&mut pair, "h7-i1").outcome, applied.outcome);
    assert_eq!(pair.position(), full.position());
    assert!(listed(&g, "h7-i1") && listed(&g, "h7-g1") && listed(&g, "h7-h1"));
}

#[test]
fn e6_green_khan_jumps_f3_h5_f7_d7_d9_capturing_nothing() {
    let mut g = diagram_2('w');
    for prefix in ["f3-h5", "f3-h5-f7", "f3-h5-f7-d7", "f3-h5-f7-d7-d9"] {
        assert!(listed(&g, prefix), "{prefix}");
    }
    let applied = play(&mut g, "f3-h5-f7-d7-d9");
    assert_eq!(applied.notation, "f3-h5-f7-d7-d9");
    assert_eq!(applied.outcome, None);
    // Jumped over g4, g6, e7, d8: all still there; the Khan on d9.
    assert_pieces(&g, "kg6 kg4 kh2 sc9 se7 sh7 Kb7 Kd8 Kd9 Sa6");
}

#[test]
fn e7_soldier_a6_reaches_rank_10_only_after_e6() {
    let goal = Color::White.goal_row();
    let before = diagram_2('w');
    let reach = soldier_reach(before.current().board(), Color::White, sq("a6"));
    assert_eq!(reach & goal, 0);
    assert!(
        !before
            .legal_moves()
            .iter()
            .any(|m| m.starts_with("a6-") && m.ends_with("10"))
    );
    let mut after = diagram_2('w');
    play(&mut after, "f3-h5-f7-d7-d9");
    let reach = soldier_reach(after.current().board(), Color::White, sq("a6"));
    let expected = sq("c10").bit() | sq("d10").bit() | sq("e10").bit();
    assert_eq!(reach & goal, expected);
    // With White to move on that board, a6 goes to d10 via b7 (to c8) then d9, and wins.
    let text = after.position().replace(" b", " w");
    let mut g = game(&text);
    assert!(listed(&g, "a6-c10") && listed(&g, "a6-d10") && listed(&g, "a6-e10"));
    let applied = play(&mut g, "a6-c8-d10");
    assert_eq!(applied.notation, "a6-d10");
    assert_eq!(applied.outcome, Some(Outcome::win(0, EndReason::GoalRow)));
}

// ---- Counts from the start position ----

#[test]
fn start_has_8_khan_steps() {
    assert_eq!(moves_of(&Position::start(), MoveKind::Step).len(), 8);
}

#[test]
fn start_has_16_pushes() {
    assert_eq!(moves_of(&Position::start(), MoveKind::Push).len(), 16);
}

#[test]
fn start_has_18_first_jump_hops_and_104_jump_chain_moves() {
    let jumps = moves_of(&Position::start(), MoveKind::Jump);
    let first_hops = jumps.iter().filter(|m| m.matches('-').count() == 1).count();
    assert_eq!(first_hops, 18);
    assert_eq!(jumps.len(), 104);
}

#[test]
fn start_has_76_soldier_destinations() {
    assert_eq!(moves_of(&Position::start(), MoveKind::Soldier).len(), 76);
}

#[test]
fn start_perft_1_is_204_and_perft_2_is_41616() {
    assert_eq!(Game::new().legal_moves().len(), 204);
    assert_eq!(perft(&Position::start(), 1), 204);
    assert_eq!(perft(&Position::start(), 2), 41_616);
}

#[test]
fn start_has_130_distinct_positions_after_one_turn() {
    let start = Position::start();
    let mut by_kind = std::collections::HashMap::<MoveKind, HashSet<Position>>::new();
    for_each_move(&start, &mut |kind, _, child| {
        by_kind.entry(kind).or_default().insert(*child);
    });
    let distinct = |kind| by_kind.get(&kind).map_or(0, HashSet::len);
    assert_eq!(distinct(MoveKind::Soldier), 76);
    assert_eq!(distinct(MoveKind::Step), 8);
    assert_eq!(distinct(MoveKind::Push), 16);
    assert_eq!(distinct(MoveKind::Jump), 30);
    let all: HashSet<Position> = by_kind.into_values().flatten().collect();
    assert_eq!(all.len(), 130);
    assert_eq!(turn_perft(&start, 1), 130);
    assert_eq!(super::turn_children(&start).len(), 130);
}

#[test]
fn start_turn_perft_2_is_16900() {
    assert_eq!(turn_perft(&Position::start(), 2), 16_900);
}

// ---- K-1 Board ----

#[test]
fn k1_board_is_10x10_with_squares_a1_to_j10_and_8_neighbours() {
    assert!("j10".parse::<Square>().is_ok());
    assert!("k1".parse::<Square>().is_err() && "a11".parse::<Square>().is_err());
    // 11 files or 11 ranks do not read.
    assert!(Position::from_text(&START_TEXT.replacen("ssssssssss", "sssssssssss", 1)).is_err());
    assert!(Position::from_text(&START_TEXT.replacen("10/", "10/10/", 1)).is_err());
    // A Khan in the middle has 8 steps, one in a corner 3 (here 2: a2 is taken).
    let middle = setup("Ke5 Sa1 sj10", 'w');
    assert_eq!(moves_of(middle.current(), MoveKind::Step).len(), 8);
    let corner = setup("Ka1 Sa2 sj10", 'w');
    assert_eq!(moves_of(corner.current(), MoveKind::Step).len(), 2);
}

// ---- K-2, K-3, K-4 Sides, setup, goal rows ----

#[test]
fn k2_white_moves_first_and_plays_seat_0() {
    let mut g = Game::new();
    assert_eq!(g.to_move(), Some(0));
    assert_eq!(g.current().side_to_move(), Color::White);
    assert_eq!((g.color(0), g.color(1)), ("white", "black"));
    assert_eq!((g.players(), g.in_play()), (2, vec![0, 1]));
    play(&mut g, "a3-a4");
    assert_eq!(g.to_move(), Some(1));
    assert!(g.position().ends_with(" b"));
}

#[test]
fn k3_start_position_has_20_soldiers_and_6_khans_each() {
    let g = Game::new();
    assert_eq!(g.position(), START_TEXT);
    let board = *g.current().board();
    for color in [Color::White, Color::Black] {
        assert_eq!(board.count(color, super::Role::Soldier), 20);
        assert_eq!(board.count(color, super::Role::Khan), 6);
    }
    let mut expected = Vec::new();
    for file in "abcdefghij".chars() {
        for rank in [1, 3] {
            expected.push(format!("S{file}{rank}"));
        }
        for rank in [8, 10] {
            expected.push(format!("s{file}{rank}"));
        }
    }
    for file in "acefhj".chars() {
        expected.push(format!("K{file}2"));
        expected.push(format!("k{file}9"));
    }
    assert_pieces(&g, &expected.join(" "));
    // More than 20 Soldiers or 6 Khans of a side is not a Khan position.
    let err = Position::from_text("SSSSSSSSSS/10/10/10/10/10/10/SSSSSSSSSS/S9/s9 w").unwrap_err();
    assert_eq!(err.code, RuleErrorCode::BadPosition);
    assert!(err.message.contains("21 Soldiers"), "{}", err.message);
}

#[test]
fn k4_goal_row_is_rank_10_for_white_and_rank_1_for_black() {
    let mut white = setup("Sa9 sj10", 'w');
    assert_eq!(
        play(&mut white, "a9-b10").outcome,
        Some(Outcome::win(0, EndReason::GoalRow))
    );
    let mut black = setup("sa2 Sj1", 'b');
    assert_eq!(
        play(&mut black, "a2-a1").outcome,
        Some(Outcome::win(1, EndReason::GoalRow))
    );
    // A Black Soldier on rank 10 and a White one on rank 1 are at home, not at their goal.
    assert_eq!(setup("sa10 Sa1", 'w').outcome(), None);
    // A position where a side already stands on its goal row is over.
    assert_eq!(
        setup("Sa10 sj10", 'b').outcome(),
        Some(Outcome::win(0, EndReason::GoalRow))
    );
}

// ---- K-5 A turn ----

#[test]
fn k5_a_turn_moves_one_own_piece_and_passing_is_not_a_move() {
    let g = Game::new();
    let err = refused(&g, "a10-a9");
    assert_eq!(err.code, RuleErrorCode::IllegalMove);
    assert!(err.message.starts_with("K-5"), "{}", err.message);
    assert!(refused(&g, "e5-e6").message.contains("no piece on e5"));
    // A "move" that stays put is no move.
    assert_eq!(refused(&g, "e2-e2").code, RuleErrorCode::IllegalMove);
    assert_eq!(refused(&g, "a3-a3").code, RuleErrorCode::IllegalMove);
    for bad in ["", "e2", "e2e3", "pass", "E2-E3", "e2-e3 "] {
        assert_eq!(refused(&g, bad).code, RuleErrorCode::BadNotation, "{bad:?}");
    }
}

// ---- K-6..K-9 Soldiers ----

#[test]
fn k6_soldier_steps_to_any_adjacent_empty_square_backwards_too() {
    // A lone White Soldier on e5 (no Khan to support it): the 8 steps, nothing else.
    let g = setup("Se5 sj10", 'w');
    assert_eq!(
        g.legal_moves(),
        [
            "e5-d4", "e5-d5", "e5-d6", "e5-e4", "e5-e6", "e5-f4", "e5-f5", "e5-f6"
        ]
    );
    // Not onto an occupied square.
    let g = setup("Se5 sf5 sj10", 'w');
    assert!(!listed(&g, "e5-f5"));
    let err = refused(&g, "e5-f5");
    assert!(err.message.contains("f5 is not empty"), "{}", err.message);
}

#[test]
fn k6_soldiers_never_capture() {
    // e6 holds a Black Khan with a White Khan on e7 beyond: a Khan landing on e5 would capture
    // it (K-13); a Soldier stepping there does not.
    let mut g = setup("Sd4 ke6 Ke7 sj10", 'w');
    play(&mut g, "d4-e5");
    assert_pieces(&g, "Se5 ke6 Ke7 sj10");
}

#[test]
fn k7_support_moves_a_soldier_to_any_empty_square_next_to_a_friendly_khan() {
    // White Soldier h7, White Khan g6: h7-h5 (two squares away) via g6; g6 does not move.
    let mut g = setup("Sh7 Kg6 sa10", 'w');
    for to in ["h5", "f5", "f6", "f7", "g5", "g7", "h6"] {
        assert!(listed(&g, &format!("h7-{to}")), "{to}");
    }
    play(&mut g, "h7-h5");
    assert_pieces(&g, "Sh5 Kg6 sa10");
    // An enemy Khan supports nothing.
    let g = setup("Sh7 kg6 sa10", 'w');
    assert!(!listed(&g, "h7-h5"));
    let err = refused(&g, "h7-h5");
    assert!(err.message.starts_with("K-6..K-9"), "{}", err.message);
}

#[test]
fn k8_support_chain_uses_several_khans_and_the_path_is_recorded_as_from_to() {
    // a2 -> c3 via b3, then c3 -> e4 via d3.
    let mut g = setup("Sa2 Kb3 Kd3 sj10", 'w');
    assert!(listed(&g, "a2-e4"));
    let applied = play(&mut g, "a2-c3-e4");
    assert_eq!(applied.notation, "a2-e4");
    assert_eq!(applied.display, "a2-e4");
    assert_pieces(&g, "Se4 Kb3 Kd3 sj10");
}

#[test]
fn k8_a_path_with_a_hop_that_is_not_a_support_is_refused() {
    // a2-a1 is a step, not a support (no Khan next to both), so it cannot start a path.
    let g = setup("Sa2 Kb3 Kd3 sj10", 'w');
    let err = refused(&g, "a2-a1-c2");
    assert!(err.message.starts_with("K-7"), "{}", err.message);
    // Every hop lands on an empty square.
    let g = setup("Sa2 Kb3 Kd3 Sc3 sj10", 'w');
    let err = refused(&g, "a2-c3-e4");
    assert!(err.message.contains("c3 is not empty"), "{}", err.message);
}

#[test]
fn k9_a_soldier_move_is_a_pair_and_the_start_square_is_not_a_destination() {
    let g = setup("Sa2 Kb3 sj10", 'w');
    // a2-c4-a2 comes back to the start: no move.
    let err = refused(&g, "a2-c4-a2");
    assert!(err.message.starts_with("K-9"), "{}", err.message);
    // Only pairs are listed, one per destination: steps a1 b1 b2 a3, supports via b3 a4 b4 c4
    // c3 c2 (and a3 b2 again).
    let moves = g.legal_moves();
    let soldier: Vec<&str> = moves
        .iter()
        .filter(|m| m.starts_with("a2-"))
        .map(String::as_str)
        .collect();
    assert_eq!(
        soldier,
        [
            "a2-a1", "a2-a3", "a2-a4", "a2-b1", "a2-b2", "a2-b4", "a2-c2", "a2-c3", "a2-c4"
        ]
    );
}

#[test]
fn k9_a_path_may_pass_through_the_soldiers_own_start_square() {
    // d4 -> c5 (via c4) -> d4 (its start, empty now, via c4) -> f5 (via e4).
    let mut g = setup("Sd4 Kc4 Ke4 sj10", 'w');
    let applied = play(&mut g, "d4-c5-d4-f5");
    assert_eq!(applied.notation, "d4-f5");
    assert_pieces(&g, "Sf5 Kc4 Ke4 sj10");
}

// ---- K-10 Khan step ----

#[test]
fn k10_khan_steps_to_an_adjacent_empty_square_then_captures() {
    let mut g = setup("Kc6 ke6 sa10 Sa1", 'w');
    let applied = play(&mut g, "c6-d6");
    assert_eq!(applied.notation, "c6-d6");
    // d6 next to e6 (Black Khan) with nothing beyond: no capture.
    assert_pieces(&g, "Kd6 ke6 sa10 Sa1");
    // With a White Khan on f6 beyond e6, the same step captures it.
    let mut g = setup("Kc6 ke6 Kf6 sa10 Sa1", 'w');
    play(&mut g, "c6-d6");
    assert_pieces(&g, "Kd6 Kf6 sa10 Sa1");
}

#[test]
fn k10_khan_steps_only_onto_an_empty_square() {
    let g = setup("Kc6 kd6 sa10 Sa1", 'w');
    let err = refused(&g, "c6-d6");
    assert!(
        err.message.contains("holds a Black Khan"),
        "{}",
        err.message
    );
    let err = refused(&g, "c6-c9");
    assert!(err.message.starts_with("K-10..K-12"), "{}", err.message);
}

// ---- K-11 Push ----

#[test]
fn push_into_an_empty_square_just_moves_the_phalanx() {
    let mut g = Game::new();
    let applied = play(&mut g, "e2-e3");
    assert_eq!(applied.notation, "e2-e3");
    assert_eq!(
        g.position(),
        "ssssssssss/k1k1kk1k1k/ssssssssss/10/10/10/4S5/SSSSKSSSSS/K1K2K1K1K/SSSSSSSSSS b"
    );
}

#[test]
fn push_captures_enemy_soldier_on_lead_square() {
    let mut g = setup("Ke2 Se3 se4 Sa1 sa10", 'w');
    play(&mut g, "e2-e3");
    assert_pieces(&g, "Ke3 Se4 Sa1 sa10");
}

#[test]
fn push_captures_enemy_khan_on_lead_square() {
    let mut g = setup("Ke2 Se3 ke4 Sa1 sa10", 'w');
    play(&mut g, "e2-e3");
    assert_pieces(&g, "Ke3 Se4 Sa1 sa10");
}

#[test]
fn friendly_khan_blocks_a_push() {
    let g = setup("Ke2 Se3 Ke4 Sa1 sa10", 'w');
    assert!(!listed(&g, "e2-e3"));
    let err = refused(&g, "e2-e3");
    assert!(
        err.message.contains("friendly Khan stands on e4"),
        "{}",
        err.message
    );
}

#[test]
fn board_edge_blocks_a_push() {
    let g = setup("Kg5 Sh5 Si5 Sj5 sa10", 'w');
    assert!(!listed(&g, "g5-h5"));
    let err = refused(&g, "g5-h5");
    assert!(err.message.contains("edge of the board"), "{}", err.message);
}

#[test]
fn push_moves_a_long_diagonal_phalanx_and_the_khan_takes_its_first_square() {
    let mut g = setup("Kb2 Sc3 Sd4 Se5 sj10", 'w');
    play(&mut g, "b2-c3");
    assert_pieces(&g, "Kc3 Sd4 Se5 Sf6 sj10");
}

#[test]
fn push_then_custodian_capture_from_the_khans_new_square() {
    // e2 pushes e3 into e4; the Khan lands on e3 next to d3 (Black) with c3 (White Khan) beyond.
    let mut g = setup("Ke2 Se3 sd3 Kc3 sa10 Sa1", 'w');
    play(&mut g, "e2-e3");
    assert_pieces(&g, "Ke3 Se4 Kc3 sa10 Sa1");
}

#[test]
fn push_needs_the_khan_directly_behind_the_phalanx() {
    // e2 and a Soldier on e4 (e3 empty): e2-e3 is a step, e2-e4 nothing.
    let g = setup("Ke2 Se4 sa10", 'w');
    let mut step = g.clone();
    play(&mut step, "e2-e3");
    assert_pieces(&step, "Ke3 Se4 sa10");
    let err = refused(&g, "e2-e4");
    assert!(err.message.contains("no piece on e3"), "{}", err.message);
    assert!(refused(&g, "e2-e5").message.starts_with("K-10..K-12"));
}

#[test]
fn push_onto_the_goal_row_wins() {
    let mut g = setup("Ke8 Se9 sj10", 'w');
    let applied = play(&mut g, "e8-e9");
    assert_eq!(applied.outcome, Some(Outcome::win(0, EndReason::GoalRow)));
}

// ---- K-12 Jump ----

#[test]
fn jump_over_any_adjacent_piece_leaves_it_in_place() {
    // Around the White Khan e5: a White Soldier d5, a White Khan f5, a Black Soldier e6, a Black
    // Khan e4. Four jumps, none captures the piece jumped.
    let g = setup("Ke5 Sd5 Kf5 se6 ke4 sj10", 'w');
    for mv in ["e5-c5", "e5-g5", "e5-e7", "e5-e3"] {
        let mut copy = g.clone();
        play(&mut copy, mv);
        assert_eq!(pieces(&copy).len(), 6, "{mv}");
    }
}

#[test]
fn jump_chain_captures_after_every_landing_and_every_prefix_is_a_move() {
    // a1 over b2 onto c3 (capturing d3: e3 beyond), then over c4 onto c5 (capturing d5: e5).
    let g = setup("Ka1 Sb2 sd3 Ke3 Sc4 sd5 Ke5 sj10", 'w');
    assert!(listed(&g, "a1-c3") && listed(&g, "a1-c3-c5"));
    let mut first = g.clone();
    assert_eq!(play(&mut first, "a1-c3").outcome, None);
    assert_pieces(&first, "Kc3 Sb2 Ke3 Sc4 sd5 Ke5 sj10");
    let mut both = g.clone();
    play(&mut both, "a1-c3-c5");
    assert_pieces(&both, "Kc5 Sb2 Ke3 Sc4 Ke5 sj10");
}

#[test]
fn jump_needs_a_piece_to_jump_over_and_an_empty_landing_square() {
    let g = setup("Ke3 Se4 Se5 Sa1 sj10", 'w');
    let err = refused(&g, "e3-c3");
    assert!(err.message.contains("no piece on d3"), "{}", err.message);
    let err = refused(&g, "e3-e5");
    assert!(err.message.contains("not empty"), "{}", err.message);
}

#[test]
fn jump_may_not_revisit_the_start_square() {
    // a1 over b2 to c3, and back over b2 to a1: refused and not listed.
    let g = setup("Ka1 Sb2 sj10", 'w');
    assert!(listed(&g, "a1-c3"));
    assert!(!listed(&g, "a1-c3-a1"));
    let err = refused(&g, "a1-c3-a1");
    assert_eq!(
        err.message,
        "K-12: a Khan may not land twice on the same square in one turn (a1)"
    );
}

#[test]
fn jump_may_not_land_twice_on_the_same_square() {
    // A ring: c3 -> c5 -> e5 -> e3, and not on to c3 (the start) nor back to c5.
    let g = setup("Kc3 Sc4 Sd5 Se4 Sd3 sj10", 'w');
    assert!(listed(&g, "c3-c5-e5-e3"));
    assert!(!listed(&g, "c3-c5-e5-e3-c3"));
    assert!(refused(&g, "c3-c5-e5-e3-c3").message.contains("(c3)"));
    assert!(refused(&g, "c3-c5-e5-c5").message.contains("(c5)"));
}

// ---- K-13 Custodian capture ----

#[test]
fn custodian_capture_needs_another_friendly_khan_beyond() {
    // d6 next to e6 (Black); f6 beyond holds a White Soldier, not a Khan: no capture.
    let mut g = setup("Kc6 se6 Sf6 Sa1 sj10", 'w');
    play(&mut g, "c6-d6");
    assert_pieces(&g, "Kd6 se6 Sf6 Sa1 sj10");
}

#[test]
fn one_landing_captures_in_several_directions() {
    // e4 -> e5 with enemies d5, f5, e6, f6 and partner Khans c5, g5, e7, g7.
    let mut g = setup("Ke4 sd5 sf5 se6 kf6 Kc5 Kg5 Ke7 Kg7 Sa1 sj10", 'w');
    play(&mut g, "e4-e5");
    assert_pieces(&g, "Ke5 Kc5 Kg5 Ke7 Kg7 Sa1 sj10");
}

#[test]
fn moving_between_two_enemy_khans_is_safe() {
    let mut g = setup("Ke3 kd4 kf4 sa10 Sa1", 'w');
    play(&mut g, "e3-e4");
    assert_pieces(&g, "Ke4 kd4 kf4 sa10 Sa1");
    // Nor does Black capture it by moving something else.
    play(&mut g, "a10-a9");
    assert_pieces(&g, "Ke4 kd4 kf4 sa9 Sa1");
}

#[test]
fn own_previous_square_is_never_a_partner() {
    // E4's b2: between the landing a2 and c2, the square the Khan just left.
    let mut g = diagram_1('w');
    play(&mut g, "c2-a2");
    assert!(pieces(&g).contains(&"sb2".to_owned()));
}

// ---- K-14, K-15 Wins ----

#[test]
fn soldier_on_its_goal_row_wins_by_a_step() {
    let mut g = setup("Sf9 sj10", 'w');
    let applied = play(&mut g, "f9-f10");
    assert_eq!(applied.outcome, Some(Outcome::win(0, EndReason::GoalRow)));
    assert_eq!(g.to_move(), None);
    assert!(g.legal_moves().is_empty());
    assert_eq!(g.legal_moves_json(), serde_json::json!({}));
    assert_eq!(
        g.clone().play("f10-f9").unwrap_err().code,
        RuleErrorCode::GameOver
    );
}

#[test]
fn capturing_the_last_soldier_wins_whatever_khans_are_left() {
    // Black has one Soldier (e5) and two Khans; a White Khan steps to d5 with f5 beyond.
    let mut g = setup("Kc5 se5 Kf5 ka10 kj10 Sa1", 'w');
    let applied = play(&mut g, "c5-d5");
    assert_eq!(
        applied.outcome,
        Some(Outcome::win(0, EndReason::NoSoldiers))
    );
}

#[test]
fn game_ends_mid_chain_when_the_last_enemy_soldier_falls() {
    // b5 jumps c5 onto d5, capturing e5 (partner f5), Black's last Soldier. The chain could
    // otherwise go on over d6 to d7.
    let g = setup("Kb5 Sc5 se5 Kf5 Sd6 kj9", 'w');
    assert!(listed(&g, "b5-d5"));
    assert!(!listed(&g, "b5-d5-d7"));
    let err = refused(&g, "b5-d5-d7");
    assert!(
        err.message.contains("cannot continue past that landing"),
        "{}",
        err.message
    );
    let mut done = g.clone();
    let applied = play(&mut done, "b5-d5");
    assert_eq!(
        applied.outcome,
        Some(Outcome::win(0, EndReason::NoSoldiers))
    );
    // Without the partner on f5 there is no capture, and the chain goes on.
    let g = setup("Kb5 Sc5 se5 Sd6 kj9 Ka1", 'w');
    assert!(listed(&g, "b5-d5-d7"));
}

#[test]
fn khan_landing_on_a_goal_row_does_not_win_and_the_chain_goes_on() {
    // K-14 is about Soldiers: a Khan on rank 10 wins nothing, so a chain passes through.
    let mut g = setup("Ke8 Se9 sd10 Sa1", 'w');
    assert!(listed(&g, "e8-e10") && listed(&g, "e8-e10-c10"));
    let applied = play(&mut g, "e8-e10");
    assert_eq!(applied.outcome, None);
}

// ---- K-16 No legal move ----

#[test]
fn no_legal_move_is_a_draw() {
    // White's only piece, a Soldier on a1, is hemmed in by Black pieces on a2, b2, b1.
    let g = setup("Sa1 sa2 sb2 kb1", 'w');
    assert_eq!(g.outcome(), Some(Outcome::draw(EndReason::NoMoves)));
    assert_eq!(g.to_move(), None);
    // The same, reached by a move: Black's Khan steps c1-b1.
    let mut g = setup("Sa1 sa2 sb2 kc1", 'b');
    let applied = play(&mut g, "c1-b1");
    assert_eq!(applied.outcome, Some(Outcome::draw(EndReason::NoMoves)));
}

// ---- K-17 Repetition ----

#[test]
fn third_repetition_loses_for_the_player_who_made_it() {
    // The start position comes back after every 4 turns; its third occurrence is made by Black.
    let mut g = Game::new();
    let cycle = "a2-b2 a9-b9 b2-a2 b9-a9";
    play(&mut g, cycle);
    assert_eq!(g.repetitions(), 2);
    assert_eq!(g.outcome(), None);
    play(&mut g, "a2-b2 a9-b9 b2-a2");
    assert_eq!(g.outcome(), None);
    let applied = play(&mut g, "b9-a9");
    assert_eq!(
        applied.outcome,
        Some(Outcome::win(0, EndReason::Repetition))
    );
    assert_eq!(g.repetitions(), 3);
    // Started with Black to move, the same cycle's third occurrence is made by White.
    let mut g = game(&START_TEXT.replace(" w", " b"));
    play(&mut g, "a9-b9 a2-b2 b9-a9 b2-a2 a9-b9 a2-b2 b9-a9");
    assert_eq!(g.outcome(), None);
    let applied = play(&mut g, "b2-a2");
    assert_eq!(
        applied.outcome,
        Some(Outcome::win(1, EndReason::Repetition))
    );
}

#[test]
fn repetition_cannot_be_claimed_it_is_automatic() {
    let mut g = Game::new();
    let err = g.claim_draw(0, EndReason::Repetition).unwrap_err();
    assert_eq!(err.code, RuleErrorCode::CannotClaim);
    assert!(err.message.contains("K-17"), "{}", err.message);
    assert_eq!(g.outcome(), None);
}

// ---- The Rules interface ----

#[test]
fn any_game_hosts_khan_with_only_a_start_position_and_two_players() {
    let kind: GameKind = "khan".parse().unwrap();
    assert_eq!(kind, GameKind::Khan);
    assert_eq!(kind.as_str(), "khan");
    let g = AnyGame::new(kind, &GameOptions::default()).unwrap();
    assert_eq!(g.position(), START_TEXT);
    assert_eq!(g.kind(), GameKind::Khan);
    let two = GameOptions {
        players: Some(2),
        start_position: Some(diagram_1('w').position()),
        ..GameOptions::default()
    };
    assert_eq!(
        AnyGame::new(kind, &two).unwrap().position(),
        "10/10/10/3K6/10/3k1k4/2Kss5/1s1s6/1sKS6/10 w"
    );
    for options in [
        GameOptions {
            players: Some(3),
            ..GameOptions::default()
        },
        GameOptions {
            layout: Some("1".repeat(36)),
            ..GameOptions::default()
        },
        GameOptions {
            colors: Some(vec!["white".into(), "black".into()]),
            ..GameOptions::default()
        },
    ] {
        let err = AnyGame::new(kind, &options).unwrap_err();
        assert_eq!(err.code, RuleErrorCode::BadOption, "{options:?}");
    }
    let bad = GameOptions {
        start_position: Some("10/10 w".into()),
        ..GameOptions::default()
    };
    assert_eq!(
        AnyGame::new(kind, &bad).unwrap_err().code,
        RuleErrorCode::BadPosition
    );
}

#[test]
fn resigning_gives_the_game_to_the_other_seat() {
    let mut g = Game::new();
    let resigned = g.resign(0).unwrap();
    assert_eq!(
        resigned.outcome,
        Some(Outcome::win(1, EndReason::Resignation))
    );
    assert_eq!(g.to_move(), None);
    assert_eq!(g.resign(1).unwrap_err().code, RuleErrorCode::GameOver);
    assert_eq!(
        Game::new().resign(2).unwrap_err().code,
        RuleErrorCode::IllegalMove
    );
}

#[test]
fn move_tree_flattens_to_the_move_list() {
    for g in [
        Game::new(),
        diagram_1('w'),
        diagram_1('b'),
        diagram_2('w'),
        diagram_2('b'),
    ] {
        let tree = g.legal_moves_json();
        assert_eq!(
            flatten_move_tree(&tree),
            g.legal_moves(),
            "{}",
            g.position()
        );
    }
    // Its shape: squares of pieces, then next squares; chain continuations nested.
    let tree = diagram_2('w').legal_moves_json();
    assert!(tree["f3"]["h5"]["f7"]["d7"]["d9"].is_object());
    assert_eq!(tree["a6"]["a5"], serde_json::json!({}));
}
