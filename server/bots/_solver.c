/* The compiled exact solver of the trick phase (a "double-dummy" solver), the fast twin of solver.py.
 *
 * The contract is solver.py's: hands are 52-bit masks (card bit 13 * suit + rank - 2, suits S H D C),
 * `side_a` marks the seats whose tricks are counted and `maximizes` the seats that want that count high
 * (both 4-bit masks here, any seating), `value` is side A's tricks from the position on (the current trick
 * included) under best play, `exactly_one` solves piccolo. What makes it fast, besides C:
 *
 * - a transposition table of winning-ranks entries (as Haglund's DDS): every search also returns the cards
 *   whose ranks its value stood on, and the bound found at the start of a trick is stored for every
 *   position with the same suit lengths in every hand and leader whose cards of each suit, from the top
 *   down to the lowest that mattered, have the same owners (the small cards below do not count). It holds
 *   lower and upper bounds and the best lead;
 * - partition search at every seat: a card below the ranks a searched card's value stood on (its whole
 *   group, in the same suit) gets the same bound and is not searched;
 * - the exact value found by null-window tests (is the value at least k?) sharing that table, MTD(f)-style;
 * - quick tricks: the winners the leader's side can cash before anyone can ruff, tricks that stand on no
 *   rank (a partner's ruff, a suit only that side holds), each hand's trumps above all of the other side's
 *   and, with trumps, the other side's top trumps where the leader's side needs (nearly) every trick, bound
 *   the value at once, before the table is probed; so does a trick the second seat's side surely takes
 *   (with the cards its winner then cashes);
 * - move ordering: the table's best lead first; leads weighed by their class (cashing, towards a partner's
 *   winner or ruff, ...) against the size of the search they open (the other side's cards in the suit, as
 *   Haglund's DDS), the last lead that cut at as many tricks left earlier; follows by cheap winners for a
 *   side that wants the trick (high losers for one that does not); then the history of cut-offs;
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
#ifndef TABLE_START_BITS
#define TABLE_START_BITS 6 /* 2^bits buckets of BUCKET entries at first */
#endif
#ifndef TABLE_MAX_BITS
#define TABLE_MAX_BITS 18
#endif
#ifndef BUCKET
#define BUCKET 4
#endif
#ifndef TABLE_FROM
#define TABLE_FROM 2 /* positions of at most this many tricks are searched, not looked up */
#endif
/* Move ordering weights, in ranks (a lead's preference within its class is about one point a rank): tuned
 * on the positions of whole deals (bench/solver.py's), checked on other deals. */
#ifndef LEAD_CLS_W
#define LEAD_CLS_W 10 /* a lead's class against its preference (ranks) */
#endif
#ifndef LEAD_OPP_W
#define LEAD_OPP_W 8 /* against the other side's cards in the led suit */
#endif
#ifndef LEAD_VOID
#define LEAD_VOID(tricks) ((tricks) + 1)
#endif
#ifndef LEAD_TO_TENACE
#define LEAD_TO_TENACE 20 /* for a lead towards the partner's second best card over the top card */
#endif
#ifndef LEAD_NEXT_ROUND
#define LEAD_NEXT_ROUND 20 /* for a suit whose second and third best cards the partner holds */
#endif
#ifndef LEAD_FRIEND_RUFF
#define LEAD_FRIEND_RUFF 25 /* for a suit a partner can ruff */
#endif
#ifndef PARTNER_COVERS
#define PARTNER_COVERS 1 /* the second seat follows low where its partner (the fourth) covers the trick */
#endif
#ifndef LEAD_KILLER_TRUMPS /* for the last lead that cut at as many tricks left (with trumps, without) */
#define LEAD_KILLER_TRUMPS 20
#endif
#ifndef LEAD_KILLER_NO_TRUMP
#define LEAD_KILLER_NO_TRUMP 50
#endif
#ifndef SHAPES
#define SHAPES 32 /* depth vectors remembered per lengths and leader */
#endif

static const u64 SUIT_MASK[4] = {0x1FFFULL, 0x1FFFULL << 13, 0x1FFFULL << 26, 0x1FFFULL << 39};

/* A position at the start of a trick, as the table sees it: the length of every suit in every hand, the
 * seat on lead (and piccolo's tricks so far, and a tag), and per suit the owners of its cards still out
 * from the top down (2 bits a card, the top card in the highest bits). */
typedef struct {
    u64 lens;
    uint32_t owners[4];
    uint8_t n[4];
    uint8_t extra;
} Key;

/* Bounds that hold for every position with the same lengths and leader whose top `depth[suit]` cards of
 * each suit have the owners `pattern[suit]`: the ranks below did not matter to the search that found them
 * (the "winning ranks" of Haglund's DDS). */
