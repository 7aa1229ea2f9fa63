import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppConfig } from '../config/app-config';
import { Metrics } from './metrics.service';

/** The one path the metrics server answers. */
export const METRICS_PATH = '/metrics';

/**
 * The Prometheus scrape endpoint (docs/operations.md#metrics): a plain `node:http` server on
 * `METRICS_HOST:METRICS_PORT`, separate from the public port, answering `GET /metrics` with
 * the text exposition format, `404` for any other path and `405` for another method. Opened
 * when the application starts (so a port in use stops the start with that error) and closed
 * at shutdown; nothing when `METRICS_PORT` is unset.
 */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(MetricsServer.name);
  private server?: Server;

  constructor(
    private readonly metrics: Metrics,
    private readonly config: AppConfig,
  ) {}

  /** The bound address, once listening (null when metrics are off). */
  address(): AddressInfo | null {
    return (this.server?.address() as AddressInfo | null | undefined) ?? null;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.metricsPort === null || this.server) return;
    const server = createServer((request, response) => {
      const path = (request.url ?? '/').split('?', 1)[0];
      if (path !== METRICS_PATH) {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found\n');
        return;
      }
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end();
        return;
      }
      this.metrics.exposition().then(
        ({ contentType, body }) => {
          response.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
          response.end(request.method === 'HEAD' ? undefined : body);
        },
        (error: unknown) => {
          this.logger.error(`Metrics scrape failed: ${(error as Error).message}`);
          response.writeHead(500, { 'content-type': 'text/plain' }).end('scrape failed\n');
        },
      );
    });
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.config.metricsPort!, this.config.metricsHost, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    const { address, port } = server.address() as AddressInfo;
    this.logger.log(`Metrics on http://${address}:${port}${METRICS_PATH}`);
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
