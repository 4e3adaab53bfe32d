/*
 * sim/model/pcm_linux.c - the "linux" page-cache model: the kernel's file LRU
 * without multi-generation LRU, as in Linux 6.x mm/swap.c, mm/vmscan.c,
 * mm/workingset.c, mm/readahead.c and mm/filemap.c, page by page (order-0
 * folios), for one memory cgroup holding file pages only.
 *
 * Lists.  Resident pages are on an inactive or an active list, most
 * recent at the head.  A new page enters the inactive head
 * (filemap_add_folio -> folio_add_lru), or the active head if it is a
 * recent refault (below).
 *
 * Accesses.  A read(2) marks each page it copies accessed
 * (filemap_read -> folio_mark_accessed): a page without PG_referenced
 * gets it; a referenced inactive page is activated (moved to the active
 * head, PG_referenced cleared, workingset_activation() ages the
 * non-resident clock).  As filemap_read does, the first page of a read is
 * not marked again when the previous read of the file ended in it
 * (pos_same_folio(ki_pos, prev_pos - 1)).  A write does not mark the page
 * (ext4's write_begin asks for FGP_WRITEBEGIN, without FGP_ACCESSED); a
 * write miss brings the page in (a new folio), with no readahead.  A
 * fault through a mapping (filemap_fault) does not mark the page either:
 * it sets the page-table accessed bit ("young"), which reclaim reads;
 * fault-around (filemap_map_pages) maps, and makes young, only pages that
 * are resident and not marked PG_readahead: a fault-around page the model
 * does not hold is no access at all (the kernel neither maps nor reads
 * it), so it is neither a hit nor a miss.
 *
 * Reclaim.  When a page must come in and the cache is full (or the
 * capacity shrinks), one page is reclaimed:
 *  - Deactivation (shrink_active_list): the active list is scanned only
 *    when the inactive list is low (inactive_is_low(): inactive * ratio <
 *    active, ratio int_sqrt(10 * GiB of both lists), 1 below 1 GiB) or
 *    refaults activated pages since the last decision
 *    (prepare_scan_control()'s may_deactivate); the model makes that
 *    decision once every SWAP_CLUSTER_MAX (32) evictions, as one reclaim
 *    invocation would, and then scans the two lists in proportion to
 *    their sizes (get_scan_count()), at most 32 active pages per
 *    inactive page.  A scanned active page loses its accessed bit and
 *    goes to the inactive head with PG_workingset set (executable
 *    mappings, which the kernel keeps active, are not known to the
 *    stream).  An empty inactive list is refilled from the active tail.
 *  - Eviction (shrink_folio_list with folio_check_references()): the
 *    inactive tail page is taken.  If it is mapped and young: the bit is
 *    cleared and PG_referenced set; if PG_referenced was already set the
 *    page is activated, else it goes back to the inactive head (the
 *    second chance of mapped pages).  Otherwise PG_referenced is cleared
 *    and the page is evicted (dirty pages are not told apart: writeback
 *    is not modelled).
 *  - Shadow entries (workingset_eviction()): an evicted page leaves
 *    (the non-resident age at eviction, PG_workingset), and the age
 *    counts one more eviction.  When the page comes back
 *    (workingset_refault() / workingset_test_recent()), its refault
 *    distance is the age now minus the age then; at most the active
 *    list's size (the workingset size of file pages with no swap), it is
 *    activated at once, the age counts one more, and it gets
 *    PG_workingset back if it had it.  The entry is consumed either way.
 *  - Which shadow entries are kept.  The kernel keeps no more than can
 *    still matter: "we don't need to keep more shadow entries than
 *    possible pages on the active list, since refault distances bigger
 *    than that are dismissed" (mm/workingset.c, count_shadow_nodes(),
 *    6.x).  The model drops only entries that can no longer activate
 *    their page, so that what it keeps follows the capacity, not the
 *    trace, and it decides as it would keeping every entry:
 *
 *    Let T = age - (active list's size).  A refault of an entry evicted
 *    at age e is activated iff age - e <= active, i.e. iff e >= T then.
 *    T moves only so: an eviction adds 1 to the age (T + 1); a
 *    deactivation takes a page off the active list (T + 1); an
 *    activation by folio_mark_accessed() or by a refault adds 1 to both
 *    (T unchanged); a mapped page's second chance that activates it
 *    (folio_check_references()) lengthens the active list alone (T - 1);
 *    a page coming in, a hit, a change of capacity move neither.  At
 *    every eviction s the model raises a floor F to T(s) - C(s), C(s)
 *    the largest capacity so far or promised (params.max_pages: an
 *    adaptive run's memory), and drops every entry evicted at an age
 *    below F, except those of the current read still to be reached
 *    (SH_GONE, which gone() reads; that read consumes them before it
 *    ends).  Such an entry could activate at a later refault t only if
 *    e >= T(t), so T(t) < T(s) - C(s): T fell by more than C(s) since s,
 *    that is active(t) - active(s) > C(s) + (the age's growth) >= C(s),
 *    and the active list is never longer than the capacity.  So a
 *    dropped entry never activates its page while the capacity stays at
 *    or below the largest it had (or was promised) when the entry was
 *    dropped (any fixed size, any shrink, an adaptive run); and, whatever
 *    the capacity does, unless second chances of mapped pages outrun the
 *    evictions and deactivations between by more than C(s), since T falls
 *    by nothing else.  Only a capacity rising above every earlier one
 *    (one that follows the kernel's samples) together with such a run of
 *    second chances could see a dropped entry that the unbounded model
 *    would have activated.  The entries kept were evicted at distinct
 *    ages in [F, age), so there are at most active + C <= 2 C of them at
 *    the last eviction, and the current read's SH_GONE ones.
 *    The kernel also reclaims shadow nodes (xarray nodes of 64 slots)
 *    under memory pressure, keeping at most pages >> 3 of them
 *    (count_shadow_nodes(), shadow_lru_isolate()): how often it runs and
 *    how densely a file's evicted pages fill its nodes are not in the
 *    stream, and it may drop entries that would still activate, so it is
 *    not modelled.
 *
 * Readahead (mm/readahead.c), per file (the kernel keeps it per open
 * file: one state per inode here), only for files whose size the stream
 * records (ZC_REQ_SIZE) and when read_ahead_kb is not 0 (ra_pages =
 * read_ahead_kb / page size; max_pages is ra_pages, the device's io_pages
 * are not known):
 *  - A read that misses page i with n pages still wanted runs
 *    page_cache_sync_ra(): at the file's start, for a request larger than
 *    ra_pages, or sequential to the previous read (i - prev_index <= 1), a
 *    new window: start i, size get_init_ra_size(n) (n rounded up to a power
 *    of two, times 4 up to ra_pages/32, times 2 up to ra_pages/4, else
 *    ra_pages), async size size - n (or size / 2); else, if the pages
 *    before i are resident for more than n pages back (page_cache_prev_miss
 *    over ra_pages), a window of that length + n (doubled when the file is
 *    resident from its start), async size 1; else just the n pages, no
 *    window.
 *  - A read (or fault) that reaches a page marked PG_readahead runs
 *    page_cache_async_ra(): when the page is where the window expects it,
 *    the window moves on (start += size; size = get_next_ra_size(): times 4
 *    below ra_pages/16, times 2 up to ra_pages/2, else ra_pages; async size
 *    = size); else a window from the first non-resident page after it.
 *  - A window is read by do_page_cache_ra(): clipped to the page holding
 *    the file's last byte, skipping resident pages, reading no more pages
 *    than the cache holds (the kernel's window pages are locked under
 *    I/O, and a readahead whose memory charge fails stops; the page asked
 *    for is read all the same), the page at size -
 *    async size of the clipped window marked PG_readahead
 *    (page_cache_ra_unbounded()).  The pages of a read(2) from its
 *    current page to its last that a window reads are that read's misses,
 *    told when read; every other page it reads is readahead (ahead()),
 *    the pages around a fault included.  Each requested page is counted
 *    once: one the read's own window evicted before the read reached it
 *    (a cache smaller than the window) is read again alone, as
 *    readahead, with no new window (which would only evict its own
 *    pages again; the kernel holds a window's pages locked under I/O,
 *    and a readahead that finds no memory stops).
 *  - A fault that misses runs do_sync_mmap_readahead(): mmap_miss counts
 *    up (at most 1000); above 100 only the page is read; else read-around:
 *    a window of ra_pages starting ra_pages / 2 before the page, async
 *    size ra_pages / 4.  A fault that hits counts mmap_miss down and runs
 *    the async readahead of a marked page (do_async_mmap_readahead, with
 *    ra_pages wanted); fault-around of a page without PG_workingset
 *    counts it down too.
 *  Without a known size, with readahead off or with capacity 0, a miss
 *  reads just its page.
 *
 * Not modelled (and so the residual against a kernel stream): large
 * folios (ext4 reads in multi-page folios since 6.16), per-open-file
 * readahead state, VM_EXEC, dirty and writeback pages, anon pages
 * competing in the cgroup, the reclaim batch of 32 pages the kernel
 * frees at once, per-CPU LRU batches, metadata pages.
 *
 * Data layout: the resident set of pcm.h (a node is a page; list 0
 * inactive, 1 active; flags below), the shadow entries in a pagemap
 * (value (age << 3) | flags SH_*; deleted when consumed or dropped), a
 * ring of (file, page, age) records in eviction order (the oldest
 * first: what the floor drops), and an array of readahead states
 * indexed by file number.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <string.h>

#include "pagemap.h"
#include "pcm.h"

enum { INACTIVE = 0, ACTIVE = 1 };

/* node flags */
#define REFERENCED 0x01u /* PG_referenced */
#define WORKINGSET 0x02u /* PG_workingset */
#define YOUNG 0x04u      /* a page-table accessed bit */
#define MAPPED 0x08u     /* mapped at least once */
#define READAHEAD 0x10u  /* PG_readahead */
#define HIT 0x20u        /* hit since it came in */
#define FRESH 0x40u /* a read(2) page of the current request, counted */

