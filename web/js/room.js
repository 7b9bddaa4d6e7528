// The room page, at r/{invite_code}: the board, the players, the move list, the game's state and
// the controls. Shaped as lila's ui/round: room/ctrl.js holds the state and talks to the server,
// room/view/*.js draw it, room/state.js is the pure reducer of the server's frames.

import { setUpLanguage } from './i18n.js';
import { $ } from './dom.js';
import { RoomCtrl } from './room/ctrl.js';
import { createRoomView } from './room/view/main.js';

const inviteCode = decodeURIComponent(location.pathname.split('/').filter(Boolean).pop() ?? '');

setUpLanguage();
const ctrl = new RoomCtrl({ inviteCode, boardHost: $('#board') });
const view = createRoomView(ctrl);
// The running clock counts down between the server's frames; a claim's countdown runs too.
setInterval(() => {
  ctrl.tick();
  view.tick();
}, 100);
ctrl.start();
