import type { Client } from 'pg';
import type { Deployment } from './deployment';
import { isErrorEnvelope, phoneAt } from './http-client';

/**
 * Errors of attempts that may have no receiver copy: the request never reached the receiver,
 * or nobody knows whether it did (the process stopped before recording the result).
 */
export const NO_COPY_EXPECTED =
  /outcome unknown|refused|ECONNREFUSED|ECONNRESET|EPIPE|socket hang up|other side closed|UND_ERR_SOCKET|UND_ERR_CLOSED|connect/i;

/** What a scenario allows besides the defaults. */
export interface CheckOptions {
  /** Upload statuses allowed besides 202 (e.g. 503 during a PostgreSQL outage). */
  uploadStatuses?: number[];
  /** Whether an upload may end without an answer (then all of its leads or none may exist). */
  uploadsMayGoUnanswered?: boolean;
  /** The event types the endpoint gets (default `lead.created` only); others are foreign. */
  eventTypes?: string[];
  /**
   * Whether a delivery may end failed for good (its receiver failing at random): then one
   * whose every attempt was recorded and failed is accounted for, not lost.
   */
  mayFailForGood?: boolean;
}

/** Figures of one deployment after the scenario settled (see results.ts for the columns). */
export interface Figures {
  leads: number;
  deliveries: number;
  deliveriesSucceeded: number;
  deliveriesPending: number;
  deliveriesFailed: number;
  copies: number;
  distinctIds: number;
  duplicates: number;
  duplicates2xx: number;
  attempts: number;
  failedAttempts: number;
  unfinishedAttempts: number;
  unrecordedCopies: number;
  uploads: string;
}

export interface CheckResult {
  figures: Figures;
  violations: string[];
}

const count = async (db: Client, sql: string, params: unknown[] = []): Promise<number> =>
  Number((await db.query(sql, params)).rows[0].n);

/** Whether the attempt log has `finished_at` (attempts recorded before they are sent). */
export async function hasFinishedAt(db: Client): Promise<boolean> {
  return (
    (await count(
      db,
      `SELECT count(*) AS n FROM information_schema.columns
        WHERE table_schema = 'public' AND table_name = 'webhook_delivery_attempt' AND column_name = 'finished_at'`,
    )) > 0
  );
}

/**
 * The invariants, on the deployment's database once every process stopped:
 * zero lost, nothing partial, every send recorded, health equal to the attempt log,
 * no attempt left unfinished, exit code 0 for every SIGTERM. Returns every violation at once.
 */
