//! The Ouk Chatrang engine: [`search`](super::search) over positions that carry the running count
//! (O-18..O-24), with a hand-written evaluation.
//!
//! **Values** (centipawns): Trey/pawn 100, Neang/Met 180 (a promoted pawn is a Neang, O-10, so it
//! is worth the same), Khon 270, Ses/knight 300, Touk/rook 500. These are the usual Makruk
//! proportions (a Met is a weak, colour-bound piece, under two pawns; a Khon is a little below a
//! knight; the rook dominates), as Makruk programs such as Fairy-Stockfish's makruk variant order
//! them; the exact numbers are ours, tuned by the level matches of docs/bots.md.
//!
//! **Terms** besides material, all from White's side and negated for Black:
//! - knights and Khons towards the centre (up to 12), Neangs slightly (up to 6);
//! - pawns by their steps towards the promotion rank (0, 12, 30 for 0, 1, 2 steps taken);
//! - rooks on a file without own pawn, 12, and 2 per square a rook reaches (mobility);
//! - trading down when ahead: the material lead grows by up to half as material leaves the board;
//! - king safety: 6 per own piece beside the King, −8 per enemy attack on a square of the King's
//!   zone (its square and the eight around);
//! - while a count runs: the chasing side's advantage shrinks with the escaping side's moves left
//!   (`moves_left / (moves_left + 6)`), so that the escaping side values reaching the limit, and
//!   the chasing side gets a mating drive: 20 per step of the escaping King away from the
//!   centre, 8 per step the Kings are closer than 7, 10 per square of the escaping King's 8
//!   neighbours that it cannot go to.
//!
//! Inside the search, insufficient material (O-17), an exhausted count (O-20), stalemate and a
//! position repeated on the search path are draws (0); mate scores count plies to mate.

use super::Limits;
use super::search::{self, End, Searchable};
use crate::rules::ouk_chatrang::{Color, CountStep, Game, Move, Piece, Position, Role, Square};

/// Piece values in centipawns, by [`Role`] table order (the King has no material value).
const VALUES: [i32; 6] = [100, 300, 270, 180, 500, 0];

/// Zobrist keys: 2 colours × 6 roles × 64 squares, then the side, 16 rights states and
/// 128 counting plies.
static KEYS: [u64; 768 + 1 + 16 + 128] = search::zobrist(0x004F_554B);

fn value(role: Role) -> i32 {
    VALUES[role as usize]
}

/// A position as the search sees it: the board and the count that runs on it.
#[derive(Clone, Copy, Debug)]
struct Node {
    pos: Position,
    count: Option<CountStep>,
}

impl Node {
    fn piece_key(piece: Piece, sq: Square) -> u64 {
        KEYS[(piece.color as usize * 6 + piece.role as usize) * 64 + sq.index()]
    }
}

impl Searchable for Node {
    type Move = Move;
    const QUIESCENCE_PLIES: u32 = 12;

    fn hash(&self) -> u64 {
        let board = self.pos.board();
        let mut h = 0;
        let mut occ = board.occupied();
        while occ != 0 {
            let sq = square(occ.trailing_zeros());
            occ &= occ - 1;
            if let Some(piece) = board.piece_at(sq) {
                h ^= Node::piece_key(piece, sq);
            }
        }
        if self.pos.side_to_move() == Color::Black {
            h ^= KEYS[768];
        }
        let rights = self.pos.rights();
        let rights_index = usize::from(rights.king_leap(Color::White))
            | usize::from(rights.neang_leap(Color::White)) << 1
            | usize::from(rights.neang_leap(Color::Black)) << 2
            | usize::from(rights.king_leap(Color::Black)) << 3;
        h ^= KEYS[769 + rights_index];
        if let Some(count) = self.count {
            // The count changes what a position is worth (its draw comes nearer).
            h ^= KEYS[785 + (count.ply() as usize & 127)];
        }
        h
    }

    fn decided(&self) -> Option<End> {
        if self.pos.is_insufficient_material() {
            // O-17: no side can mate, so neither can be mated either.
            return Some(End::Draw);
        }
        if self.count.is_some_and(CountStep::is_exhausted) {
            // O-20, but mate first (O-22).
            return Some(if self.pos.is_check() && !self.pos.has_legal_move() {
                End::Loss
            } else {
                End::Draw
            });
        }
        None
    }

