/**
 * Stored text on both ledgers, through the routes (docs/architecture.md, "Stored text"; spec 4.8): random
 * sequences (fast-check) of account creations with arbitrary display names, verify-sends with arbitrary
 * notes and grants with arbitrary reasons, each replayed once, drawn from arbitrary UTF-16 (lone surrogates
 * included) with the characters the rule refuses mixed in. Text the rule accepts reads back as its NFC
 * form, identical in the first answer, the replay, the overview and the store's postings; text it refuses
 * is a 400 naming the field and changes nothing; the ledger's invariants (hash chains included) hold after
 * every step.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useServiceConfig } from '../../api/_lib/config.js';
import { ledgerStore } from '../../api/_lib/ledger/store.js';
import * as admin from '../../api/admin.js';
import * as wallet from '../../api/wallet.js';
import { call, tokenFor, useGameConfig } from '../helpers/game-api.js';
import { expectSound, redisHarness, sqliteHarness, type LedgerHarness } from '../helpers/ledger.js';

/** An oracle written apart from the rule's module: what the stored-text rule refuses, and the bound after NFC. */
function accepted(text: string, multiLine: boolean, max: number): boolean {
  if (!text.isWellFormed()) return false;
  const nfc = text.normalize('NFC');
  for (const ch of nfc) {
    const c = ch.codePointAt(0)!;
    const control = c < 0x20 || (c >= 0x7f && c <= 0x9f);
    if (control && !(multiLine && (c === 0x0a || c === 0x09))) return false;
    if ((c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)) return false;
  }
  return [...nfc].length <= max;
}

/** Text from arbitrary code units, with the characters the rule is about and decomposed letters mixed in. */
const text = (min: number, max: number): fc.Arbitrary<string> =>
  fc
    .array(
      fc.oneof(
        { arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 3 }), weight: 3 },
        { arbitrary: fc.string({ unit: 'grapheme-composite', minLength: 1, maxLength: 3 }), weight: 3 },
        {
          arbitrary: fc.constantFrom('\u0000', '\t', '\n', '\r', '\u0085', '\u202e', '\u2067', 'e\u0301', 'A\u030a', '\ud83d', '😀'),
          weight: 2,
        },
      ),
      { minLength: min, maxLength: max },
    )
    .map((parts) => parts.join(''));

describe.each([sqliteHarness(), redisHarness()] as LedgerHarness[])('stored text through the wallet routes: $name', (h) => {
  beforeAll(() => h.setup(), 30_000);
  afterAll(async () => {
    useServiceConfig(undefined);
    await h.teardown();
  });

  let run = 0;
  it('reads accepted text back as stored in every answer; refuses the rest, changing nothing; the invariants hold', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ name: text(1, 8), note: text(0, 12), reason: text(1, 12) }), { minLength: 1, maxLength: 4 }),
        async (steps) => {
          const config = useGameConfig(h.env());
          const auth = { Authorization: `Bearer ${await tokenFor(config, 'STUDIO_OPERATOR', 'admin')}` };
          const store = await ledgerStore();
          run++;
          let n = 0;
          for (const step of steps) {
            n++;
            const made = await call(admin, 'POST', '/api/admin/accounts', { body: { displayName: step.name }, headers: auth });
            if (!accepted(step.name, false, 64) || step.name.normalize('NFC').trim() === '') {
              expect(made.status, JSON.stringify(step.name)).toBe(400);
              continue;
            }
            expect(made.status, JSON.stringify(step.name)).toBe(201);
            const account = made.body.account as { studioId: string; accountId: string; displayName: string };
            expect(account.displayName).toBe(step.name.normalize('NFC'));
            const before = await store.snapshot();
            const send = {
              studioId: account.studioId,
              amount: 3,
              purpose: 'test',
              idempotencyKey: `text-send-${run}-${n}-000`,
              note: step.note,
            };
            const first = await call(wallet, 'POST', '/api/wallet/verify-send-to-account', { body: send, headers: auth });
            const grant = { studioId: account.studioId, amount: 5, reason: step.reason, idempotencyKey: `text-grant-${run}-${n}-00` };
            const granted = await call(admin, 'POST', '/api/admin/grant-coin', { body: grant, headers: auth });
            const noteOk = accepted(step.note, true, 500);
            const reasonOk = accepted(step.reason, true, 200) && /\S/.test(step.reason);
            expect(first.status, JSON.stringify(step.note)).toBe(noteOk ? 200 : 400);
            expect(granted.status, JSON.stringify(step.reason)).toBe(reasonOk ? 200 : 400);
            if (!noteOk) expect((first.body.errors as { name: string }[]).map((e) => e.name)).toEqual(['/note']);
            if (!noteOk && !reasonOk) expect(await store.snapshot()).toEqual(before);
            const stored: string[] = [];
            if (noteOk) {
              expect(first.body.note).toBe(step.note.normalize('NFC'));
              const replay = await call(wallet, 'POST', '/api/wallet/verify-send-to-account', { body: send, headers: auth });
              expect(replay.body).toEqual({ ...first.body, idempotent: true });
              stored.push(step.note.normalize('NFC'));
            }
            if (reasonOk) {
              expect(granted.body.note).toBe(step.reason.normalize('NFC'));
              const replay = await call(admin, 'POST', '/api/admin/grant-coin', { body: grant, headers: auth });
              expect(replay.body).toEqual({ ...granted.body, idempotent: true });
              stored.push(step.reason.normalize('NFC'));
            }
            const player = { Authorization: `Bearer ${await tokenFor(config, account.studioId, 'player')}` };
            const overview = await call(wallet, 'GET', '/api/wallet/overview', { headers: player });
            const notes = (overview.body.transactions as { note: string }[]).map((t) => t.note);
            expect(notes.sort()).toEqual(stored.sort());
            const postings = (await store.postings(account.accountId, { limit: 10, filter: {} })).postings.map((p) => p.note);
            expect(postings.sort()).toEqual(stored.sort());
            await expectSound(store);
          }
        },
      ),
      { numRuns: 25, seed: 20261127 },
    );
  }, 180_000);
});
