import { readFile, stat } from 'node:fs/promises';
import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { CLI_ACTOR } from '../audit/audit-log.service';
import { InvalidInputError } from '../common/domain-error';
import { DeliveryAttemptsModule, DeliveryService } from '../delivery/attempts';
import { EndpointTransformations, WebhookEndpointsModule } from '../webhooks';
import {
  WebhookEndpointAdmin,
  type EndpointChanges,
  type NewSigningKey,
} from '../webhooks/webhook-endpoint-admin.service';
import { TRANSFORMATION_MAX_CODE_BYTES } from '../transformations';
import { isSignatureScheme, SIGNATURE_SCHEMES } from '../webhooks/signature-schemes.constants';
import type { CustomHeaderInput } from '../webhooks/custom-headers';
import {
  THROTTLE_IN_FLIGHT_BOUNDS,
  THROTTLE_RATE_BOUNDS,
} from '../webhooks/endpoint-limits.constants';
import { CommandGroup, type CliGroup } from './cli-group';
import { positiveIntOption, printJson, requiredOption } from './cli-io';

function eventList(value: string): string[] {
  return value.split(',').map((item) => item.trim());
}

/**
 * The value of `--signature-scheme`.
 * @throws InvalidInputError unless it is `symmetric` or `asymmetric`.
 */
function signatureSchemeOption(value: string): string {
  if (!isSignatureScheme(value)) {
    throw new InvalidInputError(
      `--signature-scheme must be one of ${SIGNATURE_SCHEMES.join(', ')}, got "${value}"`,
    );
  }
  return value;
}

/** What a new key shows: `secret` for `symmetric`, `public_key` for `asymmetric` (never both). */
function shownKey(key: NewSigningKey): { secret: string } | { public_key: string } {
  return key.secret !== null ? { secret: key.secret } : { public_key: key.public_key! };
}

/** Collects the values of a repeatable option, in the order given. */
function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/**
 * The custom headers of `--header 'Name: value'` and `--secret-header 'Name: value'` options
 * (docs/cli.md#custom-headers): the plain ones first, then the secret ones, each in the order
 * given. A `--secret-header Name` without a colon keeps the value stored under that name.
 * @returns undefined when neither option is given.
 * @throws InvalidInputError for a `--header` without a colon.
 */
export function headerOptions(
  plain: string[] | undefined,
  secret: string[] | undefined,
): CustomHeaderInput[] | undefined {
  if (plain === undefined && secret === undefined) return undefined;
  const split = (option: string, isSecret: boolean): CustomHeaderInput => {
    const colon = option.indexOf(':');
    if (colon < 0) {
      if (isSecret) return { name: option.trim(), secret: true };
      throw new InvalidInputError(`--header must be "Name: value", got ${JSON.stringify(option)}`);
    }
    return { name: option.slice(0, colon), value: option.slice(colon + 1), secret: isSecret };
  };
  return [
    ...(plain ?? []).map((option) => split(option, false)),
    ...(secret ?? []).map((option) => split(option, true)),
  ];
}

/**
 * A throttle limit as typed (docs/webhooks.md#throttling): `none` for no limit (null), else a
 * whole number within the limit's bounds; undefined when not given.
 * @throws InvalidInputError naming the flag and what it takes, for anything else.
 */
function throttleOption(
  flag: '--max-per-second' | '--max-in-flight',
  value: string | undefined,
): number | null | undefined {
  if (value === undefined) return undefined;
  const typed = value.trim();
  if (typed.toLowerCase() === 'none') return null;
  const { min, max } =
    flag === '--max-in-flight' ? THROTTLE_IN_FLIGHT_BOUNDS : THROTTLE_RATE_BOUNDS;
  const limit = /^\d{1,7}$/.test(typed) ? Number(typed) : NaN;
  if (!(limit >= min && limit <= max)) {
    throw new InvalidInputError(
      `${flag} must be a whole number from ${min} to ${max.toLocaleString('en')}, ` +
        `or "none" for no limit; got ${JSON.stringify(value)}`,
    );
  }
  return limit;
}

