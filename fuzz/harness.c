/*
 * fuzz/harness.c - memory files, drained reads and their checks for the
 * libFuzzer targets (harness.h says what is checked and why).
 *
 * Hashes: a request is mixed into one 64-bit value (splitmix64's
 * finaliser over its fields, flags and file size included).  The
 * order-dependent hash of a run is the polynomial chain = chain * K + h over
 * its requests, so the chain of A followed by B is chain(A) * K^count(B) +
 * chain(B): the check that [A, B] reads as A then B needs no list of requests.
 * The order-independent hash is the plain sum of the h, for merges, whose order
 * is by time.
 *
 * Large blocks.  A trace takes a 1 MiB buffer (and 256 KiB per file of a
 * merge) at every open.  Under ASan each such malloc is a fresh mmap of
 * the block and its shadow, page-faulted in and unmapped again: about
 * 0.3 ms, which would make the reads cost several times the parsing.  The
 * targets are linked with --wrap for malloc, realloc and free, and blocks
 * larger than ASan's size classes (128 KiB) are kept in a small pool
 * instead: a freed block is poisoned (so a use after free still stops the
 * run, as a use-after-poison) and handed out again, unpoisoned and
 * refilled with garbage, to the next request of the same size.  The
 * pool's blocks come from the real malloc, so an overflow still runs into
 * its redzone, and fuzz_read() checks that none is left in use once a
 * trace is closed, since LeakSanitizer cannot see a block the pool holds.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _GNU_SOURCE
#include <sanitizer/asan_interface.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>

#include "harness.h"

#define POOL 8
#define POOL_MIN ((size_t)128 << 10)
#define CHAIN_K 0x100000001b3ULL /* odd: K^n never collapses to 0 */

