/**
 * Storing received files (`api/_lib/storage/service.ts`, spec 4.7): per-file results in order, and no part
 * of a request left behind when the storage fails midway (what it had stored is deleted again, then the
 * 503 is thrown). Runs on the local adapter, wrapped to fail on demand.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceError } from '../../api/_lib/errors.js';
import { localStorageAdapter } from '../../api/_lib/storage/local.js';
import { checkFolder, storeFiles } from '../../api/_lib/storage/service.js';
import { openStaging, type StagingArea } from '../../api/_lib/storage/staging.js';
import type { StorageAdapter } from '../../api/_lib/storage/types.js';
import { glb, html, png } from '../helpers/media.js';

let dir: string;
let staging: StagingArea;
let local: StorageAdapter;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'storage-service-'));
  local = localStorageAdapter(dir, 'http://cdn.test/s');
  staging = await openStaging();
});
afterAll(async () => {
  await staging.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const incoming = async (name: string, bytes: Buffer) => ({ name, staged: await staging.stage(Readable.from([bytes]), 1 << 20, name) });
const keys = async (prefix: string) => (await local.list({ prefix, startAfter: undefined, limit: 100 })).items.map((i) => i.key);

describe('storeFiles', () => {
  it('answers one result per file, in order, stored or refused with its code', async () => {
    const files = [
      await incoming('a.png', png()),
      await incoming('b.png', html()),
      await incoming('c/../d.png', png()),
      await incoming('a.png', png(1, 1, 9)),
      await incoming('m.glb', glb()),
    ];
    const results = await storeFiles(local, files, 'ok');
    expect(results.map((r) => [r.name, r.status, r.status === 'refused' ? r.code : r.key])).toEqual([
      ['a.png', 'stored', 'ok/a.png'],
      ['b.png', 'refused', 'UNKNOWN_TYPE'],
      ['c/../d.png', 'refused', 'INVALID_KEY'],
      ['a.png', 'refused', 'DUPLICATE_KEY'],
      ['m.glb', 'stored', 'ok/m.glb'],
    ]);
    expect(results[0]).toMatchObject({ url: 'http://cdn.test/s/ok/a.png', contentType: 'image/png', sha256: files[0]!.staged.sha256 });
    expect(results[3]).toEqual({
      name: 'a.png',
      status: 'refused',
      key: 'ok/a.png',
      code: 'DUPLICATE_KEY',
      reason: 'Another file of this request has the same key; only the first is stored.',
    });
    expect(await keys('ok/')).toEqual(['ok/a.png', 'ok/m.glb']);
  });

  it('deletes what the request stored when the storage fails midway, then throws its error', async () => {
    let puts = 0;
    const failing: StorageAdapter = {
      ...local,
      put: async (key, file, type) => {
        if (++puts === 3) throw new ServiceError('UPSTREAM_UNAVAILABLE', 'down');
        return local.put(key, file, type);
      },
    };
    const files = [await incoming('1.png', png(1, 1, 1)), await incoming('2.png', png(1, 1, 2)), await incoming('3.png', png(1, 1, 3))];
    await expect(storeFiles(failing, files, 'half')).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
    expect(await keys('half/')).toEqual([]);
  });
});

describe('checkFolder', () => {
  it('trims slashes and spaces, and refuses a folder that cannot prefix a key', () => {
    expect(checkFolder(undefined)).toBe('');
    expect(checkFolder('  ')).toBe('');
    expect(checkFolder('/era1/models/')).toBe('era1/models');
    expect(checkFolder(' era1 ')).toBe('era1');
    expect(checkFolder('//era1/x//')).toBe('era1/x');
    for (const bad of ['a/../b', 'a//b', 'a\\b', '..']) expect(() => checkFolder(bad), bad).toThrow(ServiceError);
    expect(() => checkFolder('a/./b')).toThrow(/folder cannot prefix a key/);
    const e = (() => {
      try {
        checkFolder('a/../b');
      } catch (x) {
        return x as ServiceError;
      }
      return undefined;
    })();
    expect(e).toMatchObject({
      code: 'INVALID_BODY',
      message: 'The folder cannot prefix a key: The key has a ".." segment.',
      errors: [{ name: 'folder', message: 'The key has a ".." segment.', value: 'a/../b' }],
    });
  });
});
