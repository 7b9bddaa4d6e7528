//! Position text (rules file, "Notation"): four fields separated by spaces, and an optional
//! fifth.
//!
//! 1. the 36 stacks from square 0 to 35 separated by `/`, each bottom to top: `w g b` pawns,
//!    `W G B` face-up Khan-pawns, `-` an empty square;
//! 2. the layout, 36 digits (T-3);
//! 3. the colours playing, in turn order: `wg`, `wb`, `gb` or `wgb`;
//! 4. the colour to move, `w`, `g` or `b`;
//! 5. optionally `m`: a partial position in the movement phase whatever the board holds.
//!
//! Without `m` the phase is read from the board: the placement phase while a colour playing has
//! placed fewer than 12 pawns, the movement phase once all have. Written text carries `m` exactly
//! when the board alone would not say "movement phase" (not 12 pawns of every colour, or a colour
//! playing without its face-up Khan-pawn).
//!
//! **Decision (resignation):** field 3 lists the colours still taking turns. After a player of a
//! three-player game resigns, their colour is left out (`wgb` becomes e.g. `wb`): its stacks
//! can no longer be moved, exactly like the neutral colour's in a two-player game.

use std::fmt;
use std::str::FromStr;

use super::layout::{Layout, SQUARES};
use super::pawn::{Color, Colors, Pawn};
use super::placement::{PAWNS_PER_COLOR, required_type};
use super::position::{Phase, Position};
use super::track::{Board, COLOR_CAP, Stack};
use crate::rules::{RuleError, RuleErrorCode};

/// Whether the board alone reads as the movement phase: 12 pawns of every colour and every
/// colour playing has its face-up Khan-pawn on the board.
fn board_says_movement(board: &Board, playing: Colors) -> bool {
    Color::ALL
        .into_iter()
        .all(|c| board.count(c) == PAWNS_PER_COLOR)
        && playing.iter().all(|c| board.has_khan(c))
}

impl fmt::Display for Position {
    /// The position text, e.g. `w/-/gB/... 231231...231 wg w`, with ` m` when needed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (square, stack) in self.board.stacks().iter().enumerate() {
            if square > 0 {
                f.write_str("/")?;
            }
            if stack.is_empty() {
                f.write_str("-")?;
            }
            for pawn in stack.pawns() {
                write!(f, "{}", pawn.letter())?;
            }
        }
        write!(
            f,
            " {} {} {}",
            self.layout,
            self.playing.letters(),
            self.to_move.letter()
        )?;
        if self.phase == Phase::Movement && !board_says_movement(&self.board, self.playing) {
            f.write_str(" m")?;
        }
        Ok(())
    }
}

fn bad(why: String) -> RuleError {
    RuleError::new(RuleErrorCode::BadPosition, why)
}

fn read_stack(text: &str, square: usize) -> Result<Stack, RuleError> {
    if text == "-" {
        return Ok(Stack::EMPTY);
    }
    if text.is_empty() {
        return Err(bad(format!(
            "square {square} is blank; write - for an empty square"
        )));
    }
    let mut pawns = Vec::new();
    let mut counts = [0u8; 3];
    for letter in text.chars() {
        let Some(pawn) = Pawn::from_letter(letter) else {
            return Err(bad(format!(
                "square {square}: {letter:?} is not a pawn; stacks are written with w g b \
                 (pawns), W G B (face-up Khan-pawns) or - (empty)"
            )));
        };
        if pawns.last().is_some_and(|p: &Pawn| p.is_khan()) {
            return Err(bad(format!(
                "square {square}: a face-up Khan-pawn is covered; Khan-pawns are never covered \
                 (T-11)"
            )));
        }
        let count = &mut counts[pawn.color().index()];
        *count += 1;
        if *count > COLOR_CAP {
            return Err(bad(format!(
                "square {square} holds more than 3 {} pawns; a stack holds at most 3 of one \
                 colour (T-10)",
                pawn.color()
            )));
        }
        pawns.push(pawn);
    }
    Stack::from_pawns(&pawns).ok_or_else(|| bad(format!("square {square}: too many pawns")))
}

fn read_board(text: &str) -> Result<Board, RuleError> {
    let parts: Vec<&str> = text.split('/').collect();
    if parts.len() != SQUARES {
        return Err(bad(format!(
            "field 1 has {} stacks separated by /; the track has 36 squares (T-1)",
            parts.len()
        )));
    }
    let mut board = Board::empty();
    for (square, part) in parts.into_iter().enumerate() {
        *board.stack_mut(square) = read_stack(part, square)?;
    }
    for color in Color::ALL {
        let count = board.count(color);
        if count > PAWNS_PER_COLOR {
            return Err(bad(format!(
                "{count} {color} pawns on the board; each colour has 12 (T-2)"
            )));
        }
        let khans = board
            .stacks()
            .iter()
            .filter(|s| s.pawns().contains(&Pawn::khan(color)))
            .count();
        if khans > 1 {
            return Err(bad(format!(
                "{khans} {color} Khan-pawns on the board; each colour has one (T-2)"
            )));
        }
    }
    Ok(board)
}

fn read_playing(text: &str) -> Result<Colors, RuleError> {
    match text {
        "wg" | "wb" | "gb" | "wgb" => Ok(Colors::of(
            &text
                .chars()
                .filter_map(Color::from_letter)
                .collect::<Vec<_>>(),
        )),
        _ => Err(bad(format!(
            "field 3 is the colours playing in turn order, wg, wb, gb or wgb (T-4, T-7), not \
             {text:?}"
        ))),
    }
}

