/*
 * blackhole_stats._core: the hot loops of blackhole-stats, in C.
 *
 * Three things live here and nothing else:
 *   - PySolFC's dealing (Microsoft LCG and CPython's MT19937 seeding), so a
 *     million boards can be dealt in seconds;
 *   - the exact solvers: `classic` (the established peer's plain DFS, kept
 *     bit-for-bit compatible so iteration counts match) and `fast` (pruned,
 *     symmetry-reduced DFS with restarts), plus the exact "most cards played"
 *     search for unsolvable positions;
 *   - the replay of a line of play against the rules (`play_line`), which
 *     checks every solution `Solver.solve` returns and every one `verify`
 *     reads: a million of them cost seconds.
 *
 * Everything about cards and boards that is not a hot loop (parsing,
 * validation, text forms) is in Python. The solver sees only ranks 0..12
 * (Ace = 0), up to 17 piles of up to 5 cards (index 0 = bottom) with their
 * heights, the foundation rank (or an empty foundation), the talon's ranks
 * and the game's rules as data: which ranks may be played on each
 * foundation rank (games.py describes the five games of the family). The
 * pruning rules below say for which rules each one is sound, and the
 * search checks that before it uses them.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if (defined(__SSE2__) || defined(_M_X64)) && !defined(BLACKHOLE_PORTABLE_BITS)
#define SSE2_LANES 1
#include <emmintrin.h> /* see moves_win_below */
#if defined(__GNUC__) || defined(_MSC_VER)
/* SSSE3's byte shuffle, SSE4.1's least word and POPCNT for the heights
 * search's pass (heights_reach_lanes), compiled for those functions alone
 * and used where the CPU has all three (every x86-64 CPU since about 2011):
 * a default build targets plain x86-64. */
#define SHUFFLE_LANES 1
#include <tmmintrin.h>
#include <smmintrin.h>
#include <nmmintrin.h>
#ifdef _MSC_VER
#include <intrin.h> /* __cpuid, for cl and clang-cl alike */
#endif
#if defined(_MSC_VER) && !defined(__clang__)
#define LANES_FUNCTION /* cl compiles any intrinsic anywhere */
#define ALWAYS_INLINE __forceinline
#else
#define LANES_FUNCTION __attribute__((target("ssse3,sse4.1,popcnt"))) /* clang-cl too: it checks, as clang does */
#define ALWAYS_INLINE inline __attribute__((always_inline))
#endif
#endif
#endif
#ifdef __GLIBC__
#include <malloc.h> /* malloc_trim */
#endif
#ifdef __linux__
#include <sys/mman.h> /* madvise, for the heights table (heights_table_reserve) */
#endif

#define NPILES 17    /* at most: Black Hole */
#define PILE_DEPTH 5 /* at most: Golf */
#define NRANKS 13
#define EMPTY_F NRANKS /* the foundation before its first card */
#define MAX_TALON 16
#define MAX_LINE 52    /* moves in a line: each puts one of the 52 cards on the foundation */
#define TALON_MOVE 255 /* the move that turns the next talon card */
#define ALL_RANKS 0x1FFFu
#define ALL_PILES 0x1FFFFu
#define ACE_OF_SPADES 13 /* card id = suit * 13 + rank, suits C S H D */

/* Index of the lowest set bit (x != 0) and number of set bits: the
 * intrinsics of gcc and clang (mingw included), plain C11 for every other
 * compiler (MSVC). Building with -DBLACKHOLE_PORTABLE_BITS selects the plain
 * versions anywhere (of these and of moves_win_below's vector lanes), which
 * is how scripts/check_compilers.py tests them. */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(BLACKHOLE_PORTABLE_BITS)
#define GNU_BITS 1
static inline int lowest_bit(uint32_t x) { return __builtin_ctz(x); }
#else
static inline int lowest_bit(uint32_t x)
{
    /* de Bruijn: the isolated lowest bit times the sequence puts a unique
     * 5-bit pattern in the top bits */
    static const int position[32] = {0, 1, 28, 2, 29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4, 8,
                                     31, 27, 13, 23, 21, 19, 16, 7, 26, 12, 18, 6, 11, 5, 10, 9};
    return position[((x & (~x + 1u)) * 0x077CB531u) >> 27];
}
#endif
/* The popcount instruction where the target has it; elsewhere the plain
 * version (gcc's builtin would call a table-driven library routine). */
