/*
 * sim/capture/pagecache.c - the kernel's page cache of the traced file
 * system, followed page by page from its add and delete events, and the
 * rule that tells an eviction from an invalidation.
 *
 * Every folio added (mm_filemap_add_to_page_cache: 2^order pages) is a
 * get of the kernel's op stream, page by page: the page was missing, so
 * cleancache would have been asked for it.  A folio deleted
 * (mm_filemap_delete_from_page_cache, fired by __filemap_remove_folio()
 * in Linux 6.x) is either an eviction, put to cleancache with its bytes,
 * or an invalidation (truncate, unlink, a write over a cached range):
 *
 *   an eviction is a delete inside a reclaim window of its own task
 *   (mm_vmscan_*_reclaim_begin .. _end: direct reclaim and memcg reclaim,
 *   mm/vmscan.c, whose shrink_folio_list() removes the folio), or a
 *   delete by kswapd (background reclaim, which has no such window) or
 *   by kdamond (DAMON's pageout, reclaim_pages() from its own thread);
 *   every other delete invalidates.
 *
 * Pool 0 of the op stream is the file system (key: the inode); pool 1
 * the block device's own page cache, where ext4 keeps its metadata: the
 * pages of inode dev (the device number) of the block-device pseudo file
 * system bdevfs, keyed by the device.
 *
 * So that every access can be told a kernel hit or miss, and fault-around
 * ranges cut to the pages the kernel mapped, the file pages it holds are
 * kept, each with the event and the task that added it.  A page counts as
 * a miss of an access when it was not cached, or when the accessing task
 * itself added it since its previous access: get_pages fires after the
 * pages a read missed were added (DESIGN.md), and the pages readahead
 * adds beyond a read's range are hits of the next read.  Every task is
 * known by its pid alone, the idle task included: pid 0 is what tracefs
 * shows for an event in interrupt context on an idle CPU, and its
 * accesses are remembered like any other's (a page it added and read is
 * a hit of its next read, not a miss again).
 *
 * The resident count is the file system's pages the kernel holds: adds
 * minus deletes, never below zero (a page cached before the capture
 * began and deleted during it is counted and left out).
 *
 * Data layout: the pages held, in an open-addressing table keyed (inode
 * number, index) with linear probing and backward-shift deletion
 * (base/lptab.h), at most half full, so that it holds what the kernel
 * holds, not every page it ever held; the tasks numbered by the files
 * interner (common/files.h, task pid as the pair (pid, 0)), with their
 * last access and reclaim depth in an array by number, both grown by
 * doubling.  A task is numbered when it accesses pages or opens a
 * reclaim window; a delete or the end of a window only looks its task up
 * (a task never numbered is in no window), so the many short-lived tasks
 * of a build, which delete pages and nothing else, cost no record.
 *
 * Cost: each event looks each of its pages up once in the pages table
 * and its task once in the interner, so a conversion's work grows with
 * its events and its memory with the pages held at once and the tasks
 * that read (zc__cap_cost counts both for the tests).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <string.h>

#include "base/lptab.h"
#include "capture.h"

_Thread_local struct zc__cap_cost zc__cap_cost;

/* ---- the pages the kernel holds -------------------------------------------
 */

static bool lp_empty(const void *ctx, uint64_t j)
{
    const struct zc__cap *c = ctx;
    return !c->pages[j].file1;
}

static uint64_t lp_home(const void *ctx, uint64_t j)
{
    const struct zc__cap *c = ctx;
    return zc__page_hash(c->pages[j].file1 - 1, c->pages[j].index);
}

static void lp_move(void *ctx, uint64_t to, uint64_t from)
{
    struct zc__cap *c = ctx;
    c->pages[to] = c->pages[from];
}

static void lp_clear(void *ctx, uint64_t i)
{
    struct zc__cap *c = ctx;
    memset(&c->pages[i], 0, sizeof(c->pages[i]));
}

static const struct zc__lp_ops page_lp = {lp_empty, lp_home, lp_move, lp_clear};

/* The slot of page (file, index), or the empty slot where it would go;
 * the table exists. */
