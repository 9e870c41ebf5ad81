/**
 * A real S3-protocol server for tests: `s3rver` (a dev dependency) in a child process on 127.0.0.1 and a
 * free port, its data in a temporary folder, with one bucket. Node 20's OpenSSL 3 refuses the MD5-based
 * continuation tokens s3rver signs its list pages with unless the legacy provider is on, so the child runs
 * with `--openssl-legacy-provider` (not needed, and refused by some builds, on later Node lines).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './redis.js';

/** A running server and the configuration that reaches it. */
export interface TestS3 {
  readonly endpoint: string;
  readonly bucket: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** Environment variables selecting this server as the `s3` storage. */
  readonly env: Readonly<Record<string, string>>;
  stop(): Promise<void>;
}

const require = createRequire(import.meta.url);

/** The access key id the test server knows (not a secret). */
export const TEST_ACCESS_KEY_ID = 'AKIATESTSTORAGE7Q2M';
/** Its secret key: random-looking, as the configuration requires of `S3_SECRET_ACCESS_KEY`. */
export const TEST_SECRET_ACCESS_KEY = 'r8Kp2VxQ7mLc4TzN9wHd3BfY6sJg1aUe5oRi0CtE';

/** Start s3rver with bucket `bucket` (default `assets`), knowing only the test key pair. */
export async function startS3(bucket = 'assets'): Promise<TestS3> {
  const dir = mkdtempSync(join(tmpdir(), 'storage-s3-'));
  const port = await freePort();
  const bin = join(require.resolve('s3rver/package.json'), '..', 'bin', 's3rver.js');
  const legacy = Number(process.versions.node.split('.')[0]) < 21 ? ['--openssl-legacy-provider'] : [];
  const accessKeyId = TEST_ACCESS_KEY_ID;
  const secretAccessKey = TEST_SECRET_ACCESS_KEY;
  // s3rver's only account has the key pair S3RVER/S3RVER, which the configuration refuses as a weak secret:
  // the child swaps in the test pair (handed over in its environment, never on its command line), then runs the CLI
  const account = join(require.resolve('s3rver/package.json'), '..', 'lib', 'models', 'account.js');
  const boot = [
    `const { DUMMY_ACCOUNT } = require(${JSON.stringify(account)});`,
    `DUMMY_ACCOUNT.revokeAccessKey('S3RVER');`,
    'DUMMY_ACCOUNT.createKeyPair(process.env.S3RVER_KEY_ID, process.env.S3RVER_SECRET);',
    `process.argv = [process.argv[0], ${JSON.stringify(bin)}, ...process.argv.slice(1)];`,
    `require(${JSON.stringify(bin)});`,
  ].join(' ');
  const child: ChildProcess = spawn(
    process.execPath,
    [...legacy, '-e', boot, '--', '-d', dir, '-a', '127.0.0.1', '-p', String(port), '--configure-bucket', bucket, '--no-vhost-buckets'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, S3RVER_KEY_ID: accessKeyId, S3RVER_SECRET: secretAccessKey },
    },
  );
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`s3rver did not start: ${out}`)), 15_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      if (/listening/i.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`s3rver exited with ${code}: ${out}`));
    });
  });
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    accessKeyId,
    secretAccessKey,
    env: {
      STORAGE_DRIVER: 's3',
      S3_ENDPOINT: endpoint,
      S3_BUCKET: bucket,
      S3_ACCESS_KEY_ID: accessKeyId,
      S3_SECRET_ACCESS_KEY: secretAccessKey,
      S3_REGION: 'us-east-1',
      S3_PUBLIC_URL: `${endpoint}/${bucket}`,
    },
    async stop() {
      child.removeAllListeners('exit');
      await new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
