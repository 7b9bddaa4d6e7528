//! The site channel's events: what a logged-in user's pages are told outside any room (a
//! challenge came, a game began, it is their turn), wherever those pages are connected.
//!
//! Each node keeps its own pages by account ([`Site::open_page`]). An event for a user
//! ([`Site::tell`]) goes to that user's pages on this node directly on a single SQLite node; on
//! PostgreSQL it goes out as a `NOTIFY` on [`USER_CHANNEL`] (payload: the user's id, a space,
//! the frame), which every node's listener ([`listen`]) hands to its own pages of that user, so
//! an event reaches the node the page is on whichever node made it. Notices are hints, not the
//! truth: they are lost while a listener reconnects, so every page on that node is then closed
//! (1013) and, reconnecting, reads what is pending (open challenges) from the tables again. The
//! same listener wakes the pairing queue on [`PAIRING_CHANNEL`].

mod frames;

pub use frames::{ChallengeView, GameStart, SiteFrame, YourTurn, color_of};

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{Notify, mpsc};
use tracing::{debug, warn};
use uuid::Uuid;

use crate::store::Store;
use crate::store::postgres::{PAIRING_CHANNEL, PgStore};

/// The channel of users' events.
pub const USER_CHANNEL: &str = "khanate_user";

/// A notice's payload is at most this long (PostgreSQL refuses 8000 bytes and more).
pub const MAX_PAYLOAD: usize = 7_900;

/// Frames that may wait for one page; past it the page is closed and reconnects.
const PAGE_QUEUE: usize = 64;

/// What a page's queue carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PageFrame {
    /// A frame's JSON text.
    Text(Arc<str>),
    /// Close with 1013: events may have been missed; reconnect and read what is pending.
    Resync,
}

/// The pages of this node, by account, and how events reach them.
#[derive(Clone, Debug)]
pub struct Site {
    inner: Arc<Inner>,
}

/// Each account's open pages on this node: page id and queue.
type Pages = HashMap<Uuid, Vec<(u64, mpsc::Sender<PageFrame>)>>;

#[derive(Debug)]
struct Inner {
    pages: Mutex<Pages>,
    next_page: AtomicU64,
    /// PostgreSQL: events go through `NOTIFY`.
    pg: Option<PgStore>,
}

/// One open page of a user on this node; dropping it forgets the page.
#[derive(Debug)]
pub struct Page {
    site: Site,
    user: Uuid,
    id: u64,
    /// The page's events.
    pub frames: mpsc::Receiver<PageFrame>,
}

impl Drop for Page {
    fn drop(&mut self) {
        let mut pages = self.site.pages();
        if let Some(list) = pages.get_mut(&self.user) {
            list.retain(|(id, _)| *id != self.id);
            if list.is_empty() {
                pages.remove(&self.user);
            }
        }
    }
}

impl Default for Site {
    fn default() -> Self {
        Site::local()
    }
}

impl Site {
    /// Events delivered in this process only (one node on SQLite).
    pub fn local() -> Site {
        Site::with(None)
    }

    /// Events for `store`: through `NOTIFY` on PostgreSQL, in this process on SQLite.
    pub fn over(store: &Store) -> Site {
        match store {
            Store::Postgres(pg) => Site::with(Some(pg.clone())),
            Store::Sqlite(_) => Site::local(),
        }
    }

    fn with(pg: Option<PgStore>) -> Site {
        Site {
            inner: Arc::new(Inner {
                pages: Mutex::new(HashMap::new()),
                next_page: AtomicU64::new(1),
                pg,
            }),
        }
    }

    fn pages(&self) -> std::sync::MutexGuard<'_, Pages> {
        // Entries are pushed and removed whole: a panic cannot leave one half-made.
        self.inner
            .pages
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Opens a page of `user` on this node: from now on it is sent `user`'s events.
    pub fn open_page(&self, user: Uuid) -> Page {
        let id = self.inner.next_page.fetch_add(1, Ordering::Relaxed);
        let (tx, frames) = mpsc::channel(PAGE_QUEUE);
        self.pages().entry(user).or_default().push((id, tx));
        Page {
            site: self.clone(),
            user,
            id,
            frames,
        }
    }

    /// How many pages of `user` are open on this node.
    pub fn pages_of(&self, user: Uuid) -> usize {
        self.pages().get(&user).map_or(0, Vec::len)
    }

