/**
 * The catalog browser page: search box (`/api/search`), totals (`/api/stats`), export links,
 * links to static files and endpoints. Data is written with `textContent` only.
 */
// @ts-nocheck

import {
  ENDPOINTS,
  EXPORT_TYPES,
  publishedFeaturedFiles,
  exportUrl,
  problemMessage,
  searchSummary,
  searchUrl,
  statsRows,
  type SearchAnswer,
} from './catalog-page.js';

function byId<T extends HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing from the page`);
  return el as T;
}

function cell(row: HTMLTableRowElement, text: string, className?: string): void {
  const td = row.insertCell();
  td.textContent = text;
  if (className) td.className = className;
}

function link(list: HTMLElement, href: string, text: string, note?: string): void {
  const li = document.createElement('li');
  const a = document.createElement('a');
  a.href = href;
  a.textContent = text;
  li.append(a);
  if (note) li.append(` — ${note}`);
  list.append(li);
}

async function getJson(url: string, signal?: AbortSignal): Promise<unknown> {
  const res = await fetch(url, { headers: { Accept: 'application/json' }, ...(signal ? { signal } : {}) });
  const body: unknown = await res.json().catch(() => null);
  if (!res.ok) throw new Error(problemMessage(res.status, body));
  return body;
}

async function loadStats(): Promise<void> {
  const status = byId('stats-status');
  const table = byId<HTMLTableElement>('stats-table');
  try {
    const rows = statsRows(await getJson('/api/stats'));
    const tbody = table.tBodies[0]!;
    tbody.replaceChildren();
    for (const [name, count] of rows) {
      const tr = tbody.insertRow();
      cell(tr, name);
      cell(tr, count.toLocaleString('en'), 'num');
    }
    table.hidden = rows.length === 0;
    status.textContent = rows.length === 0 ? 'No totals yet.' : '';
  } catch (e) {
    status.textContent = `Totals are not available: ${(e as Error).message}`;
    status.className = 'error';
  }
}

let pending: AbortController | undefined;

async function runSearch(q: string, type: string): Promise<void> {
  const status = byId('search-status');
  const table = byId<HTMLTableElement>('search-results');
  pending?.abort();
  const ctl = new AbortController();
  pending = ctl;
  status.className = 'muted';
  status.textContent = 'Searching…';
  try {
    const answer = (await getJson(searchUrl(q, type), ctl.signal)) as SearchAnswer;
    const tbody = table.tBodies[0]!;
    tbody.replaceChildren();
    for (const hit of answer.results) {
      const tr = tbody.insertRow();
      cell(tr, hit.type);
      cell(tr, hit.id);
      cell(tr, hit.name);
    }
    table.hidden = answer.results.length === 0;
    status.textContent = searchSummary(answer);
  } catch (e) {
    if (ctl.signal.aborted) return;
    table.hidden = true;
    status.className = 'error';
    status.textContent = (e as Error).message;
  }
}

function init(): void {
  const form = byId<HTMLFormElement>('search-form');
  const q = byId<HTMLInputElement>('q');
  const type = byId<HTMLSelectElement>('type');
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (q.value.trim() === '') return;
    const params = new URLSearchParams({ q: q.value.trim(), type: type.value });
    history.replaceState(null, '', `?${params.toString()}`);
    void runSearch(q.value, type.value);
  });
  const initial = new URLSearchParams(location.search);
  const iq = initial.get('q');
  if (iq) {
    q.value = iq;
    type.value = initial.get('type') ?? 'all';
    void runSearch(iq, type.value);
  }

  const exports = byId('export-links');
  for (const t of EXPORT_TYPES) {
    const li = document.createElement('li');
    li.append(`${t}: `);
    for (const [i, format] of (['json', 'csv'] as const).entries()) {
      if (i > 0) li.append(' · ');
      const a = document.createElement('a');
      a.href = exportUrl(t, format);
      a.textContent = format.toUpperCase();
      li.append(a);
    }
    exports.append(li);
  }
  void loadFileLinks();
  const endpoints = byId('endpoint-links');
  for (const [path, what] of ENDPOINTS) link(endpoints, path, path, what);

  void loadStats();
}

/** Link the featured static files that this build published (per its game-data manifest). */
async function loadFileLinks(): Promise<void> {
  const files = byId('file-links');
  let manifest: unknown = null;
  try {
    const res = await fetch('/api/v1/game-data-manifest.json');
    if (res.ok) manifest = await res.json();
  } catch {
    // network failure: link the whole list
  }
  for (const f of publishedFeaturedFiles(manifest)) link(files, `/api/v1/${f}`, f);
}

init();
