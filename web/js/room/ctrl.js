// The room page's controller, as lila's ui/round ctrl.ts: it holds what the page knows (the room
// state of state.js, the sockets, the replay, the move in flight, a premove, the board's
// orientation) and does what the page does (commands, moves, premoves, following a rematch),
// then asks the views (view/*.js) to draw it with `redraw`. It reads no element but the board's
// host; the views read nothing but this.
//
// One RoomSocket per held seat (one without a token for a spectator). This browser is a
// spectator (no seat held), a player (one seat) or a local pass-and-play table (every seat held
// here, moves built for whichever seat is on move). What a frame does beyond the room state is
// the `handlers` map below, by frame type.
//
// After the game the players may agree to a rematch: the server makes the next room and each
// player's token works there too, so on the `rematch` event the page keeps each held seat's token
// for the new room (at its new seat) and goes there; spectators follow.

import { joinRoom, roomSummary, roomUrl } from '../api.js';
import { RoomSocket } from '../socket.js';
import { forgetSeat, heldSeats, keepSeat, lastName, rememberName } from '../seats.js';
import { t, addStrings, errorText } from '../i18n.js';
import { gameInfo, loadBoardModule } from '../games.js';
import { abandonClaim, applyFrame, clockLeft, createRoomState, legalFor, legalIncludes } from './state.js';
import { nameOfSeat } from './view/players.js';
import { createReplay } from './replay.js';
import { createSounds } from '../sounds.js';
import { createNotifier } from '../notify.js';
import { offerTakeback } from './takeback.js';

/** @typedef {import('./state.js').RoomState} RoomState */
/** @typedef {import('./state.js').Message} Message */
/** @typedef {import('./state.js').Offer} Offer */
/** @typedef {import('./state.js').Effect} Effect */
/** @typedef {import('../protocol.js').ServerFrame} ServerFrame */
/** @typedef {import('../protocol.js').OfferKind} OfferKind */
/** @typedef {import('../boards/board.js').Board} Board */
/** @typedef {import('../boards/board.js').BoardModule} BoardModule */
/** @typedef {'spectator' | 'player' | 'local'} Role */

/**
 * An open offer as this page may answer it: the seat held here that can accept it (null: none),
 * and whether a seat held here made it.
 * @typedef {{ offer: Offer, answerer: number | null, ours: boolean }} OpenOffer
 */

/**
 * What a frame does on the page once the room state has taken it (state.js applyFrame), by
 * frame type: lila's socket handlers. `before`: the state's version and ply count before it.
 * A handler that returns false leaves the page as it is drawn (the chat draws itself).
 * @type {Record<string, (ctrl: RoomCtrl, seat: number | null, frame: ServerFrame, before: { version: number | null, plies: number }) => boolean | void>}
 */
const handlers = {
  moved(ctrl, _seat, frame, before) {
    if (ctrl.state.moves.length <= before.plies || before.version === null) return;
    // A live game returns to the present on a move.
    ctrl.replay.show(null);
    if (!ctrl.sockets.has(frame.d?.seat)) ctrl.sound.play(moveSound(frame.d));
  },
  // The line of play changed under the page: back to the present, and a premove set for the
  // position that is gone is dropped (it must not play itself on the position before it).
  taken_back(ctrl) {
    ctrl.replay.show(null);
    ctrl.premove = null;
  },
  chat: () => false,
  chat_history: () => false,
};

/**
 * The sound of a move that came in: check, a capture (squares emptied, or `x` in Ouk Chatrang's
 * SAN), or a plain move.
 * @param {import('../protocol.js').Moved} d
 * @returns {import('../sounds.js').SoundName}
 */
function moveSound(d) {
  if (d.check !== undefined && d.check !== null) return 'check';
  if ((d.captured ?? []).length > 0 || /x/.test(d.display ?? '')) return 'capture';
  return 'move';
}

const SUMMARY_RETRY_MS = 3_000;
const FLIP_PREFIX = 'khanate.flip.';

