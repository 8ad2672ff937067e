// waterloo_play.test.mjs - a seat played from the game page, by clicks and
// keys only (ctest browser_waterloo_play).
//
// A real warroomd (ephemeral ports). The allied player creates a Waterloo
// game (test/small) with the terminal client and sends the French seat's
// invite link; the page opens /invite/CODE, claims, and lands on /game/G
// with no token and no code in its address (the token is in the
// browser's storage). From then on the French seat is played from the page
// only: clicks on the board, the orders panel and keys in the order line
// (the test reads the DOM, and the server's state through the client,
// but never sends a message from the page's script). It checks:
//  - the tab title is marked while the page's seat is awaited;
//  - a unit selected on the board: reach marks appear (on the squares the
//    unit may reach) and the line starts its move; Escape clears both;
//    two clicked squares complete the path; Enter sends it, the server's
//    state has the unit on the last square, the page draws it there and
//    its marks are gone;
//  - a refused order shows exactly the line the terminal client prints
//    for it (the same check of the same rules, one formatter), and so
//    does "help ORDER";
//  - a battle declared from the page (a click on the attacker, "vs"
//    typed, a click on the defender) shows its odds before it is sent,
//    exactly as the client's `odds` query gives them for the same units;
//  - a battle resolved from the page: its die in the event log with its
//    index k and face, as the server's state records them;
//  - a retreat chosen from the page: the unit clicked, the two squares of
//    an open route clicked (the route read from the decision panel), and
//    the server's state has it there.
// Dice are random: the game is driven on (the allied side by the client,
// the French by the page, each choosing among candidate orders with the
// rules' own checks, bounded) until a battle leaves the French a retreat
// to choose; a game that ends first is replaced by a new one, at most
// eight; every loop is bounded and fails with what it was waiting for.
//
//   node waterloo_play.test.mjs BUILD_DIR
import assert from 'node:assert/strict';
import { tempDir, startServer, cliRun, launch, watchedPage, bound, failed, tidy } from './support.mjs';
import { parseSquare, neighbours, distance, drawnUnits } from './waterloo_support.mjs';

const build = process.argv[2];
assert.ok(build, 'usage: node waterloo_play.test.mjs BUILD_DIR');
const dir = tempDir();
const deadline = bound('browser_waterloo_play', 400000);
const GAMES = 8, STEPS = 80, TRIES = 40;

let server, browser;
const isFrench = (id) => id.startsWith('fr-');

