/*
 * sim/capture/accesses.c - what programs asked of the page cache: reads,
 * faults, fault-around and writes, as the requests of the access stream.
 *
 * Each read (mm_filemap_get_pages), fault (mm_filemap_fault) and write
 * (ext4 write_begin) is one request, keyed (s_dev, inode, page): a fault
 * a mapped read (ZC_REQ_MAPPED: it may read), a write a write.  A
 * fault-around (mm_filemap_map_pages) maps the pages the kernel holds and
 * skips the others: each run of held pages is one request (ZC_REQ_MAPPED
 * | ZC_REQ_AROUND: the kernel read none), and the pages it skipped are
 * counted and left out.
 *
 * Sizes: a file's size starts at its sizes entry (0 if it has none: a
 * file made during the run) and grows with the writes and mapped accesses
 * seen (the kernel clips those itself, to a size that may be past ours
 * after a truncate up).  With a sizes list, reads are clipped to the
 * file: pages at or past ceil(size / 4096) are cut, and a read wholly past
 * the end is dropped (both counted); and every request carries the file's
 * size (ZC_REQ_SIZE), so the writer records a size before a file's first
 * access and wherever it changed.  Without one no size is known, none is
 * written and reads are not clipped.
 *
 * Before an access, whenever it changed since the last sample, the
 * kernel's resident page count of the file system (pagecache.c) is
 * sampled into the stream; the samples (folded by count) are kept for the
 * summary's minimum, median (zc_resident_median(): over the requests)
 * and maximum.
 *
 * Times: events.c gives every event a time not before the newest one's
 * (a small reordering across CPUs takes the newest time and is counted
 * there); the stream's times never go back, which the clamp below keeps
 * true whatever an event's time.
 *
 * Counting: an accessed page is a kernel hit or miss (pagecache.c); reads,
 * writes and mapped pages, and their events, are counted here once each.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>

#include "capture.h"

/* The samples are kept for the median, which needs only each count's
 * requests: when samples[] holds fold_at entries, those before the current
 * one are sorted by count and entries of one count merged, so that memory
 * follows the distinct counts (at most the largest resident count, plus
 * one), not the length of the trace. */
#define FOLD_MIN 65536

static int by_pages(const void *a, const void *b)
{
    uint64_t x = ((const zc_resident_sample *)a)->pages;
    uint64_t y = ((const zc_resident_sample *)b)->pages;
    return (x > y) - (x < y);
}

static void fold_samples(struct zc__cap *c)
{
    zc_resident_sample cur = c->samples[c->nkept - 1];
    size_t n = c->nkept - 1, out = 0;

    qsort(c->samples, n, sizeof(*c->samples), by_pages);
    for (size_t i = 0; i < n; i++) {
        if (out && c->samples[out - 1].pages == c->samples[i].pages)
            c->samples[out - 1].requests += c->samples[i].requests;
        else
            c->samples[out++] = c->samples[i];
    }
    c->samples[out++] = cur;
    c->nkept = out;
    c->fold_at = 2 * out > FOLD_MIN ? 2 * out : FOLD_MIN;
}

/* One request of the access stream: pages first.. of inode ino, whose
 * size is size bytes. */
static int write_access(struct zc__cap *c, uint64_t rel, uint64_t ino,
                        uint64_t size, uint64_t first, uint64_t pages,
                        enum zc__cap_access_kind kind)
{
    static const uint32_t flags[] = {
        [ZC__CAP_READ] = 0,
        [ZC__CAP_MAPPED_RANGE] = ZC_REQ_MAPPED | ZC_REQ_AROUND,
        [ZC__CAP_FAULT] = ZC_REQ_MAPPED,
        [ZC__CAP_WRITE] = 0,
    };
    zc_request req = {.dev = c->o.dev,
                      .ino = ino,
                      .offset = first * ZC__CAP_PAGE,
                      .length = pages * ZC__CAP_PAGE,
                      .write = kind == ZC__CAP_WRITE,
                      .flags = flags[kind]};
    int rc;

