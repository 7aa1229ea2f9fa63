import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { setCsrfToken } from '../../../lib/api-client';
import { json } from '../../../testing/fake-api';
import {
  EVENT_TYPES,
  fakeAttempt,
  fakeDashboard,
  fakeEndpoint,
  fakeRecovery,
  type FakeRoutes,
} from '../../../testing/fake-dashboard';
import { renderApp } from '../../../testing/render';
import { STARTER_CODE } from '../lib/code-position';

const V1 = 'function handler(webhook) {\n  return webhook;\n}\n';
const V2 = 'function handler(webhook) {\n  webhook.method = "PUT";\n  return webhook;\n}\n';

function version(n: number, code: string, overrides: Record<string, unknown> = {}) {
  return {
    version: n,
    created_at: `2026-11-2${n}T10:00:00Z`,
    created_by: 'ada@example.com',
    restored_from: null,
    bytes: code.length,
    code,
    ...overrides,
  };
}

function summary(v: ReturnType<typeof version>) {
  const { code: _code, ...rest } = v;
  return rest;
}

/** Endpoint 5 (of campaign 2, "Spring") with versions 2 (in force) and 1. */
function stateOf(versions: Array<ReturnType<typeof version>>, current = versions[0] ?? null) {
  return { endpoint_id: 5, current, versions: versions.map(summary) };
}

const SAVED = stateOf([version(2, V2), version(1, V1)]);

const TRIAL = {
  source: { kind: 'example', event_type: 'lead.created', delivery_id: null, webhook_id: 'msg_1' },
  version: 0,
  duration_ms: 3.2,
  outcome: 'request',
  request: {
    method: 'PUT',
    url: 'https://crm.example.com/hooks/contacts',
    headers: {
      'content-type': 'application/json',
      'webhook-signature': 'v1,K5oZfz…',
      authorization: '[redacted]',
    },
    body: '{"properties":{"phone":"+14155550100"}}',
  },
  error: null,
};

function pageApi(routes: FakeRoutes = {}): FakeRoutes {
  return {
    'GET /campaigns': [
      { id: 2, name: 'Spring', default_region: 'US', created_at: '', endpoint_count: 1 },
    ],
    'GET /endpoints/5': fakeEndpoint({ subscribed_events: ['lead.created', 'leads.bulk_created'] }),
    'GET /event-types': EVENT_TYPES,
    'GET /endpoints/5/attempts': {
      items: [fakeAttempt(1), fakeAttempt(2, { event_type: 'leads.bulk_created' })],
      next_cursor: null,
    },
    'GET /endpoints/5/transformation': SAVED,
    'GET /endpoints/5/transformation/code': (_request: Request, url: URL) =>
      url.searchParams.get('version') === '1' ? version(1, V1) : version(2, V2),
    ...routes,
  };
}

/** The editor's text, once CodeMirror (loaded lazily) shows it. */
async function editorText(): Promise<string> {
  const editor = await screen.findByTestId('transformation-editor');
  return within(editor).getByRole('textbox', { name: 'Transformation code' }).textContent ?? '';
}