export class RoomCtrl {
  /**
   * @param {{ inviteCode: string, boardHost: HTMLElement }} options
   */
  constructor({ inviteCode, boardHost }) {
    this.inviteCode = inviteCode;
    this.boardHost = boardHost;
    /** What the room is, as the frames told it (see state.js). */
    this.state = createRoomState();
    /** @type {Map<number | null, RoomSocket>} seat -> socket; a spectator's is under `null` */
    this.sockets = new Map();
    /** @type {Role} */
    this.role = 'spectator';
    /** @type {Board | null} */
    this.board = null;
    /** @type {BoardModule | null} its exports (Ouk Chatrang's drawPiece draws the material) */
    this.boardModule = null;
    this.moveInFlight = false;
    /** @type {string | null} a move sent while the connection was down, until the server answers it */
    this.pendingMove = null;
    /** @type {string} the pending move as the server's `display` would write it */
    this.pendingDisplay = '';
    /** @type {string | null} a move set ahead while another seat is on move (see `setPremove`) */
    this.premove = null;
    /** Whether the viewer turned the board round (remembered per room). */
    this.flipped = readFlip(inviteCode);
    /** @type {string | null} a string key when the page has no room to show (`room.no_such_room`) */
    this.notice = null;
    /** @type {Set<string>} Khan-Tsin votes sent from here: `${seat}@${ply}` (forgotten by the server when the turn moves) */
    this.votes = new Set();
    /** The turn (ply) whose low-time warning sounded: once a turn, for a seat held here. */
    /** @type {number | null} */
    this.lowWarned = null;
    /** The seat a local table drew nearest last. */
    this.localNear = 0;
    /** Whether the room's summary could not be fetched (the server is away): the page retries. */
    this.summaryFailed = false;
    this.replay = createReplay({ plies: () => this.state.moves.length, onChange: () => this.redraw() });
    this.sound = createSounds();
    this.notify = createNotifier();
    /** Draws the page (the views set it). @type {() => void} */
    this.redraw = () => {};
    /** Draws the connection's state (the views set it). @type {() => void} */
    this.redrawConnection = () => {};
    /** Draws the chat list, after a chat frame or a change of language. @type {() => void} */
    this.redrawChat = () => {};
  }

  // ---- what the page knows

  /** A seat named in the page's language (see view/players.js). @param {number} seat */
  seatName(seat) {
    return nameOfSeat(this.state, seat);
  }

  /**
   * A message of the room state in words (its seats named), or ''.
   * @param {Message | string | null} message
   */
  messageText(message) {
    if (message === null) return '';
    if (typeof message === 'string') return message;
    /** @type {Record<string, string | number>} */
    const params = { ...message.params };
    for (const [key, seat] of Object.entries(message.seats ?? {})) params[key] = this.seatName(seat);
    return t(message.key, params);
  }

  /** The catalogue's entry of this room's game. */
  get info() {
    return gameInfo(this.state.game);
  }

  /** The seats held here, spectators' `null` left out. */
  heldSeats() {
    return [...this.sockets.keys()].filter((seat) => seat !== null);
  }

  /**
   * The seat this browser acts for with resign / offer / claim: its own, or at a local table the
   * one on move.
   * @returns {number | null}
   */
  actingSeat() {
    if (this.role === 'player') return this.heldSeats()[0] ?? null;
    if (this.role === 'local' && this.sockets.has(this.state.toMove)) return this.state.toMove;
    return null;
  }

  /**
   * The open offer of `kind`, the seat held here that can answer it, and whether it is our own.
   * A seat that left a three-player game answers nothing but a rematch (everyone sits in the next).
   * @param {OfferKind} kind
   * @returns {OpenOffer | null}
   */
  openOffer(kind) {
    const offer = this.state.offers.find((o) => o.kind === kind);
    if (!offer) return null;
    const answerer = this.heldSeats().find((seat) => seat !== offer.by && !offer.accepted.includes(seat)
      && (kind === 'rematch' || !this.state.seats[seat]?.left));
    return { offer, answerer: answerer ?? null, ours: this.sockets.has(offer.by) };
  }

