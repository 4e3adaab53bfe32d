/*
 * pages.c - real file pages for the benchmarks: walk, sample, read, survey.
 *
 * The job and the sampling rule are described in pages.h.  Here: the walk
 * collects (path, pages) for every usable file of a directory tree; the
 * budgets share the wanted pages between the directories; the selection
 * takes evenly spaced blocks of each directory's page sequence; the load
 * reads them in round-robin order, a block per directory per turn, into
 * one contiguous buffer; the survey compresses each page once with
 * lzo1x_1_compress, the compressor zcache chose, to learn its size.
 *
 * Invariants after pages_collect(): the pages of one directory appear in
 * its sorted file order; sum of dirs[d].nsel == ps->n; dirs[d].budget ==
 * dirs[d].nsel; the keys name files by their position in the sorted lists,
 * so they are the same in every run on the same files.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _POSIX_C_SOURCE 200809L

#include "pages.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lzo/lzo1x.h>

const char *const bench_default_dirs[BENCH_NDEFAULT_DIRS] = {
    "/usr/include", "/usr/lib/x86_64-linux-gnu", "/usr/bin", "/usr/share/doc"};

const char *bench_prog = "zc-bench";

/* ------------------------------------------------------------------------
 * Small helpers
 * ------------------------------------------------------------------------ */

void bench_bad_arg(const char *fmt, const char *what)
{
    fprintf(stderr, "%s: ", bench_prog);
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\nTry '%s --help'.\n", bench_prog);
    exit(2);
}

unsigned long long bench_parse_count(const char *opt, const char *s,
                                     unsigned long long lo,
                                     unsigned long long hi)
{
    char *end;
    unsigned long long v;

    if (!s || *s < '0' || *s > '9')
        bench_bad_arg("option %s needs a positive number", opt);
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno || *end || v < lo || v > hi) {
        fprintf(stderr,
                "%s: bad value '%s' for %s (expected %llu..%llu)\n"
                "Try '%s --help'.\n",
                bench_prog, s, opt, lo, hi, bench_prog);
        exit(2);
    }
    return v;
}

void bench_die(const char *msg)
{
    fprintf(stderr, "%s: %s\n", bench_prog, msg);
    exit(1);
}

void *bench_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        bench_die("out of memory");
    return p;
}

void *bench_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        bench_die("out of memory");
    return p;
}

void *bench_xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        bench_die("out of memory");
    return p;
}

int same_filled_kind(const uint8_t *page, size_t page_size)
{
    uint64_t first, w;
    memcpy(&first, page, sizeof first);
    for (size_t off = sizeof w; off < page_size; off += sizeof w) {
        memcpy(&w, page + off, sizeof w);
        if (w != first)
            return 0;
    }
    return first == 0 ? 1 : 2;
}

/* ------------------------------------------------------------------------
 * Page sources
 * ------------------------------------------------------------------------ */

static int cmp_file(const void *a, const void *b)
{
    return strcmp(((const src_file *)a)->path, ((const src_file *)b)->path);
}

static char *join_path(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    bool slash = a > 0 && dir[a - 1] == '/';
    char *p = bench_xmalloc(a + b + 2);
    memcpy(p, dir, a);
    if (!slash)
        p[a++] = '/';
    memcpy(p + a, name, b + 1);
    return p;
}