static uint64_t page_slot(const struct zc__cap *c, uint32_t file,
                          uint64_t index)
{
    uint64_t i;

    zc__cap_cost.page_lookups++;
    for (i = zc__page_hash(file, index) & c->pages_mask;
         zc__cap_cost.page_probes++, c->pages[i].file1;
         i = (i + 1) & c->pages_mask)
        if (c->pages[i].file1 == file + 1 && c->pages[i].index == index)
            break;
    return i;
}

/* Double the table (or make the first one). */
static int pages_grow(struct zc__cap *c)
{
    struct zc__cap_page *old = c->pages;
    uint64_t old_slots = old ? c->pages_mask + 1 : 0;
    uint64_t slots = old ? old_slots * 2 : 1024;

    if (slots > SIZE_MAX / sizeof(*old) ||
        !(c->pages = calloc(slots, sizeof(*old)))) {
        c->pages = old;
        return zc__cap_nomem(c);
    }
    c->pages_mask = slots - 1;
    if (slots > zc__cap_cost.page_slots)
        zc__cap_cost.page_slots = slots;
    for (uint64_t j = 0; j < old_slots; j++)
        if (old[j].file1)
            c->pages[page_slot(c, old[j].file1 - 1, old[j].index)] = old[j];
    free(old);
    return 0;
}

bool zc__cap_cached(const struct zc__cap *c, uint32_t file, uint64_t index)
{
    return c->pages && c->pages[page_slot(c, file, index)].file1;
}

bool zc__cap_kernel_hit(const struct zc__cap *c, uint32_t file, uint64_t index,
                        const struct zc__cap_task *t, uint32_t pid)
{
    const struct zc__cap_page *p;

    if (!c->pages)
        return false;
    p = &c->pages[page_slot(c, file, index)];
    return p->file1 && !(p->add_pid == pid && p->add_event > t->last_access);
}

static int page_added(struct zc__cap *c, uint32_t file, uint64_t index,
                      uint32_t pid)
{
    struct zc__cap_page *p;
    int rc;

    if ((!c->pages || (c->pages_used + 1) * 2 > c->pages_mask + 1) &&
        (rc = pages_grow(c)))
        return rc;
    p = &c->pages[page_slot(c, file, index)];
    if (!p->file1) {
        p->file1 = file + 1;
        p->index = index;
        c->pages_used++;
    }
    p->add_event = c->event_no;
    p->add_pid = pid;
    return 0;
}

static void page_deleted(struct zc__cap *c, uint32_t file, uint64_t index)
{
    uint64_t i;

    if (!c->pages || !c->pages[i = page_slot(c, file, index)].file1)
        return;
    zc__lp_delete(c, c->pages_mask, i, &page_lp);
    c->pages_used--;
}

/* ---- tasks ------------------------------------------------------------------
 */

/* The task pid if it has a record, else NULL (nothing is made). */
static struct zc__cap_task *task_find(struct zc__cap *c, uint32_t pid)
{
    uint32_t id;

    return zc__files_find(&c->tasks, pid, 0, &id) ? &c->task[id] : NULL;
}

int zc__cap_task(struct zc__cap *c, uint32_t pid, struct zc__cap_task **t)
{
    size_t cap = c->task_cap;
    uint32_t id;
    uint32_t before = c->tasks.n;
    int rc = zc__files_id(&c->tasks, pid, 0, &id);

    zc__cap_cost.tasks += c->tasks.n - before;
    if (rc)
        return rc == -ZC_ENOMEM ? zc__cap_nomem(c)
                                : zc__cap_fail(c, rc, "too many tasks");
    if (id >= cap) {
        if ((rc =
                 zc__cap_reserve(c, &c->task, &cap, id, sizeof(*c->task), 256)))
            return rc;
        memset(c->task + c->task_cap, 0,
               (cap - c->task_cap) * sizeof(*c->task));
        c->task_cap = cap;
    }
    *t = &c->task[id];
    return 0;
}