#if defined(GNU_BITS) && defined(__POPCNT__)
static inline int bit_count(uint32_t x) { return __builtin_popcount(x); }
#else
static inline int bit_count(uint32_t x)
{
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    return (int)((((x + (x >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24);
}
#endif
/* A hint to fetch a table bucket into cache before it is read. */
#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(address) __builtin_prefetch(address)
#else
#define PREFETCH(address) ((void)(address))
#endif

enum { OUTCOME_SOLVED = 0, OUTCOME_UNSOLVED = 1, OUTCOME_INTRACTABLE = 2 };
enum { SEARCH_FAST = 0, SEARCH_CLASSIC = 1, SEARCH_HEIGHTS = 2 }; /* SEARCH_HEIGHTS: the heights search alone */

/* ======================================================================
 * Dealing
 * ====================================================================== */

/* The shuffled deck in the order PySolFC deals it (see DEALING.md): from
 * the end of the deck; with `ace_last` (its shuffle hook for Black Hole and
 * All in a Row) the Ace of Spades is moved to be dealt last. The first
 * `npiles * depth` cards go round-robin onto the piles (card k to pile
 * k % npiles, position k / npiles), written pile by pile (pile p position i
 * at depth * p + i); the rest follow in dealing order (the foundation card,
 * then the talon, for the games that have them). */
static void lay_out(const int deck[52], int npiles, int depth, int ace_last, unsigned char out[52])
{
    int dealt[52], n = 0;
    for (int i = 51; i >= 0; i--)
        if (!ace_last || deck[i] != ACE_OF_SPADES)
            dealt[n++] = deck[i];
    if (ace_last)
        dealt[n++] = ACE_OF_SPADES;
    int in_piles = npiles * depth;
    for (int k = 0; k < 52; k++)
        out[k < in_piles ? depth * (k % npiles) + k / npiles : k] = (unsigned char)dealt[k];
}

/* Microsoft FreeCell LCG deal, with the FreeCell Pro extension for seeds
 * from 2^31 to 2^33-1. */
static void shuffle_ms(uint64_t seed, int deck[52])
{
    static const int suit_offset[4] = {0, 39, 26, 13}; /* C, D, H, S */
    int k = 0;
    for (int r = 0; r < NRANKS; r++)
        for (int s = 0; s < 4; s++)
            deck[k++] = r + suit_offset[s];
    uint32_t x;
    int wide = seed >= (1ull << 32);
    uint32_t high_bit = (seed >= (1ull << 31) && !wide) ? 0x8000u : 0u;
    x = (uint32_t)(wide ? seed - (1ull << 32) : seed);
    for (int i = 51; i > 0; i--) {
        x = x * 214013u + 2531011u;
        uint32_t r = wide ? ((x >> 16) & 0xFFFFu) + 1u : (((x >> 16) & 0x7FFFu) | high_bit);
        int j = (int)(r % (uint32_t)(i + 1));
        int t = deck[i]; deck[i] = deck[j]; deck[j] = t;
    }
}

/* MT19937 seeded exactly like CPython's random.seed(int): init_by_array over
 * the little-endian 32-bit words of the seed. */
typedef struct { uint32_t state[624]; int index; } Twister;

static void mt_init(Twister *mt, uint32_t s)
{
    mt->state[0] = s;
    for (int i = 1; i < 624; i++) {
        uint32_t prev = mt->state[i - 1];
        mt->state[i] = 1812433253u * (prev ^ (prev >> 30)) + (uint32_t)i;
    }
    mt->index = 624;
}

static void mt_init_by_array(Twister *mt, const uint32_t *key, int len)
{
    mt_init(mt, 19650218u);
    uint32_t *st = mt->state;
    int i = 1, j = 0;
    for (int k = (624 > len ? 624 : len); k; k--) {
        st[i] = (st[i] ^ ((st[i - 1] ^ (st[i - 1] >> 30)) * 1664525u)) + key[j] + (uint32_t)j;
        i++; j++;
        if (i >= 624) { st[0] = st[623]; i = 1; }
        if (j >= len) j = 0;
    }
    for (int k = 623; k; k--) {
        st[i] = (st[i] ^ ((st[i - 1] ^ (st[i - 1] >> 30)) * 1566083941u)) - (uint32_t)i;
        i++;
        if (i >= 624) { st[0] = st[623]; i = 1; }
    }
    st[0] = 0x80000000u;
}

static uint32_t mt_next(Twister *mt)
{
    uint32_t *st = mt->state;
    if (mt->index >= 624) {
        for (int k = 0; k < 624; k++) {
            uint32_t y = (st[k] & 0x80000000u) | (st[(k + 1) % 624] & 0x7FFFFFFFu);
            st[k] = st[(k + 397) % 624] ^ (y >> 1) ^ ((y & 1u) ? 0x9908B0DFu : 0u);
        }
        mt->index = 0;
    }
    uint32_t y = st[mt->index++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9D2C5680u;
    y ^= (y << 15) & 0xEFC60000u;
    y ^= y >> 18;
    return y;
}

/* CPython's random(): a 53-bit double. */
static double mt_random(Twister *mt)
{
    uint32_t a = mt_next(mt) >> 5, b = mt_next(mt) >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

static void shuffle_mt(const uint32_t *key, int len, int deck[52])
{
    Twister mt;
    mt_init_by_array(&mt, key, len);
    for (int i = 0; i < 52; i++)
        deck[i] = i;
    for (int i = 51; i > 0; i--) {
        /* An IEEE double multiply, then truncation, exactly as PySolFC. */
        int j = (int)(mt_random(&mt) * (double)(i + 1));
        int t = deck[i]; deck[i] = deck[j]; deck[j] = t;
    }
}

/* ======================================================================
 * Tables
 * ====================================================================== */

static inline uint64_t mix64(uint64_t x)
{
    x ^= x >> 31; x *= 0x7FB5D329728EA185ull;
    x ^= x >> 27; x *= 0x81DADEF4BC2DD44Dull;
    x ^= x >> 33;
    return x;
}

/* A 4-way set-associative table of canonical keys (< 2^54), each tagged
 * with a 10-bit generation so that starting a new search is O(1). Losing an
 * entry to replacement only costs time, never exactness: the entries are
 * facts ("refuted", "at most v more cards"), not obligations.
 * `values` is optional (NULL for a plain set).
 *
 * Memory is allocated once at its maximum, but each search starts in a
 * small window that stays in cache and doubles as the search grows: most
 * deals need a few hundred positions, a few need millions. */
#define KEY_BITS 54
#define GEN_LIMIT 1024u
#define WAYS 4
#define START_BITS 17


/* A key may carry the talon cards turned in its low `turned_bits` bits
 * (0: plain keys): such an entry is found by the position alone and holds
 * for that many talon cards turned or more (see max_dfs). */
#define TURNED_BITS 5 /* talon cards turned: 0..MAX_TALON */

typedef struct {
    uint64_t *tags;
    uint8_t *values;
    int use_values;           /* read and write values (a table may skip them for a search) */
    int turned_bits;          /* 0, or TURNED_BITS for keys carrying the talon cards turned */
    uint64_t bucket_mask;     /* the window in use */
    uint64_t start_mask;
    uint64_t max_mask;
    uint64_t gen;
} FactTable;

static int fact_table_init(FactTable *t, int bits, int with_values)
{
    size_t slots = (size_t)1 << bits;
    t->tags = calloc(slots, sizeof(uint64_t));
    t->values = with_values ? calloc(slots, 1) : NULL;
    t->use_values = with_values;
    t->turned_bits = 0;
    t->max_mask = (slots / WAYS) - 1;
    t->start_mask = bits > START_BITS ? ((1ull << START_BITS) / WAYS) - 1 : t->max_mask;
    t->bucket_mask = t->start_mask;
    t->gen = 1;
    return t->tags && (!with_values || t->values);
}

static void fact_table_free(FactTable *t)
{
    free(t->tags);
    free(t->values);
    t->tags = NULL;
    t->values = NULL;
}

static size_t fact_table_bytes(const FactTable *t)
{
    size_t slots = (size_t)(t->max_mask + 1) * WAYS;
    return slots * (sizeof(uint64_t) + (t->values ? 1 : 0));
}

static size_t fact_table_window_slots(const FactTable *t)
{
    return (size_t)(t->bucket_mask + 1) * WAYS;
}

static void fact_table_new_generation(FactTable *t)
{
    t->bucket_mask = t->start_mask;
    if (++t->gen >= GEN_LIMIT) {
        memset(t->tags, 0, (size_t)(t->max_mask + 1) * WAYS * sizeof(uint64_t));
        t->gen = 1;
    }
}

static void fact_table_put(FactTable *t, uint64_t key, int value);

/* Double the window, moving this generation's entries to their new homes
 * (the new half holds only stale generations, i.e. free slots). */
static void fact_table_grow(FactTable *t)
{
    if (t->bucket_mask == t->max_mask)
        return;
    uint64_t old_mask = t->bucket_mask;
    t->bucket_mask = old_mask * 2 + 1;
    for (uint64_t bucket = 0; bucket <= old_mask; bucket++) {
        for (int i = 0; i < WAYS; i++) {
            size_t slot = bucket * WAYS + (size_t)i;
            uint64_t tag = t->tags[slot];
            if ((tag >> KEY_BITS) != t->gen)
                continue;
            uint64_t key = tag & ((1ull << KEY_BITS) - 1);
            if ((mix64(key >> t->turned_bits) & t->bucket_mask) == bucket)
                continue;
            t->tags[slot] = 0;
            fact_table_put(t, key, t->use_values ? t->values[slot] : 0);
        }
    }
}

static inline uint64_t *fact_table_bucket(const FactTable *t, uint64_t key)
{
    return t->tags + (mix64(key >> t->turned_bits) & t->bucket_mask) * WAYS;
}

/* Returns the slot index of key, or -1. */
static inline long fact_table_find(const FactTable *t, uint64_t key)
{
    uint64_t tag = (t->gen << KEY_BITS) | key;
    uint64_t *b = fact_table_bucket(t, key);
    for (int i = 0; i < WAYS; i++)
        if (b[i] == tag)
            return (long)(b - t->tags) + i;
    return -1;
}

/* The slot of an entry for the position of key (its low turned_bits
 * bits: talon cards turned) made with at most that many turned, or -1. */
static inline long fact_table_find_turned(const FactTable *t, uint64_t key)
{
    uint64_t tag = (t->gen << KEY_BITS) | key, turned = (1ull << t->turned_bits) - 1;
    uint64_t *b = fact_table_bucket(t, key);
    for (int i = 0; i < WAYS; i++)
        if ((b[i] & ~turned) == (tag & ~turned) && (b[i] & turned) <= (tag & turned))
            return (long)(b - t->tags) + i;
    return -1;
}

/* Stores key's fact, replacing any entry for the same position (whatever
 * its talon cards turned). */
static void fact_table_put(FactTable *t, uint64_t key, int value)
{
    uint64_t tag = (t->gen << KEY_BITS) | key, position = key >> t->turned_bits;
    uint64_t *b = fact_table_bucket(t, key);
    int slot = (int)((position ^ (position >> 17)) & (WAYS - 1)); /* victim if full */
    for (int i = 0; i < WAYS; i++) {
        if (b[i] >> t->turned_bits == tag >> t->turned_bits || (b[i] >> KEY_BITS) != t->gen) { slot = i; break; }
    }
    b[slot] = tag;
    if (t->use_values)
        t->values[(b - t->tags) + slot] = (uint8_t)value;
}

/* ======================================================================
 * Position
 *
 * The games differ only in data (see games.py): how many piles and how
 * deep, the talon, whether the foundation starts empty, and which ranks may
 * be played on which (`fits[f]`: the ranks playable from a pile onto
 * foundation rank f, fits[EMPTY_F] for an empty foundation). Winning means
 * emptying the piles; the games without a talon have nothing else.
 * ====================================================================== */

typedef struct {
    uint8_t rank[NPILES][PILE_DEPTH];
    uint8_t h[NPILES];
    int npiles;
    int f;               /* foundation rank, EMPTY_F before the first card */
    int count[NRANKS];   /* cards of each rank still in the piles */
    int left;            /* cards still in the piles */
    uint16_t present;    /* ranks with count > 0 */
    int bottoms[NRANKS]; /* non-empty piles by the rank of their bottom card */
    uint16_t ends;       /* ranks with bottoms > 0: the possible last cards */
    uint32_t tops[NRANKS + 1]; /* piles (bit p) whose playable card has each rank; tops[NRANKS] = 0 */
    uint16_t fits[NRANKS + 1];
    uint16_t fits_low[1 << 7], fits_high[1 << 6]; /* fits of any rank of a set, by its low 7 and high 6 bits */
    uint8_t fit_ranks[NRANKS][2]; /* the (at most two) ranks in fits[f], NRANKS for none */
    int walk_rules;      /* fits is Black Hole's (+-1 on the 13-cycle): the walk test applies */
    uint8_t talon[MAX_TALON]; /* talon ranks, the next one to turn first */
    int talon_len;
    int t;               /* talon cards turned */
    uint16_t talon_ranks[MAX_TALON + 1]; /* ranks among talon[i..] */
    uint8_t talon_count[MAX_TALON + 1][NRANKS]; /* cards of each rank among talon[i..] */
    int path_rules;      /* fits joins only ranks one apart without wrapping, both ways except
                          * from dead ranks (fits empty): the chain test applies */
    /* Canonical key: suits never matter and piles are interchangeable, so a
     * position is the multiset of remaining pile rank-sequences plus f (and
     * the talon cards turned). Every distinct pile prefix (a node of the
     * prefix trie) is one mixed-radix digit counting the piles that hold
     * exactly that prefix; a pile at height k adds weight[p][k] (0 when
     * empty), so a move updates the key in O(1). When the digit ranges
     * multiply past KEY_BITS (deep layouts such as All in a Row's 13 x 4),
     * the digits are the pile heights instead: exact, no symmetry merged. */
    uint64_t weight[NPILES][PILE_DEPTH + 1];
    uint8_t node[NPILES][PILE_DEPTH + 1]; /* trie node id of each prefix, 1..52 */
    uint64_t f_weight;
    uint64_t t_weight;
    uint64_t piles_key;
    /* For the walk test, kept up to date by play and unplay (under
     * walk_rules only: nothing else reads them, so other rules skip the
     * bookkeeping): walk_alt[v] = sum_k (-1)^k 2 count[v+1+k] (its alt
     * without the foundation's card: see can_finish_from; lanes 13..15 0),
     * and deep, bit p for the piles of 3 cards or more. The pile order it
     * reads from the card slots below, which play keeps anyway. */
    int16_t walk_alt[16];
    uint32_t deep;
    uint8_t end_hint;    /* the end rank that last passed the walk test: tried first */
    /* Card slots, for reach_bound's bit-parallel fixed point: each card
     * dealt to the piles keeps a slot (bit) of its own (52 at most); a
     * pile's cards are in consecutive slots, its top card in the lowest and
     * its bottom card in slot_end[p] - 1 (take_bottom moves slot_end down
     * one, the other cards keep their slots). in_piles: the slots holding
     * cards now; near_low[set], near_high[set]: the slots holding the ranks
     * fits[] allows onto a rank of a set, by its low 7 and high 6 bits (as
     * fits_low and fits_high, in one table read a half). under: the slots
     * whose pile (as dealt) has the slot 1 lower. */
    uint64_t in_piles;
    uint64_t near_low[1 << 7], near_high[1 << 6];
    uint64_t rank_slots[NRANKS]; /* the slots holding each rank */
    uint64_t under;
    uint8_t slot_end[NPILES];
    /* The slots holding the ranks of a set, by its low 7 and high 6 bits
     * (the walk test's pile order: see cut_violated). */
    uint64_t slots_low[1 << 7], slots_high[1 << 6];
} Position;

static uint16_t BLACK_HOLE_FITS[NRANKS + 1];

/* ALT_SIGN[r][v]: the sign of a card of rank r in alt[v], (-1)^k where
 * r = v + 1 + k (mod 13); lanes 13..15 0. Filled by init_even_sign. */
static int16_t ALT_SIGN[NRANKS][16];

static void init_black_hole_fits(void)
{
    for (int f = 0; f < NRANKS; f++)
        BLACK_HOLE_FITS[f] = (uint16_t)((1u << (f + 1) % NRANKS) | (1u << (f + NRANKS - 1) % NRANKS));
    BLACK_HOLE_FITS[NRANKS] = ALL_RANKS;
}

static inline int adjacent(int a, int b)
{
    int d = a - b;
    return d == 1 || d == -1 || d == 12 || d == -12;
}

/* The key of the refutation table leaves the talon out: see fast_dfs. */
static inline uint64_t piles_f_key(const Position *s)
{
    return s->piles_key + (uint64_t)s->f * s->f_weight;
}

static inline uint64_t position_key(const Position *s)
{
    return piles_f_key(s) + (uint64_t)s->t * s->t_weight;
}

/* The most-played search's key: piles_f_key with the talon cards turned in
 * its low TURNED_BITS bits (none without a talon: then t is always 0). */
static inline uint64_t turned_key(const Position *s)
{
    return s->talon_len ? piles_f_key(s) << TURNED_BITS | (uint64_t)s->t : piles_f_key(s);
}

/* piles_f_key after a move, without making it. */
static inline uint64_t child_key(const Position *s, int move)
{
    if (move == TALON_MOVE)
        return s->piles_key + (uint64_t)s->talon[s->t] * s->f_weight;
    int h = s->h[move];
    return s->piles_key - s->weight[move][h] + s->weight[move][h - 1] + (uint64_t)s->rank[move][h - 1] * s->f_weight;
}

/* Piles whose playable card may go on foundation rank f: two table reads
 * (the hot path of every search), all piles on an empty foundation. */
static inline uint32_t playable_on(const Position *s, int f)
{
    if (f == EMPTY_F) {
        uint32_t piles = 0;
        for (int r = 0; r < NRANKS; r++)
            piles |= s->tops[r];
        return piles;
    }
    return s->tops[s->fit_ranks[f][0]] | s->tops[s->fit_ranks[f][1]];
}

/* The walk test's counts (see Position) as the card at height h of pile p
 * leaves it (lift) or comes back (drop). */
static inline void walk_lift(Position *s, int p, int h)
{
    if (!s->walk_rules)
        return;
    int r = s->rank[p][h - 1];
    if (h == 3)
        s->deep &= ~(1u << p);
    for (int v = 0; v < 16; v++)
        s->walk_alt[v] = (int16_t)(s->walk_alt[v] - 2 * ALT_SIGN[r][v]);
}

static inline void walk_drop(Position *s, int p, int h)
{
    if (!s->walk_rules)
        return;
    int r = s->rank[p][h - 1];
    if (h == 3)
        s->deep |= 1u << p;
    for (int v = 0; v < 16; v++)
        s->walk_alt[v] = (int16_t)(s->walk_alt[v] + 2 * ALT_SIGN[r][v]);
}

static inline void play(Position *s, int p)
{
    int h = s->h[p];
    int r = s->rank[p][h - 1];
    walk_lift(s, p, h);
    s->in_piles &= ~(1ull << (s->slot_end[p] - h));
    s->piles_key = s->piles_key - s->weight[p][h] + s->weight[p][h - 1];
    s->h[p] = (uint8_t)(h - 1);
    s->tops[r] &= ~(1u << p);
    if (h > 1)
        s->tops[s->rank[p][h - 2]] |= 1u << p;
    if (--s->count[r] == 0)
        s->present &= (uint16_t)~(1u << r);
    if (h == 1 && --s->bottoms[r] == 0)
        s->ends &= (uint16_t)~(1u << r);
    s->left--;
    s->f = r;
}

static inline void unplay(Position *s, int p, int old_f)
{
    int h = s->h[p] + 1;
    int r = s->rank[p][h - 1];
    walk_drop(s, p, h);
    s->in_piles |= 1ull << (s->slot_end[p] - h);
    s->piles_key = s->piles_key - s->weight[p][h - 1] + s->weight[p][h];
    s->h[p] = (uint8_t)h;
    if (h > 1)
        s->tops[s->rank[p][h - 2]] &= ~(1u << p);
    s->tops[r] |= 1u << p;
    s->count[r]++;
    s->present |= (uint16_t)(1u << r);
    if (h == 1) {
        s->bottoms[r]++;
        s->ends |= (uint16_t)(1u << r);
    }
    s->left++;
    s->f = old_f;
}

/* A move is a pile index or TALON_MOVE (turn the next talon card onto the
 * foundation, whatever it shows). */
static inline void make_move(Position *s, int move)
{
    if (move == TALON_MOVE)
        s->f = s->talon[s->t++];
    else
        play(s, move);
}

static inline void unmake_move(Position *s, int move, int old_f)
{
    if (move == TALON_MOVE) {
        s->t--;
        s->f = old_f;
    } else {
        unplay(s, move, old_f);
    }
}

/* Build the prefix trie and the key weights. Returns 0 if even the heights
 * key would not fit (cannot happen for <= 52 cards; checked anyway). */
static int position_init(Position *s, const uint8_t *ranks, const uint8_t *heights, int npiles, int depth,
                         int f, const uint8_t *talon, int talon_len, const uint16_t fits[NRANKS + 1])
{
    memset(s, 0, sizeof *s);
    s->npiles = npiles;
    s->f = f;
    memcpy(s->fits, fits, sizeof s->fits);
    for (int g = 0; g < NRANKS; g++) {
        int n = 0;
        s->fit_ranks[g][0] = s->fit_ranks[g][1] = NRANKS;
        for (uint32_t r = fits[g]; r; r &= r - 1)
            s->fit_ranks[g][n++] = (uint8_t)lowest_bit(r);
    }
    for (int set = 0; set < 1 << 7; set++)
        for (int r = 0; r < 7; r++)
            if (set >> r & 1) {
                s->fits_low[set] |= fits[r];
                if (set < 1 << 6)
                    s->fits_high[set] |= fits[7 + r];
            }
    s->walk_rules = memcmp(fits, BLACK_HOLE_FITS, sizeof BLACK_HOLE_FITS) == 0;
    s->talon_len = talon_len;
    if (talon_len)
        memcpy(s->talon, talon, (size_t)talon_len);
    for (int i = talon_len - 1; i >= 0; i--) {
        s->talon_ranks[i] = (uint16_t)(s->talon_ranks[i + 1] | (1u << talon[i]));
        memcpy(s->talon_count[i], s->talon_count[i + 1], NRANKS);
        s->talon_count[i][talon[i]]++;
    }
    s->path_rules = 1;
    for (int v = 0; v < NRANKS; v++) {
        uint16_t up = v < NRANKS - 1 ? (uint16_t)(1u << (v + 1)) : 0, down = v > 0 ? (uint16_t)(1u << (v - 1)) : 0;
        if (fits[v] & ~(up | down))
            s->path_rules = 0; /* wraps, or joins ranks further apart */
        if (fits[v] && ((up && !(fits[v] & up) && fits[v + 1]) || (down && !(fits[v] & down) && fits[v - 1])))
            s->path_rules = 0; /* one way only between two live ranks */
    }
    int slot = 0;
    for (int p = 0; p < npiles; p++) {
        s->h[p] = heights[p];
        for (int i = 0; i < depth; i++)
            s->rank[p][i] = ranks[depth * p + i];
        for (int i = heights[p] - 1; i >= 0; i--, slot++) { /* slot < 52: parse_shape checked the cards */
            s->in_piles |= 1ull << slot;
            s->rank_slots[s->rank[p][i]] |= 1ull << slot;
            if (i < heights[p] - 1)
                s->under |= 1ull << slot;
        }
        s->slot_end[p] = (uint8_t)slot;
        for (int i = 0; i < heights[p]; i++) {
            s->count[s->rank[p][i]]++;
            s->present |= (uint16_t)(1u << s->rank[p][i]);
            s->left++;
        }
        for (int k = 1; k <= heights[p]; k++)
            walk_drop(s, p, k);
        if (heights[p]) {
            s->tops[s->rank[p][heights[p] - 1]] |= 1u << p;
            s->bottoms[s->rank[p][0]]++;
            s->ends |= (uint16_t)(1u << s->rank[p][0]);
        }
    }
    uint64_t *slots_low = s->slots_low, *slots_high = s->slots_high;
    for (int set = 1; set < 1 << 7; set++) {
        int r = lowest_bit((uint32_t)set);
        slots_low[set] = slots_low[set & (set - 1)] | s->rank_slots[r];
        if (set < 1 << 6)
            slots_high[set] = slots_high[set & (set - 1)] | s->rank_slots[7 + r];
    }
    for (int set = 0; set < 1 << 7; set++) {
        uint16_t low = s->fits_low[set], high = set < 1 << 6 ? s->fits_high[set] : 0;
        s->near_low[set] = slots_low[low & 0x7F] | slots_high[low >> 7];
        if (set < 1 << 6)
            s->near_high[set] = slots_low[high & 0x7F] | slots_high[high >> 7];
    }
    long double product = 1.0L;
    uint64_t place = 1;
    int nodes = 0;
    for (int k = 1; k <= depth; k++) {
        for (int p = 0; p < npiles; p++) {
            if (s->h[p] < k || s->node[p][k])
                continue;
            /* A new prefix: every pile sharing it gets the same digit. */
            int holders = 0;
            nodes++;
            for (int q = p; q < npiles; q++) {
                if (s->h[q] < k || memcmp(s->rank[p], s->rank[q], (size_t)k) != 0)
                    continue;
                s->node[q][k] = (uint8_t)nodes;
                s->weight[q][k] = place;
                holders++;
            }
            product *= (long double)(holders + 1);
            place *= (uint64_t)(holders + 1);
        }
    }
    /* Room for f and t; with a talon, t gets TURNED_BITS of its own (the
     * most-played search's keys carry it in their low bits). */
    long double others = (long double)(NRANKS + 1) * (talon_len ? 1 << TURNED_BITS : 1);
    if (product * others >= (long double)(1ull << KEY_BITS)) {
        product = 1.0L;
        place = 1;
        for (int p = 0; p < npiles; p++) {
            for (int k = 0; k <= s->h[p]; k++)
                s->weight[p][k] = place * (uint64_t)k;
            product *= (long double)(s->h[p] + 1);
            place *= (uint64_t)(s->h[p] + 1);
        }
    }
    s->f_weight = place;
    s->t_weight = place * (NRANKS + 1);
    for (int p = 0; p < npiles; p++)
        s->piles_key += s->weight[p][s->h[p]];
    return product * others < (long double)(1ull << KEY_BITS);
}

/* ======================================================================
 * Dead-end test: can all remaining cards still be played?
 *
 * Soundness. Any win plays the remaining cards in some order; their ranks
 * form a walk f = r0, r1, ..., rn on the 13-cycle of ranks that arrives at
 * rank v exactly count[v] times and ends at t = rn. Let x_v be the number of
 * times the walk crosses edge {v, v+1}. Counting walk-edge ends at each rank:
 *     x_{v-1} + x_v = d_v = 2 count[v] + [v == f] - [v == t].
 * On an odd cycle this system has the unique solution
 *     2 x_v = sum_{k=0..12} (-1)^k d_{v+1+k},
 * so for each end rank t the crossing numbers are forced. A walk exists iff
 * every x_v >= 0 and the edges with x_v > 0 connect f, t and every rank with
 * cards (Euler's trail theorem); with that, this relaxation "ignore the
 * piles" is exact. Two facts about piles tighten it, both necessary:
 *   (a) the last card played is the bottom card of its pile, so t is the
 *       rank of some non-empty pile's bottom card;
 *   (b) cut test: delete two edges e1, e2; the cycle splits into arc L
 *       (holding f) and arc R, and the walk changes side exactly
 *       k = x_e1 + x_e2 times. If k = 1 the walk plays all of its L cards
 *       before all of its R cards, so no pile may hold an R card above an L
 *       card. If k = 2 the R cards form one contiguous block between L
 *       stretches, so no 3-card pile may read R, L, R from the top.
 * If no end rank t survives, no win exists: the position is a dead end.
 * Nothing here says how many cards can be played, only "not all of them".
 * ====================================================================== */

/* Ranks joined to rank f by the edges in `edges` (edge v joins v and v+1). */
static inline uint16_t component(uint16_t edges, int f)
{
    uint32_t missing = ~(uint32_t)edges & ALL_RANKS;
    if ((missing & (missing - 1)) == 0) /* a cycle or a path: all joined */
        return ALL_RANKS;
    /* Otherwise the arc between the first missing edges up and down from
     * f. Rotated so that f is rank 0 (bit i: edge f + i): ranks 0 .. the
     * lowest missing edge, and the ranks above the highest one. */
    uint32_t m = ((missing >> f) | (missing << (NRANKS - f))) & ALL_RANKS;
    uint32_t under = m; /* the bits up to the highest missing edge */
    under |= under >> 1;
    under |= under >> 2;
    under |= under >> 4;
    under |= under >> 8;
    uint32_t arc = (((m & (~m + 1u)) << 1) - 1) | (ALL_RANKS & ~under);
    return (uint16_t)(((arc << f) | (arc >> (NRANKS - f))) & ALL_RANKS);
}

/* For end rank t, the unit vector e_t adds (-1)^k to 2 x_v where
 * t = v + 1 + k (mod 13): EVEN_SIGN[t] marks the v with k even. */
static uint16_t EVEN_SIGN[NRANKS];

static void init_even_sign(void)
{
    for (int t = 0; t < NRANKS; t++)
        for (int v = 0; v < NRANKS; v++) {
            int even = ((t - v - 1 + 2 * NRANKS) % NRANKS) % 2 == 0;
            if (even)
                EVEN_SIGN[t] |= (uint16_t)(1u << v);
            ALT_SIGN[t][v] = (int16_t)(even ? 1 : -1);
        }
}

#ifdef SSE2_LANES
/* The ranks (bits 0..12) whose 16-bit lanes of a 16-lane compare are set. */
static inline uint16_t lane_bits(__m128i lo, __m128i hi)
{
    return (uint16_t)(_mm_movemask_epi8(_mm_packs_epi16(lo, hi)) & ALL_RANKS);
}
#endif

/* The slots of the cards left whose ranks are in `set`. */
static inline uint64_t cards_of(const Position *s, uint16_t set)
{
    return s->in_piles & (s->slots_low[set & 0x7F] | s->slots_high[set >> 7]);
}

/* The slots under a card of `cards` in its pile (piles are at most 5
 * deep). From cards left these are cards left, but for a bottom card
 * take_bottom took away: callers mask with cards_of. */
static inline uint64_t cards_under(const Position *s, uint64_t cards)
{
    uint64_t under = s->under, under2 = under & under << 1;
    uint64_t lower = (cards << 1) & under;
    lower |= (lower << 1) & under;
    lower |= (lower << 2) & under2;
    lower |= (lower << 1) & under;
    return lower;
}

/* Play-order violations for one cut: k = 1 forbids an R card above an L
 * card; k = 2 forbids a pile reading R, L, R from the top (any 3 of its
 * cards). Bit-parallel over card slots, as in reach_cards: the R cards
 * smeared down their piles give the cards under an R card, smeared up the
 * cards above one, so an L card among the first breaks k = 1, among both
 * k = 2. That is every pair and 3-card subsequence of the piles at once,
 * the verdict of testing them one by one. */
static inline int cut_violated(const Position *s, int e1, int e2, int k)
{
    if (e1 > e2) { int t = e1; e1 = e2; e2 = t; }
    /* Ranks e1+1 .. e2 form one arc, the rest the other. */
    uint16_t arc = (uint16_t)(((1u << (e2 + 1)) - 1) & ~((1u << (e1 + 1)) - 1));
    uint16_t left = (arc >> s->f & 1) ? arc : (uint16_t)(~arc & ALL_RANKS);
    uint64_t right_cards = cards_of(s, (uint16_t)(~left & ALL_RANKS)), left_cards = cards_of(s, left);
    uint64_t lower = cards_under(s, right_cards);
    if (k == 1)
        return (lower & left_cards) != 0;
    uint64_t under = s->under, under2 = under & under << 1;
    uint64_t upper = (right_cards & under) >> 1;
    upper |= (upper & under) >> 1;
    upper |= (upper & under2) >> 2;
    upper |= (upper & under) >> 1;
    return (lower & upper & left_cards) != 0;
}

/* The cuts one walk test has already tried, by k - 1: bit e2 of row e1 and
 * bit e1 of row e2. A cut's verdict depends only on f and the piles, which
 * the test does not change, and its end ranks share many cuts (All in a
 * Row deals 1..1000: 45% of them). */
typedef struct {
    uint16_t tried[2][NRANKS], violated[2][NRANKS];
} CutMemo;

/* Whether a cut of edge e with an edge of `others` and k is violated. */
static inline int cuts_violated(const Position *s, int e, uint16_t others, int k, CutMemo *memo)
{
    uint16_t *tried = memo->tried[k - 1], *violated = memo->violated[k - 1];
    if (violated[e] & others)
        return 1;
    for (uint16_t b = (uint16_t)(others & ~tried[e]); b; b &= (uint16_t)(b - 1)) {
        int e2 = lowest_bit(b);
        tried[e] |= (uint16_t)(1u << e2);
        tried[e2] |= (uint16_t)(1u << e);
        if (cut_violated(s, e, e2, k)) {
            violated[e] |= (uint16_t)(1u << e2);
            violated[e2] |= (uint16_t)(1u << e);
            return 1;
        }
    }
    return 0;
}

/* The cut test, (b) above: every pair of edges with x_e1 + x_e2 in {1, 2}.
 * zero, one, two: the edges with x = 0, 1, 2. k = 2 needs a pile of 3
 * cards (deep). */
static int cut_test_passes(const Position *s, uint16_t zero, uint16_t one, uint16_t two, CutMemo *memo)
{
    for (uint16_t a = zero; a; a &= (uint16_t)(a - 1)) {
        int e1 = lowest_bit(a);
        if (cuts_violated(s, e1, one, 1, memo) || (s->deep && cuts_violated(s, e1, two, 2, memo)))
            return 0;
    }
    if (s->deep)
        for (uint16_t a = one; a; a &= (uint16_t)(a - 1))
            if (cuts_violated(s, lowest_bit(a), (uint16_t)(a & (a - 1)), 2, memo))
                return 0;
    return 1;
}

/* Region order, (c) above: no edge unused, m >= 3 edges crossed once.
 * Blocks B0 (holding f), B1, ..., B(m-1) in rising rank order; the walk
 * runs B0, B1, ..., B(m-1), B0 or the reverse, and B0 cards may fall in
 * either stretch of B0. So in rising direction no pile may hold a B_i card
 * above a B_j card with 0 < j < i, in falling direction none with
 * 0 < i < j; and a pile reading (not B0, B0, not B0) fits neither
 * (the k = 2 cut test already refutes those). Returns 1 if a direction fits. */
static int region_order_passes(const Position *s, uint16_t one)
{
    uint16_t in_block[NRANKS + 1] = {0};
    int m = 0;
    for (int step = 0, v = s->f; step < NRANKS; step++) {
        in_block[m] |= (uint16_t)(1u << v);
        if (one >> v & 1) /* edge v joins v and v + 1 */
            m++;
        v = v == NRANKS - 1 ? 0 : v + 1;
    }
    /* Blocks strictly between 0 and m: their cards, and the slots under
     * them; a B_j card under a B_i card of such a block with i > j breaks
     * the rising direction, with i < j the falling one. */
    uint64_t cards[NRANKS + 1], lower[NRANKS + 1];
    for (int i = 1; i < m; i++) {
        cards[i] = cards_of(s, in_block[i]);
        lower[i] = cards_under(s, cards[i]);
    }
    int rising = 1, falling = 1;
    uint64_t higher_lower = 0, lower_lower = 0; /* under a card of the blocks above (below) j */
    for (int j = m - 1; j >= 1; j--) {
        if (higher_lower & cards[j]) rising = 0;
        higher_lower |= lower[j];
    }
    for (int j = 1; j < m; j++) {
        if (lower_lower & cards[j]) falling = 0;
        lower_lower |= lower[j];
    }
    return rising || falling;
}

/* The ranks fits[] allows onto any rank of `reach`: two table reads. */
static inline uint16_t fits_any(const Position *s, uint16_t reach)
{
    return (uint16_t)(s->fits_low[reach & 0x7F] | s->fits_high[reach >> 7]);
}

/* The state of the reach bound (below) after its segments: cards[i] and
 * ranks[i], for from <= i <= to (none when to < from), are the cards not
 * taken and the ranks of the cards taken after segment i - 1, numbered as
 * in reach_cards (t - 1: from the foundation's card, j >= t: from talon
 * card j). That state and the talon decide all the segments after it, so
 * a position whose state after segment j is its parent's after segment j
 * leaves the cards its parent left. fast_dfs hands each node's trace to
 * its children (Golf deals 1..1000: 57% of the tests meet their parent's
 * state, and the segments run fall from 4.6 to 3.3 a test). */
typedef struct {
    int from, to;
    uint64_t cards[MAX_TALON + 1];
    uint16_t ranks[MAX_TALON + 1];
} ReachTrace;

/* Playable reach, for the rules the walk test does not cover (a talon, an
 * empty foundation, no wrap, a dead King), in talon order. Split any line
 * into segments at its talon turns: segment 0 starts from the foundation's
 * card now, segment j from the j-th talon card turned. In a segment each
 * pile card is played onto the source or onto the segment's previous card,
 * on a rank whose fits[] has the card's rank, and only after every card
 * above it in its pile. The bound takes segment by segment the fixed point
 * that (1) reaches the segment's source, (2) reaches the rank of any card
 * taken in an earlier segment that fits on a rank reached (the line may
 * play that card only now), and (3) takes pile cards from the top while
 * their rank fits on a rank reached, reaching their ranks. By induction
 * along the line, after each segment the cards taken include every card the
 * line has played, and in each segment the ranks reached include every
 * foundation rank the line passes: the count taken is at least the cards
 * any line plays (it only ever refutes too little). Without a talon it is
 * one segment from the foundation's card; an empty foundation bounds
 * nothing (any card may start it).
 * reach_cards (f not EMPTY_F) returns the slots of the cards it did not
 * take, reusing the parent's trace (if not NULL) and leaving this
 * position's in `out` (if not NULL); reach_bound returns the count it
 * took, and those slots in *untaken (if not NULL). */
static uint64_t reach_cards(const Position *s, const ReachTrace *parent, ReachTrace *out)
{
    /* Bit-parallel over card slots: `cards` has the cards not taken yet. A
     * pass takes from every pile at once the run of its top cards whose
     * ranks are in near: blocked are the slots at or under a card not in
     * near (smeared up its own pile's slots: under2 has the slots whose
     * pile has the slot 2 lower), so take is exactly what taking card by
     * card from the tops with this near would take. The fixed point is the
     * least one whatever the order of its steps, so the cards taken are the
     * same. */
    uint64_t cards = s->in_piles, under = s->under, under2 = s->under & s->under << 1;
    uint32_t taken_ranks = 0; /* rank sets as 32-bit values here: with 16-bit ones gcc spilled them */
    if (out) {
        out->from = s->t;
        out->to = s->t - 1;
    }
    for (int j = s->t - 1; j < s->talon_len && cards; j++) {
        int source = j < s->t ? s->f : s->talon[j];
        uint32_t reach = 1u << source;
        uint64_t before = cards;
        for (;;) {
            uint32_t near = fits_any(s, (uint16_t)reach);
            uint64_t fit = cards & (s->near_low[reach & 0x7F] | s->near_high[reach >> 7]);
            uint64_t blocked = cards & ~fit;
            blocked |= (blocked << 1) & under;
            blocked |= (blocked << 2) & under2;
            blocked |= (blocked << 1) & under; /* 4 slots up: piles are at most 5 deep */
            uint64_t take = cards & ~blocked;
            /* Reach holds the source and ranks already taken, so of the
             * ranks just taken only those outside reach can be new to
             * taken_ranks, the source's aside (added below). */
            if (take) {
                cards &= ~take;
                for (uint32_t r = near & ~reach & ~taken_ranks; r; r &= r - 1) {
                    int v = lowest_bit(r);
                    if (s->rank_slots[v] & take)
                        taken_ranks |= 1u << v;
                }
            }
            /* With nothing new to reach, near stays as it is and no pile's
             * top card left is in it: the segment's fixed point. */
            uint32_t stepped = near & taken_ranks & ~reach;
            if (!stepped)
                break;
            reach |= stepped;
        }
        if (s->rank_slots[source] & before & ~cards)
            taken_ranks |= 1u << source;
        if (out) {
            out->cards[j + 1] = cards;
            out->ranks[j + 1] = (uint16_t)taken_ranks;
            out->to = j + 1;
        }
        if (parent && j + 1 >= parent->from && j + 1 <= parent->to && parent->cards[j + 1] == cards
            && parent->ranks[j + 1] == taken_ranks) {
            if (out) {
                for (int k = j + 2; k <= parent->to; k++) {
                    out->cards[k] = parent->cards[k];
                    out->ranks[k] = parent->ranks[k];
                }
                out->to = parent->to;
            }
            return parent->cards[parent->to];
        }
    }
    return cards;
}

static int reach_bound(const Position *s, uint64_t *untaken)
{
    if (s->f == EMPTY_F) {
        if (untaken)
            *untaken = 0;
        return s->left;
    }
    uint64_t cards = reach_cards(s, NULL, NULL);
    if (untaken)
        *untaken = cards;
    return s->left - bit_count((uint32_t)cards) - bit_count((uint32_t)(cards >> 32));
}

static int playable_bound(const Position *s)
{
    return reach_bound(s, NULL);
}

/* Chain test, for rules joining only ranks one apart without wrapping
 * (Golf, Dead King Golf). Split a win at its talon turns: each chain is a
 * source (the foundation's card now, or a talon card) followed by one or
 * more pile cards, consecutive ranks one apart. Let x_v count the
 * consecutive pairs of chain cards with ranks v and v+1. Each pile card of
 * rank v has two pair-ends but the last card of a chain one, each source
 * one; so x_{v-1} + x_v = 2c_v + sigma_v - eps_v (x_{-1} = x_12 = 0) with
 * 0 <= sigma_v <= S_v, the sources of rank v (each starts one chain at
 * most), and 0 <= eps_v <= c_v chains ending at v. A dead rank (nothing may
 * be played on it: Dead King Golf's King) starts no chain and ends every
 * chain its cards are in: sigma = 0, eps = c. Going up the ranks, the
 * values x_v can take form an interval (an interval minus an interval); if
 * 0 is not in the last one, no win exists. Pile order and the order of the
 * talon are ignored, so this only ever refutes too little. */
static int chains_feasible(const Position *s)
{
    const uint8_t *sources = s->talon_count[s->t];
    int low = 0, high = 0; /* x_{v-1} */
    for (int v = 0; v < NRANKS; v++) {
        int c = s->count[v], from, to; /* the degree 2c + sigma - eps ranges over [from, to] */
        if (s->fits[v] == 0) {
            from = to = c;
        } else {
            from = c;
            to = 2 * c + sources[v] + (v == s->f);
        }
        int next_low = from - high, next_high = to - low;
        if (next_high < 0)
            return 0;
        low = next_low < 0 ? 0 : next_low;
        high = next_high;
    }
    return low == 0;
}

/* Whether can_finish judges s by the reach bound (and the chain test), not the walk test. */
static inline int judged_by_reach(const Position *s)
{
    return !s->walk_rules || s->t < s->talon_len || s->f == EMPTY_F;
}

/* What a passing walk test found, for the children to reuse: the end rank
 * t that passed (-1: nothing to reuse), and for t each edge's crossing
 * count x, with the edges crossed 0, 1 and 2 times.
 *
 * Inheritance. Let a position pass with t and x, and play a card of rank r
 * onto f, crossing edge e = {f, r}. The child's equations are the parent's
 * with d_f and d_r one lower (f is no longer the start, one r card fewer),
 * so its unique solution for the same t is x with x_e one lower: the walk
 * without its first step. Every cut of the cut test that does not use e has
 * the same k in the child, and f and r lie on the same side of it; the
 * child's pile-order facts are the parent's minus the played card's. So
 * such a cut, passed by the parent, is passed by the child. Likewise the
 * region test, unless e became an edge crossed once (its blocks change), and
 * connectivity, unless e is no longer used (the ranks to connect are fewer).
 * So the child passes with t (provided t is still a pile's bottom rank) once
 * x_e - 1 >= 0 and the cuts that use e, the region test if e is now crossed
 * once, and connectivity if e is now unused all pass: tested alone, they
 * give the same verdict as testing the child afresh. */
typedef struct {
    int t;
    uint16_t zero, one, two;
    uint8_t x[NRANKS];
} WalkCertificate;

static void certify(WalkCertificate *out, int t, const int16_t alt[NRANKS])
{
    out->t = t;
    out->zero = out->one = out->two = 0;
    for (int v = 0; v < NRANKS; v++) { /* 2x = alt - 1 where EVEN_SIGN[t] has v, else alt + 1 */
        int x = (alt[v] + (EVEN_SIGN[t] >> v & 1 ? -1 : 1)) / 2;
        out->x[v] = (uint8_t)x;
        out->zero |= (uint16_t)((x == 0) << v);
        out->one |= (uint16_t)((x == 1) << v);
        out->two |= (uint16_t)((x == 2) << v);
    }
}

/* The child's walk test by inheritance (see above): 1 if it passes with
 * the parent's t (its certificate in `out`), 0 if that is not shown. */
static int inherited_pass(Position *s, const WalkCertificate *parent, int parent_f, WalkCertificate *out)
{
    int t = parent->t;
    if (t < 0 || !(s->ends >> t & 1))
        return 0;
    int e = s->f == (parent_f + 1) % NRANKS ? parent_f : s->f; /* edge v joins v and v + 1 */
    int x = parent->x[e] - 1;
    if (x < 0)
        return 0;
    uint16_t bit = (uint16_t)(1u << e);
    WalkCertificate child = *parent;
    child.x[e] = (uint8_t)x;
    child.zero = (uint16_t)((child.zero & ~bit) | (x == 0 ? bit : 0));
    child.one = (uint16_t)((child.one & ~bit) | (x == 1 ? bit : 0));
    child.two = (uint16_t)((child.two & ~bit) | (x == 2 ? bit : 0));
    if (x == 0) {
        uint16_t must = (uint16_t)(s->present | (1u << s->f) | (1u << t));
        if ((component((uint16_t)(~child.zero & ALL_RANKS), s->f) & must) != must)
            return 0;
    }
    if (x <= 2 && (child.zero || x == 1)) {
        /* The cuts that use e: e with an edge whose x makes k = 1 or 2. */
        uint16_t with_one = x == 0 ? child.one : x == 1 ? child.zero : 0;
        uint16_t with_two = x == 0 ? child.two : x == 1 ? (uint16_t)(child.one & ~bit) : child.zero;
        for (uint16_t b = with_one; b; b &= (uint16_t)(b - 1))
            if (cut_violated(s, e, lowest_bit(b), 1))
                return 0;
        if (s->deep)
            for (uint16_t b = with_two; b; b &= (uint16_t)(b - 1))
                if (cut_violated(s, e, lowest_bit(b), 2))
                    return 0;
        uint16_t one_rest = (uint16_t)(child.one & (child.one - 1));
        if (x == 1 && !child.zero && (one_rest & (one_rest - 1)) && !region_order_passes(s, child.one))
            return 0;
    }
    if (out)
        *out = child;
    return 1;
}

/* The walk test is exact for Black Hole's rules (every rank one apart on
 * the 13-cycle, nothing else) once no talon card can change the foundation
 * and the foundation has a card: then the remaining play is a Black Hole
 * game from f, whatever the pile depth (the arguments above never use it).
 * can_finish_from reuses the parent's certificate (if not NULL; parent_f:
 * the foundation the move was played onto) and leaves this position's in
 * `out` (if not NULL; its t is -1 when there is none); likewise the reach
 * bound's trace (parent_trace, trace: empty when there is none). */
static int can_finish_from(Position *s, const WalkCertificate *parent, int parent_f, WalkCertificate *out,
                           const ReachTrace *parent_trace, ReachTrace *trace)
{
    if (out)
        out->t = -1;
    if (trace) {
        trace->from = 0;
        trace->to = -1;
    }
    if (s->left == 0)
        return 1;
    if (judged_by_reach(s)) {
        if (s->path_rules && s->f != EMPTY_F && !chains_feasible(s))
            return 0;
        return s->f == EMPTY_F || reach_cards(s, parent_trace, trace) == 0; /* playable_bound == left */
    }
    if (parent && inherited_pass(s, parent, parent_f, out))
        return 1;
    /* alt[v] = sum_k (-1)^k base[v+1+k], base[v] = 2 count[v] + [v == f];
     * then 2 x_v(t) = alt[v] -+ 1. Play keeps the counts' part (walk_alt).
     * Threshold masks: with sign +1 (EVEN_SIGN), 2x = alt - 1; else
     * alt + 1. If every x_v >= 2 whatever t is (alt >= 5): connected, and
     * no cut with k <= 2. */
    int16_t alt[16];
    uint16_t ok_plus = 0, ok_minus = 0, pos_plus = 0, one_plus = 0, one_minus = 0, two_plus = 0;
#ifdef SSE2_LANES
    __m128i lo = _mm_add_epi16(_mm_loadu_si128((const __m128i *)s->walk_alt),
                               _mm_loadu_si128((const __m128i *)ALT_SIGN[s->f]));
    __m128i hi = _mm_add_epi16(_mm_loadu_si128((const __m128i *)(s->walk_alt + 8)),
                               _mm_loadu_si128((const __m128i *)(ALT_SIGN[s->f] + 8)));
    _mm_storeu_si128((__m128i *)alt, lo);
    _mm_storeu_si128((__m128i *)(alt + 8), hi);
#define ALT_ABOVE(c) lane_bits(_mm_cmpgt_epi16(lo, _mm_set1_epi16(c)), _mm_cmpgt_epi16(hi, _mm_set1_epi16(c)))
#define ALT_IS(c) lane_bits(_mm_cmpeq_epi16(lo, _mm_set1_epi16(c)), _mm_cmpeq_epi16(hi, _mm_set1_epi16(c)))
    if (ALT_ABOVE(4) == ALL_RANKS) {
        if (out)
            certify(out, lowest_bit(s->ends), alt);
        return 1;
    }
    ok_plus = ALT_ABOVE(0);
    ok_minus = ALT_ABOVE(-2);
    pos_plus = ALT_ABOVE(2);
    one_plus = ALT_IS(3);
    one_minus = ALT_IS(1);
    two_plus = ALT_IS(5);
#undef ALT_ABOVE
#undef ALT_IS
#else
    int min_alt = INT16_MAX;
    for (int v = 0; v < NRANKS; v++) {
        alt[v] = (int16_t)(s->walk_alt[v] + ALT_SIGN[s->f][v]);
        if (alt[v] < min_alt)
            min_alt = alt[v];
    }
    if (min_alt >= 5) {
        if (out)
            certify(out, lowest_bit(s->ends), alt);
        return 1;
    }
    for (int v = 0; v < NRANKS; v++) {
        uint16_t bit = (uint16_t)(1u << v);
        int a = alt[v];
        if (a >= 1) ok_plus |= bit;
        if (a >= -1) ok_minus |= bit;
        if (a >= 3) pos_plus |= bit;
        if (a == 3) one_plus |= bit;
        if (a == 1) one_minus |= bit;
        if (a == 5) two_plus |= bit;
    }
#endif
    uint16_t pos_minus = ok_plus, two_minus = one_plus;
    uint16_t needed = (uint16_t)(s->present | (1u << s->f));
    CutMemo memo;
    int have_memo = 0;
    /* Any end rank that passes will do, so the one that passed last (in
     * this position's parent, most often) is tried first. */
    uint16_t rest = s->ends;
    while (rest) {
        int t = rest >> s->end_hint & 1 ? s->end_hint : lowest_bit(rest);
        rest &= (uint16_t)~(1u << t);
        uint16_t plus = EVEN_SIGN[t], minus = (uint16_t)(~plus & ALL_RANKS);
        if (((ok_plus & plus) | (ok_minus & minus)) != ALL_RANKS)
            continue; /* some x_v < 0 */
        uint16_t used = (uint16_t)((pos_plus & plus) | (pos_minus & minus));
        uint16_t must = (uint16_t)(needed | (1u << t));
        if ((component(used, s->f) & must) != must)
            continue;
        /* Edges crossed 0, 1 and 2 times (2x = alt - 1 or alt + 1). */
        uint16_t zero = (uint16_t)(~used & ALL_RANKS);
        uint16_t one = (uint16_t)((one_plus & plus) | (one_minus & minus));
        uint16_t two = (uint16_t)((two_plus & plus) | (two_minus & minus));
        if (!zero && !(one & (one - 1))) { /* no pair sums to 1 or 2 */
            if (out)
                certify(out, t, alt);
            return 1;
        }
        if (!have_memo) {
            memset(&memo, 0, sizeof memo);
            have_memo = 1;
        }
        if (!cut_test_passes(s, zero, one, two, &memo))
            continue;
        uint16_t one_rest = (uint16_t)(one & (one - 1));
        if (!zero && (one_rest & (one_rest - 1)) && !region_order_passes(s, one))
            continue;
        s->end_hint = (uint8_t)t;
        if (out)
            certify(out, t, alt);
        return 1;
    }
    return 0;
}

static int can_finish(Position *s)
{
    return can_finish_from(s, NULL, 0, NULL, NULL, NULL);
}

/* Take away the bottom card of pile p (not empty), as if it had never been
 * dealt, and put it back: the position the leave-one test asks about. Only
 * what can_finish reads is kept up to date (not the key, not D1's trie). */
static int take_bottom(Position *s, int p)
{
    int h = s->h[p], b = s->rank[p][0];
    if (h == 3)
        s->deep &= ~(1u << p);
    if (h == 1)
        s->tops[b] &= ~(1u << p);
    memmove(s->rank[p], s->rank[p] + 1, (size_t)(h - 1));
    s->h[p] = (uint8_t)(h - 1);
    s->in_piles &= ~(1ull << --s->slot_end[p]); /* the others keep their slots */
    if (--s->count[b] == 0)
        s->present &= (uint16_t)~(1u << b);
    for (int v = 0; v < 16 && s->walk_rules; v++)
        s->walk_alt[v] = (int16_t)(s->walk_alt[v] - 2 * ALT_SIGN[b][v]);
    if (--s->bottoms[b] == 0)
        s->ends &= (uint16_t)~(1u << b);
    if (h > 1) {
        s->bottoms[s->rank[p][0]]++;
        s->ends |= (uint16_t)(1u << s->rank[p][0]);
    }
    s->left--;
    return b;
}

static void put_bottom(Position *s, int p, int b)
{
    int h = s->h[p] + 1;
    if (h > 1 && --s->bottoms[s->rank[p][0]] == 0)
        s->ends &= (uint16_t)~(1u << s->rank[p][0]);
    s->bottoms[b]++;
    s->ends |= (uint16_t)(1u << b);
    s->count[b]++;
    s->present |= (uint16_t)(1u << b);
    for (int v = 0; v < 16 && s->walk_rules; v++)
        s->walk_alt[v] = (int16_t)(s->walk_alt[v] + 2 * ALT_SIGN[b][v]);
    memmove(s->rank[p] + 1, s->rank[p], (size_t)(h - 1));
    s->rank[p][0] = (uint8_t)b;
    s->h[p] = (uint8_t)h;
    s->in_piles |= 1ull << s->slot_end[p]++; /* its slot still holds rank b */
    if (h == 1)
        s->tops[b] |= 1u << p;
    if (h == 3)
        s->deep |= 1u << p;
    s->left++;
}

/* Leave-one test: can a line play every pile card but one? The card left
 * behind keeps every card under it, so it is a pile's bottom card c. A line
 * that plays every card but c is, move for move, a legal line of the
 * position without c (the same tops, the same foundation, the same talon),
 * and it empties that position's piles. So if can_finish refutes the
 * position without c for every bottom card c, no line leaves exactly one
 * pile card. Sound wherever can_finish is, i.e. in every game. Piles with
 * the same contents give the same position: tried once. `hint`: the pile
 * that passed last, tried first.
 * Where can_finish judges by the reach bound, the bound of the position is
 * computed once: taking a bottom card away takes nothing away from what the
 * rest of the position reaches, only from what it takes (by induction over
 * the fixed point, what the smaller position takes, the larger one takes
 * too). So if the bound leaves two cards, every position without a bottom
 * card leaves one and fails; if it leaves one card, that card is a bottom
 * card (a card left keeps the cards under it), and only the position
 * without it can pass.
 * viable: the piles whose bottom card may still be the one left; the test
 * clears those it refutes. A refutation holds down every line: if the
 * position without c cannot be won, neither can a position reached from it
 * without c (the moves between are legal without c, as above), so the
 * search hands the mask to the children and tests only what is left (All
 * in a Row deals 1..1000: its 14.6% failing tests made 62% of the walk
 * tests, 11.2 each). */
static int can_leave_one(Position *s, int *hint, uint32_t *viable)
{
    uint32_t seen_nodes[2] = {0, 0};
    if (judged_by_reach(s)) {
        uint64_t untaken;
        int bound = reach_bound(s, &untaken);
        if (bound < s->left - 1)
            return 0;
        if (bound == s->left - 1) {
            for (int p = 0; p < s->npiles; p++)
                if (untaken >> (s->slot_end[p] - s->h[p]) & ((1ull << s->h[p]) - 1))
                    *viable &= 1u << p;
        }
    }
    for (int i = -1; i < s->npiles; i++) {
        int p = i < 0 ? *hint : i;
        if (!s->h[p] || (i >= 0 && p == *hint) || !(*viable >> p & 1))
            continue;
        int id = s->node[p][s->h[p]];
        if (seen_nodes[id >> 5] >> (id & 31) & 1) { /* the same position as a pile refuted before */
            *viable &= ~(1u << p);
            continue;
        }
        seen_nodes[id >> 5] |= 1u << (id & 31);
        int b = take_bottom(s, p);
        int passes = can_finish(s);
        put_bottom(s, p, b);
        if (passes) {
            *hint = p;
            return 1;
        }
        *viable &= ~(1u << p);
    }
    return 0;
}

/* ======================================================================
 * Move generation with dominance
 *
 * D1 (dominance). Let X (top of pile A) and Y (top of pile B) be playable
 * with equal ranks, and let Y be the last card of B. If some line of play
 * starts with Y, swapping X and Y gives a line at least as long: X was
 * playable at the start, the foundation sees the same ranks, nothing under
 * X could be played before X, and B holds nothing else. (If X is never
 * played in that line, play X instead of Y.) So trying X is enough, both
 * for "can all cards be played" and for "how many cards can be played".
 * Piles holding the same rank sequence (same trie node) give the same
 * canonical child, so only one of them is tried.
 * Both hold in every game of the family: whether a card may be played
 * depends only on its rank and the foundation's (fits), a talon turn
 * neither needs nor changes a pile, and every game is won by emptying the
 * piles, so the swapped line wins (or plays as many cards) as the original.
 * ====================================================================== */

typedef struct { int pile; int score; } Move; /* pile: a pile index or TALON_MOVE */

#define MAX_MOVES (NPILES + 1)

static int legal_moves(const Position *s, Move moves[MAX_MOVES])
{
    int n = 0;
    uint32_t seen_nodes[2] = {0, 0}; /* trie node ids are 1..52 */
    uint16_t tall_ranks = 0; /* ranks offered by a pile of 2 cards or more */
    uint32_t playable = playable_on(s, s->f);
    for (; playable; playable &= playable - 1) {
        int p = lowest_bit(playable), h = s->h[p];
        int id = s->node[p][h];
        if (seen_nodes[id >> 5] >> (id & 31) & 1)
            continue;
        seen_nodes[id >> 5] |= 1u << (id & 31);
        if (h > 1)
            tall_ranks |= (uint16_t)(1u << s->rank[p][h - 1]);
        moves[n].pile = p;
        moves[n].score = 0;
        n++;
    }
    int kept = 0;
    for (int i = 0; i < n; i++) {
        int p = moves[i].pile;
        if (s->h[p] == 1 && tall_ranks >> s->rank[p][0] & 1)
            continue; /* D1: a taller pile offers the same rank */
        moves[kept++] = moves[i];
    }
    if (s->t < s->talon_len) {
        moves[kept].pile = TALON_MOVE;
        moves[kept].score = 0;
        kept++;
    }
    return kept;
}

/* Order: tallest pile first, then the move that leaves the most moves
 * after it; turning the talon last. Where the walk test passed (`walk`,
 * else NULL), the edge a move crosses counts as much as a card of height
 * for each time the walk still has to cross it, up to 3: a move across an
 * edge the walk crosses once commits the rest of the game to one side
 * (Black Hole deals 1..5000: 27% fewer nodes on solvable deals). With
 * `noise` (every run after the first), a random term worth up to 32 moves
 * of mobility but less than one card of height is added, so restarts
 * explore different lines among equally good moves (measured on Black Hole
 * deals 1..4000: 34% fewer nodes on solvable deals than tie-breaks only). */
static void order_moves(const Position *s, Move *moves, int n, uint32_t *rng, int noise,
                        const WalkCertificate *walk)
{
    for (int i = 0; i < n; i++) {
        int p = moves[i].pile;
        if (p == TALON_MOVE) {
            moves[i].score = -1;
            continue;
        }
        int h = s->h[p], r = s->rank[p][h - 1];
        /* Moves after playing r: piles topped by what fits on r, and the card this uncovers. */
        int mobility = bit_count(playable_on(s, r)) + (h > 1 && (s->fits[r] >> s->rank[p][h - 2] & 1));
        int worth = h;
        if (walk && walk->t >= 0) {
            int x = walk->x[r == (s->f + 1) % NRANKS ? s->f : r]; /* edge v joins v and v + 1 */
            worth += x < 3 ? x : 3;
        }
        int score = (worth << 10) | (mobility << 4);
        if (noise) {
            *rng = *rng * 1664525u + 1013904223u;
            score += (int)(*rng >> 23);
        }
        moves[i].score = score;
    }
    for (int i = 1; i < n; i++) {
        Move m = moves[i];
        int j = i;
        while (j > 0 && moves[j - 1].score < m.score) {
            moves[j] = moves[j - 1];
            j--;
        }
        moves[j] = m;
    }
}

/* ======================================================================
 * Signals: the searches run without the GIL, so Python cannot run its
 * signal handlers (Ctrl-C) until they return, and a hard classic deal takes
 * tens of seconds. Every CHECK_INTERVAL nodes (about 10 ms) a search takes
 * the GIL back for a moment and lets Python run them; if a handler raises
 * (KeyboardInterrupt), the search stops and the exception is raised. Only
 * the main thread runs handlers; elsewhere the check finds nothing. One
 * countdown serves the whole solve, so the most-played search checks too.
 * ====================================================================== */

#define CHECK_INTERVAL (1u << 16)

enum { SEARCH_DONE = 0, SEARCH_NO_MEMORY = -1, SEARCH_INTERRUPTED = -2 };

typedef struct {
    PyThreadState *thread; /* saved when the search released the GIL */
    uint32_t countdown;    /* nodes until the next check */
    int raised;            /* a signal handler raised: its exception is set */
} Watch;

/* Count a node; returns 0 once a signal handler has raised. */
static inline int watch_tick(Watch *w)
{
    if (--w->countdown)
        return 1;
    w->countdown = CHECK_INTERVAL;
    PyEval_RestoreThread(w->thread);
    w->raised = PyErr_CheckSignals() < 0;
    w->thread = PyEval_SaveThread();
    return !w->raised;
}

/* Count m nodes at once (m < CHECK_INTERVAL): the check comes at most m - 1 nodes late. */
static inline int watch_ticks(Watch *w, uint32_t m)
{
    if (w->countdown > m) {
        w->countdown -= m;
        return 1;
    }
    w->countdown = 1;
    return watch_tick(w);
}

/* ======================================================================
 * Fast search: DFS with refutation table, dead-end test, D1, restarts.
 * ====================================================================== */

#define FIRST_RUN_BUDGET 100 /* nodes; half as many again at each restart */

typedef struct ValueMap ValueMap; /* the difficulty block's exact map of canonical keys */
static int value_map_says_winnable(const ValueMap *m, uint64_t key);

typedef struct {
    Position pos;
    FactTable *refuted;
    Watch *watch;
    uint64_t nodes;
    uint64_t stop_at;   /* node count at which this run aborts */
    uint64_t grow_at;   /* node count at which the table window doubles */
    int aborted;
    int noise;
    uint32_t rng;
    int fewest_left;    /* fewest pile cards any explored line left */
    int spare;          /* the goal: at most this many pile cards left (0: a win; 1: see can_leave_one) */
    int spare_hint;     /* for can_leave_one */
    int won_len;        /* moves of the line that reached the goal */
    uint8_t path[MAX_LINE];
    const ValueMap *winnable; /* trap walks only (else NULL): positions known to be winnable, a goal too */
} FastSearch;

/* Count a node; double the table's window when the search has outgrown it. */
static inline void count_node(uint64_t *nodes, uint64_t *grow_at, FactTable *table)
{
    if (++*nodes >= *grow_at) {
        fact_table_grow(table);
        *grow_at = *nodes + fact_table_window_slots(table);
    }
}

/* Talon dominance. The refutation table is keyed by piles and foundation
 * without the talon, and holds the fewest talon cards turned at which that
 * position was refuted: a position with more of its talon still to turn is
 * at least as good. Proof: from (piles, f, t) play any line of
 * (piles, f, t') with t' > t, turning t' - t + 1 cards at once where that
 * line turns one; every position it reaches is then reached with the same
 * piles, foundation and talon. So "refuted at t" refutes every t' >= t.
 * Without a talon t is always 0 and the table is a plain set. */
static int fast_dfs(FastSearch *fs, int depth, const WalkCertificate *parent, int parent_f,
                    const ReachTrace *parent_trace, uint32_t viable)
{
    Position *s = &fs->pos;
    if (fs->nodes >= fs->stop_at || !watch_tick(fs->watch)) {
        fs->aborted = 1;
        return 0;
    }
    count_node(&fs->nodes, &fs->grow_at, fs->refuted);
    if (s->left < fs->fewest_left)
        fs->fewest_left = s->left;
    if (s->left <= fs->spare || (fs->winnable && value_map_says_winnable(fs->winnable, position_key(s)))) {
        fs->won_len = depth;
        return 1;
    }
    uint64_t key = piles_f_key(s);
    long slot = fact_table_find(fs->refuted, key);
    if (slot >= 0 && (!fs->refuted->use_values || fs->refuted->values[slot] <= s->t))
        return 0;
    Move moves[MAX_MOVES];
    int n = legal_moves(s, moves);
    for (int i = 0; i < n; i++) /* the children's buckets load while the dead-end test runs */
        PREFETCH(fact_table_bucket(fs->refuted, child_key(s, moves[i].pile)));
    WalkCertificate certificate;
    ReachTrace trace;
    if (n == 0 || !(fs->spare ? can_leave_one(s, &fs->spare_hint, &viable)
                              : can_finish_from(s, parent, parent_f, &certificate, parent_trace, &trace))) {
        fact_table_put(fs->refuted, key, s->t);
        return 0;
    }
    const WalkCertificate *passed = fs->spare ? NULL : &certificate;
    const ReachTrace *traced = fs->spare ? NULL : &trace;
    order_moves(s, moves, n, &fs->rng, fs->noise, passed);
    for (int i = 0; i < n; i++) {
        int p = moves[i].pile, old_f = s->f;
        make_move(s, p);
        fs->path[depth] = (uint8_t)p;
        int won = fast_dfs(fs, depth + 1, passed, old_f, traced, viable);
        unmake_move(s, p, old_f);
        if (won)
            return 1;
        if (fs->aborted)
            return 0;
    }
    fact_table_put(fs->refuted, key, s->t);
    return 0;
}

/* ======================================================================
 * Most cards played (exact), for positions that cannot be finished.
 *
 * Two steps after the verdict search refuted the start (so every line
 * leaves a pile card):
 *   1. Can a line leave just one pile card? The fast search again, with
 *      that goal and the leave-one test (can_leave_one) as its dead-end
 *      test. If so, that is the most; if not, every line leaves two.
 *      (Skipped with a talon when the verdict search's deepest line left
 *      four cards or more: see fast_solve.)
 *   2. Otherwise branch and bound. `best` is the longest line found so far
 *      (seeded with the deepest line the two searches saw). A table keeps,
 *      per canonical position, an upper bound on how many more cards it
 *      can play. The search returns an upper bound for every position it
 *      leaves: exact when nothing below was cut, otherwise still a bound,
 *      because a subtree is cut only when depth + bound <= best. So every
 *      line longer than `best` is explored and the final `best` is the true
 *      maximum. Every position bounds at most (cards left - 2) after step 1
 *      (cards left - 1 without it), since every line from the start leaves
 *      two cards (one), so do the lines from any position reached; that
 *      alone stops the search as soon as a line leaving two (one) is found.
 *
 * Per-position bound: playable_bound (see the dead-end tests), the fixed
 * point that over-approximates the cards any line can play.
 *
 * With a talon, the search counts pile cards only: any line can be
 * extended by turning the rest of the talon, so the most cards a line puts
 * on the foundation is the most pile cards plus every talon card left.
 *
 * Talon dominance, as in the verdict search (see fast_dfs): from
 * (piles, f, t) any line of (piles, f, t') with t' > t can be played,
 * turning t' - t + 1 cards where it turns one, and it plays the same pile
 * cards. So a bound on the pile cards still playable from (piles, f, t)
 * bounds (piles, f, t') too: the table is keyed by piles and foundation,
 * with t in the key's low bits, and an entry is used at its t or later
 * (fact_table_find_turned). It holds in every game with a talon (the
 * argument uses only that a talon turn needs nothing and changes only f);
 * without a talon t is always 0 and the keys are plain.
 *
 * The two steps get the node budget the verdict search left over; if that
 * runs out, the figure is reported as unknown (never a smaller number).
 * ====================================================================== */

typedef struct {
    Position pos;
    FactTable *bounds;
    Watch *watch;
    uint64_t nodes;
    uint64_t stop_at;   /* node budget */
    uint64_t grow_at;
    int aborted;        /* out of budget, or a signal handler raised */
    int best;
    int cap;            /* every line from the start leaves at least this many pile cards */
} MaxSearch;

/* depth: pile cards played so far. */
static int max_dfs(MaxSearch *ms, int depth)
{
    Position *s = &ms->pos;
    if (ms->nodes >= ms->stop_at || !watch_tick(ms->watch)) {
        ms->aborted = 1;
        return 0;
    }
    count_node(&ms->nodes, &ms->grow_at, ms->bounds);
    if (depth > ms->best)
        ms->best = depth;
    if (s->left == 0)
        return 0;
    uint64_t key = turned_key(s);
    /* Every line from the start leaves `cap` cards, so every line from here
     * does too. The reach bound last: it costs the most. */
    int bound = s->left - ms->cap;
    long slot = fact_table_find_turned(ms->bounds, key);
    if (slot >= 0 && ms->bounds->values[slot] < bound)
        bound = ms->bounds->values[slot];
    if (depth + bound <= ms->best)
        return bound;
    int reach = playable_bound(s);
    if (reach < bound)
        bound = reach;
    if (depth + bound <= ms->best)
        return bound;
    Move moves[MAX_MOVES];
    int n = legal_moves(s, moves);
    order_moves(s, moves, n, NULL, 0, NULL);
    int result = 0;
    for (int i = 0; i < n && result < bound; i++) {
        int p = moves[i].pile, old_f = s->f, card = p != TALON_MOVE;
        make_move(s, p);
        int more = card + max_dfs(ms, depth + card);
        unmake_move(s, p, old_f);
        if (ms->aborted)
            return 0; /* the result would not be a bound: keep it out of the table */
        if (more > result)
            result = more;
    }
    if (result > bound)
        result = bound;
    fact_table_put(ms->bounds, key, result);
    return result;
}

/* ======================================================================
 * Classic search: the established peer's plain DFS, for comparable counts.
 *
 * State = 17 pile heights (2 bits each) + foundation rank; suits and pile
 * symmetry are ignored on purpose. A visited set; an explicit LIFO stack;
 * pop, count, test for the win, then push the unseen children of piles
 * 0..16 in order, marking them seen when generated. Each visited entry also
 * keeps the move that produced it, to rebuild the solution.
 * ====================================================================== */

#define CL_STATE_BITS 38
#define CL_STATE_MASK ((1ull << CL_STATE_BITS) - 1)
#define CL_PILE_SHIFT 38  /* 5 bits: pile + 1, 31 = root */
#define CL_PREV_SHIFT 43  /* 4 bits: foundation rank before the move */
#define CL_GEN_SHIFT 47   /* 17 bits of generation */
#define CL_GEN_LIMIT (1u << 17)
#define CL_ROOT 31u

/* The visited set and the stack grow with the search (deal 10683 needs a
 * 1 GiB set). A search that leaves them beyond the KEEP sizes gives the
 * memory back (they restart at the START sizes), so that one hard deal does
 * not leave a worker holding gigabytes; below that, they are kept for the
 * next deal. */
#define CL_START_SLOTS (1u << 16)
#define CL_KEEP_SLOTS (1u << 22)   /* 32 MiB */
#define CL_START_STACK 1024u
#define CL_KEEP_STACK (1u << 20)   /* 8 MiB */

typedef struct {
    uint64_t *slots;
    size_t capacity;   /* power of two */
    size_t used;
    uint64_t gen;
    uint64_t *stack;
    size_t stack_capacity;
} ClassicTables;

/* Returns 0 when out of memory (the caller frees what was allocated). */
static int classic_init(ClassicTables *ct)
{
    ct->slots = calloc(CL_START_SLOTS, sizeof(uint64_t));
    ct->stack = malloc(CL_START_STACK * sizeof(uint64_t));
    ct->capacity = CL_START_SLOTS;
    ct->stack_capacity = CL_START_STACK;
    ct->used = 0;
    ct->gen = 0;
    return ct->slots && ct->stack;
}

static void classic_free(ClassicTables *ct)
{
    free(ct->slots);
    free(ct->stack);
    ct->slots = ct->stack = NULL;
}

/* After a search: give back what grew past the KEEP sizes. Nothing in the
 * tables outlives a search (a new generation starts the next one), so a
 * fresh zeroed set is as good as the old one. glibc keeps the smaller
 * tables freed on the way up in its heap unless asked to trim it. */
static void classic_shrink(ClassicTables *ct)
{
    int released = 0;
    if (ct->capacity > CL_KEEP_SLOTS) {
        uint64_t *fresh = calloc(CL_START_SLOTS, sizeof(uint64_t));
        if (fresh) {
            free(ct->slots);
            ct->slots = fresh;
            ct->capacity = CL_START_SLOTS;
            ct->used = 0;
            released = 1;
        }
    }
    if (ct->stack_capacity > CL_KEEP_STACK) {
        uint64_t *fresh = realloc(ct->stack, CL_START_STACK * sizeof(uint64_t));
        if (fresh) {
            ct->stack = fresh;
            ct->stack_capacity = CL_START_STACK;
            released = 1;
        }
    }
#ifdef __GLIBC__
    if (released)
        malloc_trim(0);
#else
    (void)released;
#endif
}

static inline uint64_t cl_pack(const uint8_t h[NPILES], int f)
{
    uint64_t s = (uint64_t)f;
    for (int p = NPILES - 1; p >= 0; p--)
        s = (s << 2) | h[p];
    return s; /* pile p in bits 2p..2p+1, f in bits 34..37 */
}

static int classic_grow(ClassicTables *ct)
{
    size_t new_cap = ct->capacity * 2;
    uint64_t *fresh = calloc(new_cap, sizeof(uint64_t));
    if (!fresh)
        return 0;
    for (size_t i = 0; i < ct->capacity; i++) {
        uint64_t e = ct->slots[i];
        if ((e >> CL_GEN_SHIFT) != ct->gen)
            continue;
        size_t j = mix64(e & CL_STATE_MASK) & (new_cap - 1);
        while (fresh[j])
            j = (j + 1) & (new_cap - 1);
        fresh[j] = e;
    }
    free(ct->slots);
    ct->slots = fresh;
    ct->capacity = new_cap;
    return 1;
}

/* Insert state if new; returns 1 if inserted, 0 if already seen, -1 on OOM. */
static int classic_insert(ClassicTables *ct, uint64_t state, uint64_t info)
{
    if ((ct->used + 1) * 2 > ct->capacity && !classic_grow(ct))
        return -1;
    size_t mask = ct->capacity - 1, j = mix64(state) & mask;
    for (;;) {
        uint64_t e = ct->slots[j];
        if ((e >> CL_GEN_SHIFT) != ct->gen)
            break;
        if ((e & CL_STATE_MASK) == state)
            return 0;
        j = (j + 1) & mask;
    }
    ct->slots[j] = state | info | (ct->gen << CL_GEN_SHIFT);
    ct->used++;
    return 1;
}

static uint64_t classic_lookup(const ClassicTables *ct, uint64_t state)
{
    size_t mask = ct->capacity - 1, j = mix64(state) & mask;
    for (;;) {
        uint64_t e = ct->slots[j];
        if ((e >> CL_GEN_SHIFT) != ct->gen)
            return 0;
        if ((e & CL_STATE_MASK) == state)
            return e;
        j = (j + 1) & mask;
    }
}

static void classic_new_generation(ClassicTables *ct)
{
    ct->used = 0;
    if (++ct->gen >= CL_GEN_LIMIT) {
        memset(ct->slots, 0, ct->capacity * sizeof(uint64_t));
        ct->gen = 1;
    }
}

typedef struct {
    int outcome;
    uint64_t iterations;
    int cards_played;
    int solution_len;
    uint8_t solution[MAX_LINE];
} SolveResult;

/* Returns a SEARCH_ status. */
static int classic_solve(ClassicTables *ct, const Position *start, uint64_t max_iters, Watch *watch,
                         SolveResult *out)
{
    classic_new_generation(ct);
    uint8_t h[NPILES];
    memcpy(h, start->h, sizeof h);
    int total = start->left, most = 0;
    size_t top = 0;
    uint64_t root = cl_pack(h, start->f);
    if (classic_insert(ct, root, (uint64_t)CL_ROOT << CL_PILE_SHIFT) < 0)
        return SEARCH_NO_MEMORY;
    ct->stack[top++] = root;
    out->iterations = 0;
    while (top) {
        if (max_iters && out->iterations >= max_iters) {
            out->outcome = OUTCOME_INTRACTABLE;
            out->cards_played = most;
            return SEARCH_DONE;
        }
        if (!watch_tick(watch))
            return SEARCH_INTERRUPTED;
        uint64_t state = ct->stack[--top];
        out->iterations++;
        int f = (int)(state >> 34), left = 0;
        for (int p = 0; p < NPILES; p++) {
            h[p] = (uint8_t)(state >> (2 * p) & 3);
            left += h[p];
        }
        if (total - left > most)
            most = total - left;
        if (left == 0) {
            /* Walk the recorded moves back to the root. */
            int n = 0;
            uint64_t s = state;
            for (;;) {
                uint64_t e = classic_lookup(ct, s);
                unsigned pile = (unsigned)(e >> CL_PILE_SHIFT & 31);
                if (pile == CL_ROOT)
                    break;
                int prev_f = (int)(e >> CL_PREV_SHIFT & 15);
                out->solution[n++] = (uint8_t)(pile - 1);
                s = ((s & ((1ull << 34) - 1)) + (1ull << (2 * (pile - 1)))) | ((uint64_t)prev_f << 34);
            }
            for (int i = 0; i < n / 2; i++) {
                uint8_t t = out->solution[i];
                out->solution[i] = out->solution[n - 1 - i];
                out->solution[n - 1 - i] = t;
            }
            out->solution_len = n;
            out->outcome = OUTCOME_SOLVED;
            out->cards_played = total;
            return SEARCH_DONE;
        }
        for (int p = 0; p < NPILES; p++) {
            if (!h[p])
                continue;
            int r = start->rank[p][h[p] - 1];
            if (!adjacent(r, f))
                continue;
            uint64_t child = ((state & ((1ull << 34) - 1)) - (1ull << (2 * p))) | ((uint64_t)r << 34);
            uint64_t info = ((uint64_t)(p + 1) << CL_PILE_SHIFT) | ((uint64_t)f << CL_PREV_SHIFT);
            int inserted = classic_insert(ct, child, info);
            if (inserted < 0)
                return SEARCH_NO_MEMORY;
            if (!inserted)
                continue;
            if (top == ct->stack_capacity) {
                size_t cap = ct->stack_capacity * 2;
                uint64_t *grown = realloc(ct->stack, cap * sizeof(uint64_t));
                if (!grown)
                    return SEARCH_NO_MEMORY;
                ct->stack = grown;
                ct->stack_capacity = cap;
            }
            ct->stack[top++] = child;
        }
    }
    out->outcome = OUTCOME_UNSOLVED;
    out->cards_played = most;
    return SEARCH_DONE;
}

/* ======================================================================
 * Exhaustive search over pile heights, for layouts with few pile-height
 * combinations (Golf's 7 piles of 5: 6^7 = 279,936).
 *
 * A position is the pile heights h, the foundation rank f and the talon
 * cards turned t. By talon dominance (see fast_dfs) only the fewest t at
 * which (h, f) is reached matters. After a pile move, f is the rank of the
 * card the pile gave, the one at the pile's new height; so a row of one
 * byte per pile holds what the search needs of heights h: the fewest t at
 * which a line reaches h with pile p's card just played (NOT_REACHED if
 * none); two piles whose cards share a rank give one position, so the pass
 * keeps a byte per foundation rank instead (a FOUNDATIONS row: one vector
 * load gives the row's positions). The start puts its own (f, t) in its
 * row, and turning talon cards from a row's fewest t on puts talon[j] on
 * the foundation at j + 1.
 * Every pile move leads from h to a vector of smaller mixed-radix index
 * (digit p = h[p], radix the pile's starting height + 1), and a talon turn
 * keeps h. Visiting the indices downwards therefore sees each row complete
 * before its moves are made. (heights_reach_cube lays piles 1..3's digits
 * out in another order, by the sum of their heights, which keeps that
 * property: see cube_pos.) Nothing is pruned: the search reaches every
 * reachable (h, f), each once, so it decides the deal and finds the most
 * cards any line plays in the same pass, with no soundness argument
 * beyond the dominance. A win is read back from the empty piles (see
 * heights_line).
 * ====================================================================== */

#define HEIGHTS_MAX_ROWS (1u << 20) /* rows of at most 24 bytes: 24 MiB at most */
#define NOT_REACHED 0xFF
#define FOUNDATIONS 16     /* a row of the pass, by foundation rank: 0..EMPTY_F, then NONE_F, never reached */
#define NONE_F (EMPTY_F + 1)

typedef struct {
    uint8_t *rows; /* the pass: FOUNDATIONS bytes a row; heights_wins: a byte a pile, then padding to 8 */
    size_t width;  /* the bytes of a row, for the layout searched now */
    size_t bytes;  /* allocated */
} HeightsTable;

static void heights_table_free(HeightsTable *ht)
{
    free(ht->rows);
    ht->rows = NULL;
    ht->width = ht->bytes = 0;
}

/* ======================================================================
 * The Python type: a Solver owns its tables (sized once, reused per deal).
 * ====================================================================== */

typedef struct {
    PyObject_HEAD
    int ready;                 /* __init__ allocated the tables */
    int busy;                  /* a search is running (set and cleared with the GIL held) */
    FactTable refuted;
    FactTable bounds;
    ClassicTables classic;
    uint64_t max_search_nodes; /* nodes of the last most-played search */
    HeightsTable heights;
} SolverObject;

static void solver_free_tables(SolverObject *self)
{
    fact_table_free(&self->refuted);
    fact_table_free(&self->bounds);
    classic_free(&self->classic);
    heights_table_free(&self->heights);
}

static void Solver_dealloc(SolverObject *self)
{
    solver_free_tables(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* A second __init__ is refused rather than re-allocating: another thread may
 * be searching in these tables (their memory cannot be swapped under it),
 * and a new Solver does the same job without that hazard. */
static int Solver_init(SolverObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"table_bits", NULL};
    int bits = 22;
    if (self->ready) {
        PyErr_SetString(PyExc_RuntimeError, "Solver.__init__ called twice: create a new Solver instead");
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|i", kwlist, &bits))
        return -1;
    if (bits < 8 || bits > 30) {
        PyErr_SetString(PyExc_ValueError, "table_bits must be between 8 and 30");
        return -1;
    }
    if (!fact_table_init(&self->refuted, bits, 1) || !fact_table_init(&self->bounds, bits, 1)
        || !classic_init(&self->classic)) {
        solver_free_tables(self);
        PyErr_NoMemory();
        return -1;
    }
    self->ready = 1;
    return 0;
}

enum { GOAL_REACHED = 1, GOAL_REFUTED = 0, GOAL_UNDECIDED = -1 };

static void fast_search_start(FastSearch *fs, const Position *start, FactTable *table, Watch *watch, int spare)
{
    fs->pos = *start;
    fs->refuted = table;
    fs->watch = watch;
    fs->nodes = 0;
    fs->fewest_left = start->left;
    fs->spare = spare;
    fs->spare_hint = 0;
    fs->won_len = 0;
    fs->noise = 0;
    fs->rng = 12345u; /* fixed: a deal's count must not depend on the deals before it */
    fs->winnable = NULL;
    fact_table_new_generation(table);
    table->use_values = start->talon_len > 0; /* without a talon, t is always 0 */
    table->turned_bits = 0;
    fs->grow_at = fact_table_window_slots(table);
}

/* Restarts: a small node budget, grown by half each time, with random
 * tie-breaks after the first run (on Black Hole deals 20001..26000, 9% fewer
 * nodes than starting at 200 and doubling). Refutations are facts, so they
 * are kept across runs; only the last, unbounded-enough run decides.
 * `n` searches of one question (a position and its reversal: see
 * reversed_position) take turns, one run each at every budget, and the
 * first to decide answers (`*decider`, unless NULL: its index); their
 * nodes add up.
 * The searches spend up to `look` nodes (at most `end`), and go on to `end`
 * only while the first one's deepest line leaves at most `near` pile cards
 * (look = end: no such stop). The test is made between runs: a run begun
 * short of `near` stops at `look` even if its line got nearer meanwhile, and
 * the next run, if any, starts afresh as any restart does.
 * GOAL_UNDECIDED when it stopped so (or a signal handler raised). */
static int restarted_search(FastSearch *const *fs, int n, uint64_t look, int near, uint64_t end, int *decider)
{
    uint64_t budget = FIRST_RUN_BUDGET;
    for (;;) {
        for (int i = 0; i < n; i++) {
            uint64_t spent = 0;
            for (int j = 0; j < n; j++)
                spent += fs[j]->nodes;
            uint64_t limit = fs[0]->fewest_left <= near ? end : look;
            if (spent >= limit)
                return GOAL_UNDECIDED;
            FastSearch *run = fs[i];
            run->stop_at = run->nodes + (limit - spent > budget ? budget : limit - spent);
            run->aborted = 0;
            if (decider)
                *decider = i;
            if (fast_dfs(run, 0, NULL, 0, NULL, ALL_PILES))
                return GOAL_REACHED;
            if (!run->aborted)
                return GOAL_REFUTED;
            if (run->watch->raised)
                return GOAL_UNDECIDED;
            run->noise = 1;
        }
        budget += budget / 2;
    }
}

/* Reversal. With an empty foundation, no talon and rules that let a on b
 * whenever b on a (All in a Row), a line that empties the piles, read
 * backwards, empties the piles of the position with every pile turned
 * upside down: each pile's cards come off in the reverse order, and every
 * card still lies on one that fits it. So the two positions are won or
 * lost together, and a winning line of one, reversed move for move (a move
 * names a pile), wins the other. Searching both, in turn, pays off because
 * the effort differs widely between them (All in a Row deals 1..1000: 5.4M
 * and 5.0M nodes to the won deals' wins, 1.5M taking the smaller of each
 * deal; 8.1M, 7.5M and 1.6M for the lost). Lines that fall short say
 * nothing across: most cards played is the forward search's alone.
 * Returns 0 where it does not apply. */
static int reversed_position(const Position *s, Position *out)
{
    if (s->f != EMPTY_F || s->talon_len)
        return 0;
    for (int a = 0; a < NRANKS; a++)
        for (int b = 0; b < NRANKS; b++)
            if ((s->fits[a] >> b & 1) != (s->fits[b] >> a & 1))
                return 0;
    uint8_t ranks[NPILES * PILE_DEPTH] = {0};
    for (int p = 0; p < s->npiles; p++)
        for (int i = 0; i < s->h[p]; i++)
            ranks[PILE_DEPTH * p + i] = s->rank[p][s->h[p] - 1 - i];
    return position_init(out, ranks, s->h, s->npiles, PILE_DEPTH, EMPTY_F, NULL, 0, s->fits);
}

/* cards_played when the most-played search did not finish within the budget. */
#define PLAYED_UNKNOWN (-1)

/* The verdict search's first try where the heights search covers the
 * layout: the easy wins, for much less than a pass; the pass decides the
 * rest (see fast_solve). FIRST_LOOK nodes, and on to HEIGHTS_PRELUDE only
 * while the deepest line leaves at most NEAR_WIN pile cards: a deal whose
 * lines all stop well short after FIRST_LOOK nodes is rarely won soon, and
 * most such deals are lost, where every node before the pass is wasted.
 * Chosen after the pass became faster (it had been 10,000 for all), from
 * each deal's nodes to a win, deepest line after 500 and 1,000 nodes and
 * pass time on deals 1..1000 of the three Golf games: of the rules tried,
 * this one took the least time in Golf and Dead King Golf and no more than
 * 10,000 for all in Relaxed Golf, where most deals are won and many after
 * 1,000 nodes (500 or 1,000 for all slowed it). Speed: README. */
#define FIRST_LOOK 1000
#define NEAR_WIN 6
#define NEAR_WIN_WRAPPING 3 /* with ranks on the 13-cycle (Relaxed Golf), where the restricted passes come first */
#define HEIGHTS_PRELUDE 10000

/* Rows of the heights search for s (the product of its piles' heights + 1),
 * or 0 when it does not apply: more than HEIGHTS_MAX_ROWS, or rules under
 * which a rank may be played on more than three foundation ranks (every
 * game of the family has at most two, and the empty foundation). */
static size_t heights_rows(const Position *s)
{
    for (int c = 0; c < NRANKS; c++) {
        int onto = 0;
        for (int g = 0; g <= EMPTY_F; g++)
            onto += s->fits[g] >> c & 1;
        if (onto > 3)
            return 0;
    }
    size_t rows = 1;
    for (int p = 0; p < s->npiles; p++) {
        rows *= (size_t)s->h[p] + 1;
        if (rows > HEIGHTS_MAX_ROWS)
            return 0;
    }
    return rows;
}

/* Where the system has transparent huge pages (Linux), the table sits on
 * 2 MiB pages: the pass walks a Golf deal's 4.5 MiB by several streams at
 * once (the children by the outer piles lie up to 746 KiB below the row),
 * and fewer pages ease the address translation (Relaxed Golf deals
 * 1..1000: about 2% faster). Only the placement changes. */
static int heights_table_reserve(HeightsTable *ht, size_t rows, size_t width)
{
    if (rows * width > ht->bytes) {
        heights_table_free(ht);
        size_t bytes = rows * width;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
        size_t huge = (size_t)2 << 20;
        void *rows_at = NULL;
        if (bytes >= huge && !posix_memalign(&rows_at, huge, (bytes + huge - 1) / huge * huge)) {
            bytes = (bytes + huge - 1) / huge * huge;
            madvise(rows_at, bytes, MADV_HUGEPAGE); /* a hint: the table works without it */
            ht->rows = rows_at;
        } else {
            ht->rows = malloc(bytes);
        }
#else
        ht->rows = malloc(bytes);
#endif
        if (!ht->rows)
            return 0;
        ht->bytes = bytes;
    }
    ht->width = width;
    return 1;
}

typedef struct {
    const Position *start;
    HeightsTable *table;
    size_t stride[NPILES];   /* what a card of pile p adds to a row's index */
    size_t step[NPILES];     /* and to its place in heights_wins' table, in bytes */
    size_t top;              /* the start's row */
    const uint8_t *limit;    /* a restricted pass (heights_reach_restricted): by pile cards left, the most
                              * talon cards turned an entry may have (NULL: the full pass) */
    uint16_t cube_pos[PILE_DEPTH + 1][PILE_DEPTH + 1][PILE_DEPTH + 1]; /* a row's index: its pile-0 height, plus
                              * (pile 0's starting height + 1) times this place of piles 1..3's heights, plus
                              * stride[p] for each card of piles 4..: laid out by the pass that
                              * walks the rows (lay_out_mixed_radix, or heights_reach_cube's order) */
    uint16_t onto[NRANKS];   /* the foundation ranks each rank may be played on (EMPTY_F only when the
                              * start's foundation is empty: no move empties it) */
    int onto_most;           /* the most ranks in an onto[] mask: 3 at most (heights_rows) */
    uint8_t onto_top[NPILES][PILE_DEPTH + 1][4]; /* the same for the top card of pile p at height k, as
                                                   * indices into a FOUNDATIONS row (NONE_F: none; all
                                                   * NONE_F at height 0, so an empty pile moves nothing) */
    ptrdiff_t child_at[NPILES][PILE_DEPTH + 1]; /* the pass: from a row's first byte to the entry that
                                                  * playing pile p's top card at height k writes (a lane
                                                  * of the child's row); at height 0 the row's own NONE_F,
                                                  * which only ever gets NOT_REACHED */
#ifdef SSE2_LANES /* onto_top as byte lanes of a FOUNDATIONS row, for vector instructions */
    uint8_t onto_lanes[NPILES][PILE_DEPTH + 1][FOUNDATIONS];  /* 0xFF at onto_top's ranks, 0 elsewhere */
#endif
    uint8_t talon_row[MAX_TALON + 1][FOUNDATIONS]; /* [m][f]: the fewest cards turned that leave
                                                    * a talon card of rank f on the foundation,
                                                    * turning from card m on */
} HeightsSearch;

#ifdef SSE2_LANES
/* The least byte of a vector, halving: 16 -> 8 -> 4 -> 2 -> 1 lanes. */
static inline int least_lane(__m128i x)
{
    x = _mm_min_epu8(x, _mm_shuffle_epi32(x, 0x4E));
    x = _mm_min_epu8(x, _mm_shuffle_epi32(x, 0xB1));
    x = _mm_min_epu8(x, _mm_shufflelo_epi16(x, 0xB1));
    x = _mm_min_epu8(x, _mm_srli_epi16(x, 8));
    return _mm_cvtsi128_si32(x) & 0xFF;
}
#endif

/* The fewest talon cards turned at which row i is reached with each
 * foundation rank, in t_of: the row's own entries, and the talon cards
 * turned from its fewest t on; returns the row's fewest. Branch-free but
 * for the talon: whether an entry is reached is a coin toss. */
static inline int row_foundations(const HeightsSearch *hs, size_t i, uint8_t t_of[FOUNDATIONS])
{
    const uint8_t *row = hs->table->rows + i * FOUNDATIONS;
    int fewest;
#ifdef SSE2_LANES
    __m128i least = _mm_loadu_si128((const __m128i *)row);
    fewest = least_lane(least);
    if (fewest < hs->start->talon_len)
        least = _mm_min_epu8(least, _mm_loadu_si128((const __m128i *)hs->talon_row[fewest]));
    _mm_storeu_si128((__m128i *)t_of, least);
#else
    fewest = NOT_REACHED;
    for (int f = 0; f < FOUNDATIONS; f++)
        fewest = row[f] < fewest ? row[f] : fewest;
    for (int f = 0; f < FOUNDATIONS; f++) {
        uint8_t turned = fewest < hs->start->talon_len ? hs->talon_row[fewest][f] : NOT_REACHED;
        t_of[f] = turned < row[f] ? turned : row[f];
    }
#endif
    return fewest;
}

/* Whether heights_reach reached row i: it has an entry (the start's row
 * holds the start's). */
static inline int row_reached(const HeightsSearch *hs, size_t i)
{
    const uint8_t *row = hs->table->rows + i * FOUNDATIONS;
    uint64_t low, high;
    memcpy(&low, row, 8);
    memcpy(&high, row + 8, 8);
    return (low & high) != ~0ull;
}

/* The entries of a FOUNDATIONS row other than NOT_REACHED, 8 at a time: in
 * x = ~word an entry NOT_REACHED is a zero byte; ((b & 0x7F) + 0x7F) | b has
 * its top bit set exactly when byte b is not zero, and multiplying the top
 * bits, shifted to the bytes' low bits, by 0x0101... sums them in the top
 * byte. */
static inline int reached_count(const uint8_t t_of[FOUNDATIONS])
{
    const uint64_t low7 = 0x7F7F7F7F7F7F7F7Full, ones = 0x0101010101010101ull;
    int n = 0;
    for (int half = 0; half < FOUNDATIONS; half += 8) {
        uint64_t x;
        memcpy(&x, t_of + half, 8);
        x = ~x;
        n += (int)((((((x & low7) + low7) | x) >> 7 & ones) * ones) >> 56);
    }
    return n;
}

/* A row's index from its heights (cube_pos: piles 1..3's place, as the pass laid the rows out). */
static inline size_t row_index(const HeightsSearch *hs, const uint8_t h[NPILES])
{
    size_t i = h[0] + ((size_t)hs->start->h[0] + 1) * hs->cube_pos[h[1]][h[2]][h[3]];
    for (int p = 4; p < hs->start->npiles; p++)
        i += h[p] * hs->stride[p];
    return i;
}

/* A winning line, read back from the empty piles (row 0) to the start.
 * A row's (f, t) with the fewest t came from a pile move out of a row that
 * holds t for a rank f may be played on (the card played is the one at the
 * child's height), or else from turning talon cards from the row's fewest
 * t on (an entry with the fewest t is the start's or a pile move's: talon
 * turns add entries with more cards turned). Each step adds a move, and a
 * line has at most MAX_LINE. Returns its length. */
static int heights_line(const HeightsSearch *hs, uint8_t line[MAX_LINE])
{
    const Position *s = hs->start;
    uint8_t h[NPILES] = {0}, back[MAX_LINE], t_of[FOUNDATIONS];
    size_t i = 0;
    int f = 0, t = row_foundations(hs, 0, t_of), n = 0;
    while (t_of[f] != t)
        f++;
    while ((i != hs->top || f != s->f || t != s->t) && n < MAX_LINE) {
        int found = 0;
        for (int p = 0; p < s->npiles && !found; p++) {
            if (h[p] == s->h[p] || s->rank[p][h[p]] != f)
                continue;
            h[p]++;
            size_t j = row_index(hs, h);
            if (row_reached(hs, j))
                row_foundations(hs, j, t_of);
            else
                memset(t_of, NOT_REACHED, FOUNDATIONS);
            for (uint16_t from = hs->onto[f]; from && !found; from &= (uint16_t)(from - 1))
                if (t_of[lowest_bit(from)] == t) {
                    back[n++] = (uint8_t)p;
                    i = j;
                    f = lowest_bit(from);
                    found = 1;
                }
            if (!found)
                h[p]--;
        }
        if (found)
            continue;
        int fewest = row_foundations(hs, i, t_of);
        for (f = 0; t_of[f] != fewest; f++)
            ;
        for (; t > fewest && n < MAX_LINE; t--)
            back[n++] = TALON_MOVE;
    }
    for (int k = 0; k < n; k++)
        line[k] = back[n - 1 - k];
    return n;
}

/* Set up hs for `start` (rows: heights_rows(start)) in the Solver's table,
 * with rows of `width` bytes, all NOT_REACHED, or (`keep`) as the last
 * pass on the same start left them (see heights_solve). */
static int heights_start(HeightsSearch *hs, HeightsTable *ht, const Position *start, size_t rows, size_t width,
                         int keep)
{
    int np = start->npiles;
    if (!heights_table_reserve(ht, rows, width))
        return 0;
    hs->start = start;
    hs->table = ht;
    hs->top = rows - 1;
    hs->limit = NULL;
    size_t stride = 1;
    for (int p = 0; p < np; p++) {
        hs->stride[p] = stride;
        hs->step[p] = stride * ht->width;
        stride *= (size_t)start->h[p] + 1;
    }
    memset(hs->onto, 0, sizeof hs->onto);
    for (int g = 0; g <= (start->f == EMPTY_F ? EMPTY_F : EMPTY_F - 1); g++)
        for (uint16_t ranks = start->fits[g]; ranks; ranks &= (uint16_t)(ranks - 1))
            hs->onto[lowest_bit(ranks)] |= (uint16_t)(1u << g);
    hs->onto_most = 0;
    for (int r = 0; r < NRANKS; r++)
        hs->onto_most = bit_count(hs->onto[r]) > hs->onto_most ? bit_count(hs->onto[r]) : hs->onto_most;
    memset(hs->onto_top, NONE_F, sizeof hs->onto_top);
    for (int p = 0; p < np; p++) {
        for (int k = 0; k < start->h[p]; k++) {
            int n = 0;
            for (uint16_t from = hs->onto[start->rank[p][k]]; from; from &= (uint16_t)(from - 1))
                hs->onto_top[p][k + 1][n++] = (uint8_t)lowest_bit(from); /* at most 3: heights_rows */
        }
        hs->child_at[p][0] = NONE_F;
        for (int k = 1; k <= start->h[p]; k++)
            hs->child_at[p][k] = start->rank[p][k - 1] - (ptrdiff_t)(hs->stride[p] * FOUNDATIONS);
    }
#ifdef SSE2_LANES
    memset(hs->onto_lanes, 0, sizeof hs->onto_lanes);
    for (int p = 0; p < np; p++)
        for (int k = 0; k <= start->h[p]; k++) {
            for (int j = 0; j < 3; j++)
                hs->onto_lanes[p][k][hs->onto_top[p][k][j]] = 0xFF;
            hs->onto_lanes[p][k][NONE_F] = 0;
        }
#endif
    memset(hs->talon_row[start->talon_len], NOT_REACHED, FOUNDATIONS);
    for (int j = start->talon_len - 1; j >= start->t; j--) {
        memcpy(hs->talon_row[j], hs->talon_row[j + 1], FOUNDATIONS);
        hs->talon_row[j][start->talon[j]] = (uint8_t)(j + 1);
    }
    if (!keep)
        memset(ht->rows, NOT_REACHED, rows * width);
    return 1;
}

/* row_foundations for a row the pass reached: its fewest is a t some line
 * reached, talon_len at most, and talon_row[talon_len] is all NOT_REACHED,
 * so the talon needs no test. Returns how many entries t_of has. */
static inline int reached_foundations(const HeightsSearch *hs, const uint8_t *row, uint8_t t_of[FOUNDATIONS])
{
    int fewest = NOT_REACHED;
    for (int f = 0; f < FOUNDATIONS; f++)
        fewest = row[f] < fewest ? row[f] : fewest;
    for (int f = 0; f < FOUNDATIONS; f++)
        t_of[f] = hs->talon_row[fewest][f] < row[f] ? hs->talon_row[fewest][f] : row[f];
    return reached_count(t_of);
}

/* A move's child entry: the least of t_of over the ranks the card may be
 * played on, if less. Branch-free: an empty pile, or a move found nowhere
 * (NOT_REACHED), writes nothing new. */
static inline void lower_child(uint8_t *entry, const uint8_t t_of[FOUNDATIONS], const uint8_t *rank, int lookups)
{
    int v = t_of[rank[0]], e = *entry;
    v = t_of[rank[1]] < v ? t_of[rank[1]] : v;
    if (lookups == 3)
        v = t_of[rank[2]] < v ? t_of[rank[2]] : v;
    *entry = (uint8_t)(v < e ? v : e);
}

/* The heights of the pass's next run: piles 1..np-1 (np: start's piles) count down as an odometer
 * (pile 0 is the run's own); `left` follows their cards. Returns the highest pile that changed
 * (every pile from 1 to it did), or np once every run is done. */
static inline int next_run(const Position *start, int np, uint8_t *h, int *left)
{
    for (int p = 1; p < np; p++) {
        if (h[p]) {
            h[p]--;
            --*left;
            return p;
        }
        h[p] = start->h[p];
        *left += start->h[p];
    }
    return np;
}

/* The pass of the heights search: every row from the start's down to 0.
 * `lookups`: how many of onto_top's ranks a move may have (a constant in
 * each of heights_reach's calls, so each gets its own loop: the Golf
 * games' two save a third of the reads).
 * Rows come in runs of pile 0's heights, the other piles fixed: their
 * moves' ranks and child entries (from, at) change only when the
 * odometer carries past pile 0, so they are looked up then.
 * Counts the (h, f) reached in *positions and keeps in *fewest_left the
 * fewest pile cards any row reached leaves (it comes in as the fewest seen
 * before). Stops early (returning 0) once `spent` + positions passes `end`
 * or a signal handler raised (watch->raised); returns 1 when done. */
static inline int heights_reach_with(const HeightsSearch *hs, uint64_t spent, uint64_t end, Watch *watch,
                                     uint64_t *positions, int *fewest_left, int lookups)
{
    const Position *start = hs->start;
    int np = start->npiles, left = start->left - start->h[0]; /* left: the cards of piles 1.. */
    uint8_t h[NPILES], *rows = hs->table->rows;
    const uint8_t *from[NPILES];
    ptrdiff_t at[NPILES];
    memcpy(h, start->h, sizeof h);
    for (int q = 1; q < np; q++) {
        from[q] = hs->onto_top[q][h[q]];
        at[q] = hs->child_at[q][h[q]];
    }
    uint64_t n = 0;
    size_t i = hs->top;
    for (;;) {
        for (int k = start->h[0]; k >= 0; k--, i--) { /* a run: pile 0 at height k */
            uint8_t t_of[FOUNDATIONS], *row = rows + i * FOUNDATIONS;
            if (!row_reached(hs, i))
                continue;
            int got = reached_foundations(hs, row, t_of);
            if (hs->limit) { /* a restricted pass: entries beyond the schedule dropped */
                for (int f = 0; f < FOUNDATIONS; f++)
                    t_of[f] = t_of[f] != NOT_REACHED && t_of[f] > hs->limit[left + k] ? NOT_REACHED : t_of[f];
                got = reached_count(t_of);
            }
            n += (uint64_t)got;
            if (!watch_tick(watch) || spent + n > end) {
                *positions = n;
                return 0;
            }
            if (left + k < *fewest_left)
                *fewest_left = left + k;
            lower_child(row + hs->child_at[0][k], t_of, hs->onto_top[0][k], lookups);
            for (int q = 1; q < np; q++)
                lower_child(row + at[q], t_of, from[q], lookups);
        }
        int last = next_run(start, np, h, &left);
        if (last == np) {
            *positions = n;
            return 1;
        }
        for (int p = 1; p <= last; p++) {
            from[p] = hs->onto_top[p][h[p]];
            at[p] = hs->child_at[p][h[p]];
        }
    }
}

#ifdef SHUFFLE_LANES
#define LANE_PILES 8 /* the piles heights_reach_lanes takes: one byte each of a 64-bit word */

static int lanes_cpu; /* the CPU has SSSE3, SSE4.1 and POPCNT (set once, when the module loads) */

static int cpu_has_lanes(void)
{
#ifdef _MSC_VER
    int info[4];
    __cpuid(info, 1);
    return (info[2] >> 9 & 1) && (info[2] >> 19 & 1) && (info[2] >> 23 & 1);
#else
    __builtin_cpu_init();
    return __builtin_cpu_supports("ssse3") && __builtin_cpu_supports("sse4.1") && __builtin_cpu_supports("popcnt");
#endif
}

/* heights_reach_with in vector lanes, for layouts of at most LANE_PILES
 * piles (the Golf games' 7) on CPUs with SSE4.1 (see SHUFFLE_LANES): the
 * same rows, entries, positions and fewest, with far fewer instructions a row.
 * A row's t_of is a register; lane q of by[j] is onto_top's rank j for
 * pile q's top card, so byte shuffles of t_of by by[0] and by[1] (and by[2])
 * and their min give every pile's child entry in one vector, where the
 * plain loop reads two bytes a pile. Pile 0's move goes to the next row,
 * the one visited next: its entry rides in `carry` (v in its lane, 0xFF
 * elsewhere: keep[k] is 0 at the lane only) rather than a byte store the
 * next row's load would wait for (a narrow store does not forward to a
 * wider load). For the same reason the other piles' ranks, which change
 * at the odometer's carries, are kept as 64-bit words (by[]) and moved
 * into vectors whole, not stored byte by byte and loaded. A reached row
 * is stored whole, as heights_line reads it after the pass.
 * heights_reach_lanes calls a copy of it for each pile count `np` and
 * each `lookups`, as constants, so that the loops over the piles unroll
 * (the pass alone, Golf deals 1..200: 5% to 13% faster).
 * The talon's entries come from talon_row at the row's fewest t, the least
 * of its own entries and of the carry's value v0; talon_row[t] only grows
 * with t, so that is the least of talon_row at each, and talon_row at v0
 * (from_carry) is read as soon as v0 is known, one row ahead: the loads of
 * the row-to-row chain no longer wait for the least of the carried row
 * (the pass alone, with POPCNT's count and SSE4.1's least word: Golf deals
 * 1..200 9% faster, Relaxed Golf 16%). fewest follows each run's last
 * reached row: k only falls within a run. */
static LANES_FUNCTION ALWAYS_INLINE int heights_reach_lanes_of(const HeightsSearch *hs, uint64_t spent,
                                                               uint64_t end, Watch *watch, uint64_t *positions,
                                                               int *fewest_left, int lookups, int np)
{
    const Position *start = hs->start;
    int left = start->left - start->h[0], fewest = *fewest_left;
    uint8_t h[NPILES], *rows = hs->table->rows;
    ptrdiff_t at[LANE_PILES];
    uint64_t by[3] = {0, 0, 0}; /* lane 0 (pile 0's) is 0 here: pile0[k] adds it */
    memcpy(h, start->h, sizeof h);
    for (int q = 1; q < np; q++) {
        at[q] = hs->child_at[q][h[q]];
        for (int j = 0; j < 3; j++)
            by[j] |= (uint64_t)hs->onto_top[q][h[q]][j] << 8 * q;
    }
    const __m128i ones = _mm_set1_epi8(-1), lane_ids = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
                                                                        13, 14, 15);
    __m128i keep[PILE_DEPTH + 1], pile0[PILE_DEPTH + 1][3], carry = ones, carry_talon = ones;
    const unsigned talon_len = (unsigned)start->talon_len; /* talon_row[talon_len]: all NOT_REACHED */
    for (int k = 0; k <= start->h[0]; k++) {
        keep[k] = k ? _mm_cmpeq_epi8(_mm_setzero_si128(),
                                     _mm_cmpeq_epi8(_mm_set1_epi8((char)start->rank[0][k - 1]), lane_ids))
                    : ones; /* an empty pile 0 moves nothing */
        for (int j = 0; j < 3; j++)
            pile0[k][j] = _mm_cvtsi32_si128(hs->onto_top[0][k][j]);
    }
    uint64_t n = 0, budget = spent < end ? end - spent : 0;
    size_t i = hs->top;
    for (;;) {
        int last_k = NOT_REACHED; /* the run's last reached row's */
        __m128i by0 = _mm_set_epi64x(0, (long long)by[0]), by1 = _mm_set_epi64x(0, (long long)by[1]),
                by2 = _mm_set_epi64x(0, (long long)by[2]);
        for (int k = start->h[0]; k >= 0; k--, i--) { /* a run: pile 0 at height k */
            uint8_t *row = rows + i * FOUNDATIONS;
            __m128i own = _mm_loadu_si128((const __m128i *)row), x = _mm_min_epu8(own, carry),
                    from_carry = carry_talon;
            carry = carry_talon = ones;
            if (_mm_movemask_epi8(_mm_cmpeq_epi8(x, ones)) == 0xFFFF) /* not reached */
                continue;
            _mm_storeu_si128((__m128i *)row, x);
            /* own's least byte: the least of byte pairs as 16-bit words (their high bytes 0), then the least word */
            unsigned least = (unsigned)_mm_cvtsi128_si32(_mm_minpos_epu16(_mm_min_epu8(own, _mm_srli_epi16(own, 8))))
                             & 0xFF;
            least = least < talon_len ? least : talon_len;
            __m128i t_of = _mm_min_epu8(_mm_min_epu8(x, from_carry),
                                        _mm_loadu_si128((const __m128i *)hs->talon_row[least]));
            if (hs->limit) { /* a restricted pass: entries beyond the schedule dropped */
                __m128i most = _mm_set1_epi8((char)hs->limit[left + k]);
                t_of = _mm_or_si128(t_of, _mm_andnot_si128(_mm_cmpeq_epi8(_mm_max_epu8(t_of, most), most), ones));
            }
            n += (uint64_t)(FOUNDATIONS - _mm_popcnt_u32((unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(t_of, ones))));
            if (n > budget || !watch_tick(watch)) {
                *positions = n;
                *fewest_left = left + last_k < fewest ? left + last_k : fewest;
                return 0;
            }
            last_k = k;
            __m128i v = _mm_min_epu8(_mm_shuffle_epi8(t_of, _mm_or_si128(by0, pile0[k][0])),
                                     _mm_shuffle_epi8(t_of, _mm_or_si128(by1, pile0[k][1])));
            if (lookups == 3)
                v = _mm_min_epu8(v, _mm_shuffle_epi8(t_of, _mm_or_si128(by2, pile0[k][2])));
            carry = _mm_or_si128(keep[k], _mm_shuffle_epi8(v, _mm_setzero_si128()));
            if (k) { /* (an empty pile 0 moves nothing) */
                unsigned v0 = (unsigned)_mm_cvtsi128_si32(v) & 0xFF;
                carry_talon = _mm_loadu_si128((const __m128i *)hs->talon_row[v0 < talon_len ? v0 : talon_len]);
            }
            uint8_t entries[8]; /* lane q: pile q's child entry (np <= LANE_PILES) */
            _mm_storel_epi64((__m128i *)entries, v);
            for (int q = 1; q < np; q++) {
                uint8_t *entry = row + at[q];
                unsigned e = *entry, got = entries[q];
                *entry = (uint8_t)(got < e ? got : e);
            }
        }
        fewest = left + last_k < fewest ? left + last_k : fewest;
        int last = next_run(start, np, h, &left);
        if (last == np) {
            *positions = n;
            *fewest_left = fewest;
            return 1;
        }
        for (int p = 1; p <= last; p++) {
            at[p] = hs->child_at[p][h[p]];
            for (int j = 0; j < 3; j++)
                by[j] = (by[j] & ~(0xFFull << 8 * p)) | (uint64_t)hs->onto_top[p][h[p]][j] << 8 * p;
        }
    }
}

static LANES_FUNCTION int heights_reach_lanes(const HeightsSearch *hs, uint64_t spent, uint64_t end,
                                              Watch *watch, uint64_t *positions, int *fewest_left, int lookups)
{
    switch (hs->start->npiles * 4 + lookups) { /* at most LANE_PILES piles (see heights_reach) */
#define LANES_OF(np)                                                                                          \
    case np * 4 + 2: return heights_reach_lanes_of(hs, spent, end, watch, positions, fewest_left, 2, np);  \
    case np * 4 + 3: return heights_reach_lanes_of(hs, spent, end, watch, positions, fewest_left, 3, np);
    LANES_OF(1) LANES_OF(2) LANES_OF(3) LANES_OF(4) LANES_OF(5) LANES_OF(6) LANES_OF(7)
#undef LANES_OF
    case LANE_PILES * 4 + 2:
        return heights_reach_lanes_of(hs, spent, end, watch, positions, fewest_left, 2, LANE_PILES);
    default: /* LANE_PILES * 4 + 3, the one case left: heights_reach asks for 2 or 3 lookups, 1..LANE_PILES piles */
        return heights_reach_lanes_of(hs, spent, end, watch, positions, fewest_left, 3, LANE_PILES);
    }
}
#endif

#if defined(SHUFFLE_LANES) && defined(__GNUC__) && !defined(_MSC_VER) && !defined(BLACKHOLE_NO_CUBE)
/* The pass again, in 256-bit lanes, several runs at a time (heights_reach_cube).
 * -DBLACKHOLE_NO_CUBE leaves it out, as on a CPU without AVX2, so that
 * scripts/check_compilers.py can hold the SSE4.1 pass against it. */
#define CUBE_LANES 1
#include <immintrin.h>
#define CUBE_FUNCTION __attribute__((target("avx2,ssse3,sse4.1,popcnt")))
#define CUBE_GROUP 4  /* runs a group takes: two per 256-bit vector, two vectors (6 or 8: no faster) */
#define CUBE_PILES 3  /* piles 1..CUBE_PILES: the cube whose diagonals give the groups */

static int cube_cpu; /* the CPU (and the system) has AVX2 as well (set once, when the module loads) */

/* Two 16-byte rows as one vector (a the low half) and back. */
static CUBE_FUNCTION ALWAYS_INLINE __m256i load_two(const uint8_t *a, const uint8_t *b)
{
    return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)a)),
                                   _mm_loadu_si128((const __m128i *)b), 1);
}

static CUBE_FUNCTION ALWAYS_INLINE void store_two(uint8_t *a, uint8_t *b, __m256i x)
{
    _mm_storeu_si128((__m128i *)a, _mm256_castsi256_si128(x));
    _mm_storeu_si128((__m128i *)b, _mm256_extracti128_si256(x, 1));
}

static int cpu_has_cube(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && cpu_has_lanes();
}

/* One group of CUBE_GROUP runs (`real` of them; the others are dummies).
 * run[r]: the first byte of the run's row with pile 0 empty (a dummy's: an
 * all-NOT_REACHED scratch area); hq[r][q]: its pile q's height; cb[r][q]:
 * the bytes from it down to its child run by pile q; L rows a run. Does
 * every row of the runs as heights_reach_lanes_of does a row (its entries,
 * talon turns, positions, pile 0's move into the next row), two runs to a
 * vector, then the moves of piles 1.. out of each run, a vector per two of
 * its rows (the lane and the foundations a move reads are the same for the
 * whole run). Returns the positions; last_k[r]: run r's lowest reached
 * pile-0 height (NOT_REACHED: none). */
static CUBE_FUNCTION ALWAYS_INLINE uint64_t cube_group(const HeightsSearch *hs, uint8_t *const run[CUBE_GROUP],
                                                       const uint8_t hq[CUBE_GROUP][NPILES], int real,
                                                       const __m256i c0[PILE_DEPTH + 1][3],
                                                       const __m128i cq[][PILE_DEPTH + 1][3],
                                                       const ptrdiff_t cb[][LANE_PILES], int L, int lookups, int np,
                                                       unsigned last_k[CUBE_GROUP], const __m128i *limit,
                                                       const uint8_t (*talon_kept)[MAX_TALON + 1][FOUNDATIONS],
                                                       const int left_of[CUBE_GROUP])
{
    const __m256i ones = _mm256_set1_epi8(-1);
    /* The fewest's bytes: talon_len at most (a row without entries reads talon_row[talon_len], none), the
     * other byte of each 16-bit lane kept for the shift: min(x, clamp) runs beside the shift, so the clamp
     * adds no latency to the row's chain (fewest, talon load, carry into the next row). */
    const __m256i clamp = _mm256_set1_epi16((short)(0xFF00 | hs->start->talon_len));
    __m256i carry[CUBE_GROUP / 2], t_pair[CUBE_GROUP / 2][PILE_DEPTH + 2];
    for (int g = 0; g < CUBE_GROUP / 2; g++)
        carry[g] = ones;
    uint64_t n = 0;
    for (int r = 0; r < CUBE_GROUP; r++)
        last_k[r] = NOT_REACHED;
    for (int k = L - 1; k >= 0; k--) {
        for (int g = 0; g < CUBE_GROUP / 2; g++) {
            uint8_t *a = run[2 * g] + FOUNDATIONS * k, *b = run[2 * g + 1] + FOUNDATIONS * k;
            __m256i x = _mm256_min_epu8(load_two(a, b), carry[g]);
            store_two(a, b, x);
            __m256i y = _mm256_min_epu8(_mm256_min_epu8(x, clamp), _mm256_srli_epi16(x, 8));
            unsigned la = (unsigned)_mm_cvtsi128_si32(_mm_minpos_epu16(_mm256_castsi256_si128(y))) & 0xFF;
            unsigned lb = (unsigned)_mm_cvtsi128_si32(_mm_minpos_epu16(_mm256_extracti128_si256(y, 1))) & 0xFF;
            __m256i t;
            if (limit) { /* a restricted pass: entries beyond the schedule dropped */
                /* Dropping (d(v) = v if v <= most, else NOT_REACHED) commutes with min: d(min(x, talon)) =
                 * min(d(x), d(talon)), and d(talon rows) is talon_kept's, so the drop of x runs beside the
                 * fewest and the talon load, off the chain; the entries are the same bytes. */
                __m256i most = load_two((const uint8_t *)(limit + left_of[2 * g] + k),
                                        (const uint8_t *)(limit + left_of[2 * g + 1] + k));
                __m256i kept = _mm256_or_si256(x, _mm256_andnot_si256(_mm256_cmpeq_epi8(_mm256_max_epu8(x, most), most), ones));
                t = _mm256_min_epu8(kept, load_two(talon_kept[left_of[2 * g] + k][la], talon_kept[left_of[2 * g + 1] + k][lb]));
            } else {
                t = _mm256_min_epu8(x, load_two(hs->talon_row[la], hs->talon_row[lb]));
            }
            unsigned m = ~(unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(t, ones));
            n += (uint64_t)_mm_popcnt_u32(m);
            last_k[2 * g] = (m & 0xFFFF) ? (unsigned)k : last_k[2 * g];
            last_k[2 * g + 1] = (m >> 16) ? (unsigned)k : last_k[2 * g + 1];
            t_pair[g][k] = t;
            if (k) {
                __m256i v = _mm256_min_epu8(_mm256_shuffle_epi8(t, c0[k][0]), _mm256_shuffle_epi8(t, c0[k][1]));
                if (lookups == 3)
                    v = _mm256_min_epu8(v, _mm256_shuffle_epi8(t, c0[k][2]));
                carry[g] = v;
            }
        }
    }
    for (int g = 0; g < CUBE_GROUP / 2; g++)
        t_pair[g][L] = ones;
    /* Moves of piles 1..: a run's child by pile q holds the same pile-0 heights, row for row. An odd L's
     * last vector takes the next run's first row too, with NOT_REACHED (t_pair[g][L]): no change there. */
    for (int r = 0; r < real; r++) {
        __m256i two[(PILE_DEPTH + 2) / 2]; /* rows 2i, 2i + 1 of run r */
        for (int i = 0; 2 * i < L; i++)
            two[i] = r & 1 ? _mm256_permute2x128_si256(t_pair[r >> 1][2 * i], t_pair[r >> 1][2 * i + 1], 0x31)
                           : _mm256_permute2x128_si256(t_pair[r >> 1][2 * i], t_pair[r >> 1][2 * i + 1], 0x20);
        for (int q = 1; q < np; q++) {
            int h = hq[r][q];
            if (!h)
                continue;
            __m256i s0 = _mm256_broadcastsi128_si256(cq[q][h][0]), s1 = _mm256_broadcastsi128_si256(cq[q][h][1]);
            __m256i s2 = lookups == 3 ? _mm256_broadcastsi128_si256(cq[q][h][2]) : ones;
            uint8_t *child = run[r] - cb[r][q];
            for (int i = 0; 2 * i < L; i++) {
                __m256i v = _mm256_min_epu8(_mm256_shuffle_epi8(two[i], s0), _mm256_shuffle_epi8(two[i], s1));
                if (lookups == 3)
                    v = _mm256_min_epu8(v, _mm256_shuffle_epi8(two[i], s2));
                __m256i *c = (__m256i *)(child + 2 * FOUNDATIONS * i);
                _mm256_storeu_si256(c, _mm256_min_epu8(_mm256_loadu_si256(c), v));
            }
        }
    }
    return n;
}

/* The pass (heights_reach_with's rows, entries, positions and fewest),
 * in another order and another layout of the rows (cube_pos). Each row's
 * entries are final once every parent row (one card more in one pile) is
 * done, and any order that does the parents first gives the same entries.
 * Here the cubes (piles 1..CUBE_PILES, the other piles fixed) go in falling
 * index order, as the odometer goes, and within a cube its runs (pile 0's
 * rows, the other piles fixed) go by diagonals, falling sums of the cube
 * piles' heights: a run's parents lie in cubes done before or on the
 * diagonal before. The runs of a diagonal are no parents of one another, so
 * CUBE_GROUP of them go together, their chains of pile-0 rows interleaved
 * in vector lanes (a row of a chain waits for a load, a least and a talon
 * load: latency, not work). The rows are laid out in that order (cube_pos:
 * a cube's runs by diagonals), so that the pass and the moves it writes
 * run through memory in order. A run's moves by piles 1.. go out as vectors
 * of two rows each, the same lane for the whole run (the move's card and
 * foundations are fixed there), where heights_reach_lanes_of stores a byte
 * a row and a pile. Runs whose rows nothing reached are left out. Only for
 * a whole pass (no budget to stop within: see heights_reach). */
static CUBE_FUNCTION ALWAYS_INLINE int heights_reach_cube_of(HeightsSearch *hs, Watch *watch,
                                                             uint64_t *positions, int *fewest_left, int L,
                                                             int lookups, int np, const __m128i *limit,
                                                             const uint8_t (*talon_kept)[MAX_TALON + 1][FOUNDATIONS])
{
    const Position *start = hs->start;
    const __m128i fill = _mm_set1_epi8(15); /* lane 15: never reached, in any row or talon_row */
    __m256i c0[PILE_DEPTH + 1][3];
    __m128i cq[LANE_PILES][PILE_DEPTH + 1][3];
    ptrdiff_t back[LANE_PILES];
    uint8_t *rows = hs->table->rows;
    for (int q = 0; q < np; q++) {
        back[q] = (ptrdiff_t)(hs->stride[q] * FOUNDATIONS);
        for (int k = 1; k <= start->h[q]; k++)
            for (int j = 0; j < 3; j++) {
                uint8_t c[16];
                _mm_storeu_si128((__m128i *)c, fill);
                c[start->rank[q][k - 1]] = hs->onto_top[q][k][j];
                cq[q][k][j] = _mm_loadu_si128((const __m128i *)c);
                if (q == 0)
                    c0[k][j] = _mm256_broadcastsi128_si256(cq[q][k][j]);
            }
    }
    /* The cube's runs by diagonals (place 0: every cube pile empty), and their children by piles 1..3. */
    int cube = np - 1 < CUBE_PILES ? np - 1 : CUBE_PILES;
    int H[4] = {0, 0, 0, 0};
    for (int q = 1; q <= cube; q++)
        H[q] = start->h[q];
    enum { MOST = (PILE_DEPTH + 1) * (PILE_DEPTH + 1) * (PILE_DEPTH + 1) };
    uint8_t of[MOST][4];
    int diagonal_end[3 * PILE_DEPTH + 2], places = 0;
    for (int s = 0; s <= H[1] + H[2] + H[3]; s++) {
        for (int h1 = 0; h1 <= H[1]; h1++)
            for (int h2 = 0; h2 <= H[2]; h2++) {
                int h3 = s - h1 - h2;
                if (h3 < 0 || h3 > H[3])
                    continue;
                hs->cube_pos[h1][h2][h3] = (uint16_t)places;
                of[places][1] = (uint8_t)h1;
                of[places][2] = (uint8_t)h2;
                of[places][3] = (uint8_t)h3;
                places++;
            }
        diagonal_end[s] = places;
    }
    ptrdiff_t child_back[MOST][4]; /* bytes from a run to its child by pile q (1..3) */
    for (int x = 0; x < places; x++)
        for (int q = 1; q <= 3; q++) {
            uint8_t c[4] = {0, of[x][1], of[x][2], of[x][3]};
            child_back[x][q] = 0;
            if (q <= cube && c[q]) {
                c[q]--;
                child_back[x][q] = (ptrdiff_t)(x - hs->cube_pos[c[1]][c[2]][c[3]]) * L * FOUNDATIONS;
            }
        }
    uint8_t dummy[FOUNDATIONS * (PILE_DEPTH + 2)]; /* a group's missing runs */
    memset(dummy, NOT_REACHED, sizeof dummy);
    int fewest = *fewest_left;
    uint8_t h[NPILES];
    memcpy(h, start->h, sizeof h);
    int outer_left = 0;
    size_t outer_index = 0;
    for (int p = cube + 1; p < np; p++) {
        outer_left += h[p];
        outer_index += h[p] * hs->stride[p];
    }
    /* live[c]: cube c (outer_index / cube_rows) may hold an entry: the
     * start's cube, or a child by an outer pile of a cube with a run that
     * kept an entry (last_k; a restricted pass drops some). Every entry of
     * the table is the start's or was written by such a run, here or in a
     * pass before on the same start (keep: that run still holds the entry,
     * or a smaller one, and this pass's schedule is looser, so it keeps one
     * again), so a cube not live holds none, and leaving it out changes
     * nothing but the loads (a restricted pass reaches few cubes). */
    enum { CUBES = (PILE_DEPTH + 1) * (PILE_DEPTH + 1) * (PILE_DEPTH + 1) * (PILE_DEPTH + 1) };
    _Static_assert(LANE_PILES - 1 - CUBE_PILES <= 4, "live[] holds the cubes of 4 outer piles at most");
    uint8_t live[CUBES];
    size_t cube_rows_n = (size_t)L * places, live_back[LANE_PILES];
    memset(live, 0, (hs->top + 1) / cube_rows_n);
    live[outer_index / cube_rows_n] = 1;
    for (int q = cube + 1; q < np; q++)
        live_back[q] = hs->stride[q] / cube_rows_n;
    uint64_t n = 0;
    uint8_t *run[CUBE_GROUP];
    uint8_t hq[CUBE_GROUP][NPILES];
    ptrdiff_t cb[CUBE_GROUP][LANE_PILES];
    unsigned last_k[CUBE_GROUP];
    int left_of[CUBE_GROUP];
    for (;;) {
        uint8_t *cube_rows = rows + outer_index * FOUNDATIONS;
        size_t cube_id = outer_index / cube_rows_n;
        int taken = 0;
        for (int s = live[cube_id] ? H[1] + H[2] + H[3] : -1; s >= 0; s--) {
            int in = 0, lowest = s ? diagonal_end[s - 1] : 0; /* in: the group's runs so far */
            for (int x = diagonal_end[s] - 1;; x--) {
                if (in == CUBE_GROUP || (x < lowest && in)) { /* a group's runs, all reached */
                    for (int r = in; r < CUBE_GROUP; r++) {
                        run[r] = dummy;
                        left_of[r] = 0;
                    }
                    n += cube_group(hs, run, (const uint8_t(*)[NPILES])hq, in, c0,
                                    (const __m128i(*)[PILE_DEPTH + 1][3])cq, (const ptrdiff_t(*)[LANE_PILES])cb, L,
                                    lookups, np, last_k, limit, talon_kept, left_of);
                    for (int r = 0; r < in; r++) {
                        if (left_of[r] + (int)last_k[r] < fewest)
                            fewest = left_of[r] + (int)last_k[r];
                        taken |= last_k[r] != NOT_REACHED;
                    }
                    if (!watch_ticks(watch, (uint32_t)(in * L))) {
                        *positions = n;
                        return 0;
                    }
                    in = 0;
                }
                if (x < lowest)
                    break;
                uint8_t *first = cube_rows + (size_t)x * L * FOUNDATIONS;
                __m128i all = _mm_loadu_si128((const __m128i *)first);
                for (int k = 1; k < L; k++)
                    all = _mm_and_si128(all, _mm_loadu_si128((const __m128i *)(first + FOUNDATIONS * k)));
                if (_mm_movemask_epi8(_mm_cmpeq_epi8(all, _mm_set1_epi8(-1))) == 0xFFFF)
                    continue;
                run[in] = first;
                memcpy(hq[in], h, sizeof h);
                for (int q = 1; q <= cube; q++) {
                    hq[in][q] = of[x][q];
                    cb[in][q] = child_back[x][q];
                }
                for (int q = cube + 1; q < np; q++)
                    cb[in][q] = back[q];
                left_of[in] = outer_left + of[x][1] + of[x][2] + of[x][3];
                in++;
            }
        }
        if (taken)
            for (int q = cube + 1; q < np; q++)
                if (h[q])
                    live[cube_id - live_back[q]] = 1;
        int p = cube + 1;
        for (; p < np; p++) { /* the outer piles' odometer, counting down */
            if (h[p]) {
                h[p]--;
                outer_left--;
                outer_index -= hs->stride[p];
                break;
            }
            h[p] = start->h[p];
            outer_left += h[p];
            outer_index += h[p] * hs->stride[p];
        }
        if (p == np)
            break;
    }
    *positions = n;
    *fewest_left = fewest;
    return 1;
}

static CUBE_FUNCTION int heights_reach_cube(HeightsSearch *hs, Watch *watch, uint64_t *positions,
                                            int *fewest_left)
{
    int np = hs->start->npiles, L = hs->start->h[0] + 1;
    const Position *start = hs->start;
    __m128i most[NPILES * PILE_DEPTH + 1], *limit = NULL;
    uint8_t talon_kept[NPILES * PILE_DEPTH + 1][MAX_TALON + 1][FOUNDATIONS]; /* [c][m]: talon_row[m] with the
                                                                             * entries beyond limit[c] dropped */
    if (hs->limit) {
        for (int c = 0; c <= start->left; c++) {
            most[c] = _mm_set1_epi8((char)hs->limit[c]);
            for (int m = start->t; m <= start->talon_len; m++)
                for (int f = 0; f < FOUNDATIONS; f++)
                    talon_kept[c][m][f] = hs->talon_row[m][f] > hs->limit[c] ? NOT_REACHED : hs->talon_row[m][f];
        }
        limit = most;
    }
    if (np == 7 && L == PILE_DEPTH + 1) { /* the Golf games' start */
        if (hs->onto_most <= 2) /* (all three games; the full pass's copy has limit a constant NULL: no tests) */
            return limit ? heights_reach_cube_of(hs, watch, positions, fewest_left, PILE_DEPTH + 1, 2, 7, limit,
                                                 (const uint8_t(*)[MAX_TALON + 1][FOUNDATIONS])talon_kept)
                         : heights_reach_cube_of(hs, watch, positions, fewest_left, PILE_DEPTH + 1, 2, 7, NULL, NULL);
        return heights_reach_cube_of(hs, watch, positions, fewest_left, PILE_DEPTH + 1, 3, 7, limit,
                                     (const uint8_t(*)[MAX_TALON + 1][FOUNDATIONS])talon_kept);
    }
    return heights_reach_cube_of(hs, watch, positions, fewest_left, L, 3, np, limit,
                                 (const uint8_t(*)[MAX_TALON + 1][FOUNDATIONS])talon_kept);
}

#endif

/* The rows in mixed-radix order (cube_pos), as heights_reach_lanes and
 * heights_reach_with walk them; heights_reach_cube lays out its own. */
static void lay_out_mixed_radix(HeightsSearch *hs)
{
    const Position *start = hs->start;
    int np = start->npiles;
    memset(hs->cube_pos, 0, sizeof hs->cube_pos);
    for (int h1 = 0; h1 <= (np > 1 ? start->h[1] : 0); h1++)
        for (int h2 = 0; h2 <= (np > 2 ? start->h[2] : 0); h2++)
            for (int h3 = 0; h3 <= (np > 3 ? start->h[3] : 0); h3++)
                hs->cube_pos[h1][h2][h3] = (uint16_t)((h1 * (np > 1 ? hs->stride[1] : 0) + h2 * (np > 2 ? hs->stride[2] : 0)
                                                       + h3 * (np > 3 ? hs->stride[3] : 0)) / hs->stride[1 < np ? 1 : 0]);
}

/* The pass: by heights_reach_cube where the CPU has AVX2 and the budget
 * surely holds the whole pass (where it may stop part-way, the row order
 * decides which fewest it reports, so the order of the passes below, the
 * mixed-radix one, is kept there); otherwise heights_reach_lanes or
 * heights_reach_with. They reach the same entries and count the same
 * positions; each lays out the rows it walks (cube_pos), through which
 * heights_line reads the table back. */
static int heights_reach(HeightsSearch *hs, uint64_t spent, uint64_t end, Watch *watch, uint64_t *positions,
                         int *fewest_left)
{
#ifdef CUBE_LANES
    if (cube_cpu && hs->start->npiles >= 2 && hs->start->npiles <= LANE_PILES
        && end - (spent < end ? spent : end) >= (uint64_t)(hs->top + 1) * (EMPTY_F + 1))
        return heights_reach_cube(hs, watch, positions, fewest_left);
#endif
    lay_out_mixed_radix(hs);
#ifdef SHUFFLE_LANES
    if (lanes_cpu && hs->start->npiles <= LANE_PILES)
        return heights_reach_lanes(hs, spent, end, watch, positions, fewest_left, hs->onto_most <= 2 ? 2 : 3);
#endif
    if (hs->onto_most <= 2)
        return heights_reach_with(hs, spent, end, watch, positions, fewest_left, 2);
    return heights_reach_with(hs, spent, end, watch, positions, fewest_left, 3);
}

/* Restricted passes: a first try for a win, before the full pass (Relaxed
 * Golf only: see restricted_slacks). The pass, over the positions whose
 * talon cards turned keep within a schedule: with c pile cards left, at most
 *     t0 + (talon_len - t0) (c0 - c) / c0 + slack
 * (c0, t0: the start's pile cards and talon cards turned), an entry beyond
 * it dropped from the row's entries before its moves are made (and before
 * they are counted). Soundness: every entry such a pass holds is the fewest
 * t of some legal line to that (h, f), one the full pass also follows (the
 * restricted pass makes the same moves from fewer entries), so a row 0 it
 * reaches is a real win, and heights_line reads a legal winning line back
 * from its table: each step back is a pile move whose card fits a
 * foundation the parent row holds at that t, or talon turns, always legal
 * (Solver.solve replays it as every solution). A failed try proves
 * nothing: the full pass then decides exactly as before (same verdict,
 * same most cards played). The schedule only grows as cards are played, so
 * a row's own entries (from its parents' kept entries, or the start's)
 * are never dropped, only its talon turns': a row is reached exactly when
 * it keeps an entry, and row 0 is reached exactly when fewest is 0. The
 * pass must run whole (the budget must hold it: heights_solve checks), so
 * that every implementation of the pass ends with the same table,
 * positions and line. Returns 1 on a win (the table holds it), else 0. */
static int heights_reach_restricted(HeightsSearch *hs, int slack, uint64_t spent, uint64_t end, Watch *watch,
                                    uint64_t *positions)
{
    const Position *start = hs->start;
    uint8_t limit[NPILES * PILE_DEPTH + 1];
    int c0 = start->left, t0 = start->t, fewest = start->left;
    for (int c = 0; c <= c0; c++) {
        int most = t0 + (start->talon_len - t0) * (c0 - c) / c0 + slack;
        limit[c] = (uint8_t)(most < NOT_REACHED - 1 ? most : NOT_REACHED - 1);
    }
    hs->limit = limit;
    int done = heights_reach(hs, spent, end, watch, positions, &fewest);
    hs->limit = NULL;
    return done && fewest == 0;
}

/* The restricted passes' slacks, in turn, before the full pass. Only
 * where the ranks wrap (Relaxed Golf: 928 of deals 1..1000 won): in Golf and
 * Dead King Golf most deals handed over are lost, and their failed tries
 * cost more than the wins save (deals 1..1000: 2% and 14% slower). Chosen on
 * Relaxed Golf deals 1..1000 among {2}, {3}, {4}, {1, 3}, {2, 4}, {2, 5},
 * {3, 6}, {2, 4, 7}, {1, 3, 5} and NEAR_WIN_WRAPPING 0, 2, 3, 4, 6 (the
 * first look's reach, FIRST_LOOK 300 to 2000 no better). */
static const int restricted_slacks[] = {2, 4};
#define RESTRICTED_TRIES ((int)(sizeof restricted_slacks / sizeof restricted_slacks[0]))

/* The heights search (see its block) on `start`, after the verdict search
 * spent `spent` nodes of `end` and its deepest line left `fewest_left` pile
 * cards. Counts one iteration per (h, f) reached (restricted passes' too).
 * With first_tries (the fast search), restricted passes first (see
 * heights_reach_restricted). Returns a SEARCH_ status. */
static int heights_solve(SolverObject *self, const Position *start, size_t rows, uint64_t spent, int fewest_left,
                         uint64_t end, Watch *watch, SolveResult *out, int first_tries)
{
    HeightsSearch hs;
    uint64_t positions;
    /* tried: a restricted pass failed, and left its table. The next pass
     * starts from it rather than from a cleared table: the entries it holds
     * are the fewest t of real lines (a subset of the next pass's: its
     * schedule is looser, or none), each at least what the next pass finds
     * for that (h, f), so the next pass's mins end on the very rows a
     * cleared table gives (same entries, positions, fewest and line), and
     * the memset is saved. Both passes lay the rows out alike: the budget
     * that let the restricted passes run holds a whole pass after them, so
     * heights_reach picks the same pass each time. */
    int talon_left = start->talon_len - start->t, tried = 0;
    if (first_tries && start->walk_rules && start->left
        && end - spent >= (uint64_t)(RESTRICTED_TRIES + 1) * rows * (EMPTY_F + 1)) {
        for (int k = 0; k < RESTRICTED_TRIES; k++, tried = 1) {
            if (!heights_start(&hs, &self->heights, start, rows, FOUNDATIONS, tried))
                return SEARCH_NO_MEMORY;
            self->heights.rows[hs.top * FOUNDATIONS + start->f] = (uint8_t)start->t;
            int won = heights_reach_restricted(&hs, restricted_slacks[k], spent, end, watch, &positions);
            if (watch->raised)
                return SEARCH_INTERRUPTED;
            spent += positions;
            if (won) {
                out->iterations = spent;
                out->outcome = OUTCOME_SOLVED;
                out->solution_len = heights_line(&hs, out->solution);
                out->cards_played = out->solution_len;
                return SEARCH_DONE;
            }
        }
    }
    if (!heights_start(&hs, &self->heights, start, rows, FOUNDATIONS, tried))
        return SEARCH_NO_MEMORY;
    self->heights.rows[hs.top * FOUNDATIONS + start->f] = (uint8_t)start->t;
    int done = heights_reach(&hs, spent, end, watch, &positions, &fewest_left);
    if (watch->raised)
        return SEARCH_INTERRUPTED;
    if (!done) {
        out->outcome = OUTCOME_INTRACTABLE;
        out->iterations = end;
        out->cards_played = start->left - fewest_left + talon_left;
        return SEARCH_DONE;
    }
    out->iterations = spent + positions;
    if (fewest_left == 0) {
        out->outcome = OUTCOME_SOLVED;
        out->solution_len = heights_line(&hs, out->solution);
        out->cards_played = out->solution_len;
    } else {
        out->outcome = OUTCOME_UNSOLVED;
        out->cards_played = start->left - fewest_left + talon_left;
    }
    return SEARCH_DONE;
}

/* below[f]: the most win_below of the pile moves out of the row at `row`
 * (heights h) that may be played onto foundation rank f (0: none), from the
 * rows they lead to. With SSE2 (every x86-64 has it) one vector max a pile
 * over onto_lanes; elsewhere (or with -DBLACKHOLE_PORTABLE_BITS) up to
 * three bytes a pile through onto_top (NONE_F takes the unused ones). An
 * empty pile reads its own row's byte, and moves nothing. */
static inline void moves_win_below(const HeightsSearch *hs, const uint8_t *row, const uint8_t *h,
                                   uint8_t below[FOUNDATIONS])
{
    int np = hs->start->npiles;
#ifdef SSE2_LANES
    __m128i most = _mm_setzero_si128();
    for (int q = 0; q < np; q++) {
        uint8_t win_below = (row - (hs->step[q] & -(size_t)(h[q] != 0)))[q];
        __m128i mask = _mm_loadu_si128((const __m128i *)hs->onto_lanes[q][h[q]]);
        most = _mm_max_epu8(most, _mm_and_si128(mask, _mm_set1_epi8((char)win_below)));
    }
    _mm_storeu_si128((__m128i *)below, most);
#else
    memset(below, 0, FOUNDATIONS);
    for (int q = 0; q < np; q++) {
        if (!h[q])
            continue;
        uint8_t win_below = (row - hs->step[q])[q];
        for (int k = 0; k < 3; k++) {
            uint8_t *f = &below[hs->onto_top[q][h[q]][k]];
            *f = win_below > *f ? win_below : *f;
        }
    }
#endif
}

/* Which positions under the start can be won, for the trap walks (the
 * difficulty block). One pass upwards over every row (each after the rows
 * its moves lead to) writes each row's byte for pile p (below its starting
 * height) as win_below: the position (h, the card pile p gave last on the
 * foundation) can be won exactly when fewer than win_below talon cards are
 * turned (0: never), and writes talon_below[i]: turning the talon wins from
 * row i exactly when fewer than talon_below[i] are turned. Both from the
 * rows below: a pile move onto f wins from t if t < the child's win_below
 * (talon dominance again: winnable with t turned is winnable with fewer);
 * turning card j wins if the position it leaves, (h, talon[j], j + 1),
 * wins by a pile move, or by turning again, so talon_below = 1 + the last
 * such j. Winning needs nothing of how a position was reached, so no pass
 * from the start goes first: the rows it would skip cost less here than
 * the pass (with the vector max, trap walks of the three Golf games, deals
 * 1..100: 1.2 to 1.9 times faster than passing down first and visiting only
 * the rows reached). */
static void heights_wins(const HeightsSearch *hs, uint8_t *talon_below)
{
    const Position *start = hs->start;
    HeightsTable *ht = hs->table;
    int np = start->npiles, everything = start->talon_len + 1;
    uint8_t h[NPILES] = {0};
    memset(ht->rows, everything, (size_t)np); /* row 0: the piles are empty, won */
    talon_below[0] = (uint8_t)everything;
    for (size_t i = 1; i <= hs->top; i++) {
        for (int p = 0;; p++) { /* the heights of row i */
            if (h[p] < start->h[p]) {
                h[p]++;
                break;
            }
            h[p] = 0;
        }
        uint8_t *row = ht->rows + i * ht->width, below[FOUNDATIONS];
        moves_win_below(hs, row, h, below);
        int talon = 0;
        for (int j = start->talon_len - 1; j >= start->t; j--)
            if (j + 1 < below[start->talon[j]]) {
                talon = j + 1;
                break;
            }
        talon_below[i] = (uint8_t)talon;
        for (int p = 0; p < np; p++)
            if (h[p] < start->h[p]) {
                int f = below[start->rank[p][h[p]]];
                row[p] = (uint8_t)(f > talon ? f : talon);
            }
    }
}

/* Whether s, a position under the start of heights_wins, can be won. */
static int heights_winnable(const HeightsSearch *hs, const uint8_t *talon_below, const Position *s)
{
    const HeightsTable *ht = hs->table;
    size_t i = 0;
    for (int p = 0; p < s->npiles; p++)
        i += s->h[p] * hs->stride[p];
    int below = talon_below[i];
    for (int q = 0; q < s->npiles; q++) {
        size_t child = i - hs->stride[q];
        if (s->h[q] && (s->fits[s->f] >> s->rank[q][s->h[q] - 1] & 1)) {
            int win_below = ht->rows[child * ht->width + q];
            below = win_below > below ? win_below : below;
        }
    }
    return s->left == 0 || s->t < below;
}

/* Returns a SEARCH_ status. The most-played search gets what the verdict
 * search left of max_iters (0: no limit); `iterations` counts the verdict
 * search only (and, where the heights search decides, the positions it
 * reached as well). cards_played counts pile cards and talon cards: for a win,
 * the winning line's moves; otherwise the most pile cards any line plays
 * plus every talon card left (see the most-cards-played search). */
static int fast_solve(SolverObject *self, const Position *start, uint64_t max_iters,
                      int want_most, Watch *watch, SolveResult *out)
{
    FastSearch fs;
    int talon_left = start->talon_len - start->t;
    uint64_t end = max_iters ? max_iters : UINT64_MAX;
    /* Where the heights search covers the layout, the verdict search only
     * gets a short first try (FIRST_LOOK): it wins the easy deals, and the
     * heights search decides the rest and finds the most cards played
     * in one pass (Golf deals 1..1000 on one idle core: 5.5 CPU-s, against
     * 12.7 for the verdict and most-played searches alone). */
    size_t rows = heights_rows(start);
    /* ... but only with a talon (without one, the walk test and the reach
     * bound refute a small position within a few nodes, where the pass
     * would visit up to 2^20 rows), and only where the budget left after
     * the first try surely holds the whole pass (rows x (EMPTY_F + 1)
     * positions at most): a smaller max_iters keeps the searches below, so
     * that no budget loses a verdict they would reach within it. */
    int hand_over = rows && start->talon_len && end >= HEIGHTS_PRELUDE
                    && end - HEIGHTS_PRELUDE >= (uint64_t)rows * (EMPTY_F + 1);
    self->max_search_nodes = 0;
    FastSearch back;
    Position reversed;
    FastSearch *const ways[2] = {&fs, &back};
    int nways = 1, decider;
    fast_search_start(&fs, start, &self->refuted, watch, 0);
    if (!hand_over && reversed_position(start, &reversed)) {
        fast_search_start(&back, &reversed, &self->bounds, watch, 0); /* free until the most-played search */
        nways = 2;
    }
    int found = hand_over ? restarted_search(ways, 1, FIRST_LOOK, start->walk_rules ? NEAR_WIN_WRAPPING : NEAR_WIN,
                                             HEIGHTS_PRELUDE, &decider)
                          : restarted_search(ways, nways, end, 0, end, &decider);
    if (watch->raised)
        return SEARCH_INTERRUPTED;
    out->iterations = fs.nodes + (nways > 1 ? back.nodes : 0);
    if (found == GOAL_REACHED) {
        const FastSearch *won = ways[decider];
        out->outcome = OUTCOME_SOLVED;
        out->solution_len = won->won_len;
        for (int i = 0; i < won->won_len; i++)
            out->solution[i] = decider ? won->path[won->won_len - 1 - i] : won->path[i];
        out->cards_played = won->won_len;
        return SEARCH_DONE;
    }
    if (hand_over)
        return heights_solve(self, start, rows, fs.nodes, fs.fewest_left, end, watch, out, 1);
    if (found == GOAL_UNDECIDED) {
        out->outcome = OUTCOME_INTRACTABLE;
        out->cards_played = start->left - fs.fewest_left + talon_left; /* the best line found */
        return SEARCH_DONE;
    }
    out->outcome = OUTCOME_UNSOLVED;
    /* Refuted, so every line leaves a card: a line leaving one is the best. */
    int deepest = start->left - fs.fewest_left;
    out->cards_played = deepest >= start->left - 1 ? deepest + talon_left : PLAYED_UNKNOWN;
    if (!want_most || out->cards_played != PLAYED_UNKNOWN)
        return SEARCH_DONE;
    /* Can a line leave just one card? The same search, with the leave-one
     * test, in the other table (its refutations mean something else). With
     * a talon the verdict search goes deep (its dead-end tests are weaker):
     * when its deepest line left four cards or more, a line leaving one is
     * rare and the leave-one search would be a second full search, so
     * branch and bound goes first (Golf deals 1..100: 28% less time). */
    uint64_t spent = out->iterations;
    int cap = 1; /* every line from the start leaves this many cards */
    if (start->t == start->talon_len || deepest >= start->left - 3) {
        FastSearch one;
        fast_search_start(&one, start, &self->bounds, watch, 1);
        FastSearch *const leave_one[1] = {&one};
        found = restarted_search(leave_one, 1, end - spent, 0, end - spent, NULL);
        self->max_search_nodes = one.nodes;
        if (watch->raised)
            return SEARCH_INTERRUPTED;
        if (found == GOAL_UNDECIDED)
            return SEARCH_DONE;
        if (found == GOAL_REACHED) {
            out->cards_played = start->left - 1 + talon_left;
            return SEARCH_DONE;
        }
        cap = 2; /* no line leaves fewer than two cards */
        if (start->left - one.fewest_left > deepest)
            deepest = start->left - one.fewest_left;
        if (deepest >= start->left - 2) {
            out->cards_played = deepest + talon_left;
            return SEARCH_DONE;
        }
        spent += one.nodes;
    }
    MaxSearch ms;
    ms.pos = *start;
    ms.bounds = &self->bounds;
    ms.watch = watch;
    ms.nodes = 0;
    ms.stop_at = end - spent;
    ms.aborted = 0;
    ms.best = deepest;
    ms.cap = cap;
    self->bounds.use_values = 1;
    self->bounds.turned_bits = start->talon_len ? TURNED_BITS : 0;
    fact_table_new_generation(&self->bounds);
    ms.grow_at = fact_table_window_slots(&self->bounds);
    max_dfs(&ms, 0);
    self->max_search_nodes += ms.nodes;
    if (watch->raised)
        return SEARCH_INTERRUPTED;
    if (!ms.aborted)
        out->cards_played = ms.best + talon_left;
    return SEARCH_DONE;
}

PyDoc_STRVAR(solve_doc,
"solve(ranks, heights, foundation, search=0, max_iters=0, most_played=True, talon=b'', rules=None)\n"
"-> (outcome, iterations, cards_played, solution)\n\n"
"heights: one byte a pile (1..17 piles); ranks: rank 0..12 of pile p position i\n"
"at depth*p+i (0 = bottom), depth = len(ranks) / len(heights) <= 5; foundation:\n"
"rank 0..12, or 13 for an empty foundation. talon: ranks, the next to turn first.\n"
"rules: 14 little-endian 16-bit masks, the ranks that may be played on each\n"
"foundation rank (at most two; the last mask, for an empty foundation, all 13:\n"
"any card starts it); None: Black Hole's.\n"
"search: 0 fast, 1 classic (Black Hole's rules only), 2 the heights search alone\n"
"(the exhaustive search fast uses where piles are few and short, as in Golf).\n"
"max_iters: 0 (no limit) to 2^63-1 positions for the whole solve.\n"
"outcome: 0 solved, 1 unsolved, 2 intractable. cards_played: None when\n"
"unsolved and the most-cards-played search was skipped or ran out of budget.\n"
"solution: bytes, the pile of each move or 255 for a talon turn, in play order\n"
"(empty unless solved). Raises RuntimeError if this Solver is already solving\n"
"(in another thread, or a signal handler called it during its own solve), and\n"
"whatever a signal handler raises (KeyboardInterrupt).");

/* `rules` (None or 14 little-endian 16-bit masks) into fits; 0 with an exception set. */
static int parse_rules(PyObject *rules, uint16_t fits[NRANKS + 1])
{
    if (rules == NULL || rules == Py_None) {
        memcpy(fits, BLACK_HOLE_FITS, sizeof BLACK_HOLE_FITS);
        return 1;
    }
    char *bytes;
    Py_ssize_t len;
    if (PyBytes_AsStringAndSize(rules, &bytes, &len) < 0)
        return 0;
    if (len != 2 * (NRANKS + 1)) {
        PyErr_SetString(PyExc_ValueError, "rules must be 14 little-endian 16-bit rank masks");
        return 0;
    }
    for (int f = 0; f <= NRANKS; f++) {
        fits[f] = (uint16_t)((uint8_t)bytes[2 * f] | (uint8_t)bytes[2 * f + 1] << 8);
        if ((fits[f] & ~ALL_RANKS) || (f < NRANKS && bit_count(fits[f]) > 2)) {
            PyErr_SetString(PyExc_ValueError, "a rules mask names a rank beyond 12, or more than two ranks "
                                              "for a foundation card");
            return 0;
        }
    }
    if (fits[EMPTY_F] != ALL_RANKS) { /* move generation lets any card start the foundation */
        PyErr_SetString(PyExc_ValueError, "the last rules mask (an empty foundation) must take every rank");
        return 0;
    }
    return 1;
}

/* The shape shared by solve and play_line: piles from heights, depth from
 * the layout's length; at most 52 cards in piles and talon. */
static int parse_shape(Py_ssize_t layout_len, Py_ssize_t npiles, const uint8_t *h, Py_ssize_t talon_len,
                       int *depth)
{
    if (npiles < 1 || npiles > NPILES || layout_len % npiles || layout_len / npiles > PILE_DEPTH
        || talon_len > MAX_TALON) {
        PyErr_SetString(PyExc_ValueError,
                        "expected 1..17 heights, a layout of 1..5 entries a pile and a talon of at most 16");
        return 0;
    }
    *depth = (int)(layout_len / npiles);
    Py_ssize_t cards = talon_len;
    for (Py_ssize_t p = 0; p < npiles; p++) {
        if (h[p] > *depth) {
            PyErr_SetString(PyExc_ValueError, "height out of range");
            return 0;
        }
        cards += h[p];
    }
    if (cards > MAX_LINE) {
        PyErr_SetString(PyExc_ValueError, "more than 52 cards in piles and talon");
        return 0;
    }
    return 1;
}

/* max_iters as a budget: 0 (no limit) .. INT64_MAX, never wrapped around. */
static int parse_max_iters(PyObject *value, uint64_t *max_iters)
{
    int overflow;
    long long n = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (n == -1 && PyErr_Occurred())
        return 0;
    if (overflow || n < 0) {
        PyErr_SetString(PyExc_ValueError, "max_iters must be between 0 (no limit) and 2^63-1");
        return 0;
    }
    *max_iters = (uint64_t)n;
    return 1;
}

/* A position from solver input (as `solve` takes it), checked; 0 with an
 * exception set. `depth` gets the layout's cards per pile. */
static int position_from_input(Position *s, const Py_buffer *ranks, const Py_buffer *heights, int foundation,
                               const Py_buffer *talon, PyObject *rules, int *depth)
{
    uint16_t fits[NRANKS + 1];
    const uint8_t *r = ranks->buf, *h = heights->buf, *tal = talon->buf;
    Py_ssize_t talon_len = talon->buf ? talon->len : 0;
    if (!parse_rules(rules, fits) || !parse_shape(ranks->len, heights->len, h, talon_len, depth))
        return 0;
    if (foundation < 0 || foundation > EMPTY_F) {
        PyErr_SetString(PyExc_ValueError, "foundation must be a rank 0..12, or 13 for empty");
        return 0;
    }
    for (Py_ssize_t i = 0; i < ranks->len; i++)
        if (r[i] >= NRANKS) { PyErr_SetString(PyExc_ValueError, "rank out of range"); return 0; }
    for (Py_ssize_t i = 0; i < talon_len; i++)
        if (tal[i] >= NRANKS) { PyErr_SetString(PyExc_ValueError, "talon rank out of range"); return 0; }
    if (!position_init(s, r, h, (int)heights->len, *depth, foundation, tal, (int)talon_len, fits)) {
        PyErr_SetString(PyExc_ValueError, "position too large for the canonical key");
        return 0;
    }
    return 1;
}

/* Give back the buffers a position's input was parsed from (the talon is optional: unset, buf is NULL). */
static void release_input(Py_buffer *ranks, Py_buffer *heights, Py_buffer *talon)
{
    PyBuffer_Release(ranks);
    PyBuffer_Release(heights);
    if (talon->buf)
        PyBuffer_Release(talon);
}

static PyObject *Solver_solve(SolverObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"ranks", "heights", "foundation", "search", "max_iters", "most_played",
                             "talon", "rules", NULL};
    Py_buffer ranks, heights, talon = {0};
    int foundation, search = SEARCH_FAST, most = 1, depth;
    PyObject *max_iters_arg = NULL, *rules = NULL;
    uint64_t max_iters = 0;
    if (!self->ready) {
        PyErr_SetString(PyExc_RuntimeError, "Solver.__init__ was not called");
        return NULL;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "y*y*i|iOpy*O", kwlist, &ranks, &heights,
                                     &foundation, &search, &max_iters_arg, &most, &talon, &rules))
        return NULL;
    PyObject *result = NULL;
    if (max_iters_arg && !parse_max_iters(max_iters_arg, &max_iters))
        goto done;
    Position start;
    if (!position_from_input(&start, &ranks, &heights, foundation, &talon, rules, &depth))
        goto done;
    if (search < SEARCH_FAST || search > SEARCH_HEIGHTS) {
        PyErr_SetString(PyExc_ValueError, "search must be 0 (fast), 1 (classic) or 2 (heights)");
        goto done;
    }
    size_t rows = heights_rows(&start);
    if (search == SEARCH_HEIGHTS && !rows) {
        PyErr_SetString(PyExc_ValueError, "the heights search covers layouts of at most 2^20 pile-height vectors");
        goto done;
    }
    if (search == SEARCH_CLASSIC && (!start.walk_rules || start.talon_len || foundation == EMPTY_F || depth > 3)) {
        PyErr_SetString(PyExc_ValueError, "the classic search plays Black Hole's rules only "
                                          "(piles of at most 3, no talon, a foundation card)");
        goto done;
    }
    /* The GIL makes this test-and-set atomic: the tables are this search's
     * until it clears the flag, again with the GIL held. */
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError,
                        "this Solver is already solving (in another thread, or a signal handler called it during "
                        "its own solve): use one Solver per thread");
        goto done;
    }
    self->busy = 1;
    SolveResult out;
    memset(&out, 0, sizeof out);
    Watch watch = {NULL, CHECK_INTERVAL, 0};
    int status;
    watch.thread = PyEval_SaveThread();
    if (search == SEARCH_CLASSIC) {
        status = classic_solve(&self->classic, &start, max_iters, &watch, &out);
        classic_shrink(&self->classic);
    } else if (search == SEARCH_HEIGHTS) {
        status = heights_solve(self, &start, rows, 0, start.left, max_iters ? max_iters : UINT64_MAX, &watch, &out, 0);
    } else {
        status = fast_solve(self, &start, max_iters, most, &watch, &out);
    }
    PyEval_RestoreThread(watch.thread);
    self->busy = 0;
    if (status == SEARCH_NO_MEMORY) {
        PyErr_NoMemory();
        goto done;
    }
    if (status == SEARCH_INTERRUPTED)
        goto done; /* the signal handler's exception is set */
    PyObject *played = out.cards_played == PLAYED_UNKNOWN ? Py_NewRef(Py_None)
                                                          : PyLong_FromLong(out.cards_played);
    if (!played)
        goto done;
    result = Py_BuildValue("iKNy#", out.outcome, (unsigned long long)out.iterations, played,
                           (const char *)out.solution,
                           (Py_ssize_t)(out.outcome == OUTCOME_SOLVED ? out.solution_len : 0));