/* a shadow entry: the age at eviction, then flags */
#define SH_VALID 0x1u
#define SH_WORKINGSET 0x2u /* PG_workingset at eviction */
#define SH_GONE 0x4u       /* FRESH at eviction: counted, not yet reached */
#define SH_AGE 3

#define SWAP_CLUSTER_MAX 32u
#define MMAP_LOTSAMISS 100u

struct ra {
    uint64_t start, size, async_size;
    uint64_t prev_pos; /* UINT64_MAX: no read yet ((loff_t)-1) */
    uint32_t mmap_miss;
};

/* A shadow entry's place in eviction order. */
struct shadow_rec {
    uint64_t page, age; /* age: the entry's, at eviction */
    uint32_t file;
};

struct zc__pcm {
    struct zc__pcm_set set;
    struct zc__pcm_list list[2];
    uint64_t cap;
    uint64_t cap_max; /* the largest capacity, so far or promised */
    uint64_t ra_pages;
    unsigned page_shift;
    struct zc__pagemap shadow;
    struct shadow_rec *order; /* a ring, oldest at order_head */
    uint64_t order_head, order_n, order_cap;
    int64_t floor;        /* shadows of an age below it are dropped */
    uint64_t age;         /* nonresident_age */
    uint64_t activations; /* refault activations (WORKINGSET_ACTIVATE) */
    uint64_t snapshot;    /* activations at the last decision */
    uint32_t batch_left;  /* evictions until the next decision */
    bool may_deactivate;
    uint64_t credit; /* proportional scan of the active list */
    struct ra *ra;
    uint32_t nra;
};

