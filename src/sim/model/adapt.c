/*
 * sim/model/adapt.c - the controller that splits a fixed memory M between the
 * page cache and the zcache.
 *
 * The question, for every candidate split k (the zcache gets Z_k bytes,
 * the page cache P_k = (M - Z_k) / page pages), is what it would have cost
 * over the recent past: disk reads x disk latency, plus the CPU of the
 * zcache (a compression per page-cache eviction, a decompression per
 * zcache hit).  Wilson, Kaplan and Smaragdakis (1999) answered it from one
 * LRU histogram of reuse distances over resident and recently evicted
 * pages and an average compression ratio.  Here every page carries its own
 * cost, and the histogram is replaced by an exact count per candidate:
 *
 *  - One recency stack holds every page accessed lately, in both tiers or
 *    in neither (a ghost: key, no data), at most ghost_factor x M / page
 *    of them.  Each carries the bytes it would take in the zcache: its
 *    measured compressed size plus the object header when it was last
 *    compressed, 0 if it was rejected by the admission rule (then it can
 *    never hit) or is same-filled, and while unknown the running mean over
 *    the pages compressed, weighted by the share admitted.  What the
 *    allocator keeps besides the objects is measured per candidate and
 *    carried to the others ("what the allocator takes" below); it is
 *    taken off each candidate's bytes when the candidates are counted, so
 *    a new measurement applies to every page at once.
 *
 *  - With an LRU page cache of P pages, the page cache holds the top P of
 *    the stack; the zcache (LRU, fed by the page cache's evictions, its
 *    hits taken back out) holds the admitted pages below that, down to
 *    where their bytes reach Z.  So an access at depth d (d pages above
 *    it) hits the page cache of split k if d < P_k, else the zcache if the
 *    bytes of the pages between depth P_k and it, plus its own, are at
 *    most Z_k.  Depths and byte sums come from two Fenwick trees over
 *    access time (one counts pages, one sums bytes), and each candidate's
 *    page cache keeps its oldest page and its bytes as the stack moves
 *    (top_bytes), so an access costs O(log n) plus O(1) per candidate.  With raw
 *    pages (compressor none, accept 100%) the counts are exact: the test
 *    suite checks them against static replays of every split.
 *
 *    A reuse beyond the reach of every zcache is decided for all
 *    candidates at once, and counted once, as a new page is.
 *
 *  - At the end of each epoch (M / page / 8 accesses, at least 64) the
 *    counts join a history whose weight halves each time M's pages turn
 *    over (or decays by decay_percent per epoch), each candidate is
 *    priced, and the cheapest is taken if it beats the current split by
 *    more than 25 disk reads' worth and half a percent (chance), and that
 *    gain, over the time it is expected to last (the history's span, or
 *    as long as it has held if longer), pays for the move itself
 *    (move_cost: the hits the new split's zcache or page cache lacks at
 *    first, and the compressions of the pages a larger zcache takes).  A
 *    second history, all of the run without decay, decides when the
 *    recent one shows no such gain, and only where the recent one does
 *    not point the other way: a gain too small per epoch to tell (a
 *    workload that misses rarely) pays once it has held long enough,
 *    while a gain that comes and goes stays the recent history's alone.
 *    The model does not depend on the split in force, so moving cannot
 *    feed back into what it measures, apart from what the sizes are
 *    known from.
 *
 * Admission: with a share of 0 the zcache is off and evictions are not
 * put, so they cost no compression; one unknown page in probe_every (one
 * in 8 x probe_every once the recent history knows PROBE_TARGET sizes) is
 * compressed without being stored (zc_estimate_page()) so that the sizes,
 * and with them the value of a zcache, stay known: that is how the cache
 * comes back.  What is known is paid for: the probes cost at most
 * PROBE_BUDGET of the disk reads' cost, so where a compression costs much
 * against a read (a fast disk) fewer pages are probed, and a zcache that
 * does not pay costs at most that (and a run without disk reads, none).
 * A page known to be rejected is not compressed again until it is
 * written.
 *
 * Time slots: each access takes the next slot; when all 2 x capacity
 * slots are used, the live pages are renumbered in order and the trees
 * rebuilt (amortised O(1)).  The deepest page leaves when the stack is
 * full.  Pages are found through an open-addressing table, keyed as the
 * replay keys them: (file number, page), the file number standing for
 * (dev, ino) (files.h), so block pages and the pages of every inode are
 * distinct keys.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifdef ZC_DEBUG
#include <assert.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapt.h"
#include "base/fenwick.h"
#include "base/kv.h"
#include "base/lptab.h"
#include "common/files.h"

#define NIL 0xFFFFFFFFu
#define MAX_STEPS 100
#define DEFAULT_STEPS 20
#define DEFAULT_PUT_NS 5000.0 /* until measured */
#define DEFAULT_GET_NS 1000.0
#define OBJ_HDR 6           /* the cache's per-object header */
#define EPOCH_DIV 8         /* an epoch is M's pages / 8 accesses, */
#define MIN_EPOCH 64        /* at least this many */
#define MIN_GAIN_READS 25.0 /* a move needs this much gain, in disk reads */
#define PROBE_TARGET 256.0  /* sizes worth knowing in the recent history */
#define PROBE_BUDGET ZC__ADAPT_PROBE_BUDGET /* adapt.h */
#define HORIZON 1.0 /* turnovers of M in which the history's weight halves */
/* The overhead is measured on a full zcache (a shrinking cache's last few
 * objects say little) of at least this many objects.  It is what the
 * allocator achieves at that size: a small zsmalloc wastes most of its
 * frames on part-filled spans. */
#define MIN_DENSITY_OBJECTS 4

enum { G_UNKNOWN, G_STORED, G_SAME, G_REJECTED };

struct ghost {
    uint64_t page;
    uint32_t file;  /* the replay's file number (files.h) of (dev, ino) */
    uint32_t slot;  /* time slot, 1-based; the free list's link when free */
    uint32_t bytes; /* as counted in the byte tree */
    uint8_t state;
};

struct zc__adapt {
    zc_adapt_options o;
    size_t ps;
    unsigned ncand; /* steps + 1 */
    unsigned npc;   /* the candidates with a page cache (the first ones) */
    uint64_t pc[MAX_STEPS + 1], zc[MAX_STEPS + 1];
    unsigned cur; /* the candidate in force */
    double keep;  /* the history's weight kept per epoch */

