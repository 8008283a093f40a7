/* The search of the compiled solver (included by _solver.c): every function's name goes through V(), so
 * that _solver.c can include this file twice, once for any x86-64 or other CPU and once compiled for
 * x86-64-v3 (hardware popcount, bit scans), and pick one at import. Both copies are the same C code, so
 * they give the same answers and node counts. */

#if defined(__BMI2__) || defined(__AVX2__)
#include <immintrin.h>
#endif

static inline int V(popcount)(u64 x) { return __builtin_popcountll(x); }
static inline int V(high_bit)(u64 x) { return 63 - __builtin_clzll(x); }
static inline int V(low_bit)(u64 x) { return __builtin_ctzll(x); }

static inline int V(beats)(int card, int best, int trump) {
    if (SUIT_OF(card) == SUIT_OF(best)) return card > best;
    return SUIT_OF(card) == trump;
}

static inline int V(in_a)(const SolverObject *s, int seat) { return (s->side_a >> seat) & 1; }
static inline int V(wants_a)(const SolverObject *s, int seat) { return (s->maximizes >> seat) & 1; }

/* ------------------------------------------------------------------ transposition table */

#ifdef __BMI2__
/* The bits of x under mask, packed from the bottom; and 13 bits spread to the even bits. */
static inline u64 V(extract)(u64 x, u64 mask) { return _pext_u64(x, mask); }
static inline uint32_t V(spread)(u64 x) { return (uint32_t)_pdep_u64(x, 0x55555555ULL); }
#else
static inline u64 V(extract)(u64 x, u64 mask) {
    u64 out = 0;
    for (int i = 0; mask; i++) {
        u64 one = mask & -mask;
        if (x & one) out |= 1ULL << i;
        mask ^= one;
    }
    return out;
}
static inline uint32_t V(spread)(u64 x) {
    uint32_t out = 0;
    for (int i = 0; x; i++, x >>= 1)
        if (x & 1) out |= 1u << (2 * i);
    return out;
}
#endif

/* The table's probe and store, here so that the x86-64-v3 copy has them too (BMI2 shifts). */
static inline void V(pattern_of)(const Key *k, Depth depth, uint32_t *pattern) {
#if defined(__AVX2__) && defined(__BMI2__)
    /* The four suits at once: each suit's depth to a 32-bit lane, the shifts 2 * (n - depth) by lane. */
    __m128i depths = _mm_cvtepu8_epi32(_mm_cvtsi32_si128((int)_pdep_u32(depth, 0x0F0F0F0FU)));
    __m128i n = _mm_cvtepu8_epi32(_mm_cvtsi32_si128((int)(k->n[0] | k->n[1] << 8 | k->n[2] << 16
                                                          | (uint32_t)k->n[3] << 24)));
    __m128i shifts = _mm_slli_epi32(_mm_sub_epi32(n, depths), 1);
    _mm_storeu_si128((__m128i *)pattern, _mm_srlv_epi32(_mm_loadu_si128((const __m128i *)k->owners), shifts));
#else
    for (int suit = 0; suit < 4; suit++)
        pattern[suit] = k->owners[suit] >> (2 * (k->n[suit] - ((depth >> (4 * suit)) & 0xF)));
#endif
}

static Shapes *V(shapes_find)(const SolverObject *s, u64 lens, unsigned extra) {
    size_t mask = ((size_t)1 << s->table_bits) - 1;
    size_t at = shape_hash(lens, extra) & mask;
    for (int i = 0; i < 8; i++) {
        Shapes *sh = &s->shapes[(at + i) & mask];
        if (!sh->used) return NULL;
        if (sh->lens == lens && sh->extra == extra) return sh;
    }
    return NULL;
}

/* The tightest bounds the table holds for the position (stopping once they decide the window (alpha,
 * beta)); 0 if no entry matches. A shape that matched moves to the front of its list. */
static int V(table_probe)(const SolverObject *s, const Key *k, int alpha, int beta, Probe *out) {
    out->low = -1;
    out->high = 99;
    out->move = -1;
    if (!s->table) return 0;
    Shapes *sh = V(shapes_find)(s, k->lens, k->extra);
    if (!sh) return 0;
    size_t mask = ((size_t)1 << s->table_bits) - 1;
    u64 base = shape_hash(k->lens, k->extra);
    const Entry *buckets[SHAPES];
    uint32_t patterns[SHAPES][4];
    int found = 0, ready = 0;
    for (int d = 0; d < sh->count; d++) {
        while (ready < sh->count && ready < d + 4) { /* a few buckets ahead, fetched while these are read */
            V(pattern_of)(k, sh->depths[ready], patterns[ready]);
            buckets[ready] =
                &s->table[(entry_hash(base, sh->depths[ready], patterns[ready]) & mask) * BUCKET];
            __builtin_prefetch(buckets[ready]);
            ready++;
        }
        Depth depth = sh->depths[d];
        const Entry *bucket = buckets[d];
        for (int i = 0; i < BUCKET; i++) {
            const Entry *e = &bucket[i];
            if (e->lens != k->lens || e->extra != k->extra || e->depth != depth
                || memcmp(e->pattern, patterns[d], sizeof patterns[d]))
                continue;
            found = 1;
            if (e->low > out->low) {
                out->low = e->low;
                out->low_depth = depth;
                if (e->move >= 0) out->move = e->move;
            }
            if (e->high < out->high) {
                out->high = e->high;
                out->high_depth = depth;
            }
            if (out->move < 0) out->move = e->move;
            break;
        }
        if (out->low >= beta || out->high <= alpha || out->low == out->high) {
            if (d > 0) { /* to the front: the next probe of these lengths likely needs it again */
                Depth hit = sh->depths[d];
                memmove(&sh->depths[1], &sh->depths[0], (size_t)d * sizeof hit);
                sh->depths[0] = hit;
            }
            break;
        }
    }
    return found;
}

/* Store bounds for every position matching the key's top `depth` cards: merged into an entry of the same
 * pattern, else in a free slot of its bucket, else over the bucket's oldest entry (a cache: any
 * replacement keeps the answers exact). */
static void V(table_store)(SolverObject *s, const Key *k, Depth depth, int low, int high, int move) {
    if (!s->table) {
        if (!table_grow(s)) return; /* out of memory: search on without storing */
    } else if ((s->count * 4 >= ((size_t)BUCKET << s->table_bits) * 3
                || s->shape_count * 2 >= ((size_t)1 << s->table_bits))
               && s->table_bits < TABLE_MAX_BITS) {
        table_grow(s); /* on failure the smaller table stays */
    }
    size_t mask = ((size_t)1 << s->table_bits) - 1;
    Shapes *sh = V(shapes_find)(s, k->lens, k->extra);
    if (!sh) {
        Shapes fresh;
        memset(&fresh, 0, sizeof fresh);
        fresh.lens = k->lens;
        fresh.extra = k->extra;
        fresh.used = 1;
        shapes_put(s->shapes, s->table_bits, &fresh, &s->shape_count);
        sh = V(shapes_find)(s, k->lens, k->extra);
    }
    if (sh) {
        int known = 0;
        for (int d = 0; d < sh->count; d++) known |= sh->depths[d] == depth;
        if (!known) {
            /* New shapes go first; when the list is full the last (least recently useful) one goes and
             * its entries can no longer be found. */
            int keep = sh->count < SHAPES ? sh->count : SHAPES - 1;
            memmove(&sh->depths[1], &sh->depths[0], (size_t)keep * sizeof depth);
            sh->depths[0] = depth;
            sh->count = (uint8_t)(keep + 1);
        }
    }
    uint32_t pattern[4];
    V(pattern_of)(k, depth, pattern);
    Entry *bucket = &s->table[(entry_hash(shape_hash(k->lens, k->extra), depth, pattern) & mask) * BUCKET];
    for (int i = 0; i < BUCKET; i++) {
        Entry *e = &bucket[i];
        if (e->lens == k->lens && e->extra == k->extra && e->depth == depth
            && !memcmp(e->pattern, pattern, sizeof pattern)) {
            if (low > e->low) e->low = (int8_t)low;
            if (high < e->high) e->high = (int8_t)high;
            if (move >= 0) e->move = (int8_t)move;
            e->stamp = (uint16_t)++s->stamp;
            return;
        }
    }
    Entry fresh;
    memset(&fresh, 0, sizeof fresh);
    fresh.lens = k->lens;
    fresh.extra = k->extra;
    fresh.depth = depth;
    memcpy(fresh.pattern, pattern, sizeof pattern);
    fresh.low = (int8_t)low;
    fresh.high = (int8_t)high;
    fresh.move = (int8_t)move;
    fresh.stamp = (uint16_t)++s->stamp;
    bucket_put(bucket, &fresh, fresh.stamp, &s->count);
}