void fuzz_fail(const char *fmt, ...)
{
    va_list ap;

    fputs("fuzz: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

/* ---- large blocks ----------------------------------------------------- */

void *__real_malloc(size_t size);
void *__real_realloc(void *p, size_t size);
void __real_free(void *p);
void *__wrap_malloc(size_t size);
void *__wrap_realloc(void *p, size_t size);
void __wrap_free(void *p);

static struct block {
    void *p;
    size_t size;
    bool used;
} pool[POOL];

void *__wrap_malloc(size_t size)
{
    struct block *spare = NULL;
    void *p;

    if (size <= POOL_MIN)
        return __real_malloc(size);
    for (size_t i = 0; i < POOL; i++) {
        if (pool[i].p && !pool[i].used && pool[i].size == size) {
            pool[i].used = true;
            ASAN_UNPOISON_MEMORY_REGION(pool[i].p, size);
            memset(pool[i].p, 0xbe, 4096); /* as ASan fills a new block */
            return pool[i].p;
        }
        if (!pool[i].p && !spare)
            spare = &pool[i];
    }
    p = __real_malloc(size);
    if (p && spare)
        *spare = (struct block){p, size, true};
    return p;
}

void __wrap_free(void *p)
{
    for (size_t i = 0; p && i < POOL; i++)
        if (pool[i].p == p) {
            if (!pool[i].used)
                fuzz_fail("double free of a %zu-byte block", pool[i].size);
            pool[i].used = false;
            ASAN_POISON_MEMORY_REGION(p, pool[i].size);
            return;
        }
    __real_free(p);
}

/* A pooled block moves to a new one: the pool must never lose track. */
void *__wrap_realloc(void *p, size_t size)
{
    for (size_t i = 0; p && i < POOL; i++)
        if (pool[i].p == p) {
            void *q = __wrap_malloc(size);

            if (q) {
                memcpy(q, p, size < pool[i].size ? size : pool[i].size);
                __wrap_free(p);
            }
            return q;
        }
    return __real_realloc(p, size);
}

static size_t blocks_in_use(void)
{
    size_t n = 0;

    for (size_t i = 0; i < POOL; i++)
        n += pool[i].used;
    return n;
}

/* ---- memory files ----------------------------------------------------- */

/* What the readers see of f: for a zstd-compressed file the bytes that
 * decompress (up to an error), else the file's own. */
static void plain_measure(struct fuzz_file *f)
{
    static uint8_t out[64 << 10];
    ZSTD_DCtx *d;
    ZSTD_inBuffer in = {f->data, f->size, 0};

    f->plain_size = f->size;
    f->plain_lines = 0;
    for (size_t i = 0; i < f->size; i++)
        f->plain_lines += f->data[i] == '\n';
    f->plain_lines += f->size && f->data[f->size - 1] != '\n';
    f->zstd = fuzz_is_zstd(f->data, f->size);
    if (!f->zstd)
        return;
    d = ZSTD_createDCtx();
    FUZZ_CHECK(d != NULL);
    f->plain_size = f->plain_lines = 0;
    for (;;) {
        ZSTD_outBuffer o = {out, sizeof(out), 0};
        size_t r = ZSTD_decompressStream(d, &o, &in);
        if (ZSTD_isError(r))
            break;
        for (size_t i = 0; i < o.pos; i++)
            f->plain_lines += out[i] == '\n';
        f->plain_size += o.pos;
        if (o.pos == 0 && in.pos == in.size)
            break;
    }
    f->plain_lines++; /* a last line without its end */
    ZSTD_freeDCtx(d);
}

void fuzz_file_set(int slot, const uint8_t *data, size_t size,
                   struct fuzz_file *f)
{
    static int fds[FUZZ_SLOTS] = {-1, -1, -1, -1, -1, -1, -1, -1};
    static char paths[FUZZ_SLOTS][32];
    size_t done = 0;

    FUZZ_CHECK(slot >= 0 && slot < FUZZ_SLOTS);
    if (fds[slot] < 0) {
        char name[16];

        snprintf(name, sizeof(name), "zc-fuzz-%d", slot);
        fds[slot] = memfd_create(name, MFD_CLOEXEC);
        if (fds[slot] < 0)
            fuzz_fail("memfd_create failed");
        snprintf(paths[slot], sizeof(paths[slot]), "/proc/self/fd/%d",
                 fds[slot]);
    }
    if (ftruncate(fds[slot], 0) != 0)
        fuzz_fail("ftruncate of a memory file failed");
    while (done < size) {
        ssize_t n = pwrite(fds[slot], data + done, size - done, (off_t)done);
        if (n <= 0)
            fuzz_fail("write to a memory file failed");
        done += (size_t)n;
    }
    f->data = data;
    f->size = size;
    f->path = paths[slot];
    plain_measure(f);
}

/* ---- hashing ---------------------------------------------------------- */

static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

uint64_t fuzz_hash(const uint8_t *data, size_t size)
{
    uint64_t h = 0xcbf29ce484222325ULL;

    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 0x100000001b3ULL;
    return mix64(h ^ size);
}

static uint64_t request_hash(const zc_request *r)
{
    uint64_t h = mix64(r->time_ns);

    h = mix64(h ^ ((uint64_t)r->dev << 1 | (r->write ? 1 : 0)));
    h = mix64(h ^ r->offset);
    h = mix64(h ^ r->length);
    h = mix64(h ^ r->ino);
    h = mix64(h ^ r->flags);
    return mix64(h ^ r->file_size);
}

static uint64_t power(uint64_t k, uint64_t n)
{
    uint64_t p = 1;

    for (; n; n >>= 1, k *= k)
        if (n & 1)
            p *= k;
    return p;
}

/* ---- cuts ------------------------------------------------------------- */

size_t fuzz_cut_text(const uint8_t *data, size_t size, bool *clean)
{
    uint64_t h = fuzz_hash(data, size), lines = 0, k;

    if (h & 1) {
        *clean = false;
        return (size_t)((h >> 1) % ((uint64_t)size + 1));
    }
    *clean = true;
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    k = (h >> 1) % (lines + 1);
    if (k == 0)
        return 0;
    for (size_t i = 0; i < size; i++)
        if (data[i] == '\n' && --k == 0)
            return i + 1;
    return size; /* not reached */
}

size_t fuzz_cut_entries(const uint8_t *data, size_t size, size_t entry,
                        bool *clean)
{
    uint64_t h = fuzz_hash(data, size);

    if (h & 1) {
        *clean = false;
        return (size_t)((h >> 1) % ((uint64_t)size + 1));
    }
    *clean = true;
    return (size_t)((h >> 1) % (size / entry + 1)) * entry;
}

/* ---- messages --------------------------------------------------------- */

/* Digits at *pp: true and *v, *pp past them. */
static bool number(const char **pp, uint64_t *v)
{
    const char *p = *pp;
    uint64_t x = 0;

    if (*p < '0' || *p > '9')
        return false;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (x > UINT64_MAX / 10 - 1)
            return false;
        x = x * 10 + (uint64_t)(*p - '0');
    }
    *pp = p;
    *v = x;
    return true;
}

static uint64_t count_lines(const struct fuzz_file *f)
{
    return f->plain_lines;
}

/* Offsets name the file's bytes or, compressed, the decompressed ones. */
static uint64_t max_offset(const struct fuzz_file *f)
{
    return f->size > f->plain_size ? f->size : f->plain_size;
}

/*
 * msg is one non-empty line starting "PATH:" for one of the files; after
 * zc_trace_next() (placed) it goes on "LINE: what" or " offset N: what"
 * with LINE or N inside that file, as an open error that names a place
 * must (formats with a header read it at the open).
 */
static void check_message(const char *msg, const struct fuzz_file *files,
                          size_t n, bool placed)
{
    const struct fuzz_file *f = NULL;
    const char *p;
    uint64_t v;

    if (msg[0] == '\0' || strchr(msg, '\n') || strchr(msg, '\r'))
        fuzz_fail("error message empty or not one line: \"%s\"", msg);
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(files[i].path);
        if (strncmp(msg, files[i].path, len) == 0 && msg[len] == ':') {
            f = &files[i];
            break;
        }
    }
    if (!f)
        fuzz_fail("error message does not start with a file's path: \"%s\"",
                  msg);
    p = msg + strlen(f->path) + 1;
    /* An open error may name a place too (a header read at the open). */
    if (!placed && (p[0] != ' ' || strncmp(p, " offset ", 8) != 0) &&
        !(p[0] >= '0' && p[0] <= '9')) {
        if (p[0] != ' ' || p[1] == '\0')
            fuzz_fail("open error message says nothing: \"%s\"", msg);
        return;
    }
    if (strncmp(p, " offset ", 8) == 0) {
        p += 8;
        /* inside the file; an empty file's one place is offset 0 */
        if (!number(&p, &v) || (v >= max_offset(f) && v != 0))
            fuzz_fail("error offset not inside the %llu-byte file: \"%s\"",
                      (unsigned long long)max_offset(f), msg);
    } else if (!number(&p, &v) || v == 0 || v > count_lines(f)) {
        fuzz_fail("error names no line of the %llu-line file: \"%s\"",
                  (unsigned long long)count_lines(f), msg);
    }
    if (p[0] != ':' || p[1] != ' ' || p[2] == '\0')
        fuzz_fail("error message says nothing after the place: \"%s\"", msg);
}