    fn stuck(&self) -> End {
        if self.pos.is_check() {
            End::Loss
        } else {
            End::Draw
        }
    }

    fn moves(&self, out: &mut Vec<Move>) {
        out.extend(self.pos.legal_moves());
    }

    fn play(&self, mv: Move) -> Node {
        let after = self.pos.play_unchecked(mv);
        Node {
            pos: after,
            count: CountStep::after(self.count, &self.pos, mv, &after),
        }
    }

    fn move_key(&self, mv: Move) -> u32 {
        mv.from().index() as u32
            | (mv.to().index() as u32) << 6
            | u32::from(mv.is_promotion()) << 12
    }

    fn noisy(&self, mv: Move) -> Option<i32> {
        let board = self.pos.board();
        let victim = board.piece_at(mv.to()).map(|p| value(p.role));
        let promotion = mv
            .is_promotion()
            .then(|| value(Role::Neang) - value(Role::Pawn));
        if victim.is_none() && promotion.is_none() {
            return None;
        }
        // MVV-LVA: the most valuable victim first, then the least valuable attacker.
        let attacker = board.piece_at(mv.from()).map_or(0, |p| value(p.role));
        Some(victim.unwrap_or(0) * 16 + promotion.unwrap_or(0) * 8 - attacker / 16)
    }

    fn eval(&self) -> i32 {
        let white = evaluate(&self.pos, self.count);
        match self.pos.side_to_move() {
            Color::White => white,
            Color::Black => -white,
        }
    }

    fn must_move(&self) -> bool {
        self.pos.is_check()
    }
}

fn square(index: u32) -> Square {
    Square::new((index & 7) as u8, (index >> 3 & 7) as u8).expect("a bitboard index is 0..64")
}

/// How far `sq` is from the centre: 0 on d4/e4/d5/e5, 3 in a corner.
fn centre_distance(sq: Square) -> i32 {
    let f = i32::from(sq.file());
    let r = i32::from(sq.rank());
    (2 * f - 7).abs().max((2 * r - 7).abs()) / 2
}

/// The King's neighbourhood: its square and the eight around it.
fn zone(king: Square) -> u64 {
    let mut bb = 0;
    for df in -1i8..=1 {
        for dr in -1i8..=1 {
            let f = king.file() as i8 + df;
            let r = king.rank() as i8 + dr;
            if let (Ok(f), Ok(r)) = (u8::try_from(f), u8::try_from(r))
                && let Some(sq) = Square::new(f, r)
            {
                bb |= sq.bit();
            }
        }
    }
    bb
}

/// Both sides' material at the start (O-3): 8 pawns, 2 rooks, 2 knights, 2 Khons, a Neang each.
const START_MATERIAL: i32 = 2 * (8 * 100 + 2 * 500 + 2 * 300 + 2 * 270 + 180);

/// `color`'s material, centipawns.
fn side_material(board: &crate::rules::ouk_chatrang::Board, color: Color) -> i32 {
    Role::ALL
        .into_iter()
        .map(|role| value(role) * board.pieces(color, role).count_ones() as i32)
        .sum()
}

/// How many squares a rook on `sq` reaches (moves to or captures on) with `occ` occupied.
fn rook_reach(sq: Square, occ: u64) -> i32 {
    let mut n = 0;
    for (df, dr) in [(1i8, 0i8), (-1, 0), (0, 1), (0, -1)] {
        let (mut f, mut r) = (sq.file() as i8, sq.rank() as i8);
        loop {
            f += df;
            r += dr;
            let Some(to) = u8::try_from(f)
                .ok()
                .zip(u8::try_from(r).ok())
                .and_then(|(f, r)| Square::new(f, r))
            else {
                break;
            };
            n += 1;
            if occ & to.bit() != 0 {
                break;
            }
        }
    }
    n
}

