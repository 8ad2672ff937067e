// board.js - the game's picture: the SVG document the ruleset's
// presentation draws (present.h, draw_svg, asked with `ask draw`), shown
// in an element of the page and made playable. Nothing here knows a game:
// it reads only what present.h promises a host: data-word on every element
// an order can name, data-select and data-act on those the player may
// select, data-clear on the root, class "stack" on a stack's mark and a
// <title> on what has a name.
//
// The text is parsed with DOMParser (image/svg+xml) and imported, never
// set as HTML. The page's CSP (server/web.c) allows no inline style, so
// the document's <style> elements become one constructed style sheet
// scoped to the board (its rules prefixed with the board's class), and
// style attributes are applied through the CSSOM; scripts, event handler
// attributes and foreign objects are dropped.
//
// Zoom and pan change the SVG's viewBox: the wheel and the +/- buttons or
// keys zoom, a drag or the arrow keys pan, 0 or "fit" shows it whole. The
// view is kept across redraws of a picture of the same size.

const SVG_NS = 'http://www.w3.org/2000/svg';
const ZOOM_STEP = 1.25;
const DRAG_PX = 4;              // a pointer moved further than this drags

// The board's <style> rules, scoped: every selector under scope.
function scopedSheet(cssText, scope) {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(cssText);
  const walk = (rules) => {
    for (const r of rules) {
      if (r instanceof CSSStyleRule) {
        r.selectorText = r.selectorText.split(',').map((s) => `${scope} ${s.trim()}`).join(', ');
      } else if (r.cssRules) {
        walk(r.cssRules);
      }
    }
  };
  walk(sheet.cssRules);
  return sheet;
}

// The parsed document's root <svg>, made safe to import: returns
// { svg, css }, css the text of its <style> elements (taken out). A
// document DOMParser makes keeps the page's CSP, under which a <style>
// element or a style attribute, even parsed there, is a violation: so
// before parsing, each <style> element is renamed <wr-style> (in XML a
// "<" in text is always escaped, so every "<style" is a tag) and each
// style attribute of a tag becomes data-wr-style, applied through the
// CSSOM once imported (show()).
function parse(text) {
  const renamed = text.replace(/<(\/?)style\b/g, '<$1wr-style')
    .replace(/<[^<>]*>/g, (tag) => tag.replace(/(\s)style=/g, '$1data-wr-style='));
  const doc = new DOMParser().parseFromString(renamed, 'image/svg+xml');
  const svg = doc.documentElement;
  if (!svg || svg.namespaceURI !== SVG_NS || svg.localName !== 'svg' ||
      doc.getElementsByTagName('parsererror').length) {
    throw new Error('the server sent a picture that is not an SVG document');
  }
  let css = '';
  for (const s of [...svg.getElementsByTagNameNS(SVG_NS, 'wr-style')]) {
    css += `${s.textContent}\n`;
    s.remove();
  }
  for (const s of [...svg.querySelectorAll('script, foreignObject')]) s.remove();
  for (const el of [svg, ...svg.querySelectorAll('*')]) {
    for (const a of [...el.attributes]) {
      const n = a.name.toLowerCase();
      if (n.startsWith('on')) el.removeAttribute(a.name);
      else if ((n === 'href' || n === 'xlink:href') && !a.value.startsWith('#')) el.removeAttribute(a.name);
    }
  }
  return { svg, css };
}

function centre(r) { return { x: r.left + r.width / 2, y: r.top + r.height / 2 }; }

export class Board {
  // el: the element the picture goes in (focusable: keys act when it has
  // the focus); hover: the line that shows what the pointer is over.
  // on.word(el): an element with data-word was clicked; on.stack(stackEl,
  // unitEls): a stack's mark was clicked.
  constructor(el, hover, on) {
    this.el = el;
    this.hover = hover;
    this.on = on;
    this.svg = null;
    this.base = null;           // the picture's own viewBox
    this.view = null;           // the one shown
    this.sheet = null;
    this.version = -1;
    this.drag = null;
    this.dragged = false;
    this.scope = `.${el.classList[0] || 'wr-board'}`;
    el.addEventListener('wheel', (e) => this.wheel(e), { passive: false });
    el.addEventListener('pointerdown', (e) => this.down(e));
    el.addEventListener('pointermove', (e) => this.move(e));
    el.addEventListener('pointerup', (e) => this.up(e));
    el.addEventListener('pointercancel', () => { this.drag = null; });
    el.addEventListener('pointerleave', () => { this.hover.textContent = ''; });
    el.addEventListener('click', (e) => this.click(e));
    el.addEventListener('keydown', (e) => this.key(e));
  }

