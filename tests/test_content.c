/*
 * test_content.c - page content sources (zcache_sim.h, "Page contents"):
 * every source is a pure function of (spec, dev, page, version); zero is
 * zero, random does not compress, corpus pages are pages of the file,
 * image pages are the file's bytes at the page's offset; synth's LZO1X-1
 * size histogram and half-size share match the pooled histogram of real
 * file pages in ../shared/data/lzo_page_sizes.csv; bad specs are refused
 * with a message that names the problem.
 *
 * Expected sizes come from liblzo2 itself (zt_lzo_size()) and the CSV,
 * never from the library.  If the CSV is missing, the pooled counts below
 * (copied from it) stand in.
 *
 * ZT_CONTENT_CALIBRATE=1 ./test_content prints the knob -> LZO size table
 * of the synth generator (the offline measurement content.c's knob_size[]
 * comes from); otherwise that test is skipped.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "zcache_sim.h"
#include "zt_util.h"

#define NBUCKETS 17
#define SYNTH_PAGES 20000
/* Per-bucket tolerance of the synth histogram, in percentage points. */
#define BUCKET_TOLERANCE 1.0
/* Tolerance of the half-size share, in percentage points. */
#define KEPT_TOLERANCE 3.0

/* FNV-1a of the first pages of synth, random and synth:7 at 512 bytes. */
#define PIN_SYNTH 0xed8dd3077e58bb2aULL
#define PIN_RANDOM 0x64a4c5820a6a07adULL
#define PIN_SYNTH512 0x7beedab26148b698ULL

static const size_t page_sizes[] = {512, 4096, 65536};

/* The calibration hook of src/trace/content.c (internal, not in a header):
 * the bytes of the synth generator for one class at one knob. */
void zc__content_synth_fill(int flavor, uint32_t fresh_q16, uint64_t key,
                            void *page, size_t page_size);

static zc_content *open_ok(const char *spec, size_t ps)
{
    char err[256] = "unset";
    zc_content *c = NULL;
    int rc = zc_content_open(spec, ps, &c, err, sizeof(err));

    if (rc != 0)
        fail_msg("%s: %d %s", spec, rc, err);
    assert_non_null(c);
    assert_string_equal(err, "");
    return c;
}

static uint8_t *page_of(zc_content *c, size_t ps, uint32_t dev, uint64_t pg,
                        uint64_t ver)
{
    uint8_t *p = malloc(ps);

    assert_non_null(p);
    memset(p, 0xa5, ps);
    assert_int_equal(zc_content_page(c, dev, pg, ver, p), 0);
    return p;
}

static bool all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return false;
    return true;
}

/* A temporary file holding bytes[len] (len may be 0); its path goes to
 * path[64].  The caller unlinks it. */
static void temp_file(char *path, const uint8_t *bytes, size_t len)
{
    int fd;

    strcpy(path, "/tmp/zt_content_XXXXXX");
    fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, bytes, len), (ssize_t)len);
    assert_int_equal(close(fd), 0);
}

/* ---- determinism --------------------------------------------------------- */

static void
test_same_key_gives_same_bytes_in_separately_opened_sources(void **state)
{
    static const char *specs[] = {"synth",    "synth:42", "zero", "random",
                                  "random:9", "corpus",   "image"};
    uint8_t file[3 * 4096 + 100];
    char path[64], spec[128];

    (void)state;
    zt_fill_random(file, sizeof(file), 5);
    temp_file(path, file, sizeof(file));
    for (size_t s = 0; s < sizeof(specs) / sizeof(specs[0]); s++) {
        for (size_t z = 0; z < 3; z++) {
            size_t ps = page_sizes[z];
            zc_content *a, *b;

            if (strcmp(specs[s], "corpus") == 0 ||
                strcmp(specs[s], "image") == 0)
                snprintf(spec, sizeof(spec), "%s:%s", specs[s], path);
            else
                snprintf(spec, sizeof(spec), "%s", specs[s]);
            a = open_ok(spec, ps);
            b = open_ok(spec, ps);
            for (uint64_t k = 0; k < 200; k++) {
                uint32_t dev = (uint32_t)(k % 3) << 20;
                uint64_t pg = k * 977 % 13, ver = k % 4;
                uint8_t *x = page_of(a, ps, dev, pg, ver);
                uint8_t *y = page_of(b, ps, dev, pg, ver);
                uint8_t *x2 = page_of(a, ps, dev, pg, ver);

                assert_memory_equal(x, y, ps);
                assert_memory_equal(x, x2, ps);
                free(x);
                free(y);
                free(x2);
            }
            zc_content_close(a);
            zc_content_close(b);
        }
    }
    unlink(path);
}

