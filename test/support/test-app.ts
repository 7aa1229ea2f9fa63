import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createApp } from '../../src/app.factory';
import { shutdownSequence } from '../../src/shutdown-sequence';
import { loadConfig, type AppConfig } from '../../src/config/app-config';
import { CampaignsService } from '../../src/campaigns/campaigns.service';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { WebhookEndpointAdmin } from '../../src/webhooks/webhook-endpoint-admin.service';

/** A running application as production builds it, on the test database. */
export interface TestApp {
  app: NestFastifyApplication;
  config: AppConfig;
  /** The application's own pool, for asserting database state. */
  db: DataSource;
  /** supertest against the app (no port needed). */
  http: () => request.Agent;
  given: Given;
  close: () => Promise<void>;
}

/**
 * Starts the app exactly as `main.ts` does (same factory, same global filter, guards and
 * hooks) with `overrides` on top of the test environment.
 */
export async function startTestApp(overrides: Record<string, string> = {}): Promise<TestApp> {
  // Each app gets its own queue unless told to share one, so apps never take each other's jobs.
  const queuePrefix = `${process.env.QUEUE_PREFIX}-${++appSequence}`;
  const config = loadConfig({ ...process.env, QUEUE_PREFIX: queuePrefix, ...overrides });
  const app = await createApp(config);
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  const db = app.get(DataSource);
  const http = () => request.agent(app.getHttpServer());
  // Closed in the production order (HTTP, then attempts, then queued deliveries, then the rest).
  const close = async () => {
    const steps = [
      ...shutdownSequence(app, { worker: config.runWorker }),
      { name: 'app.close()', run: () => app.close() },
    ];
    for (const step of steps) {
      try {
        await step.run();
      } catch (error) {
        // Says which step failed, with the original error (and its stack) as the cause.
        throw new Error(`Closing the test app, step "${step.name}" failed: ${String(error)}`, {
          cause: error,
        });
      }
    }
  };
  return { app, config, db, http, given: new Given(app, http), close };
}

/** What a typical test needs: an account with one campaign, a key and a token for it. */
export interface Caller {
  accountId: number;
  campaignId: number;
  apiKeyId: number;
  apiKey: string;
  token: string;
}

let sequence = 0;
let appSequence = 0;
const unique = (prefix: string) => `${prefix} ${process.pid}-${++sequence}`;

/**
 * Builder-style factories that create real rows through the services the CLI uses, so each
 * test owns its accounts and campaigns and test files can run in parallel.
 */
export class Given {
  constructor(
    private readonly app: NestFastifyApplication,
    private readonly http: () => request.Agent,
  ) {}

  async account(): Promise<number> {
    return (await this.app.get(CampaignsService).createAccount(unique('Account'))).id;
  }

  async campaign(accountId: number, region = 'US'): Promise<number> {
    return (
      await this.app.get(CampaignsService).createCampaign(accountId, unique('Campaign'), region)
    ).id;
  }

  /** A webhook endpoint of `campaignId`; returns its id and plaintext signing secret. */
  async endpoint(
    campaignId: number,
    url: string,
    events: string[],
    options: { enabled?: boolean; description?: string } = {},
  ): Promise<{ id: number; secret: string }> {
    const { endpoint, secret } = await this.app.get(WebhookEndpointAdmin).create(campaignId, {
      url,
      events,
      description: options.description ?? null,
      enabled: options.enabled ?? true,
    });
    // Created with the default scheme: a `whsec_` secret, always shown at creation.
    return { id: endpoint.id, secret: secret! };
  }

  async apiKey(accountId: number, campaignIds?: number[]): Promise<{ id: number; key: string }> {
    const { apiKey, key } = await this.app
      .get(ApiKeysService)
      .create(accountId, 'test key', campaignIds);
    return { id: apiKey.id, key };
  }

  /** Exchanges `apiKey` over HTTP and returns the access token. */
  async token(apiKey: string): Promise<string> {
    const res = await this.http()
      .post('/api/v1/auth/api-key/token')
      .send({ api_key: apiKey })
      .expect(200);
    return res.body.access_token as string;
  }

  /** A fresh account, a campaign in `region`, a key for the account and a token. */
  async caller(region = 'US'): Promise<Caller> {
    const accountId = await this.account();
    const campaignId = await this.campaign(accountId, region);
    const { id: apiKeyId, key: apiKey } = await this.apiKey(accountId);
    return { accountId, campaignId, apiKeyId, apiKey, token: await this.token(apiKey) };
  }
}

/** Body of a valid upload to `campaignId` with `leads`, plus any `extra` fields. */
export function uploadBody(
  campaignId: number,
  leads: unknown[],
  extra: Record<string, unknown> = {},
) {
  return { campaign_id: campaignId, compliance_acknowledged: true, leads, ...extra };
}
