/*
 * zcache-fidelity - how close libzcache's page-cache models come to the
 * kernel's page cache on a recorded run.
 *
 *   zcache-fidelity [OPTIONS] RECORDING
 *
 * A recording (traces/README.md) holds one run twice: NAME.zca, the
 * access stream (what the programs asked of the page cache, with samples
 * of the kernel's resident page count), and NAME.kernel.zct, the kernel's
 * own page-cache stream (a page added is a get, a page reclaimed a put).
 * This tool replays the access stream through each page-cache model of
 * the library (zc_page_cache_model_name()) and sets what the model does
 * beside what the kernel did, for two ways of sizing the model:
 *
 *   kernel   the capacity follows the kernel's resident count: before
 *            each request, the last sample of the request's file system
 *            (zc_trace_resident()); from the start, the stream's first
 *            sample, so that the model does not start as a cache of 0;
 *   median   a fixed capacity, the median of the samples.
 *
 * The measures, exactly (--help says the same for users):
 *
 *   kernel_gets, kernel_puts   pages brought in (GET ops, and
 *            invalidate_page ops flagged write_miss: a write that missed)
 *            and evictions (PUT ops) of the kernel stream's pool 0, the
 *            file system.  Other pools (pool 1: the block
 *            device's own page cache, ext4's metadata, which the access
 *            stream cannot see) count apart as kernel_meta_gets/puts.
 *            Invalidations are neither.
 *   model_gets, model_puts     the same of the model's op stream: its
 *            read misses, readahead and write misses (zc_replay_stats:
 *            accesses - pc_hits + readahead), its evictions
 *            (pc_evictions).
 *   evicted_overlap  the share of the kernel's pool-0 evictions matched
 *            by a model eviction of the same page (inode, index) near the
 *            same place in the two eviction orders: taking the kernel's
 *            evictions i = 0, 1, ... in order, i matches the unmatched
 *            model eviction j of its page with |i - j| <= W nearest to i
 *            (the earlier on a tie).  W, the window, is the median
 *            resident count, the cache's size: a page evicted a whole
 *            cache turnover apart is another event.
 *   curve    per zcache capacity: the zcache hits (and gets) of the
 *            kernel stream's pool 0 played into a zcache of that capacity
 *            (the other pools' ops are left out: the model cannot see
 *            them, so zcache-replay's play of the whole stream differs),
 *            and of the access stream replayed through the model into
 *            one, same configuration, contents from the recording's pack.
 *
 * Samples are seen through zc_trace_resident() after each request, so a
 * sample is counted (for the median) when a request of its file system
 * sees a new value: exactly the recorder's samples, which it writes only
 * when the count changed, each before an access.  The median is the
 * upper one (sorted[n / 2]), as zcache-tracefs reports it in NAME.info.
 *
 * Work, sequential and each file read once: the access stream is read
 * into memory (each request with the sample it saw: 64 bytes a request),
 * which gives the samples' median before any replay and lets every
 * (model, size mode, capacity) replay it without reading or parsing it
 * again.  The kernel stream is read once, its counts and evictions taken
 * and every capacity's zcache fed in lockstep.  The model's op stream
 * does not depend on the zcache behind it (DESIGN.md), so its gets, puts
 * and evictions come from the first replay of each (model, size mode),
 * the evictions through zc_replay_sink(); the later ones only add curve
 * points (and are checked to agree).  One compression memo is shared by
 * every zcache, so each distinct content is compressed once (a cache
 * with a memo stores exactly what it would without one).
 *
 * Invariant (tests/fidelity.sh): a kernel stream that is the lru model's
 * own op stream at a constant capacity C (zcache-replay --page-cache C
 * --save-ops) beside an access stream whose samples are all C gives
 * model == kernel on every measure, an overlap of 1, in both size modes.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "outfile.h"
#include "plot.h"
#include "trace_content.h"
#include "zcache.h"
#include "zcache_sim.h"

#define NAME "zcache-fidelity"
#define MAX_CAPS 64
#define MAX_MODELS 32
#define NO_SAMPLE UINT64_MAX
#define PAGES_MAX 0xFFFFFFFEu /* a replay's page cache holds fewer */

enum { SIZE_KERNEL, SIZE_MEDIAN, NSIZES };
static const char *const size_name[NSIZES] = {"kernel", "median"};

/* ---- options ------------------------------------------------------------ */

static struct {
    const char *recording;
    const char *content;            /* --content, or NULL: the stream's pack */
    const char *zspec;              /* --zcache: the zcache's other settings */
    const char *output;             /* "text" or "json" */
    const char *out_path;           /* -o FILE, or NULL: standard output */
    const char *plot;               /* --plot PREFIX, or NULL */
    const char *models[MAX_MODELS]; /* the registry's strings */
    size_t nmodels;
    bool size_on[NSIZES];
    uint64_t caps[MAX_CAPS]; /* zcache capacities in bytes, ascending */
    size_t ncaps;            /* 0: --no-curve */
    bool ra_set;             /* --read-ahead-kb given: ra_kb */
    uint64_t ra_kb;
    uint64_t memo_bytes;
    int progress; /* -1 auto */
} o = {.output = "text",
       .zspec = "",

       .memo_bytes = 1ull << 30,
       .progress = -1};

static outfile out_file; /* -o FILE, removed on failure */
static FILE *out;        /* where the results go */

/* Before an error exit: end a progress line, remove the output file. */
static void undo(void)
{
    if (o.progress > 0)
        fputc('\n', stderr);
    outfile_discard(&out_file);
}

/* --help, a manual page: the text before the registry's models, and
 * after them. */
