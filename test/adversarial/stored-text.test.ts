/**
 * Stored text, attacked through the entries on both stores (spec 2.8, 4.8; docs/architecture.md "Stored
 * text", "Ledger"; `api/_lib/text/stored.ts`): every free-text field the service keeps (grant reasons and
 * verify-send notes that enter the hash chain, character and loadout names, file names kept as storage
 * keys) reads back as its NFC form, and refuses C0/C1 controls (tab and line feed only in notes and
 * reasons), lone surrogates and bidi overrides or isolates, however they are smuggled in: as JSON escapes,
 * as raw bytes, as an overlong UTF-8 NUL. After every attempt the ledger verifies, both by the invariant
 * check and by `npm run ledger:verify` (`dev/ledger-verify.ts`) on the live store.
 */
import { expect, it } from 'vitest';
import { ledgerStore } from '../../api/_lib/ledger/store.js';
import type { EntryExports } from '../../api/_lib/http/entry.js';
import * as storageEntry from '../../api/storage.js';
import { main as ledgerVerify } from '../../dev/ledger-verify.js';
import { expectSound } from '../helpers/ledger.js';
import { png, zip } from '../helpers/media.js';
import { SECRET } from '../helpers/game-api.js';
import {
  ADMIN_PASSWORD,
  admin,
  adminAuth,
  call,
  callRaw,
  errorNames,
  HERO,
  newCharacter,
  newPlayer,
  onEachStore,
  quietLog,
  player,
  SKILL,
  wallet,
} from './helpers.js';

quietLog();

const storage = storageEntry as unknown as EntryExports;
const utf8 = (s: string) => new TextEncoder().encode(s);
const concat = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]));