export async function checkDeployment(
  dep: Deployment,
  options: CheckOptions = {},
): Promise<CheckResult> {
  const db = dep.db!;
  const violations: string[] = [];
  const finishedCol = await hasFinishedAt(db);
  const finished = finishedCol ? 'finished_at IS NOT NULL' : 'true';

  // Zero lost: every delivery succeeded, every lead has its lead.created delivery.
  const statuses = new Map<string, number>(
    (
      await db.query('SELECT status, count(*)::int AS n FROM webhook_delivery GROUP BY status')
    ).rows.map((r: { status: string; n: number }) => [r.status, r.n]),
  );
  const deliveries = [...statuses.values()].reduce((a, b) => a + b, 0);
  const succeeded = statuses.get('succeeded') ?? 0;
  // Failed for good, each attempt recorded and failed: accounted for where that is allowed.
  const failedForGood = options.mayFailForGood
    ? await count(
        db,
        `SELECT count(*) AS n FROM webhook_delivery d
          WHERE d.status = 'failed'
            AND d.attempt_count = (SELECT count(*) FROM webhook_delivery_attempt a
                                    WHERE a.delivery_id = d.id AND NOT a.success AND ${finished})`,
      )
    : 0;
  if (succeeded + failedForGood !== deliveries) {
    violations.push(
      `lost: ${deliveries - succeeded - failedForGood} of ${deliveries} deliveries not succeeded (${[
        ...statuses,
      ]
        .filter(([s]) => s !== 'succeeded')
        .map(([s, c]) => `${c} ${s}`)
        .join(
          ', ',
        )}${failedForGood > 0 ? `; ${failedForGood} failed for good, accounted for` : ''})`,
    );
  }
  const leads = await count(db, 'SELECT count(*) AS n FROM lead WHERE campaign_id = $1', [
    dep.campaignId,
  ]);
  const withoutDelivery = await count(
    db,
    `WITH delivered AS MATERIALIZED (
       SELECT DISTINCT (e.body::jsonb -> 'data' ->> 'id')::bigint AS lead_id
         FROM webhook_event e JOIN webhook_delivery d ON d.event_id = e.id
        WHERE e.campaign_id = $1 AND e.type = 'lead.created' AND d.endpoint_id = $2)
     SELECT count(*) AS n FROM lead l LEFT JOIN delivered x ON x.lead_id = l.id
      WHERE l.campaign_id = $1 AND x.lead_id IS NULL`,
    [dep.campaignId, dep.endpointId],
  );
  if (withoutDelivery > 0)
    violations.push(`lost: ${withoutDelivery} of ${leads} leads have no lead.created delivery`);
  const eventTypes = options.eventTypes ?? ['lead.created'];
  const foreignDeliveries =
    deliveries -
    (await count(
      db,
      `SELECT count(*) AS n FROM webhook_delivery d JOIN webhook_event e ON e.id = d.event_id
      WHERE e.type = ANY($3) AND e.campaign_id = $1 AND d.endpoint_id = $2`,
      [dep.campaignId, dep.endpointId, eventTypes],
    ));
  if (foreignDeliveries !== 0)
    violations.push(
      `${foreignDeliveries} deliveries other than the campaign's ${eventTypes.join(', ')}`,
    );

  // Nothing partial: each upload all or nothing, as its answer says.
  violations.push(...(await checkUploads(db, dep, options)));
  const partialImports = (
    await db.query(
      `SELECT li.id, li.valid_count - li.duplicate_count AS expected, count(l.id)::int AS stored
         FROM lead_import li LEFT JOIN lead l ON l.import_id = li.id
        GROUP BY li.id HAVING count(l.id) <> li.valid_count - li.duplicate_count`,
    )
  ).rows;
  for (const row of partialImports.slice(0, 5)) {
    violations.push(
      `partial: import ${row.id} has ${row.stored} leads, its record says ${row.expected}`,
    );
  }
  const orphans = await count(
    db,
    'SELECT count(*) AS n FROM lead l WHERE NOT EXISTS (SELECT 1 FROM lead_import li WHERE li.id = l.import_id)',
  );
  if (orphans > 0) violations.push(`partial: ${orphans} leads without their import record`);

  // What the receiver saw: each id known here, signed right, and accepted (2xx) once delivered.
  const copies = dep.receiver.copies;
  const byId = dep.receiver.countsById();
  const eventIds = new Set<string>(
    (await db.query('SELECT id::text AS id FROM webhook_event')).rows.map(
      (r: { id: string }) => r.id,
    ),
  );
  const foreign = [...byId.keys()].filter((id) => !eventIds.has(id));
  if (foreign.length > 0) {
    violations.push(
      `${foreign.length} webhook-ids at the receiver are not events of this deployment (e.g. ${foreign[0]})`,
    );
  }
  const unverified = copies.filter((c) => c.verified === false).length;
  if (unverified > 0)
    violations.push(`${unverified} receiver copies failed signature verification`);
  const accepted = dep.receiver.acceptedIds();
  const succeededIds: string[] = (
    await db.query(
      `SELECT e.id::text AS id FROM webhook_delivery d JOIN webhook_event e ON e.id = d.event_id WHERE d.status = 'succeeded'`,
    )
  ).rows.map((r: { id: string }) => r.id);
  const neverAccepted = succeededIds.filter((id) => !accepted.has(id));
  if (neverAccepted.length > 0) {
    violations.push(
      `${neverAccepted.length} deliveries marked succeeded were never answered 2xx by the receiver`,
    );
  }

  // Every send recorded: copies ≤ attempts per webhook-id; the surplus only for sends that failed to connect or whose outcome is unknown.
  const attemptsById = new Map<string, { n: number; noCopy: number }>(
    (
      await db.query(
        `SELECT message_id, count(*)::int AS n, count(*) FILTER (WHERE error ~* $1)::int AS no_copy
           FROM webhook_delivery_attempt GROUP BY message_id`,
        [NO_COPY_EXPECTED.source],
      )
    ).rows.map((r: { message_id: string; n: number; no_copy: number }) => [
      r.message_id,
      { n: r.n, noCopy: r.no_copy },
    ]),
  );
  let unrecordedCopies = 0;
  const unrecordedExamples: string[] = [];
  for (const [id, received] of byId) {
    const recorded = attemptsById.get(id)?.n ?? 0;
    if (received > recorded) {
      unrecordedCopies += received - recorded;
      if (unrecordedExamples.length < 3)
        unrecordedExamples.push(`${id}: ${received} copies, ${recorded} attempts`);
    }
  }
  if (unrecordedCopies > 0) {
    const ids = [...byId].filter(([id, c]) => c > (attemptsById.get(id)?.n ?? 0)).length;
    violations.push(
      `unrecorded: ${unrecordedCopies} receiver copies of ${ids} webhook-ids have no attempt recorded (${unrecordedExamples.join('; ')})`,
    );
  }
  let unexplained = 0;
  const unexplainedExamples: string[] = [];
  for (const [id, recorded] of attemptsById) {
    const surplus = recorded.n - (byId.get(id) ?? 0);
    if (surplus > recorded.noCopy) {
      unexplained += surplus - recorded.noCopy;
      if (unexplainedExamples.length < 3) unexplainedExamples.push(id);
    }
  }
  if (unexplained > 0) {
    const samples = (
      await db.query(
        `SELECT DISTINCT coalesce(error, CASE WHEN success THEN 'success' ELSE 'no error text' END) AS error
           FROM webhook_delivery_attempt WHERE message_id = ANY($1) LIMIT 5`,
        [unexplainedExamples],
      )
    ).rows.map((r: { error: string }) => r.error);
    violations.push(
      `phantom attempts: ${unexplained} attempts recorded beyond the receiver's copies without a connection failure or unknown outcome (errors: ${samples.join(' | ')})`,
    );
  }

  // Health equals the attempt log (finished attempts), and nothing stays in flight.
  const health = (
    await db.query(
      `SELECT e.id, e.total_deliveries AS total, e.successful_deliveries AS ok, e.failed_deliveries AS failed,
              count(a.id) FILTER (WHERE ${finished})::int AS log_total,
              count(a.id) FILTER (WHERE ${finished} AND a.success)::int AS log_ok,
              count(a.id) FILTER (WHERE ${finished} AND NOT a.success)::int AS log_failed,
              count(a.id) FILTER (WHERE NOT (${finished}))::int AS unfinished
         FROM webhook_endpoint e LEFT JOIN webhook_delivery_attempt a ON a.endpoint_id = e.id
        GROUP BY e.id ORDER BY e.id`,
    )
  ).rows as Array<Record<string, number>>;
  let attempts = 0;
  let failedAttempts = 0;
  let unfinished = 0;
  for (const h of health) {
    attempts += h.log_total + h.unfinished;
    failedAttempts += h.log_failed;
    unfinished += h.unfinished;
    if (h.total !== h.log_total || h.ok !== h.log_ok || h.failed !== h.log_failed) {
      violations.push(
        `health ≠ attempt log for endpoint ${h.id}: health ${h.total} total / ${h.ok} ok / ${h.failed} failed, ` +
          `log ${h.log_total} / ${h.log_ok} / ${h.log_failed}`,
      );
    }
  }
  if (unfinished > 0)
    violations.push(`${unfinished} attempts still unfinished (finished_at NULL) after settling`);

  // Every process stopped with SIGTERM exited 0 by itself.
  for (const stop of dep.stops) {
    if (stop.code !== 0 || stop.forced) {
      violations.push(
        `${stop.process} did not exit 0 after SIGTERM: ${stop.signal ?? `code ${stop.code}`} after ${stop.ms} ms${stop.forced ? ' (hung: SIGKILLed by the harness)' : ''}`,
      );
    }
  }

  const acceptedCopies = copies.filter((c) => c.status !== null && c.status < 300).length;
  const statusesSeen = new Map<string, number>();
  for (const u of dep.uploads) {
    const key = String(u.answer.status ?? 'no answer');
    statusesSeen.set(key, (statusesSeen.get(key) ?? 0) + 1);
  }
  return {
    violations,
    figures: {
      leads,
      deliveries,
      deliveriesSucceeded: succeeded,
      deliveriesPending: statuses.get('pending') ?? 0,
      deliveriesFailed: statuses.get('failed') ?? 0,
      copies: copies.length,
      distinctIds: byId.size,
      duplicates: copies.length - byId.size,
      duplicates2xx: acceptedCopies - accepted.size,
      attempts,
      failedAttempts,
      unfinishedAttempts: unfinished,
      unrecordedCopies,
      uploads: [...statusesSeen].map(([s, c]) => `${c}×${s}`).join(', ') || 'none',
    },
  };
}