/**
 * The delivery options shared by `endpoint create` and `endpoint update`: the throttle's
 * `--max-per-second` and `--max-in-flight` (docs/webhooks.md#throttling), `--ordering`
 * (docs/webhooks.md#per-lead-ordering) and `--auto-recover` / `--no-auto-recover`
 * (docs/webhooks.md#endpoints-that-come-back-by-themselves).
 */
abstract class DeliveryOptionsCommand extends CommandRunner {
  @Option({
    flags: '--auto-recover',
    description: 'Come back by itself: probe once disabled auto, enable again on a 2xx',
  })
  parseAutoRecover(): boolean {
    return true;
  }

  @Option({ flags: '--no-auto-recover', description: 'Stay disabled until enabled by hand' })
  parseNoAutoRecover(): boolean {
    return false;
  }

  @Option({
    flags: '--ordering <order>',
    description: "none (the default) or per_lead: each lead's deliveries one after another",
  })
  parseOrdering(value: string): string {
    return value;
  }

  @Option({
    flags: '--max-per-second <n>',
    description: 'Most deliveries per second, 1-1000 ("none": no limit)',
  })
  parseMaxPerSecond(value: string): string {
    return value;
  }

  @Option({
    flags: '--max-in-flight <n>',
    description: 'Most attempts in flight at once, 1-100 ("none": no limit)',
  })
  parseMaxInFlight(value: string): string {
    return value;
  }
}

interface EndpointCreateOptions {
  campaign?: string;
  url?: string;
  events?: string;
  description?: string;
  disabled?: boolean;
  signatureScheme?: string;
  header?: string[];
  secretHeader?: string[];
  maxPerSecond?: string;
  maxInFlight?: string;
  ordering?: string;
  /** `--auto-recover` / `--no-auto-recover` (docs/webhooks.md#endpoints-that-come-back-by-themselves). */
  autoRecover?: boolean;
  filter?: string;
}

/**
 * `endpoint create --campaign ID --url URL --events T1,T2 [--description D] [--disabled]
 * [--signature-scheme symmetric|asymmetric] [--header 'Name: value']… [--secret-header 'Name: value']…
 * [--max-per-second N] [--max-in-flight N] [--ordering none|per_lead] [--auto-recover]` → the
 * endpoint with its custom headers plus `secret`,
 * [--max-per-second N] [--max-in-flight N] [--filter EXPR]` → the endpoint with its custom headers plus `secret`,
 * the only time the signing secret and secret header values are shown; an `asymmetric` endpoint
 * has no `secret` to show, and gets `signature_scheme` and its `public_key` instead (docs/cli.md).
 */
@SubCommand({
  name: 'create',
  description: 'Create a webhook endpoint (prints its signing secret once)',
})
export class EndpointCreateCommand extends DeliveryOptionsCommand {
  constructor(private readonly endpoints: WebhookEndpointAdmin) {
    super();
  }

  async run(_params: string[], options: EndpointCreateOptions): Promise<void> {
    const { endpoint, ...key } = await this.endpoints.create(
      positiveIntOption(options.campaign, '--campaign'),
      {
        url: requiredOption(options.url, '--url'),
        events: eventList(requiredOption(options.events, '--events')),
        description: options.description ?? null,
        enabled: !options.disabled,
        signatureScheme:
          options.signatureScheme === undefined
            ? undefined
            : signatureSchemeOption(options.signatureScheme),
        headers: headerOptions(options.header, options.secretHeader),
        maxDeliveriesPerSecond: throttleOption('--max-per-second', options.maxPerSecond),
        maxInFlight: throttleOption('--max-in-flight', options.maxInFlight),
        ordering: options.ordering,
        autoRecover: options.autoRecover,
        filter: options.filter ?? null,
      },
      CLI_ACTOR,
    );
    printJson({ ...endpoint, ...shownKey(key) });
  }

