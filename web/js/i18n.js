// Translations: t(key, params) looks the key up in the current language (falling back to English,
// then to the key itself) and puts params in place of {name}. The language comes from the user's
// choice when there was one, else from the browser's preferred languages.
//
// Elements with data-i18n="key" get their text from t(key); data-i18n-placeholder,
// data-i18n-title and data-i18n-aria-label do the same for those attributes.

import en from './lang/en.js';
import ko from './lang/ko.js';
import { gameInfo } from './games.js';

export const LANGUAGES = ['en', 'ko'];
const STORAGE_KEY = 'khanate.lang';
/** @type {Record<string, Record<string, string>>} */
const tables = { en: { ...en }, ko: { ...ko } };
/** @type {((lang: string) => void)[]} */
const listeners = [];

/** @returns {string} */
function chosenLanguage() {
  const stored = localStorage.getItem(STORAGE_KEY);
  if (stored !== null && LANGUAGES.includes(stored)) return stored;
  for (const tag of navigator.languages ?? [navigator.language]) {
    const base = String(tag).toLowerCase().split('-')[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return 'en';
}

let current = chosenLanguage();

export function language() {
  return current;
}

/**
 * The text of `key` in the page's language, `{name}` replaced by `params.name`.
 * @param {string} key
 * @param {Record<string, string | number>} [params]
 * @returns {string}
 */
export function t(key, params = {}) {
  const text = tables[current][key] ?? tables.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

/**
 * Registers more strings ({en: {key: text}, ko: {...}}), e.g. a board module's own.
 * @param {Record<string, Record<string, string>>} strings
 */
export function addStrings(strings) {
  for (const [lang, table] of Object.entries(strings)) {
    tables[lang] = { ...(tables[lang] ?? {}), ...table };
  }
}

/**
 * Translates every marked element under `root`.
 * @param {ParentNode} [root]
 */
export function translate(root = document) {
  document.documentElement.lang = current;
  for (const el of root.querySelectorAll('[data-i18n]')) el.textContent = t(el.getAttribute('data-i18n') ?? '');
  for (const attribute of ['placeholder', 'title', 'aria-label']) {
    for (const el of root.querySelectorAll(`[data-i18n-${attribute}]`)) {
      el.setAttribute(attribute, t(el.getAttribute(`data-i18n-${attribute}`) ?? ''));
    }
  }
}

/**
 * Called after every change of language, to redraw what translate() cannot reach.
 * @param {(lang: string) => void} listener
 */
export function onLanguageChange(listener) {
  listeners.push(listener);
}

/** @param {string} lang */
export function setLanguage(lang) {
  if (!LANGUAGES.includes(lang)) return;
  current = lang;
  localStorage.setItem(STORAGE_KEY, lang);
  translate();
  for (const listener of listeners) listener(lang);
}

// Wires the page's #lang switch and translates the page once.
export function setUpLanguage() {
  const select = /** @type {HTMLSelectElement | null} */ (document.querySelector('#lang'));
  if (select) {
    select.value = current;
    select.addEventListener('change', () => setLanguage(select.value));
  }
  translate();
}

/**
 * A seat colour's name: a game whose colours are its own (Khan-Tsin's pawns) names them so, the
 * others name the sides White and Black (games.js `ownColorNames`).
 * @param {string | null} game
 * @param {string} color
 */
export function colorName(game, color) {
  return t(gameInfo(game)?.ownColorNames ? `color.${game}.${color}` : `color.${color}`);
}

/**
 * A failed REST call (api.js ApiError) or refused command, for people.
 * @param {{ code: string, message: string }} problem
 */
export function errorText(problem) {
  const key = `error.${problem.code}`;
  const text = t(key, { message: problem.message });
  return text === key ? t('error.other', { message: problem.message }) : text;
}
