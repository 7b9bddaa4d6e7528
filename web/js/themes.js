// Board themes: the colours the boards are drawn in, chosen with `#board-theme` (the room page
// and the finished-game page) and remembered in localStorage["khanate.board-theme"]. A theme is
// a value of `<html data-board-theme>`; css/khanate.css ("Board themes") colours the boards'
// shapes by their classes under it (boards/grid.js GridTheme, khan-tsin-draw.js's tiles), so a
// board never redraws for it. "wood" is each game's own colours.

const KEY = 'khanate.board-theme';

/** The themes, by id: their names are `theme.<id>` strings. */
export const THEMES = ['wood', 'green', 'blue', 'contrast'];

/** @returns {string} the theme chosen, or the first */
function stored() {
  try {
    const theme = localStorage.getItem(KEY);
    return theme !== null && THEMES.includes(theme) ? theme : THEMES[0];
  } catch {
    return THEMES[0];
  }
}

/**
 * Shows the boards in `theme` and remembers it.
 * @param {string} theme
 */
export function setTheme(theme) {
  if (!THEMES.includes(theme)) return;
  document.documentElement.dataset.boardTheme = theme;
  try {
    localStorage.setItem(KEY, theme);
  } catch {
    // Storage refused (private mode): the theme holds for this page.
  }
}

/**
 * Applies the remembered theme, and wires `select` (the page's `#board-theme`) to choose it;
 * the options' names come from `name(id)`, asked again when the language changes.
 * @param {HTMLSelectElement | null} select
 * @param {(id: string) => string} name
 * @returns {() => void} renames the options (call it after a change of language)
 */
export function setUpThemes(select, name) {
  document.documentElement.dataset.boardTheme = stored();
  const rename = () => {
    if (!select) return;
    select.replaceChildren(...THEMES.map((id) => new Option(name(id), id)));
    select.value = stored();
  };
  rename();
  select?.addEventListener('change', () => setTheme(select.value));
  return rename;
}
