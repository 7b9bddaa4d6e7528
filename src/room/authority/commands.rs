//! What changes the room: a player's command, a join, a flag, an expiry, and the commit every
//! change goes through (stage, store, then publish).

use tracing::{debug, error, info, warn};
use uuid::Uuid;

use super::Authority;
use crate::cluster::Ownership;
use crate::protocol::{ChatChannel, ChatMessage, Code, Command, Event, ResultInfo};
use crate::room::answers::Answer;
use crate::room::commit::{Author, NewSeat, stage};
use crate::room::fanout::Logged;
use crate::room::rated;
use crate::room::state::{Absence, Decision, JoinRefusal, SeatChoice, taken_by_account};
use crate::room::token::new_seat_token;
use crate::room::{JoinError, Joined};
use crate::rules::{EndReason, Rules, Seat};
use crate::site::{SiteFrame, YourTurn};
use crate::store::SeatAccount;
use crate::store::{ChatAnswer, RatedGame, RoomStatus, StoreError};
use crate::telemetry;

/// A staged change was not stored, or whether it was is unknown; the task is then marked stale.
pub(super) struct NotStored;

/// Whether an event sets the clocks (a timed room's running seat changes with it).
fn sets_clock(event: &Event) -> bool {
    matches!(
        event,
        Event::GameStarted { clock: Some(_), .. }
            | Event::Moved { clock: Some(_), .. }
            | Event::Left { clock: Some(_), .. }
            | Event::GameOver { clock: Some(_), .. }
            | Event::TakenBack { clock: Some(_), .. }
    )
}

