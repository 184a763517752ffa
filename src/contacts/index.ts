/** What other features use of contacts: numbers in E.164, the contact records, matching or creating a contact, the contacts stamp. */
export { toE164 } from './contactIdentity';
export { contactCollections, findContactIdFor, matchOrCreateContact } from './contacts';
export { readContactsStamp } from './contactsStamp';
