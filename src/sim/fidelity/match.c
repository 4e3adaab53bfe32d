/*
 * sim/fidelity/match.c - the eviction matcher (zc_fidelity_match(),
 * zcache_sim.h; the streaming form zc__match_*, fidelity.h): which of the
 * kernel's evictions a model also makes, at about the same point of its
 * own eviction order, the two orders aligned first.
 *
 * Why align: an eviction only one side makes (a page cached before the
 * recording, which the kernel reclaims first; a page one side read ahead
 * and the other did not) moves every later position of that side by one.
 * Compared position by position, a constant shift of more than the window
 * would make two identical orders look unrelated.  So the orders are
 * aligned by a common subsequence (evictions both make in the same order:
 * it skips what only one side evicts), and each kernel eviction is then
 * looked for within the window around its aligned point, in any order
 * there (the kernel reclaims in batches from lists that are not an exact
 * LRU, so the orders differ locally).
 *
 * The rule (W = the window, U = max(W, 16), S = 16 U, C = 32 U):
 *   1. The kernel's evictions are taken S at a time (a segment), the
 *      model's C at a time (the window of the model's order starting at
 *      lo = max(0, A - W), where A is the aligned point reached so far, 0
 *      at first).
 *   2. Alignment of a segment: Hunt and Szymanski's longest common
 *      subsequence over pairs of the same page whose model position is A
 *      or later (the order goes on from where it was aligned; each kernel
 *      eviction's candidates taken from the largest model position down;
 *      for each length k the chain ending at the least model position).
 *      A chain's jumps are the model evictions it skips beyond W at a
 *      time: for each pair, the model evictions between it and the pair
 *      before (A for the first) less W, if more.  Of the chains (and the
 *      empty one) the one with the most k - jumps is kept, the shorter on
 *      a tie: a chain may skip any number of evictions a few at a time
 *      (the model evicting more than the kernel), but one that jumps a
 *      whole turn of a loop ahead (a loop evicts the same pages every
 *      turn: such a chain is about as long as the right one) pays a pair
 *      for each eviction it jumps over.
 *   3. The aligned point a(i) of kernel eviction i: the model position of
 *      the chain's last pair at or before i, never less than A (and so
 *      never less than a(i - 1)).
 *   4. The first half of the segment (the whole of it once the kernel's
 *      evictions end) is decided in order: kernel eviction i matches the
 *      earliest model eviction of the same page in the window, not
 *      matched before, with a(i) - W <= j <= a(i) + W.  A becomes the last
 *      a(i); the next segment starts after the decided half, so every
 *      kernel eviction is decided with S/2 or more evictions after it
 *      seen.
 * Evictions only the kernel makes cost nothing but themselves, however
 * many (the window does not move while nothing matches); so do those only
 * the model makes, a few at a time, or in a run of g that more than g - W
 * common evictions after it (in the segment) pay for.  Two equal orders
 * match wholly; so does a model order that is the kernel's with evictions
 * of other pages added, W or fewer at a time.
 *
 * Memory is bounded by W, not by the number of evictions: the window (a
 * ring of C model evictions, each linked to the next eviction of its page,
 * with a table page -> first and last eviction in the window), the
 * segment (a ring of S kernel evictions), and the alignment's levels and
 * chain nodes (the nodes counted by references and freed when no level
 * or node leads to them; all of them dropped after each segment).  The
 * model's evictions are pushed one at a time (a replay's sink); the
 * kernel's are pulled when a segment needs them, so both streams are read
 * once, in step.  Time: per kernel eviction (aligned in two segments,
 * decided in one), a walk over the window's evictions of its page and a
 * binary search per distinct level they reach.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/lptab.h"
#include "fidelity.h"

#define NONE UINT64_MAX
#define NO_NODE UINT32_MAX
#define UNIT_MIN 16  /* U = max(W, 16): segments of some length */
#define SEG_UNITS 16 /* S = 16 U kernel evictions a segment */
#define WIN_UNITS 32 /* C = 32 U model evictions in the window */

