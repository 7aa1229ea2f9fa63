import { checkTransformedTarget, transformationInput } from './transformed-request';

describe('checkTransformedTarget (docs/webhooks.md#transformations)', () => {
  it('keeps a changed URL normalised and the headers in the order returned', () => {
    const checked = checkTransformedTarget({
      url: 'HTTPS://API.HubAPI.com/crm/v3/objects/contacts',
      headers: { 'X-First': '1', 'x-second': 'two' },
    });
    expect(checked).toEqual({
      url: 'https://api.hubapi.com/crm/v3/objects/contacts',
      headers: [
        { name: 'X-First', value: '1', secret: false },
        { name: 'x-second', value: 'two', secret: false },
      ],
      contentType: null,
    });
  });

  it('takes content-type out of the headers, whatever its case', () => {
    const checked = checkTransformedTarget({
      url: 'https://example.com/',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(checked).toEqual({
      url: 'https://example.com/',
      headers: [],
      contentType: 'application/x-www-form-urlencoded',
    });
  });

  it.each([
    ['webhook-signature', 'webhook-* names are kept for the signature headers'],
    ['Webhook-Id', 'webhook-* names are kept for the signature headers'],
    ['host', 'the service sets it from the endpoint URL'],
    ['content-length', 'the service sets it from the body'],
  ])('refuses a forged or reserved header %s', (name, reason) => {
    const checked = checkTransformedTarget({
      url: 'https://example.com/',
      headers: { [name]: 'x' },
    });
    expect(checked).toEqual({ problem: `header "${name}" cannot be set: ${reason}` });
  });

  it('refuses a header value with a line break, naming the header', () => {
    expect(
      checkTransformedTarget({ url: 'https://example.com/', headers: { 'x-a': 'a\r\nb: c' } }),
    ).toEqual({ problem: 'header "x-a": the value must not contain CR, LF or NUL' });
  });

  it.each([
    ['ftp://example.com/', 'url must use http or https, got "ftp"'],
    ['https://user:pw@example.com/', 'url must not contain credentials'],
    ['not a url', 'url must be an absolute http or https URL, got "not a url"'],
  ])('refuses the URL %s', (url, problem) => {
    expect(checkTransformedTarget({ url, headers: {} })).toEqual({ problem });
  });
});

describe('transformationInput', () => {
  it('gives the code the plain custom headers only, never a secret value', () => {
    const input = transformationInput(
      {
        url: 'https://example.com/hook',
        headers: [
          { name: 'X-Plain', value: 'visible', secret: false },
          { name: 'Authorization', value: 'Bearer pat-secret', secret: true },
        ],
      },
      'lead.created',
      '{"type":"lead.created"}',
    );
    expect({ ...input, headers: { ...input.headers } }).toEqual({
      method: 'POST',
      url: 'https://example.com/hook',
      headers: { 'X-Plain': 'visible' },
      payloadJson: '{"type":"lead.created"}',
      eventType: 'lead.created',
    });
    expect(Object.getPrototypeOf(input.headers)).toBeNull();
  });
});
