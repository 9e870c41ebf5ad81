/**
 * Which player store a configuration opens (`api/_lib/player/store.ts`; spec 1.8): the SQLite file or the
 * Redis database of the ledger's configuration, none where no store is configured (503 naming the
 * feature, the reason its cause for the operator's log only), and one store per configuration in force, closed
 * when the next configuration takes over.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ConfigError, loadServiceConfig, useServiceConfig } from '../../api/_lib/config.js';
import { openPlayerStore, playerStore, refusingBanned } from '../../api/_lib/player/store.js';
import type { PlayerStore } from '../../api/_lib/player/types.js';
import { refusal } from '../helpers/ledger-ops.js';

const dir = mkdtempSync(join(tmpdir(), 'player-store-'));
afterAll(() => {
  useServiceConfig(undefined);
  rmSync(dir, { recursive: true, force: true });
});

describe('openPlayerStore', () => {
  it('opens the driver the configuration names', async () => {
    const sqlite = await openPlayerStore({ driver: 'sqlite', file: join(dir, 'a.sqlite') });
    expect(sqlite.driver).toBe('sqlite');
    await sqlite.close();
    // a REST target connects on the first command: opening sends nothing
    const config = loadServiceConfig({
      STORE_DRIVER: 'redis',
      UPSTASH_REDIS_REST_URL: 'https://redis.invalid',
      UPSTASH_REDIS_REST_TOKEN: 'AX4sAAIjcDE2Yjk3NGQ5MGRhMmI',
      JWT_SECRET: 'player-store-secret-0123456789-abcdef',
    });
    const redis = await openPlayerStore(config.store);
    expect(redis.driver).toBe('redis');
  });

  it('answers 503 naming player state where no store is configured, the reason kept as its cause for the log', async () => {
    const e = await refusal(openPlayerStore({ driver: 'none', reason: 'is not set; set STORE_DRIVER=redis.' }));
    expect([e.code, e.message]).toEqual(['UPSTREAM_UNAVAILABLE', 'Player state is not available on this deployment.']);
    expect(e.cause).toBeInstanceOf(ConfigError);
    expect((e.cause as ConfigError).problems).toEqual([{ variable: 'STORE_DRIVER', message: 'is not set; set STORE_DRIVER=redis.' }]);
  });
});

describe('playerStore', () => {
  it('is one store per configuration in force, the previous one closed when the next takes over', async () => {
    useServiceConfig(
      loadServiceConfig({ STORE_DRIVER: 'sqlite', DATA_DIR: join(dir, 'one'), JWT_SECRET: 'player-store-secret-0123456789-abcdef' }),
    );
    const first = await playerStore();
    expect(await playerStore()).toBe(first);
    const closed = vi.spyOn(first, 'close');
    useServiceConfig(
      loadServiceConfig({ STORE_DRIVER: 'sqlite', DATA_DIR: join(dir, 'two'), JWT_SECRET: 'player-store-secret-0123456789-abcdef' }),
    );
    const second = await playerStore();
    expect(second).not.toBe(first);
    expect(second.driver).toBe('sqlite');
    expect(closed).toHaveBeenCalledTimes(1);
  });
});

describe('refusingBanned', () => {
  it('asks every island save, progress save, recipe, mint, item event and bag change to refuse a banned account, and passes the rest through', async () => {
    const seen: [string, unknown][] = [];
    const record =
      (name: string) =>
      (...args: unknown[]) => {
        seen.push([name, args]);
        return Promise.resolve(name);
      };
    const names = [
      'saveIsland',
      'saveProgress',
      'learnRecipe',
      'mintItem',
      'recordItemEvent',
      'changeBag',
      'reverseBag',
      'bag',
      'createCharacter',
    ];
    const base = { driver: 'sqlite', ...Object.fromEntries(names.map((n) => [n, record(n)])) } as unknown as PlayerStore;
    const view = refusingBanned(base);
    const input = { at: 't' };
    await view.saveIsland('a', input as never);
    await view.saveProgress('a', 'c', input as never);
    await view.learnRecipe('a', 'r', 't');
    await view.mintItem(input as never);
    await view.recordItemEvent(input as never);
    await view.changeBag(input as never);
    await view.reverseBag(input as never);
    await view.bag('a');
    await view.createCharacter(input as never);
    const flagged = { at: 't', refuseBanned: true };
    expect(seen).toEqual([
      ['saveIsland', ['a', flagged]],
      ['saveProgress', ['a', 'c', flagged]],
      ['learnRecipe', ['a', 'r', 't', { refuseBanned: true }]],
      ['mintItem', [flagged]],
      ['recordItemEvent', [flagged]],
      ['changeBag', [flagged]],
      ['reverseBag', [input]],
      ['bag', ['a']],
      ['createCharacter', [input]],
    ]);
    expect(view.driver).toBe('sqlite');
    // the input itself is left as it was
    expect(input).toEqual({ at: 't' });
  });
});
