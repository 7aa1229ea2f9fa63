import type { DynamicModule, Type } from '@nestjs/common';
import { CommandRunner } from 'nest-commander';
import { InvalidInputError } from '../common/domain-error';

/**
 * One top-level command of the CLI (`account`, `endpoint`, …) and the modules its
 * sub-commands need (docs/cli.md). The CLI loads only the group named on the command line,
 * so `account create` never loads the queue, JWT or HTTP code.
 */
export interface CliGroup {
  /** The parent command and its sub-commands, as nest-commander providers. */
  commands: Array<Type<CommandRunner>>;
  /** The domain modules the sub-commands inject from. */
  imports: Array<Type<unknown> | DynamicModule>;
  /** Whether a sub-command queues work (needs Redis): only `event emit` today. */
  needsQueue?: boolean;
}

/**
 * Base of a parent command (`account`, `endpoint`, …): run without a known sub-command it
 * fails with one line naming the valid ones, instead of printing help and exiting 0.
 */
export abstract class CommandGroup extends CommandRunner {
  /** @throws InvalidInputError always: a parent command does nothing by itself. */
  async run(params: string[]): Promise<void> {
    const name = this.command.name();
    const valid = this.command.commands.map((sub) => sub.name()).join(', ');
    if (params.length === 0) {
      throw new InvalidInputError(`${name} needs a sub-command: ${valid} (see --help)`);
    }
    throw new InvalidInputError(`unknown command "${name} ${params[0]}"; use one of: ${valid}`);
  }
}
