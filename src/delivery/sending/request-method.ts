/** The methods a webhook request may use: POST, or PUT or PATCH set by a transformation (docs/webhooks.md#transformations). */
export type RequestMethod = 'POST' | 'PUT' | 'PATCH';
