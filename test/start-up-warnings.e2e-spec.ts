import { ServiceProcess, PROCESS_START_TIMEOUT_MS } from './support/processes';

jest.setTimeout(PROCESS_START_TIMEOUT_MS * 2);

/** How often `text` occurs in `output`. */
const count = (output: string, text: string) => output.split(text).length - 1;

/**
 * Without JWT_SECRET and SECRETS_ENCRYPTION_KEY (a development start without `.env`), each
 * process warns once per missing secret (docs/configuration.md), however many modules read the
 * configuration.
 */
describe('start-up warnings of development secrets', () => {
  const env = { JWT_SECRET: '', SECRETS_ENCRYPTION_KEY: '', LOG_LEVEL: 'info', PORT: '0' };

  it.each([
    ['main.js', /Campaign API listening on/],
    ['worker.js', /Delivery worker running/],
  ] as const)('%s logs each missing secret once', async (entrypoint, ready) => {
    const service = new ServiceProcess(entrypoint, {
      ...env,
      QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-${entrypoint.replace('.js', '')}`,
    });
    try {
      await service.waitForOutput(ready);
    } finally {
      expect(await service.stop()).toBe(0);
    }
    expect(count(service.output, 'JWT_SECRET is not set')).toBe(1);
    expect(count(service.output, 'SECRETS_ENCRYPTION_KEY is not set')).toBe(1);
  });
});
