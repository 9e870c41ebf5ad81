/**
 * The audit log and ledger health views (`/admin/?view=audit&…`, `/admin/?view=health`; docs/architecture.md,
 * "Operator console"): their places in the console, with their filters in the address, for the routes
 * `GET /api/admin/audit` and `GET /api/admin/ledger/health` (`AUDIT_ROUTE`, `LEDGER_HEALTH_ROUTE` in
 * `api.ts`). Until this service answers them, each view says so and reads nothing.
 */
import { AUDIT_ROUTE, LEDGER_HEALTH_ROUTE } from '../api.js';
import { h } from '../../dom.js';
import type { ConsoleState } from '../state.js';
import { facts, section } from './common.js';
import type { ConsoleViewFn } from './context.js';

/** The audit log's place: the filters the address holds, and that the route is not served yet. */
export const auditView: ConsoleViewFn<Extract<ConsoleState, { view: 'audit' }>> = (state, ctx) => {
  ctx.title('Audit log');
  const filters = (['actor', 'account', 'route', 'from', 'to'] as const).filter((k) => state[k] !== '');
  ctx.root.append(
    h('h1', { tabindex: '-1' }, 'Audit log'),
    section(
      'audit',
      'Who changed what',
      h(
        'p',
        { id: 'audit-unavailable', class: 'notice' },
        'This service does not answer ',
        h('code', {}, AUDIT_ROUTE),
        ' yet: the audit log shows here once it does.',
      ),
      filters.length > 0 ? facts(filters.map((k) => [k, state[k]])) : null,
    ),
  );
};

/** The ledger health panel's place, and that the route is not served yet. */
export const healthView: ConsoleViewFn<Extract<ConsoleState, { view: 'health' }>> = (_state, ctx) => {
  ctx.title('Ledger health');
  ctx.root.append(
    h('h1', { tabindex: '-1' }, 'Ledger health'),
    section(
      'health',
      'The ledger’s invariants',
      h(
        'p',
        { id: 'health-unavailable', class: 'notice' },
        'This service does not answer ',
        h('code', {}, LEDGER_HEALTH_ROUTE),
        ' yet; until it does, ',
        h('code', {}, 'npm run ledger:verify'),
        ' checks the ledger on the configured store.',
      ),
    ),
  );
};