done:
    release_input(&ranks, &heights, &talon);
    return result;
}

static PyObject *Solver_memory_bytes(SolverObject *self, void *closure)
{
    (void)closure;
    if (!self->ready)
        return PyLong_FromLong(0);
    size_t bytes = fact_table_bytes(&self->refuted) + fact_table_bytes(&self->bounds)
                   + self->heights.bytes
                   + self->classic.capacity * sizeof(uint64_t)
                   + self->classic.stack_capacity * sizeof(uint64_t);
    return PyLong_FromSize_t(bytes);
}

static PyObject *Solver_most_played_nodes(SolverObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromUnsignedLongLong(self->max_search_nodes);
}

static PyObject *Solver_busy(SolverObject *self, void *closure)
{
    (void)closure;
    return PyBool_FromLong(self->busy);
}

/* ======================================================================
 * Difficulty: how hard a winnable position is for a person.
 *
 * Everything of the difficulty score lives in this block. It builds on the
 * search (Position, play and unplay, the canonical key, fast_dfs in the
 * Solver's table of refuted positions) and changes none of it:
 *
 *   - trap_walks, the score's measurements (see its comment);
 *   - plan, the bounded planners that validate the score: depth-first with
 *     undo, moves tried in a fixed natural order, optionally remembering the
 *     positions refuted, giving up after `budget` positions. They use no
 *     dead-end test: a person sees a dead end when no card fits.
 *
 * Both read the game from the position (its rules and talon) and see the
 * moves a player sees (player_moves): every game of the family is scored
 * and validated by the same code.
 * ====================================================================== */

