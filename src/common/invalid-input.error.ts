/**
 * An operator's input error (CLI, docs/cli.md): the message is one line for the terminal,
 * printed to stderr with a non-zero exit.
 */
export class InvalidInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidInputError';
  }
}
