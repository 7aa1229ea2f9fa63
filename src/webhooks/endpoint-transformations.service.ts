import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AuditLog, type AuditActor } from '../audit';
import { CampaignsService } from '../campaigns';
import { InvalidInputError, NotFoundError } from '../common/domain-error';
import { MAX_INT4 } from '../common/ids';
import {
  TRANSFORMATION_MAX_CODE_BYTES,
  TransformationSandbox,
  type TransformationFailure,
} from '../transformations';
import type { CustomHeaderToSend } from './custom-headers';
import { EVENT_EXAMPLES } from './event-examples.constants';
import { isEventType } from './event-types.constants';
import { transformationInput } from './transformed-request';
import type { TransformationVersion } from './transformation-version.entity';
import { TransformationVersionsRepository } from './transformation-versions.repository';
import { WebhookEndpoint } from './webhook-endpoint.entity';

/** How many versions the history lists, newest first. */
export const TRANSFORMATION_HISTORY_LIMIT = 100;

/** One saved version as the history lists it (docs/dashboard.md#transformations). */
export interface TransformationVersionSummary {
  version: number;
  created_at: string;
  /** A dashboard user's email, or `cli`. */
  created_by: string | null;
  /** The version it restored, if it was saved by restoring one. */
  restored_from: number | null;
  /** Its size in UTF-8 bytes. */
  bytes: number;
}

/** One saved version with its code. */
export interface TransformationVersionDetail extends TransformationVersionSummary {
  code: string;
}

/** An endpoint's transformation: the version in force (null: none) and the history. */
export interface TransformationState {
  endpoint_id: number;
  /** The version in force with its code; null when requests are sent as the events are. */
  current: TransformationVersionDetail | null;
  /** The latest {@link TRANSFORMATION_HISTORY_LIMIT} versions, newest first. */
  versions: TransformationVersionSummary[];
}

/**
 * The sandbox's refusal of code, as one line: `line 3, column 15: ReferenceError: …`.
 */
export function describeTransformationFailure(failure: TransformationFailure): string {
  const at =
    failure.line === null
      ? ''
      : `line ${failure.line}${failure.column === null ? '' : `, column ${failure.column}`}: `;
  return `${at}${failure.message}`;
}

/**
 * An endpoint's transformation and its versions (docs/webhooks.md#transformations): saving a
 * version (checked by the sandbox first), restoring one as a new version, clearing it, and
 * reading the history. Each change is one transaction with its audit entry
 * (`transformation.save`, `transformation.restore`, `transformation.clear`, on the endpoint,
 * with the versions, never the code). Ids are taken as given: the caller checked the owner.
 */
