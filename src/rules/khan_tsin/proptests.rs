//! Property tests: reading positions and moves never panics and what reads writes back; over
//! random complete games (2 and 3 players, random layouts, resignations) every listed move plays,
//! every unlisted one is refused, the colour cap (T-10) and the Khan rule (T-11) hold, all 36
//! pawns stay on the board once placement is over, positions round-trip through their text, and
//! games end. Randomness comes only from proptest's seeded strategies.

use proptest::prelude::*;

use super::{Color, Game, Move, Phase, Position, SQUARES};
use crate::rules::{GameOptions, RuleErrorCode, Rules};

const THREE: &str = "w/w/w/g/g/w/w/b/g/g/g/w/w/B/w/b/b/b/g/W/g/b/G/b/g/w/g/w/b/b/b/g/g/b/w/b \
                     231231231231231231231231231231231231 wgb w";

/// More plies than any game takes: random games end after about 70–200 (placement included).
const MAX_PLIES: usize = 3000;

/// Every move string worth trying: all placements and all stack moves with k up to 9.
fn candidates() -> Vec<String> {
    let mut all = vec!["pass".to_string()];
    for sq in 0..SQUARES {
        all.push(format!("p{sq}"));
        all.push(format!("K{sq}"));
        for k in 1..=9 {
            all.push(format!("{sq}:{k}+"));
            all.push(format!("{sq}:{k}-"));
        }
    }
    all
}

/// T-10 and T-11 on every stack.
fn check_invariants(game: &Game) -> Result<(), TestCaseError> {
    let pos = game.current();
    for sq in 0..SQUARES {
        let stack = pos.board().stack(sq);
        prop_assert!(
            stack.counts().iter().all(|&n| n <= 3),
            "T-10 on {}: {}",
            sq,
            game.position()
        );
        let pawns = stack.pawns();
        for (i, pawn) in pawns.iter().enumerate() {
            prop_assert!(
                !pawn.is_khan() || i + 1 == pawns.len(),
                "T-11: a covered Khan on {}: {}",
                sq,
                game.position()
            );
        }
    }
    Ok(())
}

/// Once placement (and the neutral fill, T-6) is over, all 36 pawns are on the board (T-2).
fn check_all_pawns(game: &Game) -> Result<(), TestCaseError> {
    let pos = game.current();
    if pos.phase() == Phase::Movement {
        prop_assert_eq!(pos.board().pawn_count(), 36);
        for color in Color::ALL {
            prop_assert_eq!(pos.board().count(color), 12);
        }
    }
    Ok(())
}

/// The listed moves are exactly the candidates the position accepts; an accepted unlisted
/// spelling is the `-` of a move reaching the same square both ways, whose canonical `+` is
/// listed (T-9).
fn check_listing(game: &Game, all: &[String]) -> Result<(), TestCaseError> {
    let legal = game.legal_moves();
    let mut sorted = legal.clone();
    sorted.sort();
    sorted.dedup();
    prop_assert_eq!(&sorted, &legal, "sorted and distinct");
    for text in all {
        let Ok(mv) = text.parse::<Move>() else {
            return Err(TestCaseError::fail(format!("{text} does not parse")));
        };
        match game.current().check(mv) {
            Ok(canonical) if mv == Move::Pass => {
                prop_assert_eq!(canonical, Move::Pass);
                prop_assert_eq!(&legal, &vec!["pass".to_string()]);
            }
            Ok(canonical) => {
                let canonical = canonical.to_string();
                prop_assert!(legal.contains(&canonical), "{} accepted, not listed", text);
                if &canonical != text {
                    prop_assert_eq!(canonical, text.replace('-', "+"));
                }
            }
            Err(err) => {
                prop_assert_eq!(err.code, RuleErrorCode::IllegalMove, "{}: {}", text, err);
                prop_assert!(!legal.contains(text), "{} listed, refused: {}", text, err);
            }
        }
    }
    Ok(())
}

/// The game's text reads back to the same position, moves and player on move.
fn check_round_trip(game: &Game) -> Result<(), TestCaseError> {
    let text = game.position();
    let again = Game::from_text(&text);
    prop_assert!(again.is_ok(), "{}: {:?}", text, again.err());
    if let Ok(again) = again {
        prop_assert_eq!(again.current(), game.current());
        prop_assert_eq!(again.position(), text);
        if game.outcome().is_none() {
            prop_assert_eq!(again.legal_moves(), game.legal_moves());
        }
    }
    Ok(())
}

