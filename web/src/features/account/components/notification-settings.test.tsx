import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { json } from '../../../testing/fake-api';
import { fakeDashboard } from '../../../testing/fake-dashboard';
import { renderApp } from '../../../testing/render';
import { notificationKeys } from '../api/queries';

const PATH = '/settings/notifications';
const OPS = 'https://ops.example.com/campaign-api';
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

/**
 * The service's notification setting, kept between requests: `PUT` answers a secret for a new
 * URL only, as the service does; `answer` replaces the `PUT`'s answer (an error).
 */
function fakeSetting(url: string | null, answer?: Response) {
  let current = url;
  return fakeDashboard({
    'GET /account/notifications': () => ({ url: current }),
    'PUT /account/notifications': async (request: Request) => {
      if (answer) return answer;
      const next = ((await request.json()) as { url: string | null }).url;
      const isNew = next !== null && next !== current;
      current = next;
      return isNew ? { url: next, secret: SECRET } : { url: next };
    },
  });
}

const urlField = () => screen.findByRole('textbox', { name: 'Notification URL' });

describe('the notifications page', () => {
  it('says no URL is set, from the navigation, under its own title', async () => {
    fakeSetting(null);
    renderApp('/api-keys');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('link', { name: 'Notifications' }));
    expect(await screen.findByRole('heading', { name: 'Notifications', level: 1 })).toBeVisible();
    expect(await screen.findByTestId('notification-url')).toHaveTextContent(
      'No notification URL is set',
    );
    expect(await urlField()).toHaveValue('');
    expect(screen.queryByRole('button', { name: 'Remove URL' })).toBeNull();
    expect(screen.getByRole('link', { name: 'Notifications' })).toHaveAttribute(
      'aria-current',
      'page',
    );
    expect(document.title).toBe('Notifications · Campaign API dashboard');
    // What is sent and how to verify it.
    expect(screen.getAllByText('endpoint.failing').length).toBeGreaterThan(0);
    expect(screen.getByText('endpoint.disabled')).toBeInTheDocument();
    expect(screen.getByText('webhook-signature')).toBeInTheDocument();
  });

  it('sets a URL and shows its signing secret once, never caching it', async () => {
    const { requests } = fakeSetting(null);
    const { queryClient } = renderApp(PATH);
    const user = userEvent.setup();
    await user.type(await urlField(), `  ${OPS} `);
    await user.click(screen.getByRole('button', { name: 'Save URL' }));

    expect(await screen.findByTestId('secret-text')).toHaveTextContent(SECRET);
    const shown = screen.getByTestId('secret-value');
    expect(shown).toHaveTextContent('shown only once');
    expect(shown).toHaveTextContent('You will not see it again');
    expect(within(shown).getByRole('button', { name: 'Copy' })).toBeInTheDocument();
    expect(screen.getByTestId('notification-url')).toHaveTextContent(OPS);
    const put = requests().find((r) => r.method === 'PUT')!;
    expect(await put.json()).toEqual({ url: OPS });
    expect(put.headers.get('x-csrf-token')).toBe('csrf-token-of-the-session');
    expect(queryClient.getQueryData(notificationKeys.setting)).toEqual({ url: OPS });

    await user.click(screen.getByRole('button', { name: 'Done' }));
    expect(screen.queryByText(SECRET)).toBeNull();
    expect(await urlField()).toHaveValue(OPS);

    // The same URL again keeps its secret: nothing to show but that.
    await user.click(screen.getByRole('button', { name: 'Save URL' }));
    expect(await screen.findByRole('status')).toHaveTextContent('signing secret stays the same');
    expect(screen.queryByTestId('secret-value')).toBeNull();
  });

  it('checks the URL in the browser first, in the endpoint form’s words, and sends nothing', async () => {
    const { requests } = fakeSetting(
      null,
      json(422, { error: 'validation_failed', message: 'url must be a URL address' }),
    );
    renderApp(PATH);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Save URL' }));
    await screen.findByText(
      'Enter the URL the events are sent to, e.g. https://ops.example.com/campaign-api',
    );
    expect(await urlField()).toHaveAccessibleDescription(/Enter the URL the events are sent to/);
    await user.type(await urlField(), 'localhost');
    await user.click(screen.getByRole('button', { name: 'Save URL' }));
    expect(await urlField()).toHaveAccessibleDescription(
      /Enter a whole URL, starting with https:\/\/ \(or http:\/\/\), e\.g\. https:\/\/ops\.example\.com/,
    );
    await user.clear(await urlField());
    await user.type(await urlField(), 'ftp://ops.example.com');
    expect(await urlField()).toHaveAccessibleDescription(
      /The URL must start with https:\/\/ or http:\/\/, not ftp:/,
    );
    expect(screen.queryByText('url must be a URL address')).toBeNull();
    expect(requests().some((r) => r.method === 'PUT')).toBe(false);
  });

  it('shows the service’s refusal of a well-formed URL at the field until it is edited', async () => {
    fakeSetting(
      null,
      json(422, {
        error: 'validation_failed',
        message: 'url must not point to a private address',
      }),
    );
    renderApp(PATH);
    const user = userEvent.setup();
    await user.type(await urlField(), 'https://10.0.0.1/hooks');
    await user.click(screen.getByRole('button', { name: 'Save URL' }));
    const field = await urlField();
    await screen.findByText('url must not point to a private address');
    expect(field).toHaveAttribute('aria-invalid', 'true');
    expect(field).toHaveAccessibleDescription(/url must not point to a private address/);
    expect(field).toHaveValue('https://10.0.0.1/hooks');
    expect(screen.queryByTestId('secret-value')).toBeNull();
    await user.type(field, 'x');
    expect(screen.queryByText('url must not point to a private address')).toBeNull();
  });

  it('shows an error the service answered for the whole request as an alert', async () => {
    fakeSetting(
      null,
      json(503, { error: 'service_unavailable', message: 'Database unavailable; retry shortly' }),
    );
    renderApp(PATH);
    const user = userEvent.setup();
    await user.type(await urlField(), OPS);
    await user.click(screen.getByRole('button', { name: 'Save URL' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('The URL was not saved');
    expect(alert).toHaveTextContent('Database unavailable; retry shortly');
  });

  it('removes the URL after a confirmation', async () => {
    const { requests } = fakeSetting(OPS);
    renderApp(PATH);
    const user = userEvent.setup();
    expect(await screen.findByTestId('notification-url')).toHaveTextContent(OPS);
    await user.click(screen.getByRole('button', { name: 'Remove URL' }));
    const dialog = await screen.findByRole('dialog', { name: 'Remove the notification URL?' });
    expect(requests().filter((r) => r.method === 'PUT')).toHaveLength(0);
    await user.click(within(dialog).getByRole('button', { name: 'Remove the URL' }));

    expect(await screen.findByText(/No notification URL is set/)).toBeInTheDocument();
    expect(await urlField()).toHaveValue('');
    expect(screen.queryByRole('button', { name: 'Remove URL' })).toBeNull();
    const put = requests().find((r) => r.method === 'PUT')!;
    expect(await put.json()).toEqual({ url: null });
  });

  it('shows a viewer the URL with nothing to change it', async () => {
    fakeDashboard({ 'GET /account/notifications': { url: OPS } }, 'viewer');
    renderApp(PATH);
    expect(await screen.findByTestId('notification-url')).toHaveTextContent(OPS);
    expect(screen.getByText('Only an admin of your account can change it.')).toBeInTheDocument();
    expect(screen.queryByRole('textbox', { name: 'Notification URL' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Save URL' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Remove URL' })).toBeNull();
  });
});
