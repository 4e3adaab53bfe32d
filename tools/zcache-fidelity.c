/*
 * zcache-fidelity - how close libzcache's page-cache models come to the
 * kernel's page cache on a recorded run.
 *
 *   zcache-fidelity [OPTIONS] RECORDING
 *
 * The comparison is the library's fidelity run (zc_fidelity_*,
 * zcache_sim.h, which defines every measure): it opens the recording
 * NAME (NAME.zca, the access stream, through a session; NAME.kernel.zct,
 * the kernel's own page-cache stream), replays the access stream through
 * each model at each size and plays the kernel stream into a zcache per
 * capacity.  This tool parses the arguments, refuses an output over an
 * input, opens the output (-o) before the work, shows progress, and
 * formats the result: a text table, JSON, and the plot (fidelity_report.c).
 * Its warnings (a model whose op stream changed with the zcache behind
 * it; puts of pages the content source lacks) are the result's drift and
 * synthetic fields.
 *
 * Invariant (tests/fidelity.sh, tests/test_fidelity.c): a kernel stream
 * that is the lru model's own op stream at a constant capacity C
 * (zcache-replay --page-cache C --save-ops) beside an access stream whose
 * samples are all C gives model == kernel on every measure, an overlap of
 * 1, in both size modes.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "fidelity_report.h"
#include "outfile.h"
#include "plot.h"
#include "zcache.h"
#include "zcache_sim.h"

#define NAME "zcache-fidelity"
#define MAX_CAPS 64
#define MAX_MODELS 32

/* ---- options ------------------------------------------------------------ */

static struct {
    const char *recording;
    const char *output;             /* "text" or "json" */
    const char *out_path;           /* -o FILE, or NULL: standard output */
    const char *plot;               /* --plot PREFIX, or NULL */
    const char *models[MAX_MODELS]; /* --model: the registry's strings */
    size_t nmodels;
    uint64_t caps[MAX_CAPS]; /* --capacity: zcache capacities in bytes */
    size_t ncaps;
    zc_fidelity_options run; /* the rest: the library's defaults */
    int progress;            /* -1 auto */
} o = {.output = "text", .progress = -1};

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
    "      median   a fixed capacity: the median resident count over the",
    "               requests (each sample weighs the requests it held for;",
    "               the upper median), as NAME.info says",
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
    "        makes, at about the same point of its own eviction order once the",
    "        two orders are aligned: evictions only one side makes (pages",
    "        cached before the recording, reclaimed first; pages only one side",
    "        read ahead) are skipped, so a shift costs only those evictions.",
    "        The kernel's evictions are aligned with the model's, 16 U at a",
    "        time (U = max(W, 16)), by a longest common subsequence that",
    "        pays a pair for each model eviction it jumps over beyond W; each",
    "        kernel eviction's aligned point is the model position of the last",
    "        aligned pair at or before it, and it matches the earliest model",
    "        eviction of the same page (inode, index), not matched before,",
    "        within W of that point.  The window W is the median resident",
    "        count, the cache's size: a page evicted a whole cache turnover",
    "        from its point is another event.  The whole rule:",
    "        zc_fidelity_match() in zcache_sim.h.",
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
        if (!cli_model_known(m)) {
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
    const char *name;

    o.run.sizes = 0;
    for (const char *p = list;;) {
        size_t len = strcspn(p, ","), k;
        for (k = 0; (name = zc_fidelity_size_name(k)); k++)
            if (strlen(name) == len && !strncmp(p, name, len))
                break;
        if (!name)
            die_usage("--size-mode %s: want kernel, median, or "
                      "kernel,median",
                      list);
        o.run.sizes |= 1u << k;
        if (!p[len])
            break;
        p += len + 1;
    }
}

/* Capacities in bytes (zc_parse_size(): K/M/G; the run sorts them and
 * takes each once). */
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
    o.ncaps = n;
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
        o.run.zcache = v;
    else if (!strcmp(a, "--content"))
        o.run.content = v;
    else if (!strcmp(a, "--read-ahead-kb")) {
        if (cli_read_ahead(v, &o.run.read_ahead_kb))
            die_usage("--read-ahead-kb %s: want KiB from 0 to 4194304", v);
        o.run.read_ahead_set = true;
    } else if (!strcmp(a, "--memo")) {
        if (zc_parse_size(v, &o.run.memo_bytes) < 0)
            die_usage("--memo %s: want bytes with K/M/G, e.g. 512M", v);
        o.run.no_memo = !o.run.memo_bytes;
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
    } else if (!strcmp(a, "--plot")) {
        if (plot_prefix_error(v))
            die_usage("--plot: %s", plot_prefix_error(v));
        o.plot = v;
    } else
        die_usage("unknown option '%s'", a);
}