/* The position at the start of a trick as the table keys it (see Key); `extra` is the leader, piccolo's
 * tricks so far and a tag. */
static void V(make_key)(const SolverObject *s, unsigned extra, Key *k) {
    u64 all = s->hands[0] | s->hands[1] | s->hands[2] | s->hands[3];
    k->lens = 0;
    for (int seat = 0; seat < 4; seat++)
        for (int suit = 0; suit < 4; suit++)
            k->lens |= (u64)V(popcount)(s->hands[seat] & SUIT_MASK[suit]) << (16 * suit + 4 * seat);
    u64 odd = s->hands[1] | s->hands[3], high = s->hands[2] | s->hands[3]; /* the owner's two bits */
    for (int suit = 0; suit < 4; suit++) {
        u64 out = all & SUIT_MASK[suit];
        k->owners[suit] = V(spread)(V(extract)(odd, out)) | V(spread)(V(extract)(high, out)) << 1;
        k->n[suit] = (uint8_t)V(popcount)(out);
    }
    k->extra = (uint8_t)extra;
}

/* Per suit, how many cards from the top down to the lowest card of `rel` (the ranks that mattered):
 * every card still out at or above it. Every rank when the solver matches on every rank. */
static Depth V(depths_of)(const SolverObject *s, u64 rel, const Key *k) {
    u64 all = s->hands[0] | s->hands[1] | s->hands[2] | s->hands[3];
    unsigned depth = 0;
    for (int suit = 0; suit < 4; suit++) {
        u64 r = rel & SUIT_MASK[suit];
        unsigned d = s->exact_keys ? k->n[suit]
                     : r ? (unsigned)V(popcount)(all & SUIT_MASK[suit] & ~((1ULL << V(low_bit)(r)) - 1)) : 0;
        depth |= d << (4 * suit);
    }
    return (Depth)depth;
}

/* Every rank of the key: the depth vector of an exact match. */
static inline Depth V(full_depth)(const Key *k) {
    return (Depth)(k->n[0] | k->n[1] << 4 | k->n[2] << 8 | k->n[3] << 12);
}

/* The top `n` cards of `cards` (of one suit). */
static inline u64 V(top_n)(u64 cards, int n) {
#ifdef __BMI2__
    /* The cards of rank n-th from the top or higher among them: deposit the top n of popcount bits. */
    int count = V(popcount)(cards);
    if (n >= count) return cards;
    if (n <= 0) return 0;
    return _pdep_u64(((1ULL << n) - 1) << (count - n), cards);
#else
    u64 rel = 0;
    for (int i = 0; i < n && cards; i++) {
        u64 one = 1ULL << V(high_bit)(cards);
        rel |= one;
        cards ^= one;
    }
    return rel;
#endif
}

/* The cards a table entry of these depths stands on: the top `depth[suit]` cards still out of each suit. */
static u64 V(top_cards)(const SolverObject *s, Depth depth) {
    u64 all = s->hands[0] | s->hands[1] | s->hands[2] | s->hands[3];
    u64 rel = 0;
    for (int suit = 0; suit < 4; suit++) rel |= V(top_n)(all & SUIT_MASK[suit], (depth >> (4 * suit)) & 0xF);
    return rel;
}

/* A lead's code in relative ranks, and back. */
static int V(lead_code)(const SolverObject *s, int bit) {
    u64 all = s->hands[0] | s->hands[1] | s->hands[2] | s->hands[3];
    int suit = SUIT_OF(bit);
    return suit * 16 + V(popcount)(all & SUIT_MASK[suit] & ~((2ULL << bit) - 1));
}

static int V(lead_from_code)(const SolverObject *s, int code) {
    if (code < 0) return -1;
    u64 all = s->hands[0] | s->hands[1] | s->hands[2] | s->hands[3];
    u64 out = all & SUIT_MASK[code / 16];
    int place = code % 16; /* the card with `place` cards of the suit above it */
    if (place >= V(popcount)(out)) return -1;
#ifdef __BMI2__
    return V(low_bit)(_pdep_u64(1ULL << (V(popcount)(out) - 1 - place), out));
#else
    for (; place > 0; place--) out ^= 1ULL << V(high_bit)(out);
    return V(high_bit)(out);
#endif
}

/* ------------------------------------------------------------------ moves */

/* The legal cards of the seat to play, one per group of equivalent cards (the lowest of each), as solver.py. */
static inline int V(legal_moves_in)(const SolverObject *s, int seat, u64 live, int *moves) {
    u64 own = s->hands[seat];
    u64 hand = own;
    if (s->nplayed) {
        u64 follow = hand & SUIT_MASK[SUIT_OF(s->played[0])];
        if (follow) hand = follow;
    }
    int n = 0;
    while (hand) {
        int bit = V(low_bit)(hand);
        hand &= hand - 1;
        u64 below = live & SUIT_MASK[SUIT_OF(bit)] & ((1ULL << bit) - 1);
        if (below && ((own >> V(high_bit)(below)) & 1)) continue;
        moves[n++] = bit;
    }
    return n;
}

/* The same, `live` (the cards in the hands and on the table) computed here. */
static int V(legal_moves)(const SolverObject *s, int seat, int *moves) {
    u64 live = s->hands[0] | s->hands[1] | s->hands[2] | s->hands[3];
    for (int i = 0; i < s->nplayed; i++) live |= 1ULL << s->played[i];
    return V(legal_moves_in)(s, seat, live, moves);
}

static void V(best_so_far)(const SolverObject *s, int *best, int *best_seat) {
    *best = -1;
    *best_seat = s->leader;
    if (!s->nplayed) return;
    *best = s->played[0];
    for (int i = 1; i < s->nplayed; i++)
        if (V(beats)(s->played[i], *best, s->trump)) {
            *best = s->played[i];
            *best_seat = (s->leader + i) & 3;
        }
}

/* The cards (of the whole deck) that some seat after `after_seat` in this trick, of side A (`[1]`) or not
 * (`[0]`), could beat were it the trick's best card (the trick led in suit `led`): one of the led suit
 * below the seat's top card of it, or, for a seat void in it and holding trumps, any card outside trumps
 * and the trumps below its top trump. */
