/** A committed delivery to queue. */
export interface QueuedDelivery {
  id: number;
  endpointId: number;
}
