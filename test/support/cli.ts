import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The compiled operator CLI (`npm run build`). */
export const CLI = join(__dirname, '..', '..', 'dist', 'cli.js');

/** What a CLI run printed, and its exit code. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the compiled operator CLI as an operator would (docs/cli.md), on its own queue prefix. */
export async function cli(...args: string[]): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], {
      env: { ...process.env, LOG_LEVEL: 'info', QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-cli` },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Runs the CLI and expects success: exit 0, nothing on stderr, one JSON document on stdout. */
export async function cliJson(...args: string[]): Promise<Record<string, unknown>> {
  const result = await cli(...args);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}
