import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/**
 * The import rules of docs/architecture.md#layering-rules, as `npm run lint:architecture` checks them:
 * each rule is run on a small tree of files that breaks it (and one that keeps it), so a rule
 * that silently stopped matching fails here.
 */
const ROOT = resolve(__dirname, '..');
const DEPCRUISE = join(ROOT, 'node_modules/.bin/depcruise');

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

/** Writes `files` (path → source) into a fresh directory and cruises `entry` there. */
function violationsOf(files: Record<string, string>, entry: string, config: string): Violation[] {
  const dir = mkdtempSync(join(tmpdir(), 'architecture-rules-'));
  try {
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'commonjs', target: 'es2022', strict: true } }),
    );
    for (const [path, source] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), source);
    }
    let output: string;
    try {
      output = execFileSync(
        DEPCRUISE,
        [entry, '--config', join(ROOT, config), '--output-type', 'json'],
        { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
      );
    } catch (error) {
      // depcruise exits non-zero when it finds errors; its JSON is on stdout all the same.
      output = (error as { stdout: string }).stdout;
    }
    return (JSON.parse(output) as { summary: { violations: Violation[] } }).summary.violations;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Runs scripts/check-feature-cycles.mjs on a fresh tree of `files`.
 * @returns its exit status and what it printed on stderr.
 */
function featureCycles(files: Record<string, string>): { status: number; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'feature-cycles-'));
  try {
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'commonjs', target: 'es2022', strict: true } }),
    );
    for (const [path, source] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), source);
    }
    const run = spawnSync(
      process.execPath,
      [join(ROOT, 'scripts/check-feature-cycles.mjs'), 'src', '--cwd', dir],
      { encoding: 'utf8' },
    );
    return { status: run.status ?? -1, output: run.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Each violation as `rule: from → to`; a package by its path under node_modules/. */
const rulesOf = (violations: Violation[]) =>
  violations
    .map((v) => `${v.rule.name}: ${v.from} → ${v.to.replace(/^.*node_modules\//, 'node_modules/')}`)
    .sort();

describe('architecture rules (docs/architecture.md#layering-rules)', () => {
  it('refuse a feature reaching past another’s index.ts, for a type too, and let it use the face', () => {
    const violations = violationsOf(
      {
        'src/leads/upload/leads.repository.ts':
          'export class LeadsRepository {}\nexport interface LeadRow { id: number }\n',
        'src/leads/upload/lead-import.module.ts': 'export class LeadImportModule {}\n',
        'src/leads/upload/index.ts': "export * from './lead-import.module';\n",
        'src/leads/lead-compliance.constants.ts': "export const DEFAULT_SOURCE = 'api';\n",
        'src/leads/index.ts': "export * from './lead-compliance.constants';\n",
        'src/leads/search/search.ts':
          "import { DEFAULT_SOURCE } from '../lead-compliance.constants';\nimport { LeadImportModule } from '../upload';\nexport const s = [DEFAULT_SOURCE, LeadImportModule];\n",
        'src/delivery/outbox/typed.ts':
          "import type { LeadRow } from '../../leads/upload/leads.repository';\nexport const z: LeadRow[] = [];\n",
        'src/delivery/outbox/wrong.ts':
          "import { LeadsRepository } from '../../leads/upload/leads.repository';\nexport const x = LeadsRepository;\n",
        'src/delivery/outbox/right.ts':
          "import { LeadImportModule } from '../../leads/upload';\nimport { DEFAULT_SOURCE } from '../../leads';\nexport const y = [LeadImportModule, DEFAULT_SOURCE];\n",
        'src/cli/lead.command.ts':
          "import { LeadsRepository } from '../leads/upload/leads.repository';\nexport const c = LeadsRepository;\n",
      },
      'src',
      '.dependency-cruiser.cjs',
    );
    expect(rulesOf(violations)).toEqual([
      'feature-face: src/delivery/outbox/typed.ts → src/leads/upload/leads.repository.ts',
      'feature-face: src/delivery/outbox/wrong.ts → src/leads/upload/leads.repository.ts',
      'feature-face: src/leads/search/search.ts → src/leads/lead-compliance.constants.ts',
    ]);
  });

  it('refuse a domain file importing an HTTP edge or the dashboard kernel, and let an edge use both', () => {
    const violations = violationsOf(
      {
        'src/dashboard-kernel/dashboard-access.ts': 'export const DashboardAccess = 1;\n',
        'src/dashboard-kernel/index.ts': "export * from './dashboard-access';\n",
        'src/webhooks/http/endpoint.dto.ts': 'export class EndpointDto {}\n',
        'src/webhooks/http/index.ts': "export * from './endpoint.dto';\n",
        'src/webhooks/http/endpoints.controller.ts':
          "import { DashboardAccess } from '../../dashboard-kernel';\nimport { EndpointDto } from './endpoint.dto';\nexport const c = [DashboardAccess, EndpointDto];\n",
        'src/webhooks/endpoint-admin.service.ts':
          "import { EndpointDto } from './http/endpoint.dto';\nimport { DashboardAccess } from '../dashboard-kernel';\nexport const s = [EndpointDto, DashboardAccess];\n",
      },
      'src',
      '.dependency-cruiser.cjs',
    );
    expect(rulesOf(violations)).toEqual([
      'dashboard-kernel-for-edges: src/webhooks/endpoint-admin.service.ts → src/dashboard-kernel/index.ts',
      'domain-below-edge: src/webhooks/endpoint-admin.service.ts → src/webhooks/http/endpoint.dto.ts',
    ]);
  });

  it('refuse two features that reach each other, even through their faces and an edge', () => {
    const files = {
      'src/metrics/metrics.service.ts': 'export class Metrics {}\n',
      'src/metrics/index.ts': "export * from './metrics.service';\n",
      'src/delivery/outbox/delivery.module.ts':
        "import { Metrics } from '../../metrics';\nexport class DeliveryModule { m = Metrics; }\n",
      'src/delivery/outbox/index.ts': "export * from './delivery.module';\n",
      // An HTTP edge may use the domain below it without making a cycle.
      'src/metrics/http/metrics.controller.ts':
        "import { DeliveryModule } from '../../delivery/outbox';\nexport class C { d = DeliveryModule; }\n",
    };
    expect(featureCycles(files)).toEqual({ status: 0, output: '' });
    const cyclic = featureCycles({
      ...files,
      'src/metrics/gauges.ts':
        "import { DeliveryModule } from '../delivery/outbox';\nexport const g = DeliveryModule;\n",
    });
    expect(cyclic.status).toBe(1);
    expect(cyclic.output).toContain('feature cycle: delivery/outbox, metrics');
    expect(cyclic.output).toContain(
      'metrics → delivery/outbox: src/metrics/gauges.ts → src/delivery/outbox/index.ts',
    );
  });

  it('refuse common/ importing a feature, and a domain file importing Fastify or the HTTP errors', () => {
    const violations = violationsOf(
      {
        'src/leads/lead-import.service.ts': 'export class LeadImportService {}\n',
        'src/common/api-error.ts': 'export class ApiError {}\n',
        'src/common/helper.ts':
          "import { LeadImportService } from '../leads/lead-import.service';\nexport const z = LeadImportService;\n",
        'src/leads/lead-rules.ts':
          "import { ApiError } from '../common/api-error';\nimport fastify from 'fastify';\nexport const w = [ApiError, fastify];\n",
      },
      'src',
      '.dependency-cruiser.cjs',
    );
    expect(rulesOf(violations)).toEqual([
      'domain-without-http: src/leads/lead-rules.ts → node_modules/fastify/fastify.js',
      'domain-without-http: src/leads/lead-rules.ts → src/common/api-error.ts',
      'shared-imports-no-feature: src/common/helper.ts → src/leads/lead-import.service.ts',
    ]);
  });

  it('refuse a worker process that loads authentication code, not one that only names its types', () => {
    const files = {
      'src/auth/auth.module.ts': 'export class AuthModule {}\n',
      'src/auth/auth-principal.ts': 'export interface AuthPrincipal { apiKeyId: number }\n',
      'src/leads/lead-import.service.ts':
        "import type { AuthPrincipal } from '../auth/auth-principal';\nexport const f = (p: AuthPrincipal) => p.apiKeyId;\n",
    };
    const clean = violationsOf(
      {
        ...files,
        'src/worker.ts': "import { f } from './leads/lead-import.service';\nexport const g = f;\n",
      },
      'src/worker.ts',
      '.dependency-cruiser-runtime.cjs',
    );
    expect(clean).toEqual([]);
    const loaded = violationsOf(
      {
        ...files,
        'src/worker.ts':
          "import { AuthModule } from './auth/auth.module';\nexport const g = AuthModule;\n",
      },
      'src/worker.ts',
      '.dependency-cruiser-runtime.cjs',
    );
    expect(rulesOf(loaded)).toEqual([
      'worker-without-http: src/worker.ts → src/auth/auth.module.ts',
    ]);
  });
});