describe('the transformation page', () => {
  afterEach(() => setCsrfToken(null));

  it('leads back through the campaign and the endpoint: Campaigns › Spring › CRM sync › Transformation', async () => {
    fakeDashboard(pageApi());
    renderApp('/endpoints/5/transformation');
    expect(
      await screen.findByRole('heading', { name: 'CRM sync: transformation', level: 1 }),
    ).toBeVisible();
    const trail = screen.getByLabelText('Breadcrumb');
    await waitFor(() =>
      expect(
        within(trail)
          .getAllByRole('link')
          .map((link) => link.textContent),
      ).toEqual(['Campaigns', 'Spring', 'CRM sync']),
    );
    expect(within(trail).getByRole('link', { name: 'CRM sync' })).toHaveAttribute(
      'href',
      '/endpoints/5',
    );
    expect(trail).toHaveTextContent(/Transformation$/);
  });

  it('opens with the code in force and says which version it is', async () => {
    fakeDashboard(pageApi());
    renderApp('/endpoints/5/transformation');
    expect(await screen.findByTestId('transformation-in-force')).toHaveTextContent(
      /Version 2 is in force, saved .* by ada@example.com/,
    );
    await waitFor(async () => expect(await editorText()).toContain('webhook.method = "PUT";'));
  });

  it('opens with the starter code when the endpoint has no transformation', async () => {
    fakeDashboard(pageApi({ 'GET /endpoints/5/transformation': stateOf([]) }));
    renderApp('/endpoints/5/transformation');
    expect(await screen.findByTestId('transformation-in-force')).toHaveTextContent(
      'No transformation is in force',
    );
    await waitFor(async () =>
      expect(await editorText()).toContain(
        '// webhook: { method, url, headers, payload, event_type }',
      ),
    );
    expect(STARTER_CODE).toContain('function handler(webhook)');
    expect(screen.getByText('No version saved yet.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Stop transforming' })).not.toBeInTheDocument();
  });

  it('runs the editor’s code on the chosen example and shows the exact request, sending nothing', async () => {
    const { requests } = fakeDashboard(pageApi({ 'POST /endpoints/5/transformation/run': TRIAL }));
    renderApp('/endpoints/5/transformation');
    const user = userEvent.setup();
    await waitFor(async () => expect(await editorText()).toContain('webhook.method'));
    const type = screen.getByRole('combobox', { name: 'Example event type' });
    expect(type).toHaveValue('lead.created');
    await user.selectOptions(type, 'leads.bulk_created');
    await user.click(screen.getByRole('button', { name: 'Run on the example' }));

    const result = screen.getByRole('region', { name: 'Result' });
    expect(await within(result).findByTestId('result-url')).toHaveTextContent(
      'https://crm.example.com/hooks/contacts',
    );
    expect(within(result).getByTestId('result-method')).toHaveTextContent('PUT');
    const headers = within(result).getByLabelText('Request headers');
    expect(within(headers).getByText('authorization')).toBeInTheDocument();
    expect(within(headers).getByText('[redacted]')).toBeInTheDocument();
    expect(within(result).getByTestId('result-body').textContent).toBe(
      '{\n  "properties": {\n    "phone": "+14155550100"\n  }\n}',
    );
    expect(within(result).getByTestId('result-source')).toHaveTextContent(
      'Ran the code in the editor on the example of lead.created in 3 ms. Nothing was sent.',
    );
    const sent = requests().find((r) => r.url.endsWith('/transformation/run'))!;
    expect(await sent.json()).toEqual({ code: V2, event_type: 'leads.bulk_created' });
  });

  it('runs on a past delivery chosen by time, event type and delivery id', async () => {
    const { requests } = fakeDashboard(
      pageApi({
        'POST /endpoints/5/transformation/run': {
          ...TRIAL,
          source: { ...TRIAL.source, kind: 'delivery', delivery_id: 102 },
        },
      }),
    );
    renderApp('/endpoints/5/transformation');
    const user = userEvent.setup();
    const select = await screen.findByRole('combobox', { name: 'Past delivery' });
    await waitFor(() => expect(within(select).getAllByRole('option')).toHaveLength(2));
    expect(within(select).getAllByRole('option')[1]).toHaveTextContent(
      /leads\.bulk_created · delivery 102$/,
    );
    await user.selectOptions(select, '102');
    await user.click(screen.getByRole('button', { name: 'Run on a past delivery' }));
    expect(await screen.findByTestId('result-source')).toHaveTextContent('delivery 102');
    const sent = requests().find((r) => r.url.endsWith('/transformation/run'))!;
    expect(await sent.json()).toEqual({ code: V2, delivery_id: 102 });
  });

  it('says a run that returned null would send nothing', async () => {
    fakeDashboard(
      pageApi({
        'POST /endpoints/5/transformation/run': { ...TRIAL, outcome: 'cancelled', request: null },
      }),
    );
    renderApp('/endpoints/5/transformation');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Run on the example' }));
    expect(
      await screen.findByText('Cancelled: the code returned null; nothing would be sent'),
    ).toBeInTheDocument();
  });

  it('shows a run’s error with its line and column and marks the editor invalid', async () => {
    fakeDashboard(
      pageApi({
        'POST /endpoints/5/transformation/run': {
          ...TRIAL,
          outcome: 'error',
          request: null,
          error: { kind: 'throw', message: 'TypeError: x is undefined', line: 2, column: 3 },
        },
      }),
    );
    renderApp('/endpoints/5/transformation');
    const user = userEvent.setup();
    await waitFor(async () => expect(await editorText()).toContain('webhook.method'));
    await user.click(screen.getByRole('button', { name: 'Run on the example' }));
    const result = screen.getByRole('region', { name: 'Result' });
    expect(await within(result).findByText('Error (throw) at line 2, column 3')).toBeVisible();
    expect(within(result).getByText('TypeError: x is undefined')).toBeVisible();
    await waitFor(() =>
      expect(screen.getByRole('textbox', { name: 'Transformation code' })).toHaveAttribute(
        'aria-invalid',
        'true',
      ),
    );
  });

  it('says a refused save beside the editor, naming the line and column', async () => {
    fakeDashboard(
      pageApi({
        'PUT /endpoints/5/transformation': json(422, {
          error: 'validation_failed',
          message: 'transformation line 3, column 5: SyntaxError: unexpected token',
        }),
      }),
    );
    renderApp('/endpoints/5/transformation');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Save as new version' }));
    expect(await screen.findByTestId('save-error')).toHaveTextContent(
      'Not saved: transformation line 3, column 5: SyntaxError: unexpected token',
    );
    await waitFor(() =>
      expect(
        screen.getByRole('textbox', { name: 'Transformation code' }),
      ).toHaveAccessibleDescription(/line 3, column 5/),
    );
  });

  it('saves the code as a new version and offers to retry the deliveries that failed on the transformation', async () => {
    let state = SAVED;
    const { requests } = fakeDashboard(
      pageApi({
        'GET /endpoints/5/transformation': () => state,
        'PUT /endpoints/5/transformation': () => {
          state = stateOf([version(3, V2), version(2, V2), version(1, V1)]);
          return state;
        },
        'GET /endpoints/5/attempts': (_request: Request, url: URL) =>
          url.searchParams.get('outcome') === 'failed'
            ? {
                items: [
                  fakeAttempt(7, {
                    success: false,
                    status_code: null,
                    error: 'transformation_error: TypeError: x is undefined (line 2, column 3)',
                  }),
                  fakeAttempt(8, { success: false, status_code: 500, error: 'HTTP 500' }),
                ],
                next_cursor: null,
              }
            : { items: [], next_cursor: null },
        'POST /endpoints/5/recoveries': fakeRecovery({ scope: 'transformation_errors', total: 1 }),
      }),
    );
    renderApp('/endpoints/5/transformation');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Save as new version' }));
    expect(await screen.findByText('Saved as version 3')).toBeVisible();
    expect(screen.getByTestId('transformation-in-force')).toHaveTextContent(
      'Version 3 is in force',
    );
    expect(await screen.findByText(/1 recent delivery failed on the transformation/)).toBeVisible();
    await user.click(
      screen.getByRole('button', { name: 'Retry deliveries that failed on the transformation' }),
    );
    await user.click(await screen.findByRole('button', { name: 'Send them again' }));
    expect(await screen.findByTestId('transformation-retry-started')).toHaveTextContent(
      'Sending again 1 delivery that failed on the transformation',
    );
    const save = requests().find((r) => r.method === 'PUT')!;
    expect(await save.json()).toEqual({ code: V2 });
    const recovery = requests().find((r) => r.url.endsWith('/recoveries') && r.method === 'POST')!;
    const sent = (await recovery.json()) as { scope: string; since: string };
    expect(sent.scope).toBe('transformation_errors');
    const days = (Date.now() - Date.parse(sent.since)) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThan(30.1);
  });

  it('lists the versions with who saved them and what a restore brought back', async () => {
    fakeDashboard(
      pageApi({
        'GET /endpoints/5/transformation': stateOf([
          version(3, V1, { restored_from: 1, created_by: 'cli' }),
          version(2, V2),
          version(1, V1),
        ]),
      }),
    );
    renderApp('/endpoints/5/transformation');
    const history = await screen.findByRole('table', { name: 'History' });
    const rows = within(history).getAllByRole('row').slice(1);
    expect(rows.map((row) => row.textContent)).toEqual([
      expect.stringMatching(/^v3 \(in force\).*clirestored from v1$/),
      expect.stringMatching(/^v2.*ada@example\.comsaved/),
      expect.stringMatching(/^v1.*ada@example\.comsaved/),
    ]);
  });

  it('compares two versions as a line diff, marked with + and − in words too', async () => {
    fakeDashboard(pageApi());
    renderApp('/endpoints/5/transformation');
    const user = userEvent.setup();
    expect(await screen.findByRole('combobox', { name: 'From version' })).toHaveValue('1');
    expect(screen.getByRole('combobox', { name: 'To version' })).toHaveValue('2');
    await user.click(screen.getByRole('button', { name: 'Compare' }));
    const diff = await screen.findByRole('list', { name: 'Changes from v1 to v2' });
    const added = within(diff)
      .getAllByRole('listitem')
      .filter((li) => li.dataset.kind === 'added');
    expect(added.map((li) => li.textContent)).toEqual(['2+added:   webhook.method = "PUT";']);
    expect(screen.getByText('v1 → v2: 1 line added, 0 lines removed.')).toBeInTheDocument();
  });

  it('restores a version after asking, then lists the new version and puts its code in the editor', async () => {
    let state = SAVED;
    const { requests } = fakeDashboard(
      pageApi({
        'GET /endpoints/5/transformation': () => state,
        'POST /endpoints/5/transformation/restore': () => {
          state = stateOf([version(3, V1, { restored_from: 1 }), version(2, V2), version(1, V1)]);
          return state;
        },
      }),
    );
    renderApp('/endpoints/5/transformation');
    const user = userEvent.setup();
    expect(screen.queryByRole('button', { name: 'Restore version 2' })).not.toBeInTheDocument();
    await user.click(await screen.findByRole('button', { name: 'Restore version 1' }));
    await user.click(await screen.findByRole('button', { name: 'Restore v1' }));
    const history = screen.getByRole('table', { name: 'History' });
    expect(await within(history).findByText('restored from v1')).toBeInTheDocument();
    expect(screen.getByTestId('transformation-in-force')).toHaveTextContent(
      'Version 3 is in force',
    );
    await waitFor(async () => expect(await editorText()).not.toContain('webhook.method'));
    const restore = requests().find((r) => r.url.endsWith('/restore'))!;
    expect(await restore.json()).toEqual({ version: 1 });
  });

  it('stops transforming after asking', async () => {
    const { requests } = fakeDashboard(
      pageApi({
        'DELETE /endpoints/5/transformation': { ...SAVED, current: null },
      }),
    );
    renderApp('/endpoints/5/transformation');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Stop transforming' }));
    const dialog = await screen.findByRole('dialog', { name: 'Stop transforming?' });
    await user.click(within(dialog).getByRole('button', { name: 'Stop transforming' }));
    expect(await screen.findByTestId('transformation-in-force')).toHaveTextContent(
      'No transformation is in force',
    );
    expect(requests().some((r) => r.method === 'DELETE')).toBe(true);
  });

  it('shows a viewer the code read only and the history, without a run, save, stop or restore', async () => {
    fakeDashboard(pageApi(), 'viewer');
    renderApp('/endpoints/5/transformation');
    await screen.findByRole('table', { name: 'History' });
    await waitFor(() =>
      expect(screen.getByRole('textbox', { name: 'Transformation code' })).toHaveAttribute(
        'aria-readonly',
        'true',
      ),
    );
    for (const name of [
      'Run on the example',
      'Run on a past delivery',
      'Save as new version',
      'Stop transforming',
      'Restore version 1',
    ]) {
      expect(screen.queryByRole('button', { name })).not.toBeInTheDocument();
    }
    expect(screen.queryByRole('region', { name: 'Result' })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Compare' })).toBeInTheDocument();
  });
});