@Injectable()
export class EndpointTransformations {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly sandbox: TransformationSandbox,
    private readonly versions: TransformationVersionsRepository,
    private readonly campaigns: CampaignsService,
    private readonly audit: AuditLog,
  ) {}

  /**
   * @throws NotFoundError for an unknown endpoint.
   */
  async state(endpointId: number): Promise<TransformationState> {
    const endpoint = await this.requireEndpoint(endpointId);
    const rows = await this.versions.latest(endpointId, TRANSFORMATION_HISTORY_LIMIT);
    const current =
      endpoint.transformationVersion === null
        ? null
        : (rows.find((r) => r.version === endpoint.transformationVersion) ??
          (await this.findVersion(endpointId, endpoint.transformationVersion)));
    return {
      endpoint_id: endpointId,
      current: current ? detail(current) : null,
      versions: rows.map(summary),
    };
  }

  /**
   * One saved version with its code; `null`: the version in force.
   * @throws NotFoundError for an unknown endpoint or version, or (`null`) when none is in force.
   */
  async version(endpointId: number, version: number | null): Promise<TransformationVersionDetail> {
    const endpoint = await this.requireEndpoint(endpointId);
    const wanted = version ?? endpoint.transformationVersion;
    if (wanted === null) {
      throw new NotFoundError(`webhook endpoint ${endpointId} has no transformation in force`);
    }
    const row = await this.findVersion(endpointId, wanted);
    if (!row) throw versionNotFound(endpointId, wanted);
    return detail(row);
  }

  /**
   * Checks `code` and saves it as the endpoint's next version, in force at once for the
   * attempts that start after the commit.
   * @throws InvalidInputError (field `transformation`) for code that is not a string, is empty,
   *   holds NUL, is over 64 KiB, does not parse, defines no `handler` function, or exceeds a
   *   limit (time, memory, output, stack) on the example of one of the endpoint's event types;
   *   the message names the line and column when known. NotFoundError for an unknown endpoint.
   */
  async save(endpointId: number, code: unknown, actor?: AuditActor): Promise<TransformationState> {
    const endpoint = await this.requireEndpoint(endpointId);
    const checked = await this.check(endpoint, code);
    await this.saveVersion(endpoint, checked, null, 'transformation.save', actor);
    return this.state(endpointId);
  }

  /**
   * Saves version `version`'s code again as the endpoint's next version (a restore keeps the
   * history: nothing is deleted), checked as {@link save} does.
   * @throws NotFoundError for an unknown endpoint or version; InvalidInputError as {@link save}.
   */
  async restore(
    endpointId: number,
    version: number,
    actor?: AuditActor,
  ): Promise<TransformationState> {
    const endpoint = await this.requireEndpoint(endpointId);
    const row = await this.findVersion(endpointId, version);
    if (!row) throw versionNotFound(endpointId, version);
    const checked = await this.check(endpoint, row.code);
    await this.saveVersion(endpoint, checked, version, 'transformation.restore', actor);
    return this.state(endpointId);
  }

  /**
   * Takes the transformation out of force: requests are sent as the events are again. The
   * versions stay in the history. Nothing is recorded when there was none in force.
   * @throws NotFoundError for an unknown endpoint.
   */
  async clear(endpointId: number, actor?: AuditActor): Promise<TransformationState> {
    const endpoint = await this.requireEndpoint(endpointId);
    if (endpoint.transformationVersion !== null) {
      const accountId = await this.accountOf(actor, endpoint.campaignId);
      await this.dataSource.transaction(async (manager) => {
        await this.versions.clear(manager, endpointId);
        await this.audit.recordChange(
          actor,
          {
            accountId,
            action: 'transformation.clear',
            objectType: 'endpoint',
            objectId: endpointId,
            details: { previous_version: endpoint.transformationVersion },
          },
          manager,
        );
      });
    }
    return this.state(endpointId);
  }

  /**
   * The code as given, checked (docs/webhooks.md#transformations): see {@link save}.
   * @throws InvalidInputError (field `transformation`).
   */
  private async check(endpoint: WebhookEndpoint, code: unknown): Promise<string> {
    if (typeof code !== 'string') throw invalid('must be a string of JavaScript');
    if (code.trim() === '') {
      throw invalid('must not be empty: clear the transformation instead');
    }
    if (code.includes('\u0000')) throw invalid('must not contain NUL characters');
    const bytes = Buffer.byteLength(code, 'utf8');
    if (bytes > TRANSFORMATION_MAX_CODE_BYTES) {
      throw invalid(
        `is ${Math.ceil(bytes / 1024)} KiB; at most ${TRANSFORMATION_MAX_CODE_BYTES / 1024} KiB`,
      );
    }
    const headers: CustomHeaderToSend[] = (endpoint.customHeaders ?? []).flatMap((h) =>
      h.secret ? [] : [{ name: h.name, value: h.value, secret: false }],
    );
    const samples = endpoint.subscribedEvents.filter(isEventType).map((type) =>
      transformationInput(
        { url: endpoint.url, headers },
        type,
        JSON.stringify({
          type,
          timestamp: new Date(0).toISOString(),
          data: EVENT_EXAMPLES[type],
        }),
      ),
    );
    const problem = await this.sandbox.check(code, samples);
    if (problem) throw invalid(describeTransformationFailure(problem));
    return code;
  }

  private async saveVersion(
    endpoint: WebhookEndpoint,
    code: string,
    restoredFrom: number | null,
    action: 'transformation.save' | 'transformation.restore',
    actor?: AuditActor,
  ): Promise<void> {
    const accountId = await this.accountOf(actor, endpoint.campaignId);
    await this.dataSource.transaction(async (manager) => {
      // The endpoint's row lock orders concurrent saves: each gets the next version.
      const previous = await this.versions.lockEndpoint(manager, endpoint.id);
      if (previous === undefined) throw endpointNotFound(endpoint.id);
      const next = await this.versions.addVersion(
        manager,
        endpoint.id,
        code,
        createdBy(actor),
        restoredFrom,
      );
      await this.audit.recordChange(
        actor,
        {
          accountId,
          action,
          objectType: 'endpoint',
          objectId: endpoint.id,
          details: {
            version: next,
            previous_version: previous,
            ...(restoredFrom === null ? {} : { restored_from: restoredFrom }),
            bytes: Buffer.byteLength(code, 'utf8'),
          },
        },
        manager,
      );
    });
  }

  private findVersion(endpointId: number, version: number): Promise<TransformationVersion | null> {
    if (!Number.isSafeInteger(version) || version < 1 || version > MAX_INT4) {
      return Promise.resolve(null);
    }
    return this.versions.find(endpointId, version);
  }

  private async requireEndpoint(endpointId: number): Promise<WebhookEndpoint> {
    const endpoint =
      endpointId > MAX_INT4
        ? null
        : await this.dataSource.getRepository(WebhookEndpoint).findOneBy({ id: endpointId });
    if (!endpoint) throw endpointNotFound(endpointId);
    return endpoint;
  }

  private async accountOf(actor: AuditActor | undefined, campaignId: number) {
    if (!actor) return null;
    return actor.type === 'user' ? actor.accountId : this.campaigns.accountOf(campaignId);
  }
}

function createdBy(actor: AuditActor | undefined): string | null {
  if (!actor) return null;
  return actor.type === 'user' ? actor.email : 'cli';
}

function summary(row: TransformationVersion): TransformationVersionSummary {
  return {
    version: row.version,
    created_at: row.createdAt.toISOString(),
    created_by: row.createdBy,
    restored_from: row.restoredFrom,
    bytes: Buffer.byteLength(row.code, 'utf8'),
  };
}

function detail(row: TransformationVersion): TransformationVersionDetail {
  return { ...summary(row), code: row.code };
}

function invalid(problem: string): InvalidInputError {
  return InvalidInputError.field('transformation', problem);
}

function endpointNotFound(id: number): NotFoundError {
  return new NotFoundError(`webhook endpoint ${id} does not exist`);
}

function versionNotFound(endpointId: number, version: number): NotFoundError {
  return new NotFoundError(
    `webhook endpoint ${endpointId} has no transformation version ${version}`,
  );
}
