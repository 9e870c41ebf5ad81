// Each function bundles only what its routes read (docs/architecture.md, "Functions"), proved two ways:
// 1. @vercel/nft, the tracer Vercel uses, traces each entry (as the JavaScript Vercel runs) and finds no
//    catalog file: catalog data reaches a function only through its includeFiles.
// 2. Over a copy of the sample build that holds only an entry's includeFiles, every route of the entry
//    answers (never 503), and removing the files of any one of its globs makes some route answer 503: the
//    entry reads what it bundles, and bundles nothing it does not read.
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { tmpdir } from 'node:os';
import picomatch from 'picomatch';
import { nodeFileTrace } from '@vercel/nft';
import { afterAll, describe, expect, it } from 'vitest';
import { ENTRIES, routesOf, type EntryName } from '../../api/_lib/routing/table.js';
import { ENTRY_CATALOG_FILES } from '../../api/_lib/routing/bundles.js';
import { transpileTree } from '../../dev/transpile.js';
import { REPO_ROOT, SAMPLE_OUT } from '../helpers/catalog.js';
import { useCatalog } from '../helpers/service.js';

const temps: string[] = [];
afterAll(async () => {
  useCatalog(undefined);
  await Promise.all(temps.map((d) => rm(d, { recursive: true, force: true })));
});

async function listFiles(root: string, dir = root): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const abs = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await listFiles(root, abs)));
    else out.push(relative(root, abs).split('\\').join('/'));
  }
  return out;
}

/** Requests per route (one, or several where the route reads different files), with what each needs to answer 200 or a 4xx on the sample build. */
const SAMPLE_QUERY: Readonly<Record<string, string | readonly string[]>> = {
  search: '?q=blade',
  // unfiltered: the prebuilt body; filtered: the export file
  export: ['?type=weapons', '?type=weapons&tier=1'],
  'sprites-search': '?q=demon',
  'icons-search': '?q=sword',
  'legacy-search': '?q=sword',
  'icons-by-path': '?path=icons/weapon/sword.png',
};

/**
 * The player entry's routes need a logged-in caller with an account, and read the catalog only where a
 * body names catalog ids: one request per route that gets that far.
 */
async function playerStatuses(dir: string): Promise<Record<string, number>> {
  const data = await mkdtemp(join(tmpdir(), 'bundle-data-'));
  temps.push(data);
  useCatalog(dir, { JWT_SECRET: 'bundle-secret-0123456789-abcdefghij', STORE_DRIVER: 'sqlite', DATA_DIR: data });
  const { getServiceConfig } = await import('../../api/_lib/config.js');
  const { mintToken } = await import('../../api/_lib/auth/tokens.js');
  const { ledgerStore } = await import('../../api/_lib/ledger/store.js');
  const { mintStudioId, mintUuid } = await import('../../api/_lib/ledger/ids.js');
  const studioId = mintStudioId();
  const accountId = mintUuid();
  await (
    await ledgerStore()
  ).createAccount({
    account: {
      accountId,
      studioId,
      displayName: 'B',
      userId: mintUuid(),
      username: `u-${accountId}`,
      createdAt: '2026-11-23T00:00:00.000Z',
    },
    clientKey: undefined,
    fingerprint: 'f',
  });
  const auth = {
    Authorization: `Bearer ${await mintToken(getServiceConfig().jwt, { subject: studioId, role: 'player' })}`,
    'Content-Type': 'application/json',
  };
  const mod = (await import('../../api/player.js')) as unknown as Record<string, (r: Request) => Promise<Response>>;
  const server = {
    ...auth,
    Authorization: `Bearer ${await mintToken(getServiceConfig().jwt, { subject: 'STUDIO_GAMESERVER', role: 'server' })}`,
  };
  const send = async (method: string, path: string, body?: unknown, headers: Record<string, string> = auth) => {
    const res = await mod[method]!(
      new Request(`http://t${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }),
    );
    await res.body?.cancel();
    return res.status;
  };
  return {
    'spec GET': await send('GET', '/api/island/spec'),
    'state GET': await send('GET', '/api/island/state'),
    'characters POST': await send('POST', '/api/characters', {
      era: 'warlords',
      name: 'Ada',
      classId: 'warrior',
      raceId: 'human',
      factionId: 'crusade',
    }),
    'characters GET': await send('GET', '/api/characters?era=warlords'),
    'recipes POST': await send('POST', '/api/account/recipes', { recipeId: 'RECP-20260601100000-000123-64A3D698' }),
    'grant POST': await send(
      'POST',
      '/api/inventory/grant',
      { definitionId: 'MATL-20260601090000-000101-F469B3E9', studioId, quantity: 1, idempotencyKey: 'bundle-grant-1' },
      server,
    ),
    'uuid POST': await send(
      'POST',
      '/api/uuid',
      { definitionId: 'ITEM-20260601093000-00010D-B1F512C1', studioId, idempotencyKey: 'bundle-mint-1' },
      server,
    ),
  };
}

async function statuses(entry: EntryName, dir: string): Promise<Record<string, number>> {
  if (entry === 'player') return playerStatuses(dir);
  useCatalog(dir);
  const mod = (await import(`../../api/${entry}.ts`)) as { GET: (r: Request) => Promise<Response> };
  const out: Record<string, number> = {};
  for (const route of routesOf(entry)) {
    if (route.gone) continue;
    const path = route.path.replace('{key}', 'some-key');
    for (const query of [SAMPLE_QUERY[route.name] ?? ''].flat()) {
      const res = await mod.GET(new Request(`http://t${path}${query}`));
      await res.body?.cancel();
      out[`${route.name} ${path}${query}`] = res.status;
    }
  }
  return out;
}

/** A copy of the sample build holding only the files matched by `globs`. */
async function partialCopy(files: readonly string[], globs: readonly string[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'bundle-'));
  temps.push(dir);
  const match = picomatch([...globs]);
  for (const f of files.filter((x) => match(x))) await cp(join(SAMPLE_OUT, f), join(dir, f), { recursive: true });
  return dir;
}

