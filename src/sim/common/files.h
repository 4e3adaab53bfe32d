/*
 * sim/common/files.h - the files whose pages the models key: (dev, ino) pairs
 * numbered 0, 1, ... in order of first sight, and the hash of a page key;
 * and, on the same numbering, the last recorded size of files, and the
 * pages a size spans.
 *
 * A page of the page-cache models (replay.c, mrc.c, adapt.c) is keyed as
 * cleancache keys it: the file system or block device dev, the inode ino
 * (0: the block device's own pages), the page index.  Rather than carry a
 * 32-bit dev and a 64-bit ino in every node of every table, the models
 * intern the pair once per request and key their pages by (file number,
 * index): a node stays 24 bytes and a key compare is one 32-bit and one
 * 64-bit compare, whatever the file.  A block trace of one device has one
 * file and pays one compare per request for it (the last pair is cached).
 *
 * Data layout: an array of pairs indexed by file number, and an open-
 * addressing table (linear probing, at most half full, never deleted
 * from) of file number + 1.  Numbers are never reused, so a number held
 * by a ghost or a version slot stays valid for the table's life.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ZC_SIM_COMMON_FILES_H
#define ZC_SIM_COMMON_FILES_H

#include <stdbool.h>
#include <stdint.h>

#include "base/hash.h" /* zc__page_hash */
#include "zcache.h"


struct zc__file {
    uint64_t ino; /* 0: the block device dev itself */
    uint32_t dev;
};

struct zc__files {
    struct zc__file *v; /* by file number */
    uint32_t n, cap;
    uint32_t *table; /* file number + 1, 0 empty */
    uint64_t mask;
    uint32_t last; /* the last file looked up (valid if n) */
};

/* The number of (dev, ino), given one on first sight: 0 and *file;
 * -ZC_ENOMEM; -ZC_EINVAL when 2^32 - 2 files are numbered already. */
int zc__files_id(struct zc__files *f, uint32_t dev, uint64_t ino,
                 uint32_t *file);

/* The number of (dev, ino) if it has one: true and *file; false (nothing
 * is added). */
bool zc__files_find(struct zc__files *f, uint32_t dev, uint64_t ino,
                    uint32_t *file);

/* The pair of a file number given by zc__files_id(). */
static inline const struct zc__file *zc__files_get(const struct zc__files *f,
                                                   uint32_t file)
{
    return &f->v[file];
}

/* Free the tables (f itself is the caller's); f is empty again. */
void zc__files_free(struct zc__files *f);

/* The last recorded size of files; all zero is an empty table. */
struct zc__file_sizes {
    struct zc__files files; /* the files that have a size */
    uint64_t *bytes;        /* by file number */
    uint32_t cap;           /* entries of bytes */
};

/* Record that file (dev, ino) has `bytes` bytes.  0; -ZC_ENOMEM;
 * -ZC_EINVAL when 2^32 - 2 files have a size already. */
int zc__file_size_set(struct zc__file_sizes *s, uint32_t dev, uint64_t ino,
                      uint64_t bytes);

/* The last size recorded of (dev, ino): true and *bytes; false if none. */
static inline bool zc__file_size_get(struct zc__file_sizes *s, uint32_t dev,
                                     uint64_t ino, uint64_t *bytes)
{
    uint32_t file;

    if (!s->files.n || !zc__files_find(&s->files, dev, ino, &file))
        return false;
    *bytes = s->bytes[file];
    return true;
}

/* Free the table (s itself is the caller's); s is empty again. */
void zc__file_sizes_free(struct zc__file_sizes *s);

/* The pages of page_size bytes a file of `bytes` bytes spans,
 * ceil(bytes / page_size), for every u64 size: the usual (bytes +
 * page_size - 1) / page_size wraps to 0 from 2^64 - page_size + 1 on,
 * and a file of 0 pages has every read past its end.  The one rule from a
 * byte size to a page count (the converter's clipping, the replay's
 * size_pages, a content file's pages). */
static inline uint64_t zc__pages_spanned(uint64_t bytes, uint64_t page_size)
{
    return bytes / page_size + (bytes % page_size != 0);
}

#endif
