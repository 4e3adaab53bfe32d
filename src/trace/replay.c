/*
 * trace/replay.c - the page-cache model in front of a zcache.
 *
 * Each request is split into the pages it touches (DESIGN.md: bytes
 * [off, off+len) touch pages floor(off/P) .. floor((off+len-1)/P), in
 * ascending order), and each page access runs through an LRU page cache of
 * a fixed number of pages:
 *
 *   hit                 move to the front (a write also gives the page a
 *                       new version and invalidates any zcache copy)
 *   read miss           zcache get: a hit is a disk read avoided
 *   write miss          zcache invalidate_page (a copy found there counts
 *                       as a resident hit), new version
 *   any miss            insert at the front; when full, the back page is
 *                       evicted and put to the zcache with its content,
 *                       flagged ZC_OP_PUT_ACTIVE if it was hit while in
 *                       the page cache (what zcache2's admission read)
 *
 * Pages are keyed as cleancache keys them.  A block request (ino 0) keys
 * its pages like the kernel's block-device page cache: zcache pool = the
 * device (one private pool per device, created on first sight), file key
 * = the device number (zc_filekey_from_ino(dev)), index = page number of
 * the device.  A file request (ino != 0, from an access stream) keys its
 * pages pool = the file system's dev (one private pool per file system,
 * created on first sight), file key = zc_filekey_from_ino(ino), index =
 * page in the file.  A stream that mixes block requests of device D with
 * file requests of a file system whose s_dev is D (a loop-device image
 * traced both ways) gets two pools, as the kernel's block-device pages
 * and the file system's pages belong to different super blocks: else the
 * block page n of D (key D) and page n of inode D (key D) would be one
 * zcache key.  A stream of one kind has exactly one pool per dev.  Page contents come from the content source as
 * (dev, page, version) or (dev, ino, index, version), the version
 * counting the page's writes, so a put always carries the page's latest
 * bytes.
 *
 * Data layout: the (dev, ino) pair of a request is interned once as a
 * 32-bit file number (files.h), and pages are keyed (file, page).  The
 * page cache is a fixed array of 24-byte nodes (key, LRU links as 32-bit
 * indexes, two flag bytes in the padding) and an open-addressing table of
 * node indexes (linear probing, backward-shift deletion, at most half
 * full), so the zcache-off path does one hash probe and a few link
 * updates per access.  Versions of written pages live in a second
 * open-addressing table that grows; pages never written are version 0
 * and cost nothing.
 *
 * A node remembers whether the page was last brought in or touched
 * through a memory mapping (ZC_REQ_MAPPED), for a model that treats
 * mapped pages as the kernel does (they start on the active list, and
 * unmapping them costs); the LRU here ignores it: a mapped access is an
 * access like any other.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <string.h>

#include "adapt.h"
#include "files.h"
#include "player.h"
#include "zcache_trace.h"

#define NIL 0xFFFFFFFFu

struct node {
    uint64_t page;
    uint32_t file; /* zc__files number of (dev, ino) */
    uint32_t prev, next;
    uint8_t active; /* hit since it came in (in the padding: still 24 B) */
    uint8_t mapped; /* last accessed through a mapping (not used by LRU) */
};

_Static_assert(sizeof(struct node) == 24, "a page-cache node is 24 bytes");

struct ver_slot {
    uint64_t page;
    uint32_t file;
    uint32_t version; /* 0: empty slot (written pages are >= 1) */
};

struct zc_replay {
    size_t page_size;
    unsigned page_shift;
    zc_cache *zc;
    zc_content *content;
    zc_player *player;       /* drives zc and counts */
    zc_ops_writer *ops;      /* NULL, or where the op stream is saved */
    zc_op_sink sink;         /* NULL, or who else gets every op */
    struct zc__adapt *adapt; /* NULL, or the controller of the split */
    void *sink_ctx;
    uint64_t requests;

