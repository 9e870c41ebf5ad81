/**
 * The process's ledger store, built once from the configuration (docs/architecture.md, "Configuration"):
 * `STORE_DRIVER=sqlite` opens `DATA_DIR/ledger.sqlite`; `STORE_DRIVER=redis` talks to Upstash over REST
 * (`UPSTASH_REDIS_REST_URL`, `UPSTASH_REDIS_REST_TOKEN`) or to a `redis-server` over RESP (`REDIS_URL`).
 * A new configuration (`useServiceConfig`) closes the store and builds the next one on first use.
 */
import { getServiceConfig, onConfigChange, type StoreConfig } from '../config.js';
import { ServiceError } from '../errors.js';
import { openRedisLedger } from './redis.js';
import type { LedgerStore } from './types.js';

let current: Promise<LedgerStore> | undefined;
onConfigChange(() => {
  const old = current;
  current = undefined;
  void old?.then((s) => s.close()).catch(() => undefined);
});

/**
 * Open the store a configuration names.
 * @throws ServiceError UPSTREAM_UNAVAILABLE when no store is configured or it cannot be reached.
 */
export async function openLedgerStore(config: StoreConfig): Promise<LedgerStore> {
  switch (config.driver) {
    case 'sqlite': {
      // loaded only when chosen: its native binary is not part of a Vercel bundle, where sqlite is refused
      const { openSqliteLedger } = await import('./sqlite.js');
      return openSqliteLedger({ file: config.file });
    }
    case 'redis': {
      if (config.protocol === 'rest') return openRedisLedger({ url: config.url, token: config.token.reveal() });
      // RESP is for local runs and tests: load ioredis only then, so functions on Upstash never bundle it.
      const { connectRespRequester } = await import('./resp-requester.js');
      let requester;
      try {
        requester = await connectRespRequester(config.url.reveal());
      } catch (e) {
        throw new ServiceError('UPSTREAM_UNAVAILABLE', 'The ledger store cannot be reached; try again.', { cause: e });
      }
      return openRedisLedger({ requester, close: () => requester.close() });
    }
    default:
      // the reason names the variables to set: for the operator's log, not for the client
      console.error('[config]', config.reason);
      throw new ServiceError('UPSTREAM_UNAVAILABLE', 'The ledger is not available on this deployment.');
  }
}

/** The process-wide store (built on first use). @throws ServiceError UPSTREAM_UNAVAILABLE */
export function ledgerStore(): Promise<LedgerStore> {
  if (!current) {
    const p = openLedgerStore(getServiceConfig().store);
    current = p;
    p.catch(() => {
      if (current === p) current = undefined;
    });
  }
  return current;
}
