//! Alpha-beta search shared by the Ouk Chatrang and Khan engines.
//!
//! Negamax with alpha-beta pruning and iterative deepening, a transposition table keyed by the
//! games' Zobrist hashes, move ordering (table move, then noisy moves by their game's
//! most-valuable-victim order, then killer moves, then the rest), a quiescence search over noisy
//! moves, and a deadline checked every [`CLOCK_EVERY`] nodes. A game plugs in through
//! [`Searchable`]; scores are centipawns from the point of view of the side to move.

use std::time::Instant;

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

use super::Limits;

/// A score for "the side to move is mated now"; a mate `n` plies ahead scores `MATE - n`, so the
/// search prefers faster wins and slower losses.
pub(super) const MATE: i32 = 30_000;

/// Scores beyond this (in absolute value) are mate scores, adjusted by ply in the table.
const MATE_BOUND: i32 = MATE - 1_000;

/// Nodes between two looks at the clock.
const CLOCK_EVERY: u64 = 2048;

/// Deepest iteration of an unbounded search (level 5).
pub(super) const MAX_DEPTH: u32 = 32;

/// Late move reductions apply from this depth on...
const LMR_DEPTH: u32 = 3;
/// ...to the quiet moves after this many.
const LMR_AFTER: usize = 4;
/// The order of the second killer move; quiet moves below it may be reduced.
const KILLER_ORDER: i32 = 900_000;

/// Transposition table size: 2^17 entries of 16 bytes, 2 MiB per search.
const TT_BITS: u32 = 17;

/// How a game ended, from the side to move's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum End {
    /// The side to move has lost (mated, or the opponent reached a winning condition).
    Loss,
    /// A draw.
    Draw,
    /// The side to move has already won.
    Win,
}

/// What the search needs from a game. Positions are copied, not undone ("copy-make").
pub(super) trait Searchable: Sized {
    /// One whole turn.
    type Move: Copy;

    /// Plies of quiescence search at most below the nominal depth: bounds games whose noisy
    /// moves are expensive to generate.
    const QUIESCENCE_PLIES: u32;

    /// A Zobrist-style hash of everything that decides the position's value.
    fn hash(&self) -> u64;

    /// Whether the game is already decided here, before generating moves (a win reached, a
    /// drawn count, insufficient material...).
    fn decided(&self) -> Option<End>;

    /// What it means to have no legal move here (mate, stalemate, K-16).
    fn stuck(&self) -> End;

    /// Every move to search, appended to `out` (which is empty).
    fn moves(&self, out: &mut Vec<Self::Move>);

    /// The position after `mv`.
    fn play(&self, mv: Self::Move) -> Self;

    /// A short identifier of `mv` in this position, for the table and the killer moves.
    fn move_key(&self, mv: Self::Move) -> u32;

    /// `Some(order)` when `mv` is noisy (a capture, a promotion, a win), searched by quiescence
    /// and ordered by `order` (higher first); `None` for a quiet move.
    fn noisy(&self, mv: Self::Move) -> Option<i32>;

    /// The static evaluation, centipawns, for the side to move.
    fn eval(&self) -> i32;

    /// Whether standing pat is unsound here (Ouk Chatrang: in check): quiescence then searches
    /// every move.
    fn must_move(&self) -> bool;
}

/// How hard one search tries.
#[derive(Clone, Copy, Debug)]
pub(super) struct Settings {
    /// The deepest iteration, in plies (1..=[`MAX_DEPTH`]).
    pub max_depth: u32,
    /// Root noise: each root move gets a seeded offset in `-noise..=noise` centipawns.
    pub noise: i32,
    /// Seeds the noise and the order of equal moves.
    pub seed: u64,
    /// When to stop; depth 1 always completes.
    pub deadline: Instant,
}