  @Option({ flags: '--campaign <id>', description: 'Campaign id', required: true })
  parseCampaign(value: string): string {
    return value;
  }

  @Option({ flags: '--url <url>', description: 'Destination (http or https)', required: true })
  parseUrl(value: string): string {
    return value;
  }

  @Option({ flags: '--events <types>', description: 'Comma-separated event types', required: true })
  parseEvents(value: string): string {
    return value;
  }

  @Option({ flags: '--description <text>', description: 'Optional label' })
  parseDescription(value: string): string {
    return value;
  }

  @Option({ flags: '--disabled', description: 'Create it disabled' })
  parseDisabled(): boolean {
    return true;
  }

  @Option({
    flags: '--signature-scheme <scheme>',
    description: 'symmetric (HMAC v1, the default) or asymmetric (ed25519 v1a)',
  })
  parseSignatureScheme(value: string): string {
    return value;
  }

  @Option({
    flags: '--header <header>',
    description: "Custom header 'Name: value' sent with every request (repeatable)",
  })
  parseHeader(value: string, previous?: string[]): string[] {
    return collect(value, previous);
  }

  @Option({
    flags: '--secret-header <header>',
    description: "Custom header 'Name: value' whose value is encrypted and masked (repeatable)",
  })
  parseSecretHeader(value: string, previous?: string[]): string[] {
    return collect(value, previous);
  }

  @Option({
    flags: '--filter <expr>',
    description:
      'Payload filter: a CEL expression over the event (docs/webhooks.md#payload-filters)',
  })
  parseFilter(value: string): string {
    return value;
  }
}

interface EndpointUpdateOptions {
  id?: string;
  url?: string;
  events?: string;
  description?: string;
  enable?: boolean;
  disable?: boolean;
  header?: string[];
  secretHeader?: string[];
  clearHeaders?: boolean;
  maxPerSecond?: string;
  maxInFlight?: string;
  ordering?: string;
  /** `--auto-recover` / `--no-auto-recover` (docs/webhooks.md#endpoints-that-come-back-by-themselves). */
  autoRecover?: boolean;
  /** The expression; false for `--no-filter`. */
  filter?: string | false;
}

/**
 * `endpoint update --id ID [--url] [--events] [--description] [--enable|--disable]
 * [--header 'Name: value']… [--secret-header 'Name[: value]']… [--clear-headers]
 * [--max-per-second N|none] [--max-in-flight N|none] [--ordering none|per_lead]
 * [--auto-recover|--no-auto-recover]` → the endpoint. Header options replace the
 * whole list (docs/cli.md#custom-headers).
 * [--max-per-second N|none] [--max-in-flight N|none] [--filter EXPR|--no-filter]` → the endpoint.
 * Header options replace the whole list (docs/cli.md#custom-headers); `--filter ""` or
 * `--no-filter` removes the payload filter (docs/webhooks.md#payload-filters).
 */
@SubCommand({ name: 'update', description: 'Change a webhook endpoint' })
export class EndpointUpdateCommand extends DeliveryOptionsCommand {
  constructor(private readonly endpoints: WebhookEndpointAdmin) {
    super();
  }

  async run(_params: string[], options: EndpointUpdateOptions): Promise<void> {
    if (options.enable && options.disable)
      throw new InvalidInputError('--enable and --disable cannot be used together');
    const headers = headerOptions(options.header, options.secretHeader);
    if (options.clearHeaders && headers !== undefined)
      throw new InvalidInputError(
        '--clear-headers cannot be used with --header or --secret-header',
      );
    const changes: EndpointChanges = {
      url: options.url,
      events: options.events === undefined ? undefined : eventList(options.events),
      description: options.description,
      enabled: options.enable ? true : options.disable ? false : undefined,
      headers: options.clearHeaders ? [] : headers,
      maxDeliveriesPerSecond: throttleOption('--max-per-second', options.maxPerSecond),
      maxInFlight: throttleOption('--max-in-flight', options.maxInFlight),
      ordering: options.ordering,
      autoRecover: options.autoRecover,
      filter: options.filter === false ? null : options.filter,
    };
    if (Object.values(changes).every((value) => value === undefined)) {
      throw new InvalidInputError(
        'nothing to change: give --url, --events, --description, --enable, --disable, header options, --max-per-second, --max-in-flight, --ordering, --auto-recover, --no-auto-recover, --filter or --no-filter',
      );
    }
    printJson(
      await this.endpoints.update(positiveIntOption(options.id, '--id'), changes, CLI_ACTOR),
    );
  }