try {
  server = await startServer(build, dir);
  const run = (...args) => cliRun(build, dir, 'allied', server.ws, ...args);
  browser = await launch(dir, { viewport: { width: 1400, height: 1000 } });
  const problems = [];
  const page = await watchedPage(browser, problems);
  const web = `http://127.0.0.1:${server.web}`;
  let game = null;

  const status = () => {
    const r = run('--json', 'status', game);
    assert.equal(r.code, 0, `status: ${r.out}${r.err}`);
    return JSON.parse(r.out.trim().split('\n')[0]);
  };
  // The page shows version v (and has drawn it).
  const caughtUp = (v) => page.waitForFunction((want) => document.getElementById('version').textContent === String(want) &&
    document.getElementById('wr-board').dataset.version === String(want) &&
    document.getElementById('wr-describe').dataset.version === String(want), v, { timeout: 15000 });
  const line = () => page.locator('#wr-line').inputValue();

  // Keys: the line typed into the order line and Enter; the outcome shown.
  async function send(text) {
    const n = Number(await page.locator('#wr-result').getAttribute('data-n') || 0);
    await page.locator('#wr-line').click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Backspace');
    await page.keyboard.type(text);
    await page.keyboard.press('Enter');
    return enter(n);
  }
  // The outcome of the send after the n-th.
  async function enter(n) {
    await page.waitForFunction((k) => Number(document.getElementById('wr-result').dataset.n || 0) > k, n, { timeout: 15000 });
    const r = page.locator('#wr-result');
    return { outcome: await r.getAttribute('data-outcome'), text: await r.textContent(), line: await r.getAttribute('data-line') };
  }

  // Zoom in with keys, then pan with the arrow keys until the element the
  // selector names is well inside the board.
  async function bringIntoView(selector) {
    const board = page.locator('#wr-board');
    await board.focus();
    for (let i = 0; i < 10 && Number(await board.getAttribute('data-zoom')) < 1.9; i++) await page.keyboard.press('+');
    for (let i = 0; i < 80; i++) {
      const b = await board.boundingBox();
      const el = page.locator(`#wr-board ${selector}`).first();
      await el.waitFor({ state: 'attached', timeout: 10000 });   // a redraw may be replacing the board
      const t = await el.boundingBox();
      assert.ok(t, `${selector} is drawn`);
      const cx = t.x + t.width / 2, cy = t.y + t.height / 2, m = 60;
      const key = cx < b.x + m ? 'ArrowLeft' : cx > b.x + b.width - m ? 'ArrowRight'
        : cy < b.y + m ? 'ArrowUp' : cy > b.y + b.height - m ? 'ArrowDown' : null;
      if (!key) return;
      await page.keyboard.press(key);
    }
    assert.fail(`${selector} could not be brought into view with the arrow keys`);
  }

  // A point of the element naming word where a click names it (what
  // board.js's click finds first there), read from the DOM; null if none.
  function pointOf(word, unit) {
    return page.evaluate(({ w, unit }) => {
      const svg = document.querySelector('#wr-board svg');
      const el = [...svg.querySelectorAll('[data-word]')].find((e) => e.getAttribute('data-word') === w &&
        (unit ? e.localName === 'g' : typeof e.isPointInFill === 'function'));
      if (!el) return null;
      const b = el.getBBox();
      const m = el.getScreenCTM();
      const offsets = [[0, 0.35], [0, 0], [-0.3, 0], [0.3, 0], [0, -0.35], [-0.35, 0.35], [0.35, -0.35], [-0.4, 0.4]];
      for (const [fx, fy] of offsets) {
        const p = new DOMPoint(b.x + b.width * (0.5 + fx), b.y + b.height * (0.5 + fy)).matrixTransform(m);
        for (const hit of document.elementsFromPoint(p.x, p.y)) {
          if (!svg.contains(hit)) continue;
          const s = hit.closest('.stack');
          const n = hit.closest('[data-word]');
          if (!s && !n) continue;
          if (!s && n === el) return { x: p.x, y: p.y };
          break;
        }
      }
      return null;
    }, { w: word, unit });
  }

  // Clicks: a unit (through its stack's list when another counter covers
  // it), a square.
  async function clickUnit(word) {
    await bringIntoView(`g[data-word="${word}"]`);
    const p = await pointOf(word, true);
    if (p) { await page.mouse.click(p.x, p.y); return; }
    const st = status();
    const sq = st.state.units[word].at;
    await bringIntoView(`.stack[id="st-${sq}"]`);
    const s = await page.locator(`#wr-board .stack[id="st-${sq}"]`).boundingBox();
    await page.mouse.click(s.x + s.width / 2, s.y + s.height / 2);
    await page.locator(`#wr-stack:not([hidden]) button[data-word="${word}"]`).click();
  }
  async function clickSquare(sq) {
    await bringIntoView(`path[data-word="${sq}"]`);
    const p = await pointOf(sq, false);
    assert.ok(p, `a point of ${sq} where a click names it`);
    await page.mouse.click(p.x, p.y);
  }

  // The French seat's invite, claimed by the page.
  async function newGame() {
    const r = run('--json', 'new', '--ruleset', 'waterloo', '--scenario', 'test/small', '--seat', 'allied');
    assert.equal(r.code, 0, r.out + r.err);
    const created = JSON.parse(r.out.trim().split('\n')[0]);
    game = created.game;
    await page.goto(`${web}/invite/${created.invites.french}`);
    await page.waitForURL(`${web}/game/${game}`, { timeout: 15000 });
    assert.equal(page.url(), `${web}/game/${game}`, 'the game page, no token and no invite in its address');
    const held = await page.evaluate((g) => JSON.parse(localStorage.getItem(`warroom.token.${g}`)), game);
    assert.equal(held.seat, 'french');
    assert.match(held.token, /^[0-9a-f]{64}$/);
    assert.ok(!page.url().includes(held.token) && !page.url().includes(created.invites.french));
    await page.locator('#wr-seat', { hasText: 'you hold the french seat' }).waitFor({ timeout: 15000 });
    const st = status();
    assert.equal(st.status, 'running');
    await caughtUp(st.version);
    await page.waitForFunction(() => document.title.startsWith('(your move)'), null, { timeout: 5000 });
    await page.locator('#wr-orders li').first().waitFor({ state: 'attached', timeout: 10000 });
    return st;
  }

  // --- candidate orders, from the state (the rules' checks decide) --------

  const mine = (seat, id) => (seat === 'french') === isFrench(id);
  const onBoard = (st) => Object.entries(st.state.units).filter(([, u]) => parseSquare(u.at));
  function enemiesNext(st, seat, sq) {
    const n = new Set(neighbours(sq));
    return onBoard(st).filter(([id, u]) => !mine(seat, id) && n.has(u.at)).map(([id]) => id);
  }
  function candidates(st, seat) {
    const s = st.state, what = s.awaiting.what;
    const units = onBoard(st);
    if (what === 'setup') return ['endsetup'];
    if (what === 'advance') return ['noadvance'];
    if (what === 'move') {
      // a few units one square nearer the enemy, then the end
      const out = [];
      const enemies = units.filter(([id]) => !mine(seat, id)).map(([, u]) => u.at);
      for (const [id, u] of units) {
        if (!mine(seat, id) || u.moved || enemiesNext(st, seat, u.at).length || !enemies.length) continue;
        const d0 = Math.min(...enemies.map((e) => distance(u.at, e)));
        for (const to of neighbours(u.at)) {
          if (Math.min(...enemies.map((e) => distance(to, e))) < d0) out.push(`move ${id} ${to}`);
        }
      }
      return [...out.slice(0, 12), 'end'];
    }
    if (what === 'combat') {
      const declared = s.battles.findIndex((b) => b.state === 'declared');
      if (declared >= 0) return [`resolve ${declared}`];
      const out = [];
      const free = (id) => s.units[id].battle === undefined;
      for (const [id, u] of units) {
        if (!mine(seat, id) || !u.engaged || !free(id)) continue;
        const ds = enemiesNext(st, seat, u.at).filter(free);
        if (ds.length > 1) out.push(`attack ${id} vs ${ds.join(' ')}`);
        for (const d of ds) out.push(`attack ${id} vs ${d}`);
      }
      for (const [id, u] of units) {
        if (mine(seat, id) || !u.engaged || !free(id)) continue;
        const as = enemiesNext(st, seat === 'french' ? 'allied' : 'french', u.at).filter(free);
        if (as.length > 1) out.unshift(`attack ${as.join(' ')} vs ${id}`);
        for (const a of as) out.push(`attack ${a} vs ${id}`);
      }
      return [...out, 'end'];
    }
    if (what === 'retreat') {
      const out = [];
      for (const [id, u] of units) {
        if (!u.retreat) continue;
        for (const a of neighbours(u.at)) for (const b of neighbours(a)) if (distance(u.at, b) === 2) out.push(`retreat ${id} ${a} ${b}`);
      }
      return out;
    }
    if (what === 'exchange_losses') {
      const b = s.battles[s.current_battle];
      const own = [...b.attackers, ...b.defenders].filter((id) => mine(seat, id) && parseSquare(s.units[id].at));
      return [...own.map((id) => `exchange ${id}`), `exchange ${own.join(' ')}`];
    }
    if (what === 'defect') return units.filter(([id]) => mine(seat, id)).map(([id]) => `defect ${id}`);
    return [];
  }

  // The rules library's own legal answers for seat now: the examples of
  // its decision panel (`e.g. "LINE"`, present.h's describe), from the
  // terminal client for the allies and from the page for the French.
  async function examples(st, seat) {
    let text;
    if (seat === 'allied') {
      text = run('status', game).out;
    } else {
      await page.waitForFunction((v) => document.getElementById('wr-board').dataset.version === String(v),
        st.version, { timeout: 20000 });
      text = await page.locator('#wr-describe').textContent();
    }
    return [...text.matchAll(/e\.g\. "([^"]+)"/g)].map((m) => m[1]);
  }

  // One decision of seat: the first candidate its side accepts, else the
  // first example of its decision panel it accepts.
  async function decide(st, seat) {
    const cands = candidates(st, seat).slice(0, TRIES);
    const tryOne = async (c) => {
      if (seat === 'allied') return run('do', game, c).code === 0;
      return (await send(c)).outcome === 'accepted';
    };
    for (const c of cands) {
      if (await tryOne(c)) return c;
    }
    for (const c of await examples(st, seat)) {
      cands.push(c);
      if (await tryOne(c)) return c;
    }
    assert.fail(`${seat} could not answer "${st.state.awaiting.what}" at version ${st.version}: none of ${JSON.stringify(cands)} was accepted`);
  }

  let rollChecked = false;
  async function checkRoll(before) {
    const st = status();
    const k = st.state.dice.rolls - 1;
    if (k < before) return;             // decided without a die
    const b = st.state.battles.find((x) => x.die !== undefined && x.state !== 'declared' && x.result);
    const li = page.locator(`#events li:has(.roll[data-k="${k}"])`);
    await li.locator('.roll').waitFor({ timeout: 10000 });
    const face = Number(await li.locator('.roll').getAttribute('data-face'));
    assert.ok(face >= 1 && face <= 6);
    assert.ok(st.state.battles.some((x) => x.die === face), `the die ${face} of roll ${k} is a battle's die in the state ${JSON.stringify(st.state.battles)}`);
    assert.ok(b);
    await page.locator(`#events li[data-worded]:has(.roll[data-k="${k}"])`).waitFor({ timeout: 10000 });
    assert.match(await li.locator('.words').textContent(), new RegExp(`\\b${face}\\b`), 'the roll in words names its face');
    assert.equal(await li.locator('.roll').textContent(), `roll k=${k}, face ${face}`);
    rollChecked = true;
  }

  let found = null;
  for (let g = 0; g < GAMES && !found; g++) {
    let st = await newGame();
    const first = g === 0;

    // The set-up: the page's from the orders panel (a click, then Enter).
    await page.locator('#wr-orders button[data-order="endsetup"]').click();
    assert.equal(await line(), 'endsetup ');
    let n = Number(await page.locator('#wr-result').getAttribute('data-n') || 0);
    await page.keyboard.press('Enter');
    assert.equal((await enter(n)).outcome, 'accepted', 'endsetup from the page');
    assert.equal(run('do', game, 'endsetup').code, 0);
    st = status();
    await caughtUp(st.version);
    assert.equal(st.state.server.awaiting.french, 'move');

    if (first) {
      // A unit selected: reach marks, the line started; Escape clears both.
      await clickUnit('fr-jerome');
      await page.waitForFunction(() => document.getElementById('wr-line').value === 'move fr-jerome ' &&
        document.querySelectorAll('#wr-board .reach').length > 0, null, { timeout: 10000 });
      const marked = (await drawnUnits(page)).reach;
      assert.ok(marked.includes('J-40') && marked.includes('I-40'), `J-40 and I-40 are marked: ${marked.join(' ')}`);
      assert.ok(!marked.includes('H-40'), 'no mark on the enemy square H-40');
      await page.keyboard.press('Escape');
      await page.waitForFunction(() => document.getElementById('wr-line').value === '' &&
        document.querySelectorAll('#wr-board .reach').length === 0, null, { timeout: 10000 });

      // Selected again; two squares clicked; Enter sends.
      await clickUnit('fr-jerome');
      // the line started and the board redrawn with the marks (the picture
      // the squares are clicked on)
      await page.waitForFunction(() => document.getElementById('wr-line').value === 'move fr-jerome ' &&
        document.querySelectorAll('#wr-board .reach').length > 0, null, { timeout: 10000 });
      await clickSquare('J-40');
      await clickSquare('I-40');
      assert.equal(await line(), 'move fr-jerome J-40 I-40 ');
      n = Number(await page.locator('#wr-result').getAttribute('data-n') || 0);
      await page.locator('#wr-line').press('Enter');
      const moved = await enter(n);
      assert.equal(moved.outcome, 'accepted', moved.text);
      st = status();
      assert.equal(st.state.units['fr-jerome'].at, 'I-40', 'the server has the unit where the page moved it');
      await caughtUp(st.version);
      await page.waitForFunction(() => document.querySelectorAll('#wr-board .reach').length === 0 &&
        document.getElementById('wr-line').value === '', null, { timeout: 10000 });
      assert.deepEqual((await drawnUnits(page)).units.find((u) => u.word === 'fr-jerome').squares, ['I-40'],
        'the page draws the unit where it moved');

      // A refused order: the terminal client's very words.
      const bad = 'move fr-foy J-4O';
      const refused = await send(bad);
      const cliSays = run('do', game, bad);
      assert.equal(cliSays.code, 1);
      assert.equal(refused.outcome, 'refused');
      assert.equal(refused.text, cliSays.out.trim(), 'the page and the terminal client say the same');
      assert.match(refused.text, /^refused \(checked here, not sent\): bad_square: /);
      const far = await send('move fr-foy I-41');
      assert.match(far.text, /^refused \(checked here, not sent\): not_adjacent: \S/, 'a rule refusal in words, with its code');
      assert.equal(status().version, st.version, 'nothing refused was sent');

      // help ORDER, as the terminal client gives it.
      assert.equal((await send('help attack')).outcome, 'answered');
      const cliHelp = run('do', game, 'help attack');
      assert.equal(cliHelp.code, 0);
      assert.equal((await page.locator('#wr-answer').textContent()).trim(), cliHelp.out.trim(), 'help attack says what the client says');

      assert.equal((await send('move fr-foy J-41 I-41')).outcome, 'accepted');
      assert.equal((await send('end')).outcome, 'accepted');
      st = status();
      await caughtUp(st.version);
      assert.equal(st.state.awaiting.what, 'combat');

      // A battle declared by clicks and keys, its odds shown first.
      await clickUnit('fr-jerome');
      await page.waitForFunction(() => document.getElementById('wr-line').value === 'attack fr-jerome ', null, { timeout: 10000 });
      await page.locator('#wr-line').press('End');
      await page.keyboard.type('vs ');
      await clickUnit('aa-picton');
      assert.equal(await line(), 'attack fr-jerome vs aa-picton ');
      const preview = page.locator('#wr-preview[data-line="odds fr-jerome vs aa-picton"]:not(.error)');
      await preview.waitFor({ timeout: 10000 });
      const odds = run('do', game, 'odds fr-jerome vs aa-picton');
      assert.equal(odds.code, 0, odds.out + odds.err);
      assert.equal((await preview.textContent()).trim(), odds.out.trim(), 'the odds shown are the client\'s odds for the same units');
      n = Number(await page.locator('#wr-result').getAttribute('data-n') || 0);
      await page.locator('#wr-line').press('Enter');
      assert.equal((await enter(n)).outcome, 'accepted', 'the battle is declared');
      st = status();
      assert.deepEqual([st.state.battles[0].attackers, st.state.battles[0].defenders, st.state.battles[0].state],
        [['fr-jerome'], ['aa-picton'], 'declared']);
      await caughtUp(st.version);
    } else {
      for (const l of ['move fr-jerome J-40 I-40', 'move fr-foy J-41 I-41', 'end']) {
        assert.equal((await send(l)).outcome, 'accepted', l);
      }
    }

    // Driven on until the page's seat has a retreat to choose.
    for (let step = 0; step < STEPS; step++) {
      st = status();
      await caughtUp(st.version);
      const aw = st.state.awaiting;
      if (!aw || st.status !== 'running') break;
      if (aw.seat === 'french' && aw.what === 'retreat') { found = st; break; }
      if (aw.seat === 'french') {
        await page.waitForFunction(() => document.title.startsWith('(your move)'), null, { timeout: 5000 });
      }
      const rolls = st.state.dice.rolls;
      const done = await decide(st, aw.seat);
      if (aw.seat === 'french' && done.startsWith('resolve') && !rollChecked) await checkRoll(rolls);
    }
  }
  assert.ok(found, `no battle left the French (the page) a retreat to choose in ${GAMES} games`);
  assert.ok(rollChecked, 'a battle was resolved from the page with a die');

  // The retreat, chosen by clicks: the unit, then an open route's squares
  // as the decision panel lists them.
  const panel = await page.locator('#wr-describe').textContent();
  const m = /(\S+) on (\S+), open routes:\s*([^\s,]+) ([^\s,]+)/.exec(panel);
  assert.ok(m, `the decision panel lists an open route: ${panel}`);
  const [, unit, from, a, b] = m;
  assert.equal(found.state.units[unit].at, from);
  await clickUnit(unit);
  await page.waitForFunction((u) => document.getElementById('wr-line').value === `retreat ${u} `, unit, { timeout: 10000 });
  await clickSquare(a);
  await clickSquare(b);
  assert.equal(await line(), `retreat ${unit} ${a} ${b} `);
  const n = Number(await page.locator('#wr-result').getAttribute('data-n') || 0);
  await page.locator('#wr-line').press('Enter');
  const r = await enter(n);
  assert.equal(r.outcome, 'accepted', r.text);
  const after = status();
  assert.equal(after.state.units[unit].at, b, 'the server has the unit at the end of the route the page chose');
  await caughtUp(after.version);

  assert.deepEqual(problems, [], 'no console errors (a CSP refusal would be one), no failed request');
  console.log(`browser_waterloo_play: ok (game ${game}, ${unit} retreated ${from} > ${a} > ${b}, version ${after.version})`);
} catch (e) {
  failed('browser_waterloo_play', e);
} finally {
  await tidy(dir, deadline, server, browser);
}
