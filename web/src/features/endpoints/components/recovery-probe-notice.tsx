import { Text } from '@mantine/core';
import { Timestamp } from '../../../components/ui/timestamp';
import type { Endpoint } from '../../../api/types';

/**
 * Whether the endpoint comes back by itself (docs/webhooks.md#endpoints-that-come-back-by-themselves),
 * in one line: on or off.
 */
export function AutoRecoverSetting({ endpoint }: { endpoint: Endpoint }) {
  return (
    <Text size="sm" data-testid="endpoint-auto-recover">
      Comes back automatically: {endpoint.auto_recover ? 'on' : 'off'}
    </Text>
  );
}

/**
 * The recovery probing of an endpoint disabled automatically that comes back by itself: when
 * the next signed ping is due and how many were sent, or since when probing gave up. Nothing
 * when it is not probed.
 */
export function RecoveryProbeNotice({ endpoint }: { endpoint: Endpoint }) {
  const probe = endpoint.recovery_probe;
  if (endpoint.is_enabled || !probe) return null;
  const sent =
    probe.probes === 0 ? (
      'no probe sent yet'
    ) : (
      <>
        {probe.probes === 1 ? '1 probe' : `${probe.probes} probes`} so far, the last at{' '}
        <Timestamp value={probe.last_probe_at} />
      </>
    );
  return (
    <Text size="sm" data-testid="recovery-probe">
      {probe.gave_up_at ? (
        <>
          Gave up on <Timestamp value={probe.gave_up_at} />: {sent}, none answered. Enable it by
          hand once the receiver is back.
        </>
      ) : (
        <>
          It comes back by itself: next probe at <Timestamp value={probe.next_probe_at} /> ({sent}).
          A signed ping answered with a 2xx enables it and replays what it missed.
        </>
      )}
    </Text>
  );
}
