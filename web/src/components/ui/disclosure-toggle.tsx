import { Group, UnstyledButton } from '@mantine/core';
import { IconChevronDown, IconChevronRight } from '@tabler/icons-react';

/**
 * A small "Show …" / "Hide …" link-styled button that opens and closes a section: a chevron, the
 * visible `label` ("example"), an accessible name of its own (`Show example of lead.created`),
 * `aria-expanded` and `aria-controls` naming the section's id.
 */
export function DisclosureToggle({
  opened,
  onToggle,
  label,
  name,
  controls,
}: {
  opened: boolean;
  onToggle: () => void;
  /** What is shown or hidden, as the visible text says it: `example`. */
  label: string;
  /** The rest of the accessible name: `example of lead.created`. */
  name: string;
  /** The id of the section it opens. */
  controls: string;
}) {
  const verb = opened ? 'Hide' : 'Show';
  return (
    <UnstyledButton
      onClick={onToggle}
      aria-label={`${verb} ${name}`}
      aria-expanded={opened}
      aria-controls={controls}
      fz="xs"
      c="blue"
    >
      <Group gap={2} wrap="nowrap">
        {opened ? (
          <IconChevronDown size={14} aria-hidden />
        ) : (
          <IconChevronRight size={14} aria-hidden />
        )}
        <span>
          {verb} {label}
        </span>
      </Group>
    </UnstyledButton>
  );
}
