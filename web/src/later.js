// @ts-check
/**
 * The initial value of a field that a later call sets before anything reads it (a view's data,
 * set by setData or layout): undefined, typed as the field's declared type, as TypeScript's `!`
 * would declare it (a class field `stats = LATER` under a type comment). Code that may run before that call
 * tests the field first, as it did before the field was declared.
 */
export const LATER = /** @type {never} */ (undefined);