/// Plays a random complete game; `resign` = (ply, seat) of an optional resignation.
fn playout(
    players: u8,
    layout: String,
    choices: &[u32],
    resign: Option<(usize, u8)>,
    every_move: bool,
) -> Result<(), TestCaseError> {
    let options = GameOptions {
        players: Some(players),
        layout: Some(layout),
        ..GameOptions::default()
    };
    let mut game = Game::from_options(&options).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let all = candidates();
    let mut placements = 0;
    for ply in 0..MAX_PLIES {
        if game.outcome().is_some() {
            prop_assert!(game.legal_moves().is_empty());
            prop_assert_eq!(game.to_move(), None);
            return Ok(());
        }
        if let Some((at, seat)) = resign
            && at == ply
            && game.in_play().contains(&seat)
        {
            let before = game.current().board().pawn_count();
            let resigned = game.resign(seat);
            prop_assert!(resigned.is_ok(), "{:?}", resigned);
            prop_assert!(!game.in_play().contains(&seat));
            prop_assert_ne!(game.to_move(), Some(seat));
            if game.current().phase() == Phase::Placement {
                prop_assert_eq!(game.current().board().pawn_count(), before);
            }
            check_invariants(&game)?;
            check_all_pawns(&game)?;
            check_round_trip(&game)?;
            continue;
        }
        let legal = game.legal_moves();
        prop_assert!(!legal.is_empty());
        prop_assert_ne!(
            &legal,
            &vec!["pass".to_string()],
            "a played game never waits for pass"
        );
        if every_move {
            check_listing(&game, &all)?;
            for mv in &legal {
                let mut copy = game.clone();
                let applied = copy.play(mv);
                prop_assert!(applied.is_ok(), "{}: {:?}", mv, applied);
                check_invariants(&copy)?;
                check_all_pawns(&copy)?;
            }
        }
        let choice = choices[ply % choices.len()] as usize ^ ply;
        let mv = &legal[choice % legal.len()];
        let mover = game.to_move();
        let applied = game.play(mv);
        prop_assert!(applied.is_ok(), "{}: {:?}", mv, applied);
        let Ok(applied) = applied else { unreachable!() };
        prop_assert_eq!(&applied.notation, mv);
        // The mover is never skipped: if it could not move after the others, nobody could (T-14).
        prop_assert!(mover.is_some_and(|m| !applied.skipped.contains(&m)));
        if mv.starts_with('p') || mv.starts_with('K') {
            placements += 1;
            if game.current().phase() == Phase::Placement {
                prop_assert_eq!(game.current().board().pawn_count(), placements);
            }
        }
        for seat in &applied.skipped {
            prop_assert!(game.in_play().contains(seat));
        }
        check_invariants(&game)?;
        check_all_pawns(&game)?;
        check_round_trip(&game)?;
    }
    Err(TestCaseError::fail(format!(
        "no end after {MAX_PLIES} plies: {}",
        game.position()
    )))
}

fn layouts() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("231".repeat(12)),
        Just("123".repeat(12).into_bytes())
            .prop_shuffle()
            .prop_map(|digits| String::from_utf8(digits).unwrap_or_default()),
    ]
}

