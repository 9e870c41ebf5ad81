/**
 * Where the previous published build comes from (docs/architecture.md, "Build"; docs/deploy.md, "The
 * change feed across builds"). The change feed and the kept versioned copies (`changes.ts`) compare with
 * the previous build's files. By default they are the output folder this build replaces, which is there
 * on one long-lived machine but never on a fresh build container (Vercel builds each deployment from a
 * clean checkout). The catalog config's `previousBuild` (or the build's `--previous`) names a durable
 * place instead:
 *
 * - a **folder** holding a previous output (`dist/` kept by a CI cache, a synced copy): read as it is;
 * - the **base URL of the deployed site** (`https://game.example.com`): the files the comparison reads are
 *   fetched from the site's own static output into a scratch folder first ({@link fetchPreviousBuild}):
 *   `api/v1/game-data-manifest.json`, `api/v1/master-registry.json`, `api/v1/versions.json`, the files of
 *   the previous table that hold definitions and whose hash differs from this build's, and every file of
 *   the kept versioned copies (`v/{buildId}/…`). Every fetched file is checked against the sha256 its
 *   manifest lists, so a page that is not the file (an HTML error page, a newer deployment) stops the build.
 *
 * A site that answers 404 for its manifest has never published a build: this build is the first (every
 * file and definition added). Any other failure stops the build rather than publish a feed that would
 * tell every consumer that everything changed: unreachable, an answer other than 200 (a 5xx, a 404 for a
 * file the manifest or the version list names, a redirect, which is never followed: name the address the
 * site answers on), a file whose hash or size differs, a file larger than its manifest lists (or than
 * {@link PREVIOUS_MAX_FILE_BYTES}), no complete answer within {@link PREVIOUS_TIMEOUT_MS}, or a manifest that
 * lists a path outside the output folder (`../`, absolute, a backslash): nothing is written outside the
 * scratch folder. The URL is checked first (rule 3 of `api/_lib/config.ts`): `https://`, `http://` only on
 * the loopback interface, no credentials, query or fragment.
 */
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import { CHANGES_FILE, VERSIONS_FILE, versionedFile, type FileHash } from '../../api/_lib/formats/changes.js';
import { MANIFEST_FILE, MASTER_REGISTRY_FILE, publishedFile } from '../../api/_lib/formats/layout.js';
import { isRecord } from '../../api/_lib/util/json.js';
import { isOutputPath, NOT_VERSIONED } from './changes.js';

/** Thrown when the previous build cannot be read from its URL; the build stops with it (exit 2). */
export class PreviousBuildError extends Error {
  override readonly name = 'PreviousBuildError';
}

/**
 * True when `source` names a URL (a scheme then `://`: `https://…`, but also `file://…` or `ftp://…`,
 * which {@link previousBase} refuses) rather than a folder.
 */
export function isPreviousUrl(source: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(source);
}

/** Host names of the loopback interface as `URL.hostname` gives them (as `LOOPBACK_HOSTS` of `api/_lib/config.ts`). */
const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * The base URL of a previous build, checked (module header; rule 3 of `api/_lib/config.ts`): an
 * `https://` URL, `http://` only on 127.0.0.1, [::1] or localhost, without credentials, query or fragment.
 * @returns the URL without trailing slashes.
 * @throws PreviousBuildError saying what to set; it never repeats the URL (it may carry a password).
 */
