/* The compiled exact solver of the trick phase (a "double-dummy" solver), the fast twin of solver.py.
 *
 * The contract is solver.py's: hands are 52-bit masks (card bit 13 * suit + rank - 2, suits S H D C),
 * `side_a` marks the seats whose tricks are counted and `maximizes` the seats that want that count high
 * (both 4-bit masks here, any seating), `value` is side A's tricks from the position on (the current trick
 * included) under best play, `exactly_one` solves piccolo. What makes it fast, besides C:
 *
 * - a transposition table keyed by the position in relative ranks: within each suit only the order of the
 *   cards still out and who holds each matters, so positions that differ only in which small cards have
 *   gone share one entry. It holds lower and upper bounds at the start of each trick and the best lead;
 * - the exact value found by null-window tests (is the value at least k?) sharing that table;
 * - quick tricks: the winners the leader can cash before anyone can ruff bound the value at once;
 * - move ordering: the table's best lead first, then cheap winners for a side that wants the trick (high
 *   losers for one that does not), then the history of cut-offs;
 * - equivalent cards merged exactly as solver.py does (the lowest of a group stands for it), so that both
 *   solvers search the same game.
 *
 * Every search counts its nodes (one per card played, as solver.py does) and stops past a fixed limit: a
 * count, never a clock. A stopped search returns None to the Python wrapper (fast_solver.py), which raises
 * NodeLimitError; nothing it left half done is stored.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t u64;

#define SUIT_OF(bit) ((bit) / 13)
#define RANK_OF(bit) ((bit) % 13)
#define TABLE_START_BITS 12
#define TABLE_MAX_BITS 21
#define PROBES 8

static const u64 SUIT_MASK[4] = {0x1FFFULL, 0x1FFFULL << 13, 0x1FFFULL << 26, 0x1FFFULL << 39};

typedef struct {
    u64 k1, k2;
    int8_t low, high;
    int8_t move; /* best lead as suit * 16 + place from the top among the suit's cards still out; -1 none */
    uint8_t used;
} Entry;

typedef struct {
    PyObject_HEAD
    int trump;
    unsigned side_a, maximizes;
    long long node_limit, nodes;
    int aborted;
    Entry *table;
    size_t table_bits, count;
    u64 hands[4];
    int leader;
    int played[4];
    int nplayed;
    uint32_t history[4][52];
} SolverObject;

static inline int popcount(u64 x) { return __builtin_popcountll(x); }
static inline int high_bit(u64 x) { return 63 - __builtin_clzll(x); }
static inline int low_bit(u64 x) { return __builtin_ctzll(x); }

static inline int beats(int card, int best, int trump) {
    if (SUIT_OF(card) == SUIT_OF(best)) return card > best;
    return SUIT_OF(card) == trump;
}

static inline int in_a(const SolverObject *s, int seat) { return (s->side_a >> seat) & 1; }
static inline int wants_a(const SolverObject *s, int seat) { return (s->maximizes >> seat) & 1; }

/* ------------------------------------------------------------------ transposition table */

/* The position at the start of a trick in relative ranks: per suit the number of cards still out and, from
 * the top down, the seat holding each (2 bits a card); `extra` (leader, piccolo tricks, a tag) goes on top. */
static void position_key(const SolverObject *s, unsigned extra, u64 *k1, u64 *k2) {
    u64 parts[4];
    u64 all = s->hands[0] | s->hands[1] | s->hands[2] | s->hands[3];
    for (int suit = 0; suit < 4; suit++) {
        u64 out = all & SUIT_MASK[suit];
        u64 owners = 0;
        int n = 0;
        while (out) {
            int bit = high_bit(out);
            u64 one = 1ULL << bit;
            int owner = (s->hands[1] & one) ? 1 : (s->hands[2] & one) ? 2 : (s->hands[3] & one) ? 3 : 0;
            owners = (owners << 2) | (u64)owner;
            n++;
            out ^= one;
        }
        parts[suit] = ((u64)n << 26) | owners;
    }
    *k1 = parts[0] | (parts[1] << 30);
    *k2 = parts[2] | (parts[3] << 30) | ((u64)extra << 60);
}

