//! The Khan-Tsin engine: Monte Carlo tree search for 2 or 3 players in which every player
//! maximises its own result ("max^n" UCT).
//!
//! Each tree node keeps the summed reward of each colour (white, green, blue) over the playouts
//! through it; selection at a node uses the reward of the colour on move there, so the same
//! search serves two players (the neutral colour scores nothing) and three (a seat that resigned
//! is out of `playing` and scores nothing either). Rewards of a finished game: 1 to the winner
//! (T-13) and 0 to the others; a draw (T-14) splits 1 evenly among the colours still playing.
//!
//! Playouts are random, except that a player who can win at once does (T-13); in the tree, too,
//! such a player's node gets that move as its only child, and at the root it is played without
//! a search. After [`PLAYOUT_PLIES`] plies the position is scored by [`evaluate`], a draw split
//! by how close each colour's Khan stack is to a winning landing. Repetition (T-15) belongs to
//! the game's history and is not followed inside the search.
//!
//! Levels: 1 a random legal move; 2, 3 and 4 a fixed number of playouts ([`playouts`]); 5 as many
//! as the deadline allows, up to a cap. Every level stops at the deadline, after at least one
//! playout per root move, and plays the root move with the most visits.

use std::time::Instant;

use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

use super::Limits;
use crate::rules::Rules;
use crate::rules::khan_tsin::{
    COLOR_CAP, Color, Direction, Game, MAX_HEIGHT, Move, Pawn, Phase, Position,
};

/// How many plies a playout runs before its position is scored by [`evaluate`]. Uniformly random
/// games last about 100 plies, placement included (24 plies for 2 players, 36 for 3), and four
/// in five end in a win (see the ignored test `game_length`); 40 plies keep playouts cheap
/// while the heuristic still sees where the stacks are heading.
const PLAYOUT_PLIES: usize = 40;

/// The most nodes the tree grows to (about 200 MB); past it, leaves are played out again instead
/// of expanded, so a long level-5 search keeps its memory bounded.
const MAX_NODES: usize = 1 << 22;

/// The UCT exploration constant for rewards in [0, 1].
const EXPLORATION: f64 = 0.7;

/// How many playouts run between two looks at the clock.
const CLOCK_EVERY: u32 = 8;

/// Reward per colour, indexed by [`Color::index`] (white, green, blue); each in [0, 1].
type Reward = [f64; 3];

/// The playouts a level runs at most: level 5 is bounded by its deadline first.
fn playouts(level: u8) -> u32 {
    match level {
        2 => 100,
        3 => 600,
        4 => 3_000,
        _ => 1_000_000,
    }
}

/// The move a bot plays in `game` within `limits`, in canonical notation; `None` once the game
/// is over.
pub(super) fn choose_move(game: &Game, limits: &Limits) -> Option<String> {
    if game.outcome().is_some() {
        return None;
    }
    let level = limits.level.get();
    if level <= 1 {
        return super::random_move(game, limits.seed);
    }
    let root = *game.current();
    let mover = root.side_to_move();
    let mut moves = root.legal_moves();
    if let Some(win) = winning_move(&root, mover) {
        return Some(win.to_string());
    }
    match moves.len() {
        // Only a position read from text puts a player with no move on move: it skips (T-12).
        0 => return Some(Move::Pass.to_string()),
        1 => return Some(moves[0].to_string()),
        _ => {}
    }
    let mut rng = SmallRng::seed_from_u64(limits.seed);
    moves.shuffle(&mut rng);
    let mut tree = Tree::new(root, moves);
    tree.run(playouts(level), limits.deadline, &mut rng);
    Some(tree.best_move().to_string())
}

/// What a node is, besides its statistics.
#[derive(Clone, Copy, Debug)]
enum State {
    /// Not expanded yet: its children are made on its second visit.
    Leaf,
    /// Its children are `first .. first + count` in the arena.
    Expanded { first: u32, count: u32 },
    /// The game is over here: won by this colour (T-13), or drawn (`None`, T-14).
    Over(Option<Color>),
}

/// One node of the search tree. Positions are not stored: each descent replays the moves from
/// the root, which keeps a node small.
#[derive(Clone, Copy, Debug)]
struct Node {
    /// The move that leads here from the parent (`Pass` at the root and for a skip, T-12).
    mv: Move,
    visits: u32,
    /// Summed rewards of the playouts through this node, per colour.
    reward: Reward,
    state: State,
}

impl Node {
    fn new(mv: Move) -> Node {
        Node {
            mv,
            visits: 0,
            reward: [0.0; 3],
            state: State::Leaf,
        }
    }
}

/// The search tree: an arena of nodes, the root at index 0.
struct Tree {
    root: Position,
    /// The root's children are the nodes `1 ..= root_moves`.
    root_moves: u32,
    nodes: Vec<Node>,
    /// Reused move list of the playouts.
    buffer: Vec<Move>,
    /// Reused list of the node indices of one descent.
    path: Vec<usize>,
}

