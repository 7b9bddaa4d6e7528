//! The matching policy of a pool, as a pure function of its waiting players and the time
//! ([`pair`]): who plays whom, and who takes which seat. Both queues (PostgreSQL's and the
//! in-process one) call it with the rows they hold, so the policy is the same on every backend.
//!
//! - **Rating windows.** A player who has waited `w` accepts an opponent within
//!   [`window`]`(w)` = ±100 rating points, widened by 50 every 2 s of waiting, up to ±500. Two
//!   players may meet when their difference is within the window of the one who waited longer:
//!   a player left alone at the edge of the pool is met by anyone inside their widened window
//!   at once, instead of waiting for a newcomer's window to widen too (as lichess's pools do).
//!   A three-player game needs every pair of its players inside the window of its longest wait.
//! - **Order.** The longest waiting player is served first, with the nearest compatible
//!   opponent (ties: the longer waiting one), so nobody is starved by later arrivals.
//! - **No rematch twice in a row.** Players whose last game was against each other are not
//!   paired again while another compatible player waits for either of them; when nobody else
//!   can be their opponent they may meet again rather than wait forever.
//! - **Seats alternate.** Each player avoids the seat of their last game: the seat order chosen
//!   is the one that gives the most players a seat other than their last (in a two-player game:
//!   whoever moved first last time moves second now); a tie is broken by `coin`.

use uuid::Uuid;

/// The narrowest rating window, when a player has just come.
pub const FIRST_WINDOW: u32 = 100;

/// How much the window widens at each step.
pub const WINDOW_STEP: u32 = 50;

/// How long each step takes, in ms.
pub const WINDOW_STEP_MS: i64 = 2_000;

/// The widest window.
pub const WIDEST_WINDOW: u32 = 500;

/// The rating window of a player who has waited `waited_ms`: ±100 at first, +50 every 2 s,
/// at most ±500. A negative wait (clocks a little apart) counts as none.
pub fn window(waited_ms: i64) -> u32 {
    let steps = u32::try_from(waited_ms.max(0) / WINDOW_STEP_MS).unwrap_or(u32::MAX);
    FIRST_WINDOW
        .saturating_add(steps.saturating_mul(WINDOW_STEP))
        .min(WIDEST_WINDOW)
}

/// A player waiting in a pool, as the queues hand them to [`pair`].
#[derive(Clone, Debug, PartialEq)]
pub struct Waiting {
    /// The waiting entry (its request).
    pub id: Uuid,
    /// The player's account; `None` for an anonymous player.
    pub user: Option<Uuid>,
    /// The rating the pool pairs by (1500-scale).
    pub rating: i32,
    /// When the player began waiting, ms since 1970.
    pub since_ms: i64,
    /// The accounts the player's last game in this game was against (empty: none known).
    pub last_opponents: Vec<Uuid>,
    /// The player's seat in that game.
    pub last_seat: Option<u8>,
}

/// A game [`pair`] makes: the waiting entries by seat (`seats[0]` takes seat 0, ...).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pairing {
    /// Entry ids in seat order.
    pub seats: Vec<Uuid>,
}

/// Whether `a` and `b` played each other in their last game (either one's).
fn rematch(a: &Waiting, b: &Waiting) -> bool {
    let played = |x: &Waiting, y: &Waiting| y.user.is_some_and(|u| x.last_opponents.contains(&u));
    played(a, b) || played(b, a)
}

/// Whether `a` and `b` may meet at `now_ms`: two different players whose ratings are within the
/// window of the one who waited longer.
fn compatible(a: &Waiting, b: &Waiting, now_ms: i64) -> bool {
    if a.id == b.id || (a.user.is_some() && a.user == b.user) {
        return false;
    }
    let longest = now_ms - a.since_ms.min(b.since_ms);
    a.rating.abs_diff(b.rating) <= window(longest)
}

/// Whether the players of `group` may all meet at `now_ms`.
fn group_compatible(group: &[&Waiting], now_ms: i64) -> bool {
    let longest = group.iter().map(|w| w.since_ms).min().unwrap_or(now_ms);
    let widest = window(now_ms - longest);
    group.iter().enumerate().all(|(i, a)| {
        group[i + 1..].iter().all(|b| {
            a.id != b.id
                && (a.user.is_none() || a.user != b.user)
                && a.rating.abs_diff(b.rating) <= widest
        })
    })
}

/// Whether any two players of `group` played each other last.
fn has_rematch(group: &[&Waiting]) -> bool {
    group
        .iter()
        .enumerate()
        .any(|(i, a)| group[i + 1..].iter().any(|b| rematch(a, b)))
}

