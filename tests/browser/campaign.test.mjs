// campaign.test.mjs - a campaign's sealed choice in the seats' pages
// (ctest browser_campaign).
//
// A two-player campaign (campaign/ancient-world) made and played by the
// `warroom` CLI, one configuration per seat; each seat's page is open in a
// browser context of its own, holding the seat's token in its storage as
// the invite page keeps it. The CLI plays the start, the draft (free towns,
// next to the chooser's own when the rules require it, from the map file),
// the attack, the counter and whatever strategy the dice bring, to the
// tactics round where both sides choose in secret. Then one side (S)
// commits to a tactic and sends it with a salt: until the other side (O)
// has chosen too, O's page (its whole DOM text, watched by a
// MutationObserver from before the page loads, and its copy of the state)
// never holds S's salt, commitment or choice; S's own page holds them (so
// the watch is known to see what it looks for). Once O chooses, the rules
// reveal both choices, and O's page shows S's salt and commitment, first at
// that version. Both pages draw the campaign's map, every town on it.
//
//   node campaign.test.mjs BUILD_DIR
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, cli, cliToken, launch, watchedPage, tempDir, bound, failed, tidy } from './support.mjs';

const build = process.argv[2];
assert.ok(build, 'usage: node campaign.test.mjs BUILD_DIR');
const dir = tempDir();
const deadline = bound('browser_campaign', 130000);
const here = dirname(fileURLToPath(import.meta.url));
const map = JSON.parse(readFileSync(join(here, '../../scenarios/campaign/ancient-world.json'), 'utf8'));
const adjacent = new Map(map.towns.map((t) => [t.name, t.adjacent]));

// The sealed values, fixed before any page loads.
const salt = `salt-${randomBytes(8).toString('hex')}`;
const choice = 'march';
const commitment = createHash('sha256').update(choice + salt).digest('hex');

// In every page: the first version at which the DOM's text held each secret.
function watchSecrets(secrets) {
  window.__seen = {};
  const look = () => {
    const text = document.documentElement.textContent;
    const v = document.getElementById('version') ? document.getElementById('version').textContent : '';
    for (const s of secrets) if (!(s in window.__seen) && text.includes(s)) window.__seen[s] = v;
  };
  new MutationObserver(look).observe(document, { subtree: true, childList: true, characterData: true });
}