impl Tree {
    /// A tree whose root, `root`, is expanded with `moves` (its legal moves, at least two).
    fn new(root: Position, moves: Vec<Move>) -> Tree {
        let mut nodes = Vec::with_capacity(1 + moves.len());
        nodes.push(Node {
            state: State::Expanded {
                first: 1,
                count: moves.len() as u32,
            },
            ..Node::new(Move::Pass)
        });
        nodes.extend(moves.into_iter().map(Node::new));
        Tree {
            root,
            root_moves: nodes.len() as u32 - 1,
            nodes,
            buffer: Vec::new(),
            path: Vec::new(),
        }
    }

    /// Runs up to `budget` playouts, stopping at `deadline` once each root move has had one.
    fn run(&mut self, budget: u32, deadline: Instant, rng: &mut SmallRng) {
        for done in 0..budget {
            if done >= self.root_moves && done % CLOCK_EVERY == 0 && Instant::now() >= deadline {
                break;
            }
            self.iterate(rng);
        }
    }

    /// One descent from the root: select, expand, play out, back up.
    fn iterate(&mut self, rng: &mut SmallRng) {
        self.path.clear();
        self.path.push(0);
        let mut pos = self.root;
        let mut node = 0;
        let reward = loop {
            match self.nodes[node].state {
                State::Over(Some(winner)) => break win(winner),
                // The colours playing never change inside a search: the root's are the draw's.
                State::Over(None) => break draw(&self.root),
                State::Leaf if self.nodes[node].visits == 0 || self.nodes.len() >= MAX_NODES => {
                    break playout(pos, rng, &mut self.buffer);
                }
                State::Leaf => self.expand(node, &pos, rng),
                State::Expanded { first, count } => {
                    let child = select(&self.nodes, node, first, count, pos.side_to_move());
                    let played = pos.play_unchecked(self.nodes[child].mv);
                    if played.won {
                        self.nodes[child].state = State::Over(Some(pos.side_to_move()));
                    }
                    pos = played.position;
                    node = child;
                    self.path.push(node);
                }
            }
        };
        for &i in &self.path {
            let n = &mut self.nodes[i];
            n.visits += 1;
            for (sum, r) in n.reward.iter_mut().zip(reward) {
                *sum += r;
            }
        }
    }

    /// Gives `node` (at `pos`) its children, in random order so that ties between unvisited
    /// moves do not favour the generation order. A player who can win at once gets that move
    /// only (it would play it: the node's value is then exact), a player with no move the one
    /// child `pass` (T-12), and a position where nobody can move is a draw (T-14).
    fn expand(&mut self, node: usize, pos: &Position, rng: &mut SmallRng) {
        self.buffer.clear();
        let side = pos.side_to_move();
        match winning_move(pos, side) {
            Some(win) => self.buffer.push(win),
            None => pos.moves_of(side, &mut self.buffer),
        }
        if self.buffer.is_empty() {
            if !pos.anyone_can_move() {
                self.nodes[node].state = State::Over(None);
                return;
            }
            self.buffer.push(Move::Pass);
        }
        self.buffer.shuffle(rng);
        let first = self.nodes.len() as u32;
        self.nodes
            .extend(self.buffer.iter().copied().map(Node::new));
        self.nodes[node].state = State::Expanded {
            first,
            count: self.buffer.len() as u32,
        };
    }

    /// The root move with the most visits, the better average reward for the root's mover
    /// breaking ties.
    fn best_move(&self) -> Move {
        let mover = self.root.side_to_move().index();
        let children = &self.nodes[1..=self.root_moves as usize];
        children
            .iter()
            .max_by(|a, b| {
                let mean = |n: &Node| n.reward[mover] / f64::from(n.visits.max(1));
                a.visits.cmp(&b.visits).then(mean(a).total_cmp(&mean(b)))
            })
            .map(|n| n.mv)
            .expect("the root has at least two moves")
    }
}

/// The child of `parent` (children `first .. first + count`) that `mover`, on move there,
/// explores next: an unvisited child first, else the best UCB1 score of `mover`'s own reward.
fn select(nodes: &[Node], parent: usize, first: u32, count: u32, mover: Color) -> usize {
    let log_n = f64::from(nodes[parent].visits.max(1)).ln();
    let mut best = first as usize;
    let mut best_score = f64::NEG_INFINITY;
    let children = &nodes[first as usize..(first + count) as usize];
    for (i, child) in (first as usize..).zip(children) {
        if child.visits == 0 {
            return i;
        }
        let n = f64::from(child.visits);
        let score = child.reward[mover.index()] / n + EXPLORATION * (log_n / n).sqrt();
        if score > best_score {
            best_score = score;
            best = i;
        }
    }
    best
}