    /* the stack */
    struct ghost *g;
    uint32_t cap, live, free_g, nused;
    uint32_t *table; /* ghost index + 1; 0 empty */
    uint64_t mask;
    uint32_t nslots, now, oldest; /* slots 1..nslots; next is now + 1 */
    uint32_t *owner;              /* slot -> ghost, NIL if none */
    struct zc__fenwick tree;      /* per slot: pages, and their bytes */
    int64_t total_bytes;
    /* each candidate's page cache in the stack: its oldest page (NIL
     * while the stack holds no more pages than it, or it has none), and
     * the bytes of its pages (top_bytes) */
    uint32_t edge[MAX_STEPS + 1];
    int64_t edge_bytes[MAX_STEPS + 1];

    /* what sizes look like */
    double known, admitted, admitted_bytes; /* decayed sums */
    /* what the allocator's own bytes take from each candidate's zcache */
    double ovh[MAX_STEPS + 1];   /* measured: arena bytes no object holds */
    bool measured[MAX_STEPS + 1];
    double room[MAX_STEPS + 1];  /* object bytes candidate k's zcache holds */
    double reach;                /* the largest room */
    double arc_bytes;            /* ARC: the boundary, the zcache's bytes */
    double comp_ns, comp_n; /* measured compressions */

    /* counts: this epoch's, folded into both histories at its end */
    double disk[MAX_STEPS + 1], comps[MAX_STEPS + 1], hits[MAX_STEPS + 1];
    /* the recent history, and the whole run's (no decay) */
    struct history {
        double keep; /* weight kept per epoch */
        double disk[MAX_STEPS + 1], comps[MAX_STEPS + 1], hits[MAX_STEPS + 1];
        double cost[MAX_STEPS + 1]; /* priced at the last decision */
        unsigned best;              /* the cheapest candidate */
        int side;       /* where it has shown a gain beyond chance: -1 a
                           smaller zcache, 1 a larger one, 0 none */
        uint64_t since; /* accesses when it started showing it */
    } h[2];
    /* this epoch's misses in the page cache, counted once for every
     * candidate from k on (k = 0: new pages, and pages beyond every
     * zcache's reach): reads, and compressions (of every candidate with a
     * zcache); settle() makes them disk[] and comps[] */
    double reads_from[MAX_STEPS + 2], comps_from[MAX_STEPS + 2];
    double tdisk[MAX_STEPS + 1], thits[MAX_STEPS + 1]; /* past epochs' */
    uint64_t accesses, epoch_end, unknown_evictions;
    uint64_t probe_gap;  /* with the zcache off, probe one unknown in this */
    double probe_credit; /* probes paid for (PROBE_BUDGET) not yet made */
    uint64_t disk_reads; /* the replay's, at the last decision */

    zc_adapt_epoch *log;
    size_t nlog, log_cap;
};

/* ---- the stack ---------------------------------------------------------- */

static uint64_t find_slot(const struct zc__adapt *a, uint32_t file,
                          uint64_t page, bool *found)
{
    uint64_t i = zc__page_hash(file, page) & a->mask;

    for (; a->table[i]; i = (i + 1) & a->mask) {
        const struct ghost *x = &a->g[a->table[i] - 1];
        if (x->page == page && x->file == file) {
            *found = true;
            return i;
        }
    }
    *found = false;
    return i;
}

/* The table's slots (ghost index + 1), for the one deletion rule. */
static bool tab_empty(const void *ctx, uint64_t j)
{
    return !((const struct zc__adapt *)ctx)->table[j];
}

static uint64_t tab_home(const void *ctx, uint64_t j)
{
    const struct zc__adapt *a = ctx;
    const struct ghost *g = &a->g[a->table[j] - 1];

    return zc__page_hash(g->file, g->page);
}

static void tab_move(void *ctx, uint64_t to, uint64_t from)
{
    struct zc__adapt *a = ctx;

    a->table[to] = a->table[from];
}

static void tab_clear(void *ctx, uint64_t i)
{
    ((struct zc__adapt *)ctx)->table[i] = 0;
}

static const struct zc__lp_ops tab_ops = {tab_empty, tab_home, tab_move,
                                          tab_clear};

static void table_delete(struct zc__adapt *a, uint64_t i)
{
    zc__lp_delete(a, a->mask, i, &tab_ops);
}

static void tree_add(struct zc__adapt *a, uint32_t s, int32_t c, int64_t b)
{
    zc__fw_add(&a->tree, s, c, b);
    a->total_bytes += b;
}

/*
 * The bytes of candidate k's page cache: the top pc[k] pages of the stack
 * (all of them while the stack holds no more).  Kept as each access moves
 * the stack (edges_*), rather than found by a descent per candidate: the
 * oldest page of each page cache, its edge (NIL while the stack holds no
 * more pages than it), moves only towards newer slots (a page enters at
 * the top, the edge leaves), one live slot at a time, so keeping all of
 * them costs O(1) per candidate and access (amortised over the holes a
 * move leaves).  Candidates are in order of page cache, largest first
 * (npc of them have one).
 */
static int64_t top_bytes(const struct zc__adapt *a, unsigned k)
{
#ifdef ZC_DEBUG
    /* (Debug builds, the sanitizer's among them: the same by a descent) */
    uint64_t n = a->pc[k];
    assert(a->edge_bytes[k] ==
           (n >= a->live ? a->total_bytes
            : n == 0     ? 0
                         : a->total_bytes -
                               zc__fw_weight_within(&a->tree,
                                                    (int64_t)(a->live - n))));
    assert((a->edge[k] == NIL) == (n >= a->live || n == 0));
#endif
    return a->edge_bytes[k];
}

/* The live page in the first slot after s (there is one: the newest). */
static uint32_t next_live(const struct zc__adapt *a, uint32_t s)
{
    while (a->owner[++s] == NIL)
        ;
    return a->owner[s];
}

/* Candidate k's edge leaves it for the next page up, as a page of `bytes`
 * enters it at the top. */
static void edge_up(struct zc__adapt *a, unsigned k, int64_t bytes)
{
    const struct ghost *e = &a->g[a->edge[k]];

    a->edge_bytes[k] += bytes - e->bytes;
    a->edge[k] = next_live(a, e->slot);
}

/* New ghost gi is at the top (the stack one larger). */
static void edges_push_new(struct zc__adapt *a, uint32_t gi)
{
    const int64_t bytes = a->g[gi].bytes;

    for (unsigned k = 0; k < a->npc; k++) {
        if (a->edge[k] != NIL) {
            edge_up(a, k, bytes);
        } else if (a->live > a->pc[k]) {
            /* the stack just outgrew it: the oldest page leaves it */
            uint32_t s = a->oldest;
            while (a->owner[s] == NIL)
                s++;
            a->edge_bytes[k] += bytes - a->g[a->owner[s]].bytes;
            a->edge[k] = next_live(a, s);
        } else {
            a->edge_bytes[k] += bytes;
        }
    }
}

