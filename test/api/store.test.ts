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

describe('cache keys and causes', () => {
  it('keeps the raw and the parsed value of one file apart, whatever the file is called', async () => {
    await put('a.json#p', '"raw of a.json#p"');
    await put('a.json', '"raw of a.json"');
    const parsed = await readCatalogJson('a.json', (raw) => `parsed ${String(raw)}`);
    expect(parsed).toBe('parsed raw of a.json');
    expect(await readCatalogJson('a.json')).toBe('raw of a.json');
    expect(await readCatalogJson('a.json#p')).toBe('raw of a.json#p');
    expect(await readCatalogJson('a.json', () => 'other')).toBe('parsed raw of a.json');
  });

  it('keeps the file-system failure as the cause of a missing file, and the parse failure of a corrupt one', async () => {
    const missing = await refusal(readCatalogJson('none.json'));
    expect(missing.code).toBe('UPSTREAM_UNAVAILABLE');
    expect((missing.cause as NodeJS.ErrnoException).code).toBe('ENOENT');
    await put('bad.json', '{ nope');
    const corrupt = await refusal(readCatalogJson('bad.json'));
    expect(corrupt.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(corrupt.cause).toBeInstanceOf(SyntaxError);
    await put('odd.json', '[1]');
    const failed = await refusal(
      readCatalogJson('odd.json', () => {
        throw new RangeError('shape');
      }),
    );
    expect(failed.cause).toBeInstanceOf(RangeError);
  });
});

describe('what a refusal names', () => {
  it('keeps the parsed values of different files apart', async () => {
    await put('a.json', '1');
    await put('b.json', '2');
    const double = (raw: unknown) => Number(raw) * 2;
    expect(await readCatalogJson('a.json', double)).toBe(2);
    expect(await readCatalogJson('b.json', double)).toBe(4);
  });

  it('names the catalog file that is missing or corrupt, and the manifest without a build id', async () => {
    expect((await refusal(readCatalogJson('api/v1/none.json'))).message).toContain('api/v1/none.json');
    await put('api/v1/bad.json', '{');
    expect((await refusal(readCatalogJson('api/v1/bad.json'))).message).toContain('api/v1/bad.json');
    await put(MANIFEST_FILE, '{}');
    expect((await refusal(catalogBuildId())).message).toContain('buildId');
  });
});