/// The settings of a level (both games; docs/bots.md measures them): level 2 searches 1 ply with
/// ±30 centipawns of root noise, so that it blunders now and then; level 3 2 plies with ±10;
/// level 4 3 plies with ±3; level 5 deepens until the deadline with no noise (seeded order of
/// equal moves only). Every level adds quiescence and stops at `limits.deadline`.
pub(super) fn settings(limits: &Limits) -> Settings {
    let (max_depth, noise) = match limits.level.get() {
        0..=2 => (1, 30),
        3 => (2, 10),
        4 => (3, 3),
        _ => (MAX_DEPTH, 0),
    };
    Settings {
        max_depth,
        noise,
        seed: limits.seed,
        deadline: limits.deadline,
    }
}

/// What a search found.
#[derive(Clone, Copy, Debug)]
pub(super) struct Report {
    /// Index of the chosen move in the root move list.
    pub best: usize,
    /// Score of the chosen move, centipawns for the side to move (noise included).
    pub score: i32,
    /// The last completed iteration.
    pub depth: u32,
    /// Nodes visited (positions played into), quiescence included.
    pub nodes: u64,
}

#[derive(Clone, Copy, Default)]
struct Entry {
    /// The full hash, 0 for an empty slot.
    key: u64,
    best: u32,
    score: i16,
    depth: u8,
    bound: u8,
}

const EXACT: u8 = 0;
const LOWER: u8 = 1;
const UPPER: u8 = 2;

struct Searcher<'a, G: Searchable> {
    settings: &'a Settings,
    table: Vec<Entry>,
    killers: Vec<[u32; 2]>,
    /// Hashes of the positions on the current path, the root first (repetition in the path).
    path: Vec<u64>,
    nodes: u64,
    /// Set when the deadline passed during an iteration that may be abandoned.
    stopped: bool,
    may_stop: bool,
    /// Move lists by ply, reused.
    lists: Vec<Vec<G::Move>>,
}

/// Searches `root`, whose moves are `moves` (non-empty, in the caller's order), and returns the
/// index of the best one.
pub(super) fn search<G: Searchable>(root: &G, moves: &[G::Move], settings: &Settings) -> Report {
    let mut rng = StdRng::seed_from_u64(settings.seed);
    // Seeded order of equal moves: the root list is shuffled before the (stable) ordering.
    let mut order: Vec<usize> = (0..moves.len()).collect();
    order.shuffle(&mut rng);
    let noise: Vec<i32> = (0..moves.len())
        .map(|_| {
            if settings.noise > 0 {
                rng.random_range(-settings.noise..=settings.noise)
            } else {
                0
            }
        })
        .collect();
    let mut searcher = Searcher::<G> {
        settings,
        table: vec![Entry::default(); 1 << TT_BITS],
        killers: vec![[u32::MAX; 2]; MAX_DEPTH as usize + 64],
        path: vec![root.hash()],
        nodes: 0,
        stopped: false,
        may_stop: false,
        lists: Vec::new(),
    };
    // Initial ordering: noisy moves first.
    order.sort_by_key(|&i| std::cmp::Reverse(root.noisy(moves[i]).map_or(0, |o| o + 1_000_000)));
    let mut report = Report {
        best: order[0],
        score: 0,
        depth: 0,
        nodes: 0,
    };
    let children: Vec<G> = moves.iter().map(|&mv| root.play(mv)).collect();
    for depth in 1..=settings.max_depth.clamp(1, MAX_DEPTH) {
        searcher.may_stop = depth > 1;
        let mut alpha = -MATE - 1;
        let mut best = order[0];
        let mut scores = vec![-MATE - 1; moves.len()];
        for &i in &order {
            let n = noise[i];
            searcher.path.push(children[i].hash());
            searcher.nodes += 1;
            let value = -searcher.negamax(&children[i], depth - 1, 1, -MATE - 1, -(alpha - n)) + n;
            searcher.path.pop();
            if searcher.stopped {
                break;
            }
            scores[i] = value;
            if value > alpha {
                alpha = value;
                best = i;
            }
        }
        if searcher.stopped {
            // The previous best is searched first, with the full window: a move that beat it in
            // this unfinished iteration is better at the greater depth.
            if best != order[0] {
                report.best = best;
                report.score = alpha;
            }
            break;
        }
        report = Report {
            best,
            score: alpha,
            depth,
            nodes: searcher.nodes,
        };
        // Best first next time, then the others by this iteration's (fail-low bounded) scores.
        order.sort_by_key(|&i| (i != best, std::cmp::Reverse(scores[i])));
        if alpha.abs() >= MATE_BOUND {
            // A forced mate either way: deeper search cannot change the choice's value.
            break;
        }
    }
    report.nodes = searcher.nodes;
    report
}

