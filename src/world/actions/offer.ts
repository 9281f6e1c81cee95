// How the page offers an action kind to people: plain data without zod, because the page's bundle
// takes these types and web/client/offers.ts builds the controls from them. The list itself comes
// from the registry (PAGE_OFFERS), which the client build writes into the bundle as data.

/** A control on the page: a button beside the chat box that sends the action, or with `choices`
 * opens a menu of one field's values. */
export interface PageOffer {
  /** What the button shows: a character every text font draws (never an empty box). */
  readonly icon: string;
  /** Its tooltip and accessible name. */
  readonly label: string;
  /** A key that does the same while no text box has the focus: a letter the page leaves free (it
   * walks with W A S D, C shows the debug view, M the minimap). */
  readonly key?: string;
  /** The field a menu picks, and how each of its values reads there. */
  readonly choices?: { readonly field: string; readonly labels: Readonly<Record<string, string>> };
}

/** An offered kind, as the page gets it. */
export interface OfferedAction extends PageOffer {
  readonly kind: string;
}
