// The room page's buttons and boxes: resign, draws, claims, abort, rematch, taking a seat, the
// invite link, adding a computer player, the downloads; shown when they may be used (the server
// judges every command). docs/web-client.md "The room page DOM".

import { t, colorName } from '../../i18n.js';
import { gameUrl, roomUrl } from '../../api.js';
import { abandonClaim, repetitionPossible } from '../state.js';
import { $, $button, $link, $select } from '../../dom.js';
import { renderTakeback } from './takeback.js';
import { showAccept } from './accept.js';

/** @typedef {import('../ctrl.js').RoomCtrl} RoomCtrl */
/** @typedef {import('../../protocol.js').Seat} Seat */

/**
 * @param {string} selector
 * @param {boolean} visible
 */
function show(selector, visible) {
  $(selector).hidden = !visible;
}

/**
 * Sets an element's text only when it changed (a button under the pointer keeps its state).
 * @param {HTMLElement} el
 * @param {string} text
 */
function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

/** @param {RoomCtrl} ctrl */
export function renderControls(ctrl) {
  const { state } = ctrl;
  const playing = state.status === 'playing';
  const seat = ctrl.actingSeat();
  const acting = playing && seat !== null && !state.seats[seat]?.left;
  const open = playing ? ctrl.openOffer('draw') : null;
  show('#resign', acting);
  // One offer at a time: no draw offer while a takeback request is open (the server refuses it).
  show('#offer-draw', acting && !open && !state.offers.some((o) => o.kind === 'takeback'));
  showAccept($button('#accept-draw'), open);
  const canWithdraw = Boolean(open && open.answerer === null && open.ours);
  show('#decline-draw', Boolean(open && (open.answerer !== null || canWithdraw)));
  setText($('#decline-draw'), t(canWithdraw ? 'room.withdraw_draw' : 'room.decline_draw'));
  renderTakeback(ctrl);
  tickClaim(ctrl);
  show('#claim-draw', acting && Boolean(ctrl.info?.repetitionClaim) && ctrl.sockets.has(state.toMove) && repetitionPossible(state));
  // Abort: while not every player still in the game has moved (the server judges; a refusal says
  // why), or, for the creator, a room still waiting for players.
  const inGame = state.seats.filter((s) => !s.left).length;
  const waitingCreator = state.status === 'waiting' && ctrl.role === 'player' && seat === state.createdBy;
  show('#abort', (acting && state.moves.length < inGame) || waitingCreator);
  setText($('#abort'), t(waitingCreator ? 'room.cancel_room' : 'room.abort'));

  // Rematch: after a game that started, until it is made; an open offer is answered instead.
  const rematch = state.status === 'finished' && !state.rematch ? ctrl.openOffer('rematch') : null;
  const started = state.seats.length > 0 && state.seats.every((s) => s.taken);
  show('#rematch', state.status === 'finished' && ctrl.role !== 'spectator' && started && !state.rematch && !rematch);
  showAccept($button('#accept-rematch'), rematch);
  const withdrawRematch = Boolean(rematch && rematch.answerer === null && rematch.ours);
  show('#decline-rematch', Boolean(rematch && (rematch.answerer !== null || withdrawRematch)));
  setText($('#decline-rematch'), t(withdrawRematch ? 'room.withdraw_rematch' : 'room.decline_rematch'));
  show('#rematch-box', Boolean(state.rematch));
  if (state.rematch) {
    const link = $link('#rematch-link');
    link.href = roomUrl(state.rematch.invite_code);
    link.textContent = t(ctrl.role === 'spectator' ? 'room.rematch_watch' : 'room.rematch_go');
  }

  const free = state.seats.filter((s) => !s.taken);
  const joinBox = $('#join-box');
  joinBox.hidden = !(ctrl.role === 'spectator' && state.status === 'waiting' && free.length > 0);
  if (!joinBox.hidden) offerSeats(ctrl, $select('#seat-choice'), free, t('home.seat_random'));
  renderInvite(ctrl);
  renderDownload(ctrl);
}

