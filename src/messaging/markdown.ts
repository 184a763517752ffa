/**
 * Markdown in an outgoing text, rewritten into WhatsApp's own formatting (api-core §4: bold
 * becomes single-asterisk bold, a link becomes `label: url`). Also: `*em*`/`_em_` become
 * `_em_`, `~~strike~~` becomes `~strike~`, a `# heading` line becomes a bold line, and
 * `<https://…>` becomes the bare address. Code spans and fenced blocks are left exactly as
 * written (WhatsApp shows them as monospace). Anything else passes through unchanged, so
 * plain text is never altered.
 */

// Private-use characters stand in for protected pieces and for converted bold while the
// italic pass runs, so `**a**` is not read again as `*a*` italic.
const SLOT = '\uE000';
const BOLD = '\uE001';

export function markdownToWhatsApp(text: string): string {
  const kept: string[] = [];
  const keep = (piece: string) => `${SLOT}${kept.push(piece) - 1}${SLOT}`;

  let out = text
    .replace(/```[\s\S]*?```/g, keep)
    .replace(/`[^`\n]+`/g, keep)
    .replace(/<(https?:\/\/[^\s>]+)>/g, (_m, url: string) => keep(url))
    .replace(/\[([^\]\n]+)\]\(\s*([^)\s]+)(?:\s+"[^"]*")?\s*\)/g, (_m, label: string, url: string) =>
      label.trim() === url ? keep(url) : `${label}: ${keep(url)}`,
    )
    .replace(/^[ \t]{0,3}#{1,6}[ \t]+(.+?)[ \t#]*$/gm, (_m, heading: string) => `${BOLD}${heading.replace(/\*\*|__/g, '')}${BOLD}`)
    .replace(/\*\*(?=\S)([\s\S]*?\S)\*\*/g, (_m, inner: string) => `${BOLD}${inner}${BOLD}`)
    .replace(/(^|[^\w])__(?=\S)([\s\S]*?\S)__(?!\w)/g, (_m, before: string, inner: string) => `${before}${BOLD}${inner}${BOLD}`)
    .replace(/(^|[^\w*])\*(?=[^\s*])([^*\n]*?[^\s*])\*(?![\w*])/g, (_m, before: string, inner: string) => `${before}_${inner}_`)
    .replace(/~~(?=\S)([\s\S]*?\S)~~/g, (_m, inner: string) => `~${inner}~`);

  out = out.split(BOLD).join('*');
  return out.replace(new RegExp(`${SLOT}(\\d+)${SLOT}`, 'g'), (_m, i: string) => kept[Number(i)]!);
}
