import { splitIntoPassages } from '../../../src/knowledge/passages';
import { faqSections, markdownSections } from '../../../src/knowledge/readDocument';
import { buildKnowledgeIndex } from '../../../src/knowledge/searchIndex';

const docs = [
  { _id: 'kdoc_returns', name: 'Returns policy' },
  { _id: 'kdoc_faq', name: 'Customer FAQ' },
  { _id: 'kdoc_shipping', name: 'Shipping' },
];

const passages = new Map([
  [
    'kdoc_returns',
    splitIntoPassages(
      markdownSections(
        [
          '# Returns',
          'Items can be returned within 30 days of delivery if unused and in their original box.',
          '## Damaged items',
          'A damaged kettle is replaced free of charge; send a photo of the damage to support.',
        ].join('\n'),
      ),
    ),
  ],
  ['kdoc_faq', splitIntoPassages(faqSections('question,answer\nHow long does a refund take?,Refunds reach your account within five working days.\nDo you have a shop?,We sell online only.'))],
  ['kdoc_shipping', splitIntoPassages(markdownSections('Orders ship within two days. Delivery to Mumbai takes three days; elsewhere up to a week.'))],
]);

describe('knowledge search ranking (MiniSearch, BM25)', () => {
  const index = buildKnowledgeIndex('t1', docs, passages);

  it('finds the passage that answers, first, with its document', () => {
    const [top] = index.search('how long until my refund arrives');
    expect(top).toMatchObject({ documentId: 'kdoc_faq', documentName: 'Customer FAQ', title: 'How long does a refund take?', text: 'Refunds reach your account within five working days.' });
  });

  it('ranks a heading match over the same word in running text, and finds word forms and small typos', () => {
    expect(index.search('damaged')[0]).toMatchObject({ documentId: 'kdoc_returns', title: 'Returns › Damaged items' });
    expect(index.search('refunds')[0]?.documentId).toBe('kdoc_faq');
    expect(index.search('delivry Mumbai')[0]?.documentId).toBe('kdoc_shipping');
  });

  it('answers at most three passages, best first, and nothing for words no document has', () => {
    const hits = index.search('returned refund delivery kettle shop');
    expect(hits.length).toBe(3);
    expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((a, b) => b - a));
    expect(index.search('zebra')).toEqual([]);
    expect(index.search('   ')).toEqual([]);
  });

  it('counts its documents and keeps its token', () => {
    expect(index.documentCount).toBe(3);
    expect(index.token).toBe('t1');
    expect(buildKnowledgeIndex('t0', [], new Map()).search('refund')).toEqual([]);
  });
});