  /**
   * The seat drawn nearest: this player's, at a local table the one on move, 0 for spectators.
   * @returns {number}
   */
  orientation() {
    if (this.role === 'player') return this.heldSeats()[0] ?? 0;
    // A local table keeps the last seat on move while nobody is (the game is over).
    if (this.role === 'local' && this.state.toMove !== null) this.localNear = this.state.toMove;
    return this.role === 'local' ? this.localNear : 0;
  }

  /**
   * The one seat a premove is set for: this player's, while another seat is on move in a game
   * being played, shown in the present, on a board that offers premoves. A local table holds the
   * seat on move and sets none.
   * @returns {number | null}
   */
  premoveSeat() {
    const seat = this.role === 'player' ? this.heldSeats()[0] : undefined;
    const { state } = this;
    if (seat === undefined || state.status !== 'playing' || state.toMove === null || state.toMove === seat) return null;
    if (state.seats[seat]?.left || this.replay.ply !== null || !this.boardModule?.premoves) return null;
    return seat;
  }

  /** The connection's state over every socket: 'online', 'connecting' or 'offline'. */
  connectionState() {
    const all = [...this.sockets.values()];
    if (all.some((s) => s.failure) || all.some((s) => s.state === 'offline')) return 'offline';
    if (all.length === 0 || all.some((s) => s.state === 'connecting')) return 'connecting';
    return 'online';
  }

  // ---- frames

  /**
   * @param {number | null} seat
   * @param {ServerFrame} frame
   * @param {number | null} [lag]  the round trip (ms) of the socket that brought it
   */
  receive(seat, frame, lag = null) {
    const before = { version: this.state.version, plies: this.state.moves.length };
    const wasOurTurn = this.ourTurn();
    const effect = applyFrame(this.state, seat, frame, { wall: Date.now(), mono: performance.now(), lag });
    // The page's first snapshot is not a turn that came: the player just opened it.
    if (!wasOurTurn && this.ourTurn() && before.version !== null) this.notifyTurn();
    const redraw = handlers[frame.t]?.(this, seat, frame, before) !== false;
    if (effect.chat) this.redrawChat();
    if (!redraw) return;
    if (effect.rematch) this.followRematch(effect.rematch === 'live');
    this.playPremove();
    this.redraw();
  }

  // The rematch was made: every seat held here keeps its token for the new room, at its new seat
  // (the same token works there). `live`: it happened while this page was showing the room (the
  // event, or a snapshot after a reconnect), so the page goes to the new room, a spectator's too;
  // a page opened later (the old link, the back button) shows a link to it instead.
  /** @param {boolean} live */
  followRematch(live) {
    const info = this.state.rematch;
    if (!info) return;
    for (const [seat, socket] of this.sockets) {
      if (seat === null || !socket.token) continue;
      const moved = info.seats.find((s) => s.seat === seat);
      if (!moved) continue;
      keepSeat(info.invite_code, info.room_id, moved.new_seat, socket.token, {
        local: this.role === 'local',
        creator: seat === this.state.createdBy,
      });
    }
    if (live) location.assign(roomUrl(info.invite_code));
  }

  // Whether a seat held here, by a player (not a pass-and-play table), is on move in the game.
  ourTurn() {
    const { state } = this;
    return this.role === 'player' && state.status === 'playing' && state.toMove !== null && state.held.has(state.toMove);
  }

  // It became this player's turn: a notification if the page is in the background (notify.js).
  notifyTurn() {
    const game = document.querySelector('#game-name')?.textContent ?? '';
    const last = this.state.displayMoves.at(-1);
    const body = last ? t('room.notify_moved', { game, move: last }) : game;
    this.notify.turn(t('room.your_turn'), body, `khanate-${this.inviteCode}`);
  }

  // Every 100 ms: the low-time warning (once a turn, for a seat held here).
  tick() {
    const { state } = this;
    if (!state.clock) return;
    const running = state.clock.running;
    if (state.status === 'playing' && running !== null && this.sockets.has(running) && this.role !== 'spectator'
      && clockLeft(state, running, performance.now()) < 10_000 && this.lowWarned !== state.moves.length) {
      this.lowWarned = state.moves.length;
      this.sound.play('low');
    }
  }

