//! Limits against abuse at the edge: rooms created and rooms looked up (hits, and misses: invite
//! code guessing) per client address, connections and WebSockets open per client address, and
//! commands and chat per seat (a spectator: per client address), never per connection, which a
//! client could renew at will. Rate limits are `governor`'s (GCRA); the open counts are plain
//! counters with a guard that gives the slot back when the socket ends.

use std::collections::HashMap;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex};

use std::time::{Duration, Instant};

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use uuid::Uuid;

use crate::config::Limits;
use crate::rules::Seat;

const TWO: NonZeroU32 = NonZeroU32::new(2).unwrap();

/// Chat messages one seat (or one address's spectators) may send at once.
pub const CHAT_BURST: NonZeroU32 = NonZeroU32::new(5).unwrap();

/// After a burst, one more chat message per this period (5 per 10 s).
pub const CHAT_PERIOD: std::time::Duration = std::time::Duration::from_secs(2);

/// Past this many tracked addresses, those whose limit has fully recovered are forgotten.
const TRACKED_ADDRESSES: usize = 10_000;

fn at_least_one(n: u32) -> NonZeroU32 {
    NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN)
}

/// How many of something (connections, WebSockets) each client address holds, against a maximum;
/// a slot is given back when its [`AddressSlot`] is dropped.
pub struct AddressCounter {
    counts: Mutex<HashMap<IpAddr, usize>>,
    max: usize,
}

impl AddressCounter {
    /// A counter allowing `max` per address (0 counts as 1).
    pub fn new(max: usize) -> Arc<Self> {
        Arc::new(AddressCounter {
            counts: Mutex::new(HashMap::new()),
            max: max.max(1),
        })
    }

    /// A slot for one more of `ip`'s, or `None` when it holds its maximum already.
    pub fn open(self: &Arc<Self>, ip: IpAddr) -> Option<AddressSlot> {
        let mut counts = self
            .counts
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let open = counts.entry(ip).or_insert(0);
        if *open >= self.max {
            return None;
        }
        *open += 1;
        Some(AddressSlot {
            counter: self.clone(),
            ip,
        })
    }
}

/// One thing counted against its client address; dropping it frees the slot.
pub struct AddressSlot {
    counter: Arc<AddressCounter>,
    ip: IpAddr,
}

impl Drop for AddressSlot {
    fn drop(&mut self) {
        let mut counts = self
            .counter
            .counts
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(open) = counts.get_mut(&self.ip) {
            *open -= 1;
            if *open == 0 {
                counts.remove(&self.ip);
            }
        }
    }
}

/// Whose command and chat budgets a connection spends: its seat's (a player, on any of its
/// connections) or its client address's (a spectator), so that reconnecting buys nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sender {
    /// Seat `1` of the room `0`.
    Seat(Uuid, Seat),
    /// A spectator from this address.
    Spectator(IpAddr),
}

/// A budget of some request a minute, counted both per client address and per account, so that
/// neither many accounts behind one address nor one account from many addresses gets more
/// (a burst of a minute's worth).
pub struct PerAddressAndAccount {
    addresses: DefaultKeyedRateLimiter<IpAddr>,
    accounts: DefaultKeyedRateLimiter<Uuid>,
}

impl PerAddressAndAccount {
    fn new(per_minute: u32) -> Self {
        let quota = Quota::per_minute(at_least_one(per_minute));
        PerAddressAndAccount {
            addresses: RateLimiter::keyed(quota),
            accounts: RateLimiter::keyed(quota),
        }
    }

    /// Counts one request of `ip`, and of `user` if logged in; `Err(retry_after)` when either is
    /// over its budget (a request the address's budget refuses is not counted for the account).
    pub fn allow(&self, ip: IpAddr, user: Option<Uuid>) -> Result<(), Duration> {
        if self.addresses.len() > TRACKED_ADDRESSES {
            self.addresses.retain_recent();
        }
        if self.accounts.len() > TRACKED_ADDRESSES {
            self.accounts.retain_recent();
        }
        let wait = |not_until: governor::NotUntil<_>| {
            not_until.wait_time_from(DefaultClock::default().now())
        };
        self.addresses.check_key(&ip).map_err(wait)?;
        match user {
            Some(user) => self.accounts.check_key(&user).map_err(wait),
            None => Ok(()),
        }
    }
}

