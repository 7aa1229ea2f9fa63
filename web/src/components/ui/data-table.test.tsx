import { screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '../../testing/render';
import { DataTable, showsCards, type DataColumn } from './data-table';

interface Day {
  day: string;
  delivered: number;
  skipped: number;
  note: string;
}

const COLUMNS: Array<DataColumn<Day>> = [
  {
    key: 'day',
    header: 'Day',
    rowHeader: true,
    cell: (d) => d.day,
    cardCell: (d) => `On ${d.day}`,
  },
  { key: 'delivered', header: 'Delivered', numeric: true, cell: (d) => d.delivered },
  { key: 'skipped', header: 'Skipped', numeric: true, cell: (d) => d.skipped },
  { key: 'note', header: 'Note', wide: true, cell: (d) => d.note },
];
const ROWS: Day[] = [
  { day: '2026-11-25', delivered: 9, skipped: 1, note: 'endpoint disabled at noon' },
  { day: '2026-11-24', delivered: 4, skipped: 0, note: '' },
];

/** Makes every media query match (a phone's `max-width`) until the test ends. */
function onAPhone() {
  const matchMedia = window.matchMedia;
  vi.spyOn(window, 'matchMedia').mockImplementation((query) => ({
    ...matchMedia(query),
    matches: true,
  }));
}

describe('a data table', () => {
  afterEach(() => vi.restoreAllMocks());

  it('shows cards exactly when its box is narrower than the table, or before it is measured on a narrow screen', () => {
    expect(showsCards(358, 480, true)).toBe(true);
    expect(showsCards(990, 480, true)).toBe(false);
    expect(showsCards(530, 720, false)).toBe(true);
    expect(showsCards(0, 720, true)).toBe(true);
    expect(showsCards(0, 720, false)).toBe(false);
  });

  it('is a table with a header per column and a row header per row on a wide screen', () => {
    renderWithProviders(
      <DataTable columns={COLUMNS} rows={ROWS} rowKey={(d) => d.day} label="Days" minWidth={480} />,
    );
    const table = screen.getByRole('table', { name: 'Days' });
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((th) => th.textContent),
    ).toEqual(['Day', 'Delivered', 'Skipped', 'Note']);
    expect(within(table).getByRole('rowheader', { name: '2026-11-25' })).toBeInTheDocument();
  });

  it('is a list of cards on a phone, each titled by its row header and listing every other value with its label', () => {
    onAPhone();
    renderWithProviders(
      <DataTable columns={COLUMNS} rows={ROWS} rowKey={(d) => d.day} label="Days" minWidth={480} />,
    );
    expect(screen.queryByRole('table')).toBeNull();
    const cards = within(screen.getByRole('list', { name: 'Days' })).getAllByRole('listitem');
    expect(cards).toHaveLength(2);
    expect(cards[0]).toHaveTextContent('On 2026-11-25');
    const pairs = [...cards[0].querySelectorAll('dt')].map((dt) => [
      dt.textContent,
      dt.nextElementSibling?.textContent,
    ]);
    expect(pairs).toEqual([
      ['Delivered', '9'],
      ['Skipped', '1'],
      ['Note', 'endpoint disabled at noon'],
    ]);
  });
});