static const char *const help_head[] = {
    "NAME",
    "    " NAME
    " - compare libzcache's page-cache models with the kernel's page",
    "    cache on a recorded run",
    "",
    "SYNOPSIS",
    "    " NAME " [OPTIONS] RECORDING",
    "",
    "DESCRIPTION",
    "    RECORDING is a recording's path prefix NAME (or NAME.zca, or",
    "    NAME.kernel.zct):",
    "    NAME.zca is its access stream, what the programs asked of the page",
    "    cache; NAME.kernel.zct the kernel's page-cache stream of the same run",
    "    (a page added: a get; a page reclaimed: a put). The access stream is",
    "    replayed through each page-cache model and what the model does is set",
    "    beside what the kernel did, for two sizes of the model's page cache:",
    "      kernel   the capacity follows the kernel's resident page count: "
    "before",
    "               each request, the last sample of the request's file "
    "system;",
    "               from the start, the stream's first sample",
    "      median   a fixed capacity: the median of the resident samples (the",
    "               upper median, each sample counted once, as NAME.info says)",
    "",
    "OPTIONS",
    "    --model LIST        page-cache models, comma-separated (default: "
    "every",
    "                        registered model; see MODELS)",
    "    --size-mode LIST    kernel, median, or kernel,median (the default)",
    "    --capacity LIST     zcache capacities of the curve, bytes with K/M/G",
    "                        (default 256K,1M,4M,16M,64M)",
    "    --no-curve          gets, puts and overlap only: no zcache behind "
    "either",
    "    --zcache SPEC       the zcache's other settings, as zcache-replay's "
    "--zcache",
    "                        (default: the library's: lzo, zsmalloc, lru); its",
    "                        capacity comes from --capacity",
    "    --content SPEC      the access stream's page contents (default: "
    "pack:PACK,",
    "                        the pack its header names, beside it; else "
    "synth);",
    "                        the kernel stream's contents are its own",
    "    --read-ahead-kb N   the models' readahead limit in KiB (default: the",
    "                        stream's header field read_ahead_kb, else the",
    "                        library's default, 128); 0: none",
    "    --memo SIZE         memory for compressing each distinct content once",
    "                        (default 1G; 0: every zcache compresses)",
    "    --output FORMAT     text (default) or json",
    "    -o FILE             write the output to FILE (removed if the run",
    "                        fails; -: standard output)",
    "    --plot PREFIX       PREFIX.dat, PREFIX.gp and, with gnuplot, "
    "PREFIX.png",
    "                        and .svg: zcache hits against capacity, the "
    "kernel's",
    "                        and every model's at each size mode, on one plot",
    "    --progress, --no-progress",
    "                        progress on stderr (default: when it is a "
    "terminal)",
    "    --help, --version",
    "",
    "MEASURES (per model and size mode)",
    "    kernel_gets, kernel_puts",
    "        pages brought in (gets, and writes that missed) and evicted "
    "(puts)",
    "        in the kernel stream's pool 0, the file system's pages.",
    "        Its other pools (pool 1: the block device's own page cache, where",
    "        ext4 keeps metadata, which the access stream cannot see) are "
    "counted",
    "        apart: kernel_meta_gets, kernel_meta_puts.  Invalidations are "
    "neither.",
    "    model_gets, model_puts",
    "        the same of the model: read misses, pages read ahead and writes",
    "        that missed; its evictions.",
    "    evicted_overlap",
    "        the share of the kernel's (pool 0) evictions that the model also",
    "        makes, at about the same point: the kernel's evictions are taken "
    "in",
    "        order, and eviction i matches the model's eviction j of the same "
    "page",
    "        (inode, index), not matched before, with |i - j| <= W, the "
    "nearest",
    "        one (the earlier on a tie); i and j count each side's evictions",
    "        from 0.  The window W is the median resident count, the cache's "
    "size:",
    "        a page evicted a whole cache turnover apart is another event.",
    "    curve",
    "        per capacity, kernel_zc_hits: the zcache hits of the kernel "
    "stream's",
    "        pool 0 played into a zcache of that capacity (the other pools "
    "are",
    "        left out, as the model cannot see them; zcache-replay plays "
    "them all);",
    "        model_zc_hits: those of the access stream replayed",
    "        through the model into such a zcache; also the gets "
    "(kernel_zc_gets,",
    "        model_zc_gets).  Real compression; same configuration both sides.",
    "    Differences are (model - kernel) / kernel.",
    "",
    "OUTPUT",
    "    text: a table of the measures, one row per model and size mode, and a",
    "    table of zcache hits, one row per capacity.",
    "    json: an array, one object per model and size mode: model, size_mode,",
    "    capacity_pages (null when it follows the kernel), window, "
    "kernel_gets,",
    "    model_gets, kernel_puts, model_puts, evicted_overlap (null without",
    "    kernel evictions), evicted_matched, kernel_meta_gets, "
    "kernel_meta_puts,",
    "    model_readahead, model_synthetic (puts of pages the content source",
    "    lacks, with synthetic bytes), read_ahead_kb, resident_samples, and",
    "    curve: an array of",
    "    {capacity_bytes, kernel_zc_hits, model_zc_hits, kernel_zc_gets,",
    "    model_zc_gets}.",
    "",
    "MODELS",
};

static const char *const help_tail[] = {
    "",
    "EXIT STATUS",
    "    0 done; 2 bad arguments or bad input (a stream missing or damaged,",
    "    another recording's pack, an unknown model); 1 another failure (out",
    "    of memory, an output that cannot be written)",
    "",
    "EXAMPLES",
    "    " NAME " traces/grep-src",
    "    " NAME
    " --model lru --capacity 1M,4M --output json traces/build-c.zca",
};

static void usage(FILE *f)
{
    for (size_t i = 0; i < sizeof(help_head) / sizeof(*help_head); i++)
        fprintf(f, "%s\n", help_head[i]);
    for (size_t i = 0; zc_page_cache_model_name(i); i++)
        fprintf(f, "    %-10s %s\n", zc_page_cache_model_name(i),
                zc_page_cache_model_doc(i));
    for (size_t i = 0; i < sizeof(help_tail) / sizeof(*help_tail); i++)
        fprintf(f, "%s\n", help_tail[i]);
}

static char *model_list; /* --model's list, split in place */

static void parse_models(const char *list)
{
    char *save = NULL;

    free(model_list);
    if (!(model_list = strdup(list)))
        die_usage("%s", "out of memory");
    o.nmodels = 0;
    for (char *m = strtok_r(model_list, ",", &save); m;
         m = strtok_r(NULL, ",", &save)) {
        bool dup = false;
        if (!trace_model_known(m)) {
            char names[1024];
            size_t n = 0;
            for (size_t i = 0; zc_page_cache_model_name(i) && n < 900; i++)
                n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s",
                                      i ? ", " : "",
                                      zc_page_cache_model_name(i));
            fprintf(stderr,
                    NAME ": --model: unknown model '%s'; registered "
                         "models: %s\n",
                    m, n ? names : "(none)");
            exit(2);
        }
        for (size_t i = 0; i < o.nmodels; i++)
            dup |= strcmp(o.models[i], m) == 0; /* named twice: one row */
        if (!dup && o.nmodels == MAX_MODELS)
            die_usage("--model %s: too many models", list);
        if (!dup)
            o.models[o.nmodels++] = m;
    }
    if (!o.nmodels)
        die_usage("--model '%s': name a model", list);
}

