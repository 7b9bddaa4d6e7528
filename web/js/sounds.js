// Short tones for a move, a capture, check and low time, made with the Web Audio API (the client
// ships no sound files). Off until the user turns them on with the `#sound` switch; the choice is
// remembered in localStorage["khanate.sound"] ("on" or "off").
//
//   const sound = createSounds();   // wires #sound (a toggle button: aria-pressed) if the page has one
//   sound.play('move' | 'capture' | 'check' | 'low')
//   sound.on                        // whether sounds play

const KEY = 'khanate.sound';
/** @typedef {'move' | 'capture' | 'check' | 'low'} SoundName */

/**
 * Each sound: tones of [frequency Hz, start s, length s].
 * @type {Record<SoundName, [number, number, number][]>}
 */
const TONES = {
  move: [[520, 0, 0.07]],
  capture: [[330, 0, 0.08], [250, 0.07, 0.1]],
  check: [[880, 0, 0.09], [660, 0.1, 0.12]],
  low: [[990, 0, 0.06], [990, 0.12, 0.06]],
};

function stored() {
  try {
    return localStorage.getItem(KEY) === 'on';
  } catch {
    return false;
  }
}

/**
 * @typedef {object} Sounds
 * @property {boolean} on
 * @property {(name: SoundName) => void} play
 * @property {(on: boolean) => void} set
 */

/** @returns {Sounds} */
export function createSounds() {
  /** @type {AudioContext | null} */
  let context = null;
  /** @type {Sounds} */
  const sound = {
    on: stored(),
    play(name) {
      const tones = TONES[name];
      if (!sound.on || !tones || typeof AudioContext === 'undefined') return;
      context ??= new AudioContext();
      const start = context.currentTime;
      for (const [frequency, at, length] of tones) {
        const osc = context.createOscillator();
        const gain = context.createGain();
        osc.frequency.value = frequency;
        gain.gain.setValueAtTime(0.15, start + at);
        gain.gain.exponentialRampToValueAtTime(0.001, start + at + length);
        osc.connect(gain).connect(context.destination);
        osc.start(start + at);
        osc.stop(start + at + length);
      }
    },
    set(on) {
      sound.on = on;
      try {
        localStorage.setItem(KEY, on ? 'on' : 'off');
      } catch {
        // Storage refused (private mode): the switch still works for this page.
      }
      show();
    },
  };
  const button = document.querySelector('#sound');
  function show() {
    if (!button) return;
    button.setAttribute('aria-pressed', String(sound.on));
  }
  button?.addEventListener('click', () => sound.set(!sound.on));
  show();
  return sound;
}