/// The games to start now among `waiting` (one pool), each of `players` entries (2 or 3), by
/// the rules of this module's doc; an entry is in at most one. `coin` breaks ties of the seat
/// order (any random number; tests give fixed ones).
pub fn pair(waiting: &[Waiting], now_ms: i64, players: usize, coin: u64) -> Vec<Pairing> {
    let mut order: Vec<&Waiting> = waiting.iter().collect();
    order.sort_by_key(|w| (w.since_ms, w.id));
    let mut taken = vec![false; order.len()];
    let mut games = Vec::new();
    for first in 0..order.len() {
        if taken[first] {
            continue;
        }
        let free: Vec<usize> = (0..order.len())
            .filter(|&i| i != first && !taken[i])
            .collect();
        let found = match players {
            2 => opponent(&order, first, &free, now_ms).map(|b| vec![first, b]),
            3 => trio(&order, first, &free, now_ms),
            _ => None,
        };
        let Some(group) = found else { continue };
        for &i in &group {
            taken[i] = true;
        }
        let members: Vec<&Waiting> = group.iter().map(|&i| order[i]).collect();
        let coin = coin.rotate_left(u32::try_from(games.len() % 64).unwrap_or(0));
        games.push(Pairing {
            seats: seat_order(&members, coin),
        });
    }
    games
}

/// The nearest compatible opponent of `order[first]` among `free` (ties: the longer waiting),
/// a rematch only when neither of the two has another compatible opponent.
fn opponent(order: &[&Waiting], first: usize, free: &[usize], now_ms: i64) -> Option<usize> {
    let a = order[first];
    let nearest = |rematches: bool| {
        free.iter()
            .copied()
            .filter(|&i| compatible(a, order[i], now_ms) && rematch(a, order[i]) == rematches)
            .min_by_key(|&i| (a.rating.abs_diff(order[i].rating), i))
    };
    if let Some(b) = nearest(false) {
        return Some(b);
    }
    let b = nearest(true)?;
    // `b` may meet `a` again only if nobody else free could be b's opponent.
    let others = free
        .iter()
        .copied()
        .filter(|&i| i != b)
        .any(|i| compatible(order[b], order[i], now_ms) && !rematch(order[b], order[i]));
    (!others).then_some(b)
}

/// The two opponents of `order[first]` among `free` making the closest compatible trio (by
/// the largest rating difference to `first`, then the smaller sum, then the longer waits), one
/// with a rematch in it only when there is no other.
fn trio(order: &[&Waiting], first: usize, free: &[usize], now_ms: i64) -> Option<Vec<usize>> {
    let a = order[first];
    let near: Vec<usize> = free
        .iter()
        .copied()
        .filter(|&i| compatible(a, order[i], now_ms))
        .collect();
    // (has a rematch, largest difference, sum of differences, b, c): the smallest is best.
    type Rank = (bool, u32, u32, usize, usize);
    let mut best: Option<(Rank, Vec<usize>)> = None;
    for (k, &b) in near.iter().enumerate() {
        for &c in &near[k + 1..] {
            let group = [a, order[b], order[c]];
            if !group_compatible(&group, now_ms) {
                continue;
            }
            let (db, dc) = (
                a.rating.abs_diff(order[b].rating),
                a.rating.abs_diff(order[c].rating),
            );
            let key = (has_rematch(&group), db.max(dc), db + dc, b, c);
            if best.as_ref().is_none_or(|(known, _)| key < *known) {
                best = Some((key, vec![first, b, c]));
            }
        }
    }
    best.map(|(_, group)| group)
}

/// The seat order of `members` (entry ids by seat) giving the most of them a seat other than
/// their last one; among equal orders, `coin` picks.
fn seat_order(members: &[&Waiting], coin: u64) -> Vec<Uuid> {
    let orders = permutations(members.len());
    let moved = |order: &Vec<usize>| {
        order
            .iter()
            .enumerate()
            .filter(|&(seat, &m)| {
                members[m]
                    .last_seat
                    .is_some_and(|last| usize::from(last) != seat)
            })
            .count()
    };
    let most = orders.iter().map(moved).max().unwrap_or(0);
    let best: Vec<&Vec<usize>> = orders.iter().filter(|o| moved(o) == most).collect();
    let pick = usize::try_from(coin % best.len().max(1) as u64).unwrap_or(0);
    best.get(pick)
        .map(|order| order.iter().map(|&m| members[m].id).collect())
        .unwrap_or_default()
}