/* FNV-1a over the pages of a few keys: the bytes are part of the
 * interface (replays must be reproducible across machines and releases);
 * change these values only together with a deliberate generator change. */
static uint64_t fnv_pages(const char *spec, size_t ps)
{
    zc_content *c = open_ok(spec, ps);
    uint64_t h = 0xcbf29ce484222325ULL;

    for (uint64_t k = 0; k < 64; k++) {
        uint8_t *p = page_of(c, ps, (uint32_t)k, k * k, k % 5);

        for (size_t i = 0; i < ps; i++)
            h = (h ^ p[i]) * 0x100000001b3ULL;
        free(p);
    }
    zc_content_close(c);
    return h;
}

static void test_synth_and_random_bytes_are_pinned(void **state)
{
    (void)state;
    if (getenv("ZT_CONTENT_PRINT_PINS")) {
        printf("synth %#llx random %#llx synth512 %#llx\n",
               (unsigned long long)fnv_pages("synth", 4096),
               (unsigned long long)fnv_pages("random", 4096),
               (unsigned long long)fnv_pages("synth:7", 512));
    }
    assert_true(fnv_pages("synth", 4096) == PIN_SYNTH);
    assert_true(fnv_pages("random", 4096) == PIN_RANDOM);
    assert_true(fnv_pages("synth:7", 512) == PIN_SYNTH512);
}

/* ---- keys ---------------------------------------------------------------- */

static void test_version_dev_page_and_seed_each_change_content(void **state)
{
    static const char *specs[] = {"synth", "random"};

    (void)state;
    for (size_t s = 0; s < 2; s++) {
        zc_content *c = open_ok(specs[s], 4096);
        zc_content *c2 = open_ok(
            strcmp(specs[s], "synth") == 0 ? "synth:2" : "random:2", 4096);
        unsigned differ[4] = {0};

        for (uint64_t k = 0; k < 200; k++) {
            uint8_t *base = page_of(c, 4096, 7, k, 3);
            uint8_t *v = page_of(c, 4096, 7, k, 4);
            uint8_t *d = page_of(c, 4096, 8, k, 3);
            uint8_t *p = page_of(c, 4096, 7, k + 1000, 3);
            uint8_t *sd = page_of(c2, 4096, 7, k, 3);

            differ[0] += memcmp(base, v, 4096) != 0;
            differ[1] += memcmp(base, d, 4096) != 0;
            differ[2] += memcmp(base, p, 4096) != 0;
            differ[3] += memcmp(base, sd, 4096) != 0;
            free(base);
            free(v);
            free(d);
            free(p);
            free(sd);
        }
        /* synth: two zero pages (0.4% of keys) compare equal; allow it. */
        for (int i = 0; i < 4; i++)
            assert_true(differ[i] >= 195);
        zc_content_close(c);
        zc_content_close(c2);
    }
}

/* ---- zero, random -------------------------------------------------------- */

static void test_zero_source_gives_zero_pages(void **state)
{
    (void)state;
    for (size_t z = 0; z < 3; z++) {
        zc_content *c = open_ok("zero", page_sizes[z]);

        for (uint64_t k = 0; k < 50; k++) {
            uint8_t *p = page_of(c, page_sizes[z], (uint32_t)k, k * 31, k);

            assert_true(all_zero(p, page_sizes[z]));
            free(p);
        }
        zc_content_close(c);
    }
}

static void test_random_pages_do_not_compress(void **state)
{
    (void)state;
    for (size_t z = 0; z < 3; z++) {
        size_t ps = page_sizes[z];
        zc_content *c = open_ok("random:77", ps);

        for (uint64_t k = 0; k < 100; k++) {
            uint8_t *p = page_of(c, ps, 1, k, k % 3);

            assert_true(zt_lzo_size(p, ps) > ps);
            free(p);
        }
        zc_content_close(c);
    }
}

/* ---- synth calibration ----------------------------------------------------
 */

/* Pooled counts of lzo_page_sizes.csv (every corpus): the fallback when
 * the CSV is not there. */
static const double pooled_hist[NBUCKETS] = {
    6874,  14576, 16075, 21155, 35952, 38440, 45395, 48987, 50965,
    50819, 43202, 37665, 35954, 14691, 5095,  2498,  24042};
