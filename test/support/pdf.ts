/**
 * A small, valid PDF written byte by byte: one page per entry of `pages`, each line of a page
 * drawn as text in Helvetica, with a correct cross-reference table (offsets counted here), so
 * a real PDF parser reads it as it would any file. Only printable ASCII: the text is placed
 * in a PDF string with `(`, `)` and `\` escaped.
 */
export function makePdf(pages: string[][]): Buffer {
  const objects: string[] = [];
  const fontId = 3;
  const pageIds: number[] = [];
  // 1 catalog, 2 pages, 3 font, then a page and its content stream per page.
  let next = 4;
  const bodies: Record<number, string> = {};
  for (const lines of pages) {
    const pageId = next++;
    const contentId = next++;
    pageIds.push(pageId);
    const escaped = lines.map((line) => line.replace(/[\\()]/g, (c) => `\\${c}`));
    const stream = ['BT', '/F1 12 Tf', '14 TL', '72 720 Td', ...escaped.map((line) => `(${line}) '`), 'ET'].join('\n');
    bodies[pageId] = `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${fontId} 0 R >> >> /Contents ${contentId} 0 R >>`;
    bodies[contentId] = `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`;
  }
  bodies[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  bodies[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pageIds.length} >>`;
  bodies[fontId] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  for (let id = 1; id < next; id++) {
    offsets[id] = Buffer.byteLength(out, 'latin1');
    objects.push(`${id} 0 obj\n${bodies[id]}\nendobj\n`);
    out += objects[objects.length - 1];
  }
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${next}\n0000000000 65535 f \n`;
  for (let id = 1; id < next; id++) out += `${String(offsets[id]).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${next} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}