/* ---- reading ---------------------------------------------------------- */

static void check_request(const zc_request *req, const char *format)
{
    /* its last byte is at most 2^64 - 1 (the end need not fit) */
    if (req->length == 0 || req->length - 1 > UINT64_MAX - req->offset)
        fuzz_fail("%s: request offset %llu length %llu", format,
                  (unsigned long long)req->offset,
                  (unsigned long long)req->length);
    if (strncmp(format, "blocklist", 9) == 0)
        FUZZ_CHECK(req->length == 4096 && req->offset % 4096 == 0 &&
                   req->time_ns == 0 && req->dev == 0 && !req->write);
    if (strcmp(format, "vscsi") == 0)
        FUZZ_CHECK(req->dev == 0);
    if (strncmp(format, "access", 6) == 0) /* access streams: file pages */
        FUZZ_CHECK(
            req->ino != 0 &&
            (req->flags & ~(ZC_REQ_MAPPED | ZC_REQ_AROUND | ZC_REQ_SIZE)) ==
                0 &&
            (!(req->flags & ZC_REQ_AROUND) || (req->flags & ZC_REQ_MAPPED)) &&
            !(req->write && (req->flags & ZC_REQ_MAPPED)) &&
            ((req->flags & ZC_REQ_SIZE) || req->file_size == 0) &&
            req->offset % 512 == 0 && req->length % 512 == 0);
    else /* block requests */
        FUZZ_CHECK(req->ino == 0 && req->flags == 0 && req->file_size == 0);
}