static inline size_t hash_key(u64 k1, u64 k2, size_t bits) {
    u64 h = k1 * 0x9E3779B97F4A7C15ULL ^ (k2 + 0x632BE59BD9B4E019ULL) * 0xC2B2AE3D27D4EB4FULL;
    h ^= h >> 29;
    return (size_t)(h >> (64 - bits));
}

static Entry *table_find(SolverObject *s, u64 k1, u64 k2) {
    if (!s->table) return NULL;
    size_t mask = ((size_t)1 << s->table_bits) - 1;
    size_t at = hash_key(k1, k2, s->table_bits);
    for (int i = 0; i < PROBES; i++) {
        Entry *e = &s->table[(at + i) & mask];
        if (!e->used) return NULL;
        if (e->k1 == k1 && e->k2 == k2) return e;
    }
    return NULL;
}

static int table_grow(SolverObject *s) {
    size_t bits = s->table ? s->table_bits + 1 : TABLE_START_BITS;
    Entry *fresh = calloc((size_t)1 << bits, sizeof(Entry));
    if (!fresh) return 0;
    Entry *old = s->table;
    size_t old_size = old ? (size_t)1 << s->table_bits : 0;
    size_t mask = ((size_t)1 << bits) - 1;
    s->count = 0;
    for (size_t i = 0; i < old_size; i++) {
        if (!old[i].used) continue;
        size_t at = hash_key(old[i].k1, old[i].k2, bits);
        for (int p = 0; p < PROBES; p++) {
            Entry *e = &fresh[(at + p) & mask];
            if (!e->used) {
                *e = old[i];
                s->count++;
                break;
            }
        }
    }
    free(old);
    s->table = fresh;
    s->table_bits = bits;
    return 1;
}

/* Store bounds: in the key's slot, else a free slot of its probe window; a full table at its largest size
 * replaces the window's first entry (a cache: any replacement keeps the answers exact). */
static void table_store(SolverObject *s, u64 k1, u64 k2, int low, int high, int move) {
    if (!s->table) {
        if (!table_grow(s)) return; /* out of memory: search on without storing */
    } else if (s->count * 2 >= ((size_t)1 << s->table_bits) && s->table_bits < TABLE_MAX_BITS) {
        table_grow(s); /* on failure the smaller table stays */
    }
    size_t mask = ((size_t)1 << s->table_bits) - 1;
    size_t at = hash_key(k1, k2, s->table_bits);
    Entry *slot = &s->table[at & mask];
    for (int i = 0; i < PROBES; i++) {
        Entry *e = &s->table[(at + i) & mask];
        if (!e->used) {
            slot = e;
            s->count++;
            break;
        }
        if (e->k1 == k1 && e->k2 == k2) {
            slot = e;
            break;
        }
    }
    slot->k1 = k1;
    slot->k2 = k2;
    slot->low = (int8_t)low;
    slot->high = (int8_t)high;
    slot->move = (int8_t)move;
    slot->used = 1;
}

/* A lead's code in relative ranks, and back. */
static int lead_code(const SolverObject *s, int bit) {
    u64 all = s->hands[0] | s->hands[1] | s->hands[2] | s->hands[3];
    int suit = SUIT_OF(bit);
    return suit * 16 + popcount(all & SUIT_MASK[suit] & ~((2ULL << bit) - 1));
}

static int lead_from_code(const SolverObject *s, int code) {
    if (code < 0) return -1;
    u64 all = s->hands[0] | s->hands[1] | s->hands[2] | s->hands[3];
    u64 out = all & SUIT_MASK[code / 16];
    for (int place = code % 16; place > 0 && out; place--) out ^= 1ULL << high_bit(out);
    return out ? high_bit(out) : -1;
}

/* ------------------------------------------------------------------ moves */

