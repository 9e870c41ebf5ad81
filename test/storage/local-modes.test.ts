// The local storage adapter keeps what it stores to the service's own user (docs/architecture.md, "Store
// kit": folders 0700, files 0600), whatever the process's umask lets through.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { localStorageAdapter } from '../../api/_lib/storage/local.js';
import { openStaging, type StagingArea } from '../../api/_lib/storage/staging.js';

let dir = '';
let staging: StagingArea;
let umask = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'storage-modes-'));
  staging = await openStaging();
  // the most permissive umask: any mode the adapter does not set itself would show
  umask = process.umask(0);
});
afterAll(async () => {
  process.umask(umask);
  await staging.dispose();
  rmSync(dir, { recursive: true, force: true });
});

it('creates its folders 0700 and its object and record files 0600', async () => {
  const adapter = localStorageAdapter(join(dir, 'storage'), 'http://cdn.test/storage');
  await adapter.put('era1/a.glb', await staging.stage(Readable.from([Buffer.from('glTF')]), 1 << 20, 'file'), 'model/gltf-binary');
  const objects = join(dir, 'storage', 'objects');
  expect(statSync(join(dir, 'storage')).mode & 0o777).toBe(0o700);
  expect(statSync(objects).mode & 0o777).toBe(0o700);
  const files = readdirSync(objects);
  expect(files).toHaveLength(2);
  for (const f of files) expect(statSync(join(objects, f)).mode & 0o777, f).toBe(0o600);
});
