/*
 * sim/common/ctab.h - a table from page-content hashes to content ids, for the
 * writers that store each distinct content once: the op-stream writer
 * (zct_write.c: the contents in its window) and the content-pack writer
 * (pack.c: every content of the pack).
 *
 * Data layout: open addressing with linear probing over slots of the
 * 128-bit hash (base/hash.h) and id + 1 (0: empty), at most half full;
 * it starts at 1024 slots and doubles.  A hash names candidates only: the
 * caller compares the bytes before it reuses an id, so two contents whose
 * hashes collide both live in the table.  Removal shifts the probe run
 * back (no tombstones), so a table whose entries come and go (a window)
 * stays as short as its live entries make it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_SIM_COMMON_CTAB_H
#define ZC_SIM_COMMON_CTAB_H

#include <stdbool.h>
#include <stdint.h>

struct zc__ctab_slot {
    uint64_t h[2];
    uint64_t id1; /* content id + 1; 0: empty */
};

struct zc__ctab {
    struct zc__ctab_slot *slot; /* NULL until the first insert */
    uint64_t mask, used;
};

/* The ids stored under hash h, one a call: start with *cur = 0; true and
 * *id for each, false after the last. */
static inline bool zc__ctab_next(const struct zc__ctab *t, const uint64_t h[2],
                                 uint64_t *cur, uint64_t *id)
{
    while (t->slot) {
        const struct zc__ctab_slot *s = &t->slot[(h[0] + *cur) & t->mask];
        if (!s->id1)
            return false;
        ++*cur;
        if (s->h[0] == h[0] && s->h[1] == h[1]) {
            *id = s->id1 - 1;
            return true;
        }
    }
    return false;
}

/* Add id under hash h (the table grows as needed): 0, or -ZC_ENOMEM and
 * the table as it was. */
int zc__ctab_insert(struct zc__ctab *t, const uint64_t h[2], uint64_t id);

/* Remove id, stored under hash h, if it is there. */
void zc__ctab_remove(struct zc__ctab *t, const uint64_t h[2], uint64_t id);

/* Free the slots; t is empty again. */
void zc__ctab_free(struct zc__ctab *t);

#endif /* ZC_SIM_COMMON_CTAB_H */