/* The legal cards of the seat to play, one per group of equivalent cards (the lowest of each), as solver.py. */
static int legal_moves(const SolverObject *s, int seat, int *moves) {
    u64 own = s->hands[seat];
    u64 hand = own;
    u64 live = s->hands[0] | s->hands[1] | s->hands[2] | s->hands[3];
    for (int i = 0; i < s->nplayed; i++) live |= 1ULL << s->played[i];
    if (s->nplayed) {
        u64 follow = hand & SUIT_MASK[SUIT_OF(s->played[0])];
        if (follow) hand = follow;
    }
    int n = 0;
    while (hand) {
        int bit = low_bit(hand);
        hand &= hand - 1;
        u64 below = live & SUIT_MASK[SUIT_OF(bit)] & ((1ULL << bit) - 1);
        if (below && ((own >> high_bit(below)) & 1)) continue;
        moves[n++] = bit;
    }
    return n;
}

static void best_so_far(const SolverObject *s, int *best, int *best_seat) {
    *best = -1;
    *best_seat = s->leader;
    if (!s->nplayed) return;
    *best = s->played[0];
    for (int i = 1; i < s->nplayed; i++)
        if (beats(s->played[i], *best, s->trump)) {
            *best = s->played[i];
            *best_seat = (s->leader + i) & 3;
        }
}

/* Whether `seat` could beat `card`, the best card of a trick led in suit `led`. */
static inline int can_beat(const SolverObject *s, int seat, int card, int led) {
    u64 follow = s->hands[seat] & SUIT_MASK[led];
    if (follow) return SUIT_OF(card) == led && (follow >> (card + 1)) != 0;
    if (s->trump < 0) return 0;
    u64 trumps = s->hands[seat] & SUIT_MASK[s->trump];
    if (!trumps) return 0;
    return SUIT_OF(card) != s->trump || (trumps >> (card + 1)) != 0;
}

/* Whether no seat still to play this trick on the other side of `winner` could beat its `card`. */
static int secure(const SolverObject *s, int card, int winner, int led, int after_seat) {
    for (int seat = (after_seat + 1) & 3; seat != s->leader; seat = (seat + 1) & 3)
        if (in_a(s, seat) != in_a(s, winner) && can_beat(s, seat, card, led)) return 0;
    return 1;
}

static inline int64_t history_of(const SolverObject *s, int seat, int m) {
    return s->history[seat][m] > 0xFFFFF ? 0xFFFFF : s->history[seat][m];
}

/* A lead's class and preference (higher first), every hand seen. */
static void lead_score(const SolverObject *s, int seat, int m, int own_tricks, int *cls, int *pref) {
    int suit = SUIT_OF(m), rank = RANK_OF(m);
    u64 others = 0, friends = 0;
    int ruff_risk = 0;
    for (int j = 0; j < 4; j++) {
        if (j == seat) continue;
        others |= s->hands[j];
        if (in_a(s, j) == in_a(s, seat)) friends |= s->hands[j];
        else if (s->trump >= 0 && suit != s->trump && !(s->hands[j] & SUIT_MASK[suit])
                 && (s->hands[j] & SUIT_MASK[s->trump]))
            ruff_risk = 1;
    }
    u64 out = others & SUIT_MASK[suit];
    int top = !out || m > high_bit(out);
    int friend_top = out && (friends >> high_bit(out) & 1) && !top;
    if (own_tricks) {
        if (top) {
            *cls = ruff_risk ? 2 : 4;
            *pref = rank;
        } else if (friend_top) {
            *cls = 3;
            *pref = 13 - rank;
        } else {
            *cls = 1;
            *pref = 13 - rank;
        }
    } else {
        *cls = top ? 0 : 2;
        *pref = 13 - rank;
    }
}

