//! Which account each seat of a room belongs to, as games and rooms show it: the username as
//! registered and whether the account was deleted. Read from `seats.user_id` and `users` when a
//! game or a room is read, never copied into a finished game's record: an account attached to a
//! seat later, or deleted later, shows at once, and the record itself never changes.

use serde_json::{Value, json};
use uuid::Uuid;

use super::dialect::{Dialect, Param, Statement};
use super::postgres::Pg;
use super::queries::Cols;
use super::sqlite::Lite;
use super::{GameRecord, Store, StoreError};
use crate::rules::Seat;

/// The account a seat belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatAccount {
    /// The seat.
    pub seat: Seat,
    /// The account's id.
    pub user_id: Uuid,
    /// Its username as registered (a deleted account keeps it: the name stays taken).
    pub name: String,
    /// Whether the account was deleted.
    pub deleted: bool,
}

impl Store {
    /// The seats of `room_id` that belong to an account, by seat.
    pub async fn seat_accounts(&self, room_id: Uuid) -> Result<Vec<SeatAccount>, StoreError> {
        match self {
            Store::Postgres(s) => accounts_of::<Pg>(&mut *s.conn().await?, room_id).await,
            Store::Sqlite(s) => accounts_of::<Lite>(&mut *s.conn().await?, room_id).await,
        }
    }
}

pub(super) async fn accounts_of<D: Dialect>(
    conn: &mut D::Conn,
    room_id: Uuid,
) -> Result<Vec<SeatAccount>, StoreError> {
    let sql = "SELECT s.seat, u.id, u.name, u.deleted_at FROM seats s \
               JOIN users u ON u.id = s.user_id WHERE s.room_id = $1 ORDER BY s.seat";
    D::fetch_all(conn, Statement::new(sql, [Param::Uuid(room_id)]))
        .await?
        .iter()
        .map(|row| {
            let cols = Cols::<D>(row);
            Ok(SeatAccount {
                seat: super::codec::small("seat", cols.int("seat")?)?,
                user_id: cols.uuid("id")?,
                name: cols.text("name")?,
                deleted: D::time(row, "deleted_at")?.is_some(),
            })
        })
        .collect()
}

/// Marks each player of `players` (`[{"seat", ...}]`) whose seat belongs to an account:
/// `"user"`, the username, and `"deleted": true` once the account was deleted. Nothing else of
/// a player changes, and an anonymous player or a bot gets neither key.
pub fn mark_players(players: &mut Value, accounts: &[SeatAccount]) {
    for player in players.as_array_mut().into_iter().flatten() {
        let seat = player["seat"].as_u64();
        let Some(account) = accounts.iter().find(|a| Some(u64::from(a.seat)) == seat) else {
            continue;
        };
        if let Value::Object(map) = player {
            map.insert("user".into(), json!(account.name));
            if account.deleted {
                map.insert("deleted".into(), json!(true));
            }
        }
    }
}

/// [`mark_players`] on `record`, with its room's accounts read on `conn`.
pub(super) async fn mark_record<D: Dialect>(
    conn: &mut D::Conn,
    record: &mut GameRecord,
) -> Result<(), StoreError> {
    let accounts = accounts_of::<D>(conn, record.room_id).await?;
    mark_players(&mut record.players, &accounts);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_players_of_accounts_are_marked() {
        let mut players = json!([
            {"seat": 0, "color": "white", "name": "guest"},
            {"seat": 1, "color": "black", "name": "Sok"},
            {"seat": 2, "color": "red", "name": "Computer (level 3)"},
        ]);
        let accounts = [
            SeatAccount {
                seat: 0,
                user_id: Uuid::nil(),
                name: "Dara".into(),
                deleted: false,
            },
            SeatAccount {
                seat: 1,
                user_id: Uuid::nil(),
                name: "Sok".into(),
                deleted: true,
            },
        ];
        mark_players(&mut players, &accounts);
        assert_eq!(
            players,
            json!([
                {"seat": 0, "color": "white", "name": "guest", "user": "Dara"},
                {"seat": 1, "color": "black", "name": "Sok", "user": "Sok", "deleted": true},
                {"seat": 2, "color": "red", "name": "Computer (level 3)"},
            ])
        );
    }
}
