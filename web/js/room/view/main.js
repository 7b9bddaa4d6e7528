// The room page's view, as lila's ui/round view/main.ts: it draws the controller's state with
// the views beside it (board, players, clocks, moves, status, controls, replay, chat) and hands
// the page's events to the controller. It holds no state of the game.
//
//   const view = createRoomView(ctrl);   // wires the page's buttons and keys to ctrl
//   view.render();                       // after anything changed (ctrl.redraw)
//   view.tick();                         // every 100 ms: the clocks and the claim countdown

import { t, onLanguageChange } from '../../i18n.js';
import { lastName } from '../../seats.js';
import { setUpThemes } from '../../themes.js';
import { $, $button, $input, $select } from '../../dom.js';
import { createBoardView } from './board.js';
import { createChat } from './chat.js';
import { tickClocks } from './clock.js';
import { acceptedOffer } from './accept.js';
import { renderControls, tickClaim } from './controls.js';
import { renderMoves } from './moves.js';
import { renderPlayers } from './players.js';
import { renderPending, renderReplay } from './replay.js';
import { renderConnection, renderNotice, renderStatus, renderTitle } from './status.js';

/** @typedef {import('../ctrl.js').RoomCtrl} RoomCtrl */

/**
 * @param {RoomCtrl} ctrl
 * @returns {{ render: () => void, tick: () => void }}
 */
export function createRoomView(ctrl) {
  const board = createBoardView(ctrl);
  const chat = createChat({
    state: ctrl.state,
    role: () => ctrl.role,
    socketFor: (seat) => ctrl.sockets.get(seat) ?? null,
    command: (seat, type, d) => ctrl.command(seat, type, d),
    rejectText: (problem, context) => ctrl.rejectText(problem, context),
  });

  // What each seat has in the position shown: now, or in a replay the ply's own.
  function materialShown() {
    const { state } = ctrl;
    const ply = ctrl.replay.ply;
    return ply === null ? state.material : state.materials[ply] ?? null;
  }

  function render() {
    const { state } = ctrl;
    renderNotice(ctrl);
    if (ctrl.notice) return;
    const main = $('#room');
    if (state.version !== null) main.dataset.version = String(state.version);
    main.dataset.status = state.status;
    main.dataset.toMove = state.toMove === null ? '' : String(state.toMove);
    main.dataset.role = ctrl.role;
    if (state.game) {
      $('#game-name').textContent = t(`game.${state.game}`);
      document.body.dataset.game = state.game;
      const rules = /** @type {HTMLAnchorElement} */ ($('#rules-link'));
      rules.href = `rules/${encodeURIComponent(state.game)}`;
      rules.hidden = false;
    }
    board.render();
    renderPlayers(state, {
      orientation: ctrl.orientation(),
      flipped: ctrl.flipped,
      boardModule: ctrl.boardModule,
      material: materialShown(),
    });
    tickClocks(state);
    renderStatus(ctrl);
    renderControls(ctrl);
    renderMoves(state, ctrl.boardModule);
    renderReplay(ctrl);
    renderPending(ctrl);
    $('#flip').setAttribute('aria-pressed', String(ctrl.flipped));
    chat.renderControls();
  }

  function wire() {
    /**
     * @param {string} selector
     * @param {() => void} action
     */
    const on = (selector, action) => $(selector).addEventListener('click', action);
    on('#resign', () => ctrl.resign());
    on('#offer-draw', () => ctrl.offerDraw());
    on('#claim-draw', () => ctrl.claimRepetition());
    on('#claim-victory', () => ctrl.claimVictory());
    on('#claim-abandoned-draw', () => ctrl.claimAbandonedDraw());
    on('#accept-draw', () => ctrl.accept('draw', acceptedOffer($button('#accept-draw'))));
    on('#decline-draw', () => ctrl.decline('draw'));
    on('#offer-takeback', () => ctrl.offerTakeback());
    on('#accept-takeback', () => ctrl.accept('takeback', acceptedOffer($button('#accept-takeback'))));
    on('#decline-takeback', () => ctrl.decline('takeback'));
    on('#abort', () => ctrl.abort());
    on('#rematch', () => ctrl.offerRematch());
    on('#accept-rematch', () => ctrl.accept('rematch', acceptedOffer($button('#accept-rematch'))));
    on('#decline-rematch', () => ctrl.decline('rematch'));
    on('#flip', () => ctrl.flip());
    on('#take-seat', async () => {
      const button = $button('#take-seat');
      const seat = $select('#seat-choice').value;
      button.disabled = true;
      await ctrl.takeSeat($input('#name').value.trim(), seat === '' ? null : Number(seat));
      button.disabled = false;
    });
    on('#copy-invite', copyInvite);
    on('#add-bot', async () => {
      const button = $button('#add-bot');
      button.disabled = true;
      await ctrl.addBot(Number($select('#add-bot-seat').value), Number($select('#add-bot-level').value));
      button.disabled = false;
    });
    $input('#name').value = lastName();
    on('#replay-first', ctrl.replay.first);
    on('#replay-back', ctrl.replay.back);
    on('#replay-forward', ctrl.replay.forward);
    on('#replay-last', ctrl.replay.last);
    $('#moves').addEventListener('click', (event) => {
      const li = event.target instanceof Element ? event.target.closest('#moves li') : null;
      if (li instanceof HTMLElement) ctrl.replay.show(Number(li.dataset.ply));
    });
    // The arrow keys step through the game, Home and End go to its start and its present, `f`
    // turns the board round, Escape drops a premove, unless the focus is in a field or (but for
    // Escape) on the board, where the arrows move between squares.
    document.addEventListener('keydown', (event) => {
      const target = event.target instanceof Element ? event.target : null;
      if (event.altKey || event.ctrlKey || event.metaKey || target?.closest('input, select, textarea')) return;
      if (event.key === 'Escape') {
        ctrl.setPremove(null);
        return;
      }
      if (target?.closest('#board')) return;
      if (event.key === 'f' && ctrl.state.game) {
        event.preventDefault();
        ctrl.flip();
        return;
      }
      /** @type {Record<string, () => void>} */
      const steps = { ArrowLeft: ctrl.replay.back, ArrowRight: ctrl.replay.forward, Home: ctrl.replay.first, End: ctrl.replay.last };
      const step = steps[event.key];
      if (!step || ctrl.state.moves.length === 0) return;
      event.preventDefault();
      step();
    });
    const renameThemes = setUpThemes($select('#board-theme'), (id) => t(`theme.${id}`));
    onLanguageChange(() => {
      renameThemes();
      renderTitle(ctrl);
      renderConnection(ctrl);
      board.forget();
      render();
      chat.render();
    });
  }

  async function copyInvite() {
    const link = $input('#invite-link');
    try {
      await navigator.clipboard.writeText(link.value);
    } catch {
      link.select();
      document.execCommand('copy');
    }
    $('#copy-invite').textContent = t('room.copied');
    setTimeout(() => {
      $('#copy-invite').textContent = t('room.copy');
    }, 2000);
  }

  wire();
  ctrl.redraw = render;
  ctrl.redrawConnection = () => renderConnection(ctrl);
  ctrl.redrawChat = chat.render;
  return {
    render,
    tick() {
      tickClocks(ctrl.state);
      tickClaim(ctrl);
    },
  };
}
