//! Colours and pawns (T-2, T-4, T-7): three colours, white, green and blue, lightest to darkest;
//! each pawn is a plain pawn or its colour's face-up Khan-pawn.
//!
//! A face-down Khan-pawn (the neutral one of a two-player game, T-6) is an ordinary pawn from the
//! moment it lies on the board, so it is stored and written as a plain pawn.

use std::fmt;

/// A pawn colour (T-2), ordered lightest to darkest: white, green, blue. That order is also turn
/// order (T-7) and seat order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// White, the lightest colour: moves first when played (T-7).
    White,
    /// Green.
    Green,
    /// Blue, the darkest colour; neutral in a two-player game by default (T-4).
    Blue,
}

impl Color {
    /// The three colours, lightest first (T-2, T-7).
    pub const ALL: [Color; 3] = [Color::White, Color::Green, Color::Blue];

    /// 0 for white, 1 for green, 2 for blue.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The colour name on the wire and in options: `"white"`, `"green"`, `"blue"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Green => "green",
            Color::Blue => "blue",
        }
    }

    /// The colour's letter in position text: `w`, `g`, `b`.
    pub fn letter(self) -> char {
        match self {
            Color::White => 'w',
            Color::Green => 'g',
            Color::Blue => 'b',
        }
    }

    /// The colour of a lower-case letter `w`, `g` or `b`.
    pub fn from_letter(letter: char) -> Option<Color> {
        match letter {
            'w' => Some(Color::White),
            'g' => Some(Color::Green),
            'b' => Some(Color::Blue),
            _ => None,
        }
    }

    /// The colour named `"white"`, `"green"` or `"blue"`.
    pub fn from_name(name: &str) -> Option<Color> {
        Color::ALL.into_iter().find(|c| c.as_str() == name)
    }

    fn from_index(index: u8) -> Color {
        match index {
            0 => Color::White,
            1 => Color::Green,
            _ => Color::Blue,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One pawn (T-2): its colour and whether it is that colour's face-up Khan-pawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Pawn(u8);

const KHAN_BIT: u8 = 4;

impl Pawn {
    /// A plain pawn of `color` (also a face-down Khan-pawn, T-6).
    pub const fn plain(color: Color) -> Pawn {
        Pawn(color as u8)
    }

    /// The face-up Khan-pawn of `color` (T-2).
    pub const fn khan(color: Color) -> Pawn {
        Pawn(color as u8 | KHAN_BIT)
    }

    /// The pawn's colour.
    pub fn color(self) -> Color {
        Color::from_index(self.0 & 3)
    }

    /// Whether this is a face-up Khan-pawn (T-11, T-13).
    pub fn is_khan(self) -> bool {
        self.0 & KHAN_BIT != 0
    }

    /// Its letter in position text: `w g b` for pawns, `W G B` for face-up Khan-pawns.
    pub fn letter(self) -> char {
        let letter = self.color().letter();
        if self.is_khan() {
            letter.to_ascii_uppercase()
        } else {
            letter
        }
    }

    /// The pawn written as `letter` (`w g b W G B`).
    pub fn from_letter(letter: char) -> Option<Pawn> {
        match Color::from_letter(letter) {
            Some(color) => Some(Pawn::plain(color)),
            None => Color::from_letter(letter.to_ascii_lowercase()).map(Pawn::khan),
        }
    }
}

/// A set of colours, always walked in turn order (T-7): the colours played, or still in play.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Colors(u8);

impl Colors {
    /// The empty set.
    pub const NONE: Colors = Colors(0);

    /// The set of `colors` (in any order, duplicates ignored).
    pub fn of(colors: &[Color]) -> Colors {
        colors.iter().fold(Colors::NONE, |set, &c| set.with(c))
    }

    /// This set with `color` added.
    pub fn with(self, color: Color) -> Colors {
        Colors(self.0 | 1 << color.index())
    }

    /// This set without `color`.
    pub fn without(self, color: Color) -> Colors {
        Colors(self.0 & !(1 << color.index()))
    }

    /// Whether `color` is in the set.
    pub fn contains(self, color: Color) -> bool {
        self.0 & 1 << color.index() != 0
    }

    /// How many colours the set holds.
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The colours of the set, lightest first (turn order, T-7).
    pub fn iter(self) -> impl Iterator<Item = Color> {
        Color::ALL.into_iter().filter(move |&c| self.contains(c))
    }

    /// The colour after `color` in turn order among this set, wrapping round (T-7); `color`
    /// itself when it is the only one; `None` for an empty set.
    pub fn next_after(self, color: Color) -> Option<Color> {
        (1..=3)
            .map(|i| Color::ALL[(color.index() + i) % 3])
            .find(|&c| self.contains(c))
    }

    /// The set as position text writes it: its letters in turn order, e.g. `wgb`, `wb`.
    pub fn letters(self) -> String {
        self.iter().map(Color::letter).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_round_trip() {
        for letter in "wgbWGB".chars() {
            assert_eq!(Pawn::from_letter(letter).map(Pawn::letter), Some(letter));
        }
        assert_eq!(Pawn::from_letter('x'), None);
        assert_eq!(Pawn::from_letter('K'), None);
    }

    #[test]
    fn turn_order_wraps_and_skips_colours_not_in_the_set() {
        let wb = Colors::of(&[Color::Blue, Color::White]);
        assert_eq!(wb.letters(), "wb");
        assert_eq!(wb.next_after(Color::White), Some(Color::Blue));
        assert_eq!(wb.next_after(Color::Blue), Some(Color::White));
        assert_eq!(wb.next_after(Color::Green), Some(Color::Blue));
        let w = Colors::of(&[Color::White]);
        assert_eq!(w.next_after(Color::White), Some(Color::White));
        assert_eq!(Colors::NONE.next_after(Color::White), None);
    }
}