struct ValueMap {
    uint64_t *keys;   /* key + 1; 0 = empty */
    double *values;
    size_t capacity;  /* power of two */
    size_t used;
};

static int value_map_init(ValueMap *m, size_t capacity)
{
    m->keys = calloc(capacity, sizeof(uint64_t));
    m->values = malloc(capacity * sizeof(double));
    m->capacity = capacity;
    m->used = 0;
    return m->keys && m->values;
}

static void value_map_free(ValueMap *m)
{
    free(m->keys);
    free(m->values);
    m->keys = NULL;
    m->values = NULL;
}

/* The slot of key: where it is, or the empty slot where it goes. */
static size_t value_map_slot(const ValueMap *m, uint64_t key)
{
    size_t mask = m->capacity - 1, j = mix64(key) & mask;
    while (m->keys[j] && m->keys[j] != key + 1)
        j = (j + 1) & mask;
    return j;
}

/* Trap walks store -1 for a winnable position (see trap_verdict). */
static int value_map_says_winnable(const ValueMap *m, uint64_t key)
{
    size_t j = value_map_slot(m, key);
    return m->keys[j] && m->values[j] == -1.0;
}

static int value_map_put(ValueMap *m, uint64_t key, double value)
{
    if ((m->used + 1) * 2 > m->capacity) {
        ValueMap bigger;
        if (!value_map_init(&bigger, m->capacity * 2))
            return 0;
        for (size_t i = 0; i < m->capacity; i++)
            if (m->keys[i]) {
                size_t j = value_map_slot(&bigger, m->keys[i] - 1);
                bigger.keys[j] = m->keys[i];
                bigger.values[j] = m->values[i];
            }
        bigger.used = m->used;
        value_map_free(m);
        *m = bigger;
    }
    size_t j = value_map_slot(m, key);
    if (!m->keys[j])
        m->used++;
    m->keys[j] = key + 1;
    m->values[j] = value;
    return 1;
}