static void copy_str(char *dst, size_t len, const char *src)
{
    snprintf(dst, len, "%s", src);
}

void fuzz_read(const struct fuzz_file *files, size_t n, const char *format,
               struct fuzz_run *r)
{
    const char *paths[FUZZ_SLOTS];
    zc_trace_options opt = {.format = format};
    uint64_t total = 0;
    char err[512];
    zc_trace *t = NULL;
    zc_request req = {0};
    int rc;

    FUZZ_CHECK(n >= 1 && n <= FUZZ_SLOTS);
    memset(r, 0, sizeof(*r));
    r->sorted = r->strict = true;
    for (size_t i = 0; i < n; i++) {
        paths[i] = files[i].path;
        total += max_offset(&files[i]);
    }
    r->open_rc = zc_trace_open(paths, n, &opt, &t, err, sizeof(err));
    if (r->open_rc) {
        FUZZ_CHECK(t == NULL && blocks_in_use() == 0);
        if (r->open_rc != -ZC_EFORMAT)
            fuzz_fail("zc_trace_open: %d (%s)", r->open_rc, err);
        check_message(err, files, n, false);
        copy_str(r->msg, sizeof(r->msg), err);
        return;
    }
    FUZZ_CHECK(t != NULL && err[0] == '\0' && zc_trace_error(t)[0] == '\0');
    FUZZ_CHECK(zc_trace_format(t) != NULL);
    copy_str(r->format, sizeof(r->format), zc_trace_format(t));
    FUZZ_CHECK(!format || strcmp(r->format, format) == 0);
    while ((rc = zc_trace_next(t, &req)) > 0) {
        uint64_t h = request_hash(&req);

        FUZZ_CHECK(rc == 1);
        check_request(&req, r->format);
        if (r->count && req.time_ns < r->last)
            r->sorted = false;
        if (r->count && req.time_ns <= r->last)
            r->strict = false;
        r->last = req.time_ns;
        r->chain = r->chain * CHAIN_K + h;
        r->sum += h;
        if (++r->count > total)
            fuzz_fail("%s: %llu requests from %llu bytes", r->format,
                      (unsigned long long)r->count, (unsigned long long)total);
    }
    r->rc = rc;
    if (rc < 0) {
        if (rc != -ZC_EFORMAT)
            fuzz_fail("zc_trace_next: %d (%s)", rc, zc_trace_error(t));
        check_message(zc_trace_error(t), files, n, true);
    } else {
        FUZZ_CHECK(zc_trace_error(t)[0] == '\0');
    }
    copy_str(r->msg, sizeof(r->msg), zc_trace_error(t));
    if (zc_trace_next(t, &req) != rc || strcmp(zc_trace_error(t), r->msg))
        fuzz_fail("%s: the %s is not sticky (%d, \"%s\")", r->format,
                  rc ? "error" : "end", rc, r->msg);
    zc_trace_close(t);
    if (blocks_in_use())
        fuzz_fail("%s: a closed trace left %zu large blocks allocated",
                  r->format, blocks_in_use());
}

static void print_run(const char *name, const struct fuzz_run *r)
{
    fprintf(stderr,
            "  %s: open %d, last %d, %llu requests, chain %016llx, "
            "sum %016llx, \"%s\"\n",
            name, r->open_rc, r->rc, (unsigned long long)r->count,
            (unsigned long long)r->chain, (unsigned long long)r->sum, r->msg);
}

static bool same(const struct fuzz_run *a, const struct fuzz_run *b)
{
    return a->open_rc == b->open_rc && a->rc == b->rc && a->count == b->count &&
           a->chain == b->chain && a->sum == b->sum &&
           strcmp(a->msg, b->msg) == 0;
}

void fuzz_expect_same(const struct fuzz_run *a, const struct fuzz_run *b,
                      const char *what)
{
    if (same(a, b))
        return;
    fprintf(stderr, "fuzz: %s: the runs differ\n", what);
    print_run("first", a);
    print_run("second", b);
    fuzz_fail("%s", what);
}

