// count_notes returns an integer: a handler returning text does not compile.
import type { Handlers } from "../notes/index.js";

export const handlers: Pick<Handlers, "countNotes" | "deleteNote"> = {
  countNotes: () => "three", // error: TS2322
  deleteNote: () => ({ deleted: true }),
};
