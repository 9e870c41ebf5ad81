// The one environment config (api/_lib/config.ts): defaults, drivers making their variables required,
// embedded drivers only when chosen or under the local tools (and never on Vercel), remote endpoints over
// TLS, weak secrets refused by name, every problem at once, secrets that never print, and the catalog
// folder resolved against the project root whatever the working directory.
import { inspect } from 'node:util';
import { resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import {
  ConfigError,
  PROJECT_ROOT,
  SECRET_MIN_DISTINCT,
  Secret,
  hostedRuntime,
  loadServiceConfig,
  secretWeakness,
  type ConfigProblem,
} from '../../api/_lib/config.js';

function problems(env: Record<string, string>): ConfigProblem[] {
  try {
    loadServiceConfig(env);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return [...(e as ConfigError).problems];
  }
  throw new Error('expected a ConfigError');
}
const variables = (env: Record<string, string>) => problems(env).map((p) => p.variable);

const S3 = {
  STORAGE_DRIVER: 's3',
  S3_ENDPOINT: 'http://127.0.0.1:9000',
  S3_BUCKET: 'assets',
  S3_ACCESS_KEY_ID: 'AKIA',
  S3_SECRET_ACCESS_KEY: 'shh-very-secret-wJalrXUtnFEMI',
  S3_PUBLIC_URL: 'https://cdn.example.com/assets/',
};
const REDIS = { STORE_DRIVER: 'redis', UPSTASH_REDIS_REST_URL: 'https://eu1.upstash.io', UPSTASH_REDIS_REST_TOKEN: 'tok-secret-value' };
/** Strong secrets: random letters and digits, no unit repeated. */
const JWT_32 = 'Vq8mT2xLr5NcW9pKd3ZgY7hB4sFj6aUe';
const JWT_40 = 'Vq8mT2xLr5NcW9pKd3ZgY7hB4sFj6aUe1Ro0Ci_G';
const ADMIN_16 = 'Hn4rX8cQ2vLm7TzW';
/** The local tools' marker (dev/local-env.ts): unset drivers default to the embedded ones. */
const LOCAL = { LOCAL_RUNTIME: '1' };

describe('defaults', () => {
  it('runs on embedded drivers under the local tools with nothing else set, every path under the project root', () => {
    const c = loadServiceConfig(LOCAL);
    expect(c.onVercel).toBe(false);
    expect(c.localRuntime).toBe(true);
    expect(c.catalogDir).toBe(resolve(PROJECT_ROOT, 'dist'));
    expect(c.dataDir).toBe(resolve(PROJECT_ROOT, '.data'));
    expect(c.store).toEqual({ driver: 'sqlite', file: resolve(PROJECT_ROOT, '.data', 'ledger.sqlite') });
    expect(c.storage).toEqual({
      driver: 'local',
      dir: resolve(PROJECT_ROOT, '.data', 'storage'),
      publicUrl: 'http://localhost:3000/storage',
    });
    expect(c.jwt).toEqual({
      issuer: 'game-data-service',
      audience: 'game-api',
      keys: { kind: 'none' },
      clockToleranceS: 5,
      maxAgeS: 86_400,
    });
    expect(c.adminPassword).toBeUndefined();
    expect(c.walletVerifySendMax).toBe(1000);
    expect(c.port).toBe(3000);
  });

  it('resolves a relative CATALOG_DIR and DATA_DIR against the project root, not the working directory', () => {
    const c = loadServiceConfig({ CATALOG_DIR: 'out/x', DATA_DIR: '/var/data' });
    expect(c.catalogDir).toBe(resolve(PROJECT_ROOT, 'out/x'));
    expect(c.dataDir).toBe('/var/data');
    expect(PROJECT_ROOT).toBe(resolve(import.meta.dirname, '../..'));
  });

  it('is frozen all the way down', () => {
    const c = loadServiceConfig(LOCAL);
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.store)).toBe(true);
    expect(Object.isFrozen(c.jwt.keys)).toBe(true);
  });

  it('treats blank values as unset', () => {
    expect(loadServiceConfig({ WALLET_VERIFY_SEND_MAX: '  ', STORE_DRIVER: '' }).walletVerifySendMax).toBe(1000);
  });
});

describe('external login', () => {
  it('refuses a provider name that is not a name, or is the prefix of the service’s own usernames', () => {
    expect(variables({ EXTERNAL_AUTH_PROVIDER: 'Steam!' })).toEqual(['EXTERNAL_AUTH_PROVIDER']);
    expect(problems({ EXTERNAL_AUTH_PROVIDER: 'studio' }).map((p) => p.message)).toEqual([
      'must not be "studio", the prefix of the usernames the service gives accounts.',
    ]);
    expect(() => loadServiceConfig({ EXTERNAL_AUTH_PROVIDER: 'studios' })).not.toThrow();
  });
});