/* Ghost gi, d pages deep before at slot `from`, is now at the top with
 * `bytes` (`was` before).  The page caches it enters from below
 * (d >= pc[k]) are the last ones, the candidates from k_in on; it was the
 * edge of those with pc[k] = d + 1 (while the stack is larger); the rest
 * held it already. */
static void edges_push(struct zc__adapt *a, uint32_t gi, uint64_t d,
                       unsigned k_in, uint32_t from, int64_t was)
{
    const int64_t bytes = a->g[gi].bytes;
    unsigned k = k_in < a->npc ? k_in : a->npc;

    for (unsigned j = k; j < a->npc; j++) {
#ifdef ZC_DEBUG
        assert(a->pc[j] <= d && a->edge[j] != NIL &&
               from < a->g[a->edge[j]].slot);
#endif
        edge_up(a, j, bytes);
    }
    /* its own edge moved up: the same pages, the next one oldest */
    for (; k > 0 && a->pc[k - 1] == d + 1 && a->edge[k - 1] != NIL; k--) {
#ifdef ZC_DEBUG
        assert(a->edge[k - 1] == gi);
#endif
        a->edge[k - 1] = next_live(a, from);
        a->edge_bytes[k - 1] += bytes - was;
    }
    /* it was in them already */
    if (bytes != was)
        while (k-- > 0)
            a->edge_bytes[k] += bytes - was;
}

/* Ghost gi, the oldest, is leaving the stack (still in its slot): it
 * leaves the page caches that hold every page (the one it is the edge of,
 * now down to its size, among them). */
static void edges_drop(struct zc__adapt *a, uint32_t gi)
{
    for (unsigned k = 0; k < a->npc; k++) {
        if (a->edge[k] == gi)
            a->edge[k] = NIL;
        else if (a->edge[k] != NIL)
            break; /* nor does any smaller one hold every page */
        a->edge_bytes[k] -= a->g[gi].bytes;
    }
}

/* Ghost gi's bytes change by delta: in the page caches that hold it, the
 * largest first. */
static void edges_resize(struct zc__adapt *a, uint32_t gi, int64_t delta)
{
    for (unsigned k = 0; k < a->npc; k++) {
        if (a->edge[k] != NIL && a->g[gi].slot < a->g[a->edge[k]].slot)
            break; /* below its edge, and every smaller one's */
        a->edge_bytes[k] += delta;
    }
}

/* All slots used: renumber the live pages 1..live in order, rebuild. */
static void compact(struct zc__adapt *a)
{
    uint32_t n = 0;

    for (uint32_t s = 1; s <= a->nslots; s++) {
        uint32_t gi = a->owner[s];
        if (gi == NIL)
            continue;
        a->owner[s] = NIL;
        a->owner[++n] = gi;
        a->g[gi].slot = n;
    }
    zc__fw_clear(&a->tree);
    for (uint32_t s = 1; s <= n; s++)
        zc__fw_set_raw(&a->tree, s, 1, a->g[a->owner[s]].bytes);
    zc__fw_build(&a->tree);
    a->now = n;
    a->oldest = 1;
}

/* Give ghost gi the newest slot. */
static void push_top(struct zc__adapt *a, uint32_t gi)
{
    if (a->now == a->nslots)
        compact(a);
    a->now++;
    a->owner[a->now] = gi;
    a->g[gi].slot = a->now;
    tree_add(a, a->now, 1, a->g[gi].bytes);
}

static void unslot(struct zc__adapt *a, uint32_t gi)
{
    struct ghost *x = &a->g[gi];

    tree_add(a, x->slot, -1, -(int64_t)x->bytes);
    a->owner[x->slot] = NIL;
}

/* The deepest page leaves the stack. */
static void drop_oldest(struct zc__adapt *a)
{
    uint32_t gi;
    bool f;

    while (a->owner[a->oldest] == NIL)
        a->oldest++;
    gi = a->owner[a->oldest];
    edges_drop(a, gi);
    unslot(a, gi);
    table_delete(a, find_slot(a, a->g[gi].file, a->g[gi].page, &f));
    a->g[gi].slot = a->free_g;
    a->free_g = gi;
    a->live--;
}

/* ---- sizes -------------------------------------------------------------- */

static double admit_share(const struct zc__adapt *a)
{
    return a->known > 0 ? a->admitted / a->known : 0.5;
}

/* The expected bytes of a page never compressed. */
static uint32_t unknown_bytes(const struct zc__adapt *a)
{
    double mean =
        a->admitted > 0 ? a->admitted_bytes / a->admitted : (double)a->ps / 4;
    return (uint32_t)(admit_share(a) * mean);
}

static double weight(const struct zc__adapt *a, const struct ghost *x)
{
    switch (x->state) {
    case G_STORED:
    case G_SAME: return 1;
    case G_REJECTED: return 0;
    default: return admit_share(a);
    }
}

static void set_bytes(struct zc__adapt *a, uint32_t gi, uint32_t bytes)
{
    struct ghost *x = &a->g[gi];

    tree_add(a, x->slot, 0, (int64_t)bytes - (int64_t)x->bytes);
    edges_resize(a, gi, (int64_t)bytes - (int64_t)x->bytes);
    x->bytes = bytes;
}

/* 0.5^x for x >= 0 (no libm): (1 - x ln2 / 2^20)^(2^20). */
static double half_power(double x)
{
    double y = 1 - x * 0.69314718055994531 / (1 << 20);

    for (int i = 0; i < 20; i++)
        y *= y;
    return y;
}

/* ---- what the allocator takes ------------------------------------------ */

/*
 * A zcache of Z bytes holds fewer object bytes than Z: the allocator keeps
 * headers, rounds objects up to its classes and leaves partly filled spans
 * or frames.  How much depends on the size: zsmalloc wastes up to a span
 * per class in use whatever the cache's size, so a small zsmalloc is
 * mostly waste (a 400 KiB one held objects of 13% of its bytes in a run
 * where the same trace's 5 MiB one held 91%), while rounding grows with
 * the objects.  One density measured at the split in force and applied to
 * every candidate kept the controller at the small split it had measured.
 *
 * So the overhead is measured per candidate, at the split in force when
 * its zcache is full, and carried to the others between two bounds, the
 * ones the allocators' costs lie between: towards larger candidates as
 * fixed bytes (the optimistic bound: per-class waste that does not grow),
 * towards smaller ones in proportion (the pessimistic one), and linearly
 * between two measured candidates.  An optimistic guess is tested when the
 * controller moves there and measures; a pessimistic one only ever costs
 * a smaller move.  Before any measurement the overhead is 0.
 */