enum { PLAN_PILE_ORDER = 0, PLAN_REVERSE_ORDER = 1, PLAN_TALLEST_FIRST = 2 };

/* The moves a player sees, in `order`: the piles whose top card fits on the
 * foundation (left to right, right to left, or the tallest first, pile
 * order among equals), then turning the next talon card (if any is left). */
static int player_moves(const Position *s, int order, int moves[MAX_MOVES])
{
    int n = 0;
    uint32_t playable = playable_on(s, s->f);
    for (int i = 0; i < s->npiles; i++) {
        int p = order == PLAN_REVERSE_ORDER ? s->npiles - 1 - i : i;
        if (playable >> p & 1)
            moves[n++] = p;
    }
    if (order == PLAN_TALLEST_FIRST) /* stable */
        for (int i = 1; i < n; i++) {
            int p = moves[i], j = i;
            while (j > 0 && s->h[moves[j - 1]] < s->h[p]) {
                moves[j] = moves[j - 1];
                j--;
            }
            moves[j] = p;
        }
    if (s->t < s->talon_len)
        moves[n++] = TALON_MOVE;
    return n;
}

typedef struct {
    Position pos;
    ValueMap refuted; /* values unused */
    int order;
    int remember;
    uint64_t nodes;
    uint64_t budget;
    int out_of_memory;
} Planner;

