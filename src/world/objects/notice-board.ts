// A notice board: anyone near it may post a short note and read the latest ones; only the operator
// removes a note. Notes are world state (durable, in snapshots and the journal like every input) and
// bounded three ways: per board (the oldest falls off), per author (a few at a time) and in time (one
// post per author per interval of simulation time). The text arrives through the contract, whose one
// text rule (src/aic/text.ts) every door applies to the whole request; here are the note's own bounds.
import type { ObjectState, ObjectStateItem, ObjectTypeHandler } from "./object-type.ts";

export const NOTE_LIMITS = {
  /** Characters of one note. */
  textChars: 200,
  /** Notes a board holds; posting to a full board drops its oldest note. */
  perBoard: 12,
  /** Notes one author may have on a board at once. */
  perAuthor: 3,
  /** Simulation ms between two posts of one author on one board. */
  intervalMs: 30_000,
  /** Notes a read shows (newest first). */
  shown: 5,
} as const;

export interface Note {
  id: string;
  by: string;
  name: string;
  text: string;
  tsMs: number;
}

const NOTE_ID = /^n[1-9][0-9]{0,9}$/;
// Control characters other than none: a note is one paragraph of plain text.
const CONTROL = /[\p{Cc}\u2028\u2029]/u;

export function notesOf(state: Readonly<ObjectState>): Note[] {
  return Array.isArray(state.notes) ? (state.notes as Note[]) : [];
}

/** The note text the board accepts, or why not. */
export function noteTextProblem(text: unknown): string | undefined {
  if (typeof text !== "string") return "params.text must be a string";
  if (text.trim().length === 0) return "the note is empty";
  if (text.length > NOTE_LIMITS.textChars) return `a note holds at most ${NOTE_LIMITS.textChars} characters`;
  if (CONTROL.test(text)) return "a note is one line of plain text (no control characters)";
  return undefined;
}

function listing(notes: readonly Note[]): string {
  if (notes.length === 0) return "The board is empty. Post the first note!";
  const latest = notes.slice(-NOTE_LIMITS.shown).reverse();
  const lines = latest.map((n) => `${n.name}: ${n.text}`);
  const more = notes.length > latest.length ? ` (${notes.length - latest.length} older)` : "";
  return `${notes.length} note${notes.length === 1 ? "" : "s"}${more}. ${lines.join(" | ")}`;
}

export const noticeBoard: ObjectTypeHandler = {
  objectType: "notice_board",
  props: { title: "string" },
  actions: ["read", "post"],
  about:
    "`read` the latest notes; `post` with `params.text` (1..200 chars; 12 per board, 3 per author, one per 30 s); the operator removes notes.",
  operatorActions: ["remove"],
  initialState: (def) => ({ title: String(def.props.title), notes: [], nextNote: 1 }),
  affordances: (state) => [
    { action: "read", label: `Read the notes (${notesOf(state).length})` },
    {
      action: "post",
      label: "Post a note",
      paramsSchema: {
        type: "object",
        properties: { text: { type: "string", minLength: 1, maxLength: NOTE_LIMITS.textChars } },
        required: ["text"],
        additionalProperties: false,
      },
    },
  ],
  interact(ctx, action, params) {
    const notes = notesOf(ctx.state);
    if (action === "read") return { type: "ok", message: listing(notes) };
    const extra = Object.keys(params).filter((k) => k !== "text");
    if (extra.length > 0)
      return { type: "invalid_action", message: `post takes only params.text, not ${extra[0]}` };
    const problem = noteTextProblem(params.text);
    if (problem) return { type: "invalid_action", message: problem };
    const mine = notes.filter((n) => n.by === ctx.actorId);
    if (mine.length >= NOTE_LIMITS.perAuthor)
      return {
        type: "no_effect",
        message: `You already have ${NOTE_LIMITS.perAuthor} notes on this board; the operator takes old ones down.`,
      };
    const last = mine.at(-1);
    if (last && ctx.nowMs - last.tsMs < NOTE_LIMITS.intervalMs) {
      const wait = Math.ceil((NOTE_LIMITS.intervalMs - (ctx.nowMs - last.tsMs)) / 1000);
      return {
        type: "no_effect",
        message: `You posted here a moment ago; wait ${wait} s before the next note.`,
      };
    }
    const next = Number(ctx.state.nextNote);
    const note: Note = {
      id: `n${next}`,
      by: ctx.actorId,
      name: ctx.actorName,
      text: (params.text as string).trim(),
      tsMs: ctx.nowMs,
    };
    const kept = [...notes, note].slice(-NOTE_LIMITS.perBoard);
    ctx.setState("nextNote", next + 1);
    ctx.setState("notes", kept as unknown as ObjectStateItem[]);
    return { type: "ok", message: "Your note is on the board." };
  },
  moderate(ctx, action, params) {
    if (action !== "remove") return { type: "invalid_action", message: `the operator may: remove` };
    const notes = notesOf(ctx.state);
    const id = params.noteId;
    if (!notes.some((n) => n.id === id))
      return { type: "no_effect", message: `no note ${String(id)} on this board` };
    ctx.setState("notes", notes.filter((n) => n.id !== id) as unknown as ObjectStateItem[]);
    return { type: "ok", message: `note ${String(id)} removed` };
  },
  checkState(state) {
    if (typeof state.title !== "string" || state.title.length === 0) return "title must be a string";
    const next = state.nextNote;
    if (typeof next !== "number" || !Number.isInteger(next) || next < 1)
      return "nextNote must be an integer >= 1";
    if (!Array.isArray(state.notes)) return "notes must be a list";
    const notes = state.notes as readonly Record<string, unknown>[];
    if (notes.length > NOTE_LIMITS.perBoard) return `more than ${NOTE_LIMITS.perBoard} notes`;
    const ids = new Set<string>();
    const perAuthor = new Map<string, number>();
    for (const n of notes) {
      const keys = Object.keys(n).sort().join(",");
      if (keys !== "by,id,name,text,tsMs")
        return `a note has the fields id, by, name, text, tsMs (got ${keys})`;
      if (typeof n.id !== "string" || !NOTE_ID.test(n.id) || Number(n.id.slice(1)) >= next)
        return `note id ${String(n.id)} is not n<1..nextNote-1>`;
      if (ids.has(n.id)) return `duplicate note ${n.id}`;
      ids.add(n.id);
      if (typeof n.by !== "string" || !/^(hum|agt)_[a-zA-Z0-9._-]{1,64}$/.test(n.by))
        return `note ${n.id}: bad author`;
      if (typeof n.name !== "string" || n.name.length < 1 || n.name.length > 64)
        return `note ${n.id}: bad name`;
      const problem = noteTextProblem(n.text);
      if (problem) return `note ${n.id}: ${problem}`;
      if (typeof n.tsMs !== "number" || !Number.isInteger(n.tsMs) || n.tsMs < 0)
        return `note ${n.id}: bad tsMs`;
      const count = (perAuthor.get(n.by) ?? 0) + 1;
      if (count > NOTE_LIMITS.perAuthor) return `${n.by} has more than ${NOTE_LIMITS.perAuthor} notes`;
      perAuthor.set(n.by, count);
    }
    return Object.keys(state).sort().join(",") === "nextNote,notes,title"
      ? undefined
      : "unknown state fields";
  },
};
