/*
 * test_pcm.c - the page-cache models behind zc_replay_set_model(), seen
 * through the public API only: the op stream a replay hands to its sink
 * (zc_replay_sink()) and its resident count (zc_replay_resident()).
 *
 * Three kinds of test:
 *
 *  - The "linux" model against a naive reference written here from the
 *    specification, the essay that opens src/trace/pcm_linux.c: resident
 *    pages in two arrays (inactive and active, most recent first, moved
 *    with memmove), shadow entries in a plain array searched linearly,
 *    one readahead state per file.  It answers with the same events the
 *    replay turns into ops (hit, miss, readahead, eviction with its
 *    active flag), and random streams compare the two event by event.
 *    The reference counts the rules it applies, and the run asserts that
 *    each rule fired (a comparison of streams that never reach a rule
 *    proves nothing about it).  The reference keeps every shadow entry;
 *    the library drops those that can no longer activate their page
 *    (the essay's floor), so the reference follows the floor too and
 *    counts the refaults of entries the library has dropped (there must
 *    be some, and none of them activated: the library's decisions are
 *    those of the unbounded model).  Where the essay leaves a point open the
 *    reference does what the library does; each such point is marked
 *    "[code]" where it is implemented.
 *
 *  - Every registered model (zc_page_cache_model_name()) against the
 *    rules all models keep (pcm.h): the resident count never above the
 *    capacity, every requested page counted once as a hit or a miss
 *    (fault-around pages a model does not hold may be neither), puts and
 *    hits only of resident pages, residency tracked from the op stream
 *    alone; capacity 0 holds nothing; a shrink to k pages leaves min(k,
 *    before); a large cache without readahead misses each page once; the
 *    argument checks of zc_replay_set_model() and
 *    zc_replay_set_read_ahead().
 *
 *    A few short streams worked out by hand from the essay check the
 *    reference's reading of it from outside (activation, refault, second
 *    chance, the readahead ramp, read-around, writes, fault-around).
 *
 *  - The linux model in front of a real zcache with verification on: no
 *    get ever returns stale bytes, and the replay's counters agree with
 *    the op stream.
 *
 *  - Memory: a long scan of distinct pages through a small cache takes,
 *    with every model, heap in proportion to the cache, not to the scan
 *    (glibc's mallinfo2(); skipped without it).
 *
 * These tests found three library bugs, now fixed and held here with no
 * tolerance: a requested page counted twice when its own readahead window
 * evicted it (linux, capacity below the window: now read again as
 * readahead, counted once); a page past a file's recorded end not counted
 * at capacity 0 (linux); readahead gets counted as read accesses by the
 * player.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "zcache_sim.h"
#include "zt_util.h"

#define PS 4096u
#define SHIFT 12u
#define NO_PAGE UINT64_MAX

/* ---- events: what a model says, from either side ------------------------ */

enum { EV_HIT, EV_MISS, EV_AHEAD, EV_EVICT };

struct ev {
    int kind;
    bool write;    /* EV_HIT, EV_MISS */
    bool active;   /* EV_EVICT */
    uint64_t key;  /* the op's file key: ino, or dev for a block page */
    uint64_t page; /* NO_PAGE for a read hit seen as an op (PC_HITS
                      carries no key) */
};

struct evlog {
    struct ev *v;
    size_t n, cap;
};

static void evlog_push(struct evlog *l, struct ev e)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->v = realloc(l->v, l->cap * sizeof(*l->v));
        assert_non_null(l->v);
    }
    l->v[l->n++] = e;
}

static uint64_t op_key(const zc_op *op)
{
    uint64_t k;

    memcpy(&k, op->key.fh, sizeof(k));
    return k;
}

/* An op as an event; false for ops that are no model event (init). */
static bool op_event(const zc_op *op, struct ev *e)
{
    memset(e, 0, sizeof(*e));
    switch (op->kind) {
    case ZC_OP_PC_HITS:
        /* Only kind and count are set on a PC_HITS op. */
        assert_int_equal(op->count, 1);
        e->kind = EV_HIT;
        e->key = e->page = NO_PAGE;
        return true;
    case ZC_OP_GET:
        assert_int_equal(op->flags & ~ZC_OP_GET_AHEAD, 0);
        e->kind = (op->flags & ZC_OP_GET_AHEAD) ? EV_AHEAD : EV_MISS;
        break;
    case ZC_OP_INVALIDATE_PAGE:
        e->write = true;
        if (op->flags == ZC_OP_WRITE_HIT)
            e->kind = EV_HIT;
        else if (op->flags == ZC_OP_WRITE_MISS)
            e->kind = EV_MISS;
        else
            fail_msg("an invalidate with flags %u", op->flags);
        break;
    case ZC_OP_PUT:
        assert_int_equal(op->flags & ~ZC_OP_PUT_ACTIVE, 0);
        assert_non_null(op->page);
        e->kind = EV_EVICT;
        e->active = (op->flags & ZC_OP_PUT_ACTIVE) != 0;
        break;
    case ZC_OP_INIT_FS: return false;
    default: fail_msg("unexpected op kind %d", (int)op->kind);
    }
    e->key = op_key(op);
    e->page = op->index;
    return true;
}

static int log_op(void *ctx, const zc_op *op)
{
    struct ev e;

    if (op_event(op, &e))
        evlog_push(ctx, e);
    return 0;
}

static const char *ev_str(const struct ev *e, char *buf, size_t len)
{
    static const char *const kinds[] = {"hit", "miss", "ahead", "evict"};

    if (!e) {
        snprintf(buf, len, "(nothing)");
        return buf;
    }
    if (e->page == NO_PAGE)
        snprintf(buf, len, "%s%s (a PC_HITS op: no page)", kinds[e->kind],
                 e->write ? " write" : "");
    else
        snprintf(buf, len, "%s%s%s key %llu page %llu", kinds[e->kind],
                 e->write ? " write" : "", e->active ? " active" : "",
                 (unsigned long long)e->key, (unsigned long long)e->page);
    return buf;
}

/* ---- the reference: the linux model, naively -------------------------- */

#define RMAX 256  /* pages on one reference list, at most */
#define RFILES 8  /* files of one stream, at most */
#define RSWAP 32u /* SWAP_CLUSTER_MAX */
#define RLOTSAMISS 100u

enum { INACTIVE, ACTIVE };

struct rpage {
    uint64_t key, page;
    bool referenced; /* PG_referenced */
    bool workingset; /* PG_workingset */
    bool young;      /* a page-table accessed bit */
    bool readahead;  /* PG_readahead */
    bool hit;        /* hit while resident: the put's active flag */
    bool fresh;      /* a read(2) page of the request, its miss told */
};

struct rlist {
    struct rpage p[RMAX]; /* p[0] most recent, p[n - 1] the tail */
    size_t n;
};

struct rshadow {
    uint64_t key, page, age;
    bool workingset;
};

struct rra {
    uint64_t start, size, async;
    bool prev_known;   /* a read(2) of the file happened */
    uint64_t prev_pos; /* the byte after the previous read(2) */
    unsigned mmap_miss;
};

/* How often each rule fired (summed over a run and asserted). */
struct rcount {
    uint64_t access_activations, refault_activations, refaults_too_far;
    uint64_t second_chance_keep, second_chance_activate;
    uint64_t scan_deactivations, refill_deactivations;
    uint64_t decisions, decisions_low, decisions_refault_only;
    uint64_t sync_new, sync_history, sync_from_start, sync_small;
    uint64_t async_expected, async_interleaved, async_no_gap;
    uint64_t read_around, lots_of_misses, mmap_miss_down;
    uint64_t same_page_skips, fresh_visits, clipped_windows, past_end;
    uint64_t around_absent, around_readahead, around_workingset, rereads;
    uint64_t near_lots; /* fault misses with mmap_miss at 95..105 */
    uint64_t workingset_restored;
    uint64_t evictions, aheads, shrinks, windows_cut;
    uint64_t refaults_dropped;    /* of entries the library has dropped */
    uint64_t dropped_activations; /* of those, activated here: none */
};

struct rfile {
    uint64_t key;
    uint32_t dev, ino;
    struct rra ra;
};

struct ref {
    struct rlist list[2];
    uint64_t cap, ra_pages;
    struct rshadow *shadow;
    size_t nshadow, shadow_cap;
    uint64_t age;      /* the non-resident clock */
    uint64_t cap_max;  /* the largest capacity so far */
    int64_t floor;     /* the library drops the entries evicted below it */
    uint64_t refaults; /* refault activations so far */
    uint64_t seen;     /* refaults at the last decision */
    unsigned until_decision;
    bool may_deactivate;
    uint64_t debt; /* active pages owed a scan */
    struct rfile files[RFILES];
    size_t nfiles;
    bool gone[RMAX]; /* pages of this read(2) (from its first) whose miss
                        was told, evicted before the read reached them */
    uint64_t req_first;
    struct evlog *out;
    struct rcount c;
};

/* One request as the model sees it. */
struct rreq {
    uint64_t key;
    struct rra *ra;
    bool is_file, write, mapped, around, sized;
    uint64_t first, last, offset, length, size_pages;
};

static void ref_init(struct ref *m, uint64_t cap, uint64_t read_ahead_kb,
                     struct evlog *out)
{
    memset(m, 0, sizeof(*m));
    m->cap = m->cap_max = cap;
    m->ra_pages = read_ahead_kb * 1024 / PS;
    m->out = out;
}

static void ref_free(struct ref *m)
{
    free(m->shadow);
}

static uint64_t ref_used(const struct ref *m)
{
    return m->list[INACTIVE].n + m->list[ACTIVE].n;
}

static void emit(struct ref *m, int kind, uint64_t key, uint64_t page,
                 bool write, bool active)
{
    struct ev e = {kind, write, active, key, page};

    if (kind == EV_HIT && !write)
        e.key = e.page = NO_PAGE; /* as the op shows it */
    evlog_push(m->out, e);
}

/* The resident page (key, page): its list in *l and its position, or -1. */
static long ref_find(const struct ref *m, uint64_t key, uint64_t page, int *l)
{
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < m->list[k].n; i++)
            if (m->list[k].p[i].key == key && m->list[k].p[i].page == page) {
                *l = k;
                return (long)i;
            }
    return -1;
}

static struct rpage *ref_get(struct ref *m, uint64_t key, uint64_t page)
{
    int l;
    long i = ref_find(m, key, page, &l);

    return i < 0 ? NULL : &m->list[l].p[i];
}

static bool resident(const struct ref *m, uint64_t key, uint64_t page)
{
    int l;

    return ref_find(m, key, page, &l) >= 0;
}

static struct rpage take(struct ref *m, int l, size_t i)
{
    struct rlist *x = &m->list[l];
    struct rpage p = x->p[i];

    memmove(x->p + i, x->p + i + 1, (x->n - i - 1) * sizeof(*x->p));
    x->n--;
    return p;
}

static void push_head(struct ref *m, int l, struct rpage p)
{
    struct rlist *x = &m->list[l];

    assert_true(x->n < RMAX);
    memmove(x->p + 1, x->p, x->n * sizeof(*x->p));
    x->p[0] = p;
    x->n++;
}

