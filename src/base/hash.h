/*
 * base/hash.h - the hashes both layers use: a 128-bit hash of page
 * contents (deduplicating an op stream's contents, checking gets against
 * puts), the 64-bit finaliser (the core's memo ends its sampled hash with
 * it), and the page-key hash of the simulation's tables.
 *
 * Not cryptographic: two 64-bit multiply-rotate lanes over the page's
 * 64-bit words (different constants and mixing), each finished with the
 * murmur3 finaliser.  Used where an accidental collision of distinct real
 * pages (probability about n^2 / 2^128) is the only risk; the op-stream
 * writer still compares the bytes before it reuses a content.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_BASE_HASH_H
#define ZC_BASE_HASH_H

#include <stdint.h>
#include <string.h>

static inline uint64_t zc__fmix64(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

static inline uint64_t zc__rotl64(uint64_t x, int r)
{
    return (x << r) | (x >> (64 - r));
}

/* The hash of a page key (file number, page index), for the simulation's
 * open-addressing tables (one multiply: the tables' probes need spread,
 * not strength). */
static inline uint64_t zc__page_hash(uint32_t file, uint64_t page)
{
    uint64_t h = (page ^ ((uint64_t)file << 40) ^ file) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}

/* len must be a multiple of 8 (page sizes are). */
static inline void zc__hash128(const void *data, size_t len, uint64_t out[2])
{
    const unsigned char *p = data;
    uint64_t a = 0x9E3779B97F4A7C15ull ^ len, b = 0xC2B2AE3D27D4EB4Full;

    for (size_t i = 0; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        a = zc__rotl64(a ^ (w * 0x87c37b91114253d5ull), 31) *
            0x4cf5ad432745937full;
        b = (zc__rotl64(b, 27) + w) * 0x9E3779B97F4A7C15ull + 0x52dce729;
    }
    out[0] = zc__fmix64(a ^ zc__rotl64(b, 17));
    out[1] = zc__fmix64(b + a);
}

#endif
