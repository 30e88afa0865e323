// The page engine (docs/events.md, "Page documents"): rows of any listing, filed under listing keys into their
// integrator's journal, then the keys' heads and sealed pages (collection `event_pages`), and read back newest first,
// key by key. Knows nothing of events or deliveries (src/store/listing does). The one way into this folder.
export { cmp, posOf, type Pos, type RowBase } from './rows.js';
export { defaultPageSizes, pageCollections, type PageCollections, type PageSizes } from './documents.js';
export type { Filed } from './journal.js';
export { fileRows, fileRowsBulk } from './write.js';
export { keyReader, readKey, type KeyQuery, type PagedRow, type ReaderStop } from './reader.js';
export { forgetRows, oldestRows, type ForgetRow } from './forget.js';

// The steps of filing and their documents' ids, for tests that stage a crash between steps or count their commands.
export { directoryId, headId, journalId, pageId } from './documents.js';
export { addToHead, writeUpserts } from './heads.js';
export { journalDue, journalRows, moveJournal } from './journal.js';
export { fileIntoPages, seal } from './seal.js';
