/**
 * On a phone (styles.css, under 40rem) a table's rows stack as cards, one line per cell, and
 * each cell shows its column's header from `data-label` (a CSS ::before). The labels are
 * copied here from each table's header row, for every table the app renders, so pages write
 * plain tables and stay readable at 390 px without scrolling sideways.
 */
export function labelTableCells(root: ParentNode): void {
  for (const table of root.querySelectorAll('table')) {
    const headers = [...table.querySelectorAll('thead tr:first-child > th')].flatMap((th) => Array<string>((th as HTMLTableCellElement).colSpan || 1).fill(th.textContent?.trim() ?? ''));
    if (!headers.length) continue;
    for (const row of table.querySelectorAll('tbody tr')) {
      let column = 0;
      for (const cell of (row as HTMLTableRowElement).cells) {
        const label = headers[column] ?? '';
        if (cell.getAttribute('data-label') !== label) cell.setAttribute('data-label', label);
        column += cell.colSpan || 1;
      }
    }
  }
}

/** Keeps every table under `root` labelled as pages render and poll (attribute writes are not observed, so this cannot loop). */
export function keepTablesLabelled(root: HTMLElement): void {
  let queued = false;
  new MutationObserver(() => {
    if (queued) return;
    queued = true;
    queueMicrotask(() => {
      queued = false;
      labelTableCells(root);
    });
  }).observe(root, { childList: true, subtree: true, characterData: true });
}