  // ---- sockets and seats

  connect() {
    for (const socket of this.sockets.values()) socket.close();
    this.sockets.clear();
    const { state } = this;
    const held = heldSeats(this.inviteCode);
    const seats = held.roomId === null || held.roomId === state.id ? held.seats : new Map();
    this.role = seats.size === 0 ? 'spectator' : seats.size === 1 ? 'player' : 'local';
    state.held = new Set(seats.keys());
    state.legal.clear();
    state.carried.clear();
    // Until a snapshot says who created the room, this browser's own note of it counts.
    if (held.creator !== null && seats.has(held.creator)) state.createdBy = held.creator;
    /** @type {[number | null, string | null][]} */
    const entries = seats.size === 0 ? [[null, null]] : [...seats];
    for (const [held, token] of entries) {
      // A logged-in browser's tokenless socket may be welcomed into its account's seat: the
      // frames are then that seat's (see adoptSeat).
      const slot = { seat: held };
      const socket = new RoomSocket({
        room: state.id ?? '',
        // The page and its REST calls name the invite code: a proxy hashing by room keeps them
        // and the sockets on one node (docs/deploy/nginx-cluster.conf).
        route: this.inviteCode,
        token,
        // A spectator is named in the spectators' chat by the name last typed in this browser.
        name: token ? null : lastName() || null,
        // A timed game resumes from a snapshot: its clock is the server's now (the server gives
        // back the time it was down; replayed events would only repeat the clocks of before).
        resumeFromSnapshot: () => state.clock !== null && state.status === 'playing',
        onFrame: (frame) => {
          if (slot.seat === null && frame.t === 'welcome' && typeof frame.d?.seat === 'number') {
            slot.seat = frame.d.seat;
            this.adoptSeat(frame.d.seat, socket);
          }
          this.receive(slot.seat, frame, socket.lagMs);
        },
        onState: (s) => this.socketState(slot.seat, s),
      });
      this.sockets.set(held, socket);
    }
    this.redrawConnection();
    this.redraw();
  }

  /**
   * The server welcomed this page's tokenless socket into `seat`: the seat of the logged-in
   * account (docs/protocol.md, "Accounts"). The page plays it as if it held its token.
   * @param {number} seat
   * @param {RoomSocket} socket
   */
  adoptSeat(seat, socket) {
    this.sockets.delete(null);
    this.sockets.set(seat, socket);
    this.role = 'player';
    this.state.held = new Set([seat]);
  }

  /**
   * @param {number | null} seat
   * @param {RoomSocket} socket
   */
  socketState(seat, socket) {
    this.redrawConnection();
    if (socket.failure?.code === 'bad_token' && seat !== null) {
      // The server does not know this seat's token (a room recreated, storage from elsewhere):
      // forget it and carry on with what is left, as a spectator at worst.
      forgetSeat(this.inviteCode, seat);
      this.state.message = { key: 'room.seat_lost' };
      this.connect();
    } else if (socket.failure?.code === 'unknown_room') {
      this.notice = 'room.no_such_room';
      this.redrawConnection();
      this.redraw();
    }
  }

  /**
   * Takes a free seat (`seat` null: any), as `name` if given.
   * @param {string} name
   * @param {number | null} seat
   */
  async takeSeat(name, seat) {
    rememberName(name);
    /** @type {{ name?: string, seat?: number }} */
    const body = {};
    if (name) body.name = name;
    if (seat !== null) body.seat = seat;
    try {
      const joined = await joinRoom(this.inviteCode, body);
      keepSeat(this.inviteCode, joined.room_id, joined.seat, joined.seat_token);
      this.connect();
    } catch (problem) {
      this.state.message = errorText(/** @type {import('../api.js').ApiError} */ (problem));
      this.redraw();
    }
  }

  // ---- commands

