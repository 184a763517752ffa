import type { ComponentChildren, HTMLAttributes } from 'preact';

/** A cell's or a row's own attributes: a class, a title, `data-*` hooks the browser tests read. */
type Attributes<E extends EventTarget> = HTMLAttributes<E> & Partial<Record<`data-${string}`, string | number>>;

/** One column of a DataTable: its header, and what each row shows under it. */
export interface Column<T> {
  label: string;
  cell: (row: T) => ComponentChildren;
  /** A count: right-aligned on a desktop (`td.num`). */
  num?: boolean;
  /** The row's own name (`<th scope="row">`), read out with each of the row's other cells. */
  rowHeader?: boolean;
  /** Anything else the cell carries (a title, a `data-*` hook, a class of its own in place of `num`'s). */
  cellProps?: (row: T) => Attributes<HTMLTableCellElement>;
}

/**
 * The console's table: the columns are declared once, and the header row, each cell's
 * `data-label` and the rows follow from them. Under 40rem (styles.css) the rows stack as
 * cards and each cell shows its column's name from `data-label`, so a table stays readable
 * at 390 px without scrolling sideways; the `<thead>` stays in the document, out of sight,
 * for screen readers. The caption names the table for them too (visible only when asked).
 */
export function DataTable<T>({
  caption,
  showCaption = false,
  columns,
  rows,
  rowKey,
  rowProps,
  testId,
}: {
  caption: ComponentChildren;
  showCaption?: boolean;
  columns: readonly Column<T>[];
  rows: readonly T[];
  rowKey: (row: T, index: number) => string | number;
  rowProps?: (row: T) => Attributes<HTMLTableRowElement>;
  testId?: string;
}) {
  return (
    <table class="stack" data-testid={testId}>
      <caption class={showCaption ? undefined : 'visually-hidden'}>{caption}</caption>
      <thead>
        <tr>
          {columns.map((c, i) => (
            <th key={i} scope="col">
              {c.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row, r) => (
          <tr key={rowKey(row, r)} {...rowProps?.(row)}>
            {columns.map((c, i) => {
              const props = { class: c.num ? 'num' : undefined, ...c.cellProps?.(row), 'data-label': c.label };
              return c.rowHeader ? (
                <th key={i} scope="row" {...props}>
                  {c.cell(row)}
                </th>
              ) : (
                <td key={i} {...props}>
                  {c.cell(row)}
                </td>
              );
            })}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
