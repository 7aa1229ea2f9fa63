import type { AddressInfo } from 'node:net';

/** What the banner reports: where the server is bound and what start-up did to the database. */
export interface StartBannerInput {
  /** The bound address, as `server.address()` returns it (the real port, also for `PORT=0`). */
  address: AddressInfo;
  /** `DATABASE_URL`: only the database's name is shown, never the credentials. */
  databaseUrl: string;
  /** Names of the migrations this start applied (empty when the schema was up to date). */
  migrationsApplied: string[];
}

/**
 * The origin a browser on this machine reaches the server at: the bound address, except that
 * an unspecified one (`0.0.0.0`, `::`: every interface) is shown as `127.0.0.1`, and an IPv6
 * address is bracketed.
 */
export function localOrigin(address: AddressInfo): string {
  const unspecified = address.address === '0.0.0.0' || address.address === '::';
  const host = unspecified
    ? '127.0.0.1'
    : address.family === 'IPv6' || address.address.includes(':')
      ? `[${address.address}]`
      : address.address;
  return `http://${host}:${address.port}`;
}

/**
 * The few lines `npm start` ends with (docs/operations.md#logs): the URLs of the public API,
 * the dashboard and the API's docs (Swagger UI) on the real bound address, and one line
 * summing up the migrations. Plain text for a person at a terminal; the JSON `listening on`
 * log line carries the same facts for machines.
 *
 * @returns the banner, lines ending with `\n`.
 */
export function startBanner({ address, databaseUrl, migrationsApplied }: StartBannerInput): string {
  const origin = localOrigin(address);
  let database = 'the database';
  try {
    database = `database ${decodeURIComponent(new URL(databaseUrl).pathname.slice(1))}`;
  } catch {
    // an unparsable URL never gets this far (the configuration checks it); keep the generic name
  }
  const count = migrationsApplied.length;
  const migrations =
    count === 0
      ? `${database}: schema up to date`
      : `${database}: ${count} migration${count === 1 ? '' : 's'} applied`;
  const interfaces =
    address.address === '0.0.0.0' || address.address === '::'
      ? ` (listening on every interface, port ${address.port})`
      : '';
  return [
    `Campaign API is ready${interfaces}; ${migrations}.`,
    `  API        ${origin}/api/v1`,
    `  Dashboard  ${origin}/dashboard/`,
    `  API docs   ${origin}/api/docs`,
    '',
  ].join('\n');
}