/* folio_mark_accessed(): referenced once, activated the second time. */
static void mark_accessed(struct ref *m, uint64_t key, uint64_t page)
{
    int l = INACTIVE;
    long i = ref_find(m, key, page, &l);
    struct rpage p;

    assert_true(i >= 0);
    if (!m->list[l].p[i].referenced) {
        m->list[l].p[i].referenced = true;
        return;
    }
    if (l == ACTIVE)
        return;
    p = take(m, INACTIVE, (size_t)i);
    p.referenced = false;
    push_head(m, ACTIVE, p);
    m->age++; /* workingset_activation() */
    m->c.access_activations++;
}

/* shrink_active_list() on the active tail: to the inactive head, its
 * accessed bit read (cleared), PG_workingset set. */
static void deactivate_tail(struct ref *m)
{
    struct rpage p = take(m, ACTIVE, m->list[ACTIVE].n - 1);

    p.young = false;
    p.workingset = true;
    push_head(m, INACTIVE, p);
}

static void store_shadow(struct ref *m, const struct rpage *p)
{
    struct rshadow s = {p->key, p->page, m->age, p->workingset};

    for (size_t i = 0; i < m->nshadow; i++)
        assert_false(m->shadow[i].key == p->key &&
                     m->shadow[i].page == p->page);
    if (m->nshadow == m->shadow_cap) {
        m->shadow_cap = m->shadow_cap ? 2 * m->shadow_cap : 64;
        m->shadow = realloc(m->shadow, m->shadow_cap * sizeof(*m->shadow));
        assert_non_null(m->shadow);
    }
    m->shadow[m->nshadow++] = s;
}

/* The shadow entry of (key, page), consumed: true and *s if there was one. */
static bool take_shadow(struct ref *m, uint64_t key, uint64_t page,
                        struct rshadow *s)
{
    for (size_t i = 0; i < m->nshadow; i++)
        if (m->shadow[i].key == key && m->shadow[i].page == page) {
            *s = m->shadow[i];
            m->shadow[i] = m->shadow[--m->nshadow];
            return true;
        }
    return false;
}

static uint64_t isqrt(uint64_t x)
{
    uint64_t r = 0;

    while ((r + 1) * (r + 1) <= x)
        r++;
    return r;
}

/* prepare_scan_control()'s may_deactivate, with inactive_is_low(). */
static void decide(struct ref *m)
{
    uint64_t inactive = m->list[INACTIVE].n, active = m->list[ACTIVE].n;
    uint64_t gib = (inactive + active) >> (30 - SHIFT);
    uint64_t ratio = gib ? isqrt(10 * gib) : 1;
    bool low = inactive * ratio < active;
    bool refaulted = m->refaults != m->seen;

    m->may_deactivate = low || refaulted;
    m->seen = m->refaults;
    m->c.decisions++;
    m->c.decisions_low += low;
    m->c.decisions_refault_only += !low && refaulted;
}

/* Reclaim one page: age the active list if the decision says so, then
 * take the inactive tail, giving mapped young pages their second chance. */
static void reclaim_one(struct ref *m)
{
    /* [code] The decision is made at the first reclaim and then every 32
     * reclaims (shrinks included). */
    if (m->until_decision == 0) {
        decide(m);
        m->until_decision = RSWAP;
    }
    m->until_decision--;
    for (;;) {
        struct rlist *in = &m->list[INACTIVE];
        struct rpage *t;
        bool was_referenced;

        if (in->n == 0) {
            /* [code] One page at a time, made workingset as a scan would. */
            deactivate_tail(m);
            m->c.refill_deactivations++;
            continue;
        }
        if (m->may_deactivate && m->list[ACTIVE].n) {
            /* [code] The proportion of get_scan_count(): each look at the
             * inactive tail owes the active list active/inactive pages of
             * scan, paid a page per `inactive` owed, at most 32 pages a
             * look; a debt left over after 32 is forgiven. */
            m->debt += m->list[ACTIVE].n;
            for (unsigned k = 0;
                 k < RSWAP && m->list[ACTIVE].n && m->debt >= in->n; k++) {
                m->debt -= in->n;
                deactivate_tail(m);
                m->c.scan_deactivations++;
            }
            if (m->debt >= in->n)
                m->debt = 0;
        }
        t = &in->p[in->n - 1];
        was_referenced = t->referenced;
        t->referenced = false;
        if (t->young) {
            /* folio_check_references(): a mapped page used again */
            struct rpage p;
            t->young = false;
            t->referenced = true;
            p = take(m, INACTIVE, in->n - 1);
            push_head(m, was_referenced ? ACTIVE : INACTIVE, p);
            if (was_referenced)
                m->c.second_chance_activate++;
            else
                m->c.second_chance_keep++;
            continue;
        }
        {
            struct rpage p = take(m, INACTIVE, in->n - 1);
            /* The library's floor (pcm_linux.c: which shadow entries are
             * kept): here every entry is kept, and a refault of one
             * evicted below the floor is counted, and must never be
             * activated, for the library has dropped it. */
            int64_t t = (int64_t)m->age - (int64_t)m->list[ACTIVE].n;
            if (t - (int64_t)m->cap_max > m->floor)
                m->floor = t - (int64_t)m->cap_max;
            if (p.fresh) {
                assert_true(p.page - m->req_first < RMAX);
                m->gone[p.page - m->req_first] = true;
            }
            store_shadow(m, &p); /* the age before this eviction */
            m->age++;
            m->c.evictions++;
            emit(m, EV_EVICT, p.key, p.page, false, p.hit);
            return;
        }
    }
}

/* filemap_add_folio(): room made, then the page on the inactive head, or
 * the active head if its shadow says it is a recent refault. */
static void add_page(struct ref *m, uint64_t key, uint64_t page)
{
    struct rpage p;
    struct rshadow s;
    int l = INACTIVE;

    while (ref_used(m) >= m->cap && ref_used(m) > 0)
        reclaim_one(m);
    memset(&p, 0, sizeof(p));
    p.key = key;
    p.page = page;
    /* [code] The refault test comes after the room is made (the active
     * list as it is then); PG_workingset comes back only with an
     * activation. */
    if (take_shadow(m, key, page, &s)) {
        /* the library keeps the entries of the current read still to be
         * reached (gone) whatever their age */
        bool dropped = (int64_t)s.age < m->floor &&
                       !(page >= m->req_first && page - m->req_first < RMAX &&
                         m->gone[page - m->req_first]);
        m->c.refaults_dropped += dropped;
        if (m->age - s.age <= m->list[ACTIVE].n) {
            m->c.dropped_activations += dropped;
            l = ACTIVE;
            p.workingset = s.workingset;
            m->c.workingset_restored += s.workingset;
            m->age++;
            m->refaults++;
            m->c.refault_activations++;
        } else {
            m->c.refaults_too_far++;
        }
    }
    push_head(m, l, p);
}

/* Bring in page `page` for request q, which is at page `cur`: the
 * request's miss, or readahead. */
static void read_in(struct ref *m, const struct rreq *q, uint64_t cur,
                    uint64_t page)
{
    if (m->cap == 0) {
        /* [code] No page cache: only the page asked for passes through,
         * miss then put; no shadow, no clock, no reclaim decision. */
        if (page == cur) {
            emit(m, EV_MISS, q->key, page, q->write, false);
            emit(m, EV_EVICT, q->key, page, false, false);
        }
        return;
    }
    add_page(m, q->key, page); /* [code] evictions before the miss */
    if (!q->write && !q->mapped && page >= cur && page <= q->last) {
        /* A page of the read from where it is: its miss, told once; read
         * again after its own window evicted it, readahead. */
        bool *gone = &m->gone[page - q->first];
        ref_get(m, q->key, page)->fresh = true;
        if (*gone) {
            *gone = false;
            m->c.rereads++;
            m->c.aheads++;
            emit(m, EV_AHEAD, q->key, page, false, false);
        } else {
            emit(m, EV_MISS, q->key, page, false, false);
        }
    } else if (page == cur) {
        emit(m, EV_MISS, q->key, page, q->write, false);
    } else {
        m->c.aheads++;
        emit(m, EV_AHEAD, q->key, page, false, false);
    }
}

/* do_page_cache_ra(): the window [index, index + nr) clipped to the
 * file's last page, resident pages skipped, the page at nr - lookahead
 * (of the window as given) marked. */
static void do_ra(struct ref *m, const struct rreq *q, uint64_t cur,
                  uint64_t index, uint64_t nr, uint64_t lookahead)
{
    uint64_t mark = NO_PAGE, room = m->cap;

    if (q->size_pages == 0 || index >= q->size_pages) {
        m->c.past_end++;
        return;
    }
    if (index + nr > q->size_pages) {
        nr = q->size_pages - index;
        m->c.clipped_windows++;
    }
    /* page_cache_ra_unbounded(): nr - lookahead of the clipped window */
    if (lookahead > 0 && lookahead <= nr)
        mark = index + nr - lookahead;
    for (uint64_t p = index; p < index + nr; p++) {
        if (resident(m, q->key, p))
            continue;
        if (room == 0 && p != cur) {
            /* At most the capacity read; the page asked for always. */
            m->c.windows_cut++;
            continue;
        }
        read_in(m, q, cur, p);
        if (room > 0)
            room--;
        if (p == mark && m->cap > 0)
            ref_get(m, q->key, p)->readahead = true;
    }
}

static uint64_t pow2_up(uint64_t x)
{
    uint64_t r = 1;

    while (r < x)
        r *= 2;
    return r;
}

/* get_init_ra_size() */
static uint64_t init_size(uint64_t n, uint64_t max)
{
    uint64_t s = pow2_up(n);

    return s <= max / 32 ? 4 * s : s <= max / 4 ? 2 * s : max;
}

/* get_next_ra_size() */
static uint64_t next_size(uint64_t cur, uint64_t max)
{
    return cur < max / 16 ? 4 * cur : cur <= max / 2 ? 2 * cur : max;
}

static bool reads_ahead(const struct ref *m, const struct rreq *q)
{
    return m->ra_pages > 0 && q->is_file && q->sized;
}

static void set_window(struct rra *ra, uint64_t start, uint64_t size,
                       uint64_t async)
{
    ra->start = start;
    ra->size = size;
    ra->async = async;
}

/* page_cache_sync_ra(): page i missed with n pages wanted. */
static void sync_ra(struct ref *m, const struct rreq *q, uint64_t i, uint64_t n)
{
    struct rra *ra = q->ra;
    uint64_t max = m->ra_pages, prev = ra->prev_pos >> SHIFT, behind = 0;
    bool sequential = ra->prev_known && (i == prev || i == prev + 1);

    if (i == 0 || n > max || sequential) {
        uint64_t size = init_size(n, max);
        set_window(ra, i, size, size > n ? size - n : size / 2);
        m->c.sync_new++;
        do_ra(m, q, i, ra->start, ra->size, ra->async);
        return;
    }
    /* [code] page_cache_prev_miss() over ra_pages pages: the resident
     * pages just before i, and whether they reach the file's start. */
    while (behind < max && behind < i && resident(m, q->key, i - 1 - behind))
        behind++;
    if (behind <= n) {
        m->c.sync_small++;
        do_ra(m, q, i, i, n, 0);
        return;
    }
    if (behind == i) {
        behind *= 2; /* [code] the history doubled, then n added */
        m->c.sync_from_start++;
    }
    /* [code] capped at ra_pages */
    set_window(ra, i, behind + n < max ? behind + n : max, 1);
    m->c.sync_history++;
    do_ra(m, q, i, ra->start, ra->size, ra->async);
}