static const double pooled_pages = 494628, pooled_same = 2020 + 223,
                    pooled_le_half = 227693;

/* The pooled target from the CSV: histogram (pages neither zero nor
 * same-filled) and the share the half-size rule keeps (same-filled
 * included), in percent. */
static void pooled_target(double hist[NBUCKETS], double *kept)
{
    double pages = 0, same = 0, le_half = 0, total = 0;
    char line[1024];
    FILE *f = fopen(ZC_SHARED_DIR "/data/lzo_page_sizes.csv", "r");

    memset(hist, 0, NBUCKETS * sizeof(double));
    if (f && fgets(line, sizeof(line), f)) {
        while (fgets(line, sizeof(line), f)) {
            char *s = strchr(line, ',');
            double v[7 + NBUCKETS];
            int n = 0;

            while (s && n < 6 + NBUCKETS) {
                v[n++] = strtod(s + 1, &s);
                s = strchr(s, ',');
            }
            assert_int_equal(n, 6 + NBUCKETS);
            pages += v[0];
            same += v[1] + v[2];
            le_half += v[3];
            for (int b = 0; b < NBUCKETS; b++)
                hist[b] += v[6 + b];
        }
        fclose(f);
    } else {
        if (f)
            fclose(f);
        pages = pooled_pages;
        same = pooled_same;
        le_half = pooled_le_half;
        memcpy(hist, pooled_hist, sizeof(pooled_hist));
    }
    for (int b = 0; b < NBUCKETS; b++)
        total += hist[b];
    for (int b = 0; b < NBUCKETS; b++)
        hist[b] = 100.0 * hist[b] / total;
    *kept = 100.0 * (le_half + same) / pages;
}

/* The histogram (percent of non-same-filled pages, sizes scaled to 4096)
 * and the half-size share (percent of all pages) of n synth pages. */
static void synth_measure(const char *spec, size_t ps, unsigned n,
                          double hist[NBUCKETS], double *kept)
{
    zc_content *c = open_ok(spec, ps);
    uint8_t *p = malloc(ps);
    unsigned counts[NBUCKETS] = {0}, kept_n = 0, total = 0;

    assert_non_null(p);
    for (unsigned k = 0; k < n; k++) {
        size_t sz, b;

        assert_int_equal(
            zc_content_page(c, (uint32_t)(k % 5) << 20, k * 7919ull, k % 3, p),
            0);
        if (zt_is_same_filled(p, ps)) {
            kept_n++;
            continue;
        }
        sz = zt_lzo_size(p, ps);
        kept_n += sz <= ps / 2;
        b = sz * 4096 / ps / 256;
        counts[b < NBUCKETS ? b : NBUCKETS - 1]++;
        total++;
    }
    for (int b = 0; b < NBUCKETS; b++)
        hist[b] = 100.0 * counts[b] / total;
    *kept = 100.0 * kept_n / n;
    free(p);
    zc_content_close(c);
}

static void test_synth_lzo_histogram_matches_real_file_pages(void **state)
{
    double target[NBUCKETS], got[NBUCKETS], tkept, gkept, worst = 0;

    (void)state;
    pooled_target(target, &tkept);
    synth_measure("synth", 4096, SYNTH_PAGES, got, &gkept);
    for (int b = 0; b < NBUCKETS; b++) {
        double d = got[b] - target[b];

        if (d < 0)
            d = -d;
        if (d > worst)
            worst = d;
        if (getenv("ZT_CONTENT_VERBOSE"))
            print_message("%5d..%5d  synth %6.2f%%  real %6.2f%%  %+.2f\n",
                          b * 256, b * 256 + 255, got[b], target[b],
                          got[b] - target[b]);
        if (d > BUCKET_TOLERANCE)
            fail_msg("bucket %d (%d..%d bytes): synth %.2f%%, real %.2f%%", b,
                     b * 256, b * 256 + 255, got[b], target[b]);
    }
    if (gkept < tkept - KEPT_TOLERANCE || gkept > tkept + KEPT_TOLERANCE)
        fail_msg("half-size share: synth %.2f%%, real %.2f%%", gkept, tkept);
    print_message("synth vs real: worst bucket %.2f points, kept %.2f%% vs "
                  "%.2f%%\n",
                  worst, gkept, tkept);
}

