/**
 * A first run: `npm start` (`tsx dev/server.ts`) as a person runs it on a fresh machine, in a child process,
 * on a free port with a fresh data folder and output folder, building the sample catalog with its site
 * (docs/architecture.md, "Sample binaries"). Nothing but the local tools' defaults is configured.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './catalog.js';
import { freePort } from './redis.js';

/** A running first run. */
export interface FirstRun {
  /** `http://localhost:<port>`, as the server names itself (and `{cdn_url}` is `<url>/storage`). */
  readonly url: string;
  readonly port: number;
  /** The data folder (`DATA_DIR`) and the output folder (`--out`). */
  readonly data: string;
  readonly out: string;
  /** What the server printed so far (standard output and error). */
  log(): string;
  /** Stop the server and remove both folders. */
  stop(): Promise<void>;
}

/**
 * Start `npm start -- --out <tmp> --port <free>` with `DATA_DIR` in a temporary folder (and `PORT`,
 * `STORAGE_PUBLIC_URL`, `STORAGE_DRIVER` and `STORE_DRIVER` removed from the environment, as on a fresh
 * machine), and wait until it serves the catalog.
 * @param args more arguments for the server (e.g. `--no-build` with an existing output).
 * @throws Error with the server's output when it exits or does not serve within 90 s.
 */
export async function startFirstRun(args: readonly string[] = []): Promise<FirstRun> {
  const tmp = await mkdtemp(join(tmpdir(), 'first-run-'));
  const data = join(tmp, 'data');
  const out = join(tmp, 'dist');
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: data, CI: process.env.CI ?? '' };
  for (const name of ['PORT', 'STORAGE_PUBLIC_URL', 'STORAGE_DRIVER', 'STORE_DRIVER']) delete env[name];
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'dev/server.ts', '--out', out, '--port', String(port), ...args], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout!.on('data', (b: Buffer) => (log += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (log += b.toString()));
  let exited = false;
  child.on('exit', () => (exited = true));
  const stop = async (): Promise<void> => {
    if (!exited) {
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await gone;
    }
    await rm(tmp, { recursive: true, force: true });
  };
  for (let i = 0; ; i++) {
    if (
      await fetch(`http://127.0.0.1:${port}/api/stats`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (exited || i > 900) {
      await stop();
      throw new Error(`npm start did not serve the sample catalog:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url: `http://localhost:${port}`, port, data, out, log: () => log, stop };
}