static void parse_size_modes(const char *list)
{
    memset(o.size_on, 0, sizeof(o.size_on));
    for (const char *p = list;;) {
        size_t len = strcspn(p, ","), k;
        for (k = 0; k < NSIZES; k++)
            if (strlen(size_name[k]) == len && !strncmp(p, size_name[k], len))
                break;
        if (k == NSIZES)
            die_usage("--size-mode %s: want kernel, median, or "
                      "kernel,median",
                      list);
        o.size_on[k] = true;
        if (!p[len])
            break;
        p += len + 1;
    }
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

/* Capacities in bytes (zc_parse_size(): K/M/G), sorted, distinct. */
static void parse_caps(const char *list)
{
    char item[64];
    size_t n = 0;

    for (const char *p = list;;) {
        size_t len = strcspn(p, ",");
        uint64_t v;
        if (len >= sizeof(item))
            die_usage("--capacity %s: want sizes, e.g. 256K,1M,4M", list);
        memcpy(item, p, len);
        item[len] = '\0';
        if (zc_parse_size(item, &v) < 0 || v == 0 || v > ZC_CAPACITY_MAX)
            die_usage("--capacity %s: want sizes above 0 and at most 15G, "
                      "e.g. 256K,1M,4M",
                      list);
        if (n == MAX_CAPS)
            die_usage("--capacity %s: more than 64 capacities", list);
        o.caps[n++] = v;
        if (!p[len])
            break;
        p += len + 1;
    }
    qsort(o.caps, n, sizeof(o.caps[0]), u64_cmp);
    o.ncaps = 0;
    for (size_t i = 0; i < n; i++)
        if (!o.ncaps || o.caps[o.ncaps - 1] != o.caps[i])
            o.caps[o.ncaps++] = o.caps[i];
}

/* A decimal number, all digits, no overflow: 0; else -1. */
static int parse_u64(const char *s, uint64_t *v)
{
    char *end;

    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    *v = strtoull(s, &end, 10);
    return *end || errno ? -1 : 0;
}

/* "--key value" or "--key=value": the option's name into key, its value
 * into *v (the next argument, consumed). */
static const char *option_value(int argc, char **argv, int *i, char *key,
                                size_t klen)
{
    const char *a = argv[*i], *eq = strchr(a, '=');
    size_t n = eq ? (size_t)(eq - a) : strlen(a);

    if (n >= klen)
        die_usage("unknown option '%s'", a);
    memcpy(key, a, n);
    key[n] = '\0';
    if (eq)
        return eq + 1;
    if (*i + 1 >= argc)
        die_usage("option %s needs a value", a);
    return argv[++*i];
}

static void parse_option(const char *a, const char *v)
{
    if (!strcmp(a, "--model"))
        parse_models(v);
    else if (!strcmp(a, "--size-mode"))
        parse_size_modes(v);
    else if (!strcmp(a, "--capacity"))
        parse_caps(v);
    else if (!strcmp(a, "--zcache"))
        o.zspec = v;
    else if (!strcmp(a, "--content"))
        o.content = v;
    else if (!strcmp(a, "--read-ahead-kb")) {
        if (trace_parse_read_ahead(v, &o.ra_kb))
            die_usage("--read-ahead-kb %s: want KiB from 0 to 4194304", v);
        o.ra_set = true;
    } else if (!strcmp(a, "--memo")) {
        if (zc_parse_size(v, &o.memo_bytes) < 0)
            die_usage("--memo %s: want bytes with K/M/G, e.g. 512M", v);
    } else if (!strcmp(a, "--output")) {
        if (strcmp(v, "text") && strcmp(v, "json"))
            die_usage("--output %s: want text or json", v);
        o.output = v;
    } else if (!strcmp(a, "-o")) {
        if (!*v)
            die_usage("%s", "-o: want a file name (or - for standard output)");
        if (outfile_dir_error(v))
            die_usage("-o %s: %s", v, outfile_dir_error(v));
        o.out_path = v;
    }
    else if (!strcmp(a, "--plot")) {
        if (plot_prefix_error(v))
            die_usage("--plot: %s", plot_prefix_error(v));
        o.plot = v;
    } else
        die_usage("unknown option '%s'", a);
}

static void parse_args(int argc, char **argv)
{
    bool no_curve = false;
    char key[32];
    zc_config cfg = zc_config_default();
    char err[512];

    o.size_on[SIZE_KERNEL] = o.size_on[SIZE_MEDIAN] = true;
    parse_caps("256K,1M,4M,16M,64M");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(outfile_stdout_close(NAME));
        }
        if (!strcmp(a, "--version")) {
            printf(NAME " (libzcache %s)\n", zc_version());
            exit(outfile_stdout_close(NAME));
        }
        if (!strcmp(a, "--no-curve")) {
            no_curve = true;
            continue;
        }
        if (!strcmp(a, "--progress") || !strcmp(a, "--no-progress")) {
            o.progress = a[2] == 'p';
            continue;
        }
        if (a[0] != '-' || !a[1]) {
            if (o.recording)
                die_usage("one recording at a time (%s is the second)", a);
            o.recording = a;
            continue;
        }
        parse_option(key, option_value(argc, argv, &i, key, sizeof(key)));
    }
    if (!o.recording)
        die_usage("%s", "no recording given (e.g. traces/grep-src)");
    if (!o.nmodels)
        for (size_t i = 0; zc_page_cache_model_name(i) && i < MAX_MODELS; i++)
            o.models[o.nmodels++] = zc_page_cache_model_name(i);
    if (no_curve)
        o.ncaps = 0;
    if (no_curve && o.plot)
        die_usage("%s", "--plot draws the curves: not with --no-curve");
    if (zc_config_parse_error(&cfg, o.zspec, err, sizeof(err)))
        die_usage("--zcache: %s", err);
}

/* ---- the recording's files ---------------------------------------------- */

static char *zca_path, *kernel_path;

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);

    return n > t && strcmp(s + n - t, tail) == 0;
}

/* NAME.zca and NAME.kernel.zct of the recording NAME, NAME.zca or
 * NAME.kernel.zct; each must be a regular file (read by name twice: the
 * format sniffed, then read). */
static void recording_paths(void)
{
    const char *r = o.recording;
    size_t base = strlen(r);
    struct stat st;

    if (ends_with(r, ".zca"))
        base -= 4;
    else if (ends_with(r, ".kernel.zct"))
        base -= 11;
    zca_path = malloc(base + 5);
    kernel_path = malloc(base + 12);
    if (!zca_path || !kernel_path)
        die(1, "out of memory");
    snprintf(zca_path, base + 5, "%.*s.zca", (int)base, r);
    snprintf(kernel_path, base + 12, "%.*s.kernel.zct", (int)base, r);
    for (int k = 0; k < 2; k++) {
        const char *p = k ? kernel_path : zca_path;
        if (stat(p, &st) != 0)
            die(2,
                "%s: %s (a recording NAME is NAME.zca and "
                "NAME.kernel.zct)",
                p, strerror(errno));
        if (!S_ISREG(st.st_mode))
            die(2, "%s: not a regular file", p);
    }
}

/* -o FILE: opened before the work (a path that cannot be written fails
 * at once), never one of the inputs. */
static void open_output(void)
{
    out = stdout;
    if (o.out_path && !strcmp(o.out_path, "-"))
        o.out_path = NULL; /* standard output */
    if (!o.out_path)
        return;
    /* (open_access() refused an -o that is an input) */
    out = outfile_open(&out_file, o.out_path);
    if (!out)
        die(1, "cannot write %s: %s", o.out_path, strerror(errno));
}