/* A following card's class and preference (higher first), every hand seen. */
static void follow_score(const SolverObject *s, int seat, int m, int best, int best_seat, int own_tricks,
                         int *cls, int *pref) {
    int led = SUIT_OF(s->played[0]);
    int rank = RANK_OF(m);
    int wins = beats(m, best, s->trump);
    int card = wins ? m : best, winner = wins ? seat : best_seat;
    int good = in_a(s, winner) == wants_a(s, seat); /* the trick now goes the way this seat wants */
    int sure = good && secure(s, card, winner, led, seat);
    int trump_spent = SUIT_OF(m) == s->trump && led != s->trump;
    if (own_tricks) {
        if (sure) {
            *cls = 3;
            *pref = wins ? 14 - rank - (trump_spent ? 13 : 0) : 40 - rank - (trump_spent ? 13 : 0);
        } else if (good) {
            *cls = 2;
            *pref = 13 - rank;
        } else {
            *cls = 1;
            *pref = 26 - rank - (trump_spent ? 13 : 0);
        }
    } else {
        *cls = sure ? 3 : good ? 2 : 1;
        *pref = good ? rank : 13 - rank;
    }
}

/* Sort the moves, the likeliest best first (a good order makes alpha-beta cut early): the table's move,
 * then the class of the card (every hand seen), its preference in its class, then the history of cut-offs. */
static void order_moves(const SolverObject *s, int seat, int *moves, int n, int best, int best_seat, int first) {
    int64_t score[13];
    int own_tricks = wants_a(s, seat) == in_a(s, seat); /* this seat wants its own side to take tricks */
    for (int i = 0; i < n; i++) {
        int m = moves[i];
        int cls, pref;
        if (m == first) {
            score[i] = (int64_t)1 << 50;
            continue;
        }
        if (!s->nplayed) lead_score(s, seat, m, own_tricks, &cls, &pref);
        else follow_score(s, seat, m, best, best_seat, own_tricks, &cls, &pref);
        score[i] = ((int64_t)cls << 40) + ((int64_t)pref << 24) + history_of(s, seat, m);
    }
    for (int i = 1; i < n; i++) {
        int64_t k = score[i];
        int m = moves[i];
        int j = i - 1;
        while (j >= 0 && score[j] < k) {
            score[j + 1] = score[j];
            moves[j + 1] = moves[j];
            j--;
        }
        score[j + 1] = k;
        moves[j + 1] = m;
    }
}

/* ------------------------------------------------------------------ tricks for side A */

/* Tricks the leader surely cashes from the top before anyone may ruff: in each suit its cards above every
 * other seat's, no more (outside trumps) than any seat holding a trump can follow. */
static int quick_tricks(const SolverObject *s) {
    int lead = s->leader;
    u64 mine = s->hands[lead];
    u64 others = 0;
    int holds_trump[4] = {0, 0, 0, 0};
    for (int seat = 0; seat < 4; seat++) {
        if (seat == lead) continue;
        others |= s->hands[seat];
        holds_trump[seat] = s->trump >= 0 && (s->hands[seat] & SUIT_MASK[s->trump]) != 0;
    }
    int total = 0;
    for (int suit = 0; suit < 4; suit++) {
        u64 own = mine & SUIT_MASK[suit];
        if (!own) continue;
        u64 theirs = others & SUIT_MASK[suit];
        int winners = theirs ? popcount(own >> (high_bit(theirs) + 1)) : popcount(own);
        if (s->trump >= 0 && suit != s->trump)
            for (int seat = 0; seat < 4; seat++)
                if (holds_trump[seat]) {
                    int follow = popcount(s->hands[seat] & SUIT_MASK[suit]);
                    if (follow < winners) winners = follow;
                }
        total += winners;
    }
    return total;
}

static int search(SolverObject *s, int alpha, int beta);

/* Play `m` for `seat` (the trick's best card so far given), search on, take the card back. */
static int play_and_search(SolverObject *s, int seat, int m, int best, int best_seat, int alpha, int beta) {
    int child;
    s->hands[seat] ^= 1ULL << m;
    s->played[s->nplayed++] = m;
    if (s->nplayed == 4) {
        int winner = beats(m, best, s->trump) ? seat : best_seat;
        int gained = in_a(s, winner);
        int leader = s->leader;
        int trick[4];
        memcpy(trick, s->played, sizeof trick); /* the next trick reuses `played` */
        s->leader = winner;
        s->nplayed = 0;
        child = gained + search(s, alpha - gained, beta - gained);
        memcpy(s->played, trick, sizeof trick);
        s->leader = leader;
        s->nplayed = 4;
    } else {
        child = search(s, alpha, beta);
    }
    s->nplayed--;
    s->hands[seat] ^= 1ULL << m;
    return child;
}

