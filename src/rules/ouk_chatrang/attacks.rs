//! Which squares each piece attacks (O-6..O-9), as tables computed at compile time.
//!
//! Every piece but the rook is a leaper, so its attacks are one table look-up. The rook, the only
//! slider, uses "kindergarten" bitboards: the occupancy of its rank (6 inner bits) or of its file
//! (gathered into 6 bits by one multiplication) indexes a small table. All tables are `const`,
//! built by `const fn`s below: nothing is initialised at run time and nothing is mutable.

use super::board::{Bitboard, Color, Square};

const FILE_A: Bitboard = 0x0101_0101_0101_0101;

/// Gathers the inner six squares of the a-file (a2..a7) into the top six bits.
const FILE_GATHER: Bitboard = 0x0080_4020_1008_0400;

const fn on_board(file: i32, rank: i32) -> bool {
    file >= 0 && file < 8 && rank >= 0 && rank < 8
}

/// The squares reached from `sq` by the (file, rank) steps in `steps`.
const fn leaps(sq: usize, steps: &[(i32, i32)]) -> Bitboard {
    let file = (sq % 8) as i32;
    let rank = (sq / 8) as i32;
    let mut bb = 0;
    let mut i = 0;
    while i < steps.len() {
        let (df, dr) = steps[i];
        if on_board(file + df, rank + dr) {
            bb |= 1 << ((rank + dr) * 8 + file + df);
        }
        i += 1;
    }
    bb
}

const fn leap_table(steps: &[(i32, i32)]) -> [Bitboard; 64] {
    let mut table = [0; 64];
    let mut sq = 0;
    while sq < 64 {
        table[sq] = leaps(sq, steps);
        sq += 1;
    }
    table
}

const KNIGHT_STEPS: [(i32, i32); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];
const KING_STEPS: [(i32, i32); 8] = [
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (-1, 1),
];
const DIAGONAL_STEPS: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, -1), (-1, 1)];
const WHITE_KHON_STEPS: [(i32, i32); 5] = [(1, 1), (1, -1), (-1, -1), (-1, 1), (0, 1)];
const BLACK_KHON_STEPS: [(i32, i32); 5] = [(1, 1), (1, -1), (-1, -1), (-1, 1), (0, -1)];
const WHITE_PAWN_CAPTURES: [(i32, i32); 2] = [(1, 1), (-1, 1)];
const BLACK_PAWN_CAPTURES: [(i32, i32); 2] = [(1, -1), (-1, -1)];
const WHITE_PAWN_PUSH: [(i32, i32); 1] = [(0, 1)];
const BLACK_PAWN_PUSH: [(i32, i32); 1] = [(0, -1)];

static KNIGHT: [Bitboard; 64] = leap_table(&KNIGHT_STEPS);
static KING: [Bitboard; 64] = leap_table(&KING_STEPS);
static NEANG: [Bitboard; 64] = leap_table(&DIAGONAL_STEPS);
static KHON: [[Bitboard; 64]; 2] = [leap_table(&WHITE_KHON_STEPS), leap_table(&BLACK_KHON_STEPS)];
static PAWN_CAPTURES: [[Bitboard; 64]; 2] = [
    leap_table(&WHITE_PAWN_CAPTURES),
    leap_table(&BLACK_PAWN_CAPTURES),
];
static PAWN_PUSH: [[Bitboard; 64]; 2] =
    [leap_table(&WHITE_PAWN_PUSH), leap_table(&BLACK_PAWN_PUSH)];

/// A rook's attacks from `sq` on a board occupied by `occ`, square by square (the reference the
/// fast tables are built from and tested against).
const fn slow_rook(sq: usize, occ: Bitboard) -> Bitboard {
    let mut bb = 0;
    let directions: [(i32, i32); 4] = [(0, 1), (1, 0), (0, -1), (-1, 0)];
    let mut d = 0;
    while d < 4 {
        let (df, dr) = directions[d];
        let mut file = (sq % 8) as i32 + df;
        let mut rank = (sq / 8) as i32 + dr;
        while on_board(file, rank) {
            let bit: Bitboard = 1 << (rank * 8 + file);
            bb |= bit;
            if occ & bit != 0 {
                break;
            }
            file += df;
            rank += dr;
        }
        d += 1;
    }
    bb
}

