/** What other features use of contacts: numbers in E.164, the contact records, matching or creating a contact, the contacts stamp. */
export { toE164 } from './contactIdentity';
export { contactCollections, findContactByEmail, findContactByPhone, findContactIdFor, matchOrCreateContact, type ContactDoc } from './contacts';
export { readContactsStamp } from './contactsStamp';
export { backfillContactTagEntries, readSegmentEntries } from './tagEntries';
