//! One or more tests per rule of the Khan-Tsin rules file (T-1..T-15), its examples KT-1..KT-5
//! and the options of a room. Perft vectors are in `perft.rs`.

use super::{Color, Game, Phase, Position, SQUARES};
use crate::rules::{
    AnyGame, Applied, EndReason, GameKind, GameOptions, Outcome, RuleErrorCode, Rules,
};

/// A layout with the given square types (1 single, 2 double, 3 triple) and the other squares
/// filled so that there are twelve of each (T-1).
fn layout_with(types: &[(usize, u8)]) -> String {
    let mut digits = [0u8; SQUARES];
    let mut left = [12i32; 4];
    for &(square, kind) in types {
        digits[square] = kind;
        left[usize::from(kind)] -= 1;
    }
    for digit in digits.iter_mut().filter(|d| **d == 0) {
        let kind = (1..=3).find(|&k| left[k] > 0).unwrap_or(1);
        left[kind] -= 1;
        *digit = kind as u8;
    }
    digits.iter().map(|d| char::from(b'0' + d)).collect()
}

/// A partial position in the movement phase (field `m`): the stacks given as
/// (square, type, letters), every other square empty.
fn partial_text(stacks: &[(usize, u8, &str)], colors: &str, to_move: &str) -> String {
    let mut cells = vec!["-".to_string(); SQUARES];
    for &(square, _, letters) in stacks {
        cells[square] = letters.to_string();
    }
    let types: Vec<(usize, u8)> = stacks.iter().map(|&(sq, kind, _)| (sq, kind)).collect();
    format!(
        "{} {} {colors} {to_move} m",
        cells.join("/"),
        layout_with(&types)
    )
}

