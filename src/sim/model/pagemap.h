/*
 * sim/model/pagemap.h - a map from a page key (file number, page index)
 * to a 64-bit value, for what the page-cache models remember about pages
 * that are not (or not only) resident: the version of a written page and
 * whether a resident page was read ahead and not yet requested
 * (replay.c), the shadow entry of an evicted one (pcm_linux.c).
 *
 * Data layout: one open-addressing array of 24-byte slots (page, file,
 * value), linear probing from zc__page_hash(), at most half full, doubled
 * when it would pass that.  A key leaves through zc__pagemap_del(), by
 * backward-shift deletion (base/lptab.h: no tombstones, so no probe run
 * is ever broken), and the array is halved when it falls below an eighth
 * full, so that a map's memory follows the keys it holds now, not every
 * key it ever held.  Slot occupancy is the `used` flag, not the value: a
 * key may hold 0.
 *
 * Invariants: used <= (mask + 1) / 2; an unused slot has used == 0; every
 * key is in the run of occupied slots that starts at its home.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_SIM_MODEL_PAGEMAP_H
#define ZC_SIM_MODEL_PAGEMAP_H

#include <stdbool.h>
#include <stdint.h>

struct zc__pagemap_slot {
    uint64_t page;
    uint32_t file;
    uint32_t used; /* 1: the slot holds a key */
    uint64_t value;
};

struct zc__pagemap {
    struct zc__pagemap_slot *v; /* NULL until the first set */
    uint64_t mask, used;
};

/* The value of (file, page): 0 if it is not in the map. */
uint64_t zc__pagemap_get(const struct zc__pagemap *m, uint32_t file,
                         uint64_t page);

/* A pointer to the value of (file, page), entered with value 0 if new:
 * valid until the next zc__pagemap_slot() or zc__pagemap_del() call;
 * NULL: out of memory (nothing changed). */
uint64_t *zc__pagemap_slot(struct zc__pagemap *m, uint32_t file,
                           uint64_t page);

/* Remove (file, page) if it is in the map: whether it was.  Never fails
 * (a halving that finds no memory keeps the larger array). */
bool zc__pagemap_del(struct zc__pagemap *m, uint32_t file, uint64_t page);

/* Free the array; m is empty again. */
void zc__pagemap_free(struct zc__pagemap *m);

#endif