impl<G: Searchable> Searcher<'_, G> {
    fn tick(&mut self) {
        self.nodes += 1;
        if self.may_stop
            && self.nodes.is_multiple_of(CLOCK_EVERY)
            && Instant::now() >= self.settings.deadline
        {
            self.stopped = true;
        }
    }

    fn slot(&self, key: u64) -> usize {
        (key >> (64 - TT_BITS)) as usize
    }

    fn repeated(&self) -> bool {
        let Some((&now, before)) = self.path.split_last() else {
            return false;
        };
        before.iter().rev().skip(1).step_by(2).any(|&h| h == now)
    }

    fn take_list(&mut self, ply: usize) -> Vec<G::Move> {
        self.lists
            .get_mut(ply)
            .map(std::mem::take)
            .unwrap_or_default()
    }

    fn give_list(&mut self, ply: usize, mut list: Vec<G::Move>) {
        list.clear();
        if self.lists.len() <= ply {
            self.lists.resize_with(ply + 1, Vec::new);
        }
        self.lists[ply] = list;
    }

    fn end_score(end: End, ply: u32) -> i32 {
        match end {
            End::Loss => -MATE + ply as i32,
            End::Draw => 0,
            End::Win => MATE - ply as i32,
        }
    }

    fn negamax(&mut self, pos: &G, depth: u32, ply: u32, mut alpha: i32, beta: i32) -> i32 {
        if let Some(end) = pos.decided() {
            return Self::end_score(end, ply);
        }
        if self.repeated() {
            return 0;
        }
        if depth == 0 {
            return self.quiesce(pos, ply, 0, alpha, beta);
        }
        let key = pos.hash();
        let slot = self.slot(key);
        let entry = self.table[slot];
        let mut table_move = u32::MAX;
        if entry.key == key {
            table_move = entry.best;
            if u32::from(entry.depth) >= depth {
                let score = from_table(entry.score, ply);
                let usable = match entry.bound {
                    EXACT => true,
                    LOWER => score >= beta,
                    _ => score <= alpha,
                };
                if usable {
                    return score;
                }
            }
        }
        let mut moves = self.take_list(ply as usize);
        pos.moves(&mut moves);
        if moves.is_empty() {
            self.give_list(ply as usize, moves);
            return Self::end_score(pos.stuck(), ply);
        }
        let killers = self.killers[ply as usize];
        let mut keyed: Vec<(i32, u32, G::Move)> = moves
            .iter()
            .map(|&mv| {
                let k = pos.move_key(mv);
                let order = if k == table_move {
                    i32::MAX
                } else if let Some(o) = pos.noisy(mv) {
                    1_000_000 + o
                } else if k == killers[0] {
                    KILLER_ORDER + 1
                } else if k == killers[1] {
                    KILLER_ORDER
                } else {
                    0
                };
                (order, k, mv)
            })
            .collect();
        self.give_list(ply as usize, moves);
        keyed.sort_by_key(|&(order, _, _)| std::cmp::Reverse(order));
        let original_alpha = alpha;
        let mut best = -MATE - 1;
        let mut best_key = u32::MAX;
        let reducible = depth >= LMR_DEPTH && !pos.must_move();
        for (n, &(order, k, mv)) in keyed.iter().enumerate() {
            let child = pos.play(mv);
            self.tick();
            self.path.push(child.hash());
            // Late move reduction: quiet moves far down the order are first tried one ply
            // shallower with a null window, and searched fully only when they might raise alpha.
            let mut value = alpha + 1;
            if reducible && n >= LMR_AFTER && order < KILLER_ORDER {
                value = -self.negamax(&child, depth - 2, ply + 1, -alpha - 1, -alpha);
            }
            if value > alpha {
                value = -self.negamax(&child, depth - 1, ply + 1, -beta, -alpha);
            }
            self.path.pop();
            if self.stopped {
                return 0;
            }
            if value > best {
                best = value;
                best_key = k;
            }
            if value > alpha {
                alpha = value;
            }
            if alpha >= beta {
                if order < 1_000_000 {
                    let slot = &mut self.killers[ply as usize];
                    if slot[0] != k {
                        slot[1] = slot[0];
                        slot[0] = k;
                    }
                }
                break;
            }
        }
        let bound = if best >= beta {
            LOWER
        } else if best > original_alpha {
            EXACT
        } else {
            UPPER
        };
        self.table[slot] = Entry {
            key,
            best: best_key,
            score: to_table(best, ply),
            depth: depth.min(u32::from(u8::MAX)) as u8,
            bound,
        };
        best
    }

    fn quiesce(&mut self, pos: &G, ply: u32, qply: u32, mut alpha: i32, beta: i32) -> i32 {
        let check = pos.must_move();
        let mut best = -MATE - 1;
        if !check {
            best = pos.eval();
            if best >= beta || qply >= G::QUIESCENCE_PLIES {
                return best;
            }
            alpha = alpha.max(best);
        }
        let mut moves = self.take_list(ply as usize);
        pos.moves(&mut moves);
        if moves.is_empty() {
            self.give_list(ply as usize, moves);
            return Self::end_score(pos.stuck(), ply);
        }
        if check && qply >= G::QUIESCENCE_PLIES {
            self.give_list(ply as usize, moves);
            return pos.eval();
        }
        let mut keyed: Vec<(i32, G::Move)> = moves
            .iter()
            .filter_map(|&mv| match pos.noisy(mv) {
                Some(order) => Some((order, mv)),
                None if check => Some((i32::MIN, mv)),
                None => None,
            })
            .collect();
        self.give_list(ply as usize, moves);
        keyed.sort_by_key(|&(order, _)| std::cmp::Reverse(order));
        for &(_, mv) in &keyed {
            let child = pos.play(mv);
            self.tick();
            let value = match child.decided() {
                Some(end) => -Self::end_score(end, ply + 1),
                None => -self.quiesce(&child, ply + 1, qply + 1, -beta, -alpha),
            };
            if self.stopped {
                return 0;
            }
            if value > best {
                best = value;
            }
            if value > alpha {
                alpha = value;
            }
            if alpha >= beta {
                break;
            }
        }
        best
    }
}

/// A score as stored: mate scores count from the stored node rather than from the root.
fn to_table(score: i32, ply: u32) -> i16 {
    let adjusted = if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    };
    adjusted.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16
}

fn from_table(score: i16, ply: u32) -> i32 {
    let score = i32::from(score);
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// The Zobrist keys for `N` features: fixed pseudo-random numbers (SplitMix64 from a constant
/// seed), computed at compile time.
pub(super) const fn zobrist<const N: usize>(seed: u64) -> [u64; N] {
    let mut keys = [0; N];
    let mut state = seed;
    let mut i = 0;
    while i < N {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        keys[i] = z ^ (z >> 31);
        i += 1;
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_scores_round_trip_through_the_table() {
        for ply in [0, 3, 17] {
            for score in [MATE - 5 - ply as i32, -(MATE - 9 - ply as i32), 123, -45] {
                assert_eq!(from_table(to_table(score, ply), ply), score);
            }
        }
    }

    #[test]
    fn zobrist_keys_differ() {
        let keys: [u64; 64] = zobrist(7);
        let mut sorted = keys.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 64);
    }
}
