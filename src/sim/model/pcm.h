/*
 * sim/model/pcm.h - page-cache models: the interface replay.c drives, the
 * registry, and the resident-page set the models share.
 *
 * A model decides which pages the page cache holds.  replay.c splits each
 * request into its pages and hands them to the model one by one, with the
 * request around them (struct zc__pcm_req: its first and last page, its
 * bytes, its flags, the file's size when known), because the kernel's
 * choices depend on it: readahead sizes its window from the pages still
 * wanted, and a read that begins in the page where the previous one
 * ended does not mark that page accessed again.  The model answers
 * through callbacks, in the order things happen (struct zc__pcm_io):
 *
 *   hit(page, write)     a requested page was resident
 *   miss(page, write)    a requested page was not; it is resident now
 *                        (replay.c: a read asks the zcache, a write drops
 *                        any copy there)
 *   ahead(page)          a page nobody asked for was read in (readahead),
 *                        or a counted page read again
 *   evict(page, active)  a page left; active: it was hit while resident
 *                        (what zcache2's admission reads)
 *
 * A model must call exactly one of hit and miss for every requested page
 * it counts as an access (a fault-around of a page a model does not hold,
 * or holds with a readahead mark, may be neither: the kernel maps only
 * what it holds and leaves PG_readahead pages alone), never hold more
 * than its capacity after a call returns, and evict only resident pages.
 * A callback's error stops the model and is returned as it is.
 *
 * Models: pcm_lru.c (exact LRU, the default), pcm_linux.c (the kernel's
 * two lists, workingset refaults, readahead).  Adding one is a file and a
 * line in pcm.c's table.
 *
 * The resident set (struct zc__pcm_set) is what every model needs: a node
 * per resident page (24 bytes: key, two 32-bit list links, a list number
 * and a byte of model flags) in an array that grows, an open-addressing
 * table of node indexes keyed by (file, page) (linear probing, backward-
 * shift deletion, at most half full), a free list of node slots, and
 * doubly linked lists (struct zc__pcm_list) through the nodes.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_SIM_MODEL_PCM_H
#define ZC_SIM_MODEL_PCM_H

#include <stdbool.h>
#include <stdint.h>

#include "zcache_sim.h"

#define ZC__PCM_NIL 0xFFFFFFFFu

/* ---- the interface ------------------------------------------------------ */

struct zc__pcm_req {
    uint32_t file;           /* zc__files number of (dev, ino) */
    bool is_file;            /* ino != 0: a file's pages, not a device's */
    bool write;
    uint32_t flags;          /* ZC_REQ_* */
    uint64_t first, last;    /* its pages */
    uint64_t offset, length; /* its bytes */
    uint64_t size_pages;     /* with ZC_REQ_SIZE: pages of the file */
};

struct zc__pcm_io {
    int (*hit)(void *ctx, uint32_t file, uint64_t page, bool write);
    int (*miss)(void *ctx, uint32_t file, uint64_t page, bool write);
    int (*ahead)(void *ctx, uint32_t file, uint64_t page);
    int (*evict)(void *ctx, uint32_t file, uint64_t page, bool active);
    void *ctx;
};

struct zc__pcm_params {
    uint64_t pages;         /* capacity */
    uint64_t read_ahead_kb; /* the device's read_ahead_kb */
    size_t page_size;
    uint64_t max_pages;     /* 0, or the largest capacity resize() will
                               set: what a model remembers of evicted
                               pages may follow it (pcm_linux.c) */
};

struct zc__pcm;

struct zc__pcm_ops {
    const char *name, *doc;
    /* 0; -ZC_ENOMEM */
    int (*create)(const struct zc__pcm_params *p, struct zc__pcm **out);
    void (*destroy)(struct zc__pcm *m);
    /* One page of request q. */
    int (*access)(struct zc__pcm *m, const struct zc__pcm_req *q,
                  uint64_t page, const struct zc__pcm_io *io);
    /* A new capacity: shrinking evicts as the model would. */
    int (*resize)(struct zc__pcm *m, uint64_t pages,
                  const struct zc__pcm_io *io);
    uint64_t (*resident)(const struct zc__pcm *m);
};

extern const struct zc__pcm_ops zc__pcm_lru, zc__pcm_linux;

/* The model of that name, or NULL. */
const struct zc__pcm_ops *zc__pcm_find(const char *name);

/* ---- the resident set ---------------------------------------------------- */

struct zc__pcm_node {
    uint64_t page;
    uint32_t file;
    uint32_t prev, next;
    uint8_t list;  /* which list the model keeps it on */
    uint8_t flags; /* the model's bits */
};

struct zc__pcm_list {
    uint32_t head, tail; /* head: most recent end; ZC__PCM_NIL if empty */
    uint64_t n;
};

struct zc__pcm_set {
    struct zc__pcm_node *nodes;
    uint32_t nnodes, nodes_cap; /* slots ever used, allocated */
    uint32_t free_node;         /* freed slots, through next */
    uint64_t used;              /* resident pages */
    uint32_t *table;            /* node index + 1, 0 empty */
    uint64_t mask;
};

/* An empty set with room for pages (it grows): 0; -ZC_ENOMEM. */
int zc__pcm_set_init(struct zc__pcm_set *s, uint64_t pages);
void zc__pcm_set_free(struct zc__pcm_set *s);

/* The node of (file, page), or ZC__PCM_NIL. */
uint32_t zc__pcm_set_find(const struct zc__pcm_set *s, uint32_t file,
                          uint64_t page);

/* Enter (file, page), not resident: its node (list and flags 0, links
 * unset) in *node.  0; -ZC_ENOMEM (nothing changed). */
int zc__pcm_set_add(struct zc__pcm_set *s, uint32_t file, uint64_t page,
                    uint32_t *node);

/* Remove a resident node (unlinked from its list first by the caller). */
void zc__pcm_set_remove(struct zc__pcm_set *s, uint32_t node);

static inline struct zc__pcm_node *zc__pcm_node(const struct zc__pcm_set *s,
                                                uint32_t n)
{
    return &s->nodes[n];
}

void zc__pcm_list_init(struct zc__pcm_list *l);
void zc__pcm_list_unlink(struct zc__pcm_set *s, struct zc__pcm_list *l,
                         uint32_t n);
void zc__pcm_list_push_head(struct zc__pcm_set *s, struct zc__pcm_list *l,
                            uint32_t n);

#endif