describe('drivers', () => {
  it('redis needs its URL and token', () => {
    expect(variables({ STORE_DRIVER: 'redis' })).toEqual(['UPSTASH_REDIS_REST_URL', 'UPSTASH_REDIS_REST_TOKEN']);
    const c = loadServiceConfig(REDIS);
    expect(c.store.driver).toBe('redis');
    if (c.store.driver === 'redis' && c.store.protocol === 'rest') {
      expect(c.store.url).toBe('https://eu1.upstash.io');
      expect(c.store.token.reveal()).toBe('tok-secret-value');
    }
  });

  it('redis can instead reach a redis-server over RESP with REDIS_URL, held as a secret; not both, and only redis:// URLs', () => {
    const c = loadServiceConfig({ STORE_DRIVER: 'redis', REDIS_URL: 'redis://:pw-secret-K7q2@127.0.0.1:6379/2' });
    expect(c.store.driver === 'redis' && c.store.protocol).toBe('resp');
    if (c.store.driver === 'redis' && c.store.protocol === 'resp')
      expect(c.store.url.reveal()).toBe('redis://:pw-secret-K7q2@127.0.0.1:6379/2');
    expect(JSON.stringify(c)).not.toContain('pw-secret');
    expect(
      variables({
        STORE_DRIVER: 'redis',
        REDIS_URL: 'redis://127.0.0.1:6379',
        UPSTASH_REDIS_REST_URL: 'https://eu1.upstash.io',
        UPSTASH_REDIS_REST_TOKEN: 't',
      }),
    ).toEqual(['REDIS_URL']);
    for (const bad of ['http://127.0.0.1:6379', 'redis://', 'redis://host:1/db', 'redis://host:1/123']) {
      expect(variables({ STORE_DRIVER: 'redis', REDIS_URL: bad }), bad).toEqual(['REDIS_URL']);
    }
    expect(loadServiceConfig({ STORE_DRIVER: 'redis', REDIS_URL: 'rediss://cache.example.com:6380' }).store.driver).toBe('redis');
    // REDIS_URL alone selects nothing: the driver is still the local tools' default, or none
    expect(loadServiceConfig({ ...LOCAL, REDIS_URL: 'redis://127.0.0.1:6379' }).store.driver).toBe('sqlite');
    expect(loadServiceConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }).store.driver).toBe('none');
  });

  it('s3 needs every S3 variable of spec 4.7 but the region, which defaults to us-east-1', () => {
    expect(variables({ STORAGE_DRIVER: 's3' })).toEqual([
      'S3_ENDPOINT',
      'S3_BUCKET',
      'S3_ACCESS_KEY_ID',
      'S3_SECRET_ACCESS_KEY',
      'S3_PUBLIC_URL',
    ]);
    const c = loadServiceConfig(S3);
    expect(c.storage).toMatchObject({
      driver: 's3',
      endpoint: 'http://127.0.0.1:9000',
      bucket: 'assets',
      region: 'us-east-1',
      publicUrl: 'https://cdn.example.com/assets',
    });
    expect(loadServiceConfig({ ...S3, S3_REGION: 'eu-west-3' }).storage).toMatchObject({ region: 'eu-west-3' });
  });

  it('refuses unknown drivers, bad URLs, bucket names and credentials in URLs', () => {
    expect(variables({ STORE_DRIVER: 'mongo', STORAGE_DRIVER: 'ftp' })).toEqual(['STORE_DRIVER', 'STORAGE_DRIVER']);
    expect(variables({ ...S3, S3_ENDPOINT: 'not a url', S3_BUCKET: 'Bad_Bucket' })).toEqual(['S3_ENDPOINT', 'S3_BUCKET']);
    expect(variables({ ...REDIS, UPSTASH_REDIS_REST_URL: 'https://user:pw@x.upstash.io' })).toEqual(['UPSTASH_REDIS_REST_URL']);
    expect(variables({ ...S3, S3_PUBLIC_URL: 'ftp://x' })).toEqual(['S3_PUBLIC_URL']);
  });

  it('accepts driver names in any case', () => {
    expect(loadServiceConfig({ ...REDIS, STORE_DRIVER: 'Redis' }).store.driver).toBe('redis');
  });
});

describe('on Vercel', () => {
  it('refuses the embedded drivers, naming the variables to set', () => {
    const p = problems({ VERCEL: '1', STORE_DRIVER: 'sqlite', STORAGE_DRIVER: 'local' });
    expect(p.map((x) => x.variable)).toEqual(['STORE_DRIVER', 'STORAGE_DRIVER']);
    expect(p[0]!.message).toContain('UPSTASH_REDIS_REST_URL');
    expect(p[1]!.message).toContain('S3_SECRET_ACCESS_KEY');
  });

  it('leaves an unset driver unconfigured, so a catalog-only deployment needs no store', () => {
    const c = loadServiceConfig({ VERCEL: '1' });
    expect(c.onVercel).toBe(true);
    expect(c.store.driver).toBe('none');
    expect(c.storage.driver).toBe('none');
    expect(loadServiceConfig({ VERCEL: '1', ...REDIS, ...S3 }).store.driver).toBe('redis');
  });

  it('reads VERCEL=0 or false as not on Vercel', () => {
    expect(loadServiceConfig({ VERCEL: '0' }).onVercel).toBe(false);
    expect(loadServiceConfig({ ...LOCAL, VERCEL: 'false' }).store.driver).toBe('sqlite');
  });

  it('gives no embedded default on Vercel, even under the local marker', () => {
    const c = loadServiceConfig({ ...LOCAL, VERCEL: '1' });
    expect([c.store.driver, c.storage.driver]).toEqual(['none', 'none']);
  });
});

