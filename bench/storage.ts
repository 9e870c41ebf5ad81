/**
 * Storage upload benchmark (`npm run bench`, section "Storage"; alone: `npx tsx bench/storage.ts`).
 *
 * One file of {@link SIZES_MB} megabytes (a GLB header, then pseudo-random bytes) is sent as a streamed
 * multipart body through `POST /api/storage/upload`'s handler (admin check, busboy, staging with SHA-256
 * and MD5, type sniffing, the adapter's put) to each adapter: `local` on a temporary folder and `s3` on
 * `s3rver` started on 127.0.0.1. Beside them, the floors: the same bytes written with `fs`
 * (`createWriteStream`) and sent with one bare `PutObject` (a file stream with its length) to the same
 * s3rver. Every case runs in its own child process; reported are MB/s and the growth of the resident set
 * over the run (the process's own peak resident set, `bench/memory.ts`, minus the RSS before the upload), which must not grow
 * with the file size: the body is streamed to a temporary file, never held in memory.
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { peakRssBytes } from './memory.js';

/** File sizes, MB (10^6 bytes): the 50 MB of the target, and one smaller and one larger to show the memory plateau. */
export const SIZES_MB = [10, 50, 200] as const;
const CHUNK = 64 * 1024;
const PASSWORD = 'bench-admin-password-0123456789';

type Case = 'handler-local' | 'handler-s3' | 'floor-fs' | 'floor-put';
interface Result {
  readonly seconds: number;
  readonly growthMB: number;
}

/** `size` bytes in chunks of 64 KiB: a GLB header, then one pseudo-random block repeated. */
function* fileChunks(size: number): Generator<Uint8Array> {
  const block = new Uint8Array(CHUNK);
  let x = 2463534242;
  for (let i = 0; i < CHUNK; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    block[i] = x & 0xff;
  }
  const first = block.slice();
  first.set([0x67, 0x6c, 0x54, 0x46, 2, 0, 0, 0]); // "glTF", version 2
  new DataView(first.buffer).setUint32(8, size, true);
  for (let sent = 0; sent < size; sent += CHUNK) {
    const n = Math.min(CHUNK, size - sent);
    yield (sent === 0 ? first : block).subarray(0, n);
  }
}

/** A streamed multipart body carrying `size` bytes as `bench.glb` in field `file`. */
function multipartBody(size: number, boundary: string): ReadableStream<Uint8Array> {
  const head = new TextEncoder().encode(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.glb"\r\nContent-Type: model/gltf-binary\r\n\r\n`,
  );
  const tail = new TextEncoder().encode(`\r\n--${boundary}--\r\n`);
  function* all(): Generator<Uint8Array> {
    yield head;
    yield* fileChunks(size);
    yield tail;
  }
  return Readable.toWeb(Readable.from(all(), { objectMode: false })) as ReadableStream<Uint8Array>;
}

/** Run one case in this process (the child side). */
async function runCase(which: Case, sizeMB: number, env: Record<string, string>): Promise<Result> {
  const size = sizeMB * 1_000_000;
  const { loadServiceConfig, useServiceConfig } = await import('../api/_lib/config.js');
  const config = loadServiceConfig({ ...env, ADMIN_PASSWORD: PASSWORD, STORAGE_MAX_FILE_BYTES: String(size + 1024) });
  useServiceConfig(config);
  const entry = await import('../api/storage.js');
  const { S3Client, PutObjectCommand } = await import('@aws-sdk/client-s3');
  const dir = mkdtempSync(join(tmpdir(), 'bench-storage-'));
  let run: () => Promise<void>;
  if (which === 'handler-local' || which === 'handler-s3') {
    run = async () => {
      const boundary = 'benchBOUNDARY7d1';
      const res = await entry.POST(
        new Request('http://localhost/api/storage/upload', {
          method: 'POST',
          headers: { 'X-Admin-Password': PASSWORD, 'Content-Type': `multipart/form-data; boundary=${boundary}` },
          body: multipartBody(size, boundary),
          duplex: 'half',
        } as RequestInit),
      );
      if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
    };
  } else if (which === 'floor-fs') {
    run = () => pipeline(Readable.from(fileChunks(size)), createWriteStream(join(dir, 'floor.glb')));
  } else {
    const file = join(dir, 'source.glb');
    await pipeline(Readable.from(fileChunks(size)), createWriteStream(file));
    const client = new S3Client({
      endpoint: env.S3_ENDPOINT,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: env.S3_ACCESS_KEY_ID!, secretAccessKey: env.S3_SECRET_ACCESS_KEY! },
      requestChecksumCalculation: 'WHEN_REQUIRED',
    });
    run = async () => {
      await client.send(
        new PutObjectCommand({ Bucket: env.S3_BUCKET, Key: 'floor/bench.glb', Body: createReadStream(file), ContentLength: size }),
      );
    };
  }
  global.gc?.();
  const base = process.memoryUsage().rss;
  const t0 = performance.now();
  await run();
  const seconds = (performance.now() - t0) / 1000;
  const peak = peakRssBytes();
  rmSync(dir, { recursive: true, force: true });
  return { seconds, growthMB: Math.max(0, peak - base) / 1e6 };
}