/// Every order of `0..n`, in lexicographic order.
fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut all = Vec::new();
    for first in 0..n {
        for rest in permutations(n - 1) {
            let mut order = vec![first];
            order.extend(rest.into_iter().map(|x| if x >= first { x + 1 } else { x }));
            all.push(order);
        }
    }
    all.sort();
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u128) -> Uuid {
        Uuid::from_u128(n)
    }

    /// Entry `n` of account `n`, rated `rating`, waiting since `since_ms`.
    fn player(n: u128, rating: i32, since_ms: i64) -> Waiting {
        Waiting {
            id: id(n),
            user: Some(id(1000 + n)),
            rating,
            since_ms,
            last_opponents: Vec::new(),
            last_seat: None,
        }
    }

    fn after(mut w: Waiting, opponents: &[u128], seat: u8) -> Waiting {
        w.last_opponents = opponents.iter().map(|&n| id(1000 + n)).collect();
        w.last_seat = Some(seat);
        w
    }

    fn games(pairings: &[Pairing]) -> Vec<Vec<u128>> {
        pairings
            .iter()
            .map(|p| p.seats.iter().map(|s| s.as_u128()).collect())
            .collect()
    }

    #[test]
    fn the_window_is_100_then_widens_by_50_every_2_s_up_to_500() {
        let windows: Vec<u32> = [-5, 0, 1_999, 2_000, 3_999, 4_000, 10_000, 16_000, 60_000]
            .into_iter()
            .map(window)
            .collect();
        assert_eq!(windows, [100, 100, 100, 150, 150, 200, 350, 500, 500]);
    }

    #[test]
    fn players_within_100_meet_at_once_and_farther_ones_only_once_the_window_has_widened() {
        let waiting = [player(1, 1500, 0), player(2, 1600, 0), player(3, 1751, 0)];
        // 1 and 2 are 100 apart: at once. 3 is 151 from 2: not yet.
        assert_eq!(games(&pair(&waiting, 0, 2, 0)), [vec![1, 2]]);
        let two = [player(2, 1600, 0), player(3, 1751, 0)];
        assert!(
            pair(&two, 3_999, 2, 0).is_empty(),
            "±150 at 2 s: 151 is out"
        );
        assert_eq!(games(&pair(&two, 4_000, 2, 0)).len(), 1, "±200 at 4 s");
    }

    #[test]
    fn the_window_of_the_longer_waiting_player_decides() {
        // 1 has waited 16 s (±500); 2 has just come, 450 away.
        let waiting = [player(1, 1000, 0), player(2, 1450, 16_000)];
        assert_eq!(games(&pair(&waiting, 16_000, 2, 0)).len(), 1);
        // Both new: no.
        let fresh = [player(1, 1000, 16_000), player(2, 1450, 16_000)];
        assert!(pair(&fresh, 16_000, 2, 0).is_empty());
        // Never beyond 500, however long.
        let far = [player(1, 1000, 0), player(2, 1501, 0)];
        assert!(pair(&far, 600_000, 2, 0).is_empty());
    }

    #[test]
    fn the_longest_waiting_player_gets_the_nearest_opponent() {
        let waiting = [
            player(1, 1500, 5),
            player(2, 1580, 0),
            player(3, 1520, 10),
            player(4, 1600, 20),
        ];
        // 2 waited longest: nearest to 1580 is 4 (20), then 3 (60), then 1 (80): 2 takes 4;
        // then 1, the next longest waiting, takes 3.
        assert_eq!(games(&pair(&waiting, 100, 2, 0)), [vec![2, 4], vec![1, 3]]);
    }

    #[test]
    fn an_account_never_meets_itself() {
        let mut twin = player(2, 1500, 0);
        twin.user = Some(id(1001));
        assert!(pair(&[player(1, 1500, 0), twin], 0, 2, 0).is_empty());
        // Two anonymous players are two players.
        let mut a = player(1, 1500, 0);
        let mut b = player(2, 1500, 0);
        a.user = None;
        b.user = None;
        assert_eq!(pair(&[a, b], 0, 2, 0).len(), 1);
    }

    #[test]
    fn the_last_two_opponents_do_not_meet_again_while_another_can_play_either() {
        let one = after(player(1, 1500, 0), &[2], 0);
        let two = after(player(2, 1500, 0), &[1], 1);
        let three = player(3, 1560, 1);
        let four = player(4, 1450, 2);
        // 1 is nearest to 2 but played 2 last: 1 (served first) gets 4 (50), 2 gets 3 (60).
        let waiting = [one.clone(), two.clone(), three.clone(), four];
        // Seats: 1 moved first last time, so 4 does now; 2 moved second, so 2 moves first.
        assert_eq!(games(&pair(&waiting, 10, 2, 0)), [vec![4, 1], vec![2, 3]]);
        // With 3 alone besides them, 1 (the first served) plays 3 and 2 waits.
        let waiting = [one.clone(), two.clone(), three];
        let made = games(&pair(&waiting, 10, 2, 0));
        assert_eq!(made.len(), 1);
        assert!(made[0].contains(&3), "{made:?}");
        // Alone together: they meet again rather than wait forever.
        assert_eq!(games(&pair(&[one, two], 10, 2, 0)).len(), 1);
    }

    #[test]
    fn a_rematch_waits_while_the_third_player_can_play_the_other_one() {
        // 1 and 2 played last; at ±500 (16 s) 1 can play 2 (450) but not 3 (550), and 2 can
        // play 3 (100): 2 plays 3, and 1, though served first, waits.
        let one = after(player(1, 1000, 0), &[2], 0);
        let two = after(player(2, 1450, 0), &[1], 1);
        let three = player(3, 1550, 0);
        let made = games(&pair(&[one, two, three], 16_000, 2, 0));
        assert_eq!(made.len(), 1);
        let mut game = made[0].clone();
        game.sort();
        assert_eq!(game, vec![2, 3]);
    }

    #[test]
    fn seats_alternate_with_the_last_games() {
        // 1 moved first last time, 2 second: 2 moves first now, whatever the coin.
        let one = after(player(1, 1500, 0), &[9], 0);
        let two = after(player(2, 1500, 1), &[8], 1);
        for coin in 0..4 {
            let made = pair(&[one.clone(), two.clone()], 10, 2, coin);
            assert_eq!(games(&made), [vec![2, 1]], "coin {coin}");
        }
        // Both moved first last time: one of them must again; the coin picks which.
        let two_first = after(player(2, 1500, 1), &[8], 0);
        let heads = games(&pair(&[one.clone(), two_first.clone()], 10, 2, 0));
        let tails = games(&pair(&[one.clone(), two_first], 10, 2, 1));
        assert_eq!((heads, tails), (vec![vec![1, 2]], vec![vec![2, 1]]));
        // One without a last game: the other gets the other seat.
        let new = player(3, 1500, 1);
        for coin in 0..4 {
            assert_eq!(
                games(&pair(&[one.clone(), new.clone()], 10, 2, coin)),
                [vec![3, 1]]
            );
        }
    }

    #[test]
    fn three_players_make_a_game_within_the_window_each_with_a_seat_they_did_not_have() {
        let waiting = [
            after(player(1, 1500, 0), &[], 0),
            after(player(2, 1550, 1), &[], 1),
            after(player(3, 1590, 2), &[], 2),
            player(4, 1800, 3),
        ];
        let made = games(&pair(&waiting, 10, 3, 0));
        assert_eq!(made.len(), 1);
        let game = &made[0];
        let mut members = game.clone();
        members.sort();
        assert_eq!(members, [1, 2, 3], "4 is 300 away");
        for (seat, &n) in game.iter().enumerate() {
            assert_ne!(usize::try_from(n - 1).unwrap(), seat, "{game:?}");
        }
        // Only two players within range: no three-player game yet.
        assert!(pair(&waiting[2..], 10, 3, 0).is_empty());
        // 1590 and 1800 are 210 apart: with 1 (290 from 4) not before ±300 (8 s).
        let far = [player(1, 1500, 0), player(3, 1590, 0), player(4, 1800, 0)];
        assert!(pair(&far, 7_999, 3, 0).is_empty());
        assert_eq!(pair(&far, 8_000, 3, 0).len(), 1);
    }

    #[test]
    fn forty_spread_players_all_meet_once_within_their_windows() {
        let waiting: Vec<Waiting> = (0..40)
            .map(|n| player(n, 1000 + 47 * i32::try_from(n).unwrap(), 0))
            .collect();
        let made = pair(&waiting, 0, 2, 7);
        assert_eq!(made.len(), 20);
        let mut seen: Vec<Uuid> = made.iter().flat_map(|p| p.seats.clone()).collect();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), 40);
        for game in &made {
            let rating = |entry: Uuid| waiting.iter().find(|w| w.id == entry).unwrap().rating;
            assert!(rating(game.seats[0]).abs_diff(rating(game.seats[1])) <= FIRST_WINDOW);
        }
    }

    #[test]
    fn every_order_of_three() {
        assert_eq!(
            permutations(3),
            [
                vec![0, 1, 2],
                vec![0, 2, 1],
                vec![1, 0, 2],
                vec![1, 2, 0],
                vec![2, 0, 1],
                vec![2, 1, 0]
            ]
        );
    }
}
