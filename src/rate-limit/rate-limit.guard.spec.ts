import { Controller, Get, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { SkipThrottle, Throttle, ThrottlerModule } from '@nestjs/throttler';
import { ErrorEnvelopeFilter } from '../common/error-envelope.filter';
import { RateLimitGuard } from './rate-limit.guard';

@Controller()
class ProbeController {
  @Get('plain')
  plain(): object {
    return {};
  }

  @Throttle({ default: { limit: 1, ttl: 60_000 } })
  @Get('strict')
  strict(): object {
    return {};
  }

  @SkipThrottle()
  @Get('free')
  free(): object {
    return {};
  }
}

@Module({
  imports: [ThrottlerModule.forRoot([{ name: 'default', limit: 3, ttl: 60_000 }])],
  controllers: [ProbeController],
  providers: [
    { provide: APP_GUARD, useClass: RateLimitGuard },
    { provide: APP_FILTER, useClass: ErrorEnvelopeFilter },
  ],
})
class ProbeModule {}

describe('RateLimitGuard', () => {
  let app: NestFastifyApplication;
  let base: string;
  beforeAll(async () => {
    app = await NestFactory.create<NestFastifyApplication>(ProbeModule, new FastifyAdapter(), {
      logger: false,
    });
    await app.listen(0, '127.0.0.1');
    base = await app.getUrl();
  });
  afterAll(() => app.close());

  const statuses = async (path: string, times: number) => {
    const seen: number[] = [];
    for (let i = 0; i < times; i++) seen.push((await fetch(base + path)).status);
    return seen;
  };

  it("applies the module's limit on an undecorated route, with the throttler's headers", async () => {
    const first = await fetch(`${base}/plain`);
    expect(first.headers.get('x-ratelimit-limit')).toBe('3');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('2');
    expect(await statuses('/plain', 2)).toEqual([200, 200]);
    const refused = await fetch(`${base}/plain`);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toEqual({ error: 'rate_limited', message: expect.any(String) });
  });

  it('still honours @Throttle() and @SkipThrottle() on a route', async () => {
    expect(await statuses('/strict', 2)).toEqual([200, 429]);
    expect(await statuses('/free', 5)).toEqual([200, 200, 200, 200, 200]);
  });
});
