//! Chat rules: who may write to and read which channel, the creator's switch for the spectators'
//! chat, and the text of a message as it is stored and sent.

use super::{Decision, Refusal, RoomState};
use crate::protocol::{ChatChannel, Code, Event};
use crate::rules::Seat;
use crate::text::{is_default_ignorable, is_invisible};

/// The longest chat message, in characters after trimming.
pub const MAX_CHAT_CHARS: usize = 300;

/// A chat message's text as stored and sent: line breaks and tabs become spaces; other control
/// characters and every default-ignorable character (Unicode's Default_Ignorable_Code_Point,
/// [`is_default_ignorable`]: zero-width spaces and joiners, the bidirectional marks, embeddings,
/// overrides and isolates, variation selectors, Hangul fillers, tags, ...) are removed, wherever
/// they are (so an emoji sequence's joiner goes too: its emoji stay, side by side); blanks are
/// trimmed from both ends. `bad_message` when nothing visible is left (an empty message, or only
/// invisible characters such as U+202E U+200F) or when it is longer than [`MAX_CHAT_CHARS`].
pub fn clean_chat_text(text: &str) -> Result<String, Refusal> {
    let cleaned: String = text
        .chars()
        .map(|c| {
            if c.is_control() && c.is_whitespace() {
                ' '
            } else {
                c
            }
        })
        .filter(|&c| !c.is_control() && !is_default_ignorable(c))
        .collect();
    let text = cleaned.trim_matches(is_invisible);
    if text.is_empty() {
        return Err(Refusal::new(
            Code::BadMessage,
            "a chat message needs at least one visible character",
        ));
    }
    if text.chars().count() > MAX_CHAT_CHARS {
        return Err(Refusal::new(
            Code::BadMessage,
            format!("a chat message is at most {MAX_CHAT_CHARS} characters"),
        ));
    }
    Ok(text.to_owned())
}

impl RoomState {
    /// A chat message from `seat` (`None`: a spectator) to `channel`: the writer must be allowed
    /// to write there now, and the text is cleaned (see [`clean_chat_text`]).
    pub(super) fn decide_chat(
        &self,
        seat: Option<Seat>,
        channel: ChatChannel,
        text: &str,
    ) -> Result<Decision, Refusal> {
        self.may_write_chat(seat, channel)?;
        let text = clean_chat_text(text)?;
        Ok(Decision::Chat { channel, text })
    }

    /// Whether a connection of `seat` (`None`: a spectator) may write to `channel` now.
    fn may_write_chat(&self, seat: Option<Seat>, channel: ChatChannel) -> Result<(), Refusal> {
        match (seat, channel) {
            (Some(_), ChatChannel::Players) => Ok(()),
            (Some(_), ChatChannel::Spectators) => Err(Refusal::new(
                Code::BadMessage,
                "players write to the \"players\" channel",
            )),
            (None, ChatChannel::Players) => Err(Refusal::new(
                Code::NotAPlayer,
                "spectators write to the \"spectators\" channel",
            )),
            (None, ChatChannel::Spectators) if !self.spectator_chat => Err(Refusal::new(
                Code::ChatDisabled,
                "the room's creator has turned spectator chat off",
            )),
            (None, ChatChannel::Spectators) => Ok(()),
        }
    }

    /// Whether a connection of `seat` (`None`: a spectator) reads `channel`: the players' chat is
    /// read by everyone in the room, the spectators' chat by spectators only (players never see
    /// what spectators say, so spectators cannot help them).
    pub fn may_read_chat(seat: Option<Seat>, channel: ChatChannel) -> bool {
        match channel {
            ChatChannel::Players => true,
            ChatChannel::Spectators => seat.is_none(),
        }
    }

