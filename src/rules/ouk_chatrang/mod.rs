//! Ouk Chatrang (Cambodian chess): PLACEHOLDER until the rules branch lands.
#![allow(dead_code, unused_variables)]
use serde::Serialize;

use super::{Applied, EndReason, Outcome, RuleError, Rules, Seat};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Color {
    White,
    Black,
}

impl Color {
    pub fn from_seat(seat: Seat) -> Color {
        if seat == 0 {
            Color::White
        } else {
            Color::Black
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CountingKind {
    Board,
    Piece,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Counting {
    pub kind: CountingKind,
    pub count: u32,
    pub limit: u32,
    pub escaping: Color,
    pub started_ply: u32,
}

#[derive(Clone, Debug)]
pub struct Game;

impl Game {
    pub fn new() -> Game {
        todo!()
    }
    pub fn from_fen(fen: &str) -> Result<Game, RuleError> {
        todo!()
    }
    pub fn counting(&self) -> Option<Counting> {
        todo!()
    }
}

impl Rules for Game {
    fn position(&self) -> String {
        todo!()
    }
    fn to_move(&self) -> Option<Seat> {
        todo!()
    }
    fn legal_moves(&self) -> Vec<String> {
        todo!()
    }
    fn play(&mut self, mv: &str) -> Result<Applied, RuleError> {
        todo!()
    }
    fn outcome(&self) -> Option<Outcome> {
        todo!()
    }
    fn claim_draw(&mut self, by: Seat, reason: EndReason) -> Result<Outcome, RuleError> {
        todo!()
    }
}
#[derive(Clone, Debug)]
pub struct Position;
impl Position {
    pub fn from_fen(fen: &str) -> Result<Position, RuleError> {
        todo!()
    }
    pub fn start() -> Position {
        todo!()
    }
}
pub fn perft(pos: &Position, depth: u32) -> u64 {
    todo!()
}
pub fn perft_divide(pos: &Position, depth: u32) -> Vec<(String, u64)> {
    todo!()
}