describe('tokens, admin password and limits', () => {
  it('takes an HS256 secret of at least 32 bytes or an https JWKS URL, never both', () => {
    expect(loadServiceConfig({ JWT_SECRET: JWT_32 }).jwt.keys.kind).toBe('secret');
    expect(loadServiceConfig({ JWT_JWKS_URL: 'https://id.example.com/.well-known/jwks.json' }).jwt.keys).toEqual({
      kind: 'jwks',
      url: 'https://id.example.com/.well-known/jwks.json',
    });
    expect(variables({ JWT_SECRET: JWT_32.slice(1) })).toEqual(['JWT_SECRET']);
    expect(variables({ JWT_JWKS_URL: 'http://id.example.com/jwks' })).toEqual(['JWT_JWKS_URL']);
    expect(loadServiceConfig({ JWT_JWKS_URL: 'http://127.0.0.1:8080/jwks' }).jwt.keys).toEqual({
      kind: 'jwks',
      url: 'http://127.0.0.1:8080/jwks',
    });
    expect(loadServiceConfig({ JWT_JWKS_URL: 'http://localhost:8080/jwks' }).jwt.keys).toEqual({
      kind: 'jwks',
      url: 'http://localhost:8080/jwks',
    });
    expect(variables({ JWT_JWKS_URL: 'http://127.0.0.2/jwks' })).toEqual(['JWT_JWKS_URL']);
    expect(variables({ JWT_SECRET: JWT_40, JWT_JWKS_URL: 'https://id.example.com/jwks' })).toEqual(['JWT_SECRET']);
  });

  it('reads issuer, audience and clock tolerance (0-300 s)', () => {
    const c = loadServiceConfig({ JWT_ISSUER: 'https://auth.example.com', JWT_AUDIENCE: 'game', JWT_CLOCK_TOLERANCE_S: '0' });
    expect(c.jwt).toMatchObject({ issuer: 'https://auth.example.com', audience: 'game', clockToleranceS: 0 });
    expect(loadServiceConfig({ JWT_CLOCK_TOLERANCE_S: '300' }).jwt.clockToleranceS).toBe(300);
    expect(variables({ JWT_CLOCK_TOLERANCE_S: '301' })).toEqual(['JWT_CLOCK_TOLERANCE_S']);
    expect(variables({ JWT_CLOCK_TOLERANCE_S: '-1' })).toEqual(['JWT_CLOCK_TOLERANCE_S']);
    expect(loadServiceConfig({ JWT_MAX_AGE_S: '60' }).jwt.maxAgeS).toBe(60);
    expect(loadServiceConfig({ JWT_MAX_AGE_S: '2592000' }).jwt.maxAgeS).toBe(2_592_000);
    expect(variables({ JWT_MAX_AGE_S: '59' })).toEqual(['JWT_MAX_AGE_S']);
    expect(variables({ JWT_MAX_AGE_S: '2592001' })).toEqual(['JWT_MAX_AGE_S']);
  });

  it('requires an admin password of at least 16 characters when set', () => {
    expect(variables({ ADMIN_PASSWORD: 'short' })).toEqual(['ADMIN_PASSWORD']);
    expect(loadServiceConfig({ ADMIN_PASSWORD: ADMIN_16 }).adminPassword?.equals(ADMIN_16)).toBe(true);
  });

  it('takes a cron secret of at least 16 characters and an https alert webhook (http on the loopback only), both optional', () => {
    const none = loadServiceConfig({});
    expect([none.cronSecret, none.alertWebhookUrl]).toEqual([undefined, undefined]);
    expect(variables({ CRON_SECRET: ADMIN_16.slice(1) })).toEqual(['CRON_SECRET']);
    const c = loadServiceConfig({ CRON_SECRET: ADMIN_16, ALERT_WEBHOOK_URL: 'https://hooks.example.com/ledger/' });
    expect(c.cronSecret?.equals(ADMIN_16)).toBe(true);
    expect(String(c.cronSecret)).toBe('[redacted]');
    expect(c.alertWebhookUrl).toBe('https://hooks.example.com/ledger');
    expect(loadServiceConfig({ ALERT_WEBHOOK_URL: 'http://127.0.0.1:9000/hook' }).alertWebhookUrl).toBe('http://127.0.0.1:9000/hook');
    for (const bad of ['http://hooks.example.com/ledger', 'ftp://hooks.example.com', 'https://user:pw@hooks.example.com', 'not a url'])
      expect(variables({ ALERT_WEBHOOK_URL: bad }), bad).toEqual(['ALERT_WEBHOOK_URL']);
  });

  it('bounds WALLET_VERIFY_SEND_MAX to 1..1,000,000,000 whole coin units and PORT to 0..65535', () => {
    expect(loadServiceConfig({ WALLET_VERIFY_SEND_MAX: '1' }).walletVerifySendMax).toBe(1);
    expect(loadServiceConfig({ WALLET_VERIFY_SEND_MAX: '1000000000' }).walletVerifySendMax).toBe(1_000_000_000);
    for (const bad of ['0', '1000000001', '1.5', 'ten', '-3'])
      expect(variables({ WALLET_VERIFY_SEND_MAX: bad }), bad).toEqual(['WALLET_VERIFY_SEND_MAX']);
    expect(loadServiceConfig({ PORT: '0' }).port).toBe(0);
    expect(variables({ PORT: '65536' })).toEqual(['PORT']);
  });

  it('reports every bad variable at once, and never a value', () => {
    const env = {
      STORE_DRIVER: 'redis',
      UPSTASH_REDIS_REST_URL: 'bad',
      UPSTASH_REDIS_REST_TOKEN: 'tok-value-1',
      ADMIN_PASSWORD: 'pw-value',
      WALLET_VERIFY_SEND_MAX: 'many',
      JWT_SECRET: 'jwt-value',
    };
    let error: ConfigError | undefined;
    try {
      loadServiceConfig(env);
    } catch (e) {
      error = e as ConfigError;
    }
    expect(error?.problems.map((p) => p.variable)).toEqual([
      'UPSTASH_REDIS_REST_URL',
      'JWT_SECRET',
      'ADMIN_PASSWORD',
      'WALLET_VERIFY_SEND_MAX',
    ]);
    for (const value of ['tok-value-1', 'pw-value', 'jwt-value', 'many']) expect(error?.message).not.toContain(value);
  });
});

describe('Secret', () => {
  it('never shows its value when printed, serialised or inspected', () => {
    const c = loadServiceConfig({ ...REDIS, ...S3, ADMIN_PASSWORD: 'admin-password-value', JWT_SECRET: JWT_40 });
    const printed = [JSON.stringify(c), inspect(c, { depth: 10 }), String(c.adminPassword), `${c.adminPassword?.toString()}`].join('\n');
    for (const value of ['tok-secret-value', 'shh-very-secret', 'admin-password-value', JWT_40]) expect(printed).not.toContain(value);
    expect(printed).toContain('[redacted]');
  });

  it('compares in constant time and exactly', () => {
    const s = new Secret('correct horse battery staple');
    expect(s.equals('correct horse battery staple')).toBe(true);
    expect(s.equals('correct horse battery stapl')).toBe(false);
    expect(s.equals('correct horse battery staple ')).toBe(false);
    expect(s.equals('')).toBe(false);
    expect(s.reveal()).toBe('correct horse battery staple');
  });
});

