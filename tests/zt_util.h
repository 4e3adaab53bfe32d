/*
 * zt_util.h - helpers shared by the libzcache test programs.
 *
 * Everything here is independent of the library's implementation: a seeded
 * PRNG, page generators, a corpus of real file pages, LZO1X-1 sizes computed
 * with liblzo2 itself (the reference for the admission rule), a checker of
 * the invariants the public header promises for zc_stats, a temporary
 * directory with file helpers, and little-endian bytes for files made by
 * hand.  Expected values
 * in the tests come from these first principles, never from the library.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZT_UTIL_H
#define ZT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zcache.h"

/* ---- PRNG: splitmix64 for seeding and hashing, xoshiro256** for streams */

static inline uint64_t zt_mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

typedef struct zt_rng {
    uint64_t s[4];
} zt_rng;

void zt_rng_seed(zt_rng *r, uint64_t seed);
uint64_t zt_rng_next(zt_rng *r);
/* Uniform in [0, n), n > 0. */
uint64_t zt_rng_below(zt_rng *r, uint64_t n);
void zt_rng_fill(zt_rng *r, void *buf, size_t len);

/* ---- page contents */

/* Fill page with one repeated 64-bit word. */
void zt_fill_word(void *page, size_t page_size, uint64_t word);
/* Incompressible bytes determined by seed. */
void zt_fill_random(void *page, size_t page_size, uint64_t seed);
/* True iff every 64-bit word of the page is the same (the library's
 * same-filled rule, computed independently). */
bool zt_is_same_filled(const void *page, size_t page_size);

/* ---- real file pages */

/*
 * A corpus of real file contents: pages of 4096 bytes read from regular
 * files under /usr/include, then /usr/lib/x86_64-linux-gnu/\*.so*, each
 * list sorted by path (a file's last partial page zero-filled, as in the
 * page cache), at most 8 pages per file and about half of max_4k_pages per
 * system source; then files of the source tree (ZC_SOURCE_DIR) if the system
 * directories gave too few.  The bytes are contiguous, so the corpus can be
 * cut into pages of any size: zt_corpus_page(ps, i).
 */
typedef struct zt_corpus {
    unsigned char *bytes;
    size_t len; /* a multiple of 4096 */
    size_t files;
} zt_corpus;

/* Loads once (idempotent) and returns the process-wide corpus. */
const zt_corpus *zt_corpus_get(void);
size_t zt_corpus_pages(size_t page_size);
const unsigned char *zt_corpus_page(size_t page_size, size_t i);

/* ---- LZO1X-1 reference */

/* The size lzo1x_1_compress() gives for the page (not thread-safe). */
size_t zt_lzo_size(const void *page, size_t len);
/* The admission threshold: page_size * accept_percent / 100 (bytes). */
static inline size_t zt_threshold(size_t page_size, unsigned accept_percent)
{
    return page_size * accept_percent / 100;
}

/* ---- checks on a live cache (use cmocka asserts; call from tests) */

/* Stats identity, orig_data_size == stored_pages * page_size,
 * arena_bytes <= capacity, mem_used_total <= arena_bytes,
 * same_filled_pages <= stored_pages, raw_pages <= stored_pages. */
void zt_assert_stats_sane(const zc_stats *s, size_t page_size, size_t capacity);
/* zc_stats_get + zt_assert_stats_sane + zc_cache_check == 0. */
void zt_assert_cache_sane(const zc_cache *c, size_t page_size, size_t capacity);

/* A cache from the default config plus a spec; asserts success. */
zc_cache *zt_cache_new(const char *spec, zc_config *cfg_out);

/* Integer from the environment, or def when unset or unparsable. */
uint64_t zt_env_u64(const char *name, uint64_t def);

/* ---- the quick tier
 *
 * The suite runs in two tiers (README: Two tiers of tests).  The full one
 * (`bash scripts/test.sh --full`) runs every program at the scale written
 * in it.  The quick one (`bash scripts/test.sh`: `ctest -L quick` with
 * ZC_TEST_QUICK=1 in the environment) runs the same programs and the same
 * checks, the slow ones on fewer operations, pages, sizes or back-end
 * configurations: each program says what it cuts where it calls
 * zt_scale(), and keeps enough for a wrong answer to fail.  ZC_TEST_QUICK
 * unset, empty or 0: the full scale.  This is the one place a C test reads
 * it (tests/tool_test.sh is the shell tests' one); inline, so that the
 * INTERNAL programs, which do not link zt_util, read it here too. */
static inline bool zt_quick(void)
{
    const char *v = getenv("ZC_TEST_QUICK");
    return v && *v && strcmp(v, "0") != 0;
}

/* full at the full scale, quick in the quick tier. */
static inline uint64_t zt_scale(uint64_t full, uint64_t quick)
{
    return zt_quick() ? quick : full;
}

/* ---- temporary files: one directory per test program */

/* Make a fresh directory $TMPDIR/PROGRAM_XXXXXX (/tmp without TMPDIR,
 * PROGRAM the test program's name): 0, or -1.  A cmocka group setup. */
int zt_tmpdir_setup(void **state);
/* The directory's path. */
const char *zt_tmpdir(void);
/* Remove the directory and every file in it: 0, or -1.  A cmocka group
 * teardown. */
int zt_tmpdir_teardown(void **state);
/* The path of name in the directory: the same string for the same name,
 * valid until zt_tmpdir_remove(). */
const char *zt_tmp_path(const char *name);
/* Write len bytes to path (asserting success). */
void zt_write_file(const char *path, const void *data, size_t len);
/* Write len bytes to name in the directory; its path. */
const char *zt_write_tmp(const char *name, const void *data, size_t len);
/* A file's bytes (malloc'd, with room for one more byte), asserting it
 * reads; *len its length. */
unsigned char *zt_read_file(const char *path, size_t *len);
/* data compressed as one zstd frame with its content checksum, at level 3
 * (malloc'd), *zlen its length. */
unsigned char *zt_zstd(const void *data, size_t len, size_t *zlen);
/* The same with (checksum 1) or without (0) zstd's content checksum. */
unsigned char *zt_zstd_frame(const void *data, size_t len, int checksum,
                             size_t *zlen);

/* ---- hand-made binary files */

/* v little-endian at p. */
static inline void zt_put_le32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

#endif /* ZT_UTIL_H */