static void walk(src_dir *d, const char *path, size_t page_size)
{
    DIR *dp = opendir(path);
    struct dirent *e;
    if (!dp) {
        d->skipped++;
        return;
    }
    while ((e = readdir(dp)) != NULL) {
        struct stat st;
        char *full;
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        full = join_path(path, e->d_name);
        if (lstat(full, &st) != 0) {
            d->skipped++;
            free(full);
        } else if (S_ISDIR(st.st_mode)) {
            walk(d, full, page_size);
            free(full);
        } else if (S_ISREG(st.st_mode) && st.st_size > 0) {
            int fd = open(full, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
            if (fd < 0) {
                d->skipped++;
                free(full);
                continue;
            }
            close(fd);
            if (d->nfiles == d->cap) {
                d->cap = d->cap ? 2 * d->cap : 256;
                d->files = bench_xrealloc(d->files, d->cap * sizeof *d->files);
            }
            d->files[d->nfiles].path = full;
            d->files[d->nfiles].npages =
                ((uint64_t)st.st_size + page_size - 1) / page_size;
            d->total_pages += d->files[d->nfiles].npages;
            d->nfiles++;
        } else {
            free(full); /* symlinks, empty files, devices, sockets */
        }
    }
    closedir(dp);
}

/* Share `want` pages equally between directories; one with fewer pages than
 * its share takes all it has and leaves the rest to the others. */
static void assign_budgets(src_dir *dirs, size_t n, size_t want)
{
    bool *open = bench_xcalloc(n, sizeof *open);
    size_t active = 0, remaining = want;
    for (size_t i = 0; i < n; i++) {
        dirs[i].budget = 0;
        open[i] = dirs[i].total_pages > 0;
        active += open[i];
    }
    while (active > 0 && remaining > 0) {
        size_t share = remaining / active, extra = remaining % active, k = 0;
        bool saturated = false;
        for (size_t i = 0; i < n; i++) {
            size_t cap;
            if (!open[i])
                continue;
            cap = share + (k++ < extra ? 1 : 0);
            if (dirs[i].total_pages <= cap) {
                dirs[i].budget = (size_t)dirs[i].total_pages;
                remaining -= dirs[i].budget;
                open[i] = false;
                active--;
                saturated = true;
            }
        }
        if (saturated)
            continue;
        k = 0;
        for (size_t i = 0; i < n; i++) {
            if (open[i])
                dirs[i].budget = share + (k++ < extra ? 1 : 0);
        }
        break;
    }
    free(open);
}

/* Choose d->budget pages of d's page sequence: all of them if they fit,
 * else evenly spaced blocks of BENCH_BLOCK_PAGES pages.  Block b (of Tb) is
 * taken when ceil((b+1)*Bb/Tb) > ceil(b*Bb/Tb), which takes exactly Bb
 * blocks, the first one included and the (possibly short) last one not
 * unless all are taken, so Bb full blocks always cover the budget. */
static void select_pages(src_dir *d)
{
    const uint64_t R = BENCH_BLOCK_PAGES;
    uint64_t T = d->total_pages, B = d->budget;
    size_t fi = 0;
    uint64_t fstart = 0;

    d->sel_file = bench_xmalloc(B * sizeof *d->sel_file);
    d->sel_index = bench_xmalloc(B * sizeof *d->sel_index);
    d->nsel = 0;
    if (B == 0)
        return;

    uint64_t Tb = (T + R - 1) / R, Bb = (B + R - 1) / R;
    for (uint64_t b = 0; b < Tb && d->nsel < B; b++) {
        uint64_t lo = (b * Bb + Tb - 1) / Tb, hi = ((b + 1) * Bb + Tb - 1) / Tb;
        if (T > B && hi <= lo)
            continue;
        for (uint64_t g = b * R; g < (b + 1) * R && g < T && d->nsel < B; g++) {
            while (g >= fstart + d->files[fi].npages) {
                fstart += d->files[fi].npages;
                fi++;
            }
            d->sel_file[d->nsel] = (uint32_t)fi;
            d->sel_index[d->nsel] = g - fstart;
            d->nsel++;
        }
    }
}

/* ------------------------------------------------------------------------
 * The page set
 * ------------------------------------------------------------------------ */

/* Read page `index` of the open file fd into buf, zero-filling what the file
 * lacks. */
static bool read_page(int fd, uint64_t index, uint8_t *buf, size_t page_size)
{
    size_t got = 0;
    off_t off = (off_t)(index * page_size);
    while (got < page_size) {
        ssize_t r = pread(fd, buf + got, page_size - got, off + (off_t)got);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            memset(buf, 0, page_size);
            return false;
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    memset(buf + got, 0, page_size - got);
    return true;
}

/* Lay the chosen pages out in round-robin order and read them. */
static void load_pages(page_set *ps, src_dir *dirs, size_t ndirs)
{
    size_t total = 0, i = 0;
    int fd = -1;
    const char *open_path = NULL;
    size_t *cursor = bench_xcalloc(ndirs, sizeof *cursor);
    uint8_t **used = bench_xcalloc(ndirs, sizeof *used);

    for (size_t d = 0; d < ndirs; d++) {
        total += dirs[d].nsel;
        used[d] = bench_xcalloc(dirs[d].nfiles, 1);
    }
    ps->n = total;
    ps->data = bench_xmalloc(total * ps->page_size);
    ps->keys = bench_xmalloc(total * sizeof *ps->keys);
    ps->index = bench_xmalloc(total * sizeof *ps->index);
    ps->dir = bench_xmalloc(total * sizeof *ps->dir);
    ps->nfiles = 0;
    ps->read_errors = 0;

    while (i < total) {
        for (size_t d = 0; d < ndirs; d++) {
            src_dir *sd = &dirs[d];
            for (unsigned k = 0; k < BENCH_BLOCK_PAGES && cursor[d] < sd->nsel;
                 k++, cursor[d]++, i++) {
                uint32_t f = sd->sel_file[cursor[d]];
                uint64_t idx = sd->sel_index[cursor[d]];
                const char *path = sd->files[f].path;
                uint8_t *buf = ps->data + i * ps->page_size;

                if (!used[d][f]) {
                    used[d][f] = 1;
                    sd->files_used++;
                    ps->nfiles++;
                }
                if (path != open_path) {
                    if (fd >= 0)
                        close(fd);
                    fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
                    open_path = path;
                }
                if (fd < 0 || !read_page(fd, idx, buf, ps->page_size)) {
                    if (fd < 0)
                        memset(buf, 0, ps->page_size);
                    ps->read_errors++;
                }
                ps->keys[i] = zc_filekey_from_ino(sd->ino_base + f + 1);
                ps->index[i] = idx;
                ps->dir[i] = (uint32_t)d;
            }
        }
    }
    if (fd >= 0)
        close(fd);
    for (size_t d = 0; d < ndirs; d++)
        free(used[d]);
    free(used);
    free(cursor);
}

src_dir *pages_collect(const char *const *paths, size_t npaths, size_t want,
                       size_t page_size, page_set *ps)
{
    src_dir *dirs = bench_xcalloc(npaths, sizeof *dirs);
    uint64_t ino_base = 0, total_pages = 0;
    size_t usable = 0;

    for (size_t d = 0; d < npaths; d++) {
        struct stat st;
        dirs[d].path = paths[d];
        if (stat(paths[d], &st) != 0 || !S_ISDIR(st.st_mode)) {
            fprintf(stderr, "%s: %s: not a directory, skipped\n", bench_prog,
                    paths[d]);
            continue;
        }
        dirs[d].usable = true;
        usable++;
        walk(&dirs[d], paths[d], page_size);
        qsort(dirs[d].files, dirs[d].nfiles, sizeof *dirs[d].files, cmp_file);
        dirs[d].ino_base = ino_base;
        ino_base += dirs[d].nfiles;
        total_pages += dirs[d].total_pages;
    }
    if (usable == 0)
        bench_die("none of the directories exists; give one with --dir DIR");
    if (total_pages == 0)
        bench_die(
            "no readable, non-empty regular files found in the directories");
    assign_budgets(dirs, npaths, want);
    for (size_t d = 0; d < npaths; d++)
        select_pages(&dirs[d]);
    memset(ps, 0, sizeof *ps);
    ps->page_size = page_size;
    load_pages(ps, dirs, npaths);
    return dirs;
}

/* The untimed survey: same-filled kind and LZO size of every page. */
void pages_survey(page_set *ps, src_dir *dirs, size_t accept_bytes)
{
    uint8_t *dst = bench_xmalloc(ps->page_size + ps->page_size / 16 + 64 + 3);
    void *wrkmem = bench_xmalloc(LZO1X_1_MEM_COMPRESS);

    if (lzo_init() != LZO_E_OK)
        bench_die("lzo_init failed");
    ps->lzo_len = bench_xmalloc(ps->n * sizeof *ps->lzo_len);
    ps->same = bench_xmalloc(ps->n);
    for (size_t i = 0; i < ps->n; i++) {
        lzo_uint len = 0;
        src_dir *sd = &dirs[ps->dir[i]];
        ps->same[i] = (uint8_t)same_filled_kind(page_at(ps, i), ps->page_size);
        if (lzo1x_1_compress(page_at(ps, i), ps->page_size, dst, &len,
                             wrkmem) != LZO_E_OK)
            bench_die("lzo1x_1_compress failed");
        ps->lzo_len[i] = (uint32_t)len;
        sd->zero += ps->same[i] == 1;
        sd->same_nonzero += ps->same[i] == 2;
        sd->le_accept += ps->same[i] == 0 && len <= accept_bytes;
    }
    free(wrkmem);
    free(dst);
}

void pages_free(page_set *ps, src_dir *dirs, size_t ndirs)
{
    free(ps->data);
    free(ps->keys);
    free(ps->index);
    free(ps->dir);
    free(ps->lzo_len);
    free(ps->same);
    memset(ps, 0, sizeof *ps);
    for (size_t d = 0; d < ndirs; d++) {
        for (size_t f = 0; f < dirs[d].nfiles; f++)
            free(dirs[d].files[f].path);
        free(dirs[d].files);
        free(dirs[d].sel_file);
        free(dirs[d].sel_index);
    }
    free(dirs);
}