    /// Tells `user`'s pages, on every node, `frame`. Never waits: on PostgreSQL the notice is
    /// sent by a task of its own (a lost one is logged; the tables stay the truth).
    pub fn tell(&self, user: Uuid, frame: &SiteFrame) {
        let text = frame.to_json();
        match &self.inner.pg {
            None => self.deliver(user, PageFrame::Text(text.into())),
            Some(pg) => {
                let payload = format!("{user} {text}");
                if payload.len() > MAX_PAYLOAD {
                    warn!(
                        bytes = payload.len(),
                        "a site event too long for a notice: dropped"
                    );
                    return;
                }
                let pg = pg.clone();
                tokio::spawn(async move {
                    if let Err(e) = pg.notify(USER_CHANNEL, &payload).await {
                        warn!(error = %e, "a site event was not sent");
                    }
                });
            }
        }
    }

    /// Hands `frame` to `user`'s pages on this node; a page whose queue is full is told to
    /// resync instead (its queue is dropped, so it closes).
    fn deliver(&self, user: Uuid, frame: PageFrame) {
        let mut pages = self.pages();
        let Some(list) = pages.get_mut(&user) else {
            return;
        };
        list.retain(|(_, tx)| tx.try_send(frame.clone()).is_ok());
        if list.is_empty() {
            pages.remove(&user);
        }
    }

    /// Tells every page on this node to resync (events may have been missed).
    fn resync_all(&self) {
        let mut pages = self.pages();
        for list in pages.values() {
            for (_, tx) in list {
                let _ = tx.try_send(PageFrame::Resync);
            }
        }
        pages.clear();
    }

    /// A notice's payload on [`USER_CHANNEL`] handed to its user's pages here.
    fn received(&self, payload: &str) {
        let Some((user, text)) = payload.split_once(' ') else {
            warn!(payload, "unreadable site notice");
            return;
        };
        match Uuid::parse_str(user) {
            Ok(user) => self.deliver(user, PageFrame::Text(text.into())),
            Err(_) => warn!(payload, "unreadable site notice"),
        }
    }
}

/// On PostgreSQL, until the store's pool closes at shutdown: listens on [`USER_CHANNEL`] and
/// [`PAIRING_CHANNEL`], handing users' events to `site`'s pages and waking `pairing` at each
/// pairing notice. After a lost connection every page is told to resync and the pairing queue
/// is woken (it reads its rows again). Returns at once on SQLite.
pub async fn listen(site: Site, pairing: Arc<Notify>, retry: Duration) {
    let Some(pg) = site.inner.pg.clone() else {
        return;
    };
    loop {
        let mut listener = match pg.listener(&[USER_CHANNEL, PAIRING_CHANNEL]).await {
            Ok(listener) => listener,
            Err(_) if pg.is_closed() => return,
            Err(e) => {
                warn!(error = %e, "could not listen for site events; retrying");
                tokio::time::sleep(retry).await;
                continue;
            }
        };
        site.resync_all();
        pairing.notify_waiters();
        loop {
            match listener.try_recv().await {
                Ok(Some(notice)) if notice.channel() == USER_CHANNEL => {
                    site.received(notice.payload());
                }
                Ok(Some(_)) => pairing.notify_waiters(),
                Ok(None) => {
                    debug!("the site listener lost its connection; pages resync");
                    site.resync_all();
                    pairing.notify_waiters();
                }
                Err(_) if pg.is_closed() => return,
                Err(e) => {
                    warn!(error = %e, "the site listener failed; reconnecting");
                    tokio::time::sleep(retry).await;
                    break;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_users_events_reach_each_of_their_pages_and_no_one_elses() {
        let site = Site::local();
        let (dara, sok) = (Uuid::new_v4(), Uuid::new_v4());
        let mut first = site.open_page(dara);
        let mut second = site.open_page(dara);
        let mut other = site.open_page(sok);
        let frame = SiteFrame::ChallengeGone {
            id: Uuid::nil(),
            reason: "declined",
        };
        site.tell(dara, &frame);
        let text = frame.to_json();
        for page in [&mut first, &mut second] {
            assert_eq!(
                page.frames.try_recv(),
                Ok(PageFrame::Text(text.clone().into()))
            );
        }
        assert!(other.frames.try_recv().is_err());
        drop(second);
        assert_eq!(site.pages_of(dara), 1);
        drop(first);
        assert_eq!(site.pages_of(dara), 0);
    }

    #[tokio::test]
    async fn a_page_that_does_not_read_is_told_to_resync_and_forgotten() {
        let site = Site::local();
        let user = Uuid::new_v4();
        let mut page = site.open_page(user);
        let frame = SiteFrame::ChallengeGone {
            id: Uuid::nil(),
            reason: "cancelled",
        };
        for _ in 0..=PAGE_QUEUE {
            site.tell(user, &frame);
        }
        assert_eq!(site.pages_of(user), 0, "dropped when its queue was full");
        let mut read = 0;
        while let Ok(PageFrame::Text(_)) = page.frames.try_recv() {
            read += 1;
        }
        assert_eq!(read, PAGE_QUEUE);
        assert!(page.frames.try_recv().is_err(), "its queue is closed");
    }
}
