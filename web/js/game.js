// The page of a finished game, /g/{room_id}: the board at any move of the game, stepped through
// with buttons or the arrow keys, the result and its reason, the players with what each had at
// the move shown and their clocks' final times, Ouk Chatrang's counting history, and the record /
// PGN downloads. Everything comes from GET api/games/{room_id} (docs/protocol.md): the positions
// after each move are the server's (`history`), so this page knows no rule of any game; the
// boards are the room page's modules, the words of the moves and the material the room page's.

import { gameRecord, noticeWithHomeLink, rulesUrl } from './api.js';
import { gameInfo, loadBoardModule } from './games.js';
import { moveText } from './room/view/moves.js';
import { materialOf } from './room/view/players.js';
import { timeLeftText } from './room/view/clock.js';
import { t, addStrings, setUpLanguage, onLanguageChange, colorName } from './i18n.js';
import { $, $$, $button, $link, $select } from './dom.js';
import { setUpThemes } from './themes.js';
import { changeItems } from './ratings.js';
import { playerName as nameOf, withPlayer } from './who.js';

/** @typedef {import('./protocol.js').GameRecord} GameRecord */
/** @typedef {import('./boards/board.js').BoardModule} BoardModule */

const roomId = decodeURIComponent(location.pathname.split('/').filter(Boolean).at(-1) ?? '');

/**
 * m:ss, or h:mm:ss from an hour (as the room page shows a clock).
 * @param {number} ms
 */
