import { readPasswordFromStdin } from './user.command';

async function* chunks(...parts: string[]): AsyncIterable<Buffer> {
  for (const part of parts) yield Buffer.from(part);
}

describe('user --password-stdin (docs/cli.md#commands)', () => {
  it('reads one line, without its newline', async () => {
    expect(await readPasswordFromStdin(chunks('correct horse ', 'battery\n'))).toBe(
      'correct horse battery',
    );
    expect(await readPasswordFromStdin(chunks('pässwörd 12345\r\n'))).toBe('pässwörd 12345');
    expect(await readPasswordFromStdin(chunks('  spaces kept  '))).toBe('  spaces kept  ');
  });

  it('refuses nothing, or more than one line', async () => {
    await expect(readPasswordFromStdin(chunks())).rejects.toThrow('no password on stdin');
    await expect(readPasswordFromStdin(chunks('\n'))).rejects.toThrow('no password on stdin');
    await expect(readPasswordFromStdin(chunks('one\ntwo\n'))).rejects.toThrow('one line');
  });
});
