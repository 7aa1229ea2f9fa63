import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { json } from '../../../testing/fake-api';
import { fakeDashboard } from '../../../testing/fake-dashboard';
import { renderApp } from '../../../testing/render';
import { portalOriginKeys } from '../api/queries';

const PATH = '/settings/portal';
const APP = 'https://app.example.com';
const LOCAL = 'http://localhost:5173';

/**
 * The service's portal origins, kept between requests: `PUT` stores the list as given, as the
 * service does for valid origins; `answer` replaces the `PUT`'s answer (an error).
 */
function fakeOrigins(origins: string[], answer?: Response) {
  let current = origins;
  return fakeDashboard({
    'GET /account/portal-origins': () => ({ origins: current }),
    'PUT /account/portal-origins': async (request: Request) => {
      if (answer) return answer;
      current = ((await request.json()) as { origins: string[] }).origins;
      return { origins: current };
    },
  });
}

const originField = () => screen.findByRole('textbox', { name: 'Portal origin' });
const shownOrigins = () => screen.queryAllByTestId('portal-origin').map((row) => row.textContent);
const puts = (requests: () => Request[]) => requests().filter((r) => r.method === 'PUT');

describe('the embedded portal settings page', () => {
  it('says no origin is registered and what origins are for, from the navigation', async () => {
    fakeOrigins([]);
    renderApp('/api-keys');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('link', { name: 'Embedded portal' }));
    expect(await screen.findByRole('heading', { name: 'Embedded portal', level: 1 })).toBeVisible();
    expect(screen.getByText(/Only pages on these origins may show/)).toBeInTheDocument();
    expect(await screen.findByTestId('no-portal-origins')).toHaveTextContent(
      'No origin is registered',
    );
    expect(await originField()).toHaveValue('');
    expect(screen.getByRole('link', { name: 'Embedded portal' })).toHaveAttribute(
      'aria-current',
      'page',
    );
    expect(document.title).toBe('Embedded portal · Campaign API dashboard');
  });

  it('adds an origin, normalised as the service writes it, keeping the others, and empties the field', async () => {
    const { requests } = fakeOrigins([LOCAL]);
    const { queryClient } = renderApp(PATH);
    const user = userEvent.setup();
    await user.type(await originField(), '  https://App.Example.com:443 ');
    await user.click(screen.getByRole('button', { name: 'Add origin' }));

    await screen.findByText(APP);
    expect(shownOrigins()).toEqual([expect.stringContaining(LOCAL), expect.stringContaining(APP)]);
    const [put] = puts(requests);
    expect(await put.json()).toEqual({ origins: [LOCAL, APP] });
    expect(put.headers.get('x-csrf-token')).toBe('csrf-token-of-the-session');
    expect(queryClient.getQueryData(portalOriginKeys.origins)).toEqual({ origins: [LOCAL, APP] });
    expect(await originField()).toHaveValue('');
  });

  it('checks the origin in the browser first, as the service does, and sends nothing', async () => {
    const { requests } = fakeOrigins([APP]);
    renderApp(PATH);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Add origin' }));
    expect(await originField()).toHaveAccessibleDescription(/Enter an origin, e\.g\./);
    for (const [typed, problem] of [
      ['http://app.example.com', /must use https:\/\/ \(http:\/\/ only for localhost/],
      ['https://app.example.com/embed', /without a path, query or wildcard/],
      ['https://*.example.com', /without a path, query or wildcard/],
      ['app.example.com', /Enter an origin such as https:\/\/app\.example\.com/],
      [`${APP}:443`, /https:\/\/app\.example\.com is registered already/],
    ] as const) {
      await user.clear(await originField());
      await user.type(await originField(), typed);
      await user.click(screen.getByRole('button', { name: 'Add origin' }));
      expect(await originField()).toHaveAccessibleDescription(problem);
      expect(await originField()).toHaveAttribute('aria-invalid', 'true');
    }
    expect(puts(requests)).toHaveLength(0);
  });

  it('shows the service’s {error, message} at the field until the origin is edited', async () => {
    fakeOrigins(
      [],
      json(422, { error: 'validation_failed', message: 'origins: may hold at most 10 origins' }),
    );
    renderApp(PATH);
    const user = userEvent.setup();
    await user.type(await originField(), APP);
    await user.click(screen.getByRole('button', { name: 'Add origin' }));
    await screen.findByText('origins: may hold at most 10 origins');
    const field = await originField();
    expect(field).toHaveAttribute('aria-invalid', 'true');
    expect(field).toHaveAccessibleDescription(/may hold at most 10 origins/);
    expect(field).toHaveValue(APP);
    expect(screen.getByTestId('no-portal-origins')).toBeInTheDocument();
    await user.type(field, 'x');
    expect(screen.queryByText('origins: may hold at most 10 origins')).toBeNull();
  });

  it('shows an error about the whole request as an alert', async () => {
    fakeOrigins(
      [],
      json(503, { error: 'service_unavailable', message: 'Database unavailable; retry shortly' }),
    );
    renderApp(PATH);
    const user = userEvent.setup();
    await user.type(await originField(), APP);
    await user.click(screen.getByRole('button', { name: 'Add origin' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('The origin was not added');
    expect(alert).toHaveTextContent('Database unavailable; retry shortly');
  });

  it('removes one origin after a confirmation, saving the others', async () => {
    const { requests } = fakeOrigins([APP, LOCAL]);
    renderApp(PATH);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: `Remove ${APP}` }));
    const dialog = await screen.findByRole('dialog', { name: `Remove ${APP}?` });
    expect(puts(requests)).toHaveLength(0);
    await user.click(within(dialog).getByRole('button', { name: 'Remove the origin' }));

    await screen.findByRole('button', { name: `Remove ${LOCAL}` });
    await expect.poll(shownOrigins).toEqual([expect.stringContaining(LOCAL)]);
    const [put] = puts(requests);
    expect(await put.json()).toEqual({ origins: [LOCAL] });
  });

  it('shows a viewer the origins with nothing to change them', async () => {
    fakeDashboard({ 'GET /account/portal-origins': { origins: [APP] } }, 'viewer');
    renderApp(PATH);
    expect(await screen.findByText(APP)).toBeInTheDocument();
    expect(screen.getByText('Only an admin of your account can change them.')).toBeInTheDocument();
    expect(screen.queryByRole('textbox', { name: 'Portal origin' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Add origin' })).toBeNull();
    expect(screen.queryByRole('button', { name: `Remove ${APP}` })).toBeNull();
  });
});
