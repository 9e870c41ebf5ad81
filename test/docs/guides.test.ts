/**
 * The guides are tests (docs/guides/*.md): every shell block of a guide runs, in order, in one shell,
 * against the local server (`npm start`, here `tsx dev/server.ts --no-build` over the sample catalog's
 * build) on a fresh data folder, with `localhost:3000` pointed at the server's free port. A step is a
 * command (its continuation lines included) and the `# → ` lines after it: the command must exit 0, and
 * its standard output, trimmed, must match the shown output, where `…` stands for any text and an
 * upper-case `<NAME>` for any text within one JSON value (an id, a time). A block fenced `sh` runs; the
 * guides' other code blocks are prose. A guide that tells the reader to start the server with a variable
 * says so for the runner too, in a comment `<!-- guide-env: NAME=value -->`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, SAMPLE_OUT } from '../helpers/catalog.js';
import { freePort } from '../helpers/redis.js';

const GUIDES = join(REPO_ROOT, 'docs/guides');

/** One step of a guide: the command's lines and the output it shows. */
interface Step {
  readonly command: string;
  readonly shown: string | undefined;
  /** Where it is: `<file>:<line>`. */
  readonly at: string;
}

/** The steps of the `sh` blocks of a guide, in order. */
export function stepsOf(markdown: string, file: string): Step[] {
  const steps: Step[] = [];
  const lines = markdown.split('\n');
  let inBlock = false;
  let command: string[] = [];
  let shown: string[] = [];
  let at = '';
  const flush = () => {
    if (command.length > 0) steps.push({ command: command.join('\n'), shown: shown.length ? shown.join('\n') : undefined, at });
    command = [];
    shown = [];
  };
  lines.forEach((line, i) => {
    if (!inBlock) {
      if (/^```sh\s*$/.test(line)) inBlock = true;
      return;
    }
    if (/^```\s*$/.test(line)) {
      flush();
      inBlock = false;
      return;
    }
    const out = /^# → ?(.*)$/.exec(line);
    if (out) {
      shown.push(out[1]!);
      return;
    }
    const continues = command.length > 0 && command[command.length - 1]!.endsWith('\\');
    if (!continues && (shown.length > 0 || (command.length > 0 && line.trim() !== '' && !line.startsWith('#')))) flush();
    if (line.trim() === '' || (line.startsWith('#') && !continues)) return;
    if (command.length === 0) at = `${file}:${i + 1}`;
    command.push(line);
  });
  return steps;
}

/** The variables a guide starts the server with (its `<!-- guide-env: NAME=value -->` comments). */
export function guideEnv(markdown: string): Record<string, string> {
  return Object.fromEntries([...markdown.matchAll(/<!-- guide-env: ([A-Z][A-Z0-9_]*)=(\S+) -->/g)].map((m) => [m[1]!, m[2]!]));
}

/** The shown output as a pattern of the whole trimmed output (see the module header). */
export function shownPattern(shown: string): RegExp {
  const parts = shown.trim().split(/(…|<[A-Z][A-Z0-9_]*>)/);
  const re = parts
    .map((p) => (p === '…' ? '[\\s\\S]*?' : /^<[A-Z][A-Z0-9_]*>$/.test(p) ? '[^"]*?' : p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${re}$`);
}

const guides = readdirSync(GUIDES)
  .filter((f) => f.endsWith('.md'))
  .sort();

describe('the guide parser', () => {
  it('splits blocks into commands with their shown output, continuation lines included', () => {
    const md = [
      'text',
      '```sh',
      'A=$(echo 1)',
      '# a comment',
      'echo "$A" \\',
      '  two',
      '# → 1 two',
      'echo x',
      '```',
      '```json',
      '{}',
      '```',
    ].join('\n');
    expect(stepsOf(md, 'g.md')).toEqual([
      { command: 'A=$(echo 1)', shown: undefined, at: 'g.md:3' },
      { command: 'echo "$A" \\\n  two', shown: '1 two', at: 'g.md:5' },
      { command: 'echo x', shown: undefined, at: 'g.md:8' },
    ]);
  });

  it('matches … to any text and <NAME> within one value, everything else as written', () => {
    const p = shownPattern('{"id":"<ID>","n":2,…}');
    expect(p.test('{"id":"9b0c-1","n":2,"more":[1]}')).toBe(true);
    expect(p.test('{"id":"9b0c-1","n":3}')).toBe(false);
    expect(p.test('{"id":"a","b":"c","n":2}')).toBe(false);
    expect(shownPattern('a.b').test('axb')).toBe(false);
  });
});

describe.each(guides)('docs/guides/%s, run against the local server', (file) => {
  const data = mkdtempSync(join(tmpdir(), 'guide-data-'));
  let server: ChildProcess | undefined;
  afterAll(() => {
    server?.kill();
    rmSync(data, { recursive: true, force: true });
  });

  it('runs every command, each exiting 0 with the output it shows', async () => {
    const markdown = readFileSync(join(GUIDES, file), 'utf8');
    const steps = stepsOf(markdown, `docs/guides/${file}`);
    expect(steps.length).toBeGreaterThan(0);
    const port = await freePort();
    const env = { ...process.env, DATA_DIR: join(data, 'data'), PORT: String(port), CI: '', ...guideEnv(markdown) };
    server = spawn(process.execPath, ['--import', 'tsx', 'dev/server.ts', '--no-build', '--out', SAMPLE_OUT], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    server.stdout!.on('data', (b: Buffer) => (log += b.toString()));
    server.stderr!.on('data', (b: Buffer) => (log += b.toString()));
    for (let i = 0; ; i++) {
      if (
        await fetch(`http://127.0.0.1:${port}/api/stats`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break;
      if (i > 300) throw new Error(`the local server did not start:\n${log}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const dir = join(data, 'steps');
    // the guide runs in a folder of its own (what it downloads lands there); npm runs the repository's scripts
    const work = join(data, 'work');
    const script = [
      'set -o pipefail',
      `mkdir -p ${dir} ${work}`,
      `cd ${JSON.stringify(work)}`,
      `npm() { command npm --prefix ${JSON.stringify(REPO_ROOT)} "$@"; }`,
    ];
    steps.forEach((s, i) => {
      const command = s.command.replaceAll('localhost:3000', `localhost:${port}`);
      script.push(`{\n${command}\n} > ${dir}/${i}.out 2> ${dir}/${i}.err; echo $? > ${dir}/${i}.rc`);
      script.push(`[ "$(cat ${dir}/${i}.rc)" = 0 ] || exit 0`);
    });
    writeFileSync(join(data, 'guide.sh'), script.join('\n') + '\n');
    await new Promise<void>((resolve, reject) => {
      const sh = spawn('bash', [join(data, 'guide.sh')], { cwd: REPO_ROOT, env, stdio: 'ignore' });
      sh.on('error', reject);
      sh.on('exit', () => resolve());
    });
    steps.forEach((s, i) => {
      let rc: string;
      try {
        rc = readFileSync(join(dir, `${i}.rc`), 'utf8').trim();
      } catch {
        throw new Error(`${s.at}: never ran (a step before it failed)`);
      }
      const out = readFileSync(join(dir, `${i}.out`), 'utf8').trim();
      const err = readFileSync(join(dir, `${i}.err`), 'utf8').trim();
      expect(rc, `${s.at}: ${s.command}\nexit ${rc}\n${err}\n${out}`).toBe('0');
      if (s.shown !== undefined) expect(out, `${s.at}: ${s.command}`).toMatch(shownPattern(s.shown));
    });
  }, 180_000);
});