/* page_cache_async_ra(): marked page i reached with n pages wanted. */
static void async_ra(struct ref *m, const struct rreq *q, uint64_t i,
                     uint64_t n)
{
    struct rra *ra = q->ra;
    uint64_t max = m->ra_pages, gap;

    if (i == ra->start + ra->size - ra->async) {
        uint64_t size = next_size(ra->size, max);
        set_window(ra, ra->start + ra->size, size, size);
        m->c.async_expected++;
        do_ra(m, q, i, ra->start, ra->size, ra->async);
        return;
    }
    /* [code] The first page after i not resident, within ra_pages pages;
     * none: no readahead; the window's size ramps up from the distance
     * plus n. */
    for (gap = i + 1; gap <= i + max; gap++)
        if (!resident(m, q->key, gap))
            break;
    if (gap > i + max) {
        m->c.async_no_gap++;
        return;
    }
    {
        uint64_t size = next_size(gap - i + n, max);
        set_window(ra, gap, size, size);
    }
    m->c.async_interleaved++;
    do_ra(m, q, i, ra->start, ra->size, ra->async);
}

/* A page of read(2). */
static void read_page(struct ref *m, const struct rreq *q, uint64_t page)
{
    uint64_t wanted = q->last - page + 1;
    struct rpage *p = ref_get(m, q->key, page);
    struct rra *ra = q->ra;

    if (p && p->fresh) {
        p->fresh = false; /* its miss was told when the window read it */
        m->c.fresh_visits++;
    } else if (p) {
        p->hit = true;
        emit(m, EV_HIT, q->key, page, false, false);
    } else {
        /* A page its own window evicted is read alone, no window. */
        if (reads_ahead(m, q) && !m->gone[page - q->first])
            sync_ra(m, q, page, wanted);
        else
            read_in(m, q, page, page);
        if (!resident(m, q->key, page)) {
            /* Past the recorded end, where no window reads: the page
             * alone (at capacity 0 it passes through, as with readahead
             * off).  Or read and then evicted by its own window: read
             * again, as readahead (its miss was told). */
            if (m->cap == 0 && !(reads_ahead(m, q) && page >= q->size_pages))
                return; /* passed through already */
            read_in(m, q, page, page);
            if (m->cap == 0)
                return;
        }
        ref_get(m, q->key, page)->fresh = false;
    }
    p = ref_get(m, q->key, page);
    if (p->readahead && reads_ahead(m, q)) {
        p->readahead = false;
        async_ra(m, q, page, wanted); /* [code] after the hit is told */
        if (!resident(m, q->key, page))
            return;
    }
    /* pos_same_folio(ki_pos, prev_pos - 1): the page the previous read
     * ended in is not marked again by the next read's first page. */
    if (page == q->first && ra->prev_known && ra->prev_pos > 0 &&
        (ra->prev_pos - 1) >> SHIFT == page) {
        m->c.same_page_skips++;
        return;
    }
    mark_accessed(m, q->key, page);
}

/* A page of a fault (filemap_fault) or of fault-around. */
static void mapped_page(struct ref *m, const struct rreq *q, uint64_t page)
{
    struct rpage *p = ref_get(m, q->key, page);
    struct rra *ra = q->ra;

    if (q->around) {
        if (!p) {
            m->c.around_absent++;
            return;
        }
        if (p->readahead) {
            m->c.around_readahead++;
            return;
        }
        if (!p->workingset && ra->mmap_miss) {
            ra->mmap_miss--;
            m->c.mmap_miss_down++;
        } else if (ra->mmap_miss) {
            m->c.around_workingset++;
        }
        p->young = p->hit = true;
        emit(m, EV_HIT, q->key, page, false, false);
        return;
    }
    if (p) {
        p->young = p->hit = true;
        emit(m, EV_HIT, q->key, page, false, false);
        if (ra->mmap_miss) {
            ra->mmap_miss--;
            m->c.mmap_miss_down++;
        }
        if (p->readahead && reads_ahead(m, q)) {
            p->readahead = false;
            async_ra(m, q, page, m->ra_pages);
        }
        return;
    }
    if (ra->mmap_miss < 10 * RLOTSAMISS)
        ra->mmap_miss++;
    if (reads_ahead(m, q) && ra->mmap_miss + 5 >= RLOTSAMISS &&
        ra->mmap_miss <= RLOTSAMISS + 5)
        m->c.near_lots++;
    /* [code] read-around only for a page below the recorded size */
    if (reads_ahead(m, q) && ra->mmap_miss <= RLOTSAMISS &&
        page < q->size_pages) {
        uint64_t half = m->ra_pages / 2;
        set_window(ra, page > half ? page - half : 0, m->ra_pages,
                   m->ra_pages / 4);
        m->c.read_around++;
        do_ra(m, q, page, ra->start, ra->size, ra->async);
    } else {
        if (reads_ahead(m, q) && ra->mmap_miss > RLOTSAMISS)
            m->c.lots_of_misses++;
        read_in(m, q, page, page);
    }
    p = ref_get(m, q->key, page);
    if (p)
        p->young = true; /* [code] mapped: young, but no hit */
}

static struct rfile *ref_file(struct ref *m, uint32_t dev, uint64_t ino)
{
    for (size_t i = 0; i < m->nfiles; i++)
        if (m->files[i].dev == dev && m->files[i].ino == ino)
            return &m->files[i];
    assert_true(m->nfiles < RFILES);
    memset(&m->files[m->nfiles], 0, sizeof(m->files[0]));
    m->files[m->nfiles].dev = dev;
    m->files[m->nfiles].ino = (uint32_t)ino;
    m->files[m->nfiles].key = ino ? ino : dev;
    return &m->files[m->nfiles++];
}

static void ref_request(struct ref *m, const zc_request *z)
{
    struct rfile *f = ref_file(m, z->dev, z->ino);
    struct rreq q;

    q.key = f->key;
    q.ra = &f->ra;
    q.is_file = z->ino != 0;
    q.write = z->write;
    q.mapped = (z->flags & ZC_REQ_MAPPED) != 0;
    q.around = q.mapped && (z->flags & ZC_REQ_AROUND);
    q.sized = (z->flags & ZC_REQ_SIZE) != 0;
    q.offset = z->offset;
    q.length = z->length;
    q.first = z->offset >> SHIFT;
    q.last = (z->offset + z->length - 1) >> SHIFT;
    q.size_pages = q.sized ? (z->file_size + PS - 1) >> SHIFT : 0;
    memset(m->gone, 0, sizeof(m->gone));
    m->req_first = q.first;
    assert_true(q.last - q.first < RMAX);
    for (uint64_t page = q.first; page <= q.last; page++) {
        if (q.write) {
            /* A write marks nothing; a miss brings the page in, no
             * readahead.  [code] A write hit is a hit for the put's
             * active flag. */
            struct rpage *p = ref_get(m, q.key, page);
            if (p) {
                p->hit = true;
                emit(m, EV_HIT, q.key, page, true, false);
            } else {
                read_in(m, &q, page, page);
            }
        } else if (q.mapped) {
            mapped_page(m, &q, page);
        } else {
            read_page(m, &q, page);
        }
    }
    /* [code] Only read(2) moves prev_pos, after the request's last page. */
    if (!q.write && !q.mapped) {
        q.ra->prev_known = true;
        q.ra->prev_pos = q.offset + q.length;
    }
}

static void ref_resize(struct ref *m, uint64_t cap)
{
    m->cap = cap;
    if (cap > m->cap_max)
        m->cap_max = cap;
    while (ref_used(m) > cap) {
        reclaim_one(m);
        m->c.shrinks++;
    }
}

/* ---- random streams ----------------------------------------------------- */

#define FILE_DEV 8u
#define BLOCK_DEV 9u

enum { P_MIXED, P_SEQUENTIAL, P_MMAP, P_LOOP, P_COUNT };

struct sfile {
    uint32_t dev;
    uint64_t ino;    /* 0: the block device */
    uint64_t npages; /* pages the stream touches (past the size, some) */
    bool sized;      /* requests carry ZC_REQ_SIZE */
    uint64_t size;   /* bytes */
    uint64_t next;   /* where a sequential read goes on, bytes */
    uint64_t fault;  /* the last faulted page */
};

struct stream {
    zt_rng g;
    int profile;
    struct sfile f[RFILES - 1];
    int nf;
    uint64_t cap, cap_max, ra_kb;
    unsigned around_weight;
    bool resizes;
    uint64_t n;              /* steps made */
    const struct ref *steer; /* NULL, or the reference, to aim at rules */
};

struct step {
    bool resize;
    uint64_t cap;
    zc_request q;
};

static uint64_t below(struct stream *s, uint64_t n)
{
    return zt_rng_below(&s->g, n);
}

/* A stream: its profile, files, capacity and readahead limit, all from
 * the seed. */
static void stream_init(struct stream *s, uint64_t seed, int profile)
{
    static const uint64_t kbs[] = {0, 16, 32, 128};

    memset(s, 0, sizeof(*s));
    zt_rng_seed(&s->g, seed);
    s->profile = profile;
    s->ra_kb = kbs[below(s, 4)];
    s->cap_max = 40;
    s->cap = below(s, 41);
    if (profile == P_SEQUENTIAL || profile == P_LOOP)
        s->cap = 4 + below(s, 37);
    if (profile == P_MMAP)
        s->cap = s->cap_max = 2 + below(s, 12);
    s->resizes = true;
    s->around_weight = profile == P_MMAP ? 10 + 10 * (unsigned)below(s, 4) : 15;
    s->nf = 1 + (int)below(s, 4);
    if (profile == P_MMAP)
        s->nf = 1 + (int)below(s, 2);
    for (int i = 0; i < s->nf; i++) {
        struct sfile *f = &s->f[i];
        f->dev = FILE_DEV;
        f->ino = 101 + (uint64_t)i;
        f->npages = 1 + below(s, 64);
        if (profile == P_SEQUENTIAL || profile == P_MMAP)
            f->npages = 16 + below(s, 49);
        f->sized = below(s, 5) != 0;
        /* a size in the last page, whole or not; now and then none */
        f->size = (f->npages - 1) * PS + 1 + below(s, PS);
        if (below(s, 4) == 0)
            f->size = f->npages * PS;
        if (below(s, 40) == 0)
            f->size = 0;
    }
    if (profile == P_MIXED && below(s, 3) == 0) {
        /* a block device's pages: no readahead, whatever the flags */
        struct sfile *f = &s->f[s->nf++];
        f->dev = BLOCK_DEV;
        f->ino = 0;
        f->npages = 1 + below(s, 64);
        f->sized = below(s, 2);
        f->size = f->npages * PS;
    }
}

static void fill(const struct sfile *f, zc_request *q)
{
    q->dev = f->dev;
    q->ino = f->ino;
    if (f->sized) {
        q->flags |= ZC_REQ_SIZE;
        q->file_size = f->size;
    }
}

/* Bytes of a read or write: whole pages or any length up to 8 pages. */
static uint64_t some_length(struct stream *s)
{
    return below(s, 2) ? PS * (1 + below(s, 8)) : 1 + below(s, 8 * PS);
}

