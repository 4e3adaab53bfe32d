/*
 * sim/content/content.c - page contents for block traces, which carry none.
 *
 * A content source answers one question: what are the bytes of page
 * `pageno` of device `dev` after its `version`-th write?  The answer must
 * be a pure function of the spec and those three numbers, so that a replay
 * puts the same bytes every time it is run, on any machine, and a page
 * read back from the zcache can be checked against a fresh copy.  Sources
 * are found by name in a small const table (never an if-chain):
 *
 *   synth[:SEED]  seeded synthetic pages calibrated to real file pages
 *                 (the synth section below says how); SEED is decimal,
 *                 0 .. 2^64-1, default 1
 *   zero          all-zero pages
 *   random[:SEED] incompressible pages: splitmix64 bytes seeded from
 *                 (SEED, dev, pageno, version); default seed 1
 *   corpus:FILE   a real file cut into pages (the last partial page
 *                 zero-filled, as in the page cache); a key is mapped onto
 *                 page hash(dev, pageno, version) mod pages, so the pages of
 *                 a trace spread over the file and a rewritten page
 *                 usually lands on another page of it
 *   image:FILE    the device image: page pageno is the bytes at offset
 *                 pageno * page_size (pread), zero past the end.  An image
 *                 has one version and one device: both are ignored.
 *   pack:FILE     a content pack (pack.c): the content its key map gives
 *                 (dev, 0, pageno); one content per key, so the version
 *                 is ignored; a key not in the map is -ZC_ENOENT.
 *
 * Files' pages (zc_content_file_page(): page `index` of inode ino of file
 * system dev) are the same question with one more number.  The synthetic
 * sources and corpus chain ino into the key when it is not 0, so ino 0
 * gives exactly zc_content_page()'s bytes; pack looks up (dev, ino,
 * index); an image has no file map and refuses ino != 0 (-ZC_EINVAL).
 *
 * Data layout: one zc_content holds the ops of its source, the page size,
 * the seed, and for the file sources the path (for messages), the file
 * descriptor and size, for corpus the read-only mapping of the file, and
 * for pack the open pack.
 * Nothing is shared between objects and nothing is global, so sources are
 * independent.  Reading a page changes nothing in the object but a
 * pack's cache of decompressed blocks; the header promises no more than
 * one object per thread, and that is all callers may rely on.
 *
 * Keys are mixed with splitmix64's finaliser, chained over (seed, dev,
 * pageno, version) with distinct constants per source, so the same key
 * gives unrelated streams in random and synth.  Everything is integer
 * arithmetic: no floating point, no rand(), no state between calls.
 *
 * Heap memory here is plain malloc: a content source belongs to a replay,
 * not to a cache, and is never counted against a cache's budget.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/bytes.h"
#include "common/files.h"
#include "zcache_sim.h"

/* ---- hashing and the byte stream ---------------------------------------- */

