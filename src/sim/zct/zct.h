/*
 * sim/zct/zct.h - what the op-stream (.zct) reader and writer share.
 *
 * The binary form, version 1.3 (all integers little-endian):
 *
 *   header   8 bytes magic 89 'Z' 'C' 'T' 0D 0A 1A 0A (a PNG-style magic:
 *            catches text-mode and 7-bit transfers), u16 major = 1, u16
 *            minor, u32 N, N bytes of "key=value\n" fields, u32 Adler-32 of
 *            everything before it.  Fields page_size and window are
 *            required; unknown fields are kept for zc_ops_meta().  Field
 *            pack=NAME (since 1.2) names the content pack (.zcp, pack.c)
 *            whose ids 12 records use: the file NAME in the stream's own
 *            directory (a NAME with '/' or ".." is refused), opened with
 *            the stream and of the stream's page size.
 *   blocks   u32 raw length (1 .. ZCT_BLOCK_MAX), u32 stored length, u8
 *            codec (0 stored, 1 LZO1X; LZO1X-1 and -999 share the codec),
 *            3 zero bytes, u32 Adler-32 of the raw bytes, the stored bytes.
 *            A block holds whole records; the block holding the end record
 *            is the last thing in the file.
 *   records  an opcode byte, then unsigned LEB128 varints:
 *              01 init_fs pool page_size
 *              02 init_shared_fs pool page_size, 16 uuid bytes
 *              03 put pool KEY index ref
 *              09 put_active pool KEY index ref: a put of a page that was
 *                 hit in the page cache (ZC_OP_PUT_ACTIVE; since 1.1)
 *              04 get pool KEY index
 *              0A get_ahead pool KEY index: a get of a page the page-cache
 *                 model read ahead (ZC_OP_GET_AHEAD; since 1.3)
 *              05 invalidate_page pool KEY index flags
 *              06 invalidate_inode pool KEY
 *              07 invalidate_fs pool
 *              08 pc_hits count
 *              10 content: page_size raw bytes
 *              11 content: one u64 word filling the page
 *              12 content: varint id, the pack's content `id` (since 1.2;
 *                 only in a stream with a pack field, id below the pack's
 *                 count of contents).  Writers keep same-filled pages as
 *                 11 records, which are smaller.
 *              7E end: the number of op records (01..09, 0A) before it
 *            KEY is 00 varint(ino), for keys made by zc_filekey_from_ino(),
 *            or 01 and the 24 bytes of the six words (little-endian u32).
 *            Contents (10, 11, 12 alike) are numbered 0, 1, ... in order;
 *            a put's ref is (last content's number - its content's
 *            number), and must be
 *            less than the window: a reader keeps only the last `window`
 *            contents, and the writer defines a content again once its
 *            last definition has left the window.
 *
 * The minor version says which records a stream may hold (09 came with
 * 1.1, 12 and the pack field with 1.2, 0A with 1.3); a reader takes any
 * 1.x stream, and an older reader refuses a record it does not know
 * ("unknown record type 0x0a"), naming its block and byte.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_SIM_ZCT_ZCT_H
#define ZC_SIM_ZCT_ZCT_H

#include <stdio.h>

#include "zcache_sim.h"

#define ZCT_MAGIC "\x89ZCT\r\n\x1a\n"
#define ZCT_MAJOR 1
#define ZCT_MINOR 3
#define ZCT_TEXT_MAGIC "zct-text 1"

enum {
    ZCT_BLOCK_MAX = 1 << 20,
    ZCT_BLOCK_HDR = 16,
    ZCT_HEADER_MAX = 1 << 16,
    ZCT_WINDOW_DEFAULT = 16384,
    ZCT_WINDOW_MAX = 1 << 20,
    ZCT_POOL_MAX = 1 << 20, /* stream pool numbers are below this */
    ZCT_ERR = 512,
    ZCT_TEXT_TOKENS = 64,
};

enum {
    ZCT_INIT_FS = 0x01,
    ZCT_INIT_SHARED_FS = 0x02,
    ZCT_PUT = 0x03,
    ZCT_GET = 0x04,
    ZCT_INVALIDATE_PAGE = 0x05,
    ZCT_INVALIDATE_INODE = 0x06,
    ZCT_INVALIDATE_FS = 0x07,
    ZCT_PC_HITS = 0x08,
    ZCT_PUT_ACTIVE = 0x09,
    ZCT_GET_AHEAD = 0x0A,
    ZCT_CONTENT_RAW = 0x10,
    ZCT_CONTENT_FILL = 0x11,
    ZCT_CONTENT_PACK = 0x12,
    ZCT_END = 0x7E,
};

struct zc_ops_reader {
    FILE *f;
    char *path;
    bool text;
    int rc;   /* sticky: 0, or the error returned */
    bool end; /* the end record was read */
    char err[ZCT_ERR];
    size_t page_size;
    uint32_t window;
    char *meta; /* "key=value\0" fields one after the other */
    size_t meta_len;
    uint8_t *inited; /* per stream pool: 1 once initialised */
    uint64_t nops;   /* op records read */
    uint64_t weight; /* the pc_hits counts read, plus 1 for every other op:
                        a bound on every counter a player makes of the
                        stream, kept below 2^64 (zc__ops_took()) */

    /* binary */
    uint64_t file_off; /* of the next unread byte */
    uint64_t blk_off;  /* of the current block */
    uint8_t *blk, *zbuf;
    size_t blk_len, blk_pos;
    uint8_t *ring; /* content id % window -> page */
    size_t ring_slots;
    uint64_t ncontents;
    zc_pack *pack; /* the header's pack, or NULL */

    /* text */
    char *tok[ZCT_TEXT_TOKENS]; /* the first op line, read with the header */
    int ntok;
    char *line;
    size_t line_cap;
    uint64_t lineno;
    uint8_t *page;
};

/* Set the reader's sticky error (rc) with a message; returns rc. */
int zc__ops_fail(struct zc_ops_reader *r, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Check that an op names a pool that is (init: is not) initialised, and
 * track it; 0 or -ZC_EFORMAT with a message. */
int zc__ops_pool_check(struct zc_ops_reader *r, const zc_op *op,
                       const char *where);

/* Count an op read (nops, weight), after every other check
 * of it: 0, or -ZC_EFORMAT with a message if its pc_hits count, or the op
 * itself, would carry the stream's accesses past 2^64 - 1 (a player's
 * counters would wrap).  where: "line N: " or the record's offset. */
int zc__ops_took(struct zc_ops_reader *r, const zc_op *op, const char *where);

/* Add a header field; 0 or -ZC_ENOMEM. */
int zc__ops_meta_add(struct zc_ops_reader *r, const char *key,
                     const char *value);

/* The text form: the header after its first line, and the next op. */
int zc__ops_text_open(struct zc_ops_reader *r);
int zc__ops_text_next(struct zc_ops_reader *r, zc_op *op);

/* Whether a key is the key of an inode number (and which). */
bool zc__key_is_ino(const zc_filekey *k, uint64_t *ino);


#endif
