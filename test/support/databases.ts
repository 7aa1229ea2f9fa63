import { Client } from 'pg';
import { fileDatabasePrefix, TEMPLATE_DATABASE_URL } from './env';

/** Runs `work` with a client on the server's `postgres` database. */
export async function withAdmin<T>(work: (admin: Client) => Promise<T>): Promise<T> {
  const url = new URL(TEMPLATE_DATABASE_URL);
  url.pathname = '/postgres';
  const admin = new Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Drops the database named in `databaseUrl`, closing its connections. */
export async function dropDatabase(databaseUrl: string): Promise<void> {
  const name = new URL(databaseUrl).pathname.slice(1);
  await withAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS ${quote(name)} WITH (FORCE)`));
}

/** Drops every per-file copy of the template (and the databases tests derived from them). */
export async function dropFileDatabases(): Promise<void> {
  await withAdmin(async (admin) => {
    const { rows } = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE starts_with(datname, $1)`,
      [fileDatabasePrefix()],
    );
    for (const { datname } of rows) {
      await admin.query(`DROP DATABASE IF EXISTS ${quote(datname)} WITH (FORCE)`);
    }
  });
}

/** Creates the database named in `databaseUrl` as a copy of the migrated template. */
export async function copyTemplate(databaseUrl: string): Promise<void> {
  const name = new URL(databaseUrl).pathname.slice(1);
  const template = new URL(TEMPLATE_DATABASE_URL).pathname.slice(1);
  await withAdmin(async (admin) => {
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE ${quote(name)} TEMPLATE ${quote(template)}`);
        return;
      } catch (error) {
        // 55006: another file's copy is being made from the template right now.
        if ((error as { code?: string }).code !== '55006' || attempt >= 50) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  });
}