let server;
const contexts = [];
try {
  server = await startServer(build, dir);
  const play = (who, ...args) => cli(build, dir, who, server.ws, ...args);
  const made = JSON.parse(play('p1', 'new', '--ruleset', 'campaign', '--scenario', 'campaign/ancient-world').trim().split('\n')[0]);
  const game = made.game;
  play('p2', 'claim', made.invites.p2);
  const problems = [];
  const pages = {};
  for (const seat of ['p1', 'p2']) {
    const ctx = await launch(dir, { name: `profile-${seat}` });
    contexts.push(ctx);
    const { token } = cliToken(dir, seat, game);
    await ctx.addInitScript(({ g, s, t }) => {
      localStorage.setItem(`warroom.token.${g}`, JSON.stringify({ seat: s, token: t }));
    }, { g: game, s: seat, t: token });
    await ctx.addInitScript(watchSecrets, [salt, commitment]);
    const page = await watchedPage(ctx, problems);
    await page.goto(`http://127.0.0.1:${server.web}/game/${game}`);
    await page.waitForFunction((s) => document.getElementById('status').textContent === `playing as ${s}`, seat);
    pages[seat] = page;
  }
  // Each seat's page draws the campaign's map: every town of the scenario
  // is a word of its board (present.h: data-word).
  for (const seat of ['p1', 'p2']) {
    await pages[seat].waitForFunction(() => document.querySelectorAll('#wr-board svg [data-word]').length > 0);
    const words = await pages[seat].evaluate(() => [...document.querySelectorAll('#wr-board svg [data-word]')].map((e) => e.dataset.word));
    for (const t of map.towns) assert.ok(words.includes(t.name), `${seat}'s page draws the town ${t.name}: ${words.join(' ')}`);
  }
  let version = Number(await pages.p1.locator('#version').textContent());
  const current = async (seat) => {
    await pages[seat].waitForFunction((v) => document.getElementById('version').textContent === String(v), version);
    return JSON.parse(await pages[seat].locator('#state').textContent());
  };
  const send = (seat, cmd) => { play(seat, 'do', game, JSON.stringify(cmd)); version++; };

  // The CLI plays to the tactics round; the state is read from p1's page.
  let st = await current('p1');
  for (let steps = 0; steps < 200; steps++) {
    const aw = st.server.awaiting;
    if (aw.p1 === 'tactic' && aw.p2 === 'tactic') break;
    const [seat, what] = Object.entries(aw)[0];
    const mine = Object.keys(st.towns).filter((t) => st.towns[t] === seat);
    const theirs = Object.keys(st.towns).filter((t) => st.towns[t] && st.towns[t] !== seat);
    if (what === 'start') send(seat, { type: 'start' });
    else if (what === 'choose_town') {
      const free = Object.keys(st.towns).filter((t) => st.towns[t] === null);
      const near = free.filter((t) => mine.some((m) => adjacent.get(m).includes(t)));
      send(seat, { type: 'choose_town', town: (near.length ? near : free)[0] });
    } else if (what === 'attack') {
      send(seat, { type: 'attack', target: theirs.find((t) => mine.some((m) => adjacent.get(m).includes(t))) });
    } else if (what === 'counter') send(seat, { type: 'counter', town: theirs[0] });
    else if (what === 'choose_strategy') send(seat, { type: 'choose_strategy', strategy: 'scouts' });
    else if (what === 'seal_ambush') send(seat, { type: 'seal_ambush', note: `the ${seat} ambush` });
    else assert.fail(`the test does not know how to answer ${what} for ${seat}`);
    st = await current('p1');
  }
  assert.deepEqual(st.server.awaiting, { p1: 'tactic', p2: 'tactic' }, 'both sides choose their tactics');

  // S commits and chooses; O's page never holds the sealed values.
  const [S, O] = ['p1', 'p2'];
  const sealedFrom = async () => {
    const so = await current(O);
    const text = await pages[O].evaluate(() => document.documentElement.textContent);
    for (const s of [salt, commitment]) assert.ok(!text.includes(s), `${O}'s page shows ${S}'s sealed ${s}`);
    assert.ok(!JSON.stringify(so).includes(salt) && !JSON.stringify(so).includes(commitment), `${O}'s state holds the secret`);
    assert.deepEqual(so.attack.tactics[S], { submitted: true }, `${O} sees only that ${S} chose`);
  };
  send(S, { type: 'commit', commitment });
  await sealedFrom();
  send(S, { type: 'tactic', choice, salt });
  await sealedFrom();
  const ss = await current(S);
  assert.equal(ss.attack.tactics[S].salt, salt, `${S}'s own page holds its salt`);
  assert.equal(ss.attack.tactics[S].commitment, commitment);
  const mineSeen = await pages[S].evaluate(() => window.__seen);
  assert.ok(mineSeen[salt] && mineSeen[commitment], `the watch saw ${S}'s secrets on ${S}'s page`);
  assert.deepEqual(await pages[O].evaluate(() => window.__seen), {}, `${O}'s page never held them`);

  // O chooses: the rules reveal both choices, and O's page shows them.
  send(O, { type: 'tactic', choice: 'defend' });
  const so = await current(O);
  const round = so.attack.rounds[so.attack.rounds.length - 1];
  const revealed = JSON.stringify(round);
  assert.ok(revealed.includes(salt) && revealed.includes(commitment), `the round reveals ${S}'s tactic: ${revealed}`);
  await pages[O].waitForFunction((s) => document.documentElement.textContent.includes(s), salt);
  const seen = await pages[O].evaluate(() => window.__seen);
  assert.deepEqual(seen, { [salt]: String(version), [commitment]: String(version) },
    `${O}'s page first held the secrets at the reveal (version ${version})`);

  assert.deepEqual(problems, [], 'no console errors');
  console.log(`browser_campaign: ok (game ${game}: ${S}'s sealed tactic kept from ${O}'s page until version ${version})`);
} catch (e) {
  failed('browser_campaign', e);
} finally {
  await tidy(dir, deadline, server, ...contexts);
}