int zc__cap_reclaim(struct zc__cap *c, uint32_t pid, int step)
{
    struct zc__cap_task *t = NULL;
    int rc;

    if (step < 0) { /* a window's end: a task never numbered opened none */
        if ((t = task_find(c, pid)) != NULL && t->reclaim_depth > 0)
            t->reclaim_depth--;
        return 0;
    }
    if ((rc = zc__cap_task(c, pid, &t)))
        return rc;
    t->reclaim_depth++;
    return 0;
}

void zc__cap_accessed(struct zc__cap *c, struct zc__cap_task *t, uint32_t pid)
{
    (void)pid; /* every task's, pid 0's too (above) */
    t->last_access = c->event_no;
}

/* ---- adds and deletes -------------------------------------------------------
 */

/* Whether comm is prefix followed by one or more digits and nothing else:
 * the name a kernel thread is given, never a substring of another task's
 * ("not_kswapd", "kswapd_test" are user tasks that invalidate). */
static bool kthread_named(const char *comm, const char *prefix)
{
    size_t n = strlen(prefix), d;

    if (strncmp(comm, prefix, n))
        return false;
    d = strspn(comm + n, "0123456789");
    return d > 0 && comm[n + d] == '\0';
}

/* Whether a delete by task pid (named comm) is an eviction (above).  The
 * threads by name: kswapd, one per NUMA node, "kswapd%d"
 * (kswapd_run(), mm/vmscan.c); DAMON's "kdamond.%d"
 * (damon_start(), mm/damon/core.c, Linux 6.x). */
static bool evicts(struct zc__cap *c, uint32_t pid, const char *comm)
{
    const struct zc__cap_task *t = task_find(c, pid);

    return (t && t->reclaim_depth > 0) || kthread_named(comm, "kswapd") ||
           kthread_named(comm, "kdamond.");
}

int zc__cap_folio(struct zc__cap *c, bool add, uint32_t sdev, uint64_t ino,
                  uint64_t first, uint64_t pages, const char *comm,
                  uint32_t pid)
{
    bool meta = c->o.dev_set && sdev == c->o.bdevfs && ino == c->o.dev;
    bool evict = false;
    struct zc__cap_inode *e = NULL;
    uint32_t file = 0;
    zc_op op = {0};
    int rc;

    if (!meta && !zc__cap_our_dev(c, sdev)) {
        c->n.other++;
        return 0;
    }
    if (meta)
        c->n.ours++;
    if (add) {
        c->n.adds++;
    } else {
        c->n.deletes++;
        if ((evict = evicts(c, pid, comm)))
            c->n.evictions++;
        else
            c->n.invalidations++;
    }
    if (!meta) {
        if ((rc = zc__cap_inode(c, ino, &file, &e)))
            return rc;
        e->named = true;
        c->resident += add ? (int64_t)pages : -(int64_t)pages;
        if (c->resident < 0) {
            c->n.resident_below_zero++;
            c->resident = 0;
        }
    }
    if ((rc = zc__cap_key_run(c, c->o.dev, meta ? 0 : ino, first, pages, 0)))
        return rc;
    op.pool = meta ? 1 : 0;
    op.key = zc_filekey_from_ino(ino);
    for (uint64_t k = 0; k < pages; k++) {
        op.index = first + k;
        if (add) {
            op.kind = ZC_OP_GET;
            c->n.gets++;
        } else if (!evict) {
            op.kind = ZC_OP_INVALIDATE_PAGE;
        } else {
            bool synthetic = false;
            op.kind = ZC_OP_PUT;
            op.page = c->page;
            c->n.puts++;
            if (c->ops && (rc = zc__cap_content(c, c->o.dev, meta ? 0 : ino,
                                                op.index, &synthetic)))
                return rc;
            c->n.synthetic_puts += synthetic;
        }
        if (!meta && add && (rc = page_added(c, file, op.index, pid)))
            return rc;
        if (!meta && !add)
            page_deleted(c, file, op.index);
        if ((rc = zc__cap_emit(c, &op)))
            return rc;
    }
    return 0;
}

void zc__cap_pagecache_free(struct zc__cap *c)
{
    free(c->pages);
    zc__files_free(&c->tasks);
    free(c->task);
}
