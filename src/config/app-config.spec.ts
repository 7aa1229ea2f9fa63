import { ConfigError, loadConfig, parseDurationList } from './app-config';

const KEY = Buffer.alloc(32, 1).toString('base64');
const SECRET = 's'.repeat(32);

describe('loadConfig (docs/configuration.md)', () => {
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
      metricsPort: null,
      metricsHost: '0.0.0.0',
      logLevel: 'info',
      rateLimitTokenPerMin: 20,
      rateLimitApiPerMin: 1200,
      spreadsheetUploadTtlMs: 86_400_000,
      webhookRecoveryProbe: { firstMs: 3_600_000, maxIntervalMs: 86_400_000, forMs: 2_592_000_000 },
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
    [{ SPREADSHEET_UPLOAD_TTL: '10s' }, 'SPREADSHEET_UPLOAD_TTL'],
    [{ SPREADSHEET_UPLOAD_TTL: '31d' }, 'SPREADSHEET_UPLOAD_TTL'],
    [{ SPREADSHEET_UPLOAD_TTL: 'a day' }, 'SPREADSHEET_UPLOAD_TTL'],
    [{ WEBHOOK_RECOVERY_PROBE_FIRST: 'hourly' }, 'WEBHOOK_RECOVERY_PROBE_FIRST'],
    [{ WEBHOOK_RECOVERY_PROBE_FIRST: '500ms' }, 'WEBHOOK_RECOVERY_PROBE_FIRST'],
    [{ WEBHOOK_RECOVERY_PROBE_MAX_INTERVAL: '366d' }, 'WEBHOOK_RECOVERY_PROBE_MAX_INTERVAL'],
    [
      { WEBHOOK_RECOVERY_PROBE_FIRST: '2h', WEBHOOK_RECOVERY_PROBE_MAX_INTERVAL: '1h' },
      'WEBHOOK_RECOVERY_PROBE_MAX_INTERVAL',
    ],
    [{ WEBHOOK_RECOVERY_PROBE_FOR: '30 days' }, 'WEBHOOK_RECOVERY_PROBE_FOR'],
    [{ RUN_WORKER: 'sometimes' }, 'RUN_WORKER'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ NODE_ENV: 'staging' }, 'NODE_ENV'],
    [{ HOST: 'example.com' }, 'HOST'],
    [{ METRICS_PORT: '0' }, 'METRICS_PORT'],
    [{ METRICS_PORT: 'nine' }, 'METRICS_PORT'],
    [{ METRICS_PORT: '3000' }, 'METRICS_PORT'],
    [{ PORT: '8080', METRICS_PORT: '8080' }, 'METRICS_PORT'],
    [{ METRICS_PORT: '9464', METRICS_HOST: 'metrics.internal' }, 'METRICS_HOST'],
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

describe('METRICS_PORT (docs/operations.md#metrics)', () => {
  it('serves metrics on its own port and interface when set', () => {
    const config = loadConfig({ METRICS_PORT: '9464', HOST: '127.0.0.1' });
    expect(config.metricsPort).toBe(9464);
    expect(config.metricsHost).toBe('127.0.0.1');
    expect(loadConfig({ METRICS_PORT: '9464', METRICS_HOST: '::1' }).metricsHost).toBe('::1');
  });
});

describe('TRUST_PROXY', () => {
  const load = (value: string) =>
    loadConfig({ JWT_SECRET: SECRET, SECRETS_ENCRYPTION_KEY: KEY, TRUST_PROXY: value });
  const errorOf = (value: string): ConfigError => {
    try {
      load(value);
    } catch (error) {
      return error as ConfigError;
    }
    throw new Error(`TRUST_PROXY=${value} was accepted`);
  };

  it('defaults to trusting no proxy', () => {
    expect(loadConfig({ JWT_SECRET: SECRET, SECRETS_ENCRYPTION_KEY: KEY }).trustProxy).toBe(false);
    expect(load('false').trustProxy).toBe(false);
    expect(load('FALSE').trustProxy).toBe(false);
  });

  it('accepts a list of IP addresses and CIDRs', () => {
    expect(load('10.0.0.0/8, 192.168.1.10 ,::1,fd00::/8,2001:db8::1/128').trustProxy).toEqual([
      '10.0.0.0/8',
      '192.168.1.10',
      '::1',
      'fd00::/8',
      '2001:db8::1/128',
    ]);
  });

  it.each(['true', 'TRUE', 'True'])('refuses %s, explaining why and what to set', (value) => {
    const error = errorOf(value);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.variable).toBe('TRUST_PROXY');
    expect(error.message).toMatch(/X-Forwarded-For/);
    expect(error.message).toMatch(/addresses\/CIDRs/);
    expect(error.message).not.toContain('\n');
  });

  it.each(['1', '2', '0'])('refuses the hop count %s', (value) => {
    const error = errorOf(value);
    expect(error.variable).toBe('TRUST_PROXY');
    expect(error.message).toMatch(/hop count/);
  });

  it.each([
    ['proxy.internal', 'proxy.internal'],
    ['10.0.0.0/8,10.0.0.300', '10.0.0.300'],
    ['10.0.0.0/33', '10.0.0.0/33'],
    ['::1/129', '::1/129'],
    ['10.1', '10.1'],
    ['10.0.0.0/8/8', '10.0.0.0/8/8'],
    ['10.0.0.0/x', '10.0.0.0/x'],
    ['10.0.0.1,', ''],
    ['loopback', 'loopback'],
  ])('refuses %s, naming the entry %s', (value, entry) => {
    const error = errorOf(value);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.variable).toBe('TRUST_PROXY');
    expect(error.message).toContain(`"${entry}"`);
  });
});