describe('values read exactly', () => {
  it('trims values and reads VERCEL as on for any other value', () => {
    expect(loadServiceConfig({ JWT_ISSUER: '  iss  ', VERCEL: '' }).jwt.issuer).toBe('iss');
    expect(loadServiceConfig({ VERCEL: ' FALSE ' }).onVercel).toBe(false);
    expect(loadServiceConfig({ VERCEL: 'true' }).onVercel).toBe(true);
    expect(loadServiceConfig({ VERCEL: 'yes' }).onVercel).toBe(true);
  });

  it('drops trailing slashes of URLs and keeps an unset optional URL unset', () => {
    const c = loadServiceConfig({ ...LOCAL, STORAGE_PUBLIC_URL: 'https://files.example.com/storage///' });
    expect(c.storage).toMatchObject({ driver: 'local', publicUrl: 'https://files.example.com/storage' });
    expect(loadServiceConfig({ ...LOCAL, STORAGE_PUBLIC_URL: '   ' }).storage).toMatchObject({
      publicUrl: 'http://localhost:3000/storage',
    });
  });

  it('refuses a URL carrying only a user name or only a password', () => {
    expect(variables({ ...REDIS, UPSTASH_REDIS_REST_URL: 'https://user@x.upstash.io' })).toEqual(['UPSTASH_REDIS_REST_URL']);
    expect(variables({ ...REDIS, UPSTASH_REDIS_REST_URL: 'https://:pw@x.upstash.io' })).toEqual(['UPSTASH_REDIS_REST_URL']);
  });

  it('refuses a non-http local storage URL and accepts http or https', () => {
    expect(variables({ ...LOCAL, STORAGE_PUBLIC_URL: 'ftp://files.example.com' })).toEqual(['STORAGE_PUBLIC_URL']);
    expect(variables({ ...LOCAL, STORAGE_PUBLIC_URL: 'files.example.com' })).toEqual(['STORAGE_PUBLIC_URL']);
    expect(loadServiceConfig({ ...LOCAL, STORAGE_PUBLIC_URL: 'http://x' }).storage).toMatchObject({ publicUrl: 'http://x' });
    expect(loadServiceConfig({ ...S3, S3_ENDPOINT: 'https://s3.example.com' }).storage).toMatchObject({
      endpoint: 'https://s3.example.com',
    });
  });

  it('names the missing driver variables and a bad URL at once, leaving nothing half set', () => {
    expect(variables({ ...REDIS, UPSTASH_REDIS_REST_URL: 'nope', UPSTASH_REDIS_REST_TOKEN: '' })).toEqual([
      'UPSTASH_REDIS_REST_URL',
      'UPSTASH_REDIS_REST_TOKEN',
    ]);
  });

  it('refuses a folder path holding a NUL character', () => {
    expect(variables({ CATALOG_DIR: 'di\0st', DATA_DIR: '/x\0' })).toEqual(['CATALOG_DIR', 'DATA_DIR']);
  });

  it('accepts bucket names of 3 to 63 characters that start and end with a letter or digit', () => {
    for (const ok of ['abc', 'a'.repeat(63), 'my.bucket-1', '1ab'])
      expect(loadServiceConfig({ ...S3, S3_BUCKET: ok }).storage, ok).toMatchObject({ bucket: ok });
    for (const bad of ['ab', 'a'.repeat(64), '-abc', 'abc-', 'abc.', 'ab_c', 'ABC'])
      expect(variables({ ...S3, S3_BUCKET: bad }), bad).toEqual(['S3_BUCKET']);
  });

  it('reads the S3 settings it is given', () => {
    const c = loadServiceConfig({ ...S3, S3_REGION: 'auto' });
    expect(c.storage.driver).toBe('s3');
    if (c.storage.driver === 's3') {
      expect(c.storage.accessKeyId).toBe('AKIA');
      expect(c.storage.secretAccessKey.reveal()).toBe('shh-very-secret-wJalrXUtnFEMI');
      expect(c.storage.region).toBe('auto');
    }
  });

  it('counts the JWT secret in bytes and takes exactly 16 characters of admin password', () => {
    // 16 two-byte characters are 32 bytes; 15 of them and one ASCII letter are 31
    const accented = 'éàèùâêîôûëïüçœæñ';
    expect(loadServiceConfig({ JWT_SECRET: accented }).jwt.keys.kind).toBe('secret');
    expect(variables({ JWT_SECRET: accented.slice(1) + 'x' })).toEqual(['JWT_SECRET']);
    const keys = loadServiceConfig({ JWT_SECRET: JWT_32 }).jwt.keys;
    expect(keys.kind === 'secret' && keys.secret.reveal()).toBe(JWT_32);
    expect(variables({ ADMIN_PASSWORD: ADMIN_16.slice(1) })).toEqual(['ADMIN_PASSWORD']);
  });

  it('refuses a JWT secret next to an invalid JWKS URL, naming both', () => {
    expect(variables({ JWT_SECRET: JWT_40, JWT_JWKS_URL: 'not a url' })).toEqual(['JWT_JWKS_URL', 'JWT_SECRET']);
  });

  it('bounds the clock tolerance and keeps its default on a bad value', () => {
    expect(loadServiceConfig({ JWT_CLOCK_TOLERANCE_S: '17' }).jwt.clockToleranceS).toBe(17);
    expect(variables({ JWT_CLOCK_TOLERANCE_S: '5s' })).toEqual(['JWT_CLOCK_TOLERANCE_S']);
    expect(variables({ PORT: ' 80 80' })).toEqual(['PORT']);
    expect(loadServiceConfig({ PORT: '65535' }).port).toBe(65535);
  });

  it('freezes the storage and token parts too', () => {
    const c = loadServiceConfig({ ...S3, JWT_SECRET: JWT_32 });
    expect(Object.isFrozen(c.storage)).toBe(true);
    expect(Object.isFrozen(c.jwt)).toBe(true);
    expect(() => {
      (c.jwt as { issuer: string }).issuer = 'evil';
    }).toThrow(TypeError);
  });
});

describe('ConfigError', () => {
  it('names every variable in its message and keeps the problems', () => {
    const e = new ConfigError([
      { variable: 'PORT', message: 'm1' },
      { variable: 'DATA_DIR', message: 'm2' },
    ]);
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe('ConfigError');
    expect(e.problems.map((p) => p.variable)).toEqual(['PORT', 'DATA_DIR']);
    expect(e.message).toContain('PORT');
    expect(e.message).toContain('DATA_DIR');
    expect(e.message.split('\n')).toHaveLength(3);
  });
});

describe('Secret prints', () => {
  it('as [redacted] through String, JSON and inspect', () => {
    const s = new Secret('hunter2-hunter2-hunter2');
    expect(String(s)).toBe('[redacted]');
    expect(JSON.stringify({ s })).toBe('{"s":"[redacted]"}');
    expect(inspect(s)).toBe('Secret([redacted])');
  });
});

describe('the configuration in force', () => {
  it('is the one put in force, tells listeners, and returns to the environment', async () => {
    const { getServiceConfig, onConfigChange, processEnvironment, useServiceConfig } = await import('../../api/_lib/config.js');
    let calls = 0;
    onConfigChange(() => void calls++);
    const mine = loadServiceConfig({ CATALOG_DIR: '/tmp/mine' });
    try {
      useServiceConfig(mine);
      expect(calls).toBe(1);
      expect(getServiceConfig()).toBe(mine);
      expect(getServiceConfig()).toBe(mine);
    } finally {
      useServiceConfig(undefined);
    }
    expect(calls).toBe(2);
    const fromEnv = getServiceConfig();
    expect(fromEnv).not.toBe(mine);
    expect(getServiceConfig()).toBe(fromEnv);
    expect(processEnvironment()).toBe(process.env);
  });
});