impl Authority {
    /// What the claims against an absent seat need to know: the claimable seat now, and the
    /// votes cast against it.
    fn absence(&self) -> Absence<'_> {
        let (now_ms, _) = self.clock_now();
        let claimable = self
            .presence
            .claimable(self.state.seat_on_move(), self.grace_ms(), now_ms);
        Absence {
            claimable,
            votes: self.presence.votes_against(claimable),
        }
    }

    /// Ends the game on time if the running seat's time is used up (the deadline fired, or a
    /// command came in after it): the flag is stored and published like any event.
    pub(super) async fn flag(&mut self) {
        let (_, elapsed) = self.clock_now();
        let now = self.settings.clock.now_utc();
        let Some(events) = self.state.decide_flag(elapsed, now) else {
            return;
        };
        let flagged = self.state.clock.as_ref().and_then(|c| c.running);
        if self.persist(&events, None, None, None).await.is_ok() {
            self.mark_clocks(self.settings.clock.now_ms());
            info!(seat = ?flagged, "flag: time ran out");
        }
    }

    /// Ends a room nobody joined in time, as `aborted`.
    pub(super) async fn expire(&mut self) {
        let event = Event::GameOver {
            result: ResultInfo {
                winner: None,
                reason: EndReason::Aborted,
            },
            clock: None,
            ratings: None,
        };
        if self.persist(&[event], None, None, None).await.is_ok() {
            info!("waiting room expired");
        }
    }

    /// Takes what the store says of the seats' accounts: a person's seat gets its account (its
    /// player resumes it by logging in), and each seat whose account the room did not show, or
    /// now shows deleted, makes a `seat_account` event, stored and published like any.
    pub(super) async fn accounts_changed(&mut self, accounts: Vec<SeatAccount>) {
        let mut events = Vec::new();
        for account in accounts {
            let Some(slot) = self.state.seats.get_mut(usize::from(account.seat)) else {
                continue;
            };
            if !slot.taken || slot.bot.is_some() {
                continue;
            }
            slot.user_id = Some(account.user_id);
            if slot.user.as_deref() != Some(account.name.as_str())
                || slot.deleted != account.deleted
            {
                events.push(Event::SeatAccount {
                    seat: account.seat,
                    user: account.name,
                    deleted: account.deleted,
                });
            }
        }
        if !events.is_empty() && self.persist(&events, None, None, None).await.is_ok() {
            info!(seats = events.len(), "seats' accounts announced");
        }
    }

    /// Takes a seat for `name` (`choice` picks which) and gives its token; `same_player` (a
    /// token's hash) names the seat of this room whose holder takes this one too.
    pub(super) async fn join(
        &mut self,
        choice: SeatChoice,
        name: Option<String>,
        user_id: Option<Uuid>,
        same_player: Option<[u8; 32]>,
    ) -> Result<Joined, JoinError> {
        let same_player_as = same_player
            .map(|hash| self.state.seat_of_token(&hash).ok_or(JoinRefusal::BadToken))
            .transpose()
            .map_err(JoinError::Refused)?;
        let (seat, mut events) = self
            .state
            .decide_join_as(&choice, name, same_player_as, user_id)
            .map_err(JoinError::Refused)?;
        if user_id.is_some() {
            taken_by_account(&mut events);
        }
        let now = self.settings.clock.now_utc();
        self.state.stamp_clocks(&mut events, 0, 0, now);
        let (seat_token, token_hash) = new_seat_token();
        let author = Author { seat, cid: None };
        let new_seat = NewSeat {
            seat,
            token_hash,
            user_id,
        };
        self.persist(&events, Some(author), Some(new_seat), None)
            .await
            .map_err(|NotStored| JoinError::Unavailable)?;
        if events.iter().any(sets_clock) {
            self.mark_clocks(self.settings.clock.now_ms());
        }
        info!(seat, "seat taken");
        Ok(Joined {
            room_id: self.state.id,
            seat,
            color: self.state.game.color(seat).to_owned(),
            seat_token,
        })
    }

    /// A chat message from connection `conn` (of `seat`, or a spectator's), checked and cleaned by
    /// [`RoomState::decide`](crate::room::state::RoomState::decide): stored, sent to every
    /// connection that reads its channel (the writer's included), acknowledged with the room's
    /// current version (chat makes no event). A player's cid is remembered, so that a repeat gets
    /// the same answer and the message is not repeated, after a restart too: it is stored with
    /// the message. When it was already stored, by a try whose outcome was unknown, that message
    /// is the one sent and answered. Spectators' cids are not remembered (nor stored): a spectator
    /// has no seat to key them on.
    async fn chat(
        &mut self,
        conn: u64,
        seat: Option<Seat>,
        cid: String,
        channel: ChatChannel,
        text: String,
    ) {
        let name = match seat {
            Some(seat) => self
                .state
                .seats
                .get(usize::from(seat))
                .and_then(|slot| slot.name.clone()),
            None => self.fanout.name_of(conn),
        };
        let message = ChatMessage {
            channel,
            seat,
            name,
            text,
            at: self.settings.clock.now_utc(),
        };
        if !self.claimed_to_write().await {
            telemetry::command("chat", Some(Code::Unavailable.as_str()));
            let message = "the room is reloading; send the message again".to_owned();
            self.reject(conn, &cid, Code::Unavailable, message);
            return;
        }
        let v = self.state.version;
        let answer = seat.map(|_| ChatAnswer {
            cid: cid.clone(),
            v,
        });
        let epoch = self.ownership.as_ref().map(Ownership::epoch);
        let posted = self
            .chat
            .post(
                &self.store,
                self.state.id,
                message,
                answer,
                epoch,
                &mut self.fanout,
            )
            .await;
        let v = match posted {
            Ok((dropped, stored)) => {
                self.forget(dropped);
                stored.map_or(v, |first| first.v)
            }
            Err(e) => {
                if matches!(e, StoreError::Fenced { .. }) {
                    // Another node claimed the room: it is theirs; this task stops.
                    telemetry::fencing_refusal();
                    self.stale = true;
                }
                warn!(error = %e, "a chat message could not be stored");
                telemetry::command("chat", Some(Code::Unavailable.as_str()));
                let message = "could not store the message; send it again".to_owned();
                self.reject(conn, &cid, Code::Unavailable, message);
                return;
            }
        };
        telemetry::command("chat", None);
        if let Some(seat) = seat {
            self.answers.remember_stored(seat, cid.clone(), v);
        }
        self.answer(conn, &cid, Answer::Ack(v));
    }

    /// Command `cid` of connection `conn`: decided, stored, published, then answered. `lag_ms`:
    /// the connection's estimated round trip, for a move's lag compensation.
    pub(super) async fn command(
        &mut self,
        conn: u64,
        cid: String,
        command: Command,
        received: tokio::time::Instant,
        lag_ms: Option<u64>,
    ) {
        let Some(viewer) = self.fanout.seat_of(conn) else {
            return;
        };
        if let Some(answer) = viewer.and_then(|seat| self.answers.get(seat, &cid)) {
            debug!(cid, "repeated cid: same answer");
            self.answer(conn, &cid, answer);
            return;
        }
        // A command after the running seat's deadline comes too late: the flag goes first.
        self.flag().await;
        if self.stale {
            let message = "could not store the command; retry the same cid".to_owned();
            self.reject(conn, &cid, Code::Unavailable, message);
            return;
        }
        let (_, elapsed_ms) = self.clock_now();
        let answer = match self.state.decide(viewer, &command, self.absence()) {
            Err(refusal) => {
                debug!(cid, code = refusal.code.as_str(), "command refused");
                Answer::Reject(refusal.code, refusal.message)
            }
            Ok(Decision::Chat { channel, text }) => {
                return self.chat(conn, viewer, cid, channel, text).await;
            }
            Ok(Decision::Vote { against, voters }) => {
                debug!(?viewer, against, "abandonment vote");
                self.presence.record_votes(against, voters);
                Answer::Ack(self.state.version)
            }
            Ok(Decision::Events { events, .. }) if events.is_empty() => {
                Answer::Ack(self.state.version)
            }
            Ok(Decision::Events { by: seat, events }) => {
                let compensation = if matches!(command, Command::Move { .. }) {
                    self.state.lag_compensation(seat, lag_ms, elapsed_ms)
                } else {
                    0
                };
                let change = Change::of(
                    &command,
                    events,
                    seat,
                    &cid,
                    received,
                    compensation,
                    elapsed_ms,
                );
                let stored = self.commit_command(change).await;
                return self.answer_stored(conn, &cid, seat, &command, stored);
            }
        };
        let code = match &answer {
            Answer::Reject(code, _) => Some(code.as_str()),
            Answer::Ack(_) => None,
        };
        telemetry::command(command.name(), code);
        if let Some(seat) = viewer {
            self.answers
                .remember_unstored(seat, cid.clone(), answer.clone());
        }
        self.answer(conn, &cid, answer);
    }

    /// Answers a command whose events were committed (`stored`: the new version) or not, and
    /// starts the bot an `add_bot` seated.
    fn answer_stored(
        &mut self,
        conn: u64,
        cid: &str,
        seat: Seat,
        command: &Command,
        stored: Result<i64, NotStored>,
    ) {
        telemetry::command(
            command.name(),
            stored.is_err().then_some(Code::Unavailable.as_str()),
        );
        match stored {
            Ok(v) => {
                self.answers.remember_stored(seat, cid.to_owned(), v);
                self.ack(conn, cid, v);
                if let Command::AddBot { seat, level } = *command {
                    info!(seat, level = level.get(), "a bot took a seat");
                    self.start_bot(seat, level);
                }
            }
            Err(NotStored) => {
                // Not remembered: the room reloads, and a retry of this cid then gets the ack if
                // the commit did reach the database, or is played now if it did not.
                let message = "could not store the command; retry the same cid".to_owned();
                self.reject(conn, cid, Code::Unavailable, message);
            }
        }
    }

    /// Stamps the clocks of a decided command's events and commits them; the new version.
    async fn commit_command(&mut self, change: Change<'_>) -> Result<i64, NotStored> {
        let Change {
            mut events,
            author,
            compensation,
            received,
            new_bot,
            elapsed_ms,
        } = change;
        let now = self.settings.clock.now_utc();
        self.state
            .stamp_clocks(&mut events, elapsed_ms, compensation, now);
        let new_seat = new_bot.map(|(seat, _)| NewSeat {
            user_id: None,
            seat,
            token_hash: new_seat_token().1,
        });
        let v = self
            .persist(&events, Some(author), new_seat, received)
            .await?;
        if events.iter().any(sets_clock) {
            // From when the frames that set the clocks left: after the commit, not before it.
            self.mark_clocks(self.settings.clock.now_ms());
        }
        Ok(v)
    }

    /// Stores `events`, then applies and publishes them. Returns the new version. `received` is
    /// when a move's frame arrived, for the move latency metrics.
    async fn persist(
        &mut self,
        events: &[Event],
        author: Option<Author<'_>>,
        new_seat: Option<NewSeat>,
        received: Option<tokio::time::Instant>,
    ) -> Result<i64, NotStored> {
        if !self.claimed_to_write().await {
            return Err(NotStored);
        }
        let (version_before, status_before) = (self.state.version, self.state.status);
        let on_move_before = self.state.seat_on_move();
        let now = self.settings.clock.now_utc();
        let (rated_events, ratings) = match self.rate_end(events, author, new_seat, now).await {
            Ok(rated) => rated.unzip(),
            Err(e) => {
                warn!(error = %e, "the players' ratings could not be read; the room reloads");
                self.discard_staged(version_before, status_before);
                return Err(NotStored);
            }
        };
        let events = rated_events.as_deref().unwrap_or(events);
        let mut commit = match stage(&mut self.state, events, author, new_seat, now) {
            Ok(commit) => commit,
            Err(e) => {
                error!(error = %e, "a decided event does not apply: this is a bug");
                self.discard_staged(version_before, status_before);
                return Err(NotStored);
            }
        };
        commit.epoch = self.ownership.as_ref().map(Ownership::epoch);
        commit.ratings = ratings;
        let writing = tokio::time::Instant::now();
        let written = self.store.commit(&commit).await;
        telemetry::db_write(writing.elapsed());
        if let Err(e @ StoreError::Fenced { .. }) = &written {
            // Another node claimed the room since: it is theirs, and nothing here was written.
            warn!(error = %e, "commit refused by fencing: the room stops here");
            telemetry::fencing_refusal();
        }
        if let Err(e) = written {
            // The transaction may have been committed before the error reached us (a connection
            // lost during COMMIT): only the database knows, so reload from it.
            warn!(error = %e, "a commit failed; the room reloads from the database");
            self.discard_staged(version_before, status_before);
            return Err(NotStored);
        }
        if let Some(received) = received {
            telemetry::move_stage("committed", received.elapsed());
        }
        if self.state.status != status_before {
            let game = self.state.kind().as_str();
            telemetry::room(game, status_before.as_str(), -1.0);
            telemetry::room(game, self.state.status.as_str(), 1.0);
        }
        self.published_version
            .store(self.state.version, std::sync::atomic::Ordering::Relaxed);
        let committed = (commit.expected_version + 1..)
            .zip(events)
            .map(|(v, event)| Logged::new(v, event.clone()))
            .collect();
        let dropped = self.fanout.publish(committed, &self.state);
        self.forget(dropped);
        if let Some(received) = received {
            telemetry::move_stage("broadcast", received.elapsed());
        }
        self.tell_turn(on_move_before);
        Ok(self.state.version)
    }

    /// Tells the account of the seat now on move, if a change put it there, that it is its
    /// turn (the site channel's `your_turn`): one notice, and only for a seat of an account.
    fn tell_turn(&self, before: Option<Seat>) {
        if self.state.status != RoomStatus::Playing {
            return;
        }
        let Some(seat) = self
            .state
            .seat_on_move()
            .filter(|&seat| Some(seat) != before)
        else {
            return;
        };
        let Some(user) = self
            .state
            .seats
            .get(usize::from(seat))
            .and_then(|slot| slot.user_id)
        else {
            return;
        };
        let turn = YourTurn {
            room_id: self.state.id,
            invite_code: self.state.invite_code.clone(),
            game: self.state.kind(),
            seat,
            v: self.state.version,
        };
        self.settings.site.tell(user, &SiteFrame::YourTurn(turn));
    }

    /// When `events` end a rated game: the events with the rating changes in their `game_over`,
    /// and the rows its commit writes, from the players' ratings read now (see
    /// [`rated`](crate::room::rated)); `None` for every other change. The events are staged on
    /// a copy of the state to see the end (who won, who left when): a rated game ends once.
    async fn rate_end(
        &self,
        events: &[Event],
        author: Option<Author<'_>>,
        new_seat: Option<NewSeat>,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<Option<(Vec<Event>, RatedGame)>, StoreError> {
        let ends = events.iter().any(|e| matches!(e, Event::GameOver { .. }));
        if !self.state.rated || !ends || self.state.result.is_some() {
            return Ok(None);
        }
        let mut ended = self.state.clone();
        if stage(&mut ended, events, author, new_seat, now).is_err() {
            // The real staging fails the same way, and says so.
            return Ok(None);
        }
        let Some((users, pool)) = rated::rated_players(&self.state, &ended) else {
            return Ok(None);
        };
        let before = self.store.ratings_of(&users, pool).await?;
        let (changes, rows) = rated::rate(&ended, (&users, pool), &before, now);
        Ok(Some((rated::with_changes(events, &changes), rows)))
    }

    /// After a staging or commit that failed: the state is ahead of the database (staging
    /// changes it in place), so the room is marked stale and reloads from the database before
    /// anything else is decided. Until then only the version (in the `unavailable` reject) and
    /// the status (in the rooms gauge) are read: they go back to what is stored.
    fn discard_staged(&mut self, version: i64, status: RoomStatus) {
        self.state.version = version;
        self.state.status = status;
        self.stale = true;
    }
}

