/**
 * The one shape of a function entry file (docs/architecture.md, "Functions"): an entry declares a
 * handler per route and method; {@link defineEntry} does the rest, the same way for every entry:
 *
 * 1. Route lookup. The request's pathname is matched against the route table
 *    (`api/_lib/routing/table.ts`). A public path always means its own route: routing parameters a
 *    client adds (`_route`, `_key`) are ignored there. Only a request to the entry's own path
 *    (`/api/<entry>`, which is what a Vercel rewrite may hand over) reads `_route` and, for keyed routes,
 *    `_key`; a route of another entry, an unknown route or a keyed route without a key is 404.
 * 2. `OPTIONS`: a CORS preflight (204) listing the route's real methods.
 * 3. Method dispatch (GET, HEAD, POST, PUT, PATCH, DELETE): HEAD runs the GET handler and drops the
 *    body; a method the route does not declare is 405 with a true `Allow` header.
 * 4. Every error thrown on the way becomes a response in one place, `toProblemResponse`.
 *
 * Routes marked `gone` in the table (retired file, catch-alls) answer every method, OPTIONS included,
 * with their handler (which throws `NOT_FOUND`).
 */
// @ts-nocheck
function stryNS_9fa48() {
  var g = typeof globalThis === 'object' && globalThis && globalThis.Math === Math && globalThis || new Function("return this")();
  var ns = g.__stryker__ || (g.__stryker__ = {});
  if (ns.activeMutant === undefined && g.process && g.process.env && g.process.env.__STRYKER_ACTIVE_MUTANT__) {
    ns.activeMutant = g.process.env.__STRYKER_ACTIVE_MUTANT__;
  }
  function retrieveNS() {
    return ns;
  }
  stryNS_9fa48 = retrieveNS;
  return retrieveNS();
}
stryNS_9fa48();
function stryCov_9fa48() {
  var ns = stryNS_9fa48();
  var cov = ns.mutantCoverage || (ns.mutantCoverage = {
    static: {},
    perTest: {}
  });
  function cover() {
    var c = cov.static;
    if (ns.currentTestId) {
      c = cov.perTest[ns.currentTestId] = cov.perTest[ns.currentTestId] || {};
    }
    var a = arguments;
    for (var i = 0; i < a.length; i++) {
      c[a[i]] = (c[a[i]] || 0) + 1;
    }
  }
  stryCov_9fa48 = cover;
  cover.apply(null, arguments);
}
function stryMutAct_9fa48(id) {
  var ns = stryNS_9fa48();
  function isActive(id) {
    if (ns.activeMutant === id) {
      if (ns.hitCount !== void 0 && ++ns.hitCount > ns.hitLimit) {
        throw new Error('Stryker: Hit count limit reached (' + ns.hitCount + ')');
      }
      return true;
    }
    return false;
  }
  stryMutAct_9fa48 = isActive;
  return isActive(id);
}
import { ServiceError } from '../errors.js';
import { hasKey, matchPath, routesOf, type EntryName, type Method, type RouteDef } from '../routing/table.js';
import { preflight, toProblemResponse } from './respond.js';

/** What a route handler receives. */
export interface RouteContext {
  readonly request: Request;
  /** Parsed request URL (the public path, with the client's query). */
  readonly url: URL;
  /** The matched route. */
  readonly route: RouteDef;
  /** The `{key}` of a keyed route, percent-decoded; undefined for routes without one. */
  readonly key: string | undefined;
}

/** A route handler: Web-standard in, Web-standard out; throws {@link ServiceError} for refusals. */
export type RouteHandler = (context: RouteContext) => Response | Promise<Response>;

/** Handlers of one entry: route name → method → handler. */
export type EntryHandlers = Readonly<Record<string, Partial<Record<Method, RouteHandler>>>>;

/** The method exports of an entry file, as Vercel's Node runtime calls them. */
export type EntryExports = Readonly<Record<Method | 'HEAD' | 'OPTIONS', (request: Request) => Promise<Response>>>;

