// verify.js - the dice of a game checked in the page (docs/dice.md), with
// WebCrypto only (crypto.subtle): no library, nothing sent anywhere.
//
// The seed's commitment (lowercase hex SHA-256 of the 32 seed bytes) is in
// the state of every game whose ruleset rolls dice, at state.dice.commitment
// (docs/rulesets/*.md), from version 0. The panel shows it from the first
// state it sees, and keeps the first one this browser saw for the game
// (localStorage "warroom.commitment.GAME"), so a page opened again later
// still compares with what was shown before the dice were rolled.
//
// Once the game is over, "Verify dice" asks the server for the game's
// record (`export`, docs/protocol.md "Game records"), then checks, as
// `warroom replay` and docs/dice.md's verify_dice.py do: the header is a
// version 1 game record of this game with its seed (64 hex digits); the
// seed hashes to the commitment the page saw; the rolls of the command
// lines are numbered 0, 1, 2, ... in order with none missing; and each face
// is 1 + (b mod 6) for the first byte b < 252 of HMAC-SHA256(seed,
// "<game-id>/<k>") (then "<game-id>/<k>/1", "/2", ... should all 32 bytes
// be 252 or more). It says "all N rolls verified", or the first failure in
// words ("line 12: roll 5 was recorded as 3, the seed gives 4"); line
// numbers count every line of the record, blank ones included, the header
// being line 1. The record is then offered as a download (a Blob URL). A
// file input checks a record file the same way, offline.

const enc = new TextEncoder();

function hex(bytes) {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');
}

