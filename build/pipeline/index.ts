/**
 * The catalog build (docs/architecture.md, "Build"):
 * collect → validate → law → derive → emit, named stages with I/O only at the ends. This module only wires
 * the stages: what is emitted where, and in which shape, is decided by the derivers (`build/derive/`) and the
 * formats (`api/_lib/formats/`).
 *
 * `buildCatalog` returns a report `{ ok, issues, stats, outputs, buildId }` and prints nothing; the CLI
 * (`build/cli.ts`) owns argv, stdout and the exit code. Errors (any issue of severity `error`) leave the
 * previous output untouched; a successful build replaces it atomically. Two builds of the same input
 * are byte-identical (no clocks, sorted file lists, deterministic serialisation).
 */
import { dirname, join, relative, resolve, sep } from 'node:path';
import { writeFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { statSync } from 'node:fs';
import { publishedFile } from '../../api/_lib/formats/layout.js';
import { BUILD_REPORT_FILE, publishedBuildReport, type ReportStats } from '../../api/_lib/formats/build-report.js';
import { compareCodeUnits } from '../../api/_lib/util/sorted.js';
import { DERIVERS } from '../derive/index.js';
import { collectTypedRecords, deriveCore } from '../derive/core.js';
import { deriveManifest } from '../derive/manifest.js';
import { collect } from './collect.js';
import { CONFIG_FILE, loadCatalogConfig } from './config.js';
import { fileTable, reportFileFor, serialise, stagingDirFor, swapInto, writeAll, type OutputFile } from './emit.js';
import { changeOutputs, copyKept } from './changes.js';
import { fetchPreviousBuild, isPreviousUrl, PreviousBuildError } from './previous.js';
import { checkLaw } from './law.js';
import { fileKind, isLegacyKind, reportFileKinds, type FileKind } from './layout.js';
import { Locator } from './locate.js';
import { CORE_RULES, RuleBook } from './rules.js';
import type { Emitted, Issue, IssueInput, SourceDoc } from './types.js';
import { createSchemaRegistry, validateDocs } from './validate.js';

/** Build stages, in order, as reported to `onProgress`. */
export type Stage = 'config' | 'collect' | 'validate' | 'law' | 'derive' | 'emit' | 'site' | 'done';

/** Progress event: the stage entered, with files and records known so far. */
export interface ProgressEvent {
  readonly stage: Stage;
  readonly files: number;
  readonly records: number;
}

/** Options of {@link buildCatalog}. */
export interface BuildOptions {
  /** Catalog source folder. */
  readonly src: string;
  /** Output folder (replaced atomically on success). */
  readonly out: string;
  /** Catalog config file; default `<src>/catalog.config.json`. */
  readonly config?: string;
  /** Also build the static site page (Vite) into the output; default false. */
  readonly site?: boolean;
  /** Machine-readable report file; default `<out>-report.json` beside the output folder; `false` writes none. */
  readonly reportFile?: string | false;
  /**
   * The previous published build the change feed compares with and the kept versioned copies come from
   * (`previous.ts`): a folder, or the base URL of the deployed site. Default: the catalog config's
   * `previousBuild`, else the output folder this build replaces.
   */
  readonly previous?: string;
  /** Progress callback (stage changes). */
  readonly onProgress?: (event: ProgressEvent) => void;
  /**
   * `{cdn_url}` of this build instead of the config's `cdn_url` (spec §1.4, §4.9): `npm start` passes the
   * local storage's public URL for a catalog that ships its own binaries (docs/architecture.md, "Sample
   * binaries"). Trailing slashes are dropped, as from the config's. The asset manifest's URLs on the config's
   * `cdn_url` are published on this one (`build/derive/assets.ts`).
   */
  readonly cdnUrl?: string;
}

/** Summary numbers of a build: the published report's counts (`api/_lib/formats/build-report.ts`) and the wall time. */
export interface BuildStats extends ReportStats {
  /** Wall time in seconds. */
  readonly seconds: number;
}

/** Result of a build. */
export interface BuildReport {
  readonly ok: boolean;
  readonly src: string;
  readonly out: string;
  /** Every problem, sorted by file, line, column, rule. */
  readonly issues: readonly Issue[];
  readonly stats: BuildStats;
  /** Output paths relative to the output folder (empty when the build failed). */
  readonly outputs: readonly string[];
  /** Build id (hash of the file table) or null when nothing was published. */
  readonly buildId: string | null;
  /** Report file written, if any. */
  readonly reportFile: string | null;
}

/**
 * Run the whole build.
 * @throws CatalogConfigError for an unusable config file (nothing is built); I/O errors while emitting.
 */
export async function buildCatalog(options: BuildOptions): Promise<BuildReport> {
  const t0 = performance.now();
  const src = resolve(options.src);
  const out = resolve(options.out);
  let files = 0;
  let records = 0;
  const progress = (stage: Stage): void => options.onProgress?.({ stage, files, records });

  progress('config');
  const configPath = resolve(options.config ?? join(src, CONFIG_FILE));
  const loaded = await loadCatalogConfig(configPath);
  const cdnUrl = options.cdnUrl?.replace(/\/+$/, '');
  const config =
    cdnUrl === undefined || cdnUrl === loaded.cdnUrl ? loaded : Object.freeze({ ...loaded, cdnUrl, sourceCdnUrl: loaded.cdnUrl });
  const rules = new RuleBook([...CORE_RULES, ...DERIVERS.flatMap((d) => d.rules)], config);
  const retired = new Set(config.retired);

  const raw: IssueInput[] = [];
  const report = (i: IssueInput): void => void raw.push(i);

  progress('collect');
  const configRel = relative(src, configPath).split(sep).join('/');
  // a config outside the source folder has a relative path no listed file has ('../…', or absolute on another drive)
  const docs = await collect({ src, skip: new Set([configRel]) }, report);
  files = docs.size;
  const kinds = new Map<string, FileKind>();
  for (const p of docs.keys()) kinds.set(p, fileKind(p, retired));

  progress('validate');
  const ajv = await createSchemaRegistry();
  validateDocs(ajv, docs.values(), report);

  progress('law');
  const law = checkLaw(docs, config, report);
  records = law.definitions.size;

  progress('derive');
  const typed = collectTypedRecords(docs, config, law);
  // records: distinct (file, pointer) places that hold a definition or a searchable record
  const places = new Set<string>();
  for (const d of law.definitions.values()) places.add(`${d.file}#${d.pointer}`);
  for (const list of typed.values()) for (const r of list) places.add(`${r.file}#${r.pointer}`);
  records = places.size;
  const live = new Map<string, SourceDoc>();
  for (const [p, d] of docs) if (kinds.get(p) !== 'retired') live.set(p, d);
  const ctx = { config, docs: live, report };
  const derived: Emitted[] = deriveCore({ config, docs: live, law, records: typed });
  for (const d of DERIVERS) for (const e of d.derive(ctx)) derived.push(e); // never spread: outputs can number 100,000s
  reportFileKinds(kinds, report);

  const issues = resolveIssues(raw, docs, kinds, rules);
  const errors = issues.filter((i) => i.severity === 'error').length;
  const warnings = issues.filter((i) => i.severity === 'warn').length;
  const off = issues.length - errors - warnings;
  const reportFile = options.reportFile === false ? null : resolve(options.reportFile ?? reportFileFor(out));
  const finish = async (ok: boolean, outputs: string[], buildId: string | null): Promise<BuildReport> => {
    const result: BuildReport = {
      ok,
      src,
      out,
      issues,
      stats: { files, records, outputs: outputs.length, errors, warnings, off, seconds: (performance.now() - t0) / 1000 },
      outputs,
      buildId,
      reportFile,
    };
    if (reportFile) {
      await mkdir(dirname(reportFile), { recursive: true });
      await writeFile(reportFile, JSON.stringify({ ...result, rules: rules.all() }, null, 2) + '\n');
    }
    progress('done');
    return result;
  };
  if (errors > 0) return finish(false, [], null);

  progress('emit');
  const outputs = new Map<string, OutputFile>();
  for (const [p, d] of live) outputs.set(publishedFile(p), { path: publishedFile(p), bytes: Buffer.from(d.text) });
  for (const e of derived) outputs.set(e.path, serialise(e));
  const table = fileTable([...outputs.values()]);
  const manifest = serialise(deriveManifest({ config, table, kinds, retired }));
  // the change feed and versioned copies compare with the output this build replaces (`changes.ts`)
  const previousSource = options.previous ?? config.previousBuild;
  let previousDir = previousSource === undefined ? out : resolve(previousSource);
  let scratch: string | undefined;
  // a folder named as the previous build must be there: a mistyped path would make a first build (previous.ts)
  if (previousSource !== undefined && !isPreviousUrl(previousSource) && !statSync(previousDir, { throwIfNoEntry: false })?.isDirectory())
    throw new PreviousBuildError(
      `The previous build cannot be read: the folder ${previousDir} does not exist (create it empty for a first build).`,
    );
  if (previousSource !== undefined && isPreviousUrl(previousSource)) {
    scratch = previousDir = await mkdtemp(join(tmpdir(), 'previous-build-'));
    try {
      await fetchPreviousBuild(previousSource, scratch, { buildId: table.buildId, files: table.files }, config.keepBuilds);
    } catch (e) {
      await rm(scratch, { recursive: true, force: true });
      throw e;
    }
  }
  const changes = changeOutputs(previousDir, {
    buildId: table.buildId,
    files: table.files,
    outputs,
    manifest,
    keepBuilds: config.keepBuilds,
  });
  const all = [...outputs.values(), manifest, ...changes.files];
  // the published report counts itself among the outputs (api/_lib/formats/build-report.ts)
  const published = publishedBuildReport({
    ok: true,
    buildId: table.buildId,
    issues,
    stats: { files, records, outputs: all.length + 1, errors, warnings, off },
  });
  all.push({ path: BUILD_REPORT_FILE, bytes: Buffer.from(JSON.stringify(published)) });
  const staging = stagingDirFor(out);
  try {
    await writeAll(staging, all);
    await copyKept(previousDir, staging, changes.kept);
    if (options.site) {
      progress('site');
      const { buildSite } = await import('../site.js');
      await buildSite(staging);
    }
    await swapInto(staging, out);
  } catch (e) {
    await rm(staging, { recursive: true, force: true });
    throw e;
  } finally {
    if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
  }
  return finish(true, all.map((f) => f.path).sort(), table.buildId);
}

function resolveIssues(
  raw: readonly IssueInput[],
  docs: ReadonlyMap<string, SourceDoc>,
  kinds: ReadonlyMap<string, FileKind>,
  rules: RuleBook,
): Issue[] {
  const locators = new Map<string, Locator>();
  const out: Issue[] = raw.map((i) => {
    // one locator per file (a file's tree is parsed once); a problem outside the documents is located at 1:1
    const loc = locators.get(i.file) ?? new Locator(docs.get(i.file)?.text ?? '');
    locators.set(i.file, loc);
    const pos = i.offset !== undefined ? loc.at(i.offset) : loc.locate(i.pointer);
    return { ...i, severity: rules.severity(i.rule, i.file, isLegacyKind(kinds.get(i.file))), line: pos.line, column: pos.column };
  });
  return out.sort((a, b) => compareCodeUnits(a.file, b.file) || a.line - b.line || a.column - b.column || compareCodeUnits(a.rule, b.rule));
}

export { CatalogConfigError } from './config.js';
export type { Issue } from './types.js';