/// A random game from `pos` for at most [`PLAYOUT_PLIES`] plies; a player who can win at once
/// does (T-13). Returns the rewards of its end, or of [`evaluate`] at the ply cap.
fn playout(mut pos: Position, rng: &mut SmallRng, buffer: &mut Vec<Move>) -> Reward {
    for _ in 0..PLAYOUT_PLIES {
        let side = pos.side_to_move();
        if winning_move(&pos, side).is_some() {
            return win(side);
        }
        buffer.clear();
        pos.moves_of(side, buffer);
        let mv = if buffer.is_empty() {
            if !pos.anyone_can_move() {
                return draw(&pos);
            }
            Move::Pass
        } else {
            buffer[rng.random_range(0..buffer.len())]
        };
        let played = pos.play_unchecked(mv);
        if played.won {
            return win(side);
        }
        pos = played.position;
    }
    evaluate(&pos)
}

/// 1 for `winner`, 0 for the others (T-13).
fn win(winner: Color) -> Reward {
    let mut reward = [0.0; 3];
    reward[winner.index()] = 1.0;
    reward
}

/// A draw: 1 split evenly among the colours still playing (T-14).
fn draw(pos: &Position) -> Reward {
    let playing = pos.playing();
    let share = 1.0 / playing.len().max(1) as f64;
    let mut reward = [0.0; 3];
    for color in playing.iter() {
        reward[color.index()] = share;
    }
    reward
}

/// The square whose stack `color`'s face-up Khan-pawn tops, if it is on the board. A Khan-pawn is
/// always the top of its stack: nothing may land on it (T-11).
fn khan_square(pos: &Position, color: Color) -> Option<usize> {
    let khan = Pawn::khan(color);
    pos.board()
        .stacks()
        .iter()
        .position(|s| s.top() == Some(khan))
}

/// A move of `color` that wins at once (T-13): its Khan stack's top k pawns land on a stack so
/// that it holds 3 pawns of each colour (9 pawns, the Khan on top). Only in the movement phase.
fn winning_move(pos: &Position, color: Color) -> Option<Move> {
    if pos.phase() != Phase::Movement || !pos.playing().contains(color) {
        return None;
    }
    let from = khan_square(pos, color)?;
    let board = pos.board();
    let khan_stack = board.stack(from);
    let distance = pos.layout().square(from).distance();
    for direction in Direction::BOTH {
        let Some(to) = board.landing(from, distance, direction) else {
            continue;
        };
        let onto = board.stack(to);
        if onto.top().is_some_and(|p| p.is_khan()) {
            continue;
        }
        let Some(k) = MAX_HEIGHT.checked_sub(onto.height()) else {
            continue;
        };
        if k == 0 || k > khan_stack.height() {
            continue;
        }
        let (moved, there) = (khan_stack.top_part(k).counts(), onto.counts());
        if (0..3).all(|i| moved[i] + there[i] == COLOR_CAP) {
            // A landing reached both ways is one move, written `+` (T-9): `+` is tried first.
            return Some(Move::Shift {
                from: from as u8,
                k: k as u8,
                direction,
            });
        }
    }
    None
}

/// How close `color` is to a win, in [0, 1]: the tallest stack its Khan stack's top k pawns
/// could make by landing on another stack within the colour cap (T-10), over 9, ignoring
/// whether the count of T-9 reaches it; 1 when it can win at once. A colour whose Khan-pawn is
/// not on the board (placement phase) scores 0.
fn progress(pos: &Position, color: Color) -> f64 {
    if winning_move(pos, color).is_some() {
        return 1.0;
    }
    let Some(from) = khan_square(pos, color) else {
        return 0.0;
    };
    let board = pos.board();
    let khan_stack = board.stack(from);
    let mut tallest = khan_stack.height();
    for (to, onto) in board.stacks().iter().enumerate() {
        if to == from || onto.is_empty() || onto.top().is_some_and(|p| p.is_khan()) {
            continue;
        }
        let there = onto.counts();
        for k in 1..=khan_stack.height() {
            let moved = khan_stack.top_part(k).counts();
            if (0..3).any(|i| moved[i] + there[i] > COLOR_CAP) {
                break;
            }
            tallest = tallest.max(k + onto.height());
        }
    }
    // Short of a win the best is 8 of 9: keep it below the 1 of a winning threat.
    0.9 * tallest as f64 / MAX_HEIGHT as f64
}

/// Rewards of an unfinished position at the ply cap: each colour playing gets a share of 1 that
/// grows with its [`progress`] (squared, so a colour near a win stands out), like a draw split
/// unevenly. Colours not playing get 0.
fn evaluate(pos: &Position) -> Reward {
    let playing = pos.playing();
    let mut weights = [0.0; 3];
    for color in playing.iter() {
        let p = 0.1 + progress(pos, color);
        weights[color.index()] = p * p;
    }
    let total: f64 = weights.iter().sum();
    if total <= 0.0 {
        return draw(pos);
    }
    weights.map(|w| w / total)
}

#[cfg(test)]
mod tests;
