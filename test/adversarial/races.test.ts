/**
 * Races closed in the write (spec 2.6, 2.8; docs/architecture.md "Player state": the owner and character
 * an item event or a progress save was checked against are checked again in the store's write), attacked
 * from outside through the player entry on both stores with `Promise.all` interleavings of what game
 * servers send: an item's transfer against its equipping (an item event) and against its wearing (a
 * progress save's `equipment_on_body`), and wearing one item on several characters at once. After every
 * round, whatever won, no item is owned by one account and equipped or worn on another account's
 * character, and no item is worn by two characters.
 */
import { expect, it } from 'vitest';
import { call, mintFor, newCharacter, newPlayer, onEachStore, player, quietLog, serverAuth, type Answer } from './helpers.js';

quietLog();

const ROUNDS = 6;
const ERAS = ['warlords', 'voxel', 'nexus', 'armada'] as const;

/** The `n`th fresh character of the player `auth` (four per era, so eras take turns). */
const heroFor = (auth: Record<string, string>, n: number) => newCharacter(auth, { era: ERAS[n % 4], name: `Hero ${n}` });

/** The item as the ledger has it: owner account, state and character. */
async function itemOf(server: Record<string, string>, item: string): Promise<{ owner: string; state: string; characterId: string | null }> {
  const r = await call(player, 'GET', `/api/ledger/${item}`, { headers: server });
  return {
    owner: (r.body.owner as { studioId: string }).studioId,
    state: r.body.state as string,
    characterId: r.body.characterId as string | null,
  };
}

/** What a character wears, slot → studio_uuid, and its revision. */
async function wornBy(server: Record<string, string>, character: string): Promise<{ slots: Record<string, string>; revision: number }> {
  const r = await call(player, 'GET', `/api/characters/${character}/progress`, { headers: server });
  return { slots: r.body.equipment_on_body as Record<string, string>, revision: r.body.progress_revision as number };
}

/** A progress save that wears `item` in `slot`, from the revision the character is at. */
async function wear(server: Record<string, string>, character: string, slot: string, item: string, key: string): Promise<Answer> {
  const { revision } = await wornBy(server, character);
  return call(player, 'PATCH', `/api/characters/${character}/progress`, {
    body: { idempotencyKey: key, progress: { equipment_on_body: { [slot]: item } } },
    headers: { ...server, 'If-Match': `"${revision}"` },
  });
}

onEachStore('races', (store) => {
  it("never leaves an item owned by one account and equipped on another's character, an equip event racing a transfer", async () => {
    const config = await store.fresh();
    const server = await serverAuth(config);
    const ada = await newPlayer(config, 'Ada');
    const bo = await newPlayer(config, 'Bo');
    const hero = await newCharacter(ada.auth);
    const seen: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const item = await mintFor(server, ada.studioId, `race-ev-mint-${round}`);
      const equip = () =>
        call(player, 'POST', `/api/ledger/${item}/events`, {
          body: { event: 'equipped', characterId: hero, idempotencyKey: `race-ev-equip-${round}` },
          headers: server,
        });
      const transfer = () =>
        call(player, 'POST', `/api/ledger/${item}/events`, {
          body: { event: 'transferred', toStudioId: bo.studioId, idempotencyKey: `race-ev-move-${round}` },
          headers: server,
        });
      const answers = round % 2 === 0 ? await Promise.all([equip(), transfer()]) : (await Promise.all([transfer(), equip()])).reverse();
      for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBeLessThan(500);
      const now = await itemOf(server, item);
      seen.push(`${answers.map((a) => a.status).join('/')} → ${now.state}`);
      if (now.owner === bo.studioId) expect(now.characterId, `round ${round}`).toBeNull();
      else expect([now.owner, now.state, now.characterId]).toEqual([ada.studioId, 'equipped', hero]);
    }
    // both outcomes are legitimate; every round ended in one of them
    expect(seen).toHaveLength(ROUNDS);
  });

  it("never leaves an item owned by one account and worn in another account's character's progress, a wear racing a transfer", async () => {
    const config = await store.fresh();
    const server = await serverAuth(config);
    const ada = await newPlayer(config, 'Ada');
    const bo = await newPlayer(config, 'Bo');
    const broken: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const hero = await heroFor(ada.auth, round);
      const item = await mintFor(server, ada.studioId, `race-wear-mint-${round}`);
      const slot = `slot_${round}`;
      const put = () => wear(server, hero, slot, item, `race-wear-${round}-000`);
      const move = () =>
        call(player, 'POST', `/api/ledger/${item}/events`, {
          body: { event: 'transferred', toStudioId: bo.studioId, idempotencyKey: `race-wear-move-${round}` },
          headers: server,
        });
      // round 0 wears, then transfers (the interleaving a slow transfer makes); the others send both at once
      const answers = round === 0 ? [await put(), await move()] : await Promise.all(round % 2 ? [put(), move()] : [move(), put()]);
      for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBeLessThan(500);
      const owner = (await itemOf(server, item)).owner;
      const worn = (await wornBy(server, hero)).slots[slot];
      if (worn === item && owner !== ada.studioId) broken.push(`round ${round}: owned by ${owner}, worn by ${ada.studioId}'s character`);
    }
    expect(broken).toEqual([]);
  });

  it('never lets one item be worn by two characters, however the wears and an equip event are interleaved', async () => {
    const config = await store.fresh();
    const server = await serverAuth(config);
    const ada = await newPlayer(config, 'Ada');
    const broken: string[] = [];
    for (let round = 0; round < ROUNDS / 2; round++) {
      const characters = [
        await heroFor(ada.auth, 3 * round),
        await heroFor(ada.auth, 3 * round + 1),
        await heroFor(ada.auth, 3 * round + 2),
      ];
      const item = await mintFor(server, ada.studioId, `race-two-mint-${round}`);
      const slot = `hand_${round}`;
      const sends = [
        () => wear(server, characters[0]!, slot, item, `race-two-a-${round}-00`),
        () => wear(server, characters[1]!, slot, item, `race-two-b-${round}-00`),
        () =>
          call(player, 'POST', `/api/ledger/${item}/events`, {
            body: { event: 'equipped', characterId: characters[2]!, idempotencyKey: `race-two-ev-${round}` },
            headers: server,
          }),
      ];
      // round 0 sends them one after the other; the others at once
      const answers =
        round === 0 ? [await sends[0]!(), await sends[1]!(), await sends[2]!()] : await Promise.all(sends.map((send) => send()));
      for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBeLessThan(500);
      const ledger = await itemOf(server, item);
      const wearers = [];
      for (const c of characters) if ((await wornBy(server, c)).slots[slot] === item) wearers.push(c);
      if (ledger.state === 'equipped') wearers.push(ledger.characterId!);
      const distinct = [...new Set(wearers)];
      if (distinct.length > 1) broken.push(`round ${round}: worn by ${distinct.length} characters`);
    }
    expect(broken).toEqual([]);
  });
});