describe('services built once per configuration', () => {
  it('opens on first use, shares the one open, retries after a failed open, and closes it when the configuration changes', async () => {
    const { oncePerConfiguration, useServiceConfig } = await import('../../api/_lib/config.js');
    const opened: string[] = [];
    const closed: string[] = [];
    let fail = true;
    const service = oncePerConfiguration(
      (config) => {
        opened.push(config.catalogDir);
        if (fail) return Promise.reject(new Error('down'));
        return Promise.resolve({ dir: config.catalogDir });
      },
      (s) => void closed.push(s.dir),
    );
    try {
      useServiceConfig(loadServiceConfig({ CATALOG_DIR: '/tmp/a' }));
      await expect(service()).rejects.toThrow('down');
      fail = false;
      const first = service();
      expect(service()).toBe(first);
      expect(await first).toEqual({ dir: '/tmp/a' });
      expect(opened).toEqual(['/tmp/a', '/tmp/a']);
      useServiceConfig(loadServiceConfig({ CATALOG_DIR: '/tmp/b' }));
      await new Promise((r) => setTimeout(r, 0));
      expect(closed).toEqual(['/tmp/a']);
      expect(await service()).toEqual({ dir: '/tmp/b' });
      expect(opened).toEqual(['/tmp/a', '/tmp/a', '/tmp/b']);
    } finally {
      useServiceConfig(undefined);
    }
  });
});

describe('embedded drivers only when chosen or under the local tools', () => {
  it('leaves both stateful parts unconfigured when no driver is set outside the local tools, saying what to set', () => {
    const c = loadServiceConfig({});
    expect(c.localRuntime).toBe(false);
    expect(c.store.driver).toBe('none');
    expect(c.storage.driver).toBe('none');
    const store = c.store.driver === 'none' ? c.store.reason : '';
    const storage = c.storage.driver === 'none' ? c.storage.reason : '';
    expect(store).toContain('STORE_DRIVER=redis with UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN');
    expect(store).toContain('LOCAL_RUNTIME');
    expect(storage).toContain('STORAGE_DRIVER=s3 with S3_ENDPOINT');
    // a catalog-only deployment is valid: nothing is a problem
    expect(() => loadServiceConfig({ CATALOG_DIR: '/srv/dist' })).not.toThrow();
  });

  it('uses the embedded drivers when chosen explicitly, on any runtime but Vercel', () => {
    for (const hosted of [{}, { AWS_LAMBDA_FUNCTION_NAME: 'fn' }, { K_SERVICE: 'svc' }, { NODE_ENV: 'production' }]) {
      const c = loadServiceConfig({ ...hosted, STORE_DRIVER: 'sqlite', STORAGE_DRIVER: 'local' });
      expect([c.store.driver, c.storage.driver], JSON.stringify(hosted)).toEqual(['sqlite', 'local']);
    }
  });

  it('defaults to the embedded drivers under the local marker only when it is on', () => {
    expect(loadServiceConfig({ LOCAL_RUNTIME: '1' }).store.driver).toBe('sqlite');
    expect(loadServiceConfig({ LOCAL_RUNTIME: 'true' }).storage.driver).toBe('local');
    for (const off of ['0', 'false', ' ']) expect(loadServiceConfig({ LOCAL_RUNTIME: off }).store.driver, off).toBe('none');
  });

  it('names the hosted runtime it recognises in the message, and decides nothing by it', () => {
    const markers: [Record<string, string>, string][] = [
      [{ VERCEL: '0' }, 'Vercel (VERCEL is set)'],
      [{ VERCEL_ENV: 'production' }, 'Vercel (VERCEL_ENV is set)'],
      [{ AWS_LAMBDA_FUNCTION_NAME: 'game-api' }, 'AWS Lambda (AWS_LAMBDA_FUNCTION_NAME is set)'],
      [{ AWS_EXECUTION_ENV: 'AWS_ECS_FARGATE' }, 'AWS (AWS_EXECUTION_ENV is set)'],
      [{ NETLIFY: 'true' }, 'Netlify (NETLIFY is set)'],
      [{ K_SERVICE: 'game-api' }, 'Google Cloud Run (K_SERVICE is set)'],
      [{ NODE_ENV: 'Production' }, 'a production runtime (NODE_ENV=production)'],
    ];
    for (const [env, runtime] of markers) {
      expect(hostedRuntime(env), JSON.stringify(env)).toBe(runtime);
      const c = loadServiceConfig(env);
      expect(c.store.driver === 'none' && c.store.reason, JSON.stringify(env)).toContain(`this looks like ${runtime}`);
      expect(c.storage.driver === 'none' && c.storage.reason, JSON.stringify(env)).toContain(runtime);
    }
    expect(hostedRuntime({ NODE_ENV: 'development', VERCEL: ' ' })).toBeUndefined();
    // the same unset drivers without any marker: the same outcome, another message
    const bare = loadServiceConfig({});
    expect(bare.store.driver === 'none' && bare.store.reason).not.toContain('this looks like');
  });
});

describe('remote endpoints over TLS, http only on the loopback interface', () => {
  const cases: [string, (url: string) => Record<string, string>][] = [
    ['UPSTASH_REDIS_REST_URL', (url) => ({ ...REDIS, UPSTASH_REDIS_REST_URL: url })],
    ['S3_ENDPOINT', (url) => ({ ...S3, S3_ENDPOINT: url })],
    ['S3_PUBLIC_URL', (url) => ({ ...S3, S3_PUBLIC_URL: url })],
    ['JWT_JWKS_URL', (url) => ({ JWT_JWKS_URL: url })],
    [
      'EXTERNAL_AUTH_JWKS_URL',
      (url) => ({ EXTERNAL_AUTH_JWKS_URL: url, EXTERNAL_AUTH_ISSUER: 'https://id.example.com', EXTERNAL_AUTH_AUDIENCE: 'game' }),
    ],
  ];

  it('refuses http:// to any other host, and accepts https:// anywhere and http:// on 127.0.0.1, [::1] and localhost', () => {
    for (const [variable, env] of cases) {
      for (const bad of ['http://db.example.com', 'http://10.0.0.5:8080', 'http://127.0.0.2', 'http://localhost.example.com', 'ftp://x'])
        expect(variables(env(bad)), `${variable} ${bad}`).toEqual([variable]);
      for (const ok of ['https://db.example.com', 'http://127.0.0.1:8079', 'http://[::1]:8079', 'http://localhost:8079'])
        expect(() => loadServiceConfig(env(ok)), `${variable} ${ok}`).not.toThrow();
    }
    const p = problems(cases[0]![1]('http://db.example.com'));
    expect(p[0]!.message).toBe('must be an https:// URL (http:// only on 127.0.0.1, [::1] or localhost).');
  });

  it('takes rediss:// anywhere and redis:// only on the loopback interface', () => {
    expect(variables({ STORE_DRIVER: 'redis', REDIS_URL: 'redis://cache.example.com:6379' })).toEqual(['REDIS_URL']);
    for (const ok of ['rediss://cache.example.com:6380', 'redis://127.0.0.1:6379', 'redis://[::1]:6379', 'redis://localhost:6379/1'])
      expect(loadServiceConfig({ STORE_DRIVER: 'redis', REDIS_URL: ok }).store.driver, ok).toBe('redis');
  });
});