/* ---- the access stream, in memory --------------------------------------- */

struct access {
    zc_request req;
    uint64_t resident; /* req.dev's resident count as last sampled at or
                          before req, or NO_SAMPLE */
};

/* The last sample seen per file system, to count each sample once. */
struct dev_sample {
    uint32_t dev;
    uint64_t pages;
};

static struct {
    struct access *a;
    size_t n, cap;
    uint64_t accesses; /* pages */
    uint64_t *samples; /* each sample once, in order */
    size_t nsamples, samples_cap;
    struct dev_sample *devs; /* per file system: its last sample */
    size_t ndevs;
    uint64_t first, median; /* of the samples */
    size_t page_size;
    bool ra_known; /* the models' readahead limit, for the report */
    uint64_t read_ahead_kb;
    const char *ra_from; /* where it comes from */
    char spec[4096];     /* the content source */
    const char *pack_id; /* the header's, or NULL */
    zc_content *src;
    zc_trace *t;
} as;

static void *grow(void *p, size_t *cap, size_t size)
{
    size_t n = *cap ? *cap * 2 : 4096;
    void *q = n > SIZE_MAX / size ? NULL : realloc(p, n * size);

    if (!q)
        die(1, "out of memory (%s)", zca_path);
    *cap = n;
    return q;
}

/* A header field that must be a decimal number. */
static bool meta_u64(const char *key, uint64_t *v)
{
    const char *s = zc_trace_meta(as.t, key);

    if (!s)
        return false;
    if (parse_u64(s, v))
        die(2, "%s: header field %s=%.32s: not a number", zca_path, key, s);
    return true;
}

/* Open the stream, its header read: page size, readahead, contents. */
static void open_access(void)
{
    const char *paths[1] = {zca_path};
    zc_trace_options topt = {.format = NULL};
    char err[512];
    uint64_t v;
    int rc;

    rc = zc_trace_open(paths, 1, &topt, &as.t, err, sizeof(err));
    if (rc)
        die(rc == -ZC_ENOMEM ? 1 : 2, "%s", err);
    if (strncmp(zc_trace_format(as.t), "access", 6) != 0)
        die(2, "%s: not an access stream (read as %s)", zca_path,
            zc_trace_format(as.t));
    as.page_size = 4096;
    if (meta_u64("page_size", &v))
        as.page_size = (size_t)v;
    /* What trace_model_setup() will give the models, for the report
     * (it says what is wrong with a bad field). */
    as.ra_from = "the library's default";
    if (o.ra_set) {
        as.ra_known = true;
        as.read_ahead_kb = o.ra_kb;
        as.ra_from = "--read-ahead-kb";
    } else if (!trace_parse_read_ahead(zc_trace_meta(as.t, "read_ahead_kb"),
                                       &as.read_ahead_kb)) {
        as.ra_known = true;
        as.ra_from = "the stream's header";
    }
    as.pack_id = zc_trace_meta(as.t, "pack_id");
    if (o.content)
        snprintf(as.spec, sizeof(as.spec), "%s", o.content);
    else if ((rc = trace_content_default(as.t, zca_path, as.spec,
                                         sizeof(as.spec))) < 0)
        die(2, "%s: the pack's path is too long", zca_path);
    else if (rc == 0)
        snprintf(as.spec, sizeof(as.spec), "synth");
    rc = zc_content_open(as.spec, as.page_size, &as.src, err, sizeof(err));
    if (rc)
        die(rc == -ZC_ENOMEM ? 1 : 2, "%s%s", o.content ? "--content: " : "",
            err);
    /* never another recording's pack */
    if (zc_content_check_trace(as.src, as.t, err, sizeof(err)))
        die(2, "%s: %s", zca_path, err);
    {
        /* no output over an input: the streams, the content's file */
        static const char *const plot_files[] = {".dat", ".gp", ".png",
                                                 ".svg"};
        const char *in[2] = {zca_path, kernel_path};
        if (o.out_path && strcmp(o.out_path, "-"))
            trace_refuse_clash("-o", o.out_path, NULL, 0, in, 2, as.spec);
        trace_refuse_clash("--plot", o.plot, plot_files, 4, in, 2, as.spec);
    }
}

/* Count a sample of req's file system when its value is new. */
static void note_sample(uint32_t dev, uint64_t pages)
{
    size_t i;

    for (i = 0; i < as.ndevs && as.devs[i].dev != dev; i++)
        ;
    if (i < as.ndevs && as.devs[i].pages == pages)
        return;
    if (i == as.ndevs) {
        struct dev_sample *d =
            realloc(as.devs, (as.ndevs + 1) * sizeof(*as.devs));
        if (!d)
            die(1, "out of memory (%s)", zca_path);
        as.devs = d;
        as.ndevs++;
    }
    as.devs[i] = (struct dev_sample){dev, pages};
    if (as.nsamples == as.samples_cap)
        as.samples = grow(as.samples, &as.samples_cap, sizeof(*as.samples));
    as.samples[as.nsamples++] = pages;
}

/* Every request into memory, with the sample it saw; the samples'
 * first value and median. */
static void load_access(void)
{
    zc_request req;
    char err[512];
    bool checked = false;
    int rc;

    while ((rc = zc_trace_next(as.t, &req)) == 1) {
        struct access *x;
        uint64_t pages;
        if (req.ino && !checked) {
            checked = true;
            if (trace_content_check(as.src, as.spec, &req, as.page_size, err,
                                    sizeof(err)))
                die(2, "%s", err);
        }
        if (as.n == as.cap)
            as.a = grow(as.a, &as.cap, sizeof(*as.a));
        x = &as.a[as.n++];
        x->req = req;
        x->resident = NO_SAMPLE;
        if (zc_trace_resident(as.t, req.dev, &pages) == 1) {
            if (pages > PAGES_MAX)
                die(2,
                    "%s: request %zu: a resident count of %" PRIu64
                    " pages: more than a model holds",
                    zca_path, as.n, pages);
            x->resident = pages;
            note_sample(req.dev, pages);
        }
        as.accesses += (req.offset + req.length - 1) / as.page_size -
                       req.offset / as.page_size + 1;
    }
    if (rc < 0)
        die(rc == -ZC_ENOMEM ? 1 : 2, "%s", zc_trace_error(as.t));
    if (!as.nsamples)
        die(2,
            "%s: no resident samples: the model's page cache cannot be "
            "sized as the kernel's (an access stream from zcache-record "
            "has them)",
            zca_path);
    as.first = as.samples[0];
    qsort(as.samples, as.nsamples, sizeof(*as.samples), u64_cmp);
    as.median = as.samples[as.nsamples / 2];
}

/* ---- zcaches ------------------------------------------------------------ */

static zc_memo *memo; /* shared by every zcache: each content once */