/** `Allow` value of a route: its methods, HEAD after GET, then OPTIONS. */
export function allowOf(route: RouteDef): string {
  if (stryMutAct_9fa48("0")) {
    {}
  } else {
    stryCov_9fa48("0");
    const out: string[] = stryMutAct_9fa48("1") ? ["Stryker was here"] : (stryCov_9fa48("1"), []);
    for (const m of route.methods) {
      if (stryMutAct_9fa48("2")) {
        {}
      } else {
        stryCov_9fa48("2");
        out.push(m);
        if (stryMutAct_9fa48("5") ? m !== 'GET' : stryMutAct_9fa48("4") ? false : stryMutAct_9fa48("3") ? true : (stryCov_9fa48("3", "4", "5"), m === (stryMutAct_9fa48("6") ? "" : (stryCov_9fa48("6"), 'GET')))) out.push(stryMutAct_9fa48("7") ? "" : (stryCov_9fa48("7"), 'HEAD'));
      }
    }
    out.push(stryMutAct_9fa48("8") ? "" : (stryCov_9fa48("8"), 'OPTIONS'));
    return out.join(stryMutAct_9fa48("9") ? "" : (stryCov_9fa48("9"), ', '));
  }
}
function notFound(url: URL): ServiceError {
  if (stryMutAct_9fa48("10")) {
    {}
  } else {
    stryCov_9fa48("10");
    return new ServiceError(stryMutAct_9fa48("11") ? "" : (stryCov_9fa48("11"), 'NOT_FOUND'), stryMutAct_9fa48("12") ? `` : (stryCov_9fa48("12"), `Nothing is served at ${url.pathname}.`));
  }
}

/** The route and key a request addresses within `entry`. @throws ServiceError NOT_FOUND */
function locate(entry: EntryName, url: URL): {
  route: RouteDef;
  key: string | undefined;
} {
  if (stryMutAct_9fa48("13")) {
    {}
  } else {
    stryCov_9fa48("13");
    const own = stryMutAct_9fa48("14") ? `` : (stryCov_9fa48("14"), `/api/${entry}`);
    const path = url.pathname.replace(stryMutAct_9fa48("16") ? /\/$/ : stryMutAct_9fa48("15") ? /\/+/ : (stryCov_9fa48("15", "16"), /\/+$/), stryMutAct_9fa48("17") ? "Stryker was here!" : (stryCov_9fa48("17"), ''));
    if (stryMutAct_9fa48("20") ? path.toLowerCase() === own : stryMutAct_9fa48("19") ? false : stryMutAct_9fa48("18") ? true : (stryCov_9fa48("18", "19", "20"), (stryMutAct_9fa48("21") ? path.toUpperCase() : (stryCov_9fa48("21"), path.toLowerCase())) !== own)) {
      if (stryMutAct_9fa48("22")) {
        {}
      } else {
        stryCov_9fa48("22");
        const m = matchPath(url.pathname);
        if (stryMutAct_9fa48("25") ? !m && m.route.entry !== entry : stryMutAct_9fa48("24") ? false : stryMutAct_9fa48("23") ? true : (stryCov_9fa48("23", "24", "25"), (stryMutAct_9fa48("26") ? m : (stryCov_9fa48("26"), !m)) || (stryMutAct_9fa48("28") ? m.route.entry === entry : stryMutAct_9fa48("27") ? false : (stryCov_9fa48("27", "28"), m.route.entry !== entry)))) throw notFound(url);
        if (stryMutAct_9fa48("31") ? hasKey(m.route) && m.key === undefined || !m.route.gone : stryMutAct_9fa48("30") ? false : stryMutAct_9fa48("29") ? true : (stryCov_9fa48("29", "30", "31"), (stryMutAct_9fa48("33") ? hasKey(m.route) || m.key === undefined : stryMutAct_9fa48("32") ? true : (stryCov_9fa48("32", "33"), hasKey(m.route) && (stryMutAct_9fa48("35") ? m.key !== undefined : stryMutAct_9fa48("34") ? true : (stryCov_9fa48("34", "35"), m.key === undefined)))) && (stryMutAct_9fa48("36") ? m.route.gone : (stryCov_9fa48("36"), !m.route.gone)))) throw notFound(url);
        return m;
      }
    }
    const name = url.searchParams.get(stryMutAct_9fa48("37") ? "" : (stryCov_9fa48("37"), '_route'));
    const route = routesOf(entry).find(stryMutAct_9fa48("38") ? () => undefined : (stryCov_9fa48("38"), r => stryMutAct_9fa48("41") ? r.name !== name : stryMutAct_9fa48("40") ? false : stryMutAct_9fa48("39") ? true : (stryCov_9fa48("39", "40", "41"), r.name === name)));
    if (stryMutAct_9fa48("44") ? false : stryMutAct_9fa48("43") ? true : stryMutAct_9fa48("42") ? route : (stryCov_9fa48("42", "43", "44"), !route)) throw notFound(url);
    if (stryMutAct_9fa48("47") ? false : stryMutAct_9fa48("46") ? true : stryMutAct_9fa48("45") ? hasKey(route) : (stryCov_9fa48("45", "46", "47"), !hasKey(route))) return stryMutAct_9fa48("48") ? {} : (stryCov_9fa48("48"), {
      route,
      key: undefined
    });
    const key = stryMutAct_9fa48("49") ? url.searchParams.get('_key') && '' : (stryCov_9fa48("49"), url.searchParams.get(stryMutAct_9fa48("50") ? "" : (stryCov_9fa48("50"), '_key')) ?? (stryMutAct_9fa48("51") ? "Stryker was here!" : (stryCov_9fa48("51"), '')));
    if (stryMutAct_9fa48("54") ? key === '' || !route.gone : stryMutAct_9fa48("53") ? false : stryMutAct_9fa48("52") ? true : (stryCov_9fa48("52", "53", "54"), (stryMutAct_9fa48("56") ? key !== '' : stryMutAct_9fa48("55") ? true : (stryCov_9fa48("55", "56"), key === (stryMutAct_9fa48("57") ? "Stryker was here!" : (stryCov_9fa48("57"), '')))) && (stryMutAct_9fa48("58") ? route.gone : (stryCov_9fa48("58"), !route.gone)))) throw notFound(url);
    return stryMutAct_9fa48("59") ? {} : (stryCov_9fa48("59"), {
      route,
      key: (stryMutAct_9fa48("62") ? key !== '' : stryMutAct_9fa48("61") ? false : stryMutAct_9fa48("60") ? true : (stryCov_9fa48("60", "61", "62"), key === (stryMutAct_9fa48("63") ? "Stryker was here!" : (stryCov_9fa48("63"), '')))) ? undefined : key
    });
  }
}

