/**
 * The layer table of docs/architecture.md ("Layers and data flow") is enforced by the lint
 * (`eslint.config.js`, `no-restricted-imports`): an import across the layers, an adapter importing
 * another adapter, a site or build module reaching a store fail the lint; the imports the table allows
 * pass. The lint reads the code as given here for a file at the given path.
 */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/catalog.js';

// only the import rule, and without type information: the rule reads import paths alone, and a typed
// program per linted text would make each case cost seconds
const eslint = new ESLint({
  cwd: REPO_ROOT,
  ruleFilter: ({ ruleId }) => ruleId === 'no-restricted-imports',
  overrideConfig: { languageOptions: { parserOptions: { projectService: false, project: null } } },
});

/** The messages of `no-restricted-imports` for `code` linted as the file `filePath`. */
async function restricted(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('the layer table, enforced by the lint', () => {
  it('refuses an import across the layers, and an adapter importing another adapter', async () => {
    const cases: [string, string, RegExp][] = [
      [
        'api/_lib/formats/search-index.ts',
        "import { x } from '../search/engine.js';",
        /api\/_lib\/formats\/ may import only util, text, errors/,
      ],
      ['api/_lib/collections/query.ts', "import { parseQuery } from '../http/params.js';", /api\/_lib\/collections\/ may import only/],
      ['api/_lib/stores/redis.ts', "import { x } from '../ledger/types.js';", /api\/_lib\/stores\/ may import only errors, config, util/],
      ['api/_lib/auth/guard.ts', "import { x } from '../ledger/store.js';", /api\/_lib\/auth\/ may import only errors, config/],
      ['api/_lib/errors.ts', "import { x } from './config.js';", /imports nothing of the service/],
      ['api/_lib/config.ts', "import { logEvent } from './log.js';", /imports nothing of the service/],
      ['api/_lib/log.ts', "import { x } from './http/respond.js';", /imports only errors and config/],
      ['api/_lib/stores/redis.ts', "import { logEvent } from '../log.js';", /api\/_lib\/stores\/ may import only errors, config, util/],
      ['api/_lib/player/redis.ts', "import { openRedisLedger } from '../ledger/redis.js';", /A store adapter imports no other adapter/],
      ['api/_lib/ledger/sqlite.ts', "import { x } from './redis.js';", /A store adapter imports no other adapter/],
      [
        'api/_lib/throttle/policy.ts',
        "import { x } from '../http/respond.js';",
        /api\/_lib\/throttle\/ may import only errors, config, log, util, stores/,
      ],
      ['api/_lib/throttle/sqlite.ts', "import { memoryThrottle } from './memory.js';", /A store adapter imports no other adapter/],
      ['api/_lib/ledger/types.ts', "import { x } from '../../admin.js';", /may import only/],
      ['site/api.ts', "import { ledgerStore } from '../api/_lib/ledger/store.js';", /through the typed client/],
      ['build/derive/core.ts', "import { ledgerStore } from '../../api/_lib/ledger/store.js';", /never a function or a store/],
      ['build/pipeline/index.ts', "import { GET } from '../../api/catalog.js';", /never a function or a store/],
      ['client/src/runtime.ts', "import { x } from '../../api/_lib/errors.js';", /stands alone/],
      ['api/wallet.ts', "import { x } from '../test/helpers/ledger.js';", /Function entries import only api/],
    ];
    for (const [file, code, message] of cases) {
      const got = await restricted(file, `${code}\nexport const y = 1;\n`);
      expect(got, `${file}: ${code}`).toHaveLength(1);
      expect(got[0], file).toMatch(message);
    }
  });

  it('lets the imports the table allows through', async () => {
    const cases: [string, string][] = [
      ['api/_lib/player/redis.ts', "import { connectRedis } from '../stores/redis.js';"],
      ['api/_lib/player/sqlite.ts', "import { openSqliteDatabase } from '../stores/sqlite.js';"],
      ['api/_lib/ledger/redis.ts', "import { CREDIT_SCRIPT } from './redis-scripts.js';"],
      ['api/_lib/player/service.ts', "import { readCatalogJson } from '../catalog/store.js';"],
      ['api/_lib/http/entry.ts', "import { requireAdmin } from '../auth/guard.js';"],
      ['api/_lib/http/respond.ts', "import { logEvent } from '../log.js';"],
      ['api/_lib/log.ts', "import { ConfigError } from './config.js';"],
      ['api/_lib/formats/search-index.ts', "import { tokenize } from '../text/terms.js';"],
      ['site/api.ts', "import { GameDataClient } from '../client/src/index.js';"],
      ['build/derive/core.ts', "import { exportJsonText } from '../../api/_lib/export/index.js';"],
      ['build/openapi/operations.ts', "import { OVERVIEW_PARAMS } from '../../api/wallet.js';"],
      ['api/_lib/stores/sqlite.ts', "import { createClient } from '@libsql/client/sqlite3';"],
      ['api/_lib/http/entry.ts', "import { admitWrite } from '../throttle/policy.js';"],
      ['api/_lib/throttle/redis.ts', "import { redisClientOf } from '../stores/redis.js';"],
      ['api/_lib/throttle/policy.ts', "import { logEvent } from '../log.js';"],
    ];
    for (const [file, code] of cases) expect(await restricted(file, `${code}\nexport const y = 1;\n`), `${file}: ${code}`).toEqual([]);
  });
});
