/*
 * fuzz/fuzz_zct.c - libFuzzer target: the op-stream reader (.zct binary
 * and text), the writer, and the player behind them.
 *
 * The input is one file opened with zc_ops_open() and drained.  What must
 * hold whatever the input:
 *   - an error is -ZC_EFORMAT (memory files never fail to read; a pack
 *     the header names and that cannot be opened is -ZC_EIO), its
 *     message one non-empty line starting with the path; errors and the
 *     end are sticky;
 *   - every op handed out is well-formed: a known kind, a put with a page,
 *     puts and gets with their known flags only (active, ahead), pools
 *     below the format's limit;
 *   - the ops, played into a small zcache with verification on, never
 *     fail and never make a get return wrong data, and the cache passes
 *     zc_cache_check() afterwards (arbitrary cleancache op sequences are
 *     the zcache's own fuzz test here);
 *   - a stream that reads completely, written again with zc_ops_writer
 *     (binary with a small window, and text), reads back as the same ops.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <string.h>

#include "harness.h"

/* An order-dependent hash of the ops of a stream. */
struct drained {
    int open_rc, rc;
    uint64_t count, chain;
    char msg[512];
};

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

static uint64_t op_hash(const zc_op *op, size_t page_size)
{
    uint64_t h = mix((uint64_t)op->kind, op->pool);

    switch (op->kind) {
    case ZC_OP_PC_HITS: return mix(h, op->count);
    case ZC_OP_INIT_SHARED_FS:
        h = mix(h, fuzz_hash(op->uuid, 16));
        /* fall through */
    case ZC_OP_INIT_FS: return mix(h, op->page_size);
    case ZC_OP_INVALIDATE_FS: return h;
    default: break;
    }
    h = mix(h, fuzz_hash((const uint8_t *)&op->key, sizeof(op->key)));
    if (op->kind == ZC_OP_INVALIDATE_INODE)
        return h;
    h = mix(h, op->index);
    if (op->kind == ZC_OP_INVALIDATE_PAGE || op->kind == ZC_OP_PUT ||
        op->kind == ZC_OP_GET)
        h = mix(h, op->flags);
    if (op->kind == ZC_OP_PUT)
        h = mix(h, fuzz_hash(op->page, page_size));
    return h;
}