/// The evaluation of `pos` for White, in centipawns.
fn evaluate(pos: &Position, count: Option<CountStep>) -> i32 {
    let board = pos.board();
    let occ = board.occupied();
    let mut score = 0;
    let mut material = 0;
    let mut balance = 0;
    for color in Color::ALL {
        let sign = if color == Color::White { 1 } else { -1 };
        let mut side = 0;
        let own = board.by_color(color);
        let mut bb = own;
        while bb != 0 {
            let sq = square(bb.trailing_zeros());
            bb &= bb - 1;
            let Some(piece) = board.piece_at(sq) else {
                continue;
            };
            side += value(piece.role);
            // Ranks counted from the side's own back rank.
            let rank = match color {
                Color::White => i32::from(sq.rank()),
                Color::Black => 7 - i32::from(sq.rank()),
            };
            side += match piece.role {
                Role::Knight | Role::Khon => 4 * (3 - centre_distance(sq)),
                Role::Neang => 2 * (3 - centre_distance(sq)),
                // Pawns start on the third rank and promote on the sixth (O-10).
                Role::Pawn => [0, 0, 0, 12, 30, 0, 0, 0][rank.clamp(0, 7) as usize],
                Role::Rook => {
                    let file = 0x0101_0101_0101_0101u64 << sq.file();
                    let open = if board.pieces(color, Role::Pawn) & file == 0 {
                        12
                    } else {
                        0
                    };
                    open + 2 * rook_reach(sq, occ)
                }
                Role::King => 0,
            };
        }
        let king = board.king(color);
        let zone = zone(king);
        side += 6 * (zone & own & !king.bit()).count_ones() as i32;
        let mut z = zone;
        while z != 0 {
            let sq = square(z.trailing_zeros());
            z &= z - 1;
            side -= 8 * pos.attackers(sq, occ, !color).count_ones() as i32;
        }
        score += sign * side;
        material += side_material(board, color);
        balance += sign * side_material(board, color);
    }
    // Trading down when ahead: the lead counts for more as the material on the board shrinks
    // (up to half again with bare Kings), so a side ahead heads for a won ending.
    score += balance * (START_MATERIAL - material).max(0) / (2 * START_MATERIAL);
    if let Some(count) = count {
        let chasing = !count.escaping();
        let sign = if chasing == Color::White { 1 } else { -1 };
        let advantage = sign * score;
        if advantage > 0 {
            let left = count.moves_left().clamp(0, 64) as i32;
            let scaled = advantage * left / (left + 6);
            // Mating drive: the escaping King to the edge, the chasing King close to it, and the
            // escaping King's free squares (empty or its own men's, not attacked) few.
            let them = board.king(count.escaping());
            let us = board.king(chasing);
            let gap = i32::from(
                them.file()
                    .abs_diff(us.file())
                    .max(them.rank().abs_diff(us.rank())),
            );
            let mut free = 0;
            let mut around = zone(them) & !them.bit() & !board.by_color(count.escaping());
            while around != 0 {
                let sq = square(around.trailing_zeros());
                around &= around - 1;
                if pos.attackers(sq, occ & !them.bit(), chasing) == 0 {
                    free += 1;
                }
            }
            let drive = 20 * centre_distance(them) + 8 * (7 - gap) + 10 * (8 - free);
            score = sign * (scaled + drive);
        }
    }
    score
}

