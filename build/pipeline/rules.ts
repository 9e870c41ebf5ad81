/**
 * The rule table of the build, like a linter's: every check is a named rule with a
 * default severity that follows the spec; a catalog config may change it globally (`rules`) or per file
 * (`overrides`, first matching glob wins). Whatever the severity, every occurrence is listed in the report.
 *
 * Severity resolution for one occurrence in `file`:
 * 1. the rule's default; 2. `config.rules[rule]`; 3. the first override whose `files` glob matches;
 * 4. capped at `warn` in design/legacy and archived files (spec 9.3) unless it is `off`.
 * A rule name may also be given by its area prefix (`schema/*`, `law/*`) in config.
 */
import type { CatalogConfig, RuleDef, Severity } from './types.js';

/** Rules owned by the pipeline's own stages (collect, validate, law, derive core, emit). */
export const CORE_RULES: readonly RuleDef[] = [
  {
    name: 'json/syntax',
    severity: 'error',
    description: 'Every catalog file is well-formed JSON (RFC 8259), without comments or trailing commas.',
  },
  { name: 'json/duplicate-key', severity: 'error', description: 'No object repeats a key; the later value would silently win.' },
  { name: 'json/encoding', severity: 'error', description: 'Files are UTF-8 without a byte-order mark.' },
  { name: 'schema/required', severity: 'error', description: 'Fields the spec shows as part of a record are present (spec 2).' },
  { name: 'schema/type', severity: 'error', description: 'Fields have the type the spec shows (spec 2).' },
  { name: 'schema/enum', severity: 'error', description: 'Enumerated fields hold one of the values the spec lists (spec 2, 4).' },
  { name: 'schema/const', severity: 'error', description: 'Fixed contract values equal the spec (spec 2.9).' },
  { name: 'schema/range', severity: 'error', description: 'Numbers lie in the spec range (tier 1-8, counts >= 0; spec 8).' },
  { name: 'schema/format', severity: 'error', description: 'Strings follow their format (date-time, URI; spec 2.4).' },
  { name: 'schema/other', severity: 'error', description: 'Any other JSON Schema keyword failure.' },
  {
    name: 'catalog/retired-file',
    severity: 'warn',
    description: 'The old systems catalog is retired (spec 9.3): it is not emitted and answers 404.',
  },
  {
    name: 'catalog/archived-file',
    severity: 'warn',
    description: 'Deprecated files are emitted with their replacement named in the manifest (spec 9.3).',
  },
  {
    name: 'catalog/no-schema',
    severity: 'off',
    description: 'Files whose shape the spec does not show have no schema; listed for information.',
  },
  {
    name: 'law/definition-prefix',
    severity: 'error',
    description: 'Definition ids carry the family prefix of their field and catalog (spec 2.6).',
  },
  {
    name: 'law/id-format',
    severity: 'error',
    description: 'Ids match their family format: timestamp family, SKIL-/ICON-XXXX-XXXX-XXXX, SPRT-{8hex}-{6hex} (spec 2.6).',
  },
  { name: 'law/duplicate-id', severity: 'error', description: 'A definition id names one record within its catalog (spec 2.6).' },
  {
    name: 'law/instance-id',
    severity: 'error',
    description: 'Definition catalogs never hold item instance ids (`studio_uuid`; spec 2.6: minted only by the server ledger).',
  },
  {
    name: 'law/placeholder',
    severity: 'error',
    description: 'No invented placeholder values in reference fields; unused references are null (spec 2.7).',
  },
  { name: 'law/derived-id-mismatch', severity: 'error', description: 'A stored SKIL/ICON id equals its SHA-1 derivation (spec 2.6).' },
  {
    name: 'law/unresolved-ref',
    severity: 'error',
    description: 'References between catalogs resolve: recipe materials and results, skill and prefab icons, drops (spec 2.6, 4.9).',
  },
  {
    name: 'registry/stale-entry',
    severity: 'warn',
    description: 'A source master-registry entry names an id no catalog defines; the emitted registry is derived anew.',
  },
];

/** Severity order, for capping. */
const RANK: Record<Severity, number> = { off: 0, warn: 1, error: 2 };

/** Convert a simple glob (`*` within a segment, `**` across segments, `?`) to an anchored RegExp. */
function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        i++;
        // `**/` is zero or more whole folders; a trailing `**` is anything below
        if (glob[i + 1] === '/') {
          re += '(?:.*/)?';
          i++;
        } else re += '.*';
      } else re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** Resolves rule severities for (rule, file) pairs; built once per build. */
export class RuleBook {
  private readonly defaults = new Map<string, RuleDef>();
  private readonly overrides: { res: RegExp[]; rules: Readonly<Record<string, Severity>> }[];

  /**
   * @param rules every rule known to the build (core plus derivers').
   * @param config catalog config with `rules` and `overrides`.
   * @throws Error naming config keys that are not known rules (a typo must not silently do nothing).
   */
  constructor(
    rules: readonly RuleDef[],
    private readonly config: CatalogConfig,
  ) {
    for (const r of rules) this.defaults.set(r.name, r);
    this.overrides = config.overrides.map((o) => ({ res: o.files.map(globToRegExp), rules: o.rules }));
    const unknown = [config.rules, ...config.overrides.map((o) => o.rules)]
      .flatMap((m) => Object.keys(m))
      .filter((k) => !this.defaults.has(k) && !(k.endsWith('/*') && [...this.defaults.keys()].some((n) => n.startsWith(k.slice(0, -1)))));
    if (unknown.length)
      throw new Error(
        `Unknown rule name(s) in catalog config: ${[...new Set(unknown)].join(', ')}. Known: ${[...this.defaults.keys()].join(', ')}`,
      );
  }

  /** Every known rule. */
  all(): RuleDef[] {
    return [...this.defaults.values()];
  }

  /** True when `rule` is known. */
  has(rule: string): boolean {
    return this.defaults.has(rule);
  }

  /** Effective severity of `rule` for an occurrence in `file`; `legacy` caps at warn (spec 9.3). */
  severity(rule: string, file: string, legacy: boolean): Severity {
    let sev: Severity = this.defaults.get(rule)?.severity ?? 'error';
    const area = rule.split('/')[0] + '/*';
    const pick = (m: Readonly<Record<string, Severity>>): Severity | undefined => m[rule] ?? m[area];
    sev = pick(this.config.rules) ?? sev;
    for (const o of this.overrides) {
      if (o.res.some((re) => re.test(file))) {
        const s = pick(o.rules);
        if (s) {
          sev = s;
          break;
        }
      }
    }
    if (legacy && RANK[sev] > RANK.warn) sev = 'warn';
    return sev;
  }
}
