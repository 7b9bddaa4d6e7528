// Typed look-ups of a page's own elements: every id a page's script names is in its HTML, so a
// missing one is a bug of the page, and these throw saying which rather than hand back null.

/**
 * @param {string} selector
 * @returns {HTMLElement}
 */
export function $(selector) {
  const el = document.querySelector(selector);
  if (!(el instanceof HTMLElement)) throw new Error(`the page has no ${selector}`);
  return el;
}

/**
 * @param {string} selector
 * @returns {HTMLInputElement}
 */
export function $input(selector) {
  return /** @type {HTMLInputElement} */ ($(selector));
}

/**
 * @param {string} selector
 * @returns {HTMLSelectElement}
 */
export function $select(selector) {
  return /** @type {HTMLSelectElement} */ ($(selector));
}

/**
 * @param {string} selector
 * @returns {HTMLButtonElement}
 */
export function $button(selector) {
  return /** @type {HTMLButtonElement} */ ($(selector));
}

/**
 * @param {string} selector
 * @returns {HTMLAnchorElement}
 */
export function $link(selector) {
  return /** @type {HTMLAnchorElement} */ ($(selector));
}

/**
 * Every element `selector` matches, as HTML elements.
 * @param {string} selector
 * @param {ParentNode} [root]
 * @returns {HTMLElement[]}
 */
export function $$(selector, root = document) {
  return /** @type {HTMLElement[]} */ ([...root.querySelectorAll(selector)]);
}
