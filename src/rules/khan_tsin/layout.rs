//! The track layout as data (T-1, T-3): which of the 36 squares are single, double or triple.
//!
//! No public source gives the order of square types along the dragon, so the layout is a value:
//! 36 digits in {1, 2, 3}, twelve of each, square 0 first. The default is `231` repeated twelve
//! times. A room may use any valid layout; it is written in every position text.

use std::fmt;

/// The number of squares on the track (T-1).
pub const SQUARES: usize = 36;

/// The type of a square (T-1). It sets how far a stack starting there travels (T-9) and which
/// squares a placement may use (T-5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SquareType {
    /// A single square: stacks leaving it travel 1 occupied square (T-9).
    Single,
    /// A double square: 2 occupied squares.
    Double,
    /// A triple square: 3 occupied squares.
    Triple,
}

impl SquareType {
    /// How many occupied squares a stack leaving this square counts (T-9): 1, 2 or 3. It is also
    /// the square's digit in a layout.
    pub fn distance(self) -> usize {
        match self {
            SquareType::Single => 1,
            SquareType::Double => 2,
            SquareType::Triple => 3,
        }
    }

    /// `"single"`, `"double"` or `"triple"`.
    pub fn name(self) -> &'static str {
        match self {
            SquareType::Single => "single",
            SquareType::Double => "double",
            SquareType::Triple => "triple",
        }
    }

    fn from_digit(digit: char) -> Option<SquareType> {
        match digit {
            '1' => Some(SquareType::Single),
            '2' => Some(SquareType::Double),
            '3' => Some(SquareType::Triple),
            _ => None,
        }
    }
}

/// A track layout (T-3): the type of each of the 36 squares, twelve of each type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Layout([SquareType; SQUARES]);

impl Layout {
    /// The type of square `square` (0–35; larger indices wrap round the circle).
    pub fn square(&self, square: usize) -> SquareType {
        self.0[square % SQUARES]
    }

    /// Reads a layout: exactly 36 digits in {1, 2, 3}, twelve of each (T-1, T-3). The error
    /// says what is wrong; callers choose its code (`bad_option` for a room's option,
    /// `bad_position` inside a position text).
    pub fn parse(text: &str) -> Result<Layout, String> {
        let mut squares = [SquareType::Single; SQUARES];
        let mut counts = [0usize; 3];
        let mut length = 0;
        for (i, digit) in text.chars().enumerate() {
            let Some(kind) = SquareType::from_digit(digit) else {
                return Err(format!(
                    "a layout is 36 digits 1, 2 or 3 (T-3), not {digit:?} at place {}",
                    i + 1
                ));
            };
            if i < SQUARES {
                squares[i] = kind;
            }
            counts[kind.distance() - 1] += 1;
            length = i + 1;
        }
        if length != SQUARES {
            return Err(format!(
                "a layout is 36 digits (T-1, T-3), this one has {length}"
            ));
        }
        if counts != [12, 12, 12] {
            return Err(format!(
                "a layout has twelve squares of each type (T-1), this one has {} single, {} \
                 double and {} triple",
                counts[0], counts[1], counts[2]
            ));
        }
        Ok(Layout(squares))
    }
}

impl Default for Layout {
    /// `231` repeated twelve times: square 0 double, 1 triple, 2 single, ... (T-3).
    fn default() -> Self {
        let cycle = [SquareType::Double, SquareType::Triple, SquareType::Single];
        Layout(std::array::from_fn(|i| cycle[i % 3]))
    }
}

impl fmt::Display for Layout {
    /// The 36 digits, square 0 first.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for kind in self.0 {
            write!(f, "{}", kind.distance())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t3_default_layout_is_231_twelve_times() {
        let layout = Layout::default();
        assert_eq!(layout.to_string(), "231".repeat(12));
        assert_eq!(layout.square(0), SquareType::Double);
        assert_eq!(layout.square(1), SquareType::Triple);
        assert_eq!(layout.square(2), SquareType::Single);
        assert_eq!(Layout::parse(&"231".repeat(12)), Ok(layout));
    }

    #[test]
    fn t3_any_layout_with_twelve_of_each_type_is_valid() {
        let text = format!("{}{}{}", "1".repeat(12), "2".repeat(12), "3".repeat(12));
        let layout = Layout::parse(&text).unwrap();
        assert_eq!(layout.to_string(), text);
        assert_eq!(layout.square(35), SquareType::Triple);
    }

    #[test]
    fn t3_bad_layouts_say_what_is_wrong() {
        let short = Layout::parse(&"231".repeat(11)).unwrap_err();
        assert!(short.contains("has 33"), "{short}");
        let long = Layout::parse(&"231".repeat(13)).unwrap_err();
        assert!(long.contains("has 39"), "{long}");
        let digit = Layout::parse(&format!("4{}", "231".repeat(12))).unwrap_err();
        assert!(digit.contains("'4'"), "{digit}");
        let unbalanced =
            Layout::parse(&format!("{}{}", "1".repeat(18), "23".repeat(9))).unwrap_err();
        assert!(unbalanced.contains("18 single"), "{unbalanced}");
        assert!(Layout::parse("").is_err());
        assert!(Layout::parse("é").is_err());
    }
}
