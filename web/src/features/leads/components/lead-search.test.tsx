import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { json } from '../../../testing/fake-api';
import { fakeDashboard, fakeLead } from '../../../testing/fake-dashboard';
import { renderWithProviders } from '../../../testing/render';
import { LeadSearch } from './lead-search';

/** Three leads named A…, served two a page, the cursor being the next index. */
function pagedLeads() {
  const all = [
    fakeLead(1, { first_name: 'Ada', last_name: 'Byron' }),
    fakeLead(2, { first_name: 'Ada', last_name: 'Lovelace' }),
    fakeLead(3, { first_name: 'Alan', last_name: 'Turing' }),
  ];
  return fakeDashboard({
    'GET /campaigns/4/leads': (_request, url) => {
      const q = url.searchParams.get('q')!;
      const start = Number(url.searchParams.get('cursor') ?? 0);
      const items = all.slice(start, start + 2);
      return {
        field: url.searchParams.get('field') ?? 'name',
        value: q,
        items,
        next_cursor: start + 2 < all.length ? String(start + 2) : null,
      };
    },
  });
}

describe('the lead search', () => {
  it('asks nothing until a search is submitted, then lists the matches with links to their pages', async () => {
    const { requests } = pagedLeads();
    renderWithProviders(<LeadSearch campaignId={4} />);
    expect(screen.getByText('Type a phone, an email or a name and press Search.')).toBeVisible();
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Search leads', { selector: 'input' }), '  ada ');
    await user.click(screen.getByRole('button', { name: 'Search' }));
    const link = await screen.findByRole('link', { name: 'Ada Lovelace' });
    expect(link).toHaveAttribute('href', '/leads/2');
    expect(screen.getByText('2+ leads with names starting with “ada”')).toBeVisible();
    const reads = requests().filter((r) => r.url.includes('/leads'));
    expect(reads).toHaveLength(1);
    const query = new URL(reads[0].url).searchParams;
    expect(Object.fromEntries(query)).toEqual({ q: 'ada', limit: '25' });
  });

  it('pages with next_cursor behind Load more and sends the chosen field', async () => {
    const { requests } = pagedLeads();
    renderWithProviders(<LeadSearch campaignId={4} />);
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Search leads', { selector: 'input' }), 'a');
    await user.selectOptions(screen.getByLabelText('Search by'), 'name');
    await user.click(screen.getByRole('button', { name: 'Search' }));
    await screen.findByRole('link', { name: 'Ada Byron' });
    expect(screen.queryByRole('link', { name: 'Alan Turing' })).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Load more' }));
    expect(await screen.findByRole('link', { name: 'Alan Turing' })).toBeVisible();
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull());
    expect(screen.getAllByTestId('lead-row').map((row) => row.textContent)).toEqual([
      expect.stringContaining('Ada Byron'),
      expect.stringContaining('Ada Lovelace'),
      expect.stringContaining('Alan Turing'),
    ]);
    const last = new URL(
      requests()
        .filter((r) => r.url.includes('/leads'))
        .at(-1)!.url,
    ).searchParams;
    expect(last.get('field')).toBe('name');
    expect(last.get('cursor')).toBe('2');
  });

  it('says a refused phone in the search box’s words, not the API’s parameter name, and says when nothing matches', async () => {
    fakeDashboard({
      'GET /campaigns/4/leads': (_request, url) =>
        url.searchParams.get('q') === '415'
          ? json(422, {
              error: 'validation_failed',
              message: "q is not a valid phone number in the campaign's region (US)",
            })
          : { field: 'email', value: 'nobody@', items: [], next_cursor: null },
    });
    renderWithProviders(<LeadSearch campaignId={4} />);
    const user = userEvent.setup();
    const box = screen.getByLabelText('Search leads', { selector: 'input' });
    await user.type(box, '415');
    await user.click(screen.getByRole('button', { name: 'Search' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(
      '“415” is not a whole phone number of this campaign’s region (US). Enter every digit of the number, in any format',
    );
    expect(alert).not.toHaveTextContent(/\bq\b/);
    await user.clear(box);
    await user.type(box, 'nobody@{Enter}');
    expect(await screen.findByText('No lead matches')).toBeVisible();
    expect(
      screen.getByText('No lead of this campaign has emails starting with “nobody@”.'),
    ).toBeVisible();
  });
});