// The 32 bytes of a seed written as 64 hex digits (either case), or null.
function parseSeed(s) {
  if (typeof s !== 'string' || !/^[0-9a-fA-F]{64}$/.test(s)) return null;
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = parseInt(s.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export async function commitmentOf(seed) {
  return hex(await crypto.subtle.digest('SHA-256', seed));
}

// The face of roll k of game with the key (an HMAC-SHA256 CryptoKey of the seed).
export async function face(key, game, k) {
  for (let j = 0; ; j++) {
    const msg = j === 0 ? `${game}/${k}` : `${game}/${k}/${j}`;
    const h = new Uint8Array(await crypto.subtle.sign('HMAC', key, enc.encode(msg)));
    for (const b of h) if (b < 252) return 1 + (b % 6);
  }
}

function fail(message, extra = {}) {
  return { ok: false, message, ...extra };
}

// Check the record text. opts.game: the game the page shows (the record
// must be of it), or null; opts.commitment: the commitment the page saw,
// or null (then the seed's own is only reported). Resolves with {ok,
// rolls, message, commitment (of the seed), seed}.
export async function verifyRecord(text, opts = {}) {
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  let head = null;
  let n = 0;
  let rolls = 0;
  let key = null;
  let game = null;
  let commitment = null;
  let seed = null;
  for (const line of lines) {
    n++;
    if (line === '') continue;
    let o;
    try {
      o = JSON.parse(line);
    } catch (e) {
      return fail(`line ${n}: not JSON (${e.message})`, { rolls });
    }
    if (o === null || typeof o !== 'object' || Array.isArray(o)) return fail(`line ${n}: not a JSON object`, { rolls });
    if (head === null) {
      head = o;
      // 1) a version 1 game record, 2) of this game, 3) with its seed,
      // 4) which hashes to the commitment the page saw.
      if (o.warroom !== 'game-record' || o.version !== 1) {
        return fail(`line ${n}: not a version 1 warroom game record ("warroom": "game-record", "version": 1)`);
      }
      game = o.game;
      if (typeof game !== 'string' || game === '' || enc.encode(game).length > 63) {
        return fail(`line ${n}: "game" must be a game id (a string of 1 to 63 bytes)`);
      }
      if (opts.game && game !== opts.game) return fail(`line ${n}: the record is of game ${game}, not of ${opts.game}`);
      if (o.seed === undefined || o.seed === null) {
        return fail(`line ${n}: the record has no seed: the game is not over, its dice can be checked once it is`);
      }
      seed = parseSeed(o.seed);
      if (!seed) return fail(`line ${n}: "seed" must be 64 hex digits`);
      commitment = await commitmentOf(seed);
      if (opts.commitment && commitment !== opts.commitment) {
        return fail(`the seed does not match the commitment: its SHA-256 is ${commitment}, the game showed ${opts.commitment}`,
          { commitment, seed: o.seed });
      }
      key = await crypto.subtle.importKey('raw', seed, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
      continue;
    }
    // 5) every roll, k = 0, 1, 2, ... with none missing, each face the seed's.
    if (o.rolls === undefined) continue;
    if (!Array.isArray(o.rolls)) return fail(`line ${n}: "rolls" must be a list of [k, face] pairs`, { rolls, commitment });
    for (const r of o.rolls) {
      if (!Array.isArray(r) || r.length !== 2 || !Number.isInteger(r[0]) || !Number.isInteger(r[1])) {
        return fail(`line ${n}: each roll is [k, face]`, { rolls, commitment });
      }
      const [k, f] = r;
      if (k !== rolls) {
        return fail(k > rolls ? `line ${n}: roll ${rolls} is missing (the next roll recorded is roll ${k})`
          : `line ${n}: roll ${k} is out of order (roll ${rolls} was expected)`, { rolls, commitment });
      }
      const g = await face(key, game, k);
      if (f !== g) return fail(`line ${n}: roll ${k} was recorded as ${f}, the seed gives ${g}`, { rolls, commitment });
      rolls++;
    }
  }
  if (head === null) return fail('the record is empty');
  const against = opts.commitment ? `the seed matches the commitment ${commitment}`
    : `the seed's commitment is ${commitment}: compare it with the one shown when the game began`;
  return { ok: true, rolls, commitment, seed: head.seed, message: `all ${rolls} rolls verified; ${against}` };
}

// The commitment a state shows, or null.
function stateCommitment(state) {
  const c = state && state.dice && state.dice.commitment;
  return typeof c === 'string' && /^[0-9a-f]{64}$/.test(c) ? c : null;
}

function el(tag, props = {}, ...kids) {
  const e = document.createElement(tag);
  Object.assign(e, props);
  e.append(...kids);
  return e;
}

// The panel, in root (an empty element of the page), for game; conn() is
// the page's connection (for `export`). Returns {update(state)}, to be
// called with the page's copy of the state whenever it changes.
export function mountVerify(root, game, conn) {
  const storeKey = `warroom.commitment.${game}`;
  let seen = null;
  try { seen = JSON.parse(localStorage.getItem(storeKey)); } catch { seen = null; }
  let finished = false;
  let url = null;

  const shown = el('p', { id: 'commitment' }, 'No dice commitment seen yet.');
  const button = el('button', { id: 'verify-dice', type: 'button', disabled: true, textContent: 'Verify dice',
    title: 'Once the game is over: fetch its record and check every roll against the revealed seed' });
  const result = el('p', { id: 'verify-result', role: 'status' });
  const link = el('a', { id: 'record-download', hidden: true, textContent: 'Download the record' });
  const file = el('input', { id: 'verify-file', type: 'file', accept: '.ndjson,.json,.txt,application/x-ndjson' });
  root.append(el('h2', {}, 'Dice'), shown,
    el('p', {}, button, ' ', link),
    el('p', {}, el('label', {}, 'Check a record file: ', file)),
    result);

  function say(r) {
    result.textContent = r.message;
    result.dataset.ok = String(r.ok);
    result.classList.toggle('error', !r.ok);
  }

  function showCommitment() {
    if (!seen) {
      shown.textContent = 'This game\'s state shows no dice commitment: its ruleset rolls no dice, so only the record\'s seed is shown.';
      return;
    }
    shown.replaceChildren('Seed commitment (SHA-256 of the secret dice seed, shown before any roll): ',
      el('code', { className: 'hash', textContent: seen.commitment }), ` · first seen by this browser ${new Date(seen.at).toLocaleString()}`);
    shown.dataset.commitment = seen.commitment;
  }

  button.addEventListener('click', async () => {
    button.disabled = true;
    result.textContent = 'fetching the record…';
    try {
      const m = await conn().request({ type: 'export', game }, 'record');
      if (url) URL.revokeObjectURL(url);
      url = URL.createObjectURL(new Blob([m.record], { type: 'application/x-ndjson' }));
      link.href = url;
      link.download = `${game}.ndjson`;
      link.hidden = false;
      say(await verifyRecord(m.record, { game, commitment: seen && seen.commitment }));
    } catch (e) {
      say({ ok: false, message: `the record could not be had: ${e.message}` });
    } finally {
      button.disabled = !finished;
    }
  });

  file.addEventListener('change', async () => {
    const f = file.files && file.files[0];
    if (!f) return;
    const text = await f.text();
    // A record of this game is held to the commitment seen here; another
    // game's is checked on its own, its seed's commitment shown.
    let other = false;
    try { other = JSON.parse(text.split('\n', 1)[0]).game !== game; } catch { other = false; }
    say(await verifyRecord(text, { game: null, commitment: other ? null : seen && seen.commitment }));
  });

  showCommitment();
  return {
    update(state) {
      const c = stateCommitment(state);
      if (c && !seen) {
        seen = { commitment: c, at: Date.now() };
        try { localStorage.setItem(storeKey, JSON.stringify(seen)); } catch { /* private mode: kept in the page */ }
      } else if (c && seen.commitment !== c) {
        say({ ok: false, message: `the game's commitment changed: this browser saw ${seen.commitment}, the state now shows ${c}` });
      }
      showCommitment();
      finished = !!(state && state.server && state.server.status === 'finished');
      button.disabled = !finished;
    },
  };
}