    if (c->o.sizes) {
        req.flags |= ZC_REQ_SIZE;
        req.file_size = size;
    }
    if (rel < c->last_access_ns) /* not reached: events.c clamps first */
        rel = c->last_access_ns;
    c->last_access_ns = rel;
    req.time_ns = rel;
    if ((rc = zc__cap_key_run(c, c->o.dev, ino, first, pages,
                              ZC__CAP_KEY_ACCESS)))
        return rc;
    if ((uint64_t)c->resident != c->last_sample || !c->have_sample) {
        if (c->nkept >= (c->fold_at ? c->fold_at : FOLD_MIN))
            fold_samples(c);
        if ((rc = zc__cap_reserve(c, &c->samples, &c->samples_cap, c->nkept,
                                  sizeof(*c->samples), 4096)))
            return rc;
        c->samples[c->nkept++] =
            (zc_resident_sample){(uint64_t)c->resident, 0};
        if (c->nkept > zc__cap_cost.sample_slots)
            zc__cap_cost.sample_slots = c->nkept;
        c->n.samples++;
        c->last_sample = (uint64_t)c->resident;
        c->have_sample = true;
        if ((rc = zc__cap_write_resident(c, rel, c->last_sample)))
            return rc;
    }
    c->samples[c->nkept - 1].requests++;
    return zc__cap_write_access(c, &req);
}

/* Fault-around of pages first..last: a request per run of held pages. */
static int fault_around(struct zc__cap *c, uint64_t rel, uint64_t ino,
                        uint32_t file, uint64_t size, uint64_t first,
                        uint64_t last)
{
    uint64_t run = first;
    int rc;

    c->n.mapped_events++;
    for (uint64_t pg = first; pg <= last + 1; pg++) {
        if (pg <= last && zc__cap_cached(c, file, pg))
            continue;
        if (pg > run) {
            c->n.mapped += pg - run;
            c->n.kernel_hits += pg - run;
            if ((rc = write_access(c, rel, ino, size, run, pg - run,
                                   ZC__CAP_MAPPED_RANGE)))
                return rc;
        }
        if (pg <= last)
            c->n.unmapped_fault_around++;
        run = pg + 1;
    }
    return 0;
}

int zc__cap_access(struct zc__cap *c, enum zc__cap_access_kind kind,
                   uint32_t dev, uint64_t ino, uint64_t first, uint64_t last,
                   uint64_t end, uint64_t rel, uint32_t pid)
{
    struct zc__cap_inode *e = NULL;
    struct zc__cap_task *t = NULL;
    uint64_t size;
    uint32_t file;
    int rc;

    (void)dev; /* the device's (events.c checked it) */
    if ((rc = zc__cap_inode(c, ino, &file, &e)))
        return rc;
    e->named = true;
    if (kind != ZC__CAP_READ) {
        if (end > e->size)
            e->size = end;
    } else if (c->o.sizes) {
        uint64_t limit = zc__pages_spanned(e->size, ZC__CAP_PAGE);
        if (first >= limit) {
            c->n.past_eof++;
            c->n.clipped_pages += last - first + 1;
            return 0;
        }
        if (last >= limit) {
            c->n.clipped_pages += last - limit + 1;
            last = limit - 1;
        }
    }
    size = e->size;
    if ((rc = zc__cap_task(c, pid, &t)))
        return rc;
    if (kind == ZC__CAP_MAPPED_RANGE) {
        rc = fault_around(c, rel, ino, file, size, first, last);
        zc__cap_accessed(c, t, pid);
        return rc;
    }
    for (uint64_t pg = first; pg <= last; pg++) {
        /* A fault or a write adds its page after the event. */
        bool hit = kind == ZC__CAP_READ
                       ? zc__cap_kernel_hit(c, file, pg, t, pid)
                       : zc__cap_cached(c, file, pg);
        if (hit)
            c->n.kernel_hits++;
        else
            c->n.kernel_misses++;
    }
    zc__cap_accessed(c, t, pid);
    switch (kind) {
    case ZC__CAP_READ:
        c->n.read_events++;
        c->n.reads += last - first + 1;
        break;
    case ZC__CAP_WRITE:
        c->n.write_events++;
        c->n.writes += last - first + 1;
        break;
    default:
        c->n.mapped_events++;
        c->n.mapped += last - first + 1;
        break;
    }
    return write_access(c, rel, ino, size, first, last - first + 1, kind);
}

void zc__cap_resident_summary(struct zc__cap *c)
{
    uint64_t n = c->nkept;

    if (!n)
        return;
    /* the one median (zc_resident_median(): the fidelity window is it);
     * it sorts the samples */
    c->n.resident_median = zc_resident_median(c->samples, (size_t)n);
    c->n.resident_min = c->samples[0].pages;
    c->n.resident_max = c->samples[n - 1].pages;
}