    /* page cache */
    struct node *nodes;
    uint32_t cap, used;         /* capacity and pages held, in pages */
    uint32_t nnodes, nodes_cap; /* node slots ever used, allocated */
    uint32_t free_node;         /* slots freed by a shrink, through next */
    uint32_t head, tail;        /* most and least recently used, NIL if empty */
    uint32_t *table;            /* node index + 1, 0 empty */
    uint64_t mask;

    /* versions of written pages */
    struct ver_slot *ver;
    uint64_t ver_mask, ver_used;

    struct zc__files files; /* file numbers of (dev, ino) */
    uint64_t *pools;        /* stream pool -> its POOL_KEY() */
    size_t npools, pools_cap;
    uint64_t last_pkey; /* the last lookup (valid if npools) */
    uint32_t last_pool;
    uint8_t *page;                /* one page of content */
};

/* ---- versions ----------------------------------------------------------- */

static uint32_t version_of(const struct zc_replay *r, uint32_t file,
                           uint64_t page)
{
    uint64_t i;

    if (!r->ver)
        return 0;
    for (i = zc__page_hash(file, page) & r->ver_mask; r->ver[i].version;
         i = (i + 1) & r->ver_mask)
        if (r->ver[i].page == page && r->ver[i].file == file)
            return r->ver[i].version;
    return 0;
}

static int version_bump(struct zc_replay *r, uint32_t file, uint64_t page)
{
    uint64_t i;

    if (!r->ver || (r->ver_used + 1) * 2 > r->ver_mask + 1) {
        uint64_t n = r->ver ? (r->ver_mask + 1) * 2 : 1024;
        struct ver_slot *t = calloc(n, sizeof(*t));
        if (!t)
            return -ZC_ENOMEM;
        for (uint64_t j = 0; r->ver && j <= r->ver_mask; j++) {
            if (!r->ver[j].version)
                continue;
            for (i = zc__page_hash(r->ver[j].file, r->ver[j].page) & (n - 1);
                 t[i].version; i = (i + 1) & (n - 1))
                ;
            t[i] = r->ver[j];
        }
        free(r->ver);
        r->ver = t;
        r->ver_mask = n - 1;
    }
    for (i = zc__page_hash(file, page) & r->ver_mask; r->ver[i].version;
         i = (i + 1) & r->ver_mask)
        if (r->ver[i].page == page && r->ver[i].file == file) {
            r->ver[i].version++;
            return 0;
        }
    r->ver[i].page = page;
    r->ver[i].file = file;
    r->ver[i].version = 1;
    r->ver_used++;
    return 0;
}

/* ---- the page cache ----------------------------------------------------- */

static uint64_t find_slot(const struct zc_replay *r, uint32_t file,
                          uint64_t page, bool *found)
{
    uint64_t i = zc__page_hash(file, page) & r->mask;

    for (; r->table[i]; i = (i + 1) & r->mask) {
        const struct node *n = &r->nodes[r->table[i] - 1];
        if (n->page == page && n->file == file) {
            *found = true;
            return i;
        }
    }
    *found = false;
    return i;
}

/* Remove table slot i, shifting later members of its run back. */
static void table_delete(struct zc_replay *r, uint64_t i)
{
    uint64_t j = i;

    for (;;) {
        uint64_t k;
        j = (j + 1) & r->mask;
        if (!r->table[j])
            break;
        k = zc__page_hash(r->nodes[r->table[j] - 1].file,
                          r->nodes[r->table[j] - 1].page) &
            r->mask;
        /* Move j back to i unless its home k lies cyclically in (i, j]. */
        if ((j > i && (k <= i || k > j)) || (j < i && (k <= i && k > j))) {
            r->table[i] = r->table[j];
            i = j;
        }
    }
    r->table[i] = 0;
}

static void lru_unlink(struct zc_replay *r, uint32_t n)
{
    struct node *x = &r->nodes[n];

    if (x->prev != NIL)
        r->nodes[x->prev].next = x->next;
    else
        r->head = x->next;
    if (x->next != NIL)
        r->nodes[x->next].prev = x->prev;
    else
        r->tail = x->prev;
}