/* A model eviction in the window: its page, the position of the next
 * eviction of the same page in the window (NONE: the last), whether a
 * kernel eviction matched it. */
struct mev {
    uint64_t ino, index, next;
    bool used;
};

/* A page of the window: its first and last eviction there (live when
 * head != NONE). */
struct pslot {
    uint64_t ino, index, head, tail;
};

/* A pair of the alignment (kernel i, model j), the pair before it in its
 * chain, and the chain's jumps up to it (rule 2). */
struct node {
    uint64_t i, j, jumps;
    uint32_t prev, refs;
};

/* A length of the alignment: the least model position a chain of that
 * length ends at, and the chain's last node. */
struct level {
    uint64_t j;
    uint32_t node;
};

/* A level a kernel eviction's candidate sets (x: the level's index). */
struct update {
    size_t x;
    uint64_t j;
    uint32_t prev;
};

struct pair {
    uint64_t i, j;
};

struct zc__match {
    uint64_t w, seg, win; /* W, S, C */
    zc__match_pull pull;
    void *ctx;
    bool kernel_done;
    /* the window: model positions [lo, hi) */
    struct mev *ring;
    uint64_t rmask, lo, hi;
    struct pslot *tab;
    uint64_t tmask;
    /* the segment: kernel positions [c, c + nk) */
    zc_fidelity_page *kq;
    uint64_t kmask, c;
    size_t nk;
    /* the alignment */
    struct level *lv;
    size_t nlv;
    struct node *nodes;
    size_t nnodes, ncap;
    uint32_t free_node;
    struct update *up;
    struct pair *chain;
    size_t nchain;
    uint64_t a; /* A: the aligned point reached */
    uint64_t matched;
};

/* ---- the table of the window's pages ------------------------------------ */

static uint64_t page_hash(uint64_t ino, uint64_t index)
{
    return zc__fmix64(ino ^ zc__rotl64(index * 0x9E3779B97F4A7C15ull, 29));
}

static bool tab_empty(const void *ctx, uint64_t j)
{
    return ((const zc__match *)ctx)->tab[j].head == NONE;
}

static uint64_t tab_home(const void *ctx, uint64_t j)
{
    const struct pslot *s = &((const zc__match *)ctx)->tab[j];

    return page_hash(s->ino, s->index);
}

static void tab_move(void *ctx, uint64_t to, uint64_t from)
{
    zc__match *m = ctx;

    m->tab[to] = m->tab[from];
}

static void tab_clear(void *ctx, uint64_t i)
{
    ((zc__match *)ctx)->tab[i].head = NONE;
}

static const struct zc__lp_ops tab_ops = {tab_empty, tab_home, tab_move,
                                          tab_clear};

/* The slot of page (ino, index), or the empty slot where it would go. */
static uint64_t tab_find(const zc__match *m, uint64_t ino, uint64_t index)
{
    uint64_t j = page_hash(ino, index) & m->tmask;

    while (m->tab[j].head != NONE &&
           (m->tab[j].ino != ino || m->tab[j].index != index))
        j = (j + 1) & m->tmask;
    return j;
}

/* The first eviction of a page in the window, or NONE. */
static uint64_t first_of(const zc__match *m, const zc_fidelity_page *p)
{
    return m->tab[tab_find(m, p->ino, p->index)].head;
}

/* ---- the window --------------------------------------------------------- */

static void window_push(zc__match *m, const zc_fidelity_page *p)
{
    uint64_t pos = m->hi++, t = tab_find(m, p->ino, p->index);

    m->ring[pos & m->rmask] = (struct mev){p->ino, p->index, NONE, false};
    if (m->tab[t].head == NONE) {
        m->tab[t] = (struct pslot){p->ino, p->index, pos, pos};
    } else {
        m->ring[m->tab[t].tail & m->rmask].next = pos;
        m->tab[t].tail = pos;
    }
}

