/**
 * Player view (`/admin/?view=player&key=STUDIO_…`; docs/architecture.md, "Player look-up", "Operator
 * console"): one account as the service holds it, read from `GET /api/admin/players/{key}` (the summary),
 * its wallet pages, its island and its characters with their progress.
 *
 * At the top: the account, its external links, its sessions and ban, and (for a role that may act) the
 * actions: grant coin, revoke sessions, ban, lift the ban, erase; export is a read and every operator has it.
 * Then the wallet (`wallet.ts`), the bag (`bag.ts`: stackables by definition with their catalog names and
 * icons, each with its history and, for an admin, "Reverse this grant…"), the unique items in every state
 * (`items.ts`: each with its owner history and, for an admin, "Void…"), the characters with their
 * progress, the learned recipes, and the island drawn (`island.ts`). Every catalog id links to the catalog
 * browser's item page. "Audit records of this player" opens the audit log filtered by the account. An
 * erased account shows what stays and offers only the export.
 */
import * as api from '../api.js';
import type { PlayerCharactersResponse, PlayerSummaryResponse } from '../api.js';
import { formatCoin, formatTime, type Target } from '../confirm.js';
import { h } from '../../dom.js';
import { actorLabel, canAct } from '../session.js';
import { auditState, consoleHref, type ConsoleState } from '../state.js';
import { openAction, pendingPanel, type ActionRequest } from './actions.js';
import { bagSection } from './bag.js';
import { catalogCell, facts, isAbort, problemBox, section, timeText } from './common.js';
import type { ConsoleContext, ConsoleViewFn } from './context.js';
import { islandSection } from './island.js';
import { itemsSection } from './items.js';
import { walletSection } from './wallet.js';

type PlayerView = Extract<ConsoleState, { view: 'player' }>;
type Summary = PlayerSummaryResponse;

/** True when the account was erased (its username becomes `erased:<studioId>`; docs/architecture.md, "Erasure and the chain"). */
export function isErased(account: Summary['account']): boolean {
  return account.username === `erased:${account.studioId}`;
}

/** The player view (see the module header). */
export const playerView: ConsoleViewFn<PlayerView> = async (state, ctx) => {
  ctx.title(state.key);
  const heading = h('h1', { tabindex: '-1', id: 'player-name' }, state.key);
  ctx.root.append(heading);
  let summary: Summary;
  try {
    summary = await api.playerSummary(state.key, ctx.signal);
  } catch (e) {
    if (ctx.signal.aborted || isAbort(e)) return;
    ctx.root.append(
      problemBox(e),
      h('p', {}, h('a', { href: consoleHref({ view: 'search', q: state.key }) }, `Search for “${state.key}”`)),
    );
    return;
  }
  if (ctx.signal.aborted) return;
  const account = summary.account;
  const erased = isErased(account);
  const target: Target = { studioId: account.studioId, displayName: account.displayName };
  heading.textContent = erased ? 'Erased account' : account.displayName === '' ? '(no display name)' : account.displayName;
  ctx.title(erased ? `Erased ${account.studioId}` : `${account.displayName} · ${account.studioId}`);

  const wallet = walletSection(state, target, ctx, erased);
  const island = islandSection(account.studioId, ctx);
  const characters = charactersSection(account.studioId, summary, ctx);
  const bag = bagSection(state, summary, target, ctx, erased);
  const items = itemsSection(state, summary, target, ctx, erased);
  ctx.root.append(
    accountHeader(summary, erased),
    actionBar(summary, target, ctx, erased),
    pendingPanel(ctx, account.studioId),
    wallet.el,
    bag.el,
    items.el,
    characters.el,
    recipesSection(summary),
    island.el,
  );
  await Promise.allSettled([wallet.done, bag.done, items.done, island.done, characters.done]);
};