/// Checks a board read without `m` and in the placement phase: one pawn per square, each
/// colour's pawns on the square types of its first placements, the colours playing placing in
/// turn (T-5).
fn check_placement(
    board: &Board,
    layout: &Layout,
    playing: Colors,
    to_move: Color,
) -> Result<(), RuleError> {
    let hint = "; add the field m for a partial position in the movement phase";
    if let Some(square) = (0..SQUARES).find(|&sq| board.stack(sq).height() > 1) {
        return Err(bad(format!(
            "square {square} holds a stack, but pawns are still being placed one per square \
             (T-5){hint}"
        )));
    }
    for color in Color::ALL {
        let placed = board.count(color);
        let mut expected = [0usize; 3];
        for i in 0..placed {
            expected[required_type(i).distance() - 1] += 1;
        }
        let mut found = [0usize; 3];
        for square in (0..SQUARES).filter(|&sq| board.stack(sq).counts()[color.index()] > 0) {
            found[layout.square(square).distance() - 1] += 1;
        }
        if found != expected {
            return Err(bad(format!(
                "{color} has placed {placed} pawns, {} on triple, {} on double and {} on single \
                 squares; T-5 places the first 4 on triple, then 4 on double, then 4 on single \
                 squares{hint}",
                found[2], found[1], found[0]
            )));
        }
    }
    let counts: Vec<(Color, usize)> = playing.iter().map(|c| (c, board.count(c))).collect();
    let least = counts.iter().map(|&(_, n)| n).min().unwrap_or(0);
    let first_behind = counts.iter().position(|&(_, n)| n == least).unwrap_or(0);
    let in_turn = counts
        .iter()
        .enumerate()
        .all(|(i, &(_, n))| n == if i < first_behind { least + 1 } else { least });
    if !in_turn {
        let list: Vec<String> = counts.iter().map(|(c, n)| format!("{c} {n}")).collect();
        return Err(bad(format!(
            "players place one pawn at a time in turn (T-5), but the counts placed are {}{hint}",
            list.join(", ")
        )));
    }
    let due = counts[first_behind].0;
    if due != to_move {
        return Err(bad(format!(
            "it is {due}'s turn to place (T-5: one pawn at a time, lightest colour first), not \
             {to_move}'s"
        )));
    }
    if let Some((color, _)) = counts
        .iter()
        .find(|&&(c, n)| n == PAWNS_PER_COLOR && !board.has_khan(c))
    {
        return Err(bad(format!(
            "{color} has placed 12 pawns without its Khan-pawn; the 12th must be the Khan-pawn \
             (T-5){hint}"
        )));
    }
    Ok(())
}

impl FromStr for Position {
    type Err = RuleError;

    /// Reads position text (see the module). Errors: `BadPosition`, saying which field is wrong
    /// and why, citing the rule a board breaks (T-1, T-2, T-5, T-6, T-10, T-11).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let fields: Vec<&str> = s.split_whitespace().collect();
        if !matches!(fields.len(), 4 | 5) {
            return Err(bad(format!(
                "a Khan-Tsin position has 4 fields (stacks, layout, colours, colour to move) \
                 and an optional 5th, m; this text has {}",
                fields.len()
            )));
        }
        let board = read_board(fields[0])?;
        let layout = Layout::parse(fields[1]).map_err(|why| bad(format!("field 2: {why}")))?;
        let playing = read_playing(fields[2])?;
        let to_move = match fields[3] {
            "w" => Color::White,
            "g" => Color::Green,
            "b" => Color::Blue,
            other => {
                return Err(bad(format!(
                    "field 4 is the colour to move, w, g or b, not {other:?}"
                )));
            }
        };
        if !playing.contains(to_move) {
            return Err(bad(format!(
                "{to_move} is to move but does not play here (field 3 is {})",
                playing.letters()
            )));
        }
        let marked = match fields.get(4) {
            None => false,
            Some(&"m") => true,
            Some(other) => {
                return Err(bad(format!(
                    "the optional field 5 is m (movement phase), not {other:?}"
                )));
            }
        };
        let all_placed = playing.iter().all(|c| board.count(c) == PAWNS_PER_COLOR);
        let phase = if marked || all_placed {
            Phase::Movement
        } else {
            Phase::Placement
        };
        if !marked {
            if all_placed {
                if let Some(color) = Color::ALL
                    .into_iter()
                    .find(|&c| board.count(c) < PAWNS_PER_COLOR)
                {
                    return Err(bad(format!(
                        "the players have placed all their pawns, but only {} {color} pawns are \
                         on the board; the rest fill the empty squares (T-6); add the field m \
                         for a partial position",
                        board.count(color)
                    )));
                }
                if let Some(color) = playing.iter().find(|&c| !board.has_khan(c)) {
                    return Err(bad(format!(
                        "{color}'s face-up Khan-pawn is not on the board, yet every player \
                         places theirs (T-5) and it is never covered (T-11); add the field m \
                         for a partial position"
                    )));
                }
            } else {
                check_placement(&board, &layout, playing, to_move)?;
            }
        }
        Ok(Position {
            board,
            layout,
            playing,
            to_move,
            phase,
        })
    }
}
