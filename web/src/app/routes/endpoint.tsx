import { useDocumentTitle } from '@mantine/hooks';
import { BulkRecovery } from '../../features/deliveries/components/bulk-recovery';
import { DeliveryLedger } from '../../features/deliveries/components/delivery-ledger';
import { DeliveryLog } from '../../features/deliveries/components/delivery-log';
import { ReplayOffer } from '../../features/deliveries/components/replay-offer';
import { EndpointPage } from '../../features/endpoints/components/endpoint-page';
import { TransformationSummary } from '../../features/transformations/components/transformation-summary';
import { pageTitle } from '../page-title';
import { useIdParam } from './id-param';
import { NotFoundRoute } from './not-found';

/**
 * `/dashboard/endpoints/:endpointId`: the endpoint's page (the endpoints feature) with, from the
 * transformations feature, the line saying which transformation is in force; from the
 * deliveries feature, the offer to replay what it missed while disabled, then its delivery
 * ledger, bulk recovery and delivery log.
 */
export function EndpointRoute() {
  useDocumentTitle(pageTitle('Endpoint'));
  const endpointId = useIdParam('endpointId');
  if (endpointId === null) return <NotFoundRoute />;
  return (
    <EndpointPage
      key={endpointId}
      endpointId={endpointId}
      transformation={(endpoint) => <TransformationSummary endpointId={endpoint.id} />}
      notice={(endpoint) => <ReplayOffer endpoint={endpoint} />}
      deliveries={(endpoint) => (
        <>
          <DeliveryLedger endpointId={endpoint.id} />
          <BulkRecovery endpointId={endpoint.id} />
          <DeliveryLog endpointId={endpoint.id} />
        </>
      )}
    />
  );
}