static void lru_push_front(struct zc_replay *r, uint32_t n)
{
    struct node *x = &r->nodes[n];

    x->prev = NIL;
    x->next = r->head;
    if (r->head != NIL)
        r->nodes[r->head].prev = n;
    r->head = n;
    if (r->tail == NIL)
        r->tail = n;
}

/* ---- the op stream ------------------------------------------------------ */

/* Every op goes to the writer, if one is attached, then to the player,
 * which drives the zcache and counts. */
static int emit(struct zc_replay *r, zc_op *op)
{
    int rc;

    if (r->ops && (rc = zc_ops_write(r->ops, op)))
        return rc;
    if (r->sink && (rc = r->sink(r->sink_ctx, op)))
        return rc;
    return zc_player_op(r->player, op);
}

/* A pool's identity: the block device dev, or the file system dev. */
#define POOL_KEY(dev, is_file) ((uint64_t)(dev) | (uint64_t)!!(is_file) << 32)

/* The stream pool of a device or file system: created, with its init op,
 * on first sight. */
static int pool_of(struct zc_replay *r, uint64_t pkey, uint32_t *pool)
{
    zc_op op;
    int rc;

    if (r->npools && r->last_pkey == pkey) {
        *pool = r->last_pool;
        return 0;
    }
    for (size_t i = 0; i < r->npools; i++)
        if (r->pools[i] == pkey) {
            r->last_pkey = pkey;
            *pool = r->last_pool = (uint32_t)i;
            return 0;
        }
    if (r->npools == r->pools_cap) {
        size_t cap = r->pools_cap ? r->pools_cap * 2 : 8;
        uint64_t *t = realloc(r->pools, cap * sizeof(*t));
        if (!t)
            return -ZC_ENOMEM;
        r->pools = t;
        r->pools_cap = cap;
    }
    memset(&op, 0, sizeof(op));
    op.kind = ZC_OP_INIT_FS;
    op.pool = (uint32_t)r->npools;
    op.page_size = r->page_size;
    rc = emit(r, &op);
    if (rc)
        return rc;
    r->pools[r->npools] = pkey;
    r->last_pkey = pkey;
    *pool = r->last_pool = (uint32_t)r->npools++;
    return 0;
}

static int adaptive_put(struct zc_replay *r, uint32_t file, uint64_t page,
                        uint32_t flags);

/* An op of a kind on the page (file, page), no content yet: pool = the
 * dev, key = the inode, or the dev itself for a block device's page. */
static int make_op(struct zc_replay *r, zc_op_kind kind, uint32_t file,
                   uint64_t page, uint32_t flags, zc_op *op)
{
    const struct zc__file *f = zc__files_get(&r->files, file);
    int rc = pool_of(r, POOL_KEY(f->dev, f->ino), &op->pool);

    if (rc)
        return rc;
    op->kind = kind;
    op->flags = flags;
    /* zc_filekey_from_ino(ino or dev), without the call */
    {
        uint64_t ino = f->ino ? f->ino : f->dev;
        memset(&op->key, 0, sizeof(op->key));
        memcpy(op->key.fh, &ino, sizeof(ino));
    }
    op->index = page;
    op->page = NULL;
    op->content = 0;
    return 0;
}

/* The latest content of the page (file, page) into r->page. */
static int content_of(struct zc_replay *r, uint32_t file, uint64_t page)
{
    const struct zc__file *f = zc__files_get(&r->files, file);
    uint64_t v = version_of(r, file, page);

    if (!f->ino)
        return zc_content_page(r->content, f->dev, page, v, r->page);
    return zc_content_file_page(r->content, f->dev, f->ino, page, v, r->page);
}