/** Each upload's leads, by its phone range: all there after a 202, none after an error, never part. */
async function checkUploads(db: Client, dep: Deployment, options: CheckOptions): Promise<string[]> {
  const violations: string[] = [];
  const allowed = new Set([202, ...(options.uploadStatuses ?? [])]);
  for (const upload of dep.uploads) {
    const phones = Array.from({ length: upload.count }, (_, i) => phoneAt(upload.firstIndex + i));
    const { rows } = await db.query(
      `SELECT count(*)::int AS n, count(DISTINCT import_id)::int AS imports, min(import_id::text) AS import_id
         FROM lead WHERE campaign_id = $1 AND phone = ANY($2)`,
      [dep.campaignId, phones],
    );
    const {
      n,
      imports,
      import_id: importId,
    } = rows[0] as { n: number; imports: number; import_id: string | null };
    const { status, json, error } = upload.answer;
    const label = `${dep.prefixed(upload.label)} (${upload.count} leads, answer ${status ?? error})`;
    if (status !== null && !allowed.has(status)) {
      violations.push(
        `${label}: status ${status} not allowed here (${[...allowed].join(', ')}): ${upload.answer.text.slice(0, 200)}`,
      );
    }
    if (status !== null && status !== 202 && !isErrorEnvelope(json)) {
      violations.push(
        `${label}: error answer not in the {error, message} envelope: ${upload.answer.text.slice(0, 200)}`,
      );
    }
    if (
      status === 503 &&
      (json as { error?: string } | undefined)?.error !== 'service_unavailable'
    ) {
      violations.push(
        `${label}: 503 without error "service_unavailable": ${upload.answer.text.slice(0, 200)}`,
      );
    }
    if (status === null && !options.uploadsMayGoUnanswered)
      violations.push(`${label}: no answer (${error})`);
    if (status === 202) {
      const body = json as { import_id?: string; valid_count?: number };
      if (n !== upload.count)
        violations.push(`partial: ${label} has ${n} of its ${upload.count} leads stored`);
      if (imports > 1) violations.push(`partial: ${label}'s leads belong to ${imports} imports`);
      if (n > 0 && importId !== body.import_id) {
        violations.push(
          `${label}: leads stored under import ${importId}, the 202 said ${body.import_id}`,
        );
      }
      if (body.valid_count !== upload.count)
        violations.push(`${label}: 202 with valid_count ${body.valid_count}`);
      const stored = await count(db, 'SELECT count(*) AS n FROM lead_import WHERE id = $1', [
        body.import_id,
      ]);
      if (stored !== 1) violations.push(`${label}: no lead_import ${body.import_id} after its 202`);
    } else if (status !== null) {
      if (n !== 0)
        violations.push(`partial: ${label} was refused but ${n} of its leads are stored`);
    } else if (n !== 0 && (n !== upload.count || imports !== 1)) {
      violations.push(
        `partial: ${label} went unanswered and ${n} of its ${upload.count} leads are stored`,
      );
    }
  }
  const allPhones = dep.uploads.flatMap((u) =>
    Array.from({ length: u.count }, (_, i) => phoneAt(u.firstIndex + i)),
  );
  const outside = await count(
    db,
    'SELECT count(*) AS n FROM lead WHERE campaign_id = $1 AND NOT (phone = ANY($2))',
    [dep.campaignId, allPhones],
  );
  if (outside > 0)
    violations.push(`${outside} leads stored outside the phone ranges of the uploads sent`);
  return violations;
}