/** `npm run ledger:verify` on the store `env` names; its exit code and what it printed. */
async function verifyLive(env: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await ledgerVerify({ env: { JWT_SECRET: SECRET, ...env }, out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

onEachStore('stored text', (store) => {
  it('refuses a NUL or other forbidden character in a grant reason or a note however it is encoded, and the ledger still verifies', async () => {
    const config = await store.fresh();
    const auth = await adminAuth(config);
    const { studioId, auth: own } = await newPlayer(config, 'Noor');
    const grant = (reason: string, key: string) => ({ studioId, amount: 7, reason, idempotencyKey: key });
    const json = (reason: string, key: string) => JSON.stringify(grant(reason, key));
    const head = (key: string) => utf8(`{"studioId":"${studioId}","amount":7,"idempotencyKey":"${key}","reason":"a`);
    const attempts: [string, Uint8Array | string][] = [
      ['JSON-escaped NUL', json('before\u0000after', 'nul-escaped-01')],
      ['raw NUL byte', concat(head('nul-raw-byte-01'), Uint8Array.of(0), utf8('b"}'))],
      ['overlong UTF-8 NUL', concat(head('nul-overlong-01'), Uint8Array.of(0xc0, 0x80), utf8('b"}'))],
      ['C1 next line', json('a\u0085b', 'c1-control-0001')],
      ['carriage return', json('line\r\nline', 'carriage-ret-01')],
      ['lone surrogate', json('a\ud800b', 'lone-surrogate1')],
      ['bidi isolate', json('pay \u2066evil\u2069', 'bidi-isolate-01')],
      ['bidi override', json('\u202etxt.exe', 'bidi-override01')],
    ];
    for (const [what, body] of attempts) {
      const r = await callRaw(admin, 'POST', '/api/admin/grant-coin', body, { 'X-Admin-Password': ADMIN_PASSWORD });
      expect(r.status, what).toBe(400);
      expect(r.body.code, what).toBe('INVALID_BODY');
    }
    const note = await call(wallet, 'POST', '/api/wallet/verify-send-to-account', {
      body: { studioId, amount: 1, purpose: 'test', idempotencyKey: 'note-nul-000001', note: 'x\u0000y' },
      headers: auth,
    });
    expect([note.status, errorNames(note)]).toEqual([400, ['/note']]);
    const ledger = await ledgerStore();
    const account = (await ledger.findAccount({ studioId }))!;
    expect(await ledger.balance(account.accountId)).toBe(0);

    // what the rule takes: line feeds and tabs in a reason, a decomposed letter stored composed
    const multiLine = 'Outage of 23 Nov:\n\tshard eu-1\n\tshard eu-2';
    const first = await call(admin, 'POST', '/api/admin/grant-coin', { body: grant(multiLine, 'multi-line-0001'), headers: auth });
    expect([first.status, first.body.note]).toEqual([200, multiLine]);
    const decomposed = await call(admin, 'POST', '/api/admin/grant-coin', {
      body: grant('Cafe\u0301 refund', 'decomposed-001'),
      headers: auth,
    });
    expect([decomposed.status, decomposed.body.note]).toEqual([200, 'Caf\u00e9 refund']);
    // the same grant with its reason typed composed is the same request: a replay, not a reused key
    const composed = await call(admin, 'POST', '/api/admin/grant-coin', {
      body: grant('Caf\u00e9 refund', 'decomposed-001'),
      headers: auth,
    });
    expect([composed.status, composed.body.idempotent]).toEqual([200, true]);
    const overview = await call(wallet, 'GET', '/api/wallet/overview', { headers: own });
    expect((overview.body.transactions as { note: string }[]).map((t) => t.note).sort()).toEqual(['Caf\u00e9 refund', multiLine].sort());
    expect(overview.body.balance).toBe(14);

    await expectSound(ledger);
    const live = await verifyLive(store.env());
    expect([live.code, live.err]).toEqual([0, '']);
    expect(live.out).toMatch(/ledger is sound: 2 transfer\(s\)/);
  });

  it('applies the name rule to the stored (NFC) form of a character name: decomposed is taken composed; a name whose NFC breaks it is refused', async () => {
    const config = await store.fresh();
    const { auth } = await newPlayer(config, 'Zoe');
    const decomposed = await call(player, 'POST', '/api/characters', { body: { ...HERO, name: 'Zoe\u0308' }, headers: auth });
    expect([decomposed.status, (decomposed.body.character as { name?: string } | undefined)?.name]).toEqual([201, 'Zo\u00eb']);
    // U+FB2A is a letter; its NFC form ends in a combining mark, which the name rule does not take
    const widened = await call(player, 'POST', '/api/characters', { body: { ...HERO, name: 'ab\ufb2a' }, headers: auth });
    expect([widened.status, errorNames(widened)]).toEqual([400, ['/name']]);
  });

  it('stores skill loadout names in NFC and refuses controls and bidi characters in them, changing nothing', async () => {
    const config = await store.fresh();
    const { auth } = await newPlayer(config, 'Lo');
    const id = await newCharacter(auth);
    const path = `/api/characters/${id}/progress`;
    const patch = (key: string, name: string) =>
      call(player, 'PATCH', path, {
        body: { idempotencyKey: key, progress: { skill_loadouts: [{ name, skills: [SKILL] }] } },
        headers: { ...auth, 'If-Match': '"1"' },
      });
    for (const [key, name] of [
      ['loadout-bidi-01', 'PvE\u202e'],
      ['loadout-nul-001', 'Pv\u0000E'],
      ['loadout-tab-001', 'Pv\tE'],
      ['loadout-c1-0001', 'Pv\u009bE'],
    ]) {
      const r = await patch(key!, name!);
      expect([r.status, errorNames(r)], JSON.stringify(name)).toEqual([400, ['/progress/skill_loadouts/0/name']]);
    }
    const saved = await patch('loadout-nfd-001', 'Epe\u0301e');
    expect([saved.status, saved.body.progress_revision]).toEqual([200, 2]);
    const read = await call(player, 'GET', path, { headers: auth });
    expect((read.body.skill_loadouts as { name: string }[])[0]!.name).toBe('Ep\u00e9e');
  });

  it('refuses a file name (a storage key kept as metadata) holding a bidi override or isolate, storing nothing', async () => {
    await store.fresh({ STORAGE_DRIVER: 'local', STORAGE_PUBLIC_URL: 'http://cdn.test/storage' });
    const upload = async (route: string, fields: Record<string, string>, files: [string, Buffer][], field = 'file') => {
      const form = new FormData();
      for (const [k, v] of Object.entries(fields)) form.append(k, v);
      for (const [name, bytes] of files) form.append(field, new Blob([new Uint8Array(bytes)], { type: 'image/png' }), name);
      const res = await storage.POST(
        new Request(`http://t/api/storage/${route}`, { method: 'POST', headers: { 'X-Admin-Password': ADMIN_PASSWORD }, body: form }),
      );
      return { status: res.status, body: (await res.json()) as { results?: { name: string; status: string }[] } };
    };
    // shown as "iconpng.exe"-like text once rendered, stored under another name
    const renamed = await upload('upload', { folder: 'bidi' }, [['icon\u202egnp.png', png()]]);
    expect(renamed.status).toBe(400);
    const isolated = await upload('upload', { folder: 'bidi/\u2067x' }, [['ok.png', png()]]);
    expect(isolated.status).toBe(400);
    const several = await upload(
      'upload-multi',
      { folder: 'bidi' },
      [
        ['fine.png', png()],
        ['\u2066b.png', png(3, 3)],
      ],
      'files',
    );
    expect(several.body.results?.find((r) => r.name.includes('\u2066'))?.status ?? several.status).not.toBe('stored');
    const archive = await zip([{ name: 'a\u202eb.png', data: png() }]);
    const form = new FormData();
    form.append('folder', 'bidi-zip');
    form.append('file', new Blob([new Uint8Array(archive)], { type: 'application/zip' }), 'pack.zip');
    const zipped = await storage.POST(
      new Request('http://t/api/storage/upload-zip', { method: 'POST', headers: { 'X-Admin-Password': ADMIN_PASSWORD }, body: form }),
    );
    const zippedBody = (await zipped.json()) as { stored?: number };
    expect(zippedBody.stored ?? 0).toBe(0);
    const listed = await storage.GET(
      new Request('http://t/api/storage/list?prefix=bidi', { headers: { 'X-Admin-Password': ADMIN_PASSWORD } }),
    );
    const keys = ((await listed.json()) as { items: { key: string }[] }).items.map((i) => i.key);
    expect(keys.filter((k) => /[\u202a-\u202e\u2066-\u2069]/u.test(k))).toEqual([]);
  });
});
