// Provably fair deals (docs/deal-record.md, "Checking a deal by hand"): the page keeps the seed
// commitment each deal starts with and, when the deal ends, checks that SHA-256 of the revealed seed
// is that commitment and that the seed deals exactly the hands shown. The shuffle is the documented
// one (server/rules/deck.py), computed here with WebCrypto so that nothing has to be trusted.

/** The deck before shuffling: 2S 3S ... AS 2H ... AH 2D ... AD 2C ... AC. */
const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A"];
export const FULL_DECK = ["S", "H", "D", "C"].flatMap((suit) => RANKS.map((rank) => rank + suit));

/** Whether this browser can check (WebCrypto exists only in secure contexts: https or localhost). */
export function canVerify() {
  return Boolean(globalThis.crypto?.subtle);
}

async function sha256(bytes) {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}

function hex(bytes) {
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Lower-case hex SHA-256 of the seed's UTF-8 bytes: the commitment a seed must match. */
export async function commitmentOf(seed) {
  return hex(await sha256(new TextEncoder().encode(seed)));
}

/** The stream of 4-byte big-endian numbers from SHA-256(seed || counter as 8 bytes big-endian). */
function randomWords(seed) {
  const seedBytes = new TextEncoder().encode(seed);
  let counter = 0;
  let block = null;
  let offset = 32;
  return async function next() {
    if (offset >= 32) {
      const input = new Uint8Array(seedBytes.length + 8);
      input.set(seedBytes);
      new DataView(input.buffer).setBigUint64(seedBytes.length, BigInt(counter));
      block = new DataView((await sha256(input)).buffer);
      counter += 1;
      offset = 0;
    }
    const word = block.getUint32(offset);
    offset += 4;
    return word;
  };
}

/** The 52 cards in the order the seed gives (Fisher-Yates, i = 51 down to 1, rejection sampling). */
export async function shuffledDeck(seed) {
  const deck = [...FULL_DECK];
  const next = randomWords(seed);
  const range = 2 ** 32;
  for (let i = deck.length - 1; i > 0; i -= 1) {
    const n = i + 1;
    const limit = range - (range % n);
    let x = await next();
    while (x >= limit) x = await next();
    const j = x % n;
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

/** Deal `deck` in `packets`, clockwise from eldest (dealer + 1); the four hands, seat 0 first. */
export function dealPackets(deck, dealer, packets) {
  const hands = [[], [], [], []];
  let position = 0;
  for (const size of packets) {
    for (let offset = 1; offset <= 4; offset += 1) {
      hands[(dealer + offset) % 4].push(...deck.slice(position, position + size));
      position += size;
    }
  }
  return hands;
}

/** The hands and the last card (the turn-up, where the ruleset turns one) that `seed` deals. */
export async function dealFromSeed(seed, dealer, packets) {
  const deck = await shuffledDeck(seed);
  return { hands: dealPackets(deck, dealer, packets), last: deck[deck.length - 1] };
}

const sameCards = (a, b) => a.length === b.length && [...a].sort().join(" ") === [...b].sort().join(" ");

/**
 * Check a finished deal: `{commitment}` kept from its start, and the end view's `seed`, `dealt`,
 * `dealer` and `turn_up`, with the ruleset's `packets` (hello's `ruleset_info`).
 * Resolves to `{verified: true}` or `{verified: false, failed: "commitment" | "hands" | "turn_up" |
 * "missing", seat?}`.
 */
export async function verifyDeal({ commitment, seed, dealt, dealer, turnUp, packets }) {
  if (!commitment || typeof seed !== "string" || !Array.isArray(dealt) || dealt.length !== 4
      || !Array.isArray(packets) || !packets.length || !Number.isInteger(dealer)) {
    return { verified: false, failed: "missing" };
  }
  if ((await commitmentOf(seed)) !== String(commitment).toLowerCase()) return { verified: false, failed: "commitment" };
  const { hands, last } = await dealFromSeed(seed, dealer, packets);
  for (let seat = 0; seat < 4; seat += 1) {
    if (!sameCards(hands[seat], dealt[seat] || [])) return { verified: false, failed: "hands", seat };
  }
  if (turnUp && turnUp !== last) return { verified: false, failed: "turn_up" };
  return { verified: true };
}