describe('HTTP_REQUEST_TIMEOUT_MS', () => {
  const load = (env: Record<string, string>) =>
    loadConfig({ JWT_SECRET: SECRET, SECRETS_ENCRYPTION_KEY: KEY, ...env });

  it('defaults to 60 s and accepts 1 s or more', () => {
    expect(load({}).httpRequestTimeoutMs).toBe(60_000);
    expect(load({ HTTP_REQUEST_TIMEOUT_MS: '1000' }).httpRequestTimeoutMs).toBe(1000);
  });

  it.each(['999', '0', 'soon'])('refuses %s', (value) => {
    expect(() => load({ HTTP_REQUEST_TIMEOUT_MS: value })).toThrow(/HTTP_REQUEST_TIMEOUT_MS/);
  });
});

describe('parseDurationList', () => {
  it('reads ms, s, m and h', () => {
    expect(parseDurationList('1s, 2s,500ms,3m,1h', 'X')).toEqual([
      1000, 2000, 500, 180_000, 3_600_000,
    ]);
  });
});

describe('dashboard settings (docs/dashboard.md#sessions)', () => {
  const base = { JWT_SECRET: SECRET, SECRETS_ENCRYPTION_KEY: KEY };

  it('defaults to Secure cookies and sign-in attempts of 10 per email and IP, 30 per email, 50 per IP', () => {
    expect(loadConfig(base)).toMatchObject({
      dashboardInsecureCookies: false,
      rateLimitSignInPerEmailAndIp: 10,
      rateLimitSignInPerEmail: 30,
      rateLimitSignInPerIp: 50,
      warnings: [],
    });
  });

  it('warns when the per-email limit does not exceed the per-email-and-IP one', () => {
    expect(loadConfig({ ...base, RATE_LIMIT_SIGN_IN_PER_EMAIL: '10' }).warnings).toEqual([
      'RATE_LIMIT_SIGN_IN_PER_EMAIL (10) is not above RATE_LIMIT_SIGN_IN_PER_EMAIL_AND_IP (10): ' +
        'failed sign-ins from one address will close an email to every address its user has ' +
        'not signed in from',
    ]);
  });

  it('reads the settings, and warns about insecure cookies in production only', () => {
    const env = {
      ...base,
      DASHBOARD_INSECURE_COOKIES: 'true',
      RATE_LIMIT_SIGN_IN_PER_EMAIL: '3',
      RATE_LIMIT_SIGN_IN_PER_EMAIL_AND_IP: '2',
      RATE_LIMIT_SIGN_IN_PER_IP: '500',
    };
    expect(loadConfig(env)).toMatchObject({
      dashboardInsecureCookies: true,
      rateLimitSignInPerEmail: 3,
      rateLimitSignInPerEmailAndIp: 2,
      rateLimitSignInPerIp: 500,
      warnings: [],
    });
    expect(loadConfig({ ...env, NODE_ENV: 'production' }).warnings).toEqual([
      expect.stringContaining('DASHBOARD_INSECURE_COOKIES is true in production'),
    ]);
    expect(() => loadConfig({ ...base, RATE_LIMIT_SIGN_IN_PER_EMAIL: '0' })).toThrow(
      'RATE_LIMIT_SIGN_IN_PER_EMAIL must be an integer from 1 to 1000000, got "0"',
    );
    expect(() => loadConfig({ ...base, RATE_LIMIT_SIGN_IN_PER_EMAIL_AND_IP: '0' })).toThrow(
      'RATE_LIMIT_SIGN_IN_PER_EMAIL_AND_IP must be an integer from 1 to 1000000, got "0"',
    );
    expect(() => loadConfig({ ...base, DASHBOARD_INSECURE_COOKIES: 'maybe' })).toThrow(ConfigError);
  });
});