describe('weak secrets, refused by name', () => {
  const SECRETS: [string, (value: string) => Record<string, string>][] = [
    ['JWT_SECRET', (v) => ({ JWT_SECRET: v })],
    ['ADMIN_PASSWORD', (v) => ({ ADMIN_PASSWORD: v })],
    ['CRON_SECRET', (v) => ({ CRON_SECRET: v })],
    ['UPSTASH_REDIS_REST_TOKEN', (v) => ({ ...REDIS, UPSTASH_REDIS_REST_TOKEN: v })],
    ['S3_SECRET_ACCESS_KEY', (v) => ({ ...S3, S3_SECRET_ACCESS_KEY: v })],
    ['REDIS_URL', (v) => ({ STORE_DRIVER: 'redis', REDIS_URL: `redis://:${encodeURIComponent(v)}@127.0.0.1:6379` })],
  ];
  // each is long enough for every minimum (32 bytes), so only its weakness is refused
  const WEAK: [string, string][] = [
    ['few different characters', 'ab01ba10ab01ba10ba01ab10aab01ba1b0'],
    ['a short unit repeated', 'q7Vd-2LmXp'.repeat(4)],
    ['a short unit repeated, the last cut', 'Kx9#mQ2'.repeat(5) + 'Kx9'],
    ['one character', 'a'.repeat(40)],
    ['a placeholder', 'changeme'],
    ['a placeholder repeated', 'changeme-changeme-changeme-changeme'],
    ['a placeholder with digits', 'Password1234567890'],
    ['a placeholder in capitals', 'CHANGEME'],
  ];

  it('refuses each weak kind for every secret, naming the variable and what to set, never the value', () => {
    for (const [variable, env] of SECRETS) {
      for (const [kind, value] of WEAK) {
        let error: ConfigError | undefined;
        try {
          loadServiceConfig(env(value));
        } catch (e) {
          error = e as ConfigError;
        }
        expect(
          error?.problems.map((p) => p.variable),
          `${variable}: ${kind}`,
        ).toEqual([variable]);
        const message = error!.problems[0]!.message;
        expect(message, `${variable}: ${kind}`).toMatch(/weak|at least/);
        expect(message).toMatch(/set /);
        expect(error!.message).not.toContain(value);
      }
    }
  });

  it('says which weakness it found', () => {
    expect(secretWeakness('changeme')).toBe('is a well-known placeholder');
    expect(secretWeakness('Secret-Secret-Secret')).toBe('is a well-known placeholder');
    expect(secretWeakness('2024password')).toBe('is a well-known placeholder');
    expect(secretWeakness('abcabcabcabcabcabcabcabcabcabcabc')).toBe('repeats a short pattern');
    expect(secretWeakness('zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz')).toBe('repeats a short pattern');
    expect(secretWeakness('0123456789012345678901234567890123')).toBe('repeats a short pattern');
    expect(secretWeakness('ab01ba10ab01ba10ba01ab10aab01ba1b0')).toBe(`has fewer than ${SECRET_MIN_DISTINCT} different characters`);
  });

  it('accepts random secrets, and secrets that only contain a placeholder or a repetition', () => {
    for (const ok of [
      JWT_32,
      JWT_40,
      ADMIN_16,
      'tok-secret-value',
      'correct horse battery staple',
      'my-password-is-Kx9mQ2vL',
      'abcabcXYZ-0123456789',
    ])
      expect(secretWeakness(ok), ok).toBeUndefined();
    expect(loadServiceConfig({ ...REDIS, ...S3, JWT_SECRET: JWT_40, ADMIN_PASSWORD: ADMIN_16 }).adminPassword).toBeDefined();
  });

  it('keeps the minimum lengths: 32 bytes of JWT_SECRET, 16 characters of ADMIN_PASSWORD', () => {
    expect(problems({ JWT_SECRET: JWT_32.slice(0, 31) })[0]!.message).toMatch(/^must be at least 32 bytes/);
    expect(problems({ ADMIN_PASSWORD: ADMIN_16.slice(0, 15) })[0]!.message).toMatch(/^must be at least 16 characters/);
  });
});

describe('the two halves in force', () => {
  it('reads CATALOG_DIR alone for the catalog, and the same ConfigError on every call for a bad stateful half', async () => {
    const { getCatalogDir, getServiceConfig, useEnvironment, useServiceConfig } = await import('../../api/_lib/config.js');
    try {
      useEnvironment({ CATALOG_DIR: '/srv/catalog', STORAGE_MAX_FILE_BYTES: 'abc', JWT_SECRET: 'short' });
      expect(getCatalogDir()).toBe('/srv/catalog');
      let first: unknown;
      try {
        getServiceConfig();
      } catch (e) {
        first = e;
      }
      expect(first).toBeInstanceOf(ConfigError);
      expect((first as ConfigError).problems.map((p) => p.variable)).toEqual(['JWT_SECRET', 'STORAGE_MAX_FILE_BYTES']);
      expect(() => getServiceConfig()).toThrow(first);
      useEnvironment({ CATALOG_DIR: 'di\0st', STORE_DRIVER: 'sqlite' });
      expect(() => getCatalogDir()).toThrow(ConfigError);
      expect(getServiceConfig.bind(null)).toThrow(/CATALOG_DIR/);
      useServiceConfig(loadServiceConfig({ CATALOG_DIR: '/srv/other' }));
      expect(getCatalogDir()).toBe('/srv/other');
    } finally {
      useServiceConfig(undefined);
    }
  });
});