static void set_rooms(struct zc__adapt *a)
{
    a->reach = 0;
    for (unsigned k = 0; k < a->ncand; k++) {
        int lo = -1, hi = -1;
        double z = (double)a->zc[k], o = 0;

        for (unsigned i = 0; i < a->ncand; i++)
            if (a->measured[i] && i <= k)
                lo = (int)i;
        for (unsigned i = a->ncand; i-- > k;)
            if (a->measured[i])
                hi = (int)i;
        if (lo >= 0 && hi >= 0 && lo != hi) {
            double z0 = (double)a->zc[lo], z1 = (double)a->zc[hi];
            o = a->ovh[lo] + (a->ovh[hi] - a->ovh[lo]) * (z - z0) / (z1 - z0);
        } else if (lo >= 0) {
            o = a->ovh[lo]; /* fixed, upwards */
        } else if (hi >= 0) {
            o = a->ovh[hi] * z / (double)a->zc[hi]; /* in proportion */
        }
        /* never below an eighth of the bytes (as a density of 8) */
        a->room[k] = z - o > z / 8 ? z - o : z / 8;
        if (a->room[k] > a->reach)
            a->reach = a->room[k];
    }
}

/* The split in force's overhead, from the cache's statistics, when its
 * zcache is full (at least 90% of it in use, MIN_DENSITY_OBJECTS objects):
 * the arena bytes no object holds, scaled to the whole capacity. */
static void measure_overhead(struct zc__adapt *a, const zc_stats *st)
{
    uint64_t objs = st->stored_pages - st->same_filled_pages -
                    st->raw_pages - st->shared_pages;
    double held = (double)st->compr_data_size + (double)objs * OBJ_HDR;
    double z = (double)a->zc[a->cur];

    if (!a->zc[a->cur] || objs < MIN_DENSITY_OBJECTS || !st->mem_used_total ||
        st->mem_used_total * 10 < st->capacity_bytes * 9 ||
        held > (double)st->mem_used_total)
        return;
    /* the free tenth (at most) is room, not overhead */
    a->ovh[a->cur] = z - held * z / (double)st->mem_used_total;
    a->measured[a->cur] = true;
    set_rooms(a);
}

/* Probe one in probe_every while the recent history knows fewer than
 * PROBE_TARGET sizes, one in 8 x probe_every after, while the probes are
 * paid for: each disk read since the last decision buys PROBE_BUDGET of
 * its cost in compressions at put_ns (at most an epoch's worth kept). */
static void pay_probes(struct zc__adapt *a, uint64_t disk_reads, double put_ns)
{
    double most;

    a->probe_gap = (uint64_t)a->o.probe_every *
                   (a->known < PROBE_TARGET ? 1 : 8);
    most = (double)a->o.epoch / (double)a->probe_gap + 1;
    if (put_ns > 0)
        a->probe_credit += (double)(disk_reads - a->disk_reads) *
                           PROBE_BUDGET * (double)a->o.disk_ns / put_ns;
    else
        a->probe_credit = most;
    a->probe_credit = a->probe_credit < most ? a->probe_credit : most;
    a->disk_reads = disk_reads;
}

/* ---- public (to the replay) --------------------------------------------- */

int zc__adapt_create(const zc_adapt_options *opt, size_t page_size,
                     struct zc__adapt **out)
{
    struct zc__adapt *a;
    uint64_t pages, cap, tsize = 2;

    *out = NULL;
    if (!opt || opt->steps > MAX_STEPS || opt->start_percent > 100 ||
        opt->controller > ZC_ADAPT_ARC ||
        opt->decay_percent > 100 || !page_size ||
        opt->memory_bytes / page_size >= (1u << 26))
        return -ZC_EINVAL;
    a = calloc(1, sizeof(*a));
    if (!a)
        return -ZC_ENOMEM;
    a->o = *opt;
    a->ps = page_size;
    if (!a->o.disk_ns)
        a->o.disk_ns = 100000;
    if (!a->o.steps)
        a->o.steps = DEFAULT_STEPS;

    if (!a->o.probe_every)
        a->o.probe_every = 16;
    if (!a->o.ghost_factor)
        a->o.ghost_factor = 16;
    if (a->o.controller == ZC_ADAPT_FIXED && !a->o.start_percent)
        a->o.start_percent = 20;
    pages = opt->memory_bytes / page_size;
    if (!a->o.epoch)
        a->o.epoch =
            pages / EPOCH_DIV < MIN_EPOCH ? MIN_EPOCH : pages / EPOCH_DIV;
    /* The history's weight halves every HORIZON turnovers of M's pages,
     * unless decay_percent says otherwise. */
    a->keep = a->o.decay_percent
                  ? a->o.decay_percent / 100.0
                  : half_power((double)a->o.epoch / ((double)pages * HORIZON));
    a->h[0].keep = a->keep;
    a->h[1].keep = 1;
    a->ncand = a->o.steps + 1;
    for (unsigned k = 0; k < a->ncand; k++) {
        a->zc[k] = opt->memory_bytes * k / a->o.steps / page_size * page_size;
        a->pc[k] = (opt->memory_bytes - a->zc[k]) / page_size;
        if (a->pc[k])
            a->npc = k + 1;
    }
    {
        /* the candidate nearest the starting share */
        double best = 1e300;
        for (unsigned k = 0; k < a->ncand; k++) {
            double d = 100.0 * k / a->o.steps - a->o.start_percent;
            d = d < 0 ? -d : d;
            if (d < best) {
                best = d;
                a->cur = k;
            }
        }
    }
    cap = pages * a->o.ghost_factor;
    if (cap < 1024)
        cap = 1024;
    if (cap > (1u << 30) / sizeof(struct ghost))
        cap = (1u << 30) / sizeof(struct ghost);
    a->cap = (uint32_t)cap;
    while (tsize < cap * 2)
        tsize *= 2;
    a->mask = tsize - 1;
    a->nslots = a->cap * 2;
    a->g = malloc(cap * sizeof(*a->g));
    a->table = calloc(tsize, sizeof(*a->table));
    a->owner = malloc((a->nslots + 1) * sizeof(*a->owner));
    if (!a->g || !a->table || !a->owner ||
        zc__fw_init(&a->tree, a->nslots, true)) {
        zc__adapt_destroy(a);
        return -ZC_ENOMEM;
    }
    memset(a->owner, 0xFF, (a->nslots + 1) * sizeof(*a->owner));
    for (unsigned k = 0; k <= MAX_STEPS; k++)
        a->edge[k] = NIL;
    a->free_g = NIL;
    a->oldest = 1;
    set_rooms(a); /* no overhead known yet */