describe('REDIS_URL: one Redis, a Redis Cluster or Sentinel (docs/configuration.md)', () => {
  const load = (value: string) =>
    loadConfig({ JWT_SECRET: SECRET, SECRETS_ENCRYPTION_KEY: KEY, REDIS_URL: value });
  const errorOf = (value: string): ConfigError => {
    try {
      load(value);
    } catch (error) {
      return error as ConfigError;
    }
    throw new Error(`${value} was accepted`);
  };

  it('passes redis:// and rediss:// URLs to ioredis as they are', () => {
    expect(load('redis://:pw@cache.internal:6380/2').redis).toEqual({
      topology: 'single',
      url: 'redis://:pw@cache.internal:6380/2',
      nodes: [],
      tls: false,
      db: 0,
    });
    expect(load('rediss://cache.internal').redis).toMatchObject({ topology: 'single', tls: true });
  });

  it('reads a cluster URL: seed nodes, credentials, TLS, default port 6379', () => {
    expect(load('redis+cluster://app:p%40ss@10.0.0.1:7000,10.0.0.2,[::1]:7002').redis).toEqual({
      topology: 'cluster',
      url: 'redis+cluster://app:p%40ss@10.0.0.1:7000,10.0.0.2,[::1]:7002',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 6379 },
        { host: '::1', port: 7002 },
      ],
      tls: false,
      username: 'app',
      password: 'p@ss',
      db: 0,
    });
    expect(load('rediss+cluster://:secret@node-a.internal:6379/').redis).toMatchObject({
      topology: 'cluster',
      tls: true,
      password: 'secret',
      nodes: [{ host: 'node-a.internal', port: 6379 }],
    });
    expect(load('rediss+cluster://:secret@node-a.internal').redis.username).toBeUndefined();
  });

  it("reads a sentinel URL: sentinels (default port 26379), the primary's name, database, sentinel credentials", () => {
    expect(
      load(
        'rediss+sentinel://:datapw@s1.internal,s2.internal:26380/3?name=mymaster&sentinel_password=sentpw',
      ).redis,
    ).toEqual({
      topology: 'sentinel',
      url: 'rediss+sentinel://:datapw@s1.internal,s2.internal:26380/3?name=mymaster&sentinel_password=sentpw',
      nodes: [
        { host: 's1.internal', port: 26379 },
        { host: 's2.internal', port: 26380 },
      ],
      tls: true,
      password: 'datapw',
      sentinelName: 'mymaster',
      sentinelPassword: 'sentpw',
      db: 3,
    });
  });

  it.each([
    ['http://cache.internal:6379', 'must start with redis://'],
    ['redis+raft://a:1', 'must start with redis://'],
    ['redis://exa mple', 'is not a valid URL'],
    ['redis+cluster://', 'names no cluster nodes'],
    ['redis+cluster://a:7000,,b:7001', 'where a cluster node was expected'],
    ['redis+cluster://a:70000', 'where a cluster node was expected'],
    ['redis+cluster://a:7000/1', 'a Redis Cluster has only database 0'],
    ['redis+cluster://a:7000?name=x', 'a cluster URL takes none'],
    ['redis+sentinel://s1:26379', "needs the primary's name"],
    ['redis+sentinel://s1:26379/?name=', "needs the primary's name"],
    ['redis+sentinel://s1:26379/?name=m&db=2', 'expected only name, sentinel_username'],
    ['redis+sentinel://s1:26379/zero?name=m', 'expected nothing or a database number'],
  ])('refuses %s in one line naming REDIS_URL: %s', (value, reason) => {
    const error = errorOf(value);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.variable).toBe('REDIS_URL');
    expect(error.message).toContain(reason);
    expect(error.message).not.toContain('\n');
  });

  it('never repeats the password of a refused URL', () => {
    for (const value of [
      'redis+cluster://app:hunter22@a:7000/5',
      'redis+sentinel://:hunter22@s1:26379',
      'redis+cluster://app:hunter22@a:notaport',
    ]) {
      expect(errorOf(value).message).not.toContain('hunter22');
    }
  });
});

describe('WEBHOOK_PROXY_URL', () => {
  const load = (value: string) =>
    loadConfig({ JWT_SECRET: SECRET, SECRETS_ENCRYPTION_KEY: KEY, WEBHOOK_PROXY_URL: value });

  it.each([
    ['http://user:pw%ZZ@proxy.internal:3128', 'password'],
    ['http://us%E0er:pw@proxy.internal:3128', 'user'],
    ['http://user:%@proxy.internal:3128', 'password'],
  ])('refuses %s, naming the variable and the bad part, never the value', (value, part) => {
    let error: unknown;
    try {
      load(value);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe('WEBHOOK_PROXY_URL');
    expect((error as ConfigError).message).toBe(
      `Invalid configuration: WEBHOOK_PROXY_URL has a badly percent-encoded ${part} (write % as %25, @ as %40, : as %3A)`,
    );
    expect((error as ConfigError).message).not.toMatch(/pw|us%|user:/);
  });

  it('takes credentials that are well percent-encoded', () => {
    const url = load('http://us%40er:p%25w%3A@proxy.internal:3128').webhookProxyUrl;
    expect([decodeURIComponent(url!.username), decodeURIComponent(url!.password)]).toEqual([
      'us@er',
      'p%w:',
    ]);
  });
});