/* Drop the model evictions before position to (at most hi). */
static void window_drop(zc__match *m, uint64_t to)
{
    for (; m->lo < to && m->lo < m->hi; m->lo++) {
        const struct mev *e = &m->ring[m->lo & m->rmask];
        uint64_t t = tab_find(m, e->ino, e->index);
        /* the oldest eviction in the window is its page's first */
        m->tab[t].head = e->next;
        if (e->next == NONE)
            zc__lp_delete(m, m->tmask, t, &tab_ops);
    }
}

/* ---- the alignment ------------------------------------------------------ */

/* The jumps of a chain ending in prev (NO_NODE: none) then j: prev's,
 * plus the model evictions skipped from the one after prev's (after A for
 * the first pair) to j beyond W. */
static uint64_t jumps_to(const zc__match *m, uint32_t prev, uint64_t j)
{
    uint64_t from = prev == NO_NODE ? m->a : m->nodes[prev].j + 1;
    uint64_t gap = j > from ? j - from : 0;

    return (prev == NO_NODE ? 0 : m->nodes[prev].jumps) +
           (gap > m->w ? gap - m->w : 0);
}

static int node_new(zc__match *m, uint64_t i, uint64_t j, uint32_t prev,
                    uint32_t *out)
{
    uint32_t n = m->free_node;

    if (n != NO_NODE) {
        m->free_node = m->nodes[n].prev;
    } else {
        if (m->nnodes == m->ncap) {
            size_t cap = m->ncap ? m->ncap * 2 : 1024;
            struct node *v =
                cap >= NO_NODE ? NULL : realloc(m->nodes, cap * sizeof(*v));
            if (!v)
                return -ZC_ENOMEM;
            m->nodes = v;
            m->ncap = cap;
        }
        n = (uint32_t)m->nnodes++;
    }
    m->nodes[n] = (struct node){i, j, jumps_to(m, prev, j), prev, 0};
    if (prev != NO_NODE)
        m->nodes[prev].refs++;
    *out = n;
    return 0;
}

/* One reference to node n less; a node nothing leads to is freed, and so
 * may be the nodes before it. */
static void node_put(zc__match *m, uint32_t n)
{
    while (n != NO_NODE && --m->nodes[n].refs == 0) {
        uint32_t prev = m->nodes[n].prev;
        m->nodes[n].prev = m->free_node;
        m->free_node = n;
        n = prev;
    }
}

