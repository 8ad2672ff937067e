// play.js - playing a game from the page, for every ruleset: the decision
// panel (`ask describe`), the orders panel (`ask orders`), the board
// (board.js, `ask draw`) and the order line. Everything a game means comes
// from the server's answers, which the ruleset's presentation gives
// (common/core/present.h, through `ask`: docs/protocol.md): nothing here
// names a ruleset, a unit or an order.
//
// The order line: a click on an element naming a word, with the line
// empty and the element offering data-select or data-act, asks the select
// query (its answer shown, the board redrawn with its marks) and starts
// the line with data-act; any other click appends the word. An order with
// a preview (the ruleset's query taking the same words) has it asked
// whenever the line changes, shown before it is sent. Sending (Enter or
// Send) asks `order`: a query's answer is shown; a command is sent with
// `command`, the server's verdict final. A refusal is shown in the words
// the terminal client prints for the same line (client-cli/oneshot.c:
// "refused (checked here, not sent): CODE: MESSAGE", "refused by the
// server: CODE: MESSAGE"). Escape clears the line and asks data-clear.

import { nextSeq } from './seat.js';

export class Play {
  // conn: net.js's Conn, joined; game: its id; seat: the seat this page
  // holds, or null (watching); board: board.js's Board; els: the panel's
  // elements (describe, orders, line, send, clear, preview, answer,
  // result, stack).
  constructor(conn, game, seat, board, els) {
    this.conn = conn;
    this.game = game;
    this.seat = seat;
    this.board = board;
    this.els = els;
    this.orders = new Map();
    this.drawing = false;
    this.dirty = false;
    this.previewBusy = false;
    this.previewWanted = null;
    this.sending = false;
    this.sent = 0;              // lines sent: the result's data-n
    this.selected = null;
    els.line.addEventListener('input', () => this.lineChanged());
    els.line.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') { e.preventDefault(); this.send(); }
    });
    els.send.addEventListener('click', () => this.send());
    els.clear.addEventListener('click', () => this.escape());
  }

  ask(what, extra) {
    return this.conn.request({ type: 'ask', game: this.game, what, ...extra }, 'answer');
  }

  // The orders table, once: a button per order starting the line.
  async loadOrders() {
    const a = await this.ask('orders');
    const ul = this.els.orders;
    ul.replaceChildren();
    for (const o of a.orders || []) {
      this.orders.set(o.name, o);
      const li = document.createElement('li');
      const b = document.createElement('button');
      b.type = 'button';
      b.dataset.order = o.name;
      b.textContent = o.name;
      b.title = `${o.help}\ne.g. ${o.example}`;
      b.addEventListener('click', () => {
        this.setLine(`${o.name} `);
        this.els.line.focus();
      });
      const syn = document.createElement('code');
      syn.textContent = o.synopsis;
      li.append(b, ' ', syn);
      if (o.query) {
        const q = document.createElement('span');
        q.className = 'note';
        q.textContent = ' (answered by the server, nothing is played)';
        li.append(q);
      }
      ul.append(li);
    }
  }

  // "help" and "help ORDER", answered here from the orders table as the
  // terminal client answers them (synopsis, what it does, an example).
  help(name) {
    const one = (o) => `${o.synopsis}${o.query ? '  (answered by the server, nothing is played)' : ''}\n    ${o.help}\n    e.g. ${o.example}\n`;
    if (name) {
      const o = this.orders.get(name);
      return o ? one(o) : `no order '${name}'; the orders: ${[...this.orders.keys()].join(', ')}`;
    }
    return [...this.orders.values()].map(one).join('');
  }

  // Draw and describe the game as it stands: one draw in flight at a
  // time; asked again while one is, it draws once more when it ends.
  async refresh() {
    if (this.drawing) { this.dirty = true; return; }
    this.drawing = true;
    try {
      do {
        this.dirty = false;
        const [d, t] = await Promise.all([this.ask('draw'), this.ask('describe')]);
        this.board.show(d.svg, d.version);
        this.board.select(this.selected);
        this.els.describe.textContent = t.text;
        this.els.describe.dataset.version = String(d.version);
      } while (this.dirty);
    } catch (e) {
      this.say(this.els.result, `the board could not be drawn: ${e.message}`, true);
    } finally {
      this.drawing = false;
    }
  }

  say(el, text, error) {
    el.textContent = text;
    el.classList.toggle('error', !!error);
  }

  setLine(text) {
    this.els.line.value = text;
    this.lineChanged();
  }

  // A click on an element naming a word (board.js, or the stack's list).
  async word(el) {
    const word = el.getAttribute('data-word');
    const select = el.getAttribute('data-select');
    const act = el.getAttribute('data-act');
    const line = this.els.line.value.trim();
    if (line === '' && (select || act)) {
      this.selected = word;
      this.board.select(word);
      if (act) this.setLine(`${act} `);
      if (select) await this.query(select);
      return;
    }
    this.setLine(`${line}${line ? ' ' : ''}${word} `);
  }

  // A stack's units, listed under the board: each as a button doing what
  // a click on it does.
  stack(stackEl, units) {
    const box = this.els.stack;
    const ul = box.querySelector('ul');
    ul.replaceChildren();
    for (const u of units) {
      const li = document.createElement('li');
      const b = document.createElement('button');
      b.type = 'button';
      b.dataset.word = u.getAttribute('data-word');
      const t = [...u.children].find((c) => c.localName === 'title');
      b.textContent = t ? t.textContent.trim() : b.dataset.word;
      const word = b.dataset.word;
      b.addEventListener('click', () => {
        // the unit as drawn now (the board may have been redrawn)
        const now = this.board.elementsOf(word).find((e) => e.localName === u.localName) || u;
        this.word(now);
      });
      const w = document.createElement('code');
      w.textContent = word;
      li.append(b, ' ', w);
      ul.append(li);
    }
    const t = [...stackEl.children].find((c) => c.localName === 'title');
    box.querySelector('h3').textContent = t ? t.textContent.trim() : `${units.length} units`;
    box.hidden = false;
  }

  // A query line asked and its answer shown; the board redrawn (a query
  // may mark it).
  async query(line) {
    try {
      const a = await this.ask('order', { line });
      if (a.kind === 'answer') {
        this.say(this.els.answer, a.text);
        this.els.answer.dataset.line = line;
        this.refresh();
      }
    } catch (e) {
      this.say(this.els.answer, `${e.code}: ${e.message}`, true);
    }
  }

  // The line changed: its order's preview asked with the same words.
  lineChanged() {
    const words = this.els.line.value.trim().split(/\s+/).filter(Boolean);
    const o = words.length > 1 ? this.orders.get(words[0]) : null;
    if (!o || !o.preview) {
      this.previewWanted = null;
      this.els.preview.textContent = '';
      delete this.els.preview.dataset.line;
      this.els.preview.hidden = true;
      return;
    }
    this.previewWanted = [o.preview, ...words.slice(1)].join(' ');
    this.preview();
  }

  async preview() {
    if (this.previewBusy) return;
    this.previewBusy = true;
    try {
      while (this.previewWanted !== null && this.previewWanted !== this.els.preview.dataset.line) {
        const line = this.previewWanted;
        let text, error = false;
        try {
          const a = await this.ask('order', { line });
          text = a.kind === 'answer' ? a.text : '';
        } catch (e) {
          text = `${e.code}: ${e.message}`;
          error = true;
        }
        if (this.previewWanted === null) break;
        this.say(this.els.preview, text, error);
        this.els.preview.dataset.line = line;
        this.els.preview.hidden = false;
      }
    } finally {
      this.previewBusy = false;
    }
  }

  // Enter or Send: the line as an order.
  async send() {
    const line = this.els.line.value.trim();
    if (line === '' || this.sending) return;
    this.sending = true;
    this.say(this.els.result, '');
    delete this.els.result.dataset.outcome;
    try {
      const help = /^help(?:\s+(\S+))?$/.exec(line);
      if (help) {
        this.say(this.els.answer, this.help(help[1]));
        this.els.result.dataset.outcome = 'answered';
        this.els.result.dataset.line = line;
        this.setLine('');
        return;
      }
      let a;
      try {
        a = await this.ask('order', { line });
      } catch (e) {
        this.refused(`refused (checked here, not sent): ${e.code}: ${e.message}`, line);
        return;
      }
      if (a.kind === 'answer') {
        this.say(this.els.answer, a.text);
        this.els.answer.dataset.line = line;
        this.els.result.dataset.outcome = 'answered';
        this.els.result.dataset.line = line;
        this.setLine('');
        this.refresh();
        return;
      }
      if (!this.seat) {
        this.refused('refused: you are watching this game: you hold no seat in it', line);
        return;
      }
      let ack;
      try {
        ack = await this.conn.request({ type: 'command', game: this.game, seq: nextSeq(this.game), cmd: a.command }, 'ack');
      } catch (e) {
        this.refused(`refused by the server: ${e.code}: ${e.message}`, line);
        return;
      }
      this.say(this.els.result, `accepted: the game is at version ${ack.version}`);
      this.els.result.dataset.outcome = 'accepted';
      this.els.result.dataset.version = String(ack.version);
      this.els.result.dataset.line = line;
      this.els.stack.hidden = true;
      if (this.selected !== null) await this.unmark();
      this.setLine('');
    } finally {
      this.sending = false;
      this.els.result.dataset.n = String(++this.sent);
    }
  }

  refused(text, line) {
    this.say(this.els.result, text, true);
    this.els.result.dataset.outcome = 'refused';
    this.els.result.dataset.line = line;
  }

  // Escape: the line cleared, the selection and the marks gone.
  async escape() {
    this.setLine('');
    this.els.stack.hidden = true;
    await this.unmark();
  }

  // The selection and the marks a query made gone: the root's data-clear
  // asked, the board redrawn.
  async unmark() {
    this.selected = null;
    this.board.select(null);
    const clear = this.board.clearLine();
    if (!clear) return;
    try {
      await this.ask('order', { line: clear });
      this.say(this.els.answer, '');
      delete this.els.answer.dataset.line;
    } catch { /* nothing was marked */ }
    this.refresh();
  }
}
