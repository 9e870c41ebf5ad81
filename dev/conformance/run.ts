/**
 * One conformance run (docs/architecture.md, "Conformance check"): find what the checks need in the
 * deployment's published catalog, run every check of `checks.ts` in turn (a check that throws is a
 * `fail` naming what it threw; an unreachable service stops the run), and lay the outcomes out as the
 * table the CLI prints.
 */
import { CHECKS, type Check, type CheckEnv, type Outcome } from './checks.js';
import { Unreachable, type Service } from './service.js';

/** One row of the table. */
export interface Row extends Outcome {
  readonly check: string;
  /** Wall time of the check, seconds. */
  readonly seconds: number;
}

/** A reproducible stream of numbers in [0, 1) from a 32-bit seed (mulberry32). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The definitions the bag and mint checks need, read from the deployment's own catalog (public static
 * files): the first `MATL-*` of `api/v1/master-materials.json` and the first non-consumable `ITEM-*` of
 * `api/v1/canonical-items-manifest.json`; undefined where the catalog has none.
 */
export async function catalogDefinitions(svc: Service): Promise<Pick<CheckEnv, 'material' | 'uniqueItem'>> {
  const materials = await svc.call('GET', '/api/v1/master-materials.json', 'none');
  const manifest = await svc.call('GET', '/api/v1/canonical-items-manifest.json', 'none');
  const material = (materials.body.materials as { uuid?: unknown }[] | undefined)
    ?.map((m) => m.uuid)
    .find((u): u is string => typeof u === 'string' && u.startsWith('MATL-'));
  const uniqueItem = (manifest.body.items as { uuid?: unknown; kind?: unknown }[] | undefined)
    ?.filter((i) => i.kind !== 'consumable')
    .map((i) => i.uuid)
    .find((u): u is string => typeof u === 'string' && u.startsWith('ITEM-'));
  return { material, uniqueItem };
}

/** Options of {@link runConformance}. */
export interface RunOptions {
  /** Seed of the random choices (filters, amounts, sizes). */
  readonly seed: number;
  /** The checks to run (default every one, {@link CHECKS}). */
  readonly checks?: readonly Check[];
  /** Told when a check starts (`index` from 0 of `total`). */
  readonly onStart?: (name: string, index: number, total: number) => void;
}

/**
 * Run the checks against `svc`, one after another.
 * @returns one row per check.
 * @throws Unreachable when the service stops answering.
 */
export async function runConformance(svc: Service, options: RunOptions): Promise<Row[]> {
  const checks = options.checks ?? CHECKS;
  const env: CheckEnv = { ...(await catalogDefinitions(svc)), random: seededRandom(options.seed) };
  const rows: Row[] = [];
  for (const [i, check] of checks.entries()) {
    options.onStart?.(check.name, i, checks.length);
    const t0 = performance.now();
    let outcome: Outcome;
    try {
      outcome = await check.run(svc, env);
    } catch (e) {
      if (e instanceof Unreachable) throw e;
      outcome = { result: 'fail', detail: `stopped: ${(e as Error).message}` };
    }
    rows.push({ check: check.name, ...outcome, seconds: (performance.now() - t0) / 1000 });
  }
  return rows;
}

/** The rows as a plain-text table: check, result, detail (one line each). */
export function formatTable(rows: readonly Row[]): string {
  const head = ['check', 'result', 'detail'];
  const w0 = Math.max(head[0]!.length, ...rows.map((r) => r.check.length));
  const w1 = Math.max(head[1]!.length, ...rows.map((r) => r.result.length));
  const line = (a: string, b: string, c: string) => `${a.padEnd(w0)}  ${b.padEnd(w1)}  ${c}`.trimEnd();
  return (
    [
      line(head[0]!, head[1]!, head[2]!),
      line('-'.repeat(w0), '-'.repeat(w1), '------'),
      ...rows.map((r) => line(r.check, r.result.toUpperCase(), r.detail)),
    ].join('\n') + '\n'
  );
}
