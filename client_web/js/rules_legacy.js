// THE ONLY RULE TABLES OF THE CLIENT, kept until every server sends the metadata itself (issue 9):
// each view's `legal_info` (tricks, commitment, rare, prompt of each legal action) and `hello`'s ruleset
// metadata. When both are sent everywhere, delete this file, `rulesets.json` and
// tests/browser/make_rulesets_json.py; calls.js and app.js then use the server's data only.

/** Verbs of the rare calls: abondance, misères, chelems, piccolo, abundance, spread misère. */
const RARE_VERBS = new Set([
  "abondance", "abundance", "royal-abundance", "abundance-declared",
  "misere", "petite-misere", "grande-misere", "misere-etalee", "spread-misere",
  "petite-misere-etalee", "grande-misere-etalee", "piccolo", "grand-chelem", "petit-chelem",
]);

/** Fixed trick targets of verbs whose target does not appear in the action text. */
const FIXED_TRICKS = {
  prop: [8, "partner"], cop: [8, "partner"], solo: [5, "alone"], misere: [0, "alone"],
  abundance: [9, "alone"], "royal-abundance": [9, "alone"], "spread-misere": [0, "alone"],
  "abundance-declared": [13, "alone"], propose: [8, "partner"], renew: [8, "partner"], maintain: [8, "partner"],
  "petite-misere": [0, "alone"], "grande-misere": [0, "alone"], "misere-etalee": [0, "alone"],
  "petite-misere-etalee": [0, "alone"], "grande-misere-etalee": [0, "alone"], piccolo: [1, "alone"],
  "grand-chelem": [13, "alone"], "petit-chelem": [12, "alone"],
};

/**
 * What the old tables say of an action: `{tricks, commitment, rare, prompt}` (the shape of one item of
 * `view.legal_info`). `context.acceptLevel(suit)` gives the level of a bare `accept S`.
 */
export function legacyActionInfo(action, context = {}) {
  const [verb, ...args] = String(action).split(" ");
  const numbers = args.filter((a) => /^\d+$/.test(a)).map(Number);
  let [tricks, commitment] = FIXED_TRICKS[verb] ?? [null, null];
  if (verb === "solo" || verb === "abondance") {
    if (numbers.length) tricks = numbers[0];
    commitment = "alone";
  } else if (verb === "accept") {
    commitment = "partner";
    tricks = numbers.length ? numbers[0] : context.acceptLevel?.(args[0]) ?? null;
  } else if (verb === "raise") {
    commitment = "team";
    tricks = numbers[0] ?? null;
  }
  if (verb === "pass") commitment = null;
  const prompt = verb === "trump" ? "trump" : verb === "discard" ? "discard" : verb === "play" ? "card" : "call";
  return { action, verb, tricks: prompt === "call" ? tricks : null, commitment, rare: RARE_VERBS.has(verb), prompt };
}

/** The house rules of every ruleset, from the copy shipped with the page (when `hello` has none). */
export async function legacyRulesetInfo() {
  try {
    const answer = await fetch("rulesets.json");
    return answer.ok ? await answer.json() : {};
  } catch {
    return {};
  }
}
