/**
 * The bearer token of `apiKey` (`POST /api/v1/auth/api-key/token`), as an integration gets it.
 * @throws unless the exchange answers 200.
 */
export async function apiTokenOf(origin: string, apiKey: string): Promise<string> {
  const exchange = await fetch(`${origin}/api/v1/auth/api-key/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: apiKey }),
  });
  if (exchange.status !== 200) throw new Error(`token exchange answered ${exchange.status}`);
  return ((await exchange.json()) as { access_token: string }).access_token;
}

/**
 * Uploads leads to `campaignId` through the public API, as an integration holding `apiKey`
 * would: the key is exchanged for a bearer token first. `leads` is a number of leads (phones
 * +1415555xxxx) or the leads themselves.
 * @returns the 202's body.
 * @throws unless the token exchange answers 200 and the upload 202.
 */
export async function uploadLeads(
  origin: string,
  apiKey: string,
  campaignId: number,
  leads: number | Array<Record<string, unknown>>,
): Promise<{ import_id: string }> {
  const token = await apiTokenOf(origin, apiKey);
  const upload = await fetch(`${origin}/api/v1/leads/upload`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({
      campaign_id: campaignId,
      compliance_acknowledged: true,
      leads:
        typeof leads === 'number'
          ? Array.from({ length: leads }, (_, i) => ({
              phone: `+1415555${String(1000 + i).padStart(4, '0')}`,
            }))
          : leads,
    }),
  });
  if (upload.status !== 202) throw new Error(`the upload answered ${upload.status}`);
  return (await upload.json()) as { import_id: string };
}