/* ---- lists and flags ------------------------------------------------------ */

static struct zc__pcm_node *node(struct zc__pcm *m, uint32_t n)
{
    return zc__pcm_node(&m->set, n);
}

static void move_to(struct zc__pcm *m, uint32_t n, int list)
{
    zc__pcm_list_unlink(&m->set, &m->list[node(m, n)->list], n);
    node(m, n)->list = (uint8_t)list;
    zc__pcm_list_push_head(&m->set, &m->list[list], n);
}

static uint64_t int_sqrt(uint64_t x)
{
    uint64_t r = 0;

    while ((r + 1) * (r + 1) <= x)
        r++;
    return r;
}

/* inactive_is_low() for the file lists. */
static bool inactive_is_low(const struct zc__pcm *m)
{
    uint64_t inactive = m->list[INACTIVE].n, active = m->list[ACTIVE].n;
    uint64_t gb = (inactive + active) >> (30 - m->page_shift);
    uint64_t ratio = gb ? int_sqrt(10 * gb) : 1;

    return inactive * ratio < active;
}

/* folio_mark_accessed() */
static void mark_accessed(struct zc__pcm *m, uint32_t n)
{
    struct zc__pcm_node *x = node(m, n);

    if (!(x->flags & REFERENCED)) {
        x->flags |= REFERENCED;
    } else if (x->list == INACTIVE) {
        move_to(m, n, ACTIVE);
        node(m, n)->flags &= (uint8_t)~REFERENCED;
        m->age++; /* workingset_activation() */
    }
}