/* 1 won, 0 refuted (or the budget ran out: nodes > budget). */
static int plan_dfs(Planner *pl)
{
    Position *s = &pl->pos;
    if (++pl->nodes > pl->budget)
        return 0;
    if (s->left == 0)
        return 1;
    uint64_t key = position_key(s);
    if (pl->remember && pl->refuted.keys[value_map_slot(&pl->refuted, key)])
        return 0;
    int moves[MAX_MOVES], n = player_moves(s, pl->order, moves);
    for (int i = 0; i < n; i++) {
        int move = moves[i], old_f = s->f;
        make_move(s, move);
        int won = plan_dfs(pl);
        unmake_move(s, move, old_f);
        if (won)
            return 1;
        if (pl->nodes > pl->budget || pl->out_of_memory)
            return 0;
    }
    if (pl->remember && !value_map_put(&pl->refuted, key, 0.0))
        pl->out_of_memory = 1;
    return 0;
}

PyDoc_STRVAR(plan_doc,
"plan(ranks, heights, foundation, budget, order, remember, talon=b'', rules=None)\n"
"-> (won, positions)\n\n"
"A bounded planner on solver input (as Solver.solve): depth-first with undo,\n"
"moves in `order` (0 piles left to right, 1 right to left, 2 tallest pile\n"
"first, then pile order; turning the talon after every pile move), remembering\n"
"refuted positions if `remember`; gives up after `budget` positions (won False,\n"
"positions budget + 1).");

