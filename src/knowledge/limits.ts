/**
 * Every limit of a workspace's knowledge documents (docs/agents.md "Knowledge"), in one place:
 * the upload route's body reader, the parsers, the splitter, the store and the search read
 * them here. They bound what one workspace's search index holds in a process's memory (at
 * most `maxDocumentsPerWorkspace × maxPassagesPerDocument` passages of at most
 * `passageMaxChars`, about 20 MB) and what one search hands the model.
 */
export const KNOWLEDGE_LIMITS = {
  /** One uploaded file, as sent: a long handbook as PDF, or thousands of FAQ rows. */
  maxDocumentBytes: 5 * 1024 * 1024,
  /** Documents one workspace keeps; held as numbered places, so parallel uploads cannot pass it. */
  maxDocumentsPerWorkspace: 40,
  /** Passages one document is split into; a document that needs more is refused whole. */
  maxPassagesPerDocument: 500,
  /** A passage aims at this many characters (a paragraph or two, what a model quotes well)… */
  passageTargetChars: 800,
  /** …and never holds more: a longer paragraph is cut at sentences, then at words. */
  passageMaxChars: 1_200,
  /** A document's display name and its file name. */
  nameMaxChars: 140,
  fileNameMaxChars: 200,
  /** FAQ CSV: one question and one answer. */
  faqQuestionMaxChars: 500,
  faqAnswerMaxChars: 4_000,
  /** A search's query as the model writes it. */
  queryMaxChars: 500,
  /** Passages one search answers with: enough to answer, few enough for a voice turn's budget. */
  searchResults: 3,
  /** Reading one PDF's text, in its own thread (pdfText.ts): past either bound the upload is refused. */
  pdfReadTimeoutMs: 20_000,
  pdfReadMemoryMb: 256,
  /** Workspaces whose index one process keeps built (least recently searched dropped first). */
  cachedWorkspaces: 50,
} as const;