/* ---- reclaim -------------------------------------------------------------- */

/* shrink_active_list() on the tail page. */
static void deactivate_tail(struct zc__pcm *m)
{
    uint32_t n = m->list[ACTIVE].tail;

    node(m, n)->flags &= (uint8_t)~YOUNG;
    node(m, n)->flags |= WORKINGSET;
    move_to(m, n, INACTIVE);
}

/* ---- shadow entries ------------------------------------------------------ */

/* Raise the floor to T - C (the essay: T = age - active, C the largest
 * capacity) and drop the shadows evicted below it, oldest first, but
 * those of the current read still to be reached (SH_GONE: gone() reads
 * them, and the read consumes them before it ends).  A record whose
 * page came back (its shadow consumed) or was evicted again since (a
 * younger shadow, with a record of its own) drops nothing. */
static void forget_far(struct zc__pcm *m)
{
    int64_t t = (int64_t)m->age - (int64_t)m->list[ACTIVE].n;

    if (t - (int64_t)m->cap_max > m->floor)
        m->floor = t - (int64_t)m->cap_max;
    while (m->order_n) {
        const struct shadow_rec *r = &m->order[m->order_head];
        uint64_t sh;
        if ((int64_t)r->age >= m->floor)
            break;
        sh = zc__pagemap_get(&m->shadow, r->file, r->page);
        if (sh && sh >> SH_AGE == r->age && !(sh & SH_GONE))
            zc__pagemap_del(&m->shadow, r->file, r->page);
        m->order_head = (m->order_head + 1) & (m->order_cap - 1);
        m->order_n--;
    }
}

/* Room for one more record: 0; -ZC_ENOMEM (nothing changed). */
static int order_room(struct zc__pcm *m)
{
    uint64_t cap = m->order_cap ? m->order_cap * 2 : 64;
    struct shadow_rec *v;

    if (m->order_n < m->order_cap)
        return 0;
    if (!(v = malloc(cap * sizeof(*v))))
        return -ZC_ENOMEM;
    for (uint64_t i = 0; i < m->order_n; i++)
        v[i] = m->order[(m->order_head + i) & (m->order_cap - 1)];
    free(m->order);
    m->order = v;
    m->order_head = 0;
    m->order_cap = cap;
    return 0;
}

static int evict(struct zc__pcm *m, uint32_t n, const struct zc__pcm_io *io)
{
    struct zc__pcm_node x = *node(m, n);
    struct shadow_rec *r;
    uint64_t *sh;

    forget_far(m);
    if (order_room(m) || !(sh = zc__pagemap_slot(&m->shadow, x.file, x.page)))
        return -ZC_ENOMEM;
    /* workingset_eviction(): the age before this eviction, then one more */
    *sh = m->age << SH_AGE | ((x.flags & FRESH) ? SH_GONE : 0) |
          ((x.flags & WORKINGSET) ? SH_WORKINGSET : 0) | SH_VALID;
    r = &m->order[(m->order_head + m->order_n++) & (m->order_cap - 1)];
    r->page = x.page;
    r->file = x.file;
    r->age = m->age;
    m->age++;
    zc__pcm_list_unlink(&m->set, &m->list[x.list], n);
    zc__pcm_set_remove(&m->set, n);
    return io->evict(io->ctx, x.file, x.page, (x.flags & HIT) != 0);
}

