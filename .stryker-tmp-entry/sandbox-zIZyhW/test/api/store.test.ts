// @ts-nocheck
// The reader of build output (api/_lib/catalog/store.ts): each file parsed once per process and per
// configuration, a failed load retried, missing or corrupt data a 503 UPSTREAM_UNAVAILABLE (spec 7), and
// the build id every ETag starts from.
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { catalogBuildId, readCatalogJson } from '../../api/_lib/catalog/store.js';
import { MANIFEST_FILE } from '../../api/_lib/formats/index.js';
import { ServiceError } from '../../api/_lib/errors.js';
import { useCatalog } from '../helpers/service.js';

let dir = '';
const dirs: string[] = [];
const put = async (rel: string, text: string) => {
  await mkdir(dirname(join(dir, rel)), { recursive: true });
  await writeFile(join(dir, rel), text);
};

async function refusal(p: Promise<unknown>): Promise<ServiceError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ServiceError);
    return e as ServiceError;
  }
  throw new Error('expected a refusal');
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'store-'));
  dirs.push(dir);
  useCatalog(dir);
});
afterAll(async () => {
  useCatalog(undefined);
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe('readCatalogJson', () => {
  it('reads a file of the catalog folder once, then answers from memory', async () => {
    await put('api/v1/a.json', '{"n":1}');
    expect(await readCatalogJson('api/v1/a.json')).toEqual({ n: 1 });
    await put('api/v1/a.json', '{"n":2}');
    expect(await readCatalogJson('api/v1/a.json')).toEqual({ n: 1 });
  });

  it('runs a parse step once and keeps its result apart from the raw value', async () => {
    await put('x.json', '[1,2,3]');
    let runs = 0;
    const sum = (raw: unknown) => {
      runs++;
      return (raw as number[]).reduce((a, b) => a + b, 0);
    };
    expect(await readCatalogJson('x.json', sum)).toBe(6);
    expect(await readCatalogJson('x.json', sum)).toBe(6);
    expect(runs).toBe(1);
    expect(await readCatalogJson('x.json')).toEqual([1, 2, 3]);
  });

  it('answers 503 for a missing file, and reads it once it exists', async () => {
    const e = await refusal(readCatalogJson('late.json'));
    expect(e.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(e.status).toBe(503);
    expect(e.cause).toBeDefined();
    await put('late.json', '"here"');
    expect(await readCatalogJson('late.json')).toBe('here');
  });

  it('answers 503 for a corrupt file or a failing parse step, and retries after a fix', async () => {
    await put('bad.json', '{"n":');
    expect((await refusal(readCatalogJson('bad.json'))).code).toBe('UPSTREAM_UNAVAILABLE');
    await put('bad.json', '{"n":3}');
    expect(await readCatalogJson('bad.json')).toEqual({ n: 3 });
    const failing = () => {
      throw new Error('shape');
    };
    expect((await refusal(readCatalogJson('bad.json', failing))).code).toBe('UPSTREAM_UNAVAILABLE');
  });

  it('reads again after another configuration is put in force', async () => {
    await put('c.json', '1');
    expect(await readCatalogJson('c.json')).toBe(1);
    await put('c.json', '2');
    useCatalog(dir);
    expect(await readCatalogJson('c.json')).toBe(2);
  });
});

describe('catalogBuildId', () => {
  it('is the manifest buildId', async () => {
    await put(MANIFEST_FILE, JSON.stringify({ buildId: 'b-123' }));
    expect(await catalogBuildId()).toBe('b-123');
  });

  it('answers 503 when the manifest has no string buildId or is missing', async () => {
    expect((await refusal(catalogBuildId())).code).toBe('UPSTREAM_UNAVAILABLE');
    await put(MANIFEST_FILE, JSON.stringify({ buildId: 7 }));
    useCatalog(dir);
    const e = await refusal(catalogBuildId());
    expect(e.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(e.status).toBe(503);
  });
});