static void test_synth_other_seed_is_calibrated_too(void **state)
{
    double target[NBUCKETS], got[NBUCKETS], tkept, gkept;

    (void)state;
    pooled_target(target, &tkept);
    synth_measure("synth:123456789", 4096, SYNTH_PAGES / 2, got, &gkept);
    for (int b = 0; b < NBUCKETS; b++)
        assert_true(got[b] - target[b] < 1.5 && target[b] - got[b] < 1.5);
    assert_true(gkept > tkept - KEPT_TOLERANCE &&
                gkept < tkept + KEPT_TOLERANCE);
}

/* Small and large pages: same knobs, so the share stays near the 4 KiB
 * one (LZO keeps fewer 512-byte pages: less history to match). */
static void
test_synth_small_and_large_pages_compress_like_file_pages(void **state)
{
    double got[NBUCKETS], kept512, kept64k;

    (void)state;
    synth_measure("synth", 512, 4000, got, &kept512);
    synth_measure("synth", 65536, 400, got, &kept64k);
    assert_true(kept512 > 30 && kept512 < 55);
    assert_true(kept64k > 35 && kept64k < 60);
}

static void
test_synth_has_zero_text_binary_and_incompressible_pages(void **state)
{
    zc_content *c = open_ok("synth", 4096);
    unsigned zero = 0, text = 0, expanded = 0, other = 0;

    (void)state;
    for (uint64_t k = 0; k < 5000; k++) {
        uint8_t *p = page_of(c, 4096, 0, k, 0);
        size_t printable = 0;

        for (size_t i = 0; i < 4096; i++)
            printable +=
                (p[i] >= 32 && p[i] < 127) || p[i] == '\n' || p[i] == '\t';
        if (all_zero(p, 4096))
            zero++;
        else if (printable == 4096)
            text++;
        else if (zt_lzo_size(p, 4096) > 4096)
            expanded++;
        else
            other++;
        free(p);
    }
    zc_content_close(c);
    /* CSV: 0.41% zero, text corpora 22% of pages, 4.9% expanded. */
    assert_true(zero >= 5 && zero <= 50);
    assert_true(text >= 700 && text <= 1200);
    assert_true(expanded >= 150 && expanded <= 350);
    assert_true(other >= 3000);
}

static void test_synth_calibration_table(void **state)
{
    static const char *names[] = {"text", "binary", "packed"};
    uint8_t page[4096];

    (void)state;
    if (!getenv("ZT_CONTENT_CALIBRATE"))
        skip();
    for (int f = 0; f < 3; f++) {
        double top = 0; /* the table must not decrease */

        printf("    /* %s */\n    {", names[f]);
        for (uint32_t j = 0; j <= 64; j++) {
            double sum = 0;

            for (uint64_t k = 0; k < 2048; k++) {
                zc__content_synth_fill(f, j * 1024, zt_mix64(k << 8 | j), page,
                                       sizeof(page));
                sum += (double)zt_lzo_size(page, sizeof(page));
            }
            if (sum / 2048 > top)
                top = sum / 2048;
            printf("%.0f%s", top, j < 64 ? ", " : "},\n");
        }
    }
}

/* ---- corpus, image --------------------------------------------------------
 */

/* A file of npages-1 full pages and a partial one; page i starts with its
 * number and is otherwise random. */
static uint8_t *numbered_file(size_t ps, size_t npages, size_t *len)
{
    uint8_t *f;

    *len = (npages - 1) * ps + ps / 3;
    f = malloc(*len);
    assert_non_null(f);
    zt_fill_random(f, *len, 11);
    for (size_t i = 0; i < npages; i++)
        memcpy(f + i * ps, &i, sizeof(i));
    return f;
}

static void test_corpus_pages_are_pages_of_the_file(void **state)
{
    (void)state;
    for (size_t z = 0; z < 3; z++) {
        size_t ps = page_sizes[z], npages = 40, len;
        uint8_t *file = numbered_file(ps, npages, &len);
        unsigned *hits = calloc(npages, sizeof(unsigned));
        char path[64], spec[96];
        zc_content *c;
        unsigned distinct = 0;

        temp_file(path, file, len);
        snprintf(spec, sizeof(spec), "corpus:%s", path);
        c = open_ok(spec, ps);
        for (uint64_t k = 0; k < 400; k++) {
            uint8_t *p = page_of(c, ps, (uint32_t)(k & 1), k, k % 3);
            size_t i, n;

            memcpy(&i, p, sizeof(i));
            assert_true(i < npages);
            n = i + 1 < npages ? ps : len - i * ps;
            assert_memory_equal(p, file + i * ps, n);
            assert_true(all_zero(p + n, ps - n));
            hits[i]++;
            free(p);
        }
        for (size_t i = 0; i < npages; i++)
            distinct += hits[i] > 0;
        assert_true(distinct >= npages * 3 / 4);
        zc_content_close(c);
        unlink(path);
        free(hits);
        free(file);
    }
}