typedef uint16_t Depth; /* depth[suit] in the 4 bits from 4 * suit */

typedef struct { /* 32 bytes: a bucket of 4 is two cache lines */
    u64 lens;  /* 0: a free slot (a position the table keys always has cards) */
    uint32_t pattern[4];
    Depth depth;
    uint16_t stamp; /* when last stored, modulo 2^16 (the oldest of a bucket is replaced) */
    uint8_t extra;
    int8_t low, high;
    int8_t move; /* best lead as suit * 16 + place from the top among the suit's cards still out; -1 none */
} Entry;

/* The depth vectors entries of one lengths-and-leader were stored with, so a probe knows which to try. */
typedef struct {
    u64 lens;
    Depth depths[SHAPES];
    uint8_t extra, count, next, used;
} Shapes;

/* What a probe found: the best bounds of the matching entries and the depths each needs. */
typedef struct {
    int low, high, move;
    Depth low_depth, high_depth;
} Probe;

typedef struct {
    PyObject_HEAD
    int trump;
    unsigned side_a, maximizes;
    int exact_keys; /* match on every rank (the plain relative-rank table), to check the winning ranks */
    long long node_limit, nodes;
    int aborted;
    Entry *table;
    Shapes *shapes;
    size_t table_bits, count, shape_count;
    uint32_t stamp;
    u64 hands[4];
    int leader;
    int played[4];
    int nplayed;
    uint32_t history[4][52];
    int8_t killer[14][4]; /* per tricks left and seat, the last lead that cut (-1: none) */
} SolverObject;

/* ------------------------------------------------------------------ transposition table */

static inline u64 mix(u64 h) {
    h ^= h >> 31;
    h *= 0x9E3779B97F4A7C15ULL;
    h ^= h >> 29;
    h *= 0xC2B2AE3D27D4EB4FULL;
    h ^= h >> 32;
    return h;
}

static inline u64 shape_hash(u64 lens, unsigned extra) { return mix(lens ^ ((u64)extra << 58)); }

/* An entry's hash from its lengths-and-leader's (`base`, shape_hash: computed once per probe, whatever the
 * number of shapes tried), its depths and pattern: one finalizing mix over odd multiples of the parts. */
static inline u64 entry_hash(u64 base, Depth depth, const uint32_t *pattern) {
    u64 h = base ^ depth ^ (pattern[0] | (u64)pattern[1] << 32) * 0xD6E8FEB86659FD93ULL;
    u64 t = (pattern[2] | (u64)pattern[3] << 32) * 0xA0761D6478BD642FULL;
    return mix(h ^ (t << 23 | t >> 41));
}

static void bucket_put(Entry *bucket, const Entry *fresh, uint16_t now, size_t *count) {
    Entry *victim = &bucket[0];
    for (int i = 0; i < BUCKET; i++) {
        if (!bucket[i].lens) {
            victim = &bucket[i];
            (*count)++;
            break;
        }
        if ((uint16_t)(now - bucket[i].stamp) > (uint16_t)(now - victim->stamp)) victim = &bucket[i];
    }
    *victim = *fresh;
}

static void shapes_put(Shapes *table, size_t bits, const Shapes *fresh, size_t *count) {
    size_t mask = ((size_t)1 << bits) - 1;
    size_t at = shape_hash(fresh->lens, fresh->extra) & mask;
    for (int i = 0; i < 8; i++) {
        Shapes *sh = &table[(at + i) & mask];
        if (!sh->used) {
            (*count)++;
            *sh = *fresh;
            return;
        }
    }
    table[at] = *fresh; /* a full window: its first entry goes */
}

static int table_grow(SolverObject *s) {
    size_t bits = s->table ? s->table_bits + 1 : TABLE_START_BITS;
    Entry *fresh = NULL;
    size_t bytes = ((size_t)BUCKET << bits) * sizeof(Entry);
    if (posix_memalign((void **)&fresh, 64, bytes)) fresh = NULL;
    if (fresh) memset(fresh, 0, bytes);
    Shapes *fresh_shapes = calloc((size_t)1 << bits, sizeof(Shapes));
    if (!fresh || !fresh_shapes) {
        free(fresh);
        free(fresh_shapes);
        return 0;
    }
    Entry *old = s->table;
    Shapes *old_shapes = s->shapes;
    size_t old_size = old ? (size_t)1 << s->table_bits : 0;
    size_t mask = ((size_t)1 << bits) - 1;
    s->count = 0;
    s->shape_count = 0;
    for (size_t i = 0; i < old_size * BUCKET; i++)
        if (old[i].lens) {
            const Entry *e = &old[i];
            size_t at = entry_hash(shape_hash(e->lens, e->extra), e->depth, e->pattern) & mask;
            bucket_put(&fresh[at * BUCKET], e, (uint16_t)s->stamp, &s->count);
        }
    for (size_t i = 0; i < old_size; i++)
        if (old_shapes[i].used) shapes_put(fresh_shapes, bits, &old_shapes[i], &s->shape_count);
    free(old);
    free(old_shapes);
    s->table = fresh;
    s->shapes = fresh_shapes;
    s->table_bits = bits;
    return 1;
}