/* splitmix64's finaliser: a bijection that mixes every input bit. */
static inline uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* ino 0 (a block device's page) leaves the chain as it always was, so
 * block traces keep their bytes; a file's inode is one more link. */
static uint64_t key_hash(uint64_t salt, uint64_t seed, uint32_t dev,
                         uint64_t ino, uint64_t pageno, uint64_t version)
{
    uint64_t h = mix64(salt ^ seed);

    h = mix64(h ^ dev);
    if (ino)
        h = mix64(h ^ ino ^ 0x696e6f64652d3031ULL);
    h = mix64(h ^ pageno);
    return mix64(h ^ version);
}

/* splitmix64 as a stream: one add and one finaliser per 8 bytes, several
 * GB/s, and equidistributed enough that LZO finds nothing in it. */
struct rng {
    uint64_t s;
};

static inline uint64_t rng_next(struct rng *g)
{
    return mix64(g->s += 0x9e3779b97f4a7c15ULL);
}

/* Stored little-endian, so a page's bytes do not depend on the host. */
static inline void store_le64(uint8_t *p, uint64_t v)
{
    /* spelled out: compilers merge these into one store */
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
    p[4] = (uint8_t)(v >> 32);
    p[5] = (uint8_t)(v >> 40);
    p[6] = (uint8_t)(v >> 48);
    p[7] = (uint8_t)(v >> 56);
}

static void fill_random(struct rng *g, uint8_t *p, size_t len)
{
    uint8_t w[8];

    for (; len >= 8; len -= 8, p += 8)
        store_le64(p, rng_next(g));
    if (len) {
        store_le64(w, rng_next(g));
        memcpy(p, w, len);
    }
}

/* ---- synth: calibrated synthetic pages -----------------------------------
 *
 * Target.  ../shared/data/lzo_page_sizes.csv, every corpus pooled by its
 * page count (494628 pages: 0.41% zero, 0.05% same-filled, then the LZO1X-1
 * size histogram in 256-byte buckets).  The corpora are split in three
 * classes, which decide the kind of bytes a page gets in each bucket:
 * text (C headers, Python source, plain documents), binary (shared
 * objects, executables, Python bytecode, locale data) and packed (gzip
 * documents).  class_pages[] is that table; pooled, 46.5% of the pages are
 * kept by the half-size rule (zero and same-filled included).
 *
 * Generator.  A page is a run of segments, each a fresh part of 8..40
 * bytes followed by a copy of earlier bytes of the page, found by LZO as a
 * match.  Fresh bytes are word-like ASCII with blanks, tabs and newlines
 * (text), 8-byte little-endian record fields: small integers, pointers
 * into one region and code-like random words (binary), or random bytes
 * (packed).  Copies repeat words, lines and records.  The one knob is the
 * fresh fraction (Q16): each copy is (1 - knob) / knob times its fresh
 * part, carried by error diffusion, so every page of a knob has the same
 * number of fresh bytes.  Copies start where a fresh part started:
 * LZO1X-1 indexes only positions it scanned as literals, so such a copy is
 * found at once, and LZO's output varies little between the pages of a
 * knob (standard deviation 10..25 bytes for text and packed, 30..50 for
 * binary, at 4096 bytes).
 *
 * Calibration.  knob_size[] is the mean lzo1x_1_compress() size of 2048
 * pages of 4096 bytes of each class at fresh fraction j/64, made
 * non-decreasing, measured offline with liblzo2 2.10
 * (ZT_CONTENT_CALIBRATE=1 test_content prints it again; the hook
 * zc__content_synth_fill() is for that).  A page draws, from its key's
 * stream: zero, same-filled, or a bucket and class with the pooled CSV's
 * probabilities; then a target size uniform in the bucket, the knob that
 * gives it by linear interpolation in knob_size[], and the bytes.  The top
 * bucket (LZO expands the page) is random bytes.  A target a class cannot
 * reach (binary tops out at 3672) goes to the next class up (text ->
 * binary -> packed).  Other page sizes use the same knobs, so sizes scale
 * with the page; LZO keeps fewer 512-byte pages (about 40% by the
 * half-size rule: less history to match) and a few more 64 KiB ones
 * (48%).
 *
 * Result (test_synth_lzo_histogram_matches_real_file_pages: 20000 keys,
 * seed 1, 4096 bytes; percent of the pages that are neither zero nor
 * same-filled, by 256-byte bucket of LZO size; real = the pooled CSV):
 *
 *  bucket synth  real    bucket synth  real    bucket synth  real
 *      0+  1.40  1.40     1536+  9.08  9.22     3072+  7.27  7.30
 *    256+  2.83  2.96     1792+ 10.12  9.95     3328+  3.09  2.98
 *    512+  3.42  3.26     2048+ 10.01 10.35     3584+  1.25  1.03
 *    768+  4.61  4.30     2304+ 10.31 10.32     3840+  0.62  0.51
 *   1024+  6.86  7.30     2560+  8.97  8.77    >=4096  4.75  4.88
 *   1280+  7.68  7.81     2816+  7.73  7.65
 *
 * Worst bucket 0.45 points off; kept by the half-size rule (zero and
 * same-filled included): 46.34% vs 46.49%.  Speed (Release, one core of
 * the build machine, 4096-byte pages): about 1 GB/s, against about
 * 600-700 MB/s for lzo1x_1_compress() on the same pages.
 */

enum { FL_TEXT, FL_BINARY, FL_PACKED, FL_COUNT };

#define SYNTH_BUCKETS 17
#define SYNTH_ZERO_PAGES 2020u
#define SYNTH_SAME_PAGES 223u
#define SYNTH_TOTAL_PAGES 494628u

static const uint32_t class_pages[FL_COUNT][SYNTH_BUCKETS] = {
    /* text: c_headers + python_source + plain_docs */
    {2409, 3252, 5238, 7486, 11215, 13063, 15092, 13353, 10101, 4744, 1161, 292,
     39, 19, 11, 61, 374},
    /* binary: shared_objects + executables + python_bytecode + locale_data */
    {4349, 11081, 10673, 13504, 24624, 25227, 30157, 35487, 40738, 45977, 41938,
     37236, 35765, 14601, 4989, 2282, 11263},
    /* packed: gzip_docs */
    {116, 243, 164, 165, 113, 150, 146, 147, 126, 98, 103, 137, 150, 71, 95,
     155, 12405},
};

#define KNOB_STEPS 64 /* knob_size[f][j]: fresh fraction j / KNOB_STEPS */

static const uint16_t knob_size[FL_COUNT][KNOB_STEPS + 1] = {
    /* text */
    {66,   134,  216,  295,  379,  457,  538,  619,  699,  779,  859,
     938,  1019, 1098, 1176, 1255, 1335, 1410, 1488, 1564, 1642, 1719,
     1793, 1869, 1944, 2019, 2094, 2168, 2242, 2316, 2390, 2461, 2532,
     2599, 2667, 2738, 2810, 2883, 2957, 3028, 3099, 3170, 3241, 3310,
     3380, 3448, 3515, 3581, 3646, 3709, 3768, 3826, 3888, 3953, 4024,
     4084, 4110, 4115, 4116, 4116, 4116, 4116, 4116, 4116, 4116},
    /* binary */
    {68,   124,  197,  268,  346,  413,  485,  557,  634,  699,  772,
     839,  912,  969,  1039, 1109, 1177, 1242, 1313, 1380, 1450, 1502,
     1564, 1636, 1703, 1772, 1837, 1890, 1956, 2022, 2086, 2136, 2167,
     2234, 2299, 2359, 2424, 2487, 2548, 2614, 2677, 2741, 2788, 2845,
     2908, 2972, 3034, 3084, 3124, 3181, 3233, 3272, 3331, 3374, 3427,
     3476, 3529, 3581, 3629, 3665, 3672, 3672, 3672, 3672, 3672},
    /* packed */
    {66,   134,  216,  296,  379,  457,  538,  620,  700,  780,  860,
     939,  1021, 1099, 1178, 1257, 1337, 1412, 1490, 1567, 1645, 1722,
     1796, 1873, 1948, 2023, 2099, 2173, 2248, 2322, 2396, 2468, 2539,
     2606, 2674, 2745, 2817, 2891, 2965, 3036, 3108, 3179, 3251, 3321,
     3391, 3459, 3527, 3594, 3659, 3722, 3781, 3839, 3901, 3969, 4039,
     4091, 4111, 4115, 4116, 4116, 4116, 4116, 4116, 4116, 4116},
};

static const char text_alphabet[65] =
    "eeeeettttaaaooiinnssrrhldcumfpgwy_      \n\t(){};,.=*/0123456789-\"";

/*
 * The fresh-byte writers work in whole 8-byte words: they write len bytes
 * at p and may write up to 7 more, but never past p + room.  The extra
 * bytes lie where the generator writes next, so they never survive.
 */
static inline void put_word(uint8_t *p, size_t i, size_t len, size_t room,
                            uint64_t v)
{
    uint8_t w[8];

    if (i + 8 <= room) {
        store_le64(p + i, v);
    } else {
        store_le64(w, v);
        memcpy(p + i, w, len - i < 8 ? len - i : 8);
    }
}

#define TEXT_CHAR(r, k)                                                        \
    ((uint64_t)(uint8_t)text_alphabet[((r) >> (6 * k)) & 63])

/* Eight characters from 48 bits, spelled out so the shifts are constant. */
static uint64_t text_word(uint64_t r)
{
    return TEXT_CHAR(r, 0) | TEXT_CHAR(r, 1) << 8 | TEXT_CHAR(r, 2) << 16 |
           TEXT_CHAR(r, 3) << 24 | TEXT_CHAR(r, 4) << 32 |
           TEXT_CHAR(r, 5) << 40 | TEXT_CHAR(r, 6) << 48 |
           TEXT_CHAR(r, 7) << 56;
}

/* Fields of records: a small integer, a pointer into one 1 TiB region, or
 * a code-like word, a quarter, a quarter and a half of the time. */
static uint64_t binary_word(uint64_t r, unsigned kind)
{
    switch (kind & 3) {
    case 0: return r & 0xfff;
    case 1: return 0x00007f0000000000ULL | (r & 0xffffffffffULL);
    default: return r;
    }
}

static void fresh(int flavor, struct rng *g, uint8_t *p, size_t len,
                  size_t room)
{
    uint64_t kinds = 0;

    for (size_t i = 0; i < len; i += 8) {
        uint64_t r = rng_next(g), v;

        switch (flavor) {
        case FL_TEXT: v = text_word(r); break;
        case FL_BINARY:
            if ((i & 255) == 0)
                kinds = rng_next(g);
            v = binary_word(r, (unsigned)(kinds >> ((i >> 2) & 63)));
            break;
        default: v = r; break;
        }
        put_word(p, i, len, room, v);
    }
}

/* Copy len bytes from page[src] to page[pos], src < pos: a repeated word,
 * line or record, or, when the source overlaps the copy, a periodic run.
 * The period doubles with each memcpy, since what is copied repeats it. */
static void copy_back(uint8_t *page, size_t src, size_t pos, size_t len)
{
    size_t d = pos - src;

    while (len) {
        size_t n = len < d ? len : d;

        memcpy(page + pos, page + pos - d, n);
        pos += n;
        len -= n;
        d *= 2;
    }
}

/*
 * The generator at one knob, fresh_q16 = the fresh fraction in 1/65536.
 * Each segment is a fresh part of 8..40 bytes (whole 8-byte fields for
 * binary) and a copy of (65536 - fresh_q16) / fresh_q16 times that many
 * bytes, carried by error diffusion, taken from the start of one of the
 * last 64 fresh parts (overlapping the copy when that is near).  LZO1X-1
 * indexes only the positions it scans as literals, so a copy that starts where
 * a fresh part started is found at once, and every page of a knob costs LZO
 * nearly the same.
 */
#define SYNTH_STARTS 64

static void synth_fill(int flavor, uint32_t fresh_q16, struct rng *g,
                       uint8_t *page, size_t n)
{
    size_t starts[SYNTH_STARTS], nstarts = 0, pos = 0;
    /* copy bytes per fresh byte, Q16; one division per page, not per
     * segment */
    uint64_t ratio = fresh_q16
                         ? ((uint64_t)(65536 - fresh_q16) << 16) / fresh_q16
                         : 0,
             carry = 0;

    while (pos < n) {
        uint64_t r = rng_next(g), want;
        size_t f = flavor == FL_BINARY ? 8 * (1 + (size_t)(r % 5))
                                       : 8 + (size_t)(r % 33);
        size_t c, src;

        if (f > n - pos)
            f = n - pos;
        fresh(flavor, g, page + pos, f, n - pos);
        starts[nstarts++ % SYNTH_STARTS] = pos;
        pos += f;
        if (pos == n)
            break;
        if (fresh_q16 == 0) {
            c = n - pos;
        } else {
            want = f * ratio + carry;
            c = (size_t)(want >> 16);
            carry = want & 0xffff;
            if (c > n - pos)
                c = n - pos;
        }
        if (c == 0)
            continue;
        src = starts[((r >> 32) *
                      (nstarts < SYNTH_STARTS ? nstarts : SYNTH_STARTS)) >>
                     32];
        copy_back(page, src, pos, c);
        pos += c;
    }
}

/* The knob (Q16 fresh fraction) whose mean LZO size is target. */
static uint32_t knob_for(int flavor, uint32_t target)
{
    const uint16_t *t = knob_size[flavor];
    unsigned j;

    if (target <= t[0])
        return 0;
    for (j = 0; j < KNOB_STEPS && t[j + 1] < target; j++)
        ;
    if (j == KNOB_STEPS)
        return 65536;
    return (uint32_t)(j * (65536 / KNOB_STEPS) +
                      (uint64_t)(target - t[j]) * (65536 / KNOB_STEPS) /
                          (uint32_t)(t[j + 1] - t[j]));
}

/* Hook for the calibration (test_content.c): the bytes of class flavor
 * (0 text, 1 binary, 2 packed) at knob fresh_q16 (0..65536), stream key.
 * Declared here: internal.h belongs to the core. */
void zc__content_synth_fill(int flavor, uint32_t fresh_q16, uint64_t key,
                            void *page, size_t page_size);

void zc__content_synth_fill(int flavor, uint32_t fresh_q16, uint64_t key,
                            void *page, size_t page_size)
{
    struct rng g = {key};

    synth_fill(flavor, fresh_q16, &g, page, page_size);
}

static void synth_page_bytes(uint64_t key, uint8_t *page, size_t n)
{
    struct rng g = {key};
    uint64_t r = rng_next(&g) % SYNTH_TOTAL_PAGES;
    uint32_t target;
    int b, f = 0;

    if (r < SYNTH_ZERO_PAGES) {
        memset(page, 0, n);
        return;
    }
    r -= SYNTH_ZERO_PAGES;
    if (r < SYNTH_SAME_PAGES) {
        uint8_t w[8];

        store_le64(w, (r & 1) ? ~0ULL : rng_next(&g));
        for (size_t i = 0; i < n; i += 8)
            memcpy(page + i, w, 8);
        return;
    }
    r -= SYNTH_SAME_PAGES;
    for (b = 0; b < SYNTH_BUCKETS; b++) {
        for (f = 0; f < FL_COUNT; f++) {
            if (r < class_pages[f][b])
                goto found;
            r -= class_pages[f][b];
        }
    }
found:
    if (b >= SYNTH_BUCKETS - 1) {
        fill_random(&g, page, n);
        return;
    }
    target = (uint32_t)b * 256 + (uint32_t)(rng_next(&g) % 256);
    while (f < FL_PACKED && target > knob_size[f][KNOB_STEPS])
        f++;
    synth_fill(f, knob_for(f, target), &g, page, n);
}

struct source_ops {
    const char *name;
    const char *usage; /* as listed in messages */
    enum { ARG_NONE, ARG_SEED, ARG_FILE } arg;
    int (*open)(zc_content *c, const char *file, char *err, size_t errlen);
    int (*page)(zc_content *c, uint32_t dev, uint64_t ino, uint64_t pageno,
                uint64_t version, uint8_t *page);
    void (*close)(zc_content *c);
};

struct zc_content {
    const struct source_ops *ops;
    size_t page_size;
    uint64_t seed;
    char *path;         /* file sources: for messages */
    int fd;             /* image: open file, else -1 */
    uint64_t file_size; /* image, corpus: bytes */
    uint64_t npages;    /* corpus: pages, the last maybe partial */
    const uint8_t *map; /* corpus: the file, read-only */
    size_t map_len;     /* corpus: bytes mapped */
    zc_pack *pack;      /* pack */
    char err[512];      /* the last page refused, said (zc_content_error) */
};

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (!err || errlen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* ---- zero, random ------------------------------------------------------ */

static int zero_page(zc_content *c, uint32_t dev, uint64_t ino, uint64_t pageno,
                     uint64_t version, uint8_t *page)
{
    (void)dev;
    (void)ino;
    (void)pageno;
    (void)version;
    memset(page, 0, c->page_size);
    return 0;
}

static int random_page(zc_content *c, uint32_t dev, uint64_t ino,
                       uint64_t pageno, uint64_t version, uint8_t *page)
{
    struct rng g;

    g.s = key_hash(0x72616e646f6d2d31ULL, c->seed, dev, ino, pageno, version);
    fill_random(&g, page, c->page_size);
    return 0;
}

static int synth_page(zc_content *c, uint32_t dev, uint64_t ino,
                      uint64_t pageno, uint64_t version, uint8_t *page)
{
    synth_page_bytes(
        key_hash(0x73796e74682d3031ULL, c->seed, dev, ino, pageno, version),
        page, c->page_size);
    return 0;
}

/* ---- files ------------------------------------------------------------- */

/* Open path read-only and learn its size; a directory is refused here
 * rather than failing later on its first read. */
static int open_file(zc_content *c, const char *path, char *err, size_t errlen)
{
    struct stat st;
    off_t end;

    c->path = strdup(path);
    if (!c->path) {
        set_err(err, errlen, "%s: out of memory", path);
        return -ZC_ENOMEM;
    }
    /* O_NONBLOCK: a FIFO must not hang the open (it is refused below) */
    c->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (c->fd < 0) {
        set_err(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -ZC_EIO;
    }
    if (fstat(c->fd, &st) != 0) {
        set_err(err, errlen, "%s: cannot stat: %s", path, strerror(errno));
        return -ZC_EIO;
    }
    if (S_ISDIR(st.st_mode)) {
        set_err(err, errlen, "%s: is a directory", path);
        return -ZC_EIO;
    }
    if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
        set_err(err, errlen,
                "%s: not a regular file or a block device (pages are read "
                "at their offsets)",
                path);
        return -ZC_EIO;
    }
    /* lseek also sizes block devices, whose st_size is 0. */
    end = lseek(c->fd, 0, SEEK_END);
    if (end < 0) {
        set_err(err, errlen, "%s: cannot find its size: %s", path,
                strerror(errno));
        return -ZC_EIO;
    }
    c->file_size = (uint64_t)end;
    return 0;
}

/* Read up to len bytes at off, zero-filling what lies past the end. */
static int read_at(int fd, uint64_t size, uint64_t off, uint8_t *buf,
                   size_t len)
{
    size_t got = 0;

    if (off < size) {
        size_t want = size - off < len ? (size_t)(size - off) : len;

        while (got < want) {
            ssize_t n = pread(fd, buf + got, want - got, (off_t)(off + got));

            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                return -ZC_EIO;
            if (n == 0)
                break; /* the file shrank: the rest reads as zeros */
            got += (size_t)n;
        }
    }
    memset(buf + got, 0, len - got);
    return 0;
}

static int image_open(zc_content *c, const char *file, char *err, size_t errlen)
{
    return open_file(c, file, err, errlen);
}

static int image_page(zc_content *c, uint32_t dev, uint64_t ino,
                      uint64_t pageno, uint64_t version, uint8_t *page)
{
    (void)dev;
    (void)version;
    if (ino)
        return -ZC_EINVAL; /* an image has no file map */
    if (pageno >= c->file_size / c->page_size + 1) {
        memset(page, 0, c->page_size);
        return 0;
    }
    return read_at(c->fd, c->file_size, pageno * c->page_size, page,
                   c->page_size);
}

static int corpus_open(zc_content *c, const char *file, char *err,
                       size_t errlen)
{
    int rc = open_file(c, file, err, errlen);
    void *m;

    if (rc != 0)
        return rc;
    if (c->file_size == 0) {
        set_err(err, errlen,
                "%s: empty file: a corpus needs at least one "
                "byte",
                file);
        return -ZC_EINVAL;
    }
    if (c->file_size > SIZE_MAX) {
        set_err(err, errlen, "%s: too large to map", file);
        return -ZC_EINVAL;
    }
    c->map_len = (size_t)c->file_size;
    m = mmap(NULL, c->map_len, PROT_READ, MAP_PRIVATE, c->fd, 0);
    if (m == MAP_FAILED) {
        c->map_len = 0;
        set_err(err, errlen, "%s: cannot map: %s", file, strerror(errno));
        return -ZC_EIO;
    }
    c->map = m;
    c->npages = zc__pages_spanned(c->file_size, c->page_size);
    close(c->fd);
    c->fd = -1;
    return 0;
}

/* Copy, never point into the map: the last page is partial, and a mapping
 * read past the file's last system page would fault. */
static int corpus_page(zc_content *c, uint32_t dev, uint64_t ino,
                       uint64_t pageno, uint64_t version, uint8_t *page)
{
    uint64_t i = key_hash(0x636f727075732d31ULL, 0, dev, ino, pageno, version) %
                 c->npages;
    uint64_t off = i * c->page_size;
    size_t len = c->map_len - off < c->page_size ? (size_t)(c->map_len - off)
                                                 : c->page_size;

    memcpy(page, c->map + off, len);
    memset(page + len, 0, c->page_size - len);
    return 0;
}

/* ---- pack: a recording's own contents ------------------------------------ */

static int pack_open(zc_content *c, const char *file, char *err, size_t errlen)
{
    int rc = zc_pack_open(file, &c->pack, err, errlen);

    if (rc)
        return rc;
    if (!c->path && !(c->path = strdup(file)))
        return -ZC_ENOMEM;
    if (zc_pack_page_size(c->pack) != c->page_size) {
        set_err(err, errlen, "%s: pack of %zu-byte pages, not %zu", file,
                zc_pack_page_size(c->pack), c->page_size);
        return -ZC_EINVAL;
    }
    return 0;
}

/* A pack holds one content per key, as an image does: version is
 * ignored. */
static int pack_page(zc_content *c, uint32_t dev, uint64_t ino, uint64_t pageno,
                     uint64_t version, uint8_t *page)
{
    uint64_t id;
    int rc = zc_pack_lookup(c->pack, dev, ino, pageno, &id);

    (void)version;
    return rc ? rc : zc_pack_page(c->pack, id, page);
}

static void pack_close(zc_content *c)
{
    zc_pack_close(c->pack);
}

/* ---- the registry and the public API ----------------------------------- */

static const struct source_ops sources[] = {
    {"synth", "synth[:SEED]", ARG_SEED, NULL, synth_page, NULL},
    {"zero", "zero", ARG_NONE, NULL, zero_page, NULL},
    {"random", "random[:SEED]", ARG_SEED, NULL, random_page, NULL},
    {"corpus", "corpus:FILE", ARG_FILE, corpus_open, corpus_page, NULL},
    {"image", "image:FILE", ARG_FILE, image_open, image_page, NULL},
    {"pack", "pack:FILE", ARG_FILE, pack_open, pack_page, pack_close},
};
#define NSOURCES (sizeof(sources) / sizeof(sources[0]))

static const char known[] =
    "sources: synth[:SEED], zero, random[:SEED], corpus:FILE, image:FILE, "
    "pack:FILE";

/* A decimal seed, 0 .. 2^64-1, digits only (no sign, no blanks). */
static int parse_seed(const char *s, uint64_t *out)
{
    uint64_t v = 0;

    if (*s == '\0')
        return -1;
    for (; *s; s++) {
        unsigned d = (unsigned)(*s - '0');

        if (d > 9)
            return -1;
        if (v > (UINT64_MAX - d) / 10)
            return -2;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

int zc_content_open(const char *spec, size_t page_size, zc_content **out,
                    char *err, size_t errlen)
{
    const struct source_ops *ops = NULL;
    const char *colon, *arg;
    size_t namelen, i;
    zc_content *c;
    int rc;

    set_err(err, errlen, "%s", "");
    if (out)
        *out = NULL;
    if (!spec || !out) {
        set_err(err, errlen, "content source: NULL %s",
                spec ? "output pointer" : "spec");
        return -ZC_EINVAL;
    }
    if (page_size < 512 || page_size > 65536 ||
        (page_size & (page_size - 1)) != 0) {
        set_err(err, errlen,
                "content source '%s': page size %zu: want a power of two "
                "from 512 to 65536",
                spec, page_size);
        return -ZC_EINVAL;
    }
    colon = strchr(spec, ':');
    namelen = colon ? (size_t)(colon - spec) : strlen(spec);
    arg = colon ? colon + 1 : NULL;
    for (i = 0; i < NSOURCES; i++)
        if (strlen(sources[i].name) == namelen &&
            memcmp(sources[i].name, spec, namelen) == 0)
            ops = &sources[i];
    if (!ops) {
        set_err(err, errlen, "unknown content source '%.*s' (%s)", (int)namelen,
                spec, known);
        return -ZC_EINVAL;
    }
    if (ops->arg == ARG_NONE && arg) {
        set_err(err, errlen, "content source '%s': %s takes no argument (%s)",
                spec, ops->name, known);
        return -ZC_EINVAL;
    }
    if (ops->arg == ARG_FILE && (!arg || *arg == '\0')) {
        set_err(err, errlen, "content source '%s': want %s (%s)", spec,
                ops->usage, known);
        return -ZC_EINVAL;
    }

    c = calloc(1, sizeof(*c));
    if (!c) {
        set_err(err, errlen, "content source '%s': out of memory", spec);
        return -ZC_ENOMEM;
    }
    c->ops = ops;
    c->page_size = page_size;
    c->seed = 1;
    c->fd = -1;
    if (ops->arg == ARG_SEED && arg) {
        rc = parse_seed(arg, &c->seed);
        if (rc != 0) {
            set_err(err, errlen,
                    rc == -2 ? "content source '%s': seed '%s' out of range "
                               "(0 to 18446744073709551615)"
                             : "content source '%s': seed '%s' is not a "
                               "decimal number",
                    spec, arg);
            zc_content_close(c);
            return -ZC_EINVAL;
        }
    }
    if (ops->open) {
        rc = ops->open(c, arg, err, errlen);
        if (rc != 0) {
            zc_content_close(c);
            return rc;
        }
    }
    *out = c;
    return 0;
}

/* A page refused: say which, and why, for zc_content_error(). */
static int refused(zc_content *src, int rc, uint32_t dev, uint64_t ino,
                   uint64_t index)
{
    const char *why = rc == -ZC_ENOENT ? "is not in it"
                      : src->pack && *zc_pack_error(src->pack)
                          ? zc_pack_error(src->pack)
                          : zc_strerror(rc);

    if (ino)
        set_err(src->err, sizeof(src->err),
                "page (dev %" PRIu32 ", inode %" PRIu64 ", index %" PRIu64
                ") %s",
                dev, ino, index, why);
    else
        set_err(src->err, sizeof(src->err),
                "page %" PRIu64 " of device %" PRIu32 " %s", index, dev, why);
    return rc;
}

int zc_content_page(zc_content *src, uint32_t dev, uint64_t pageno,
                    uint64_t version, void *page)
{
    int rc;

    if (!src || !page)
        return -ZC_EINVAL;
    rc = src->ops->page(src, dev, 0, pageno, version, page);
    return rc ? refused(src, rc, dev, 0, pageno) : 0;
}

int zc_content_file_page(zc_content *src, uint32_t dev, uint64_t ino,
                         uint64_t index, uint64_t version, void *page)
{
    int rc;

    if (!src || !page)
        return -ZC_EINVAL;
    rc = src->ops->page(src, dev, ino, index, version, page);
    return rc ? refused(src, rc, dev, ino, index) : 0;
}

const char *zc_content_error(const zc_content *src)
{
    return src ? src->err : "";
}

int zc_content_check_trace(const zc_content *src, const zc_trace *t, char *err,
                           size_t errlen)
{
    const char *name, *id;

    if (err && errlen)
        err[0] = '\0';
    if (!t)
        return -ZC_EINVAL;
    name = zc_trace_meta(t, "pack");
    id = zc_trace_meta(t, "pack_id");
    if (name && (!*name || strchr(name, '/') || strstr(name, ".."))) {
        set_err(err, errlen,
                "header field pack=%.64s: not a file name beside the trace "
                "(no '/', no \"..\")",
                name);
        return -ZC_EINVAL;
    }
    /* Synthetic contents are a choice; another recording's bytes are a
     * mistake that no count would show. */
    if (id && src && src->pack &&
        !zc__pack_id_matches(id, zc_pack_id(src->pack))) {
        set_err(err, errlen,
                "%s is another recording's pack (its id is %016" PRIx64
                ", the trace's pack_id=%.32s)",
                src->path ? src->path : "the pack", zc_pack_id(src->pack), id);
        return -ZC_EINVAL;
    }
    return 0;
}

const char *zc_content_file(const char *spec)
{
    static const char *const kinds[] = {"pack:", "image:", "corpus:"};

    for (size_t i = 0; spec && i < sizeof(kinds) / sizeof(*kinds); i++)
        if (!strncmp(spec, kinds[i], strlen(kinds[i])))
            return spec + strlen(kinds[i]);
    return NULL;
}

void zc_content_close(zc_content *src)
{
    if (!src)
        return;
    if (src->ops->close)
        src->ops->close(src);
    if (src->map)
        munmap((void *)src->map, src->map_len);
    if (src->fd >= 0)
        close(src->fd);
    free(src->path);
    free(src);
}