  // Show the document text, drawn at the game's version.
  show(text, version) {
    const { svg, css } = parse(text);
    const node = document.importNode(svg, true);
    for (const el of [node, ...node.querySelectorAll('[data-wr-style]')]) {
      if (!el.hasAttribute('data-wr-style')) continue;
      el.style.cssText = el.getAttribute('data-wr-style');
      el.removeAttribute('data-wr-style');
    }
    const sheet = scopedSheet(css, this.scope);
    document.adoptedStyleSheets = [...document.adoptedStyleSheets.filter((s) => s !== this.sheet), sheet];
    this.sheet = sheet;

    const vb = node.viewBox && node.viewBox.baseVal && node.viewBox.baseVal.width
      ? node.viewBox.baseVal
      : { x: 0, y: 0, width: Number(node.getAttribute('width')) || 100, height: Number(node.getAttribute('height')) || 100 };
    const base = { x: vb.x, y: vb.y, w: vb.width, h: vb.height };
    const same = this.base && this.base.x === base.x && this.base.y === base.y &&
      this.base.w === base.w && this.base.h === base.h;
    this.base = base;
    if (!same || !this.view) this.view = { ...base };
    node.removeAttribute('width');
    node.removeAttribute('height');
    node.setAttribute('preserveAspectRatio', 'xMidYMid meet');
    node.setAttribute('role', 'img');
    this.svg = node;
    this.apply();
    this.el.replaceChildren(node);
    this.version = version;
    this.el.dataset.version = String(version);
  }

  apply() {
    if (!this.svg) return;
    const v = this.view;
    this.svg.setAttribute('viewBox', `${v.x} ${v.y} ${v.w} ${v.h}`);
    this.el.dataset.zoom = (this.base.w / v.w).toFixed(3);
  }

  // The root's data-clear (the query that removes the marks), or null.
  clearLine() { return this.svg ? this.svg.getAttribute('data-clear') : null; }

  // The elements naming word (data-word), units and squares alike.
  elementsOf(word) {
    if (!this.svg) return [];
    return [...this.svg.querySelectorAll('[data-word]')].filter((e) => e.getAttribute('data-word') === word);
  }

  // Mark the elements naming word as selected (null: none).
  select(word) {
    if (!this.svg) return;
    for (const e of this.svg.querySelectorAll('.wr-selected')) e.classList.remove('wr-selected');
    if (word) for (const e of this.elementsOf(word)) e.classList.add('wr-selected');
  }

  zoom(f, at) {
    if (!this.view) return;
    const v = this.view;
    const w = Math.min(this.base.w * 1.5, Math.max(this.base.w / 40, v.w / f));
    const h = v.h * (w / v.w);
    const p = at || { x: v.x + v.w / 2, y: v.y + v.h / 2 };
    this.view = { x: p.x - (p.x - v.x) * (w / v.w), y: p.y - (p.y - v.y) * (h / v.h), w, h };
    this.apply();
  }

  // Pan by a fraction of the view (dx, dy in views).
  pan(dx, dy) {
    if (!this.view) return;
    this.view.x += dx * this.view.w;
    this.view.y += dy * this.view.h;
    this.apply();
  }

  fit() {
    if (!this.base) return;
    this.view = { ...this.base };
    this.apply();
  }

  // The client point (x, y) in the picture's coordinates.
  toPicture(x, y) {
    const m = this.svg && this.svg.getScreenCTM();
    if (!m) return null;
    const p = new DOMPoint(x, y).matrixTransform(m.inverse());
    return { x: p.x, y: p.y };
  }

  wheel(e) {
    if (!this.svg) return;
    e.preventDefault();
    this.zoom(e.deltaY < 0 ? ZOOM_STEP : 1 / ZOOM_STEP, this.toPicture(e.clientX, e.clientY));
  }

  down(e) {
    if (!this.svg || e.button !== 0) return;
    this.el.focus({ preventScroll: true });
    this.drag = { x: e.clientX, y: e.clientY, view: { ...this.view }, id: e.pointerId, moving: false };
    this.dragged = false;
  }