  @Option({ flags: '--id <id>', description: 'Endpoint id', required: true })
  parseId(value: string): string {
    return value;
  }

  @Option({ flags: '--url <url>', description: 'New destination' })
  parseUrl(value: string): string {
    return value;
  }

  @Option({ flags: '--events <types>', description: 'New comma-separated event types' })
  parseEvents(value: string): string {
    return value;
  }

  @Option({ flags: '--description <text>', description: 'New label ("" clears it)' })
  parseDescription(value: string): string {
    return value;
  }

  @Option({ flags: '--enable', description: 'Resume deliveries' })
  parseEnable(): boolean {
    return true;
  }

  @Option({ flags: '--disable', description: 'Stop deliveries' })
  parseDisable(): boolean {
    return true;
  }

  @Option({
    flags: '--header <header>',
    description: "Custom header 'Name: value'; header options replace the list (repeatable)",
  })
  parseHeader(value: string, previous?: string[]): string[] {
    return collect(value, previous);
  }

  @Option({
    flags: '--secret-header <header>',
    description: "Secret custom header 'Name: value', or 'Name' to keep its value (repeatable)",
  })
  parseSecretHeader(value: string, previous?: string[]): string[] {
    return collect(value, previous);
  }

  @Option({ flags: '--clear-headers', description: 'Remove every custom header' })
  parseClearHeaders(): boolean {
    return true;
  }

  @Option({
    flags: '--filter <expr>',
    description: 'New payload filter, a CEL expression ("" removes it)',
  })
  parseFilter(value: string): string {
    return value;
  }

  @Option({ flags: '--no-filter', description: 'Remove the payload filter' })
  parseNoFilter(): boolean {
    return false;
  }
}

/** `endpoint delete --id ID` → `{id, deleted: true}` (its deliveries and attempts go too). */
@SubCommand({ name: 'delete', description: 'Delete a webhook endpoint' })
export class EndpointDeleteCommand extends CommandRunner {
  constructor(private readonly endpoints: WebhookEndpointAdmin) {
    super();
  }

  async run(_params: string[], options: { id?: string }): Promise<void> {
    printJson(await this.endpoints.delete(positiveIntOption(options.id, '--id'), CLI_ACTOR));
  }

  @Option({ flags: '--id <id>', description: 'Endpoint id', required: true })
  parseId(value: string): string {
    return value;
  }
}

/**
 * `endpoint rotate-secret --id ID` → `{id, secret}`, or `{id, public_key}` for an `asymmetric`
 * endpoint (a new ed25519 key pair); the previous key stays valid 24 hours.
 */
@SubCommand({
  name: 'rotate-secret',
  description: 'Replace the signing secret (old one valid 24 h)',
})
export class EndpointRotateSecretCommand extends CommandRunner {
  constructor(private readonly endpoints: WebhookEndpointAdmin) {
    super();
  }

  async run(_params: string[], options: { id?: string }): Promise<void> {
    const rotated = await this.endpoints.rotateSecret(
      positiveIntOption(options.id, '--id'),
      CLI_ACTOR,
    );
    printJson({ id: rotated.id, ...shownKey(rotated) });
  }

  @Option({ flags: '--id <id>', description: 'Endpoint id', required: true })
  parseId(value: string): string {
    return value;
  }
}

