/*
 * base/lptab.h - the one rule of open addressing with linear probing and
 * backward-shift deletion, for the tables that keep their own slots.
 *
 * A table of 2^n slots (mask = 2^n - 1) keeps each entry in the first
 * free slot at or after its home (its hash & mask), so a lookup walks
 * from the home to the first empty slot.  Deleting leaves a hole that
 * would cut such walks short; instead of a tombstone, each later entry
 * of the run moves back into the hole unless its home lies cyclically in
 * (hole, its slot], and the last hole is emptied.  The tables differ in
 * their slots (ids, keys, hashes kept or recomputed), so the owner says,
 * through a small ops table, whether a slot is empty, where an entry's
 * home is, how to move one and how to empty a slot.
 *
 * Header only (static inline: with the ops a constant the compiler calls
 * them directly).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_BASE_LPTAB_H
#define ZC_BASE_LPTAB_H

#include <stdbool.h>
#include <stdint.h>

struct zc__lp_ops {
    bool (*empty)(const void *ctx, uint64_t j);    /* slot j holds nothing */
    uint64_t (*home)(const void *ctx, uint64_t j); /* the hash of slot j's
                                                      entry (masked here) */
    void (*move)(void *ctx, uint64_t to, uint64_t from);
    void (*clear)(void *ctx, uint64_t i);
};

/** Whether the entry in slot j, whose home slot is k, may move back into
 *  the hole at i: its home is not cyclically in (i, j]. */
static inline bool zc__lp_may_fill(uint64_t i, uint64_t j, uint64_t k,
                                   uint64_t mask)
{
    return ((j - k) & mask) >= ((j - i) & mask);
}

/** Delete the entry in slot i of the table of ctx (slots 0..mask). */
static inline void zc__lp_delete(void *ctx, uint64_t mask, uint64_t i,
                                 const struct zc__lp_ops *ops)
{
    for (uint64_t j = (i + 1) & mask; !ops->empty(ctx, j); j = (j + 1) & mask)
        if (zc__lp_may_fill(i, j, ops->home(ctx, j) & mask, mask)) {
            ops->move(ctx, i, j);
            i = j;
        }
    ops->clear(ctx, i);
}

#endif