static void make_rw(struct stream *s, struct sfile *f, bool write,
                    bool sequential, zc_request *q)
{
    uint64_t span = f->npages + (below(s, 8) == 0 ? 2 : 0);

    if (sequential) {
        if (f->next >= f->npages * PS)
            f->next = 0;
        q->offset = f->next;
    } else if (below(s, 2)) {
        q->offset = below(s, span) * PS;
    } else {
        q->offset = below(s, span * PS);
    }
    q->length = some_length(s);
    if (s->profile == P_SEQUENTIAL && below(s, 2))
        q->length = PS * (1 + below(s, 2)); /* small steps: async windows */
    q->write = write;
    if (!write)
        f->next = q->offset + q->length;
    else if (f->sized && q->offset + q->length > f->size && below(s, 2))
        f->size = q->offset + q->length; /* the file grows */
}

static void make_fault(struct stream *s, struct sfile *f, zc_request *q)
{
    uint64_t page;

    if (below(s, 2) && f->fault + 8 < f->npages)
        page = f->fault + below(s, 8);
    else
        page = below(s, f->npages);
    f->fault = page;
    q->offset = page * PS;
    q->length = PS * (below(s, 8) ? 1 : 1 + below(s, 3));
    q->flags |= ZC_REQ_MAPPED;
}

static void make_around(struct stream *s, struct sfile *f, zc_request *q)
{
    uint64_t back = below(s, 8);
    uint64_t first = f->fault > back ? f->fault - back : 0;

    q->offset = first * PS;
    q->length = PS * (1 + below(s, 16));
    q->flags |= ZC_REQ_MAPPED | ZC_REQ_AROUND;
}

/* The loop profile: a hot set a little larger than the cache, read again
 * and again (activations, refaults), with cold reads between. */
static void make_loop(struct stream *s, struct sfile *f, zc_request *q)
{
    uint64_t hot = s->cap + s->cap / 2 + 2;
    uint64_t page = below(s, 5) ? below(s, hot) : below(s, 4 * hot);

    (void)f;
    q->offset = page * PS;
    q->length = PS * (1 + below(s, 2));
}

/* The reference's readahead state of f, or NULL before its first use. */
static const struct rra *steer_ra(const struct ref *m, const struct sfile *f)
{
    for (size_t i = 0; i < m->nfiles; i++)
        if (m->files[i].dev == f->dev && m->files[i].ino == f->ino)
            return &m->files[i].ra;
    return NULL;
}

/* A page of f the reference holds, or NO_PAGE. */
static uint64_t steer_page(struct stream *s, const struct sfile *f)
{
    uint64_t key = f->ino ? f->ino : f->dev, n = 0, pick;

    for (int l = 0; l < 2; l++)
        for (size_t i = 0; i < s->steer->list[l].n; i++)
            n += s->steer->list[l].p[i].key == key;
    if (n == 0)
        return NO_PAGE;
    pick = below(s, n);
    for (int l = 0; l < 2; l++)
        for (size_t i = 0; i < s->steer->list[l].n; i++)
            if (s->steer->list[l].p[i].key == key && pick-- == 0)
                return s->steer->list[l].p[i].page;
    return NO_PAGE;
}

static void stream_next(struct stream *s, struct step *st)
{
    unsigned r = (unsigned)below(s, 100);
    struct sfile *f = &s->f[below(s, (uint64_t)s->nf)];
    zc_request *q = &st->q;

    memset(st, 0, sizeof(*st));
    s->n++;
    if (s->resizes && r < 3) {
        st->resize = true;
        st->cap = below(s, s->cap_max + 1);
        s->cap = st->cap;
        return;
    }
    fill(f, q);
    switch (s->profile) {
    case P_SEQUENTIAL:
        if (r < 85)
            make_rw(s, f, false, below(s, 5) != 0, q);
        else if (r < 92)
            make_rw(s, f, true, false, q);
        else
            make_fault(s, f, q);
        break;
    case P_MMAP: {
        /* Storms of scattered faults, then calm (faults and fault-around
         * on resident pages), so that mmap_miss climbs past 100 and comes
         * back again and again: steered by the reference's mmap_miss when
         * there is one, else by turns. */
        const struct rra *ra = s->steer ? steer_ra(s->steer, f) : NULL;
        bool storm = ra ? ra->mmap_miss <= RLOTSAMISS : s->n % 450 < 300;
        uint64_t p = s->steer ? steer_page(s, f) : NO_PAGE;
        if (storm && r < 90) {
            f->fault = below(s, f->npages);
            make_fault(s, f, q);
        } else if (!storm && p != NO_PAGE && r < 60) {
            /* a fault on the page or the next, or fault-around at it */
            f->fault = r < 20 && p + 1 < f->npages ? p + 1 : p;
            if (r < 40) {
                q->offset = f->fault * PS;
                q->length = PS;
                q->flags |= ZC_REQ_MAPPED;
            } else {
                make_around(s, f, q);
            }
        } else if (r < 100 - s->around_weight - 5) {
            make_fault(s, f, q);
        } else if (r < 95) {
            make_around(s, f, q);
        } else {
            make_rw(s, f, false, false, q);
        }
        break;
    }
    case P_LOOP:
        if (r < 80) {
            f = &s->f[0];
            memset(q, 0, sizeof(*q));
            fill(f, q);
            make_loop(s, f, q);
        } else if (r < 90) {
            make_rw(s, f, false, true, q);
        } else if (r < 95) {
            make_fault(s, f, q);
        } else {
            make_rw(s, f, true, false, q);
        }
        break;
    default:
        if (r < 28)
            make_rw(s, f, false, false, q);
        else if (r < 50)
            make_rw(s, f, false, true, q);
        else if (r < 60)
            make_rw(s, f, true, false, q);
        else if (r < 100 - s->around_weight)
            make_fault(s, f, q);
        else
            make_around(s, f, q);
        break;
    }
}

static void step_str(const struct step *st, char *buf, size_t len)
{
    const zc_request *q = &st->q;

    if (st->resize) {
        snprintf(buf, len, "set_page_cache(%llu)", (unsigned long long)st->cap);
        return;
    }
    snprintf(buf, len, "%s%s%s dev %u ino %llu offset %llu length %llu%s%llu",
             q->write ? "write" : "read",
             (q->flags & ZC_REQ_MAPPED) ? " mapped" : "",
             (q->flags & ZC_REQ_AROUND) ? " around" : "", q->dev,
             (unsigned long long)q->ino, (unsigned long long)q->offset,
             (unsigned long long)q->length,
             (q->flags & ZC_REQ_SIZE) ? " file_size " : " no size",
             (q->flags & ZC_REQ_SIZE) ? (unsigned long long)q->file_size
                                      : 0ull);
}

/* ---- the linux model against the reference ----------------------------- */

static void sum_counts(struct rcount *t, const struct rcount *c)
{
    const uint64_t *a = (const uint64_t *)c;
    uint64_t *b = (uint64_t *)t;

    for (size_t i = 0; i < sizeof(*c) / sizeof(uint64_t); i++)
        b[i] += a[i];
}

static void report_difference(uint64_t seed, int profile, int n,
                              const struct step *st, const struct evlog *got,
                              const struct evlog *want, size_t at)
{
    char a[160], b[160], s[256];

    step_str(st, s, sizeof(s));
    print_error("seed %llu (profile %d) request %d: %s\n",
                (unsigned long long)seed, profile, n, s);
    print_error("  event %zu: library %s, reference %s\n", at,
                ev_str(at < got->n ? &got->v[at] : NULL, a, sizeof(a)),
                ev_str(at < want->n ? &want->v[at] : NULL, b, sizeof(b)));
    for (size_t i = 0; i < got->n || i < want->n; i++)
        print_error("  %3zu  library %-44s reference %s\n", i,
                    ev_str(i < got->n ? &got->v[i] : NULL, a, sizeof(a)),
                    ev_str(i < want->n ? &want->v[i] : NULL, b, sizeof(b)));
}

static bool ev_equal(const struct ev *x, const struct ev *y)
{
    return x->kind == y->kind && x->write == y->write &&
           x->active == y->active && x->key == y->key && x->page == y->page;
}

/* The position of the first difference of got and want (got->n if none
 * and they have the same length). */
static size_t first_difference(const struct evlog *got,
                               const struct evlog *want)
{
    size_t i = 0;

    while (i < got->n && i < want->n && ev_equal(&got->v[i], &want->v[i]))
        i++;
    return i;
}

/* One seed: `requests` steps through the library and the reference, the
 * events of each step compared, and the resident counts after it. */
static void compare_seed(uint64_t seed, int profile, int requests,
                         struct rcount *total)
{
    struct evlog got = {0}, want = {0};
    struct stream s;
    struct ref m;
    zc_content *content;
    zc_replay *r;

    stream_init(&s, seed, profile);
    assert_int_equal(zc_content_open("zero", PS, &content, NULL, 0), 0);
    assert_int_equal(zc_replay_create(s.cap, PS, NULL, content, &r), 0);
    assert_int_equal(zc_replay_set_model(r, "linux"), 0);
    assert_int_equal(zc_replay_set_read_ahead(r, s.ra_kb), 0);
    assert_int_equal(zc_replay_sink(r, log_op, &got), 0);
    ref_init(&m, s.cap, s.ra_kb, &want);
    s.steer = &m;
    for (int n = 0; n < requests; n++) {
        struct step st;
        size_t at;

        stream_next(&s, &st);
        got.n = want.n = 0;
        if (st.resize) {
            assert_int_equal(zc_replay_set_page_cache(r, st.cap), 0);
            ref_resize(&m, st.cap);
        } else {
            assert_int_equal(zc_replay_request(r, &st.q), 0);
            ref_request(&m, &st.q);
        }
        at = first_difference(&got, &want);
        if (at < got.n || at < want.n) {
            report_difference(seed, profile, n, &st, &got, &want, at);
            fail_msg("the linux model and the reference differ");
        }
        if (zc_replay_resident(r) != ref_used(&m)) {
            char b[256];
            step_str(&st, b, sizeof(b));
            fail_msg("seed %llu request %d (%s): %llu pages resident, the "
                     "reference holds %llu",
                     (unsigned long long)seed, n, b,
                     (unsigned long long)zc_replay_resident(r),
                     (unsigned long long)ref_used(&m));
        }
    }
    sum_counts(total, &m.c);
    ref_free(&m);
    free(got.v);
    free(want.v);
    zc_replay_destroy(r);
    zc_content_close(content);
}

#define SEEDS_PER_PROFILE 100
#define REQUESTS_PER_SEED 1500

