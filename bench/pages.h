/*
 * pages.h - real file pages for the benchmarks, gathered one shared way.
 *
 * A benchmark of a page cache is only as good as its pages.  zc-bench-core
 * and zc-bench-backends both measure on pages read from files on the
 * machine, chosen the same way, so that their figures can be set side by
 * side; this module is that choice, written once.
 *
 * Each directory is walked recursively; its regular, readable, non-empty
 * files (symlinks are not followed) are sorted by path and seen as one
 * sequence of pages, each file's last partial page zero-filled as the page
 * cache does.  The page budget is shared equally between the directories
 * (one with fewer pages gives its unused share to the others).  Within a
 * directory that has more pages than its share, the sequence is cut into
 * blocks of BENCH_BLOCK_PAGES pages and evenly spaced blocks are taken (a
 * systematic sample), so every part of the tree is represented in
 * proportion to its pages, in runs of consecutive pages as readahead would
 * bring them.  The pages are laid out in round-robin order: a block of one
 * directory, a block of the next, and so on.  A page's key is (inode = the
 * file's number in the sorted lists counting from 1, index = the page's
 * number in its file).  Nothing is random, so every run sees the same pages
 * as long as the files do not change.
 *
 * Layout: a page_set holds the n pages contiguously (n * page_size bytes)
 * and parallel per-page arrays; pages_survey() adds each page's
 * same-filled kind and LZO1X-1 size (liblzo2 called directly, the
 * baseline zcache itself used) and each directory's mix.
 *
 * Errors: the functions print "<bench_prog>: message" and exit 1 when
 * memory runs out or no page can be found; directories that do not exist
 * are reported on stderr and skipped.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef BENCH_PAGES_H
#define BENCH_PAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zcache.h"

#define BENCH_BLOCK_PAGES 16u /* pages per sampled run and per turn */
#define BENCH_NDEFAULT_DIRS 4

/** The directories used when none is given. */
extern const char *const bench_default_dirs[BENCH_NDEFAULT_DIRS];

/** The program name that prefixes error messages; set it first. */
extern const char *bench_prog;

/** Print "<bench_prog>: msg" on stderr and exit 1. */
void bench_die(const char *msg);

/** Print "<bench_prog>: " fmt (with what), a hint to --help, exit 2. */
void bench_bad_arg(const char *fmt, const char *what);

/** A decimal count of option opt in [lo, hi]; exits 2 on anything else. */
unsigned long long bench_parse_count(const char *opt, const char *s,
                                     unsigned long long lo,
                                     unsigned long long hi);

/** malloc/calloc/realloc that never return NULL (they bench_die()). */
void *bench_xmalloc(size_t n);
void *bench_xcalloc(size_t n, size_t size);
void *bench_xrealloc(void *p, size_t n);

/** 0: not same-filled; 1: zero page; 2: one repeated non-zero 64-bit word
 *  (the pages zcache stores with no arena space). */
int same_filled_kind(const uint8_t *page, size_t page_size);

typedef struct src_file {
    char *path;
    uint64_t npages;
} src_file;

typedef struct src_dir {
    const char *path;
    bool usable;     /* exists and is a directory */
    src_file *files; /* sorted by path */
    size_t nfiles, cap;
    size_t skipped; /* entries that could not be read */
    uint64_t total_pages;
    uint64_t ino_base;  /* inode of file k is ino_base + k + 1 */
    size_t budget;      /* pages to take */
    uint32_t *sel_file; /* the chosen pages, in file order */
    uint64_t *sel_index;
    size_t nsel;
    /* the mix actually taken: files by pages_collect(), the rest by
     * pages_survey() */
    size_t files_used, zero, same_nonzero, le_accept;
} src_dir;

typedef struct page_set {
    size_t page_size;
    size_t n;           /* pages */
    uint8_t *data;      /* n * page_size bytes */
    zc_filekey *keys;   /* per page */
    uint64_t *index;    /* per page: page number in its file */
    uint32_t *dir;      /* per page: source directory */
    uint32_t *lzo_len;  /* per page: LZO1X-1 size (pages_survey) */
    uint8_t *same;      /* per page: same_filled_kind() (pages_survey) */
    size_t nfiles;      /* distinct files used */
    size_t read_errors; /* pages zero-filled because a read failed */
} page_set;

static inline const uint8_t *page_at(const page_set *ps, size_t i)
{
    return ps->data + i * ps->page_size;
}

/**
 * Walk the npaths directories, choose `want` pages of page_size bytes as
 * described above and read them into *ps.  Returns the array of npaths
 * directories (unusable ones marked so), which the page set refers to.
 * Exits 1 if no directory exists or none holds a page.  ps->n may be
 * smaller than want (all pages found), or 0 only if want is 0.
 */
src_dir *pages_collect(const char *const *paths, size_t npaths, size_t want,
                       size_t page_size, page_set *ps);

/** Fill ps->same and ps->lzo_len (lzo1x_1_compress on every page, the
 *  same-filled ones too) and each directory's zero, same_nonzero and
 *  le_accept (other pages with an LZO size <= accept_bytes).  Calls
 *  lzo_init() first; exits 1 if liblzo2 fails. */
void pages_survey(page_set *ps, src_dir *dirs, size_t accept_bytes);

/** Free what pages_collect() and pages_survey() allocated. */
void pages_free(page_set *ps, src_dir *dirs, size_t ndirs);

#endif /* BENCH_PAGES_H */