/* [A, B] read one after the other is A, then B if A ended well. */
static void check_sequence(const struct fuzz_reads *x)
{
    struct fuzz_run want, b = x->b;

    /* A format with a header (begin()) reads a later file's header when
     * its turn comes: B's open error is then an error of reading B. */
    if (!x->pair.open_rc && !x->a.open_rc && b.open_rc) {
        b.rc = b.open_rc;
        b.open_rc = 0;
        b.count = b.chain = b.sum = 0;
    }
    if (x->a.open_rc) {
        want = x->a;
    } else if (b.open_rc) {
        want = b;
    } else if (x->a.rc < 0) {
        want = x->a;
    } else {
        want = b;
        want.count = x->a.count + b.count;
        want.chain = x->a.chain * power(CHAIN_K, b.count) + b.chain;
        want.sum = x->a.sum + b.sum;
    }
    fuzz_expect_same(&want, &x->pair, "[A, B] is not A then B");
}

/* What reading an empty file of format gives: no requests, or for an
 * access stream (whose every file has a header) an error. */
static bool empty_read_ok(const char *format, const struct fuzz_run *r)
{
    if (!strncmp(format, "access", 6))
        return !fuzz_complete(r);
    return fuzz_complete(r) && r->count == 0;
}

/* [A, B] merged by time holds both parts' requests, or fails as one of
 * them did. */
static void check_merge(const struct fuzz_reads *x)
{
    const struct fuzz_run *a = &x->a, *b = &x->b, *m = &x->pair;

    if (fuzz_zstd_refused(a) || fuzz_zstd_refused(b) || fuzz_zstd_refused(m))
        return;
    FUZZ_CHECK(a->open_rc == 0 && b->open_rc == 0 && m->open_rc == 0);
    if (fuzz_complete(a) && fuzz_complete(b)) {
        if (!fuzz_complete(m) || m->count != a->count + b->count ||
            m->sum != a->sum + b->sum) {
            print_run("A", a);
            print_run("B", b);
            print_run("merge", m);
            fuzz_fail("the merge of two complete files is not their union");
        }
        if (a->sorted && b->sorted && !m->sorted)
            fuzz_fail("the merge of two sorted files is out of time order");
        return;
    }
    if (m->rc >= 0 || m->count > a->count + b->count ||
        !((a->rc < 0 && strcmp(m->msg, a->msg) == 0) ||
          (b->rc < 0 && strcmp(m->msg, b->msg) == 0))) {
        print_run("A", a);
        print_run("B", b);
        print_run("merge", m);
        fuzz_fail("the merge of a bad file does not fail as that file does");
    }
}

void fuzz_reader(const char *format, const uint8_t *data, size_t size,
                 size_t at, bool clean, struct fuzz_reads *out)
{
    struct fuzz_file whole, parts[2];
    struct fuzz_reads x;
    bool merge = strcmp(format, "blktrace") == 0;

    FUZZ_CHECK(at <= size);
    fuzz_file_set(0, data, size, &whole);
    fuzz_file_set(1, data, at, &parts[0]);
    fuzz_file_set(2, data + at, size - at, &parts[1]);
    /* A cut of compressed bytes is never clean, nor one whose second part
     * begins with the zstd magic (that part is then decompressed). */
    if (whole.zstd || parts[1].zstd)
        clean = false;
    fuzz_read(&whole, 1, format, &x.whole);
    fuzz_read(&parts[0], 1, format, &x.a);
    fuzz_read(&parts[1], 1, format, &x.b);
    fuzz_read(parts, 2, format, &x.pair);
    /* An empty file, its format forced, is a trace of no requests; but an
     * access stream always begins with its header, so there it is an
     * error (the header was lost). */
    FUZZ_CHECK(size || empty_read_ok(format, &x.whole));
    FUZZ_CHECK(at || empty_read_ok(format, &x.a));
    FUZZ_CHECK(at < size || empty_read_ok(format, &x.b));
    if (merge)
        check_merge(&x);
    else
        check_sequence(&x);
    if (clean && fuzz_complete(&x.whole)) {
        if (!fuzz_complete(&x.pair) || x.pair.count != x.whole.count ||
            x.pair.sum != x.whole.sum ||
            (!merge && x.pair.chain != x.whole.chain)) {
            print_run("whole", &x.whole);
            print_run("parts", &x.pair);
            fuzz_fail("%s: a clean cut at byte %zu changed what is read",
                      format, at);
        }
    }
    if (out)
        *out = x;
}