static void test_corpus_new_version_usually_maps_elsewhere(void **state)
{
    size_t len;
    uint8_t *file = numbered_file(4096, 64, &len);
    char path[64], spec[96];
    zc_content *c;
    unsigned moved = 0;

    (void)state;
    temp_file(path, file, len);
    snprintf(spec, sizeof(spec), "corpus:%s", path);
    c = open_ok(spec, 4096);
    for (uint64_t k = 0; k < 200; k++) {
        uint8_t *a = page_of(c, 4096, 3, k, 0);
        uint8_t *b = page_of(c, 4096, 3, k, 1);

        moved += memcmp(a, b, 4096) != 0;
        free(a);
        free(b);
    }
    assert_true(moved >= 180); /* 1/64 of versions may land on the same */
    zc_content_close(c);
    unlink(path);
    free(file);
}

static void test_image_page_is_the_bytes_at_its_offset(void **state)
{
    (void)state;
    for (size_t z = 0; z < 3; z++) {
        size_t ps = page_sizes[z], len;
        uint8_t *file = numbered_file(ps, 4, &len); /* 3.33 pages */
        char path[64], spec[96];
        zc_content *c;

        temp_file(path, file, len);
        snprintf(spec, sizeof(spec), "image:%s", path);
        c = open_ok(spec, ps);
        for (uint64_t pg = 0; pg < 3; pg++) {
            /* dev and version are ignored: one device, one version */
            uint8_t *p = page_of(c, ps, (uint32_t)pg * 5, pg, pg * 9);

            assert_memory_equal(p, file + pg * ps, ps);
            free(p);
        }
        {
            uint8_t *p = page_of(c, ps, 0, 3, 0);
            size_t n = len - 3 * ps;

            assert_memory_equal(p, file + 3 * ps, n);
            assert_true(all_zero(p + n, ps - n));
            free(p);
        }
        {
            static const uint64_t past[] = {4, 5, 1000000, UINT64_MAX / 512,
                                            UINT64_MAX};

            for (size_t i = 0; i < sizeof(past) / sizeof(past[0]); i++) {
                uint8_t *p = page_of(c, ps, 0, past[i], 0);

                assert_true(all_zero(p, ps));
                free(p);
            }
        }
        zc_content_close(c);
        unlink(path);
        free(file);
    }
}

/* ---- bad specs ------------------------------------------------------------
 */

static void expect_error(const char *spec, size_t ps, int code,
                         const char *needle)
{
    char err[256] = "";
    zc_content *c = (zc_content *)&c;
    int rc = zc_content_open(spec, ps, &c, err, sizeof(err));

    if (rc != code)
        fail_msg("'%s': rc %d, want %d (%s)", spec ? spec : "(null)", rc, code,
                 err);
    assert_null(c);
    if (!strstr(err, needle))
        fail_msg("'%s': message '%s' lacks '%s'", spec ? spec : "(null)", err,
                 needle);
    assert_null(strchr(err, '\n'));
}

static void test_bad_specs_are_refused_with_a_message(void **state)
{
    (void)state;
    expect_error("synth:abc", 4096, -ZC_EINVAL, "abc");
    expect_error("synth:", 4096, -ZC_EINVAL, "not a decimal");
    expect_error("synth:-1", 4096, -ZC_EINVAL, "-1");
    expect_error("synth: 1", 4096, -ZC_EINVAL, "not a decimal");
    expect_error("synth:18446744073709551616", 4096, -ZC_EINVAL,
                 "out of range");
    expect_error("random:99999999999999999999", 4096, -ZC_EINVAL,
                 "out of range");
    expect_error("random:0x10", 4096, -ZC_EINVAL, "0x10");
    expect_error("zero:1", 4096, -ZC_EINVAL, "no argument");
    expect_error("corpus:", 4096, -ZC_EINVAL, "corpus:FILE");
    expect_error("corpus", 4096, -ZC_EINVAL, "corpus:FILE");
    expect_error("image:", 4096, -ZC_EINVAL, "image:FILE");
    expect_error("bogus", 4096, -ZC_EINVAL, "bogus");
    expect_error("bogus:1", 4096, -ZC_EINVAL, "synth[:SEED], zero");
    expect_error("", 4096, -ZC_EINVAL, "image:FILE");
    expect_error("Synth", 4096, -ZC_EINVAL, "unknown content source");
    expect_error("synth", 1000, -ZC_EINVAL, "1000");
    expect_error("synth", 256, -ZC_EINVAL, "power of two");
    expect_error("synth", 131072, -ZC_EINVAL, "power of two");
    expect_error(NULL, 4096, -ZC_EINVAL, "NULL");
    assert_int_equal(zc_content_open("synth", 4096, NULL, NULL, 0), -ZC_EINVAL);
}

