import { useState } from 'preact/hooks';
import { deleteDocument, loadDocuments, mediaTypeOf, searchKnowledge, uploadDocument, type KnowledgeDocument, type KnowledgeSearch } from '../api/knowledge';
import { ConfirmDialog, ErrorNote, Listing, When } from '../components/common';
import { DataTable } from '../components/DataTable';
import { EmptyState } from '../components/forms';
import { useAction, usePoll } from '../hooks';

const FORMAT_NAMES: Record<KnowledgeDocument['format'], string> = { text: 'Text', markdown: 'Markdown', pdf: 'PDF', faq_csv: 'FAQ (CSV)' };
const baseName = (file: string) => file.replace(/\.[^.]*$/, '');
const size = (bytes: number) => (bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`);

/**
 * Knowledge: the documents the workspace's agents search to answer (docs/agents.md
 * "Knowledge"). Upload (text, Markdown, PDF, a CSV of FAQs), delete, and try a question to see
 * which passages an agent would be given.
 */
export function KnowledgePage({ ws }: { ws: string }) {
  const documents = usePoll(() => loadDocuments(ws), 0, [ws]);
  const items = documents.data?.items;
  const [file, setFile] = useState<File | null>(null);
  const [name, setName] = useState('');
  const [removing, setRemoving] = useState<KnowledgeDocument>();
  const upload = useAction();
  const remove = useAction();
  const mediaType = file ? mediaTypeOf(file.name) : null;
  return (
    <>
      <h1>Knowledge</h1>
      <p>
        Documents your agents search to answer customers: policies, product information, opening hours. Upload text (<code>.txt</code>), Markdown (
        <code>.md</code>), PDF, or a CSV of FAQs with the columns <code>question</code> and <code>answer</code>. An agent’s answer records which document it used.
      </p>
      <form
        class="upload"
        aria-label="Upload a document"
        onSubmit={(e) => {
          e.preventDefault();
          if (!file || !mediaType) return;
          const form = e.currentTarget as HTMLFormElement;
          void upload.run(async () => {
            await uploadDocument(ws, file, name.trim() || baseName(file.name), mediaType);
            setFile(null);
            setName('');
            form.reset();
            await documents.reload();
          });
        }}
      >
        <label for="knowledge-file">File</label>
        <input
          id="knowledge-file"
          type="file"
          accept=".txt,.md,.markdown,.pdf,.csv,text/plain,text/markdown,application/pdf,text/csv"
          required
          onChange={(e) => {
            const chosen = (e.currentTarget as HTMLInputElement).files?.[0] ?? null;
            setFile(chosen);
            if (chosen && !name) setName(baseName(chosen.name));
          }}
        />
        <label for="knowledge-name">Name</label>
        <input id="knowledge-name" value={name} maxLength={140} placeholder="Returns policy" onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} />
        <button type="submit" class="primary" disabled={!file || !mediaType || upload.busy}>
          {upload.busy ? 'Uploading…' : 'Upload document'}
        </button>
      </form>
      {file && !mediaType ? (
        <p role="alert" class="error">
          {file.name} is not a .txt, .md, .pdf or .csv file.
        </p>
      ) : null}
      {upload.error ? (
        <div role="alert" class="error upload-refused">
          <p>The document was not uploaded: {upload.error.message}</p>
        </div>
      ) : null}
      <ErrorNote error={remove.error} />
      <Listing
        of={{ data: items, error: documents.error }}
        what="documents"
        empty={
          <EmptyState title="No documents yet">
            <p>Upload a document above; your agents can search it from their next answer.</p>
          </EmptyState>
        }
      >
        {(rows) => (
          <div class="scroll-x" tabIndex={0} role="region" aria-label="Documents">
            <DataTable
              caption={`Documents (${rows.length} of at most ${documents.data?.limit ?? '—'})`}
              showCaption
              columns={[
                { label: 'Name', cell: (d) => <span title={d.file_name ?? undefined}>{d.name}</span> },
                { label: 'Format', cell: (d) => FORMAT_NAMES[d.format] },
                { label: 'Passages', num: true, cell: (d) => d.passages },
                { label: 'Size', num: true, cell: (d) => size(d.bytes) },
                { label: 'Uploaded', cell: (d) => <When at={d.created_at} /> },
                {
                  label: 'Actions',
                  cell: (d) => (
                    <button type="button" disabled={remove.busy} onClick={() => setRemoving(d)}>
                      Delete<span class="visually-hidden"> {d.name}</span>
                    </button>
                  ),
                },
              ]}
              rows={rows}
              rowKey={(d) => d.document_id}
            />
          </div>
        )}
      </Listing>
      {items?.length ? <TryAQuestion ws={ws} /> : null}
      {removing ? (
        <ConfirmDialog
          title={`Delete ${removing.name}?`}
          confirmLabel="Delete document"
          dismissLabel="Keep it"
          onCancel={() => setRemoving(undefined)}
          onConfirm={() => {
            const doc = removing;
            setRemoving(undefined);
            void remove.run(async () => {
              await deleteDocument(ws, doc.document_id);
              await documents.reload();
            });
          }}
        >
          <p>Agents stop finding it from their next search. To change a document, upload the new version and delete the old one.</p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}

type Passage = { document_id: string; document_name: string; section: string | null; page?: number; text: string };

/** Runs the agents' search_knowledge as they would: the passages given and the trail row left. */
function TryAQuestion({ ws }: { ws: string }) {
  const [query, setQuery] = useState('');
  const [answer, setAnswer] = useState<KnowledgeSearch>();
  const search = useAction();
  const passages = ((answer?.output as { passages?: Passage[] } | undefined)?.passages ?? []) as Passage[];
  return (
    <section aria-label="Try a question">
      <h2>Try a question</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void search.run(async () => setAnswer(await searchKnowledge(ws, query)));
        }}
      >
        <label for="knowledge-query">A customer asks</label>
        <input id="knowledge-query" required maxLength={500} value={query} placeholder="How long does a refund take?" onInput={(e) => setQuery((e.currentTarget as HTMLInputElement).value)} />
        <button type="submit" disabled={search.busy}>
          Search
        </button>
      </form>
      <ErrorNote error={search.error} />
      {answer ? (
        <>
          <p class="meta" data-testid="knowledge-trail">
            Trail: {answer.trail.text}
          </p>
          {passages.length === 0 ? <p>No document matches.</p> : null}
          <ol class="cards">
            {passages.map((p, i) => (
              <li key={i} class="card">
                <strong>{p.document_name}</strong>
                <span class="meta">{[p.section, p.page !== undefined ? `page ${p.page}` : null].filter(Boolean).join(' · ')}</span>
                <span class="vars passage">{p.text}</span>
              </li>
            ))}
          </ol>
        </>
      ) : null}
    </section>
  );
}
