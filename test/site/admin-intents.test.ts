// Idempotency keys of operator actions (site/admin/intents.ts; docs/architecture.md, "Operator console"):
// one key per intended action, the same key for the same intent until the service answers (a double click, a
// retry after a network error, a reload), a new key after an answer or for another intent; every key within
// the service's key rule.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../api/_lib/config.js';
import { ActionKeys, KEYED_ACTIONS, PENDING_KEY, intentId, newKey, type Intent } from '../../site/admin/intents.js';
import type { KeyValueStore } from '../../site/admin/session.js';

const defs = JSON.parse(readFileSync(join(PROJECT_ROOT, 'schemas/requests/defs.schema.json'), 'utf8')) as {
  $defs: { idempotencyKey: { pattern: string; maxLength: number } };
};
const KEY_RULE = new RegExp(defs.$defs.idempotencyKey.pattern);

function memory(): KeyValueStore & { readonly map: Map<string, string> } {
  const map = new Map<string, string>();
  return { map, getItem: (k) => map.get(k) ?? null, setItem: (k, v) => void map.set(k, v), removeItem: (k) => void map.delete(k) };
}

/** Keys `k1`, `k2`, … in order. */
const counter = () => {
  let n = 0;
  return () => `key-000${++n}`;
};

const grant = (over: Partial<Intent['params']> = {}): Intent => ({
  action: 'grant-coin',
  target: 'STUDIO_7QF3K2M9X4D1H8TB',
  params: { amount: 250, reason: 'outage', ...over },
});