/* Alpha-beta over the cards of the seat to play (fail-soft); `*chosen` gets the card of the value. */
static int play_trick(SolverObject *s, int alpha, int beta, int first, int *chosen) {
    int seat = (s->leader + s->nplayed) & 3;
    int best, best_seat;
    best_so_far(s, &best, &best_seat);
    int moves[13];
    int n = legal_moves(s, seat, moves);
    order_moves(s, seat, moves, n, best, best_seat, first);
    int maximizing = wants_a(s, seat);
    int value = maximizing ? -1 : 99;
    int pick = n ? moves[0] : -1;
    for (int i = 0; i < n; i++) {
        int child = play_and_search(s, seat, moves[i], best, best_seat, alpha, beta);
        if (s->aborted) return 0;
        if (maximizing) {
            if (child > value) {
                value = child;
                pick = moves[i];
            }
            if (value > alpha) alpha = value;
        } else {
            if (child < value) {
                value = child;
                pick = moves[i];
            }
            if (value < beta) beta = value;
        }
        if (alpha >= beta) {
            int tricks = popcount(s->hands[seat]);
            s->history[seat][moves[i]] += (uint32_t)(tricks * tricks);
            break;
        }
    }
    if (chosen) *chosen = pick;
    return value;
}

/* The last trick: every hand holds one card. */
static int last_trick(const SolverObject *s) {
    int best = low_bit(s->hands[s->leader]), best_seat = s->leader;
    for (int i = 1; i < 4; i++) {
        int seat = (s->leader + i) & 3;
        int card = low_bit(s->hands[seat]);
        if (beats(card, best, s->trump)) {
            best = card;
            best_seat = seat;
        }
    }
    return in_a(s, best_seat);
}

static int search_lead(SolverObject *s, int alpha, int beta) {
    int remaining = popcount(s->hands[s->leader]);
    if (remaining == 0) return 0;
    if (remaining == 1) return last_trick(s);
    u64 k1, k2;
    position_key(s, (unsigned)s->leader, &k1, &k2);
    int low = 0, high = remaining, first = -1;
    Entry *e = table_find(s, k1, k2);
    if (e) {
        low = e->low;
        high = e->high;
        first = lead_from_code(s, e->move);
    }
    if (low >= beta || low == high) return low;
    if (high <= alpha) return high;
    int code = e ? e->move : -1;
    if (wants_a(s, s->leader) == in_a(s, s->leader)) {
        int sure = quick_tricks(s);
        if (in_a(s, s->leader) && sure > low) {
            low = sure;
            if (low >= beta || low == high) {
                table_store(s, k1, k2, low, high, code);
                return low;
            }
        } else if (!in_a(s, s->leader) && remaining - sure < high) {
            high = remaining - sure;
            if (high <= alpha || low == high) {
                table_store(s, k1, k2, low, high, code);
                return high;
            }
        }
    }
    if (s->trump >= 0) {
        /* The top trumps in one hand each win a trick whatever anyone wants. */
        u64 trumps = (s->hands[0] | s->hands[1] | s->hands[2] | s->hands[3]) & SUIT_MASK[s->trump];
        if (trumps) {
            int top = high_bit(trumps), holder = 0;
            while (!(s->hands[holder] >> top & 1)) holder++;
            u64 own = s->hands[holder] & SUIT_MASK[s->trump];
            u64 rest = trumps & ~own;
            int sure = rest ? popcount(own >> (high_bit(rest) + 1)) : popcount(own);
            if (in_a(s, holder)) {
                if (sure > low) low = sure;
            } else if (remaining - sure < high) {
                high = remaining - sure;
            }
            if (low >= beta || low >= high) {
                table_store(s, k1, k2, low, high, code);
                return low;
            }
            if (high <= alpha) {
                table_store(s, k1, k2, low, high, code);
                return high;
            }
        }
    }
    int alpha0 = alpha > low ? alpha : low;
    int beta0 = beta < high ? beta : high;
    int chosen = -1;
    int result = play_trick(s, alpha0, beta0, first, &chosen);
    if (s->aborted) return 0;
    if (result <= alpha0) high = result;
    else if (result >= beta0) low = result;
    else low = high = result;
    table_store(s, k1, k2, low, high, chosen >= 0 ? lead_code(s, chosen) : code);
    return result;
}