/** The account, its links, sessions and ban. */
function accountHeader(s: Summary, erased: boolean): HTMLElement {
  const a = s.account;
  const ban = s.access.ban;
  const banText = ban
    ? h(
        'span',
        { class: ban.active ? 'state-bad' : 'muted', id: 'ban-state' },
        `${ban.active ? 'Banned' : 'Ban ended'} ${ban.until ? `until ${formatTime(ban.until)}` : 'without end'} (since ${formatTime(ban.at)}): “${ban.reason}”`,
      )
    : h('span', { id: 'ban-state', class: 'state-ok' }, 'Not banned');
  const links =
    s.links.length === 0
      ? h('span', { class: 'muted' }, 'none')
      : h(
          'ul',
          { class: 'plain' },
          ...s.links.map((l) =>
            h('li', {}, h('code', {}, `${l.provider}:${l.externalUserId}`), ` ${l.username} · linked `, timeText(l.linkedAt)),
          ),
        );
  return h(
    'div',
    { id: 'account', class: 'panel account' },
    erased
      ? h(
          'p',
          { class: 'notice', id: 'erased-notice' },
          'This account was erased: its personal data is gone and it is closed for good. Balances and histories stay.',
        )
      : null,
    facts([
      ['Studio id', h('code', { id: 'studio-id' }, a.studioId)],
      ['Account id', h('code', {}, a.accountId)],
      ['Username', h('code', {}, a.username)],
      ['User id', h('code', {}, a.userId)],
      ['Created', timeText(a.createdAt)],
      ['External links', links],
      ['Sessions revoked', timeText(s.access.sessionsRevokedAt)],
      ['Ban', banText],
      ['Balance', h('span', {}, `${formatCoin(s.wallet.balance)} coin`)],
    ]),
    h('p', {}, h('a', { id: 'player-audit', href: consoleHref(auditState({ account: a.accountId })) }, 'Audit records of this player')),
  );
}

/**
 * The account's actions: for a role that may act, grant, revoke, ban, lift (when there is a ban) and erase;
 * for every operator, the export. A support token's page has only the export: the other controls are never
 * drawn.
 */
function actionBar(s: Summary, target: Target, ctx: ConsoleContext, erased: boolean): HTMLElement {
  const bar = h('div', { id: 'actions', class: 'actions', role: 'group', 'aria-label': 'Actions on this account' });
  const button = (action: string, label: string, request: () => ActionRequest, danger = false): HTMLButtonElement => {
    const b = h('button', { type: 'button', 'data-action': action, class: danger ? 'danger' : null }, label);
    b.addEventListener('click', () => openAction(ctx, request(), b));
    return b;
  };
  if (!erased && ctx.who && canAct(ctx.who.role)) {
    const ban = s.access.ban;
    bar.append(
      button('grant-coin', 'Grant coin…', () => ({ kind: 'grant', target, balance: s.wallet.balance })),
      button('revoke-sessions', 'Revoke sessions…', () => ({ kind: 'revoke', target })),
      button('ban', ban?.active ? 'Change the ban…' : 'Ban…', () => ({ kind: 'ban', target }), true),
      ...(ban ? [button('unban', 'Lift the ban…', () => ({ kind: 'unban', target, bannedAt: ban.at, until: ban.until }))] : []),
      button('erase', 'Erase…', () => ({ kind: 'erase', target }), true),
    );
  }
  const status = h('span', { class: 'form-status', id: 'export-status' });
  const exp = h('button', { type: 'button', id: 'export', 'data-read': 'export' }, 'Export (JSON)');
  exp.addEventListener('click', () => {
    exp.disabled = true;
    status.replaceChildren(h('span', { class: 'muted' }, 'Reading everything held…'));
    api.exportPlayer(s.account.studioId).then(
      (data) => {
        exp.disabled = false;
        const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2) + '\n'], { type: 'application/json' }));
        const a = h('a', { href: url, download: `export-${s.account.studioId}.json`, hidden: true });
        document.body.append(a);
        a.click();
        a.remove();
        setTimeout(() => URL.revokeObjectURL(url), 10_000);
        status.replaceChildren(h('span', {}, `Downloaded export-${s.account.studioId}.json.`));
        ctx.announce('Export downloaded.');
      },
      (e: unknown) => {
        exp.disabled = false;
        status.replaceChildren(problemBox(e));
      },
    );
  });
  bar.append(exp, status);
  if (ctx.who)
    bar.append(h('p', { class: 'help' }, `Acting as ${actorLabel(ctx.who)}; every change needs a reason and is recorded under this name.`));
  return bar;
}

