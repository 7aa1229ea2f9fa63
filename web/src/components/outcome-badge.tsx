import { Badge } from '@mantine/core';
import type { Attempt } from '../api/types';

/** The outcome of an attempt as a badge. */
export function OutcomeBadge({ attempt }: { attempt: Pick<Attempt, 'success'> }) {
  return (
    <Badge variant="light" color={attempt.success ? 'teal' : 'red'}>
      {attempt.success ? 'Succeeded' : 'Failed'}
    </Badge>
  );
}