fn partial(stacks: &[(usize, u8, &str)], colors: &str, to_move: &str) -> Game {
    let text = partial_text(stacks, colors, to_move);
    Game::from_text(&text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn game(text: &str) -> Game {
    Game::from_text(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn play(game: &mut Game, moves: &str) -> Applied {
    let mut last = None;
    for mv in moves.split_whitespace() {
        last = Some(game.play(mv).unwrap_or_else(|e| panic!("{mv}: {e}")));
    }
    last.expect("at least one move")
}

fn stack(game: &Game, square: usize) -> String {
    game.current()
        .board()
        .stack(square)
        .pawns()
        .iter()
        .map(|p| p.letter())
        .collect()
}

fn illegal(game: &mut Game, mv: &str, words: &str) {
    let before = game.position();
    let err = game.play(mv).unwrap_err();
    assert_eq!(
        err.code,
        RuleErrorCode::IllegalMove,
        "{mv}: {}",
        err.message
    );
    assert!(err.message.contains(words), "{mv}: {}", err.message);
    assert_eq!(game.position(), before, "{mv} changed the game");
}

fn options(players: Option<u8>, colors: Option<&[&str]>, layout: Option<&str>) -> GameOptions {
    GameOptions {
        start_position: None,
        players,
        layout: layout.map(str::to_owned),
        colors: colors.map(|c| c.iter().map(|s| s.to_string()).collect()),
    }
}

fn three_players() -> Game {
    Game::from_options(&options(Some(3), None, None)).unwrap()
}

/// Places every pawn of the game: each player in turn puts a pawn on the lowest free square of
/// the type T-5 asks, the Khan-pawn with its first placement.
fn place_all(game: &mut Game) {
    while game.current().phase() == Phase::Placement {
        let legal = game.legal_moves();
        let khan = legal.iter().find(|m| m.starts_with('K'));
        let mv = khan.unwrap_or(&legal[0]).clone();
        play(game, &mv);
    }
}

const TWO: &str = "g/b/b/w/b/b/w/G/b/w/w/g/g/w/w/b/b/b/w/W/w/b/b/g/b/g/g/g/w/g/g/g/w/b/g/w \
                   231231231231231231231231231231231231 wg w";
const THREE: &str = "w/w/w/g/g/w/w/b/g/g/g/w/w/B/w/b/b/b/g/W/g/b/G/b/g/w/g/w/b/b/b/g/g/b/w/b \
                     231231231231231231231231231231231231 wgb w";

// ---- Examples KT-1..KT-5 ----

/// KT-1's position: 0 triple [W]; 4 single [G,B]; 10 double [B]; 17 single [W,G,Wk];
/// 29 triple [B,Bk]; 33 double [G].
fn kt1(to_move: &str) -> Game {
    partial(
        &[
            (0, 3, "w"),
            (4, 1, "gb"),
            (10, 2, "b"),
            (17, 1, "wgW"),
            (29, 3, "bB"),
            (33, 2, "g"),
        ],
        "wgb",
        to_move,
    )
}

#[test]
fn kt1_white_has_exactly_the_three_moves_from_17_counter_clockwise() {
    let g = kt1("w");
    assert_eq!(g.legal_moves(), ["17:1-", "17:2-", "17:3-"]);
    for (mv, onto) in [("17:1-", "bW"), ("17:2-", "bgW"), ("17:3-", "bwgW")] {
        let mut after = g.clone();
        let applied = play(&mut after, mv);
        assert_eq!(applied.display, format!("{mv} to 10"));
        assert_eq!(stack(&after, 10), onto, "{mv}");
        assert_eq!(after.to_move(), Some(1));
    }
    let mut g = g;
    // From 0 (triple): 4, 10, 17 clockwise and 33, 29, 17 counter-clockwise: a Khan on top.
    illegal(&mut g, "0:1+", "T-11");
    illegal(&mut g, "0:1-", "T-11");
    // From 17 (single) clockwise: 29, topped by blue's Khan.
    illegal(&mut g, "17:1+", "blue's face-up Khan-pawn");
}

#[test]
fn kt2_green_has_exactly_one_move_wrapping_round_35_to_0() {
    let mut g = kt1("g");
    assert_eq!(g.legal_moves(), ["33:1+"]);
    illegal(&mut g, "4:1+", "topped by blue");
    illegal(&mut g, "33:1-", "T-11");
    play(&mut g, "33:1+");
    assert_eq!(stack(&g, 4), "gbg");
    assert!(stack(&g, 33).is_empty());
}

#[test]
fn kt3_a_destination_with_three_white_takes_a_lone_green_only() {
    // 10 single [W,G]; 11 single [W,G,W,B,W]; both directions from 10 reach 11: one move, `+`.
    let mut g = partial(&[(10, 1, "wg"), (11, 1, "wgwbw")], "wg", "g");
    assert_eq!(g.legal_moves(), ["10:1+"]);
    illegal(&mut g, "10:2+", "4 white pawns on 11");
    illegal(&mut g, "10:2+", "T-10");
    let applied = play(&mut g, "10:1-");
    assert_eq!(applied.notation, "10:1+");
    assert_eq!(stack(&g, 11), "wgwbwg");
}

#[test]
fn kt4_a_nine_stack_topped_by_the_movers_khan_wins() {
    let mut g = partial(&[(3, 1, "W"), (7, 2, "bgwbgwbg"), (20, 1, "g")], "wg", "w");
    let applied = play(&mut g, "3:1+");
    assert_eq!(stack(&g, 7), "bgwbgwbgW");
    assert_eq!(applied.outcome, Some(Outcome::win(0, EndReason::KhanTsin)));
    assert_eq!(g.outcome(), applied.outcome);
    assert_eq!(g.to_move(), None);
    assert!(g.legal_moves().is_empty());
    assert_eq!(g.play("20:1+").unwrap_err().code, RuleErrorCode::GameOver);
}

#[test]
fn kt4_the_same_landing_with_a_plain_pawn_on_top_does_not_win() {
    let mut g = partial(&[(3, 1, "w"), (7, 2, "bgwbgwbg"), (20, 1, "g")], "wg", "w");
    let applied = play(&mut g, "3:1+");
    assert_eq!(stack(&g, 7), "bgwbgwbgw");
    assert_eq!(applied.outcome, None);
    // Green's only stack cannot land on the full 9-stack (T-10): green is skipped (T-12).
    assert_eq!(applied.skipped, vec![1]);
    assert_eq!(g.to_move(), Some(0));
}

#[test]
fn kt5_a_neutral_topped_stack_never_moves_and_neutral_pawns_ride_along() {
    let stacks = [(0, 1, "wb"), (5, 1, "bbg"), (10, 1, "w")];
    let mut green = partial(&stacks, "wg", "g");
    assert_eq!(
        green.legal_moves(),
        ["5:1+", "5:1-", "5:2+", "5:2-", "5:3+", "5:3-"]
    );
    play(&mut green, "5:3+");
    assert_eq!(stack(&green, 10), "wbbg");
    let mut white = partial(&stacks, "wg", "w");
    illegal(&mut white, "0:1+", "topped by blue");
    illegal(&mut white, "0:2-", "T-8");
    assert!(white.legal_moves().iter().all(|m| m.starts_with("10:")));
}

// ---- Components and set-up (T-1..T-6) ----

#[test]
fn t1_t3_the_layout_is_data_and_part_of_the_position() {
    let layout = format!("{}{}{}", "3".repeat(12), "2".repeat(12), "1".repeat(12));
    let g = Game::from_options(&options(None, None, Some(&layout))).unwrap();
    assert_eq!(g.position().split(' ').nth(1), Some(layout.as_str()));
    // The first placements go on triple squares, here 0..=11.
    let expected: Vec<String> = (0..12)
        .flat_map(|sq| [format!("K{sq}"), format!("p{sq}")])
        .collect();
    let mut sorted = expected;
    sorted.sort();
    assert_eq!(g.legal_moves(), sorted);
}

#[test]
fn t4_t7_default_seats_colours_and_turn_order() {
    let two = Game::new();
    assert_eq!(two.players(), 2);
    assert_eq!(
        (two.color(0), two.color(1), two.color(2)),
        ("white", "green", "")
    );
    assert_eq!(two.to_move(), Some(0));
    assert_eq!(two.in_play(), vec![0, 1]);
    assert_eq!(
        two.position(),
        format!("{} {} wg w", vec!["-"; 36].join("/"), "231".repeat(12))
    );
    let three = three_players();
    assert_eq!(three.players(), 3);
    assert_eq!(
        (three.color(0), three.color(1), three.color(2)),
        ("white", "green", "blue")
    );
    assert_eq!(three.in_play(), vec![0, 1, 2]);
}

#[test]
fn t4_chosen_colours_take_turns_lightest_first() {
    let g = Game::from_options(&options(None, Some(&["blue", "white"]), None)).unwrap();
    assert_eq!((g.players(), g.color(0), g.color(1)), (2, "white", "blue"));
    assert!(g.position().ends_with(" wb w"));
    let g = Game::from_options(&options(Some(2), Some(&["blue", "green"]), None)).unwrap();
    assert_eq!((g.color(0), g.color(1)), ("green", "blue"));
    assert!(g.position().ends_with(" gb g"));
    let g = Game::from_options(&options(None, Some(&["green", "blue", "white"]), None)).unwrap();
    assert_eq!((g.players(), g.color(0), g.color(2)), (3, "white", "blue"));
}

#[test]
fn t4_bad_options_are_refused() {
    let layout = "231".repeat(12);
    for (opts, words) in [
        (options(Some(1), None, None), "2 or 3 players"),
        (options(Some(4), None, None), "2 or 3 players"),
        (options(None, Some(&["red", "white"]), None), "\"red\""),
        (options(None, Some(&["white", "white"]), None), "twice"),
        (
            options(Some(3), Some(&["white", "green"]), None),
            "2 colours for 3 players",
        ),
        (
            options(Some(2), Some(&["white", "green", "blue"]), None),
            "3 colours for 2",
        ),
        (options(None, Some(&["white"]), None), "not 1"),
        (options(None, Some(&[]), None), "not 0"),
        (options(None, None, Some("231")), "has 3"),
        (options(None, None, Some(&"123".repeat(13))), "has 39"),
        (options(None, None, Some(&"2314".repeat(9))), "'4'"),
        (
            options(None, None, Some(&"1".repeat(36))),
            "twelve squares of each type",
        ),
    ] {
        let err = Game::from_options(&opts).unwrap_err();
        assert_eq!(
            err.code,
            RuleErrorCode::BadOption,
            "{opts:?}: {}",
            err.message
        );
        assert!(err.message.contains(words), "{opts:?}: {}", err.message);
        let err = AnyGame::new(GameKind::KhanTsin, &opts).unwrap_err();
        assert_eq!(err.code, RuleErrorCode::BadOption);
    }
    for extra in [
        options(None, Some(&["white", "green"]), None),
        options(None, None, Some(&layout)),
    ] {
        let opts = GameOptions {
            start_position: Some(THREE.into()),
            ..extra
        };
        let err = Game::from_options(&opts).unwrap_err();
        assert_eq!(err.code, RuleErrorCode::BadOption, "{}", err.message);
        assert!(err.message.contains("drop the option"), "{}", err.message);
    }
    // A number of players that agrees with the start position is fine; one that does not is not.
    let agreeing = GameOptions {
        start_position: Some(THREE.into()),
        players: Some(3),
        ..GameOptions::default()
    };
    assert_eq!(Game::from_options(&agreeing).map(|g| g.players()), Ok(3));
    let disagreeing = GameOptions {
        start_position: Some(THREE.into()),
        players: Some(2),
        ..GameOptions::default()
    };
    let err = Game::from_options(&disagreeing).unwrap_err();
    assert_eq!(err.code, RuleErrorCode::BadOption);
    assert_eq!(
        err.message,
        "the start position is a 3-player game, not a 2-player one"
    );
    let opts = GameOptions {
        start_position: Some("nonsense".into()),
        ..GameOptions::default()
    };
    assert_eq!(
        Game::from_options(&opts).unwrap_err().code,
        RuleErrorCode::BadPosition
    );
}

#[test]
fn t5_players_alternate_placing_triple_then_double_then_single() {
    let mut g = Game::new();
    // Default layout: squares 1, 4, 7, ... triple; 0, 3, 6, ... double; 2, 5, 8, ... single.
    assert_eq!(g.legal_moves().len(), 24);
    assert!(
        g.legal_moves()
            .iter()
            .all(|m| m[1..].parse::<usize>().unwrap() % 3 == 1)
    );
    play(&mut g, "p1 p4 p7 p10 K13 p16 p19 p22");
    assert_eq!(g.to_move(), Some(0));
    // Fifth placement: a double square; white's Khan is placed (K13), so pawns only.
    assert!(
        g.legal_moves()
            .iter()
            .all(|m| m[1..].parse::<usize>().unwrap() % 3 == 0)
    );
    assert_eq!(g.legal_moves().len(), 12);
    play(&mut g, "p0 p3 p6 p9 p12 p15 p18 K21");
    // Ninth placement: a single square; green placed its Khan, so it has only pawns left.
    assert!(
        g.legal_moves()
            .iter()
            .all(|m| m[1..].parse::<usize>().unwrap() % 3 == 2)
    );
    play(&mut g, "p2");
    assert_eq!(g.legal_moves().len(), 11);
    assert!(g.legal_moves().iter().all(|m| m.starts_with('p')));
    let text = g.position();
    assert_eq!(game(&text).position(), text);
}

#[test]
fn t5_placement_errors_name_the_rule() {
    let mut g = Game::new();
    illegal(&mut g, "p0", "double square");
    illegal(&mut g, "p0", "goes on a triple square (T-5");
    illegal(&mut g, "17:1+", "still being placed");
    illegal(&mut g, "pass", "T-12");
    play(&mut g, "K1");
    illegal(&mut g, "p1", "square 1 is taken");
    illegal(&mut g, "K1", "T-5");
    play(&mut g, "p4");
    illegal(&mut g, "K7", "Khan-pawn is already on the board");
    let bad = g.play("p99").unwrap_err();
    assert_eq!(bad.code, RuleErrorCode::BadNotation);
}

#[test]
fn t5_a_twelfth_placement_must_be_the_khan_still_in_hand() {
    let mut g = Game::new();
    // Eleven plain pawns each, on the default layout's triple, double, then single squares.
    let white = [1, 7, 13, 19, 0, 6, 12, 18, 2, 8, 14, 20];
    let green = [4, 10, 16, 22, 3, 9, 15, 21, 5, 11, 17, 23];
    for i in 0..11 {
        play(&mut g, &format!("p{} p{}", white[i], green[i]));
    }
    assert_eq!(
        g.legal_moves()
            .iter()
            .filter(|m| m.starts_with('p'))
            .count(),
        0
    );
    illegal(&mut g, "p20", "12th placement");
    illegal(&mut g, "p20", "K20 (T-5)");
    play(&mut g, "K20");
    illegal(&mut g, "p23", "must be placed now");
    let applied = play(&mut g, "K23");
    assert_eq!(applied.skipped, Vec::<u8>::new());
    assert_eq!(g.current().phase(), Phase::Movement);
}

#[test]
fn t6_the_neutral_pawns_fill_the_remaining_squares() {
    let mut g = Game::new();
    place_all(&mut g);
    let pos = g.current();
    assert_eq!(pos.phase(), Phase::Movement);
    assert_eq!(pos.board().pawn_count(), 36);
    for color in Color::ALL {
        assert_eq!(pos.board().count(color), 12, "{color}");
    }
    // The neutral Khan-pawn lies face down: an ordinary pawn, written `b`.
    assert!(!pos.board().has_khan(Color::Blue));
    assert!(pos.board().has_khan(Color::White) && pos.board().has_khan(Color::Green));
    // 4 neutral pawns on each type of square.
    let mut per_type = [0; 3];
    for sq in 0..36 {
        if pos.board().stack(sq).top().map(|p| p.color()) == Some(Color::Blue) {
            per_type[pos.layout().square(sq).distance() - 1] += 1;
        }
    }
    assert_eq!(per_type, [4, 4, 4]);
    // Lightest colour first (T-7); the text needs no `m` and reads back.
    assert_eq!(g.to_move(), Some(0));
    let text = g.position();
    assert!(text.ends_with(" wg w"), "{text}");
    assert_eq!(game(&text).position(), text);
    illegal(&mut g, "p3", "placement phase is over");
}

#[test]
fn t6_the_neutral_khan_lies_face_down_and_may_be_covered() {
    let mut g = Game::new();
    place_all(&mut g);
    assert!(!g.current().board().has_khan(Color::Blue));
    // Some white move lands on a neutral pawn (the neutral Khan among them is no Khan, T-11
    // does not protect it): it plays and wins nothing.
    let onto_blue = g.legal_moves().into_iter().find_map(|mv| {
        let mut after = g.clone();
        let applied = after.play(&mv).ok()?;
        let to: usize = applied.display.rsplit(' ').next()?.parse().ok()?;
        let pawns = after.current().board().stack(to).pawns().to_vec();
        (pawns.first()?.color() == Color::Blue).then_some((after, applied))
    });
    let (after, applied) = onto_blue.expect("a move onto a neutral pawn");
    assert_eq!(applied.outcome, None);
    assert_eq!(after.current().board().pawn_count(), 36);
}

#[test]
fn t6_three_players_place_all_36_pawns_themselves() {
    let mut g = three_players();
    place_all(&mut g);
    assert_eq!(g.current().board().pawn_count(), 36);
    for color in Color::ALL {
        assert!(g.current().board().has_khan(color));
    }
    assert_eq!(g.to_move(), Some(0));
}

// ---- Moves (T-7..T-12) ----

#[test]
fn t8_only_stacks_topped_by_your_colour_move_with_their_order_kept() {
    let mut g = game(THREE);
    illegal(&mut g, "3:1+", "topped by green");
    illegal(&mut g, "0:2+", "holds 1 pawn, so its top 2");
    let applied = play(&mut g, "0:1+");
    // Square 0 is double: 2 occupied squares clockwise, 1 then 2.
    assert_eq!(applied.display, "0:1+ to 2");
    assert_eq!(stack(&g, 2), "ww");
    assert!(stack(&g, 0).is_empty());
}

#[test]
fn t9_distance_is_set_by_the_starting_square_and_empty_squares_are_skipped() {
    // 0 triple [w]: clockwise 5, 9, 20; counter-clockwise 30, 25, 20: one square, written `+`.
    let g = partial(
        &[
            (0, 3, "w"),
            (5, 1, "g"),
            (9, 1, "g"),
            (20, 2, "b"),
            (25, 1, "g"),
            (30, 1, "g"),
        ],
        "wg",
        "w",
    );
    assert_eq!(g.legal_moves(), ["0:1+"]);
    let mut after = g.clone();
    assert_eq!(play(&mut after, "0:1-").notation, "0:1+");
    assert_eq!(stack(&after, 20), "bw");
    // From a double square, distance 2: clockwise 5, 9; counter-clockwise 30, then 9 again.
    let g = partial(
        &[(0, 2, "w"), (5, 1, "g"), (9, 1, "g"), (30, 1, "g")],
        "wg",
        "w",
    );
    assert_eq!(g.legal_moves(), ["0:1+"]);
    // A partial position with fewer stacks than the distance: the count goes round past the
    // starting square without counting it. Triple 0: clockwise 5, 9, 5; counter 9, 5, 9.
    let g = partial(&[(0, 3, "w"), (5, 1, "g"), (9, 1, "g")], "wg", "w");
    assert_eq!(g.legal_moves(), ["0:1+", "0:1-"]);
    let mut after = g.clone();
    assert_eq!(play(&mut after, "0:1+").display, "0:1+ to 5");
    let mut after = g;
    assert_eq!(play(&mut after, "0:1-").display, "0:1- to 9");
}

#[test]
fn t9_a_lone_stack_has_nowhere_to_land() {
    let mut g = partial(&[(4, 1, "w"), (10, 1, "g")], "wg", "w");
    play(&mut g, "4:1+");
    // One stack left: no one can move (T-14).
    assert_eq!(g.outcome(), Some(Outcome::draw(EndReason::AllSkipped)));
}

#[test]
fn t10_the_colour_cap_counts_neutral_pawns_too() {
    let mut g = partial(&[(0, 1, "bbg"), (1, 1, "bbw")], "wg", "g");
    // 0 -> 1 both ways (two stacks): k = 1 fine, k = 2 makes 3 blue, k = 3 makes 4 blue.
    assert_eq!(g.legal_moves(), ["0:1+", "0:2+"]);
    illegal(&mut g, "0:3+", "4 blue pawns on 1");
}

#[test]
fn t11_a_face_up_khan_is_never_covered() {
    // Single squares. From 0: clockwise 1 (white's Khan), counter-clockwise 2 (green's own
    // Khan). From 2: clockwise round to 0, counter-clockwise 1 (white's Khan).
    let mut g = partial(&[(0, 1, "g"), (1, 1, "W"), (2, 1, "bG")], "wg", "g");
    illegal(&mut g, "2:1-", "white's face-up Khan-pawn");
    illegal(&mut g, "0:1+", "T-11");
    illegal(&mut g, "0:1-", "green's face-up Khan-pawn");
    assert_eq!(g.legal_moves(), ["2:1+", "2:2+"]);
    play(&mut g, "2:2+");
    assert_eq!(stack(&g, 0), "gbG");
}

#[test]
fn t12_a_stuck_player_is_skipped_and_reported() {
    // Green's only stack sits between two face-up Khans: it can never move here.
    let stacks = [
        (5, 1, "W"),
        (10, 1, "g"),
        (15, 1, "B"),
        (20, 1, "w"),
        (25, 1, "b"),
    ];
    let mut g = partial(&stacks, "wgb", "w");
    let applied = play(&mut g, "20:1+");
    assert_eq!(applied.skipped, vec![1]);
    assert_eq!(applied.outcome, None);
    assert_eq!(g.to_move(), Some(2));
    assert!(g.position().ends_with(" wgb b m"));
}

#[test]
fn t12_a_position_read_with_a_stuck_player_on_move_has_only_pass() {
    let stacks = [
        (5, 1, "W"),
        (10, 1, "g"),
        (15, 1, "B"),
        (20, 1, "w"),
        (25, 1, "b"),
    ];
    let mut g = partial(&stacks, "wgb", "g");
    assert_eq!(g.to_move(), Some(1));
    assert_eq!(g.legal_moves(), ["pass"]);
    illegal(&mut g, "10:1+", "T-11");
    let applied = play(&mut g, "pass");
    assert_eq!(applied.notation, "pass");
    assert_eq!(applied.skipped, vec![1]);
    assert_eq!(g.to_move(), Some(2));
    // With a legal move, pass is refused.
    illegal(&mut g, "pass", "blue has a legal move");
}

// ---- End (T-13..T-15) ----

#[test]
fn t13_a_nine_stack_won_by_the_third_player() {
    let mut g = partial(
        &[(0, 1, "g"), (3, 1, "B"), (7, 2, "wgbwgbwg"), (20, 1, "w")],
        "wgb",
        "b",
    );
    let applied = play(&mut g, "3:1+");
    assert_eq!(applied.outcome, Some(Outcome::win(2, EndReason::KhanTsin)));
}

#[test]
fn t14_when_nobody_can_move_the_game_is_drawn_at_once() {
    // Three 9-stacks and an 8-stack missing one white; white fills it: nothing can move any more.
    let mut g = partial(
        &[
            (0, 1, "wgbwgbwgb"),
            (10, 1, "gbwgbwgbw"),
            (20, 1, "bwgbwgbg"),
            (21, 1, "w"),
        ],
        "wgb",
        "w",
    );
    let applied = play(&mut g, "21:1-");
    assert_eq!(applied.outcome, Some(Outcome::draw(EndReason::AllSkipped)));
    assert!(applied.skipped.is_empty());
    assert_eq!(g.to_move(), None);
    // Read from text, the same board is a game already drawn.
    let drawn = game(&g.position());
    assert_eq!(drawn.outcome(), Some(Outcome::draw(EndReason::AllSkipped)));
    assert!(drawn.legal_moves().is_empty());
}

#[test]
fn t15_the_third_occurrence_of_a_position_is_a_draw() {
    // Each player moves a pawn across and back: the start position recurs every 4 moves.
    let mut g = partial(
        &[(0, 1, "bw"), (1, 1, "b"), (10, 1, "bg"), (11, 1, "b")],
        "wg",
        "w",
    );
    let cycle = "0:1+ 10:1+ 1:1- 11:1-";
    let applied = play(&mut g, cycle);
    assert_eq!(applied.outcome, None);
    assert_eq!(g.repetitions(), 2);
    play(&mut g, "0:1+ 10:1+ 1:1-");
    assert_eq!(g.outcome(), None);
    let applied = play(&mut g, "11:1-");
    assert_eq!(applied.outcome, Some(Outcome::draw(EndReason::Repetition)));
    assert_eq!(g.repetitions(), 3);
    assert!(g.legal_moves().is_empty());
}

#[test]
fn t15_skips_are_turn_boundaries_too() {
    // Green, between two face-up Khans, can never move: every white move is followed by a
    // skip. (A face-up neutral Khan only arises from a resignation, but it is never covered.)
    let mut g = partial(
        &[
            (0, 1, "bw"),
            (1, 1, "b"),
            (10, 1, "W"),
            (11, 1, "g"),
            (12, 1, "B"),
        ],
        "wg",
        "w",
    );
    let applied = play(&mut g, "0:1+");
    assert_eq!(applied.skipped, vec![1]);
    play(&mut g, "1:1-");
    // Back at the start position: it occurred at the start and after this skip.
    assert_eq!(g.repetitions(), 2);
    play(&mut g, "0:1+");
    let applied = play(&mut g, "1:1-");
    // The board with green on move has occurred twice; after green's skip, with white on move,
    // it is the third time (the start was the first).
    assert_eq!(applied.skipped, vec![1]);
    assert_eq!(applied.outcome, Some(Outcome::draw(EndReason::Repetition)));
}

#[test]
fn draws_are_automatic_and_cannot_be_claimed() {
    let mut g = game(THREE);
    let err = g.claim_draw(0, EndReason::Repetition).unwrap_err();
    assert_eq!(err.code, RuleErrorCode::CannotClaim);
    assert!(err.message.contains("T-15"));
}

// ---- Resignation ----

#[test]
fn two_player_resignation_gives_the_opponent_the_win() {
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
fn three_player_resignation_leaves_the_pawns_and_skips_the_turns() {
    let mut g = game(THREE);
    let resigned = g.resign(1).unwrap();
    assert_eq!(resigned.outcome, None);
    assert!(resigned.skipped.is_empty());
    assert_eq!(g.in_play(), vec![0, 2]);
    assert_eq!(g.to_move(), Some(0));
    assert_eq!(g.current().board().pawn_count(), 36);
    assert!(g.position().ends_with(" wb w"), "{}", g.position());
    // Green's stacks can no longer be moved; white then blue play.
    play(&mut g, "0:1+");
    assert_eq!(g.to_move(), Some(2));
    assert!(g.legal_moves().iter().all(|m| {
        let from: usize = m.split(':').next().unwrap().parse().unwrap();
        g.current().board().stack(from).top().map(|p| p.color()) == Some(Color::Blue)
    }));
    let err = g.resign(1).unwrap_err();
    assert_eq!(err.code, RuleErrorCode::IllegalMove);
    assert!(err.message.contains("already left"));
    assert_eq!(g.resign(7).unwrap_err().code, RuleErrorCode::IllegalMove);
    // The last player left wins.
    let resigned = g.resign(2).unwrap();
    assert_eq!(
        resigned.outcome,
        Some(Outcome::win(0, EndReason::Resignation))
    );
    assert_eq!(g.outcome(), resigned.outcome);
    assert_eq!(g.to_move(), None);
}

#[test]
fn three_player_resignation_on_move_passes_the_turn_with_skips() {
    let stacks = [
        (5, 1, "W"),
        (10, 1, "g"),
        (15, 1, "B"),
        (20, 1, "w"),
        (25, 1, "b"),
    ];
    let mut g = partial(&stacks, "wgb", "w");
    let resigned = g.resign(0).unwrap();
    assert_eq!(resigned.skipped, vec![1]);
    assert_eq!(resigned.outcome, None);
    assert_eq!(g.to_move(), Some(2));
    assert_eq!(g.in_play(), vec![1, 2]);
    assert_eq!(stack(&g, 5), "W");
}

#[test]
fn three_player_resignation_during_placement_places_the_rest_like_neutral_pawns() {
    let mut g = three_players();
    play(&mut g, "K1 p4");
    let resigned = g.resign(1).unwrap();
    assert_eq!(resigned.outcome, None);
    assert_eq!(g.to_move(), Some(2));
    assert!(g.position().ends_with(" wb b"), "{}", g.position());
    place_all(&mut g);
    let board = g.current().board();
    assert_eq!(board.pawn_count(), 36);
    assert_eq!(board.count(Color::Green), 12);
    assert!(!board.has_khan(Color::Green));
    assert_eq!(g.to_move(), Some(0));
    assert_eq!(game(&g.position()).position(), g.position());
}

// ---- Position text and the interface ----

#[test]
fn position_text_writes_m_only_when_the_board_does_not_say_movement() {
    let text = kt1("w").position();
    assert!(text.ends_with(" wgb w m"), "{text}");
    assert_eq!(game(&text).position(), text);
    assert_eq!(game(THREE).position(), THREE);
    // A full board read with a redundant `m` is written without it.
    assert_eq!(game(&format!("{THREE} m")).position(), THREE);
}

#[test]
fn bad_position_text_says_what_is_wrong() {
    let empty = vec!["-"; 36].join("/");
    let layout = "231".repeat(12);
    let with = |square: usize, letters: &str| {
        let mut cells = vec!["-"; 36];
        cells[square] = letters;
        cells.join("/")
    };
    for (text, words) in [
        (String::new(), "has 0"),
        (format!("{empty} {layout} wg"), "has 3"),
        (format!("{empty} {layout} wg w m x"), "has 6"),
        (format!("-/- {layout} wg w"), "has 2 stacks"),
        (
            format!("{} {layout} wg w m", with(0, "wx")),
            "'x' is not a pawn",
        ),
        (format!("{} {layout} wg w m", with(0, "")), "blank"),
        (format!("{} {layout} wg w m", with(0, "wwww")), "T-10"),
        (format!("{} {layout} wg w m", with(0, "Wg")), "T-11"),
        (format!("{} {layout} wg w m", with(0, "W") + "/W"), "has 37"),
        (format!("{empty} {} wg w", "231".repeat(11)), "field 2"),
        (format!("{empty} {layout} gw g"), "field 3"),
        (format!("{empty} {layout} wg b"), "does not play"),
        (format!("{empty} {layout} wg x"), "field 4"),
        (format!("{empty} {layout} wg w M"), "field 5"),
        (format!("{} {layout} wg w", with(1, "wg")), "one per square"),
        (format!("{} {layout} wg g", with(0, "w")), "4 on triple"),
        (format!("{} {layout} wg w", with(1, "w")), "green's turn"),
        (
            format!("{} {layout} wg g", with(1, "g")),
            "counts placed are white 0, green 1",
        ),
        (
            THREE.replace("B", "b"),
            "blue's face-up Khan-pawn is not on the board",
        ),
        (TWO.replacen("g/b/b/w/", "g/-/b/w/", 1), "only 11 blue"),
    ] {
        let err = Game::from_text(&text).unwrap_err();
        assert_eq!(
            err.code,
            RuleErrorCode::BadPosition,
            "{text}: {}",
            err.message
        );
        assert!(err.message.contains(words), "{text}: {}", err.message);
    }
    // Two Khans of a colour, 13 pawns of a colour.
    let two_khans: Vec<&str> = (0..36).map(|i| if i < 2 { "W" } else { "-" }).collect();
    let err = Game::from_text(&format!("{} {layout} wg w m", two_khans.join("/"))).unwrap_err();
    assert!(
        err.message.contains("2 white Khan-pawns"),
        "{}",
        err.message
    );
    let thirteen: Vec<&str> = (0..36).map(|i| if i < 13 { "w" } else { "-" }).collect();
    let err = Game::from_text(&format!("{} {layout} wg w m", thirteen.join("/"))).unwrap_err();
    assert!(err.message.contains("13 white pawns"), "{}", err.message);
}

#[test]
fn any_game_plays_khan_tsin() {
    assert_eq!("khan-tsin".parse::<GameKind>(), Ok(GameKind::KhanTsin));
    assert_eq!(GameKind::KhanTsin.as_str(), "khan-tsin");
    let err = "khan tsin".parse::<GameKind>().unwrap_err();
    assert!(err.message.contains("khan-tsin"), "{}", err.message);
    let mut g = AnyGame::new(GameKind::KhanTsin, &options(Some(3), None, None)).unwrap();
    assert_eq!(g.kind(), GameKind::KhanTsin);
    assert_eq!(g.players(), 3);
    assert_eq!(g.color(2), "blue");
    assert!(g.counting().is_none());
    let applied = g.play("K1").unwrap();
    assert_eq!(applied.notation, "K1");
    assert_eq!(g.to_move(), Some(1));
    let from_text = AnyGame::new(
        GameKind::KhanTsin,
        &GameOptions {
            start_position: Some(THREE.into()),
            ..GameOptions::default()
        },
    )
    .unwrap();
    assert_eq!(from_text.position(), THREE);
    assert_eq!(from_text.legal_moves().len(), 21);
    assert_eq!(
        serde_json::to_value(from_text.legal_moves()).unwrap(),
        from_text.legal_moves_json()
    );
}

#[test]
fn legal_moves_are_sorted_strings() {
    let g = game(THREE);
    let moves = g.legal_moves();
    let mut sorted = moves.clone();
    sorted.sort();
    assert_eq!(moves, sorted);
    assert!(moves.iter().all(|m| m.parse::<super::Move>().is_ok()));
    let pos: Position = THREE.parse().unwrap();
    assert_eq!(pos.legal_moves().len(), moves.len());
}
