/**
 * A small hand-written registry output folder (the files of api/_lib/formats/registries.ts plus the
 * manifest), for handler tests of api/registries.ts that need exact control over the data, including
 * corrupt files. Every file is given as a path relative to the output folder and its JSON value.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { useCatalog } from './service.js';

/** Write `files` (relative path → JSON value, or raw text) to a new temporary folder and serve it. */
export async function serveOutput(files: Readonly<Record<string, unknown>>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'registry-output-'));
  for (const [path, value] of Object.entries(files)) {
    const abs = join(dir, path);
    await mkdir(dirname(abs), { recursive: true });
    await writeFile(abs, typeof value === 'string' ? value : JSON.stringify(value));
  }
  useCatalog(dir);
  return dir;
}

/** Stop serving `dir` and delete it. */
export async function dropOutput(dir: string): Promise<void> {
  useCatalog(undefined);
  await rm(dir, { recursive: true, force: true });
}
