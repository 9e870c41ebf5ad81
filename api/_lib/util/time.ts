/**
 * Strict reading of RFC 3339 date-times (the `until` of a ban, spec 5.3), where `Date` would roll an
 * impossible day over into another time.
 */

/**
 * The instant an RFC 3339 date-time names (`2027-01-01T00:00:00Z`, `…+02:00`, fractions of a second), or
 * undefined for one that names none: a day past its month's end, an hour past 23, a leap second, an
 * offset past ±23:59, or an instant outside the years 0001-9999 in UTC. (`Date` would roll an impossible
 * day over into the next month instead of refusing it.)
 */
export function rfc3339Time(text: string): Date | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|([+-])(\d{2}):(\d{2}))$/.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const monthDays = month === 2 ? (isLeap(year) ? 29 : 28) : [31, 0, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  if (year < 1 || monthDays === undefined || day < 1 || day > monthDays || hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMin = 0;
  if (m[8] !== 'Z') {
    const [oh, om] = [Number(m[10]), Number(m[11])];
    if (oh > 23 || om > 59) return undefined;
    offsetMin = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const ms = Math.floor(Number(`0${m[7] ?? ''}`) * 1000);
  // setUTCFullYear, not Date.UTC, which reads a year below 100 as 19xx
  const at = new Date(0).setUTCFullYear(year, month - 1, day) + ((hour * 60 + minute - offsetMin) * 60 + second) * 1000 + ms;
  const utcYear = new Date(at).getUTCFullYear();
  return utcYear >= 1 && utcYear <= 9999 ? new Date(at) : undefined;
}

const isLeap = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
