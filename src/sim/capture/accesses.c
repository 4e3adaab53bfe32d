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
 * sampled into the stream; the samples are kept for the summary's
 * minimum, median (the middle one, sorted) and maximum.
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
        if ((rc = zc__cap_reserve(c, &c->samples, &c->samples_cap, c->n.samples,
                                  sizeof(*c->samples), 4096)))
            return rc;
        c->samples[c->n.samples++] =
            (zc_resident_sample){(uint64_t)c->resident, 0};
        c->last_sample = (uint64_t)c->resident;
        c->have_sample = true;
        if ((rc = zc__cap_write_resident(c, rel, c->last_sample)))
            return rc;
    }
    c->samples[c->n.samples - 1].requests++;
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
    uint64_t n = c->n.samples;

    if (!n)
        return;
    /* the one median (zc_resident_median(): the fidelity window is it);
     * it sorts the samples */
    c->n.resident_median = zc_resident_median(c->samples, (size_t)n);
    c->n.resident_min = c->samples[0].pages;
    c->n.resident_max = c->samples[n - 1].pages;
}
