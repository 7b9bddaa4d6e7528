//! One or more tests per rule of the Khan rules file.
use super::*;
use crate::rules::Rules;

#[test]
fn zz_counts() {
    let g = Game::new();
    let m = g.legal_moves();
    println!("moves {}", m.len());
    let pos = Position::start();
    println!("perft2 {}", perft(&pos, 2));
    println!(
        "turn1 {} turn2 {}",
        turn_perft(&pos, 1),
        turn_perft(&pos, 2)
    );
    println!("turn3 {}", turn_perft(&pos, 3));
}
