import { createHash } from 'node:crypto';
import { createReadStream, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';

/** What one finished chunk reported. */
export interface ChunkRecord {
  index: number;
  rows: number;
  valid: number;
  invalid: number;
  duplicates: number;
}

/**
 * What a resume state belongs to: an earlier run's chunks count as done only for the same
 * service, API key, campaign and file content (docs/client.md#the-csv-importer).
 */
export interface ResumeBinding {
  /** The service's normalised base URL (`CampaignApiClient.serviceUrl`). */
  service: string;
  /** The API key's fingerprint (`apiKeyFingerprint`): never the key. */
  key: string;
  campaign_id: number;
  /** Lower-case hex SHA-256 of the file's bytes. */
  file_sha256: string;
}

/**
 * `<input>.import-state.json`: what the state is for ({@link ResumeBinding}), the chunks
 * already stored (by their Idempotency-Key, which is derived from the chunk's content and
 * position) and the length of the rejected-rows file after the last of them. Written
 * atomically (a temporary file renamed) after every chunk.
 */
export interface ResumeStateData extends ResumeBinding {
  version: 2;
  completed: Record<string, ChunkRecord>;
  rejected_bytes: number;
}

/** Lower-case hex SHA-256 of the file at `path`, read as a stream (any size). */
export async function fileSha256(path: string, signal?: AbortSignal): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash, { signal });
  return hash.digest('hex');
}

/** What differs between the binding a state was written for and this run's, in words. */
function differences(saved: Partial<ResumeBinding>, current: ResumeBinding): string[] {
  const found: string[] = [];
  if (saved.service !== current.service) {
    found.push(
      typeof saved.service === 'string' ? `service (${saved.service})` : 'service (unknown)',
    );
  }
  if (saved.key !== current.key) found.push('API key');
  if (saved.campaign_id !== current.campaign_id) {
    found.push(`campaign (${String(saved.campaign_id)})`);
  }
  if (saved.file_sha256 !== current.file_sha256) found.push('file content');
  return found;
}

const inWords = (items: string[]) =>
  items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;

export class ResumeState {
  private constructor(
    readonly path: string,
    readonly data: ResumeStateData,
  ) {}

  /**
   * The state a previous run left for the same service, key, campaign and file content, or a
   * fresh one: when there is none, when `restart`, and when the file at `path` belongs to
   * something else or cannot be read. A state that is set aside is deleted, and `notice`
   * says why in one line (`<path>: the resume state is for another service (…) and API
   * key: starting afresh`); it is undefined when there is nothing to say.
   */
  static load(
    path: string,
    binding: ResumeBinding,
    restart: boolean,
  ): { state: ResumeState; notice?: string } {
    const fresh = () =>
      new ResumeState(path, { version: 2, ...binding, completed: {}, rejected_bytes: 0 });
    if (restart) return { state: fresh() };
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      return { state: fresh() };
    }
    const afresh = (why: string) => {
      rmSync(path, { force: true });
      return { state: fresh(), notice: `${path}: ${why}: starting afresh` };
    };
    let data: Partial<ResumeStateData> & { version?: unknown };
    try {
      data = JSON.parse(text) as typeof data;
    } catch {
      return afresh('the resume state is not readable JSON');
    }
    if (data === null || typeof data !== 'object' || typeof data.completed !== 'object') {
      return afresh('the resume state is not one of this importer');
    }
    if (data.version !== 2) {
      return afresh(
        'the resume state is of an older importer, which did not record the service, API key ' +
          'and file it was for',
      );
    }
    const differ = differences(data, binding);
    if (differ.length > 0) return afresh(`the resume state is for another ${inWords(differ)}`);
    return { state: new ResumeState(path, data as ResumeStateData) };
  }

  get resumed(): boolean {
    return Object.keys(this.data.completed).length > 0;
  }

  done(key: string): ChunkRecord | undefined {
    return this.data.completed[key];
  }

  /** Records a finished chunk and the rejected file's length after it, then saves. */
  complete(key: string, record: ChunkRecord, rejectedBytes: number): void {
    this.data.completed[key] = record;
    this.data.rejected_bytes = rejectedBytes;
    this.save();
  }

  save(): void {
    const temporary = `${this.path}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(this.data)}\n`);
    renameSync(temporary, this.path);
  }

  remove(): void {
    rmSync(this.path, { force: true });
  }
}
