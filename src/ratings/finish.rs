//! The places of a game's finish, for Plackett-Luce: who won, who was still playing at the end,
//! and who left before it (resigned, lost on time, or was voted out as abandoned) and when.

use crate::rules::Seat;

/// How a game ended, as far as its places go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Finish<'a> {
    /// How many seats the game has.
    pub seats: u8,
    /// The winning seat; `None` for a draw.
    pub winner: Option<Seat>,
    /// The seats that left the game before its end, in the order they left.
    pub left: &'a [Seat],
}

impl Finish<'_> {
    /// Each seat's place, by seat (1 first; seats sharing a place have the same number): the
    /// winner first; then every seat still playing at the end, sharing one place; then the seats
    /// that left, the later leaver above the earlier, the earliest last. Without a winner, the
    /// seats still playing share the first place.
    pub fn places(&self) -> Vec<u32> {
        let mut places = vec![0; usize::from(self.seats)];
        let mut next = 1;
        if let Some(place) = self.winner.and_then(|w| places.get_mut(usize::from(w))) {
            *place = next;
            next += 1;
        }
        let playing: Vec<usize> = (0..usize::from(self.seats))
            .filter(|&s| Some(s) != self.winner.map(usize::from))
            .filter(|&s| !self.left.iter().any(|&l| usize::from(l) == s))
            .collect();
        if !playing.is_empty() {
            for s in playing {
                places[s] = next;
            }
            next += 1;
        }
        for &leaver in self.left.iter().rev() {
            if let Some(place) = places.get_mut(usize::from(leaver)) {
                *place = next;
                next += 1;
            }
        }
        places
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn places(winner: Option<Seat>, left: &[Seat]) -> Vec<u32> {
        Finish {
            seats: 3,
            winner,
            left,
        }
        .places()
    }

    #[test]
    fn the_winner_first_two_still_playing_share_second() {
        assert_eq!(places(Some(0), &[]), [1, 2, 2]);
        assert_eq!(places(Some(2), &[]), [2, 2, 1]);
    }

    #[test]
    fn a_leaver_ranks_below_a_player_still_playing() {
        // Seat 1 resigned (or lost on time, or was voted out); seat 2 won, seat 0 played on.
        assert_eq!(places(Some(2), &[1]), [2, 3, 1]);
        assert_eq!(places(Some(0), &[2]), [1, 2, 3]);
    }

    #[test]
    fn of_two_leavers_the_earlier_is_last() {
        // Seat 0 left first, then seat 1: seat 2, the last one in, wins.
        assert_eq!(places(Some(2), &[0, 1]), [3, 2, 1]);
        assert_eq!(places(Some(2), &[1, 0]), [2, 3, 1]);
        assert_eq!(places(Some(0), &[2, 1]), [1, 2, 3]);
        assert_eq!(places(Some(1), &[0, 2]), [3, 1, 2]);
    }

    #[test]
    fn without_a_winner_the_players_still_in_share_first() {
        assert_eq!(places(None, &[]), [1, 1, 1]);
        assert_eq!(places(None, &[0]), [2, 1, 1]);
    }

    #[test]
    fn two_players() {
        let finish = |winner| Finish {
            seats: 2,
            winner,
            left: &[],
        };
        assert_eq!(finish(Some(1)).places(), [2, 1]);
        assert_eq!(finish(None).places(), [1, 1]);
    }
}
