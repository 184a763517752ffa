import { Refusal } from '../domain/refusal';

/**
 * Why a knowledge upload was refused (docs/agents.md "Knowledge"). `api/refusals.ts` gives each
 * its code: a file that cannot be read or is too big is the caller's to fix (400), a full
 * workspace is a conflict with what it holds (409).
 */
export type KnowledgeRefusalReason =
  | 'unsupported_format'
  | 'invalid_encoding'
  | 'invalid_pdf'
  | 'invalid_faq_csv'
  | 'empty_document'
  | 'document_too_large'
  | 'too_many_passages'
  | 'document_limit_reached';

export class KnowledgeRefusal extends Refusal<KnowledgeRefusalReason> {
  override readonly name = 'KnowledgeRefusal';
}