static void test_bad_files_are_refused_naming_the_file(void **state)
{
    char path[64], spec[96];

    (void)state;
    temp_file(path, NULL, 0);
    snprintf(spec, sizeof(spec), "corpus:%s", path);
    expect_error(spec, 4096, -ZC_EINVAL, path);
    expect_error(spec, 4096, -ZC_EINVAL, "empty");
    unlink(path);
    expect_error(spec, 4096, -ZC_EIO, path);
    snprintf(spec, sizeof(spec), "image:%s", path);
    expect_error(spec, 4096, -ZC_EIO, path);
    expect_error("corpus:/tmp", 4096, -ZC_EIO, "/tmp: is a directory");
    expect_error("image:/tmp", 4096, -ZC_EIO, "/tmp: is a directory");
    /* A FIFO is refused at once: its open does not wait for a writer. */
    snprintf(path, sizeof(path), "%s", "/tmp/zt-content-fifo-XXXXXX");
    assert_non_null(mkdtemp(path));
    strcat(path, "/f");
    assert_int_equal(mkfifo(path, 0600), 0);
    snprintf(spec, sizeof(spec), "image:%s", path);
    expect_error(spec, 4096, -ZC_EIO, "not a regular file");
    snprintf(spec, sizeof(spec), "corpus:%s", path);
    expect_error(spec, 4096, -ZC_EIO, "not a regular file");
    unlink(path);
    *strrchr(path, '/') = '\0';
    rmdir(path);
}

static void test_extreme_seeds_and_null_arguments(void **state)
{
    zc_content *c;
    uint8_t page[512];

    (void)state;
    c = open_ok("synth:18446744073709551615", 512);
    assert_int_equal(zc_content_page(c, 0, 0, 0, page), 0);
    assert_int_equal(zc_content_page(c, 0, 0, 0, NULL), -ZC_EINVAL);
    assert_int_equal(zc_content_page(NULL, 0, 0, 0, page), -ZC_EINVAL);
    zc_content_close(c);
    c = open_ok("random:0", 512);
    zc_content_close(c);
    zc_content_close(NULL);
    /* err may be NULL */
    assert_int_equal(zc_content_open("nope", 4096, &c, NULL, 0), -ZC_EINVAL);
    assert_int_equal(zc_content_open("zero", 4096, &c, NULL, 0), 0);
    zc_content_close(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(
            test_same_key_gives_same_bytes_in_separately_opened_sources),
        cmocka_unit_test(test_synth_and_random_bytes_are_pinned),
        cmocka_unit_test(test_version_dev_page_and_seed_each_change_content),
        cmocka_unit_test(test_zero_source_gives_zero_pages),
        cmocka_unit_test(test_random_pages_do_not_compress),
        cmocka_unit_test(test_synth_lzo_histogram_matches_real_file_pages),
        cmocka_unit_test(test_synth_other_seed_is_calibrated_too),
        cmocka_unit_test(
            test_synth_small_and_large_pages_compress_like_file_pages),
        cmocka_unit_test(
            test_synth_has_zero_text_binary_and_incompressible_pages),
        cmocka_unit_test(test_synth_calibration_table),
        cmocka_unit_test(test_corpus_pages_are_pages_of_the_file),
        cmocka_unit_test(test_corpus_new_version_usually_maps_elsewhere),
        cmocka_unit_test(test_image_page_is_the_bytes_at_its_offset),
        cmocka_unit_test(test_bad_specs_are_refused_with_a_message),
        cmocka_unit_test(test_bad_files_are_refused_naming_the_file),
        cmocka_unit_test(test_extreme_seeds_and_null_arguments),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