static void test_linux_model_equals_the_reference(void **state)
{
    struct rcount t;
    uint64_t base = zt_env_u64("ZT_PCM_SEED", 1);
    uint64_t seeds = zt_env_u64("ZT_PCM_SEEDS", SEEDS_PER_PROFILE);

    (void)state;
    memset(&t, 0, sizeof(t));
    for (uint64_t i = 0; i < seeds; i++)
        for (int p = 0; p < P_COUNT; p++)
            compare_seed(base + i * P_COUNT + (uint64_t)p, p, REQUESTS_PER_SEED,
                         &t);
    print_message(
        "rules fired: activations %llu, refault activations %llu (too far "
        "%llu), second chance keep %llu activate %llu, deactivations scan "
        "%llu refill %llu, decisions %llu (inactive low %llu, refaults "
        "only %llu), sync new %llu history %llu (from start %llu) small "
        "%llu, async expected %llu interleaved %llu no gap %llu, "
        "read-around %llu, mmap_miss > 100 %llu, mmap_miss down %llu, "
        "same page %llu, fresh %llu, clipped %llu, past end %llu, around "
        "absent %llu readahead %llu workingset %llu, near 100 %llu, "
        "workingset restored %llu, rereads %llu, evictions %llu, aheads "
        "%llu, shrink evictions %llu, refaults of dropped entries %llu\n",
        (unsigned long long)t.access_activations,
        (unsigned long long)t.refault_activations,
        (unsigned long long)t.refaults_too_far,
        (unsigned long long)t.second_chance_keep,
        (unsigned long long)t.second_chance_activate,
        (unsigned long long)t.scan_deactivations,
        (unsigned long long)t.refill_deactivations,
        (unsigned long long)t.decisions, (unsigned long long)t.decisions_low,
        (unsigned long long)t.decisions_refault_only,
        (unsigned long long)t.sync_new, (unsigned long long)t.sync_history,
        (unsigned long long)t.sync_from_start, (unsigned long long)t.sync_small,
        (unsigned long long)t.async_expected,
        (unsigned long long)t.async_interleaved,
        (unsigned long long)t.async_no_gap, (unsigned long long)t.read_around,
        (unsigned long long)t.lots_of_misses,
        (unsigned long long)t.mmap_miss_down,
        (unsigned long long)t.same_page_skips,
        (unsigned long long)t.fresh_visits,
        (unsigned long long)t.clipped_windows, (unsigned long long)t.past_end,
        (unsigned long long)t.around_absent,
        (unsigned long long)t.around_readahead,
        (unsigned long long)t.around_workingset,
        (unsigned long long)t.near_lots,
        (unsigned long long)t.workingset_restored,
        (unsigned long long)t.rereads, (unsigned long long)t.evictions,
        (unsigned long long)t.aheads, (unsigned long long)t.shrinks,
        (unsigned long long)t.refaults_dropped);
    /* Every rule was reached, or the comparison proves nothing of it. */
    assert_true(t.access_activations > 0);
    assert_true(t.refault_activations > 0);
    assert_true(t.refaults_too_far > 0);
    assert_true(t.second_chance_keep > 0);
    assert_true(t.second_chance_activate > 0);
    assert_true(t.scan_deactivations > 0);
    assert_true(t.refill_deactivations > 0);
    assert_true(t.decisions_low > 0);
    assert_true(t.decisions_refault_only > 0);
    assert_true(t.sync_new > 0);
    assert_true(t.sync_history > 0);
    assert_true(t.sync_from_start > 0);
    assert_true(t.sync_small > 0);
    assert_true(t.async_expected > 0);
    assert_true(t.async_interleaved > 0);
    assert_true(t.async_no_gap > 0);
    assert_true(t.read_around > 0);
    assert_true(t.lots_of_misses > 0);
    assert_true(t.mmap_miss_down > 0);
    assert_true(t.same_page_skips > 0);
    assert_true(t.fresh_visits > 0);
    assert_true(t.clipped_windows > 0);
    assert_true(t.past_end > 0);
    assert_true(t.around_absent > 0);
    assert_true(t.around_readahead > 0);
    assert_true(t.shrinks > 0);
    assert_true(t.rereads > 0);
    assert_true(t.windows_cut > 0);
    /* The library drops shadow entries (pcm_linux.c): the streams refault
     * pages whose entries it dropped, and the events above are those of
     * this reference, which keeps every entry; none of them would have
     * been activated. */
    assert_true(t.refaults_dropped > 0);
    assert_int_equal(t.dropped_activations, 0);
}

/* ---- the linux model on streams worked out by hand from the essay ------- */

struct op_text {
    char s[1024];
};

static int text_op(void *ctx, const zc_op *op)
{
    struct op_text *t = ctx;
    size_t n = strlen(t->s);
    struct ev e;

    if (!op_event(op, &e))
        return 0;
    if (e.kind == EV_HIT && !e.write)
        snprintf(t->s + n, sizeof(t->s) - n, " H");
    else
        snprintf(t->s + n, sizeof(t->s) - n, " %c%llu%s",
                 e.kind == EV_HIT     ? 'w'
                 : e.kind == EV_MISS  ? (e.write ? 'W' : 'G')
                 : e.kind == EV_AHEAD ? 'A'
                                      : 'P',
                 (unsigned long long)e.page, e.active ? "!" : "");
    return 0;
}

/* One request of a hand-made stream and the ops it must make: H a read
 * hit, Gn a read miss of page n, An readahead, Wn / wn a write miss /
 * hit, Pn a put (Pn! active). */
struct hand_step {
    char kind; /* r read(2), f fault, a fault-around, w write */
    uint64_t first, pages;
    const char *ops;
};

static void run_hand(uint64_t cap, uint64_t ra_kb, uint64_t size_pages,
                     const struct hand_step *steps, size_t n)
{
    struct op_text t;
    zc_content *content;
    zc_replay *r;

    assert_int_equal(zc_content_open("zero", PS, &content, NULL, 0), 0);
    assert_int_equal(zc_replay_create(cap, PS, NULL, content, &r), 0);
    assert_int_equal(zc_replay_set_model(r, "linux"), 0);
    assert_int_equal(zc_replay_set_read_ahead(r, ra_kb), 0);
    assert_int_equal(zc_replay_sink(r, text_op, &t), 0);
    for (size_t i = 0; i < n; i++) {
        zc_request q = {.dev = FILE_DEV, .ino = 5};
        q.offset = steps[i].first * PS;
        q.length = steps[i].pages * PS;
        q.write = steps[i].kind == 'w';
        if (steps[i].kind == 'f')
            q.flags |= ZC_REQ_MAPPED;
        if (steps[i].kind == 'a')
            q.flags |= ZC_REQ_MAPPED | ZC_REQ_AROUND;
        if (size_pages) {
            q.flags |= ZC_REQ_SIZE;
            q.file_size = size_pages * PS;
        }
        t.s[0] = '\0';
        assert_int_equal(zc_replay_request(r, &q), 0);
        if (strcmp(t.s[0] ? t.s + 1 : t.s, steps[i].ops) != 0)
            fail_msg("step %zu (%c page %llu, %llu pages): ops \"%s\", "
                     "want \"%s\"",
                     i, steps[i].kind, (unsigned long long)steps[i].first,
                     (unsigned long long)steps[i].pages, t.s[0] ? t.s + 1 : "",
                     steps[i].ops);
    }
    zc_replay_destroy(r);
    zc_content_close(content);
}

#define RUN_HAND(cap, kb, size, steps)                                         \
    run_hand(cap, kb, size, steps, sizeof(steps) / sizeof(steps[0]))

/* Two pages read twice are active; a scan of new pages through a cache of
 * 4 passes them by (the inactive list is not low: 2 against 2), where an
 * LRU would have lost them. */
static void test_linux_active_pages_survive_a_scan(void **state)
{
    static const struct hand_step s[] = {
        {'r', 0, 1, "G0"},    {'r', 1, 1, "G1"},    {'r', 0, 1, "H"},
        {'r', 1, 1, "H"},     {'r', 2, 1, "G2"},    {'r', 3, 1, "G3"},
        {'r', 4, 1, "P2 G4"}, {'r', 5, 1, "P3 G5"}, {'r', 6, 1, "P4 G6"},
        {'r', 0, 1, "H"},     {'r', 1, 1, "H"},
    };
    (void)state;
    RUN_HAND(4, 0, 0, s);
}

/* A page evicted and read again within the active list's size of
 * evictions comes back active (workingset_refault()). */
static void test_linux_recent_refault_is_activated(void **state)
{
    /* ages: activations of 0 and 1 -> 2; 2 evicted at 2 (-> 3), 3 at 3
     * (-> 4); 2 back: distance 4 - 2 = 2 <= 2 active pages: active.
     * Then 4 and 5 go, 2 stays. */
    static const struct hand_step s[] = {
        {'r', 0, 1, "G0"},    {'r', 1, 1, "G1"},    {'r', 0, 1, "H"},
        {'r', 1, 1, "H"},     {'r', 2, 1, "G2"},    {'r', 3, 1, "G3"},
        {'r', 4, 1, "P2 G4"}, {'r', 2, 1, "P3 G2"}, {'r', 5, 1, "P4 G5"},
        {'r', 6, 1, "P5 G6"}, {'r', 2, 1, "H"},
    };
    (void)state;
    RUN_HAND(4, 0, 0, s);
}

/* A mapped page at the inactive tail with its accessed bit set goes back
 * once (PG_referenced set); young again while referenced, it is
 * activated. */
static void test_linux_mapped_pages_get_a_second_chance(void **state)
{
    static const struct hand_step once[] = {
        {'f', 0, 1, "G0"},
        {'r', 1, 1, "G1"},
        {'r', 2, 1, "P1 G2"}, /* 0 young: back to the head, 1 goes */
        {'r', 3, 1, "P0 G3"}, /* 0 referenced but not young: goes */
    };
    static const struct hand_step twice[] = {
        {'f', 0, 1, "G0"},
        {'f', 0, 1, "H"},
        {'r', 1, 1, "G1"},
        {'r', 2, 1, "P1 G2"},
        {'f', 0, 1, "H"},
        {'r', 3, 1, "P2 G3"}, /* 0 young and referenced: activated */
        {'r', 4, 1, "P3 G4"},
        {'f', 0, 1, "H"},
    };
    (void)state;
    RUN_HAND(2, 0, 0, once);
    RUN_HAND(2, 0, 0, twice);
}

/* read_ahead_kb 128 (32 pages), a file of 64 pages: the first read opens
 * a window of 4 pages marked at page 1; reaching it moves the window on
 * (8 pages from 4, marked at 4), then 16 from 12. */
static void test_linux_sequential_reads_ramp_the_window_up(void **state)
{
    static const struct hand_step s[] = {
        {'r', 0, 1, "G0 A1 A2 A3"},
        {'r', 1, 1, "H A4 A5 A6 A7 A8 A9 A10 A11"},
        {'r', 2, 1, "H"},
        {'r', 4, 1,
         "H A12 A13 A14 A15 A16 A17 A18 A19 A20 A21 A22 A23 A24 A25 A26 "
         "A27"},
        /* page 40: not next to where the previous read ended (page 4),
         * and page 39 is not resident: a small random read, the page
         * alone and no new window */
        {'r', 40, 1, "G40"},
        /* a fault: read-around, 32 pages from 50 - 16, clipped to the
         * file, skipping what is resident */
        {'f', 50, 1,
         "A34 A35 A36 A37 A38 A39 A41 A42 A43 A44 A45 A46 A47 A48 A49 "
         "G50 A51 A52 A53 A54 A55 A56 A57 A58 A59 A60 A61 A62 A63"},
    };
    (void)state;
    RUN_HAND(64, 128, 64, s);
}

/* A write brings a page in without readahead and marks nothing; a write
 * hit makes the put active; fault-around counts only pages held. */
static void test_linux_writes_and_fault_around(void **state)
{
    static const struct hand_step s[] = {
        {'w', 0, 2, "W0 W1"},
        {'w', 1, 1, "w1"},
        {'a', 0, 4, "H H"},
        /* 0 and 1 young (mapped by fault-around): both go round once */
        {'r', 4, 1, "P0! G4"},
        {'r', 5, 1, "P1! G5"},
    };
    (void)state;
    RUN_HAND(2, 128, 0, s);
}

