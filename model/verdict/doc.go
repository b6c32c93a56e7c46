// Package verdict is a verdict as data: its kind and severity, and its
// evidence as clauses — each a template of words and the typed facts it
// prints (value, unit, source, scope). Rules in model/diagnose build the facts;
// this package renders them, one renderer per medium: plain text, the
// terminal at a width (choosing by weight what a width shows), Markdown
// and JSON. No code reads a number back out of rendered words: checks
// ask the facts (Faults).
package verdict