fn stacks() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![3 => Just(String::from("-")), 2 => "[wgbWGB]{1,4}", 1 => "[wgb]{0,10}"],
        30..40,
    )
    .prop_map(|cells| cells.join("/"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_text_never_panics_the_readers(text in "\\PC{0,120}") {
        let _ = text.parse::<Position>();
        let _ = Game::from_text(&text);
        if let Err(err) = text.parse::<Move>() {
            prop_assert_eq!(err.code, RuleErrorCode::BadNotation);
        }
        for start in [Game::new(), Game::from_text(THREE).unwrap_or_default()] {
            let mut game = start.clone();
            match game.play(&text) {
                Ok(applied) => prop_assert!(start.legal_moves().contains(&applied.notation)),
                Err(err) => {
                    prop_assert!(
                        matches!(err.code, RuleErrorCode::BadNotation | RuleErrorCode::IllegalMove),
                        "{}", err
                    );
                    prop_assert_eq!(game.position(), start.position());
                }
            }
        }
    }

    #[test]
    fn move_like_text_never_panics(text in "[pK0-9:+-]{0,8}|[0-9]{1,3}:[0-9]{1,3}[+-]") {
        let mut game = Game::from_text(THREE).unwrap_or_default();
        let _ = game.play(&text);
        let mut placing = Game::new();
        let _ = placing.play(&text);
    }

    #[test]
    fn position_like_text_never_panics_and_what_reads_writes_back(
        board in stacks(),
        layout in prop_oneof![layouts(), "[0-4]{30,40}"],
        colors in prop_oneof![Just("wg"), Just("wb"), Just("gb"), Just("wgb"), Just("gw"), Just("")],
        to_move in "[wgbx]",
        marked in prop_oneof![Just(""), Just(" m"), Just(" x")],
    ) {
        let text = format!("{board} {layout} {colors} {to_move}{marked}");
        if let Ok(game) = Game::from_text(&text) {
            let written = game.position();
            let again = Game::from_text(&written);
            prop_assert!(again.is_ok(), "{} -> {}: {:?}", text, written, again.err());
            if let Ok(again) = again {
                prop_assert_eq!(again.current(), game.current());
                prop_assert_eq!(again.legal_moves(), game.legal_moves());
            }
            for mv in game.legal_moves() {
                let mut copy = game.clone();
                prop_assert!(copy.play(&mv).is_ok(), "{}: {}", text, mv);
                check_invariants(&copy)?;
            }
        }
    }
}

/// Partial positions (field `m`) that mostly read: lower-case stacks and at most one face-up
/// Khan-pawn of each colour, put on top of a stack.
fn partial_positions() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(prop_oneof![4 => Just(String::new()), 3 => "[wgb]{1,3}"], 36),
        [
            prop::option::of(0usize..36),
            prop::option::of(0usize..36),
            prop::option::of(0usize..36),
        ],
        layouts(),
        prop_oneof![Just("wg"), Just("wb"), Just("gb"), Just("wgb")],
        any::<prop::sample::Index>(),
    )
        .prop_map(|(mut cells, khans, layout, colors, index)| {
            for (letter, square) in ['W', 'G', 'B'].into_iter().zip(khans) {
                if let Some(square) = square {
                    cells[square].push(letter);
                }
            }
            let board: Vec<&str> = cells
                .iter()
                .map(|c| if c.is_empty() { "-" } else { c.as_str() })
                .collect();
            let to_move = colors.chars().nth(index.index(colors.len())).unwrap_or('w');
            format!("{} {layout} {colors} {to_move} m", board.join("/"))
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn partial_positions_read_back_and_their_listed_moves_play(text in partial_positions()) {
        let game = Game::from_text(&text);
        // Only too many pawns of a colour (T-2) or a covered Khan (T-11) are refused here.
        if let Err(err) = &game {
            prop_assert!(
                err.message.contains("T-2") || err.message.contains("T-11")
                    || err.message.contains("T-10"),
                "{}: {}", text, err
            );
        }
        prop_assume!(game.is_ok());
        let Ok(game) = game else { unreachable!() };
        check_invariants(&game)?;
        check_round_trip(&game)?;
        if game.outcome().is_none() {
            check_listing(&game, &candidates())?;
        }
        for mv in game.legal_moves() {
            let mut copy = game.clone();
            let applied = copy.play(&mv);
            prop_assert!(applied.is_ok(), "{}: {}: {:?}", text, mv, applied);
            check_invariants(&copy)?;
            prop_assert_eq!(
                copy.current().board().pawn_count(),
                game.current().board().pawn_count()
            );
            check_round_trip(&copy)?;
            if copy.outcome().is_none() {
                prop_assert_ne!(copy.legal_moves(), vec!["pass".to_string()]);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_two_player_games_keep_the_rules_and_end(
        layout in layouts(),
        choices in prop::collection::vec(any::<u32>(), 1..300),
    ) {
        playout(2, layout, &choices, None, false)?;
    }

    #[test]
    fn random_three_player_games_keep_the_rules_and_end(
        layout in layouts(),
        choices in prop::collection::vec(any::<u32>(), 1..300),
        resign in prop::option::of((0usize..150, 0u8..3)),
    ) {
        playout(3, layout, &choices, resign, false)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn in_random_games_exactly_the_listed_moves_play(
        players in 2u8..=3,
        layout in layouts(),
        choices in prop::collection::vec(any::<u32>(), 1..300),
        resign in prop::option::of((0usize..150, 0u8..3)),
    ) {
        playout(players, layout, &choices, resign.filter(|_| players == 3), true)?;
    }
}