static PyObject *py_plan(PyObject *self, PyObject *args, PyObject *kwds)
{
    (void)self;
    static char *kwlist[] = {"ranks", "heights", "foundation", "budget", "order", "remember", "talon", "rules",
                             NULL};
    Py_buffer ranks, heights, talon = {0};
    int foundation, depth;
    unsigned long long budget;
    PyObject *rules = NULL, *result = NULL;
    Planner pl;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "y*y*iKip|y*O", kwlist, &ranks, &heights, &foundation, &budget,
                                     &pl.order, &pl.remember, &talon, &rules))
        return NULL;
    if (!position_from_input(&pl.pos, &ranks, &heights, foundation, &talon, rules, &depth))
        goto done;
    if (pl.order < 0 || pl.order > PLAN_TALLEST_FIRST) {
        PyErr_SetString(PyExc_ValueError, "order must be 0, 1 or 2");
        goto done;
    }
    pl.budget = budget;
    pl.nodes = 0;
    pl.out_of_memory = 0;
    if (!value_map_init(&pl.refuted, 1u << 12)) {
        PyErr_NoMemory();
        goto done;
    }
    int won = plan_dfs(&pl);
    value_map_free(&pl.refuted);
    if (pl.out_of_memory)
        PyErr_NoMemory();
    else
        result = Py_BuildValue("NK", PyBool_FromLong(won), (unsigned long long)pl.nodes);