static int search(SolverObject *s, int alpha, int beta) {
    if (++s->nodes > s->node_limit) {
        s->aborted = 1;
        return 0;
    }
    if (!s->nplayed) return search_lead(s, alpha, beta);
    return play_trick(s, alpha, beta, -1, NULL);
}

/* The exact value by null-window tests from the root state, within the trivial bounds. */
static int exact_value(SolverObject *s) {
    int seat = (s->leader + s->nplayed) & 3;
    int low = 0, high = popcount(s->hands[seat]);
    while (low < high && !s->aborted) {
        int guess = (low + high + 1) / 2;
        int v = search(s, guess - 1, guess);
        if (v >= guess) low = v > low ? v : low;
        else high = v < high ? v : high;
    }
    return low;
}

/* ------------------------------------------------------------------ piccolo: exactly one trick */

static int one_search(SolverObject *s, int taken) {
    if (++s->nodes > s->node_limit) {
        s->aborted = 1;
        return 0;
    }
    if (taken >= 2) return 0;
    int remaining = 0;
    for (int seat = 0; seat < 4; seat++)
        if (popcount(s->hands[seat]) > remaining) remaining = popcount(s->hands[seat]);
    if (remaining == 0) return taken == 1;
    u64 k1 = 0, k2 = 0;
    int keyed = !s->nplayed;
    if (keyed) {
        position_key(s, (unsigned)s->leader | (unsigned)taken << 2 | 8u, &k1, &k2);
        Entry *e = table_find(s, k1, k2);
        if (e) return e->low;
    }
    int seat = (s->leader + s->nplayed) & 3;
    int best, best_seat;
    best_so_far(s, &best, &best_seat);
    int declarer = in_a(s, seat);
    int result = !declarer;
    int moves[13];
    int n = legal_moves(s, seat, moves);
    for (int i = 0; i < n; i++) {
        int m = moves[i];
        int child;
        s->hands[seat] ^= 1ULL << m;
        s->played[s->nplayed++] = m;
        if (s->nplayed == 4) {
            int winner = beats(m, best, s->trump) ? seat : best_seat;
            int leader = s->leader;
            int trick[4];
            memcpy(trick, s->played, sizeof trick);
            s->leader = winner;
            s->nplayed = 0;
            child = one_search(s, taken + in_a(s, winner));
            memcpy(s->played, trick, sizeof trick);
            s->leader = leader;
            s->nplayed = 4;
        } else {
            child = one_search(s, taken);
        }
        s->nplayed--;
        s->hands[seat] ^= 1ULL << m;
        if (s->aborted) return 0;
        if (child == declarer) {
            result = declarer;
            break;
        }
    }
    if (keyed) table_store(s, k1, k2, result, result, -1);
    return result;
}

/* ------------------------------------------------------------------ the Python type */