    a->arc_bytes = (double)a->zc[a->cur];
    /* one probe before any disk read is paid for: the rest are bought */
    a->probe_gap = a->o.probe_every;
    a->probe_credit = 1;
    a->epoch_end = a->o.epoch;
    *out = a;
    return 0;
}

void zc__adapt_destroy(struct zc__adapt *a)
{
    if (!a)
        return;
    free(a->g);
    free(a->table);
    free(a->owner);
    zc__fw_free(&a->tree);
    free(a->log);
    free(a);
}

void zc__adapt_split(const struct zc__adapt *a, uint64_t *pc_pages,
                     uint64_t *zc_bytes)
{
    *pc_pages = a->pc[a->cur];
    *zc_bytes = a->zc[a->cur];
}

bool zc__adapt_epoch_over(const struct zc__adapt *a)
{
    return a->accesses >= a->epoch_end;
}

/* Would candidate k's zcache hold a page of `bytes` with above_bytes in
 * the stack above it?  If the bytes between its page cache and the page,
 * the page's own included, fit in it. */
static bool zc_holds(const struct zc__adapt *a, unsigned k, int64_t above_bytes,
                     uint32_t bytes)
{
    return a->zc[k] &&
           (double)(above_bytes - top_bytes(a, k) + bytes) <= a->room[k];
}

/* ARC: a ghost hit of the tier that would have served the read (the
 * candidates from k_in on missed in their page caches; deep: and in their
 * zcaches). */
static void arc_move(struct zc__adapt *a, unsigned k_in, bool deep,
                     int64_t above_bytes, const struct ghost *x, double w)
{
    double miss[3]; /* the disk reads of the split in force and its two
                       neighbours, 0 for a page-cache hit */

    for (unsigned i = 0; i < 3; i++) {
        unsigned j = a->cur + i - 1; /* (wraps to a large value at -1) */
        miss[i] = j < k_in || j >= a->ncand ? 0
                  : !deep && w > 0 && zc_holds(a, j, above_bytes, x->bytes)
                      ? 1 - w
                      : 1;
    }
    if (miss[1] > 0) {
        if (a->cur + 1 < a->ncand)
            a->arc_bytes += (miss[1] - miss[2]) * (double)a->ps;
        if (a->cur > 0)
            a->arc_bytes -= (miss[1] - miss[0]) * (double)a->ps;
    }
}

int zc__adapt_access(struct zc__adapt *a, uint32_t file, uint64_t page,
                     bool write)
{
    uint64_t ts;
    uint32_t gi;
    bool found;

    a->accesses++;
    ts = find_slot(a, file, page, &found);
    if (!found) {
        /* a read from disk for every candidate */
        a->reads_from[0] += !write;
        a->comps_from[0]++;
        if (a->live == a->cap) {
            drop_oldest(a);
            ts = find_slot(a, file, page, &found);
        }
        if (a->free_g != NIL) {
            gi = a->free_g;
            a->free_g = a->g[gi].slot;
        } else {
            gi = a->nused++;
        }
        a->g[gi].page = page;
        a->g[gi].file = file;
        a->g[gi].state = G_UNKNOWN;
        a->g[gi].bytes = unknown_bytes(a);
        a->table[ts] = gi + 1;
        a->live++;
        push_top(a, gi);
        edges_push_new(a, gi);
        return 0;
    }
    gi = a->table[ts] - 1;
    {
        struct ghost *x = &a->g[gi];
        int64_t below, below_bytes, above_bytes, was = x->bytes;
        uint64_t d;
        uint32_t from;
        unsigned k = a->ncand;
        double w = weight(a, x);
        /* A page known to be rejected is not compressed again unless it
         * is written. */
        double comp = !write && x->state == G_REJECTED ? 0 : 1;

        zc__fw_prefix(&a->tree, x->slot, &below, &below_bytes);
        d = a->live - (uint64_t)below; /* pages above it */
        above_bytes = a->total_bytes - below_bytes;
        /* Beyond the reach of every zcache?  The bytes between a split's
         * page cache and the page are at least those below the largest
         * page cache (share 0), and no zcache is larger than the last
         * candidate's: then it is a read for all. */
        bool deep =
            d >= a->pc[0] &&
            (double)(above_bytes - top_bytes(a, 0) + x->bytes) > a->reach;
        if (deep)
            k = 0;
        /* Candidates by page cache, smallest first, down to the first that
         * holds it (every larger one does too): each of those before it
         * misses in its page cache, and hits in its zcache if that holds
         * the page.  The misses are counted once, from k on (settle). */
        while (k > 0 && a->pc[k - 1] <= d) {
            k--;
            if (!write && w > 0 && zc_holds(a, k, above_bytes, x->bytes))
                a->hits[k] += w;
        }
        a->reads_from[k] += !write;
        a->comps_from[k] += comp;
        if (a->o.controller == ZC_ADAPT_ARC && !write)
            arc_move(a, k, deep, above_bytes, x, w);

        /* renumber first, if due, so that `from` stays comparable */
        if (a->now == a->nslots)
            compact(a);
        from = x->slot;
        unslot(a, gi);
        if (write) {
            x->state = G_UNKNOWN;
            x->bytes = unknown_bytes(a);
        }
        push_top(a, gi);
        edges_push(a, gi, d, k, from, was);
    }
    return 0;
}

enum zc__adapt_plan zc__adapt_plan(struct zc__adapt *a, uint32_t file,
                                   uint64_t page)
{
    bool found;
    uint64_t ts = find_slot(a, file, page, &found);
    uint8_t state = found ? a->g[a->table[ts] - 1].state : G_UNKNOWN;

    if (a->zc[a->cur])
        return state == G_REJECTED ? ZC__ADAPT_SKIP : ZC__ADAPT_PUT;
    if (state != G_UNKNOWN)
        return ZC__ADAPT_SKIP;
    if (a->unknown_evictions++ % a->probe_gap || a->probe_credit < 1)
        return ZC__ADAPT_SKIP;
    a->probe_credit--;
    return ZC__ADAPT_PROBE;
}

