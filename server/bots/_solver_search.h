/* The search of the compiled solver (included by _solver.c): every function's name goes through V(), so
 * that _solver.c can include this file twice, once for any x86-64 or other CPU and once compiled for
 * x86-64-v3 (hardware popcount, bit scans), and pick one at import. Both copies are the same C code, so
 * they give the same answers and node counts. */

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

/* The position at the start of a trick in relative ranks: per suit the number of cards still out and, from
 * the top down, the seat holding each (2 bits a card); `extra` (leader, piccolo tricks, a tag) goes on top. */
static void V(position_key)(const SolverObject *s, unsigned extra, u64 *k1, u64 *k2) {
    u64 parts[4];
    u64 all = s->hands[0] | s->hands[1] | s->hands[2] | s->hands[3];
    for (int suit = 0; suit < 4; suit++) {
        u64 out = all & SUIT_MASK[suit];
        u64 owners = 0;
        int n = 0;
        while (out) {
            int bit = V(high_bit)(out);
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
    for (int place = code % 16; place > 0 && out; place--) out ^= 1ULL << V(high_bit)(out);
    return out ? V(high_bit)(out) : -1;
}

/* ------------------------------------------------------------------ moves */

/* The legal cards of the seat to play, one per group of equivalent cards (the lowest of each), as solver.py. */
static int V(legal_moves)(const SolverObject *s, int seat, int *moves) {
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
        int bit = V(low_bit)(hand);
        hand &= hand - 1;
        u64 below = live & SUIT_MASK[SUIT_OF(bit)] & ((1ULL << bit) - 1);
        if (below && ((own >> V(high_bit)(below)) & 1)) continue;
        moves[n++] = bit;
    }
    return n;
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

/* Whether `seat` could beat `card`, the best card of a trick led in suit `led`. */
static inline int V(can_beat)(const SolverObject *s, int seat, int card, int led) {
    u64 follow = s->hands[seat] & SUIT_MASK[led];
    if (follow) return SUIT_OF(card) == led && (follow >> (card + 1)) != 0;
    if (s->trump < 0) return 0;
    u64 trumps = s->hands[seat] & SUIT_MASK[s->trump];
    if (!trumps) return 0;
    return SUIT_OF(card) != s->trump || (trumps >> (card + 1)) != 0;
}

/* Whether no seat still to play this trick on the other side of `winner` could beat its `card`. */
static int V(secure)(const SolverObject *s, int card, int winner, int led, int after_seat) {
    for (int seat = (after_seat + 1) & 3; seat != s->leader; seat = (seat + 1) & 3)
        if (V(in_a)(s, seat) != V(in_a)(s, winner) && V(can_beat)(s, seat, card, led)) return 0;
    return 1;
}

static inline int64_t V(history_of)(const SolverObject *s, int seat, int m) {
    return s->history[seat][m] > 0xFFFFF ? 0xFFFFF : s->history[seat][m];
}

/* A lead's class and preference (higher first), every hand seen. */
static void V(lead_score)(const SolverObject *s, int seat, int m, int own_tricks, int *cls, int *pref) {
    int suit = SUIT_OF(m), rank = RANK_OF(m);
    u64 others = 0, friends = 0;
    int ruff_risk = 0;
    for (int j = 0; j < 4; j++) {
        if (j == seat) continue;
        others |= s->hands[j];
        if (V(in_a)(s, j) == V(in_a)(s, seat)) friends |= s->hands[j];
        else if (s->trump >= 0 && suit != s->trump && !(s->hands[j] & SUIT_MASK[suit])
                 && (s->hands[j] & SUIT_MASK[s->trump]))
            ruff_risk = 1;
    }
    u64 out = others & SUIT_MASK[suit];
    int top = !out || m > V(high_bit)(out);
    int friend_top = out && (friends >> V(high_bit)(out) & 1) && !top;
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
static void V(follow_score)(const SolverObject *s, int seat, int m, int best, int best_seat, int own_tricks,
                         int *cls, int *pref) {
    int led = SUIT_OF(s->played[0]);
    int rank = RANK_OF(m);
    int wins = V(beats)(m, best, s->trump);
    int card = wins ? m : best, winner = wins ? seat : best_seat;
    int good = V(in_a)(s, winner) == V(wants_a)(s, seat); /* the trick now goes the way this seat wants */
    int sure = good && V(secure)(s, card, winner, led, seat);
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
static void V(order_moves)(const SolverObject *s, int seat, int *moves, int n, int best, int best_seat, int first) {
    int64_t score[13];
    int own_tricks = V(wants_a)(s, seat) == V(in_a)(s, seat); /* this seat wants its own side to take tricks */
    for (int i = 0; i < n; i++) {
        int m = moves[i];
        int cls, pref;
        if (m == first) {
            score[i] = (int64_t)1 << 50;
            continue;
        }
        if (!s->nplayed) V(lead_score)(s, seat, m, own_tricks, &cls, &pref);
        else V(follow_score)(s, seat, m, best, best_seat, own_tricks, &cls, &pref);
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
 * above every other seat's, no more (outside trumps) than any seat holding a trump can follow. */
static int V(cashable)(const SolverObject *s, int lead) {
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
        int winners = theirs ? V(popcount)(own >> (V(high_bit)(theirs) + 1)) : V(popcount)(own);
        if (s->trump >= 0 && suit != s->trump)
            for (int seat = 0; seat < 4; seat++)
                if (holds_trump[seat]) {
                    int follow = V(popcount)(s->hands[seat] & SUIT_MASK[suit]);
                    if (follow < winners) winners = follow;
                }
        total += winners;
    }
    return total;
}

/* Tricks the leader's side surely takes (the leader wanting them): the leader's own cashable tricks, or a
 * partner's (who wants them too) reached by leading a suit whose top card the partner holds, when no
 * opponent can ruff that first round. */
static int V(quick_tricks)(const SolverObject *s) {
    int lead = s->leader;
    int sure = V(cashable)(s, lead);
    u64 all = s->hands[0] | s->hands[1] | s->hands[2] | s->hands[3];
    for (int partner = 0; partner < 4; partner++) {
        if (partner == lead || V(in_a)(s, partner) != V(in_a)(s, lead)
            || V(wants_a)(s, partner) != V(in_a)(s, partner))
            continue;
        for (int suit = 0; suit < 4; suit++) {
            u64 out = all & SUIT_MASK[suit];
            if (!(s->hands[lead] & out) || !(s->hands[partner] >> V(high_bit)(out) & 1)) continue;
            int ruff = 0;
            if (s->trump >= 0 && suit != s->trump)
                for (int seat = 0; seat < 4; seat++)
                    if (V(in_a)(s, seat) != V(in_a)(s, lead) && !(s->hands[seat] & out)
                        && (s->hands[seat] & SUIT_MASK[s->trump]))
                        ruff = 1;
            if (ruff) continue;
            int theirs = V(cashable)(s, partner);
            if (theirs > sure) sure = theirs;
            break;
        }
    }
    return sure;
}

static int V(search)(SolverObject *s, int alpha, int beta);

/* Play `m` for `seat` (the trick's best card so far given), search on, take the card back. */
static int V(play_and_search)(SolverObject *s, int seat, int m, int best, int best_seat, int alpha, int beta) {
    int child;
    s->hands[seat] ^= 1ULL << m;
    s->played[s->nplayed++] = m;
    if (s->nplayed == 4) {
        int winner = V(beats)(m, best, s->trump) ? seat : best_seat;
        int gained = V(in_a)(s, winner);
        int leader = s->leader;
        int trick[4];
        memcpy(trick, s->played, sizeof trick); /* the next trick reuses `played` */
        s->leader = winner;
        s->nplayed = 0;
        child = gained + V(search)(s, alpha - gained, beta - gained);
        memcpy(s->played, trick, sizeof trick);
        s->leader = leader;
        s->nplayed = 4;
    } else {
        child = V(search)(s, alpha, beta);
    }
    s->nplayed--;
    s->hands[seat] ^= 1ULL << m;
    return child;
}

/* Alpha-beta over the cards of the seat to play (fail-soft); `*chosen` gets the card of the value. */
static int V(play_trick)(SolverObject *s, int alpha, int beta, int first, int *chosen) {
    int seat = (s->leader + s->nplayed) & 3;
    int best, best_seat;
    V(best_so_far)(s, &best, &best_seat);
    int moves[13];
    int n = V(legal_moves)(s, seat, moves);
    V(order_moves)(s, seat, moves, n, best, best_seat, first);
    int maximizing = V(wants_a)(s, seat);
    int value = maximizing ? -1 : 99;
    int pick = n ? moves[0] : -1;
    for (int i = 0; i < n; i++) {
        int child = V(play_and_search)(s, seat, moves[i], best, best_seat, alpha, beta);
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
            int tricks = V(popcount)(s->hands[seat]);
            s->history[seat][moves[i]] += (uint32_t)(tricks * tricks);
            break;
        }
    }
    if (chosen) *chosen = pick;
    return value;
}

/* The last trick: every hand holds one card. */
static int V(last_trick)(const SolverObject *s) {
    int best = V(low_bit)(s->hands[s->leader]), best_seat = s->leader;
    for (int i = 1; i < 4; i++) {
        int seat = (s->leader + i) & 3;
        int card = V(low_bit)(s->hands[seat]);
        if (V(beats)(card, best, s->trump)) {
            best = card;
            best_seat = seat;
        }
    }
    return V(in_a)(s, best_seat);
}

static int V(search_lead)(SolverObject *s, int alpha, int beta) {
    int remaining = V(popcount)(s->hands[s->leader]);
    if (remaining == 0) return 0;
    if (remaining == 1) return V(last_trick)(s);
    u64 k1, k2;
    V(position_key)(s, (unsigned)s->leader, &k1, &k2);
    int low = 0, high = remaining, first = -1;
    Entry *e = table_find(s, k1, k2);
    if (e) {
        low = e->low;
        high = e->high;
        first = V(lead_from_code)(s, e->move);
    }
    if (low >= beta || low == high) return low;
    if (high <= alpha) return high;
    int code = e ? e->move : -1;
    if (V(wants_a)(s, s->leader) == V(in_a)(s, s->leader)) {
        int sure = V(quick_tricks)(s);
        if (V(in_a)(s, s->leader) && sure > low) {
            low = sure;
            if (low >= beta || low == high) {
                table_store(s, k1, k2, low, high, code);
                return low;
            }
        } else if (!V(in_a)(s, s->leader) && remaining - sure < high) {
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
            int top = V(high_bit)(trumps), holder = 0;
            while (!(s->hands[holder] >> top & 1)) holder++;
            u64 own = s->hands[holder] & SUIT_MASK[s->trump];
            u64 rest = trumps & ~own;
            int sure = rest ? V(popcount)(own >> (V(high_bit)(rest) + 1)) : V(popcount)(own);
            if (V(in_a)(s, holder)) {
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
    int result = V(play_trick)(s, alpha0, beta0, first, &chosen);
    if (s->aborted) return 0;
    if (result <= alpha0) high = result;
    else if (result >= beta0) low = result;
    else low = high = result;
    table_store(s, k1, k2, low, high, chosen >= 0 ? V(lead_code)(s, chosen) : code);
    return result;
}

static int V(search)(SolverObject *s, int alpha, int beta) {
    if (++s->nodes > s->node_limit) {
        s->aborted = 1;
        return 0;
    }
    if (!s->nplayed) return V(search_lead)(s, alpha, beta);
    return V(play_trick)(s, alpha, beta, -1, NULL);
}

/* The exact value by null-window tests from the root state, within the trivial bounds. */
static int V(exact_value)(SolverObject *s) {
    int seat = (s->leader + s->nplayed) & 3;
    int low = 0, high = V(popcount)(s->hands[seat]);
    while (low < high && !s->aborted) {
        int guess = (low + high + 1) / 2;
        int v = V(search)(s, guess - 1, guess);
        if (v >= guess) low = v > low ? v : low;
        else high = v < high ? v : high;
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
    u64 k1 = 0, k2 = 0;
    int keyed = !s->nplayed;
    if (keyed) {
        V(position_key)(s, (unsigned)s->leader | (unsigned)taken << 2 | 8u, &k1, &k2);
        Entry *e = table_find(s, k1, k2);
        if (e) return e->low;
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
    if (keyed) table_store(s, k1, k2, result, result, -1);
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
        u64 k1, k2;
        V(position_key)(s, (unsigned)s->leader, &k1, &k2);
        Entry *e = table_find(s, k1, k2);
        if (e) first = V(lead_from_code)(s, e->move);
    }
    V(order_moves)(s, seat, moves, n, best, best_seat, first);
    int maximizing = V(wants_a)(s, seat);
    for (int i = 0; i < n; i++) {
        /* Does this card reach the value? A null-window test around it. */
        int child = maximizing ? V(play_and_search)(s, seat, moves[i], best, best_seat, value - 1, value)
                               : V(play_and_search)(s, seat, moves[i], best, best_seat, value, value + 1);
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
            found[i] = V(play_and_search)(s, seat, moves[i], best, best_seat, alpha, beta);
            if (s->aborted) return 0;
            continue;
        }
        /* The child is at most the value for the seat that maximizes, at least it for the other: test the
         * value first (the likeliest), then bisect what is left. */
        int low = maximizing ? 0 : value, high = maximizing ? value : most;
        int guess = maximizing ? high : low + 1;
        while (low < high) {
            int child = V(play_and_search)(s, seat, moves[i], best, best_seat, guess - 1, guess);
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