/** Run every case, each in a child process; markdown report. */
export async function run(): Promise<string> {
  const { startS3 } = await import('../test/helpers/s3.js');
  const s3 = await startS3('bench');
  const data = mkdtempSync(join(tmpdir(), 'bench-storage-data-'));
  const self = fileURLToPath(import.meta.url);
  const envOf = (which: Case): Record<string, string> =>
    which === 'handler-local' ? { STORAGE_DRIVER: 'local', DATA_DIR: data } : { ...s3.env, DATA_DIR: data };
  const rows: string[] = [];
  try {
    const results = new Map<string, Result>();
    for (const sizeMB of SIZES_MB) {
      for (const which of ['floor-fs', 'handler-local', 'floor-put', 'handler-s3'] as const) {
        const out = execFileSync(process.execPath, ['--import', 'tsx', '--expose-gc', self, `--case=${which}`, `--mb=${sizeMB}`], {
          env: { ...process.env, BENCH_STORAGE_ENV: JSON.stringify(envOf(which)) },
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        results.set(`${which}:${sizeMB}`, JSON.parse(out.trim().split('\n').pop()!) as Result);
      }
    }
    const mbps = (r: Result, mb: number) => mb / r.seconds;
    for (const sizeMB of SIZES_MB) {
      for (const [label, which, floor] of [
        ['handler → local', 'handler-local', 'floor-fs'],
        ['handler → s3 (s3rver)', 'handler-s3', 'floor-put'],
      ] as const) {
        const r = results.get(`${which}:${sizeMB}`)!;
        const f = results.get(`${floor}:${sizeMB}`)!;
        rows.push(
          `| ${label} | ${sizeMB} MB | ${mbps(r, sizeMB).toFixed(1)} | ${mbps(f, sizeMB).toFixed(1)} (${floor === 'floor-fs' ? 'fs write' : 'bare PutObject'}) | ${((100 * mbps(r, sizeMB)) / mbps(f, sizeMB)).toFixed(0)} % | ${r.growthMB.toFixed(0)} MB | ${f.growthMB.toFixed(0)} MB |`,
        );
      }
    }
  } finally {
    await s3.stop();
    rmSync(data, { recursive: true, force: true });
  }
  return [
    '## Storage',
    '',
    'One GLB-headed file through `POST /api/storage/upload` (streamed multipart; admin check, busboy, staging with SHA-256 and MD5, type sniffing, the adapter) beside the floor for the same bytes; each case in its own child process. Memory: the growth of the resident set over the upload (peak minus the RSS before it); it must not grow with the file size.',
    '',
    '| path | file | MB/s | floor MB/s | of floor | RSS growth | floor RSS growth |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows,
  ].join('\n');
}

const caseArg = process.argv.find((a) => a.startsWith('--case='));
if (caseArg) {
  const which = caseArg.slice('--case='.length) as Case;
  const mb = Number(process.argv.find((a) => a.startsWith('--mb='))?.slice(5) ?? '10');
  const env = JSON.parse(process.env.BENCH_STORAGE_ENV ?? '{}') as Record<string, string>;
  const result = await runCase(which, mb, env);
  process.stdout.write(JSON.stringify(result) + '\n');
  process.exit(0);
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write((await run()) + '\n');
}