function clockText(ms) {
  const total = Math.floor(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const sec = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

/**
 * Shows `record` with the board of `module`.
 * @param {GameRecord} record
 * @param {BoardModule} module
 */
function showGame(record, module) {
  const board = module.createBoard($('#board'), { t, onMove: () => {} });
  const plies = record.history.length;
  const seats = record.players.map((p) => ({ seat: p.seat, color: p.color }));
  // The move shown: 0 is the start position, n the position after the n-th move.
  let ply = plies;

  /**
   * The position after move `n` (0: the start).
   * @param {number} n
   */
  const positionAt = (n) => (n === 0 ? record.start_position : record.history[n - 1]?.position ?? record.final_position);

  /** @param {number} seat */
  function playerName(seat) {
    const player = record.players.find((p) => p.seat === seat);
    if (!player) return '';
    const color = colorName(record.game, player.color);
    const name = nameOf(player);
    return name ? t('room.player_named', { color, name }) : color;
  }

  /** @param {import('./protocol.js').GameResult} result */
  function resultText({ winner, reason }) {
    if (reason === 'aborted') return t('room.aborted_game');
    const why = t(`reason.${reason}`);
    if (winner === null) return t('room.draw', { reason: why });
    return t('room.winner', { player: playerName(winner), reason: why });
  }

  function renderPlayers() {
    const clock = record.clock;
    const material = ply === 0 ? null : record.history[ply - 1]?.material ?? null;
    $('#players').replaceChildren(...record.players.map((player) => {
      const li = document.createElement('li');
      li.dataset.seat = String(player.seat);
      const swatch = document.createElement('span');
      swatch.className = `swatch ${player.color}`;
      swatch.setAttribute('aria-hidden', 'true');
      const who = document.createElement('span');
      who.className = 'who';
      who.textContent = playerName(player.seat);
      if (player.user || player.deleted) {
        who.replaceChildren(...withPlayer('room.player_named', { color: colorName(record.game, player.color) }, player));
      }
      li.append(swatch, who);
      if (record.result.winner === player.seat) {
        const notes = document.createElement('span');
        notes.className = 'notes';
        notes.textContent = t('game_page.winner');
        li.append(notes);
      }
      li.append(materialOf({ game: record.game, seats }, material, player.seat, module));
      const remaining = clock?.remaining_ms?.[player.seat];
      if (remaining !== undefined) {
        const time = document.createElement('span');
        time.className = 'clock';
        time.dataset.seat = String(player.seat);
        time.textContent = timeLeftText(remaining, clockText);
        time.setAttribute('aria-label', t('game_page.final_time', { player: playerName(player.seat), time: timeLeftText(remaining, clockText) }));
        li.append(time);
      }
      return li;
    }));
    const control = $('#time-control');
    control.hidden = !clock;
    if (clock) {
      control.textContent = clock.days_per_move
        ? t('game_page.time_control_days', { days: clock.days_per_move })
        : t('game_page.time_control', { minutes: (clock.initial_s ?? 0) / 60, increment: clock.increment_s ?? 0 });
    }
  }

  function renderMoves() {
    const list = $('#moves');
    const pairs = gameInfo(record.game)?.pairs ?? false;
    list.classList.toggle('pairs', pairs);
    const firstSeat = record.history[0]?.seat ?? 0;
    list.replaceChildren(...record.display_moves.map((display, i) => {
      const li = document.createElement('li');
      const seat = record.history[i]?.seat;
      const color = record.players.find((p) => p.seat === seat)?.color ?? null;
      if (!pairs && color) {
        const swatch = document.createElement('span');
        swatch.className = `swatch ${color}`;
        swatch.setAttribute('aria-hidden', 'true');
        li.append(swatch);
      }
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'link';
      button.textContent = moveText(record, display, i, color, module);
      button.addEventListener('click', () => show(i + 1));
      // The move number is an element of its own, on the line of the move's text (the room
      // page's list numbers its moves with CSS counters; these are buttons, taller than text).
      if (pairs && (i + firstSeat) % 2 === 0) {
        const number = document.createElement('span');
        number.className = 'move-number';
        number.textContent = `${Math.floor((i + firstSeat) / 2) + 1}.`;
        li.append(number);
      }
      li.append(button);
      li.dataset.ply = String(i + 1);
      li.dataset.move = record.moves[i] ?? '';
      if (pairs) li.dataset.seat = String((i + firstSeat) % 2);
      return li;
    }));
  }

  // Ouk Chatrang's counts as they ran (`extra_history`): one line per move that had one.
  function renderCounting() {
    const counts = (record.extra_history ?? []).filter((entry) => entry.counting);
    $('#counting-box').hidden = counts.length === 0;
    $('#counting-history').replaceChildren(...counts.map((entry) => {
      const li = document.createElement('li');
      li.dataset.ply = String(entry.ply);
      const c = entry.counting;
      if (c) {
        li.textContent = t('game_page.counting_entry', {
          ply: entry.ply,
          kind: t(`counting.${c.kind}`),
          count: c.count,
          limit: c.limit,
          side: colorName(record.game, c.escaping),
        });
      }
      return li;
    }));
  }

  /**
   * Shows the position after move `n` (clamped to the game), and marks that move in the lists.
   * @param {number} n
   */
  function show(n) {
    ply = Math.max(0, Math.min(plies, n));
    const entry = record.history[ply - 1] ?? null;
    $('#room').dataset.ply = String(ply);
    board.update({
      position: positionAt(ply),
      legal: null,
      complete: true,
      lastMove: ply > 0 ? record.moves[ply - 1] : null,
      captured: entry?.captured ?? [],
      orientation: 0,
      colors: record.players.map((p) => p.color),
      check: entry?.check !== undefined,
      outcome: ply === plies ? {
        winner: record.players.find((p) => p.seat === record.result.winner)?.color ?? null,
        reason: record.result.reason,
      } : null,
    });
    renderPlayers();
    $('#ply').textContent = t('game_page.ply', { ply, total: plies });
    for (const li of $$('#moves li, #counting-history li')) {
      const current = Number(li.dataset.ply) === ply;
      li.classList.toggle('current', current);
      if (current) li.setAttribute('aria-current', 'step');
      else li.removeAttribute('aria-current');
    }
    $button('#first').disabled = ply === 0;
    $button('#back').disabled = ply === 0;
    $button('#forward').disabled = ply === plies;
    $button('#last').disabled = ply === plies;
  }

  function renderDownloads() {
    const id = encodeURIComponent(record.room_id);
    const text = $link('#download-record');
    text.href = `api/games/${id}/record`;
    text.setAttribute('download', `${record.game}-${record.room_id}.txt`);
    const pgn = $link('#download-pgn');
    pgn.hidden = !gameInfo(record.game)?.pgn;
    pgn.href = `api/games/${id}/pgn`;
    pgn.setAttribute('download', `${record.game}-${record.room_id}.pgn`);
    $link('#rules-link').href = rulesUrl(record.game);
  }

  function render() {
    $('#game-name').textContent = t(`game.${record.game}`);
    document.title = `${t(`game.${record.game}`)} · ${t('app.name')}`;
    $('#result').textContent = resultText(record.result);
    const ratings = $('#ratings');
    ratings.hidden = !record.ratings;
    ratings.replaceChildren(...changeItems(record.ratings ?? [], playerName));
    renderMoves();
    renderCounting();
    renderDownloads();
    show(ply);
  }

  $('#first').addEventListener('click', () => show(0));
  $('#back').addEventListener('click', () => show(ply - 1));
  $('#forward').addEventListener('click', () => show(ply + 1));
  $('#last').addEventListener('click', () => show(plies));
  document.addEventListener('keydown', (event) => {
    const target = event.target instanceof Element ? event.target : null;
    if (event.altKey || event.ctrlKey || event.metaKey || target?.closest('input, select, textarea')) return;
    /** @type {Record<string, number>} */
    const keys = { ArrowLeft: ply - 1, ArrowRight: ply + 1, Home: 0, End: plies, ArrowUp: 0, ArrowDown: plies };
    const to = keys[event.key];
    if (to === undefined) return;
    event.preventDefault();
    show(to);
  });
  const renameThemes = setUpThemes($select('#board-theme'), (id) => t(`theme.${id}`));
  render();
  onLanguageChange(() => {
    renameThemes();
    render();
  });
}

/** @param {string} text */
function showNotice(text) {
  $('#board-area').hidden = true;
  $('#side').hidden = true;
  noticeWithHomeLink(text, t('room.go_home'));
}

async function start() {
  setUpLanguage();
  /** @type {GameRecord} */
  let record;
  try {
    record = await gameRecord(roomId);
  } catch (problem) {
    const status = /** @type {import('./api.js').ApiError} */ (problem).status;
    showNotice(t(status === 404 ? 'game_page.not_found' : 'game_page.unavailable'));
    return;
  }
  const module = await loadBoardModule(record.game);
  addStrings(module.strings);
  showGame(record, module);
  $('#room').dataset.ready = 'true';
}

start();
