/**
 * Reads the README as the README test runs it: its fenced ```bash blocks in document order,
 * the ```json blocks that show their output, and the `<!-- readme-test: … -->` markers that
 * say how to run a block (see readme.e2e-spec.ts for the marker grammar).
 */

/** How the runner treats a ```bash block. */
export type RunMode =
  | { kind: 'run' }
  | { kind: 'skip'; reason: string }
  | { kind: 'background'; name: string; ready: string };

/** What a ```json block is: documentation, or the output of a command to check. */
export type OutputSource =
  { kind: 'block'; eventually: boolean } | { kind: 'background'; name: string };

/** A ```bash block and how to run it. */
export interface ShellStep {
  type: 'shell';
  /** 1-based line of the opening fence. */
  line: number;
  /** The block's text, without the fences. */
  script: string;
  mode: RunMode;
}

/** A ```json block shown as the output of the block before it or of a background process. */
export interface OutputStep {
  type: 'output';
  line: number;
  text: string;
  source: OutputSource;
}

/** One block the runner handles, in document order. */
export type ReadmeStep = ShellStep | OutputStep;

const MARKER = /^\s*<!--\s*readme-test:\s*(.*?)\s*-->\s*$/;
const FENCE = /^(\s*)(`{3,}|~{3,})\s*([\w+-]*)/;
/** Background names are plain identifiers, so that `output <name>` cannot be misread. */
const NAME = /^[a-z][a-z0-9-]*$/;

/** Parses one marker's text (after `readme-test:`); throws on anything it does not know. */
function parseMarker(text: string, line: number, lang: string): RunMode | OutputSource {
  const [word, ...rest] = text.split(/\s+/);
  const fail = (why: string) => {
    throw new Error(`README.md:${line}: readme-test marker "${text}": ${why}`);
  };
  if (lang === 'bash') {
    if (word === 'skip') {
      const reason = text.slice(word.length).trim();
      if (!reason) fail('a skip needs a reason');
      return { kind: 'skip', reason };
    }
    if (word === 'background') {
      const [name, ready] = [rest[0], text.match(/\bready=(.+)$/)?.[1]];
      if (!name || !NAME.test(name)) fail('background needs a name (a-z, 0-9, -)');
      if (!ready) fail('background needs ready=<http URL | host:port | output:text>');
      if (/["`\\]/.test(ready!)) fail('ready= may not hold ", ` or \\');
      return { kind: 'background', name, ready: ready! };
    }
    return fail('a ```bash block takes "skip <reason>" or "background <name> ready=…"');
  }
  if (lang === 'json' && word === 'output') {
    if (rest.length === 0) return { kind: 'block', eventually: false };
    if (rest.length === 1 && rest[0] === 'eventually') return { kind: 'block', eventually: true };
    if (rest.length === 1 && NAME.test(rest[0])) return { kind: 'background', name: rest[0] };
    return fail('output takes nothing, "eventually" or a background name');
  }
  return fail(`no marker applies to a \`\`\`${lang || '(plain)'} block`);
}

/**
 * The README's ```bash blocks and marked ```json blocks, in document order. A marker is an
 * HTML comment on the line right before a block's opening fence.
 *
 * @throws Error on an unknown or misplaced marker, or an unclosed fence.
 */
export function parseReadme(markdown: string): ReadmeStep[] {
  const lines = markdown.split('\n');
  const steps: ReadmeStep[] = [];
  let pendingMarker: { text: string; line: number } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const marker = MARKER.exec(lines[i]);
    if (marker) {
      pendingMarker = { text: marker[1], line: i + 1 };
      continue;
    }
    const fence = FENCE.exec(lines[i]);
    if (!fence) {
      if (pendingMarker) {
        throw new Error(
          `README.md:${pendingMarker.line}: a readme-test marker must come right before a fenced block`,
        );
      }
      continue;
    }
    const [, indent, ticks, lang] = fence;
    const start = i + 1;
    const body: string[] = [];
    for (i++; i < lines.length && !lines[i].startsWith(indent + ticks); i++) {
      body.push(lines[i].slice(indent.length));
    }
    if (i >= lines.length) throw new Error(`README.md:${start}: unclosed fence`);
    const text = `${body.join('\n')}\n`;
    const parsed = pendingMarker && parseMarker(pendingMarker.text, pendingMarker.line, lang);
    pendingMarker = undefined;
    if (lang === 'bash') {
      steps.push({
        type: 'shell',
        line: start,
        script: text,
        mode: (parsed as RunMode | undefined) ?? { kind: 'run' },
      });
    } else if (lang === 'json' && parsed) {
      steps.push({ type: 'output', line: start, text, source: parsed as OutputSource });
    }
  }
  return steps;
}
