// The room page's chat (`#chat-box`, docs/web-client.md "Chat"): the message list from the room
// state's `chat`, the input, and the creator's spectator-chat switch. Players write to the
// players' channel, spectators to theirs (players never see it); a message shows when the
// server's `chat` frame comes back. Text goes through textContent only: it is what people typed.
//
//   const chat = createChat({ state, role: () => role, socketFor: (seat) => socket, command });
//   chat.render()          // the list (after a chat frame or a change of language)
//   chat.renderControls()  // the box, the note and the switch (after every other frame)

import { t, colorName } from '../../i18n.js';
import { $, $button, $input } from '../../dom.js';

/** @typedef {import('../state.js').RoomState} RoomState */
/** @typedef {import('../../protocol.js').ChatMessage} ChatMessage */

/**
 * @typedef {object} ChatOptions
 * @property {RoomState} state
 * @property {() => string} role  'spectator', 'player' or 'local'
 * @property {(seat: number | null) => import('../../socket.js').RoomSocket | null} socketFor
 * @property {(seat: number | null, type: string, d?: object) => Promise<boolean>} command  sends a
 *   command and resolves with whether it was accepted (the room page's, which words a refusal in
 *   #message)
 * @property {(problem: { code: string, message: string }, context: string | null) => string} rejectText
 */

/**
 * @param {ChatOptions} options
 * @returns {{ render: () => void, renderControls: () => void }}
 */
export function createChat({ state, role, socketFor, command, rejectText }) {
  // A spectator-chat switch sent and not yet answered: the checkbox keeps what the user chose.
  let switchInFlight = false;
  const chatSeat = () => [...state.held][0] ?? null;
  const creatorHere = () => state.createdBy !== null && state.held.has(state.createdBy);

  /** @param {ChatMessage} entry */
  function chatName(entry) {
    if (entry.seat !== null && entry.seat !== undefined) {
      const color = state.seats[entry.seat]?.color;
      return entry.name || (color ? colorName(state.game, color) : t('chat.player'));
    }
    return entry.name || t('chat.spectator');
  }

  function render() {
    const list = $('#chat');
    const labelled = role() === 'spectator';
    list.replaceChildren(
      ...state.chat.map((entry) => {
        const li = document.createElement('li');
        li.dataset.channel = entry.channel;
        if (entry.seat !== null && entry.seat !== undefined) li.dataset.seat = String(entry.seat);
        if (labelled) {
          const channel = document.createElement('span');
          channel.className = 'chat-channel';
          channel.textContent = t(`chat.channel.${entry.channel}`);
          li.append(channel, ' ');
        }
        const name = document.createElement('span');
        name.className = 'chat-name';
        name.textContent = chatName(entry);
        const text = document.createElement('span');
        text.className = 'chat-text';
        text.textContent = entry.text;
        if (entry.at) li.title = new Date(entry.at).toLocaleString(document.documentElement.lang);
        li.append(name, ' ', text);
        return li;
      }),
    );
    list.scrollTop = list.scrollHeight;
    $('#chat-box').dataset.count = String(state.chat.length);
  }

  function renderControls() {
    const box = $('#chat-box');
    box.hidden = role() === 'local' || state.version === null;
    if (box.hidden) return;
    const closed = role() === 'spectator' && !state.spectatorChat;
    $input('#chat-input').disabled = closed;
    $button('#chat-send').disabled = closed;
    const note = $('#chat-note');
    const noteKey = closed ? 'chat.spectators_off' : role() === 'spectator' ? 'chat.spectator_hint' : null;
    note.hidden = noteKey === null;
    note.textContent = noteKey === null ? '' : t(noteKey);
    // Not against the computer alone: a game the home page makes so is private, nobody watches.
    const onlyBots = state.seats.every((s) => s.bot || state.held.has(s.seat));
    $('#spectator-chat-switch').hidden = !(role() === 'player' && creatorHere() && !onlyBots);
    if (!switchInFlight) $input('#spectator-chat').checked = state.spectatorChat;
  }

  /** @param {SubmitEvent} event */
  async function send(event) {
    event.preventDefault();
    const input = $input('#chat-input');
    const text = input.value.trim();
    const socket = socketFor(chatSeat());
    if (!text || !socket || role() === 'local') return;
    const error = $('#chat-error');
    error.textContent = '';
    input.value = '';
    try {
      await socket.send('chat', { channel: role() === 'spectator' ? 'spectators' : 'players', text });
    } catch (problem) {
      if (!input.value) input.value = text;
      error.textContent = rejectText(/** @type {{ code: string, message: string }} */ (problem), 'chat');
    }
  }

  async function switchSpectatorChat() {
    const enabled = $input('#spectator-chat').checked;
    switchInFlight = true;
    try {
      await command(state.createdBy, 'set_spectator_chat', { enabled });
    } finally {
      switchInFlight = false;
      renderControls();
    }
  }

  $('#chat-form').addEventListener('submit', send);
  $('#spectator-chat').addEventListener('change', switchSpectatorChat);
  return { render, renderControls };
}
