// mail.js - the game page's Mail panel, for the seat this browser holds
// (never for a spectator): the seat's turns sent by mail (issue 17;
// docs/protocol.md, notify and "Play by email").
//
// "Send my turns by mail" sends `notify` with `mail` (the address typed);
// the server mails a confirmation with a code, and the panel asks for it:
// "Confirm" sends `notify` with `confirm`. "Stop mails" sends `notify` with
// `mail: null`. Each `ok` answer says the seat's state, `none`, `pending`
// or `confirmed`, and that is what the panel shows: never the address,
// which the server never sends back (the field is emptied once the server
// has it). A refusal is shown in the server's words with its code, as the
// create form shows one (create.js), but `mail_off`, whose sentence names
// a server option, in a reader's words.
//
// The server says the state only in those answers, so this browser keeps
// the last one it heard per game and seat (localStorage
// "warroom.mail.GAME": {"seat","state"}; the create form stores `pending`
// when it sent an address), and shows "not known here" without one. The
// root's data-state is the state shown (none, pending, confirmed or
// unknown), and the result line's data-n counts the answers had and its
// data-code is the last refusal's code, for the tests.

const key = (game) => `warroom.mail.${game}`;

const STATES = {
  none: 'none: no mail is sent for this seat',
  pending: 'pending: nothing is sent to the address you gave until you confirm it with the code mailed there',
  confirmed: 'confirmed: mails go to the address you gave',
  unknown: 'not known in this browser: the server says it when an address is given, confirmed or stopped',
};

// Errors whose server sentence is not for the page's reader.
const WORDS = {
  mail_off: 'this server sends no mail',
};

// A refusal of a message carrying mail, in words: "refused: SENTENCE (CODE)".
export function refusal(e) {
  return `refused: ${WORDS[e.code] || e.message}${e.code ? ` (${e.code})` : ''}`;
}

// Keep state (an `ok` answer's mail) as what this browser last heard for
// seat of game.
export function rememberMail(game, seat, state) {
  try {
    localStorage.setItem(key(game), JSON.stringify({ seat, state }));
  } catch { /* private mode: kept in the page only */ }
}

// The state this browser last heard for seat of game, or 'unknown'.
function recalled(game, seat) {
  try {
    const m = JSON.parse(localStorage.getItem(key(game)) || 'null');
    if (m && m.seat === seat && Object.prototype.hasOwnProperty.call(STATES, m.state)) return m.state;
  } catch { /* a damaged entry is no state */ }
  return 'unknown';
}

function el(tag, props = {}, ...kids) {
  const e = document.createElement(tag);
  Object.assign(e, props);
  e.append(...kids);
  return e;
}

// Build the panel in root (a hidden <section>, shown here) for seat of
// game on conn (net.js's Conn, joined as that seat: `notify` needs it).
export function mountMail(root, conn, game, seat) {
  const title = el('h2', { id: 'wr-mail-title', textContent: 'Mail' });
  const shown = el('p', { id: 'wr-mail-state', role: 'status' });
  const address = el('input', { id: 'wr-mail-address', name: 'mail', type: 'email', autocomplete: 'email',
    spellcheck: false, placeholder: 'you@example.org' });
  const send = el('button', { type: 'submit', id: 'wr-mail-send', textContent: 'Send my turns by mail' });
  // The server judges the address (bad_address in its words), not the browser.
  const form = el('form', { id: 'wr-mail-form', noValidate: true },
    el('label', {}, 'Your address ', address), ' ', send);
  const code = el('input', { id: 'wr-mail-code', name: 'code', autocomplete: 'one-time-code',
    spellcheck: false, autocapitalize: 'characters' });
  const confirm = el('button', { type: 'submit', id: 'wr-mail-confirm', textContent: 'Confirm' });
  const codeForm = el('form', { id: 'wr-mail-code-form', noValidate: true, hidden: true },
    el('p', {}, 'A code was sent to you; type it here'),
    el('label', {}, 'Code ', code), ' ', confirm);
  const stop = el('button', { type: 'button', id: 'wr-mail-stop', textContent: 'Stop mails' });
  const stopLine = el('p', {}, stop);
  const result = el('p', { id: 'wr-mail-result', className: 'result', role: 'alert' });
  let answered = 0;
  root.setAttribute('aria-labelledby', title.id);
  root.replaceChildren(title,
    el('p', { className: 'note' }, 'Your turns in your mail, with the board; you may answer with your orders.'),
    shown, form, codeForm, stopLine, result);
  root.hidden = false;

  function show(state) {
    root.dataset.state = state;
    shown.replaceChildren(el('strong', {}, 'Mail: '), STATES[state]);
    codeForm.hidden = state !== 'pending';
    stopLine.hidden = state === 'none';
  }

  function say(text, error) {
    result.textContent = text;
    result.classList.toggle('error', !!error);
  }

  // Send notify with extra; show the answer's state, or the refusal (the
  // state shown stays: a refusal changes nothing).
  async function notify(extra, done) {
    for (const b of [send, confirm, stop]) b.disabled = true;
    say('');
    delete result.dataset.code;
    try {
      const a = await conn.request({ type: 'notify', game, ...extra }, 'ok');
      const state = Object.prototype.hasOwnProperty.call(STATES, a.mail) ? a.mail : 'unknown';
      rememberMail(game, seat, state);
      show(state);
      say(done);
      return true;
    } catch (e) {
      result.dataset.code = e.code || '';
      say(refusal(e), true);
      return false;
    } finally {
      for (const b of [send, confirm, stop]) b.disabled = false;
      result.dataset.n = String(++answered);
    }
  }

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const mail = address.value.trim();
    if (mail === '') {
      say('type the address your turns should go to', true);
      address.focus();
      return;
    }
    if (await notify({ mail }, 'A code was sent to that address.')) {
      address.value = '';
      code.value = '';
      code.focus();
    }
  });
  codeForm.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const c = code.value.trim();
    if (c === '') {
      say('type the code of the confirmation mail', true);
      code.focus();
      return;
    }
    if (await notify({ confirm: c }, 'Confirmed.')) code.value = '';
  });
  stop.addEventListener('click', () => notify({ mail: null }, 'No more mails for this seat.'));

  show(recalled(game, seat));
}