/* Reading a page twice in a row marks it once (the second read begins in
 * the page where the first ended): it is not activated, and goes first. */
static void test_linux_rereading_the_last_page_marks_it_once(void **state)
{
    static const struct hand_step s[] = {
        {'r', 0, 1, "G0"},
        {'r', 0, 1, "H"},
        {'r', 1, 1, "G1"},
        {'r', 2, 1, "P0! G2"},
    };
    static const struct hand_step other[] = {
        {'r', 0, 1, "G0"},
        {'r', 1, 1, "G1"},
        {'r', 0, 1, "H"},
        {'r', 2, 1, "P1 G2"}, /* 0 was activated */
    };
    (void)state;
    RUN_HAND(2, 0, 0, s);
    RUN_HAND(2, 0, 0, other);
}

/* ---- every model: the rules of pcm.h, from the op stream alone ------------
 */

#define TRACK_PAGES 32 /* pages of one request, at most */

struct held {
    uint64_t key, page;
    bool unseen; /* came in by readahead, no read hit since: it may still
                    carry PG_readahead, which fault-around skips */
};

/* What the op stream says the page cache holds, and how the current
 * request's pages were counted.  The first broken rule stops the replay
 * (the sink returns an error) and is kept in err. */
struct track {
    bool reads_ahead; /* the linux model with a readahead limit */
    struct held *h;
    size_t n, cap;
    bool in_request, write, mapped, around;
    uint64_t key, first, last;
    uint8_t count[TRACK_PAGES];
    bool evicted[TRACK_PAGES];
    char err[512];
    uint64_t read_hits, read_misses, aheads, write_hits, write_misses, puts;
    uint64_t rereads, around_neither, around_skipped_resident;
};

static long held_find(const struct track *t, uint64_t key, uint64_t page)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->h[i].key == key && t->h[i].page == page)
            return (long)i;
    return -1;
}

static void held_add(struct track *t, uint64_t key, uint64_t page, bool unseen)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        t->h = realloc(t->h, t->cap * sizeof(*t->h));
        assert_non_null(t->h);
    }
    t->h[t->n++] = (struct held){key, page, unseen};
}

static int broke(struct track *t, const char *fmt, const struct ev *e)
{
    char b[160];

    if (!t->err[0])
        snprintf(t->err, sizeof(t->err), "%s: %s", fmt,
                 ev_str(e, b, sizeof(b)));
    return -ZC_EINVAL;
}

static bool in_request(const struct track *t, const struct ev *e)
{
    return t->in_request && e->key == t->key && e->page >= t->first &&
           e->page <= t->last;
}

/* A requested page counted (hit or miss). */
static int count_page(struct track *t, const struct ev *e)
{
    size_t i = (size_t)(e->page - t->first);

    if (!in_request(t, e))
        return broke(t, "a hit or miss of a page not requested", e);
    if (t->count[i] == 0) {
        t->count[i] = 1;
        return 0;
    }
    return broke(t, "a requested page counted twice", e);
}

static int track_op(void *ctx, const zc_op *op)
{
    struct track *t = ctx;
    struct ev e;
    long k;

    if (t->err[0])
        return -ZC_EINVAL;
    if (!op_event(op, &e))
        return 0;
    if (e.kind == EV_HIT && !e.write) {
        /* PC_HITS names no page: it is the request's lowest page not
         * counted yet (pages are taken in ascending order). */
        size_t i = 0;
        if (!t->in_request)
            return broke(t, "a hit outside a request", &e);
        while (t->first + i <= t->last && t->count[i])
            i++;
        if (t->first + i > t->last)
            return broke(t, "a hit with every requested page counted", &e);
        e.key = t->key;
        e.page = t->first + i;
    }
    k = held_find(t, e.key, e.page);
    switch (e.kind) {
    case EV_HIT:
        if (k < 0)
            return broke(t, "a hit of a page not resident", &e);
        if (!e.write)
            t->h[k].unseen = false;
        e.write ? t->write_hits++ : t->read_hits++;
        return count_page(t, &e);
    case EV_MISS:
        if (k >= 0)
            return broke(t, "a miss of a resident page", &e);
        if (e.write != t->write)
            return broke(t, "a miss of the wrong kind", &e);
        /* a fault's page may carry the mark of its read-around window */
        held_add(t, e.key, e.page, t->mapped);
        e.write ? t->write_misses++ : t->read_misses++;
        return count_page(t, &e);
    case EV_AHEAD:
        if (k >= 0)
            return broke(t, "readahead of a resident page", &e);
        if (!t->in_request || t->write || e.key != t->key)
            return broke(t, "readahead but for a read of its file", &e);
        if (in_request(t, &e) && !t->mapped) {
            /* a page of this read(2) read again: only one counted and
             * evicted since (pcm.h: the request's own window) */
            size_t i = (size_t)(e.page - t->first);
            if (!t->count[i] || !t->evicted[i])
                return broke(t, "readahead of a requested page not yet "
                                "counted, or not evicted",
                             &e);
            t->evicted[i] = false;
            t->rereads++;
        }
        held_add(t, e.key, e.page, true);
        t->aheads++;
        return 0;
    default:
        if (k < 0)
            return broke(t, "a put of a page not resident", &e);
        t->h[k] = t->h[--t->n];
        if (in_request(t, &e))
            t->evicted[e.page - t->first] = true;
        t->puts++;
        return 0;
    }
}

static void track_fail(const struct track *t, const char *model, uint64_t seed,
                       int n, const struct step *st, const char *what)
{
    char b[256];

    step_str(st, b, sizeof(b));
    fail_msg("model %s seed %llu request %d (%s): %s", model,
             (unsigned long long)seed, n, b, t->err[0] ? t->err : what);
}

/* One step through a replay and its tracker, every rule checked. */
static void track_step(zc_replay *r, struct track *t, const struct step *st,
                       uint64_t cap, const char *model, uint64_t seed, int n)
{
    uint64_t before = t->n, puts = t->puts;
    bool held_before = false, unseen_before = false;
    int rc;

    if (st->resize) {
        uint64_t want = st->cap < before ? st->cap : before;
        rc = zc_replay_set_page_cache(r, st->cap);
        if (rc || t->err[0])
            track_fail(t, model, seed, n, st, "the resize failed");
        if (zc_replay_resident(r) != want || t->n != want ||
            t->puts - puts != before - want)
            track_fail(t, model, seed, n, st,
                       "a shrink to k pages must leave min(k, before)");
        return;
    }
    t->in_request = true;
    t->write = st->q.write;
    t->mapped = (st->q.flags & ZC_REQ_MAPPED) != 0;
    t->around = t->mapped && (st->q.flags & ZC_REQ_AROUND);
    t->key = st->q.ino ? st->q.ino : st->q.dev;
    t->first = st->q.offset / PS;
    t->last = (st->q.offset + st->q.length - 1) / PS;
    assert_true(t->last - t->first < TRACK_PAGES);
    memset(t->count, 0, sizeof(t->count));
    memset(t->evicted, 0, sizeof(t->evicted));
    if (t->around) {
        long k = held_find(t, t->key, t->first);
        assert_int_equal(t->first, t->last); /* one page: see below */
        held_before = k >= 0;
        unseen_before = k >= 0 && t->h[k].unseen;
    }
    rc = zc_replay_request(r, &st->q);
    t->in_request = false;
    if (rc || t->err[0])
        track_fail(t, model, seed, n, st, "the request failed");
    for (uint64_t p = t->first; p <= t->last; p++) {
        if (t->count[p - t->first])
            continue;
        if (!t->around)
            track_fail(t, model, seed, n, st, "a requested page not counted");
        /* pcm.h: a fault-around page a model does not hold may be
         * neither; one it holds is a hit, unless it may carry
         * PG_readahead, which the kernel's fault-around does not map
         * (pcm_linux.c's essay; pcm.h's wording covers only pages not
         * held). */
        if (held_before && !unseen_before)
            track_fail(t, model, seed, n, st,
                       "fault-around of a resident page counted nothing");
        t->around_neither++;
        t->around_skipped_resident += held_before;
    }
    if (zc_replay_resident(r) != t->n)
        track_fail(t, model, seed, n, st,
                   "the resident count is not what the ops say");
    if (t->n > cap)
        track_fail(t, model, seed, n, st, "more pages than the capacity");
}

/* A replay of `model` with a tracker as its sink. */
static zc_replay *tracked_replay(const char *model, uint64_t cap,
                                 uint64_t ra_kb, zc_content *content,
                                 struct track *t)
{
    zc_replay *r;

    memset(t, 0, sizeof(*t));
    t->reads_ahead = strcmp(model, "linux") == 0 && ra_kb > 0;
    assert_int_equal(zc_replay_create(cap, PS, NULL, content, &r), 0);
    assert_int_equal(zc_replay_set_model(r, model), 0);
    assert_int_equal(zc_replay_set_read_ahead(r, ra_kb), 0);
    assert_int_equal(zc_replay_sink(r, track_op, t), 0);
    return r;
}

/* The next step of s for the conformance runs: fault-around one page at a
 * time, so that a PC_HITS op (which names no page) belongs to it. */
static void conformance_step(struct stream *s, struct step *st)
{
    stream_next(s, st);
    if (!st->resize && (st->q.flags & ZC_REQ_AROUND))
        st->q.length = PS;
}

/* Run one seed of a profile through `model`, every rule checked; the
 * totals of the tracker added to *sum.  With no_resize, the capacity stays
 * `cap` (UINT64_MAX: the stream's). */
static void conformance_seed(const char *model, uint64_t seed, int profile,
                             int requests, uint64_t cap, uint64_t ra_kb,
                             bool no_around, struct track *sum)
{
    struct stream s;
    struct track t;
    zc_content *content;
    zc_replay *r, *fast;
    zc_replay_stats st;

    stream_init(&s, seed, profile);
    if (cap != UINT64_MAX) {
        s.cap = cap;
        s.resizes = false;
    }
    if (ra_kb != UINT64_MAX)
        s.ra_kb = ra_kb;
    assert_int_equal(zc_content_open("zero", PS, &content, NULL, 0), 0);
    r = tracked_replay(model, s.cap, s.ra_kb, content, &t);
    /* The same stream without a sink or a zcache: the replay counts
     * without making ops, and must count what the ops say. */
    assert_int_equal(zc_replay_create(s.cap, PS, NULL, NULL, &fast), 0);
    assert_int_equal(zc_replay_set_model(fast, model), 0);
    assert_int_equal(zc_replay_set_read_ahead(fast, s.ra_kb), 0);
    for (int n = 0; n < requests; n++) {
        struct step step;
        conformance_step(&s, &step);
        if (no_around && !step.resize && (step.q.flags & ZC_REQ_AROUND))
            step.q.flags &= ~ZC_REQ_AROUND;
        track_step(r, &t, &step, s.cap, model, seed, n);
        if (step.resize)
            assert_int_equal(zc_replay_set_page_cache(fast, step.cap), 0);
        else
            assert_int_equal(zc_replay_request(fast, &step.q), 0);
    }
    /* pc_hits + gets not ahead + write accesses = the page accesses (the
     * requested pages, less fault-around pages counted as neither) */
    assert_int_equal(zc_replay_stats_get(fast, &st), 0);
    assert_int_equal(st.pc_hits, t.read_hits + t.write_hits);
    assert_int_equal(st.accesses, t.read_hits + t.read_misses + t.write_hits +
                                      t.write_misses);
    assert_int_equal(st.reads, t.read_hits + t.read_misses);
    assert_int_equal(st.writes, t.write_hits + t.write_misses);
    assert_int_equal(st.readahead, t.aheads);
    assert_int_equal(st.pc_evictions, t.puts);
    assert_int_equal(zc_replay_resident(fast), zc_replay_resident(r));
    sum->read_hits += t.read_hits;
    sum->read_misses += t.read_misses;
    sum->write_hits += t.write_hits;
    sum->write_misses += t.write_misses;
    sum->aheads += t.aheads;
    sum->puts += t.puts;
    sum->rereads += t.rereads;
    sum->around_neither += t.around_neither;
    sum->around_skipped_resident += t.around_skipped_resident;
    free(t.h);
    zc_replay_destroy(fast);
    zc_replay_destroy(r);
    zc_content_close(content);
}