/* Read path; with a writer, copy every op to it; with a player, play. */
static void drain(const char *path, struct drained *d, zc_ops_writer *w,
                  zc_player *p, size_t *page_size)
{
    zc_ops_reader *r;
    zc_op op;
    uint64_t pending_hits = 0;

    memset(d, 0, sizeof(*d));
    d->open_rc = zc_ops_open(path, &r, d->msg, sizeof(d->msg));
    if (d->open_rc) {
        /* A header may name a pack (pack=NAME), opened beside the
         * stream: one that cannot be opened is -ZC_EIO. */
        FUZZ_CHECK(d->open_rc == -ZC_EFORMAT ||
                   (d->open_rc == -ZC_EIO && strstr(d->msg, ": pack ")));
        FUZZ_CHECK(d->msg[0] && !strchr(d->msg, '\n'));
        FUZZ_CHECK(strncmp(d->msg, path, strlen(path)) == 0);
        return;
    }
    *page_size = zc_ops_page_size(r);
    FUZZ_CHECK(zc_ops_meta(r, "page_size") != NULL);
    while ((d->rc = zc_ops_next(r, &op)) == 1) {
        FUZZ_CHECK(op.kind >= ZC_OP_INIT_FS && op.kind <= ZC_OP_PC_HITS);
        if (op.kind == ZC_OP_PUT)
            FUZZ_CHECK(op.page != NULL && (op.flags & ~ZC_OP_PUT_ACTIVE) == 0);
        if (op.kind == ZC_OP_GET)
            FUZZ_CHECK((op.flags & ~ZC_OP_GET_AHEAD) == 0);
        /* Runs of pc_hits are merged by the writer: hash their sums. */
        if (op.kind == ZC_OP_PC_HITS) {
            FUZZ_CHECK(op.count > 0);
            pending_hits += op.count;
        } else {
            if (pending_hits) {
                zc_op h = {.kind = ZC_OP_PC_HITS, .count = pending_hits};
                d->chain = mix(d->chain, op_hash(&h, *page_size));
                pending_hits = 0;
            }
            d->chain = mix(d->chain, op_hash(&op, *page_size));
        }
        d->count++;
        if (w)
            FUZZ_CHECK(zc_ops_write(w, &op) == 0);
        if (p) {
            int rc = zc_player_op(p, &op);
            if (rc)
                fuzz_fail("op %llu (kind %d) played: %s",
                          (unsigned long long)d->count, (int)op.kind,
                          zc_strerror(rc));
        }
    }
    if (pending_hits) {
        zc_op h = {.kind = ZC_OP_PC_HITS, .count = pending_hits};
        d->chain = mix(d->chain, op_hash(&h, *page_size));
    }
    if (d->rc < 0) {
        snprintf(d->msg, sizeof(d->msg), "%s", zc_ops_error(r));
        FUZZ_CHECK(d->rc == -ZC_EFORMAT);
        FUZZ_CHECK(d->msg[0] && !strchr(d->msg, '\n'));
        FUZZ_CHECK(strncmp(d->msg, path, strlen(path)) == 0);
    }
    FUZZ_CHECK(zc_ops_next(r, &op) == d->rc); /* sticky */
    zc_ops_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_file in, bin, text;
    struct drained d, again;
    zc_config cfg = zc_config_default();
    zc_cache *zc = NULL;
    zc_player *p = NULL;
    zc_replay_stats st;
    size_t page_size = 4096, ps2;

    fuzz_file_set(0, data, size, &in);
    fuzz_file_set(1, NULL, 0, &bin);
    fuzz_file_set(2, NULL, 0, &text);

    /* A first pass learns the page size, for the cache. */
    drain(in.path, &d, NULL, NULL, &page_size);
    if (d.open_rc)
        return 0;
    cfg.page_size = page_size;
    cfg.capacity_bytes = 16 * page_size;
    {
        /* The input also picks the back-ends: every allocator, policy and
         * admission option meets the fuzzed streams. */
        uint64_t h = fuzz_hash(data, size);
        size_t na = 0, np = 0;
        while (zc_backend_name(ZC_BACKEND_ALLOCATOR, na))
            na++;
        while (zc_backend_name(ZC_BACKEND_POLICY, np))
            np++;
        cfg.allocator = zc_backend_name(ZC_BACKEND_ALLOCATOR, h % na);
        cfg.policy = zc_backend_name(ZC_BACKEND_POLICY, (h >> 8) % np);
        cfg.dedup = (h >> 16) & 1;
        cfg.store_raw = (h >> 17) & 1;
        cfg.active_only = ((h >> 18) & 7) == 0;
        cfg.hysteresis_percent = ((h >> 21) & 3) == 0 ? 75 : 0;
        cfg.exclusive_gets = (h >> 23) & 1;
    }
    FUZZ_CHECK(zc_cache_create(&cfg, &zc) == 0);
    FUZZ_CHECK(zc_player_create(zc, &p) == 0);
    zc_player_verify(p, true);
    {
        zc_ops_writer_options wo = {.page_size = page_size, .window = 2};
        zc_ops_writer_options to = {.page_size = page_size, .text = true};
        zc_ops_writer *w, *t;
        struct drained d2;
        FUZZ_CHECK(zc_ops_writer_open(bin.path, &wo, &w, NULL, 0) == 0);
        FUZZ_CHECK(zc_ops_writer_open(text.path, &to, &t, NULL, 0) == 0);
        drain(in.path, &d2, w, p, &page_size);
        FUZZ_CHECK(d2.rc == d.rc && d2.chain == d.chain);
        /* t gets the ops by a second read: one writer per read. */
        if (d.rc == 0) {
            drain(in.path, &d2, t, NULL, &page_size);
            FUZZ_CHECK(zc_ops_writer_close(w, NULL, 0) == 0);
            FUZZ_CHECK(zc_ops_writer_close(t, NULL, 0) == 0);
        } else {
            zc_ops_writer_close(w, NULL, 0);
            zc_ops_writer_close(t, NULL, 0);
        }
    }
    FUZZ_CHECK(zc_player_stats_get(p, &st) == 0);
    if (st.zc_wrong)
        fuzz_fail("%llu gets returned wrong data",
                  (unsigned long long)st.zc_wrong);
    FUZZ_CHECK(zc_cache_check(zc) == 0);
    zc_player_destroy(p);
    zc_cache_destroy(zc);

    if (d.rc == 0) {
        drain(bin.path, &again, NULL, NULL, &ps2);
        if (again.open_rc || again.rc || again.chain != d.chain)
            fuzz_fail("binary rewrite reads back differently: %s", again.msg);
        drain(text.path, &again, NULL, NULL, &ps2);
        if (again.open_rc || again.rc || again.chain != d.chain)
            fuzz_fail("text rewrite reads back differently: %s", again.msg);
    }
    return 0;
}