static void V(beatable)(const SolverObject *s, int led, int after_seat, u64 *by_side) {
    by_side[0] = by_side[1] = 0;
    for (int seat = (after_seat + 1) & 3; seat != s->leader; seat = (seat + 1) & 3) {
        u64 follow = s->hands[seat] & SUIT_MASK[led];
        u64 cards = 0;
        if (follow) cards = SUIT_MASK[led] & ((1ULL << V(high_bit)(follow)) - 1);
        else if (s->trump >= 0 && (s->hands[seat] & SUIT_MASK[s->trump]))
            cards = (~SUIT_MASK[s->trump] & ((1ULL << 52) - 1))
                    | (SUIT_MASK[s->trump] & ((1ULL << V(high_bit)(s->hands[seat] & SUIT_MASK[s->trump])) - 1));
        by_side[V(in_a)(s, seat)] |= cards;
    }
}

static inline int64_t V(history_of)(const SolverObject *s, int seat, int m) {
    return s->history[seat][m] > 0xFFFFF ? 0xFFFFF : s->history[seat][m];
}

/* What every lead of one seat's ordering shares: the other seats' cards, its partners', and per suit
 * (bit `suit`) whether an opponent or a partner could ruff that suit's first round. */
typedef struct {
    u64 others, friends;
    unsigned ruff_risk, friend_ruff;
} V(LeadContext);

static void V(lead_context)(const SolverObject *s, int seat, V(LeadContext) *c) {
    c->others = c->friends = 0;
    c->ruff_risk = c->friend_ruff = 0;
    for (int j = 0; j < 4; j++) {
        if (j == seat) continue;
        u64 h = s->hands[j];
        c->others |= h;
        unsigned void_ruff = 0; /* the plain suits this hand could ruff */
        if (s->trump >= 0 && (h & SUIT_MASK[s->trump]))
            for (int suit = 0; suit < 4; suit++)
                if (suit != s->trump && !(h & SUIT_MASK[suit])) void_ruff |= 1u << suit;
        if (V(in_a)(s, j) == V(in_a)(s, seat)) {
            c->friends |= h;
            c->friend_ruff |= void_ruff;
        } else
            c->ruff_risk |= void_ruff;
    }
}

/* A lead's class and preference (higher first), every hand seen. */
static inline void V(lead_score)(const SolverObject *s, const V(LeadContext) *c, int m, int own_tricks, int *cls,
                                 int *pref) {
    int suit = SUIT_OF(m), rank = RANK_OF(m);
    int ruff_risk = (c->ruff_risk >> suit) & 1, friend_ruff = (c->friend_ruff >> suit) & 1;
    u64 out = c->others & SUIT_MASK[suit];
    int top = !out || m > V(high_bit)(out);
    int friend_top = out && (c->friends >> V(high_bit)(out) & 1) && !top;
    if (own_tricks) {
        /* With trumps, towards a partner's winner first (its entries are worth more), else own winners. */
        if (top) {
            *cls = ruff_risk ? 2 : s->trump >= 0 ? 3 : 4;
            *pref = rank;
        } else if (friend_top) {
            *cls = s->trump >= 0 ? 4 : 3;
            *pref = 13 - rank;
        } else {
            *cls = friend_ruff && !ruff_risk ? 2 : 1; /* a partner's ruff before a plain low lead */
            *pref = 13 - rank;
        }
    } else {
        *cls = top ? 0 : 2;
        *pref = 13 - rank;
    }
}

