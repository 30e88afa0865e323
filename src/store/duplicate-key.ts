import { MongoServerError } from 'mongodb';

/** The server refused a write on a unique key (E11000): mostly an insert that lost a race on its `_id`. */
export const isDuplicateKey = (err: unknown): boolean => err instanceof MongoServerError && err.code === 11000;
