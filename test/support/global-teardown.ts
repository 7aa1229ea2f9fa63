import { dropFileDatabases } from './databases';

/** Runs once after the e2e suite: drops every test file's copy of the template database. */
export default async function globalTeardown(): Promise<void> {
  await dropFileDatabases();
}
