/*
 * sim/common/bytes.h - the byte-level primitives of the binary trace formats:
 * little-endian integers, unsigned LEB128 varints, the checksum switch of
 * fuzzing builds, and the one-line error message of a reader or writer.
 *
 * The op stream (.zct: zct.c, zct_write.c), the access stream (.zca:
 * access.c, access_write.c) and the content pack (.zcp: pack.c) are all
 * written with these, so a rule such as "a varint may not run past 64
 * bits" is written once.
 *
 * Little-endian: zc__put_le16/32/64(p, v) store v at p; zc__get_le16/32/64
 * load it.  Byte by byte, so p needs no alignment and the host's order
 * does not matter.
 *
 * Varints: 7 bits a byte, least significant first, the top bit set on
 * every byte but the last.  A writer needs at most ZC__VARINT_MAX bytes
 * for a u64.  A reader refuses a tenth byte that would carry bits past
 * 2^64, and an eleventh byte: a number is either a u64 or an error.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_SIM_COMMON_BYTES_H
#define ZC_SIM_COMMON_BYTES_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Fuzzing builds accept bad checksums, so that mutated records reach the
 * parsers instead of stopping at the checksum (libFuzzer's convention). */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define ZC__CHECKSUMS 0
#else
#define ZC__CHECKSUMS 1
#endif

enum { ZC__VARINT_MAX = 10 }; /* bytes of a u64 varint, at most */

/* Whether a stream's header field pack_id (exactly 16 hex digits) names
 * the pack whose id is `id` (zc_pack_id()): the one rule of the .zct
 * reader and zc_content_check_trace(). */
static inline bool zc__pack_id_matches(const char *hex, uint64_t id)
{
    uint64_t v = 0;
    int n = 0;

    for (; hex[n]; n++) {
        char c = hex[n];
        unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
                     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                            : 16u;
        if (d > 15 || n >= 16)
            return false;
        v = v << 4 | d;
    }
    return n == 16 && v == id && id != 0;
}

/* Whether the zstd data frame at p[n] carries zstd's content checksum:
 * 1 yes, 0 no, -1 not known (p[n] is not the start of a data frame: a
 * skippable frame, another magic, or fewer than 5 bytes; zstd judges
 * those).  The flag is bit 2 of the frame header descriptor, the byte
 * after the magic (RFC 8878, 3.1.1.1.1), read here rather than through
 * ZSTD_getFrameHeader(), which libzstd 1.5.4 offers only under
 * ZSTD_STATIC_LINKING_ONLY (no stable ABI).  The formats whose data only
 * zstd's checksum guards (an access stream's records, a pack's blocks)
 * refuse a frame without one: a flipped bit in it would change the
 * numbers and no error. */
static inline int zc__zstd_frame_checksummed(const uint8_t *p, size_t n)
{
    if (n < 5 || p[0] != 0x28 || p[1] != 0xb5 || p[2] != 0x2f || p[3] != 0xfd)
        return -1;
    return (p[4] >> 2) & 1;
}

/* The page sizes the binary formats take: a power of two in 512..65536. */
static inline bool zc__page_size_ok(uint64_t ps)
{
    return ps >= 512 && ps <= 65536 && !(ps & (ps - 1));
}

static inline void zc__put_le16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void zc__put_le32(uint8_t *p, uint32_t v)
{
    zc__put_le16(p, (uint16_t)v);
    zc__put_le16(p + 2, (uint16_t)(v >> 16));
}

static inline void zc__put_le64(uint8_t *p, uint64_t v)
{
    zc__put_le32(p, (uint32_t)v);
    zc__put_le32(p + 4, (uint32_t)(v >> 32));
}

static inline uint16_t zc__get_le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t zc__get_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static inline uint64_t zc__get_le64(const uint8_t *p)
{
    return zc__get_le32(p) | (uint64_t)zc__get_le32(p + 4) << 32;
}

/* Write v as a varint at p (room for ZC__VARINT_MAX bytes); its length. */
static inline size_t zc__varint_put(uint8_t *p, uint64_t v)
{
    size_t n = 0;

    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

/* Read a varint at *pp, not past end: 1 and *v; 0 if end cuts it; -1 if
 * it runs past 64 bits.  *pp is moved past the bytes read: the varint, or
 * up to end, or up to the byte that overflowed (where a message points). */
static inline int zc__varint_get(const uint8_t **pp, const uint8_t *end,
                                 uint64_t *v)
{
    const uint8_t *p = *pp;
    uint64_t x = 0;

    for (unsigned shift = 0;; shift += 7) {
        uint8_t b;
        if (p >= end) {
            *pp = p;
            return 0;
        }
        b = *p++;
        if (shift == 63 && (b & 0x7e)) {
            *pp = p;
            return -1;
        }
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            break;
        if (shift == 63) {
            *pp = p;
            return -1;
        }
    }
    *pp = p;
    *v = x;
    return 1;
}

/* Format "PATH: message" into err[cap], on one line (line breaks in the
 * path or the message become blanks): the message of a reader's or a
 * writer's sticky error. */
void zc__vfail(char *err, size_t cap, const char *path, const char *fmt,
               va_list ap) __attribute__((format(printf, 4, 0)));

#endif /* ZC_SIM_COMMON_BYTES_H */
