/*
 * sim/trace/access.h - what the access-stream (.zca) readers and writer share.
 *
 * An access stream records what programs asked of the page cache: every
 * page read (by read(2) or through a mapping) or written, keyed (file
 * system s_dev, inode, page index), with the time; and samples of the
 * kernel's resident page count per file system.
 *
 * The binary form, version 1.1, is a zstd stream (the writer always
 * compresses it, with zstd's content checksum; reader.c decompresses any
 * trace file, so the reader sees the bytes below).  A binary stream that
 * was not compressed is refused: the checksum is what guards its records.
 * Integers in the header are little-endian:
 *
 *   header   8 bytes magic 89 'Z' 'C' 'A' 0D 0A 1A 0A, u16 major = 1, u16
 *            minor = 1, u32 N (1 .. ZCA_HEADER_MAX), N bytes of
 *            "key=value\n" fields, u32 Adler-32 of everything before it.
 *            page_size (a power of two in 512..65536) is required; every
 *            field is kept for zc_trace_meta().
 *   records  an opcode byte, then unsigned LEB128 varints:
 *              01 read         dt dev ino index count
 *              02 write        dt dev ino index count
 *              03 mapped read  dt dev ino index count (ZC_REQ_MAPPED: a
 *                              page fault, which may read)
 *              04 resident     dt dev pages
 *              05 size         dt dev ino bytes (1.1)
 *              06 fault-around dt dev ino index count (1.1; ZC_REQ_MAPPED
 *                              | ZC_REQ_AROUND: pages the kernel mapped
 *                              because it held them; it read none)
 *              7E end          the number of records (01..06) before it
 *            dt: nanoseconds since the previous record's time (the first
 *            record's: since 0); dev: the file system's s_dev (below 2^32);
 *            ino != 0; count in 1 .. ZCA_COUNT_MAX (2^20 pages: 4 GiB of
 *            4 KiB pages, more than one read(2) moves; a bigger count is a
 *            format error, and the writer refuses it); the end of the
 *            bytes, (index + count) * page_size, at most 2^64 - 1, so that
 *            offset + length of the request is a 64-bit number.  Nothing
 *            may follow the end record; a stream without it is an error.
 *
 * A size record says that file (dev, ino) has `bytes` bytes from then on
 * (until the next size record of the file): every request of the file
 * after it carries ZC_REQ_SIZE and file_size = bytes, so that a model
 * can stop reading ahead at the end of the file as the kernel does.  Like
 * resident samples, size records are state, not requests.  They hold for
 * the rest of the file they are in: a trace of several streams starts
 * each one without sizes, so that reading [A, B] is reading A, then B.
 *
 * The minor version grows when fields or records are added that a reader
 * of an older minor may not skip: a reader takes minor <= ZCA_MINOR and
 * refuses a newer one ("written by a newer libzcache").  A 1.0 stream is
 * a 1.1 stream without size and fault-around records (its mapped reads
 * are faults and fault-around alike; a 05 or 06 record in it is an
 * unknown record); the writer writes 1.1.
 *
 * Sizes measured on a synthetic stream are in the writer's essay.
 *
 * The text form: a first line "zca-text 1" (another version is refused as
 * unsupported, not as an unknown format), header lines "meta KEY VALUE"
 * (VALUE: the rest of the line), then one record per line
 *     TIME r|w|m|a DEV INO INDEX [COUNT]     (COUNT: 1 if absent)
 *     TIME resident DEV PAGES
 *     TIME size DEV INO BYTES
 *     end
 * TIME in seconds with up to 9 decimals, never going back; DEV as MAJ:MIN
 * (s_dev = MAJ << 20 | MIN) or a decimal s_dev; '#' comments and blank
 * lines are skipped.  The kinds: r read, w write, m mapped read (03), a
 * fault-around (06).  "a" and "size" lines came with binary 1.1 and are
 * additions to text version 1, not a new version: every stream an older
 * reader took reads the same, and one with the new lines is refused by
 * an older reader as an unknown record, naming its line.
 *
 * An empty file (no bytes after decompression) is a stream of no records,
 * as an empty file is for every trace format.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_SIM_TRACE_ACCESS_H
#define ZC_SIM_TRACE_ACCESS_H

#include "common/bytes.h"
#include "reader.h"

#define ZCA_MAGIC "\x89ZCA\r\n\x1a\n"
#define ZCA_TEXT_MAGIC "zca-text 1"
#define ZCA_TEXT_WORD "zca-text" /* the first word, before the version */

enum {
    ZCA_MAJOR = 1,
    ZCA_MINOR = 1,
    ZCA_FIXED = 16, /* magic, major, minor, N */
    ZCA_HEADER_MAX = 1 << 16,
    ZCA_REC_MAX = 1 + 5 * ZC__VARINT_MAX, /* an opcode and five varints */
    ZCA_LEVEL_DEFAULT = 19,
    ZCA_COUNT_MAX = 1 << 20, /* pages of one record, at most */
};

enum {
    ZCA_READ = 0x01,
    ZCA_WRITE = 0x02,
    ZCA_MAPPED_READ = 0x03,
    ZCA_RESIDENT = 0x04,
    ZCA_SIZE = 0x05,
    ZCA_AROUND = 0x06, /* fault-around */
    ZCA_END = 0x7E,
};

/* zc__tfile.state of an access stream. */
enum {
    ZCA_S_HEADER = 0, /* begin() has not run */
    ZCA_S_RECORDS,    /* in the records */
    ZCA_S_ENDED,      /* the end record was read */
};

/* The text form's word of record op (ZCA_READ .. ZCA_SIZE: "r", "w",
 * "m", "resident", "size", "a"), and the op of a word (0: none). */
const char *zc__access_word(unsigned op);
unsigned zc__access_op(const char *w, size_t len);

/* A header field of either form: kept for zc_trace_meta(); page_size is
 * parsed into *page_size (0 until given).  0; -ZC_ENOMEM; -ZC_EFORMAT and
 * *why (the caller says where). */
int zc__access_field(struct zc__tfile *f, const char *key, size_t klen,
                     const char *value, size_t vlen, uint64_t *page_size,
                     const char **why);

/* The request of an access record of kind op (ZCA_READ, _WRITE,
 * _MAPPED_READ, _AROUND), its time already checked, with its file's last
 * recorded size: NULL, or what is wrong with it. */
const char *zc__access_request(struct zc__tfile *f, unsigned op, uint64_t dev,
                               uint64_t ino, uint64_t index, uint64_t count,
                               zc_request *req);

/* A size record: file (dev, ino) has `bytes` bytes from now on.  0;
 * -ZC_ENOMEM with a message; -ZC_EFORMAT and *why (the caller says
 * where). */
int zc__access_size(struct zc__tfile *f, uint64_t dev, uint64_t ino,
                    uint64_t bytes, const char **why);


#endif /* ZC_SIM_TRACE_ACCESS_H */
