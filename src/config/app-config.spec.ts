import { ConfigError, loadConfig, parseDurationList } from './app-config';

const KEY = Buffer.alloc(32, 1).toString('base64');
const SECRET = 's'.repeat(32);

describe('loadConfig (CONTRACT 8)', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({ JWT_SECRET: SECRET, SECRETS_ENCRYPTION_KEY: KEY });
    expect(config).toMatchObject({
      nodeEnv: 'development',
      port: 3000,
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/campaign_api',
      redisUrl: 'redis://127.0.0.1:6379',
      tokenTtlSeconds: 900,
      webhookTimeoutMs: 10_000,
      webhookRetryScheduleMs: [
        5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
      ],
      webhookAllowPrivateUrls: false,
      runWorker: true,
      logLevel: 'info',
      rateLimitTokenPerMin: 20,
      rateLimitApiPerMin: 1200,
      warnings: [],
    });
  });

  it('uses development secrets with warnings outside production', () => {
    const config = loadConfig({});
    expect(config.jwtSecret.length).toBeGreaterThanOrEqual(32);
    expect(config.secretsEncryptionKey).toHaveLength(32);
    expect(config.warnings).toHaveLength(2);
  });

  it.each([
    [{ NODE_ENV: 'production', SECRETS_ENCRYPTION_KEY: KEY }, 'JWT_SECRET'],
    [{ NODE_ENV: 'production', JWT_SECRET: SECRET }, 'SECRETS_ENCRYPTION_KEY'],
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET'],
    [{ SECRETS_ENCRYPTION_KEY: 'dG9vIHNob3J0' }, 'SECRETS_ENCRYPTION_KEY'],
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x/y' }, 'DATABASE_URL'],
    [{ REDIS_URL: 'not a url' }, 'REDIS_URL'],
    [{ TOKEN_TTL_SECONDS: '0' }, 'TOKEN_TTL_SECONDS'],
    [{ WEBHOOK_RETRY_SCHEDULE: '5s,soon' }, 'WEBHOOK_RETRY_SCHEDULE'],
    [{ WEBHOOK_ALLOW_PRIVATE_URLS: 'maybe' }, 'WEBHOOK_ALLOW_PRIVATE_URLS'],
    [{ RUN_WORKER: 'sometimes' }, 'RUN_WORKER'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ NODE_ENV: 'staging' }, 'NODE_ENV'],
    [{ HOST: 'example.com' }, 'HOST'],
  ])('rejects %j with one line naming %s', (env, variable) => {
    let thrown: unknown;
    try {
      loadConfig(env);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).variable).toBe(variable);
    expect((thrown as ConfigError).message).toContain(variable);
    expect((thrown as ConfigError).message).not.toContain('\n');
  });
});

describe('parseDurationList', () => {
  it('reads ms, s, m and h', () => {
    expect(parseDurationList('1s, 2s,500ms,3m,1h', 'X')).toEqual([
      1000, 2000, 500, 180_000, 3_600_000,
    ]);
  });
});
