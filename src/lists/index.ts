/** What other features use of uploaded lists: reading a list and its rows. */
export { findList, readListRows, type UploadedListDoc } from './listStore';