/* ------------------------------------------------------------------ the search, twice */

typedef struct {
    int (*exact_value)(SolverObject *s);
    int (*search)(SolverObject *s, int alpha, int beta, u64 *rel);
    int (*one_search)(SolverObject *s, int taken);
    int (*settle)(SolverObject *s);
    int (*best_move)(SolverObject *s, int *value, int *move);
    int (*tricks_left)(const SolverObject *s);
    int (*move_values)(SolverObject *s, int alpha, int beta, int *cards, int *values);
    int (*one_moves)(SolverObject *s, int taken, int *cards, int *values);
} Engine;

#define V(name) name##_portable
#include "_solver_search.h"
#undef V
static const Engine PORTABLE = {exact_value_portable, search_portable, one_search_portable,
                                settle_complete_trick_portable, best_move_core_portable, tricks_left_portable,
                                move_values_core_portable, one_moves_core_portable};

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && __GNUC__ >= 12
#pragma GCC push_options
#pragma GCC target("arch=x86-64-v3")
#define V(name) name##_v3
#include "_solver_search.h"
#undef V
#pragma GCC pop_options
static const Engine X86_64_V3 = {exact_value_v3, search_v3, one_search_v3, settle_complete_trick_v3,
                                 best_move_core_v3, tricks_left_v3, move_values_core_v3, one_moves_core_v3};
#define HAVE_X86_64_V3 1
#endif

static Engine engine;
static const char *engine_name = "portable";

static void choose_engine(void) {
    engine = PORTABLE;
#ifdef HAVE_X86_64_V3
    const char *forced = getenv("WHIST_SOLVER_PORTABLE"); /* to compare the two copies */
    __builtin_cpu_init();
    if (!(forced && strcmp(forced, "1") == 0) && __builtin_cpu_supports("x86-64-v3")) {
        engine = X86_64_V3;
        engine_name = "x86-64-v3";
    }
#endif
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
    /* The search relies on these (at most 13 moves a hand, one owner a card). */
    u64 seen = 0;
    for (int i = 0; i < 4; i++) {
        if (__builtin_popcountll(s->hands[i]) > 13 || (seen & s->hands[i])) {
            PyErr_SetString(PyExc_ValueError, "hands must be disjoint, of at most 13 cards each");
            return 0;
        }
        seen |= s->hands[i];
    }
    for (int i = 0; i < s->nplayed; i++) {
        if (seen >> s->played[i] & 1) {
            PyErr_SetString(PyExc_ValueError, "a card of the trick is also in a hand or played twice");
            return 0;
        }
        seen |= 1ULL << s->played[i];
    }
    s->aborted = 0;
    return 1;
}


static PyObject *Solver_value(SolverObject *s, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"hands", "leader", "played", "alpha", "beta", NULL};
    PyObject *hands, *played = NULL;
    int leader, alpha = -1, beta = 99;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Oi|Oii", names, &hands, &leader, &played, &alpha, &beta))
        return NULL;
    if (!load_position(s, hands, leader, played)) return NULL;
    int gained = engine.settle(s);
    int most = engine.tricks_left(s);
    int result;
    if (alpha - gained < 0 && beta - gained > most) result = engine.exact_value(s);
    else {
        u64 rel;
        result = engine.search(s, alpha - gained, beta - gained, &rel);
    }
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
    if (!engine.tricks_left(s)) {
        PyErr_SetString(PyExc_ValueError, "the seat to play holds no card");
        return NULL;
    }
    int value, move;
    int found = engine.best_move(s, &value, &move);
    if (found == 0) Py_RETURN_NONE;
    if (found < 0) {
        PyErr_SetString(PyExc_RuntimeError, "no card reaches the value (a solver bug)");
        return NULL;
    }
    return Py_BuildValue("(ii)", value, move);
}

static PyObject *Solver_exactly_one(SolverObject *s, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"hands", "leader", "played", "taken", NULL};
    PyObject *hands, *played = NULL;
    int leader, taken = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Oi|Oi", names, &hands, &leader, &played, &taken))
        return NULL;
    if (!load_position(s, hands, leader, played)) return NULL;
    taken += engine.settle(s);
    int result = taken >= 2 ? 0 : engine.one_search(s, taken);
    if (s->aborted) Py_RETURN_NONE;
    return PyBool_FromLong(result);
}