/* Reclaim one page. */
static int reclaim_one(struct zc__pcm *m, const struct zc__pcm_io *io)
{
    if (m->batch_left == 0) {
        /* prepare_scan_control(): deactivate when the inactive list is
         * low or refaults activated pages since the last decision. */
        m->may_deactivate =
            inactive_is_low(m) || m->activations != m->snapshot;
        m->snapshot = m->activations;
        m->batch_left = SWAP_CLUSTER_MAX;
    }
    m->batch_left--;
    for (;;) {
        uint32_t n;
        struct zc__pcm_node *x;
        uint8_t was_ref;

        if (m->list[INACTIVE].n == 0) {
            deactivate_tail(m);
            continue;
        }
        if (m->may_deactivate && m->list[ACTIVE].n) {
            unsigned k = 0;
            m->credit += m->list[ACTIVE].n;
            while (m->credit >= m->list[INACTIVE].n && m->list[ACTIVE].n &&
                   k++ < SWAP_CLUSTER_MAX) {
                m->credit -= m->list[INACTIVE].n;
                deactivate_tail(m);
            }
            if (m->credit >= m->list[INACTIVE].n)
                m->credit = 0;
        }
        n = m->list[INACTIVE].tail;
        x = node(m, n);
        was_ref = x->flags & REFERENCED;
        x->flags &= (uint8_t)~REFERENCED;
        if (x->flags & YOUNG) {
            /* folio_check_references(): a mapped page used again */
            x->flags &= (uint8_t)~YOUNG;
            x->flags |= REFERENCED;
            move_to(m, n, was_ref ? ACTIVE : INACTIVE);
            continue;
        }
        return evict(m, n, io);
    }
}

/* ---- bringing pages in ---------------------------------------------------- */

/* filemap_add_folio(): room made, then the page on its list, a recent
 * refault on the active one.  Its node in *out. */
static int add_page(struct zc__pcm *m, uint32_t file, uint64_t page,
                    const struct zc__pcm_io *io, uint32_t *out, bool *again)
{
    uint64_t sh;
    int rc;

    *again = false;
    while (m->set.used >= m->cap && m->set.used)
        if ((rc = reclaim_one(m, io)))
            return rc;
    if ((rc = zc__pcm_set_add(&m->set, file, page, out)))
        return rc;
    sh = zc__pagemap_get(&m->shadow, file, page);
    if (sh) {
        uint64_t eviction = sh >> SH_AGE;
        zc__pagemap_del(&m->shadow, file, page); /* consumed */
        *again = (sh & SH_GONE) != 0;
        if (m->age - eviction <= m->list[ACTIVE].n) {
            node(m, *out)->list = ACTIVE;
            if (sh & SH_WORKINGSET)
                node(m, *out)->flags |= WORKINGSET;
            m->age++;
            m->activations++;
        }
    }
    zc__pcm_list_push_head(&m->set, &m->list[node(m, *out)->list], *out);
    return 0;
}

/* Whether `page` of the current read was counted and then evicted by its
 * own window before the read reached it. */
static bool gone(const struct zc__pcm *m, uint32_t file, uint64_t page)
{
    return (zc__pagemap_get(&m->shadow, file, page) & SH_GONE) != 0;
}

/* Bring in the page `page` of request q (cur: the page the request is at)
 * and tell the replay what it is: the request's miss, or readahead. */
static int read_in(struct zc__pcm *m, const struct zc__pcm_req *q,
                   uint64_t cur, uint64_t page, const struct zc__pcm_io *io,
                   uint32_t *out)
{
    bool read = !q->write && !(q->flags & ZC_REQ_MAPPED) && page >= cur &&
                page <= q->last;
    bool again;
    int rc;

    if (m->cap == 0) {
        /* No page cache: the page passes through. */
        *out = ZC__PCM_NIL;
        if (page != cur)
            return 0;
        rc = io->miss(io->ctx, q->file, page, q->write);
        return rc ? rc : io->evict(io->ctx, q->file, page, false);
    }
    if ((rc = add_page(m, q->file, page, io, out, &again)))
        return rc;
    if (read) {
        /* counted now, once: read again after its own window evicted it,
         * a page is readahead */
        node(m, *out)->flags |= FRESH;
        if (again)
            return io->ahead(io->ctx, q->file, page);
        return io->miss(io->ctx, q->file, page, false);
    }
    if (page == cur)
        return io->miss(io->ctx, q->file, page, q->write);
    return io->ahead(io->ctx, q->file, page);
}

