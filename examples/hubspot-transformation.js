// A transformation (docs/webhooks.md#transformations) that turns each `lead.created` event into
// HubSpot's CRM v3 "create a contact" request:
//
//   POST https://api.hubapi.com/crm/v3/objects/contacts
//   Content-Type: application/json
//   Authorization: Bearer pat-…   (a SECRET custom header of the endpoint, never seen here)
//
//   {"properties": {"email": …, "firstname": …, "lastname": …, "phone": …, "company": …, "jobtitle": …}}
//
// A lead's field that is null is left out (HubSpot would otherwise store an empty value). Every
// other event type returns null: the delivery is skipped, nothing is sent. Set the endpoint's
// URL to https://api.hubapi.com/crm/v3/objects/contacts, subscribe it to `lead.created` and
// throttle it to HubSpot's limit for private apps (100 requests per 10 s: max 10 per second).

/** Our `lead.created` field → HubSpot's contact property. */
const HUBSPOT_PROPERTIES = {
  email: 'email',
  first_name: 'firstname',
  last_name: 'lastname',
  phone: 'phone',
  company: 'company',
  title: 'jobtitle',
};

function handler(webhook) {
  if (webhook.event_type !== 'lead.created') return null;
  const lead = webhook.payload.data;
  const properties = {};
  for (const field in HUBSPOT_PROPERTIES) {
    const value = lead[field];
    if (value !== null && value !== undefined) properties[HUBSPOT_PROPERTIES[field]] = value;
  }
  webhook.method = 'POST';
  webhook.payload = { properties: properties };
  return webhook;
}