export function previousBase(source: string): string {
  const refuse = (why: string) => new PreviousBuildError(`The previous build's URL ${why}.`);
  let u: URL;
  try {
    u = new URL(source);
  } catch {
    throw refuse('is not a URL: give the deployed site as https://game.example.com, or a folder');
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw refuse('must be an https:// URL (or a folder path)');
  if (u.protocol === 'http:' && !LOOPBACK.has(u.hostname))
    throw refuse('must be an https:// URL (http:// only on 127.0.0.1, [::1] or localhost): the files must come from the site itself');
  if (u.username !== '' || u.password !== '') throw refuse('must not carry credentials (the site is read as any visitor reads it)');
  if (u.search !== '' || u.hash !== '') throw refuse('must not carry a query or fragment');
  return source.replace(/\/+$/, '');
}

/** Longest wait for one file of the previous build, its answer and its whole body, milliseconds. */
export const PREVIOUS_TIMEOUT_MS = 30_000;

/** Largest file read from the previous build, bytes (a listed file is also held to the size its manifest lists). */
export const PREVIOUS_MAX_FILE_BYTES = 256 * 1024 * 1024;

/** Options of {@link fetchPreviousBuild}. */
export interface FetchPreviousOptions {
  /** `fetch` to use (tests pass a fake); default the global one. */
  readonly fetch?: typeof fetch;
  /** Requests at a time; default 8. */
  readonly concurrency?: number;
  /** Longest wait for one file, milliseconds; default {@link PREVIOUS_TIMEOUT_MS}. */
  readonly timeoutMs?: number;
  /** Largest file, bytes; default {@link PREVIOUS_MAX_FILE_BYTES}. */
  readonly maxFileBytes?: number;
}

/** What {@link fetchPreviousBuild} found: the previous build id (null: the site has published none) and how many files it fetched. */
export interface FetchedPrevious {
  readonly buildId: string | null;
  readonly files: number;
}

const tableOf = (manifest: unknown): FileHash[] =>
  isRecord(manifest) && Array.isArray(manifest.files)
    ? (manifest.files as unknown[]).filter(
        (f): f is FileHash =>
          isRecord(f) &&
          typeof f.path === 'string' &&
          typeof f.sha256 === 'string' &&
          typeof f.bytes === 'number' &&
          Number.isSafeInteger(f.bytes) &&
          f.bytes >= 0,
      )
    : [];

/** A path from the site, quoted for a message (escaped, cut to 120 characters). */
const quoted = (path: string): string => JSON.stringify(path.slice(0, 120));

/** What a download expects: the listed hash and size, and whether a 404 is an error. */
interface Expected {
  readonly sha256?: string;
  readonly bytes?: number;
  /** A 404 stops the build (the file is listed); otherwise it answers undefined. */
  readonly required: boolean;
}

/**
 * Fetch what the comparison with the previous build reads from the deployed site at `base` into the
 * folder `into`, laid out as an output folder (module header).
 * @param current this build's id and file table (only the files that differ are fetched).
 * @param keepBuilds the catalog config's `keepBuilds` (this build included).
 * @throws PreviousBuildError naming the URL when the site cannot be read, a file is not what its
 *   manifest lists, or the URL itself is refused ({@link previousBase}).
 */
export async function fetchPreviousBuild(
  base: string,
  into: string,
  current: { readonly buildId: string; readonly files: readonly FileHash[] },
  keepBuilds: number,
  options: FetchPreviousOptions = {},
): Promise<FetchedPrevious> {
  const get = options.fetch ?? fetch;
  const root = previousBase(base);
  const timeoutMs = options.timeoutMs ?? PREVIOUS_TIMEOUT_MS;
  const maxBytes = options.maxFileBytes ?? PREVIOUS_MAX_FILE_BYTES;
  const folder = resolve(into);
  let fetched = 0;
  const fail = (why: string) => new PreviousBuildError(`The previous build cannot be read: ${why}.`);
  /** The bytes of `path`, or undefined for a 404 of a file not required; checked against what is expected. */
  const download = async (path: string, expected: Expected): Promise<Buffer | undefined> => {
    const target = resolve(folder, path);
    if (!isOutputPath(path) || !target.startsWith(folder + sep))
      throw fail(`${root} lists ${quoted(path)}, a path outside the output folder`);
    const url = `${root}/${path.split('/').map(encodeURIComponent).join('/')}`;
    const signal = AbortSignal.timeout(timeoutMs);
    const late = () => fail(`${url} did not answer in full within ${timeoutMs / 1000} s`);
    let res: Response;
    try {
      res = await get(url, { headers: { 'Cache-Control': 'no-cache' }, redirect: 'manual', signal });
    } catch (e) {
      if (signal.aborted) throw late();
      throw fail(`${url} cannot be reached (${(e as Error).message})`);
    }
    if (res.status === 404 && !expected.required) {
      await res.body?.cancel().catch(() => undefined);
      return undefined;
    }
    if (res.status !== 200) {
      await res.body?.cancel().catch(() => undefined);
      if (res.status >= 300 && res.status < 400) {
        let to = 'elsewhere';
        try {
          const u = new URL(res.headers.get('location') ?? '', url);
          to = `to ${u.protocol}//${u.host}`;
        } catch {
          // no usable Location: "elsewhere"
        }
        throw fail(`${url} answered ${res.status}, a redirect ${to}, which is not followed; name the address the site answers on`);
      }
      if (res.status === 404) throw fail(`${url} answered 404, yet the previous build lists it`);
      throw fail(`${url} answered ${res.status}`);
    }
    const limit = Math.min(maxBytes, expected.bytes ?? maxBytes);
    const tooLarge = () =>
      fail(
        expected.bytes === undefined
          ? `${url} is larger than ${maxBytes} bytes`
          : `${url} is larger than the ${expected.bytes} bytes its manifest lists`,
      );
    const declared = Number(res.headers.get('content-length') ?? NaN);
    if (declared > limit) {
      await res.body?.cancel().catch(() => undefined);
      throw tooLarge();
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    try {
      if (res.body)
        for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
          size += chunk.byteLength;
          if (size > limit) {
            await res.body.cancel().catch(() => undefined);
            throw tooLarge();
          }
          chunks.push(chunk);
        }
    } catch (e) {
      if (e instanceof PreviousBuildError) throw e;
      if (signal.aborted) throw late();
      throw fail(`${url} broke off (${(e as Error).message})`);
    }
    const bytes = Buffer.concat(chunks);
    if (
      (expected.sha256 !== undefined && createHash('sha256').update(bytes).digest('hex') !== expected.sha256) ||
      (expected.bytes !== undefined && bytes.length !== expected.bytes)
    )
      throw fail(`${url} is not the file its manifest lists (another sha256)`);
    try {
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, bytes);
    } catch (e) {
      throw fail(`${url} cannot be laid out in the scratch folder (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
    fetched++;
    return bytes;
  };
  const json = (path: string, bytes: Buffer | undefined): unknown => {
    if (bytes === undefined) return undefined;
    try {
      return JSON.parse(bytes.toString('utf8')) as unknown;
    } catch {
      throw fail(`${root}/${path} is not JSON (an error or login page answered 200?)`);
    }
  };
  /** Download `files` (with their hashes and sizes), `concurrency` at a time; every one is required. */
  const downloadAll = async (files: readonly { path: string; sha256?: string; bytes?: number }[]): Promise<void> => {
    let next = 0;
    let failure: Error | undefined;
    const worker = async (): Promise<void> => {
      while (failure === undefined && next < files.length) {
        const f = files[next++]!;
        try {
          await download(f.path, { ...f, required: true });
        } catch (e) {
          failure ??= e instanceof Error ? e : new Error(String(e));
        }
      }
    };
    // every worker stops before the first failure is thrown, so the caller can remove the folder
    await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 8) }, worker));
    if (failure !== undefined) throw failure;
  };
  /** `files` once each (a hostile manifest may list a path twice). */
  const unique = <T extends { path: string }>(files: readonly T[]): T[] => [...new Map(files.map((f) => [f.path, f])).values()];

  const manifest = json(MANIFEST_FILE, await download(MANIFEST_FILE, { required: false }));
  if (manifest === undefined) return { buildId: null, files: 0 };
  if (!isRecord(manifest) || typeof manifest.buildId !== 'string' || !/^[0-9a-f]{20}$/.test(manifest.buildId))
    throw fail(`${root}/${MANIFEST_FILE} is not a catalog manifest`);
  const table = tableOf(manifest);
  const listedFile = new Map(table.map((f) => [f.path, f]));
  const registryEntry = listedFile.get(MASTER_REGISTRY_FILE);
  const registry = json(
    MASTER_REGISTRY_FILE,
    await download(MASTER_REGISTRY_FILE, { ...(registryEntry ?? {}), required: registryEntry !== undefined }),
  );

  // the files whose records the comparison may read: those of a definition whose file differs from this build's
  const now = new Map(current.files.map((f) => [f.path, f.sha256]));
  const holding = new Set<string>();
  const byUuid = isRecord(registry) && isRecord(registry.byUuid) ? registry.byUuid : {};
  for (const e of Object.values(byUuid)) if (isRecord(e) && typeof e.file === 'string') holding.add(publishedFile(e.file));
  await downloadAll(
    [...holding]
      .map((p) => listedFile.get(p))
      .filter((f): f is FileHash => f !== undefined && f.sha256 !== now.get(f.path) && f.path !== MASTER_REGISTRY_FILE),
  );

  // the kept versioned copies, as changes.ts will choose them; the version list is part of every published build
  const versions = json(VERSIONS_FILE, await download(VERSIONS_FILE, { required: true }));
  const listed = isRecord(versions) && Array.isArray(versions.builds) ? (versions.builds as unknown[]) : [];
  const ids = listed
    .map((b) => (isRecord(b) && typeof b.buildId === 'string' && /^[0-9a-f]{20}$/.test(b.buildId) ? b.buildId : undefined))
    .filter((id): id is string => id !== undefined && id !== current.buildId);
  let kept = 0;
  for (const id of new Set(ids)) {
    if (kept >= keepBuilds - 1) break;
    // a build the version list names is kept by the site: its copy must be there
    const copy = json(versionedFile(id, MANIFEST_FILE), await download(versionedFile(id, MANIFEST_FILE), { required: true }));
    kept++;
    const files = tableOf(copy)
      .filter((f) => !NOT_VERSIONED.test(f.path))
      .map((f) => ({ path: versionedFile(id, f.path), sha256: f.sha256, bytes: f.bytes }));
    await downloadAll(unique([...files, { path: versionedFile(id, CHANGES_FILE) }]));
  }
  return { buildId: manifest.buildId, files: fetched };
}