/// `RANK_ATTACKS[file][inner]`: a rook's attacks along rank 1 from `file`, given the occupancy of
/// b1..g1 as 6 bits.
static RANK_ATTACKS: [[u8; 64]; 8] = {
    let mut table = [[0; 64]; 8];
    let mut file = 0;
    while file < 8 {
        let mut inner = 0;
        while inner < 64 {
            let occ = (inner as Bitboard) << 1;
            table[file][inner] = (slow_rook(file, occ) & 0xFF) as u8;
            inner += 1;
        }
        file += 1;
    }
    table
};

/// `FILE_ATTACKS[rank][gathered]`: a rook's attacks along the a-file from `rank`, indexed by the
/// a2..a7 occupancy gathered with [`FILE_GATHER`].
static FILE_ATTACKS: [[Bitboard; 64]; 8] = {
    let mut table = [[0; 64]; 8];
    let mut rank = 0;
    while rank < 8 {
        let mut inner = 0;
        while inner < 64 {
            let mut occ: Bitboard = 0;
            let mut i = 0;
            while i < 6 {
                if inner & (1 << i) != 0 {
                    occ |= 1 << ((i + 1) * 8);
                }
                i += 1;
            }
            let gathered = (occ.wrapping_mul(FILE_GATHER) >> 58) as usize;
            table[rank][gathered] = slow_rook(rank * 8, occ) & FILE_A;
            inner += 1;
        }
        rank += 1;
    }
    table
};

/// `BETWEEN[a][b]`: the squares strictly between two squares on one rank or file (else empty).
/// `LINE[a][b]`: the whole rank or file through both (else empty). Rooks are the only sliders, so
/// only straight lines matter for pins and blocks.
static BETWEEN: [[Bitboard; 64]; 64] = lines(false);
static LINE: [[Bitboard; 64]; 64] = lines(true);
static ROOK_LINES: [Bitboard; 64] = {
    let mut table = [0; 64];
    let mut sq = 0;
    while sq < 64 {
        table[sq] = slow_rook(sq, 0);
        sq += 1;
    }
    table
};

const fn lines(whole: bool) -> [[Bitboard; 64]; 64] {
    let mut table = [[0; 64]; 64];
    let mut a = 0;
    while a < 64 {
        let mut b = 0;
        while b < 64 {
            if a != b && (a % 8 == b % 8 || a / 8 == b / 8) {
                table[a][b] = if whole {
                    whole_line(a, b)
                } else {
                    slow_rook(a, 1 << b) & slow_rook(b, 1 << a)
                };
            }
            b += 1;
        }
        a += 1;
    }
    table
}

/// The whole file (if `a` and `b` share it) or else the whole rank of `a`.
const fn whole_line(a: usize, b: usize) -> Bitboard {
    if a % 8 == b % 8 {
        FILE_A << (a % 8)
    } else {
        0xFF << (a / 8 * 8)
    }
}

#[inline]
pub(crate) fn knight(sq: Square) -> Bitboard {
    KNIGHT[sq.index()]
}

#[inline]
pub(crate) fn king(sq: Square) -> Bitboard {
    KING[sq.index()]
}

/// The Neang's (and promoted pawn's) one diagonal step (O-8).
#[inline]
pub(crate) fn neang(sq: Square) -> Bitboard {
    NEANG[sq.index()]
}

/// The Khon's diagonal steps and its one step forward for `color` (O-7).
#[inline]
pub(crate) fn khon(color: Color, sq: Square) -> Bitboard {
    KHON[color.index()][sq.index()]
}

