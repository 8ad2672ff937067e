// create.js - the lobby's "new game" form, made from the server's
// `rulesets` answer (docs/protocol.md, rulesets): every ruleset it holds,
// its scenarios, seats and options with their help, and the server's own
// options (spectators, open seats, deadline). Nothing here knows a game by
// name. A ruleset option's value is read as JSON when it is JSON, else as
// text, as `warroom new --option` reads it; an empty one is left out.
//
// The form sends `create`; the creator's token is kept in this browser for
// that game (seat.js storeSeat, as the invite page does), the invite links
// are shown (full URLs of /invite/CODE, each with a copy button), and
// "Open the game" goes to its page, which joins with the token.
//
// "Mail for your turns" (optional) puts `mail` into `create`: the server
// mails the address a confirmation code, so the game page's Mail panel
// (mail.js) is told the seat's address is pending, and asks for the code.
import { storeSeat } from './seat.js';
import { rememberMail, refusal } from './mail.js';

function el(tag, props = {}, ...kids) {
  const e = document.createElement(tag);
  Object.assign(e, props);
  e.append(...kids);
  return e;
}

// "2" -> 2, "[[\"p1\",\"p2\"]]" -> the list, "know" -> "know".
function optionValue(text) {
  try { return JSON.parse(text); } catch { return text; }
}

async function copy(text, button) {
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = 'copied';
  } catch {
    button.textContent = 'select and copy it';
  }
}

function inviteList(game, invites) {
  const ul = el('ul', { id: 'invites' });
  for (const [seat, code] of Object.entries(invites)) {
    const url = new URL(`/invite/${encodeURIComponent(code)}`, location.href).href;
    const b = el('button', { type: 'button', className: 'copy', textContent: 'copy' });
    b.addEventListener('click', () => copy(url, b));
    const li = el('li', {}, `${seat}: `, el('a', { href: url, className: 'invite', textContent: url }), ' ', b);
    li.dataset.seat = seat;
    ul.append(li);
  }
  return ul;
}

// Build the form in root for the connection conn (open, said hello).
export async function mountCreate(root, conn) {
  const answer = await conn.request({ type: 'rulesets' }, 'rulesets');
  const rulesets = answer.rulesets || [];
  const form = el('form', { id: 'create-form' });
  const pick = el('select', { id: 'create-ruleset', name: 'ruleset' });
  for (const r of rulesets) pick.append(el('option', { value: r.name, textContent: r.name, title: r.summary }));
  const summary = el('p', { id: 'create-summary', className: 'note' });
  const scenario = el('select', { id: 'create-scenario', name: 'scenario' });
  const seat = el('input', { id: 'create-seat', name: 'seat', autocomplete: 'off' });
  const seats = el('datalist', { id: 'create-seats' });
  seat.setAttribute('list', 'create-seats');
  const own = el('fieldset', { id: 'create-options' });
  const server = el('fieldset', { id: 'create-server-options' }, el('legend', {}, 'Every game'));
  for (const o of answer.options || []) {
    const input = typeof o.default === 'boolean'
      ? el('input', { type: 'checkbox', checked: o.default })
      : el('input', { type: 'number', min: 0, value: String(o.default) });
    input.name = `server-${o.name}`;
    input.dataset.option = o.name;
    server.append(el('label', { title: o.help }, input, ` ${o.name} `, el('small', {}, o.help)), el('br'));
  }
  const webhook = el('input', { id: 'create-webhook', name: 'webhook', type: 'url', placeholder: 'http://… (optional)' });
  const mail = el('input', { id: 'create-mail', name: 'mail', type: 'email', autocomplete: 'email',
    spellcheck: false, placeholder: 'you@example.org (optional)' });
  const submit = el('button', { type: 'submit', id: 'create-submit', textContent: 'Create the game' });
  const out = el('div', { id: 'created', role: 'status' });
  form.append(
    el('label', {}, 'Ruleset ', pick), summary,
    el('label', {}, 'Scenario ', scenario), ' ',
    el('label', {}, 'Your seat ', seat, seats),
    own, server,
    el('label', {}, 'Webhook for your turns ', webhook), ' ',
    el('label', {}, 'Mail for your turns ', mail), ' ',
    submit);
  root.append(el('h2', {}, 'New game'), form, out);

  function chosen() { return rulesets.find((r) => r.name === pick.value); }

  // The scenarios, seats and options of the ruleset picked.
  function fill() {
    const r = chosen();
    if (!r) return;
    summary.textContent = r.summary;
    scenario.replaceChildren();
    if (!r.needs_scenario) scenario.append(el('option', { value: '', textContent: '(none)' }));
    for (const s of r.scenarios) {
      scenario.append(el('option', { value: s.name, textContent: `${s.name}: ${s.title}`, title: s.description,
        selected: s.name === r.default_scenario }));
    }
    seats.replaceChildren(...r.seats.map((s) => el('option', { value: s })));
    seat.value = r.seats[0] || '';
    own.replaceChildren(el('legend', {}, r.options.length ? `Options of ${r.name}` : `${r.name} has no options of its own`));
    for (const o of r.options) {
      const input = el('input', { name: `option-${o.name}`, placeholder: 'default', title: o.help, autocomplete: 'off' });
      input.dataset.option = o.name;
      const label = el('label', {}, `${o.name} `, input, ' ', el('small', {}, o.help));
      label.dataset.option = o.name;
      own.append(label, el('br'));
    }
  }
  pick.addEventListener('change', fill);
  fill();

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const r = chosen();
    const options = {};
    for (const input of server.querySelectorAll('input')) {
      options[input.dataset.option] = input.type === 'checkbox' ? input.checked : Number(input.value);
    }
    for (const input of own.querySelectorAll('input')) {
      if (input.value.trim() !== '') options[input.dataset.option] = optionValue(input.value.trim());
    }
    const msg = { type: 'create', ruleset: r.name, options };
    if (scenario.value) msg.scenario = scenario.value;
    if (seat.value) msg.seat = seat.value;
    if (webhook.value) msg.webhook = webhook.value;
    if (mail.value.trim()) msg.mail = mail.value.trim();
    submit.disabled = true;
    out.classList.remove('error');
    out.textContent = 'creating…';
    try {
      const c = await conn.request(msg, 'created');
      storeSeat(c.game, c.seat, c.token);
      if (msg.mail) rememberMail(c.game, c.seat, 'pending');
      const open = el('a', { id: 'open-game', href: `/game/${encodeURIComponent(c.game)}`, textContent: 'Open the game' });
      const invites = Object.keys(c.invites || {}).length;
      out.replaceChildren(
        el('p', {}, `Game ${c.game} created: you hold its ${c.seat} seat (your token is kept in this browser). `, open),
        ...(msg.mail ? [el('p', { id: 'created-mail' }, 'A code was mailed to the address you gave: type it in the game page\'s Mail panel, and your turns will go there.')] : []),
        el('p', {}, invites ? 'Send each invite link to the player who should take that seat; each works once:'
          : 'It has no other seat to invite.'),
        inviteList(c.game, c.invites || {}));
      out.dataset.game = c.game;
    } catch (e) {
      out.classList.add('error');
      out.textContent = refusal(e);
    } finally {
      submit.disabled = false;
    }
  });
  return { rulesets };
}