  /**
   * Sends a command for a seat held here and shows a refusal in words (`context`: a group of
   * words for the refusals of this kind of command, e.g. `rematch.rate_limited`, before the
   * general `reject.*`). Resolves with whether the server accepted it.
   * @param {number | null} seat
   * @param {string} type
   * @param {object} [d]
   * @param {string | null} [context]
   * @returns {Promise<boolean>}
   */
  async command(seat, type, d = {}, context = null) {
    const socket = this.sockets.get(seat);
    if (!socket) return false;
    try {
      await socket.send(type, d);
      return true;
    } catch (problem) {
      this.state.message = this.rejectText(/** @type {{ code: string, message: string }} */ (problem), context);
      this.redraw();
      return false;
    }
  }

  /**
   * A refusal in words.
   * @param {{ code: string, message: string }} problem
   * @param {string | null} [context]
   */
  rejectText(problem, context = null) {
    if (context) {
      const special = `${context}.${problem.code}`;
      if (t(special) !== special) return t(special);
    }
    const key = `reject.${problem.code}`;
    return t(key) === key ? t('error.other', { message: problem.message }) : t(key);
  }

  /**
   * A move built on the board: sent now, or, while another seat is on move, set as the premove.
   * @param {string} move
   */
  boardMove(move) {
    if (this.premoveSeat() !== null) this.setPremove(move);
    else this.sendMove(move);
  }

  /**
   * Sets (or, with null, drops) the move to play as soon as the turn comes.
   * @param {string | null} move
   */
  setPremove(move) {
    if (this.premove === move) return;
    this.premove = move;
    this.redraw();
  }

  // The turn came with a premove set: it goes at once if the server's legal moves list it, else
  // it is dropped with a word. A game that ended drops it quietly.
  playPremove() {
    const move = this.premove;
    if (move === null) return;
    const seat = this.role === 'player' ? this.heldSeats()[0] : undefined;
    if (seat === undefined || this.state.status !== 'playing' || this.state.seats[seat]?.left) {
      this.premove = null;
      return;
    }
    const known = legalFor(this.state, seat);
    if (!known) return;
    this.premove = null;
    if (legalIncludes(known.moves, move)) this.sendMove(move);
    else this.state.message = { key: 'room.premove_dropped' };
  }

  /**
   * A move goes out at once, or, while the connection is down, when it is back (the socket keeps
   * it with its cid); until the server answers it is pending: drawn as made and marked, and
   * nothing else can be moved.
   * @param {string} move
   */
  async sendMove(move) {
    const seat = this.state.toMove;
    const socket = this.sockets.get(seat);
    if (!socket || this.moveInFlight) return;
    this.moveInFlight = true;
    this.pendingMove = socket.state === 'online' ? null : move;
    const known = legalFor(this.state, seat);
    const describe = this.boardModule?.describeMove;
    this.pendingDisplay = describe && known && this.state.position ? describe(this.state.position, move, known.moves) : move;
    this.state.message = null;
    // Out first, drawn after: a premove played on the opponent's move loses no time to drawing.
    const answered = this.command(seat, 'move', { move, v: this.state.version });
    this.sound.play('move');
    this.redraw();
    try {
      await answered;
    } finally {
      this.moveInFlight = false;
      this.pendingMove = null;
      this.redraw();
    }
  }

  /** Turns the board round (and back); remembered for this room. */
  flip() {
    this.flipped = !this.flipped;
    writeFlip(this.inviteCode, this.flipped);
    this.redraw();
  }

  resign() {
    const seat = this.actingSeat();
    if (seat !== null && confirm(t('room.resign_confirm'))) this.command(seat, 'resign');
  }

  abort() {
    const seat = this.actingSeat();
    if (seat !== null && confirm(t('room.abort_confirm'))) this.command(seat, 'abort');
  }

  offerDraw() {
    this.command(this.actingSeat(), 'offer_draw', {}, 'draw');
  }

  offerTakeback() {
    return offerTakeback(this);
  }

  claimRepetition() {
    this.command(this.actingSeat(), 'claim_draw', { reason: 'repetition' });
  }

  /**
   * Accepts offer `id` (the one the accept button showed; null: nothing) for the seat here that
   * can, while it is still the open offer of `kind`; the server judges it again.
   * @param {OfferKind} kind
   * @param {number | null} id
   */
  accept(kind, id) {
    const open = this.openOffer(kind);
    if (open && open.answerer !== null && open.offer.id === id) this.command(open.answerer, 'accept', { offer: id }, kind);
  }