  move(e) {
    if (this.drag && e.pointerId === this.drag.id) {
      const dx = e.clientX - this.drag.x, dy = e.clientY - this.drag.y;
      if (!this.drag.moving && Math.hypot(dx, dy) > DRAG_PX) {
        this.drag.moving = true;
        this.el.setPointerCapture(e.pointerId);
        this.el.classList.add('dragging');
      }
      if (this.drag.moving) {
        const m = this.svg.getScreenCTM();
        const s = m ? m.a : 1;
        this.view = { ...this.drag.view, x: this.drag.view.x - dx / s, y: this.drag.view.y - dy / s };
        this.apply();
        return;
      }
    }
    this.hover.textContent = this.describe(e.clientX, e.clientY);
  }

  up(e) {
    if (this.drag && this.drag.moving) {
      this.dragged = true;
      this.el.releasePointerCapture(e.pointerId);
      this.el.classList.remove('dragging');
    }
    this.drag = null;
  }

  // What the pointer at (x, y) is over, in the picture's words: the
  // <title> of the topmost element there having one (the root's
  // excepted), or of its nearest ancestor having one, and its word.
  describe(x, y) {
    for (const hit of document.elementsFromPoint(x, y)) {
      if (!this.svg || !this.svg.contains(hit) || hit === this.svg) continue;
      for (let el = hit; el && el !== this.svg; el = el.parentNode) {
        const t = [...el.children].find((c) => c.localName === 'title');
        const word = el.getAttribute('data-word');
        if (t || word) {
          const text = t ? t.textContent.trim() : '';
          return word && !text.includes(word) ? `${text}${text ? ' ' : ''}[${word}]` : text;
        }
      }
    }
    return '';
  }

  // What a click at the client point (x, y) names: the topmost stack
  // mark or element naming a word there, looking through what names
  // nothing (a road, a label, a mark drawn over a square).
  hitAt(x, y) {
    for (const el of document.elementsFromPoint(x, y)) {
      if (!this.svg.contains(el)) continue;
      const stack = el.closest('.stack');
      if (stack && this.svg.contains(stack)) return { stack };
      const word = el.closest('[data-word]');
      if (word && this.svg.contains(word)) return { word };
    }
    return {};
  }

  click(e) {
    if (this.dragged) { this.dragged = false; return; }
    if (!this.svg) return;
    const hit = this.hitAt(e.clientX, e.clientY);
    if (hit.stack) this.on.stack(hit.stack, this.unitsOf(hit.stack));
    else if (hit.word) this.on.word(hit.word);
  }

  // The units a stack's mark stands for: its own descendants naming a
  // word when it has any; else the named elements drawn on the square
  // (a named element under them) that holds the named element nearest
  // to the mark; else those overlapping the mark.
  unitsOf(stack) {
    const inner = [...stack.querySelectorAll('[data-word]')];
    if (inner.length) return inner;
    const named = [...this.svg.querySelectorAll('[data-word]')].filter((e) => e.localName === 'g');
    if (!named.length) return [];
    const c = centre(stack.getBoundingClientRect());
    let best = null, dist = Infinity;
    for (const u of named) {
      const p = centre(u.getBoundingClientRect());
      const d = Math.hypot(p.x - c.x, p.y - c.y);
      if (d < dist) { dist = d; best = u; }
    }
    const p = centre(best.getBoundingClientRect());
    const square = document.elementsFromPoint(p.x, p.y).find((e) => e.hasAttribute('data-word') &&
      e.closest('g[data-word]') === null && this.svg.contains(e) && typeof e.isPointInFill === 'function');
    if (square) {
      const inv = square.getScreenCTM().inverse();
      return named.filter((u) => {
        const q = centre(u.getBoundingClientRect());
        return square.isPointInFill(new DOMPoint(q.x, q.y).matrixTransform(inv));
      });
    }
    const r = best.getBoundingClientRect();
    return named.filter((u) => {
      const q = u.getBoundingClientRect();
      return q.left < r.right && q.right > r.left && q.top < r.bottom && q.bottom > r.top;
    });
  }

  key(e) {
    const pans = { ArrowLeft: [-0.1, 0], ArrowRight: [0.1, 0], ArrowUp: [0, -0.1], ArrowDown: [0, 0.1] };
    if (pans[e.key]) this.pan(...pans[e.key]);
    else if (e.key === '+' || e.key === '=') this.zoom(ZOOM_STEP);
    else if (e.key === '-' || e.key === '_') this.zoom(1 / ZOOM_STEP);
    else if (e.key === '0') this.fit();
    else return;
    e.preventDefault();
  }
}
