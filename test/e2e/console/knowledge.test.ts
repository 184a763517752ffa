import { checkPage, waitForText, screenshot } from '../../support/browser';
import { atPhoneWidth, useConsolePage } from '../../support/consolePage';
import { makePdf } from '../../support/pdf';

/**
 * Knowledge documents and agent tools in the web console, in Debian's chromium against the
 * real API: upload a PDF and a Markdown file, try a question and see which document answers,
 * delete a document, a refused file says why; declare a tool, its secret shown once, delete it.
 * At 1280 px and at 390 px without sideways scrolling. Needs `npm run build:web` first.
 */
jest.setTimeout(120_000);

describe('knowledge and agent tools in the web console', () => {
  const { ws, page, base } = useConsolePage();


  it('uploads documents, answers a question naming the document, refuses a bad file, deletes one', async () => {
    await page().goto(`${base()}/console/w/${ws.workspaceId}/campaigns`);
    await page().click('nav a:has-text("Knowledge")');
    await page().waitForSelector('h1:has-text("Knowledge")');
    await waitForText(page(), 'main', (t) => t.includes('No documents yet'));
    await checkPage(page(), 'knowledge-empty');

    await page().setInputFiles('#knowledge-file', { name: 'Warranty terms.pdf', mimeType: 'application/pdf', buffer: makePdf([['Warranty', 'Every kettle carries a two year warranty from the day of delivery.']]) });
    expect(await page().inputValue('#knowledge-name')).toBe('Warranty terms');
    await page().click('button:has-text("Upload document")');
    await waitForText(page(), 'table', (t) => t.includes('Warranty terms'));
    await page().setInputFiles('#knowledge-file', {
      name: 'returns.md',
      mimeType: 'text/markdown',
      buffer: Buffer.from('# Returns\nItems can be returned within 30 days.\n\n## Refunds\nRefunds reach your account within five working days.'),
    });
    await page().click('button:has-text("Upload document")');
    await waitForText(page(), 'table', (t) => t.includes('returns') && t.includes('Markdown'));

    await page().fill('#knowledge-query', 'how long is the kettle warranty');
    await page().click('button:has-text("Search")');
    const trail = await waitForText(page(), '[data-testid=knowledge-trail]', (t) => t.includes('used'));
    expect(trail).toMatch(/^Trail: Searched the knowledge documents for "how long is the kettle warranty": used "Warranty terms" \(kdoc_[0-9a-f]{24}\)/);
    await checkPage(page(), 'knowledge');
    await atPhoneWidth(page(), 'knowledge-390');

    await page().setInputFiles('#knowledge-file', { name: 'faq.csv', mimeType: 'text/csv', buffer: Buffer.from('q,a\nx,y\n') });
    await page().click('button:has-text("Upload document")');
    const refusal = await waitForText(page(), '.upload-refused', (t) => t.length > 0);
    expect(refusal).toContain('The document was not uploaded: An FAQ file needs a header row with the columns question and answer.');
    await screenshot(page(), 'knowledge-refused');

    await page().click('button:has-text("Delete Warranty terms")');
    await page().click('dialog button:has-text("Delete document")');
    await waitForText(page(), 'table', (t) => !t.includes('Warranty terms'));
  });

  it('declares a tool, shows its secret once, lists it and deletes it', async () => {
    await page().click('nav a:has-text("Agent tools")');
    await page().waitForSelector('h1:has-text("Agent tools")');
    await waitForText(page(), 'main', (t) => t.includes('No tools yet'));
    await page().fill('#tool-name', 'lookup_order');
    await page().fill('#tool-description', 'Look up an order by its number.');
    await page().fill('#tool-url', 'https://shop.example.com/agent/orders');
    await page().click('button:has-text("Declare tool")');
    await page().waitForSelector('.shown-once');
    expect(await page().inputValue('.shown-once input')).toMatch(/^whsec_/);
    await waitForText(page(), 'ul.cards', (t) => t.includes('lookup_order') && t.includes('POST https://shop.example.com/agent/orders · 10 s'));
    await checkPage(page(), 'tools');
    await atPhoneWidth(page(), 'tools-390');

    await page().fill('#tool-name', 'flat');
    await page().fill('#tool-description', 'x');
    await page().fill('#tool-url', 'https://shop.example.com/x');
    await page().fill('#tool-parameters', '{"type":"string"}');
    await page().click('button:has-text("Declare tool")');
    expect(await waitForText(page(), '.error', (t) => t.length > 0)).toContain('parameters must be an object schema ("type": "object"). (invalid_parameters_schema)');

    await page().click('button:has-text("I have copied it")');
    await page().click('button:has-text("Delete lookup_order")');
    await page().click('dialog button:has-text("Delete tool")');
    await waitForText(page(), 'main', (t) => t.includes('No tools yet'));
  });
});