/// The server-wide limiters.
pub struct Limiters {
    /// Quick-pairing requests (`--pairings-per-minute`).
    pub pairings: PerAddressAndAccount,
    /// Challenges made (`--challenges-per-minute`).
    pub challenges: PerAddressAndAccount,
    rooms: DefaultKeyedRateLimiter<IpAddr>,
    lookups: DefaultKeyedRateLimiter<IpAddr>,
    misses: DefaultKeyedRateLimiter<IpAddr>,
    /// Addresses over their failed look-ups, and until when every look-up of theirs is refused.
    barred: Mutex<HashMap<IpAddr, Instant>>,
    sockets: Arc<AddressCounter>,
    commands: DefaultKeyedRateLimiter<Sender>,
    chats: DefaultKeyedRateLimiter<Sender>,
}

impl Limiters {
    /// Limiters for `limits` (a limit of 0 counts as 1).
    pub fn new(limits: &Limits) -> Arc<Self> {
        let per_second = at_least_one(limits.commands_per_second);
        Arc::new(Limiters {
            pairings: PerAddressAndAccount::new(limits.pairings_per_minute),
            challenges: PerAddressAndAccount::new(limits.challenges_per_minute),
            rooms: RateLimiter::keyed(Quota::per_minute(at_least_one(limits.rooms_per_minute))),
            lookups: RateLimiter::keyed(Quota::per_minute(at_least_one(limits.lookups_per_minute))),
            misses: RateLimiter::keyed(Quota::per_minute(at_least_one(
                limits.failed_lookups_per_minute,
            ))),
            barred: Mutex::new(HashMap::new()),
            sockets: AddressCounter::new(limits.connections_per_ip),
            commands: RateLimiter::keyed(
                Quota::per_second(per_second).allow_burst(per_second.saturating_mul(TWO)),
            ),
            chats: RateLimiter::keyed(
                Quota::with_period(CHAT_PERIOD)
                    .unwrap_or_else(|| Quota::per_second(NonZeroU32::MIN))
                    .allow_burst(CHAT_BURST),
            ),
        })
    }

    /// Whether `ip` may create a room now (counts it if so); `Err(retry_after)` when it made its
    /// rooms of the minute.
    pub fn allow_room(&self, ip: IpAddr) -> Result<(), Duration> {
        if self.rooms.len() > TRACKED_ADDRESSES {
            self.rooms.retain_recent();
        }
        self.rooms
            .check_key(&ip)
            .map_err(|not_until| not_until.wait_time_from(DefaultClock::default().now()))
    }

    /// Whether `ip` may look a room up now (by id or invite code: a summary, the room page, a
    /// join, a hello), counting it; `Err(retry_after)` when it is over its budget of look-ups,
    /// or barred after too many that named no room.
    pub fn allow_lookup(&self, ip: IpAddr) -> Result<(), Duration> {
        let now = Instant::now();
        {
            let mut barred = self
                .barred
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            match barred.get(&ip) {
                Some(&until) if until > now => return Err(until - now),
                Some(_) => {
                    barred.remove(&ip);
                }
                None => {}
            }
        }
        if self.lookups.len() > TRACKED_ADDRESSES {
            self.lookups.retain_recent();
        }
        self.lookups
            .check_key(&ip)
            .map_err(|not_until| not_until.wait_time_from(DefaultClock::default().now()))
    }

    /// A look-up by `ip` named no room: counts it against its failed look-ups. `Err(retry_after)`
    /// when that was one too many: every look-up of `ip` is then refused for `retry_after`, so
    /// that a refusal says nothing about whether a code exists.
    pub fn lookup_missed(&self, ip: IpAddr) -> Result<(), Duration> {
        if self.misses.len() > TRACKED_ADDRESSES {
            self.misses.retain_recent();
        }
        let Err(not_until) = self.misses.check_key(&ip) else {
            return Ok(());
        };
        let wait = not_until.wait_time_from(DefaultClock::default().now());
        let now = Instant::now();
        let mut barred = self
            .barred
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if barred.len() > TRACKED_ADDRESSES {
            barred.retain(|_, until| *until > now);
        }
        barred.insert(ip, now + wait);
        Err(wait)
    }