/** The entries whose routes read JSON bodies (`readJsonBody`). */
const BODY_ENTRIES: readonly string[] = ['wallet', 'admin', 'storage', 'player'];

describe('@vercel/nft traces no catalog file into any entry', () => {
  it.each(ENTRIES)('api/%s.ts', async (entry) => {
    const outDir = join(REPO_ROOT, '.tmp', 'nft', entry);
    await rm(outDir, { recursive: true, force: true });
    const js = transpileTree(join(REPO_ROOT, 'api', `${entry}.ts`), outDir);
    const { fileList } = await nodeFileTrace([js], { base: REPO_ROOT });
    const files = [...fileList];
    expect(files).toContain(relative(REPO_ROOT, js));
    const own = relative(REPO_ROOT, dirname(js));
    expect(files.filter((f) => f.startsWith(own + '/_lib/')).length, 'shared modules are traced').toBeGreaterThan(0);
    const catalogFiles = files.filter(
      (f) => !f.startsWith('node_modules/') && (/^(dist|catalog-src|\.tmp\/test-builds)\//.test(f) || /api\/v1\/.*\.json$/.test(f)),
    );
    expect(catalogFiles).toEqual([]);
    // a read-only entry carries no body validator; one that reads bodies carries the validators compiled
    // ahead of time and Ajv's one runtime helper they use, never Ajv's compiler nor ajv-formats
    const validator = files.filter((f) => f.startsWith('node_modules/ajv') || f.endsWith('/request-validators.js'));
    if (!BODY_ENTRIES.includes(entry)) expect(validator).toEqual([]);
    else
      expect(validator.sort()).toEqual([
        `${own}/_lib/validation/request-validators.js`,
        'node_modules/ajv/dist/runtime/ucs2length.js',
        'node_modules/ajv/package.json',
      ]);
  });
});

describe('each entry bundles exactly the catalog files its routes read', async () => {
  const files = await listFiles(SAMPLE_OUT);

  it.each(ENTRIES)('api/%s.ts answers every route from its includeFiles alone', async (entry) => {
    for (const glob of ENTRY_CATALOG_FILES[entry])
      expect(
        files.some((f) => picomatch.isMatch(f, glob)),
        glob,
      ).toBe(true);
    const got = await statuses(entry, await partialCopy(files, ENTRY_CATALOG_FILES[entry]));
    for (const [route, status] of Object.entries(got)) expect(status, route).toBeLessThan(500);
  });

  it.each(ENTRIES)('api/%s.ts needs each of its includeFiles globs', async (entry) => {
    const globs = ENTRY_CATALOG_FILES[entry];
    for (const left of globs) {
      const got = await statuses(
        entry,
        await partialCopy(
          files,
          globs.filter((g) => g !== left),
        ),
      );
      expect(Object.values(got), `without ${left}`).toContain(503);
    }
  });

  it('bundles no per-item static file and no source catalog file into any entry (but the recipes and materials the player entry checks ids against)', () => {
    const all = ENTRIES.flatMap((e) => ENTRY_CATALOG_FILES[e]);
    const match = picomatch(all);
    const source = (f: string) =>
      /^api\/v1\/master-/.test(f) && !['api/v1/master-recipes.json', 'api/v1/master-materials.json'].includes(f);
    expect(files.filter((f) => match(f) && (/^api\/v1\/(relics|enchants|infusions|artifacts)\//.test(f) || source(f)))).toEqual([]);
  });
});