/* An op on the page (file, page). */
static int page_op(struct zc_replay *r, zc_op_kind kind, uint32_t file,
                   uint64_t page, uint32_t flags)
{
    zc_op op;
    int rc;

    if (kind == ZC_OP_PUT && r->adapt)
        return adaptive_put(r, file, page, flags);
    if (!r->zc && !r->ops && !r->sink) {
        /* Nothing to drive: count as the player would, without ops. */
        zc_replay_stats *st = zc__player_stats(r->player);
        if (kind == ZC_OP_GET) {
            zc__count_read_miss(st);
            st->disk_reads++;
        } else if (kind == ZC_OP_PUT) {
            zc__count_eviction(st);
        } else {
            zc__count_invalidate(st, flags);
        }
        return 0;
    }
    rc = make_op(r, kind, file, page, flags, &op);
    if (rc)
        return rc;
    if (kind == ZC_OP_PUT && (r->zc || r->ops || r->sink)) {
        rc = content_of(r, file, page);
        if (rc)
            return rc;
        op.page = r->page;
    }
    return emit(r, &op);
}

/* An eviction in adaptive mode: put, dropped, or probed, as the controller
 * says; what a put or probe finds goes back to it. */
static int adaptive_put(struct zc_replay *r, uint32_t file, uint64_t page,
                        uint32_t flags)
{
    enum zc__adapt_plan plan = zc__adapt_plan(r->adapt, file, page);
    zc_replay_stats *st = zc__player_stats(r->player);
    zc_put_info info;
    zc_op op;
    int rc, outcome;

    if (plan != ZC__ADAPT_PUT) {
        zc__count_eviction(st);
        st->zc_skipped++;
        if (plan == ZC__ADAPT_SKIP)
            return 0;
    }
    rc = content_of(r, file, page);
    if (rc)
        return rc;
    if (plan == ZC__ADAPT_PROBE) {
        st->zc_probes++;
        outcome = zc_estimate_page(r->zc, r->page, &info);
        if (outcome < 0)
            return outcome;
        zc__adapt_learn(r->adapt, file, page, outcome, &info);
        return 0;
    }
    rc = make_op(r, ZC_OP_PUT, file, page, flags, &op);
    if (rc)
        return rc;
    op.page = r->page;
    memset(&info, 0, sizeof(info));
    rc = zc__player_put(r->player, &op, &info, &outcome);
    if (rc)
        return rc;
    zc__adapt_learn(r->adapt, file, page, outcome, &info);
    return 0;
}

/* Move the boundary to the controller's split: the zcache's capacity
 * first, so that a shrinking page cache puts into the new room. */
static int apply_split(struct zc_replay *r)
{
    uint64_t pc, zb;
    int rc;

    zc__adapt_split(r->adapt, &pc, &zb);
    rc = zc_set_capacity(r->zc, zb);
    return rc ? rc : zc_replay_set_page_cache(r, pc);
}

/* The end of an epoch: the controller decides, the split follows. */
static int adapt_epoch(struct zc_replay *r)
{
    zc_stats st;
    int rc = zc_stats_get(r->zc, &st);

    if (!rc)
        rc = zc__adapt_decide(r->adapt, &st, zc__player_stats(r->player));
    return rc ? rc : apply_split(r);
}

static int page_cache_hit(struct zc_replay *r)
{
    zc_op op;

    if (!r->zc && !r->ops && !r->sink) {
        zc__count_pc_hits(zc__player_stats(r->player), 1);
        return 0;
    }
    op.kind = ZC_OP_PC_HITS;
    op.count = 1;
    return emit(r, &op);
}

/* Evict the least recently used page: out of the table and the list, put
 * to the zcache; *n is its node slot, now unused. */
static int evict_tail(struct zc_replay *r, uint32_t *n)
{
    bool f;
    uint64_t vs;

    *n = r->tail;
    vs = find_slot(r, r->nodes[*n].file, r->nodes[*n].page, &f);
    table_delete(r, vs);
    lru_unlink(r, *n);
    r->used--;
    return page_op(r, ZC_OP_PUT, r->nodes[*n].file, r->nodes[*n].page,
                   r->nodes[*n].active ? ZC_OP_PUT_ACTIVE : 0);
}

