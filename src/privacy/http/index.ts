/**
 * The privacy feature's HTTP edge (docs/architecture.md#folders): what other edges import from
 * `src/privacy/http/`.
 */
export {
  contactsAsSeenBy,
  sampleRowsAsSeenBy,
  seesContactsInFull,
  ViewerContactMask,
} from './viewer-contact-mask.interceptor';