static zc_cache *make_cache(uint64_t capacity)
{
    zc_config cfg = zc_config_default();
    zc_cache *zc;
    char err[512];
    int rc;

    cfg.page_size = as.page_size;
    if (zc_config_parse_error(&cfg, o.zspec, err, sizeof(err)))
        die(2, "--zcache: %s", err);
    if (cfg.page_size != as.page_size)
        die(2,
            "--zcache page_size=%zu differs from the streams' page size "
            "%zu",
            cfg.page_size, as.page_size);
    cfg.capacity_bytes = (size_t)capacity;
    cfg.memo = memo;
    rc = zc_cache_create(&cfg, &zc);
    if (rc == -ZC_ENOMEM)
        die(1, "a zcache of %" PRIu64 " bytes: does not fit in memory",
            capacity);
    if (rc)
        die(2, "--zcache %s: %s", o.zspec, zc_strerror(rc));
    return zc;
}

/* ---- evictions ---------------------------------------------------------- */

struct evict {
    uint64_t ino, index;
};

struct evicts {
    struct evict *e;
    size_t n, cap;
};

static int evicts_push(struct evicts *v, const zc_op *op)
{
    struct evict *e;

    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 4096;
        e = realloc(v->e, cap * sizeof(*e));
        if (!e)
            return -ZC_ENOMEM;
        v->e = e;
        v->cap = cap;
    }
    e = &v->e[v->n++];
    /* the inode, as zc_filekey_from_ino() puts it in the key */
    memcpy(&e->ino, op->key.fh, sizeof(e->ino));
    e->index = op->index;
    return 0;
}

/* The model's op stream as its replay makes it (zc_replay_sink()): its
 * gets counted, its evictions in order.  Counted here, not from the
 * replay's counters, so that a replay without a zcache (--no-curve)
 * counts its gets too (the player counts them as disk reads then). */
static struct {
    uint64_t gets;    /* pages brought in (brings_in()) */
    uint64_t zc_gets; /* of them, the zcache gets (write misses are not) */
    struct evicts ev;
} model_ops;

/* Whether op brings a page into the page cache: a get (a read miss or
 * readahead), or a write that missed.  The kernel stream counts a page a
 * write brought in as a get; the model's stream says write_miss. */
static bool brings_in(const zc_op *op)
{
    return op->kind == ZC_OP_GET || (op->kind == ZC_OP_INVALIDATE_PAGE &&
                                     (op->flags & ZC_OP_WRITE_MISS));
}

static int collect_op(void *ctx, const zc_op *op)
{
    (void)ctx;
    if (brings_in(op))
        model_ops.gets++;
    if (op->kind == ZC_OP_GET)
        model_ops.zc_gets++;
    return op->kind == ZC_OP_PUT ? evicts_push(&model_ops.ev, op) : 0;
}

/* A model eviction, sorted by page and then order: the page's evictions
 * are a run, in order. */
struct slot {
    uint64_t ino, index, pos;
};