  /**
   * Declines the open offer of `kind`, or withdraws our own; the page says nothing of it then.
   * @param {OfferKind} kind
   */
  decline(kind) {
    const open = this.openOffer(kind);
    if (!open) return;
    this.state.ownDeclines.add(open.offer.id);
    this.command(open.answerer ?? open.offer.by, 'decline', { offer: open.offer.id }, kind);
  }

  async claimVictory() {
    const claim = abandonClaim(this.state, performance.now());
    if (!claim || claim.wait > 0) return;
    const three = this.state.seats.length > 2;
    const ok = await this.command(claim.claimer, 'claim_victory', {}, 'claim');
    if (ok && three) {
      this.votes.add(`${claim.away}@${this.state.moves.length}`);
      this.redraw();
    }
  }

  claimAbandonedDraw() {
    const claim = abandonClaim(this.state, performance.now());
    if (claim && claim.wait === 0) this.command(claim.claimer, 'claim_draw', { reason: 'abandoned' }, 'claim');
  }

  /**
   * Gives a free seat to a computer player of `level`: the server answers with `seat_taken` (and
   * `game_started` when it was the last free seat), or refuses `cannot_add_bot` when the seat was
   * taken meanwhile or the game began.
   * @param {number} seat
   * @param {number} level
   */
  async addBot(seat, level) {
    this.state.message = null;
    await this.command(this.actingSeat(), 'add_bot', { seat, level });
  }

  // Offers a rematch (the server makes the next room once every other seat accepts). At a local
  // table this browser holds every seat: it accepts for the others at once.
  async offerRematch() {
    const seats = this.heldSeats();
    if (seats.length === 0) return;
    this.state.message = null;
    if (!(await this.command(seats[0], 'offer_rematch', {}, 'rematch')) || this.role !== 'local') return;
    for (const seat of seats.slice(1)) {
      const offer = this.state.offers.find((o) => o.kind === 'rematch');
      if (!offer || offer.accepted.includes(seat)) continue;
      if (!(await this.command(seat, 'accept', { offer: offer.id }, 'rematch'))) return;
    }
  }

  // ---- start

  async loadBoard() {
    const game = this.state.game ?? '';
    const module = await loadBoardModule(game);
    this.boardModule = module;
    addStrings(module.strings);
    this.board = module.createBoard(this.boardHost, {
      t,
      onMove: (move) => this.boardMove(move),
      onCancel: () => this.setPremove(null),
    });
  }

  // The room's summary first (its game and seats), then the board, then the sockets.
  async start() {
    let summary;
    try {
      summary = await roomSummary(this.inviteCode);
    } catch (problem) {
      if (/** @type {import('../api.js').ApiError} */ (problem).status === 404) {
        this.notice = 'room.no_such_room';
        this.redrawConnection();
        this.redraw();
        return;
      }
      // The server is away (restarting, or the network is): try again until it answers.
      this.summaryFailed = true;
      this.redrawConnection();
      setTimeout(() => this.start(), SUMMARY_RETRY_MS);
      return;
    }
    this.summaryFailed = false;
    const { state } = this;
    state.id = summary.room_id;
    state.game = summary.game;
    state.seats = summary.seats;
    state.status = summary.status;
    await this.loadBoard();
    this.connect();
  }
}

/** @param {string} inviteCode */
function readFlip(inviteCode) {
  try {
    return localStorage.getItem(FLIP_PREFIX + inviteCode.toLowerCase()) === 'true';
  } catch {
    return false;
  }
}

/**
 * @param {string} inviteCode
 * @param {boolean} flipped
 */
function writeFlip(inviteCode, flipped) {
  try {
    if (flipped) localStorage.setItem(FLIP_PREFIX + inviteCode.toLowerCase(), 'true');
    else localStorage.removeItem(FLIP_PREFIX + inviteCode.toLowerCase());
  } catch {
    // Storage refused (private mode): the board stays turned for this page.
  }
}