/**
 * `endpoint change-scheme --id ID --signature-scheme symmetric|asymmetric` →
 * `{id, signature_scheme, secret | public_key, previous_secret_expires_at}`: a new key of that
 * scheme signs from now on, the current one keeps signing 24 hours
 * (docs/webhooks.md#changing-the-signature-scheme).
 */
@SubCommand({
  name: 'change-scheme',
  description: 'Switch to the other signature scheme (old key valid 24 h)',
})
export class EndpointChangeSchemeCommand extends CommandRunner {
  constructor(private readonly endpoints: WebhookEndpointAdmin) {
    super();
  }

  async run(_params: string[], options: { id?: string; signatureScheme?: string }): Promise<void> {
    const changed = await this.endpoints.changeSignatureScheme(
      positiveIntOption(options.id, '--id'),
      signatureSchemeOption(requiredOption(options.signatureScheme, '--signature-scheme')),
      CLI_ACTOR,
    );
    printJson({
      id: changed.id,
      signature_scheme: changed.signature_scheme,
      ...shownKey(changed),
      previous_secret_expires_at: changed.previous_secret_expires_at.toISOString(),
    });
  }

  @Option({ flags: '--id <id>', description: 'Endpoint id', required: true })
  parseId(value: string): string {
    return value;
  }

  @Option({
    flags: '--signature-scheme <scheme>',
    description: 'symmetric (HMAC v1) or asymmetric (ed25519 v1a)',
    required: true,
  })
  parseSignatureScheme(value: string): string {
    return value;
  }
}

/** `endpoint ping --id ID` → the attempt `{success, status_code, duration_ms, …}`; it counts in health. */
@SubCommand({ name: 'ping', description: 'Send a signed test message now' })
export class EndpointPingCommand extends CommandRunner {
  constructor(private readonly deliveries: DeliveryService) {
    super();
  }

  async run(_params: string[], options: { id?: string }): Promise<void> {
    printJson(await this.deliveries.ping(positiveIntOption(options.id, '--id')));
  }

  @Option({ flags: '--id <id>', description: 'Endpoint id', required: true })
  parseId(value: string): string {
    return value;
  }
}

/** `endpoint list --campaign ID` → the campaign's endpoints ordered by id, as the API lists them. */
@SubCommand({ name: 'list', description: "List a campaign's webhook endpoints" })
export class EndpointListCommand extends CommandRunner {
  constructor(private readonly endpoints: WebhookEndpointAdmin) {
    super();
  }

  async run(_params: string[], options: { campaign?: string }): Promise<void> {
    printJson(await this.endpoints.list(positiveIntOption(options.campaign, '--campaign')));
  }

  @Option({ flags: '--campaign <id>', description: 'Campaign id', required: true })
  parseCampaign(value: string): string {
    return value;
  }
}

/**
 * The code of `--file PATH` for `endpoint set-transformation`: the file's text, read as UTF-8.
 * Its size is checked before it is read, so a large file is never loaded.
 * @throws InvalidInputError naming the file: missing, not a regular file, over 64 KiB, or not
 *   UTF-8.
 */
export async function readTransformationFile(path: string): Promise<string> {
  let size: number;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new InvalidInputError(`--file ${path} is not a file`);
    size = info.size;
  } catch (error) {
    if (error instanceof InvalidInputError) throw error;
    const code = (error as { code?: string }).code;
    throw new InvalidInputError(
      code === 'ENOENT'
        ? `--file ${path}: no such file`
        : `--file ${path} cannot be read (${code ?? 'error'})`,
    );
  }
  if (size > TRANSFORMATION_MAX_CODE_BYTES) {
    throw new InvalidInputError(
      `--file ${path} is ${Math.ceil(size / 1024)} KiB; a transformation is at most ` +
        `${TRANSFORMATION_MAX_CODE_BYTES / 1024} KiB`,
    );
  }
  const bytes = await readFile(path);
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new InvalidInputError(`--file ${path} is not UTF-8 text`);
  }
}