void zc__adapt_learn(struct zc__adapt *a, uint32_t file, uint64_t page,
                     int outcome, const zc_put_info *info)
{
    bool found;
    uint64_t ts;
    uint32_t gi, bytes = 0;
    uint8_t state;

    if (info->compressed) {
        a->comp_ns += (double)info->compress_ns;
        a->comp_n++;
    }
    if (info->same_filled) {
        state = G_SAME;
    } else if (!info->compressed) {
        return; /* nothing learnt (not compressed) */
    } else if (outcome == ZC_PUT_REJECT_POOR) {
        state = G_REJECTED;
    } else {
        state = G_STORED;
        /* object bytes (a raw page: its frame); the allocator's own
         * bytes are the candidates' (set_rooms) */
        bytes = info->raw ? (uint32_t)a->ps
                          : (uint32_t)(info->compressed + OBJ_HDR);
    }
    a->known++;
    if (state != G_REJECTED) {
        a->admitted++;
        a->admitted_bytes += bytes;
    }
    ts = find_slot(a, file, page, &found);
    if (!found)
        return;
    gi = a->table[ts] - 1;
    a->g[gi].state = state;
    set_bytes(a, gi, bytes);
}

/*
 * What moving from the split in force to candidate `to` costs once, in
 * read-equivalents (cost / disk latency).  The model prices `to` as if it
 * had always held what it would hold; after a move it holds what the old
 * split left it:
 *  - a smaller zcache throws away the objects that no longer fit, and each
 *    one that would have been hit is a disk read: the objects are the
 *    room lost over the mean object's bytes, the share hit is the zcache's
 *    hits per put in the history (a loop that fits loses every one, a
 *    scan none);
 *  - a larger one takes the pages from the page cache's end, each one
 *    compressed as it goes, and those the admission rule rejects are
 *    dropped: a disk read each that is read again, and at most as many as
 *    that end of the page cache served in the history (the reads the
 *    smaller page cache misses that the larger one hits).  It lacks the
 *    pages the old split had already let go to disk (in the stack, below
 *    the old zcache's pages, above the end of the new one's: none while
 *    the stack is shorter, so a cold cache lacks nothing).  They come back
 *    as the page cache evicts, from the top, in the time it takes to fill
 *    (its pages over the history's puts, in histories), and until then
 *    the reads that depth range saved in the history (the old split's
 *    less the new one's) are not saved below what has come back: each
 *    counts for as deep in the range as it lies.
 */
static double move_cost(const struct zc__adapt *a, const struct history *h,
                        unsigned to, double put_ns)
{
    const unsigned cur = a->cur;
    const double *disk = h->disk, *hits = h->hits, *comps = h->comps;
    double mean = a->admitted > 0 ? a->admitted_bytes / a->admitted
                                  : (double)a->ps / 4;
    double admit = admit_share(a);

    mean = mean > 64 ? mean : 64;
    if (to < cur) {
        double reuse = comps[cur] > 0 ? hits[cur] / comps[cur] : 0;
        return (a->room[cur] - a->room[to]) / mean * (reuse < 1 ? reuse : 1);
    }
    if (to > cur) {
        double pages = (double)(a->pc[cur] - a->pc[to]);
        double served = disk[to] + hits[to] - disk[cur] - hits[cur];
        /* the depths each zcache's pages reach down to */
        double per = admit * mean > 1 ? admit * mean : 1;
        double from = (double)a->pc[cur] + a->room[cur] / per;
        double till = (double)a->pc[to] + a->room[to] / per;
        double end = till < a->live ? till : a->live, lacks = end - from;
        double lost = 0;

        /* The reads saved in the range, each weighted by how deep in it
         * (0 at its top, 1 at its end): the candidates between the two
         * splits mark the depths, each saving the reads the one before
         * it missed.  Reads spread evenly over the range weigh a half,
         * a loop's (taken at the range's end first) nearly all. */
        if (lacks > 0 && comps[to] > 0) {
            for (unsigned k = cur + 1; k <= to; k++) {
                double d = (double)a->pc[k] + a->room[k] / per;
                double saved = disk[k - 1] - disk[k];
                d = d < end ? d : end;
                if (saved > 0 && d > from)
                    lost += saved * (d - from) / lacks;
            }
            lost *= lacks / comps[to]; /* over the time it takes to fill */
        }
        served = served < 0 ? 0 : served < pages ? served : pages;
        return pages * put_ns / (double)a->o.disk_ns + served * (1 - admit) +
               lost;
    }
    return 0;
}

/* Is candidate best's gain over the split in force beyond chance and
 * worth the move?  In read-equivalents over the history, the gain must
 * exceed MIN_GAIN_READS and half a percent of the current cost, plus what
 * the move itself costs, over the time the gain is expected to last: the
 * history's span, or as long as the gain has held if longer (a move
 * that takes long to fill pays once a phase has shown it lasts). */
static bool worth_moving(struct zc__adapt *a, struct history *h,
                         double put_ns)
{
    double gain = (h->cost[a->cur] - h->cost[h->best]) / (double)a->o.disk_ns;
    double need = h->cost[a->cur] / (double)a->o.disk_ns * 0.005;
    double held = 1;
    int side;

    if (need < MIN_GAIN_READS)
        need = MIN_GAIN_READS;
    side = gain <= need ? 0 : h->best > a->cur ? 1 : -1;
    if (side != h->side)
        h->since = a->accesses;
    h->side = side;
    if (h->keep < 1) {
        /* the accesses the history spans: a gain it has shown for longer
         * is expected to last as much longer, and pays a move back over
         * that time */
        double span = (double)a->o.epoch / (1 - h->keep);
        held = (double)(a->accesses - h->since) / span;
        held = held > 1 ? held : 1;
    }
    return (gain - need) * held > move_cost(a, h, h->best, put_ns);
}

/* Candidate k's reads and compressions this epoch: the misses in its page
 * cache (those counted from it or a candidate before it), the reads less
 * its zcache's hits. */
static double epoch_reads(const struct zc__adapt *a, unsigned k)
{
    double r = 0;

    for (unsigned j = 0; j <= k; j++)
        r += a->reads_from[j];
    return r - a->hits[k];
}

/* This epoch's counts into disk[] and comps[], and the run's. */
static void settle(struct zc__adapt *a)
{
    double reads = 0, comps = 0;

    for (unsigned k = 0; k < a->ncand; k++) {
        reads += a->reads_from[k];
        comps += a->comps_from[k];
        a->disk[k] = reads - a->hits[k];
        a->comps[k] = a->zc[k] ? comps : 0;
        a->tdisk[k] += a->disk[k];
        a->thits[k] += a->hits[k];
    }
    memset(a->reads_from, 0, sizeof(a->reads_from));
    memset(a->comps_from, 0, sizeof(a->comps_from));
}

/* This epoch's counts into history h, each candidate priced, the cheapest
 * found. */