/* One page access (mapped: through a memory mapping). */
static int access_page(struct zc_replay *r, uint32_t file, uint64_t page,
                       bool write, uint8_t mapped)
{
    bool found;
    uint64_t slot;
    uint32_t n;
    int rc;

    if (r->adapt) {
        if (zc__adapt_epoch_over(r->adapt) && (rc = adapt_epoch(r)))
            return rc;
        if ((rc = zc__adapt_access(r->adapt, file, page, write)))
            return rc;
    }
    slot = find_slot(r, file, page, &found);
    if (found) {
        n = r->table[slot] - 1;
        r->nodes[n].active = 1;
        r->nodes[n].mapped = mapped;
        if (n != r->head) {
            lru_unlink(r, n);
            lru_push_front(r, n);
        }
        if (!write)
            return page_cache_hit(r);
        rc = page_op(r, ZC_OP_INVALIDATE_PAGE, file, page, ZC_OP_WRITE_HIT);
        return rc ? rc : version_bump(r, file, page);
    }

    /* A miss: a read tries the zcache, a write drops any copy there. */
    if (write) {
        rc = page_op(r, ZC_OP_INVALIDATE_PAGE, file, page, ZC_OP_WRITE_MISS);
        if (!rc)
            rc = version_bump(r, file, page);
    } else {
        rc = page_op(r, ZC_OP_GET, file, page, 0);
    }
    if (rc)
        return rc;
    if (r->cap == 0) {
        /* No page cache: the page passes through and is evicted at once. */
        return page_op(r, ZC_OP_PUT, file, page, 0);
    }
    if (r->used < r->cap) {
        if (r->free_node != NIL) {
            n = r->free_node;
            r->free_node = r->nodes[n].next;
        } else {
            n = r->nnodes++;
        }
        r->used++;
    } else {
        rc = evict_tail(r, &n);
        if (rc)
            return rc;
        r->used++;
        /* The slot found before may have moved: look again. */
        slot = find_slot(r, file, page, &found);
    }
    r->nodes[n].file = file;
    r->nodes[n].page = page;
    r->nodes[n].active = 0;
    r->nodes[n].mapped = mapped;
    r->table[slot] = n + 1;
    lru_push_front(r, n);
    return 0;
}

/* ---- public ----------------------------------------------------------- */

int zc_replay_create(uint64_t pc_pages, size_t page_size, zc_cache *zc,
                     zc_content *content, zc_replay **out)
{
    struct zc_replay *r;
    uint64_t tsize = 2;

    if (!out || page_size < 512 || (page_size & (page_size - 1)) ||
        pc_pages >= NIL || (zc && !content))
        return -ZC_EINVAL;
    *out = NULL;
    r = calloc(1, sizeof(*r));
    if (!r)
        return -ZC_ENOMEM;
    r->page_size = page_size;
    while ((1ul << r->page_shift) < page_size)
        r->page_shift++;
    r->zc = zc;
    r->content = content;
    r->cap = (uint32_t)pc_pages;
    r->nodes_cap = (uint32_t)(pc_pages ? pc_pages : 1);
    r->free_node = NIL;
    r->head = r->tail = NIL;
    while (tsize < pc_pages * 2)
        tsize *= 2;
    r->mask = tsize - 1;
    r->nodes = malloc((pc_pages ? pc_pages : 1) * sizeof(*r->nodes));
    r->table = calloc(tsize, sizeof(*r->table));
    r->page = malloc(page_size);
    if (!r->nodes || !r->table || !r->page ||
        zc_player_create(zc, &r->player)) {
        zc_replay_destroy(r);
        return -ZC_ENOMEM;
    }
    *out = r;
    return 0;
}