    /// A slot for one more WebSocket of `ip`, or `None` when it holds its maximum already.
    pub fn open_socket(&self, ip: IpAddr) -> Option<AddressSlot> {
        self.sockets.open(ip)
    }

    /// Whether `sender` may send one more command now (counts it if so): at most
    /// `--commands-per-second` on average, bursts of twice as many.
    pub fn allow_command(&self, sender: Sender) -> bool {
        if self.commands.len() > TRACKED_ADDRESSES {
            self.commands.retain_recent();
        }
        self.commands.check_key(&sender).is_ok()
    }

    /// Whether `sender` may send one more chat message now (counts it if so): [`CHAT_BURST`] at
    /// once, then one every [`CHAT_PERIOD`] (5 messages per 10 s).
    pub fn allow_chat(&self, sender: Sender) -> bool {
        if self.chats.len() > TRACKED_ADDRESSES {
            self.chats.retain_recent();
        }
        self.chats.check_key(&sender).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(rooms: u32, sockets: usize, commands: u32) -> Limits {
        Limits {
            rooms_per_minute: rooms,
            connections_per_ip: sockets,
            commands_per_second: commands,
            ..Limits::default()
        }
    }

    #[test]
    fn rooms_are_counted_per_address() {
        let limiters = Limiters::new(&limits(2, 1, 1));
        let (a, b) = ("192.0.2.1".parse().unwrap(), "192.0.2.2".parse().unwrap());
        assert!(limiters.allow_room(a).is_ok());
        assert!(limiters.allow_room(a).is_ok());
        let wait = limiters
            .allow_room(a)
            .expect_err("the third room in a minute");
        assert!(
            wait > Duration::from_secs(25) && wait <= Duration::from_secs(30),
            "two rooms a minute: the next in 30 s, not {wait:?}"
        );
        assert!(
            limiters.allow_room(b).is_ok(),
            "another address is not affected"
        );
    }

    #[test]
    fn socket_slots_come_back_when_sockets_end() {
        let limiters = Limiters::new(&limits(1, 2, 1));
        let ip: IpAddr = "192.0.2.1".parse().unwrap();
        let first = limiters.open_socket(ip).expect("one");
        let _second = limiters.open_socket(ip).expect("two");
        assert!(
            limiters.open_socket(ip).is_none(),
            "a third is over the limit"
        );
        drop(first);
        assert!(limiters.open_socket(ip).is_some(), "a slot came back");
    }

    #[test]
    fn chat_allows_five_messages_at_once() {
        let limiters = Limiters::new(&limits(1, 1, 5));
        let seat = Sender::Seat(Uuid::nil(), 0);
        let allowed = (0..20).filter(|_| limiters.allow_chat(seat)).count();
        assert_eq!(allowed, 5);
        assert!(
            limiters.allow_chat(Sender::Seat(Uuid::nil(), 1)),
            "another seat"
        );
    }

    #[test]
    fn pairings_are_counted_per_address_and_per_account() {
        let limiters = Limiters::new(&Limits {
            pairings_per_minute: 2,
            ..Limits::default()
        });
        let (a, b): (IpAddr, IpAddr) = ("192.0.2.1".parse().unwrap(), "192.0.2.2".parse().unwrap());
        let (dara, sok) = (Some(Uuid::from_u128(1)), Some(Uuid::from_u128(2)));
        assert!(limiters.pairings.allow(a, dara).is_ok());
        assert!(limiters.pairings.allow(b, dara).is_ok());
        assert!(
            limiters.pairings.allow(b, dara).is_err(),
            "dara's third, from two addresses"
        );
        assert!(limiters.pairings.allow(a, sok).is_ok());
        assert!(
            limiters.pairings.allow(a, None).is_err(),
            "a's third, by two players"
        );
        assert!(limiters.challenges.allow(a, dara).is_ok(), "another budget");
    }

    #[test]
    fn commands_allow_a_burst_of_twice_the_rate() {
        let limiters = Limiters::new(&limits(1, 1, 5));
        let spectator = Sender::Spectator("192.0.2.1".parse().unwrap());
        let allowed = (0..20)
            .filter(|_| limiters.allow_command(spectator))
            .count();
        assert_eq!(allowed, 10);
    }
}