/* Each stage's start on stderr (--progress). */
static int progress(void *ctx, const zc_fidelity_step *st)
{
    (void)ctx;
    if (st->done)
        return 0;
    if (st->stage == ZC_FIDELITY_STAGE_LOAD)
        fprintf(stderr, NAME ": the access stream   \r");
    else if (st->stage == ZC_FIDELITY_STAGE_KERNEL)
        fprintf(stderr, NAME ": the kernel stream, %zu zcaches\r", st->zcaches);
    else
        fprintf(stderr, NAME ": %s, %s size: replay %zu of %zu   \r", st->model,
                zc_fidelity_size_name(st->size), st->replay, st->replays);
    return 0;
}

static void parse_args(int argc, char **argv)
{
    bool no_curve = false;
    char key[32];
    zc_config cfg = zc_config_default();
    char err[512];

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
    if (no_curve && o.plot)
        die_usage("%s", "--plot draws the curves: not with --no-curve");
    if (o.run.zcache &&
        zc_config_parse_error(&cfg, o.run.zcache, err, sizeof(err)))
        die_usage("--zcache: %s", err);
    o.run.models = o.models; /* none: every registered model */
    o.run.nmodels = o.nmodels;
    o.run.capacities = o.caps; /* none: 256K, 1M, 4M, 16M, 64M */
    o.run.ncapacities = o.ncaps;
    o.run.no_curve = no_curve;
    if (o.progress < 0)
        o.progress = isatty(STDERR_FILENO);
    o.run.progress = o.progress > 0 ? progress : NULL;
}

/* ---- the run ------------------------------------------------------------ */

/* The recording opened (its header read: what the run reads), the
 * outputs checked against its inputs and -o opened, before the work. */
static zc_fidelity *open_run(void)
{
    static const char *const plot_files[] = {".dat", ".gp", ".png", ".svg"};
    const zc_fidelity_result *res;
    zc_fidelity *f;
    char err[4096];
    int rc;

    if ((rc = zc_fidelity_open(o.recording, &o.run, &f, err, sizeof(err))))
        die(cli_status(rc), "%s", err);
    res = zc_fidelity_get(f);
    {
        /* no output over an input: the streams, the content's file */
        const char *in[2] = {res->access_path, res->kernel_path};
        if (o.out_path && strcmp(o.out_path, "-"))
            outfile_refuse_clash("-o", o.out_path, NULL, 0, in, 2,
                                 res->content);
        outfile_refuse_clash("--plot", o.plot, plot_files, 4, in, 2,
                             res->content);
        if (o.out_path && strcmp(o.out_path, "-"))
            outfile_refuse_same("-o", o.out_path, o.plot, plot_files, 4);
    }
    out = stdout;
    if (o.out_path && !strcmp(o.out_path, "-"))
        o.out_path = NULL; /* standard output */
    if (o.out_path && !(out = outfile_open(&out_file, o.out_path)))
        die(1, "cannot write %s: %s", o.out_path, strerror(errno));
    return f;
}

/* What the tool used to say as it ran: each row's drift and synthetic
 * puts. */
static void warnings(const zc_fidelity_result *res)
{
    for (size_t i = 0; i < res->nrows; i++) {
        const zc_fidelity_row *r = &res->rows[i];
        const char *size = zc_fidelity_size_name(r->size);
        if (r->drift)
            fprintf(stderr,
                    NAME ": %s, %s size: the model's zcache gets or "
                         "evictions differ from its op stream's, or change "
                         "with the zcache behind it; the op stream's are "
                         "reported\n",
                    r->model, size);
        if (r->synthetic)
            fprintf(stderr,
                    NAME ": %s, %s size: %" PRIu64 " evicted pages are not "
                         "in the content source (read ahead further than "
                         "the recording read): put with synthetic bytes\n",
                    r->model, size, r->synthetic);
    }
}

/* ---- main --------------------------------------------------------------- */

int main(int argc, char **argv)
{
    const zc_fidelity_result *res;
    zc_fidelity *f;
    int rc, status = 0;
    cli_init(NAME, undo);

    parse_args(argc, argv);
    f = open_run();
    if ((rc = zc_fidelity_compare(f)))
        die(cli_status(rc), "%s", zc_fidelity_error(f));
    if (o.progress > 0)
        fprintf(stderr, "%70s\r", "");
    res = zc_fidelity_get(f);
    warnings(res);
    if (o.plot)
        fidelity_plot(NAME, o.plot, res);
    if (!strcmp(o.output, "json"))
        fidelity_json(out, res);
    else
        fidelity_text(out, res);
    if (o.out_path && outfile_close(&out_file)) {
        fprintf(stderr, NAME ": cannot write %s: %s\n", o.out_path,
                strerror(errno));
        outfile_discard(&out_file);
        status = 1;
    }
    zc_fidelity_free(f);
    free(model_list);
    if (outfile_stdout_close(NAME))
        status = 1;
    return status;
}