/* Read the position arguments into the solver's state; 0 with an exception set on bad input. */
static int load_position(SolverObject *s, PyObject *hands, int leader, PyObject *played) {
    PyObject *seq = PySequence_Fast(hands, "hands must be a sequence of four masks");
    if (!seq) return 0;
    if (PySequence_Fast_GET_SIZE(seq) != 4) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "hands must hold four masks");
        return 0;
    }
    for (int i = 0; i < 4; i++) {
        unsigned long long mask = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(seq, i));
        if (PyErr_Occurred()) {
            Py_DECREF(seq);
            return 0;
        }
        s->hands[i] = mask & ((1ULL << 52) - 1);
    }
    Py_DECREF(seq);
    if (leader < 0 || leader > 3) {
        PyErr_SetString(PyExc_ValueError, "leader must be a seat 0-3");
        return 0;
    }
    s->leader = leader;
    s->nplayed = 0;
    if (played && played != Py_None) {
        PyObject *cards = PySequence_Fast(played, "played must be a sequence of card bits");
        if (!cards) return 0;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(cards);
        if (n > 4) {
            Py_DECREF(cards);
            PyErr_SetString(PyExc_ValueError, "at most four cards in a trick");
            return 0;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            long bit = PyLong_AsLong(PySequence_Fast_GET_ITEM(cards, i));
            if (PyErr_Occurred() || bit < 0 || bit > 51) {
                Py_DECREF(cards);
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a card bit is 0-51");
                return 0;
            }
            s->played[i] = (int)bit;
        }
        s->nplayed = (int)n;
        Py_DECREF(cards);
    }
    s->aborted = 0;
    return 1;
}

/* A complete trick at the root: its winner leads next; returns side A's trick from it. */
static int settle_complete_trick(SolverObject *s) {
    if (s->nplayed != 4) return 0;
    int best, best_seat;
    best_so_far(s, &best, &best_seat);
    s->leader = best_seat;
    s->nplayed = 0;
    return in_a(s, best_seat);
}

static PyObject *Solver_value(SolverObject *s, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"hands", "leader", "played", "alpha", "beta", NULL};
    PyObject *hands, *played = NULL;
    int leader, alpha = -1, beta = 99;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Oi|Oii", names, &hands, &leader, &played, &alpha, &beta))
        return NULL;
    if (!load_position(s, hands, leader, played)) return NULL;
    int gained = settle_complete_trick(s);
    int seat = (s->leader + s->nplayed) & 3;
    int most = popcount(s->hands[seat]);
    int result;
    if (alpha - gained < 0 && beta - gained > most) result = exact_value(s);
    else result = search(s, alpha - gained, beta - gained);
    if (s->aborted) Py_RETURN_NONE;
    return PyLong_FromLong(gained + result);
}

static PyObject *Solver_best_move(SolverObject *s, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"hands", "leader", "played", NULL};
    PyObject *hands, *played = NULL;
    int leader;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Oi|O", names, &hands, &leader, &played)) return NULL;
    if (!load_position(s, hands, leader, played)) return NULL;
    if (s->nplayed == 4) {
        PyErr_SetString(PyExc_ValueError, "the trick is complete: no card to choose");
        return NULL;
    }
    int seat = (s->leader + s->nplayed) & 3;
    if (!s->hands[seat]) {
        PyErr_SetString(PyExc_ValueError, "the seat to play holds no card");
        return NULL;
    }
    int value = exact_value(s);
    if (s->aborted) Py_RETURN_NONE;
    int best, best_seat;
    best_so_far(s, &best, &best_seat);
    int moves[13];
    int n = legal_moves(s, seat, moves);
    int first = -1;
    if (!s->nplayed) {
        u64 k1, k2;
        position_key(s, (unsigned)s->leader, &k1, &k2);
        Entry *e = table_find(s, k1, k2);
        if (e) first = lead_from_code(s, e->move);
    }
    order_moves(s, seat, moves, n, best, best_seat, first);
    int maximizing = wants_a(s, seat);
    for (int i = 0; i < n; i++) {
        /* Does this card reach the value? A null-window test around it. */
        int child = maximizing ? play_and_search(s, seat, moves[i], best, best_seat, value - 1, value)
                               : play_and_search(s, seat, moves[i], best, best_seat, value, value + 1);
        if (s->aborted) Py_RETURN_NONE;
        if (maximizing ? child >= value : child <= value) return Py_BuildValue("(ii)", value, moves[i]);
    }
    PyErr_SetString(PyExc_RuntimeError, "no card reaches the value (a solver bug)");
    return NULL;
}