/**
 * The one-line refusal of a transformation that did not pass the check on save: `the
 * transformation in hook.js was not saved: line 3, column 15: SyntaxError: …` (the first
 * line of the sandbox's message, without the service's field name, which names no CLI option).
 */
export function transformationRefusal(path: string, error: InvalidInputError): InvalidInputError {
  const problem = error.message.replace(/^transformation /, '').split('\n')[0];
  return new InvalidInputError(`the transformation in ${path} was not saved: ${problem}`);
}

interface SetTransformationOptions {
  file?: string;
  clearTransformation?: boolean;
}

/**
 * `endpoint set-transformation ENDPOINT_ID --file PATH` → `{endpoint_id, version,
 * previous_version, bytes, created_by, created_at}`: the file's code, checked by the sandbox,
 * saved as the endpoint's next version and in force at once; or `--clear-transformation` →
 * `{endpoint_id, version: null, previous_version}`: none in force, the versions kept
 * (docs/webhooks.md#transformations). Audited as `transformation.save` or
 * `transformation.clear`, by `cli`.
 */
@SubCommand({
  name: 'set-transformation',
  arguments: '<endpoint_id>',
  description: "Save an endpoint's transformation from a file (a new version), or clear it",
})
export class EndpointSetTransformationCommand extends CommandRunner {
  constructor(private readonly transformations: EndpointTransformations) {
    super();
  }

  async run(params: string[], options: SetTransformationOptions): Promise<void> {
    const endpointId = positiveIntOption(params[0], 'endpoint_id');
    if (options.file !== undefined && options.clearTransformation) {
      throw new InvalidInputError('--file and --clear-transformation cannot be used together');
    }
    if (options.file === undefined && !options.clearTransformation) {
      throw new InvalidInputError('give --file PATH, or --clear-transformation');
    }
    const before = await this.transformations.state(endpointId);
    const previous = before.current?.version ?? null;
    if (options.clearTransformation) {
      await this.transformations.clear(endpointId, CLI_ACTOR);
      printJson({ endpoint_id: endpointId, version: null, previous_version: previous });
      return;
    }
    const path = requiredOption(options.file, '--file');
    const code = await readTransformationFile(path);
    let saved;
    try {
      saved = await this.transformations.save(endpointId, code, CLI_ACTOR);
    } catch (error) {
      if (error instanceof InvalidInputError) throw transformationRefusal(path, error);
      throw error;
    }
    const current = saved.current!;
    printJson({
      endpoint_id: endpointId,
      version: current.version,
      previous_version: previous,
      bytes: current.bytes,
      created_by: current.created_by,
      created_at: current.created_at,
    });
  }

  @Option({ flags: '--file <path>', description: 'JavaScript defining handler(webhook), ≤ 64 KiB' })
  parseFile(value: string): string {
    return value;
  }

  @Option({
    flags: '--clear-transformation',
    description: 'Take the transformation out of force (its versions are kept)',
  })
  parseClearTransformation(): boolean {
    return true;
  }
}

const ENDPOINT_SUBCOMMANDS = [
  EndpointCreateCommand,
  EndpointListCommand,
  EndpointUpdateCommand,
  EndpointDeleteCommand,
  EndpointRotateSecretCommand,
  EndpointChangeSchemeCommand,
  EndpointPingCommand,
  EndpointSetTransformationCommand,
];

/** `endpoint …` commands. */
@Command({
  name: 'endpoint',
  description: 'Manage webhook endpoints',
  subCommands: ENDPOINT_SUBCOMMANDS,
})
export class EndpointCommand extends CommandGroup {}

/**
 * The `endpoint` group: endpoints and the attempt log for `ping` (no queue); the endpoints
 * module brings the audit log it records changes in, and the transformations' sandbox that
 * `set-transformation` checks code in.
 */
export const ENDPOINT_GROUP: CliGroup = {
  commands: [EndpointCommand, ...ENDPOINT_SUBCOMMANDS],
  imports: [DeliveryAttemptsModule, WebhookEndpointsModule],
};
