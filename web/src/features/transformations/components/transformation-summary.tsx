import { Text } from '@mantine/core';
import { useTransformation } from '../api/queries';

/**
 * The endpoint page's line about its transformation: "Transformation: version 3 in force" or
 * "Transformation: none". Nothing while it loads or when it cannot be read.
 */
export function TransformationSummary({ endpointId }: { endpointId: number }) {
  const state = useTransformation(endpointId);
  if (!state.isSuccess) return null;
  const current = state.data.current;
  return (
    <Text size="sm" data-testid="endpoint-transformation">
      Transformation:{' '}
      {current
        ? `version ${current.version} in force`
        : 'none (requests are sent as the events are)'}
    </Text>
  );
}