/* do_page_cache_ra() + page_cache_ra_unbounded() */
static int do_ra(struct zc__pcm *m, const struct zc__pcm_req *q, uint64_t cur,
                 uint64_t index, uint64_t nr, uint64_t lookahead,
                 const struct zc__pcm_io *io)
{
    uint64_t mark, end, budget = m->cap;

    if (q->size_pages == 0 || index >= q->size_pages)
        return 0;
    end = q->size_pages - 1;
    if (nr > end - index)
        nr = end - index + 1;
    /* page_cache_ra_unbounded(): the mark on the clipped window */
    mark = lookahead && lookahead <= nr ? nr - lookahead : UINT64_MAX;
    for (uint64_t i = 0; i < nr; i++) {
        uint32_t n;
        int rc;
        if (zc__pcm_set_find(&m->set, q->file, index + i) != ZC__PCM_NIL)
            continue;
        /* no more than the cache holds: the window's pages are locked
         * under I/O, and a readahead that finds no memory stops; the
         * page asked for is read all the same */
        if (budget == 0 && index + i != cur) {
            if (index + i > cur)
                break;            /* nothing more to read */
            i = cur - index - 1; /* on to the page asked for */
            continue;
        }
        if ((rc = read_in(m, q, cur, index + i, io, &n)))
            return rc;
        budget -= budget > 0;
        if (i == mark && n != ZC__PCM_NIL)
            node(m, n)->flags |= READAHEAD;
    }
    return 0;
}

static uint64_t roundup_pow_of_two(uint64_t x)
{
    uint64_t r = 1;

    while (r < x)
        r <<= 1;
    return r;
}

static uint64_t init_ra_size(uint64_t size, uint64_t max)
{
    uint64_t s = roundup_pow_of_two(size);

    if (s <= max / 32)
        return s * 4;
    if (s <= max / 4)
        return s * 2;
    return max;
}

static uint64_t next_ra_size(uint64_t cur, uint64_t max)
{
    if (cur < max / 16)
        return 4 * cur;
    if (cur <= max / 2)
        return 2 * cur;
    return max;
}

/* With no page cache a window would hold nothing: only its requested
 * page passes through, so none is made (it would cost ra_pages for every
 * page of every request). */
static bool reads_ahead(const struct zc__pcm *m, const struct zc__pcm_req *q)
{
    return m->ra_pages && m->cap && q->is_file && (q->flags & ZC_REQ_SIZE);
}

/* page_cache_sync_ra(): page i missed, n pages wanted. */
static int sync_ra(struct zc__pcm *m, const struct zc__pcm_req *q,
                   struct ra *ra, uint64_t i, uint64_t n,
                   const struct zc__pcm_io *io)
{
    uint64_t max = m->ra_pages, prev_index, miss, contig;

    prev_index = ra->prev_pos >> m->page_shift;
    if (i == 0 || n > max || i - prev_index <= 1) {
        ra->start = i;
        ra->size = init_ra_size(n, max);
        ra->async_size = ra->size > n ? ra->size - n : ra->size >> 1;
        return do_ra(m, q, i, ra->start, ra->size, ra->async_size, io);
    }
    /* page_cache_prev_miss(i - 1, max) */
    miss = i - 1 - max; /* none within the scan: outside the range */
    for (uint64_t k = 0; k < max; k++) {
        if (k == i) {
            miss = UINT64_MAX; /* resident from the file's start */
            break;
        }
        if (zc__pcm_set_find(&m->set, q->file, i - 1 - k) == ZC__PCM_NIL) {
            miss = i - 1 - k;
            break;
        }
    }
    contig = i - miss - 1;
    if (contig <= n)
        return do_ra(m, q, i, i, n, 0, io);
    if (miss == UINT64_MAX)
        contig *= 2;
    ra->start = i;
    ra->size = contig + n < max ? contig + n : max;
    ra->async_size = 1;
    return do_ra(m, q, i, ra->start, ra->size, ra->async_size, io);
}

/* page_cache_async_ra(): page i, marked PG_readahead, reached with n
 * pages wanted. */