/// The two squares a pawn of `color` on `sq` captures on (O-9).
#[inline]
pub(crate) fn pawn_captures(color: Color, sq: Square) -> Bitboard {
    PAWN_CAPTURES[color.index()][sq.index()]
}

/// The square a pawn of `color` on `sq` steps to (O-9), or nothing on the last rank.
#[inline]
pub(crate) fn pawn_push(color: Color, sq: Square) -> Bitboard {
    PAWN_PUSH[color.index()][sq.index()]
}

/// A rook's attacks from `sq` when `occ` is occupied: up to and including the first piece in each
/// direction.
#[inline]
pub(crate) fn rook(sq: Square, occ: Bitboard) -> Bitboard {
    let file = sq.file() as u32;
    let rank = sq.rank() as usize;
    let rank_shift = rank as u32 * 8;
    let inner = ((occ >> (rank_shift + 1)) & 63) as usize;
    let along_rank = (RANK_ATTACKS[file as usize][inner] as Bitboard) << rank_shift;
    let gathered = (((occ >> file) & FILE_A).wrapping_mul(FILE_GATHER) >> 58) as usize;
    let along_file = FILE_ATTACKS[rank][gathered] << file;
    along_rank | along_file
}

/// The rank and file through `sq`, without `sq`: where a rook on an empty board would reach.
#[inline]
pub(crate) fn rook_lines(sq: Square) -> Bitboard {
    ROOK_LINES[sq.index()]
}

/// The squares strictly between `a` and `b` on a rank or file; empty otherwise.
#[inline]
pub(crate) fn between(a: Square, b: Square) -> Bitboard {
    BETWEEN[a.index()][b.index()]
}

/// The whole rank or file through `a` and `b`; empty if they share neither.
#[inline]
pub(crate) fn line(a: Square, b: Square) -> Bitboard {
    LINE[a.index()][b.index()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    fn set(squares: &[&str]) -> Bitboard {
        squares.iter().fold(0, |bb, s| bb | sq(s).bit())
    }

    #[test]
    fn rook_tables_agree_with_stepping_for_many_occupancies() {
        // A fixed xorshift sequence: deterministic, and dense and sparse boards alike.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let occ = x & (x >> 3) & (x >> 11);
            for index in 0..64 {
                let s = Square::from_index(index);
                assert_eq!(rook(s, occ), slow_rook(s.index(), occ), "{s} {occ:#x}");
            }
        }
    }

    #[test]
    fn khon_steps_forward_and_diagonally() {
        assert_eq!(khon(Color::White, sq("c1")), set(&["b2", "c2", "d2"]));
        assert_eq!(khon(Color::Black, sq("c8")), set(&["b7", "c7", "d7"]));
        assert_eq!(
            khon(Color::White, sq("e4")),
            set(&["d5", "e5", "f5", "d3", "f3"])
        );
    }

    #[test]
    fn neang_steps_diagonally() {
        assert_eq!(neang(sq("e1")), set(&["d2", "f2"]));
        assert_eq!(neang(sq("a8")), set(&["b7"]));
    }

    #[test]
    fn pawns_push_one_and_capture_diagonally_forward() {
        assert_eq!(pawn_push(Color::White, sq("e3")), set(&["e4"]));
        assert_eq!(pawn_push(Color::Black, sq("e6")), set(&["e5"]));
        assert_eq!(pawn_captures(Color::White, sq("a3")), set(&["b4"]));
        assert_eq!(pawn_captures(Color::Black, sq("d6")), set(&["c5", "e5"]));
    }

    #[test]
    fn lines_and_between() {
        assert_eq!(between(sq("d1"), sq("d4")), set(&["d2", "d3"]));
        assert_eq!(between(sq("a1"), sq("b2")), 0);
        assert_eq!(line(sq("d1"), sq("h1")), 0xFF);
        assert_eq!(line(sq("a1"), sq("b3")), 0);
        assert_eq!(rook_lines(sq("a1")), (0xFF | FILE_A) ^ 1);
        assert_eq!(rook_lines(sq("e5")).count_ones(), 14);
    }
}
