// A title is a string: a number is refused where the call is written.
import type { Client } from "../notes/index.js";

export async function mistake(notes: Client): Promise<void> {
  await notes.createNote({ title: 42 }); // error: TS2322
}