/* A list of (card bit, value) pairs from the engine's arrays. */
static PyObject *pairs(const int *cards, const int *values, int n, int as_bool) {
    PyObject *out = PyList_New(n);
    if (!out) return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *pair = as_bool ? Py_BuildValue("(iO)", cards[i], values[i] ? Py_True : Py_False)
                                 : Py_BuildValue("(ii)", cards[i], values[i]);
        if (!pair) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, pair);
    }
    return out;
}

/* The checks best_move, move_values and exactly_one_moves share: a card to choose. */
static int card_to_choose(SolverObject *s) {
    if (s->nplayed == 4) {
        PyErr_SetString(PyExc_ValueError, "the trick is complete: no card to choose");
        return 0;
    }
    if (!engine.tricks_left(s)) {
        PyErr_SetString(PyExc_ValueError, "the seat to play holds no card");
        return 0;
    }
    return 1;
}

static PyObject *Solver_move_values(SolverObject *s, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"hands", "leader", "played", "alpha", "beta", NULL};
    PyObject *hands, *played = NULL;
    int leader, alpha = -1, beta = 99;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Oi|Oii", names, &hands, &leader, &played, &alpha, &beta))
        return NULL;
    if (!load_position(s, hands, leader, played) || !card_to_choose(s)) return NULL;
    int cards[13], values[13];
    int n = engine.move_values(s, alpha, beta, cards, values);
    if (s->aborted) Py_RETURN_NONE;
    for (int i = 0; i < n; i++)
        if (values[i] == -1000) {
            PyErr_SetString(PyExc_RuntimeError, "a card without a representative (a solver bug)");
            return NULL;
        }
    return pairs(cards, values, n, 0);
}

static PyObject *Solver_exactly_one_moves(SolverObject *s, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"hands", "leader", "played", "taken", NULL};
    PyObject *hands, *played = NULL;
    int leader, taken = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Oi|Oi", names, &hands, &leader, &played, &taken))
        return NULL;
    if (!load_position(s, hands, leader, played) || !card_to_choose(s)) return NULL;
    int cards[13], values[13];
    int n = engine.one_moves(s, taken, cards, values);
    if (s->aborted) Py_RETURN_NONE;
    return pairs(cards, values, n, 1);
}

static int Solver_init(SolverObject *s, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"trump", "side_a", "maximizes", "node_limit", "exact_keys", NULL};
    int trump, exact_keys = 0;
    unsigned int side_a, maximizes;
    long long node_limit = 1000000;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "iII|Lp", names, &trump, &side_a, &maximizes, &node_limit,
                                     &exact_keys))
        return -1;
    if (trump < -1 || trump > 3 || side_a > 15 || maximizes > 15) {
        PyErr_SetString(PyExc_ValueError, "trump is -1..3, side_a and maximizes are 4-bit seat masks");
        return -1;
    }
    s->trump = trump;
    s->side_a = side_a;
    s->maximizes = maximizes;
    s->node_limit = node_limit;
    s->exact_keys = exact_keys;
    s->stamp = 0;
    s->nodes = 0;
    s->aborted = 0;
    free(s->table);
    free(s->shapes);
    s->table = NULL;
    s->shapes = NULL;
    s->table_bits = 0;
    s->count = 0;
    s->shape_count = 0;
    memset(s->history, 0, sizeof s->history);
    memset(s->killer, -1, sizeof s->killer);
    return 0;
}

static void Solver_dealloc(SolverObject *s) {
    free(s->table);
    free(s->shapes);
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
    {"move_values", (PyCFunction)(void (*)(void))Solver_move_values, METH_VARARGS | METH_KEYWORDS,
     "move_values(hands, leader, played=(), alpha=-1, beta=99): [(card bit, value after it)] for every "
     "legal card of the seat to play (ascending), or None past the limit; exact values with the full "
     "window, fail-soft bounds with a narrower one."},
    {"exactly_one_moves", (PyCFunction)(void (*)(void))Solver_exactly_one_moves, METH_VARARGS | METH_KEYWORDS,
     "exactly_one_moves(hands, leader, played=(), taken=0): [(card bit, exactly one after it)] for every "
     "legal card, or None past the limit."},
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
    choose_engine();
    if (PyType_Ready(&SolverType) < 0) return NULL;
    PyObject *module = PyModule_Create(&solver_module);
    if (!module) return NULL;
    if (PyModule_AddStringConstant(module, "ENGINE", engine_name) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    Py_INCREF(&SolverType);
    if (PyModule_AddObject(module, "Solver", (PyObject *)&SolverType) < 0) {
        Py_DECREF(&SolverType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