static PyObject *Solver_exactly_one(SolverObject *s, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"hands", "leader", "played", "taken", NULL};
    PyObject *hands, *played = NULL;
    int leader, taken = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Oi|Oi", names, &hands, &leader, &played, &taken))
        return NULL;
    if (!load_position(s, hands, leader, played)) return NULL;
    taken += settle_complete_trick(s);
    int result = taken >= 2 ? 0 : one_search(s, taken);
    if (s->aborted) Py_RETURN_NONE;
    return PyBool_FromLong(result);
}

static int Solver_init(SolverObject *s, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"trump", "side_a", "maximizes", "node_limit", NULL};
    int trump;
    unsigned int side_a, maximizes;
    long long node_limit = 1000000;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "iII|L", names, &trump, &side_a, &maximizes, &node_limit))
        return -1;
    if (trump < -1 || trump > 3 || side_a > 15 || maximizes > 15) {
        PyErr_SetString(PyExc_ValueError, "trump is -1..3, side_a and maximizes are 4-bit seat masks");
        return -1;
    }
    s->trump = trump;
    s->side_a = side_a;
    s->maximizes = maximizes;
    s->node_limit = node_limit;
    s->nodes = 0;
    s->aborted = 0;
    free(s->table);
    s->table = NULL;
    s->table_bits = 0;
    s->count = 0;
    memset(s->history, 0, sizeof s->history);
    return 0;
}

static void Solver_dealloc(SolverObject *s) {
    free(s->table);
    Py_TYPE(s)->tp_free((PyObject *)s);
}

static PyObject *Solver_get_nodes(SolverObject *s, void *closure) {
    (void)closure;
    return PyLong_FromLongLong(s->nodes);
}

static PyObject *Solver_get_node_limit(SolverObject *s, void *closure) {
    (void)closure;
    return PyLong_FromLongLong(s->node_limit);
}

static PyMethodDef Solver_methods[] = {
    {"value", (PyCFunction)(void (*)(void))Solver_value, METH_VARARGS | METH_KEYWORDS,
     "value(hands, leader, played=(), alpha=-1, beta=99): side A's tricks from here, or None past the node "
     "limit; a full window gives the exact value, a narrower one a fail-soft bound."},
    {"best_move", (PyCFunction)(void (*)(void))Solver_best_move, METH_VARARGS | METH_KEYWORDS,
     "best_move(hands, leader, played=()): (value, card bit) for the seat to play, or None past the limit."},
    {"exactly_one", (PyCFunction)(void (*)(void))Solver_exactly_one, METH_VARARGS | METH_KEYWORDS,
     "exactly_one(hands, leader, played=(), taken=0): whether side A ends with exactly one trick, or None."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Solver_getset[] = {
    {"nodes", (getter)Solver_get_nodes, NULL, "search nodes so far (one per card played)", NULL},
    {"node_limit", (getter)Solver_get_node_limit, NULL, "the node count past which searches stop", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject SolverType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "server.bots._solver.Solver",
    .tp_doc = "Solver(trump, side_a, maximizes, node_limit=1000000): exact trick-phase search (seat masks).",
    .tp_basicsize = sizeof(SolverObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Solver_init,
    .tp_dealloc = (destructor)Solver_dealloc,
    .tp_methods = Solver_methods,
    .tp_getset = Solver_getset,
};

static struct PyModuleDef solver_module = {
    PyModuleDef_HEAD_INIT, "_solver", "The compiled exact trick-phase solver (see fast_solver.py).", -1,
    NULL, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__solver(void) {
    if (PyType_Ready(&SolverType) < 0) return NULL;
    PyObject *module = PyModule_Create(&solver_module);
    if (!module) return NULL;
    Py_INCREF(&SolverType);
    if (PyModule_AddObject(module, "Solver", (PyObject *)&SolverType) < 0) {
        Py_DECREF(&SolverType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
