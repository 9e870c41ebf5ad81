// A catalog's own {cdn_url} files (dev/cdn-files.ts): which build uses the local storage as {cdn_url}, and
// placing the files in storage as an upload would store them (docs/architecture.md, "Sample binaries").
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listCdnFiles, localCdnUrl, placeCdnFiles } from '../../dev/cdn-files.js';
import { localStorageAdapter } from '../../api/_lib/storage/local.js';
import { html, png } from '../helpers/media.js';

let tmp: string;
let src: string;
beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'cdn-files-'));
  src = join(tmp, 'catalog');
  await mkdir(join(src, 'cdn/game-assets/icons'), { recursive: true });
});
afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const local = (publicUrl: string) => ({ driver: 'local' as const, dir: join(tmp, 'storage'), publicUrl });

describe('localCdnUrl', () => {
  it("is the local storage's public URL, without a trailing slash, for a catalog with a cdn/ folder", () => {
    expect(localCdnUrl(src, local('http://localhost:4000/storage/'))).toBe('http://localhost:4000/storage');
  });
  it('leaves the config’s cdn_url for a catalog without cdn/ and for any other storage', () => {
    expect(localCdnUrl(join(tmp, 'elsewhere'), local('http://localhost:4000/storage'))).toBeUndefined();
    expect(localCdnUrl(src, { driver: 'none', reason: 'unset' } as never)).toBeUndefined();
  });
});

describe('listCdnFiles and placeCdnFiles', () => {
  it('lists files by key, sorted, without dot-files; none without the folder', async () => {
    await writeFile(join(src, 'cdn/game-assets/icons/b.png'), png(2, 2, 1));
    await writeFile(join(src, 'cdn/game-assets/icons/a.png'), png(2, 2, 2));
    await writeFile(join(src, 'cdn/game-assets/.DS_Store'), 'x');
    expect((await listCdnFiles(src)).map((f) => f.key)).toEqual(['game-assets/icons/a.png', 'game-assets/icons/b.png']);
    expect(await listCdnFiles(join(tmp, 'none'))).toEqual([]);
  });

  it('stores each file at its key with its sniffed type, keeps what is already there, replaces what changed, refuses what an upload refuses', async () => {
    const storage = localStorageAdapter(join(tmp, 'storage'), 'http://localhost:4000/storage');
    await writeFile(join(src, 'cdn/game-assets/icons/a.png'), png(2, 2, 1));
    await writeFile(join(src, 'cdn/game-assets/icons/b.png'), png(2, 2, 2));
    await writeFile(join(src, 'cdn/game-assets/icons/page.png'), html());
    await writeFile(join(src, 'cdn/game-assets/icons/x\u202egnp.png'), png(2, 2, 3));
    const first = await placeCdnFiles(src, storage);
    expect(first.placed).toEqual(['game-assets/icons/a.png', 'game-assets/icons/b.png']);
    expect(first.kept).toEqual([]);
    expect(first.refused.map((r) => r.key)).toEqual(['game-assets/icons/page.png', 'game-assets/icons/x\u202egnp.png']);
    expect(first.refused[0]!.reason).toMatch(/type/i);
    expect(await storage.head('game-assets/icons/page.png')).toBeUndefined();
    const a = await storage.head('game-assets/icons/a.png');
    expect(a).toMatchObject({ contentType: 'image/png', size: png(2, 2, 1).length });

    await writeFile(join(src, 'cdn/game-assets/icons/b.png'), png(3, 3, 2));
    const second = await placeCdnFiles(src, storage);
    expect(second.placed).toEqual(['game-assets/icons/b.png']);
    expect(second.kept).toEqual(['game-assets/icons/a.png']);
    expect((await storage.head('game-assets/icons/a.png'))?.lastModified).toBe(a?.lastModified);
    expect((await storage.head('game-assets/icons/b.png'))?.size).toBe(png(3, 3, 2).length);
  });
});
