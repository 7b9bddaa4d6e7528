// The room's state in words: whose turn it is, check, Ouk Chatrang's count, the result, the last
// message, the open offers, how many watch, the tab's title, the connection, and the notice of a
// room that does not exist (docs/web-client.md "The room page DOM").

import { t, colorName } from '../../i18n.js';
import { homeUrl } from '../../api.js';
import { $ } from '../../dom.js';
import { inCheck } from './board.js';
import { takebackOfferText } from './takeback.js';
import { changeItems } from '../../ratings.js';

/** @typedef {import('../ctrl.js').RoomCtrl} RoomCtrl */

/**
 * The result in words: "Black (Sok) wins: time ran out.", a draw, or a game that never was.
 * @param {RoomCtrl} ctrl
 * @param {import('../../protocol.js').GameResult} result
 */
export function resultText(ctrl, { winner, reason }) {
  // No result at all, neither a draw nor a win: a room that closed before every seat was taken
  // (nobody joined in time), or a game called off before every player had moved.
  if (reason === 'aborted') return t(ctrl.state.seats.every((s) => s.taken) ? 'room.aborted_game' : 'room.aborted');
  const why = t(`reason.${reason}`);
  if (winner === null) return t('room.draw', { reason: why });
  return t('room.winner', { player: ctrl.seatName(winner), reason: why });
}

/** @param {RoomCtrl} ctrl */
export function renderStatus(ctrl) {
  const { state } = ctrl;
  const turn = $('#turn');
  if (state.status === 'waiting') {
    const free = state.seats.filter((s) => !s.taken).length;
    turn.textContent = t(free === 1 ? 'room.waiting_one' : 'room.waiting', { count: free });
  } else if (state.status === 'playing' && state.toMove !== null) {
    if (ctrl.role === 'player' && ctrl.sockets.has(state.toMove)) turn.textContent = t('room.your_turn');
    else turn.textContent = t('room.to_move', { player: ctrl.seatName(state.toMove) });
  } else {
    turn.textContent = '';
  }

  const check = $('#check');
  check.hidden = state.status !== 'playing' || state.toMove === null || !inCheck(ctrl);
  check.textContent = check.hidden || state.toMove === null ? '' : t('room.check', { player: ctrl.seatName(state.toMove) });

  const counting = $('#counting');
  counting.hidden = !state.counting;
  counting.textContent = state.counting
    ? t('room.counting', {
        kind: t(`counting.${state.counting.kind}`),
        count: state.counting.count,
        limit: state.counting.limit,
        side: colorName(state.game, state.counting.escaping),
      })
    : '';

  const result = $('#result');
  result.hidden = !state.result;
  result.textContent = state.result ? resultText(ctrl, state.result) : '';
  $('#rated-note').hidden = !state.rated;
  const ratings = $('#ratings');
  ratings.hidden = !state.ratings;
  ratings.replaceChildren(...changeItems(state.ratings ?? [], (seat) => ctrl.seatName(seat)));

  $('#message').textContent = ctrl.messageText(state.message);
  // A key to the letters of the move list, for a game whose display is in letters.
  $('#notation-key').hidden = !ctrl.info?.notationKey;
  if (ctrl.info?.notationKey) $('#notation-text').textContent = t(`notation.${ctrl.info.id}`);
  renderOffers(ctrl);
  renderSpectators(ctrl);
  renderTitle(ctrl);
}

/**
 * Who offered what, and who has accepted it.
 * @param {RoomCtrl} ctrl
 */
function renderOffers(ctrl) {
  const texts = [];
  for (const [open, key] of /** @type {const} */ ([[ctrl.openOffer('draw'), 'room.draw_offered'], [ctrl.openOffer('rematch'), 'room.rematch_offered']])) {
    if (!open) continue;
    const accepted = open.offer.accepted.map((seat) => ctrl.seatName(seat)).join(', ');
    texts.push(t(key, { player: ctrl.seatName(open.offer.by) })
      + (accepted ? ` ${t('room.draw_accepted_by', { players: accepted })}` : ''));
  }
  const takeback = takebackOfferText(ctrl);
  if (takeback) texts.push(takeback);
  $('#offers').textContent = texts.join(' ');
}

/**
 * How many watch (the server's `spectators` count; unknown from an older server).
 * @param {RoomCtrl} ctrl
 */
function renderSpectators(ctrl) {
  const el = $('#spectators');
  const count = ctrl.state.spectators;
  el.hidden = !count;
  el.dataset.count = count === null ? '' : String(count);
  el.textContent = count ? t(count === 1 ? 'room.spectators_one' : 'room.spectators', { count }) : '';
}

/**
 * The tab's title: "Your move" first when this browser holds the seat on move.
 * @param {RoomCtrl} ctrl
 */
export function renderTitle(ctrl) {
  const { state } = ctrl;
  if (!state.game) return;
  const mine = state.status === 'playing' && ctrl.role !== 'spectator' && ctrl.sockets.has(state.toMove);
  const title = `${t(`game.${state.game}`)} · ${t('app.name')}`;
  document.title = mine ? `${t('room.title_your_move')} · ${title}` : title;
}

/**
 * `#connection`: online, connecting or offline, and why the page gave up if it did.
 * @param {RoomCtrl} ctrl
 */
export function renderConnection(ctrl) {
  const el = $('#connection');
  if (ctrl.notice) {
    el.dataset.state = 'offline';
    el.textContent = t('connection.gave_up.unknown_room');
    el.title = el.textContent;
    return;
  }
  const failed = [...ctrl.sockets.values()].find((s) => s.failure);
  const state = ctrl.summaryFailed ? 'offline' : ctrl.connectionState();
  el.dataset.state = state;
  if (failed?.failure) {
    const key = `connection.gave_up.${failed.failure.code}`;
    el.textContent = t(key) === key ? t('connection.gave_up.other') : t(key);
  } else el.textContent = t(`connection.${state}`);
  // On a phone only the dot shows: the words are its tooltip too.
  el.title = el.textContent;
}

/**
 * No game to show: the board and the side panel (its "Moves" heading too) go, and `#notice`
 * says why, with a link home.
 * @param {RoomCtrl} ctrl
 */
export function renderNotice(ctrl) {
  const notice = $('#notice');
  $('#board-area').hidden = ctrl.notice !== null;
  $('#side').hidden = ctrl.notice !== null;
  notice.hidden = ctrl.notice === null;
  if (ctrl.notice === null) return;
  const home = document.createElement('a');
  home.href = homeUrl();
  home.textContent = t('room.go_home');
  notice.replaceChildren(t(ctrl.notice), ' ', home);
}
