/**
 * Service configuration, read once from the environment, validated as a whole (every bad variable
 * reported together), frozen and passed down (ARCHITECTURE.md habit 6). Domain code never reads
 * `process.env`; it calls {@link getServiceConfig}.
 *
 * Variables (README "Configuration"):
 * - `CATALOG_DIR`  catalog output folder read by the functions; default `dist`.
 */

/** Validated, frozen service configuration. */
export interface ServiceConfig {
  /** Catalog output folder (absolute or relative to the working directory). */
  readonly catalogDir: string;
}

/** A configuration problem: which variable and what is wrong with it. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: readonly { variable: string; message: string }[]) {
    super('Invalid configuration:\n' + problems.map((p) => `  ${p.variable}: ${p.message}`).join('\n'));
  }
}

/**
 * Read and validate the configuration from `env`.
 * @throws ConfigError listing every invalid variable.
 */
export function loadServiceConfig(env: Readonly<Record<string, string | undefined>> = process.env): ServiceConfig {
  const problems: { variable: string; message: string }[] = [];
  const catalogDir = env.CATALOG_DIR?.trim() || 'dist';
  if (catalogDir.includes('\0')) problems.push({ variable: 'CATALOG_DIR', message: 'must be a folder path' });
  if (problems.length) throw new ConfigError(problems);
  return Object.freeze({ catalogDir });
}

let current: ServiceConfig | undefined;

/** The process-wide configuration, loaded on first use. */
export function getServiceConfig(): ServiceConfig {
  current ??= loadServiceConfig();
  return current;
}
