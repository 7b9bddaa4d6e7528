// Stepping through a game: which ply is shown (null: the present). The positions themselves are
// the room state's (the snapshot's `history` and every `moved`).
//
//   const replay = createReplay({ plies: () => n, onChange: (ply) => {} });
//   replay.first(); replay.back(); replay.forward(); replay.last(); replay.show(ply);
//   replay.ply   // the ply shown, or null for the present (the last ply of a live game)

/**
 * @typedef {object} Replay
 * @property {number | null} ply  the ply shown, or null for the present
 * @property {(ply: number | null) => void} show
 * @property {() => void} first
 * @property {() => void} back
 * @property {() => void} forward
 * @property {() => void} last
 */

/**
 * @param {{ plies: () => number, onChange: (ply: number | null) => void }} options
 * @returns {Replay}
 */
export function createReplay({ plies, onChange }) {
  /** @type {Replay} */
  const replay = {
    ply: null,
    show(ply) {
      const last = plies();
      const next = ply === null || ply >= last ? null : Math.max(0, ply);
      if (next === replay.ply) return;
      replay.ply = next;
      onChange(next);
    },
    first: () => replay.show(0),
    back: () => replay.show((replay.ply ?? plies()) - 1),
    forward: () => (replay.ply === null ? undefined : replay.show(replay.ply + 1)),
    last: () => replay.show(null),
  };
  return replay;
}
