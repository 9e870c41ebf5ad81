/**
 * Shapes that pass between the build stages (docs/architecture.md, "Build").
 *
 * collect → validate → law → derive → emit. Every stage reports {@link IssueInput}s through
 * {@link Reporter}; the pipeline resolves each to a {@link Issue} with severity (from the rule table
 * and the catalog config) and with line:column (from the JSON pointer and the source text).
 */

/** Severity of a rule as configured. `off` rules are still evaluated and listed, as `off`. */
export type Severity = 'error' | 'warn' | 'off';

/** A rule of the build: a stable name, its default severity per spec, and what it checks. */
export interface RuleDef {
  /** Stable name, `area/what`, e.g. `law/definition-prefix`. */
  readonly name: string;
  /** Default severity (spec defaults; a catalog config can change it). */
  readonly severity: Severity;
  /** One sentence: what the rule checks and which spec section it enforces. */
  readonly description: string;
}

/** What a stage says about a problem. `pointer` is an RFC 6901 JSON pointer into `file` ('' = whole file). */
export interface IssueInput {
  readonly rule: string;
  /** Source path relative to the catalog source folder, posix separators, e.g. `master-relics.json`. */
  readonly file: string;
  readonly pointer: string;
  readonly message: string;
  /** UTF-16 offset into the file text, when the problem has a position but no pointer (syntax errors). */
  readonly offset?: number;
}

/** A resolved problem as reported: `file:line:column  /pointer  message` plus rule and severity. */
export interface Issue extends IssueInput {
  readonly severity: Severity;
  /** 1-based line of the value at `pointer` (of the nearest existing ancestor when absent). */
  readonly line: number;
  /** 1-based column (UTF-16 code units). */
  readonly column: number;
}

/** Sink for problems found by a stage. */
export type Reporter = (issue: IssueInput) => void;

/** One parsed catalog source file. */
export interface SourceDoc {
  /** Path relative to the source folder, posix separators (also its path under `api/v1/`). */
  readonly path: string;
  /** The exact source bytes as UTF-8 text. */
  readonly text: string;
  /** The parsed JSON value (undefined when the file does not parse; such files stop the build). */
  readonly data: unknown;
}

/** One file the build will write, relative to the output folder (e.g. `api/v1/icon-registry.json`). */
export interface Emitted {
  readonly path: string;
  /** A JSON value (serialised by emit, deterministically), or, with `raw`, an already-serialised string or bytes. */
  readonly body: unknown;
  /** True when `body` is written as it is: a string (as UTF-8) or a `Uint8Array`. */
  readonly raw?: boolean;
}

/** Validated catalog configuration (see `config.ts`). */
export interface CatalogConfig {
  /** Human name of the catalog. */
  readonly name: string;
  /** `{base_url}` of spec 1: the catalog/serverless host. */
  readonly baseUrl: string;
  /** `{cdn_url}` of spec 1: the binary-asset host. */
  readonly cdnUrl: string;
  /**
   * The config file's `cdn_url` when the build publishes under another `{cdn_url}` (`BuildOptions.cdnUrl`, as
   * `npm start` does with local storage): the asset manifest's URLs on it move to `cdnUrl` (`build/derive/assets.ts`).
   * Absent when the two agree.
   */
  readonly sourceCdnUrl?: string;
  /** Identifier namespaces (spec 2.6): SKIL from `skill` + skill id, ICON from `icon` + object-storage key, SPRT from `sprite` + path. */
  readonly namespaces: { readonly skill: string; readonly icon: string; readonly sprite: string };
  /** Field that carries SKIL/ICON ids (spec says `studioUuid`; a studio may brand it). */
  readonly uuidField: string;
  /** Rule severities after overrides: rule name → severity, per file via {@link severityFor}. */
  readonly rules: Readonly<Record<string, Severity>>;
  /** Per-file rule overrides (ESLint-style): first matching glob wins over `rules`. */
  readonly overrides: readonly { readonly files: readonly string[]; readonly rules: Readonly<Record<string, Severity>> }[];
  /** Retired files, never emitted (spec 9.3); default `['systems-catalog.json']`. */
  readonly retired?: readonly string[];
  /** Version labels (spec 9.2). */
  readonly versions: Readonly<Record<string, string>>;
  /** The exported asset index `modelRef` keys are checked against (spec 4.9), when the config names one. */
  readonly assetIndex?: { readonly file: string; readonly keys: ReadonlySet<string> };
  /**
   * Most static collection item files (`api/v1/<collection>/<key>.json`) the build emits, summed over
   * the collections, smallest collection first; a collection that does not fit emits none and the
   * collections function answers those paths with the same bytes (default `DEFAULT_ITEM_FILE_BUDGET`,
   * 10,000; 0 emits none).
   */
  readonly itemFileBudget: number;
  /**
   * Builds whose catalog the output keeps as a versioned copy under `v/{buildId}/`, this one included,
   * newest first (default `DEFAULT_KEEP_BUILDS`, 3; `build/pipeline/changes.ts`).
   */
  readonly keepBuilds: number;
  /**
   * The previous published build (`previous.ts`): the base URL of the deployed site, or an absolute
   * folder; undefined: the output folder the build replaces.
   */
  readonly previousBuild?: string;
}

/** Everything a pure derive function may read, and where it reports problems. */
export interface DeriveContext {
  readonly config: CatalogConfig;
  /** Every parsed source file by path. */
  readonly docs: ReadonlyMap<string, SourceDoc>;
  readonly report: Reporter;
}

/** A pure derive stage: reads the context, returns the files to emit. */
export type Deriver = (ctx: DeriveContext) => readonly Emitted[];