static size_t model_count(void)
{
    size_t n = 0;

    while (zc_page_cache_model_name(n))
        n++;
    return n;
}

static void test_registry_lists_lru_first_then_linux(void **state)
{
    size_t n = model_count();
    bool linux_found = false;

    (void)state;
    assert_true(n >= 2);
    assert_string_equal(zc_page_cache_model_name(0), "lru");
    for (size_t i = 0; i < n; i++) {
        assert_non_null(zc_page_cache_model_doc(i));
        assert_true(strlen(zc_page_cache_model_doc(i)) > 0);
        linux_found |= strcmp(zc_page_cache_model_name(i), "linux") == 0;
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(zc_page_cache_model_name(i),
                                    zc_page_cache_model_name(j));
    }
    assert_true(linux_found);
    assert_null(zc_page_cache_model_name(n));
    assert_null(zc_page_cache_model_doc(n));
}

#define CONFORMANCE_SEEDS 12
#define CONFORMANCE_REQUESTS 1000

static void test_every_model_keeps_the_rules_of_pcm_h(void **state)
{
    (void)state;
    for (size_t i = 0; zc_page_cache_model_name(i); i++) {
        const char *model = zc_page_cache_model_name(i);
        struct track sum;
        memset(&sum, 0, sizeof(sum));
        for (uint64_t seed = 1; seed <= CONFORMANCE_SEEDS; seed++)
            for (int p = 0; p < P_COUNT; p++)
                conformance_seed(model, 1000 + seed * P_COUNT + (uint64_t)p, p,
                                 CONFORMANCE_REQUESTS, UINT64_MAX, UINT64_MAX,
                                 false, &sum);
        print_message(
            "%s: read hits %llu misses %llu, write hits %llu "
            "misses %llu, readahead %llu, puts %llu, fault-around "
            "neither %llu (of resident pages %llu), requested pages "
            "read again %llu\n",
            model, (unsigned long long)sum.read_hits,
            (unsigned long long)sum.read_misses,
            (unsigned long long)sum.write_hits,
            (unsigned long long)sum.write_misses,
            (unsigned long long)sum.aheads, (unsigned long long)sum.puts,
            (unsigned long long)sum.around_neither,
            (unsigned long long)sum.around_skipped_resident,
            (unsigned long long)sum.rereads);
        assert_true(sum.read_hits > 0 && sum.read_misses > 0);
        assert_true(sum.write_hits > 0 && sum.write_misses > 0);
        assert_true(sum.puts > 0);
    }
}

static void test_capacity_zero_holds_nothing(void **state)
{
    (void)state;
    for (size_t i = 0; zc_page_cache_model_name(i); i++) {
        struct track sum;
        memset(&sum, 0, sizeof(sum));
        for (uint64_t seed = 1; seed <= 4; seed++)
            for (int p = 0; p < P_COUNT; p++)
                conformance_seed(zc_page_cache_model_name(i),
                                 2000 + seed * P_COUNT + (uint64_t)p, p, 300, 0,
                                 128, false, &sum);
        /* track_step checked resident == 0 after every request */
        assert_int_equal(sum.read_hits + sum.write_hits, 0);
        assert_int_equal(sum.puts,
                         sum.read_misses + sum.write_misses + sum.aheads);
        assert_true(sum.read_misses > 0);
    }
}

/* With no page cache the linux model makes no readahead window: each page
 * of a read and of a fault passes through alone.  A window of the largest
 * readahead (2^20 pages) for every page of a 2^20-page request on a file
 * of 2^64 - 1 bytes was 2^41 steps: this test did not finish. */
static void test_linux_capacity_zero_reads_no_window(void **state)
{
    static const uint32_t flags[] = {0, ZC_REQ_MAPPED};
    zc_replay_stats st;
    zc_replay *r;

    (void)state;
    assert_int_equal(zc_replay_create(0, PS, NULL, NULL, &r), 0);
    assert_int_equal(zc_replay_set_model(r, "linux"), 0);
    assert_int_equal(zc_replay_set_read_ahead(r, 1u << 22), 0);
    for (size_t i = 0; i < 2; i++) {
        zc_request q = {.dev = FILE_DEV, .ino = 5 + i};
        q.offset = 0;
        q.length = (uint64_t)PS << 20;
        q.flags = flags[i] | ZC_REQ_SIZE;
        q.file_size = UINT64_MAX;
        assert_int_equal(zc_replay_request(r, &q), 0);
    }
    assert_int_equal(zc_replay_stats_get(r, &st), 0);
    assert_int_equal(st.accesses, 2u << 20);
    assert_int_equal(st.pc_hits, 0);
    assert_int_equal(st.readahead, 0);
    assert_int_equal(st.pc_evictions, 2u << 20);
    assert_int_equal(zc_replay_resident(r), 0);
    zc_replay_destroy(r);
}

/* A cache larger than every page touched, no readahead, no fault-around:
 * each distinct page misses once, nothing is evicted. */
static void test_a_large_cache_misses_each_page_once(void **state)
{
    (void)state;
    for (size_t i = 0; zc_page_cache_model_name(i); i++) {
        for (uint64_t seed = 1; seed <= 8; seed++) {
            int p = (int)(seed % P_COUNT);
            struct stream s;
            struct track sum, t;
            uint64_t *seen = NULL, nseen = 0;
            zc_content *content;
            zc_replay *r;

            memset(&sum, 0, sizeof(sum));
            stream_init(&s, 3000 + seed, p);
            s.resizes = false;
            assert_int_equal(zc_content_open("zero", PS, &content, NULL, 0), 0);
            r = tracked_replay(zc_page_cache_model_name(i), 4096, 0, content,
                               &t);
            for (int n = 0; n < 800; n++) {
                struct step st;
                conformance_step(&s, &st);
                if (st.q.flags & ZC_REQ_AROUND)
                    continue;
                track_step(r, &t, &st, 4096, zc_page_cache_model_name(i), seed,
                           n);
                for (uint64_t pg = st.q.offset / PS;
                     pg <= (st.q.offset + st.q.length - 1) / PS; pg++) {
                    uint64_t key = (st.q.ino ? st.q.ino : st.q.dev) << 32 | pg;
                    uint64_t j;
                    for (j = 0; j < nseen && seen[j] != key; j++)
                        ;
                    if (j == nseen) {
                        seen = realloc(seen, (nseen + 1) * sizeof(*seen));
                        assert_non_null(seen);
                        seen[nseen++] = key;
                    }
                }
            }
            assert_int_equal(t.read_misses + t.write_misses, nseen);
            assert_int_equal(t.puts, 0);
            assert_int_equal(t.aheads, 0);
            assert_int_equal(zc_replay_resident(r), nseen);
            free(seen);
            free(t.h);
            zc_replay_destroy(r);
            zc_content_close(content);
        }
    }
}

/* ---- memory: what a model keeps follows the cache, not the trace -------- */

#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
#define HAVE_MALLINFO2 1
/* Heap bytes in use: glibc's chunks in use in its arenas and the mmapped
 * ones (the test allocates nothing between two looks but the replay). */
static size_t heap_in_use(void)
{
    struct mallinfo2 mi = mallinfo2();

    return mi.uordblks + mi.hblkhd;
}
#endif

#define SCAN_CAP 1000u
/* The most heap a page of capacity may take, all of a replay's tables
 * together: the resident set, the shadow entries and their order, the
 * pages read ahead (the bounded ones take about 200). */
#define SCAN_BYTES_PER_PAGE 512u

/* A scan of `pages` distinct pages through a cache of SCAN_CAP pages,
 * read 32 at a time: a block device's (no readahead), or a file's whose
 * size the requests carry (readahead).  Its largest heap use over the
 * replay's, looked at every 2^16 pages. */
static size_t scan_heap(const char *model, bool file, uint64_t pages)
{
#ifdef HAVE_MALLINFO2
    size_t before = heap_in_use(), peak = before;
    zc_replay_stats st;
    zc_replay *r;

    assert_int_equal(zc_replay_create(SCAN_CAP, PS, NULL, NULL, &r), 0);
    assert_int_equal(zc_replay_set_model(r, model), 0);
    for (uint64_t p = 0; p < pages; p += 32) {
        zc_request q;
        memset(&q, 0, sizeof(q));
        q.dev = file ? FILE_DEV : BLOCK_DEV;
        q.ino = file ? 12 : 0;
        q.offset = p * PS;
        q.length = 32 * PS;
        if (file) {
            q.flags = ZC_REQ_SIZE;
            q.file_size = pages * PS;
        }
        assert_int_equal(zc_replay_request(r, &q), 0);
        if (!(p & 0xFFFF) || p + 32 >= pages) {
            size_t h = heap_in_use();
            peak = h > peak ? h : peak;
        }
    }
    assert_int_equal(zc_replay_stats_get(r, &st), 0);
    assert_int_equal(st.accesses, pages);
    assert_true(st.pc_evictions >= pages - SCAN_CAP);
    /* linux reads a file's pages ahead of their reads */
    if (file && strcmp(model, "linux") == 0)
        assert_true(st.readahead > pages / 2);
    zc_replay_destroy(r);
    return peak - before;
#else
    (void)model, (void)file, (void)pages;
    skip();
    return 0;
#endif
}

/* A scan never comes back, so nothing of a page it evicted can matter
 * again: the linux model's shadow entries and the replay's map of pages
 * read ahead once grew by every page of the trace (1.18 GB for 16M pages
 * through 1000, against 2.3 MB for lru); now every model stays within a
 * fixed cost per page of capacity, however long the scan. */
static void test_a_scan_costs_memory_by_the_cache_not_the_trace(void **state)
{
    uint64_t pages = zt_scale(4u << 20, 1u << 19); /* quick: 512K */

    (void)state;
    for (size_t i = 0; zc_page_cache_model_name(i); i++)
        for (int file = 0; file < 2; file++) {
            const char *model = zc_page_cache_model_name(i);
            size_t used = scan_heap(model, file, pages);
            print_message("%s, %s scan of %llu pages through %u: %zu bytes "
                          "(%zu a page of capacity)\n",
                          model, file ? "a file's" : "a device's",
                          (unsigned long long)pages, SCAN_CAP, used,
                          used / SCAN_CAP);
            if (used > (size_t)SCAN_CAP * SCAN_BYTES_PER_PAGE)
                fail_msg("%s: a %s scan of %llu pages through a cache of %u "
                         "took %zu bytes, more than %u a page of capacity",
                         model, file ? "file" : "device",
                         (unsigned long long)pages, SCAN_CAP, used,
                         SCAN_BYTES_PER_PAGE);
        }
}

