//! `GET /r/{invite_code}`: what an invite link opens. Until the web client is served, the page
//! says which room it is, whether a seat is free, and how to take it with the API, rather than
//! answering 404. It shows no player-written text, so nothing on it needs escaping.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};

use super::AppState;
use crate::rules::GameKind;

fn game_name(kind: GameKind) -> &'static str {
    match kind {
        GameKind::OukChatrang => "Ouk Chatrang (Cambodian chess)",
        GameKind::Khan => "Khan (Soldiers and Khans)",
        GameKind::KhanTsin => "Khan-Tsin (a stacking race for 2 or 3)",
    }
}

fn page(status: StatusCode, body: String) -> Response {
    let html = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>Khanate</title></head>\n<body>\n{body}</body></html>\n"
    );
    (status, Html(html)).into_response()
}

/// The invite page of a room, or a 404 page.
pub async fn invite_page(State(state): State<AppState>, Path(code): Path<String>) -> Response {
    let room = match state.registry.find(&code).await {
        Ok(Some(room)) => room,
        Ok(None) => return page(StatusCode::NOT_FOUND, "<h1>No such room</h1>\n".into()),
        Err(_) => {
            return page(
                StatusCode::SERVICE_UNAVAILABLE,
                "<h1>Try again soon</h1>\n".into(),
            );
        }
    };
    let Some(summary) = room.summary().await else {
        return page(
            StatusCode::SERVICE_UNAVAILABLE,
            "<h1>Try again soon</h1>\n".into(),
        );
    };
    let free = summary.seats.iter().filter(|s| !s.taken).count();
    let code = &summary.invite_code;
    let mut body = format!(
        "<h1>Khanate room {code}</h1>\n<p>{}: {}.</p>\n",
        game_name(summary.game),
        summary.status
    );
    if free > 0 {
        body.push_str(&format!(
            "<p>{free} seat{} free. Take one with <code>POST /api/rooms/{code}/join</code>, then connect \
             to <code>/ws</code> and send <code>{{\"t\": \"hello\", \"d\": {{\"protocol\": 1, \"room\": \
             \"{code}\", \"token\": YOUR_SEAT_TOKEN}}}}</code>.</p>\n",
            if free == 1 { " is" } else { "s are" }
        ));
    }
    body.push_str(&format!(
        "<p>Watch by sending <code>{{\"t\": \"hello\", \"d\": {{\"protocol\": 1, \"room\": \"{code}\"}}}}</code> \
         on <code>/ws</code>. The protocol is described in Khanate's <code>docs/protocol.md</code>.</p>\n"
    ));
    page(StatusCode::OK, body)
}