describe('the endpoint page’s transformation line', () => {
  afterEach(() => setCsrfToken(null));

  it('says which version is in force and links to the transformation page', async () => {
    fakeDashboard(
      pageApi({
        'GET /endpoints/5/ledger': {
          days: [],
          throttle: { max_deliveries_per_second: null, max_in_flight: null, waiting: 0 },
        },
        'GET /endpoints/5/recoveries': [],
      }),
      'viewer',
    );
    renderApp('/endpoints/5');
    expect(await screen.findByTestId('endpoint-transformation')).toHaveTextContent(
      'Transformation: version 2 in force',
    );
    expect(screen.getByRole('link', { name: 'Transformation' })).toHaveAttribute(
      'href',
      '/endpoints/5/transformation',
    );
  });

  it('says when none is in force', async () => {
    fakeDashboard(
      pageApi({
        'GET /endpoints/5/transformation': stateOf([]),
        'GET /endpoints/5/ledger': {
          days: [],
          throttle: { max_deliveries_per_second: null, max_in_flight: null, waiting: 0 },
        },
        'GET /endpoints/5/recoveries': [],
      }),
    );
    renderApp('/endpoints/5');
    expect(await screen.findByTestId('endpoint-transformation')).toHaveTextContent(
      'Transformation: none',
    );
  });
});