static void test_set_model_and_read_ahead_check_their_arguments(void **state)
{
    zc_replay *r;
    zc_request q = {.dev = FILE_DEV, .ino = 7, .offset = 0, .length = PS};
    zc_adapt_options o = {0};
    zc_content *content;
    zc_cache *zc;

    (void)state;
    assert_int_equal(zc_replay_create(16, PS, NULL, NULL, &r), 0);
    assert_int_equal(zc_replay_set_model(r, "no-such-model"), -ZC_EINVAL);
    assert_int_equal(zc_replay_set_model(r, NULL), -ZC_EINVAL);
    assert_int_equal(zc_replay_set_model(NULL, "linux"), -ZC_EINVAL);
    assert_int_equal(zc_replay_set_model(r, ""), -ZC_EINVAL);
    assert_int_equal(zc_replay_set_model(r, "Linux"), -ZC_EINVAL);
    for (size_t i = 0; zc_page_cache_model_name(i); i++)
        assert_int_equal(zc_replay_set_model(r, zc_page_cache_model_name(i)),
                         0);
    assert_int_equal(zc_replay_set_read_ahead(NULL, 128), -ZC_EINVAL);
    assert_int_equal(zc_replay_set_read_ahead(r, (1u << 22) + 1), -ZC_EINVAL);
    assert_int_equal(zc_replay_set_read_ahead(r, UINT64_MAX), -ZC_EINVAL);
    assert_int_equal(zc_replay_set_read_ahead(r, 1u << 22), 0);
    assert_int_equal(zc_replay_set_read_ahead(r, 0), 0);
    assert_int_equal(zc_replay_set_read_ahead(r, 128), 0);
    assert_int_equal(zc_replay_request(r, &q), 0);
    assert_int_equal(zc_replay_set_model(r, "lru"), -ZC_EINVAL);
    assert_int_equal(zc_replay_set_model(r, "linux"), -ZC_EINVAL);
    assert_int_equal(zc_replay_set_read_ahead(r, 16), -ZC_EINVAL);
    zc_replay_destroy(r);

    /* not after zc_replay_adapt() either */
    assert_int_equal(zc_content_open("zero", PS, &content, NULL, 0), 0);
    zc = zt_cache_new("capacity=1M", NULL);
    assert_int_equal(zc_replay_create(0, PS, zc, content, &r), 0);
    o.memory_bytes = 1 << 20;
    assert_int_equal(zc_replay_adapt(r, &o), 0);
    assert_int_equal(zc_replay_set_model(r, "linux"), -ZC_EINVAL);
    assert_int_equal(zc_replay_set_model(r, "lru"), -ZC_EINVAL);
    zc_replay_destroy(r);
    zc_cache_destroy(zc);
    zc_content_close(content);
}

/* The readahead limit and the model are independent settings: either
 * order gives the same replay, and 0 turns readahead off. */
static void test_read_ahead_survives_a_model_change(void **state)
{
    static const zc_request q = {.dev = FILE_DEV,
                                 .ino = 7,
                                 .offset = 0,
                                 .length = PS,
                                 .flags = ZC_REQ_SIZE,
                                 .file_size = 64 * PS};
    zc_replay *a, *b, *off;
    zc_replay_stats sa, sb, so;

    (void)state;
    assert_int_equal(zc_replay_create(64, PS, NULL, NULL, &a), 0);
    assert_int_equal(zc_replay_create(64, PS, NULL, NULL, &b), 0);
    assert_int_equal(zc_replay_create(64, PS, NULL, NULL, &off), 0);
    assert_int_equal(zc_replay_set_model(a, "linux"), 0);
    assert_int_equal(zc_replay_set_read_ahead(a, 32), 0);
    assert_int_equal(zc_replay_set_read_ahead(b, 32), 0);
    assert_int_equal(zc_replay_set_model(b, "linux"), 0);
    assert_int_equal(zc_replay_set_read_ahead(off, 0), 0);
    assert_int_equal(zc_replay_set_model(off, "linux"), 0);
    assert_int_equal(zc_replay_request(a, &q), 0);
    assert_int_equal(zc_replay_request(b, &q), 0);
    assert_int_equal(zc_replay_request(off, &q), 0);
    assert_int_equal(zc_replay_stats_get(a, &sa), 0);
    assert_int_equal(zc_replay_stats_get(b, &sb), 0);
    assert_int_equal(zc_replay_stats_get(off, &so), 0);
    /* A first read of page 0, one page wanted: a window of 2 pages with a
     * limit of 8 (get_init_ra_size()); 4 with the default 32. */
    assert_int_equal(sa.readahead, 1);
    assert_int_equal(sb.readahead, 1);
    assert_int_equal(zc_replay_resident(a), 2);
    assert_int_equal(so.readahead, 0);
    assert_int_equal(zc_replay_resident(off), 1);
    zc_replay_destroy(a);
    zc_replay_destroy(b);
    zc_replay_destroy(off);
}

/* ---- the linux model in front of a zcache ------------------------------- */

struct opcount {
    uint64_t read_hits, read_misses, aheads, write_hits, write_misses, puts;
};

static int count_op(void *ctx, const zc_op *op)
{
    struct opcount *c = ctx;
    struct ev e;

    if (!op_event(op, &e))
        return 0;
    switch (e.kind) {
    case EV_HIT: e.write ? c->write_hits++ : c->read_hits++; break;
    case EV_MISS: e.write ? c->write_misses++ : c->read_misses++; break;
    case EV_AHEAD: c->aheads++; break;
    default: c->puts++; break;
    }
    return 0;
}

/* A zcache (the default configuration) behind the linux model, contents
 * synthetic, verification on: no get returns bytes other than the page's
 * latest, and the counters are those of the op stream, and those of the
 * same replay without a zcache. */
static void test_linux_model_before_a_zcache_serves_latest_bytes(void **state)
{
    zc_config cfg = zc_config_default();
    struct opcount c = {0};
    zc_replay_stats st, fst;
    zc_content *content;
    zc_replay *r, *fast;
    zc_cache *zc;
    uint64_t requests = 0, accesses;

    (void)state;
    assert_int_equal(zc_cache_create(&cfg, &zc), 0);
    assert_int_equal(zc_content_open("synth:7", PS, &content, NULL, 0), 0);
    assert_int_equal(zc_replay_create(24, PS, zc, content, &r), 0);
    assert_int_equal(zc_replay_set_model(r, "linux"), 0);
    assert_int_equal(zc_replay_set_read_ahead(r, 128), 0);
    zc_replay_verify(r, true);
    assert_int_equal(zc_replay_sink(r, count_op, &c), 0);
    assert_int_equal(zc_replay_create(24, PS, NULL, NULL, &fast), 0);
    assert_int_equal(zc_replay_set_model(fast, "linux"), 0);
    assert_int_equal(zc_replay_set_read_ahead(fast, 128), 0);
    for (int p = 0; p < P_COUNT; p++) {
        struct stream s;
        stream_init(&s, 77 + (uint64_t)p, p);
        for (int n = 0; n < 2500; n++) {
            struct step step;
            stream_next(&s, &step);
            if (step.resize) {
                assert_int_equal(zc_replay_set_page_cache(r, step.cap), 0);
                assert_int_equal(zc_replay_set_page_cache(fast, step.cap), 0);
                continue;
            }
            /* writes and reads of the same pages: new versions */
            assert_int_equal(zc_replay_request(r, &step.q), 0);
            assert_int_equal(zc_replay_request(fast, &step.q), 0);
            requests++;
        }
    }
    assert_int_equal(zc_replay_stats_get(r, &st), 0);
    assert_int_equal(zc_replay_stats_get(fast, &fst), 0);
    assert_int_equal(zc_cache_check(zc), 0);
    print_message(
        "ops: read hits %llu misses %llu, readahead %llu, write "
        "hits %llu misses %llu, puts %llu; zcache: gets %llu hits "
        "%llu, puts %llu stored %llu\n",
        (unsigned long long)c.read_hits, (unsigned long long)c.read_misses,
        (unsigned long long)c.aheads, (unsigned long long)c.write_hits,
        (unsigned long long)c.write_misses, (unsigned long long)c.puts,
        (unsigned long long)st.zc_gets, (unsigned long long)st.zc_hits,
        (unsigned long long)st.zc_puts, (unsigned long long)st.zc_stored);
    assert_int_equal(st.zc_wrong, 0);
    assert_true(c.aheads > 0 && c.write_hits > 0 && c.write_misses > 0);
    assert_true(st.zc_hits > 0);
    assert_true(st.zc_stored > 0);
    assert_int_equal(st.requests, requests);
    /* what the ops say */
    accesses = c.read_hits + c.read_misses + c.write_hits + c.write_misses;
    assert_int_equal(st.pc_hits, c.read_hits + c.write_hits);
    assert_int_equal(st.writes, c.write_hits + c.write_misses);
    assert_int_equal(st.pc_evictions, c.puts);
    assert_int_equal(st.zc_puts, c.puts);
    assert_true(st.zc_stored <= st.zc_puts);
    assert_int_equal(st.zc_gets, c.read_misses + c.aheads);
    assert_int_equal(st.zc_hits + st.disk_reads, st.zc_gets);
    /* the same replay without a zcache counts the same */
    assert_int_equal(fst.requests, requests);
    assert_int_equal(fst.accesses, accesses);
    assert_int_equal(fst.reads, c.read_hits + c.read_misses);
    assert_int_equal(fst.pc_hits, st.pc_hits);
    assert_int_equal(fst.readahead, c.aheads);
    assert_int_equal(fst.pc_evictions, c.puts);
    assert_int_equal(fst.disk_reads, c.read_misses + c.aheads);
    assert_int_equal(zc_replay_resident(fast), zc_replay_resident(r));
    zc_replay_destroy(fast);
    zc_replay_destroy(r);
    zc_content_close(content);
    zc_cache_destroy(zc);
    assert_int_equal(st.readahead, c.aheads);
    assert_int_equal(st.accesses, accesses);
    assert_int_equal(st.reads, c.read_hits + c.read_misses);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_linux_model_equals_the_reference),
        cmocka_unit_test(test_linux_active_pages_survive_a_scan),
        cmocka_unit_test(test_linux_recent_refault_is_activated),
        cmocka_unit_test(test_linux_mapped_pages_get_a_second_chance),
        cmocka_unit_test(test_linux_sequential_reads_ramp_the_window_up),
        cmocka_unit_test(test_linux_writes_and_fault_around),
        cmocka_unit_test(test_linux_rereading_the_last_page_marks_it_once),
        cmocka_unit_test(test_registry_lists_lru_first_then_linux),
        cmocka_unit_test(test_every_model_keeps_the_rules_of_pcm_h),
        cmocka_unit_test(test_capacity_zero_holds_nothing),
        cmocka_unit_test(test_linux_capacity_zero_reads_no_window),
        cmocka_unit_test(test_a_large_cache_misses_each_page_once),
        cmocka_unit_test(test_a_scan_costs_memory_by_the_cache_not_the_trace),
        cmocka_unit_test(test_set_model_and_read_ahead_check_their_arguments),
        cmocka_unit_test(test_read_ahead_survives_a_model_change),
        cmocka_unit_test(test_linux_model_before_a_zcache_serves_latest_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