    /// The creator's `set_spectator_chat`: an event only when it changes something.
    pub(super) fn decide_spectator_chat(
        &self,
        seat: Seat,
        enabled: bool,
    ) -> Result<Vec<Event>, Refusal> {
        if self.creator != Some(seat) {
            return Err(Refusal::new(
                Code::NotTheCreator,
                "only the room's creator may turn spectator chat on or off",
            ));
        }
        if self.spectator_chat == enabled {
            return Ok(Vec::new());
        }
        Ok(vec![Event::SpectatorChat { enabled }])
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::three_player_room;
    use super::*;
    use crate::protocol::Command;
    use crate::room::state::Absence;

    fn chat(channel: ChatChannel, text: &str) -> Command {
        Command::Chat {
            channel,
            text: text.to_owned(),
        }
    }

    #[test]
    fn spectators_chat_on_their_channel_through_decide_and_send_nothing_else() {
        let mut room = three_player_room();
        let decide =
            |room: &RoomState, by, command: &Command| room.decide(by, command, Absence::default());
        assert_eq!(
            decide(&room, None, &chat(ChatChannel::Spectators, " hi\n")).unwrap(),
            Decision::Chat {
                channel: ChatChannel::Spectators,
                text: "hi".into(),
            }
        );
        let refused =
            |room: &RoomState, by, command: &Command| decide(room, by, command).unwrap_err().code;
        let players_channel = chat(ChatChannel::Players, "hi");
        assert_eq!(refused(&room, None, &players_channel), Code::NotAPlayer);
        assert_eq!(refused(&room, None, &Command::Resign), Code::NotAPlayer);
        assert_eq!(
            refused(&room, None, &Command::ClaimVictory),
            Code::NotAPlayer
        );
        let spectators_channel = chat(ChatChannel::Spectators, "hi");
        assert_eq!(
            refused(&room, Some(0), &spectators_channel),
            Code::BadMessage
        );
        assert!(decide(&room, Some(0), &players_channel).is_ok());
        assert_eq!(
            refused(&room, Some(0), &chat(ChatChannel::Players, " ")),
            Code::BadMessage
        );
        room.spectator_chat = false;
        assert_eq!(
            refused(&room, None, &spectators_channel),
            Code::ChatDisabled
        );
    }

    #[test]
    fn chat_text_is_trimmed_cleaned_and_limited_in_characters() {
        assert_eq!(
            clean_chat_text(" a\u{7}b\r\nc\u{202e}d ").unwrap(),
            "ab  cd"
        );
        assert_eq!(clean_chat_text(" \t\n").unwrap_err().code, Code::BadMessage);
        assert!(clean_chat_text(&"ក".repeat(MAX_CHAT_CHARS)).is_ok());
        assert_eq!(
            clean_chat_text(&"x".repeat(MAX_CHAT_CHARS + 1))
                .unwrap_err()
                .code,
            Code::BadMessage
        );
    }

    #[test]
    fn a_message_of_invisible_characters_only_is_refused() {
        for text in [
            "\u{202E}\u{200F}",
            "\u{200B}\u{200C}\u{200D}\u{200E}\u{200F}",
            " \u{2060}\u{FEFF} ",
            "\u{3164}\u{115F}",
            "\u{2800}",
            "\u{061C}\u{2066}\u{2069}",
            // Default-ignorable, and once kept: tags, Khmer's inherent vowels, a Mongolian
            // selector, shorthand format controls, musical formatting, variation selectors.
            "\u{E0041}\u{E007F}",
            "\u{17B4}\u{17B5}",
            "\u{180B}\u{1BCA0}\u{1D173}",
            "\u{FE0F}\u{E0100}",
        ] {
            let refused = clean_chat_text(text).unwrap_err();
            assert_eq!(refused.code, Code::BadMessage, "{text:?}");
            assert_eq!(
                refused.message, "a chat message needs at least one visible character",
                "{text:?}"
            );
        }
    }

    #[test]
    fn every_default_ignorable_goes_wherever_it_is() {
        assert_eq!(
            clean_chat_text("\u{200F}gg\u{200E} wp\u{061C}").unwrap(),
            "gg wp"
        );
        assert_eq!(
            clean_chat_text("\u{200D}👩\u{200D}👧\u{200D}").unwrap(),
            "👩👧"
        );
        assert_eq!(
            clean_chat_text("\u{200B}សួស្តី\u{200B}ពិភពលោក\u{200B}").unwrap(),
            "សួស្តីពិភពលោក"
        );
        assert_eq!(
            clean_chat_text("g\u{E0041}g\u{FE0F} \u{2061}w\u{00AD}p\u{3164}").unwrap(),
            "gg wp"
        );
    }
}