/* A following card's class and preference (higher first), every hand seen. */
static inline void V(follow_score)(const SolverObject *s, const u64 *beatable, int seat, int m, int best,
                                  int best_seat, int own_tricks, int *cls, int *pref) {
    int led = SUIT_OF(s->played[0]);
    int rank = RANK_OF(m);
    int wins = V(beats)(m, best, s->trump);
    int card = wins ? m : best, winner = wins ? seat : best_seat;
    int good = V(in_a)(s, winner) == V(wants_a)(s, seat); /* the trick now goes the way this seat wants */
    /* sure: no later seat of the other side than the winner's can beat its card */
    int sure = good && !((beatable[!V(in_a)(s, winner)] >> card) & 1);
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
 * then the class of the card (every hand seen), its preference in its class, then the history of cut-offs.
 * A lead's class and preference are weighed against the size of the search it opens (as Haglund's DDS):
 * the other side's cards in the suit (a void seat may throw any card), less a few bonuses of suits that
 * suit a partnership (towards the partner's tenace, the partner's next round, the partner's ruff). */
static void V(order_moves)(const SolverObject *s, int seat, int *moves, int n, int best, int best_seat, int first) {
    if (n < 2) return;
    int64_t score[13];
    int own_tricks = V(wants_a)(s, seat) == V(in_a)(s, seat); /* this seat wants its own side to take tricks */
    V(LeadContext) context = {0, 0, 0, 0};
    u64 beatable[2] = {0, 0};
    int opp_cards[4] = {0, 0, 0, 0}; /* per suit, the other side's choices when it is led (a void: many) */
    int suit_bonus[4] = {0, 0, 0, 0};
    if (!s->nplayed && own_tricks) {
        /* Two against two, a suit whose top card the other side holds: a lead towards the partner's second
         * best card sitting over its holder, and a suit whose second and third best cards the partner holds
         * (its next round is the side's), first (as DDS). */
        int lho = (seat + 1) & 3, partner = (seat + 2) & 3, rho = (seat + 3) & 3;
        int side = V(in_a)(s, seat);
        if (V(in_a)(s, partner) == side && V(in_a)(s, lho) != side && V(in_a)(s, rho) != side) {
            u64 all = s->hands[0] | s->hands[1] | s->hands[2] | s->hands[3];
            for (int suit = 0; suit < 4; suit++) {
                u64 out = all & SUIT_MASK[suit];
                if (!(s->hands[seat] & out)) continue;
                int top = V(high_bit)(out);
                if (((s->hands[seat] | s->hands[partner]) >> top) & 1) continue;
                u64 rest = out & ~(1ULL << top);
                if (!rest) continue;
                int second = V(high_bit)(rest);
                rest &= ~(1ULL << second);
                int third = rest ? V(high_bit)(rest) : -1;
                if (!((s->hands[partner] >> second) & 1)) continue;
                if ((s->hands[lho] >> top) & 1 && V(popcount)(s->hands[partner] & out) != 1)
                    suit_bonus[suit] += LEAD_TO_TENACE;
                if (third >= 0 && (s->hands[partner] >> third) & 1) suit_bonus[suit] += LEAD_NEXT_ROUND;
            }
        }
    }
    if (!s->nplayed) {
        V(lead_context)(s, seat, &context);
        if (LEAD_OPP_W) {
            int tricks = V(popcount)(s->hands[seat]);
            for (int j = 0; j < 4; j++) {
                if (V(in_a)(s, j) == V(in_a)(s, seat)) continue;
                for (int suit = 0; suit < 4; suit++) {
                    int len = V(popcount)(s->hands[j] & SUIT_MASK[suit]);
                    opp_cards[suit] += len ? len : LEAD_VOID(tricks);
                }
            }
        }
    } else
        V(beatable)(s, SUIT_OF(s->played[0]), seat, beatable);
    int partner_covers = 0; /* second seat: the fourth, its partner, beats the led card and the third's cards */
    if (PARTNER_COVERS && s->nplayed == 1 && own_tricks) {
        int third = (seat + 1) & 3, fourth = (seat + 2) & 3;
        u64 led = SUIT_MASK[SUIT_OF(s->played[0])];
        u64 theirs = s->hands[third] & led, ours = s->hands[fourth] & led;
        if (V(in_a)(s, fourth) == V(in_a)(s, seat) && V(wants_a)(s, fourth) == V(in_a)(s, fourth) && ours
            && V(high_bit)(ours) > s->played[0] && (!theirs || V(high_bit)(ours) > V(high_bit)(theirs))
            && (theirs || s->trump < 0 || led == SUIT_MASK[s->trump] || !(s->hands[third] & SUIT_MASK[s->trump])))
            partner_covers = 1;
    }
    for (int i = 0; i < n; i++) {
        int m = moves[i];
        int cls, pref;
        if (m == first) {
            score[i] = (int64_t)1 << 50;
            continue;
        }
        if (!s->nplayed) {
            V(lead_score)(s, &context, m, own_tricks, &cls, &pref);
            int bonus = suit_bonus[SUIT_OF(m)]
                        + (own_tricks && (context.friend_ruff >> SUIT_OF(m)) & 1 ? LEAD_FRIEND_RUFF : 0)
                        + (m == s->killer[V(popcount)(s->hands[seat])][seat]
                               ? s->trump >= 0 ? LEAD_KILLER_TRUMPS : LEAD_KILLER_NO_TRUMP : 0);
            score[i] = ((int64_t)(cls * LEAD_CLS_W + pref - LEAD_OPP_W * opp_cards[SUIT_OF(m)] + bonus) << 24)
                       + V(history_of)(s, seat, m);
            continue;
        }
        V(follow_score)(s, beatable, seat, m, best, best_seat, own_tricks, &cls, &pref);
        if (partner_covers && SUIT_OF(m) == SUIT_OF(s->played[0])) {
            cls = 2;
            pref = 13 - RANK_OF(m);
        }
        score[i] = ((int64_t)cls << 40) + ((int64_t)pref << 24) + V(history_of)(s, seat, m);
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

/* Tricks `lead` surely cashes from the top before anyone may ruff, were it on lead: in each suit its cards
 * above every other seat's, no more (outside trumps) than any seat holding a trump can follow.
 * `count[suit]` and `rel[suit]` get each suit's share and the cards it stands on (the winners counted; where
 * no other seat holds the suit, lengths alone decide). */
static int V(cashable)(const SolverObject *s, int lead, int *count, u64 *rel) {
    u64 mine = s->hands[lead];
    u64 others = (s->hands[0] | s->hands[1] | s->hands[2] | s->hands[3]) & ~mine;
    unsigned ruffers = 0; /* the other seats holding a trump */
    if (s->trump >= 0)
        for (int seat = 0; seat < 4; seat++)
            if (seat != lead && (s->hands[seat] & SUIT_MASK[s->trump])) ruffers |= 1u << seat;
    int total = 0;
    for (int suit = 0; suit < 4; suit++) {
        count[suit] = 0;
        rel[suit] = 0;
        u64 own = mine & SUIT_MASK[suit];
        if (!own) continue;
        u64 theirs = others & SUIT_MASK[suit];
        int winners = theirs ? V(popcount)(own >> (V(high_bit)(theirs) + 1)) : V(popcount)(own);
        if (!winners) continue;
        if (theirs) { /* the others' cards all fall under the winners: the small cards run too */
            int longest = 0;
            for (int seat = 0; seat < 4; seat++) {
                int len = seat != lead ? V(popcount)(s->hands[seat] & SUIT_MASK[suit]) : 0;
                longest = len > longest ? len : longest;
            }
            if (longest <= winners) {
                rel[suit] = V(top_n)(own, winners);
                winners = V(popcount)(own);
            }
        }
        if (suit != s->trump)
            for (unsigned r = ruffers; r; r &= r - 1) {
                int follow = V(popcount)(s->hands[V(low_bit)(r)] & SUIT_MASK[suit]);
                if (follow < winners) winners = follow;
            }
        count[suit] = winners;
        if (theirs && winners && !rel[suit]) rel[suit] = V(top_n)(own, winners);
        total += winners;
    }
    return total;
}

/* The cards `need` of the counted tricks stand on: the suits that cost no rank first, then the biggest. */
static u64 V(needed_rel)(const int *count, const u64 *rel, int need) {
    u64 out = 0;
    int used[4] = {0, 0, 0, 0};
    for (int suit = 0; suit < 4 && need > 0; suit++)
        if (count[suit] && !rel[suit]) {
            need -= count[suit];
            used[suit] = 1;
        }
    while (need > 0) {
        int pick = -1;
        for (int suit = 0; suit < 4; suit++)
            if (!used[suit] && count[suit] && (pick < 0 || count[suit] > count[pick])) pick = suit;
        if (pick < 0) break;
        used[pick] = 1;
        out |= rel[pick];
        need -= count[pick];
    }
    return out;
}

/* Tricks the leader's side surely takes (the leader wanting them): the leader's own cashable tricks, or a
 * partner's (who wants them too) reached by leading a suit whose top card the partner holds (or a card that
 * beats the opponents'), when no opponent can ruff that first round; or tricks that stand on few ranks
 * (below). `*rel`: the cards that `need` of them stand on (all if fewer). */
static int V(quick_tricks)(const SolverObject *s, int need, u64 *rel) {
    int lead = s->leader;
    int count[4];
    u64 rels[4];
    int sure = V(cashable)(s, lead, count, rels);
    int own = sure;
    *rel = V(needed_rel)(count, rels, need < sure ? need : sure);
    u64 all = s->hands[0] | s->hands[1] | s->hands[2] | s->hands[3];
    u64 opponents = 0;
    for (int seat = 0; seat < 4; seat++)
        if (V(in_a)(s, seat) != V(in_a)(s, lead)) opponents |= s->hands[seat];
    u64 their_trumps = s->trump >= 0 ? opponents & SUIT_MASK[s->trump] : 0;
    for (int partner = 0; partner < 4; partner++) {
        if (partner == lead || V(in_a)(s, partner) != V(in_a)(s, lead)
            || V(wants_a)(s, partner) != V(in_a)(s, partner))
            continue;
        for (int suit = 0; suit < 4; suit++) {
            u64 out = all & SUIT_MASK[suit];
            /* The entry: the partner's top card of the suit, or, without trumps, its card above the
             * opponents' cards below one of the leader's, reached by a smaller card of the leader's (DDS's "Kx
             * opposite Ax"; a trick more; with trumps this measured no fewer positions). */
            u64 mine = s->hands[lead] & out, rest = out & ~mine;
            if (!mine || !rest || !(s->hands[partner] >> V(high_bit)(rest) & 1)
                || V(low_bit)(mine) > V(high_bit)(rest))
                continue;
            int entry = V(high_bit)(rest), over = V(high_bit)(out) != entry;
            if (over && s->trump >= 0) continue;
            int ruff = 0;
            if (s->trump >= 0 && suit != s->trump)
                for (int seat = 0; seat < 4; seat++)
                    if (V(in_a)(s, seat) != V(in_a)(s, lead) && !(s->hands[seat] & out)
                        && (s->hands[seat] & SUIT_MASK[s->trump]))
                        ruff = 1;
            if (ruff) continue;
            int theirs_count[4];
            u64 theirs_rels[4];
            int theirs = V(cashable)(s, partner, theirs_count, theirs_rels) + over;
            if (theirs > sure) {
                sure = theirs;
                *rel = V(needed_rel)(theirs_count, theirs_rels, (need < sure ? need : sure) - over)
                       | 1ULL << entry;
            }
            /* With no opponent able to ruff, the leader may cash its own winners first and then cross to
             * the partner's, if the partner can follow or throw cards that are neither its winners nor
             * needed to follow (the two sets of winners are in different suits: a suit's top card is in
             * one hand). */
            if (!their_trumps && own && theirs && !over) {
                int discards = 0, following = 0;
                for (int x = 0; x < 4; x++) {
                    int len = V(popcount)(s->hands[partner] & SUIT_MASK[x]);
                    following += len < count[x] ? len : count[x];
                    discards += count[x] > len ? count[x] - len : 0;
                }
                if (discards <= V(popcount)(s->hands[partner]) - theirs - following && own + theirs > sure) {
                    sure = own + theirs;
                    int both[4];
                    u64 both_rels[4];
                    for (int x = 0; x < 4; x++) {
                        both[x] = count[x] + theirs_count[x];
                        both_rels[x] = rels[x] | theirs_rels[x];
                    }
                    *rel = V(needed_rel)(both, both_rels, need < sure ? need : sure) | 1ULL << V(high_bit)(out);
                }
            }
            break;
        }
        /* Tricks that stand on no rank (DDS's quick tricks): a partner's ruff of a suit it is void in, no
         * opponent void there holding a trump; without trumps, the rounds of a suit no opponent holds while
         * both partners follow, whoever of them wins each (with trumps this measured more positions). The
         * lead may end with the partner: these are not added to other tricks. */
        for (int suit = 0; suit < 4; suit++) {
            u64 mine = s->hands[lead] & SUIT_MASK[suit], theirs = s->hands[partner] & SUIT_MASK[suit];
            if (!mine) continue;
            int free = 0;
            if (s->trump < 0 && theirs && !(opponents & SUIT_MASK[suit])) {
                free = V(popcount)(mine) < V(popcount)(theirs) ? V(popcount)(mine) : V(popcount)(theirs);
            } else if (s->trump >= 0 && suit != s->trump && !theirs
                       && (s->hands[partner] & SUIT_MASK[s->trump])) {
                free = 1;
                for (int seat = 0; seat < 4; seat++)
                    if (V(in_a)(s, seat) != V(in_a)(s, lead) && !(s->hands[seat] & SUIT_MASK[suit])
                        && (s->hands[seat] & SUIT_MASK[s->trump]))
                        free = 0;
            }
            if (free >= sure || free >= need) {
                sure = free > sure ? free : sure;
                *rel = 0;
            }
        }
    }
    return need < sure ? need : sure;
}

static int V(search)(SolverObject *s, int alpha, int beta, u64 *rel);

/* The card winning the complete trick in `played` matters by its rank only if it beat a card of its suit. */
static inline u64 V(trick_rel)(const SolverObject *s, int winner_card) {
    for (int i = 0; i < 4; i++)
        if (s->played[i] != winner_card && SUIT_OF(s->played[i]) == SUIT_OF(winner_card))
            return 1ULL << winner_card;
    return 0;
}

/* Play `m` for `seat` (the trick's best card so far given), search on, take the card back; `*rel` gets the
 * cards whose ranks the value stands on. */
static int V(play_and_search)(SolverObject *s, int seat, int m, int best, int best_seat, int alpha, int beta,
                              u64 *rel) {
    int child;
    s->hands[seat] ^= 1ULL << m;
    s->played[s->nplayed++] = m;
    if (s->nplayed == 4) {
        int wins = V(beats)(m, best, s->trump);
        int winner = wins ? seat : best_seat;
        int gained = V(in_a)(s, winner);
        int leader = s->leader;
        int trick[4];
        memcpy(trick, s->played, sizeof trick); /* the next trick reuses `played` */
        u64 won = V(trick_rel)(s, wins ? m : best);
        s->leader = winner;
        s->nplayed = 0;
        child = gained + V(search)(s, alpha - gained, beta - gained, rel);
        *rel |= won;
        memcpy(s->played, trick, sizeof trick);
        s->leader = leader;
        s->nplayed = 4;
    } else {
        child = V(search)(s, alpha, beta, rel);
    }
    s->nplayed--;
    s->hands[seat] ^= 1ULL << m;
    return child;
}

/* A move stands for its group of equivalent cards (the seat's cards above it with no live card between):
 * if the ranks that mattered cut through the group, the group must stay whole where the entry is reused,
 * so the representative's rank matters too. */
static inline u64 V(group_rel)(const SolverObject *s, int seat, int m, u64 live, u64 rel) {
    u64 r = rel & SUIT_MASK[SUIT_OF(m)];
    if (!r) return rel;
    int low = V(low_bit)(r);
    if (low <= m || !((s->hands[seat] >> low) & 1)) return rel;
    u64 between = live & ~s->hands[seat] & ((1ULL << low) - 1) & ~((2ULL << m) - 1);
    return between ? rel : rel | 1ULL << m;
}

/* The top of the seat's group of equivalent cards that `m` stands for. */
static inline int V(group_top)(const SolverObject *s, int seat, int m, u64 live) {
    u64 above = live & SUIT_MASK[SUIT_OF(m)] & ~((2ULL << m) - 1);
    u64 theirs = above & ~s->hands[seat];
    u64 run = above & s->hands[seat] & (theirs ? (1ULL << V(low_bit)(theirs)) - 1 : ~0ULL);
    return run ? V(high_bit)(run) : m;
}

/* Alpha-beta over the cards of the seat to play (fail-soft); `*chosen` gets the card of the value, `*rel`
 * the cards the value stands on (a cut: the cutting card's; otherwise every card's). */
static int V(play_trick)(SolverObject *s, int alpha, int beta, int first, int *chosen, u64 *rel) {
    int seat = (s->leader + s->nplayed) & 3;
    int best, best_seat;
    V(best_so_far)(s, &best, &best_seat);
    u64 live = s->hands[0] | s->hands[1] | s->hands[2] | s->hands[3]; /* with the trick's cards */
    for (int i = 0; i < s->nplayed; i++) live |= 1ULL << s->played[i];
    int moves[13];
    int n = V(legal_moves_in)(s, seat, live, moves);
    V(order_moves)(s, seat, moves, n, best, best_seat, first);
    int maximizing = V(wants_a)(s, seat);
    int value = maximizing ? -1 : 99;
    int pick = n ? moves[0] : -1;
    u64 all_rel = 0;
    int covered[4] = {-1, -1, -1, -1}; /* per suit: moves whose whole group lies below are settled */
    for (int i = 0; i < n; i++) {
        int m = moves[i];
        if (covered[SUIT_OF(m)] > m && V(group_top)(s, seat, m, live) < covered[SUIT_OF(m)]) continue;
        u64 child_rel;
        int child = V(play_and_search)(s, seat, m, best, best_seat, alpha, beta, &child_rel);
        if (s->aborted) return 0;
        child_rel = V(group_rel)(s, seat, m, live, child_rel);
        /* Partition search: the value stands on no rank of this suit below `low`, so another card of this
         * seat below it leads to a position the same bound holds for (the card left in the hand instead
         * is as irrelevant): it cannot do better for this seat than this one, and need not be searched. */
        u64 suited = child_rel & SUIT_MASK[SUIT_OF(m)];
        int low = suited ? V(low_bit)(suited) : 13 * SUIT_OF(m) + 13;
        if (m < low && low > covered[SUIT_OF(m)]) covered[SUIT_OF(m)] = low;
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
            int tricks = V(popcount)(s->hands[seat]);
            s->history[seat][moves[i]] += (uint32_t)(tricks * tricks);
            if (!s->nplayed) s->killer[tricks][seat] = (int8_t)moves[i];
            all_rel = child_rel;
            break;
        }
        all_rel |= child_rel;
    }
    if (chosen) *chosen = pick;
    *rel = all_rel;
    return value;
}

/* The last trick: every hand holds one card. */
static int V(last_trick)(SolverObject *s, u64 *rel) {
    int best = V(low_bit)(s->hands[s->leader]), best_seat = s->leader;
    int suited = 0;
    for (int i = 1; i < 4; i++) {
        int seat = (s->leader + i) & 3;
        int card = V(low_bit)(s->hands[seat]);
        if (SUIT_OF(card) == SUIT_OF(best)) suited = 1;
        if (V(beats)(card, best, s->trump)) {
            best = card;
            best_seat = seat;
            suited = 0;
            for (int j = 0; j < 4; j++)
                if (j != seat && SUIT_OF(V(low_bit)(s->hands[j])) == SUIT_OF(card)) suited = 1;
        }
    }
    *rel = suited ? 1ULL << best : 0;
    return V(in_a)(s, best_seat);
}

/* DDS's "later tricks" (LaterTricksMIN/MAX) with trumps: tricks (0-2) the side not on lead surely takes with
 * its trumps, two against two, for windows where the leader's side needs every trick left or all but one:
 * two for the top two trumps with a hand holding two trumps (they cannot fall in one trick); one, the
 * leader's side holding the top trump, for the second behind it with a guard, or for the second (with a
 * guard) and the third. `*rel`: the top trumps it stands on. (DDS's no-trump case, a suit the other side
 * tops where the leader's side cannot run every trick in its own suits, measured no fewer positions.) */
static int V(later_tricks)(const SolverObject *s, u64 *rel) {
    u64 theirs = s->hands[(s->leader + 1) & 3] | s->hands[(s->leader + 3) & 3];
    u64 trumps = (s->hands[0] | s->hands[1] | s->hands[2] | s->hands[3]) & SUIT_MASK[s->trump];
    *rel = 0;
    if (!trumps) return 0;
    int top = V(high_bit)(trumps);
    u64 rest = trumps & ~(1ULL << top);
    if (!rest) return 0;
    int second = V(high_bit)(rest);
    int hh = 0; /* the second best trump's holder */
    while (!((s->hands[hh] >> second) & 1)) hh++;
    if (!((theirs >> second) & 1)) return 0;
    if ((theirs >> top) & 1) {
        /* Both top trumps theirs and a hand of theirs with two: they cannot fall in one trick. */
        int two = V(popcount)(s->hands[hh] & trumps) > 1 || V(popcount)(s->hands[(hh + 2) & 3] & trumps) > 1;
        if (!two) return 0;
        *rel = 1ULL << top | 1ULL << second;
        return 2;
    }
    if (V(popcount)(s->hands[hh] & trumps) < 2) return 0;
    if ((s->hands[(hh + 3) & 3] >> top) & 1) { /* the second sits behind the top with a guard */
        *rel = 1ULL << top | 1ULL << second;
        return 1;
    }
    rest &= ~(1ULL << second);
    if (!rest || !((theirs >> V(high_bit)(rest)) & 1)) return 0;
    *rel = 1ULL << top | 1ULL << second | 1ULL << V(high_bit)(rest);
    return 1;
}

/* A lead position's bounds, each with the cards it stands on: a lower bound raised, an upper one lowered. */
static inline void V(raise_low)(int *low, u64 *low_rel, int value, u64 value_rel) {
    if (value > *low) {
        *low = value;
        *low_rel = value_rel;
    }
}

static inline void V(lower_high)(int *high, u64 *high_rel, int value, u64 value_rel) {
    if (value < *high) {
        *high = value;
        *high_rel = value_rel;
    }
}

/* Whether the bounds [low, high] decide the window (alpha, beta): then the value to return in `*value`
 * and the cards it stands on in `*rel`. */
static inline int V(decided)(int low, int high, u64 low_rel, u64 high_rel, int alpha, int beta, int *value,
                             u64 *rel) {
    if (low >= beta || low >= high) {
        *rel = low >= high ? low_rel | high_rel : low_rel;
        *value = low;
        return 1;
    }
    if (high <= alpha) {
        *rel = high_rel;
        *value = high;
        return 1;
    }
    return 0;
}

static int V(search_lead)(SolverObject *s, int alpha, int beta, u64 *rel) {
    int remaining = V(popcount)(s->hands[s->leader]);
    *rel = 0;
    if (remaining == 0) return 0;
    if (beta <= 0) return 0; /* the window is decided whatever the tricks left: on no rank */
    if (alpha >= remaining) return remaining;
    if (remaining == 1) return V(last_trick)(s, rel);
    /* The bounds first, then the table: a bound that decides the window needs no probe, and usually
     * stands on fewer ranks than a table entry would (fewer positions). */
    int low = 0, high = remaining, code = -1;
    u64 low_rel = 0, high_rel = 0; /* the cards each bound stands on */
    if (V(wants_a)(s, s->leader) == V(in_a)(s, s->leader)) {
        u64 sure_rel;
        /* As many tricks as would decide the window: the ranks of more need not count. */
        int a_leads = V(in_a)(s, s->leader);
        int need = a_leads ? (beta < high ? beta : high) : remaining - (alpha > low ? alpha : low);
        int sure = V(quick_tricks)(s, need, &sure_rel);
        if (a_leads) V(raise_low)(&low, &low_rel, sure, sure_rel);
        else V(lower_high)(&high, &high_rel, remaining - sure, sure_rel);
    }
    if (s->trump >= 0) {
        /* A trump above every trump of the other side wins the trick it is played in for its side
         * (whatever anyone wants), and one hand plays one card a trick: each hand's such trumps are that
         * many sure tricks for its side. */
        u64 trumps_a = 0, trumps_b = 0;
        for (int seat = 0; seat < 4; seat++) {
            if (V(in_a)(s, seat)) trumps_a |= s->hands[seat] & SUIT_MASK[s->trump];
            else trumps_b |= s->hands[seat] & SUIT_MASK[s->trump];
        }
        for (int seat = 0; seat < 4; seat++) {
            u64 own = s->hands[seat] & SUIT_MASK[s->trump];
            if (!own) continue;
            u64 rest = V(in_a)(s, seat) ? trumps_b : trumps_a;
            int sure = rest ? V(popcount)(own >> (V(high_bit)(rest) + 1)) : V(popcount)(own);
            if (!sure) continue;
            u64 sure_rel = rest ? V(top_n)(own, sure) : 0;
            if (V(in_a)(s, seat)) V(raise_low)(&low, &low_rel, sure, sure_rel);
            else V(lower_high)(&high, &high_rel, remaining - sure, sure_rel);
        }
    }
    if (s->trump >= 0 && s->side_a == s->maximizes && (s->side_a == 5 || s->side_a == 10)) {
        /* The other side's trump tricks, where the leader's side needs (nearly) all (two against two). */
        int a_leads = V(in_a)(s, s->leader);
        if (a_leads ? alpha >= remaining - 2 && high > alpha : beta <= 2 && low < beta) {
            u64 later_rel;
            int later = V(later_tricks)(s, &later_rel);
            if (a_leads) V(lower_high)(&high, &high_rel, remaining - later, later_rel);
            else V(raise_low)(&low, &low_rel, later, later_rel);
        }
    }
    int value;
    if (V(decided)(low, high, low_rel, high_rel, alpha, beta, &value, rel)) return value;
    Key key;
    V(make_key)(s, (unsigned)s->leader, &key);
    Probe probe;
    int keyed = remaining > TABLE_FROM;
    if (keyed && V(table_probe)(s, &key, alpha, beta, &probe)) {
        if (probe.low > low) {
            low = probe.low;
            low_rel = V(top_cards)(s, probe.low_depth);
        }
        if (probe.high < high) {
            high = probe.high;
            high_rel = V(top_cards)(s, probe.high_depth);
        }
        code = probe.move;
    }
    int first = V(lead_from_code)(s, code);
    if (V(decided)(low, high, low_rel, high_rel, alpha, beta, &value, rel)) return value;
    int alpha0 = alpha > low ? alpha : low;
    int beta0 = beta < high ? beta : high;
    int chosen = -1;
    u64 found_rel;
    int result = V(play_trick)(s, alpha0, beta0, first, &chosen, &found_rel);
    if (s->aborted) return 0;
    /* The search's own bound, and the exact value where it meets a bound from before the search. */
    int found_low = 0, found_high = remaining;
    if (result <= alpha0) {
        found_high = result;
        if (low > alpha) {
            found_low = low;
            found_rel |= low_rel;
        }
    } else if (result >= beta0) {
        found_low = result;
        if (high < beta) {
            found_high = high;
            found_rel |= high_rel;
        }
    } else {
        found_low = found_high = result;
    }
    if (keyed)
        V(table_store)(s, &key, V(depths_of)(s, found_rel, &key), found_low, found_high,
                    chosen >= 0 ? V(lead_code)(s, chosen) : code);
    *rel = found_rel;
    return result;
}

/* The second seat of a trick: whether its side (the fourth seat's too) surely wins this trick, both
 * wanting it: a seat of the side can ruff the led suit and the third seat cannot, or the side's highest
 * card of the led suit beats the led card and the third seat's cards of it (which cannot ruff). `*rel`:
 * the cards the answer stands on (that highest card; none for a ruff). */
static int V(second_hand_wins)(const SolverObject *s, int seat, u64 *rel) {
    int third = (seat + 1) & 3, fourth = (seat + 2) & 3;
    if (V(in_a)(s, seat) != V(in_a)(s, fourth) || V(wants_a)(s, seat) != V(in_a)(s, seat)
        || V(wants_a)(s, fourth) != V(in_a)(s, fourth))
        return 0;
    int led = s->played[0];
    u64 suit = SUIT_MASK[SUIT_OF(led)];
    u64 trumps = s->trump >= 0 && SUIT_OF(led) != s->trump ? SUIT_MASK[s->trump] : 0;
    u64 theirs = s->hands[third] & suit;
    if (!theirs && (s->hands[third] & trumps)) return 0; /* the third seat may ruff */
    if (trumps && ((!(s->hands[seat] & suit) && (s->hands[seat] & trumps))
                   || (!(s->hands[fourth] & suit) && (s->hands[fourth] & trumps)))) {
        *rel = 0;
        return 1;
    }
    u64 ours = (s->hands[seat] | s->hands[fourth]) & suit;
    if (!ours) return 0;
    int top = V(high_bit)(ours);
    if (top < led || (theirs && top < V(high_bit)(theirs))) return 0;
    *rel = 1ULL << top;
    return 1;
}

/* The second seat of a trick whose side takes it with `top` (held by the second or fourth seat): the tricks
 * the holder then surely cashes on lead, its cards above every other hand's, the top gone; outside trumps
 * no more than any other hand holding trumps can follow, counted after this trick (a seat still to play
 * follows the led suit, or may have thrown a card of any suit). `count` and `rel` per suit as cashable's. */
static int V(cash_after_trick)(const SolverObject *s, int seat, int top, int *count, u64 *rel) {
    int hh = (s->hands[seat] >> top) & 1 ? seat : (seat + 2) & 3;
    int led = SUIT_OF(s->played[0]);
    u64 others = 0;
    for (int j = 0; j < 4; j++)
        if (j != hh) others |= s->hands[j];
    int total = 0;
    for (int suit = 0; suit < 4; suit++) {
        u64 own = s->hands[hh] & SUIT_MASK[suit] & ~(1ULL << top);
        u64 theirs = others & SUIT_MASK[suit];
        int winners = theirs ? V(popcount)(own >> (V(high_bit)(theirs) + 1)) : V(popcount)(own);
        if (s->trump >= 0 && suit != s->trump && winners)
            for (int j = 0; j < 4; j++) {
                if (j == hh || !(s->hands[j] & SUIT_MASK[s->trump])) continue;
                int follow = V(popcount)(s->hands[j] & SUIT_MASK[suit]);
                if (j != s->leader) /* still to play in this trick */
                    follow -= (s->hands[j] & SUIT_MASK[led]) ? suit == led : 1;
                if (follow < winners) winners = follow > 0 ? follow : 0;
            }
        count[suit] = winners;
        rel[suit] = theirs && winners ? V(top_n)(own, winners) : 0;
        total += winners;
    }
    return total;
}

static int V(search)(SolverObject *s, int alpha, int beta, u64 *rel) {
    if (++s->nodes > s->node_limit) {
        s->aborted = 1;
        *rel = 0;
        return 0;
    }
    if (!s->nplayed) return V(search_lead)(s, alpha, beta, rel);
    if (s->nplayed == 1) {
        int seat = (s->leader + 1) & 3;
        int a_side = V(in_a)(s, seat);
        int remaining = V(popcount)(s->hands[seat]);
        int need = a_side ? beta : remaining - alpha; /* the side's tricks that decide the window */
        u64 won_rel;
        if (V(second_hand_wins)(s, seat, &won_rel)) {
            if (need <= 1) {
                *rel = won_rel;
                return a_side ? 1 : remaining - 1;
            }
            if (won_rel) { /* won by a top card: its holder then leads */
                int count[4];
                u64 rels[4];
                int sure = 1 + V(cash_after_trick)(s, seat, V(low_bit)(won_rel), count, rels);
                if (sure >= need) {
                    *rel = won_rel | V(needed_rel)(count, rels, need - 1);
                    return a_side ? sure : remaining - sure;
                }
            }
        }
    }
    return V(play_trick)(s, alpha, beta, -1, NULL, rel);
}

/* The exact value by null-window tests from the root state (MTD(f)-style: each test at the bound the last
 * one returned, fail-soft, so that a test far from the value moves the window by more than one). */
static int V(exact_value)(SolverObject *s) {
    int seat = (s->leader + s->nplayed) & 3;
    int low = 0, high = V(popcount)(s->hands[seat]);
    int guess = (low + high + 1) / 2;
    while (low < high && !s->aborted) {
        if (guess <= low) guess = low + 1;
        if (guess > high) guess = high;
        u64 rel;
        int v = V(search)(s, guess - 1, guess, &rel);
        if (v >= guess) {
            low = v > low ? v : low;
            guess = low + 1;
        } else {
            high = v < high ? v : high;
            guess = high;
        }
    }
    return low;
}

/* ------------------------------------------------------------------ piccolo: exactly one trick */

static int V(one_search)(SolverObject *s, int taken) {
    if (++s->nodes > s->node_limit) {
        s->aborted = 1;
        return 0;
    }
    if (taken >= 2) return 0;
    int remaining = 0;
    for (int seat = 0; seat < 4; seat++)
        if (V(popcount)(s->hands[seat]) > remaining) remaining = V(popcount)(s->hands[seat]);
    if (remaining == 0) return taken == 1;
    Key key;
    int keyed = !s->nplayed;
    if (keyed) {
        V(make_key)(s, (unsigned)s->leader | (unsigned)taken << 2 | 16u, &key);
        Probe probe;
        if (V(table_probe)(s, &key, 0, 1, &probe)) return probe.low;
    }
    int seat = (s->leader + s->nplayed) & 3;
    int best, best_seat;
    V(best_so_far)(s, &best, &best_seat);
    int declarer = V(in_a)(s, seat);
    int result = !declarer;
    int moves[13];
    int n = V(legal_moves)(s, seat, moves);
    for (int i = 0; i < n; i++) {
        int m = moves[i];
        int child;
        s->hands[seat] ^= 1ULL << m;
        s->played[s->nplayed++] = m;
        if (s->nplayed == 4) {
            int winner = V(beats)(m, best, s->trump) ? seat : best_seat;
            int leader = s->leader;
            int trick[4];
            memcpy(trick, s->played, sizeof trick);
            s->leader = winner;
            s->nplayed = 0;
            child = V(one_search)(s, taken + V(in_a)(s, winner));
            memcpy(s->played, trick, sizeof trick);
            s->leader = leader;
            s->nplayed = 4;
        } else {
            child = V(one_search)(s, taken);
        }
        s->nplayed--;
        s->hands[seat] ^= 1ULL << m;
        if (s->aborted) return 0;
        if (child == declarer) {
            result = declarer;
            break;
        }
    }
    if (keyed) V(table_store)(s, &key, V(full_depth)(&key), result, result, -1); /* on every rank */
    return result;
}

/* A complete trick at the root: its winner leads next; returns side A's trick from it. */
static int V(settle_complete_trick)(SolverObject *s) {
    if (s->nplayed != 4) return 0;
    int best, best_seat;
    V(best_so_far)(s, &best, &best_seat);
    s->leader = best_seat;
    s->nplayed = 0;
    return V(in_a)(s, best_seat);
}

/* A card of the seat to play reaching the position's exact value: 1 with both set, 0 past the node limit,
 * -1 if no card reaches it (a bug). */
static int V(best_move_core)(SolverObject *s, int *value_out, int *move_out) {
    int seat = (s->leader + s->nplayed) & 3;
    int value = V(exact_value)(s);
    if (s->aborted) return 0;
    int best, best_seat;
    V(best_so_far)(s, &best, &best_seat);
    int moves[13];
    int n = V(legal_moves)(s, seat, moves);
    int first = -1;
    if (!s->nplayed) {
        Key key;
        Probe probe;
        V(make_key)(s, (unsigned)s->leader, &key);
        if (V(table_probe)(s, &key, -1, 99, &probe)) first = V(lead_from_code)(s, probe.move);
    }
    V(order_moves)(s, seat, moves, n, best, best_seat, first);
    int maximizing = V(wants_a)(s, seat);
    for (int i = 0; i < n; i++) {
        /* Does this card reach the value? A null-window test around it. */
        u64 rel;
        int child = maximizing ? V(play_and_search)(s, seat, moves[i], best, best_seat, value - 1, value, &rel)
                               : V(play_and_search)(s, seat, moves[i], best, best_seat, value, value + 1, &rel);
        if (s->aborted) return 0;
        if (maximizing ? child >= value : child <= value) {
            *value_out = value;
            *move_out = moves[i];
            return 1;
        }
    }
    return -1;
}

/* Tricks left to play from the root state (the seat to play holds one card per trick). */
static int V(tricks_left)(const SolverObject *s) {
    return V(popcount)(s->hands[(s->leader + s->nplayed) & 3]);
}

/* Every legal card of the seat to play (ascending bits) and the value after it, the current trick
 * included: exact if the window (alpha, beta) holds every value, else a fail-soft bound as search's. The
 * representative of each group of equivalent cards is searched and its value shared by the group.
 * Returns the number of cards, 0 past the node limit. */
static int V(move_values_core)(SolverObject *s, int alpha, int beta, int *cards, int *values) {
    int seat = (s->leader + s->nplayed) & 3;
    int most = V(popcount)(s->hands[seat]);
    int full = alpha < 0 && beta > most;
    int value = full ? V(exact_value)(s) : 0;
    if (s->aborted) return 0;
    int best, best_seat;
    V(best_so_far)(s, &best, &best_seat);
    int moves[13], found[13];
    int n = V(legal_moves)(s, seat, moves);
    int maximizing = V(wants_a)(s, seat);
    for (int i = 0; i < n; i++) {
        if (!full) {
            u64 rel;
            found[i] = V(play_and_search)(s, seat, moves[i], best, best_seat, alpha, beta, &rel);
            if (s->aborted) return 0;
            continue;
        }
        /* The child is at most the value for the seat that maximizes, at least it for the other: test the
         * value first (the likeliest), then bisect what is left. */
        int low = maximizing ? 0 : value, high = maximizing ? value : most;
        int guess = maximizing ? high : low + 1;
        while (low < high) {
            u64 rel;
            int child = V(play_and_search)(s, seat, moves[i], best, best_seat, guess - 1, guess, &rel);
            if (s->aborted) return 0;
            if (child >= guess) low = child < high ? child : high;
            else high = child > low ? child : low;
            guess = (low + high + 1) / 2;
        }
        found[i] = low;
    }
    u64 hand = s->hands[seat];
    if (s->nplayed && (hand & SUIT_MASK[SUIT_OF(s->played[0])])) hand &= SUIT_MASK[SUIT_OF(s->played[0])];
    u64 live = s->hands[0] | s->hands[1] | s->hands[2] | s->hands[3];
    for (int i = 0; i < s->nplayed; i++) live |= 1ULL << s->played[i]; /* they separate cards too */
    int count = 0;
    while (hand) {
        int bit = V(low_bit)(hand);
        hand &= hand - 1;
        /* Its group's representative: down through the live cards while they are this seat's. */
        int rep = bit;
        for (;;) {
            u64 below = live & SUIT_MASK[SUIT_OF(rep)] & ((1ULL << rep) - 1);
            if (!below || !((s->hands[seat] >> V(high_bit)(below)) & 1)) break;
            rep = V(high_bit)(below);
        }
        int k = 0;
        while (k < n && moves[k] != rep) k++;
        cards[count] = bit;
        values[count] = k < n ? found[k] : -1000; /* -1000: no representative (a bug) */
        count++;
    }
    return count;
}

/* Every legal card of the seat to play and whether side A ends with exactly one trick after it (piccolo;
 * `taken` tricks so far). Returns the number of cards, 0 past the node limit. */
static int V(one_moves_core)(SolverObject *s, int taken, int *cards, int *values) {
    int seat = (s->leader + s->nplayed) & 3;
    int best, best_seat;
    V(best_so_far)(s, &best, &best_seat);
    u64 hand = s->hands[seat];
    if (s->nplayed && (hand & SUIT_MASK[SUIT_OF(s->played[0])])) hand &= SUIT_MASK[SUIT_OF(s->played[0])];
    int count = 0;
    while (hand) {
        int m = V(low_bit)(hand);
        hand &= hand - 1;
        int child;
        s->hands[seat] ^= 1ULL << m;
        s->played[s->nplayed++] = m;
        if (s->nplayed == 4) {
            int winner = V(beats)(m, best, s->trump) ? seat : best_seat;
            int leader = s->leader;
            int trick[4];
            memcpy(trick, s->played, sizeof trick);
            s->leader = winner;
            s->nplayed = 0;
            child = V(one_search)(s, taken + V(in_a)(s, winner));
            memcpy(s->played, trick, sizeof trick);
            s->leader = leader;
            s->nplayed = 4;
        } else {
            child = V(one_search)(s, taken);
        }
        s->nplayed--;
        s->hands[seat] ^= 1ULL << m;
        if (s->aborted) return 0;
        cards[count] = m;
        values[count] = child;
        count++;
    }
    return count;
}
