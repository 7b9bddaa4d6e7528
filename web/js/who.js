// Players as every page shows them (docs/protocol.md: a seat or player carries `user` when it
// belongs to an account, and `deleted` once that account was deleted): a deleted account's as
// "deleted player", never linked (its page says nothing); an account's by its username, linked to
// its page /@/{name}; anyone else by the name they gave. A computer player is the caller's to
// name (by its level, in the page's language).
//
//   profileUrl(name)               // the player's page, under the page's base
//   playerName(player)             // the words: username, name given, or "deleted player"; '' for none
//   playerNode(player, fallback?)  // those words as a link to the page of an account, else text
//   withPlayer(key, params, player)
//       // t(key, params) with {name} the playerNode: "White (Dara)" with "Dara" linked
//   against(players, fallback)     // "against Sok, Vanna", each name a playerNode

import { t } from './i18n.js';

/**
 * @typedef {object} Player
 * @property {string | null} [name]  the name given when the seat was taken
 * @property {string} [user]         the username of the seat's account
 * @property {boolean} [deleted]     that account was deleted
 */

/** @param {string} name */
export function profileUrl(name) {
  return new URL(`@/${encodeURIComponent(name)}`, document.baseURI).href;
}

/** @param {Player} player */
export function playerName(player) {
  if (player.deleted) return t('player.deleted');
  return player.user ?? player.name ?? '';
}

/**
 * @param {Player} player
 * @param {string} [fallback]  the words for a player without a name
 * @returns {Node}
 */
export function playerNode(player, fallback = '') {
  const words = playerName(player) || fallback;
  if (player.deleted) {
    const span = document.createElement('span');
    span.className = 'deleted-player';
    span.textContent = words;
    return span;
  }
  if (!player.user) return document.createTextNode(words);
  const link = document.createElement('a');
  link.className = 'player-link';
  link.href = profileUrl(player.user);
  link.textContent = words;
  return link;
}

/**
 * The text of `key` with the parameter `slot` made of `nodes`, the other parameters as words.
 * @param {string} key
 * @param {Record<string, string | number>} params
 * @param {string} slot
 * @param {Node[]} nodes
 * @returns {Node[]}
 */
function textWith(key, params, slot, nodes) {
  const marker = '\u0000';
  const [before, after = ''] = t(key, { ...params, [slot]: marker }).split(marker);
  return [document.createTextNode(before), ...nodes, document.createTextNode(after)];
}

/**
 * The text of `key` with `{name}` the player's node (linked), the other parameters as words.
 * @param {string} key
 * @param {Record<string, string | number>} params
 * @param {Player} player
 * @returns {Node[]}
 */
export function withPlayer(key, params, player) {
  return textWith(key, params, 'name', [playerNode(player)]);
}

/**
 * "against Sok, Vanna": each player a playerNode (`fallback` for one without a name).
 * @param {Player[]} players
 * @param {string} fallback
 * @returns {Node[]}
 */
export function against(players, fallback) {
  const names = players.flatMap((p, i) => [...(i > 0 ? [document.createTextNode(', ')] : []), playerNode(p, fallback)]);
  return textWith('home.my_against', {}, 'names', names);
}