/** The characters with their progress, read from `GET /api/admin/players/{key}/characters`. */
function charactersSection(key: string, s: Summary, ctx: ConsoleContext): { el: HTMLElement; done: Promise<void> } {
  const body = h('div', { 'aria-busy': 'true' }, h('p', { class: 'muted' }, `Reading ${s.characters.length} characters…`));
  const el = section('characters', 'Characters', body);
  const done = api.playerCharacters(key, ctx.signal).then(
    (answer) => {
      if (ctx.signal.aborted) return;
      body.removeAttribute('aria-busy');
      body.replaceChildren(
        answer.characters.length === 0
          ? h('p', { class: 'muted' }, 'No character yet.')
          : h('div', { class: 'cards' }, ...answer.characters.map(characterCard)),
      );
    },
    (e: unknown) => {
      if (ctx.signal.aborted || isAbort(e)) return;
      body.removeAttribute('aria-busy');
      body.replaceChildren(problemBox(e));
    },
  );
  return { el, done };
}

const pairs = (o: Readonly<Record<string, number | string | null | undefined>>): string =>
  Object.entries(o)
    .map(([k, v]) => `${k} ${v ?? '—'}`)
    .join(', ') || 'none';

function characterCard(c: PlayerCharactersResponse['characters'][number]): HTMLElement {
  const ch = c.character;
  const p = c.progress;
  const equipment = Object.entries(p.equipment_on_body);
  return h(
    'article',
    { class: 'card character', 'data-character': ch.id, 'aria-labelledby': `character-${ch.id}` },
    h('h3', { id: `character-${ch.id}` }, ch.name),
    facts([
      ['Era', ch.era],
      ['Class, race, faction', `${ch.classId}, ${ch.raceId}, ${ch.factionId}`],
      ['Studio code', h('code', {}, ch.studioCode)],
      ['Character id', h('code', {}, ch.id)],
      ['Created', timeText(ch.createdAt)],
      ['Progress', `revision ${ch.progress_revision}, saved ${formatTime(c.updatedAt)}`],
      ['Attributes', pairs(p.attributes)],
      ['Profession levels', pairs(p.profession_levels)],
      ['Weapon mastery', pairs(p.weapon_mastery)],
      [
        'Equipment',
        equipment.length === 0
          ? 'none'
          : h(
              'ul',
              { class: 'plain' },
              ...equipment.map(([slot, id]) => h('li', {}, `${slot}: `, id ? h('a', { href: `#item-${id}` }, h('code', {}, id)) : '—')),
            ),
      ],
      [
        'Skill loadouts',
        p.skill_loadouts.length === 0
          ? 'none'
          : h(
              'ul',
              { class: 'plain' },
              ...p.skill_loadouts.map((l) =>
                h('li', {}, h('strong', {}, l.name), ': ', ...l.skills.flatMap((id) => [catalogCell(id), ' '])),
              ),
            ),
      ],
    ]),
  );
}

/** The learned recipes with their names from the catalog. */
function recipesSection(s: Summary): HTMLElement {
  if (s.recipes.length === 0) return section('recipes', 'Learned recipes', h('p', { class: 'muted' }, 'No recipe learned.'));
  return section(
    'recipes',
    'Learned recipes',
    h(
      'ul',
      { id: 'recipe-list', class: 'plain' },
      ...s.recipes.map((r) => h('li', { 'data-recipe': r.recipeId }, catalogCell(r.recipeId), ' · learned ', timeText(r.learnedAt))),
    ),
  );
}