/// A decided command's events on their way to the commit, with what the commit needs to know of
/// the command.
struct Change<'a> {
    events: Vec<Event>,
    author: Author<'a>,
    /// A move's lag compensation (ms), given back to the mover's clock.
    compensation: u64,
    /// When a move's frame arrived, for the move latency metrics.
    received: Option<tokio::time::Instant>,
    /// The seat and level of a bot `add_bot` seats.
    new_bot: Option<(Seat, crate::bot::Level)>,
    /// When the command was decided, the time (ms) since the last event that set the game clocks.
    elapsed_ms: u64,
}

impl<'a> Change<'a> {
    /// The change `events` of `command` by `seat` make, giving back `compensation` ms to a move;
    /// `received` and `elapsed_ms` as for [`Authority::command`] and [`Change::elapsed_ms`].
    fn of(
        command: &Command,
        events: Vec<Event>,
        seat: Seat,
        cid: &'a str,
        received: tokio::time::Instant,
        compensation: u64,
        elapsed_ms: u64,
    ) -> Self {
        let is_move = matches!(command, Command::Move { .. });
        Change {
            events,
            author: Author {
                seat,
                cid: Some(cid),
            },
            compensation,
            received: is_move.then_some(received),
            new_bot: match *command {
                Command::AddBot { seat, level } => Some((seat, level)),
                _ => None,
            },
            elapsed_ms,
        }
    }
}
