import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';

/** What one finished chunk reported. */
export interface ChunkRecord {
  index: number;
  rows: number;
  valid: number;
  invalid: number;
  duplicates: number;
}

/**
 * `<input>.import-state.json`: the chunks already stored (by their Idempotency-Key, which is
 * derived from the chunk's content and position) and the length of the rejected-rows file
 * after the last of them. Written atomically (a temporary file renamed) after every chunk.
 */
export interface ResumeStateData {
  version: 1;
  campaign_id: number;
  completed: Record<string, ChunkRecord>;
  rejected_bytes: number;
}

export class ResumeState {
  private constructor(
    readonly path: string,
    readonly data: ResumeStateData,
  ) {}

  /**
   * The state a previous run left for this campaign, or a fresh one (also when `restart`).
   *
   * @throws Error when the state file is unreadable or belongs to another campaign.
   */
  static load(path: string, campaignId: number, restart: boolean): ResumeState {
    const fresh: ResumeStateData = {
      version: 1,
      campaign_id: campaignId,
      completed: {},
      rejected_bytes: 0,
    };
    if (restart) return new ResumeState(path, fresh);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      return new ResumeState(path, fresh);
    }
    const data = JSON.parse(text) as ResumeStateData;
    if (data.version !== 1 || typeof data.completed !== 'object') {
      throw new Error(`${path} is not a state file of this importer: delete it or use --restart`);
    }
    if (data.campaign_id !== campaignId) {
      throw new Error(
        `${path} is the state of an import into campaign ${data.campaign_id}: ` +
          'finish that one, or use --restart to import into this campaign from the start',
      );
    }
    return new ResumeState(path, data);
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
