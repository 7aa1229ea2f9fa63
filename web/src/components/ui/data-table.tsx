import { Paper, Stack, Table, Text, VisuallyHidden } from '@mantine/core';
import { useElementSize, useMediaQuery } from '@mantine/hooks';
import type { ReactNode } from 'react';
import classes from './data-table.module.css';

/** One column of a {@link DataTable}. */
export interface DataColumn<T> {
  /** Unique within the table. */
  key: string;
  /** The column's header in the table, and the label of its value in a card. */
  header: string;
  /** The cell's content for `row`. */
  cell: (row: T) => ReactNode;
  /** What a card shows instead of {@link cell} (a row header read without its column's header). */
  cardCell?: (row: T) => ReactNode;
  /** A figure: right-aligned in the table. */
  numeric?: boolean;
  /** The cell names its row: a row header in the table, the title of the card. One at most. */
  rowHeader?: boolean;
  /** Long text (a message, an address): the whole width of a card. */
  wide?: boolean;
  /** Kept on one line in the table; in a card broken between words only (phones, times, figures). */
  nowrap?: boolean;
  /** The header is for assistive technology only (a column of buttons). */
  hideHeader?: boolean;
}

/** The viewport width under which a table is always shown as cards (Mantine's `sm`). */
export const CARDS_BELOW = '48em';

/**
 * Whether a table `minWidth` pixels wide is shown as cards: when its box is narrower (measured
 * once laid out), or, before that, when the viewport is narrower than {@link CARDS_BELOW}.
 */
export function showsCards(boxWidth: number, minWidth: number, narrowViewport: boolean): boolean {
  return boxWidth > 0 ? boxWidth < minWidth : narrowViewport;
}

/**
 * A table of `rows` by `columns` that stays readable at any width (docs/dashboard.md#the-browser-app):
 * a table where its `minWidth` fits its box, else one card per row (a list named `label`, each
 * card titled by the `rowHeader` column and listing every other column as a label and its value),
 * so that every value stays visible without scrolling sideways. Badges are never cut.
 *
 * Name it with `label` (its accessible name) or `labelledBy` (the id of a heading).
 */
export function DataTable<T>({
  columns,
  rows,
  rowKey,
  label,
  labelledBy,
  minWidth,
  testId,
  rowTestId,
  striped = false,
  bordered = true,
}: {
  columns: Array<DataColumn<T>>;
  rows: T[];
  rowKey: (row: T) => string | number;
  label?: string;
  labelledBy?: string;
  /** The narrowest box, in px, the table reads well in; below it, cards. */
  minWidth: number;
  /** `data-testid` of the table or the list of cards. */
  testId?: string;
  /** `data-testid` of each row or card. */
  rowTestId?: string;
  striped?: boolean;
  /** A border around the table. */
  bordered?: boolean;
}) {
  const { ref, width } = useElementSize();
  const narrowViewport = useMediaQuery(`(max-width: ${CARDS_BELOW})`, undefined, {
    getInitialValueInEffect: false,
  });
  const cards = showsCards(width, minWidth, narrowViewport);
  const title = columns.find((column) => column.rowHeader);
  const fields = columns.filter((column) => !column.rowHeader);
  const name = { 'aria-label': label, 'aria-labelledby': labelledBy };

  return (
    <div ref={ref} className={classes.root}>
      {cards ? (
        <Stack component="ul" gap="sm" className={classes.cards} data-testid={testId} {...name}>
          {rows.map((row) => (
            <Paper
              key={rowKey(row)}
              component="li"
              withBorder
              radius="md"
              p="sm"
              data-testid={rowTestId}
            >
              <Stack gap={6}>
                {title && (
                  <Text fw={600} size="sm" component="div">
                    {(title.cardCell ?? title.cell)(row)}
                  </Text>
                )}
                <dl className={classes.fields}>
                  {fields.map((column) => (
                    <div key={column.key} className={column.wide ? classes.wide : classes.field}>
                      <dt className={classes.label}>
                        {column.hideHeader ? (
                          <VisuallyHidden>{column.header}</VisuallyHidden>
                        ) : (
                          column.header
                        )}
                      </dt>
                      <dd
                        className={
                          column.nowrap ? `${classes.value} ${classes.nowrap}` : classes.value
                        }
                      >
                        {(column.cardCell ?? column.cell)(row)}
                      </dd>
                    </div>
                  ))}
                </dl>
              </Stack>
            </Paper>
          ))}
        </Stack>
      ) : (
        <Paper withBorder={bordered} radius="md">
          <Table.ScrollContainer minWidth={minWidth}>
            <Table
              verticalSpacing="xs"
              fz="sm"
              striped={striped}
              highlightOnHover
              data-testid={testId}
              {...name}
            >
              <Table.Thead>
                <Table.Tr>
                  {columns.map((column) => (
                    <Table.Th
                      key={column.key}
                      scope="col"
                      ta={column.numeric ? 'right' : undefined}
                    >
                      {column.hideHeader ? (
                        <VisuallyHidden>{column.header}</VisuallyHidden>
                      ) : (
                        column.header
                      )}
                    </Table.Th>
                  ))}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {rows.map((row) => (
                  <Table.Tr key={rowKey(row)} data-testid={rowTestId}>
                    {columns.map((column) => {
                      const Cell = column.rowHeader ? Table.Th : Table.Td;
                      return (
                        <Cell
                          key={column.key}
                          scope={column.rowHeader ? 'row' : undefined}
                          fw={column.rowHeader ? 500 : undefined}
                          ta={column.numeric ? 'right' : undefined}
                          style={{
                            whiteSpace: column.nowrap ? 'nowrap' : undefined,
                            overflowWrap: column.wide ? 'break-word' : undefined,
                          }}
                        >
                          {column.cell(row)}
                        </Cell>
                      );
                    })}
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Paper>
      )}
    </div>
  );
}