done:
    release_input(&ranks, &heights, &talon);
    return result;
}

/* Trap walks. A trap is a move that turns a winnable position into one
 * that cannot be won; its depth is how many more cards a player can play
 * after it (from the piles or the talon) before getting stuck (the best of
 * `probes` random continuations), so a deep trap lets a player go on for a
 * long time before the dead end shows. A walk starts from a winnable
 * position and plays, at each step, one of the moves that keep it winnable,
 * chosen uniformly by a seeded generator, to the end; it records every trap
 * it passes by (each distinct move whose position is lost, with its depth).
 * Moves are a player's: the piles whose card fits, then turning the talon.
 * Each move's verdict comes from the fast search (with restarts, as
 * fast_solve) and is memoised by canonical key for the walks of one call
 * (value: -1 winnable, else the depth). Deterministic for a position,
 * walks, probes and seed.
 *
 * Shortcuts, and why the walks stay bit-identical. The walks' output is
 * fixed by the verdicts (winnable or not) and by the order in which the
 * two generators are drawn from: the walk's one draw per step, and
 * trap_depth's draws, made the first time a lost position is met (its
 * depth is then memoised). So any change that keeps every verdict and
 * keeps trap_depth's draws and result leaves the walks unchanged:
 *   - a winning line the search found proves every position along it
 *     winnable: they are memoised as -1 (only ever -1: a lost position is
 *     memoised only by trap_verdict, with its depth, so no draw moves);
 *   - the search stops at a position memoised as winnable (a goal as good
 *     as an empty board: a line to it extends to a win). The search is
 *     exact either way, so only its effort changes, never its verdict;
 *   - the refutation table is kept for the whole call (refutations are
 *     facts about a position, whatever the root: fast_dfs stores one only
 *     when every move from it was refuted, never for an aborted run);
 *   - trap_depth simulates the same moves in the same order with lighter
 *     state (see there).
 * One caveat: the effort of each search changes, so a verdict that needed
 * more than max_iters positions before might not now, or the reverse (the
 * score is then None); the largest verdict search on deals 1..300 of each
 * of the five games took 0.8 million positions, a twelfth of MAX_ITERS. tests/test_difficulty.py checks the
 * walks against a plain Python recomputation of the definition. */

#define TRAP_UNKNOWN (-2)
#define MAX_TRAPS (MAX_LINE * MAX_MOVES) /* a walk passes at most this many moves */

typedef struct {
    SolverObject *solver;
    Watch *watch;
    uint64_t max_iters;  /* per verdict */
    ValueMap verdicts;
    int status;          /* a SEARCH_ status, or 1 for a position not decided within max_iters */
    int probes;          /* random continuations per trap */
    uint32_t rng;
    uint64_t nodes, grow_at; /* the fast search's count, over the whole call */
    const HeightsSearch *wins; /* where the heights search covers the layout: every verdict from its table */
    const uint8_t *talon_below;
} TrapWalks;

/* How far play goes on from a lost position: the most cards any of `probes`
 * uniformly random continuations plays (a lower bound of the exact most,
 * for a small fraction of its cost). A continuation sees a player's moves
 * as player_moves(PLAN_PILE_ORDER) lists them (the piles whose top card
 * fits, left to right, then the talon) and draws one per move from `rng`.
 * It keeps only what those moves depend on: the heights, the piles topped
 * by each rank (as play keeps `tops`), the foundation and the talon turned;
 * the k-th move is the k-th lowest pile bit, or the talon after them all.
 * Several times cheaper than make_move and player_moves, same draws. */
static int trap_depth(const Position *lost, int probes, uint32_t *rng)
{
    int best = 0;
    for (int k = 0; k < probes; k++) {
        uint8_t h[NPILES];
        uint32_t tops[NRANKS + 1];
        memcpy(h, lost->h, sizeof h);
        memcpy(tops, lost->tops, sizeof tops);
        int f = lost->f, t = lost->t, depth = 0;
        for (;; depth++) {
            uint32_t playable = 0;
            if (f == EMPTY_F) /* as playable_on: any top card */
                for (int r = 0; r < NRANKS; r++)
                    playable |= tops[r];
            else
                playable = tops[lost->fit_ranks[f][0]] | tops[lost->fit_ranks[f][1]];
            uint32_t piles = (uint32_t)bit_count(playable), n = piles + (t < lost->talon_len);
            if (!n)
                break;
            *rng = *rng * 1664525u + 1013904223u;
            uint32_t pick = (*rng >> 8) % n;
            if (pick == piles) {
                f = lost->talon[t++];
                continue;
            }
            for (; pick; pick--)
                playable &= playable - 1;
            int p = lowest_bit(playable), r = lost->rank[p][--h[p]];
            tops[r] &= ~(1u << p);
            if (h[p])
                tops[lost->rank[p][h[p] - 1]] |= 1u << p;
            f = r;
        }
        if (depth > best)
            best = depth;
    }
    return best;
}

/* -1 if `s` can be won, else its trap depth; TRAP_UNKNOWN on failure (status set). */
static double trap_verdict(TrapWalks *tw, const Position *s)
{
    uint64_t key = position_key(s);
    size_t j = value_map_slot(&tw->verdicts, key);
    if (tw->verdicts.keys[j])
        return tw->verdicts.values[j];
    if (tw->wins) {
        double verdict = heights_winnable(tw->wins, tw->talon_below, s) ? -1.0 : trap_depth(s, tw->probes, &tw->rng);
        if (!value_map_put(&tw->verdicts, key, verdict)) {
            tw->status = SEARCH_NO_MEMORY;
            return TRAP_UNKNOWN;
        }
        return verdict;
    }
    /* One depth-first run of the fast search, in the Solver's table of
     * refuted positions, kept for the whole call: refutations are facts,
     * so each verdict builds on the ones before. */
    FastSearch fs;
    fs.pos = *s;
    fs.refuted = &tw->solver->refuted;
    fs.watch = tw->watch;
    fs.nodes = tw->nodes;
    fs.grow_at = tw->grow_at;
    fs.noise = 0;
    fs.rng = 12345u;
    fs.fewest_left = s->left;
    fs.spare = 0;
    fs.spare_hint = 0;
    fs.won_len = 0;
    fs.winnable = &tw->verdicts;
    uint64_t stop = tw->nodes + tw->max_iters;
    FastSearch *const one_way[1] = {&fs};
    /* Restarts as in fast_solve, one way only: a trap's verdict never
     * needs the layout upside down, and its count is no `iterations`. */
    int found = restarted_search(one_way, 1, stop, 0, stop, NULL);
    tw->nodes = fs.nodes;
    tw->grow_at = fs.grow_at;
    if (found == GOAL_UNDECIDED) {
        tw->status = fs.watch->raised ? SEARCH_INTERRUPTED : 1;
        return TRAP_UNKNOWN;
    }
    if (found == GOAL_REACHED) {
        Position line = *s;
        for (int i = 0; i < fs.won_len; i++) {
            make_move(&line, fs.path[i]);
            if (!value_map_put(&tw->verdicts, position_key(&line), -1.0)) {
                tw->status = SEARCH_NO_MEMORY;
                return TRAP_UNKNOWN;
            }
        }
    }
    double verdict = found == GOAL_REACHED ? -1.0 : trap_depth(s, tw->probes, &tw->rng);
    if (!value_map_put(&tw->verdicts, key, verdict)) {
        tw->status = SEARCH_NO_MEMORY;
        return TRAP_UNKNOWN;
    }
    return verdict;
}

/* One walk from `start` (winnable); trap depths appended to `depths`. */
static void trap_walk(TrapWalks *tw, const Position *start, uint32_t *rng, uint8_t *depths, int *n_depths)
{
    Position s = *start;
    while (s.left && !tw->status) {
        int moves[MAX_MOVES], n = player_moves(&s, PLAN_PILE_ORDER, moves);
        int winning[MAX_MOVES], n_winning = 0;
        uint32_t seen_nodes[2] = {0, 0};
        for (int i = 0; i < n && !tw->status; i++) {
            int move = moves[i], old_f = s.f;
            if (move != TALON_MOVE) {
                int id = s.node[move][s.h[move]];
                if (seen_nodes[id >> 5] >> (id & 31) & 1)
                    continue; /* a pile equal to one tried: the same position */
                seen_nodes[id >> 5] |= 1u << (id & 31);
            }
            make_move(&s, move);
            double verdict = trap_verdict(tw, &s);
            unmake_move(&s, move, old_f);
            if (verdict == -1.0)
                winning[n_winning++] = move;
            else if (verdict >= 0 && *n_depths < MAX_TRAPS)
                depths[(*n_depths)++] = (uint8_t)verdict;
        }
        if (tw->status)
            return;
        if (!n_winning) { /* cannot happen from a winnable position */
            tw->status = 1;
            return;
        }
        *rng = *rng * 1664525u + 1013904223u;
        make_move(&s, winning[(*rng >> 8) % (uint32_t)n_winning]);
    }
}

PyDoc_STRVAR(trap_walks_doc,
"trap_walks(ranks, heights, foundation, walks, probes, seed, max_iters, talon=b'', rules=None)\n"
"-> list of bytes or None\n\n"
"From a winnable position (solver input as for solve), `walks` walks that only\n"
"ever play winning moves (uniformly, seeded), each as the bytes of the depths\n"
"of the traps it passed by (a trap: a move after which the position cannot be\n"
"won; its depth: the most cards the best of `probes` random continuations\n"
"plays after it, talon cards included). None if the position cannot be won or\n"
"a verdict needed more than max_iters positions.");

static PyObject *Solver_trap_walks(SolverObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"ranks", "heights", "foundation", "walks", "probes", "seed", "max_iters", "talon",
                             "rules", NULL};
    Position start;
    unsigned long long max_iters;
    int walks, probes, foundation, depth;
    unsigned int seed;
    Py_buffer ranks, heights, talon = {0};
    PyObject *rules = NULL;
    if (!self->ready) {
        PyErr_SetString(PyExc_RuntimeError, "Solver.__init__ was not called");
        return NULL;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "y*y*iiiIK|y*O", kwlist, &ranks, &heights, &foundation, &walks,
                                     &probes, &seed, &max_iters, &talon, &rules))
        return NULL;
    int ok = position_from_input(&start, &ranks, &heights, foundation, &talon, rules, &depth);
    release_input(&ranks, &heights, &talon);
    if (!ok)
        return NULL;
    if (!(walks >= 1 && walks <= 64 && probes >= 1 && probes <= 1024 && max_iters >= 1 && max_iters <= INT64_MAX)) {
        PyErr_SetString(PyExc_ValueError, "expected 1..64 walks, 1..1024 probes and max_iters 1..2^63-1");
        return NULL;
    }
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError,
                        "this Solver is already solving (in another thread, or a signal handler called it during "
                        "its own solve): use one Solver per thread");
        return NULL;
    }
    TrapWalks tw = {self, NULL, max_iters, {0}, 0, probes, seed ^ 0x9E3779B9u, 0, 0, NULL, NULL};
    fact_table_new_generation(&self->refuted);
    self->refuted.use_values = start.talon_len > 0; /* as in fast_solve */
    tw.grow_at = fact_table_window_slots(&self->refuted);
    if (!value_map_init(&tw.verdicts, 1u << 10))
        return PyErr_NoMemory();
    uint8_t *depths = malloc((size_t)walks * MAX_TRAPS);
    int *counts = calloc((size_t)walks, sizeof(int));
    if (!depths || !counts) {
        free(depths); free(counts); value_map_free(&tw.verdicts);
        return PyErr_NoMemory();
    }
    self->busy = 1;
    Watch watch = {NULL, CHECK_INTERVAL, 0};
    tw.watch = &watch;
    watch.thread = PyEval_SaveThread();
    /* Where the heights search covers the layout, heights_wins decides every
     * position the walks meet. */
    size_t rows = heights_rows(&start);
    HeightsSearch hs;
    uint8_t *talon_below = NULL;
    if (rows) {
        if (!(talon_below = malloc(rows)) || !heights_start(&hs, &self->heights, &start, rows, ((size_t)start.npiles + 7) / 8 * 8, 0))
            tw.status = SEARCH_NO_MEMORY;
        else {
            heights_wins(&hs, talon_below);
            tw.wins = &hs;
            tw.talon_below = talon_below;
        }
    }
    uint32_t rng = seed;
    if (!tw.status && trap_verdict(&tw, &start) != -1.0 && !tw.status)
        tw.status = 1; /* not winnable */
    for (int w = 0; w < walks && !tw.status; w++)
        trap_walk(&tw, &start, &rng, depths + (size_t)w * MAX_TRAPS, &counts[w]);
    PyEval_RestoreThread(watch.thread);
    self->busy = 0;
    PyObject *result = NULL;
    if (tw.status == SEARCH_NO_MEMORY)
        PyErr_NoMemory();
    else if (tw.status == 1)
        result = Py_NewRef(Py_None);
    else if (tw.status == SEARCH_DONE && (result = PyList_New(walks)))
        for (int w = 0; w < walks; w++) {
            PyObject *item = PyBytes_FromStringAndSize((const char *)depths + (size_t)w * MAX_TRAPS, counts[w]);
            if (!item) { Py_CLEAR(result); break; }
            PyList_SET_ITEM(result, w, item);
        }
    free(depths);
    free(counts);
    free(talon_below);
    value_map_free(&tw.verdicts);
    return result;
}

static PyMethodDef Solver_methods[] = {
    {"solve", (PyCFunction)(void (*)(void))Solver_solve, METH_VARARGS | METH_KEYWORDS, solve_doc},
    {"trap_walks", (PyCFunction)(void (*)(void))Solver_trap_walks, METH_VARARGS | METH_KEYWORDS, trap_walks_doc},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Solver_getset[] = {
    {"memory_bytes", (getter)Solver_memory_bytes, NULL, "bytes held by the solver's tables", NULL},
    {"most_played_nodes", (getter)Solver_most_played_nodes, NULL,
     "positions expanded by the last most-cards-played search", NULL},
    {"busy", (getter)Solver_busy, NULL, "True while a search runs (in any thread)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject SolverType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "blackhole_stats._core.Solver",
    .tp_basicsize = sizeof(SolverObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Solver(table_bits=22): exact Black Hole search with reusable tables.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Solver_init,
    .tp_dealloc = (destructor)Solver_dealloc,
    .tp_methods = Solver_methods,
    .tp_getset = Solver_getset,
};

/* ---------------------------------------------------------------------- */

/* The layout arguments shared by deal_ms and deal_mt: piles, depth, ace_last. */
static int parse_layout(int npiles, int depth)
{
    if (npiles < 1 || npiles > NPILES || depth < 1 || depth > PILE_DEPTH || npiles * depth > 52) {
        PyErr_SetString(PyExc_ValueError, "expected 1..17 piles of 1..5 cards, at most 52 in all");
        return 0;
    }
    return 1;
}

static PyObject *py_deal_ms(PyObject *self, PyObject *args)
{
    (void)self;
    unsigned long long seed;
    int npiles = 17, depth = 3, ace_last = 1;
    if (!PyArg_ParseTuple(args, "K|iip", &seed, &npiles, &depth, &ace_last) || !parse_layout(npiles, depth))
        return NULL;
    if (seed < 1 || seed >= (1ull << 33)) {
        PyErr_SetString(PyExc_ValueError, "ms seed must be in 1..2^33-1");
        return NULL;
    }
    int deck[52];
    unsigned char out[52];
    shuffle_ms(seed, deck);
    lay_out(deck, npiles, depth, ace_last, out);
    return PyBytes_FromStringAndSize((const char *)out, 52);
}

static PyObject *py_deal_mt(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer key;
    int npiles = 17, depth = 3, ace_last = 1;
    if (!PyArg_ParseTuple(args, "y*|iip", &key, &npiles, &depth, &ace_last))
        return NULL;
    if (!parse_layout(npiles, depth)) {
        PyBuffer_Release(&key);
        return NULL;
    }
    if (key.len == 0 || key.len % 4 != 0 || key.len > 4 * 1024) {
        PyBuffer_Release(&key);
        PyErr_SetString(PyExc_ValueError, "MT key must be 1..1024 little-endian 32-bit words");
        return NULL;
    }
    int len = (int)(key.len / 4);
    uint32_t words[1024];
    const unsigned char *b = key.buf;
    for (int i = 0; i < len; i++)
        words[i] = (uint32_t)b[4 * i] | (uint32_t)b[4 * i + 1] << 8 | (uint32_t)b[4 * i + 2] << 16
                   | (uint32_t)b[4 * i + 3] << 24;
    PyBuffer_Release(&key);
    int deck[52];
    unsigned char out[52];
    shuffle_mt(words, len, deck);
    lay_out(deck, npiles, depth, ace_last, out);
    return PyBytes_FromStringAndSize((const char *)out, 52);
}

/* ======================================================================
 * Replaying a line of play: the rules, once more, for checking solutions
 * ====================================================================== */

enum { LINE_WINS, LINE_NOT_IN_LAYOUT, LINE_NOT_ON_TOP, LINE_NO_CARD, LINE_DOES_NOT_FIT, LINE_LEAVES_CARDS,
       LINE_NOT_NEXT_IN_TALON, LINE_AFTER_WIN };
#define TALON_CARD 64 /* by_card: 64 + card id turns that card from the talon */

PyDoc_STRVAR(play_line_doc,
"play_line(layout, heights, foundation, line, by_card, talon=b'', rules=None)\n"
"-> (problem, step, piles, cards)\n\n"
"Play `line` from a position and say whether it is a win (the piles emptied).\n"
"layout: card ids (suit * 13 + rank), pile p position i at depth*p+i (0 = bottom),\n"
"depth = len(layout) / len(heights); heights: one byte a pile; foundation: a card\n"
"id, 52 for empty; talon: card ids, the next to turn first; rules: as Solver.solve.\n"
"line: the pile of each move (255: turn the talon), or (by_card) the card id of\n"
"each move, which must be on top of its pile (64 + id: that card turned from the\n"
"talon). problem: 0 a win, 1 a card not in the layout, 2 a card not on top of its\n"
"pile, 3 a pile (or talon) with no card, 4 a card that does not fit on the\n"
"foundation, 5 pile cards left over, 6 a card that is not the talon's next, 7 a\n"
"move after the piles are empty (the game is won then: no talon card is turned).\n"
"step: the 0-based move with the problem (len(line) for 0 and 5); piles and\n"
"cards: the moves played before it (pile 255 for talon turns).");

/* Independent of the search on purpose: it trusts no Position and reads card
 * ids, so a wrong pile, a card named out of order or a line that stops short
 * are all caught, whoever produced the line. */
static PyObject *py_play_line(PyObject *self, PyObject *args, PyObject *kwds)
{
    (void)self;
    static char *kwlist[] = {"layout", "heights", "foundation", "line", "by_card", "talon", "rules", NULL};
    Py_buffer layout, heights, line, talon = {0};
    int foundation, by_card, depth;
    PyObject *rules = NULL;
    uint16_t fits[NRANKS + 1];
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "y*y*iy*p|y*O", kwlist, &layout, &heights, &foundation, &line,
                                     &by_card, &talon, &rules))
        return NULL;
    PyObject *result = NULL;
    const uint8_t *cards_at = layout.buf, *moves = line.buf, *tal = talon.buf;
    Py_ssize_t talon_len = talon.buf ? talon.len : 0, t = 0;
    uint8_t h[NPILES];
    int8_t where[52]; /* card id -> its slot depth*p+i in the layout, -1 if absent */
    memset(where, -1, sizeof where);
    if (!parse_rules(rules, fits) || !parse_shape(layout.len, heights.len, heights.buf, talon_len, &depth))
        goto done;
    if (foundation < 0 || foundation > 52) {
        PyErr_SetString(PyExc_ValueError, "foundation must be a card id, or 52 for empty");
        goto done;
    }
    int npiles = (int)heights.len;
    memcpy(h, heights.buf, (size_t)npiles);
    for (int p = 0; p < npiles; p++) {
        for (int i = 0; i < h[p]; i++) {
            int card = cards_at[depth * p + i];
            if (card >= 52 || where[card] >= 0 || card == foundation) {
                PyErr_SetString(PyExc_ValueError, "a layout card id is out of range or repeated");
                goto done;
            }
            where[card] = (int8_t)(depth * p + i);
        }
    }
    for (Py_ssize_t i = 0; i < talon_len; i++) {
        if (tal[i] >= 52 || where[tal[i]] >= 0 || tal[i] == foundation) {
            PyErr_SetString(PyExc_ValueError, "a talon card id is out of range or repeated");
            goto done;
        }
        where[tal[i]] = 127; /* in the talon */
    }
    /* Each legal move puts a card on the foundation, so at most MAX_LINE moves are played. */
    uint8_t played_piles[MAX_LINE], played_cards[MAX_LINE];
    int problem = LINE_WINS, f = foundation == 52 ? EMPTY_F : foundation % NRANKS, left = 0;
    for (int p = 0; p < npiles; p++)
        left += h[p];
    Py_ssize_t step;
    for (step = 0; step < line.len; step++) {
        int p, card;
        if (left == 0) {
            problem = LINE_AFTER_WIN;
            break;
        }
        if (by_card && moves[step] >= TALON_CARD) {
            card = moves[step] - TALON_CARD;
            if (t == talon_len || card != tal[t]) {
                problem = LINE_NOT_NEXT_IN_TALON;
                break;
            }
            p = TALON_MOVE;
        } else if (by_card) {
            card = moves[step];
            if (card >= 52 || where[card] < 0 || where[card] == 127) {
                problem = LINE_NOT_IN_LAYOUT;
                break;
            }
            p = where[card] / depth;
            if (where[card] % depth != h[p] - 1) {
                problem = LINE_NOT_ON_TOP;
                break;
            }
        } else if (moves[step] == TALON_MOVE) {
            if (t == talon_len) {
                problem = LINE_NO_CARD;
                break;
            }
            p = TALON_MOVE;
            card = tal[t];
        } else {
            p = moves[step];
            if (p >= npiles || h[p] == 0) {
                problem = LINE_NO_CARD;
                break;
            }
            card = cards_at[depth * p + h[p] - 1];
        }
        if (p == TALON_MOVE) {
            t++; /* a talon card goes on whatever the foundation shows */
        } else {
            if (!(fits[f] >> (card % NRANKS) & 1)) {
                problem = LINE_DOES_NOT_FIT;
                break;
            }
            h[p]--;
            left--;
        }
        f = card % NRANKS;
        played_piles[step] = (uint8_t)p;
        played_cards[step] = (uint8_t)card;
    }
    if (problem == LINE_WINS && left)
        problem = LINE_LEAVES_CARDS;
    result = Py_BuildValue("iny#y#", problem, step, (const char *)played_piles, step,
                           (const char *)played_cards, step);
done:
    PyBuffer_Release(&line);
    release_input(&layout, &heights, &talon);
    return result;
}

static PyMethodDef core_methods[] = {
    {"deal_ms", py_deal_ms, METH_VARARGS,
     "deal_ms(seed, piles=17, depth=3, ace_last=True) -> 52 card ids: the piles' cards (pile p\n"
     "position i at depth*p+i), then the rest in dealing order (Microsoft LCG, seed 1..2^33-1)."},
    {"deal_mt", py_deal_mt, METH_VARARGS,
     "deal_mt(key, piles=17, depth=3, ace_last=True) -> 52 card ids as deal_ms (CPython MT19937\n"
     "seeded by init_by_array(key))."},
    {"play_line", (PyCFunction)(void (*)(void))py_play_line, METH_VARARGS | METH_KEYWORDS, play_line_doc},
    {"plan", (PyCFunction)(void (*)(void))py_plan, METH_VARARGS | METH_KEYWORDS, plan_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT, "_core", "Compiled dealing and search for blackhole_stats.", -1, core_methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__core(void)
{
    init_even_sign();
    init_black_hole_fits();
#ifdef SHUFFLE_LANES
    lanes_cpu = cpu_has_lanes();
#ifdef CUBE_LANES
    cube_cpu = cpu_has_cube();
#endif
#endif
    if (PyType_Ready(&SolverType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&core_module);
    if (!m)
        return NULL;
    Py_INCREF(&SolverType);
    if (PyModule_AddObject(m, "Solver", (PyObject *)&SolverType) < 0) {
        Py_DECREF(&SolverType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