int zc_replay_set_page_cache(zc_replay *r, uint64_t pages)
{
    if (!r || pages >= NIL)
        return -ZC_EINVAL;
    if (pages > r->nodes_cap) {
        struct node *nodes = realloc(r->nodes, pages * sizeof(*nodes));
        if (!nodes)
            return -ZC_ENOMEM;
        r->nodes = nodes;
        r->nodes_cap = (uint32_t)pages;
    }
    if (pages * 2 > r->mask + 1) {
        /* A larger table, at most half full: every page in it again. */
        uint64_t tsize = (r->mask + 1) * 2, mask;
        uint32_t *table;
        while (tsize < pages * 2)
            tsize *= 2;
        table = calloc(tsize, sizeof(*table));
        if (!table)
            return -ZC_ENOMEM;
        mask = tsize - 1;
        for (uint32_t n = r->head; n != NIL; n = r->nodes[n].next) {
            uint64_t i =
                zc__page_hash(r->nodes[n].file, r->nodes[n].page) & mask;
            while (table[i])
                i = (i + 1) & mask;
            table[i] = n + 1;
        }
        free(r->table);
        r->table = table;
        r->mask = mask;
    }
    while (r->used > pages) {
        uint32_t n;
        int rc = evict_tail(r, &n);
        r->nodes[n].next = r->free_node;
        r->free_node = n;
        if (rc)
            return rc;
    }
    r->cap = (uint32_t)pages;
    return 0;
}

int zc_replay_request(zc_replay *r, const zc_request *req)
{
    uint64_t first, last;
    uint32_t file;
    uint8_t mapped;
    int rc;

    if (!r || !req)
        return -ZC_EINVAL;
    if (req->length == 0)
        return 0;
    if (req->offset > UINT64_MAX - (req->length - 1))
        return -ZC_EINVAL;
    if ((rc = zc__files_id(&r->files, req->dev, req->ino, &file)))
        return rc;
    r->requests++;
    mapped = (req->flags & ZC_REQ_MAPPED) != 0;
    first = req->offset >> r->page_shift;
    last = (req->offset + req->length - 1) >> r->page_shift;
    for (uint64_t p = first;; p++) {
        rc = access_page(r, file, p, req->write, mapped);
        if (rc)
            return rc;
        if (p == last)
            break;
    }
    return 0;
}

int zc_replay_adapt(zc_replay *r, const zc_adapt_options *opt)
{
    int rc;

    if (!r || !opt || !r->zc || r->ops || r->sink || r->adapt || r->requests ||
        !opt->memory_bytes || opt->memory_bytes / r->page_size >= NIL)
        return -ZC_EINVAL;
    rc = zc__adapt_create(opt, r->page_size, &r->adapt);
    if (rc)
        return rc;
    rc = apply_split(r);
    if (rc) {
        zc__adapt_destroy(r->adapt);
        r->adapt = NULL;
    }
    return rc;
}

size_t zc_replay_adapt_log(const zc_replay *r, const zc_adapt_epoch **out)
{
    if (!out)
        return 0;
    *out = NULL;
    return r && r->adapt ? zc__adapt_log(r->adapt, out) : 0;
}

const struct zc__adapt *zc__replay_adapt(const zc_replay *r)
{
    return r ? r->adapt : NULL;
}

void zc_replay_verify(zc_replay *r, bool on)
{
    if (r)
        zc_player_verify(r->player, on);
}

int zc_replay_save_ops(zc_replay *r, zc_ops_writer *w)
{
    if (!r || (w && !r->content) || (w && r->adapt))
        return -ZC_EINVAL;
    r->ops = w;
    return 0;
}

int zc_replay_sink(zc_replay *r, zc_op_sink fn, void *ctx)
{
    if (!r || (fn && !r->content) || (fn && r->adapt))
        return -ZC_EINVAL;
    r->sink = fn;
    r->sink_ctx = ctx;
    return 0;
}

int zc_replay_stats_get(const zc_replay *r, zc_replay_stats *out)
{
    int rc;

    if (!r || !out)
        return -ZC_EINVAL;
    rc = zc_player_stats_get(r->player, out);
    out->requests = r->requests;
    return rc;
}

void zc_replay_destroy(zc_replay *r)
{
    if (!r)
        return;
    free(r->nodes);
    free(r->table);
    free(r->ver);
    free(r->pools);
    free(r->page);
    zc__files_free(&r->files);
    zc__adapt_destroy(r->adapt);
    zc_player_destroy(r->player);
    free(r);
}