/* The first level whose least end is j or more (nlv if none). */
static size_t level_of(const zc__match *m, uint64_t j)
{
    size_t lo = 0, hi = m->nlv;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->lv[mid].j < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Kernel eviction i (page p) into the alignment: every model eviction of
 * p in the window at or after A is a candidate, each level set by its
 * least candidate,
 * all against the levels as they were before (as taking the candidates
 * from the largest down does). */
static int align_one(zc__match *m, uint64_t i, const zc_fidelity_page *p)
{
    size_t nup = 0;
    int rc;

    for (uint64_t j = first_of(m, p); j != NONE;
         j = m->ring[j & m->rmask].next) {
        size_t x;
        if (j < m->a)
            continue; /* before the aligned point: the order goes on */
        x = level_of(m, j);
        if (nup && m->up[nup - 1].x == x)
            continue; /* a larger end for the same level */
        m->up[nup++] = (struct update){x, j, x ? m->lv[x - 1].node : NO_NODE};
        if (x == m->nlv)
            break; /* the rest would lengthen the longest too, ending later */
    }
    /* the new nodes hold their chains before any level lets go of one */
    for (size_t u = 0; u < nup; u++) {
        uint32_t n;
        if ((rc = node_new(m, i, m->up[u].j, m->up[u].prev, &n)))
            return rc;
        m->up[u].prev = n;
    }
    for (size_t u = 0; u < nup; u++) {
        struct update *v = &m->up[u];
        m->nodes[v->prev].refs++;
        if (v->x == m->nlv) {
            m->lv[m->nlv++] = (struct level){v->j, v->prev};
        } else {
            uint32_t old = m->lv[v->x].node;
            m->lv[v->x] = (struct level){v->j, v->prev};
            node_put(m, old);
        }
    }
    return 0;
}

/* The kept chain (rule 2), into m->chain in order. */
static void kept_chain(zc__match *m)
{
    int64_t best_score = 0;
    size_t best = SIZE_MAX;

    for (size_t x = 0; x < m->nlv; x++) {
        uint64_t jumps = m->nodes[m->lv[x].node].jumps;
        int64_t score = jumps > x + 1 ? -1 : (int64_t)(x + 1 - jumps);
        if (score > best_score) {
            best_score = score;
            best = x;
        }
    }
    m->nchain = 0;
    if (best == SIZE_MAX)
        return;
    for (uint32_t n = m->lv[best].node; n != NO_NODE; n = m->nodes[n].prev)
        m->chain[m->nchain++] = (struct pair){m->nodes[n].i, m->nodes[n].j};
    for (size_t x = 0, y = m->nchain; x + 1 < y; x++, y--) {
        struct pair t = m->chain[x];
        m->chain[x] = m->chain[y - 1];
        m->chain[y - 1] = t;
    }
}

/* Kernel eviction p at aligned point a: the earliest free model eviction
 * of its page within the window around a. */
static void decide(zc__match *m, const zc_fidelity_page *p, uint64_t a)
{
    uint64_t from = a > m->w ? a - m->w : 0;

    for (uint64_t j = first_of(m, p); j != NONE;
         j = m->ring[j & m->rmask].next) {
        struct mev *e = &m->ring[j & m->rmask];
        if (j > a && j - a > m->w)
            break;
        if (j < from || e->used)
            continue;
        e->used = true;
        m->matched++;
        return;
    }
}

/* Rules 2 to 4 on the segment in hand. */
static int segment(zc__match *m)
{
    size_t commit = m->kernel_done ? m->nk : m->nk / 2, q = 0;
    int rc = 0;

    for (size_t t = 0; !rc && t < m->nk; t++)
        rc = align_one(m, m->c + t, &m->kq[(m->c + t) & m->kmask]);
    if (!rc) {
        kept_chain(m);
        for (size_t t = 0; t < commit; t++) {
            uint64_t i = m->c + t;
            for (; q < m->nchain && m->chain[q].i <= i; q++)
                if (m->chain[q].j > m->a)
                    m->a = m->chain[q].j;
            decide(m, &m->kq[i & m->kmask], m->a);
        }
        m->c += commit;
        m->nk -= commit;
        window_drop(m, m->a > m->w ? m->a - m->w : 0);
    }
    /* the next segment aligns afresh */
    m->nlv = 0;
    m->nnodes = 0;
    m->free_node = NO_NODE;
    return rc;
}

/* The segment filled with the kernel's next evictions (up to S). */
static int fill(zc__match *m)
{
    while (m->nk < m->seg && !m->kernel_done) {
        zc_fidelity_page p;
        int rc = m->pull(m->ctx, &p);
        if (rc < 0)
            return rc;
        if (rc == 0)
            m->kernel_done = true;
        else
            m->kq[(m->c + m->nk++) & m->kmask] = p;
    }
    return 0;
}

/* Segments while the window is full (or, with more, till the kernel's
 * evictions end). */
static int run(zc__match *m, bool model_done)
{
    int rc;

    while (model_done || m->hi - m->lo >= m->win) {
        if ((rc = fill(m)))
            return rc;
        if (!m->nk) {
            /* nothing left to match: the window is not needed */
            window_drop(m, m->hi);
            return 0;
        }
        if ((rc = segment(m)))
            return rc;
    }
    return 0;
}

/* ---- the streaming form ------------------------------------------------- */

static uint64_t pow2_at_least(uint64_t n)
{
    uint64_t p = 1;

    while (p < n)
        p <<= 1;
    return p;
}

int zc__match_create(uint64_t window, zc__match_pull pull, void *ctx,
                     zc__match **out)
{
    uint64_t unit = window > UNIT_MIN ? window : UNIT_MIN;
    zc__match *m;

    *out = NULL;
    if (unit > (UINT64_MAX / 4) / WIN_UNITS / sizeof(struct pslot))
        return -ZC_ENOMEM;
    if (!(m = calloc(1, sizeof(*m))))
        return -ZC_ENOMEM;
    m->w = window;
    m->seg = SEG_UNITS * unit;
    m->win = WIN_UNITS * unit;
    m->pull = pull;
    m->ctx = ctx;
    m->rmask = pow2_at_least(m->win) - 1;
    m->tmask = pow2_at_least(2 * m->win) - 1;
    m->kmask = pow2_at_least(m->seg) - 1;
    m->free_node = NO_NODE;
    if (m->tmask + 1 > SIZE_MAX / sizeof(*m->tab) ||
        !(m->ring = malloc((m->rmask + 1) * sizeof(*m->ring))) ||
        !(m->tab = malloc((m->tmask + 1) * sizeof(*m->tab))) ||
        !(m->kq = malloc((m->kmask + 1) * sizeof(*m->kq))) ||
        !(m->lv = malloc(m->seg * sizeof(*m->lv))) ||
        !(m->up = malloc((m->seg + 1) * sizeof(*m->up))) ||
        !(m->chain = malloc(m->seg * sizeof(*m->chain)))) {
        zc__match_free(m);
        return -ZC_ENOMEM;
    }
    for (uint64_t t = 0; t <= m->tmask; t++)
        m->tab[t].head = NONE;
    *out = m;
    return 0;
}

int zc__match_model(zc__match *m, const zc_fidelity_page *p)
{
    if (m->kernel_done && !m->nk) {
        /* no kernel eviction is left to match it */
        window_drop(m, m->hi);
        m->lo = ++m->hi;
        return 0;
    }
    window_push(m, p);
    return run(m, false);
}

int zc__match_finish(zc__match *m, uint64_t *matched)
{
    int rc = run(m, true);

    *matched = m->matched;
    return rc;
}

void zc__match_free(zc__match *m)
{
    if (m) {
        free(m->ring);
        free(m->tab);
        free(m->kq);
        free(m->lv);
        free(m->nodes);
        free(m->up);
        free(m->chain);
        free(m);
    }
}

/* ---- the array form ----------------------------------------------------- */

struct array_src {
    const zc_fidelity_page *p;
    size_t n, next;
};

static int array_pull(void *ctx, zc_fidelity_page *p)
{
    struct array_src *a = ctx;

    if (a->next == a->n)
        return 0;
    *p = a->p[a->next++];
    return 1;
}

int zc_fidelity_match(const zc_fidelity_page *kernel, size_t nkernel,
                      const zc_fidelity_page *model, size_t nmodel,
                      uint64_t window, uint64_t *matched)
{
    struct array_src src = {kernel, nkernel, 0};
    zc__match *m;
    int rc;

    if (!matched || (nkernel && !kernel) || (nmodel && !model))
        return -ZC_EINVAL;
    *matched = 0;
    /* no two positions are further apart: a wider window is the same */
    if (window > nkernel && window > nmodel)
        window = nkernel > nmodel ? nkernel : nmodel;
    if ((rc = zc__match_create(window, array_pull, &src, &m)))
        return rc;
    for (size_t j = 0; !rc && j < nmodel; j++)
        rc = zc__match_model(m, &model[j]);
    if (!rc)
        rc = zc__match_finish(m, matched);
    zc__match_free(m);
    return rc;
}