static int async_ra(struct zc__pcm *m, const struct zc__pcm_req *q,
                    struct ra *ra, uint64_t i, uint64_t n,
                    const struct zc__pcm_io *io)
{
    uint64_t max = m->ra_pages, start;

    if (i == ra->start + ra->size - ra->async_size) {
        uint64_t next = next_ra_size(ra->size, max);
        ra->start += ra->size;
        ra->size = ra->size > next ? ra->size : next;
        ra->async_size = ra->size;
        return do_ra(m, q, i, ra->start, ra->size, ra->async_size, io);
    }
    /* page_cache_next_miss(i + 1, max) */
    start = i + 1 + max;
    for (uint64_t k = 0; k < max; k++)
        if (zc__pcm_set_find(&m->set, q->file, i + 1 + k) == ZC__PCM_NIL) {
            start = i + 1 + k;
            break;
        }
    if (start - i > max)
        return 0;
    ra->start = start;
    ra->size = next_ra_size(start - i + n, max);
    ra->async_size = ra->size;
    return do_ra(m, q, i, ra->start, ra->size, ra->async_size, io);
}

/* The readahead state of a file, made on first use. */
static struct ra *ra_of(struct zc__pcm *m, uint32_t file)
{
    if (file >= m->nra) {
        uint32_t n = m->nra ? m->nra : 64;
        struct ra *t;
        while (n <= file)
            n *= 2;
        t = realloc(m->ra, (size_t)n * sizeof(*t));
        if (!t)
            return NULL;
        for (uint32_t k = m->nra; k < n; k++) {
            memset(&t[k], 0, sizeof(t[k]));
            t[k].prev_pos = UINT64_MAX;
        }
        m->ra = t;
        m->nra = n;
    }
    return &m->ra[file];
}

/* ---- accesses ------------------------------------------------------------- */

/* A page of read(2) (filemap_get_pages + filemap_read). */
static int read_page(struct zc__pcm *m, const struct zc__pcm_req *q,
                     struct ra *ra, uint64_t page, const struct zc__pcm_io *io)
{
    uint32_t n = zc__pcm_set_find(&m->set, q->file, page);
    uint64_t wanted = q->last - page + 1;
    int rc;

    if (n != ZC__PCM_NIL) {
        if (node(m, n)->flags & FRESH) {
            node(m, n)->flags &= (uint8_t)~FRESH;
        } else {
            node(m, n)->flags |= HIT;
            if ((rc = io->hit(io->ctx, q->file, page, false)))
                return rc;
        }
    } else {
        /* a page its own window evicted is read alone: no window again */
        if (reads_ahead(m, q) && !gone(m, q->file, page))
            rc = sync_ra(m, q, ra, page, wanted, io);
        else
            rc = read_in(m, q, page, page, io, &n);
        if (rc)
            return rc;
        n = zc__pcm_set_find(&m->set, q->file, page);
        if (n == ZC__PCM_NIL) {
            /* Past the recorded end (no window reads it), or evicted by
             * its own window (read again, readahead then), or passed
             * through already with no page cache: the page alone. */
            if (m->cap == 0)
                return 0;
            if ((rc = read_in(m, q, page, page, io, &n)) || n == ZC__PCM_NIL)
                return rc;
        }
        node(m, n)->flags &= (uint8_t)~FRESH;
    }
    if ((node(m, n)->flags & READAHEAD) && reads_ahead(m, q)) {
        node(m, n)->flags &= (uint8_t)~READAHEAD;
        if ((rc = async_ra(m, q, ra, page, wanted, io)))
            return rc;
        n = zc__pcm_set_find(&m->set, q->file, page);
        if (n == ZC__PCM_NIL)
            return 0;
    }
    /* Not again for the page where the previous read ended. */
    if (!(page == q->first && ra->prev_pos != UINT64_MAX &&
          ra->prev_pos != 0 &&
          (ra->prev_pos - 1) >> m->page_shift == page))
        mark_accessed(m, n);
    return 0;
}