static int slot_cmp(const void *a, const void *b)
{
    const struct slot *x = a, *y = b;

    if (x->ino != y->ino)
        return x->ino < y->ino ? -1 : 1;
    if (x->index != y->index)
        return x->index < y->index ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* The first slot not below key (ino, index, pos). */
static size_t lower_bound(const struct slot *s, size_t n, struct slot key)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (slot_cmp(&s[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* How many of kernel's evictions match one of model's (the header's
 * rule): each kernel eviction i in order takes the nearest unmatched
 * model eviction of its page within [i - w, i + w], the earlier on a
 * tie. */
static uint64_t match_evictions(const struct evicts *kernel,
                                const struct evicts *model, uint64_t w)
{
    struct slot *s = malloc((model->n ? model->n : 1) * sizeof(*s));
    uint8_t *used = calloc(model->n ? model->n : 1, 1);
    uint64_t matched = 0;

    if (!s || !used)
        die(1, "out of memory (matching evictions)");
    for (size_t j = 0; j < model->n; j++)
        s[j] = (struct slot){model->e[j].ino, model->e[j].index, j};
    qsort(s, model->n, sizeof(*s), slot_cmp);
    for (uint64_t i = 0; i < kernel->n; i++) {
        struct slot key = {kernel->e[i].ino, kernel->e[i].index,
                           i > w ? i - w : 0};
        uint64_t hi = i > UINT64_MAX - w ? UINT64_MAX : i + w;
        size_t best = SIZE_MAX;
        uint64_t bestd = 0;
        for (size_t j = lower_bound(s, model->n, key);
             j < model->n && s[j].ino == key.ino && s[j].index == key.index &&
             s[j].pos <= hi;
             j++) {
            uint64_t d = s[j].pos > i ? s[j].pos - i : i - s[j].pos;
            if (used[j])
                continue;
            if (best == SIZE_MAX || d < bestd) {
                best = j;
                bestd = d;
            }
            if (s[j].pos >= i)
                break; /* the rest are farther */
        }
        if (best != SIZE_MAX) {
            used[best] = 1;
            matched++;
        }
    }
    free(s);
    free(used);
    return matched;
}

/* ---- the kernel stream -------------------------------------------------- */

static struct {
    uint64_t gets, puts;           /* pool 0: the file system */
    uint64_t meta_gets, meta_puts; /* the other pools */
    struct evicts ev;              /* pool 0's puts, in order */
    uint64_t zc_hits[MAX_CAPS], zc_gets[MAX_CAPS];
    zc_cache *zc[MAX_CAPS];
    zc_player *player[MAX_CAPS];
    zc_ops_reader *in;
} ks;

/* The two streams of one recording name one pack. */
static void check_same_recording(void)
{
    const char *kid = zc_ops_meta(ks.in, "pack_id");
    uint64_t a, b;
    char *end1, *end2;

    if (!kid || !as.pack_id)
        return;
    a = strtoull(kid, &end1, 16);
    b = strtoull(as.pack_id, &end2, 16);
    if (*end1 || *end2 || a != b)
        die(2,
            "%s: pack_id=%.32s, but %s has pack_id=%.32s: the streams "
            "are of different recordings",
            kernel_path, kid, zca_path, as.pack_id);
}

static void count_kernel_op(const zc_op *op)
{
    if (brings_in(op)) {
        if (op->pool == 0)
            ks.gets++;
        else
            ks.meta_gets++;
    } else if (op->kind == ZC_OP_PUT) {
        if (op->pool != 0)
            ks.meta_puts++;
        else if (ks.puts++, evicts_push(&ks.ev, op))
            die(1, "out of memory (%s)", kernel_path);
    }
}

/* One pass: the counts, the evictions, and every capacity's zcache. */
static void play_kernel(void)
{
    char err[512];
    zc_op op;
    int rc;

    rc = zc_ops_open(kernel_path, &ks.in, err, sizeof(err));
    if (rc)
        die(rc == -ZC_ENOMEM ? 1 : 2, "%s", err);
    if (zc_ops_page_size(ks.in) != as.page_size)
        die(2, "%s: pages of %zu bytes, but %s has pages of %zu", kernel_path,
            zc_ops_page_size(ks.in), zca_path, as.page_size);
    check_same_recording();
    for (size_t c = 0; c < o.ncaps; c++) {
        ks.zc[c] = make_cache(o.caps[c]);
        if (zc_player_create(ks.zc[c], &ks.player[c]))
            die(1, "out of memory");
    }
    if (o.progress > 0)
        fprintf(stderr, NAME ": the kernel stream, %zu zcaches\r", o.ncaps);
    for (uint64_t n = 1; (rc = zc_ops_next(ks.in, &op)) == 1; n++) {
        count_kernel_op(&op);
        if (op.pool != 0 && op.kind != ZC_OP_PC_HITS)
            continue; /* not the file system's: the model cannot see it */
        for (size_t c = 0; c < o.ncaps; c++)
            if ((rc = zc_player_op(ks.player[c], &op)))
                die(rc == -ZC_EINVAL ? 2 : 1, "%s: op %" PRIu64 ": %s",
                    kernel_path, n, zc_strerror(rc));
    }
    if (rc < 0)
        die(rc == -ZC_ENOMEM ? 1 : 2, "%s", zc_ops_error(ks.in));
    for (size_t c = 0; c < o.ncaps; c++) {
        zc_replay_stats st;
        zc_player_stats_get(ks.player[c], &st);
        ks.zc_hits[c] = st.zc_hits;
        ks.zc_gets[c] = st.zc_gets;
        zc_player_destroy(ks.player[c]);
        zc_cache_destroy(ks.zc[c]);
        ks.player[c] = NULL;
        ks.zc[c] = NULL;
    }
    zc_ops_close(ks.in);
    ks.in = NULL;
}

/* ---- the models --------------------------------------------------------- */

struct result {
    const char *model;
    int mode;             /* SIZE_* */
    uint64_t start_pages; /* the capacity at the start */
    uint64_t gets, puts;  /* zc_gets, pc_evictions */
    uint64_t readahead;   /* pages read ahead */
    uint64_t synthetic;   /* most puts with synthetic bytes, of a replay */
    uint64_t matched;     /* kernel evictions matched */
    bool drift;           /* a later replay's gets or puts differed */
    uint64_t zc_hits[MAX_CAPS], zc_gets[MAX_CAPS];
};

static struct result results[MAX_MODELS * NSIZES];
static size_t nresults;

static struct {
    zc_replay *r;
    zc_cache *zc;
} run;

/* A replay of the access stream's request i failed with rc. */
static void replay_failed(size_t i, int rc, const char *doing)
{
    char err[1024];

    if (rc == -ZC_ENOMEM)
        die(1, "out of memory");
    if (!doing) {
        trace_content_explain(as.src, as.spec, &as.a[i].req, as.page_size, rc,
                              err, sizeof(err));
        die(trace_content_status(rc), "%s: request %zu: %s", zca_path, i + 1,
            err);
    }
    die(trace_content_status(rc), "%s: request %zu: %s: %s", zca_path, i + 1,
        doing, zc_strerror(rc));
}

/* The replay of res's model and size mode, in front of a zcache of
 * capacity caps[c] (none for c < 0); its ops into model_ops when
 * collect. */
static void make_replay(const struct result *res, long c, bool collect)
{
    char err[512];
    int rc;

    run.zc = c >= 0 ? make_cache(o.caps[c]) : NULL;
    rc = zc_replay_create(res->start_pages, as.page_size, run.zc, as.src,
                          &run.r);
    if (rc == -ZC_ENOMEM)
        die(1, "a page cache of %" PRIu64 " pages: does not fit in memory",
            res->start_pages);
    if (rc)
        die(1, "zc_replay_create: %s", zc_strerror(rc));
    rc = trace_model_setup(run.r, as.t, zca_path, res->model, o.ra_set, o.ra_kb,
                           err, sizeof(err));
    if (rc == -1)
        die(2, "%s", err);
    if (rc)
        die(1, "model %s: %s", res->model, zc_strerror(rc));
    if (collect && (rc = zc_replay_sink(run.r, collect_op, NULL)))
        die(1, "zc_replay_sink: %s", zc_strerror(rc));
}

static void replay_once(const struct result *res, long c, bool collect,
                        zc_replay_stats *st)
{
    uint64_t cap = res->start_pages;
    int rc;

    make_replay(res, c, collect);
    for (size_t i = 0; i < as.n; i++) {
        uint64_t want = as.a[i].resident;
        if (res->mode == SIZE_KERNEL && want != NO_SAMPLE && want != cap) {
            if ((rc = zc_replay_set_page_cache(run.r, want)))
                replay_failed(i, rc, "resizing the page cache");
            cap = want;
        }
        if ((rc = zc_replay_request(run.r, &as.a[i].req)))
            replay_failed(i, rc, NULL);
    }
    zc_replay_stats_get(run.r, st);
    zc_replay_destroy(run.r);
    zc_cache_destroy(run.zc);
    run.r = NULL;
    run.zc = NULL;
}

/* Every replay of one model and size mode. */
static void run_model(struct result *res)
{
    size_t n = o.ncaps ? o.ncaps : 1;

    model_ops.gets = 0;
    model_ops.zc_gets = 0;
    model_ops.ev.n = 0;
    for (size_t c = 0; c < n; c++) {
        zc_replay_stats st;
        if (o.progress > 0)
            fprintf(stderr, NAME ": %s, %s size: replay %zu of %zu   \r",
                    res->model, size_name[res->mode], c + 1, n);
        replay_once(res, o.ncaps ? (long)c : -1, c == 0, &st);
        if (c == 0) {
            res->gets = model_ops.gets;
            res->puts = model_ops.ev.n;
            res->readahead = st.readahead;
        }
        if (!o.ncaps)
            continue;
        /* the same op stream, whatever the zcache behind it */
        if (st.zc_gets != model_ops.zc_gets || st.pc_evictions != res->puts)
            res->drift = true;
        res->zc_hits[c] = st.zc_hits;
        res->zc_gets[c] = st.zc_gets;
        if (st.synthetic > res->synthetic)
            res->synthetic = st.synthetic;
    }
    res->matched = match_evictions(&ks.ev, &model_ops.ev, as.median);
    if (res->drift)
        fprintf(stderr,
                NAME ": %s, %s size: the model's zcache gets or evictions "
                     "differ from its op stream's, or change with the zcache "
                     "behind it; the op stream's are reported\n",
                res->model, size_name[res->mode]);
    if (res->synthetic)
        fprintf(stderr,
                NAME ": %s, %s size: %" PRIu64 " evicted pages are not in "
                     "the content source (read ahead further than the "
                     "recording read): put with synthetic bytes\n",
                res->model, size_name[res->mode], res->synthetic);
}

static void run_models(void)
{
    for (size_t m = 0; m < o.nmodels; m++)
        for (int k = 0; k < NSIZES; k++) {
            struct result *res = &results[nresults];
            if (!o.size_on[k])
                continue;
            nresults++;
            res->model = o.models[m];
            res->mode = k;
            res->start_pages = k == SIZE_KERNEL ? as.first : as.median;
            run_model(res);
        }
    if (o.progress > 0)
        fprintf(stderr, "%70s\r", "");
}

/* ---- output ------------------------------------------------------------- */

/* A size as the options spell it: 256K, 1M, 3G, or bytes. */
static const char *size_str(uint64_t b, char *buf, size_t len)
{
    static const char units[] = "GMK";

    for (int u = 0; u < 3; u++) {
        uint64_t unit = 1ull << (10 * (3 - u));
        if (b >= unit && b % unit == 0) {
            snprintf(buf, len, "%" PRIu64 "%c", b / unit, units[u]);
            return buf;
        }
    }
    snprintf(buf, len, "%" PRIu64, b);
    return buf;
}

/* (model - kernel) / kernel in %, or what stands for it. */
static const char *diff_str(uint64_t model, uint64_t kernel, char *buf,
                            size_t len)
{
    if (!kernel)
        snprintf(buf, len, "%s", model ? "n/a" : "+0.0%");
    else
        snprintf(buf, len, "%+.1f%%",
                 100.0 * ((double)model - (double)kernel) / (double)kernel);
    return buf;
}

static void json_output(void)
{
    fputc('[', out);
    for (size_t i = 0; i < nresults; i++) {
        const struct result *r = &results[i];
        fprintf(out, "%s\n{\"recording\":", i ? "," : "");
        out_json_string(out, zca_path);
        fprintf(out, ",\"content\":");
        out_json_string(out, as.spec);
        fprintf(out, ",\"zcache_spec\":");
        out_json_string(out, o.zspec ? o.zspec : "");
        fprintf(out, ",\"model\":\"%s\",\"size_mode\":\"%s\"", r->model,
                size_name[r->mode]);
        if (r->mode == SIZE_MEDIAN)
            fprintf(out, ",\"capacity_pages\":%" PRIu64, r->start_pages);
        else
            fprintf(out, ",\"capacity_pages\":null");
        fprintf(out,
                ",\"window\":%" PRIu64 ",\"kernel_gets\":%" PRIu64
                ",\"model_gets\":%" PRIu64 ",\"kernel_puts\":%" PRIu64
                ",\"model_puts\":%" PRIu64,
                as.median, ks.gets, r->gets, ks.puts, r->puts);
        if (ks.ev.n)
            fprintf(out, ",\"evicted_overlap\":%.6f",
                    (double)r->matched / (double)ks.ev.n);
        else
            fprintf(out, ",\"evicted_overlap\":null");
        fprintf(out,
                ",\"evicted_matched\":%" PRIu64 ",\"kernel_meta_gets\":%" PRIu64
                ",\"kernel_meta_puts\":%" PRIu64 ",\"model_readahead\":%" PRIu64
                ",\"model_synthetic\":%" PRIu64 ",\"read_ahead_kb\":",
                r->matched, ks.meta_gets, ks.meta_puts, r->readahead,
                r->synthetic);
        if (as.ra_known)
            fprintf(out, "%" PRIu64, as.read_ahead_kb);
        else
            fprintf(out, "null");
        fprintf(out, ",\"resident_samples\":%zu,\"curve\":[", as.nsamples);
        for (size_t c = 0; c < o.ncaps; c++)
            fprintf(out,
                    "%s{\"capacity_bytes\":%" PRIu64
                    ",\"kernel_zc_hits\":%" PRIu64 ",\"model_zc_hits\":%" PRIu64
                    ",\"kernel_zc_gets\":%" PRIu64 ",\"model_zc_gets\":%" PRIu64
                    "}",
                    c ? "," : "", o.caps[c], ks.zc_hits[c], r->zc_hits[c],
                    ks.zc_gets[c], r->zc_gets[c]);
        fprintf(out, "]}");
    }
    fprintf(out, "\n]\n");
}

static void text_header(void)
{
    fprintf(out, "recording:   %s\n", o.recording);
    fprintf(out,
            "  access stream  %s: %zu requests, %" PRIu64 " page accesses\n",
            zca_path, as.n, as.accesses);
    fprintf(out,
            "  kernel stream  %s: pool 0 (the file system) %" PRIu64
            " gets, %" PRIu64 " puts\n",
            kernel_path, ks.gets, ks.puts);
    fprintf(out,
            "  resident       %zu samples: first %" PRIu64 ", median %" PRIu64
            " pages\n",
            as.nsamples, as.first, as.median);
    fprintf(out, "  contents       %s; zcache %s\n", as.spec,
            *o.zspec ? o.zspec : "(the library's defaults)");
    if (as.ra_known)
        fprintf(out, "  read_ahead_kb  %" PRIu64 " (%s)\n", as.read_ahead_kb,
                as.ra_from);
    else
        fprintf(out, "  read_ahead_kb  %s\n", as.ra_from);
}

static void text_measures(void)
{
    char b[4][32];

    fprintf(out, "\n%-8s %-6s %8s %11s %11s %8s %11s %11s %8s %8s\n", "model",
            "size", "pages", "kernel_gets", "model_gets", "diff", "kernel_puts",
            "model_puts", "diff", "overlap");
    for (size_t i = 0; i < nresults; i++) {
        const struct result *r = &results[i];
        if (r->mode == SIZE_MEDIAN)
            snprintf(b[0], sizeof(b[0]), "%" PRIu64, r->start_pages);
        else
            snprintf(b[0], sizeof(b[0]), "kernel");
        if (ks.ev.n)
            snprintf(b[3], sizeof(b[3]), "%.1f%%",
                     100.0 * (double)r->matched / (double)ks.ev.n);
        else
            snprintf(b[3], sizeof(b[3]), "n/a");
        fprintf(out,
                "%-8s %-6s %8s %11" PRIu64 " %11" PRIu64 " %8s %11" PRIu64
                " %11" PRIu64 " %8s %8s\n",
                r->model, size_name[r->mode], b[0], ks.gets, r->gets,
                diff_str(r->gets, ks.gets, b[1], sizeof(b[1])), ks.puts,
                r->puts, diff_str(r->puts, ks.puts, b[2], sizeof(b[2])), b[3]);
    }
    fprintf(out,
            "\npages: the model's page-cache capacity (kernel: it follows "
            "the kernel's\nresident count).  overlap: the share of the "
            "kernel's %zu evictions that\nthe model also makes, the same "
            "page within W = %" PRIu64
            " evictions of the same\nplace in the eviction order.  Not "
            "counted above: the kernel's other pools\n(the block device's "
            "page cache: ext4 metadata, which the access stream\ncannot "
            "see): %" PRIu64 " gets, %" PRIu64 " puts.\n",
            ks.ev.n, as.median, ks.meta_gets, ks.meta_puts);
}

/* One row per capacity: the kernel's zcache hits, then each model's and
 * its difference.  (The gets do not change with the capacity: they are
 * the first table's; the JSON has them per point.) */
static void text_curve(void)
{
    char b[2][48], col[64];

    if (!o.ncaps)
        return;
    fprintf(out,
            "\nzcache hits behind the kernel's page cache and behind "
            "each model:\n%-9s %10s",
            "capacity", "kernel");
    for (size_t i = 0; i < nresults; i++) {
        snprintf(col, sizeof(col), "%s/%s", results[i].model,
                 size_name[results[i].mode]);
        fprintf(out, " %18s", col);
    }
    fputc('\n', out);
    for (size_t c = 0; c < o.ncaps; c++) {
        fprintf(out, "%-9s %10" PRIu64, size_str(o.caps[c], b[0], sizeof(b[0])),
                ks.zc_hits[c]);
        for (size_t i = 0; i < nresults; i++) {
            const struct result *r = &results[i];
            snprintf(
                col, sizeof(col), "%" PRIu64 " %s", r->zc_hits[c],
                diff_str(r->zc_hits[c], ks.zc_hits[c], b[1], sizeof(b[1])));
            fprintf(out, " %18s", col);
        }
        fputc('\n', out);
    }
}

/* ---- plots -------------------------------------------------------------- */

/* A series' colour: one hue per model (a palette by the model's place in
 * --model), dark at the kernel's size, light at the median. */
static const char *series_colour(size_t model_index, int mode)
{
    static const char *const dark[] = {"#1f5fa0", "#c0282d", "#2a8a3a",
                                       "#8a4fb0", "#b06a00"};
    static const char *const light[] = {"#8fb8e0", "#f0908f", "#93d09c",
                                        "#c9a6e0", "#f0b860"};
    size_t k = model_index % (sizeof(dark) / sizeof(*dark));

    return mode == SIZE_KERNEL ? dark[k] : light[k];
}

/* PREFIX.dat and .gp, then gnuplot: zcache hits against capacity, the
 * kernel's curve and every model's at each size mode, on one plot. */
static void plot_curves(void)
{
    char path[2][1100], title[256];
    outfile of[2] = {{0}};
    int bad = 0;
    FILE *f;

    if (snprintf(path[0], sizeof(path[0]), "%s.dat", o.plot) >=
            (int)sizeof(path[0]) ||
        snprintf(path[1], sizeof(path[1]), "%s.gp", o.plot) >=
            (int)sizeof(path[1]))
        die(2, "--plot %s: the name is too long", o.plot);
    /* the recording's name in a quoted gnuplot string */
    plot_text(title, sizeof(title), o.recording);
    if (!(f = outfile_open(&of[0], path[0])))
        goto fail;
    fprintf(f, "# zcache hits against zcache capacity: the kernel stream "
               "(pool 0), and each model at each size\n"
               "# capacity_mib kernel_stream");
    for (size_t i = 0; i < nresults; i++)
        fprintf(f, " %s@%s_size", results[i].model,
                size_name[results[i].mode]);
    fputc('\n', f);
    for (size_t c = 0; c < o.ncaps; c++) {
        fprintf(f, "%.4f %" PRIu64, (double)o.caps[c] / 1048576.0,
                ks.zc_hits[c]);
        for (size_t i = 0; i < nresults; i++)
            fprintf(f, " %" PRIu64, results[i].zc_hits[c]);
        fputc('\n', f);
    }
    if (outfile_close(&of[0]))
        goto fail;
    bad = 1;
    if (!(f = outfile_open(&of[1], path[1])))
        goto fail;
    plot_header(f, NAME, o.plot, path[0]);
    fprintf(f, "set key top left inside box opaque\nset grid\n"
               "set logscale x 2\nset xlabel 'zcache capacity (MiB)'\n"
               "set ylabel 'zcache hits (disk reads avoided)'\n");
    for (int t = 0; t < PLOT_TERMINALS; t++) {
        plot_terminal(f, o.plot, t);
        fprintf(f,
                "set title '%s: zcache hits behind the kernel and behind "
                "each model'\n"
                "plot '%s' using 1:2 with linespoints lw 3 pt 5 lc rgb "
                "'black' title 'kernel stream'",
                title, path[0]);
        for (size_t i = 0; i < nresults; i++) {
            size_t m = 0;
            while (m < o.nmodels && strcmp(o.models[m], results[i].model))
                m++;
            fprintf(f,
                    ", '' using 1:%zu with linespoints lw 2 pt %d lc rgb "
                    "'%s' title '%s, %s size'",
                    i + 3, results[i].mode == SIZE_KERNEL ? 7 : 6,
                    series_colour(m, results[i].mode), results[i].model,
                    size_name[results[i].mode]);
        }
        fputc('\n', f);
    }
    if (outfile_close(&of[1]))
        goto fail;
    plot_run(NAME, o.plot);
    return;
fail:
    fprintf(stderr, NAME ": cannot write %s: %s\n", path[bad], strerror(errno));
    outfile_discard(&of[0]);
    outfile_discard(&of[1]);
    outfile_discard(&out_file);
    exit(1);
}

/* ---- main --------------------------------------------------------------- */

static void cleanup(void)
{
    zc_trace_close(as.t);
    zc_content_close(as.src);
    free(as.a);
    free(as.samples);
    free(as.devs);
    free(ks.ev.e);
    free(model_ops.ev.e);
    zc_memo_destroy(memo);
    free(zca_path);
    free(model_list);
    free(kernel_path);
}

int main(int argc, char **argv)
{
    int status = 0;
    cli_init(NAME, undo);

    parse_args(argc, argv);
    if (o.progress < 0)
        o.progress = isatty(STDERR_FILENO);
    recording_paths();
    open_access(); /* its header: what the run reads, before any output */
    open_output();
    load_access();
    if (o.ncaps && o.memo_bytes && zc_memo_create((size_t)o.memo_bytes, &memo))
        die(1, "--memo: out of memory");
    play_kernel();
    run_models();
    if (o.plot)
        plot_curves();
    if (!strcmp(o.output, "json")) {
        json_output();
    } else {
        text_header();
        text_measures();
        text_curve();
    }
    if (o.out_path && outfile_close(&out_file)) {
        fprintf(stderr, NAME ": cannot write %s: %s\n", o.out_path,
                strerror(errno));
        outfile_discard(&out_file);
        status = 1;
    }
    cleanup();
    if (outfile_stdout_close(NAME))
        status = 1;
    return status;
}