static void fold(struct zc__adapt *a, struct history *h, double put_ns,
                 double get_ns)
{
    h->best = a->cur;
    for (unsigned k = 0; k < a->ncand; k++) {
        h->disk[k] = h->keep * h->disk[k] + a->disk[k];
        h->comps[k] = h->keep * h->comps[k] + a->comps[k];
        h->hits[k] = h->keep * h->hits[k] + a->hits[k];
        h->cost[k] = h->disk[k] * (double)a->o.disk_ns + h->comps[k] * put_ns +
                     h->hits[k] * get_ns;
    }
    for (unsigned k = 0; k < a->ncand; k++)
        if (h->cost[k] < h->cost[h->best])
            h->best = k;
}

void zc__adapt_prices(const zc_stats *st, double *put_ns, double *get_ns)
{
    uint64_t n = st->compressions + st->estimates;

    if (put_ns)
        *put_ns = n ? (double)(st->compress_ns + st->compress_ns_rejected +
                               st->compress_ns_estimates) /
                          (double)n
                    : DEFAULT_PUT_NS;
    *get_ns = st->succ_gets > 0 ? (double)st->decompress_ns / st->succ_gets
                                : DEFAULT_GET_NS;
}

int zc__adapt_decide(struct zc__adapt *a, const zc_stats *st,
                     const zc_replay_stats *rs)
{
    const double keep = a->keep;
    double put_ns, get_ns;
    unsigned best;
    zc_adapt_epoch *e;

    /* (a compression's: the mean of those learnt, which are the cache's) */
    zc__adapt_prices(st, NULL, &get_ns);
    put_ns = a->o.put_ns     ? (double)a->o.put_ns
             : a->comp_n > 0 ? a->comp_ns / a->comp_n
                             : DEFAULT_PUT_NS;
    if (a->o.get_ns)
        get_ns = (double)a->o.get_ns;
    pay_probes(a, rs->disk_reads < a->disk_reads ? a->disk_reads
                                                 : rs->disk_reads,
               put_ns);
    measure_overhead(a, st);
    settle(a);
    fold(a, &a->h[0], put_ns, get_ns);
    fold(a, &a->h[1], put_ns, get_ns);
    for (unsigned k = 0; k < a->ncand; k++)
        a->disk[k] = a->comps[k] = a->hits[k] = 0;
    a->known *= keep;
    a->admitted *= keep;
    a->admitted_bytes *= keep;
    best = a->h[0].best;
    if (a->o.controller == ZC_ADAPT_ARC) {
        double m = (double)a->o.memory_bytes;
        a->arc_bytes = a->arc_bytes < 0   ? 0
                       : a->arc_bytes > m ? m
                                          : a->arc_bytes;
        best = (unsigned)(a->arc_bytes / m * a->o.steps + 0.5);
    } else if (a->o.controller == ZC_ADAPT_FIXED) {
        best = a->cur;
    }

    if (a->nlog == a->log_cap) {
        size_t n = a->log_cap ? a->log_cap * 2 : 64;
        zc_adapt_epoch *t = realloc(a->log, n * sizeof(*t));
        if (!t)
            return -ZC_ENOMEM;
        a->log = t;
        a->log_cap = n;
    }
    e = &a->log[a->nlog++];
    e->accesses = a->accesses;
    e->pc_pages = a->pc[a->cur];
    e->zc_bytes = a->zc[a->cur];
    {
        /* Move only for a gain beyond chance: the recent history's, so
         * that a change of phase is followed; else the whole run's, where
         * the recent one holds too few events to say or too little gain
         * to pay for the move, but only where the recent one does not
         * price that candidate above the split in force: else the recent
         * history moves away, the long one moves back, and every move
         * pays its cost. */
        struct history *r = &a->h[0], *l = &a->h[1];
        if (a->o.controller != ZC_ADAPT_MODEL)
            a->cur = best;
        else if (worth_moving(a, r, put_ns))
            a->cur = r->best;
        else if (r->cost[l->best] <= r->cost[a->cur] &&
                 worth_moving(a, l, put_ns))
            a->cur = l->best;
    }
    e->next_pc_pages = a->pc[a->cur];
    e->next_zc_bytes = a->zc[a->cur];
    e->est_disk_reads = a->h[0].disk[a->cur];
    e->est_cost_ns = a->h[0].cost[a->cur];
    e->put_ns = put_ns;
    e->get_ns = get_ns;
    e->disk_reads = rs->disk_reads;
    e->zc_hits = rs->zc_hits;
    e->pc_hits = rs->pc_hits;
    a->epoch_end = a->accesses + a->o.epoch;
    return 0;
}

int zc__adapt_model(const struct zc__adapt *a, unsigned k, uint64_t *pc_pages,
                    uint64_t *zc_bytes, double *disk_reads, double *zc_hits)
{
    if (!a || k >= a->ncand)
        return -ZC_EINVAL;
    *pc_pages = a->pc[k];
    *zc_bytes = a->zc[k];
    /* the run's, this epoch's included */
    *disk_reads = a->tdisk[k] + epoch_reads(a, k);
    *zc_hits = a->thits[k] + a->hits[k];
    return 0;
}

size_t zc__adapt_log(const struct zc__adapt *a, const zc_adapt_epoch **out)
{
    *out = a ? a->log : NULL;
    return a ? a->nlog : 0;
}

/* ---- options ------------------------------------------------------------ */

/* A time: a number with ns, us, ms or s; a disk's also hdd / ssd / nvme. */
static int parse_time(const char *v, bool disk, uint64_t *ns)
{
    static const struct {
        const char *name;
        uint64_t ns;
    } named[] = {{"hdd", 8000000}, {"ssd", 100000}, {"nvme", 20000}};
    static const struct {
        const char *unit;
        double mult;
    } units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
    char *end;
    double x;

    for (size_t i = 0; disk && i < sizeof(named) / sizeof(named[0]); i++)
        if (!strcmp(v, named[i].name)) {
            *ns = named[i].ns;
            return 0;
        }
    x = strtod(v, &end);
    if (end == v || !(x >= 0) || x > 1e12)
        return -1;
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (!strcmp(end, units[i].unit)) {
            double t = x * units[i].mult;
            /* at most 10,000 s: no device or CPU price comes near it, and
             * the costs it multiplies stay exact in 64 bits */
            if (!(t <= 1e13))
                return -1;
            *ns = (uint64_t)t;
            return 0;
        }
    return -1;
}