describe('ActionKeys', () => {
  it('gives the same key to the same intent until the service answers, then a new one', () => {
    const keys = new ActionKeys(memory(), counter(), () => 1);
    expect(keys.keyFor(grant())).toEqual({ key: 'key-0001', retry: false });
    // a double click, a retry after a network error
    expect(keys.keyFor(grant())).toEqual({ key: 'key-0001', retry: true });
    // a reload between the lost answer and the retry
    expect(keys.keyFor(grant())).toEqual({ key: 'key-0001', retry: true });
    keys.answered(grant());
    expect(keys.keyFor(grant())).toEqual({ key: 'key-0002', retry: false });
  });

  it('gives another intent (any other value, the reason included) another key', () => {
    const keys = new ActionKeys(memory(), counter());
    const a = keys.keyFor(grant()).key;
    const others = [
      grant({ amount: 251 }),
      grant({ reason: 'outage ' }),
      { ...grant(), target: 'STUDIO_OTHER0000000000' },
      { ...grant(), action: 'reversal' as const },
    ].map((i) => keys.keyFor(i).key);
    expect(new Set([a, ...others]).size).toBe(5);
  });

  it('names an intent by its values, whatever their order', () => {
    expect(intentId({ action: 'ban', target: 't', params: { reason: 'r', until: null } })).toBe(
      intentId({ action: 'ban', target: 't', params: { until: null, reason: 'r' } }),
    );
    expect(intentId({ action: 'ban', target: 't', params: { reason: 'r', until: null } })).not.toBe(
      intentId({ action: 'ban', target: 't', params: { reason: 'r' } }),
    );
  });

  it('keeps pending intents in the tab’s storage, so a reload keeps their keys, and forgets them when answered or discarded', () => {
    const store = memory();
    const first = new ActionKeys(store, counter(), () => 1000);
    const key = first.keyFor(grant()).key;
    first.keyFor({ action: 'ban', target: 'STUDIO_B', params: { reason: 'r', until: null } });
    expect(PENDING_KEY).toBe('console.pending-actions');
    expect(JSON.parse(store.map.get(PENDING_KEY)!)).toHaveLength(2);
    const reloaded = new ActionKeys(store, () => 'never');
    expect(reloaded.keyFor(grant())).toEqual({ key, retry: true });
    expect(reloaded.pendingFor('STUDIO_7QF3K2M9X4D1H8TB')).toEqual([{ intent: grant(), key, since: 1000 }]);
    expect(reloaded.pendingFor().map((p) => p.intent.action)).toEqual(['grant-coin', 'ban']);
    reloaded.answered(grant());
    reloaded.discard({ action: 'ban', target: 'STUDIO_B', params: { reason: 'r', until: null } });
    expect(reloaded.pendingFor()).toEqual([]);
    expect(store.map.has(PENDING_KEY)).toBe(false);
  });

  it('lists pending intents oldest first', () => {
    let t = 3;
    const keys = new ActionKeys(memory(), counter(), () => t--);
    keys.keyFor(grant({ amount: 1 }));
    keys.keyFor(grant({ amount: 2 }));
    keys.keyFor(grant({ amount: 3 }));
    expect(keys.pendingFor().map((p) => p.intent.params.amount)).toEqual([3, 2, 1]);
  });

  it('drops what it cannot read back from storage, and works on when storage refuses writes', () => {
    const store = memory();
    store.setItem(
      PENDING_KEY,
      JSON.stringify([
        { intent: grant(), key: 'kept-0001', since: 5 },
        { intent: { ...grant(), action: 'steal' }, key: 'k', since: 1 },
        { intent: { ...grant(), params: { reason: 'r', nested: { a: 1 } } }, key: 'k', since: 1 },
        { intent: { ...grant(), params: 'reason' }, key: 'k', since: 1 },
        { intent: 'grant-coin', key: 'k', since: 1 },
        { intent: { ...grant(), params: [1] }, key: 'k', since: 1 },
        { intent: null, key: 'k', since: 1 },
        { intent: grant(), key: 7, since: 1 },
        { intent: grant(), key: 'k', since: '1' },
        { intent: { ...grant(), target: 1 }, key: 'k', since: 1 },
        'text',
        null,
      ]),
    );
    expect(new ActionKeys(store).pendingFor().map((p) => p.key)).toEqual(['kept-0001']);
    store.setItem(PENDING_KEY, '{not json');
    expect(new ActionKeys(store).pendingFor()).toEqual([]);
    store.setItem(PENDING_KEY, '{"a":1}');
    expect(new ActionKeys(store).pendingFor()).toEqual([]);
    const refusing: KeyValueStore = {
      getItem: () => null,
      setItem: () => {
        throw new Error('quota');
      },
      removeItem: () => {
        throw new Error('quota');
      },
    };
    const keys = new ActionKeys(refusing, counter());
    expect(keys.keyFor(grant()).key).toBe('key-0001');
    expect(keys.keyFor(grant())).toEqual({ key: 'key-0001', retry: true });
    expect(() => keys.answered(grant())).not.toThrow();
  });

  it('makes keys within the service’s key rule, one action name and a uuid', () => {
    for (const action of KEYED_ACTIONS) {
      const key = newKey(action);
      expect(key, action).toMatch(KEY_RULE);
      expect(key.length).toBeLessThanOrEqual(defs.$defs.idempotencyKey.maxLength);
      expect(key).toMatch(new RegExp(`^console-${action}-[0-9a-f-]{36}$`));
    }
    expect(newKey('erase', () => 'u')).toBe('console-erase-u');
    expect(new ActionKeys(memory()).keyFor(grant()).key).toMatch(/^console-grant-coin-/);
  });

  it('never gives one key to two intents, nor two keys to one intent between answers (model)', () => {
    const intent = fc.record({
      action: fc.constantFrom(...KEYED_ACTIONS),
      target: fc.constantFrom('STUDIO_A', 'STUDIO_B'),
      params: fc.record({ reason: fc.constantFrom('a', 'b'), amount: fc.constantFrom(1, 2) }),
    });
    const step = fc.record({ op: fc.constantFrom('key', 'answered'), intent });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const keys = new ActionKeys(memory(), counter());
        const model = new Map<string, string>();
        const used = new Set<string>();
        for (const s of steps) {
          const id = intentId(s.intent);
          if (s.op === 'answered') {
            keys.answered(s.intent);
            model.delete(id);
          } else {
            const { key, retry } = keys.keyFor(s.intent);
            expect(retry).toBe(model.has(id));
            if (model.has(id)) expect(key).toBe(model.get(id));
            else {
              expect(used.has(key)).toBe(false);
              model.set(id, key);
              used.add(key);
            }
          }
          expect(keys.pendingFor().length).toBe(model.size);
        }
      }),
    );
  });
});