/// The move a bot plays in `game` within `limits`: level 1 a random move, levels 2 to 5 the
/// alpha-beta search at the level's depth and noise (see [`search::settings`]).
pub(super) fn choose_move(game: &Game, limits: &Limits) -> Option<String> {
    if limits.level.get() <= 1 {
        return super::random_move(game, limits.seed);
    }
    let root = Node {
        pos: *game.current(),
        count: game.count_step(),
    };
    let moves = root.pos.legal_moves();
    if moves.is_empty() {
        return None;
    }
    let report = search::search(&root, &moves, &search::settings(limits));
    tracing::debug!(
        game = "ouk-chatrang",
        level = limits.level.get(),
        depth = report.depth,
        nodes = report.nodes,
        score = report.score,
        "bot search"
    );
    Some(moves[report.best].to_string())
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;
    use crate::bot::Level;
    use crate::bot::tests::limits;
    use crate::rules::Rules;

    fn best(fen: &str, level: u8) -> String {
        let game = Game::from_fen(fen).expect("a FEN");
        let mv = choose_move(&game, &limits(level, 1)).expect("a move");
        let mut check = game.clone();
        check.play(&mv).expect("a legal move");
        mv
    }

    const MIDGAMES: [&str; 3] = [
        "r1sk1snr/3m4/pppnpppp/3p4/4P3/PPPP1PPP/4M3/RNSK1SNR w - - 0 6",
        "r3k2r/8/2pp1p2/ps2nmpp/4P3/PPS2PPP/3NK3/R5R1 b - - 4 14",
        "4k3/8/8/3r4/8/8/8/3K3R w - - 0 40",
    ];

    #[test]
    fn every_level_plays_a_legal_move() {
        for level in 1..=5 {
            let game = Game::new();
            let mv = choose_move(&game, &limits(level, 3)).expect("a move");
            game.clone().play(&mv).expect("legal from the start");
            for fen in MIDGAMES {
                let game = Game::from_fen(fen).expect("a FEN");
                let mut l = limits(level, 5);
                l.deadline = Instant::now() + Duration::from_millis(300);
                let mv = choose_move(&game, &l).expect("a move");
                game.clone().play(&mv).expect("legal in a middle game");
            }
        }
    }

    #[test]
    fn mate_in_one_is_found() {
        // Rook to the eighth rank: the White King on g6 takes g7 and h7 from the King on h8.
        let fen = "7k/8/6K1/8/8/8/8/R7 w - - 0 40";
        for level in 2..=5 {
            let mv = best(fen, level);
            let mut game = Game::from_fen(fen).expect("a FEN");
            let applied = game.play(&mv).expect("legal");
            assert_eq!(
                applied.outcome.map(|o| o.reason),
                Some(crate::rules::EndReason::Checkmate),
                "level {level} played {mv}"
            );
        }
    }

    #[test]
    fn a_hanging_rook_is_taken() {
        // Black's rook on d5 hangs to the knight on c3.
        let fen = "4k3/8/pp6/3r4/8/PPN5/8/5K2 w - - 0 20";
        assert_eq!(best(fen, 3), "c3d5");
    }

    #[test]
    fn a_piece_is_not_hung() {
        // The White rook on d4 is attacked by the pawn on e5; it must not stay or go where a pawn
        // takes it.
        let fen = "6k1/8/8/4p3/3R4/8/8/4K3 w - - 0 20";
        let mv = best(fen, 4);
        let game = Game::from_fen(fen).expect("a FEN");
        let pos = game.current();
        let after = pos.play(pos.parse_uci(&mv).expect("legal")).expect("legal");
        let board = after.board();
        let rook = square(board.pieces(Color::White, Role::Rook).trailing_zeros());
        assert_eq!(
            after.attackers(rook, board.occupied(), Color::Black),
            0,
            "after {mv} the rook on {rook} hangs"
        );
    }

    #[test]
    fn counting_positions_stay_legal_and_mate_comes_first() {
        // Piece's honour for Black (a bare King against one rook: L = 16, 30 plies, count 3),
        // White to mate in one with the rook.
        let fen = "7k/8/6K1/8/8/8/8/R7 w - 30 5 40";
        let game = Game::from_fen(fen).expect("a FEN");
        assert!(game.counting().is_some());
        assert_eq!(best(fen, 4), "a1a8");
        // Piece's honour near its limit: whatever is played stays legal.
        let fen = "8/8/8/4k3/8/8/3K4/R6R w - 14 13 60";
        let game = Game::from_fen(fen).expect("a FEN");
        assert!(game.counting().is_some());
        for level in 2..=5 {
            best(fen, level);
        }
    }

    /// Nodes per second at level 5 from the start, with the budget of level 5:
    /// `cargo test --release --lib bot:: -- --ignored --nocapture`. Asserts what holds on any
    /// machine: the search completes its first iteration and stops at its budget (plus
    /// [`DEADLINE_SLACK`] for the checks between nodes and a busy machine).
    #[test]
    #[ignore = "a measurement: run in a release build with --nocapture"]
    fn level_5_speed() {
        let game = Game::new();
        let root = Node {
            pos: *game.current(),
            count: None,
        };
        let moves = root.pos.legal_moves();
        let start = Instant::now();
        let l = Limits::from_now(Level::MAX, Level::MAX.budget(), 1);
        let report = search::search(&root, &moves, &search::settings(&l));
        let secs = start.elapsed().as_secs_f64();
        println!(
            "ouk chatrang level 5: depth {} nodes {} in {:.3} s = {:.0} nodes/s, move {}",
            report.depth,
            report.nodes,
            secs,
            report.nodes as f64 / secs,
            moves[report.best]
        );
        assert!(report.depth >= 1 && report.nodes > 0, "{report:?}");
        let budget = Level::MAX.budget() + crate::bot::tests::DEADLINE_SLACK;
        assert!(
            secs <= budget.as_secs_f64(),
            "{secs} s for a {budget:?} budget"
        );
    }
}