/**
 * Shows the claim buttons once the grace period is over, a countdown before (every 100 ms).
 * @param {RoomCtrl} ctrl
 */
export function tickClaim(ctrl) {
  const { state } = ctrl;
  const claim = abandonClaim(state, performance.now());
  const three = state.seats.length > 2;
  const voted = Boolean(claim && three && ctrl.votes.has(`${claim.away}@${state.moves.length}`));
  const ready = Boolean(claim && claim.wait === 0 && !voted);
  show('#claim-victory', ready);
  show('#claim-abandoned-draw', ready && !three);
  const note = $('#claim-wait');
  let text = '';
  if (claim && voted) text = t('room.abandon_voted', { player: ctrl.seatName(claim.away) });
  else if (claim && claim.wait > 0) {
    text = t('room.abandon_wait', { player: ctrl.seatName(claim.away), seconds: Math.ceil(claim.wait / 1000) });
  } else if (claim) text = t('room.abandon_ready', { player: ctrl.seatName(claim.away) });
  note.hidden = !text;
  setText(note, text);
  if (ready && claim) {
    setText($('#claim-victory'), three ? t('room.vote_remove', { player: ctrl.seatName(claim.away) }) : t('room.claim_victory'));
  }
}

/** @param {RoomCtrl} ctrl */
function renderInvite(ctrl) {
  const { state } = ctrl;
  const free = state.status === 'waiting' ? state.seats.filter((s) => !s.taken) : [];
  show('#invite-box', free.length > 0 && ctrl.role !== 'local');
  /** @type {HTMLInputElement} */ ($('#invite-link')).value = roomUrl(ctrl.inviteCode);
  // A seated player may give a free seat to the computer instead.
  const addBot = $('#add-bot-box');
  addBot.hidden = !(free.length > 0 && ctrl.role === 'player');
  if (!addBot.hidden) offerSeats(ctrl, $select('#add-bot-seat'), free);
}

/**
 * Fills a select with the free seats by colour, after an option for any seat (value '') when
 * `any` names it. Rebuilt only when the free seats or the language changed, not to close it under
 * the user; hidden when there is nothing to choose.
 * @param {RoomCtrl} ctrl
 * @param {HTMLSelectElement} select
 * @param {Seat[]} free
 * @param {string | null} [any]
 */
function offerSeats(ctrl, select, free, any = null) {
  const wanted = free.map((s) => String(s.seat));
  const signature = `${wanted.join()} ${document.documentElement.lang}`;
  if (select.dataset.signature !== signature) {
    const previous = select.value;
    select.replaceChildren(...(any === null ? [] : [new Option(any, '')]));
    for (const s of free) select.add(new Option(colorName(ctrl.state.game, s.color), String(s.seat)));
    select.value = wanted.includes(previous) ? previous : select.options[0].value;
    select.dataset.signature = signature;
  }
  select.hidden = free.length < 2;
}

/**
 * After a game that started: its record (any game), its PGN (games.js `pgn`) and its page.
 * @param {RoomCtrl} ctrl
 */
function renderDownload(ctrl) {
  const { state } = ctrl;
  const box = $('#download');
  const started = state.seats.length > 0 && state.seats.every((s) => s.taken);
  box.hidden = !(state.status === 'finished' && started && state.id);
  if (box.hidden || !state.id) return;
  const record = $link('#download-record');
  record.href = `api/games/${encodeURIComponent(state.id)}/record`;
  record.setAttribute('download', `${state.game}-${state.id}.txt`);
  const pgn = $link('#download-pgn');
  pgn.hidden = !ctrl.info?.pgn;
  pgn.href = `api/games/${encodeURIComponent(state.id)}/pgn`;
  pgn.setAttribute('download', `${state.game}-${state.id}.pgn`);
  // The finished game's own page (web/js/game.js): replay, result, final clocks.
  $link('#game-page-link').href = gameUrl(state.id);
}
