// log.js - the event log: each patch's events in the presentation's words
// (`ask events`: present->event, one line each, as the page's seat sees
// them), in the order they happened. A line is put in place at once with
// the event as JSON and its words fill it when the answer comes, so lines
// keep their order whatever the answers' timing. The raw fields of a roll
// (every event carrying k and face, ruleset.h: the dice of docs/dice.md)
// stay visible beside its words: the roll's index k and its face.

const MAX_EVENTS_PER_ASK = 256;     // docs/protocol.md, ask: events

function raw(e) {
  if (e && typeof e === 'object' && typeof e.type === 'string') {
    const { type, ...rest } = e;
    return Object.keys(rest).length ? `${type} ${JSON.stringify(rest)}` : type;
  }
  return JSON.stringify(e);
}

export class EventLog {
  // ol: the list; ask(events) resolves with one line per event, or
  // rejects (the lines then stay as JSON).
  constructor(ol, ask) {
    this.ol = ol;
    this.ask = ask;
  }

  // The events of the change from version `from` made by seat `by`
  // (null: not a command's).
  add(from, by, events) {
    if (!Array.isArray(events) || events.length === 0) return;
    const items = events.map((e) => {
      const li = document.createElement('li');
      li.dataset.version = String(from);
      if (by) li.dataset.by = by;
      if (e && typeof e === 'object' && typeof e.type === 'string') li.dataset.type = e.type;
      const words = document.createElement('span');
      words.className = 'words';
      words.textContent = raw(e);
      li.append(`v${from}${by ? ` ${by}` : ''}: `, words);
      if (e && Number.isInteger(e.k) && Number.isInteger(e.face)) {
        const r = document.createElement('span');
        r.className = 'roll';
        r.dataset.k = String(e.k);
        r.dataset.face = String(e.face);
        r.textContent = `roll k=${e.k}, face ${e.face}`;
        li.append(' ', r);
      }
      this.ol.append(li);
      return words;
    });
    this.ol.scrollTop = this.ol.scrollHeight;
    for (let i = 0; i < events.length; i += MAX_EVENTS_PER_ASK) {
      const part = events.slice(i, i + MAX_EVENTS_PER_ASK);
      const spans = items.slice(i, i + MAX_EVENTS_PER_ASK);
      this.ask(part).then((lines) => {
        lines.forEach((line, k) => {
          if (spans[k] && typeof line === 'string') {
            spans[k].textContent = line;
            spans[k].parentNode.dataset.worded = '1';
          }
        });
      }).catch(() => { /* the JSON stays */ });
    }
  }
}
