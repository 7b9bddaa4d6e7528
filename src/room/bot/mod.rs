//! Computer opponents in rooms: a bot is an ordinary seat.
//!
//! A bot's seat is taken with `seat_taken {bot: level}` (at creation, `"bots"`, or later with the
//! `add_bot` command) and stored like anyone's, with a token nobody is given. Whenever its room's
//! task starts, it starts a [`driver`] per bot seat: a task that connects to the room like a
//! client (it gets `welcome`, the `snapshot` and every event), and when its seat is on move sends
//! `move` with a cid, exactly as a person's socket does. So every rule, store write, broadcast and
//! answer path is the one people use. The search itself runs on the [`BotPool`], never on the
//! tasks that run rooms and sockets.

pub(super) mod driver;
mod pool;

pub use pool::BotPool;