/* A page of a fault (filemap_fault) or fault-around (filemap_map_pages). */
static int mapped_page(struct zc__pcm *m, const struct zc__pcm_req *q,
                       struct ra *ra, uint64_t page,
                       const struct zc__pcm_io *io)
{
    uint32_t n = zc__pcm_set_find(&m->set, q->file, page);
    int rc;

    if (q->flags & ZC_REQ_AROUND) {
        if (n == ZC__PCM_NIL || (node(m, n)->flags & READAHEAD))
            return 0;
        if (!(node(m, n)->flags & WORKINGSET) && ra->mmap_miss)
            ra->mmap_miss--;
    } else if (n != ZC__PCM_NIL) {
        node(m, n)->flags |= YOUNG | MAPPED | HIT;
        if ((rc = io->hit(io->ctx, q->file, page, false)))
            return rc;
        if (ra->mmap_miss)
            ra->mmap_miss--;
        if ((node(m, n)->flags & READAHEAD) && reads_ahead(m, q)) {
            node(m, n)->flags &= (uint8_t)~READAHEAD;
            return async_ra(m, q, ra, page, m->ra_pages, io);
        }
        return 0;
    } else {
        if (ra->mmap_miss < MMAP_LOTSAMISS * 10)
            ra->mmap_miss++;
        if (reads_ahead(m, q) && ra->mmap_miss <= MMAP_LOTSAMISS &&
            page < q->size_pages) {
            ra->start = page > m->ra_pages / 2 ? page - m->ra_pages / 2 : 0;
            ra->size = m->ra_pages;
            ra->async_size = m->ra_pages / 4;
            rc = do_ra(m, q, page, ra->start, ra->size, ra->async_size, io);
        } else {
            rc = read_in(m, q, page, page, io, &n);
        }
        if (rc)
            return rc;
        n = zc__pcm_set_find(&m->set, q->file, page);
        if (n != ZC__PCM_NIL)
            node(m, n)->flags |= YOUNG | MAPPED;
        return 0;
    }
    node(m, n)->flags |= YOUNG | MAPPED | HIT;
    return io->hit(io->ctx, q->file, page, false);
}

static int linux_access(struct zc__pcm *m, const struct zc__pcm_req *q,
                        uint64_t page, const struct zc__pcm_io *io)
{
    struct ra *ra = ra_of(m, q->file);
    uint32_t n;
    int rc;

    if (!ra)
        return -ZC_ENOMEM;
    if (q->write) {
        n = zc__pcm_set_find(&m->set, q->file, page);
        if (n != ZC__PCM_NIL) {
            node(m, n)->flags |= HIT;
            return io->hit(io->ctx, q->file, page, true);
        }
        return read_in(m, q, page, page, io, &n);
    }
    if (q->flags & ZC_REQ_MAPPED)
        return mapped_page(m, q, ra, page, io);
    rc = read_page(m, q, ra, page, io);
    if (!rc && page == q->last)
        ra->prev_pos = q->offset + q->length;
    return rc;
}

/* ---- the model ------------------------------------------------------------ */

static int linux_create(const struct zc__pcm_params *p, struct zc__pcm **out)
{
    struct zc__pcm *m = calloc(1, sizeof(*m));
    int rc;

    if (!m)
        return -ZC_ENOMEM;
    rc = zc__pcm_set_init(&m->set, p->pages);
    if (rc) {
        free(m);
        return rc;
    }
    zc__pcm_list_init(&m->list[INACTIVE]);
    zc__pcm_list_init(&m->list[ACTIVE]);
    m->cap = p->pages;
    m->cap_max = p->pages > p->max_pages ? p->pages : p->max_pages;
    while ((1ul << m->page_shift) < p->page_size)
        m->page_shift++;
    m->ra_pages = p->read_ahead_kb * 1024 / p->page_size;
    *out = m;
    return 0;
}

static void linux_destroy(struct zc__pcm *m)
{
    if (!m)
        return;
    zc__pcm_set_free(&m->set);
    zc__pagemap_free(&m->shadow);
    free(m->order);
    free(m->ra);
    free(m);
}

static int linux_resize(struct zc__pcm *m, uint64_t pages,
                        const struct zc__pcm_io *io)
{
    m->cap = pages;
    if (pages > m->cap_max)
        m->cap_max = pages;
    while (m->set.used > pages) {
        int rc = reclaim_one(m, io);
        if (rc)
            return rc;
    }
    return 0;
}

static uint64_t linux_resident(const struct zc__pcm *m)
{
    return m->set.used;
}

const struct zc__pcm_ops zc__pcm_linux = {
    .name = "linux",
    .doc = "Linux's file LRU: inactive and active lists, activation on the "
           "second access, mapped pages' second chance, workingset "
           "refaults, readahead",
    .create = linux_create,
    .destroy = linux_destroy,
    .access = linux_access,
    .resize = linux_resize,
    .resident = linux_resident,
};
