import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { CLI_ACTOR } from '../audit/audit-log.service';
import { InvalidInputError } from '../common/domain-error';
import { UsersModule } from '../users/users.module';
import { UsersService } from '../users/users.service';
import { CommandGroup, type CliGroup } from './cli-group';
import { positiveIntOption, printJson, requiredOption } from './cli-io';

/**
 * Reads the password given with `--password-stdin`: all of stdin but one trailing newline; it
 * must be one line. Keeps passwords out of the command line (and so out of shell history and
 * `ps`).
 * @throws InvalidInputError when stdin is empty or holds more than one line.
 */
export async function readPasswordFromStdin(
  stdin: AsyncIterable<Buffer | string> = process.stdin,
): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  const text = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
  if (text === '') throw new InvalidInputError('--password-stdin: no password on stdin');
  if (/[\r\n]/.test(text)) {
    throw new InvalidInputError('--password-stdin: the password must be one line');
  }
  return text;
}

/** Runs `work`, naming `--password-stdin` in a password error instead of a `--password` option. */
async function withStdinPasswordErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof InvalidInputError && error.field === 'password') {
      throw new InvalidInputError(
        `the password read with --password-stdin ${error.message.replace(/^password /, '')}`,
      );
    }
    throw error;
  }
}

interface UserCreateOptions {
  account?: string;
  email?: string;
  role?: string;
  passwordStdin?: boolean;
}

/**
 * `user create --account ID --email E --role admin|viewer [--password-stdin]` →
 * `{id, account_id, email, role, created_at}`, plus `password` when it was generated: the only
 * time it is shown (docs/cli.md#commands, docs/dashboard.md#users-and-roles).
 */
@SubCommand({
  name: 'create',
  description: 'Create a dashboard user (prints a generated password once)',
})
export class UserCreateCommand extends CommandRunner {
  constructor(private readonly users: UsersService) {
    super();
  }

  async run(_params: string[], options: UserCreateOptions): Promise<void> {
    const accountId = positiveIntOption(options.account, '--account');
    const email = requiredOption(options.email, '--email');
    const role = requiredOption(options.role, '--role');
    const given = options.passwordStdin ? await readPasswordFromStdin() : undefined;
    const { user, password } = await withStdinPasswordErrors(() =>
      this.users.create(accountId, email, role, given, CLI_ACTOR),
    );
    printJson({
      id: user.id,
      account_id: user.account_id,
      email: user.email,
      role: user.role,
      created_at: user.created_at,
      ...(password === undefined ? {} : { password }),
    });
  }

  @Option({ flags: '--account <id>', description: 'Account id', required: true })
  parseAccount(value: string): string {
    return value;
  }

  @Option({
    flags: '--email <email>',
    description: 'Sign-in email (unique, any case)',
    required: true,
  })
  parseEmail(value: string): string {
    return value;
  }

  @Option({ flags: '--role <role>', description: 'admin or viewer', required: true })
  parseRole(value: string): string {
    return value;
  }

  @Option({
    flags: '--password-stdin',
    description: 'Read the password (at least 12 characters) from stdin instead of generating one',
  })
  parsePasswordStdin(): boolean {
    return true;
  }
}

/** `user list --account ID` → the account's users, oldest first; never a password or hash. */
@SubCommand({ name: 'list', description: "List an account's dashboard users" })
export class UserListCommand extends CommandRunner {
  constructor(private readonly users: UsersService) {
    super();
  }

  async run(_params: string[], options: { account?: string }): Promise<void> {
    printJson(await this.users.list(positiveIntOption(options.account, '--account')));
  }

  @Option({ flags: '--account <id>', description: 'Account id', required: true })
  parseAccount(value: string): string {
    return value;
  }
}

/** `user disable --id ID` → `{id, disabled_at}`; the user's sessions end at once. */
@SubCommand({ name: 'disable', description: 'Disable a dashboard user and end their sessions' })
export class UserDisableCommand extends CommandRunner {
  constructor(private readonly users: UsersService) {
    super();
  }

  async run(_params: string[], options: { id?: string }): Promise<void> {
    const disabled = await this.users.disable(positiveIntOption(options.id, '--id'), CLI_ACTOR);
    printJson({ id: disabled.id, disabled_at: disabled.disabled_at });
  }

  @Option({ flags: '--id <id>', description: 'User id', required: true })
  parseId(value: string): string {
    return value;
  }
}

/**
 * `user reset-password --id ID [--password-stdin]` → `{id, password_changed_at}`, plus
 * `password` when it was generated; the user's sessions end at once.
 */
@SubCommand({
  name: 'reset-password',
  description: "Set a new password (generated unless --password-stdin); ends the user's sessions",
})
export class UserResetPasswordCommand extends CommandRunner {
  constructor(private readonly users: UsersService) {
    super();
  }

  async run(_params: string[], options: { id?: string; passwordStdin?: boolean }): Promise<void> {
    const id = positiveIntOption(options.id, '--id');
    const given = options.passwordStdin ? await readPasswordFromStdin() : undefined;
    const changed = await withStdinPasswordErrors(() =>
      this.users.resetPassword(id, given, CLI_ACTOR),
    );
    printJson({
      id: changed.id,
      password_changed_at: changed.password_changed_at,
      ...(changed.password === undefined ? {} : { password: changed.password }),
    });
  }

  @Option({ flags: '--id <id>', description: 'User id', required: true })
  parseId(value: string): string {
    return value;
  }

  @Option({
    flags: '--password-stdin',
    description:
      'Read the new password (at least 12 characters) from stdin instead of generating one',
  })
  parsePasswordStdin(): boolean {
    return true;
  }
}

const USER_SUBCOMMANDS = [
  UserCreateCommand,
  UserListCommand,
  UserDisableCommand,
  UserResetPasswordCommand,
];

/** `user …` commands. */
@Command({
  name: 'user',
  description: 'Manage dashboard users',
  subCommands: USER_SUBCOMMANDS,
})
export class UserCommand extends CommandGroup {}

/** The `user` group: dashboard users (whose service records changes in the audit log); no HTTP, no queue. */
export const USER_GROUP: CliGroup = {
  commands: [UserCommand, ...USER_SUBCOMMANDS],
  imports: [UsersModule],
};