/**
 * Build the method exports of an entry file.
 * @param entry the entry's name in the route table.
 * @param handlers a handler for every method of every route of the entry (`gone` routes need only `GET`,
 *   which answers every method).
 * @returns `{ GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS }`, each the same dispatcher.
 * @throws Error at import time when a declared route or method has no handler, or a handler names a
 *   route or method the table does not declare (the table and the entry must agree).
 */
export function defineEntry(entry: EntryName, handlers: EntryHandlers): EntryExports {
  if (stryMutAct_9fa48("64")) {
    {}
  } else {
    stryCov_9fa48("64");
    const routes = routesOf(entry);
    for (const r of routes) {
      if (stryMutAct_9fa48("65")) {
        {}
      } else {
        stryCov_9fa48("65");
        const h = handlers[r.name];
        const needed = r.gone ? ['GET'] as const : r.methods;
        for (const m of needed) if (stryMutAct_9fa48("68") ? false : stryMutAct_9fa48("67") ? true : stryMutAct_9fa48("66") ? h?.[m] : (stryCov_9fa48("66", "67", "68"), !(stryMutAct_9fa48("69") ? h[m] : (stryCov_9fa48("69"), h?.[m])))) throw new Error(stryMutAct_9fa48("70") ? `` : (stryCov_9fa48("70"), `Entry ${entry}: route ${r.name} declares ${m} but has no handler.`));
        for (const m of Object.keys(stryMutAct_9fa48("71") ? h && {} : (stryCov_9fa48("71"), h ?? {}))) if (stryMutAct_9fa48("74") ? false : stryMutAct_9fa48("73") ? true : stryMutAct_9fa48("72") ? r.methods.includes(m as Method) : (stryCov_9fa48("72", "73", "74"), !r.methods.includes(m as Method))) throw new Error(stryMutAct_9fa48("75") ? `` : (stryCov_9fa48("75"), `Entry ${entry}: route ${r.name} has a ${m} handler the table does not declare.`));
      }
    }
    for (const name of Object.keys(handlers)) {
      if (stryMutAct_9fa48("76")) {
        {}
      } else {
        stryCov_9fa48("76");
        if (stryMutAct_9fa48("79") ? false : stryMutAct_9fa48("78") ? true : stryMutAct_9fa48("77") ? routes.some(r => r.name === name) : (stryCov_9fa48("77", "78", "79"), !(stryMutAct_9fa48("80") ? routes.every(r => r.name === name) : (stryCov_9fa48("80"), routes.some(stryMutAct_9fa48("81") ? () => undefined : (stryCov_9fa48("81"), r => stryMutAct_9fa48("84") ? r.name !== name : stryMutAct_9fa48("83") ? false : stryMutAct_9fa48("82") ? true : (stryCov_9fa48("82", "83", "84"), r.name === name))))))) throw new Error(stryMutAct_9fa48("85") ? `` : (stryCov_9fa48("85"), `Entry ${entry}: handler for unknown route ${name}.`));
      }
    }
    async function dispatch(request: Request): Promise<Response> {
      if (stryMutAct_9fa48("86")) {
        {}
      } else {
        stryCov_9fa48("86");
        try {
          if (stryMutAct_9fa48("87")) {
            {}
          } else {
            stryCov_9fa48("87");
            const url = new URL(request.url);
            const {
              route,
              key
            } = locate(entry, url);
            const methods = stryMutAct_9fa48("88") ? handlers[route.name] && {} : (stryCov_9fa48("88"), handlers[route.name] ?? {});
            if (stryMutAct_9fa48("90") ? false : stryMutAct_9fa48("89") ? true : (stryCov_9fa48("89", "90"), route.gone)) return await methods.GET!(stryMutAct_9fa48("91") ? {} : (stryCov_9fa48("91"), {
              request,
              url,
              route,
              key
            }));
            if (stryMutAct_9fa48("94") ? request.method !== 'OPTIONS' : stryMutAct_9fa48("93") ? false : stryMutAct_9fa48("92") ? true : (stryCov_9fa48("92", "93", "94"), request.method === (stryMutAct_9fa48("95") ? "" : (stryCov_9fa48("95"), 'OPTIONS')))) return preflight(allowOf(route));
            const method = (request.method === 'HEAD' ? 'GET' : request.method) as Method;
            const handler = route.methods.includes(method) ? methods[method] : undefined;
            if (stryMutAct_9fa48("98") ? false : stryMutAct_9fa48("97") ? true : stryMutAct_9fa48("96") ? handler : (stryCov_9fa48("96", "97", "98"), !handler)) {
              if (stryMutAct_9fa48("99")) {
                {}
              } else {
                stryCov_9fa48("99");
                throw new ServiceError(stryMutAct_9fa48("100") ? "" : (stryCov_9fa48("100"), 'METHOD_NOT_ALLOWED'), stryMutAct_9fa48("101") ? `` : (stryCov_9fa48("101"), `${stryMutAct_9fa48("102") ? request.method : (stryCov_9fa48("102"), request.method.slice(0, 16))} is not supported here; use ${allowOf(route)}.`), stryMutAct_9fa48("103") ? {} : (stryCov_9fa48("103"), {
                  headers: stryMutAct_9fa48("104") ? {} : (stryCov_9fa48("104"), {
                    Allow: allowOf(route)
                  })
                }));
              }
            }
            const res = await handler(stryMutAct_9fa48("105") ? {} : (stryCov_9fa48("105"), {
              request,
              url,
              route,
              key
            }));
            if (stryMutAct_9fa48("108") ? request.method === 'HEAD' || res.body !== null : stryMutAct_9fa48("107") ? false : stryMutAct_9fa48("106") ? true : (stryCov_9fa48("106", "107", "108"), (stryMutAct_9fa48("110") ? request.method !== 'HEAD' : stryMutAct_9fa48("109") ? true : (stryCov_9fa48("109", "110"), request.method === (stryMutAct_9fa48("111") ? "" : (stryCov_9fa48("111"), 'HEAD')))) && (stryMutAct_9fa48("113") ? res.body === null : stryMutAct_9fa48("112") ? true : (stryCov_9fa48("112", "113"), res.body !== null)))) {
              if (stryMutAct_9fa48("114")) {
                {}
              } else {
                stryCov_9fa48("114");
                await res.body.cancel();
                return new Response(null, stryMutAct_9fa48("115") ? {} : (stryCov_9fa48("115"), {
                  status: res.status,
                  statusText: res.statusText,
                  headers: res.headers
                }));
              }
            }
            return res;
          }
        } catch (error) {
          if (stryMutAct_9fa48("116")) {
            {}
          } else {
            stryCov_9fa48("116");
            return toProblemResponse(error, request);
          }
        }
      }
    }
    return Object.freeze(stryMutAct_9fa48("117") ? {} : (stryCov_9fa48("117"), {
      GET: dispatch,
      HEAD: dispatch,
      POST: dispatch,
      PUT: dispatch,
      PATCH: dispatch,
      DELETE: dispatch,
      OPTIONS: dispatch
    }));
  }
}