static int parse_uint(const char *v, uint64_t max, uint64_t *out)
{
    char *end;
    unsigned long long x;

    if (*v < '0' || *v > '9')
        return -1;
    x = strtoull(v, &end, 10);
    if (*end || x > max)
        return -1;
    *out = x;
    return 0;
}

/* The keys of an --adapt spec, in order, with a line for help texts
 * (zc_adapt_key_name/doc()) and what a bad value should have been: the
 * one list that the parser's messages and the tools' help print.  The
 * defaults in the lines are the rules of zc_replay_adapt(). */
static const struct {
    const char *name, *doc, *want;
} akeys[] = {
    {"memory", "M, the memory split (the tools' --memory)", "bytes, e.g. 64M"},
    {"disk", "a disk read's cost (default ssd)",
     "a time above 0 up to 10000s, e.g. 100us, 8ms, or hdd, ssd, nvme"},
    {"put", "a compression's cost (default: measured as it runs)",
     "a time with ns, us, ms or s up to 10000s, e.g. 6us"},
    {"get", "a decompression's cost (default: measured)",
     "a time with ns, us, ms or s up to 10000s, e.g. 2us"},
    {"steps", "candidate shares 0, 100/steps, ..., 100% (default 20)",
     "1 to 100"},
    {"epoch", "accesses between decisions (default max(64, pages of M / 8))",
     "a positive count"},
    {"decay", "% of the history kept per epoch (default: its weight halves "
              "each time M's pages turn over)",
     "a percentage, 1 to 100"},
    {"probe", "with the zcache off, compress one unknown page in this many "
              "(default 16; 8 times as many once 256 sizes are known), while "
              "the probes cost at most 0.25% of the disk reads' cost",
     "a positive count"},
    {"start", "the zcache's % until the first decision (default 0)",
     "a percentage, 0 to 100, on a candidate split (a multiple of "
     "100/steps)"},
    {"ghosts", "the recency stack holds at most this many times M's pages, "
               "ghosts included (default 16)",
     "1 to 1024"},
    {"controller", "model (default): the model's cheapest split; fixed: "
                   "start% (default 20); arc: an ARC-style balancer",
     "model, fixed or arc"},
};
#define NAKEYS (sizeof(akeys) / sizeof(akeys[0]))

const char *zc_adapt_controller_name(unsigned c)
{
    static const char *const names[] = {"model", "fixed", "arc"};

    return c <= ZC_ADAPT_ARC ? names[c] : NULL;
}

const char *zc_adapt_key_name(size_t i)
{
    return i < NAKEYS ? akeys[i].name : NULL;
}

const char *zc_adapt_key_doc(size_t i)
{
    return i < NAKEYS ? akeys[i].doc : NULL;
}

/* One key=value of an options spec (base/kv.h reads the spec). */
static int adapt_item(void *ctx, char *item, char *v, char *err,
                      size_t errlen)
{
    zc_adapt_options *opt = ctx;
    uint64_t x = 0;
    int bad = 0;

    if (!strcmp(item, "memory")) {
        bad =
            zc_parse_size(v, &opt->memory_bytes) < 0 || !opt->memory_bytes;
    } else if (!strcmp(item, "disk")) {
        /* 0 would be the default (100us), not a free disk */
        bad = parse_time(v, true, &opt->disk_ns) || !opt->disk_ns;
    } else if (!strcmp(item, "put")) {
        bad = parse_time(v, false, &opt->put_ns);
    } else if (!strcmp(item, "get")) {
        bad = parse_time(v, false, &opt->get_ns);
    } else if (!strcmp(item, "steps")) {
        bad = parse_uint(v, MAX_STEPS, &x) || !x;
        opt->steps = (unsigned)x;
    } else if (!strcmp(item, "epoch")) {
        bad = parse_uint(v, UINT64_MAX, &opt->epoch) || !opt->epoch;
    } else if (!strcmp(item, "decay")) {
        bad = parse_uint(v, 100, &x) || !x;
        opt->decay_percent = (unsigned)x;
    } else if (!strcmp(item, "probe")) {
        bad = parse_uint(v, 1u << 30, &x) || !x;
        opt->probe_every = (unsigned)x;
    } else if (!strcmp(item, "start")) {
        bad = parse_uint(v, 100, &x);
        opt->start_percent = (unsigned)x;
    } else if (!strcmp(item, "ghosts")) {
        bad = parse_uint(v, 1024, &x) || !x;
        opt->ghost_factor = (unsigned)x;
    } else if (!strcmp(item, "controller")) {
        bad = 1;
        for (unsigned i = 0; zc_adapt_controller_name(i); i++)
            if (!strcmp(v, zc_adapt_controller_name(i))) {
                opt->controller = i;
                bad = 0;
            }
    } else {
        if (err) {
            size_t at;
            snprintf(err, errlen, "unknown key '%s' (", item);
            for (size_t i = 0; i < NAKEYS; i++) {
                at = strlen(err);
                if (at + 1 < errlen)
                    snprintf(err + at, errlen - at, "%s%s", i ? ", " : "",
                             akeys[i].name);
            }
            at = strlen(err);
            if (at + 1 < errlen)
                snprintf(err + at, errlen - at, ")");
        }
        return -ZC_EINVAL;
    }
    if (bad) {
        const char *want = "a valid value";
        for (size_t i = 0; i < NAKEYS; i++)
            if (!strcmp(item, akeys[i].name))
                want = akeys[i].want;
        if (err)
            snprintf(err, errlen, "%s=%s: want %s", item, v, want);
        return -ZC_EINVAL;
    }
    return 0;
}

int zc_adapt_options_parse(zc_adapt_options *opt, const char *spec, char *err,
                           size_t errlen)
{
    char dummy[1];
    unsigned steps;
    int rc;

    if (!err || !errlen) {
        err = dummy;
        errlen = sizeof(dummy);
    }
    err[0] = '\0';
    if (!opt || !spec)
        return -ZC_EINVAL;
    rc = zc__kv_each(spec, adapt_item, opt, err, errlen);
    steps = opt->steps ? opt->steps : DEFAULT_STEPS;
    if (!rc && opt->start_percent * steps % 100) {
        /* the candidates are every 100/steps %: one between two of them
         * would be rounded without a word */
        unsigned lo = opt->start_percent * steps / 100;
        snprintf(err, errlen,
                 "start=%u: not a candidate split; with steps=%u they are "
                 "%.4g%% apart (%.4g%% or %.4g%% here; steps=100 has "
                 "every 1%%)",
                 opt->start_percent, steps, 100.0 / steps, 100.0 * lo / steps,
                 100.0 * (lo + 1) / steps);
        rc = -ZC_EINVAL;
    }
    return rc;
}
