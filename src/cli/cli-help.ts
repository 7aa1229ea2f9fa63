import type { CommandFactory } from 'nest-commander';

type RunOptions = Extract<Parameters<typeof CommandFactory.run>[1], { cliName?: string }>;
type HelpConfiguration = NonNullable<RunOptions['helpConfiguration']>;
type Help = Parameters<NonNullable<HelpConfiguration['longestSubcommandTermLength']>>[1];
type HelpCommand = Parameters<Help['visibleCommands']>[0];

/** commander's own `visibleCommands` and `subcommandTerm`, which the configuration below wraps. */
function base(helper: Help): Help {
  return Object.getPrototypeOf(helper) as Help;
}

/**
 * How `--help` lists commands (docs/cli.md#commands). The top level (`campaign-api --help`)
 * lists every command, `account create`, `endpoint update`, …, each with its one-line summary,
 * rather than only the groups; a group's help (`campaign-api endpoint --help`) lists its
 * commands the same way. Given to nest-commander, which applies it to every command.
 */
export const CLI_HELP: HelpConfiguration = {
  visibleCommands(this: Help, cmd: HelpCommand): HelpCommand[] {
    const visible = base(this).visibleCommands.call(this, cmd);
    if (cmd.parent !== null) return visible;
    return visible.flatMap((group) => {
      const commands = base(this)
        .visibleCommands.call(this, group)
        .filter((sub) => sub.name() !== 'help');
      return commands.length > 0 ? commands : [group];
    });
  },
  subcommandTerm(this: Help, cmd: HelpCommand): string {
    const term = base(this).subcommandTerm.call(this, cmd);
    const group = cmd.parent;
    return group !== null && group.parent !== null ? `${group.name()} ${term}` : term;
  },
};