describe("Upstash under Vercel's names (rule 6)", () => {
  /** What Vercel's Upstash integration sets for one database (REST on the host, RESP on the same host). */
  const TOKEN = 'AX4sAAIjcDE2Yjk3NGQ5MGRhMmI0ZDk5OTI';
  const INTEGRATION = {
    KV_REST_API_URL: 'https://able-gull-12345.upstash.io',
    KV_REST_API_TOKEN: TOKEN,
    KV_REST_API_READ_ONLY_TOKEN: 'Ak4sAAIgcDE2Yjk3NGQ5MGRhMmI0ZDk5OTI',
    KV_URL: `rediss://default:${TOKEN}@able-gull-12345.upstash.io:6379`,
    REDIS_URL: `rediss://default:${TOKEN}@able-gull-12345.upstash.io:6379`,
  };
  const restOf = (env: Record<string, string>) => {
    const s = loadServiceConfig(env).store;
    if (s.driver !== 'redis' || s.protocol !== 'rest') throw new Error(`expected the REST store, got ${s.driver}`);
    return { url: s.url, token: s.token.reveal() };
  };

  it('takes KV_REST_API_URL and KV_REST_API_TOKEN as the REST pair', () => {
    expect(restOf({ STORE_DRIVER: 'redis', KV_REST_API_URL: 'https://eu1.upstash.io/', KV_REST_API_TOKEN: TOKEN })).toEqual({
      url: 'https://eu1.upstash.io',
      token: TOKEN,
    });
    // either name of each, mixed
    expect(restOf({ STORE_DRIVER: 'redis', UPSTASH_REDIS_REST_URL: 'https://eu1.upstash.io', KV_REST_API_TOKEN: TOKEN }).token).toBe(TOKEN);
    expect(restOf({ STORE_DRIVER: 'redis', KV_REST_API_URL: 'https://eu1.upstash.io', UPSTASH_REDIS_REST_TOKEN: TOKEN }).url).toBe(
      'https://eu1.upstash.io',
    );
    // the names choose no driver on their own (rule 1)
    expect(loadServiceConfig({ KV_REST_API_URL: 'https://eu1.upstash.io', KV_REST_API_TOKEN: TOKEN }).store.driver).toBe('none');
  });

  it('checks the second names as the first: https, a strong token, named by the name used, never echoed', () => {
    const http = problems({ STORE_DRIVER: 'redis', KV_REST_API_URL: 'http://eu1.upstash.io', KV_REST_API_TOKEN: TOKEN });
    expect(http.map((p) => p.variable)).toEqual(['KV_REST_API_URL']);
    const weak = problems({ STORE_DRIVER: 'redis', KV_REST_API_URL: 'https://eu1.upstash.io', KV_REST_API_TOKEN: 'changeme123' });
    expect(weak.map((p) => p.variable)).toEqual(['KV_REST_API_TOKEN']);
    expect(JSON.stringify(weak)).not.toContain('changeme123');
    const creds = problems({ STORE_DRIVER: 'redis', KV_REST_API_URL: 'https://u:p@eu1.upstash.io', KV_REST_API_TOKEN: TOKEN });
    expect(creds.map((p) => p.variable)).toEqual(['KV_REST_API_URL']);
  });

  it('refuses both names set to different values, naming both and neither value', () => {
    const other = 'AX4sBBIjcDE2Yjk3NGQ5MGRhMmI0ZDk5OTJ';
    const p = problems({ STORE_DRIVER: 'redis', ...INTEGRATION, UPSTASH_REDIS_REST_TOKEN: other });
    expect(p.map((x) => x.variable)).toEqual(['UPSTASH_REDIS_REST_TOKEN']);
    expect(p[0]!.message).toContain('KV_REST_API_TOKEN');
    expect(JSON.stringify(p)).not.toContain(other);
    expect(JSON.stringify(p)).not.toContain(TOKEN);
    const urls = problems({ STORE_DRIVER: 'redis', ...INTEGRATION, UPSTASH_REDIS_REST_URL: 'https://other-db.upstash.io' });
    expect(urls.map((x) => x.variable)).toContain('UPSTASH_REDIS_REST_URL');
    expect(urls.find((x) => x.variable === 'UPSTASH_REDIS_REST_URL')!.message).toContain('KV_REST_API_URL');
    // the same value under both names is one setting
    expect(restOf({ STORE_DRIVER: 'redis', ...INTEGRATION, UPSTASH_REDIS_REST_TOKEN: TOKEN }).token).toBe(TOKEN);
  });

  it('reads either name of a pair as one value: the first name, else the second; a problem exactly when both differ', () => {
    const value = fc.option(fc.constantFrom('https://a.upstash.io', 'https://b.upstash.io'), { nil: undefined });
    fc.assert(
      fc.property(value, value, (first, second) => {
        const env: Record<string, string> = { STORE_DRIVER: 'redis', UPSTASH_REDIS_REST_TOKEN: TOKEN };
        if (first !== undefined) env.UPSTASH_REDIS_REST_URL = first;
        if (second !== undefined) env.KV_REST_API_URL = second;
        const conflict = first !== undefined && second !== undefined && first !== second;
        if (first === undefined && second === undefined) expect(variables(env)).toEqual(['UPSTASH_REDIS_REST_URL']);
        else if (conflict) expect(variables(env)).toEqual(['UPSTASH_REDIS_REST_URL']);
        else expect(restOf(env).url).toBe(first ?? second);
      }),
    );
  });

  it('lets a fresh Vercel deployment with the integration start: REDIS_URL of the same database stands aside for REST', () => {
    const env = { VERCEL: '1', STORE_DRIVER: 'redis', ...INTEGRATION, JWT_SECRET: JWT_32, ADMIN_PASSWORD: ADMIN_16 };
    expect(restOf(env)).toEqual({ url: INTEGRATION.KV_REST_API_URL, token: TOKEN });
    // the host compared without case; UPSTASH_REDIS_REST_URL of the same host likewise
    expect(restOf({ ...env, REDIS_URL: INTEGRATION.REDIS_URL.replace('able-gull', 'ABLE-GULL') }).url).toBe(INTEGRATION.KV_REST_API_URL);
    // REDIS_URL of another database beside a REST URL: which one is meant? a problem naming both
    const p = problems({ ...env, REDIS_URL: `rediss://default:${TOKEN}@other-db.upstash.io:6379` });
    expect(p.map((x) => x.variable)).toEqual(['REDIS_URL']);
    expect(p[0]!.message).toContain('KV_REST_API_URL');
    expect(JSON.stringify(p)).not.toContain(TOKEN);
    // REDIS_URL alone still reaches a redis-server over RESP
    const resp = loadServiceConfig({ STORE_DRIVER: 'redis', REDIS_URL: INTEGRATION.REDIS_URL }).store;
    expect(resp.driver === 'redis' && resp.protocol).toBe('resp');
  });

  it('says what a careless copy of the integration gets wrong: the read-only token, KV_URL alone, a pasted line break or quotes, a query', () => {
    const env = { STORE_DRIVER: 'redis', ...INTEGRATION };
    const says = (e: Record<string, string>) => problems(e).map((p) => `${p.variable} ${p.message}`);
    // the read-only token alone, or given as the token: the ledger writes
    const readOnlyAlone: Record<string, string> = { ...env };
    delete readOnlyAlone.KV_REST_API_TOKEN;
    expect(says(readOnlyAlone)).toEqual([
      expect.stringMatching(/^UPSTASH_REDIS_REST_TOKEN is required .*KV_REST_API_READ_ONLY_TOKEN is set, but the ledger writes/),
    ]);
    expect(says({ ...env, KV_REST_API_TOKEN: INTEGRATION.KV_REST_API_READ_ONLY_TOKEN })).toEqual([
      expect.stringMatching(/^KV_REST_API_TOKEN is the read-only token/),
    ]);
    expect(says({ ...env, UPSTASH_REDIS_REST_TOKEN: INTEGRATION.KV_REST_API_READ_ONLY_TOKEN })[0]).toMatch(
      /^UPSTASH_REDIS_REST_TOKEN and KV_REST_API_TOKEN/,
    );
    // KV_URL alone: the service speaks REST
    expect(says({ STORE_DRIVER: 'redis', KV_URL: INTEGRATION.KV_URL })[0]).toMatch(
      /^UPSTASH_REDIS_REST_URL is required .*KV_URL is set, but the service speaks REST/,
    );
    // a token a header cannot carry, or with a console's quotes around it
    for (const token of [`${TOKEN.slice(0, 10)}\n${TOKEN.slice(10)}`, `${TOKEN.slice(0, 10)}\r${TOKEN.slice(10)}`]) {
      expect(says({ ...env, KV_REST_API_TOKEN: token })).toEqual([expect.stringMatching(/^KV_REST_API_TOKEN holds a line break/)]);
      expect(JSON.stringify(problems({ ...env, KV_REST_API_TOKEN: token }))).not.toContain(TOKEN.slice(10));
    }
    for (const token of [`"${TOKEN}"`, `'${TOKEN}'`, `${TOKEN.slice(0, 10)} ${TOKEN.slice(10)}`])
      expect(says({ ...env, KV_REST_API_TOKEN: token })).toEqual([expect.stringMatching(/^KV_REST_API_TOKEN holds a space or a quote/)]);
    expect(says({ ...env, ADMIN_PASSWORD: 'Hn4rX8cQ\n2vLm7TzW' })).toEqual([expect.stringMatching(/^ADMIN_PASSWORD holds a line break/)]);
    expect(says({ ...env, CRON_SECRET: 'Hn4rX8cQ\t2vLm7TzW' })).toEqual([expect.stringMatching(/^CRON_SECRET holds a line break/)]);
    // a query on the REST URL (a token put there) is refused without repeating it
    const query = problems({ ...env, KV_REST_API_URL: `${INTEGRATION.KV_REST_API_URL}/?_token=${TOKEN}` });
    expect(query.map((p) => p.variable)).toEqual(['KV_REST_API_URL']);
    expect(JSON.stringify(query)).not.toContain(TOKEN);
    // two values of a pair that differ only by trailing slashes are one
    expect(restOf({ ...env, UPSTASH_REDIS_REST_URL: `${INTEGRATION.KV_REST_API_URL}/` }).url).toBe(INTEGRATION.KV_REST_API_URL);
  });

  it('chooses no driver from the names on a Vercel-like runtime, and its message names the REST variable found', () => {
    for (const hosted of [{ VERCEL: '1' }, { VERCEL_ENV: 'production' }, { NODE_ENV: 'production' }, { VERCEL: '1', LOCAL_RUNTIME: '1' }]) {
      const store = loadServiceConfig({ ...hosted, ...INTEGRATION }).store;
      expect(store.driver, JSON.stringify(hosted)).toBe('none');
      expect(store.driver === 'none' && store.reason, JSON.stringify(hosted)).toContain(
        'KV_REST_API_URL is set, and STORE_DRIVER=redis uses it',
      );
      expect(JSON.stringify(store)).not.toContain(TOKEN);
    }
  });

  it('blanks every secret the integration sets out of the log', async () => {
    const { secretValuesInForce, useEnvironment, useServiceConfig, SECRET_VARIABLES } = await import('../../api/_lib/config.js');
    expect(SECRET_VARIABLES).toEqual(expect.arrayContaining(['KV_REST_API_TOKEN', 'KV_REST_API_READ_ONLY_TOKEN', 'KV_URL', 'REDIS_URL']));
    try {
      useEnvironment({
        STORE_DRIVER: 'redis',
        KV_REST_API_READ_ONLY_TOKEN: INTEGRATION.KV_REST_API_READ_ONLY_TOKEN,
        KV_URL: INTEGRATION.KV_URL,
      });
      expect(secretValuesInForce()).toEqual(expect.arrayContaining([INTEGRATION.KV_REST_API_READ_ONLY_TOKEN, INTEGRATION.KV_URL, TOKEN]));
      // a configuration put in force does not use them, and they are still blanked
      useServiceConfig(loadServiceConfig({ STORE_DRIVER: 'redis', ...INTEGRATION }));
      vi.stubEnv('KV_REST_API_READ_ONLY_TOKEN', INTEGRATION.KV_REST_API_READ_ONLY_TOKEN);
      vi.stubEnv('KV_URL', INTEGRATION.KV_URL);
      expect(secretValuesInForce()).toEqual(
        expect.arrayContaining([INTEGRATION.KV_REST_API_READ_ONLY_TOKEN, INTEGRATION.KV_URL, INTEGRATION.KV_REST_API_TOKEN, TOKEN]),
      );
    } finally {
      vi.unstubAllEnvs();
      useServiceConfig(undefined);
    }
  });
});
